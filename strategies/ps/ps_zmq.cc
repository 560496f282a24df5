// `ps-zmq`: a synchronous, sharded parameter server over ZeroMQ, in the
// manner of ps-lite. S server shards each own a ROUTER socket (ps_server.cc);
// every worker holds one DEALER per shard (ps_client.cc). An allreduce cuts
// the buffer into key-range partitions (ps_plan.h), pushes partition i to
// shard i % S, and pulls back each partition's sum over all workers.
//
// Modes (--ps-mode): in `sync` (the default) the shards sum; in `async` and
// `ssp` they own the parameters and apply each worker's gradient as it comes
// (ps_server_async.cc), and the trainer drives the strategy as a
// ParameterOwner (parameter_owner.h) instead of through allreduce.
//
// Placement: `colocated` (default) runs shard s as a thread inside worker
// rank s, and every rank is a worker; `dedicated` makes ranks [0, S) servers
// only (they call serve()) and the rest workers. Bootstrap is MPI: with
// CURVE on (--ps-curve; ps_curve.h), every worker and every shard makes a
// keypair for this run and one allgather shares the public keys; then shards
// bind, and a second allgather shares the endpoints. The server threads
// never call MPI.
//
// Shared memory (--ps-shm auto or copy, --ps-mode sync): locality is per
// (shard, worker) pair. A worker on a shard's host hands that shard its
// values and takes its sums through memory (ps_server_shared.cc says how):
// where they lie, read and written by the shard (auto, where the kernel
// allows: ps_cross_memory.h), or through shared segments
// (ps_shared_segment.h), its socket to the shard carrying headers only; a
// worker on another host pushes and pulls payloads over ZeroMQ, in the same
// step. So with several ranks per node across nodes every shard serves its
// own node's workers through memory. The segments' names and the workers'
// cross-memory offers go round in one allgather, every rank opens its
// peers' (a shard tries each offer), a second allgather says all did and
// which workers each shard reads in place, and the names are removed:
// nothing is left in /dev/shm, however the job ends.
//
// Cost of one allreduce of N floats with W workers: each worker sends and
// receives N floats (the ring's 2(W-1)/W N, about the same), but each shard
// receives and sends W N / S floats, so with few shards the servers' links
// are the bottleneck (incast); that is what more shards, or dedicated ones on
// their own hosts, relieve. Latency is two hops: push, then reply.

#include "strategies/ps/ps_zmq.h"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <future>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "strategies/core/agreed_error.h"
#include "strategies/core/decorator.h"
#include "strategies/core/engine.h"
#include "strategies/core/parameter_owner.h"
#include "strategies/core/strategy_options.h"
#include "strategies/core/thread_start.h"
#include "strategies/ps/ps_async_json.h"
#include "strategies/ps/ps_client.h"
#include "strategies/ps/ps_cross_memory.h"
#include "strategies/ps/ps_curve.h"
#include "strategies/ps/ps_mpi.h"
#include "strategies/ps/ps_options.h"
#include "strategies/ps/ps_rejections_json.h"
#include "strategies/ps/ps_server.h"
#include "strategies/ps/ps_socket.h"

