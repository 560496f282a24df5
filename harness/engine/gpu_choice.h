#pragma once
// The GPU a training run uses on this rank: chosen on every rank at once, so
// that a rank without one makes every rank fail alike.

#include <string>

#include "strategies/core/world.h"

namespace gradsync {

// Where a GPU was chosen: its ordinal and name (empty: no GPU in this run).
struct GpuChoice {
  int ordinal = -1;
  std::string name;
};

// Collective over `world`: picks this rank's local GPU (select_local_gpu) and
// makes it current; `needs_gpu` false (a rank that only serves) takes none.
// Any rank's failure is thrown on every rank as one AgreedError (status 1).
GpuChoice choose_gpu(const World& world, bool needs_gpu);

}  // namespace gradsync
