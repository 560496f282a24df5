// The shard's half of the shared-memory data path (--ps-shm auto or copy).
// A worker on the shard's host (a local worker) pushes only a header (a
// shared push): with auto, where the kernel lets the shard reach into the
// worker's process (ps_cross_memory.h), the header names where the worker's
// values lie and the shard reads them there and writes the sum back there;
// otherwise the worker copies its values of the partition into its own
// shared segment. A worker on another host (a remote one) pushes its values
// over ZeroMQ as on the plain path, and the shard holds that message. Once
// every worker has pushed, the shard adds their values up in worker order
// (whatever the order of arrival, so sums are the same bit for bit from run
// to run), in cache-sized chunks (on its own thread and helpers, each a
// slice of the partition: ps_sum_pool.h), into its own segment for the
// step's parity when some local worker copies the sum out, and back into
// each local worker read in place; it replies to each local worker with a
// header; when some worker is remote, each chunk of the sum is also copied,
// while still in cache, into one reply message that every remote worker's
// reply shares (reference counted): sent at once, or on the rotated
// schedule when each remote worker pulls it (ps_server_pull.cc), the local
// workers' shared pushes taking no receipts and no pulls.
//
// Copies per partition, in place: each local worker's values read once (in
// this process, the colocated worker's not copied at all) and the sum
// written once into each, the single copy of Open MPI's shared-memory
// transport. Through the segments: a local worker's values into its
// segment, and the sum out of the shard's segment (both on the worker's
// side); at the shard, the sum written once. Either way, one copy of the sum
// into the remote workers' reply when there is any remote worker. A remote
// worker's push is read in place where ZeroMQ received it. ZeroMQ carries
// 48-byte headers for the local workers and payloads for the remote ones,
// in the same step; 16-bit pushes (--compression) are summed in fp32 and
// rounded once on every path.
//
// Two sums segments, by parity: a worker that starts step s+1 proves that
// every worker has pushed step s, but not that every local worker has copied
// the sum of step s out yet; one that starts step s+2 proves it.

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "strategies/core/agreed_error.h"
#include "strategies/core/compression.h"
#include "strategies/ps/ps_server.h"
#include "strategies/ps/ps_shared_order.h"
#include "strategies/ps/ps_socket.h"

