// A parameter-server worker (the client half of ps-zmq). One allreduce is a
// synchronous push then pull: the buffer is cut into the plan's partitions
// (ps_plan.h), every partition is pushed to the shard that serves it, and the
// worker then waits for every shard's reply (the sum over all workers) and
// copies each into place. All pushes leave before the first reply is awaited,
// so the shards sum early partitions while later ones are still on the wire.
//
// The rotated schedule (--ps-schedule rotated, the default across hosts;
// ps_schedule.cc says why): the pushes leave in the worker's rotated order,
// at most --ps-window of them unacknowledged (the shard sends a receipt for
// each), and the worker pulls each partition's sum, at most --ps-window
// pulls outstanding, once its push has left; the shard answers a pull when
// the sum is ready. The wait below sends what the window allows as receipts
// and replies come in.
//
// Copies: pushes are sent zero-copy straight from the user's buffer. That is
// safe because a partition's reply proves its push was transmitted in full
// (the shard cannot sum what it has not received), and only then is the
// reply written over that range. On an error the sockets are closed with
// linger 0 and the context is ended before the exception leaves, so ZeroMQ
// can no longer read the buffer. The one copy per element is the reply's
// into the buffer. Cost per step: N floats out and N floats in, for a buffer
// of N floats, whatever the number of workers (N 16-bit elements each way
// under --compression).
//
// Shared memory (ps_server_shared.cc): to a shard on this worker's host, a
// push is a header and a reply a header. A shard that reads this worker in
// place (in_place(shard)) takes the values where they lie and writes the sum
// back there, the header naming the address; otherwise the partition is
// copied into this worker's segment and the sum out of the shard's. Shards
// on other hosts take this worker's payloads over ZeroMQ (shared(shard)).
//
// Blame: a shard that waits for a missing worker tells the workers that did
// push (a status message); a worker that gives up on that shard passes the
// news on, so the line that ends the job names the rank that stopped, not
// the shard that waited for it. Of the workers that wait, one speaks: they
// tell each other whom they wait for over the stall board (stall_marks.h).

#include "strategies/ps/ps_client.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <stdexcept>

#include "strategies/core/activity.h"
#include "strategies/core/agreed_error.h"
#include "strategies/core/stall_marks.h"
#include "strategies/core/wait_clock.h"
#include "strategies/core/world.h"
#include "strategies/ps/ps_curve.h"
#include "strategies/ps/ps_options.h"
#include "strategies/ps/ps_shared_order.h"
#include "strategies/ps/ps_socket.h"

