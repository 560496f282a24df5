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
// Forward order (SyncOrder::forward, ByteScheduler's and P3's priority): the
// next step's forward needs the first layers' parameters first, and backward
// closes their buckets last. So when the thread is free it takes, among the
// closed buckets not yet reduced, the one whose first gradient the forward
// uses first (the lowest parameter index, parameters being numbered in
// forward order), instead of the oldest. Every worker must make the same
// calls in the same order, and which buckets are closed when the thread
// looks differs between workers; so before each bucket the workers agree,
// in one small collective over a communicator of the synchronizer's own (a
// duplicate of the strategy's workers), on how many buckets every one of
// them has closed (buckets close in the same order everywhere: a prefix) and
// whether every one has closed its step's last; then each picks the same
// bucket from the same prefix. Once all have closed their last, the order of
// the rest is fixed and no more rounds are needed. Horovod's coordinator
// agrees on ready tensors the same way. A bucket cannot be overtaken once
// it has started, so in forward order a gradient that fills a bucket by
// itself is cut into pieces of the threshold, each a bucket of its own (a
// view of its slice), as ByteScheduler partitions tensors: the first
// layers' buckets can then pass between the pieces of a large last layer.
// Pieces summed apart may round differently from the whole, as another
// threshold does. The step's end moves too:
// close_step() lets the last bucket go without waiting, and the next
// forward awaits each layer's gradients as it reaches the layer.
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
#include "strategies/core/activity.h"
#include "strategies/core/thread_start.h"
#include "strategies/core/world.h"

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
    std::vector<std::size_t> offsets;  // where each member starts in the bucket, in floats
    std::size_t elements = 0;
    // This step: false while the members lie back to back from `data` on (the
    // bucket is a view of their memory); true once they were copied into
    // memory_'s bucket buffer, which `data` points at after close_open().
    bool packed = false;
    float* data = nullptr;  // what the strategy reduces
    std::size_t first_needed = 0;  // the lowest member index: when the forward needs it
    // Its slot in memory_ (one per gradient): the buckets before it that are
    // not pieces. A piece is a view and is never packed; it shares the next
    // bucket's slot, for close and wait_closed only (host memory, where
    // those do nothing: pieces are host-only, in forward order).
    std::size_t memory_slot = 0;
    bool taken = false;  // under mu_: the thread has started on it this step
  };

  Impl(Strategy& strategy, std::vector<std::span<float>> gradients, SyncOptions options,
       const Model::DeviceState* device);
  ~Impl();
  void ready(std::size_t index);
  SyncStats finish();
  void close_step();
  void await(std::size_t index);

  // Main thread.
  Bucket& open_bucket();
  void place(std::size_t index);
  void place_pieces(std::size_t index, std::size_t piece);
  std::size_t piece_elements() const;
  void reserve_buckets();
  void pack(Bucket& bucket, std::size_t slot);
  void close_open(bool piece = false);
  void reset_step();
  // Communication thread.
  void communicate();
  std::size_t pick_by_forward(std::unique_lock<std::mutex>& lock);
  void reduce(Bucket& bucket, std::size_t index);

  Strategy& strategy_;
  const std::vector<std::span<float>> gradients_;
  FusionRule rule_;  // changed between steps only (set_fusion_mb)
  double fusion_mb_;
  const bool overlap_;
  const bool by_forward_;  // SyncOrder::forward
  const bool sums_;      // false for `none`: nothing to reduce, nothing to average
  const float divisor_;  // the worker count, or 1 when the caller divides (options.average false)
  const std::unique_ptr<GradientMemory> memory_;  // the buckets' buffers, one per possible bucket
  std::atomic<TraceSink*> trace_{nullptr};
  // Forward order among several workers: where they agree which buckets are closed.
  std::optional<World> agreement_;

  // The step as the main thread builds it.
  std::vector<char> handed_;        // per gradient: ready() called this step
  std::vector<std::size_t> order_;  // the gradients in hand-over order, this step so far
  bool stepped_ = false;            // a step has finished: order_ is whole (between steps)
  std::size_t handed_count_ = 0;
  std::size_t open_ = 0;           // the bucket being filled
  std::size_t slot_ = 0;           // members placed in it so far
  std::size_t open_elements_ = 0;  // elements placed in it so far
  std::size_t memory_slots_ = 0;   // memory slots taken this step (Bucket::memory_slot)
  double pack_s_ = 0;
  std::size_t bytes_ = 0;
  std::size_t packed_bytes_ = 0;
  double awaited_s_ = 0;  // blocked in await() this step

  // Shared with the communication thread, under mu_. buckets_ has capacity for
  // one bucket per gradient (and per piece, in forward order), so it never
  // reallocates; the thread touches only closed buckets, the main thread only
  // the open one.
  std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  std::vector<Bucket> buckets_;
  std::size_t closed_ = 0;  // buckets closed this step
  std::size_t taken_ = 0;   // of those, started on by the thread
  std::size_t done_ = 0;    // of those, reduced (or skipped after an error)
  bool step_closed_ = false;  // the step's last bucket is closed
  // Per gradient: its closed buckets not yet done. Once the step's last bucket
  // is closed, 0 means the gradient is final (a piece done early says
  // nothing while the gradient's later pieces are still to close).
  std::vector<std::size_t> pending_;
  bool go_;                 // reduce closed buckets now: overlap, or inside finish()
  bool stop_ = false;
  std::exception_ptr error_;  // the first error of the step
  double allreduce_s_ = 0;    // written by the thread; read after done_ == closed_
  double staging_s_ = 0;
  double unpack_s_ = 0;
  // The communication thread's own, forward order: the buckets every worker
  // has closed (a prefix), and whether that is all of the step's.
  std::size_t agreed_ = 0;
  bool all_agreed_ = false;

  std::thread thread_;
};

