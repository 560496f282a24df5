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
// Shared memory (--ps-shm auto): the workers that share the shard's host
// hand over their values and take the sums through shared segments, ZeroMQ
// carrying their headers only, while the shard's workers on other hosts push
// and pull payloads in the same step (ps_server_shared.cc).
//
// Compression (--compression fp16|bf16): pushes may carry 16-bit elements of
// the job's format (told apart from floats by the payload's size). Their sum
// is kept in fp32 (one copy, each push widened into it) and the reply is
// rounded back to 16 bits once, so the wire carries half the bytes and the
// sum loses no more than one rounding. A partition's pushes must all have
// the same element size.
//
// Nothing received is trusted. A worker index is bound to the first
// connection that spoke for it and was accepted (with CURVE, the ZAP handler
// has already tied each connection to one worker's key); after that only that
// connection speaks for it, byes included. A push is accepted once per
// (step, partition) and worker, for the plan's ranges, never for a step
// already answered, and a worker may not start a step while its previous one
// is unanswered. Legitimate workers keep at most one step in flight at a
// shard (none pushes step s+1 before every shard answered step s); the shard
// holds two at most, so a stray step costs at most one step's sums and never
// blocks the real one. Everything else is refused, counted by reason
// (rejections()), never stored, and the shard goes on serving.
//
// Blame: while sums are pending and no message was accepted for a quarter
// of options.timeout_s, the shard tells the workers that did push the
// stalled step whom it still waits for (a status message), and it tells the
// other ranks the same over the stall board (stall_marks.h); at options.timeout_s
// it fails naming those workers and their ranks if it is the rank that
// speaks for the stall, else a little later, when the speaker has normally
// ended the job. Refused messages are not progress: a flood cannot keep a
// stalled shard waiting forever.

#include "strategies/ps/ps_server.h"

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

#include "strategies/core/activity.h"
#include "strategies/core/agreed_error.h"
#include "strategies/core/compression.h"
#include "strategies/core/host_address.h"
#include "strategies/core/reduce_kernel.h"
#include "strategies/core/stall_marks.h"
#include "strategies/core/wait_clock.h"
#include "strategies/ps/ps_options.h"
#include "strategies/ps/ps_shared_order.h"
#include "strategies/ps/ps_socket.h"

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

// The endpoint to hand to the workers: the bound one, except that a wildcard
// (tcp://0.0.0.0:port, bound for --ps-bind 0.0.0.0 or *) becomes the address
// peers reach this host at (address_for_peers).
std::string advertised(const std::string& bound, bool job_spans_hosts) {
  constexpr std::string_view kWildcard = "tcp://0.0.0.0:";
  if (!bound.starts_with(kWildcard)) return bound;
  return "tcp://" + address_for_peers(job_spans_hosts) + ":" + bound.substr(kWildcard.size());
}

}  // namespace

PsServer::PsServer(int shard, int shards, int workers, const StrategyOptions& options,
                   const PsJob& job, const PsKeyPair& keys)
    : shard_(shard),
      workers_(workers),
      plan_{ps_partition_bytes(options.ps, job.spans_hosts), shards},
      timeout_s_(options.timeout_s),
      format_(options.compression),
      fault_stop_after_(options.faults.ps_stop_after),
      job_(job),
      mode_(options.ps.mode),
      rotated_(ps_rotated(options.ps)),
      staleness_(options.ps.staleness),
      sgd_{.lr = static_cast<float>(options.sgd.lr),
           .momentum = static_cast<float>(options.sgd.momentum),
           .weight_decay = static_cast<float>(options.sgd.weight_decay)},
      workers_state_(std::max(workers, 0)) {
  if (workers < 1 || shards < 1 || shard < 0 || shard >= shards)
    throw std::invalid_argument(fmt::format(
        "ps-zmq: server shard {} of {} for {} workers is impossible", shard, shards, workers));
  if (job.curve() && (job.worker_public_keys.size() != static_cast<std::size_t>(workers) ||
                      keys.secret_key.empty()))
    throw std::invalid_argument(fmt::format(
        "ps-zmq: server shard {} has {} worker keys for {} workers{}", shard,
        job.worker_public_keys.size(), workers, keys.secret_key.empty() ? " and no keypair" : ""));
  if (mode_ != PsMode::sync) stats_.steps.assign(workers, 0);
  // The ZAP handler must be bound before the socket that asks it.
  if (job.curve()) zap_ = std::make_unique<PsZapHandler>(context_, job.worker_public_keys);
  socket_ = zmq::socket_t(context_, zmq::socket_type::router);
  set_unbounded_queues(socket_);
  socket_.set(zmq::sockopt::linger, 0);
  if (job.curve()) set_curve_server(socket_, keys);
  handshakes_ = std::make_unique<HandshakeMonitor>(context_, socket_);
  // No legitimate frame is larger than a partition: ZeroMQ drops a peer that
  // sends one before buffering it. ZeroMQ checks the frame as it arrives,
  // which under CURVE is a MESSAGE command: the payload plus 33 bytes of
  // command name, nonce, MAC and flags (a margin of 256 here).
  const std::uint64_t largest =
      std::max<std::uint64_t>(plan_.max_partition_count() * sizeof(float), kPsHeaderBytes) +
      (job.curve() ? 256 : 0);
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
  endpoint_ = advertised(socket_.get(zmq::sockopt::last_endpoint), job.spans_hosts);
}