namespace gradsync {

PsClient::PsClient(std::vector<std::string> shard_endpoints, int worker,
                   const StrategyOptions& options, const PsJob& job, const PsKeyPair& keys)
    : endpoints_(std::move(shard_endpoints)),
      worker_(static_cast<std::uint32_t>(worker)),
      plan_{ps_partition_bytes(options.ps, job.spans_hosts), static_cast<int>(endpoints_.size())},
      timeout_s_(options.timeout_s),
      format_(options.compression),
      job_(job),
      rotated_(ps_rotated(options.ps)),
      window_(options.ps.window),
      status_(endpoints_.size()),
      context_(std::make_unique<zmq::context_t>(1)) {
  if (endpoints_.empty())
    throw std::invalid_argument("ps-zmq: a worker needs at least one server shard");
  if (worker < 0) throw std::invalid_argument("ps-zmq: negative worker index");
  if (job.curve() && (job.shard_public_keys.size() != endpoints_.size() || keys.secret_key.empty()))
    throw std::invalid_argument(fmt::format("ps-zmq: worker {} has {} shard keys for {} shards{}",
                                            worker, job.shard_public_keys.size(), endpoints_.size(),
                                            keys.secret_key.empty() ? " and no keypair" : ""));
  for (std::size_t shard = 0; shard < endpoints_.size(); ++shard) {
    const std::string& endpoint = endpoints_[shard];
    zmq::socket_t& socket = sockets_.emplace_back(*context_, zmq::socket_type::dealer);
    set_unbounded_queues(socket);
    socket.set(zmq::sockopt::linger, 0);  // until the byes: nothing may be left behind
    try {
      if (job.curve()) set_curve_client(socket, keys, job.shard_public_keys[shard]);
      socket.connect(endpoint);
    } catch (const zmq::error_t& e) {
      abandon();
      throw std::runtime_error(fmt::format("ps-zmq: cannot connect to server shard {} at '{}': {}",
                                           shard, endpoint, e.what()));
    }
  }
}

PsClient::~PsClient() {
  if (!context_) return;
  try {
    const int linger_ms = static_cast<int>(std::min(timeout_s_ * 1000.0, double{INT_MAX}));
    PsHeader bye{.type = PsMessageType::bye, .step = step_, .worker = worker_};
    for (zmq::socket_t& socket : sockets_) {
      send_message(socket, bye, zmq::message_t());
      socket.set(zmq::sockopt::linger, linger_ms);
      socket.close();
    }
    context_->close();  // returns once the byes are out, or the linger expired
    context_.reset();
  } catch (...) {
    abandon();
  }
}

void PsClient::abandon() noexcept {
  for (zmq::socket_t& socket : sockets_) {
    if (!socket) continue;
    try {
      socket.set(zmq::sockopt::linger, 0);
    } catch (...) {
    }
    socket.close();
  }
  sockets_.clear();
  if (context_) context_->close();
  context_.reset();
}

void PsClient::allreduce(std::span<float> buffer) {
  exchange({std::as_writable_bytes(buffer), sizeof(float)}, PsMessageType::push);
}

void PsClient::init(std::span<float> parameters) {
  exchange({std::as_writable_bytes(parameters), sizeof(float)}, PsMessageType::init);
}

void PsClient::push_gradient(std::span<float> buffer) {
  exchange({std::as_writable_bytes(buffer), sizeof(float)}, PsMessageType::gradient);
  ++gradient_steps_;
}

void PsClient::allreduce(std::span<std::uint16_t> buffer, Compression format) {
  if (format == Compression::none || format != format_)
    throw std::logic_error(fmt::format("ps-zmq: a {} allreduce, but the shards sum {}",
                                       to_string(format), to_string(format_)));
  exchange({std::as_writable_bytes(buffer), sizeof(std::uint16_t)}, PsMessageType::push);
}

void PsClient::exchange(Elements buffer, PsMessageType type) {
  if (!context_)
    throw std::runtime_error(
        "ps-zmq: this worker's connections were closed after an earlier error: " + broken_);
  const std::vector<Range> parts = plan_.partitions(buffer.count());
  if (parts.size() > UINT32_MAX)
    throw std::invalid_argument(
        fmt::format("ps-zmq: {} partitions do not fit the wire format; raise --ps-partition-bytes",
                    parts.size()));
  try {
    if (rotated_ && type == PsMessageType::push) {
      exchange_rotated(buffer, parts);
    } else {
      push(buffer, parts, type);
      pull(buffer, parts);
    }
  } catch (const std::exception& e) {
    broken_ = e.what();
    abandon();
    throw;
  }
  ++step_;
}

std::string PsClient::share() {
  values_ = SharedSegment::create("values");
  return values_.name();
}

void PsClient::attach_shards(const std::vector<std::vector<std::string>>& names) {
  if (names.size() != sockets_.size() || !values_.valid())
    throw std::logic_error("ps-zmq: a worker attaches each shard's segments, after share()");
  shard_sums_.resize(names.size());
  for (std::size_t shard = 0; shard < names.size(); ++shard)
    for (const std::string& name : names[shard])
      shard_sums_[shard].push_back(SharedSegment::open(name));
}

bool PsClient::shared(int shard) const {
  return !shard_sums_.empty() && !shard_sums_[shard].empty();
}

void PsClient::read_in_place(const std::vector<bool>& by_shard) {
  if (by_shard.size() != sockets_.size())
    throw std::logic_error("ps-zmq: a worker learns which shards read it in place, one per shard");
  in_place_ = by_shard;
}

bool PsClient::in_place(int shard) const { return !in_place_.empty() && in_place_[shard]; }

bool PsClient::reserve_shared(Elements buffer, PsMessageType type) {
  // Sums only (not init nor gradient) take the shared path, and only the
  // shards that do not read this worker in place take values from its segment.
  bool staged = false;
  for (std::size_t shard = 0; shard < shard_sums_.size(); ++shard)
    staged = staged || (shared(static_cast<int>(shard)) && !in_place(static_cast<int>(shard)));
  if (type != PsMessageType::push || !staged) return true;
  try {
    values_.reserve(buffer.bytes.size());
    return true;
  } catch (const std::runtime_error& e) {
    // Every shard learns why and tells every worker; the pull that
    // follows takes the line back, as the other workers do.
    tell_shards_failed(fmt::format("rank {}: {}", job_.worker_rank(int(worker_)), e.what()));
    return false;
  }
}

void PsClient::push(Elements buffer, const std::vector<Range>& parts, PsMessageType type) {
  if (!reserve_shared(buffer, type)) return;
  for (std::size_t i = 0; i < parts.size(); ++i) send_push(buffer, parts, i, type);
}

void PsClient::exchange_rotated(Elements buffer, const std::vector<Range>& parts) {
  if (!reserve_shared(buffer, PsMessageType::push)) return pull(buffer, parts);
  // A shard reached through shared memory takes headers only, which load no
  // link: those leave at once, and their sums come unasked.
  std::vector<std::uint32_t> order;
  for (std::uint32_t i : rotated_order(parts.size(), plan_.shards, static_cast<int>(worker_))) {
    if (shared(plan_.shard_of(i)))
      send_push(buffer, parts, i, PsMessageType::push);
    else
      order.push_back(i);
  }
  PushPullWindow window(std::move(order), window_);
  pull(buffer, parts, &window);
}

void PsClient::send_push(Elements buffer, const std::vector<Range>& parts, std::size_t i,
                         PsMessageType type) {
  const int shard = plan_.shard_of(i);
  const bool through_memory = type == PsMessageType::push && shared(shard);
  const PsHeader header =
      header_of(through_memory ? PsMessageType::push_shared : type, buffer, parts, i);
  const std::size_t bytes = parts[i].count * buffer.size;
  if (through_memory) {  // where the values are, or the values into this worker's segment
    const bool here = in_place(shard);
    if (bytes > 0 && !here)
      std::memcpy(values_.at(parts[i].offset * buffer.size, bytes), buffer.at(parts[i].offset),
                  bytes);
    shared_memory_released();
    const std::vector<std::byte> element = encode_shared_push(
        buffer.size, here ? reinterpret_cast<std::uintptr_t>(buffer.at(parts[i].offset)) : 0);
    send_message(sockets_[shard], header, zmq::message_t(element.data(), element.size()));
  } else {
    // No free function: ZeroMQ reads the user's memory and never frees it.
    send_message(sockets_[shard], header,
                 zmq::message_t(buffer.at(parts[i].offset), bytes, nullptr));
  }
  traffic_.bytes_sent += bytes;
}

void PsClient::send_pull(Elements buffer, const std::vector<Range>& parts, std::size_t i) {
  send_message(sockets_[plan_.shard_of(i)], header_of(PsMessageType::pull, buffer, parts, i),
               zmq::message_t());
}

PsHeader PsClient::header_of(PsMessageType type, Elements buffer, const std::vector<Range>& parts,
                             std::size_t i) const {
  return {.type = type,
          .step = step_,
          .partition = static_cast<std::uint32_t>(i),
          .worker = worker_,
          .offset = parts[i].offset,
          .count = parts[i].count,
          .total = buffer.count()};
}

void PsClient::feed(Elements buffer, const std::vector<Range>& parts, PushPullWindow& window) {
  while (const auto i = window.next_push()) send_push(buffer, parts, *i, PsMessageType::push);
  while (const auto i = window.next_pull()) send_pull(buffer, parts, *i);
}

void PsClient::pull(Elements buffer, const std::vector<Range>& parts, PushPullWindow* window) {
  using Clock = std::chrono::steady_clock;
  std::vector<bool> received(parts.size(), false), acknowledged(parts.size(), false);
  std::size_t missing = parts.size();
  std::vector<zmq::pollitem_t> items;
  for (zmq::socket_t& socket : sockets_) items.push_back({socket.handle(), 0, ZMQ_POLLIN, 0});

  // The wait ends timeout_s after the last reply (or the start): slow links
  // may take long for big buffers, but never that long with no progress.
  // A stall passes the marks every bounded wait passes (stall_marks.h): the
  // ranks told to the others are the workers a shard said it waits for,
  // else the shard's own, so that of all the workers waiting, one speaks.
  // Short polls, so that time this process did not run is told from time it
  // waited (wait_clock.h).
  constexpr auto kSlice = std::chrono::milliseconds(100);
  WaitClock clock("ps-zmq pull", kSlice);
  StallMarks marks(timeout_s_, world_rank());
  while (missing > 0) {
    if (window != nullptr) feed(buffer, parts, *window);
    const Clock::duration waited = clock.read();
    std::size_t first = 0;
    while (received[first]) ++first;
    if (waited >= marks.next()) {
      const auto blame = marks.pass(waited_ranks(received), [&](const Blame&) {
        return stall_line(world_rank(), std::chrono::duration<double>(waited).count(),
                          "ps-zmq pull", waited_for(first));
      });
      if (blame) throw std::runtime_error(timeout_message(first, missing, parts.size()));
      continue;
    }
    const auto wake = std::min<Clock::duration>(marks.next() - waited, kSlice);
    poll_for(items.data(), items.size(), std::chrono::ceil<std::chrono::milliseconds>(wake));
    for (std::size_t s = 0; s < sockets_.size(); ++s) {
      if (!(items[s].revents & ZMQ_POLLIN)) continue;
      for (auto frames = recv_message(sockets_[s]); !frames.empty();
           frames = recv_message(sockets_[s])) {
        const Taken taken =
            take_message(frames, static_cast<int>(s), buffer, received, acknowledged);
        if (taken.kind == Taken::Kind::news) continue;  // a status: news, not progress
        if (taken.kind == Taken::Kind::receipt) {
          if (window != nullptr) window->acknowledged();
        } else {
          received[taken.partition] = true;
          --missing;
          if (window != nullptr && !shared(static_cast<int>(s))) window->answered();
        }
        clock.restart();
        marks.reset();
      }
    }
  }
}

std::vector<int> PsClient::waited_ranks(const std::vector<bool>& received) const {
  std::vector<int> ranks;
  for (std::size_t i = 0; i < received.size(); ++i) {
    if (received[i]) continue;
    const int shard = plan_.shard_of(i);
    const std::optional<ShardStatus>& status = status_[shard];
    if (status && status->step == step_) {
      for (std::uint32_t w : status->missing)
        ranks.push_back(job_.worker_rank(static_cast<int>(w)));
    } else {
      ranks.push_back(job_.shard_rank(shard));
    }
  }
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

std::string PsClient::waited_for(std::size_t first) const {
  const int shard = plan_.shard_of(first);
  std::string whom = fmt::format("server shard {} (rank {})", shard, job_.shard_rank(shard));
  const std::optional<ShardStatus>& status = status_[shard];
  if (status && status->step == step_)
    whom += ", which waits for " + describe_workers(job_, status->missing);
  return whom;
}

std::string PsClient::timeout_message(std::size_t first, std::size_t missing,
                                      std::size_t parts) const {
  const int shard = plan_.shard_of(first);
  std::string text = fmt::format(
      "ps-zmq: no reply from server shard {} (rank {}, {}) for partition {} at step {} within "
      "{:g} s ({} of {} partitions unanswered)",
      shard, job_.shard_rank(shard), endpoints_[shard], first, step_, timeout_s_, missing, parts);
  const std::optional<ShardStatus>& status = status_[shard];
  if (status && status->step == step_)
    return text + fmt::format("; it is still waiting for {} at step {}: {}",
                              describe_workers(job_, status->missing), step_,
                              alive_question(job_, status->missing));
  return text + fmt::format("; is rank {} (server shard {}) alive?", job_.shard_rank(shard), shard);
}

void PsClient::tell_shards_failed(const std::string& line) {
  const PsHeader header{
      .type = PsMessageType::failed, .step = step_, .worker = worker_, .count = line.size()};
  for (auto& socket : sockets_)
    send_message(socket, header, zmq::message_t(line.data(), line.size()));
}

std::runtime_error PsClient::bad_reply(int shard, const std::string& why) const {
  return std::runtime_error(
      fmt::format("ps-zmq: bad reply from server shard {} ({}) at step {}: {}", shard,
                  endpoints_[shard], step_, why));
}

void PsClient::check_receipt(const PsHeader& h, int shard, Elements buffer,
                             std::vector<bool>& acknowledged) const {
  if (!rotated_ || shared(shard))
    throw bad_reply(shard, "a receipt, but this worker pushes all at once");
  if (h.step != step_) throw bad_reply(shard, fmt::format("a receipt for step {}", h.step));
  if (h.total != buffer.count())
    throw bad_reply(
        shard, fmt::format("a receipt for a {}-element buffer, not {}", h.total, buffer.count()));
  if (std::string e = plan_.check(h, shard); !e.empty()) throw bad_reply(shard, e);
  if (acknowledged[h.partition])
    throw bad_reply(shard, fmt::format("partition {} was acknowledged twice", h.partition));
  acknowledged[h.partition] = true;
}

PsClient::Taken PsClient::take_message(std::vector<zmq::message_t>& frames, int shard,
                                       Elements buffer, const std::vector<bool>& received,
                                       std::vector<bool>& acknowledged) {
  if (frames.size() != 2)
    throw bad_reply(shard, fmt::format("a message of {} frames (expected a header and a payload)",
                                       frames.size()));
  const PsDecoded decoded = decode_header({frames[0].data<std::byte>(), frames[0].size()});
  if (!decoded.ok()) throw bad_reply(shard, decoded.error);
  const PsHeader& h = decoded.header;
  if (h.type == PsMessageType::failed && h.worker == worker_) {
    if (std::string e = check_payload_size(h, frames[1].size(), 1); !e.empty())
      throw bad_reply(shard, e);
    // The shard's line, which it sent every worker: each raises it alike.
    throw AgreedError(std::string(frames[1].data<char>(), frames[1].size()), 1);
  }
  if (h.type == PsMessageType::status && h.worker == worker_) {
    const std::uint32_t workers = job_.worker_ranks.empty()
                                      ? UINT32_MAX
                                      : static_cast<std::uint32_t>(job_.worker_ranks.size());
    PsStatusWorkers listed =
        decode_status_workers(h, {frames[1].data<std::byte>(), frames[1].size()}, workers);
    if (!listed.ok()) throw bad_reply(shard, listed.error);
    status_[shard] = ShardStatus{h.step, std::move(listed.workers)};
    return {};
  }
  if (h.type == PsMessageType::received && h.worker == worker_) {
    if (std::string e = check_payload_size(h, frames[1].size()); !e.empty())
      throw bad_reply(shard, e);
    check_receipt(h, shard, buffer, acknowledged);
    return {Taken::Kind::receipt, h.partition};
  }
  const bool shared = this->shared(shard);
  const PsMessageType expected = shared ? PsMessageType::reply_shared : PsMessageType::reply;
  if (h.type != expected) throw bad_reply(shard, fmt::format("a {} message", to_string(h.type)));
  if (h.step != step_) throw bad_reply(shard, fmt::format("it is for step {}", h.step));
  if (h.worker != worker_)
    throw bad_reply(shard, fmt::format("it is addressed to worker {}, not {}", h.worker, worker_));
  if (h.total != buffer.count())
    throw bad_reply(shard,
                    fmt::format("it is for a {}-element buffer, not {}", h.total, buffer.count()));
  if (std::string e = plan_.check(h, shard); !e.empty()) throw bad_reply(shard, e);
  if (shared && frames[1].size() != 0)
    throw bad_reply(shard,
                    fmt::format("a shared reply with a payload of {} bytes", frames[1].size()));
  if (std::string e = shared ? "" : check_payload_size(h, frames[1].size(), buffer.size);
      !e.empty())
    throw bad_reply(shard, e);
  if (received[h.partition])
    throw bad_reply(shard, fmt::format("partition {} came twice", h.partition));
  if (shared) shared_memory_acquired();
  const std::size_t bytes = h.count * buffer.size;
  if (bytes > 0 && !(shared && in_place(shard)))  // else the shard wrote it there
    std::memcpy(buffer.at(h.offset),
                shared ? shard_sums_[shard][h.step % 2].at(
                             plan_.packed_offset(h.total, h.partition) * buffer.size, bytes)
                       : frames[1].data(),
                bytes);
  traffic_.bytes_received += h.count * buffer.size;
  return {Taken::Kind::reply, h.partition};
}

}  // namespace gradsync
