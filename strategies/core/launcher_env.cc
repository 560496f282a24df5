#include "strategies/core/launcher_env.h"

#include <sched.h>

#include <algorithm>
#include <cstdlib>

namespace gradsync {
namespace {

// The first of `names` that is set, as a number; `otherwise` when none is.
int first_set(std::initializer_list<const char*> names, int otherwise) {
  for (const char* name : names)
    if (const char* value = std::getenv(name)) return std::atoi(value);
  return otherwise;
}

}  // namespace

int launcher_rank() {
  return first_set({"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}, 0);
}

bool under_launcher() {
  return first_set({"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}, -1) >= 0;
}

int ranks_on_this_host() {
  return std::max(first_set({"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"}, 1), 1);
}

int usable_cores() {
  cpu_set_t cores;
  CPU_ZERO(&cores);
  if (sched_getaffinity(0, sizeof cores, &cores) != 0) return 1;
  return std::max(CPU_COUNT(&cores), 1);
}

bool oversubscribed() { return ranks_on_this_host() > usable_cores(); }

}  // namespace gradsync
