#pragma once
// `ring-mpi`: see ring_mpi.cc for the algorithm and its cost.

#include <cstddef>
#include <memory>
#include <span>

#include "strategies/option_flag.h"
#include "strategies/strategy.h"

namespace gradsync {

struct RingMpiOptions {
  // Elements move in segments of this size, so that the transfer of one
  // segment overlaps the reduction of the previous one.
  std::size_t segment_bytes = 512 * 1024;
};

std::unique_ptr<Strategy> make_ring_mpi(const World& world, const StrategyOptions& options);
std::span<const OptionFlag> ring_mpi_flags();

}  // namespace gradsync