PsServer::~PsServer() {
  handshakes_.reset();
  socket_.close();
  zap_.reset();
  context_.close();
  std::error_code ignored;
  if (!ipc_dir_.empty()) std::filesystem::remove_all(ipc_dir_, ignored);
}

PsRejections PsServer::rejections() const {
  std::lock_guard lock(rejections_mutex_);
  return rejections_;
}

void PsServer::run(std::stop_token stop, Voice voice) {
  using Clock = std::chrono::steady_clock;
  using namespace std::chrono_literals;
  const auto timeout =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s_));
  // Short polls, so that a stop request is seen while the shard is idle, and
  // time this process did not run is told from time it waited (wait_clock.h).
  const auto slice = std::chrono::milliseconds(100);
  WaitClock since_progress("ps-zmq server shard", slice);
  // A stall passes the marks every bounded wait passes (stall_marks.h): the
  // shard tells the other ranks which workers it waits for, so that of all
  // the ranks that wait (this shard, the workers it answers), one speaks.
  StallMarks marks(timeout_s_, job_.shard_rank(shard_), voice);
  while (!stopped_ && !all_workers_gone() && !stop.stop_requested()) {
    zmq::pollitem_t items[3] = {{socket_.handle(), 0, ZMQ_POLLIN, 0},
                                {handshakes_->socket().handle(), 0, ZMQ_POLLIN, 0},
                                {zap_ ? zap_->socket().handle() : nullptr, 0, ZMQ_POLLIN, 0}};
    poll_for(items, zap_ ? 3 : 2, slice);
    const Clock::duration waited = since_progress.read();
    if (zap_) zap_->answer_pending();
    for (std::string& failure : handshakes_->take_failures())
      reject(PsRejectReason::handshake, std::move(failure));
    bool progress = false;
    while (!stopped_) {
      std::vector<zmq::message_t> frames = recv_message(socket_);
      if (frames.empty()) break;
      progress = handle(frames) || progress;
    }
    // Summing what arrived is work, not waiting: a batch of large sums may
    // take longer than a pause is told by, and is not one.
    since_progress.skip();
    if (progress || !pending() || !failure_.empty()) {  // a failed shard waits for nothing
      since_progress.restart();
      marks.reset();
      continue;
    }
    if (waited < marks.next()) continue;
    const Stall stalled = stall();
    std::vector<int> whom;
    for (std::uint32_t w : stalled.missing) whom.push_back(job_.worker_rank(static_cast<int>(w)));
    if (whom.empty()) {  // nobody to name: give up at the timeout
      if (waited > timeout) throw std::runtime_error(timeout_message());
      continue;
    }
    // The workers that did push hear it at the first mark, when the other
    // ranks do (a status message): by the second their warnings say whom
    // the shard waits for.
    if (!marks.stalled()) send_status();
    const auto blame = marks.pass(whom, [&](const Blame&) {
      return stall_line(job_.shard_rank(shard_), std::chrono::duration<double>(waited).count(),
                        "ps-zmq server shard", describe_workers(job_, stalled.missing));
    });
    if (blame) throw std::runtime_error(timeout_message());
  }
  if (!failure_.empty()) {
    // What was sent still goes out when the socket closes, within --timeout.
    socket_.set(zmq::sockopt::linger, static_cast<int>(std::min(timeout_s_ * 1000.0, 60000.0)));
    throw AgreedError(failure_, 1);
  }
}

