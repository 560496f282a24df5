#pragma once
// Memory a run needs against what this host can give, checked before anything
// is allocated: a size beyond the machine is refused up front with the
// figures, instead of ending in std::bad_alloc (or the kernel's OOM killer)
// part way through a run.
//
// What the host can give is MemAvailable from /proc/meminfo (free memory plus
// what the kernel can reclaim), lowered to the cgroup v2 memory.max of this
// process's cgroup or any cgroup above it when one is lower (a container's or
// a Slurm job's limit). It is a figure for this host at this moment: ranks on
// other hosts check their own.

#include <cstdint>
#include <optional>
#include <string>

namespace gradsync {

// What a run allocates on one host: `buffers` buffers of `buffer_bytes` on
// each of `ranks_on_host` ranks.
struct MemoryNeed {
  std::uint64_t buffer_bytes = 0;
  int buffers = 1;
  int ranks_on_host = 1;
};

// The bytes this host can give now; nullopt when /proc/meminfo cannot be read
// (then nothing is refused).
std::optional<std::uint64_t> available_memory_bytes();

// Throws std::invalid_argument, one line, when `need` is more than
// `available`: "collectives -e/--maxbytes 64G: needs 192.0 GiB (3 buffers x
// 64.0 GiB x 1 rank) but this host has 22.9 GiB available". `what` names the
// request. Nothing is checked when `available` is nullopt.
void check_fits_in_memory(const MemoryNeed& need, const std::string& what,
                          std::optional<std::uint64_t> available = available_memory_bytes());

}  // namespace gradsync
