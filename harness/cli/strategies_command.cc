#include "harness/cli/strategies_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <vector>

#include "gpu/probe.h"
#include "models/cuda_model.h"
#include "strategies/registry.h"

namespace gradsync {

CLI::App* add_strategies_command(CLI::App& app, StrategiesOptions& options) {
  auto* cmd = app.add_subcommand("strategies", "List every strategy and whether it is usable here");
  auto* names = cmd->add_flag("--names", options.names,
                              "print the default set, comma-separated, in table order (for "
                              "scripts): the filters below change the selection");
  cmd->add_flag("--with-baseline", options.with_baseline,
                fmt::format("--names: the baseline ({}) first, as training sweeps need it",
                            strategy_with_role(StrategyRole::baseline)))
      ->needs(names);
  cmd->add_flag("--all", options.all, "--names: every entry, not only the default set")
      ->needs(names);
  cmd->add_option("--memory", options.memory,
                  "--names: only the entries that reduce this memory natively (add --all for those "
                  "outside the default set)")
      ->check(CLI::IsMember({"host", "device"}))
      ->type_name("host|device")
      ->needs(names);
  cmd->add_flag("--json", options.json,
                "print every entry as JSON: name, usable, transport, algorithm, detail, memory, "
                "role, default, sharding (none, optimizer-state or parameters)")
      ->excludes(names);
  return cmd;
}

std::string run_strategies(const StrategiesOptions& options) {
  if (options.names) return strategy_names(options) + "\n";
  if (options.json) return strategies_json() + "\n";
  return strategies_listing();
}

std::string strategy_names(const StrategiesOptions& options) {
  std::vector<std::string> names;
  if (options.with_baseline) names.emplace_back(strategy_with_role(StrategyRole::baseline));
  for (const auto& info : strategy_table()) {
    if (!options.all && !info.in_default_set) continue;
    if (!options.memory.empty() && to_string(info.memory) != options.memory) continue;
    if (std::find(names.begin(), names.end(), info.name) == names.end())
      names.emplace_back(info.name);
  }
  return join_names(names);
}

std::string strategies_json() {
  nlohmann::json entries = nlohmann::json::array();
  for (const auto& info : strategy_table()) {
    const Availability a = info.availability();
    entries.push_back({{"name", info.name},
                       {"usable", a.usable},
                       {"transport", info.transport},
                       {"algorithm", info.algorithm},
                       {"detail", a.detail},
                       {"memory", to_string(info.memory)},
                       {"role", to_string(info.role)},
                       {"default", info.in_default_set},
                       {"sharding", to_string(info.sharding)}});
  }
  return entries.dump(2);
}

std::string strategies_listing() {
  using Line = std::array<std::string, 5>;
  std::vector<Line> lines = {{"name", "usable", "transport", "algorithm", "detail"}};
  for (const auto& info : strategy_table()) {
    const Availability a = info.availability();
    lines.push_back({std::string(info.name), a.usable ? "yes" : "no", std::string(info.transport),
                     std::string(info.algorithm), a.detail});
  }
  std::array<std::size_t, 5> widths{};
  for (const auto& line : lines)
    for (std::size_t c = 0; c < widths.size(); ++c) widths[c] = std::max(widths[c], line[c].size());
  std::string out;
  for (const auto& line : lines)
    out += fmt::format("{:<{}}  {:<{}}  {:<{}}  {:<{}}  {}\n", line[0], widths[0], line[1],
                       widths[1], line[2], widths[2], line[3], widths[3], line[4]);
  const GpuProbe gpus = probe_gpus();
  out += "\nGPU side: ";
  out += gpus.built ? fmt::format("built with CUDA {} and NCCL {}; {}.\n", gpus.cuda_version,
                                  gpus.nccl_version, gpus.detail)
                    : gpus.detail + ".\n";
  const std::string state = !gpus.built              ? "not built"
                            : gpus.visible_gpus == 0 ? "built, no GPU visible"
                                                     : "built, usable";
  for (const auto& info : strategy_table())
    if (info.memory == MemoryKind::device) out += fmt::format("  {}: {}\n", info.name, state);
  out += fmt::format("  device buffers for host strategies (staged): {}\n", state);
  out += fmt::format("  train --compute cuda (cuDNN, cuBLAS): {}\n",
                     cuda_compute_built() ? state : "not built");
  return out;
}

}  // namespace gradsync