bool PsServer::all_workers_gone() const {
  // Said bye, or (the shard failed) told the failure: both leave for good.
  return std::all_of(workers_state_.begin(), workers_state_.end(),
                     [](const Worker& w) { return w.said_bye || w.told_failed; });
}

bool PsServer::handle(std::vector<zmq::message_t>& frames) {
  // frames[0] is the sender's identity, put there by the ROUTER socket.
  if (frames.size() != 3) {
    reject(
        PsRejectReason::malformed,
        fmt::format("a message of {} frames (expected a header and a payload)", frames.size() - 1));
    return false;
  }
  const PsDecoded decoded = decode_header({frames[1].data<std::byte>(), frames[1].size()});
  if (!decoded.ok()) {
    reject(PsRejectReason::malformed, decoded.error);
    return false;
  }
  const PsHeader& header = decoded.header;
  const bool shared_push = header.type == PsMessageType::push_shared;
  const PsSharedPush shared =
      shared_push ? decode_shared_push({frames[2].data<std::byte>(), frames[2].size()},
                                       format_ != Compression::none)
                  : PsSharedPush{};
  const std::size_t element = shared_push ? shared.element_bytes : element_bytes(header, frames[2]);
  if (shared_push && element == 0) {
    reject(PsRejectReason::malformed,
           fmt::format("a shared push whose payload of {} bytes is not an element size and "
                       "an address",
                       frames[2].size()));
    return false;
  }
  if (std::string e = shared_push ? "" : check_payload_size(header, frames[2].size(), element);
      !e.empty()) {
    reject(PsRejectReason::malformed, std::move(e));
    return false;
  }
  if (auto refusal = refuse(frames[0], frames[1], header)) {
    reject(refusal->first, std::move(refusal->second));
    return false;
  }
  if (header.type == PsMessageType::failed || !failure_.empty()) {
    answer_failed(header, frames);
    return true;
  }
  // The test-only fault: the shard answers its first N pushes (sums or
  // gradients), and on the next one closes its socket, dropping whatever it
  // holds.
  if ((header.type == PsMessageType::push || shared_push ||
       header.type == PsMessageType::gradient) &&
      pushes_handled_++ == fault_stop_after_) {
    stop_answering();
    return false;
  }
  if (header.type == PsMessageType::push || shared_push) {
    if (std::string e = mixed_elements(header, element); !e.empty()) {
      reject(PsRejectReason::malformed, std::move(e));
      return false;
    }
    if (std::string e = shared_push ? in_place_mismatch(header, shared) : ""; !e.empty()) {
      reject(PsRejectReason::malformed, std::move(e));
      return false;
    }
    // A worker's segment holds its whole buffer before it pushes any of it;
    // the sums are then at most twice that, whatever the header says.
    if (shared_push && !in_place(header.worker) &&
        !worker_values_[header.worker].holds(header.total, element)) {
      reject(PsRejectReason::malformed,
             fmt::format("a shared push of a {}-element buffer, more than worker {}'s segment "
                         "holds",
                         header.total, header.worker));
      return false;
    }
    bind(header.worker, frames[0]);
    accumulate(header, frames[2], element, shared.address);
  } else if (header.type == PsMessageType::init) {
    bind(header.worker, frames[0]);
    take_init(header, frames[2]);
  } else if (header.type == PsMessageType::gradient) {
    bind(header.worker, frames[0]);
    take_gradient(header, frames[2]);
  } else if (header.type == PsMessageType::pull) {
    take_pull(header);
  } else {  // a bye
    bind(header.worker, frames[0]);
    workers_state_[header.worker].said_bye = true;
    if (mode_ != PsMode::sync) release_allowed();  // the slowest may have left
  }
  return true;
}

