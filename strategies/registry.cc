#include "strategies/registry.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <variant>

#include "strategies/core/compressed.h"
#include "strategies/core/delayed.h"
#include "strategies/core/no_sync.h"
#include "strategies/core/staged.h"
#include "strategies/gloo/gloo.h"
#include "strategies/mpi/double_tree_mpi.h"
#include "strategies/mpi/halving_doubling_mpi.h"
#include "strategies/mpi/hierarchical_mpi.h"
#include "strategies/mpi/mpi_allreduce.h"
#include "strategies/mpi/ring_mpi.h"
#include "strategies/mpi/tree_mpi.h"
#include "strategies/mpi/zero_mpi.h"
#include "strategies/nccl/nccl.h"
#include "strategies/nccl/nccl_account.h"
#include "strategies/nccl/nccl_model.h"
#include "strategies/ps/ps_account.h"
#include "strategies/ps/ps_cost.h"
#include "strategies/ps/ps_zmq.h"

namespace gradsync {
namespace {

Availability always() { return {true, "built in"}; }

// The flags that entries read beyond their own (StrategyInfo::shared_flags):
// the MPI point-to-point strategies' latency path, the trees' segment, and
// the hierarchy's inner ring and tree.
constexpr std::string_view kShortPath[] = {"--short-allreduce"};
constexpr std::string_view kDoubleTreeFlags[] = {"--tree-segment", "--short-allreduce"};
constexpr std::string_view kHierarchyFlags[] = {"--ring-segment", "--tree-segment",
                                                "--short-allreduce"};
constexpr std::string_view kRingSegment[] = {"--ring-segment"};

// The ring's sharded entries (ZeRO stages 2 and 3): the same two calls.
constexpr StrategyCost kShardedRingCost = {
    .form = "ring: a reduce-scatter and an all-gather of p-1 steps each, one chunk in segments",
    .counts = zero2_ring_mpi_counts,
    .measures_links = true};

// The MPI library's sharded entries (ZeRO stages 2 and 3): the same two calls.
constexpr StrategyCost kShardedMpiCost = {
    .form =
        "the MPI library's reduce-scatter and all-gather, counted as recursive halving then "
        "doubling and calibrated per worker count",
    .counts = mpi_allreduce_counts,
    .per_workers = true};

// NCCL's sharded entries (ZeRO stages 2 and 3): NCCL's model of its ring,
// whose reduce-scatter and all-gather each take half the allreduce's steps.
constexpr StrategyCost kShardedNcclCost = {
    .form =
        "NCCL's own model (tuning.cc), ring: a reduce-scatter and an all-gather, each half "
        "an allreduce",
    .library_model_seconds = nccl_ring_seconds};

constexpr std::array kTable = {
    StrategyInfo{.name = "ring-mpi",
                 .algorithm = "reduce-scatter + allgather ring, segmented and pipelined",
                 .transport = "MPI point-to-point",
                 .memory = MemoryKind::host,
                 .availability = always,
                 .create = make_ring_mpi,
                 .in_default_set = true,
                 .flags = ring_mpi_flags,
                 .shared_flags = kShortPath,
                 .cost = {.form = "ring: 2(p-1) steps of one chunk in segments (Thakur et al.)",
                          .counts = ring_mpi_counts,
                          .measures_links = true}},
    StrategyInfo{
        .name = "tree-mpi",
        .algorithm = "pipelined binary tree: reduce to the root, broadcast back",
        .transport = "MPI point-to-point",
        .memory = MemoryKind::host,
        .availability = always,
        .create = make_tree_mpi,
        .in_default_set = true,
        .flags = tree_mpi_flags,
        .shared_flags = kShortPath,
        .cost = {.form = "heap-ordered binary tree, reduce and broadcast pipelined at once",
                 .counts = tree_mpi_counts}},
    StrategyInfo{
        .name = "ps-zmq",
        .algorithm = "parameter server: sharded key ranges, push then pull; sync, async or ssp",
        .transport = "ZeroMQ (tcp, ipc), or MPI point-to-point (--ps-transport mpi)",
        .memory = MemoryKind::host,
        .availability = ps_zmq_availability,
        .create = make_ps_zmq,
        .in_default_set = true,
        .flags = ps_zmq_flags,
        .validate = ps_zmq_validate,
        .cost = {.form = "parameter server: per-host push/pull traffic with incast at the "
                         "shards",
                 .counts = ps_zmq_counts,
                 .uncosted = ps_zmq_uncosted},
        .dedicated_servers = ps_zmq_dedicated_servers,
        .set_servers = ps_zmq_set_servers,
        .label = ps_zmq_label,
        .train_note = ps_zmq_train_note,
        .servers_own_parameters = ps_zmq_servers_own_parameters,
        .merge_account = ps_zmq_merge_account},
    StrategyInfo{.name = "mpi-allreduce",
                 .algorithm = "whatever the MPI library picks (the reference)",
                 .transport = "MPI_Allreduce",
                 .memory = MemoryKind::host,
                 .availability = mpi_allreduce_availability,
                 .create = make_mpi_allreduce,
                 .role = StrategyRole::reference,
                 .in_default_set = true,
                 .cost = {.form = "whatever the MPI library picks, counted as recursive "
                                  "halving-doubling (Rabenseifner) and calibrated per worker count",
                          .counts = mpi_allreduce_counts,
                          .per_workers = true},
                 .traffic_computed = true},
    StrategyInfo{.name = "nccl-ring",
                 .algorithm = "NCCL allreduce with NCCL_ALGO=Ring, on device buffers",
                 .transport = "NCCL",
                 .memory = MemoryKind::device,
                 .gpu_per_rank = true,
                 .availability = nccl_availability,
                 .create = make_nccl_ring,
                 .cost = {.form = "NCCL's own model (tuning.cc), ring",
                          .library_model_seconds = nccl_ring_seconds},
                 .merge_account = nccl_ring_merge_account,
                 .traffic_computed = true},
    StrategyInfo{.name = "nccl-tree",
                 .algorithm = "NCCL allreduce with NCCL_ALGO=Tree (double binary tree)",
                 .transport = "NCCL",
                 .memory = MemoryKind::device,
                 .gpu_per_rank = true,
                 .availability = nccl_availability,
                 .create = make_nccl_tree,
                 .cost = {.form = "NCCL's own model (tuning.cc), tree",
                          .library_model_seconds = nccl_tree_seconds},
                 .merge_account = nccl_tree_merge_account,
                 .traffic_computed = true},
    StrategyInfo{.name = "none",
                 .algorithm = "no synchronization: the compute-only baseline",
                 .transport = "-",
                 .memory = MemoryKind::host,
                 .availability = always,
                 .create = make_no_sync,
                 .role = StrategyRole::baseline,
                 .cost = {.form = "nothing: compute only", .counts = no_sync_counts}},
    // Last, so that the strategies before it keep their table index (the
    // plots' colours). Its segment size is tree-mpi's --tree-segment.
    StrategyInfo{.name = "double-tree-mpi",
                 .algorithm = "two complementary pipelined binary trees, each reducing and "
                              "broadcasting half the buffer",
                 .transport = "MPI point-to-point",
                 .memory = MemoryKind::host,
                 .availability = always,
                 .create = make_double_tree_mpi,
                 .shared_flags = kDoubleTreeFlags,
                 .cost = {.form = "two complementary binary trees, half the buffer each "
                                  "(Sanders, Speck, Traeff)",
                          .counts = double_tree_mpi_counts}},
    StrategyInfo{.name = "halving-doubling-mpi",
                 .algorithm = "recursive halving reduce-scatter + recursive doubling allgather "
                              "(Rabenseifner)",
                 .transport = "MPI point-to-point",
                 .memory = MemoryKind::host,
                 .availability = always,
                 .create = make_halving_doubling_mpi,
                 .in_default_set = false,
                 .shared_flags = kShortPath,
                 .cost = {.form = "recursive doubling for short buffers, Rabenseifner's halving "
                                  "and doubling above, pairs folded first",
                          .counts = halving_doubling_mpi_counts,
                          .measures_links = true}},
    StrategyInfo{.name = "hierarchical-mpi",
                 .algorithm = "reduce-scatter within each host, one ring per host position across "
                              "hosts (the leaders' tree when small), allgather within each host "
                              "(Horovod's hierarchical)",
                 .transport = "MPI (shared memory in a host, point-to-point between hosts)",
                 .memory = MemoryKind::host,
                 .availability = always,
                 .create = make_hierarchical_mpi,
                 .in_default_set = false,
                 .flags = hierarchical_mpi_flags,
                 .shared_flags = kHierarchyFlags,
                 .cost = {.form = "host reduce-scatter and allgather within the node, one ring "
                                  "per host position between nodes, in turn",
                          .counts = hierarchical_mpi_counts}},
    // Gloo's own algorithms (an optional peer: listed unusable without it).
    StrategyInfo{.name = "gloo-ring",
                 .algorithm = "Gloo's ring allreduce (gloo::allreduce RING, what PyTorch's "
                              "ProcessGroupGloo runs), segments of 1 MiB",
                 .transport = "Gloo over TCP",
                 .memory = MemoryKind::host,
                 .availability = gloo_availability,
                 .create = make_gloo_ring,
                 .cost = {.form = "ring: 2(p-1) steps of one chunk in segments of at most "
                                  "1 MiB, at least two per chunk",
                          .counts = gloo_ring_counts},
                 .traffic_computed = true},
    StrategyInfo{.name = "gloo-bcube",
                 .algorithm = "Gloo's bcube allreduce (gloo::allreduce BCUBE): recursive "
                              "halving and doubling in groups",
                 .transport = "Gloo over TCP",
                 .memory = MemoryKind::host,
                 .availability = gloo_availability,
                 .create = make_gloo_bcube,
                 .cost = {.form = "reduce-scatter and allgather in groups: 2s, then one "
                                  "group of what is left of p",
                          .counts = gloo_bcube_counts},
                 .traffic_computed = true},
    StrategyInfo{.name = "gloo-ring-chunked",
                 .algorithm = "Gloo's chunked ring (gloo::AllreduceRingChunked), 2p chunks",
                 .transport = "Gloo over TCP",
                 .memory = MemoryKind::host,
                 .availability = gloo_availability,
                 .create = make_gloo_ring_chunked,
                 .cost = {.form = "ring: 2(p-1) steps of two half chunks",
                          .counts = gloo_ring_chunked_counts},
                 .traffic_computed = true},
    StrategyInfo{.name = "gloo-halving-doubling",
                 .algorithm = "Gloo's halving-doubling (gloo::AllreduceHalvingDoubling)",
                 .transport = "Gloo over TCP",
                 .memory = MemoryKind::host,
                 .availability = gloo_availability,
                 .create = make_gloo_halving_doubling,
                 .cost = {.form = "recursive halving-doubling in binary blocks of p, "
                                  "each handing its sums to the next larger",
                          .counts = gloo_halving_doubling_counts},
                 .traffic_computed = true},
    StrategyInfo{.name = "zero2-ring-mpi",
                 .algorithm = "ZeRO stage 2: gradients reduce-scattered in buckets, each worker "
                              "updates its shard, parameters all-gathered; ring-mpi's two halves",
                 .transport = "MPI point-to-point",
                 .memory = MemoryKind::host,
                 .availability = always,
                 .create = make_zero2_ring_mpi,
                 .shared_flags = kRingSegment,
                 .cost = kShardedRingCost,
                 .sharding = Sharding::optimizer_state},
    StrategyInfo{.name = "zero2-mpi",
                 .algorithm = "ZeRO stage 2 on the MPI library's MPI_Reduce_scatter and "
                              "MPI_Allgatherv",
                 .transport = "MPI collectives",
                 .memory = MemoryKind::host,
                 .availability = mpi_allreduce_availability,
                 .create = make_zero2_mpi,
                 .cost = kShardedMpiCost,
                 .traffic_computed = true,
                 .sharding = Sharding::optimizer_state},
    StrategyInfo{.name = "zero3-ring-mpi",
                 .algorithm = "ZeRO stage 3: parameters sharded too, each layer group's gathered "
                              "before its forward and again before its backward, its gradients "
                              "reduce-scattered; ring-mpi's two halves",
                 .transport = "MPI point-to-point",
                 .memory = MemoryKind::host,
                 .availability = always,
                 .create = make_zero3_ring_mpi,
                 .shared_flags = kRingSegment,
                 .cost = kShardedRingCost,
                 .sharding = Sharding::parameters},
    StrategyInfo{.name = "zero3-mpi",
                 .algorithm = "ZeRO stage 3 on the MPI library's MPI_Reduce_scatter and "
                              "MPI_Allgatherv",
                 .transport = "MPI collectives",
                 .memory = MemoryKind::host,
                 .availability = mpi_allreduce_availability,
                 .create = make_zero3_mpi,
                 .cost = kShardedMpiCost,
                 .traffic_computed = true,
                 .sharding = Sharding::parameters},
    StrategyInfo{.name = "zero2-nccl",
                 .algorithm = "ZeRO stage 2 on NCCL's ncclReduceScatter and ncclAllGather "
                              "(NCCL_ALGO=Ring)",
                 .transport = "NCCL",
                 .memory = MemoryKind::device,
                 .gpu_per_rank = true,
                 .availability = nccl_availability,
                 .create = make_zero2_nccl,
                 .cost = kShardedNcclCost,
                 .traffic_computed = true,
                 .sharding = Sharding::optimizer_state},
    StrategyInfo{.name = "zero3-nccl",
                 .algorithm = "ZeRO stage 3 on NCCL's ncclReduceScatter and ncclAllGather "
                              "(NCCL_ALGO=Ring)",
                 .transport = "NCCL",
                 .memory = MemoryKind::device,
                 .gpu_per_rank = true,
                 .availability = nccl_availability,
                 .create = make_zero3_nccl,
                 .cost = kShardedNcclCost,
                 .traffic_computed = true,
                 .sharding = Sharding::parameters},
};

std::string known_names() {
  std::string out;
  for (const auto& info : kTable) out += (out.empty() ? "" : ", ") + std::string(info.name);
  return out;
}

}  // namespace

std::span<const StrategyInfo> strategy_table() { return kTable; }

const StrategyInfo* strategy_named(std::string_view name) {
  for (const auto& info : kTable)
    if (info.name == name) return &info;
  return nullptr;
}

const StrategyInfo& find_strategy(std::string_view name) {
  if (const StrategyInfo* info = strategy_named(name)) return *info;
  throw std::invalid_argument("unknown strategy '" + std::string(name) +
                              "' (known: " + known_names() + ")");
}

std::string_view to_string(StrategyRole role) {
  switch (role) {
    case StrategyRole::baseline:
      return "baseline";
    case StrategyRole::reference:
      return "reference";
    case StrategyRole::synchronizer:
      break;
  }
  return "synchronizer";
}

std::string_view strategy_with_role(StrategyRole role) {
  for (const auto& info : kTable)
    if (info.role == role) return info.name;
  throw std::logic_error("the strategy table has no entry of the role asked for");
}

std::vector<std::string> default_strategy_names(bool with_baseline) {
  std::vector<std::string> names;
  if (with_baseline) names.emplace_back(strategy_with_role(StrategyRole::baseline));
  // Those that cannot run on this build or engine (Gloo, NCCL without them) are
  // left out of the default; named on the command line, they are refused.
  for (const auto& info : kTable)
    if (info.in_default_set && info.availability().usable) names.emplace_back(info.name);
  return names;
}

std::string default_strategy_list(bool with_baseline) {
  return join_names(default_strategy_names(with_baseline));
}

std::string join_names(std::span<const std::string> names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ",") + name;
  return out;
}

