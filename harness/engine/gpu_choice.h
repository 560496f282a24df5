#pragma once
// The GPU a training run uses on this rank: chosen on every rank at once, so
// that a rank without one makes every rank fail alike.

#include <string>

#include "strategies/core/local_gpu.h"
#include "strategies/core/world.h"

namespace gradsync {

// Where a GPU was chosen: its ordinal and name (empty: no GPU in this run),
// and how it was chosen (place_local_gpu's source).
struct GpuChoice {
  int ordinal = -1;
  std::string name;
  std::string placement;
};

// Collective over `world`: picks this rank's local GPU (place_local_gpu) and
// makes it current; `need` says whether this rank takes one (a rank that
// only serves does not) and whether it must have it alone. Any rank's
// failure is thrown on every rank as one AgreedError (status 1).
GpuChoice choose_gpu(const World& world, const GpuNeed& need);

}  // namespace gradsync
