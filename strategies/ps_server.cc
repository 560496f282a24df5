// A parameter-server shard (the server half of ps-zmq). It owns one ROUTER
// socket and knows how many workers there are. Each worker pushes its values
// of every partition this shard serves (partition i goes to shard i % S);
// the shard keeps the first push of a (step, partition) as the accumulator,
// adds each later push into it, and when all W workers have pushed, replies
// with the sum to each of them. Workers can be one step apart (a fast worker
// pushes step s+1 while a slow one still receives step s), so sums in progress
// are keyed by (step, partition).
//
// Copies: none beyond the sum itself. The accumulator is the first received
// message, and every reply shares its content (zmq_msg_copy bumps a reference
// count). Cost per step, for a buffer of N floats: the shard receives and
// sends W * N / S floats and adds (W - 1) * N / S, so its link carries W times
// what a worker's does (incast), which is what more shards spread out.
//
// Nothing received is trusted: a message that is malformed or does not fit
// the partition plan is dropped and counted (rejected()), and the shard goes
// on serving. It waits at most options.timeout_s for the next message while a
// sum is pending, then fails naming the workers it still waits for.

#include "strategies/ps_server.h"

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <system_error>

#include "strategies/host_address.h"
#include "strategies/ps_options.h"
#include "strategies/ps_socket.h"
#include "strategies/reduce_kernel.h"

namespace gradsync {
namespace {

// A directory of its own for the shard's ipc socket, so that concurrent jobs
// never collide on a path.
std::filesystem::path make_ipc_dir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "gradsync-ps-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error(
        fmt::format("ps-zmq: cannot create a directory for ipc sockets ({}): {}", pattern,
                    std::system_category().message(errno)));
  return pattern;
}

// ZeroMQ may hand over a small received message at any byte offset inside
// its receive buffer; floats are read and written only where they are
// aligned, so such a payload is copied into a message of its own (malloc'd,
// hence aligned). Large payloads arrive in their own allocation: no copy.
zmq::message_t float_aligned(zmq::message_t&& message) {
  if (reinterpret_cast<std::uintptr_t>(message.data()) % alignof(float) == 0)
    return std::move(message);
  zmq::message_t copy(message.data(), message.size());
  if (reinterpret_cast<std::uintptr_t>(copy.data()) % alignof(float) != 0)
    throw std::logic_error("ps-zmq: ZeroMQ allocated a misaligned message");
  return copy;
}

// The endpoint to hand to the workers: the bound one, except that a wildcard
// (tcp://0.0.0.0:port, bound for --ps-bind 0.0.0.0 or *) becomes this host's
// address, which peers can connect to.
std::string advertised(const std::string& bound) {
  constexpr std::string_view kWildcard = "tcp://0.0.0.0:";
  if (!bound.starts_with(kWildcard)) return bound;
  return "tcp://" + this_host_address() + ":" + bound.substr(kWildcard.size());
}

}  // namespace

PsServer::PsServer(int shard, int shards, int workers, const StrategyOptions& options)
    : shard_(shard),
      workers_(workers),
      plan_{options.ps.partition_bytes, shards},
      timeout_s_(options.timeout_s),
      fault_stop_after_(options.faults.ps_stop_after),
      socket_(context_, zmq::socket_type::router),
      said_bye_(std::max(workers, 0), false) {
  if (workers < 1 || shards < 1 || shard < 0 || shard >= shards)
    throw std::invalid_argument(fmt::format(
        "ps-zmq: server shard {} of {} for {} workers is impossible", shard, shards, workers));
  set_unbounded_queues(socket_);
  socket_.set(zmq::sockopt::linger, 0);
  // No legitimate frame is larger than a partition: ZeroMQ drops a peer that
  // sends one before buffering it.
  const std::uint64_t largest =
      std::max<std::uint64_t>(plan_.max_partition_count() * sizeof(float), kPsHeaderBytes);
  socket_.set(zmq::sockopt::maxmsgsize,
              static_cast<int64_t>(std::min<std::uint64_t>(largest, INT64_MAX)));

  std::string address;
  if (options.ps.transport == "ipc") {
    ipc_dir_ = make_ipc_dir();
    address = "ipc://" + (ipc_dir_ / fmt::format("shard-{}", shard)).string();
  } else if (options.ps.transport == "tcp") {
    address = fmt::format("tcp://{}:*", ps_bind_host(options.ps, false));
  } else {
    throw std::invalid_argument("unknown --ps-transport '" + options.ps.transport +
                                "' (known: tcp, ipc)");
  }
  try {
    socket_.bind(address);
  } catch (const zmq::error_t& e) {
    std::error_code ignored;
    if (!ipc_dir_.empty()) std::filesystem::remove_all(ipc_dir_, ignored);
    throw std::runtime_error(fmt::format(
        "ps-zmq: server shard {} cannot bind to {}: {}{}", shard, address, e.what(),
        options.ps.transport == "tcp" ? " (is --ps-bind an address of this host?)" : ""));
  }
  endpoint_ = advertised(socket_.get(zmq::sockopt::last_endpoint));
}

PsServer::~PsServer() {
  socket_.close();
  context_.close();
  std::error_code ignored;
  if (!ipc_dir_.empty()) std::filesystem::remove_all(ipc_dir_, ignored);
}

std::string PsServer::last_rejection() const {
  std::lock_guard lock(rejection_mutex_);
  return last_rejection_;
}

