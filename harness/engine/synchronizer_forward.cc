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
#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

#include "harness/engine/synchronizer_impl.h"

namespace gradsync {

// Forward order: the elements of one piece of a gradient that fills a bucket
// by itself; 0: gradients are not cut (arrival order, no fusion, `none`).
std::size_t GradientSynchronizer::Impl::piece_elements() const {
  return by_forward_ && sums_ ? rule_.piece_floats() : 0;
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
  const auto start = std::chrono::steady_clock::now();
  done_cv_.wait(lock, until);
  lock.unlock();
  const auto end = std::chrono::steady_clock::now();
  awaited_s_ += std::chrono::duration<double>(end - start).count();
  if (TraceSink* trace = trace_.load(std::memory_order_relaxed))
    trace->event("wait for communication", "wait", start, end, 0);
}

}  // namespace gradsync
