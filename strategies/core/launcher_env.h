#pragma once
// What a rank's launcher tells it through the environment, for the moments
// before MPI can (around MPI_Init) or where asking MPI would be a collective
// call. Each launcher says it in its own words, and each is read:
// Open MPI's mpirun (OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_LOCAL_SIZE),
// MPICH's Hydra and the launchers of its family (PMI_RANK, MPI_LOCALNRANKS),
// PMIx (PMIX_RANK) and Slurm's srun (SLURM_PROCID). Where none says, the
// answer is the one of a single process.

namespace gradsync {

// This process's rank as its launcher announced it; 0 alone.
int launcher_rank();
// Whether a launcher (mpirun, mpiexec, srun) started this process.
bool under_launcher();

// This job's ranks on this host; 1 where the launcher does not say (srun, a
// plain process), which can only under-count.
int ranks_on_this_host();

// The cores this process may run on (its affinity mask), at least 1.
int usable_cores();

// More ranks on this host than cores for them: a rank that spins while it
// waits then holds the core the rank it waits for needs. Open MPI's mpirun
// then has its ranks yield in MPI's progress loop (mpi_yield_when_idle);
// MPICH does not, so the bounded waits yield themselves (bounded_wait.cc).
bool oversubscribed();

}  // namespace gradsync
