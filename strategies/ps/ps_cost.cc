// ps-zmq's counts, host by host (ps_client.cc, ps_server.cc, and the
// partition plan of ps_plan.h, used here as it is).
//
// The flows. The buffer of n floats is cut into the plan's P partitions,
// partition i served by shard i % S; every worker pushes every partition to
// its shard, and the shard, once all W workers' pushes are in, replies the
// sum to each (W - 1 additions of the partition). A push or a reply between
// a worker and a shard on the same host stays on the host; the others go out
// of one host's link and into another's, one message each. So a host's link
// carries out = push_out + reply_out and in = push_in + reply_in.
//
// The overlap rule. A shard holding the most partitions holds m = ceil(P/S)
// of them, and one allreduce runs in m rounds (round j: partitions jS ..
// jS+S-1, one per shard). Within a round the replies follow the pushes (a
// shard answers once every worker's push is in), but the pushes of round
// j+1 travel while the replies of round j do, so the rounds make a two-stage
// pipeline: the first round's pushes and the last round's replies are alone
// on the link, and the m - 1 rounds between last as long as the busier
// direction's share. Per host, in bytes (and likewise in messages):
//
//   critical = max(out, in) (m-1)/m + (max(push_out, push_in) + max(reply_out, reply_in)) / m
//
// For a host that only serves (in: pushes, out: replies) or only works (out:
// pushes, in: replies) that is the busier direction plus the other direction
// / m: with one partition per shard the push and the reply are sequential,
// with many only the last round's other direction is not hidden. A
// colocated host, whose link carries pushes and then replies both ways, gets
// the same rule (its pushes of one round go out while its shard's pushes
// come in). The busiest host is the one with the most critical bytes; the
// reduction is the busiest shard host's.
//
// The rotated schedule (--ps-schedule rotated) moves the same bytes, with
// a receipt and a pull beside each push and reply (twice the messages), and
// bounds the flows that start together into one link by its window
// (converging_flows): the contended bytes that cost extra where flows from
// several hosts collide are counted for those flows only.

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "strategies/ps/ps_cost.h"
#include "strategies/ps/ps_options.h"
#include "strategies/ps/ps_plan.h"

