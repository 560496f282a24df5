// The synchronizer: fusion buckets, a communication thread, averaging.
//
// Backward calls ready(i) as each gradient is final. The main thread appends
// the gradient to the open bucket by copying it into the bucket's buffer (the
// pack), and closes the bucket once its bytes reach the fusion threshold (see
// fusion_plan.h for the rule). Closed buckets go, in order, to one
// communication thread, which runs strategy.allreduce on the bucket's buffer,
// then copies each gradient's slice back, divided by the number of workers
// (the unpack). A gradient that fills a bucket by itself (always, with fusion
// off) is reduced in place on the gradient: no pack, no copy back, only the
// division. With overlap on, a bucket is reduced as soon as it closes, while
// backward goes on; with overlap off, the thread waits for finish().
//
// Cost on top of the strategy, per step: one copy of every fused gradient in
// (pack), one read-divide-write pass out (unpack), so about three passes over
// the fused gradient bytes, all memory-bound; bench/fusion_bench.cc measures it.
//
// Bucket composition depends only on the order and the sizes of the ready()
// calls. Every worker hands over the same gradients in the same order, so every
// worker forms identical buckets and makes the same allreduce calls, in the
// same order, with the same counts: that is what makes the collectives match
// across ranks.
//
// Buffers are kept from step to step: the first step allocates the buckets of
// its layout, and later steps that hand gradients over in the same order only
// copy. The thread lives as long as the synchronizer. MPI runs with
// MPI_THREAD_SERIALIZED: the communication thread calls the strategy only
// while the main thread is in backward (which makes no MPI calls) or blocked
// in finish().
//
// Memory: the buckets, the pack, the fence between packing and reducing, and
// the averaging go through a GradientMemory (gradient_memory.h). For host
// gradients that is a vector per bucket, memcpy and a division loop; for a
// model on a GPU (Model::DeviceState) the buckets are device memory, packs are
// copies queued on the model's stream, each closed bucket records an event
// there that the communication thread waits for before the allreduce, and the
// averaging runs on cuBLAS, waited for before the bucket counts as done
// (gradient_memory_cuda.cc). The communication thread makes the model's GPU
// its current device first. Staging time (strategy.staging_seconds(), the
// copies a staged strategy makes between host and device memory) is counted
// per step apart, as part of the allreduce time.
//
// Tracing (set_trace) reports the pack, allreduce, unpack and wait spans from
// the clock readings the stats take anyway; untraced, it costs one atomic
// load per ready() and per bucket.
#include "harness/engine/synchronizer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include "harness/engine/fusion_plan.h"
#include "harness/engine/gradient_memory.h"

namespace gradsync {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double seconds_between(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double>(end - start).count();
}

std::string bucket_event(const char* what, std::size_t bucket) {
  return std::string(what) + " bucket " + std::to_string(bucket);
}

}  // namespace

struct GradientSynchronizer::Impl {
  struct Bucket {
    std::vector<std::size_t> members;  // gradient indices, in the order handed over
    std::vector<std::size_t> offsets;  // where each member starts in `buffer`
    std::size_t elements = 0;
    bool in_place = false;    // a single gradient, reduced where it lies
    float* buffer = nullptr;  // the packed members in memory_'s bucket buffer (unused in place)
  };

  Impl(Strategy& strategy, std::vector<std::span<float>> gradients, SyncOptions options,
       const Model::DeviceState* device);
  ~Impl();
  void ready(std::size_t index);
  SyncStats finish();

  // Main thread.
  Bucket& open_bucket();
  void place(std::size_t index, bool in_place);
  void close_open();
  void reset_step();
  // Communication thread.
  void communicate();
  void reduce(Bucket& bucket, std::size_t index);

  Strategy& strategy_;
  const std::vector<std::span<float>> gradients_;
  const FusionRule rule_;
  const bool overlap_;
  const bool sums_;  // false for `none`: nothing to reduce, nothing to average
  const float workers_;
  const std::unique_ptr<GradientMemory> memory_;  // the buckets' buffers, one per possible bucket
  std::atomic<TraceSink*> trace_{nullptr};

  // The step as the main thread builds it.
  std::vector<char> handed_;  // per gradient: ready() called this step
  std::size_t handed_count_ = 0;
  std::size_t open_ = 0;           // the bucket being filled
  std::size_t slot_ = 0;           // members placed in it so far
  std::size_t open_elements_ = 0;  // elements placed in it so far
  double pack_s_ = 0;
  std::size_t bytes_ = 0;

