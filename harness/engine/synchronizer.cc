// The synchronizer: fusion buckets, a communication thread, averaging.
//
// Backward calls ready(i) as each gradient is final. The main thread appends
// the gradient to the open bucket and closes the bucket once its bytes reach
// the fusion threshold (see fusion_plan.h for the rule). Closed buckets go, in
// order, to one communication thread, which runs strategy.allreduce on the
// bucket and then divides by the number of workers (unless the caller divides
// itself, SyncOptions::average false).
//
// Where a bucket is reduced (gradients as bucket views). A bucket is a run of
// consecutive gradients in hand-over order. When they lie back to back in
// memory in that order, which is how a model lays out its gradient block
// (models/gradient_block.h), the bucket IS that slice of memory: the strategy
// reduces it in place and the averaging, if any, is one in-place pass; nothing
// is copied. The check is made gradient by gradient as they are handed over:
// each must start where the previous one ended. The first one that does not
// (gradients in separate allocations, a model whose backward hands them over
// in another order than its layout, a test's scrambled order) turns the bucket
// into a packed one: the gradients so far and every later one are copied into
// a bucket buffer (the pack), and after the allreduce each slice is copied back
// to its gradient, divided by the workers in the same pass (the unpack). A
// bucket of one gradient (always, with fusion off) is always in place. With
// overlap on, a bucket is reduced as soon as it closes, while backward goes
// on; with overlap off, the thread waits for finish().
//
// Cost on top of the strategy, per step: nothing for buckets in place at one
// worker (or when the caller divides), one read-divide-write pass otherwise;
// for packed buckets one copy of every fused gradient in and one
// read-divide-write pass out, about three passes over the fused bytes, all
// memory-bound. bench/fusion_bench.cc measures both layouts.
//
// Bucket composition depends only on the order and the sizes of the ready()
// calls. Every worker hands over the same gradients in the same order, so every
// worker forms identical buckets and makes the same allreduce calls, in the
// same order, with the same counts: that is what makes the collectives match
// across ranks.
//
// Buffers are kept from step to step: the first step allocates the packed
// buckets of its layout, and later steps that hand gradients over in the same
// order only copy. The thread lives as long as the synchronizer. MPI runs with
// MPI_THREAD_SERIALIZED: the communication thread calls the strategy only
// while the main thread is in backward (which makes no MPI calls) or blocked
// in finish().
//
// Memory: the bucket buffers, the pack, the fence between backward (or
// packing) and reducing, and the averaging go through a GradientMemory
// (gradient_memory.h). For host gradients that is a vector per bucket, memcpy
// and a division loop; for a model on a GPU (Model::DeviceState) the bucket
// buffers are device memory, packs are copies queued on the model's stream,
// each closed bucket (view or packed) records an event there that the
// communication thread waits for before the allreduce, and the averaging runs
// on cuBLAS, waited for before the bucket counts as done
// (gradient_memory_cuda.cc). The communication thread makes the model's GPU
// its current device first. Staging time (strategy.staging_seconds(), the
// copies a staged strategy makes between host and device memory) is counted
// per step apart, as part of the allreduce time.
//
// The stall inspector (strategies/core/activity.h) learns which bucket the thread
// is reducing ("bucket 3"; the train loop says which step): two atomic stores
// per bucket.
//
// Switching the threshold (set_fusion_mb, `--fusion-mb auto`): between
// steps only, so the rule is the main thread's alone. The buckets' cached
// members are checked against each hand-over anyway (a new layout rewrites
// them), and the packed buckets' buffers are freed: a buffer kept per bucket
// index across thresholds would grow to the largest bucket of that index
// under any threshold (bucket 0 the whole model under the largest), about
// log(buckets) times the gradients in all, where one threshold needs at most
// the gradients' bytes. Buckets reduced where they lie (every model's) hold no
// buffer at all.
//
// Forward order (SyncOrder::forward): synchronizer_forward.cc.
//
// Tracing (set_trace) reports the pack, allreduce, unpack (when a bucket is
// copied back or averaged) and wait spans from the clock readings the stats
// take anyway; untraced, it costs one atomic load per ready() and per bucket.
#include "harness/engine/synchronizer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include "harness/engine/fusion_plan.h"
#include "harness/engine/gradient_memory.h"
#include "harness/engine/synchronizer_impl.h"
#include "strategies/core/activity.h"
#include "strategies/core/thread_start.h"

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

