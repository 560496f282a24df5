// ps-zmq over MPI (--ps-transport mpi). The protocol is ps-zmq's: the same
// partition plan (ps_plan.h, partitions of ps_partition_bytes), the shards
// on the same ranks (colocated: shard s in worker rank s; dedicated: ranks
// [0, S) only serve), every worker pushing each partition to its shard, the
// shard keeping the first push as the partition's sum and adding the others
// as they arrive, then sending the sum back to every worker. Headers are
// ps_wire's, checked against the plan as the ZeroMQ shards check them.
//
// What differs is the carrier, and that a colocated shard runs in its
// worker's own thread rather than one of its own (a simulated rank may not
// start threads that call MPI): each rank runs one event loop over its
// worker's and its shard's messages, waiting on whichever completes first.
//
// A ZeroMQ connection is one TCP stream: one worker's messages to one shard
// follow each other, as do one shard's replies to one worker. The loop keeps
// that order and that pace: one message in flight per connection and
// direction, the next posted when the previous completes. So a shard sums
// and answers its first partitions while later ones are still on the wire,
// and pushes (uplink) overlap replies (downlink), as over TCP. Posting every
// push at once would instead make the simulated flows share the links and
// all end together.
//
// Per step and connection: a header (step and total, from which the shard
// derives its partitions), then the shard's partitions in order; replies
// in the same order. MPI matches one source's messages of one tag in the
// order they were sent, so three constant tags suffice. A worker posts the
// receive of a partition's reply only once its push of that partition has
// completed (the two share the worker's buffer). Dedicated shards learn the
// end of the job from a bye header, as over ZeroMQ.

#include "strategies/ps/ps_mpi.h"

#include <fmt/core.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <exception>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "strategies/core/bounded_wait.h"
#include "strategies/core/engine.h"
#include "strategies/core/reduce_kernel.h"
#include "strategies/ps/ps_job.h"
#include "strategies/ps/ps_options.h"
#include "strategies/ps/ps_plan.h"
#include "strategies/ps/ps_wire.h"
#include "strategies/ps/ps_zmq.h"

namespace gradsync {
namespace {

constexpr int kHeaderTag = 1;
constexpr int kPushTag = 2;
constexpr int kReplyTag = 3;

// What a request in flight is. `peer` is a shard index (a worker's
// messages) or a worker index (a shard's); `index` a partition (a worker's
// push and reply) or a position among the shard's own partitions.
enum class Kind { header_sent, push_sent, reply_in, header_in, push_in, reply_sent };
struct Message {
  Kind kind;
  int peer = 0;
  std::size_t index = 0;
};

// The requests in flight and what each is: the loop's table.
class InFlight {
 public:
  void add(MPI_Request request, Message message, int rank) {
    const auto free = std::find(requests_.begin(), requests_.end(), MPI_REQUEST_NULL);
    const auto slot = static_cast<std::size_t>(free - requests_.begin());
    if (slot == requests_.size()) {
      requests_.push_back(request);
      messages_.push_back(message);
      ranks_.push_back(rank);
    } else {
      requests_[slot] = request;
      messages_[slot] = message;
      ranks_[slot] = rank;
    }
    ++live_;
  }
  bool empty() const { return live_ == 0; }
  // The messages completed by the next wait, in the order they were posted
  // into their slots.
  std::vector<Message> next(const Wait& wait) {
    std::vector<int> done = wait_some(requests_, ranks_, wait);
    std::sort(done.begin(), done.end());
    std::vector<Message> out;
    for (int i : done) out.push_back(messages_[i]);
    live_ -= done.size();
    return out;
  }

 private:
  std::vector<MPI_Request> requests_;
  std::vector<Message> messages_;
  std::vector<int> ranks_;  // whom each waits for, in the loop's communicator
  std::size_t live_ = 0;
};

// A send waiting for its connection.
struct Send {
  const void* data;
  std::size_t bytes;
  int tag;
  Message done;  // what its completion means
};

// One connection's sends, in order, one in flight at a time.
struct Outbox {
  std::deque<Send> waiting;
  bool busy = false;
};

class PsMpi final : public Strategy {
 public:
  PsMpi(const World& world, const StrategyOptions& options)
      : comm_(world.duplicate()),
        peers_(ps_role_peers(world, options.ps)),
        job_(ps_job_ranks(world.size(), options.ps, world.spans_hosts())),
        plan_{ps_partition_bytes(options.ps, world.spans_hosts()), options.ps.servers},
        wait_{"ps-zmq (mpi) step", comm_.comm(), options.timeout_s},
        shard_(world.rank() < options.ps.servers ? world.rank() : -1),
        worker_(worker_index(world.rank(), options)) {}

