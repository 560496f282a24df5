#pragma once
// The one table that maps strategy names to their entries: an explicit list,
// each entry saying everything the rest of the program needs of a strategy:
// what it is, whether it can run here, how it is built, its options and
// their checks, which ranks only serve, how the cost model costs it, how
// reports show it, and what it adds to a run's record. Nothing outside
// strategies/ names a strategy: commands resolve a name to its entry once
// (find_strategy) and pass the entry on; scripts and plots ask `gradsync
// strategies`. Adding a strategy is one file pair in its room and one entry
// here (docs/ARCHITECTURE.md, "Adding a strategy").

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "strategies/core/availability.h"
#include "strategies/core/cost.h"
#include "strategies/core/local_gpu.h"
#include "strategies/core/run_account.h"
#include "strategies/core/strategy.h"
#include "strategies/core/strategy_options.h"

namespace gradsync {

// What the rest of the program makes of an entry beyond running it.
enum class StrategyRole {
  synchronizer,  // a way of synchronizing, compared with the others
  baseline,      // synchronizes nothing: the compute-only baseline efficiency is measured against
  reference,     // the MPI library's own allreduce: what the CI gate judges collectives against
};

// "synchronizer", "baseline" or "reference", as listings and reports spell it.
std::string_view to_string(StrategyRole role);

struct StrategyInfo {
  std::string_view name;
  std::string_view algorithm;
  std::string_view transport;
  MemoryKind memory;  // what it reduces natively; the other kind is staged
  // Needs a GPU of its own on every rank (NCCL: no two ranks of one
  // communicator on one device); false: ranks may share a GPU.
  bool gpu_per_rank = false;
  Availability (*availability)();
  std::unique_ptr<Strategy> (*create)(const World& world, const StrategyOptions& options);
  StrategyRole role = StrategyRole::synchronizer;
  // In the set that commands, scripts and plots compare when none is named.
  bool in_default_set = false;
  // Its own options (their fields live in its group of StrategyOptions); null: none.
  std::span<const OptionFlag> (*flags)() = nullptr;
  // The flags it reads beyond its own and the common ones every entry reads:
  // another entry's (double-tree-mpi's segment is tree-mpi's --tree-segment)
  // or a common one `for_some` entries (--short-allreduce).
  std::span<const std::string_view> shared_flags = {};
  // Throws std::invalid_argument, naming the flag, when the options cannot
  // run on a job of `world_size` ranks; null: nothing to check.
  void (*validate)(const StrategyOptions& options, int world_size) = nullptr;
  // How the cost model costs it: its counts or its own model (core/cost.h).
  StrategyCost cost = {};
  // How many of a job's first world ranks only serve (dedicated servers:
  // they hold no buffers, need no GPU, and have hosts of their own in the
  // cost model); null: none does.
  int (*dedicated_servers)(const StrategyOptions& options) = nullptr;
  // A strategy with server shards: sets `options` to `k` shards, on ranks
  // of their own (`dedicated`) or inside the first k workers; null: it has
  // no servers (sweeps' --ps-server-nodes, simulate's server-host studies).
  void (*set_servers)(StrategyOptions& options, int k, bool dedicated) = nullptr;
  // The run's name in reports when its options make a different experiment
  // ("ps-zmq ssp K=2", kept apart from synchronous ps-zmq); null: the name.
  std::string (*label)(const StrategyOptions& options) = nullptr;
  // A line for train's header on how it trains (servers that own the
  // parameters), or empty; null: none.
  std::string (*train_note)(const StrategyOptions& options) = nullptr;
  // Whether its servers own the parameters under `options` and apply SGD
  // themselves (ps-zmq --ps-mode async|ssp): the workers have no optimizer
  // of their own. Null: never.
  bool (*servers_own_parameters)(const StrategyOptions& options) = nullptr;
  // Every rank's Strategy::account() (world rank order) into the run's
  // record fields, output lines and verdict (core/run_account.h); null: it
  // tells nothing beyond its traffic.
  RunAccount (*merge_account)(std::span<const std::string> per_rank,
                              const AccountInputs& inputs) = nullptr;
  // Its Strategy::traffic() is computed from the algorithm's formula (a
  // library that counts nothing: MPI_Allreduce, Gloo, NCCL), not counted
  // from the bytes it hands its transport. Records say "traffic_source":
  // "computed" or "measured", and reports mark computed counts.
  bool traffic_computed = false;
  // Sharded data parallelism (core/strategy.h): what each worker keeps of the
  // model; none for a replica's strategy.
  Sharding sharding = Sharding::none;
};

std::span<const StrategyInfo> strategy_table();

// The entry named `name`; throws "unknown strategy 'x' (known: ...)".
const StrategyInfo& find_strategy(std::string_view name);
// The entry named `name`, or null (a name an older build's records hold).
const StrategyInfo* strategy_named(std::string_view name);

// The name of the entry with `role` (baseline or reference); there is one each.
std::string_view strategy_with_role(StrategyRole role);

// The default set of the strategies usable here (this build, this engine),
// in table order, without the baseline; `with_baseline`
// puts the baseline first (training sweeps need it for efficiency).
std::vector<std::string> default_strategy_names(bool with_baseline = false);
// The same, comma-separated ("a,b,c"), as flags and scripts take it.
std::string default_strategy_list(bool with_baseline = false);

// "a,b,c" from names.
std::string join_names(std::span<const std::string> names);

// Splits "a,b,c" into their entries, each checked against the table (and
// usable here), in the order given.
std::vector<const StrategyInfo*> parse_strategy_list(std::string_view comma_separated);

// Whether world rank `rank` of a job running `strategy` only serves (e.g. a
// dedicated parameter server): it holds no buffers, so it needs no GPU.
bool rank_only_serves(const StrategyInfo& strategy, const StrategyOptions& options, int rank);

// What world rank `rank` asks of the GPU placement (local_gpu.h) when its
// buffers or compute are on a GPU: none when it only serves, a GPU of its
// own when the strategy needs one per rank.
GpuNeed gpu_need(const StrategyInfo& strategy, const StrategyOptions& options, int rank);

// The ranks of a job of `workers` workers: the workers and the ranks that
// only serve.
int job_ranks(const StrategyInfo& strategy, const StrategyOptions& options, int workers);

// The run's name in reports: its entry's label, or its name.
std::string strategy_label(const StrategyInfo& strategy, const StrategyOptions& options);

// The entry's merge_account over every rank's part, or nothing; with the
// record field "traffic_source" ("computed" or "measured") for every entry.
RunAccount merge_account(const StrategyInfo& strategy, std::span<const std::string> per_rank,
                         const AccountInputs& inputs);

// Checks `strategy`'s options against a job of `world_size` ranks, the same
// on every rank: throws std::invalid_argument with a one-line message naming
// the flag. Commands call it before building anything; make_strategy too.
void check_strategy_options(const StrategyInfo& strategy, const StrategyOptions& options,
                            int world_size);

// An option flag and the entry it belongs to (empty: every strategy's).
struct OwnedOptionFlag {
  std::string_view strategy;
  const OptionFlag* flag;
};

// Why `flag` does nothing on a run of `strategy` with `options`, in words
// that follow the flag ("is for ring-mpi, hierarchical-mpi", "is for
// --ps-mode ssp"), or empty when it acts. Commands refuse a flag that does
// nothing on every strategy they run.
std::string idle_option_reason(const StrategyInfo& strategy, const OwnedOptionFlag& flag,
                               const StrategyOptions& options);

// Every option flag: each entry's in table order, then the common ones, then
// the test-only faults. The command line and the records walk this list.
std::vector<OwnedOptionFlag> strategy_option_flags();

// The option flags whose value in `options` is not the one in `base`, in
// the order of strategy_option_flags: what makes one run's options differ
// from another's (or, against the defaults, what a run set).
std::vector<OwnedOptionFlag> changed_option_flags(const StrategyOptions& options,
                                                  const StrategyOptions& base = {});

// Builds the strategy: collective over `world`, every rank must call it.
// Workers will hand it buffers in `buffers` memory; a strategy that does not
// take that memory is wrapped in the staging decorator (strategies/core/staged.h).
std::unique_ptr<Strategy> make_strategy(const StrategyInfo& strategy, const World& world,
                                        const StrategyOptions& options,
                                        MemoryKind buffers = MemoryKind::host);

}  // namespace gradsync
