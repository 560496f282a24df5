// The shard's half of the shared-memory data path (--ps-shm auto). A worker
// on the shard's host (a local worker) copies its values of a partition into
// its own shared segment and pushes only a header (a shared push); a worker
// on another host (a remote one) pushes its values over ZeroMQ as on the
// plain path, and the shard holds that message. Once every worker has
// pushed, the shard adds their values up in worker order (whatever the order
// of arrival, so sums are the same bit for bit from run to run), in
// cache-sized chunks, straight into its own segment for the step's parity
// (on its own thread and helpers, each a slice of the partition:
// ps_sum_pool.h); it replies to each local worker with a header, and each
// copies the sum out; when some worker is remote, each chunk of the sum is
// also copied, while still in cache, into one reply message that every
// remote worker's reply shares (reference counted): sent at once, or on the
// rotated schedule when each remote worker pulls it (ps_server_pull.cc), the
// local workers' shared pushes taking no receipts and no pulls.
//
// Copies per partition: a local worker's values into its segment, and the
// sum out of the shard's segment (both on the worker's side); at the shard,
// the sum written once, plus one copy of it into the remote workers' reply
// when there is any remote worker. A remote worker's push is read in place
// where ZeroMQ received it. ZeroMQ carries 48-byte headers for the local
// workers and payloads for the remote ones, in the same step; 16-bit pushes
// (--compression) are summed in fp32 and rounded once on both paths.
//
// Two sums segments, by parity: a worker that starts step s+1 proves that
// every worker has pushed step s, but not that every local worker has copied
// the sum of step s out yet; one that starts step s+2 proves it.

#include <fmt/format.h>

#include <vector>

#include "strategies/core/agreed_error.h"
#include "strategies/core/compression.h"
#include "strategies/ps/ps_server.h"
#include "strategies/ps/ps_socket.h"

namespace gradsync {

std::array<std::string, 2> PsServer::share(int sum_threads) {
  sum_pool_ = std::make_unique<SumPool>(sum_threads);
  for (std::size_t parity = 0; parity < sums_.size(); ++parity)
    sums_[parity] = SharedSegment::create(parity == 0 ? "sums0" : "sums1");
  return {sums_[0].name(), sums_[1].name()};
}

void PsServer::attach_workers(const std::vector<std::string>& names) {
  if (names.size() != static_cast<std::size_t>(workers_) || !sums_[0].valid())
    throw std::logic_error("ps-zmq: a shard attaches one segment per worker, after share()");
  for (const std::string& name : names) {
    worker_values_.push_back(name.empty() ? SharedSegment() : SharedSegment::open(name));
    shared_workers_ += name.empty() ? 0 : 1;
  }
}

std::vector<std::uint32_t> PsServer::shared_workers() const {
  std::vector<std::uint32_t> out;
  for (std::uint32_t w = 0; w < worker_values_.size(); ++w)
    if (local(w)) out.push_back(w);
  return out;
}

void PsServer::unlink_shared() {
  for (SharedSegment& segment : sums_) segment.unlink();
}

std::vector<const std::byte*> PsServer::shared_values(const PsHeader& header, Partial& partial,
                                                      std::size_t bytes) {
  std::vector<const std::byte*> values;
  for (std::uint32_t w = 0; w < static_cast<std::uint32_t>(workers_); ++w)
    values.push_back(local(w) ? worker_values_[w].at(header.offset * partial.element_bytes, bytes)
                              : partial.held[w].data<std::byte>());
  return values;
}

void PsServer::sum_shared(const PsHeader& header, Partial& partial) {
  const std::size_t element = partial.element_bytes;
  // Room for the shard's partitions of this buffer in floats, the larger
  // element, so that a switch of element size never needs more.
  SharedSegment& sums = sums_[header.step % 2];
  sums.reserve(plan_.packed_elements(header.total, shard_) * sizeof(float));
  const std::size_t bytes = header.count * element;
  std::byte* out = sums.at(plan_.packed_offset(header.total, header.partition) * element, bytes);
  const std::vector<const std::byte*> values = shared_values(header, partial, bytes);
  // The remote workers' reply, filled chunk by chunk as the sum is made.
  std::byte* remote = nullptr;
  if (shared_workers_ < workers_) {
    partial.sum = zmq::message_t(bytes);
    remote = partial.sum.data<std::byte>();
  }
  sum_values(*sum_pool_, out, values, element, format_, header.count, remote);
}

void PsServer::reply_shared(const PsHeader& header, Partial& partial) {
  PsHeader out = header;
  out.type = PsMessageType::reply_shared;
  for (int w = 0; w < workers_; ++w) {
    if (!local(static_cast<std::uint32_t>(w))) continue;
    out.worker = static_cast<std::uint32_t>(w);
    send_to(w, out, zmq::message_t());
    traffic_.bytes_sent += header.count * partial.element_bytes;
  }
  if (shared_workers_ == workers_) return;
  // The remote workers: the sum when each pulls it (the rotated schedule), or now.
  if (rotated_)
    hold_for_pulls(header, partial);
  else
    reply(header, partial);
}

void PsServer::fail_workers(const PsHeader& header, const std::string& line) {
  if (!failure_.empty()) return;
  failure_ = line;
  for (int w = 0; w < workers_; ++w)
    if (workers_state_[w].bound) send_failed(w, header.step);
}

void PsServer::answer_failed(const PsHeader& header, std::vector<zmq::message_t>& frames) {
  bind(header.worker, frames[0]);
  if (header.type == PsMessageType::failed)
    fail_workers(header, std::string(frames[2].data<char>(), frames[2].size()));
  if (header.type == PsMessageType::bye) {
    workers_state_[header.worker].said_bye = true;
    ++byes_;
  } else {
    send_failed(static_cast<int>(header.worker), header.step);
  }
}

void PsServer::send_failed(int worker, std::uint64_t step) {
  const PsHeader out{.type = PsMessageType::failed,
                     .step = step,
                     .worker = static_cast<std::uint32_t>(worker),
                     .count = failure_.size()};
  send_to(worker, out, zmq::message_t(failure_.data(), failure_.size()));
  if (!workers_state_[worker].told_failed) {
    workers_state_[worker].told_failed = true;
    ++told_failed_;
  }
}

}  // namespace gradsync