  // Dedicated shards wait for every worker's bye; a rank unwinding an
  // error says nothing (the job is ending).
  ~PsMpi() override {
    if (worker_ < 0 || !dedicated() || std::uncaught_exceptions() > 0) return;
    const PsHeaderBytes bye = encode_header(
        {.type = PsMessageType::bye, .step = step_, .worker = static_cast<std::uint32_t>(worker_)});
    for (int s = 0; s < plan_.shards; ++s)
      MPI_Send(bye.data(), static_cast<int>(bye.size()), MPI_BYTE, job_.shard_rank(s), kHeaderTag,
               comm_.comm());
  }

  std::string_view name() const override { return "ps-zmq"; }
  const World& peers() const override { return peers_; }
  bool is_worker() const override { return worker_ >= 0; }

  void allreduce(std::span<float> buffer) override {
    if (worker_ < 0) throw std::logic_error("ps-zmq: allreduce on a dedicated server rank");
    // One worker: the sum is its own buffer, and nothing moves.
    if (workers() == 1 || buffer.empty()) return;
    run_step(buffer);
  }

  // As over ZeroMQ: an allreduce in which every worker but the root pushes
  // -0.0, which leaves the root's values bit for bit.
  void broadcast(std::span<float> buffer, int root) override {
    broadcast_by_sum(*this, buffer, root);
  }

  void serve() override {
    if (worker_ >= 0) throw std::logic_error("ps-zmq: serve() is for dedicated server ranks only");
    while (run_step({})) {
    }
  }

  std::string account() const override {
    if (shard_ < 0) return {};
    return nlohmann::json{
        {"shared_memory", false}, {"transport", "mpi"}, {"partition_bytes", plan_.partition_bytes}}
        .dump();
  }

 private:
  static int worker_index(int rank, const StrategyOptions& options) {
    if (options.ps.placement == PsPlacement::colocated) return rank;
    return rank < options.ps.servers ? -1 : rank - options.ps.servers;
  }
  bool dedicated() const { return job_.worker_ranks.front() != 0; }
  int workers() const { return static_cast<int>(job_.worker_ranks.size()); }

  // One step: this rank's worker pushes `buffer` (empty on a dedicated
  // shard) and takes back the sums; its shard, if any, serves every worker.
  // Returns false when a dedicated shard heard every worker's bye instead.
  bool run_step(std::span<float> buffer) {
    start_worker(buffer);
    if (shard_ >= 0) start_shard(buffer.size());
    while (!flight_.empty())
      for (const Message& message : flight_.next(wait_)) on_done(message);
    ++step_;
    return byes_ == 0;  // on_header saw to it that a bye is every worker's
  }

  // --- the worker's side ---------------------------------------------------

  void start_worker(std::span<float> buffer) {
    buffer_ = buffer;
    if (buffer.empty()) return;
    parts_ = plan_.partitions(buffer.size());
    headers_out_.assign(plan_.shards, {});
    pushes_.assign(plan_.shards, {});
    for (int s = 0; s < plan_.shards; ++s) {
      headers_out_[s] = encode_header({.type = PsMessageType::push,
                                       .step = step_,
                                       .worker = static_cast<std::uint32_t>(worker_),
                                       .total = buffer.size()});
      pushes_[s].waiting.push_back(
          {headers_out_[s].data(), kPsHeaderBytes, kHeaderTag, {Kind::header_sent, s, 0}});
    }
    for (std::size_t p = 0; p < parts_.size(); ++p) {
      const int s = plan_.shard_of(p);
      pushes_[s].waiting.push_back({buffer.data() + parts_[p].offset,
                                    parts_[p].count * sizeof(float),
                                    kPushTag,
                                    {Kind::push_sent, s, p}});
    }
    for (int s = 0; s < plan_.shards; ++s) send_next(pushes_[s], job_.shard_rank(s));
  }

  void on_push_sent(const Message& m) {
    const Range part = parts_[m.index];
    traffic_.bytes_sent += part.count * sizeof(float);
    MPI_Request request = MPI_REQUEST_NULL;
    check_mpi(MPI_Irecv(buffer_.data() + part.offset, static_cast<int>(part.count), MPI_FLOAT,
                        job_.shard_rank(m.peer), kReplyTag, comm_.comm(), &request),
              "ps-zmq (mpi) pull");
    flight_.add(request, {Kind::reply_in, m.peer, m.index}, job_.shard_rank(m.peer));
    send_after(pushes_[m.peer], job_.shard_rank(m.peer));
  }

