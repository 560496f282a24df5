#include "harness/engine/fully_sharded_replica.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>

#include "harness/engine/fusion_plan.h"
#include "harness/engine/optimizer.h"
#include "harness/engine/prefetch_order.h"
#include "harness/engine/sharded_replica.h"
#include "harness/engine/step_clock.h"
#include "strategies/core/thread_start.h"

namespace gradsync {
namespace {

using Clock = StepClock;

// One thread that runs calls in the order they were queued: the workers'
// collectives must meet in the same order. A call that throws ends the
// thread's work; every wait from then on rethrows its error.
class OrderedCalls {
 public:
  OrderedCalls() {
    thread_ = start_thread("fully sharded communication", [&] {
      return std::jthread([this](std::stop_token stop) { run(stop); });
    });
  }
  ~OrderedCalls() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
  }
  // Queues `call`; returns its ticket.
  std::uint64_t push(std::function<void()> call) {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(call));
    cv_.notify_all();
    return queued_ += 1;
  }
  // Blocks until the call of `ticket` (and every one before it) ran.
  void wait(std::uint64_t ticket) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return done_ >= ticket || failure_; });
    if (failure_) std::rethrow_exception(failure_);
  }
  void wait_all() { wait(queued_); }

 private:
  void run(std::stop_token stop) {
    std::unique_lock lock(mu_);
    while (!stop.stop_requested()) {
      cv_.wait(lock, [&] { return stopping_ || (!queue_.empty() && !failure_); });
      if (stopping_) return;
      std::function<void()> call = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      std::exception_ptr error;
      try {
        call();
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      if (error) failure_ = error;
      ++done_;
      cv_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  std::uint64_t queued_ = 0, done_ = 0;
  std::exception_ptr failure_;
  bool stopping_ = false;
  std::jthread thread_;  // last: it stops before the rest goes
};

// Released values and all-gather buffers keep their memory for the next
// gather, as a GPU framework's caching allocator keeps its blocks: a gather
// takes the smallest free vector that holds it (and not more than twice
// it), and only a miss allocates. Without it, every gather of a large unit
// would take fresh pages from the kernel, whose faults cost more here than
// the all-gather itself. Small vectors come and go through malloc's own
// free lists. reserved_bytes() is what the pool holds, taken or free: the
// most gathered at once, as a caching allocator's peak reserve.
class VectorPool {
 public:
  // A vector of n elements: copied from `from` when given (no fill first),
  // else zeros.
  std::vector<float> take(std::size_t n, const float* from = nullptr) {
    std::vector<float> v;
    if (n >= kPooledElements) {
      auto best = free_.end();
      for (auto it = free_.begin(); it != free_.end(); ++it)
        if (it->capacity() >= n && it->capacity() <= 2 * n &&
            (best == free_.end() || it->capacity() < best->capacity()))
          best = it;
      if (best != free_.end()) {
        v = std::move(*best);
        free_.erase(best);
      }
    }
    if (v.capacity() < n) reserved_ += n;
    if (from)
      v.assign(from, from + n);
    else
      v.resize(n);
    return v;
  }
  void give(std::vector<float>& v) {
    if (v.capacity() >= kPooledElements) {
      v.clear();
      free_.push_back(std::move(v));
    } else {
      reserved_ -= v.capacity();
    }
    v = std::vector<float>();
  }
  std::uint64_t reserved_bytes() const { return reserved_ * sizeof(float); }

 private:
  static constexpr std::size_t kPooledElements = 1 << 18;  // 1 MiB
  std::vector<std::vector<float>> free_;
  std::size_t reserved_ = 0;  // elements
};

// A unit: parameters `members`, whose gradients lie back to back in the
// gradient block from `grads` on; member k's elements at offsets[k] of the
// unit's flat buffer.
struct Unit {
  std::vector<std::size_t> members;
  std::span<float> grads;
  std::vector<std::size_t> offsets;
  Range shard;                                 // this worker's part of the flat buffer
  bool gathered = false;                       // the members' values hold the whole unit
  std::optional<std::uint64_t> gather_ticket;  // an all-gather queued, not yet taken
  std::vector<float> buffer;                   // what that all-gather fills
  std::size_t handed = 0;                      // this step's gradients handed over
};

// The gradient block from its end (the first layers' gradients, which
// backward hands over last) to its start, cut by the fusion rule
// (fusion_plan.h): consecutive gradients until a unit holds the threshold, a
// gradient that reaches it alone a unit of its own.
std::vector<Unit> cut_units(std::vector<Parameter>& parameters, double fusion_mb) {
  std::vector<std::size_t> order(parameters.size()), bytes;
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::ranges::sort(order, [&](std::size_t a, std::size_t b) {
    return parameters[a].grad.data() > parameters[b].grad.data();
  });
  for (const Parameter& p : parameters) bytes.push_back(p.grad.size() * sizeof(float));
  std::vector<Unit> units;
  for (std::vector<std::size_t>& members : plan_buckets(order, bytes, FusionRule(fusion_mb))) {
    Unit unit{.members = std::move(members)};
    float* low = parameters[unit.members.back()].grad.data();
    std::size_t elements = 0;
    for (std::size_t p : unit.members) {
      unit.offsets.push_back(std::size_t(parameters[p].grad.data() - low));
      elements += parameters[p].grad.size();
    }
    unit.grads = std::span(low, elements);
    units.push_back(std::move(unit));
  }
  return units;
}

class FullyShardedReplica final : public WorkerRole {
 public:
  FullyShardedReplica(Strategy& strategy, Model& model, const TrainSettings& settings)
      : strategy_(strategy),
        model_(model),
        parameters_(model.parameters()),
        units_(cut_units(parameters_, settings.sync.fusion_mb)),
        steps_(settings.real_compute()),
        alone_(strategy.peers().size() == 1) {
    if (alone_) {  // nothing to shard: the parameters stay whole, as a replica's
      optimizer_ =
          std::make_unique<HostOptimizer>(parameters_, sharded_optimizer(strategy, settings));
      return;
    }
    for (Unit& unit : units_) {
      unit.shard = strategy_.shard(unit.grads.size());
      shards_.push_back(Parameter{.name = fmt::format("unit {} shard", shards_.size()),
                                  .shape = {int(unit.shard.count)},
                                  .value = std::vector<float>(unit.shard.count),
                                  .grad = unit.grads.subspan(unit.shard.offset, unit.shard.count)});
    }
    unit_of_.resize(parameters_.size());
    for (std::size_t u = 0; u < units_.size(); ++u)
      for (std::size_t p : units_[u].members) unit_of_[p] = u;
    optimizer_ = std::make_unique<HostOptimizer>(shards_, sharded_optimizer(strategy, settings));
    model_.set_layer_gates({.before_forward =
                                [this](std::size_t first, std::size_t count) {
                                  gate_s_.forward_s += timed_need(first, count, forward_);
                                },
                            .before_backward =
                                [this](std::size_t first, std::size_t count) {
                                  gate_s_.backward_s += timed_need(first, count, backward_);
                                }});
  }
  ~FullyShardedReplica() override { model_.set_layer_gates({}); }

  // Every worker from worker 0's parameters; then each keeps its shards.
  void start() override {
    if (alone_) return;
    for (auto& p : parameters_) strategy_.broadcast(p.value, 0);
    for (std::size_t u = 0; u < units_.size(); ++u) {
      copy_shard(u);
      for (std::size_t p : units_[u].members) std::vector<float>().swap(parameters_[p].value);
    }
  }
  void hand_over(std::size_t index) override {
    if (alone_) return;
    Unit& unit = units_[unit_of_[index]];
    if (++unit.handed < unit.members.size()) return;
    unit.handed = 0;
    queue_reduce_scatter(unit_of_[index]);
  }
  SyncStats wait(TraceSink* trace) override {
    const auto started = Clock::now();
    calls_.wait_all();
    if (steps_) {
      const auto update_start = Clock::now();
      optimizer_->step();
      if (trace)
        trace->event("optimizer step (shards)", "optimizer", update_start, Clock::now(), 0);
    }
    for (std::size_t u = 0; u < units_.size(); ++u) drop(u);  // stale after the update
    forward_.next_step();
    backward_.next_step();
    SyncStats stats;
    stats.wait_s = seconds(Clock::now() - started);
    stats.allreduce_s = communicated_s_.exchange(0);
    stats.buckets = std::exchange(reduce_scatters_, 0);
    stats.bytes = gradient_bytes(parameters_);
    return stats;
  }
  void update(TraceSink*) override {}  // inside wait(), after the reduce-scatters
  GateTimes take_gate_times() override { return std::exchange(gate_s_, {}); }
  void set_trace(TraceSink* sink) override { trace_ = sink; }
  GradientSynchronizer* synchronizer() override { return nullptr; }
  bool at_own_pace() const override { return false; }
  bool parameters_must_agree() const override { return true; }
  std::uint64_t gradient_steps() const override { return 0; }
  WorkerMemory memory() const override {
    std::uint64_t shards = alone_ ? value_bytes(parameters_) : 0;
    for (const Parameter& s : shards_) shards += s.value.size() * sizeof(float);
    return {.parameters_bytes = shards,
            .gradients_bytes = gradient_bytes(parameters_),
            .optimizer_bytes = optimizer_->state_bytes(),
            .gathered_bytes = peak_gathered_bytes_};
  }
  // Every parameter whole again, for the checks after the run.
  void end() override {
    if (alone_) return;
    for (std::size_t u = 0; u < units_.size(); ++u) gather(u);
  }

 private:
  // need(), in seconds: the gate's whole time (waits, copies) is not compute.
  double timed_need(std::size_t first, std::size_t count, PrefetchOrder& pass) {
    const auto start = Clock::now();
    need(first, count, pass);
    return seconds(Clock::now() - start);
  }

  // A layer's gate: the units of parameters first .. first + count - 1 are
  // gathered, every other gathered unit freed, and the next unit of the
  // recorded order queued.
  void need(std::size_t first, std::size_t count, PrefetchOrder& pass) {
    std::vector<std::size_t> needed;
    for (std::size_t p = first; p < first + count; ++p)
      if (std::ranges::find(needed, unit_of_[p]) == needed.end()) needed.push_back(unit_of_[p]);
    for (std::size_t u = 0; u < units_.size(); ++u)
      if (std::ranges::find(needed, u) == needed.end()) release(u);
    std::optional<std::size_t> next;
    for (std::size_t u : needed)
      if (const auto after = pass.ask(u)) next = after;
    for (std::size_t u : needed) gather(u);
    if (next) queue_gather(*next);
  }

  void queue_gather(std::size_t u) {
    Unit& unit = units_[u];
    if (unit.gathered || unit.gather_ticket) return;
    unit.buffer = pool_.take(unit.grads.size());
    std::copy(shards_[u].value.begin(), shards_[u].value.end(),
              unit.buffer.begin() + std::ptrdiff_t(unit.shard.offset));
    note_peak();
    std::span<float> buffer(unit.buffer);
    unit.gather_ticket = calls_.push([this, buffer, u] {
      timed(fmt::format("all-gather unit {} ({} bytes)", u, buffer.size() * sizeof(float)),
            [&] { strategy_.all_gather(buffer); });
    });
  }

  // The unit's values whole: waits for its all-gather (queuing it first when
  // it was not) and copies the buffer into its members.
  void gather(std::size_t u) {
    Unit& unit = units_[u];
    if (unit.gathered) return;
    queue_gather(u);
    calls_.wait(*unit.gather_ticket);
    if (unit.members.size() == 1) {  // the buffer is the value: nothing to copy
      parameters_[unit.members[0]].value = std::exchange(unit.buffer, {});
      unit.gather_ticket.reset();
    } else {
      for (std::size_t k = 0; k < unit.members.size(); ++k) {
        const std::size_t n = parameters_[unit.members[k]].grad.size();
        parameters_[unit.members[k]].value = pool_.take(n, unit.buffer.data() + unit.offsets[k]);
        note_peak();
      }
      drop_buffer(unit);
    }
    unit.gathered = true;
  }

  // The unit's values released, this worker's shard kept.
  void release(std::size_t u) {
    Unit& unit = units_[u];
    if (!unit.gathered) return;
    for (std::size_t p : unit.members) pool_.give(parameters_[p].value);
    unit.gathered = false;
  }

  // Released, and a prefetched all-gather nobody took waited for and dropped.
  void drop(std::size_t u) {
    release(u);
    Unit& unit = units_[u];
    if (!unit.gather_ticket) return;
    calls_.wait(*unit.gather_ticket);
    drop_buffer(unit);
  }

  void drop_buffer(Unit& unit) {
    pool_.give(unit.buffer);
    unit.gather_ticket.reset();
  }

  // This worker's shard of the unit, from its members' values.
  void copy_shard(std::size_t u) {
    const Unit& unit = units_[u];
    const std::size_t shard_end = unit.shard.offset + unit.shard.count;
    for (std::size_t k = 0; k < unit.members.size(); ++k) {
      const std::vector<float>& value = parameters_[unit.members[k]].value;
      const std::size_t begin = unit.offsets[k], end = begin + value.size();
      for (std::size_t at = std::max(begin, unit.shard.offset); at < std::min(end, shard_end); ++at)
        shards_[u].value[at - unit.shard.offset] = value[at - begin];
    }
  }

  void queue_reduce_scatter(std::size_t u) {
    ++reduce_scatters_;
    const std::span<float> grads = units_[u].grads;
    calls_.push([this, grads, u] {
      timed(fmt::format("reduce-scatter unit {} ({} bytes)", u, grads.size() * sizeof(float)),
            [&] { strategy_.reduce_scatter(grads); });
    });
  }

  // On the communication thread: `call`, its time counted and traced.
  void timed(const std::string& what, const std::function<void()>& call) {
    const auto start = Clock::now();
    call();
    const auto end = Clock::now();
    communicated_s_ += seconds(end - start);
    if (TraceSink* trace = trace_.load()) trace->event(what, "allreduce", start, end, 1);
  }

  void note_peak() {
    peak_gathered_bytes_ = std::max(peak_gathered_bytes_, pool_.reserved_bytes());
  }

  Strategy& strategy_;
  Model& model_;
  std::vector<Parameter>& parameters_;
  std::vector<Unit> units_;
  std::vector<std::size_t> unit_of_;  // by parameter index
  std::vector<Parameter> shards_;     // per unit: this worker's shard, its gradient in the block
  std::unique_ptr<HostOptimizer> optimizer_;
  const bool steps_;  // real compute: the shards are updated
  const bool alone_;  // one worker: nothing sharded, gathered or reduced
  PrefetchOrder forward_, backward_;
  VectorPool pool_;  // the gathered values and all-gather buffers
  std::uint64_t peak_gathered_bytes_ = 0;
  GateTimes gate_s_;                         // this step, in the gates
  std::atomic<double> communicated_s_{0.0};  // this step, inside the strategy's calls
  std::size_t reduce_scatters_ = 0;
  std::atomic<TraceSink*> trace_{nullptr};
  OrderedCalls calls_;  // last: its thread stops before the rest goes
};

}  // namespace

std::unique_ptr<WorkerRole> make_fully_sharded_replica(Strategy& strategy, Model& model,
                                                       const TrainSettings& settings) {
  refuse_unsharded_settings(strategy, model, settings);
  return std::make_unique<FullyShardedReplica>(strategy, model, settings);
}

}  // namespace gradsync
