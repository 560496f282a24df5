#pragma once
// ps-zmq's cost (strategies/core/cost.h): every worker pushes each partition
// (ps_plan.h: partitions of at most partition_bytes, at least one per
// shard, partition i on shard i % shards) to its shard, the shard sums the
// workers' pushes and replies the sum to each. Traffic is counted per host:
// workers fill hosts in rank order, `workers_per_host` to a host; colocated
// shard s is a thread of worker s; dedicated shards live on `server_hosts`
// hosts of their own (shard s on server host s % server_hosts; 0 means one
// host per shard). A worker's traffic to a shard on its own host never
// reaches the link. Pushes of later partitions overlap replies of earlier
// ones, so a host that only serves or only works takes its busier direction
// plus the other direction's share of one partition round; the .cc gives
// the rule for a host that does both, and its reasons. calls is 1 whenever
// the buffer is not empty: a worker pushes even to a shard on its own host
// (over loopback). One worker alone moves nothing (PsZmq::allreduce: the
// sum is its own buffer), so the entry's counts (ps_zmq_counts) are none
// there, as every other strategy's at one rank. The traffic to
// a shard on the worker's own host is counted apart (ps_local_terms): it
// crosses the host's loopback, beside the link, so it is the job's cost
// only where nothing crosses a link (all on one host: ps_zmq_counts).

#include <cstddef>
#include <string>
#include <vector>

#include "strategies/core/cost.h"
#include "strategies/core/strategy_options.h"

namespace gradsync {

struct PsLayout {
  int workers = 1;
  int workers_per_host = 1;
  int shards = 1;
  bool dedicated = false;
  int server_hosts = 0;
  double partition_bytes = 4.0 * 1024 * 1024;
  // The rotated schedule (ps_schedule.h): a receipt for every push and a
  // pull for every reply, and at most `window` pushes and pulls in flight
  // per worker, which bounds the flows that converge on a link.
  bool rotated = false;
  int window = 2;
};
CostTerms ps_terms(double bytes, const PsLayout& layout);

// What stays on a host: every push of its workers to its own shards and the
// reply to each go through its loopback (TCP or ipc), which takes time per
// byte and per message too (one host's job has nothing else): messages and
// bytes of the host with the most, pushes and replies one after another.
CostTerms ps_local_terms(double bytes, const PsLayout& layout);

// The traffic behind ps_terms, host by host, so that one can see which host
// is the bottleneck.
struct PsFlow {
  double bytes = 0;
  double messages = 0;
};
struct PsHostTraffic {
  int workers = 0;     // workers on this host
  int shards = 0;      // server shards on this host
  PsFlow push_out;     // its workers' pushes to shards on other hosts
  PsFlow push_in;      // other hosts' workers' pushes to its shards
  PsFlow reply_out;    // its shards' replies to workers on other hosts
  PsFlow reply_in;     // replies from other hosts' shards to its workers
  PsFlow local;        // its workers' pushes to its own shards, over loopback (replies alike)
  double reduced = 0;  // bytes its shards add
  // This host's critical path under the overlap rule (see the .cc), in bytes
  // through its link and in messages: what ps_terms takes from the busiest.
  double critical_bytes = 0;
  double critical_messages = 0;
};
struct PsTraffic {
  // Worker hosts in rank order (workers_per_host each, the last maybe
  // fewer), then, when dedicated, the server hosts.
  std::vector<PsHostTraffic> hosts;
  double rounds = 0;  // partitions on the busiest shard: the rounds pushes and replies overlap in
  std::size_t busiest = 0;  // the host with the most critical_bytes (the first of equals)
};
PsTraffic ps_traffic(double bytes, const PsLayout& layout);

// ps-zmq's cost on a placement: its --ps-servers shards, colocated or on the
// placement's server hosts, its --ps-partition partitions; the link traffic,
// or the loopback's when nothing crosses a link.
AllreduceCounts ps_zmq_counts(double bytes, const StrategyOptions& options,
                              const WorkerPlacement& placement);

// Why the cost model cannot cost these options: --ps-mode async and ssp
// (workers at their own pace against the shards' service rate) are not
// modelled; empty for sync.
std::string ps_zmq_uncosted(const StrategyOptions& options);

}  // namespace gradsync
