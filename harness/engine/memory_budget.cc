#include "harness/engine/memory_budget.h"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "harness/engine/counted.h"

namespace gradsync {
namespace {

// A whole number at the start of `text`, or nullopt ("max", empty, garbage).
std::optional<std::uint64_t> leading_number(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end == text.data()) return std::nullopt;
  return value;
}

// "MemAvailable:   22916724 kB" in bytes.
std::optional<std::uint64_t> mem_available() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return std::nullopt;
}

// The lowest cgroup v2 memory.max from this process's cgroup up to the root
// ("0::/path" in /proc/self/cgroup); nullopt when every one is "max".
std::optional<std::uint64_t> cgroup_memory_max() {
  std::ifstream cgroups("/proc/self/cgroup");
  std::string line;
  std::optional<std::uint64_t> lowest;
  while (std::getline(cgroups, line)) {
    if (line.rfind("0::", 0) != 0) continue;
    for (std::filesystem::path dir = line.substr(3);; dir = dir.parent_path()) {
      std::ifstream max_file(std::filesystem::path("/sys/fs/cgroup") / dir.relative_path() /
                             "memory.max");
      std::string text;
      if (max_file >> text)
        if (const auto max = leading_number(text)) lowest = std::min(lowest.value_or(*max), *max);
      if (dir == dir.parent_path()) break;
    }
  }
  return lowest;
}

std::string gib(double bytes) { return fmt::format("{:.1f} GiB", bytes / double(1ull << 30)); }

}  // namespace

std::optional<std::uint64_t> available_memory_bytes() {
  const std::optional<std::uint64_t> host = mem_available();
  const std::optional<std::uint64_t> limit = cgroup_memory_max();
  if (host && limit) return std::min(*host, *limit);
  return host;
}

void check_fits_in_memory(const MemoryNeed& need, const std::string& what,
                          std::optional<std::uint64_t> available) {
  if (!available) return;
  // In floating point: buffers x bytes x ranks can pass 2^64 (-e 16E).
  const double needed = double(need.buffer_bytes) * need.buffers * need.ranks_on_host;
  if (needed <= double(*available)) return;
  throw std::invalid_argument(fmt::format(
      "{}: needs {} ({} x {} x {}) but this host has {} available", what, gib(needed),
      counted(need.buffers, "buffer"), gib(double(need.buffer_bytes)),
      counted(need.ranks_on_host, "rank"), gib(double(*available))));
}

}  // namespace gradsync
