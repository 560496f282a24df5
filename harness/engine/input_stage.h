#pragma once
// What a loader thread does to make its share of a batch, by the input spec
// (input_spec.h): the slice makers that the input pipeline (input_pipeline.h)
// runs. The batches' content:
//
// - decode and read: exactly make_synthetic_batch's (models/synthetic_data.h)
//   for that step and worker, so parameters and losses equal a synthetic
//   run's; making an image's content is part of its stated cost (decode:
//   of its CPU time; read: it overlaps the wait), so an image costs its
//   stated time unless making it takes longer;
// - jpeg: a pool of kJpegPoolImages of the suite's synthetic images (samples
//   0 .. kJpegPoolImages - 1 of step 0), encoded once at the start (untimed)
//   and decoded per image into the float NCHW batch (jpeg_images.h says how
//   values map to samples); sample i of the global batch of step s is pool
//   image (s x global batch + i) mod kJpegPoolImages, with its label, so N
//   workers of batch B see what one worker of batch N x B sees.

#include <cstdint>

#include "harness/engine/input_pipeline.h"
#include "harness/engine/input_spec.h"
#include "models/model.h"

namespace gradsync {

inline constexpr int kJpegPoolImages = 256;

// What a worker's batches are made of.
struct InputRecipe {
  ImageShape shape;
  int classes = 10;
  std::uint64_t seed = 1;          // TrainSettings::data_seed
  std::uint64_t first_sample = 0;  // this worker's first sample of every step: rank x batch
  std::uint64_t global_batch = 1;  // the batch over all workers: workers x batch
  // False where nothing reads the images (emulated compute): decode and read
  // then pay their cost without making content (labels are 0); jpeg decodes
  // anyway, the decode being its cost.
  bool make_content = true;
};

// The slice maker of an active spec (jpeg: encodes the pool first). Throws
// std::invalid_argument for synthetic, which has no loader.
SliceMaker make_input_stage(const InputSpec& spec, const InputRecipe& recipe);

// Seconds of CPU time the calling thread has used (CLOCK_THREAD_CPUTIME_ID).
double thread_cpu_seconds();

}  // namespace gradsync