GradientSynchronizer::Impl::Impl(Strategy& strategy, std::vector<std::span<float>> gradients,
                                 SyncOptions options, const Model::DeviceState* device)
    : strategy_(strategy),
      gradients_(std::move(gradients)),
      rule_(options.fusion_mb),
      fusion_mb_(options.fusion_mb),
      overlap_(options.overlap),
      by_forward_(options.order == SyncOrder::forward),
      sums_(strategy.synchronizes()),
      scatters_(options.reduce_scatter),
      divisor_(options.average ? static_cast<float>(strategy.peers().size()) : 1.0f),
      memory_(device ? make_device_gradient_memory(*device, gradients_.size())
                     : make_host_gradient_memory(gradients_.size())),
      handed_(gradients_.size(), 0),
      order_(gradients_.size()),
      pending_(gradients_.size(), 0),
      go_(options.overlap) {
  if (!strategy.is_worker())
    throw std::invalid_argument("the gradient synchronizer runs on workers; rank " +
                                std::to_string(strategy.peers().rank()) +
                                " only serves (call serve() there)");
  if (scatters_ && (options.average || by_forward_ || device))
    throw std::invalid_argument(
        "a sharded synchronizer leaves sums in host memory in arrival order (no averaging, no "
        "forward order, no device gradients)");
  if (!strategy.accepts(memory_->kind()))
    throw std::invalid_argument(std::string("strategy ") + std::string(strategy.name()) +
                                " does not take " + std::string(to_string(memory_->kind())) +
                                " buffers: build it for them (make_strategy's `buffers`)");
  reserve_buckets();
  if (by_forward_ && sums_ && strategy.peers().size() > 1)
    agreement_.emplace(strategy.peers().duplicate());
  thread_ = start_thread("the gradient synchronizer's communication thread",
                         [this] { return std::thread([this] { communicate(); }); });
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

void GradientSynchronizer::Impl::place(std::size_t index) {
  Bucket& bucket = open_bucket();
  const std::span<float> gradient = gradients_[index];
  const bool same_layout = slot_ < bucket.members.size() && bucket.members[slot_] == index;
  if (!same_layout) {  // the first step, or gradients came in another order than last step
    bucket.members.resize(slot_);
    bucket.offsets.resize(slot_);
    bucket.members.push_back(index);
    bucket.offsets.push_back(open_elements_);
  }
  if (slot_ == 0) {
    bucket.packed = false;
    bucket.data = nullptr;
    bucket.memory_slot = memory_slots_;
  }
  // Empty gradients occupy no memory: they neither start nor break a view.
  if (sums_ && !gradient.empty()) {
    if (open_elements_ == 0) {
      bucket.data = gradient.data();  // the view starts here
    } else if (bucket.packed || gradient.data() != bucket.data + open_elements_) {
      if (!bucket.packed) {  // not back to back: the members so far go into the buffer first
        bucket.packed = true;
        for (std::size_t k = 0; k < slot_; ++k) pack(bucket, k);
      }
      pack(bucket, slot_);
    }
  }
  ++slot_;
  open_elements_ += gradient.size();
}

void GradientSynchronizer::Impl::pack(Bucket& bucket, std::size_t slot) {
  TraceSink* trace = trace_.load(std::memory_order_relaxed);
  const auto start = trace ? Clock::now() : Clock::time_point();
  const std::span<float> gradient = gradients_[bucket.members[slot]];
  const std::size_t offset = bucket.offsets[slot];
  memory_->pack(memory_->grow(bucket.memory_slot, offset + gradient.size()) + offset, gradient);
  packed_bytes_ += gradient.size_bytes();
  if (trace) trace->event(bucket_event("pack", open_), "pack", start, Clock::now(), 0);
}

void GradientSynchronizer::Impl::close_open(bool piece) {
  Bucket& bucket = buckets_[open_];
  bucket.members.resize(slot_);
  bucket.offsets.resize(slot_);
  bucket.elements = open_elements_;
  if (bucket.packed) bucket.data = memory_->grow(bucket.memory_slot, open_elements_);
  bytes_ += open_elements_ * sizeof(float);
  bucket.first_needed =
      bucket.members.empty() ? 0 : *std::min_element(bucket.members.begin(), bucket.members.end());
  memory_->close(bucket.memory_slot);
  {
    std::lock_guard lock(mu_);
    bucket.taken = false;
    for (std::size_t member : bucket.members) ++pending_[member];
    ++closed_;
  }
  work_cv_.notify_one();
  ++open_;
  if (!piece) ++memory_slots_;
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
  order_[handed_count_++] = index;
  const auto start = Clock::now();
  if (rule_.alone(gradients_[index].size_bytes())) {
    if (slot_ > 0) close_open();
    const std::size_t piece = piece_elements();
    if (piece > 0 && gradients_[index].size() > piece) {
      place_pieces(index, piece);
    } else {
      place(index);
      close_open();
    }
  } else {
    place(index);
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
    step_closed_ = true;
    work_cv_.notify_one();
    done_cv_.wait(lock, [&] { return done_ == closed_; });
    stats.buckets = closed_;
    error = std::exchange(error_, nullptr);
  }
  const auto end = Clock::now();
  stats.wait_s = seconds_between(start, end) + awaited_s_;
  if (TraceSink* trace = trace_.load(std::memory_order_relaxed))
    trace->event("wait for communication", "wait", start, end, 0);
  stats.pack_s = pack_s_;
  stats.allreduce_s = allreduce_s_;
  stats.staging_s = staging_s_;
  stats.unpack_s = unpack_s_;
  stats.bytes = bytes_;
  stats.packed_bytes = packed_bytes_;
  last_buckets_ = stats.buckets;
  reset_step();
  stepped_ = true;
  if (error) std::rethrow_exception(error);
  return stats;
}

void GradientSynchronizer::Impl::reset_step() {
  {
    std::lock_guard lock(mu_);
    closed_ = 0;
    taken_ = 0;
    done_ = 0;
    go_ = overlap_;
    step_closed_ = false;
    error_ = nullptr;
    agreed_ = 0;
    all_agreed_ = false;
    std::fill(pending_.begin(), pending_.end(), 0);
  }
  awaited_s_ = 0;
  allreduce_s_ = 0;
  staging_s_ = 0;
  unpack_s_ = 0;
  std::fill(handed_.begin(), handed_.end(), 0);
  handed_count_ = 0;
  open_ = 0;
  memory_slots_ = 0;
  slot_ = 0;
  open_elements_ = 0;
  pack_s_ = 0;
  bytes_ = 0;
  packed_bytes_ = 0;
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
    work_cv_.wait(lock, [&] { return stop_ || (go_ && taken_ < closed_); });
    if (stop_) return;
    // After an error the rest of the step is skipped, so that finish() returns
    // (and rethrows) instead of waiting on a strategy that has already failed.
    bool skip = error_ != nullptr;
    std::exception_ptr error = bind_error;
    std::size_t index = taken_;  // arrival order: the oldest not taken
    if (by_forward_) {
      try {
        if (!skip && !error) index = pick_by_forward(lock);
      } catch (...) {
        error = std::current_exception();
      }
      if (stop_) return;
      if (skip || error) {  // any bucket not taken: the rest of the step is skipped
        index = 0;
        while (buckets_[index].taken) ++index;
      }
    }
    Bucket& bucket = buckets_[index];
    bucket.taken = true;
    ++taken_;
    lock.unlock();
    if (!skip && !error) {
      try {
        reduce(bucket, index);
      } catch (...) {
        error = std::current_exception();
      }
    }
    lock.lock();
    if (error && !error_) error_ = error;
    for (std::size_t member : bucket.members) --pending_[member];
    if (++done_ == closed_ || by_forward_) done_cv_.notify_all();
  }
}