namespace gradsync {
namespace {

// Marks an endpoint slot of the exchange whose shard failed to start.
constexpr std::string_view kFailed = "error: ";

// The checks that need the hosts, not only the job's size (ps_options.cc
// has those); every rank alike, before any collective.
void check_hosts(const World& world, const PsZmqOptions& ps) {
  const std::size_t hosts = world.hosts().size();
  if (hosts > 1 && ps.transport == "ipc")
    throw std::invalid_argument(fmt::format(
        "ps-zmq --ps-transport ipc needs every rank on one host, but the job spans {} hosts; "
        "use tcp",
        hosts));
  if (hosts > 1 && ps.transport == "tcp" &&
      (ps.bind_host.starts_with("127.") || ps.bind_host == "localhost" || ps.bind_host == "lo"))
    throw std::invalid_argument(fmt::format(
        "ps-zmq servers bind to {} (--ps-bind), which the other hosts of this {}-host job "
        "cannot reach",
        ps.bind_host, hosts));
}

// Checks the hosts (make_strategy checked the rest), then forms the group of
// ranks that share this rank's role.
World make_peers(const World& world, const StrategyOptions& options) {
  check_hosts(world, options.ps);
  return ps_role_peers(world, options.ps);
}

// The options a shard is built with: --ps-bind's "auto" made concrete for
// this job (this host's address when the job spans hosts).
StrategyOptions with_bind_host(StrategyOptions options, const World& world) {
  options.ps.bind_host = ps_bind_host(options.ps, world.spans_hosts());
  return options;
}

// In the key exchange, the key of a role the rank does not have; in the
// exchange of shared segments, a segment the rank does not make.
constexpr std::string_view kNoKey = "-";

// Which workers take which shard's data through shared memory, by shard
// then worker index: --ps-shm auto or copy, sums (--ps-mode sync), and the worker on
// the shard's host. Every rank computes the same table.
using Locality = std::vector<std::vector<bool>>;
Locality shared_pairs(const World& world, const StrategyOptions& options, const PsJob& job) {
  Locality local(options.ps.servers, std::vector<bool>(job.worker_ranks.size(), false));
  if (options.ps.shm == "off" || options.ps.mode != PsMode::sync) return local;
  const std::vector<std::string>& hosts = world.hostnames();
  for (int s = 0; s < options.ps.servers; ++s)
    for (std::size_t w = 0; w < job.worker_ranks.size(); ++w)
      local[s][w] = hosts[job.worker_ranks[w]] == hosts[job.shard_rank(s)];
  return local;
}

bool any_local(const std::vector<bool>& workers) {
  return std::find(workers.begin(), workers.end(), true) != workers.end();
}

// The job's shards that run on this rank's host: they share its cores.
int shards_on_host(const World& world, const PsJob& job, int shards) {
  const std::vector<std::string>& hosts = world.hostnames();
  int here = 0;
  for (int s = 0; s < shards; ++s) here += hosts[job.shard_rank(s)] == hosts[world.rank()] ? 1 : 0;
  return here;
}

class PsZmq final : public Strategy, public ParameterOwner {
 public:
  PsZmq(const World& world, const StrategyOptions& options)
      : peers_(make_peers(world, options)), timeout_s_(options.timeout_s), mode_(options.ps.mode) {
    const int shards = options.ps.servers;
    const bool dedicated = options.ps.placement == PsPlacement::dedicated;
    const bool has_shard = world.rank() < shards;
    const bool is_worker = !(dedicated && has_shard);
    const int workers = dedicated ? world.size() - shards : world.size();
    PsJob job = ps_job_ranks(world.size(), options.ps, world.spans_hosts());
    PsKeyPair worker_keys, shard_keys;
    if (ps_curve_enabled(options.ps, world.spans_hosts()))
      exchange_keys(world, is_worker, has_shard, job, worker_keys, shard_keys);

    // Every rank takes part in the exchange even when its shard failed to
    // bind, so that all ranks fail together instead of some waiting forever.
    std::string mine;
    if (has_shard) {
      try {
        server_ = std::make_unique<PsServer>(world.rank(), shards, workers,
                                             with_bind_host(options, world), job, shard_keys);
        mine = server_->endpoint();
      } catch (const std::exception& e) {
        mine = std::string(kFailed) + e.what();
      }
    }
    std::vector<std::string> endpoints = world.allgather(mine);
    endpoints.resize(shards);
    // Every rank saw every shard's outcome: each raises the same line, which
    // is printed once.
    for (int s = 0; s < shards; ++s)
      if (endpoints[s].starts_with(kFailed))
        throw AgreedError(fmt::format("ps-zmq: server shard {} (rank {}) did not start: {}", s, s,
                                      endpoints[s].substr(kFailed.size())),
                          1);

    if (is_worker)
      client_ = std::make_unique<PsClient>(endpoints, peers_.rank(), options, job, worker_keys);
    const Locality local = shared_pairs(world, options, job);
    if (std::any_of(local.begin(), local.end(), any_local))
      share_memory(world, job, local,
                   ps_sum_threads(options.ps, shards_on_host(world, job, shards)),
                   options.ps.shm == "auto");
    if (!is_worker) return;  // a server only; serve() does the work
    if (server_) {
      std::packaged_task<void(std::stop_token)> task(
          [server = server_.get()](std::stop_token stop) { server->run(stop, Voice::silent); });
      server_done_ = task.get_future();
      server_thread_ = start_thread(fmt::format("ps-zmq server shard {}", world.rank()),
                                    [&] { return std::jthread(std::move(task)); });
    }
  }

