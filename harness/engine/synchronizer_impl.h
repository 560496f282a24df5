#pragma once
// The synchronizer's state (GradientSynchronizer::Impl), shared by the two
// files that implement it: synchronizer.cc (buckets, the communication
// thread, arrival order: the mechanism) and synchronizer_forward.cc (forward
// order: pieces, the workers' agreement on closed buckets, close_step and
// await). Nothing outside those two includes it.

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <thread>
#include <vector>

#include "harness/engine/fusion_plan.h"
#include "harness/engine/gradient_memory.h"
#include "harness/engine/synchronizer.h"
#include "strategies/core/world.h"

namespace gradsync {

struct GradientSynchronizer::Impl {
  struct Bucket {
    std::vector<std::size_t> members;  // gradient indices, in the order handed over
    std::vector<std::size_t> offsets;  // where each member starts in the bucket, in floats
    std::size_t elements = 0;
    // This step: false while the members lie back to back from `data` on (the
    // bucket is a view of their memory); true once they were copied into
    // memory_'s bucket buffer, which `data` points at after close_open().
    bool packed = false;
    float* data = nullptr;         // what the strategy reduces
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
  const bool sums_;        // false for `none`: nothing to reduce, nothing to average
  const bool scatters_;    // SyncOptions::reduce_scatter
  const float divisor_;    // the worker count, or 1 when the caller divides (options.average false)
  const std::unique_ptr<GradientMemory> memory_;  // the buckets' buffers, one per possible bucket
  std::atomic<TraceSink*> trace_{nullptr};
  // Forward order among several workers: where they agree which buckets are closed.
  std::optional<World> agreement_;

  // The step as the main thread builds it.
  std::vector<char> handed_;        // per gradient: ready() called this step
  std::vector<std::size_t> order_;  // the gradients in hand-over order, this step so far
  bool stepped_ = false;            // a step has finished: order_ is whole (between steps)
  std::size_t last_buckets_ = 0;    // the buckets the last complete step closed
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
  std::size_t closed_ = 0;    // buckets closed this step
  std::size_t taken_ = 0;     // of those, started on by the thread
  std::size_t done_ = 0;      // of those, reduced (or skipped after an error)
  bool step_closed_ = false;  // the step's last bucket is closed
  // Per gradient: its closed buckets not yet done. Once the step's last bucket
  // is closed, 0 means the gradient is final (a piece done early says
  // nothing while the gradient's later pieces are still to close).
  std::vector<std::size_t> pending_;
  bool go_;  // reduce closed buckets now: overlap, or inside finish()
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

}  // namespace gradsync
