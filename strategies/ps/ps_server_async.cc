// The shard's half of asynchronous and stale-synchronous training (ps-zmq
// --ps-mode async|ssp), after Dean et al.'s Downpour SGD and Ho et al.'s
// stale synchronous parallel (SSP): the shard owns its partitions'
// parameters and their momentum, and applies each worker's gradient the
// moment it arrives, one worker at a time (SGD at one worker's rate,
// sgd_rule.h), instead of summing a step over all workers.
//
//   init      the first init of a partition sets its parameters (after the
//             trainer's worker 0 sent its own); every init is answered with
//             the shard's parameters, so later ones are how the other
//             workers start from the same values.
//   gradient  applied at once to the partition; when a worker's gradients of
//             every partition this shard serves are in, its step is done
//             here (its clock advances) and it is sent the parameters of
//             those partitions, as they are now, for its next step.
//
// The bound (ssp): a worker whose step is done is held, its parameters not
// sent, while its clock is more than --ps-staleness ahead of the slowest
// worker still training (one that said bye no longer holds anyone back);
// each step done and each bye releases whom it can. async holds nobody.
// Every shard applies the same rule to its own clocks, and a worker waits for
// every shard, so no worker starts a step more than K ahead of the slowest.
//
// Workers keep their own order (refuse_worker_step): one step in flight, each
// partition once per step, so a shard counts exactly the steps a worker took
// (async_stats().steps), which is how a run proves no push was lost.

#include <fmt/core.h>

#include <cstring>
#include <limits>

#include "strategies/ps/ps_server.h"
#include "strategies/ps/ps_socket.h"

namespace gradsync {

std::optional<std::pair<PsRejectReason, std::string>> PsServer::refuse_owned(
    const PsHeader& header) const {
  using R = PsRejectReason;
  if (mode_ == PsMode::sync)
    return std::pair{R::wrong_mode,
                     fmt::format("{} {} from worker {} to a shard in --ps-mode sync (it takes "
                                 "sum pushes)",
                                 header.type == PsMessageType::init ? "an" : "a",
                                 to_string(header.type), header.worker)};
  if (std::string e = plan_.check(header, shard_); !e.empty())
    return std::pair{R::plan_mismatch, std::move(e)};
  if (!owned_.empty() && header.total != owned_total_)
    return std::pair{R::plan_mismatch,
                     fmt::format("a {} from worker {} for a {}-element buffer, but the shard owns "
                                 "parameters of {}",
                                 to_string(header.type), header.worker, header.total,
                                 owned_total_)};
  if (header.type == PsMessageType::gradient && !owned_.contains(header.partition))
    return std::pair{R::wrong_mode,
                     fmt::format("worker {}'s gradient of partition {} before any init of it",
                                 header.worker, header.partition)};
  return refuse_worker_step(header);
}

void PsServer::take_init(const PsHeader& header, const zmq::message_t& payload) {
  note_step(header);
  traffic_.bytes_received += header.count * sizeof(float);
  if (owned_.empty()) {
    owned_total_ = header.total;
    const std::size_t parts = plan_.partition_count(owned_total_);
    for (std::size_t i = 0; i < parts; ++i)
      if (plan_.shard_of(i) == shard_) my_partitions_.push_back(static_cast<std::uint32_t>(i));
  }
  auto [it, fresh] = owned_.try_emplace(header.partition);
  if (fresh) {
    it->second.value.resize(header.count);
    std::memcpy(it->second.value.data(), payload.data(), payload.size());
    it->second.velocity.assign(header.count, 0.0f);
  }
  send_parameters(header.worker, header.step, header.partition);
}

void PsServer::take_gradient(const PsHeader& header, zmq::message_t& payload) {
  note_step(header);
  traffic_.bytes_received += header.count * sizeof(float);
  Owned& owned = owned_.at(header.partition);
  const zmq::message_t gradient = float_aligned(std::move(payload));
  sgd_momentum_update(owned.value.data(), gradient.data<float>(), owned.velocity.data(),
                      header.count, sgd_);

  Worker& worker = workers_state_[header.worker];
  if (worker.pushed.size() < my_partitions_.size()) return;
  {  // the worker's step is done here
    std::lock_guard lock(stats_mutex_);
    stats_.delay.add(applied_steps_ - worker.pulled_at);
    stats_.steps[header.worker] = ++worker.clock;
  }
  ++applied_steps_;
  worker.held = true;
  release_allowed();
}

std::uint64_t PsServer::slowest_clock() const {
  std::uint64_t slowest = std::numeric_limits<std::uint64_t>::max();
  for (const Worker& w : workers_state_)
    if (!w.said_bye) slowest = std::min(slowest, w.clock);
  return slowest;
}

void PsServer::release_allowed() {
  const std::uint64_t slowest = slowest_clock();
  for (std::size_t w = 0; w < workers_state_.size(); ++w) {
    Worker& worker = workers_state_[w];
    if (!worker.held) continue;
    const std::uint64_t lead = worker.clock - std::min(worker.clock, slowest);
    if (mode_ == PsMode::ssp && lead > static_cast<std::uint64_t>(staleness_)) continue;
    worker.held = false;
    worker.pulled_at = applied_steps_;
    {
      std::lock_guard lock(stats_mutex_);
      stats_.lead.add(lead);
    }
    for (std::uint32_t partition : my_partitions_)
      send_parameters(static_cast<std::uint32_t>(w), *worker.step, partition);
  }
}

void PsServer::send_parameters(std::uint32_t worker, std::uint64_t step,
                               std::uint32_t partition) {
  const Owned& owned = owned_.at(partition);
  const Range range = plan_.partition(owned_total_, partition);
  const PsHeader out{.type = PsMessageType::reply,
                     .step = step,
                     .partition = partition,
                     .worker = worker,
                     .offset = range.offset,
                     .count = range.count,
                     .total = owned_total_};
  Worker& state = workers_state_[worker];
  send_to(worker, out, zmq::message_t(owned.value.data(), owned.value.size() * sizeof(float)));
  traffic_.bytes_sent += range.count * sizeof(float);
  --state.unanswered;
}

bool PsServer::pending() const {
  if (!steps_.empty()) return true;
  for (const Worker& w : workers_state_)
    if (w.held) return true;
  return false;
}

PsServer::Stall PsServer::held_stall() const {
  Stall out;
  for (const Worker& w : workers_state_)
    if (w.held && w.step) {
      out.step = *w.step;
      break;
    }
  out.partitions = my_partitions_;
  const std::uint64_t slowest = slowest_clock();
  for (std::size_t w = 0; w < workers_state_.size(); ++w)
    if (!workers_state_[w].said_bye && workers_state_[w].clock == slowest)
      out.missing.push_back(static_cast<std::uint32_t>(w));
  return out;
}

PsAsyncStats PsServer::async_stats() const {
  std::lock_guard lock(stats_mutex_);
  return stats_;
}

}  // namespace gradsync
