#pragma once
// A count with its noun, in the plural unless it is one: "1 node", "3 nodes".
// One definition for the messages of the memory check, the cluster records
// and the Slurm placement.

#include <fmt/format.h>

#include <cstddef>
#include <string>

namespace gradsync {

inline std::string counted(std::size_t n, const char* thing) {
  return fmt::format("{} {}{}", n, thing, n == 1 ? "" : "s");
}

}  // namespace gradsync
