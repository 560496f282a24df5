#pragma once
// Shared by the cost model's tests: a described GPU cluster with no fits,
// so that every strategy takes the link's constants (or NCCL's own model).

#include "harness/sim/cluster_model.h"

namespace gradsync::sim {

// `nodes` nodes of 4 GPUs on PCIe (100 Gbit/s), 25 Gbit/s between them.
inline ClusterModel made_up_gpu_cluster(int nodes) {
  ClusterModel m;
  m.name = "made-up";
  m.accelerator = "gpu";
  m.nodes = nodes;
  m.workers_per_node = 4;
  m.intra = {"pci", {100e9, "assumed", ""}, {1e-6, "assumed", ""}};
  m.inter = {"network", {25e9, "assumed", ""}, {2e-6, "assumed", ""}};
  m.per_message_s = {5e-6, "assumed", ""};
  m.reduce_bytes_per_s = {10e9, "assumed", ""};
  m.server_hosts = {0, "assumed", ""};
  return m;
}

}  // namespace gradsync::sim