  // --- the shard's side ----------------------------------------------------

  // Posts a header receive from every worker; `total` is the colocated
  // worker's own count (0 on a dedicated shard, which learns it from them).
  void start_shard(std::size_t total) {
    planned_ = false;
    byes_ = 0;
    headers_in_.assign(workers(), {});
    next_from_.assign(workers(), 0);
    replies_.assign(workers(), {});
    for (int w = 0; w < workers(); ++w) {
      MPI_Request request = MPI_REQUEST_NULL;
      check_mpi(MPI_Irecv(headers_in_[w].data(), static_cast<int>(kPsHeaderBytes), MPI_BYTE,
                          job_.worker_rank(w), kHeaderTag, comm_.comm(), &request),
                "ps-zmq (mpi) header");
      flight_.add(request, {Kind::header_in, w, 0}, job_.worker_rank(w));
    }
    if (total > 0) plan_shard(total);
  }

  // A worker's header: a bye, or the step's push whose total sets (or must
  // match) the plan; then the receive of its first partition.
  void on_header(const Message& m) {
    const PsDecoded decoded = decode_header(headers_in_[m.peer]);
    if (!decoded.ok()) fail(m.peer, decoded.error);
    const PsHeader& h = decoded.header;
    if (h.worker != static_cast<std::uint32_t>(m.peer))
      fail(m.peer, fmt::format("its header says it is worker {}", h.worker));
    if (h.type == PsMessageType::bye) ++byes_;
    // A job ends for every worker at once: a bye beside a push would leave
    // the step's partitions short of that worker's values forever.
    if (byes_ > 0 && h.type == PsMessageType::bye && planned_)
      fail(m.peer, fmt::format("said bye while others pushed step {}", step_));
    if (byes_ > 0 && h.type != PsMessageType::bye)
      fail(m.peer,
           fmt::format("pushed step {} after {} of {} workers said bye", step_, byes_, workers()));
    if (h.type == PsMessageType::bye) return;
    if (h.type != PsMessageType::push || h.step != step_)
      fail(m.peer, fmt::format("sent a {} of step {} while the shard is at step {}",
                               to_string(h.type), h.step, step_));
    if (!planned_) plan_shard(h.total);
    if (h.total != total_)
      fail(m.peer,
           fmt::format("pushed a buffer of {} elements; the step's is {}", h.total, total_));
    post_push_receive(m.peer);
  }

  // The shard's partitions of a buffer of `total` elements and the space to
  // sum them: one arriving partition per worker, and the packed sums.
  void plan_shard(std::uint64_t total) {
    total_ = total;
    planned_ = true;
    mine_.clear();
    for (std::size_t p = static_cast<std::size_t>(shard_); p < plan_.partition_count(total);
         p += static_cast<std::size_t>(plan_.shards))
      mine_.push_back(p);
    arrived_.assign(mine_.size(), 0);
    next_reply_ = 0;
    const std::size_t slot_bytes = plan_.max_partition_count() * sizeof(float);
    if (slots_.size() < slot_bytes * workers()) slots_ = EngineBuffer(slot_bytes * workers());
    const std::size_t sum_bytes = plan_.packed_elements(total, shard_) * sizeof(float);
    if (sums_.size() < sum_bytes) sums_ = EngineBuffer(sum_bytes);
  }

  float* slot(int worker) const {
    return reinterpret_cast<float*>(slots_.data()) + worker * plan_.max_partition_count();
  }
  float* sum_of(std::size_t position) const {
    return reinterpret_cast<float*>(sums_.data()) + plan_.packed_offset(total_, mine_[position]);
  }

  void post_push_receive(int worker) {
    const std::size_t k = next_from_[worker];
    if (k >= mine_.size()) return;
    const Range part = plan_.partition(total_, mine_[k]);
    MPI_Request request = MPI_REQUEST_NULL;
    check_mpi(MPI_Irecv(slot(worker), static_cast<int>(part.count), MPI_FLOAT,
                        job_.worker_rank(worker), kPushTag, comm_.comm(), &request),
              "ps-zmq (mpi) push");
    flight_.add(request, {Kind::push_in, worker, k}, job_.worker_rank(worker));
  }

