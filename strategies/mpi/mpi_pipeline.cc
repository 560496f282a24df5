#include "strategies/mpi/mpi_pipeline.h"

#include <stdexcept>

#include "strategies/core/world.h"

namespace gradsync {

template <>
MPI_Datatype mpi_datatype<float>() {
  return MPI_FLOAT;
}
template <>
MPI_Datatype mpi_datatype<std::uint16_t>() {
  return MPI_UINT16_T;
}

namespace {

template <typename T>
MPI_Request send_range(bool synchronous, const T* buffer, Range range, int peer, int tag,
                       MPI_Comm comm, Traffic& traffic) {
  MPI_Request request = MPI_REQUEST_NULL;
  const T* data = buffer + range.offset;
  const int count = static_cast<int>(range.count);
  if (synchronous)
    check_mpi(MPI_Issend(data, count, mpi_datatype<T>(), peer, tag, comm, &request), "MPI_Issend");
  else
    check_mpi(MPI_Isend(data, count, mpi_datatype<T>(), peer, tag, comm, &request), "MPI_Isend");
  traffic.bytes_sent += range.count * sizeof(T);
  return request;
}

}  // namespace

template <typename T>
MPI_Request isend_range(const T* buffer, Range range, int peer, int tag, MPI_Comm comm,
                        Traffic& traffic) {
  return send_range(false, buffer, range, peer, tag, comm, traffic);
}

template <typename T>
MPI_Request issend_range(const T* buffer, Range range, int peer, int tag, MPI_Comm comm,
                         Traffic& traffic) {
  return send_range(true, buffer, range, peer, tag, comm, traffic);
}

template <typename T>
MPI_Request irecv_range(T* buffer, Range range, int peer, int tag, MPI_Comm comm,
                        Traffic& traffic) {
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(MPI_Irecv(buffer + range.offset, static_cast<int>(range.count), mpi_datatype<T>(), peer,
                      tag, comm, &request),
            "MPI_Irecv");
  traffic.bytes_received += range.count * sizeof(T);
  return request;
}

void PendingSends::wait(const Wait& wait) {
  wait_peers(requests, peers, Direction::to_peer, wait);
  requests.clear();
  peers.clear();
}

template <typename T>
void relay_segments(std::span<T> buffer, const std::vector<Range>& segments, int from,
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

// The element types the strategies move.
#define GRADSYNC_ELEMENT_FUNCTIONS(T)                                                  \
  template MPI_Request isend_range<T>(const T*, Range, int, int, MPI_Comm, Traffic&);  \
  template MPI_Request issend_range<T>(const T*, Range, int, int, MPI_Comm, Traffic&); \
  template MPI_Request irecv_range<T>(T*, Range, int, int, MPI_Comm, Traffic&);        \
  template void relay_segments<T>(std::span<T>, const std::vector<Range>&, int,        \
                                  const std::vector<int>&, int, const Wait&, Traffic&);
GRADSYNC_ELEMENT_FUNCTIONS(float)
GRADSYNC_ELEMENT_FUNCTIONS(std::uint16_t)
#undef GRADSYNC_ELEMENT_FUNCTIONS

}  // namespace gradsync