std::optional<std::pair<PsRejectReason, std::string>> PsServer::refuse(
    const zmq::message_t& identity, zmq::message_t& header_frame, const PsHeader& header) const {
  using R = PsRejectReason;
  if (header.type == PsMessageType::reply || header.type == PsMessageType::status ||
      header.type == PsMessageType::reply_shared || header.type == PsMessageType::received)
    return std::pair{R::wrong_direction, fmt::format("a {} sent to a server (workers send push "
                                                     "and bye)",
                                                     to_string(header.type))};
  if (header.worker >= static_cast<std::uint32_t>(workers_))
    return std::pair{R::unknown_worker, fmt::format("worker index {}, but there are {} workers",
                                                    header.worker, workers_)};
  if (job_.curve()) {
    const std::optional<std::uint32_t> who = authenticated_worker(header_frame);
    if (who != header.worker)
      return std::pair{R::wrong_identity,
                       who ? fmt::format("a connection authenticated as worker {} sent a {} as "
                                         "worker {}",
                                         *who, to_string(header.type), header.worker)
                           : fmt::format("an unauthenticated {} as worker {}",
                                         to_string(header.type), header.worker)};
  }
  if (const auto it = connections_.find(identity.to_string());
      it != connections_.end() && it->second != header.worker)
    return std::pair{R::wrong_identity,
                     fmt::format("a {} as worker {} from the connection of worker {}",
                                 to_string(header.type), header.worker, it->second)};
  const Worker& worker = workers_state_[header.worker];
  if (worker.bound && worker.identity != identity.to_string_view())
    return std::pair{R::wrong_identity,
                     fmt::format("a {} as worker {}, which another connection speaks for",
                                 to_string(header.type), header.worker)};
  if (worker.said_bye)
    return std::pair{R::after_bye, fmt::format("worker {} sent a {} after its bye", header.worker,
                                               to_string(header.type))};
  if (header.type == PsMessageType::push || header.type == PsMessageType::push_shared)
    return refuse_push(header);
  if (header.type == PsMessageType::pull) return refuse_pull(header);
  if (header.type != PsMessageType::bye && header.type != PsMessageType::failed)
    return refuse_owned(header);
  return std::nullopt;
}

std::optional<std::pair<PsRejectReason, std::string>> PsServer::refuse_worker_step(
    const PsHeader& header) const {
  using R = PsRejectReason;
  const Worker& worker = workers_state_[header.worker];
  const std::uint64_t step = header.step;
  if (worker.step && step < *worker.step)
    return std::pair{R::stale_step, fmt::format("worker {} pushed step {} after step {}",
                                                header.worker, step, *worker.step)};
  if (worker.step && step == *worker.step && worker.pushed.contains(header.partition))
    return std::pair{R::duplicate, fmt::format("worker {} pushed partition {} of step {} twice",
                                               header.worker, header.partition, step)};
  if (worker.step && step > *worker.step && worker.unanswered > 0)
    return std::pair{R::out_of_window,
                     fmt::format("worker {} pushed step {} before its step {} was answered",
                                 header.worker, step, *worker.step)};
  return std::nullopt;
}

std::optional<std::pair<PsRejectReason, std::string>> PsServer::refuse_push(
    const PsHeader& header) const {
  using R = PsRejectReason;
  if (mode_ != PsMode::sync)
    return std::pair{R::wrong_mode, fmt::format("a sum push from worker {} to a shard in --ps-mode "
                                                "{} (it takes init and gradient)",
                                                header.worker, to_string(mode_))};
  if ((header.type == PsMessageType::push_shared) != local(header.worker))
    return std::pair{
        R::malformed,
        fmt::format("a {} from worker {} to a shard that takes its data {}", to_string(header.type),
                    header.worker,
                    local(header.worker) ? "through shared memory" : "through ZeroMQ")};
  if (std::string e = plan_.check(header, shard_); !e.empty())
    return std::pair{R::plan_mismatch, std::move(e)};
  if (auto refusal = refuse_worker_step(header)) return refusal;
  const std::uint64_t step = header.step;
  if (newest_answered_ && step < *newest_answered_)
    return std::pair{R::stale_step, fmt::format("a push for step {}, but step {} was answered",
                                                step, *newest_answered_)};
  constexpr std::size_t kStepsInFlight = 2;
  const auto it = steps_.find(step);
  if (it == steps_.end() && steps_.size() >= kStepsInFlight)
    return std::pair{R::out_of_window,
                     fmt::format("a push for step {} while steps {} and {} are in flight", step,
                                 steps_.begin()->first, steps_.rbegin()->first)};
  if (it != steps_.end() && it->second.total != header.total)
    return std::pair{
        R::plan_mismatch,
        fmt::format("worker {} pushed partition {} of step {} for a {}-element "
                    "buffer, others for {}",
                    header.worker, header.partition, step, header.total, it->second.total)};
  return std::nullopt;
}

