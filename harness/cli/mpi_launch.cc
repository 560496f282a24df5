#include "harness/cli/mpi_launch.h"

#include <cstdlib>
#include <stdexcept>

#include "generated/mpi_build.h"

namespace gradsync {

MpiFamily mpi_family_named(std::string_view name) {
  if (name == "openmpi") return MpiFamily::openmpi;
  if (name == "mpich") return MpiFamily::mpich;
  throw std::invalid_argument("unknown MPI family '" + std::string(name) +
                              "' (known: openmpi, mpich)");
}

MpiFamily built_mpi_family() { return mpi_family_named(GRADSYNC_MPI_FAMILY); }

std::vector<std::string> forward_variables(MpiFamily family,
                                           const std::vector<std::string>& names) {
  std::vector<std::string> flags;
  if (family == MpiFamily::openmpi)
    for (const auto& name : names) flags.insert(flags.end(), {"-x", name});
  return flags;
}

std::string srun_mpi_flag(MpiFamily family) {
  return family == MpiFamily::openmpi ? "--mpi=pmix" : "--mpi=pmi2";
}

void export_built_mpi() {
  ::setenv("GRADSYNC_MPI", GRADSYNC_MPI_FAMILY, 1);
  ::setenv("GRADSYNC_MPIEXEC", GRADSYNC_MPIEXEC, 0);
}

}  // namespace gradsync