namespace gradsync {

std::array<std::string, 2> PsServer::share(int sum_threads) {
  sum_pool_ = std::make_unique<SumPool>(sum_threads);
  for (std::size_t parity = 0; parity < sums_.size(); ++parity)
    sums_[parity] = SharedSegment::create(parity == 0 ? "sums0" : "sums1");
  return {sums_[0].name(), sums_[1].name()};
}

void PsServer::attach_workers(const std::vector<std::string>& names,
                              const std::vector<std::string>& offers) {
  if (names.size() != static_cast<std::size_t>(workers_) || !sums_[0].valid() ||
      !(offers.empty() || offers.size() == names.size()))
    throw std::logic_error("ps-zmq: a shard attaches one segment per worker, after share()");
  for (std::size_t w = 0; w < names.size(); ++w) {
    const bool local = !names[w].empty();
    worker_values_.push_back(local ? SharedSegment::open(names[w]) : SharedSegment());
    shared_workers_ += local ? 1 : 0;
    in_place_.push_back(local && !offers.empty() && !offers[w].empty()
                            ? CrossMemory::attach(offers[w])
                            : std::nullopt);
  }
}

std::vector<std::uint32_t> PsServer::in_place_workers() const {
  std::vector<std::uint32_t> out;
  for (std::uint32_t w = 0; w < in_place_.size(); ++w)
    if (in_place(w)) out.push_back(w);
  return out;
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
    values.push_back(in_place(w) ? nullptr
                     : local(w) ? worker_values_[w].at(header.offset * partial.element_bytes, bytes)
                                : partial.held[w].data<std::byte>());
  return values;
}

std::string PsServer::in_place_mismatch(const PsHeader& header, const PsSharedPush& push) const {
  if ((push.address != 0) == in_place(header.worker)) return {};
  return fmt::format("a shared push from worker {} {}, but this shard {} that worker in place",
                     header.worker, push.address != 0 ? "naming an address" : "through its segment",
                     push.address != 0 ? "does not read" : "reads");
}

bool PsServer::answer_shared(const PsHeader& header, Partial& partial) {
  shared_memory_acquired();  // every worker's values, announced by its push
  try {
    sum_shared(header, partial);
  } catch (const ProcessGone& gone) {
    // A worker read in place exited after it pushed: its values are lost
    // with it, so its push is as if it never came, and the shard waits
    // for it (and tells the others so) as for any missing worker.
    forget_push(header, partial, gone.pid);
    return false;
  } catch (const std::runtime_error& e) {
    fail_workers(header, fmt::format("rank {}: {}", job_.shard_rank(shard_), e.what()));
    return false;
  }
  shared_memory_released();       // the sum, announced by the replies
  reply_shared(header, partial);  // and the remote workers' sum, when there are any
  return true;
}

void PsServer::sum_shared(const PsHeader& header, Partial& partial) {
  const std::size_t element = partial.element_bytes;
  const std::size_t bytes = header.count * element;
  const auto in_place_workers = static_cast<std::size_t>(std::count_if(
      in_place_.begin(), in_place_.end(), [](const auto& p) { return p.has_value(); }));
  // The sums segment, for local workers that copy the sum out. Room for the
  // shard's partitions of this buffer in floats, the larger element, so
  // that a switch of element size never needs more.
  std::byte* out = nullptr;
  if (in_place_workers < static_cast<std::size_t>(shared_workers_)) {
    SharedSegment& sums = sums_[header.step % 2];
    sums.reserve(plan_.packed_elements(header.total, shard_) * sizeof(float));
    out = sums.at(plan_.packed_offset(header.total, header.partition) * element, bytes);
  }
  const std::vector<const std::byte*> values = shared_values(header, partial, bytes);
  // The remote workers' reply, filled chunk by chunk as the sum is made.
  std::byte* remote = nullptr;
  if (shared_workers_ < workers_) {
    partial.sum = zmq::message_t(bytes);
    remote = partial.sum.data<std::byte>();
  }
  if (in_place_workers > 0)
    sum_in_place(partial, values, out, remote, header.count);
  else
    sum_values(*sum_pool_, out, values, element, format_, header.count, remote);
}

void PsServer::sum_in_place(const Partial& partial, const std::vector<const std::byte*>& values,
                            std::byte* out, std::byte* remote, std::size_t count) {
  const std::size_t element = partial.element_bytes;
  sum_pool_->run(count, kSumChunk, kSumMinSlice, [&](std::size_t first, std::size_t n) {
    const std::size_t chunk = std::min(kInPlaceChunk, n), chunk_bytes = chunk * element;
    // A chunk each for the sum and for every worker in another process
    // (uninitialised: each is written whole before it is read).
    const auto staged_workers = std::count_if(in_place_.begin(), in_place_.end(),
                                              [](const auto& p) { return p && !p->self(); });
    const auto sum = std::make_unique_for_overwrite<std::byte[]>(chunk_bytes);
    const auto staged = std::make_unique_for_overwrite<std::byte[]>(chunk_bytes * staged_workers);
    std::vector<const std::byte*> from(workers_);
    for (std::size_t begin = first; begin < first + n; begin += chunk) {
      const std::size_t m = std::min(chunk, first + n - begin), at = begin * element;
      std::byte* next_stage = staged.get();
      for (std::uint32_t w = 0; w < from.size(); ++w) {
        if (!in_place(w)) {
          from[w] = values[w] + at;
          continue;
        }
        const std::uint64_t address = partial.addresses[w] + at;
        if (in_place_[w]->self()) {  // the colocated worker: its memory is this process's
          from[w] = reinterpret_cast<const std::byte*>(address);
          continue;
        }
        in_place_[w]->read(address, next_stage, m * element);
        from[w] = next_stage;
        next_stage += chunk_bytes;
      }
      sum_values(sum.get(), from, element, format_, 0, m);
      for (std::uint32_t w = 0; w < from.size(); ++w) {
        if (!in_place(w)) continue;
        try {
          in_place_[w]->write(partial.addresses[w] + at, sum.get(), m * element);
        } catch (const ProcessGone&) {
          // a worker that has exited since it pushed: nobody to hand its sum to
        }
      }
      if (out) std::memcpy(out + at, sum.get(), m * element);
      if (remote) std::memcpy(remote + at, sum.get(), m * element);
    }
  });
}

void PsServer::forget_push(const PsHeader& header, Partial& partial, pid_t gone) {
  for (std::uint32_t w = 0; w < in_place_.size(); ++w) {
    if (!in_place(w) || in_place_[w]->pid() != gone || !partial.pushed[w]) continue;
    partial.pushed[w] = false;
    --partial.arrived;
    Worker& worker = workers_state_[w];
    if (worker.step == header.step && worker.pushed.erase(header.partition) > 0)
      --worker.unanswered;
  }
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
  failing_ = true;
  for (int w = 0; w < workers_; ++w)
    if (workers_state_[w].bound) send_failed(w, header.step);
}

void PsServer::answer_failed(const PsHeader& header, std::vector<zmq::message_t>& frames) {
  bind(header.worker, frames[0]);
  if (header.type == PsMessageType::failed)
    fail_workers(header, std::string(frames[2].data<char>(), frames[2].size()));
  if (header.type == PsMessageType::bye) {
    workers_state_[header.worker].said_bye = true;
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
  workers_state_[worker].told_failed = true;
}

}  // namespace gradsync