  // Shared with the communication thread, under mu_. buckets_ has capacity for
  // one bucket per gradient, so it never reallocates; the thread touches only
  // closed buckets, the main thread only the open one.
  std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  std::vector<Bucket> buckets_;
  std::size_t closed_ = 0;  // buckets closed this step
  std::size_t done_ = 0;    // of those, reduced (or skipped after an error)
  bool go_;                 // reduce closed buckets now: overlap, or inside finish()
  bool stop_ = false;
  std::exception_ptr error_;  // the first error of the step
  double allreduce_s_ = 0;    // written by the thread; read after done_ == closed_
  double staging_s_ = 0;
  double unpack_s_ = 0;

  std::thread thread_;
};

GradientSynchronizer::Impl::Impl(Strategy& strategy, std::vector<std::span<float>> gradients,
                                 SyncOptions options, const Model::DeviceState* device)
    : strategy_(strategy),
      gradients_(std::move(gradients)),
      rule_(options.fusion_mb),
      overlap_(options.overlap),
      sums_(strategy.synchronizes()),
      workers_(static_cast<float>(strategy.peers().size())),
      memory_(device ? make_device_gradient_memory(*device, gradients_.size())
                     : make_host_gradient_memory(gradients_.size())),
      handed_(gradients_.size(), 0),
      go_(options.overlap) {
  if (!strategy.is_worker())
    throw std::invalid_argument("the gradient synchronizer runs on workers; rank " +
                                std::to_string(strategy.peers().rank()) +
                                " only serves (call serve() there)");
  if (!strategy.accepts(memory_->kind()))
    throw std::invalid_argument(std::string("strategy ") + std::string(strategy.name()) +
                                " does not take " + std::string(to_string(memory_->kind())) +
                                " buffers: build it for them (make_strategy's `buffers`)");
  buckets_.reserve(gradients_.size());
  thread_ = std::thread([this] { communicate(); });
}

GradientSynchronizer::Impl::~Impl() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;  // buckets not yet reduced are dropped
  }
  work_cv_.notify_all();
  thread_.join();
}

GradientSynchronizer::Impl::Bucket& GradientSynchronizer::Impl::open_bucket() {
  if (open_ == buckets_.size()) {
    std::lock_guard lock(mu_);
    buckets_.emplace_back();
  }
  return buckets_[open_];
}

void GradientSynchronizer::Impl::place(std::size_t index, bool in_place) {
  Bucket& bucket = open_bucket();
  const std::span<float> gradient = gradients_[index];
  const bool same_layout = slot_ < bucket.members.size() && bucket.members[slot_] == index &&
                           bucket.in_place == in_place;
  if (!same_layout) {  // the first step, or gradients came in another order than last step
    bucket.members.resize(slot_);
    bucket.offsets.resize(slot_);
    bucket.members.push_back(index);
    bucket.offsets.push_back(open_elements_);
    bucket.in_place = in_place;
  }
  if (!in_place && sums_) {
    TraceSink* trace = trace_.load(std::memory_order_relaxed);
    const auto start = trace ? Clock::now() : Clock::time_point();
    const std::size_t offset = bucket.offsets[slot_];
    bucket.buffer = memory_->grow(open_, offset + gradient.size());
    memory_->pack(bucket.buffer + offset, gradient);
    if (trace) trace->event(bucket_event("pack", open_), "pack", start, Clock::now(), 0);
  }
  ++slot_;
  open_elements_ += gradient.size();
}

void GradientSynchronizer::Impl::close_open() {
  Bucket& bucket = buckets_[open_];
  bucket.members.resize(slot_);
  bucket.offsets.resize(slot_);
  bucket.elements = open_elements_;
  bytes_ += open_elements_ * sizeof(float);
  memory_->close(open_);
  {
    std::lock_guard lock(mu_);
    ++closed_;
  }
  work_cv_.notify_one();
  ++open_;
  slot_ = 0;
  open_elements_ = 0;
}

void GradientSynchronizer::Impl::ready(std::size_t index) {
  if (index >= gradients_.size())
    throw std::out_of_range("gradient " + std::to_string(index) + " does not exist (there are " +
                            std::to_string(gradients_.size()) + ")");
  if (handed_[index])
    throw std::logic_error("gradient " + std::to_string(index) +
                           " was handed over twice in one step");
  handed_[index] = 1;
  ++handed_count_;
  const auto start = Clock::now();
  if (rule_.alone(gradients_[index].size_bytes())) {
    if (slot_ > 0) close_open();
    place(index, true);
    close_open();
  } else {
    place(index, false);
    if (rule_.full(open_elements_ * sizeof(float))) close_open();
  }
  pack_s_ += seconds_since(start);
}