std::vector<const StrategyInfo*> parse_strategy_list(std::string_view comma_separated) {
  std::vector<const StrategyInfo*> entries;
  std::size_t start = 0;
  while (start <= comma_separated.size()) {
    std::size_t end = comma_separated.find(',', start);
    if (end == std::string_view::npos) end = comma_separated.size();
    std::string_view name = comma_separated.substr(start, end - start);
    if (name.empty())
      throw std::invalid_argument("empty strategy name in '" + std::string(comma_separated) + "'");
    const StrategyInfo& info = find_strategy(name);
    Availability a = info.availability();
    if (!a.usable)
      throw std::invalid_argument("strategy '" + std::string(name) +
                                  "' is not usable here: " + a.detail);
    entries.push_back(&info);
    start = end + 1;
  }
  return entries;
}

bool rank_only_serves(const StrategyInfo& strategy, const StrategyOptions& options, int rank) {
  return strategy.dedicated_servers && rank < strategy.dedicated_servers(options);
}

GpuNeed gpu_need(const StrategyInfo& strategy, const StrategyOptions& options, int rank) {
  return {.needs_gpu = !rank_only_serves(strategy, options, rank),
          .exclusive_for = strategy.gpu_per_rank ? std::string(strategy.name) : ""};
}

int job_ranks(const StrategyInfo& strategy, const StrategyOptions& options, int workers) {
  return workers + (strategy.dedicated_servers ? strategy.dedicated_servers(options) : 0);
}

