// The shard's half of the shared-memory data path (--ps-shm auto, when every
// worker of the shard shares its host): a worker copies its values of a
// partition into its own shared segment and pushes only a header (a shared
// push); once every worker has, the shard adds their values up, in
// cache-sized chunks, straight into its own segment for the step's parity (on
// its own thread and helpers, each a slice of the partition: ps_sum_pool.h),
// and replies with a header; each worker copies the sum out. ZeroMQ carries
// 48-byte headers, and the bytes move by memcpy and the sum, never through a
// socket. Two segments, by parity: a worker that starts step s+1 proves that
// every worker has pushed step s, but not that every worker has copied the
// sum of step s out yet; one that starts step s+2 proves it.

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
  for (const std::string& name : names) worker_values_.push_back(SharedSegment::open(name));
}

void PsServer::unlink_shared() {
  for (SharedSegment& segment : sums_) segment.unlink();
}

void PsServer::sum_shared(const PsHeader& header, std::size_t element) {
  // Room for the shard's partitions of this buffer in floats, the larger
  // element, so that a switch of element size never needs more.
  SharedSegment& sums = sums_[header.step % 2];
  sums.reserve(plan_.packed_elements(header.total, shard_) * sizeof(float));
  const std::size_t bytes = header.count * element;
  std::byte* out = sums.at(plan_.packed_offset(header.total, header.partition) * element, bytes);
  std::vector<const std::byte*> values;
  for (SharedSegment& segment : worker_values_)
    values.push_back(segment.at(header.offset * element, bytes));
  sum_values(*sum_pool_, out, values, element, format_, header.count);
}

void PsServer::reply_shared(const PsHeader& header, std::size_t element) {
  PsHeader out = header;
  out.type = PsMessageType::reply_shared;
  for (int w = 0; w < workers_; ++w) {
    out.worker = static_cast<std::uint32_t>(w);
    socket_.send(zmq::buffer(workers_state_[w].identity), zmq::send_flags::sndmore);
    send_message(socket_, out, zmq::message_t());
    traffic_.bytes_sent += header.count * element;
  }
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
  socket_.send(zmq::buffer(workers_state_[worker].identity), zmq::send_flags::sndmore);
  send_message(socket_, out, zmq::message_t(failure_.data(), failure_.size()));
  if (!workers_state_[worker].told_failed) {
    workers_state_[worker].told_failed = true;
    ++told_failed_;
  }
}

}  // namespace gradsync
