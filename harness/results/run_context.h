#pragma once
// What a result record carries so that a reader can trust and reproduce it:
// when and where it ran, on what CPU, with which libraries, from which commit,
// the full command line, and the configuration every rank agreed on.

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "strategies/core/world.h"

namespace gradsync {

// The effective options all ranks of a measurement compared before any work
// (harness/cli/run_config.h), and their digest. Empty for the cost model's
// records, which ran nowhere.
struct AgreedConfig {
  nlohmann::json options = nlohmann::json::object();
  std::string digest;
};

struct RunContext {
  std::string timestamp_utc;           // ISO-8601, e.g. 2024-05-01T12:34:56Z
  std::vector<std::string> hosts;      // distinct host names, in rank order
  std::vector<std::string> hostnames;  // per world rank
  std::string cpu_model;               // from /proc/cpuinfo on world rank 0's host
  std::string mpi_library;
  std::string zeromq_version;
  std::string cuda_version;  // empty when the CUDA parts are not built
  std::string nccl_version;  // likewise
  int visible_gpus = 0;
  std::string gradsync_version;
  std::string git_commit;
  std::string command_line;  // shell-quoted where needed (the first rank's)
  AgreedConfig config;
};

// Reads the context on this rank (not collective: host names come from `world`).
RunContext collect_run_context(const World& world, std::span<const std::string> command_line,
                               const AgreedConfig& config);

// The context of a record the cost model writes: when, which gradsync, which
// command; no hosts and no libraries, since nothing ran anywhere.
RunContext simulation_context(std::span<const std::string> command_line);

nlohmann::json to_json(const RunContext& context);

// Now, as records stamp it: "2024-05-01T12:34:56Z".
std::string utc_now();

// The arguments as one shell line: each quoted only when it needs it.
std::string shell_join(std::span<const std::string> args);

// The "model name" of the first processor in a /proc/cpuinfo text, or "unknown".
std::string cpu_model_from_cpuinfo(const std::string& cpuinfo);

}  // namespace gradsync