GradientSynchronizer::Impl::Impl(Strategy& strategy, std::vector<std::span<float>> gradients,
                                 SyncOptions options, const Model::DeviceState* device)
    : strategy_(strategy),
      gradients_(std::move(gradients)),
      rule_(options.fusion_mb),
      fusion_mb_(options.fusion_mb),
      overlap_(options.overlap),
      by_forward_(options.order == SyncOrder::forward),
      sums_(strategy.synchronizes()),
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

// Forward order: the elements of one piece of a gradient that fills a bucket
// by itself; 0: gradients are not cut (arrival order, no fusion, `none`).
std::size_t GradientSynchronizer::Impl::piece_elements() const {
  if (!by_forward_ || !sums_ || rule_.threshold_bytes() == 0) return 0;
  return std::max<std::size_t>(1, rule_.threshold_bytes() / sizeof(float));
}

// One bucket per gradient, and one more per piece: buckets_ must never
// reallocate while the communication thread reads it. Called when no step
// is in flight.
void GradientSynchronizer::Impl::reserve_buckets() {
  std::size_t most = gradients_.size();
  if (const std::size_t piece = piece_elements())
    for (const auto& gradient : gradients_) most += gradient.size() / piece + 1;
  std::lock_guard lock(mu_);
  buckets_.reserve(most);
}

// Gradient `index` as buckets of `piece` elements (the last one shorter),
// each a view of its slice, closed one after another.
void GradientSynchronizer::Impl::place_pieces(std::size_t index, std::size_t piece) {
  const std::span<float> gradient = gradients_[index];
  for (std::size_t offset = 0; offset < gradient.size(); offset += piece) {
    Bucket& bucket = open_bucket();
    bucket.members.assign(1, index);
    bucket.offsets.assign(1, 0);
    bucket.packed = false;
    bucket.data = gradient.data() + offset;
    bucket.memory_slot = memory_slots_;
    slot_ = 1;
    open_elements_ = std::min(piece, gradient.size() - offset);
    close_open(/*piece=*/true);
  }
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

// Forward order's pick (see the top of this file); called under `lock`, which
// it releases for the agreement. Throws what the agreement throws (a worker
// that stopped answering, past --timeout).
std::size_t GradientSynchronizer::Impl::pick_by_forward(std::unique_lock<std::mutex>& lock) {
  if (!agreement_) {  // one worker, or nothing to reduce: nobody to agree with
    agreed_ = closed_;
  } else if (!all_agreed_) {
    // The least over the workers, as the maximum of the negated values.
    const std::vector<double> mine = {-static_cast<double>(closed_), step_closed_ ? -1.0 : 0.0};
    lock.unlock();
    std::vector<double> least;
    try {
      least = agreement_->max_each(mine);
    } catch (...) {
      lock.lock();
      throw;
    }
    lock.lock();
    agreed_ = static_cast<std::size_t>(-least[0]);
    all_agreed_ = least[1] == -1.0;
  }
  std::size_t best = agreed_;
  for (std::size_t b = 0; b < agreed_; ++b)
    if (!buckets_[b].taken &&
        (best == agreed_ || buckets_[b].first_needed < buckets_[best].first_needed))
      best = b;
  if (best == agreed_)
    throw std::logic_error("forward order: no closed bucket left to reduce (" +
                           std::to_string(agreed_) + " agreed, " + std::to_string(taken_) +
                           " taken)");
  return best;
}

void GradientSynchronizer::Impl::close_step() {
  if (handed_count_ != gradients_.size())
    throw std::logic_error("close_step() called with " +
                           std::to_string(gradients_.size() - handed_count_) +
                           " gradient(s) not handed over with ready()");
  if (slot_ > 0) close_open();
  {
    std::lock_guard lock(mu_);
    go_ = true;
    step_closed_ = true;
  }
  work_cv_.notify_one();
}

void GradientSynchronizer::Impl::await(std::size_t index) {
  if (index >= gradients_.size())
    throw std::out_of_range("gradient " + std::to_string(index) + " does not exist (there are " +
                            std::to_string(gradients_.size()) + ")");
  std::unique_lock lock(mu_);
  if (!step_closed_)
    throw std::logic_error("await() before close_step(): the step's last bucket is not closed");
  const auto until = [&] { return pending_[index] == 0 || error_ != nullptr; };
  if (until()) return;
  const auto start = Clock::now();
  done_cv_.wait(lock, until);
  lock.unlock();
  const auto end = Clock::now();
  awaited_s_ += seconds_between(start, end);
  if (TraceSink* trace = trace_.load(std::memory_order_relaxed))
    trace->event("wait for communication", "wait", start, end, 0);
}

void GradientSynchronizer::Impl::reduce(Bucket& bucket, std::size_t index) {
  if (!sums_) return;  // `none` leaves every gradient as backward left it
  TraceSink* trace = trace_.load(std::memory_order_relaxed);
  const std::span<float> reduced(bucket.data, bucket.elements);
  memory_->wait_closed(bucket.memory_slot);
  const double staged_before = strategy_.staging_seconds();
  set_activity_item("bucket", static_cast<long>(index));  // for the stall inspector
  const auto start = Clock::now();
  strategy_.allreduce(reduced);
  const auto reduced_at = Clock::now();
  set_activity_item(nullptr, 0);
  allreduce_s_ += seconds_between(start, reduced_at);
  staging_s_ += strategy_.staging_seconds() - staged_before;
  if (trace)
    trace->event(
        bucket_event("allreduce", index) + " (" + std::to_string(reduced.size_bytes()) + " bytes)",
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
