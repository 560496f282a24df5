#pragma once
// The cost model's closed forms: one allreduce of `bytes` bytes, counted in
// the four things that take its time,
//
//   time = calls x o + messages x alpha + bytes x beta + reduced x gamma,
//
// o a fixed overhead per call, alpha the latency of one message, beta the
// time of one byte through a link in one direction, gamma the time to add one
// byte. The counts are what each algorithm puts on its critical path: the
// messages sent one after another through the busiest link (pipeline fill
// included), the bytes through the busiest link direction (links are full
// duplex), the bytes the busiest rank adds. Thakur, Rabenseifner and Gropp
// (2005) give the unsegmented forms, e.g. the ring's 2(p-1) alpha +
// 2(p-1)/p n beta + (p-1)/p n gamma; here segmentation and the exact
// placement of every rank are counted too, because the calibration
// (harness/sim/calibration.h) fits o, alpha, beta and gamma to measured times
// through exactly these counts.
//
// Buffers are floats, as in the strategies: `bytes` is rounded up to whole
// floats, and chunks, segments and partitions are cut with the strategies'
// own arithmetic (strategies/core/partition.h, strategies/ps/ps_plan.h). Nothing
// moves for an empty buffer: every count is 0. A negative or non-finite size,
// or an impossible layout, throws std::invalid_argument naming the function.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace gradsync::sim {

struct CostTerms {
  double calls = 0;     // o: 1 for a call that communicates, 0 when nothing moves (p = 1)
  double messages = 0;  // alpha: messages on the critical path
  double bytes = 0;     // beta: bytes through the busiest link direction
  double reduced = 0;   // gamma: bytes added by the busiest rank
  // delta: the busiest link direction's bytes x (k - 1), k the flows that
  // arrive there at once. k TCP flows into one link deliver less than one
  // flow does (incast: they overrun the queue, lose packets and back off), so
  // a strategy's per-byte time is beta (1 + kappa (k - 1)); the calibration
  // fits delta = kappa beta where the data vary k (a tree's interior node
  // takes 2 or 3 flows, a parameter-server shard one per remote worker). 0
  // for one flow per link (ring, halving-doubling).
  double contended = 0;
  CostTerms& operator+=(const CostTerms& other);
};
CostTerms operator+(CostTerms a, const CostTerms& b);

// The constants of one link class (or of one strategy on it).
struct CostParams {
  double overhead_s = 0;        // o
  double alpha_s = 0;           // per message
  double beta_s_per_byte = 0;   // per byte through one link direction
  double gamma_s_per_byte = 0;  // per byte added
  double delta_s_per_byte = 0;  // per contended byte (see CostTerms::contended)
  double seconds(const CostTerms& terms) const;
};

// Flat algorithms over p ranks; every count is 0 at p = 1.
// ring-mpi (strategies/mpi/ring_mpi.cc): reduce-scatter then allgather round the
// ring, each of the p chunks cut into segments of `segment_bytes`.
CostTerms ring_terms(double bytes, int p, double segment_bytes);
// tree-mpi (strategies/mpi/tree_mpi.cc): heap-ordered binary tree (children of r:
// 2r+1, 2r+2), reduce and broadcast pipelined at once in segments.
CostTerms binary_tree_terms(double bytes, int p, double segment_bytes);
// double-tree-mpi's double binary tree (Sanders, Speck, Traeff 2009): two
// complementary trees (strategies/mpi/double_tree_plan.h), each carrying half the
// buffer; every rank is a leaf in at least one of them.
CostTerms double_tree_terms(double bytes, int p, double segment_bytes);
// Recursive halving-doubling (Rabenseifner): reduce-scatter by recursive
// halving, allgather by recursive doubling; a non-power-of-two p first folds
// its p - 2^k extra ranks into partners (one whole-buffer message before,
// one after: both on the critical path, so 2n bytes more).
CostTerms halving_doubling_terms(double bytes, int p);

// Hierarchical allreduce over `nodes` nodes of `per_node` ranks (ranks filled
// node by node): reduce within each node to its leader, ring allreduce among
// the leaders, broadcast within each node. Its two parts run on different
// link classes, so they are counted apart. The reduce is a ring
// reduce-scatter then a gather to the leader, the broadcast its mirror (a
// scatter from the leader then a ring allgather), in ring-mpi's chunks and
// segments (see the .cc for why).
struct HierarchicalTerms {
  CostTerms intra;  // the reduce and the broadcast within a node
  CostTerms inter;  // the leaders' ring
};
HierarchicalTerms hierarchical_terms(double bytes, int nodes, int per_node, double segment_bytes);

// ps-zmq (strategies/ps/ps_client.cc, ps_server.cc): every worker pushes each
// partition (strategies/ps/ps_plan.h: partitions of at most partition_bytes, at
// least one per shard, partition i on shard i % shards) to its shard, the
// shard sums the workers' pushes and replies the sum to each. Traffic is
// counted per host: workers fill hosts in rank order, `workers_per_host` to a
// host; colocated shard s is a thread of worker s; dedicated shards live on
// `server_hosts` hosts of their own (shard s on server host s % server_hosts;
// 0 means one host per shard). A worker's traffic to a shard on its own host
// never reaches the link. Pushes of later partitions overlap replies of
// earlier ones, so a host that only serves or only works takes its busier
// direction plus the other direction's share of one partition round; the .cc
// gives the rule for a host that does both, and its reasons. calls is 1
// whenever the buffer is not empty: a worker pushes even to a shard on its
// own host (over loopback), so one worker alone still pays the call.
struct PsLayout {
  int workers = 1;
  int workers_per_host = 1;
  int shards = 1;
  bool dedicated = false;
  int server_hosts = 0;
  double partition_bytes = 4.0 * 1024 * 1024;
};
CostTerms ps_terms(double bytes, const PsLayout& layout);

// The traffic behind ps_terms, host by host, so that the simulator can show
// which host is the bottleneck.
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

// NCCL's own model of an allreduce's time (NCCL's src/graph/tuning.cc,
// 2.10-era constants): per algorithm and protocol (LL, LL128, Simple) a base
// latency plus a per-step hardware latency (NVLink, PCI or network), and a
// bus bandwidth; NCCL picks the fastest protocol for the size, and so does
// this. Not calibrated: it is NCCL's model as NCCL ships it.
enum class NcclAlgo { ring, tree };
enum class IntraLink { nvlink, pci };
struct NcclSystem {
  int ranks = 1;
  int nodes = 1;
  IntraLink intra = IntraLink::pci;
  double intra_bus_gbps = 0;  // GB/s (1e9 B/s) a node's GPUs move among themselves, all channels
  double inter_bus_gbps = 0;  // GB/s one node's network moves each way, all channels
};
struct NcclTime {
  double seconds = 0;
  std::string protocol;  // "LL", "LL128" or "Simple"; empty when nothing runs (1 rank, 0 bytes)
};
NcclTime nccl_allreduce_time(double bytes, NcclAlgo algo, const NcclSystem& system);

// One protocol's time in that model, in seconds; none where NCCL would not
// use the protocol (LL128 off NVLink). 0 at 1 rank or 0 bytes.
enum class NcclProtocol { ll, ll128, simple };
const char* to_string(NcclProtocol protocol);
std::optional<double> nccl_protocol_time(double bytes, NcclAlgo algo, NcclProtocol protocol,
                                         const NcclSystem& system);

}  // namespace gradsync::sim