void PsServer::bind(std::uint32_t worker, zmq::message_t& identity) {
  Worker& state = workers_state_[worker];
  if (state.bound) return;
  state.identity = identity.to_string();
  state.bound = true;
  connections_.emplace(state.identity, worker);
}

std::size_t PsServer::element_bytes(const PsHeader& header, const zmq::message_t& payload) const {
  return format_ != Compression::none && header.count > 0 &&
                 payload.size() == header.count * sizeof(std::uint16_t)
             ? sizeof(std::uint16_t)
             : sizeof(float);
}

std::string PsServer::mixed_elements(const PsHeader& header, std::size_t element_bytes) const {
  const auto step = steps_.find(header.step);
  if (step == steps_.end()) return {};
  const auto partial = step->second.partitions.find(header.partition);
  if (partial == step->second.partitions.end() || partial->second.element_bytes == element_bytes)
    return {};
  return fmt::format(
      "a push of {}-byte elements to partition {} at step {}, summed in {}-byte ones",
      element_bytes, header.partition, header.step, partial->second.element_bytes);
}

void PsServer::accumulate(const PsHeader& header, zmq::message_t& payload, std::size_t element,
                          std::uint64_t address) {
  note_step(header);
  traffic_.bytes_received += header.count * element;

  Step& step = steps_[header.step];
  step.total = header.total;
  auto [it, fresh] = step.partitions.try_emplace(header.partition);
  Partial& partial = it->second;
  if (fresh) {
    partial.element_bytes = element;
    partial.pushed.assign(workers_, false);
    if (shared()) {
      partial.held.resize(workers_);
      partial.addresses.resize(workers_);
    }
    ++pending_partitions_;
  }
  if (shared()) {
    // a local worker's values stay in its segment, a remote one's push is
    // held, until every worker's are in
    if (!local(header.worker)) partial.held[header.worker] = float_aligned(std::move(payload));
    partial.addresses[header.worker] = address;
  } else if (element == sizeof(float) && fresh) {
    partial.sum = float_aligned(std::move(payload));
  } else if (element == sizeof(float)) {
    const zmq::message_t addend = float_aligned(std::move(payload));
    sum_into(partial.sum.data<float>(), addend.data<float>(), header.count);
  } else {
    if (fresh) partial.wide.assign(header.count, 0.0f);
    const zmq::message_t addend = float_aligned(std::move(payload));
    add_widened(partial.wide.data(), addend.data<std::uint16_t>(), header.count, format_);
  }
  partial.pushed[header.worker] = true;
  if (rotated_ && !local(header.worker)) send_receipt(header);
  if (++partial.arrived < workers_) return;

  if (shared()) {
    if (!answer_shared(header, partial)) return;  // the partition stays pending
  } else if (rotated_) {
    hold_for_pulls(header, partial);  // still pending until every worker pulled it
  } else {
    reply(header, partial);
  }
  step.partitions.erase(it);
  if (!rotated()) --pending_partitions_;  // else pending until every remote worker pulled it
  if (step.partitions.empty()) steps_.erase(header.step);
  newest_answered_ = std::max(newest_answered_.value_or(0), header.step);
  for (Worker& w : workers_state_) --w.unanswered;  // every worker pushed it
}