namespace gradsync {
namespace {

void check_layout(const PsLayout& layout) {
  require_positive_count(layout.workers, "ps_traffic", "workers");
  require_positive_count(layout.workers_per_host, "ps_traffic", "workers_per_host");
  require_positive_count(layout.shards, "ps_traffic", "shards");
  if (layout.server_hosts < 0)
    throw std::invalid_argument(
        fmt::format("ps_traffic: server_hosts must be 0 (one per shard) or more (got {})",
                    layout.server_hosts));
  if (!std::isfinite(layout.partition_bytes) || !(layout.partition_bytes > 0))
    throw std::invalid_argument(fmt::format(
        "ps_traffic: partition_bytes must be a positive number (got {})", layout.partition_bytes));
  if (layout.rotated && layout.window < 1)
    throw std::invalid_argument(fmt::format(
        "ps_traffic: the rotated schedule's window must be at least 1 (got {})", layout.window));
  if (!layout.dedicated && layout.shards > layout.workers)
    throw std::invalid_argument(fmt::format(
        "ps_traffic: {} colocated shards need at least {} workers (shard s runs in worker s), "
        "but there are {}",
        layout.shards, layout.shards, layout.workers));
}

void add(PsFlow& flow, double bytes, double messages) {
  flow.bytes += bytes;
  flow.messages += messages;
}

// The overlap rule above, for one quantity (bytes or messages).
double critical(double push_out, double push_in, double reply_out, double reply_in, double rounds) {
  const double busier = std::max(push_out + reply_out, push_in + reply_in);
  const double alone = std::max(push_out, push_in) + std::max(reply_out, reply_in);
  return busier * (rounds - 1) / rounds + alone / rounds;
}

// The rotated schedule's small messages: a pull goes the way of each push
// (worker to shard) and a receipt the way of each reply, one per partition
// and worker, on the link or the loopback as its push.
void add_receipts_and_pulls(PsTraffic& traffic) {
  for (PsHostTraffic& host : traffic.hosts) {
    host.push_out.messages *= 2;
    host.push_in.messages *= 2;
    host.reply_out.messages *= 2;
    host.reply_in.messages *= 2;
    host.local.messages *= 2;
  }
}

}  // namespace

PsTraffic ps_traffic(double bytes, const PsLayout& layout) {
  check_layout(layout);
  const std::uint64_t n = buffer_floats(bytes, "ps_traffic");
  const int workers = layout.workers, per_host = layout.workers_per_host, shards = layout.shards;
  const int worker_hosts = (workers + per_host - 1) / per_host;
  const int server_hosts =
      layout.dedicated ? (layout.server_hosts > 0 ? layout.server_hosts : shards) : 0;
  auto shard_host = [&](int s) {
    return layout.dedicated ? worker_hosts + s % server_hosts : s / per_host;
  };

  PsTraffic out;
  out.hosts.resize(static_cast<std::size_t>(worker_hosts) + server_hosts);
  for (int h = 0; h < worker_hosts; ++h)
    out.hosts[h].workers = std::min(per_host, workers - h * per_host);
  for (int s = 0; s < shards; ++s) ++out.hosts[shard_host(s)].shards;
  if (n == 0) return out;

  // Shard s serves partitions s, s+S, ...; the first n % P partitions are one
  // float longer (even_part), so shard s's floats follow from two counts.
  const PsPlan plan{
      .partition_bytes = static_cast<std::size_t>(std::min(layout.partition_bytes, 1e18)),
      .shards = shards};
  const std::uint64_t partitions = plan.partition_count(n);
  const std::uint64_t base = n / partitions, longer = n % partitions;
  auto served_below = [&](std::uint64_t end, int s) -> std::uint64_t {
    return end > static_cast<std::uint64_t>(s) ? (end - 1 - s) / shards + 1 : 0;
  };
  out.rounds = static_cast<double>(served_below(partitions, 0));

  for (int s = 0; s < shards; ++s) {
    const double messages = static_cast<double>(served_below(partitions, s));
    const double shard_bytes =
        static_cast<double>(served_below(partitions, s) * base + served_below(longer, s)) *
        kFloatBytes;
    PsHostTraffic& server = out.hosts[shard_host(s)];
    server.reduced += (workers - 1) * shard_bytes;
    for (int h = 0; h < worker_hosts; ++h) {
      PsHostTraffic& client = out.hosts[h];
      const double c = client.workers;
      if (h == shard_host(s)) {  // its workers reach this shard over loopback, not the link
        add(server.local, c * shard_bytes, c * messages);
        continue;
      }
      add(client.push_out, c * shard_bytes, c * messages);
      add(server.push_in, c * shard_bytes, c * messages);
      add(server.reply_out, c * shard_bytes, c * messages);
      add(client.reply_in, c * shard_bytes, c * messages);
    }
  }
  if (layout.rotated) add_receipts_and_pulls(out);

  for (std::size_t h = 0; h < out.hosts.size(); ++h) {
    PsHostTraffic& host = out.hosts[h];
    host.critical_bytes = critical(host.push_out.bytes, host.push_in.bytes, host.reply_out.bytes,
                                   host.reply_in.bytes, out.rounds);
    host.critical_messages = critical(host.push_out.messages, host.push_in.messages,
                                      host.reply_out.messages, host.reply_in.messages, out.rounds);
    if (host.critical_bytes > out.hosts[out.busiest].critical_bytes) out.busiest = h;
  }
  return out;
}

namespace {

// ps_local_terms and ps_terms from the traffic, so that a count needing both
// works the traffic out once.
CostTerms local_terms(const PsTraffic& traffic) {
  // The host whose workers and shards exchange the most among themselves:
  // every local push and its reply pass through that host's loopback.
  const PsHostTraffic* busiest = nullptr;
  for (const PsHostTraffic& host : traffic.hosts)
    if (busiest == nullptr || host.local.bytes > busiest->local.bytes) busiest = &host;
  if (busiest == nullptr || busiest->local.bytes == 0) return {};
  return {.messages = 2 * busiest->local.messages, .bytes = 2 * busiest->local.bytes};
}

// The hosts whose flows arrive at `host` at once: what can overrun its
// link's queue. Flows from one host are paced by that host's own link, as
// fast as this one, so however many connections it has open they cannot
// arrive faster than this link drains; only several hosts sending at once
// can (incast). All at once: a push from every host with workers when this
// one holds shards, a reply from every host with shards when it holds
// workers. Rotated: the workers keep window pushes each in flight, spread
// evenly over the shards by the rotation, so a shard takes about window x
// workers / shards of them; and a worker pulls at most window replies at
// once; the hosts sending are at most those flows.
int converging_flows(const PsTraffic& traffic, const PsHostTraffic& host, const PsLayout& layout) {
  int shards = 0, senders = 0;
  for (const PsHostTraffic& h : traffic.hosts) {
    shards += h.shards;
    const bool pushes = host.shards > 0 && h.workers > 0,
               replies = host.workers > 0 && h.shards > 0;
    if (&h != &host && (pushes || replies)) ++senders;
  }
  if (!layout.rotated) return senders;
  const int per_shard = (layout.window * layout.workers + shards - 1) / shards;
  const int pushes_in =
      host.shards > 0 ? std::min(layout.workers - host.workers, per_shard * host.shards) : 0;
  const int replies_in =
      host.workers > 0 ? std::min(shards - host.shards, layout.window * host.workers) : 0;
  return std::min(senders, pushes_in + replies_in);
}

CostTerms link_terms(const PsTraffic& traffic, const PsLayout& layout) {
  if (traffic.rounds == 0) return {};  // an empty buffer: nothing is pushed
  double reduced = 0;
  for (const PsHostTraffic& host : traffic.hosts) reduced = std::max(reduced, host.reduced);
  const PsHostTraffic& busiest = traffic.hosts[traffic.busiest];
  const int flows = converging_flows(traffic, busiest, layout);
  return {.calls = 1,
          .messages = busiest.critical_messages,
          .bytes = busiest.critical_bytes,
          .reduced = reduced,
          .contended = busiest.critical_bytes * std::max(0, flows - 1)};
}

}  // namespace

CostTerms ps_local_terms(double bytes, const PsLayout& layout) {
  return local_terms(ps_traffic(bytes, layout));
}

CostTerms ps_terms(double bytes, const PsLayout& layout) {
  return link_terms(ps_traffic(bytes, layout), layout);
}

AllreduceCounts ps_zmq_counts(double bytes, const StrategyOptions& options,
                              const WorkerPlacement& placement) {
  if (placement.workers == 1) return {};  // one worker's allreduce moves nothing
  const bool spans_hosts = placement.nodes() > 1 || placement.server_hosts > 0;
  const PsLayout layout{.workers = placement.workers,
                        .workers_per_host = placement.workers_per_node,
                        .shards = options.ps.servers,
                        .dedicated = options.ps.placement == PsPlacement::dedicated,
                        .server_hosts = placement.server_hosts,
                        .partition_bytes = double(ps_partition_bytes(options.ps, spans_hosts)),
                        .rotated = ps_rotated(options.ps),
                        .window = options.ps.window};
  const PsTraffic traffic = ps_traffic(bytes, layout);
  // What stays on a host runs beside the links, through other resources:
  // it is the critical path only when nothing crosses a link (a job on one
  // host, its shards colocated), and then it is all the job spans.
  const CostTerms link = link_terms(traffic, layout);
  if (link.bytes > 0) return {.spanning = link};
  CostTerms local = local_terms(traffic);
  local.calls = link.calls;
  local.reduced = link.reduced;
  return {.spanning = local};
}

std::string ps_zmq_uncosted(const StrategyOptions& options) {
  if (options.ps.mode == PsMode::sync) return "";
  return fmt::format(
      "--ps-mode {}: the cost model replays a synchronous step (every worker's bucket summed "
      "before the next step), not workers at their own pace against the shards",
      to_string(options.ps.mode));
}

}  // namespace gradsync