  // Says bye to every shard, then (colocated) waits for this rank's shard to
  // hear the other workers' byes, at most timeout_s, before stopping it.
  // While an error unwinds (this rank failed), the shard is stopped at once:
  // the job is ending, and waiting would only delay the error's line. Not
  // while the shard itself tells a failure (fail_workers): a worker that has
  // not heard it yet would wait for the shard and time out with a second
  // line, so the shard goes on until each worker was told, as when well.
  ~PsZmq() override {
    client_.reset();
    if (!server_thread_.joinable()) return;
    const bool at_once = std::uncaught_exceptions() > 0 && !server_->failing();
    const auto timeout = std::chrono::duration<double>(at_once ? 0 : timeout_s_);
    if (server_done_.valid() && server_done_.wait_for(timeout) != std::future_status::ready)
      server_thread_.request_stop();
    server_thread_.join();
    if (!server_done_.valid()) return;  // its outcome was already reported
    try {
      server_done_.get();
    } catch (const AgreedError&) {
      // The shard told its workers (fail_workers): the job's line is theirs.
    } catch (const std::exception& e) {
      // A destructor must not throw; the job's own error line, if any, is
      // the client's, so this one is a warning.
      std::fprintf(stderr, "gradsync: warning: rank %d: %s\n", world_rank(), e.what());
    }
  }

  std::string_view name() const override { return "ps-zmq"; }

  void allreduce(std::span<float> buffer) override {
    if (!client_) throw std::logic_error("ps-zmq: allreduce on a dedicated server rank");
    if (mode_ != PsMode::sync)
      throw std::invalid_argument(fmt::format(
          "ps-zmq --ps-mode {}: the shards own the parameters and apply gradients, they do not "
          "sum (train only; allreduce is --ps-mode sync's)",
          to_string(mode_)));
    // One worker: the sum is its own buffer, and nothing moves (as with
    // every other strategy at one rank).
    if (peers_.size() == 1) return;
    rethrow_server_failure();
    client_->allreduce(buffer);
    traffic_ = client_->traffic();
  }

  // Workers push and pull 16-bit elements; the shards sum them in fp32.
  void allreduce_compressed(std::span<std::uint16_t> buffer, Compression format) override {
    if (!client_) throw std::logic_error("ps-zmq: allreduce on a dedicated server rank");
    if (peers_.size() == 1) return;  // one worker: the sum is its own buffer
    rethrow_server_failure();
    client_->allreduce(buffer, format);
    traffic_ = client_->traffic();
  }

  void broadcast(std::span<float> buffer, int root) override {
    broadcast_by_sum(*this, buffer, root);
  }

  const World& peers() const override { return peers_; }
  // This rank's shard's refusals and, in async and ssp modes, what it
  // applied (ps_account.h merges the ranks' parts); empty without a shard.
  std::string account() const override {
    if (!server_) return {};
    nlohmann::json mine = {{"rejected", to_json(server_->rejections())},
                           {"shared_memory", server_->shared()},
                           {"shard", server_->shard()},
                           {"workers", server_->workers()},
                           {"shared_workers", server_->shared_workers()},
                           {"in_place_workers", server_->in_place_workers()},
                           {"partition_bytes", server_->partition_bytes()},
                           {"rotated", server_->rotated()},
                           {"sum_threads", server_->sum_threads()}};
    if (mode_ != PsMode::sync) mine["async"] = to_json(server_->async_stats());
    return mine.dump();
  }
  bool owns_parameters() const { return mode_ != PsMode::sync && client_ != nullptr; }

  void init_parameters(std::span<float> parameters) override {
    rethrow_server_failure();
    client_->init(parameters);
  }
  void push_gradient(std::span<float> buffer) override {
    rethrow_server_failure();
    client_->push_gradient(buffer);
    traffic_ = client_->traffic();
  }
  std::uint64_t gradient_steps() const override { return client_->gradient_steps(); }
  bool is_worker() const override { return client_ != nullptr; }

  void serve() override {
    if (client_ || !server_)
      throw std::logic_error("ps-zmq: serve() is for dedicated server ranks only");
    server_->run();
    traffic_ = server_->traffic();
  }

