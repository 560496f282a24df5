#pragma once
// One strategy's outcome in `gradsync collectives`, as every rank ends up
// holding it, and the result record (kind "collectives") written from it.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "harness/engine/cluster.h"
#include "harness/engine/collectives.h"
#include "harness/results/run_context.h"
#include "harness/results/wire_record.h"
#include "strategies/core/run_account.h"
#include "strategies/core/strategy.h"
#include "strategies/core/strategy_options.h"

namespace gradsync {

struct RankTraffic {
  int rank = 0;  // world rank
  bool is_worker = true;  // false: a rank that only serves
  Traffic traffic;
};

struct StrategyOutcome {
  std::string strategy;
  int workers = 0;
  MemoryKind memory = MemoryKind::host;  // where the buffers lived
  std::vector<SizeResult> rows;
  std::vector<RankTraffic> ranks;  // every world rank, in rank order
  std::vector<WireTruth> wire;     // on an emulated cluster: one per row; else empty
  RunAccount account;              // what the strategy itself told of the run (run_account.h)

  // Sizes with a wrong element, as "4 B (1 wrong)"; empty when all correct.
  std::vector<std::string> wrong_sizes() const;
  // The first disturbed size's event ("rank 0: stalled 2.6 s in size 65536 B
  // timed pass iteration 4 (ring-mpi allgather), waiting for rank 1"); empty
  // when every size ran undisturbed (SizeResult::disturbance).
  std::string first_disturbance() const;
};

// The one-line verdict on a run: empty when every checked element was right
// and no strategy's own account found it wrong, else which strategies were
// wrong at which sizes, or what their account says.
std::string wrong_results_message(std::span<const StrategyOutcome> outcomes);

nlohmann::json to_json(const SizeResult& row);
SizeResult size_result_from_json(const nlohmann::json& row);

struct CollectivesRecordInputs {
  const BenchSettings& settings;  // iterations and checks, as the strategy ran
  const StrategyOptions& strategy_options;
  const RunContext& context;
  const ClusterDescription* cluster = nullptr;  // the emulated cluster it ran on, if any
};

nlohmann::json collectives_record(const StrategyOutcome& outcome,
                                  const CollectivesRecordInputs& in);

}  // namespace gradsync
