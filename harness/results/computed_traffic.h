#pragma once
// How output and reports mark traffic counts that a strategy computes from
// its algorithm's formula rather than counts (a record's "traffic_source":
// "computed"): the mark after each such count, and the one legend for it.

#include <string_view>

namespace gradsync {

inline constexpr std::string_view computed_traffic_mark = "*";
inline constexpr std::string_view computed_traffic_legend =
    "* computed from the algorithm's formula, not counted: the library (MPI_Allreduce, Gloo, "
    "NCCL) does not tell the bytes it moves";

}  // namespace gradsync
