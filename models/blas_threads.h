#pragma once
// How many threads OpenBLAS uses per worker. Workers that share a host share
// its cores: without a limit, each worker's BLAS would start a thread per
// core and they would fight for them.

namespace gradsync {

// Gives each of `local_workers` workers on this host an equal share of its
// cores (at least one thread), unless the user set OPENBLAS_NUM_THREADS, which
// then wins. Returns the thread count in force.
int share_blas_threads(int local_workers);

}  // namespace gradsync
