#include "harness/engine/sharded_replica.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "harness/engine/optimizer.h"
#include "harness/engine/step_clock.h"

namespace gradsync {
namespace {

using Clock = StepClock;

SyncOptions sharded_sync(const TrainSettings& settings) {
  SyncOptions sync = settings.sync;
  sync.average = false;  // the shard's optimizer divides as it reads
  sync.reduce_scatter = true;
  return sync;
}

// This worker's pieces of the parameters: in each bucket, the members' parts
// that fall in the strategy's shard of it.
std::vector<ParameterPiece> shard_pieces(const Strategy& strategy,
                                         const std::vector<BucketLayout>& buckets,
                                         const std::vector<Parameter>& parameters) {
  std::vector<ParameterPiece> pieces;
  for (const BucketLayout& bucket : buckets) {
    const Range shard = strategy.shard(bucket.elements);
    for (std::size_t k = 0; k < bucket.members.size(); ++k) {
      const std::size_t begin = bucket.offsets[k];
      const std::size_t end = begin + parameters[bucket.members[k]].value.size();
      const std::size_t from = std::max(begin, shard.offset);
      const std::size_t to = std::min(end, shard.offset + shard.count);
      if (from < to) pieces.push_back({bucket.members[k], from - begin, to - from});
    }
  }
  return pieces;
}

class ShardedReplica final : public WorkerRole {
 public:
  ShardedReplica(Strategy& strategy, Model& model, const TrainSettings& settings)
      : strategy_(strategy),
        parameters_(model.parameters()),
        synchronizer_(strategy, gradient_spans(parameters_), sharded_sync(settings)) {
    // Made under emulated compute too (its shard's state is held; no update runs).
    optimizer_ =
        std::make_unique<ShardOptimizer>(parameters_, sharded_optimizer(strategy, settings));
    steps_ = settings.real_compute();
  }

  void start() override {
    for (auto& p : parameters_) strategy_.broadcast(p.value, 0);
  }
  void hand_over(std::size_t index) override { synchronizer_.ready(index); }
  SyncStats wait(TraceSink* trace) override {
    SyncStats stats = synchronizer_.finish();
    const auto started = Clock::now();
    const std::vector<BucketLayout> buckets = synchronizer_.bucket_layout();
    optimizer_->set_pieces(shard_pieces(strategy_, buckets, parameters_));
    if (steps_) update_shard(trace);
    stats.allreduce_s += gather_parameters(buckets, trace);
    stats.wait_s += seconds(Clock::now() - started);
    return stats;
  }
  void update(TraceSink*) override {}  // inside wait(), between the two collectives
  void set_trace(TraceSink* sink) override { synchronizer_.set_trace(sink); }
  GradientSynchronizer* synchronizer() override { return &synchronizer_; }
  bool at_own_pace() const override { return false; }
  bool parameters_must_agree() const override { return true; }
  std::uint64_t gradient_steps() const override { return 0; }
  WorkerMemory memory() const override {
    return {.parameters_bytes = value_bytes(parameters_),
            .gradients_bytes = gradient_bytes(parameters_),
            .optimizer_bytes = optimizer_->state_bytes(),
            .gathered_bytes = gathered_.capacity() * sizeof(float)};
  }

 private:
  void update_shard(TraceSink* trace) {
    const auto started = Clock::now();
    optimizer_->step();
    if (trace) trace->event("optimizer step (shard)", "optimizer", started, Clock::now(), 0);
  }

  // Each bucket's parameters through one buffer: this worker's updated
  // shard goes out, every other shard comes in, and only those are copied
  // (the parameters are not one block: a bucket's members lie apart).
  // Returns the seconds spent in the strategy's all-gathers; alone there is
  // nothing to gather.
  double gather_parameters(const std::vector<BucketLayout>& buckets, TraceSink* trace) {
    if (strategy_.peers().size() == 1) return 0;
    // Sized once for the largest bucket, so that it holds no more than that.
    std::size_t largest = 0;
    for (const BucketLayout& bucket : buckets) largest = std::max(largest, bucket.elements);
    if (gathered_.size() < largest) gathered_ = std::vector<float>(largest);
    double gathering_s = 0;
    for (std::size_t b = 0; b < buckets.size(); ++b) {
      const BucketLayout& bucket = buckets[b];
      const Range mine = strategy_.shard(bucket.elements);
      copy_members(bucket, mine, true);
      const auto start = Clock::now();
      strategy_.all_gather(std::span(gathered_).first(bucket.elements));
      const auto end = Clock::now();
      gathering_s += seconds(end - start);
      if (trace)
        trace->event(
            fmt::format("all-gather bucket {} ({} bytes)", b, bucket.elements * sizeof(float)),
            "allreduce", start, end, 0);
      copy_members(bucket, mine, false);
    }
    return gathering_s;
  }

  // Between the bucket's members and the gathered buffer: into it, the part
  // of each member inside `mine`; out of it, the parts outside.
  void copy_members(const BucketLayout& bucket, Range mine, bool into_buffer) {
    const std::size_t mine_end = mine.offset + mine.count;
    for (std::size_t k = 0; k < bucket.members.size(); ++k) {
      auto& value = parameters_[bucket.members[k]].value;
      const std::size_t begin = bucket.offsets[k], end = begin + value.size();
      float* buffer = gathered_.data();
      auto copy = [&](std::size_t from, std::size_t to) {  // bucket offsets
        if (from >= to) return;
        float* member = value.data() + (from - begin);
        if (into_buffer)
          std::copy(member, member + (to - from), buffer + from);
        else
          std::copy(buffer + from, buffer + to, member);
      };
      if (into_buffer) {
        copy(std::max(begin, mine.offset), std::min(end, mine_end));
      } else {
        copy(begin, std::min(end, mine.offset));
        copy(std::max(begin, mine_end), end);
      }
    }
  }

  Strategy& strategy_;
  std::vector<Parameter>& parameters_;
  GradientSynchronizer synchronizer_;
  std::unique_ptr<ShardOptimizer> optimizer_;
  bool steps_ = false;           // real compute: the shard is updated
  std::vector<float> gathered_;  // the gathered buffer: the largest bucket's parameters
};

}  // namespace

OptimizerOptions sharded_optimizer(const Strategy& strategy, const TrainSettings& settings) {
  OptimizerOptions options = settings.optimizer;
  if (options.workers == 0) options.workers = strategy.peers().size();
  options.summed_over = strategy.peers().size();
  return options;
}

void refuse_unsharded_settings(const Strategy& strategy, const Model& model,
                               const TrainSettings& settings) {
  const std::string name(strategy.name());
  if (model.device_state() || !model.takes_layer_gates())
    throw std::invalid_argument(name +
                                ": sharded strategies train in host memory, layer by layer: use "
                                "cpu or emulated compute");
  if (settings.sync.order == SyncOrder::forward)
    throw std::invalid_argument(name +
                                ": --sync-order forward is for replicas; a sharded step gathers "
                                "its parameters before the next forward reaches them");
  if (settings.fusion_search_steps)
    throw std::invalid_argument(name +
                                ": --fusion-mb auto would move shards between workers "
                                "mid-run; give a threshold in MiB");
}

std::unique_ptr<WorkerRole> make_sharded_replica(Strategy& strategy, Model& model,
                                                 const TrainSettings& settings) {
  refuse_unsharded_settings(strategy, model, settings);
  return std::make_unique<ShardedReplica>(strategy, model, settings);
}

}  // namespace gradsync
