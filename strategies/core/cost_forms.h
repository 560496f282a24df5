#pragma once
// Counts of textbook allreduce algorithms (strategies/core/cost.h), for every
// room whose strategies run them: ring-mpi and Gloo's rings count the ring,
// mpi-allreduce and Gloo's halving-doubling count Rabenseifner's algorithm.

#include "strategies/core/cost.h"

namespace gradsync {

// The ring: the buffer in p chunks, each chunk in segments of
// `segment_bytes`, 2(p-1) steps round the ring (Thakur et al. 2005).
CostTerms ring_terms(double bytes, int p, double segment_bytes);

// Recursive halving-doubling as MPI libraries run it for long buffers
// (Rabenseifner; Thakur et al. 2005, section 4.4), unsegmented.
CostTerms rabenseifner_terms(double bytes, int p);

}  // namespace gradsync
