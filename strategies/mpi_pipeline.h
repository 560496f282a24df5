#pragma once
// Pieces shared by the strategies that move segments over MPI point-to-point
// (ring-mpi, tree-mpi): typed sends and receives of one segment, and the
// pipelined relay that broadcasts use.

#include <mpi.h>

#include <span>
#include <vector>

#include "strategies/partition.h"
#include "strategies/strategy.h"

namespace gradsync {

// Non-blocking send / receive of `range` of `buffer` (a segment: its count fits an int).
MPI_Request isend_range(const float* buffer, Range range, int peer, int tag, MPI_Comm comm,
                        Traffic& traffic);
MPI_Request irecv_range(float* buffer, Range range, int peer, int tag, MPI_Comm comm,
                        Traffic& traffic);
void wait(MPI_Request& request, const char* what);
void wait_all(std::vector<MPI_Request>& requests, const char* what);

// Pipelined relay, the broadcast of both ring and tree: every segment is
// received from `from` (none on the root: from < 0) straight into place and
// forwarded to each of `to` as soon as it has arrived, so that segment j
// travels down the chain while segment j+1 is still arriving.
void relay_segments(std::span<float> buffer, const std::vector<Range>& segments, int from,
                    const std::vector<int>& to, int tag, MPI_Comm comm, Traffic& traffic);

// Segment length in elements for a segment size in bytes (at least one element).
std::size_t segment_elements(std::size_t segment_bytes);

}  // namespace gradsync