 private:
  // Makes this rank's keypairs (a worker's, a shard's) and shares the public
  // keys over the world as "<worker key> <shard key>", so that shards admit
  // the job's workers only and workers talk to the job's shards only. Fails
  // on every rank alike.
  static void exchange_keys(const World& world, bool is_worker, bool has_shard, PsJob& job,
                            PsKeyPair& worker_keys, PsKeyPair& shard_keys) {
    std::string mine;
    try {
      if (is_worker) worker_keys = make_ps_keypair();
      if (has_shard) shard_keys = make_ps_keypair();
      mine = fmt::format("{} {}", is_worker ? worker_keys.public_key : std::string(kNoKey),
                         has_shard ? shard_keys.public_key : std::string(kNoKey));
    } catch (const std::exception& e) {
      mine = std::string(kFailed) + e.what();
    }
    const std::vector<std::string> keys = world.allgather(mine);
    for (int r = 0; r < world.size(); ++r) {
      if (keys[r].starts_with(kFailed))
        throw std::runtime_error(fmt::format("ps-zmq: rank {} has no CURVE keys: {}", r,
                                             keys[r].substr(kFailed.size())));
      const std::size_t space = keys[r].find(' ');
      const std::string worker_key = keys[r].substr(0, space);
      const std::string shard_key = keys[r].substr(space + 1);
      if (worker_key != kNoKey) job.worker_public_keys.push_back(worker_key);
      if (shard_key != kNoKey) job.shard_public_keys.push_back(shard_key);
    }
  }

  // The shared segments, `local` saying which workers take which shard's
  // data through them: each rank makes its own (a worker's values, the two
  // sums of a shard with some local worker, which it adds up on
  // `sum_threads` threads), all exchange names as "<values> <sums0> <sums1>
  // <offer>" (a worker's cross-memory offer when `in_place`), each opens its
  // peers', and once every rank has (or one failed, and all fail alike),
  // saying which workers its shard reads in place, the names are removed.
  void share_memory(const World& world, const PsJob& job, const Locality& local, int sum_threads,
                    bool in_place) {
    const bool shared_shard = server_ && any_local(local[world.rank()]);
    std::string mine;
    try {
      const std::string values = client_ ? client_->share() : std::string(kNoKey);
      std::array<std::string, 2> sums{std::string(kNoKey), std::string(kNoKey)};
      if (shared_shard) sums = server_->share(sum_threads);
      const std::string offer = client_ && in_place ? CrossMemory::offer() : std::string(kNoKey);
      mine = fmt::format("{} {} {} {}", values, sums[0], sums[1], offer);
    } catch (const std::exception& e) {
      mine = std::string(kFailed) + e.what();
    }
    const std::vector<std::string> names = world.allgather(mine);
    // The first rank that failed and why, as every rank sees it: each
    // raises the same line (printed once), after the same two exchanges.
    int failed_rank = first_failed(names);
    std::string opened;
    if (failed_rank < 0) try {
        opened = attach_peers(job, local, shared_shard, names, world.rank());
      } catch (const std::exception& e) {
        opened = std::string(kFailed) + e.what();
      }
    const std::vector<std::string> outcomes = world.allgather(opened);
    if (client_) client_->unlink_shared();
    if (shared_shard) server_->unlink_shared();
    const std::vector<std::string>& failures = failed_rank >= 0 ? names : outcomes;
    if (failed_rank < 0) failed_rank = first_failed(outcomes);
    if (failed_rank >= 0)
      throw AgreedError(fmt::format("ps-zmq: rank {} could not share memory with its peers: {}",
                                    failed_rank, failures[failed_rank].substr(kFailed.size())),
                        1);
    if (client_) client_->read_in_place(read_in_place_by(job, local, outcomes));
  }

  static int first_failed(const std::vector<std::string>& outcomes) {
    for (std::size_t r = 0; r < outcomes.size(); ++r)
      if (outcomes[r].starts_with(kFailed)) return static_cast<int>(r);
    return -1;
  }