void PsServer::note_step(const PsHeader& header) {
  Worker& worker = workers_state_[header.worker];
  if (worker.step != header.step) {
    worker.step = header.step;
    worker.pushed.clear();
  }
  worker.pushed.insert(header.partition);
  ++worker.unanswered;
}

void PsServer::round_sum(const PsHeader& header, Partial& partial) {
  // A float sum, or a shared shard's (sum_shared rounded it already).
  if (partial.element_bytes == sizeof(float) || shared()) return;
  partial.sum.rebuild(header.count * partial.element_bytes);
  compress(partial.wide,
           {partial.sum.data<std::uint16_t>(), static_cast<std::size_t>(header.count)}, format_);
}

void PsServer::reply(const PsHeader& header, Partial& partial) {
  round_sum(header, partial);
  for (int w = 0; w < workers_; ++w)
    if (!local(static_cast<std::uint32_t>(w)))  // else answered by reply_shared
      send_sum(header, static_cast<std::uint32_t>(w), partial.sum, partial.element_bytes);
}

void PsServer::send_to(std::uint32_t worker, const PsHeader& header, zmq::message_t payload) {
  socket_.send(zmq::buffer(workers_state_[worker].identity), zmq::send_flags::sndmore);
  send_message(socket_, header, std::move(payload));
}

void PsServer::send_sum(const PsHeader& header, std::uint32_t worker, zmq::message_t& sum,
                        std::size_t element_bytes) {
  PsHeader out = header;
  out.type = PsMessageType::reply;
  out.worker = worker;
  zmq::message_t payload;
  payload.copy(sum);  // shares the content
  send_to(worker, out, std::move(payload));
  traffic_.bytes_sent += header.count * element_bytes;
}

void PsServer::reject(PsRejectReason reason, std::string why) {
  std::lock_guard lock(rejections_mutex_);
  rejections_.add(reason, std::move(why));
}

void PsServer::stop_answering() {
  socket_.close();
  stopped_ = true;
}

PsServer::Stall PsServer::stall() const {
  Stall out;
  if (steps_.empty()) return held_stall();
  const auto& [step, state] = *steps_.begin();  // the oldest step in flight
  out.step = step;
  std::vector<bool> missing(workers_, false);
  for (const auto& [partition, partial] : state.partitions) {
    out.partitions.push_back(partition);
    for (int w = 0; w < workers_; ++w) missing[w] = missing[w] || !partial.pushed[w];
  }
  for (int w = 0; w < workers_; ++w)
    if (missing[w]) out.missing.push_back(static_cast<std::uint32_t>(w));
  return out;
}

void PsServer::send_status() {
  const Stall stalled = stall();
  const std::vector<std::byte> listed = encode_status_workers(stalled.missing);
  PsHeader header{.type = PsMessageType::status,
                  .step = stalled.step,
                  .partition = stalled.partitions.front(),
                  .count = stalled.missing.size(),
                  .total = stalled.partitions.size()};
  for (int w = 0; w < workers_; ++w) {
    const Worker& worker = workers_state_[w];
    if (!worker.bound || worker.said_bye || worker.step != stalled.step) continue;
    if (std::find(stalled.missing.begin(), stalled.missing.end(), w) != stalled.missing.end())
      continue;
    header.worker = static_cast<std::uint32_t>(w);
    send_to(w, header, zmq::message_t(listed.data(), listed.size()));
  }
}

std::string PsServer::timeout_message() const {
  const Stall stalled = stall();
  const PsRejections refused = rejections();
  std::string text = fmt::format(
      "ps-zmq: server shard {} (rank {}, {}) accepted no message within {:g} s while waiting for "
      "{} to push partition{} {} at step {} ({} partition sum{} pending",
      shard_, job_.shard_rank(shard_), endpoint_, timeout_s_,
      describe_workers(job_, stalled.missing), stalled.partitions.size() == 1 ? "" : "s",
      list_text(stalled.partitions), stalled.step, pending_partitions(),
      pending_partitions() == 1 ? "" : "s");
  if (refused.total > 0)
    text += fmt::format("; {} message{} refused, the last: {}", refused.total,
                        refused.total == 1 ? " was" : "s were", refused.last);
  return text + "): " + alive_question(job_, stalled.missing);
}

}  // namespace gradsync
