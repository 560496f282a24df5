// The shard's half of the rotated schedule (--ps-schedule rotated;
// ps_schedule.cc says why): it sends a worker a receipt for each push that
// arrived whole, which frees a place in the worker's window, and it sends a
// partition's sum to a worker when the worker pulls it, not to every worker
// at once when the last push is in. A sum is kept until every worker has
// pulled it (at most two steps' partitions, as the partial sums: a worker
// starts a step only once it has pulled all of the step before), and a pull
// that comes before its sum waits in the partial sum.

#include <fmt/core.h>

#include "strategies/ps/ps_server.h"
#include "strategies/ps/ps_socket.h"

namespace gradsync {

void PsServer::send_receipt(const PsHeader& header) {
  PsHeader out = header;
  out.type = PsMessageType::received;
  send_to(header.worker, out, zmq::message_t());
}

void PsServer::hold_for_pulls(const PsHeader& header, Partial& partial) {
  round_sum(header, partial);
  auto [it, fresh] = ready_.try_emplace({header.step, header.partition});
  Ready& ready = it->second;
  ready.header = header;
  ready.element_bytes = partial.element_bytes;
  ready.sum.move(partial.sum);
  ready.pulled.assign(workers_, false);
  for (std::uint32_t w : shared_workers()) ready.pulled[w] = true;  // theirs is in shared memory
  ready.pulls = shared_workers_;
  // The pulls that came first are answered now; answer_pull may erase the
  // entry, so the list is copied out before.
  const std::vector<bool> waiting = std::move(partial.pull_waiting);
  for (std::size_t w = 0; w < waiting.size(); ++w)
    if (waiting[w]) answer_pull(ready_.at({header.step, header.partition}), std::uint32_t(w));
}

void PsServer::answer_pull(Ready& ready, std::uint32_t worker) {
  send_sum(ready.header, worker, ready.sum, ready.element_bytes);
  ready.pulled[worker] = true;
  if (++ready.pulls < workers_) return;
  ready_.erase({ready.header.step, ready.header.partition});
  --pending_partitions_;
}

void PsServer::take_pull(const PsHeader& header) {
  if (const auto it = ready_.find({header.step, header.partition}); it != ready_.end())
    return answer_pull(it->second, header.worker);
  Partial& partial = steps_.at(header.step).partitions.at(header.partition);
  if (partial.pull_waiting.empty()) partial.pull_waiting.assign(workers_, false);
  partial.pull_waiting[header.worker] = true;
}

std::optional<std::pair<PsRejectReason, std::string>> PsServer::refuse_pull(
    const PsHeader& header) const {
  using R = PsRejectReason;
  if (!rotated_ || local(header.worker) || mode_ != PsMode::sync)
    return std::pair{R::wrong_mode, fmt::format("a pull from worker {} to a shard that sends "
                                                "each sum when it is ready",
                                                header.worker)};
  if (std::string e = plan_.check(header, shard_); !e.empty())
    return std::pair{R::plan_mismatch, std::move(e)};
  const Worker& worker = workers_state_[header.worker];
  if (worker.step != header.step || !worker.pushed.contains(header.partition))
    return std::pair{R::out_of_window,
                     fmt::format("worker {} pulled partition {} of step {} before pushing it",
                                 header.worker, header.partition, header.step)};
  const auto twice = [&] {
    return std::pair{R::duplicate, fmt::format("worker {} pulled partition {} of step {} twice",
                                               header.worker, header.partition, header.step)};
  };
  if (const auto ready = ready_.find({header.step, header.partition}); ready != ready_.end()) {
    if (ready->second.pulled[header.worker]) return twice();
    return std::nullopt;
  }
  // Not ready: the sum is still being made, or it went to every worker.
  const auto step = steps_.find(header.step);
  if (step == steps_.end()) return twice();
  const auto partial = step->second.partitions.find(header.partition);
  if (partial == step->second.partitions.end()) return twice();
  const std::vector<bool>& waiting = partial->second.pull_waiting;
  if (!waiting.empty() && waiting[header.worker]) return twice();
  return std::nullopt;
}

}  // namespace gradsync