std::string strategy_label(const StrategyInfo& strategy, const StrategyOptions& options) {
  return strategy.label ? strategy.label(options) : std::string(strategy.name);
}

RunAccount merge_account(const StrategyInfo& strategy, std::span<const std::string> per_rank,
                         const AccountInputs& inputs) {
  RunAccount account =
      strategy.merge_account ? strategy.merge_account(per_rank, inputs) : RunAccount{};
  account.fields["traffic_source"] = strategy.traffic_computed ? "computed" : "measured";
  return account;
}

void check_strategy_options(const StrategyInfo& strategy, const StrategyOptions& options,
                            int world_size) {
  // The casts of --compression run on host memory (compressed.h); the NCCL
  // strategies reduce fp32 device buffers only.
  if (options.compression != Compression::none && strategy.memory == MemoryKind::device)
    throw std::invalid_argument(std::string(strategy.name) + ": --compression " +
                                std::string(to_string(options.compression)) +
                                " is not supported (NCCL strategies reduce fp32 device buffers)");
  // Sharded strategies reduce-scatter and all-gather fp32; no 16-bit path.
  if (options.compression != Compression::none && strategy.sharding != Sharding::none)
    throw std::invalid_argument(std::string(strategy.name) + ": --compression " +
                                std::string(to_string(options.compression)) +
                                " is not supported (sharded strategies move fp32)");
  if (strategy.validate) strategy.validate(options, world_size);
}

