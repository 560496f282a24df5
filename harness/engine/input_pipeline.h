#pragma once
// A worker's data loader (`train --input`): loader threads that make the
// step's batches ahead of it, in step order, through a bounded prefetch
// queue. What making a batch's images costs is the input stage's
// (input_stage.h); this is the threads, the queue, the waits and what they
// measured. As tf.data's parallel map with prefetch, or PyTorch's DataLoader
// with num_workers and prefetch_factor.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "harness/engine/timeline.h"
#include "models/synthetic_data.h"

namespace gradsync {

// Images first .. first + count - 1 of step `step`'s batch, to be written to
// `images` (count x the image's floats, NCHW) and `labels` (count).
struct InputSlice {
  int step = 0;
  int first = 0;
  int count = 0;
  float* images = nullptr;
  int* labels = nullptr;
};

// Makes one slice; called from every loader thread at once, so it must be
// thread-safe. `stop` turns true when the pipeline is destroyed: a long
// slice should then return early (what it wrote no longer matters). An
// exception it throws reaches the step that takes the batch.
using SliceMaker = std::function<void(const InputSlice& slice, const std::atomic<bool>& stop)>;

// What take() throws when the step gets no batch: a loader thread failed, or
// no batch came within the timeout (the input stage is slower than --timeout
// allows). Every worker's stage is the same, so every worker meets it alike.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What the loader threads measured over the batches of the counted steps.
struct LoaderStats {
  std::uint64_t images = 0, batches = 0;
  // Loader time per image: every thread's wall time making its slices,
  // summed over the threads, over the images they made.
  double seconds_per_image = 0;
  // A batch's wall time, from the first thread starting on it to the last
  // one finishing it, mean over the batches.
  double seconds_per_batch = 0;
};

struct InputPipelineOptions {
  int threads = 1;             // loader threads; each makes a fixed share of every batch
  int prefetch = 2;            // batches made ahead of the step (0: when the step asks)
  int steps = 0;               // batches to make, steps 0 .. steps - 1
  int first_counted_step = 0;  // LoaderStats counts the batches from this step on
  // take() gives up after this long without its batch: a std::runtime_error
  // (--timeout); <= 0 waits without bound.
  double timeout_s = 0;
  // Traces "load batch N" (category "input") for the steps its window covers,
  // each loader thread on thread kFirstLoaderThread + its index. Start the
  // timeline before building the pipeline.
  Timeline* timeline = nullptr;
};

// Loader threads for one worker. Thread t of T makes images
// [t x B / T, (t + 1) x B / T) of every batch (B the batch), so the threads
// split each batch's images among them; batch s may be made once the step
// has asked for batch s - prefetch (take(s - prefetch)), so that at most
// `prefetch` finished batches wait ahead of the step. The queue is a ring of
// prefetch + 1 batches: the one the step holds and those ahead of it.
// Destruction stops the threads and joins them, wherever the steps are.
// When the system refuses a thread, the constructor joins those started and
// throws one line naming --input-threads (thread_start.h).
class InputPipeline {
 public:
  InputPipeline(SliceMaker maker, std::size_t image_elements, int batch,
                const InputPipelineOptions& options);
  ~InputPipeline();
  InputPipeline(const InputPipeline&) = delete;
  InputPipeline& operator=(const InputPipeline&) = delete;

  // Step `step`'s batch, waiting until it is made; steps are taken in order,
  // from 0. The reference is valid until the next take(). Rethrows a loader
  // thread's exception as an InputError (one line naming the batch); throws
  // InputError when the batch does not come within the timeout.
  const SyntheticBatch& take(int step);

  LoaderStats stats() const;

 private:
  struct Slot {
    SyntheticBatch batch;
    int step = -1;        // the batch it holds or is being made
    int slices_done = 0;  // of options_.threads
    std::chrono::steady_clock::time_point started, finished;
  };

  void load(int thread);
  void stop();                // the loader threads return
  bool made(int step) const;  // under mu_

  SliceMaker maker_;
  std::size_t image_elements_;
  int batch_;
  InputPipelineOptions options_;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::vector<Slot> slots_;
  int asked_ = 0;  // take(s) was called for every s < asked_
  std::exception_ptr error_;
  std::atomic<bool> stop_{false};
  double busy_s_ = 0, batch_s_ = 0;  // counted steps only
  std::uint64_t images_ = 0, batches_ = 0;
  std::vector<std::thread> threads_;
};

}  // namespace gradsync