  // Opens the peers' segments named in `names` ("<values> <sums0> <sums1>
  // <offer>" by rank) that `local` pairs this rank's shard and worker with:
  // the shard the values of its local workers (and tries their offers), the
  // worker the sums of the shards on its host. Returns the workers this
  // rank's shard reads in place, as "w0 w1 ...".
  std::string attach_peers(const PsJob& job, const Locality& local, bool shared_shard,
                           const std::vector<std::string>& names, int shard) {
    std::vector<std::vector<std::string>> words;
    for (const std::string& entry : names) {
      std::vector<std::string> parts(4);
      std::istringstream(entry) >> parts[0] >> parts[1] >> parts[2] >> parts[3];
      words.push_back(std::move(parts));
    }
    std::string read_in_place;
    if (shared_shard) {
      std::vector<std::string> values, offers;  // empty for a worker on another host
      for (std::size_t w = 0; w < job.worker_ranks.size(); ++w) {
        const std::vector<std::string>& worker = words[job.worker_ranks[w]];
        values.push_back(local[shard][w] ? worker[0] : std::string());
        offers.push_back(local[shard][w] && worker[3] != kNoKey ? worker[3] : std::string());
      }
      server_->attach_workers(values, offers);
      for (std::uint32_t w : server_->in_place_workers()) read_in_place += fmt::format("{} ", w);
    }
    if (client_) {
      const int me = peers_.rank();  // this worker's index
      std::vector<std::vector<std::string>> sums(local.size());
      for (std::size_t s = 0; s < local.size(); ++s)
        if (local[s][me])
          sums[s] = {words[job.shard_rank(static_cast<int>(s))][1],
                     words[job.shard_rank(static_cast<int>(s))][2]};
      client_->attach_shards(sums);
    }
    return read_in_place;
  }

  // Which shards read this worker in place, from each shard rank's outcome
  // of attach_peers().
  std::vector<bool> read_in_place_by(const PsJob& job, const Locality& local,
                                     const std::vector<std::string>& outcomes) const {
    const std::uint32_t me = static_cast<std::uint32_t>(peers_.rank());
    std::vector<bool> by_shard(local.size(), false);
    for (std::size_t s = 0; s < local.size(); ++s) {
      if (!local[s][me]) continue;
      std::istringstream words(outcomes[job.shard_rank(static_cast<int>(s))]);
      for (std::uint32_t w = 0; words >> w;) by_shard[s] = by_shard[s] || w == me;
    }
    return by_shard;
  }

  // A colocated shard that already failed (it timed out waiting for a worker)
  // says why, rather than leaving the workers to time out on it too.
  void rethrow_server_failure() {
    if (server_done_.valid() &&
        server_done_.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
      server_done_.get();
  }

  World peers_;
  double timeout_s_;
  PsMode mode_;
  std::unique_ptr<PsServer> server_;  // this rank's shard, if it hosts one
  std::unique_ptr<PsClient> client_;  // null on dedicated server ranks
  std::future<void> server_done_;     // colocated: the shard thread's outcome
  std::jthread server_thread_;        // colocated: runs server_
};

}  // namespace

// An allreduce in which every worker but the root contributes -0.0: for
// every float x, x + (-0.0) is x bit for bit (with +0.0, a -0.0 of the root
// would come back as +0.0), so the sum is the root's buffer exactly, in any
// order of addition. It costs an allreduce; broadcasts are rare (once,
// before training), and it needs no second message type.
void broadcast_by_sum(Strategy& ps, std::span<float> buffer, int root) {
  const World& workers = ps.peers();
  if (root < 0 || root >= workers.size())
    throw std::invalid_argument(
        fmt::format("ps-zmq: broadcast root {} is not a worker (0..{})", root, workers.size() - 1));
  if (workers.rank() != root) std::fill(buffer.begin(), buffer.end(), -0.0f);
  ps.allreduce(buffer);
}

std::unique_ptr<Strategy> make_ps_zmq(const World& world, const StrategyOptions& options) {
  if (options.ps.transport == "mpi") return make_ps_mpi(world, options);
  return std::make_unique<PsZmq>(world, options);
}

Availability ps_zmq_availability() {
  // ZeroMQ's sockets and the shards' threads would run outside a simulated
  // engine's clock and network; its protocol over MPI runs inside.
  if (engine_info().simulated)
    return {true, "under " + engine_info().name + " over MPI messages only (--ps-transport mpi)"};
  return {true, "ZeroMQ " + zmq_version_text()};
}

// Decorators wrap an allreduce (compression, an injected delay); neither is
// taken with --ps-mode async|ssp (ps_zmq_validate), so none is looked through.
ParameterOwner* parameter_owner(Strategy& strategy) {
  auto* ps = dynamic_cast<PsZmq*>(&strategy);
  return ps != nullptr && ps->owns_parameters() ? ps : nullptr;
}

}  // namespace gradsync
