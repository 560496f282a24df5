#include "harness/engine/worker_role.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <span>
#include <stdexcept>
#include <vector>

#include "harness/engine/fully_sharded_replica.h"
#include "harness/engine/optimizer.h"
#include "harness/engine/sharded_replica.h"
#include "harness/engine/step_clock.h"
#include "harness/engine/train_plan.h"
#include "strategies/core/parameter_owner.h"

namespace gradsync {
std::vector<std::span<float>> gradient_spans(std::vector<Parameter>& parameters) {
  std::vector<std::span<float>> spans;
  for (auto& p : parameters) spans.emplace_back(p.grad);
  return spans;
}

std::uint64_t value_bytes(const std::vector<Parameter>& parameters) {
  std::uint64_t bytes = 0;
  for (const auto& p : parameters) bytes += p.value.size() * sizeof(float);
  return bytes;
}

std::uint64_t gradient_bytes(const std::vector<Parameter>& parameters) {
  std::uint64_t bytes = 0;
  for (const auto& p : parameters) bytes += p.grad.size() * sizeof(float);
  return bytes;
}

namespace {

using Clock = StepClock;

// A replica: every parameter, a synchronizer over its gradients, and the
// optimizer where the compute is real. On the host it reads summed gradients and divides as
// it reads (bit-identical to averaging first, without a pass of its own);
// device gradients are averaged by the synchronizer on the GPU.
class Replica : public WorkerRole {
 public:
  Replica(Strategy& strategy, Model& model, const TrainSettings& settings)
      : strategy_(strategy),
        model_(model),
        by_forward_(settings.sync.order == SyncOrder::forward),
        synchronizer_(strategy, gradients(model), sync_options(model, settings),
                      model.device_state()) {
    // Made under emulated compute too, which runs no update, so that its
    // state is held as on the device the run stands for.
    optimizer_ = make_optimizer(model, optimizer_options(strategy, model, settings));
    steps_ = settings.real_compute();
    if (by_forward_) {
      updated_.assign(model.parameters().size(), 0);
      model.set_forward_gate([this](std::size_t first, std::size_t count) {
        for (std::size_t i = first; i < first + count; ++i) take_parameter(i);
      });
    }
  }
  ~Replica() override {
    if (by_forward_) model_.set_forward_gate({});
  }

  void hand_over(std::size_t index) override { synchronizer_.ready(index); }
  SyncStats wait(TraceSink*) override {
    if (!by_forward_) return synchronizer_.finish();
    synchronizer_.close_step();
    in_flight_ = true;
    return {};
  }
  bool overlaps_next_forward() const override { return by_forward_; }
  SyncStats settle_previous(TraceSink*) override {
    if (!in_flight_) return {};
    for (std::size_t i = 0; i < updated_.size(); ++i) take_parameter(i);
    in_flight_ = false;
    std::fill(updated_.begin(), updated_.end(), 0);
    if (steps_) optimizer_->count_step();
    return synchronizer_.finish();
  }
  void update(TraceSink* trace) override {
    if (!steps_ || by_forward_) return;
    const auto started = Clock::now();
    optimizer_->step();
    // A device's optimizer step is traced from its marks (step_marks.h):
    // the host's clock only saw it queued.
    if (trace && !model_.device_state())
      trace->event("optimizer step", "optimizer", started, Clock::now(), 0);
  }
  void set_trace(TraceSink* sink) override { synchronizer_.set_trace(sink); }
  GradientSynchronizer* synchronizer() override { return &synchronizer_; }
  bool at_own_pace() const override { return false; }
  bool parameters_must_agree() const override { return strategy_.synchronizes(); }
  std::uint64_t gradient_steps() const override { return 0; }
  WorkerMemory memory() const override {
    return {.parameters_bytes = value_bytes(model_.parameters()),
            .gradients_bytes = gradient_bytes(model_.parameters()),
            .optimizer_bytes = optimizer_ ? optimizer_->state_bytes() : 0};
  }

 protected:
  Strategy& strategy_;
  Model& model_;

 private:
  static std::vector<std::span<float>> gradients(Model& model) {
    const Model::DeviceState* device = model.device_state();
    return device ? device->grad_of : gradient_spans(model.parameters());
  }
  static SyncOptions sync_options(const Model& model, const TrainSettings& settings) {
    SyncOptions sync = settings.sync;
    sync.average = model.device_state() != nullptr;
    return sync;
  }
  // The learning rate scales with the workers that synchronize (1 for
  // `none`) unless the settings name them.
  static OptimizerOptions optimizer_options(const Strategy& strategy, const Model& model,
                                            const TrainSettings& settings) {
    const int synchronizing = strategy.synchronizes() ? strategy.peers().size() : 1;
    OptimizerOptions options = settings.optimizer;
    if (options.workers == 0) options.workers = synchronizing;
    if (!model.device_state()) options.summed_over = synchronizing;
    return options;
  }

  // Forward order: parameter i's communication of the step before is done,
  // and its update applied (once per step).
  void take_parameter(std::size_t i) {
    if (!in_flight_ || updated_[i]) return;
    synchronizer_.await(i);
    if (steps_) optimizer_->step_one(i);
    updated_[i] = 1;
  }

