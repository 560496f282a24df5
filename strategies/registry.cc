#include "registry.h"

#include <array>
#include <stdexcept>

#include "delayed.h"
#include "gpu_strategies.h"
#include "mpi_allreduce.h"
#include "no_sync.h"
#include "ps_zmq.h"
#include "ring_mpi.h"
#include "tree_mpi.h"

namespace gradsync {
namespace {

Availability always() { return {true, "built in"}; }

constexpr std::array kTable = {
    StrategyInfo{"ring-mpi", "reduce-scatter + allgather ring, segmented and pipelined",
                 "MPI point-to-point", MemoryKind::host, always, make_ring_mpi},
    StrategyInfo{"tree-mpi", "pipelined binary tree: reduce to the root, broadcast back",
                 "MPI point-to-point", MemoryKind::host, always, make_tree_mpi},
    StrategyInfo{"ps-zmq", "parameter server: sharded key ranges, synchronous push then pull",
                 "ZeroMQ (tcp, ipc)", MemoryKind::host, ps_zmq_availability, make_ps_zmq},
    StrategyInfo{"mpi-allreduce", "whatever the MPI library picks (the reference)",
                 "MPI_Allreduce", MemoryKind::host, mpi_allreduce_availability, make_mpi_allreduce},
    StrategyInfo{"nccl-ring", "NCCL allreduce with NCCL_ALGO=Ring, on device buffers", "NCCL",
                 MemoryKind::device, nccl_availability, make_nccl_ring},
    StrategyInfo{"nccl-tree", "NCCL allreduce with NCCL_ALGO=Tree (double binary tree)", "NCCL",
                 MemoryKind::device, nccl_availability, make_nccl_tree},
    StrategyInfo{"none", "no synchronization: the compute-only baseline", "-", MemoryKind::host, always,
                 make_no_sync},
};

std::string known_names() {
  std::string out;
  for (const auto& info : kTable) out += (out.empty() ? "" : ", ") + std::string(info.name);
  return out;
}

}  // namespace

std::span<const StrategyInfo> strategy_table() { return kTable; }

const StrategyInfo& find_strategy(std::string_view name) {
  for (const auto& info : kTable)
    if (info.name == name) return info;
  throw std::invalid_argument("unknown strategy '" + std::string(name) + "' (known: " +
                              known_names() + ")");
}

std::vector<std::string> parse_strategy_list(std::string_view comma_separated) {
  std::vector<std::string> names;
  std::size_t start = 0;
  while (start <= comma_separated.size()) {
    std::size_t end = comma_separated.find(',', start);
    if (end == std::string_view::npos) end = comma_separated.size();
    std::string_view name = comma_separated.substr(start, end - start);
    if (name.empty()) throw std::invalid_argument("empty strategy name in '" +
                                                  std::string(comma_separated) + "'");
    const StrategyInfo& info = find_strategy(name);
    Availability a = info.availability();
    if (!a.usable)
      throw std::invalid_argument("strategy '" + std::string(name) + "' is not usable here: " + a.detail);
    names.emplace_back(name);
    start = end + 1;
  }
  return names;
}

bool rank_only_serves(std::string_view name, const StrategyOptions& options, int rank) {
  return name == "ps-zmq" && ps_zmq_serves_only(options, rank);
}

std::unique_ptr<Strategy> make_strategy(std::string_view name, const World& world,
                                        const StrategyOptions& options, MemoryKind buffers) {
  auto strategy = find_strategy(name).create(world, options);
  if (options.test_delay_ms > 0)
    strategy = std::make_unique<DelayedStrategy>(std::move(strategy), options.test_delay_ms);
  if (strategy->is_worker() && !strategy->accepts(buffers))
    strategy = make_staged(std::move(strategy), buffers);
  return strategy;
}

}  // namespace gradsync