void GradientSynchronizer::Impl::reduce(Bucket& bucket, std::size_t index) {
  if (!sums_) return;  // `none` leaves every gradient as backward left it
  TraceSink* trace = trace_.load(std::memory_order_relaxed);
  const std::span<float> reduced(bucket.data, bucket.elements);
  memory_->wait_closed(bucket.memory_slot);
  const double staged_before = strategy_.staging_seconds();
  set_activity_item("bucket", static_cast<long>(index));  // for the stall inspector
  const auto start = Clock::now();
  if (scatters_)
    strategy_.reduce_scatter(reduced);
  else
    strategy_.allreduce(reduced);
  const auto reduced_at = Clock::now();
  set_activity_item(nullptr, 0);
  allreduce_s_ += seconds_between(start, reduced_at);
  staging_s_ += strategy_.staging_seconds() - staged_before;
  if (trace)
    trace->event(bucket_event(scatters_ ? "reduce-scatter" : "allreduce", index) + " (" +
                     std::to_string(reduced.size_bytes()) + " bytes)",
                 "allreduce", start, reduced_at, 1);
  if (bucket.packed) {  // copy each slice back, divided on the way
    for (std::size_t k = 0; k < bucket.members.size(); ++k)
      memory_->average(gradients_[bucket.members[k]], bucket.data + bucket.offsets[k], divisor_);
  } else if (divisor_ != 1.0f) {
    memory_->average(reduced, reduced.data(), divisor_);
  } else {
    return;  // in place and nothing to divide: no unpack at all
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

void GradientSynchronizer::close_step() { impl_->close_step(); }

void GradientSynchronizer::await(std::size_t index) { impl_->await(index); }

void GradientSynchronizer::set_trace(TraceSink* sink) {
  impl_->trace_.store(sink, std::memory_order_relaxed);
}

std::vector<BucketLayout> GradientSynchronizer::bucket_layout() const {
  std::vector<BucketLayout> out;
  if (!impl_->stepped_) return out;
  for (std::size_t b = 0; b < impl_->last_buckets_; ++b) {
    const Impl::Bucket& bucket = impl_->buckets_[b];
    out.push_back({bucket.members, bucket.offsets, bucket.elements});
  }
  return out;
}

void GradientSynchronizer::set_fusion_mb(double fusion_mb) {
  impl_->rule_ = FusionRule(fusion_mb);
  impl_->fusion_mb_ = fusion_mb;
  impl_->memory_->release();
  impl_->reserve_buckets();
}

double GradientSynchronizer::fusion_mb() const { return impl_->fusion_mb_; }

std::vector<std::size_t> GradientSynchronizer::hand_over_order() const {
  // order_ holds a whole step's after any finish() that returned (it
  // requires every gradient), and is overwritten from the front.
  if (!impl_->stepped_) return {};
  return impl_->order_;
}

}  // namespace gradsync
