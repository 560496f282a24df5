#include "harness/results/run_context.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <cctype>
#include <ctime>
#include <fstream>
#include <sstream>

#include "generated/git_commit.h"
#include "gpu/probe.h"
#include "strategies/mpi/mpi_allreduce.h"
#include "strategies/ps/ps_socket.h"

namespace gradsync {
std::string utc_now() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr)));
}

namespace {

std::string read_text(const char* path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool needs_quotes(const std::string& arg) {
  if (arg.empty()) return true;
  for (char c : arg) {
    const bool plain = std::isalnum(static_cast<unsigned char>(c)) ||
                       std::string_view("_-./:=,@%+").find(c) != std::string_view::npos;
    if (!plain) return true;
  }
  return false;
}

}  // namespace

std::string cpu_model_from_cpuinfo(const std::string& cpuinfo) {
  std::istringstream lines(cpuinfo);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const auto start = line.find_first_not_of(" \t", colon + 1);
    if (start != std::string::npos) return line.substr(start);
  }
  return "unknown";
}

std::string shell_join(std::span<const std::string> args) {
  std::string out;
  for (const auto& arg : args) {
    if (!out.empty()) out += ' ';
    if (!needs_quotes(arg)) {
      out += arg;
      continue;
    }
    out += '\'';
    for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

RunContext collect_run_context(const World& world, std::span<const std::string> command_line,
                               const AgreedConfig& config) {
  const GpuProbe gpus = probe_gpus();
  return RunContext{
      .timestamp_utc = utc_now(),
      .hosts = world.hosts(),
      .hostnames = world.hostnames(),
      .cpu_model = cpu_model_from_cpuinfo(read_text("/proc/cpuinfo")),
      .mpi_library = mpi_library_version(),
      .zeromq_version = zmq_version_text(),
      .cuda_version = gpus.cuda_version,
      .nccl_version = gpus.nccl_version,
      .visible_gpus = gpus.visible_gpus,
      .gradsync_version = GRADSYNC_VERSION,
      .git_commit = GRADSYNC_GIT_COMMIT,
      .command_line = shell_join(command_line),
      .config = config,
  };
}

RunContext simulation_context(std::span<const std::string> command_line) {
  RunContext context;
  context.timestamp_utc = utc_now();
  context.gradsync_version = GRADSYNC_VERSION;
  context.git_commit = GRADSYNC_GIT_COMMIT;
  context.command_line = shell_join(command_line);
  return context;
}

nlohmann::json to_json(const RunContext& context) {
  nlohmann::json out = {
      {"timestamp", context.timestamp_utc},
      {"hosts", context.hosts},
      {"hostnames", context.hostnames},
      {"cpu_model", context.cpu_model},
      {"mpi_library", context.mpi_library},
      {"zeromq_version", context.zeromq_version},
      {"cuda_version", context.cuda_version},
      {"nccl_version", context.nccl_version},
      {"visible_gpus", context.visible_gpus},
      {"gradsync_version", context.gradsync_version},
      {"git_commit", context.git_commit},
      {"command_line", context.command_line},
  };
  if (!context.config.digest.empty()) {
    out["config"] = context.config.options;
    out["config_digest"] = context.config.digest;
  }
  return out;
}

}  // namespace gradsync
