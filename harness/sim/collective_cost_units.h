#pragma once
// Shared by the collective_cost*.cc files: buffers as whole floats, and the
// checks every cost function makes on its arguments.

#include <cstdint>

namespace gradsync::sim {

inline constexpr double kFloatBytes = sizeof(float);

// The floats a buffer of `bytes` bytes holds, rounded up; throws
// std::invalid_argument naming `function` for a negative or non-finite size.
std::uint64_t buffer_floats(double bytes, const char* function);

// Throws std::invalid_argument naming `function` and `what` when value < 1.
void require_positive_count(int value, const char* function, const char* what);

// The segment length in floats, by the strategies' own rule
// (strategies/mpi/mpi_pipeline.h's segment_elements: whole floats, at least one,
// at most 4G); throws std::invalid_argument naming `function` otherwise.
std::uint64_t segment_floats(double segment_bytes, const char* function);

// Pieces of at most `max` elements that `count` elements make: the number of
// ranges strategies/core/partition.h's split_by_max returns (0 for count 0).
inline std::uint64_t piece_count(std::uint64_t count, std::uint64_t max) {
  return count / max + (count % max != 0 ? 1 : 0);
}

}  // namespace gradsync::sim
