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

#include "strategies/core/world.h"

namespace gradsync {

// The bound on the harness's own waits (the allgathers and barriers around a
// strategy, and the ranks' agreement): the strategy's --timeout plus a few
// seconds, so that a strategy's wait, which names the peer and the
// operation, or a parameter-server worker, which names the worker its shard
// waits for, ends the job first; the harness's only when none of them did
// (a rank stopped outside any strategy wait, or under `none`).
inline double harness_timeout(double timeout_s) { return timeout_s > 0 ? timeout_s + 3.0 : 0.0; }

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
