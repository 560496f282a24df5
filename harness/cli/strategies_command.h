#pragma once
// `gradsync strategies`: every entry of the strategy table, whether it can run
// here, and the library behind it or the reason it cannot. Scripts and plots
// ask it for the lists they need instead of keeping their own: --names prints
// a comma-separated selection, --json every entry with what the table says.

#include <CLI/CLI.hpp>
#include <string>

namespace gradsync {

struct StrategiesOptions {
  bool names = false;          // a comma-separated list instead of the table
  bool with_baseline = false;  // --names: the baseline first
  bool all = false;            // --names: every entry, not only the default set
  std::string memory;          // --names: only entries of this native memory (host, device)
  bool json = false;           // every entry as JSON
};

CLI::App* add_strategies_command(CLI::App& app, StrategiesOptions& options);

// What the subcommand prints, by its options.
std::string run_strategies(const StrategiesOptions& options);

// One line per strategy under a header: name, usable, transport, algorithm,
// detail; then what the GPU side has.
std::string strategies_listing();

// The names --names selects: the default set in table order (every entry with
// `all`), the baseline first with `with_baseline`, kept to one memory kind
// when `memory` is set. Comma-separated.
std::string strategy_names(const StrategiesOptions& options);

// Every entry in table order: name, usable, transport, algorithm, detail,
// memory, role (synchronizer, baseline, reference), default.
std::string strategies_json();

}  // namespace gradsync
