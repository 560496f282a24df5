#pragma once
// The data-parallel synchronizer, as Horovod's DistributedOptimizer and
// PyTorch DDP do it: backward hands over each gradient the moment it is
// ready; gradients are grouped into fusion buckets; a communication thread
// runs the strategy's allreduce on each full bucket while backward goes on;
// finish() waits for the rest and leaves every gradient averaged over the
// workers (or summed, for a caller that divides itself). A bucket whose
// gradients lie back to back in memory in the order they were handed over (a
// model's gradient block, models/gradient_block.h) is reduced where it lies,
// as DDP's gradient_as_bucket_view does; only other buckets are packed into
// a buffer and copied back. Gradients in host memory, or in a GPU's memory for
// a model that computes there (its Model::DeviceState): then buckets, packing
// and averaging stay on that GPU.

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "models/model.h"
#include "strategies/core/strategy.h"

namespace gradsync {

// The order closed buckets are reduced in.
enum class SyncOrder {
  arrival,  // as backward closes them (Horovod, DDP): the last layers' first
  forward,  // the bucket the next forward needs first, first (ByteScheduler, P3); the workers
            // agree before each bucket on which buckets all of them have closed
};

struct SyncOptions {
  double fusion_mb = 64.0;  // bucket threshold in MiB (Horovod's default); 0: one allreduce per gradient
  bool overlap = true;      // false: nothing is sent before finish()
  bool average = true;      // false: finish() leaves the sums; the caller divides by the workers
                            // (host SGD folds it into its update: OptimizerOptions::summed_over)
  SyncOrder order = SyncOrder::arrival;
  // Sharded data parallelism (Strategy::sharding()): each bucket is
  // reduce-scattered instead of allreduced, so that only this worker's shard
  // of it (Strategy::shard) holds the sum afterwards. Needs average false
  // (the shard's SGD divides) and arrival order.
  bool reduce_scatter = false;
};

// One bucket of a step: its gradients (parameter indices, in hand-over
// order), where each starts in the bucket, in floats, and its length.
struct BucketLayout {
  std::vector<std::size_t> members;
  std::vector<std::size_t> offsets;
  std::size_t elements = 0;
};

// Where one step's time went, in seconds, measured on this rank.
struct SyncStats {
  double pack_s = 0;       // handing gradients over: grouping them, and packing those that are not
                           // already in place
  double allreduce_s = 0;  // inside strategy allreduce calls, staging included
  double staging_s = 0;    // of allreduce_s: the strategy copying between host and device
                           // memory around its transport (a staged strategy), not transport
  double unpack_s = 0;     // copying packed buckets back, and averaging
  double wait_s = 0;       // time finish() blocked: the exposed communication
  std::size_t buckets = 0;
  std::size_t bytes = 0;   // gradient bytes reduced (handed over, for `none`)
  std::size_t packed_bytes = 0;  // of bytes: copied into a bucket buffer (the rest was reduced
                                 // where it lies)
};

class GradientSynchronizer {
 public:
  // `gradients` are the buffers backward fills, by parameter index; they must
  // outlive the synchronizer. Every worker passes the same shapes. With
  // `device` (a model computing on a GPU), the gradients are its device
  // gradients (device->grad_of), ready() may come as soon as a gradient's
  // producer is queued on device->stream, and `strategy` must take device
  // buffers; finish() then leaves them averaged in device memory.
  GradientSynchronizer(Strategy& strategy, std::vector<std::span<float>> gradients,
                       SyncOptions options, const Model::DeviceState* device = nullptr);
  ~GradientSynchronizer();
  GradientSynchronizer(const GradientSynchronizer&) = delete;
  GradientSynchronizer& operator=(const GradientSynchronizer&) = delete;

  // Gradient `index` is final for this step (called from backward).
  void ready(std::size_t index);
  // Blocks until every gradient of the step is summed over the workers and
  // (with options.average) divided by their number; returns this step's stats. Every gradient must
  // have been handed over with ready() once.
  // An error thrown by the strategy on the communication thread is rethrown
  // here; the synchronizer is then ready for the next step.
  SyncStats finish();

  // Forward order (SyncOrder::forward), where the next step's forward takes
  // each layer's parameters as their buckets end instead of waiting for all
  // of them (train_step.h):
  // close_step() ends the step's hand-over (every gradient handed over with
  // ready()): the last, partial bucket goes, and nothing waits.
  // await(i) then blocks until gradient i is summed (and averaged); the time
  // it blocked counts in the next finish()'s wait_s, and it is traced as
  // "wait for communication". An error on the communication thread ends the
  // wait; finish() rethrows it. finish() after the last await returns at once.
  void close_step();
  void await(std::size_t index);

  // From now on, report to `sink` (nullptr: stop): each pack into bucket k as
  // "pack bucket k" on thread 0 (buckets reduced in place make none); each
  // bucket's "allreduce bucket k (<bytes> bytes)" and, when it copies back or
  // averages, "unpack bucket k" on thread 1; finish()'s blocking as "wait for
  // communication" on thread 0. Call it between steps.
  void set_trace(TraceSink* sink);

  // From the next step on, buckets close at `fusion_mb` (fusion_plan.h's
  // rule; throws std::invalid_argument as FusionRule does). Call it between
  // steps, on every worker at the same step with the same value, so that the
  // workers keep forming the same buckets. Bucket buffers of the old
  // threshold are freed, so that memory stays what one threshold needs.
  void set_fusion_mb(double fusion_mb);
  double fusion_mb() const;
  // The gradients in the order the last complete step handed them over
  // (empty before one): what fusion_search.h plans buckets over.
  std::vector<std::size_t> hand_over_order() const;
  // The buckets of the last complete step (empty before one), in the order
  // they were reduced in arrival order.
  std::vector<BucketLayout> bucket_layout() const;

 private:
  struct Impl;  // buckets, the communication thread: synchronizer.cc
  std::unique_ptr<Impl> impl_;
};

}  // namespace gradsync
