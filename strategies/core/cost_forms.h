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

// Where a recursive halving-doubling step to the rank `distance` away goes
// when a job of p ranks fills nodes of `per_node` in rank order. Inside the
// node while distance < per_node; from there on every rank of the node
// exchanges across at once, through the node's one network link, which
// carries `sharing` (per_node) times a rank's bytes. Only a per_node that is
// a power of two dividing a power-of-two p larger than it is split; any
// other placement counts every step on the links the job spans, one rank to
// a link.
struct NodeStep {
  bool inside = false;
  double sharing = 1;
};
NodeStep step_by_node(unsigned distance, int p, int per_node);

// rabenseifner_terms by link: the steps inside nodes as `intra`, those
// across them in `spanning`, shared as step_by_node says.
AllreduceCounts rabenseifner_by_node(double bytes, int p, int per_node);

}  // namespace gradsync
