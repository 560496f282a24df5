#include "harness/cli/smpi_launch.h"

#include <algorithm>
#include <fmt/format.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "harness/cli/child_process.h"
#include "harness/cli/project_script.h"
#include "harness/sim/cluster_model.h"
#include "harness/sim/smpi_platform.h"
#include "strategies/registry.h"

namespace gradsync {
namespace {

namespace fs = std::filesystem;

// Shared buffers map one file of this many bytes again and again, a mapping
// per block: the largest message in one block, so that 1,024 ranks' buffers
// stay far below the kernel's limit of mappings (vm.max_map_count, 65,530).
std::uint64_t shared_block_bytes(std::uint64_t max_bytes) {
  std::uint64_t block = 1 << 20;  // SimGrid's default
  while (block < max_bytes) block *= 2;
  return block;
}

constexpr const char* kLauncherFlags[] = {
    "--engine",  "--cluster",     "--workers",       "--topology",    "--hosts-per-leaf",
    "--mtu",     "--oversubscription", "--smpi-binary", "--platform-dir"};

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
}

// Whether one of `strategies` reads --ps-transport (ps-zmq), so that the
// ranks are to be told it.
bool reads_ps_transport(const std::string& strategies, const StrategyOptions& options) {
  for (const OwnedOptionFlag& flag : strategy_option_flags()) {
    if (flag.flag->flag != "--ps-transport") continue;
    for (const StrategyInfo* entry : parse_strategy_list(strategies))
      if (idle_option_reason(*entry, flag, options).empty()) return true;
  }
  return false;
}

// The subcommand and its own flags, as given, less the launcher's (both
// spellings: "--flag value" and "--flag=value"); with a strategy that reads
// it, --ps-transport mpi unless given.
std::vector<std::string> forwarded_flags(std::span<const std::string> command_line,
                                         bool ps_transport_read) {
  std::vector<std::string> out = {"collectives"};
  for (std::size_t i = 2; i < command_line.size(); ++i) {
    const std::string& arg = command_line[i];
    const std::string name = arg.substr(0, arg.find('='));
    if (!is_launcher_flag(name)) {
      out.push_back(arg);
      continue;
    }
    if (name == arg) ++i;  // its value is the next argument
  }
  // ps-zmq runs there over MPI only (ps_mpi.h); a transport the user names
  // is forwarded, and refused there if it is ZeroMQ's.
  const bool transport_given = std::any_of(out.begin(), out.end(), [](const std::string& arg) {
    return arg.substr(0, arg.find('=')) == "--ps-transport";
  });
  if (ps_transport_read && !transport_given) out.insert(out.end(), {"--ps-transport", "mpi"});
  return out;
}

// The folder the platform goes to: --platform-dir (kept), or a new one
// under the temporary folder (removed after the run).
fs::path platform_folder(const std::string& chosen) {
  if (!chosen.empty()) {
    fs::create_directories(chosen);
    return chosen;
  }
  std::string pattern = (fs::temp_directory_path() / "gradsync-smpi-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot make a folder for the platform");
  return pattern;
}

// SimGrid's selector for every collective: the one named, or Open MPI's
// when --selector pins an allreduce algorithm (which then overrides it for
// MPI_Allreduce alone; the harness's own collectives keep Open MPI's).
std::string collective_selector(const std::string& selector) {
  return selector == "mpich" ? selector : "ompi";
}

}  // namespace

bool is_launcher_flag(const std::string& flag) {
  for (const char* known : kLauncherFlags)
    if (flag == known) return true;
  return false;
}

int run_collectives_under_smpi(const CollectivesOptions& options,
                               const StrategyOptions& strategy_options,
                               std::span<const std::string> command_line, const std::string& self) {
  check_simulated_job(options);
  const sim::ClusterModel cluster = sim::read_cluster_model(options.cluster_file);
  sim::check_smpi_topology(cluster, options.topology, options.workers);
  const std::string binary =
      options.smpi_binary.empty()
          ? find_project_file(self, "build-smpi/bin/gradsync", "GRADSYNC_SMPI_BINARY")
          : options.smpi_binary;
  if (!fs::exists(binary))
    throw std::runtime_error("no SMPI build at " + binary +
                             ": make one with scripts/build-smpi.sh (needs scripts/install-deps.sh smpi)");
  const fs::path folder = platform_folder(options.platform_dir);
  // A temporary folder goes whatever happens next; a chosen one is kept.
  struct Removal {
    const fs::path& folder;
    bool keep;
    ~Removal() {
      std::error_code ignored;
      if (!keep) fs::remove_all(folder, ignored);
    }
  } removal{folder, !options.platform_dir.empty()};
  write_file(folder / "platform.xml", sim::smpi_platform_xml(cluster, options.topology, options.workers));
  write_file(folder / "hostfile", sim::smpi_hostfile(cluster, options.workers));
  nlohmann::json platform = sim::smpi_platform_json(cluster, options.topology, options.workers);
  platform["cluster_file"] = options.cluster_file;
  platform["selector"] = options.selector;
  platform["reduce_bytes_per_s"] = cluster.reduce_bytes_per_s.value;
  ::setenv("GRADSYNC_SMPI_PLATFORM", platform.dump().c_str(), 1);

  std::vector<std::string> argv = {"smpirun", "-quiet",  // its own lines on a failure: the run's error says it
                                   "-np", std::to_string(options.workers),
                                   "-platform", (folder / "platform.xml").string(),
                                   "-hostfile", (folder / "hostfile").string(),
                                   "--cfg=smpi/simulate-computation:no",
                                   // the platform's core speed, so that a costed sum of
                                   // d seconds (smpi_execute) takes d seconds
                                   fmt::format("--cfg=smpi/host-speed:{}f", sim::kSmpiCoreFlops),
                                   "--cfg=smpi/privatization:no",
                                   "--cfg=smpi/coll-selector:" + collective_selector(options.selector),
                                   "--log=root.thres:warning",
                                   "--cfg=smpi/test:0",
                                   "--cfg=smpi/send-is-detached-thresh:0",
                                   fmt::format("--cfg=smpi/shared-malloc-blocksize:{}",
                                               shared_block_bytes(options.max_bytes))};
  if (collective_selector(options.selector) != options.selector)  // an algorithm, pinned
    argv.push_back("--cfg=smpi/allreduce:" + options.selector);
  for (const auto& flag : sim::smpi_network_flags(cluster, options.topology)) argv.push_back(flag);
  argv.push_back(binary);
  const bool ps_transport_read = reads_ps_transport(options.strategies, strategy_options);
  for (const auto& arg : forwarded_flags(command_line, ps_transport_read)) argv.push_back(arg);
  if (options.reduce_bytes_per_s == 0)  // the cluster's own rate, unless given
    argv.insert(argv.end(), {"--reduce-rate", fmt::format("{}", cluster.reduce_bytes_per_s.value)});
  pass_stop_signals_to_children();  // a stopped run ends smpirun and still removes the folder
  try {
    return run_logged(argv, "", false, OnStop::stop);
  } catch (const std::runtime_error&) {
    throw std::runtime_error("cannot start smpirun: install SimGrid (scripts/install-deps.sh smpi)");
  }
}

}  // namespace gradsync
