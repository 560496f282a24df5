#pragma once
// NCCL's own model of an allreduce's time (NCCL's src/graph/tuning.cc,
// 2.10-era constants): per algorithm and protocol (LL, LL128, Simple) a base
// latency plus a per-step hardware latency (NVLink, PCI or network), and a
// bus bandwidth; NCCL picks the fastest protocol for the size, and so does
// this. Not calibrated: it is NCCL's model as NCCL ships it, and the cost of
// nccl-ring and nccl-tree in their table entries (StrategyCost::library_model_seconds).

#include <optional>
#include <string>

#include "strategies/core/cost.h"

namespace gradsync {

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

// nccl-ring's and nccl-tree's cost on a described cluster: the placement's
// ranks and nodes, the links' rates as NCCL's bus bandwidths.
double nccl_ring_seconds(double bytes, const WorkerPlacement& placement,
                         const DescribedLinks& links);
double nccl_tree_seconds(double bytes, const WorkerPlacement& placement,
                         const DescribedLinks& links);

}  // namespace gradsync
