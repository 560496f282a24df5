// The loader's threads and queue. Every loader thread walks the steps in
// order and makes its own share of each batch; the only coordination is one
// mutex and one condition variable over a ring of prefetch + 1 slots:
//
// - a thread may start on batch s once s < asked + prefetch, where asked is
//   one past the last step that took its batch. Batch s then lands in slot
//   s mod (prefetch + 1), whose previous batch, s - prefetch - 1, the step
//   has already given back (it asked for s - prefetch since), so no slot is
//   overwritten while read, and at most `prefetch` batches are made ahead;
// - the thread that finishes the last slice of a batch marks it made; the
//   step waits for that (bounded by the timeout), so batches reach it in
//   step order whatever order the threads finish in.
//
// The slices are made outside the lock, so the threads work in parallel and
// a thread may run up to the window's edge ahead of a slower one. An
// exception from a slice is kept (the first one) and ends that thread; the
// step rethrows it. Destruction sets `stop` (which a long slice checks),
// wakes every waiting thread and joins them.

#include "harness/engine/input_pipeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "strategies/core/thread_start.h"

namespace gradsync {
namespace {

using LoaderClock = std::chrono::steady_clock;
double loader_seconds(LoaderClock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

InputPipeline::InputPipeline(SliceMaker maker, std::size_t image_elements, int batch,
                             const InputPipelineOptions& options)
    : maker_(std::move(maker)), image_elements_(image_elements), batch_(batch), options_(options) {
  if (options_.threads < 1 || options_.prefetch < 0 || batch_ < 1)
    throw std::invalid_argument("input pipeline: threads and batch at least 1, prefetch 0 or more");
  slots_.resize(std::size_t(options_.prefetch) + 1);
  for (Slot& slot : slots_) {
    slot.batch.images.assign(std::size_t(batch_) * image_elements_, 0.0f);
    slot.batch.labels.assign(batch_, 0);
  }
  threads_ = start_threads(
      fmt::format("--input-threads {}", options_.threads), options_.threads,
      [this](int t) { load(t); }, [this] { stop(); });
}

InputPipeline::~InputPipeline() {
  stop();
  for (auto& thread : threads_) thread.join();
}

void InputPipeline::stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  changed_.notify_all();
}

bool InputPipeline::made(int step) const {
  const Slot& slot = slots_[std::size_t(step) % slots_.size()];
  return slot.step == step && slot.slices_done == options_.threads;
}

void InputPipeline::load(int thread) {
  const int first = int(std::int64_t(thread) * batch_ / options_.threads);
  const int last = int(std::int64_t(thread + 1) * batch_ / options_.threads);
  for (int step = 0; step < options_.steps; ++step) {
    Slot* slot = nullptr;
    {
      std::unique_lock lock(mu_);
      changed_.wait(lock, [&] { return stop_ || step < asked_ + options_.prefetch; });
      if (stop_) return;
      slot = &slots_[std::size_t(step) % slots_.size()];
      if (slot->step != step) {  // the first thread to reach this batch
        slot->step = step;
        slot->slices_done = 0;
        slot->started = LoaderClock::time_point::max();
        slot->finished = LoaderClock::time_point::min();
      }
    }
    const auto start = LoaderClock::now();
    try {
      if (last > first)
        maker_({.step = step,
                .first = first,
                .count = last - first,
                .images = slot->batch.images.data() + std::size_t(first) * image_elements_,
                .labels = slot->batch.labels.data() + first},
               stop_);
    } catch (const std::exception& e) {
      std::lock_guard lock(mu_);
      if (!error_)
        error_ = std::make_exception_ptr(InputError(
            fmt::format("input loader thread {}, batch {}: {}", thread, step, e.what())));
      changed_.notify_all();
      return;
    }
    const auto end = LoaderClock::now();
    const bool counted = step >= options_.first_counted_step;
    {
      std::lock_guard lock(mu_);
      slot->started = std::min(slot->started, start);
      slot->finished = std::max(slot->finished, end);
      if (counted) {
        busy_s_ += loader_seconds(end - start);
        images_ += std::uint64_t(last - first);
      }
      if (++slot->slices_done == options_.threads) {
        if (counted) {
          batch_s_ += loader_seconds(slot->finished - slot->started);
          ++batches_;
        }
        changed_.notify_all();
      }
    }
    if (options_.timeline && options_.timeline->window().covers(step))
      options_.timeline->event(fmt::format("load batch {}", step), "input", start, end,
                               kFirstLoaderThread + thread);
  }
}

const SyntheticBatch& InputPipeline::take(int step) {
  std::unique_lock lock(mu_);
  if (step != asked_ || step >= options_.steps)
    throw std::logic_error(fmt::format("input pipeline: step {} taken after step {} (of {})", step,
                                       asked_ - 1, options_.steps));
  asked_ = step + 1;
  changed_.notify_all();
  const auto ready = [&] { return error_ || made(step); };
  if (options_.timeout_s > 0) {
    const auto timeout = std::chrono::duration<double>(options_.timeout_s);
    if (!changed_.wait_for(lock, timeout, ready))
      throw InputError(fmt::format(
          "the input stage waited longer than --timeout: no batch for step {} within {:g} s ({} "
          "loader thread(s))",
          step, options_.timeout_s, options_.threads));
  } else {
    changed_.wait(lock, ready);
  }
  if (error_) std::rethrow_exception(error_);
  return slots_[std::size_t(step) % slots_.size()].batch;
}

LoaderStats InputPipeline::stats() const {
  std::lock_guard lock(mu_);
  return {.images = images_,
          .batches = batches_,
          .seconds_per_image = images_ ? busy_s_ / double(images_) : 0,
          .seconds_per_batch = batches_ ? batch_s_ / double(batches_) : 0};
}

}  // namespace gradsync