  const bool by_forward_;
  GradientSynchronizer synchronizer_;
  std::unique_ptr<Optimizer> optimizer_;
  bool steps_ = false;         // real compute: the optimizer updates
  bool in_flight_ = false;     // forward order: a step's communication is not settled
  std::vector<char> updated_;  // forward order: per parameter, updated since
};

class HostReplica final : public Replica {
 public:
  using Replica::Replica;
  void start() override {
    for (auto& p : model_.parameters()) strategy_.broadcast(p.value, 0);
  }
};

// The initial values go to the device and are broadcast there, in one call
// over the flat block (NCCL natively, the host strategies through staging).
class DeviceReplica final : public Replica {
 public:
  using Replica::Replica;
  void start() override {
    model_.copy_to_device();
    strategy_.broadcast(model_.device_state()->values, 0);
  }
};

// The parameters' values, or their gradients, one after another in parameter
// order: the flat buffer a ParameterOwner takes.
template <typename Field>
void pack(const std::vector<Parameter>& parameters, Field field, std::vector<float>& flat) {
  flat.clear();
  for (const auto& p : parameters) flat.insert(flat.end(), (p.*field).begin(), (p.*field).end());
}

void unpack_values(std::span<const float> flat, std::vector<Parameter>& parameters) {
  std::size_t at = 0;
  for (auto& p : parameters) {
    std::copy_n(flat.begin() + at, p.value.size(), p.value.begin());
    at += p.value.size();
  }
}

// A worker of servers that own the parameters.
class ServerOwnedWorker final : public WorkerRole {
 public:
  ServerOwnedWorker(ParameterOwner& owner, const World& peers, Model& model)
      : owner_(owner), peers_(peers), parameters_(model.parameters()) {}

  // The servers' initial parameters are worker 0's; every worker starts from them.
  void start() override {
    pack(parameters_, &Parameter::value, flat_);
    if (peers_.rank() == 0) owner_.init_parameters(flat_);
    peers_.barrier();
    if (peers_.rank() != 0) owner_.init_parameters(flat_);
    unpack_values(flat_, parameters_);
  }
  void hand_over(std::size_t) override {}
  // The gradient out, the servers' parameters back.
  SyncStats wait(TraceSink* trace) override {
    const auto started = Clock::now();
    pack(parameters_, &Parameter::grad, flat_);
    owner_.push_gradient(flat_);
    unpack_values(flat_, parameters_);
    SyncStats stats;
    stats.wait_s = stats.allreduce_s = seconds(Clock::now() - started);
    stats.bytes = flat_.size() * sizeof(float);
    if (trace)
      trace->event("push gradient, pull parameters", "communication", started, Clock::now(), 0);
    return stats;
  }
  void update(TraceSink*) override {}  // the servers applied it
  void set_trace(TraceSink*) override {}
  GradientSynchronizer* synchronizer() override { return nullptr; }
  bool at_own_pace() const override { return true; }
  bool parameters_must_agree() const override { return false; }
  std::uint64_t gradient_steps() const override { return owner_.gradient_steps(); }
  // The optimizer's state is the servers'.
  WorkerMemory memory() const override {
    return {.parameters_bytes = value_bytes(parameters_),
            .gradients_bytes = gradient_bytes(parameters_),
            .gathered_bytes = flat_.capacity() * sizeof(float)};
  }

 private:
  ParameterOwner& owner_;
  const World& peers_;
  std::vector<Parameter>& parameters_;
  std::vector<float> flat_;
};

}  // namespace

void refuse_rule_with_servers(UpdateRule rule, std::string_view strategy) {
  if (rule != UpdateRule::sgd)
    throw std::invalid_argument(fmt::format(
        "{}: its servers own the parameters here (--ps-mode async or ssp) and apply SGD; "
        "--optimizer {} is for workers that update their own: use --ps-mode sync",
        strategy, to_string(rule)));
}

std::unique_ptr<WorkerRole> make_worker_role(Strategy& strategy, Model& model,
                                             const TrainSettings& settings) {
  ParameterOwner* owner = parameter_owner(strategy);
  if (owner && model.device_state())
    throw std::invalid_argument(fmt::format(
        "{}: parameters owned by its servers live in host memory: use cpu or emulated compute",
        strategy.name()));
  if (owner) refuse_rule_with_servers(settings.optimizer.rule, strategy.name());
  if (owner && settings.sync.order == SyncOrder::forward)
    throw std::invalid_argument(fmt::format(
        "{}: --sync-order forward orders a synchronizer's buckets; the servers own the parameters "
        "here (--ps-mode async or ssp), so there are none: use --ps-mode sync",
        strategy.name()));
  if (settings.sync.order == SyncOrder::forward && !model.takes_forward_gate())
    throw std::invalid_argument(
        "--sync-order forward needs a model whose forward waits layer by layer: use cpu or "
        "emulated compute (a GPU's host only queues its layers)");
  if (owner) return std::make_unique<ServerOwnedWorker>(*owner, strategy.peers(), model);
  if (strategy.sharding() == Sharding::parameters)
    return make_fully_sharded_replica(strategy, model, settings);
  if (strategy.sharding() != Sharding::none) return make_sharded_replica(strategy, model, settings);
  if (model.device_state()) return std::make_unique<DeviceReplica>(strategy, model, settings);
  return std::make_unique<HostReplica>(strategy, model, settings);
}

}  // namespace gradsync
