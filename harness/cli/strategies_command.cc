#include "harness/cli/strategies_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <vector>

#include "gpu/probe.h"
#include "models/cuda_model.h"
#include "strategies/registry.h"

namespace gradsync {

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
  const std::string state = !gpus.built             ? "not built"
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
