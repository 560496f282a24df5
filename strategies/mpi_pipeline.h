#pragma once
// Pieces shared by the strategies that move segments over MPI point-to-point
// (ring-mpi, tree-mpi): typed sends and receives of one segment, sends in
// flight waited for together, and the pipelined relay that broadcasts use.
// Every wait is bounded by --timeout and names the peer (bounded_wait.h).

#include <mpi.h>

#include <span>
#include <vector>

#include "strategies/bounded_wait.h"
#include "strategies/partition.h"
#include "strategies/strategy.h"

namespace gradsync {

// Non-blocking send / receive of `range` of `buffer` (a segment: its count fits an int).
MPI_Request isend_range(const float* buffer, Range range, int peer, int tag, MPI_Comm comm,
                        Traffic& traffic);
MPI_Request irecv_range(float* buffer, Range range, int peer, int tag, MPI_Comm comm,
                        Traffic& traffic);

// Sends in flight and the rank each one goes to, waited for together
// (bounded, naming the ranks that have not taken theirs).
struct PendingSends {
  std::vector<MPI_Request> requests;
  std::vector<int> peers;

  void add(MPI_Request request, int peer) {
    requests.push_back(request);
    peers.push_back(peer);
  }
  // Waits for all of them (bounded_wait.h) and forgets them.
  void wait(const Wait& wait);
};

// Pipelined relay, the broadcast of both ring and tree: every segment is
// received from `from` (none on the root: from < 0) straight into place and
// forwarded to each of `to` as soon as it has arrived, so that segment j
// travels down the chain while segment j+1 is still arriving. Every wait is
// `wait` (its operation, e.g. "ring-mpi broadcast", the communicator, the
// timeout).
void relay_segments(std::span<float> buffer, const std::vector<Range>& segments, int from,
                    const std::vector<int>& to, int tag, const Wait& wait, Traffic& traffic);

// Segment length in elements for a segment size in bytes (at least one element).
std::size_t segment_elements(std::size_t segment_bytes);

}  // namespace gradsync
