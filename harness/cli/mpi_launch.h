#pragma once
// What a launch line needs from the MPI this gradsync was built with
// (cmake/GradsyncMpi.cmake records it in generated/mpi_build.h). Open MPI's
// mpirun and MPICH's Hydra (mpiexec.mpich; Cray MPICH, Intel MPI and MVAPICH
// launch alike) differ in how a variable reaches the ranks and in the PMI
// that srun must speak to them; the other differences (running as root,
// oversubscribing, the transfer layers) are scripts/mpirun.sh's.

#include <string>
#include <string_view>
#include <vector>

namespace gradsync {

enum class MpiFamily { openmpi, mpich };

// The family this binary was built with.
MpiFamily built_mpi_family();

// "openmpi" or "mpich", as GRADSYNC_MPI names it; throws
// std::invalid_argument for any other name.
MpiFamily mpi_family_named(std::string_view name);

// The launcher flags that pass the variables `names` on to every rank:
// Open MPI's `-x NAME` each; none for Hydra, which passes the whole
// environment unless told otherwise.
std::vector<std::string> forward_variables(MpiFamily family, const std::vector<std::string>& names);

// srun's --mpi= for the family: Open MPI (Debian's, and most) through
// PMIx, MPICH's family through PMI-2.
std::string srun_mpi_flag(MpiFamily family);

// Tells scripts/mpirun.sh, for the runs this process starts, the MPI of this
// build: GRADSYNC_MPI always, GRADSYNC_MPIEXEC (the launcher it was
// configured with) unless the environment names one.
void export_built_mpi();

}  // namespace gradsync
