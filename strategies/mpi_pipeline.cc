#include "strategies/mpi_pipeline.h"

#include <stdexcept>

#include "strategies/world.h"

namespace gradsync {

MPI_Request isend_range(const float* buffer, Range range, int peer, int tag, MPI_Comm comm,
                        Traffic& traffic) {
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(MPI_Isend(buffer + range.offset, static_cast<int>(range.count), MPI_FLOAT, peer, tag,
                      comm, &request),
            "MPI_Isend");
  traffic.bytes_sent += range.count * sizeof(float);
  return request;
}

MPI_Request irecv_range(float* buffer, Range range, int peer, int tag, MPI_Comm comm,
                        Traffic& traffic) {
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(MPI_Irecv(buffer + range.offset, static_cast<int>(range.count), MPI_FLOAT, peer, tag,
                      comm, &request),
            "MPI_Irecv");
  traffic.bytes_received += range.count * sizeof(float);
  return request;
}

void PendingSends::wait(const Wait& wait) {
  wait_peers(requests, peers, Direction::to_peer, wait);
  requests.clear();
  peers.clear();
}

void relay_segments(std::span<float> buffer, const std::vector<Range>& segments, int from,
                    const std::vector<int>& to, int tag, const Wait& wait, Traffic& traffic) {
  std::vector<MPI_Request> received;
  if (from >= 0)
    for (const Range& segment : segments)
      received.push_back(irecv_range(buffer.data(), segment, from, tag, wait.comm, traffic));
  PendingSends sent;
  for (std::size_t j = 0; j < segments.size(); ++j) {
    if (from >= 0) wait_peer(received[j], from, Direction::from_peer, wait);
    for (int peer : to)
      sent.add(isend_range(buffer.data(), segments[j], peer, tag, wait.comm, traffic), peer);
  }
  sent.wait(wait);
}

std::size_t segment_elements(std::size_t segment_bytes) {
  const std::size_t elements = segment_bytes / sizeof(float);
  if (elements == 0) throw std::invalid_argument("segment size must be at least 4 bytes (one float)");
  if (elements > (1u << 30)) throw std::invalid_argument("segment size must be at most 4G");
  return elements;
}

}  // namespace gradsync
