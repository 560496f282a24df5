#pragma once
// What a strategy tells about a run beyond its traffic, for the run's record
// and output: the parameter server's shards count the messages they refused
// and, in the asynchronous modes, the gradient steps they applied. Each rank
// gives its part (Strategy::account(), JSON text that the harness exchanges
// between the ranks); the strategy's table entry (merge_account) turns every
// rank's part into one RunAccount, which `train` and `collectives` add to
// their records and print, whatever the strategy.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "strategies/core/strategy_options.h"

namespace gradsync {

struct AccountInputs {
  const StrategyOptions* options = nullptr;
  // Every worker's gradient steps, in worker order, when `train` ran them at
  // their own pace (servers that own the parameters); empty otherwise.
  std::vector<std::uint64_t> worker_steps;
};

struct RunAccount {
  // Added to the run's record, key by key ("ps_rejected", "ps_async").
  nlohmann::json fields = nlohmann::json::object();
  // For the run's output, one line each, without a newline ("Refused by PS
  // shards: none").
  std::vector<std::string> lines;
  // Not empty: the strategy found the run's result wrong (one line naming
  // what); the record says "correct": false and the command ends with it.
  std::string failure;
};

}  // namespace gradsync
