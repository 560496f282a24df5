#pragma once
// Which algorithm and protocol NCCL ran, from NCCL's own debug output: with
// NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS=TUNING, rank 0 of a communicator
// logs one line per collective it enqueues,
//   "<host>:<pid>:<tid> [<dev>] NCCL INFO AllReduce: 4096 Bytes -> Algo TREE proto LL
//   channel{Lo..Hi}={0..1}"
// (NCCL 2.28.9, src/enqueue.cc, the INFO(NCCL_TUNING, "%s: %ld Bytes -> Algo
// %s proto %s channel{Lo..Hi}={%d..%d}", ...) in its plan scheduling; the
// prefix from src/debug.cc's ncclDebugLog). The parsing is here, in every
// build; nccl_cuda.cc points NCCL's log at a file of its own and reads it.

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gradsync {

struct NcclTuningLine {
  std::string function;  // NCCL's name: "AllReduce", "Broadcast", ...
  std::uint64_t bytes = 0;
  std::string algorithm;  // "RING", "TREE", "NVLS", ...: NCCL's ncclAlgoToString
  std::string protocol;   // "LL", "LL128", "SIMPLE": its ncclProtoToString
};

// The tuning line in one line of NCCL's log, or none (any other line).
std::optional<NcclTuningLine> parse_nccl_tuning_line(std::string_view line);

// The allreduces of a log, one entry per size and algorithm/protocol pair,
// by size, with the number of calls that ran so.
struct NcclAllreduceChoice {
  std::uint64_t bytes = 0;
  std::string algorithm;
  std::string protocol;
  std::uint64_t calls = 0;
};
std::vector<NcclAllreduceChoice> nccl_allreduce_choices(std::istream& log);

// Why NCCL's log cannot be read for the algorithm with this environment
// (`nccl_debug`: NCCL_DEBUG's value, null when unset), or empty when it can:
// the user's own NCCL_DEBUG is left alone, and then the algorithm stays
// unconfirmed.
std::string nccl_log_unavailable(const char* nccl_debug);

}  // namespace gradsync
