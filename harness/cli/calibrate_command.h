#pragma once
// `gradsync calibrate RESULTS... -o cluster.json`: fits the cost model's
// constants per strategy and link class from collectives records
// (harness/sim/calibration.h), prints every fit and every point's fit error
// (and, for runs on an emulated cluster, the link bytes against the model's
// counts), and writes a cluster file for `gradsync simulate`.

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace gradsync {

struct CalibrateOptions {
  std::vector<std::string> files;
  std::string out;
  std::string name;
  std::vector<std::string> strategies;  // empty: every strategy in the files
};

CLI::App* add_calibrate_command(CLI::App& app, CalibrateOptions& options);

// Throws std::runtime_error (one line) when the data cannot identify a
// constant or a file cannot be read or written.
void run_calibrate(const CalibrateOptions& options, std::ostream& out);

}  // namespace gradsync
