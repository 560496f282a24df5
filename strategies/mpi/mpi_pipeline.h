#pragma once
// Pieces shared by the strategies that move segments over MPI point-to-point
// (ring-mpi, tree-mpi, double-tree-mpi, halving-doubling-mpi): typed sends and
// receives of one segment, sends in flight waited for together, the pipelined
// relay that broadcasts use, and scratch space. Every wait is bounded by
// --timeout and names the peer (bounded_wait.h). The element type is float,
// or std::uint16_t for a compressed format (compression.h): each algorithm is
// written once over it, and sums with ElementSum (reduce_kernel.h).

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "strategies/core/bounded_wait.h"
#include "strategies/core/engine.h"
#include "strategies/core/partition.h"
#include "strategies/core/strategy.h"

namespace gradsync {

// Receives a pipeline keeps posted ahead of the segment it is summing, each
// into a scratch slot of its own, so that the next segments are arriving
// while one is added.
inline constexpr std::size_t kReceiveWindow = 4;

// The MPI datatype of an element type: MPI_FLOAT, MPI_UINT16_T.
template <typename T>
MPI_Datatype mpi_datatype();
template <>
MPI_Datatype mpi_datatype<float>();
template <>
MPI_Datatype mpi_datatype<std::uint16_t>();

// Non-blocking send / receive of `range` of `buffer` (a segment: its count
// fits an int); `traffic` counts its bytes. T is float or std::uint16_t.
template <typename T>
MPI_Request isend_range(const T* buffer, Range range, int peer, int tag, MPI_Comm comm,
                        Traffic& traffic);
// The same send, synchronous (MPI_Issend): it completes once the receiver
// has matched it, so that a window of them in flight is flow control (a
// plain send of up to 64 KiB goes at once, eager, whether or not its
// receive is posted).
template <typename T>
MPI_Request issend_range(const T* buffer, Range range, int peer, int tag, MPI_Comm comm,
                         Traffic& traffic);
template <typename T>
MPI_Request irecv_range(T* buffer, Range range, int peer, int tag, MPI_Comm comm, Traffic& traffic);

// Memory kept between calls for received segments, handed out as elements of
// the call's type.
class Scratch {
 public:
  // At least `count` elements; what they hold is unspecified.
  template <typename T>
  T* get(std::size_t count) {
    if (bytes_.size() < count * sizeof(T)) bytes_ = EngineBuffer(count * sizeof(T));
    return reinterpret_cast<T*>(bytes_.data());
  }

 private:
  // Heap, or shared memory under a simulated engine (engine.h); operator
  // new's alignment suits every element type.
  EngineBuffer bytes_;
};

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
template <typename T>
void relay_segments(std::span<T> buffer, const std::vector<Range>& segments, int from,
                    const std::vector<int>& to, int tag, const Wait& wait, Traffic& traffic);

}  // namespace gradsync