  // A worker's values of the shard's k-th partition: the first is the sum,
  // the others are added to it; once all are in, in partition order, the
  // sums go back to every worker.
  void on_push_in(const Message& m) {
    const std::size_t k = m.index;
    const Range part = plan_.partition(total_, mine_[k]);
    if (dedicated()) traffic_.bytes_received += part.count * sizeof(float);
    if (arrived_[k]++ == 0) {
      if (!slots_.shared()) std::memcpy(sum_of(k), slot(m.peer), part.count * sizeof(float));
    } else {
      sum_into(sum_of(k), slot(m.peer), part.count);
    }
    ++next_from_[m.peer];
    post_push_receive(m.peer);
    for (; next_reply_ < mine_.size() && arrived_[next_reply_] == workers(); ++next_reply_) {
      const std::size_t count = plan_.partition(total_, mine_[next_reply_]).count;
      for (int w = 0; w < workers(); ++w) {
        replies_[w].waiting.push_back({sum_of(next_reply_),
                                       count * sizeof(float),
                                       kReplyTag,
                                       {Kind::reply_sent, w, next_reply_}});
        send_next(replies_[w], job_.worker_rank(w));
      }
    }
  }

  // --- both ---------------------------------------------------------------

  void send_next(Outbox& outbox, int rank) {
    if (outbox.busy || outbox.waiting.empty()) return;
    const Send send = outbox.waiting.front();
    outbox.waiting.pop_front();
    MPI_Request request = MPI_REQUEST_NULL;
    check_mpi(MPI_Isend(send.data, static_cast<int>(send.bytes), MPI_BYTE, rank, send.tag,
                        comm_.comm(), &request),
              "ps-zmq (mpi) send");
    flight_.add(request, send.done, rank);
    outbox.busy = true;
  }

  // The connection's message in flight completed: the next one goes.
  void send_after(Outbox& outbox, int rank) {
    outbox.busy = false;
    send_next(outbox, rank);
  }

  void on_done(const Message& m) {
    switch (m.kind) {
      case Kind::header_sent:
        send_after(pushes_[m.peer], job_.shard_rank(m.peer));
        break;
      case Kind::push_sent:
        on_push_sent(m);
        break;
      case Kind::reply_in:
        traffic_.bytes_received += parts_[m.index].count * sizeof(float);
        break;
      case Kind::header_in:
        on_header(m);
        break;
      case Kind::push_in:
        on_push_in(m);
        break;
      case Kind::reply_sent:
        if (dedicated())
          traffic_.bytes_sent += plan_.partition(total_, mine_[m.index]).count * sizeof(float);
        send_after(replies_[m.peer], job_.worker_rank(m.peer));
        break;
    }
  }

  [[noreturn]] void fail(int worker, const std::string& what) const {
    throw std::runtime_error(fmt::format("ps-zmq shard {} (rank {}): worker {} (rank {}) {}",
                                         shard_, job_.shard_rank(shard_), worker,
                                         job_.worker_rank(worker), what));
  }

  World comm_;   // every rank: the loop's messages
  World peers_;  // the ranks of this rank's role
  PsJob job_;
  PsPlan plan_;
  Wait wait_;
  int shard_;   // this rank's shard, or -1
  int worker_;  // this rank's worker index, or -1 (a dedicated shard)
  std::uint64_t step_ = 0;
  InFlight flight_;

  // The worker's step.
  std::span<float> buffer_;
  std::vector<Range> parts_;
  std::vector<PsHeaderBytes> headers_out_;  // per shard
  std::vector<Outbox> pushes_;              // per shard

  // The shard's step.
  std::uint64_t total_ = 0;                // the step's element count
  bool planned_ = false;                   // total_ and mine_ are this step's
  std::vector<PsHeaderBytes> headers_in_;  // per worker
  std::vector<std::size_t> mine_;          // its partitions
  std::vector<int> arrived_;               // pushes in, per partition of mine_
  std::vector<std::size_t> next_from_;     // per worker: the position it pushes next
  std::size_t next_reply_ = 0;             // the first of mine_ not yet answered
  std::vector<Outbox> replies_;            // per worker
  int byes_ = 0;
  EngineBuffer slots_;  // one arriving partition per worker
  EngineBuffer sums_;   // the shard's partitions, packed
};

}  // namespace

std::unique_ptr<Strategy> make_ps_mpi(const World& world, const StrategyOptions& options) {
  return std::make_unique<PsMpi>(world, options);
}

}  // namespace gradsync