namespace {

// Whether `strategy` reads `flag` at all: its own, one every entry reads,
// or one it names among its shared flags.
bool reads_flag(const StrategyInfo& strategy, const OwnedOptionFlag& flag) {
  if (flag.strategy == strategy.name) return true;
  if (flag.strategy.empty() && !flag.flag->for_some) return true;
  return std::find(strategy.shared_flags.begin(), strategy.shared_flags.end(), flag.flag->flag) !=
         strategy.shared_flags.end();
}

}  // namespace

std::string idle_option_reason(const StrategyInfo& strategy, const OwnedOptionFlag& flag,
                               const StrategyOptions& options) {
  if (!reads_flag(strategy, flag)) {
    std::string readers;
    for (const auto& info : kTable)
      if (reads_flag(info, flag)) readers += (readers.empty() ? "" : ", ") + std::string(info.name);
    return "is for " + readers;
  }
  if (flag.flag->idle_because) return std::string(flag.flag->idle_because(options));
  return "";
}

std::vector<OwnedOptionFlag> strategy_option_flags() {
  std::vector<OwnedOptionFlag> out;
  for (const auto& info : kTable)
    if (info.flags)
      for (const OptionFlag& flag : info.flags()) out.push_back({info.name, &flag});
  for (const OptionFlag& flag : common_option_flags()) out.push_back({"", &flag});
  for (const OptionFlag& flag : test_fault_flags()) out.push_back({"", &flag});
  return out;
}

