#pragma once
// What the ranks agree on before and during work, each through one
// allgather, so that a failure or a difference found on one rank ends every
// rank alike: each throws the same AgreedError, main prints one line from
// world rank 0, and no rank is left waiting for another.
//
// - agree_on_failure: each rank says what went wrong for it (or nothing).
// - agree_on_config: each rank gives its effective configuration (a JSON
//   object of named values); any value that differs ends the job, naming it.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "strategies/world.h"

namespace gradsync {

// Collective over `world`. `error` is this rank's failure, empty when none.
// When any rank failed, throws AgreedError(exit_status) on every rank with
// failure_message's line.
void agree_on_failure(const World& world, const std::string& error, int exit_status);

// The one line for per-rank errors (empty: that rank is fine): the error
// alone when every rank failed alike, else the lowest failing rank's, as
// "rank R: error", with how many other ranks failed. Empty when none failed.
std::string failure_message(const std::vector<std::string>& errors);

// Collective over `world`. Throws AgreedError(exit_status) on every rank when
// the ranks' `config` objects differ, with config_difference's line.
void agree_on_config(const World& world, const nlohmann::json& config, int exit_status);

// "ranks disagree on --batch-size: rank 0: 64; rank 1: 1" for the first key
// whose values differ (keys missing on a rank read "(none)"), with how many
// other keys differ; ranks sharing a value are listed together ("ranks 0,2-3").
// Empty when every rank has the same object.
std::string config_difference(const std::vector<nlohmann::json>& configs);

}  // namespace gradsync
