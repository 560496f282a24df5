#pragma once
// A flag that does not apply is refused, never silently ignored: one line
// naming the flag and what it was given with, and the usage status.
//
// Two kinds of refusal. A flag that a subcommand does not take at all (a
// mode's flag given to another mode, `simulate published --model`) is
// CLI11's "not expected" error, told in these words by misplaced_flag_line.
// A flag that a subcommand takes but that acts only with some values of its
// other flags (`train --precision` with --compute cpu, a strategy's option
// with a strategy that does not read it) is a FlagScope, checked after the
// parse by refuse_out_of_scope.

#include <CLI/CLI.hpp>
#include <span>
#include <string>
#include <vector>

#include "strategies/core/strategy_options.h"
#include "strategies/registry.h"

namespace gradsync {

// One flag and whether it acts with the other flags as given.
struct FlagScope {
  std::string flag;     // its long name, "--precision"
  bool applies = true;  // whether it acts here
  std::string given;    // what it was given with: "train --compute cpu"
  std::string why;      // words that follow the flag: "is for --compute cuda"
};

// Whether `flag` (a long name) was given to `command` on the command line.
bool flag_given(const CLI::App& command, const std::string& flag);

// Throws std::invalid_argument "--precision does not apply to train
// --compute cpu: it is for --compute cuda" for the first scope that does not
// apply and whose flag `command` was given.
void refuse_out_of_scope(const CLI::App& command, std::span<const FlagScope> scopes);

// The strategy option flags given to `command`, each applying when at least
// one of `strategies` reads it with `options` (idle_option_reason), said to
// be given with `given` ("train --strategy ps-zmq").
std::vector<FlagScope> strategy_flag_scopes(const CLI::App& command,
                                            std::span<const StrategyInfo* const> strategies,
                                            const StrategyOptions& options,
                                            const std::string& given);

// For CLI11's "not expected" error of a flag that another subcommand takes,
// "--model does not apply to simulate published (it is a flag of simulate
// project, simulate crossover, simulate server-hosts)"; otherwise empty.
std::string misplaced_flag_line(const CLI::App& root, const CLI::ExtrasError& error);

}  // namespace gradsync