std::vector<OwnedOptionFlag> changed_option_flags(const StrategyOptions& options,
                                                  const StrategyOptions& base) {
  StrategyOptions mine = options, theirs = base;  // fields are reached through mutable objects
  std::vector<OwnedOptionFlag> out;
  for (const OwnedOptionFlag& owned : strategy_option_flags()) {
    const OptionFlag& flag = *owned.flag;
    const bool differs = flag.field ? std::visit(
                                          [&](auto* value) {
                                            using Field = decltype(value);
                                            return *value != *std::get<Field>(flag.field(theirs));
                                          },
                                          flag.field(mine))
                                    : flag.named.get(mine) != flag.named.get(theirs);
    if (differs) out.push_back(owned);
  }
  return out;
}

std::unique_ptr<Strategy> make_strategy(const StrategyInfo& info, const World& world,
                                        const StrategyOptions& options, MemoryKind buffers) {
  check_strategy_options(info, options, world.size());
  auto strategy = info.create(world, options);
  if (options.compression != Compression::none)
    strategy = std::make_unique<CompressedStrategy>(std::move(strategy), options.compression);
  if (options.faults.delay_ms > 0)
    strategy = std::make_unique<DelayedStrategy>(std::move(strategy), options.faults.delay_ms);
  if (strategy->is_worker() && !strategy->accepts(buffers))
    strategy = make_staged(std::move(strategy), buffers);
  return strategy;
}

}  // namespace gradsync
