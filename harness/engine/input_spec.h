#pragma once
// What the input stage of a training step costs (`train --input`), as a
// data loader would: a worker's batches come from loader threads through a
// prefetch queue instead of appearing for free. The stage as the engine and
// the cost model take it; its one spelling, for the command line, the
// record and the report's workload, is harness/results/input_text.h:
//
//   synthetic          the default: batches cost nothing (the suite's
//                      synthetic data, made before the step's clock starts)
//   decode:2ms         every image costs this much CPU work on a loader
//   decode:500us       thread (busy work, timed on the thread's CPU clock,
//                      so that it takes cores from compute, MPI progress and
//                      the parameter server as a real decode would)
//   read:110K@200      every image is this many bytes read at this rate in
//                      MB/s (10^6 bytes/s) per worker (a wait, no CPU: a
//                      storage or network file system bound)
//   jpeg               a real decode: the suite's images, encoded once as
//   jpeg:75            JPEG (quality 90 unless given), are decoded by
//                      libjpeg-turbo on the loader threads, measured
//
// and, for any but synthetic, how many loader threads each worker runs
// (`--input-threads`, 1) and how many batches they may hold ready ahead of
// the step (`--input-prefetch`, 2: PyTorch DataLoader's prefetch_factor).

namespace gradsync {

enum class InputKind { synthetic, decode, read, jpeg };

struct InputSpec {
  InputKind kind = InputKind::synthetic;
  double decode_us = 0;      // decode: CPU microseconds per image
  double image_bytes = 0;    // read: bytes per image
  double read_mb_per_s = 0;  // read: MB/s (10^6 bytes/s) per worker
  int jpeg_quality = 90;     // jpeg: quality the images are encoded at
  int threads = 1;           // loader threads per worker
  int prefetch = 2;          // batches held ready ahead of the step (0: made on demand)

  // False for synthetic: no loader runs.
  bool active() const { return kind != InputKind::synthetic; }
  // Seconds of loader time one image takes by the spec alone (decode: its
  // CPU work; read: bytes / rate); 0 for synthetic, and for jpeg, whose cost
  // is measured, not stated.
  double stated_image_s() const;
};

// Throws std::invalid_argument unless 1 <= threads <= 4096 (kMaxThreadsPerOption)
// and 0 <= prefetch <= 64.
void check_input(const InputSpec& spec);

}  // namespace gradsync
