#pragma once
// MPI counts are int: a buffer handed to one MPI collective goes in pieces of
// at most this many elements: half of INT_MAX, well inside what every MPI
// call's count can hold.

#include <climits>
#include <cstddef>

namespace gradsync {

inline constexpr std::size_t kMaxMpiCount = INT_MAX / 2;

}  // namespace gradsync