void PsServer::run(std::stop_token stop) {
  using Clock = std::chrono::steady_clock;
  const auto timeout = std::chrono::duration<double>(timeout_s_);
  // Short polls, so that a stop request is seen while the shard is idle.
  const auto slice = std::chrono::milliseconds(100);
  auto last_message = Clock::now();
  while (!stopped_ && byes_ < workers_ && !stop.stop_requested()) {
    zmq::pollitem_t item{socket_.handle(), 0, ZMQ_POLLIN, 0};
    poll_for(&item, 1, slice);
    bool received = false;
    while (!stopped_) {
      std::vector<zmq::message_t> frames = recv_message(socket_);
      if (frames.empty()) break;
      handle(frames);
      received = true;
    }
    if (received) {
      last_message = Clock::now();
    } else if (!pending_.empty() && Clock::now() - last_message > timeout) {
      throw std::runtime_error(timeout_message());
    }
  }
}

void PsServer::handle(std::vector<zmq::message_t>& frames) {
  // frames[0] is the sender's identity, put there by the ROUTER socket.
  if (frames.size() != 3)
    return reject(
        fmt::format("a message of {} frames (expected a header and a payload)", frames.size() - 1));
  const PsDecoded decoded = decode_header({frames[1].data<std::byte>(), frames[1].size()});
  if (!decoded.ok()) return reject(decoded.error);
  const PsHeader& header = decoded.header;
  if (header.worker >= static_cast<std::uint32_t>(workers_))
    return reject(
        fmt::format("worker index {}, but there are {} workers", header.worker, workers_));
  if (std::string e = check_payload_size(header, frames[2].size()); !e.empty()) return reject(e);
  if (said_bye_[header.worker])
    return reject(
        fmt::format("worker {} sent a {} after its bye", header.worker, to_string(header.type)));

  switch (header.type) {
    case PsMessageType::push:
      // The test-only fault: the shard answers its first N pushes, and on the
      // next one closes its socket, dropping whatever it holds.
      if (pushes_handled_++ == fault_stop_after_) return stop_answering();
      if (std::string e = plan_.check(header, shard_); !e.empty()) return reject(e);
      accumulate(frames[0], header, frames[2]);
      return;
    case PsMessageType::bye:
      said_bye_[header.worker] = true;
      ++byes_;
      return;
    case PsMessageType::reply:
      return reject("a reply sent to a server (workers send push and bye)");
  }
}

void PsServer::accumulate(zmq::message_t& identity, const PsHeader& header,
                          zmq::message_t& payload) {
  const Key key{header.step, header.partition};
  auto it = pending_.find(key);
  if (it == pending_.end()) {
    Pending fresh;
    fresh.sum = float_aligned(std::move(payload));
    fresh.total = header.total;
    fresh.identities.resize(workers_);
    fresh.pushed.assign(workers_, false);
    it = pending_.emplace(key, std::move(fresh)).first;
  } else {
    Pending& pending = it->second;
    if (pending.pushed[header.worker])
      return reject(fmt::format("worker {} pushed partition {} of step {} twice", header.worker,
                                header.partition, header.step));
    if (pending.total != header.total)
      return reject(fmt::format(
          "worker {} pushed partition {} of step {} for a {}-element buffer, others for {}",
          header.worker, header.partition, header.step, header.total, pending.total));
    const zmq::message_t addend = float_aligned(std::move(payload));
    sum_into(pending.sum.data<float>(), addend.data<float>(), header.count);
  }
  Pending& pending = it->second;
  pending.pushed[header.worker] = true;
  pending.identities[header.worker] = std::move(identity);
  traffic_.bytes_received += header.count * sizeof(float);
  if (++pending.arrived < workers_) return;

  PsHeader out = header;
  out.type = PsMessageType::reply;
  for (int w = 0; w < workers_; ++w) {
    out.worker = static_cast<std::uint32_t>(w);
    zmq::message_t payload_out;
    if (w + 1 < workers_)
      payload_out.copy(pending.sum);  // shares the content
    else
      payload_out.move(pending.sum);
    socket_.send(pending.identities[w], zmq::send_flags::sndmore);
    send_message(socket_, out, std::move(payload_out));
    traffic_.bytes_sent += header.count * sizeof(float);
  }
  pending_.erase(it);
}

void PsServer::reject(std::string why) {
  ++rejected_;
  std::lock_guard lock(rejection_mutex_);
  last_rejection_ = std::move(why);
}

void PsServer::stop_answering() {
  socket_.close();
  stopped_ = true;
}

std::string PsServer::timeout_message() const {
  const auto& [key, pending] = *pending_.begin();  // the oldest step, lowest partition
  std::vector<int> missing;
  for (int w = 0; w < workers_; ++w)
    if (!pending.pushed[w]) missing.push_back(w);
  std::string text = fmt::format(
      "ps-zmq: server shard {} ({}) got no message within {:g} s while waiting for worker{} {} to "
      "push partition {} at step {} ({} partition sum{} pending)",
      shard_, endpoint_, timeout_s_, missing.size() == 1 ? "" : "s", fmt::join(missing, ", "),
      key.second, key.first, pending_.size(), pending_.size() == 1 ? "" : "s");
  if (rejected() > 0)
    text += fmt::format("; {} malformed message{} rejected, the last: {}", rejected(),
                        rejected() == 1 ? " was" : "s were", last_rejection());
  return text;
}

}  // namespace gradsync