SyncStats GradientSynchronizer::Impl::finish() {
  if (handed_count_ != gradients_.size()) {
    const std::size_t missing = gradients_.size() - handed_count_;
    {
      // Drop what has not started, let what has started end, and begin afresh.
      std::unique_lock lock(mu_);
      if (!go_) closed_ = done_;
      done_cv_.wait(lock, [&] { return done_ == closed_; });
    }
    reset_step();
    throw std::logic_error("finish() called with " + std::to_string(missing) +
                           " gradient(s) not handed over with ready()");
  }
  if (slot_ > 0) close_open();
  SyncStats stats;
  std::exception_ptr error;
  const auto start = Clock::now();
  {
    std::unique_lock lock(mu_);
    go_ = true;
    work_cv_.notify_one();
    done_cv_.wait(lock, [&] { return done_ == closed_; });
    stats.buckets = closed_;
    error = std::exchange(error_, nullptr);
  }
  const auto end = Clock::now();
  stats.wait_s = seconds_between(start, end);
  if (TraceSink* trace = trace_.load(std::memory_order_relaxed))
    trace->event("wait for communication", "wait", start, end, 0);
  stats.pack_s = pack_s_;
  stats.allreduce_s = allreduce_s_;
  stats.staging_s = staging_s_;
  stats.unpack_s = unpack_s_;
  stats.bytes = bytes_;
  reset_step();
  if (error) std::rethrow_exception(error);
  return stats;
}

void GradientSynchronizer::Impl::reset_step() {
  {
    std::lock_guard lock(mu_);
    closed_ = 0;
    done_ = 0;
    go_ = overlap_;
    error_ = nullptr;
  }
  allreduce_s_ = 0;
  staging_s_ = 0;
  unpack_s_ = 0;
  std::fill(handed_.begin(), handed_.end(), 0);
  handed_count_ = 0;
  open_ = 0;
  slot_ = 0;
  open_elements_ = 0;
  pack_s_ = 0;
  bytes_ = 0;
}

void GradientSynchronizer::Impl::communicate() {
  std::exception_ptr bind_error;  // reported by every bucket: none can be reduced
  try {
    memory_->bind_thread();
  } catch (...) {
    bind_error = std::current_exception();
  }
  std::unique_lock lock(mu_);
  for (;;) {
    work_cv_.wait(lock, [&] { return stop_ || (go_ && done_ < closed_); });
    if (stop_) return;
    const std::size_t index = done_;
    Bucket& bucket = buckets_[index];
    // After an error the rest of the step is skipped, so that finish() returns
    // (and rethrows) instead of waiting on a strategy that has already failed.
    const bool skip = error_ != nullptr;
    lock.unlock();
    std::exception_ptr error = bind_error;
    if (!skip && !error) {
      try {
        reduce(bucket, index);
      } catch (...) {
        error = std::current_exception();
      }
    }
    lock.lock();
    if (error && !error_) error_ = error;
    if (++done_ == closed_) done_cv_.notify_all();
  }
}

void GradientSynchronizer::Impl::reduce(Bucket& bucket, std::size_t index) {
  if (!sums_) return;  // `none` leaves every gradient as backward left it
  TraceSink* trace = trace_.load(std::memory_order_relaxed);
  const float workers = workers_;
  const std::span<float> reduced = bucket.in_place
                                      ? gradients_[bucket.members.front()]
                                      : std::span<float>(bucket.buffer, bucket.elements);
  memory_->wait_closed(index);
  const double staged_before = strategy_.staging_seconds();
  const auto start = Clock::now();
  strategy_.allreduce(reduced);
  const auto reduced_at = Clock::now();
  allreduce_s_ += seconds_between(start, reduced_at);
  staging_s_ += strategy_.staging_seconds() - staged_before;
  if (trace)
    trace->event(bucket_event("allreduce", index) + " (" + std::to_string(reduced.size_bytes()) +
                     " bytes)",
                 "allreduce", start, reduced_at, 1);
  if (bucket.in_place) {
    if (workers != 1.0f) memory_->average(reduced, reduced.data(), workers);
  } else {
    for (std::size_t k = 0; k < bucket.members.size(); ++k)
      memory_->average(gradients_[bucket.members[k]], bucket.buffer + bucket.offsets[k], workers);
  }
  memory_->unpacked();
  const auto unpacked_at = Clock::now();
  unpack_s_ += seconds_between(reduced_at, unpacked_at);
  if (trace) trace->event(bucket_event("unpack", index), "unpack", reduced_at, unpacked_at, 1);
}

GradientSynchronizer::GradientSynchronizer(Strategy& strategy,
                                           std::vector<std::span<float>> gradients,
                                           SyncOptions options, const Model::DeviceState* device)
    : impl_(std::make_unique<Impl>(strategy, std::move(gradients), options, device)) {}

GradientSynchronizer::~GradientSynchronizer() = default;

void GradientSynchronizer::ready(std::size_t index) { impl_->ready(index); }

SyncStats GradientSynchronizer::finish() { return impl_->finish(); }

void GradientSynchronizer::set_trace(TraceSink* sink) {
  impl_->trace_.store(sink, std::memory_order_relaxed);
}

}  // namespace gradsync
