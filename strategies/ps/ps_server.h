#pragma once
// One server shard of the parameter server: see ps_server.cc.

#include <array>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stop_token>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "strategies/core/stall_marks.h"
#include "strategies/core/strategy.h"
#include "strategies/core/strategy_options.h"
#include "strategies/ps/ps_async_stats.h"
#include "strategies/ps/ps_cross_memory.h"
#include "strategies/ps/ps_curve.h"
#include "strategies/ps/ps_job.h"
#include "strategies/ps/ps_plan.h"
#include "strategies/ps/ps_rejections.h"
#include "strategies/ps/ps_shared_segment.h"
#include "strategies/ps/ps_socket.h"
#include "strategies/ps/ps_sum_pool.h"
#include "strategies/ps/sgd_rule.h"

namespace gradsync {

class PsServer {
 public:
  // Binds a ROUTER socket for shard `shard` of `shards`, which serves
  // `workers` workers: tcp://ps.bind_host:<ephemeral port>, or an ipc socket
  // in a fresh temporary directory when options.ps.transport is "ipc". When
  // job.curve(), the socket is a CURVE server with `keys` that admits only
  // job.worker_public_keys; job's ranks name the workers in errors.
  PsServer(int shard, int shards, int workers, const StrategyOptions& options,
           const PsJob& job = {}, const PsKeyPair& keys = {});
  ~PsServer();
  PsServer(const PsServer&) = delete;
  PsServer& operator=(const PsServer&) = delete;

  // Where workers connect, e.g. "tcp://127.0.0.1:40123".
  const std::string& endpoint() const { return endpoint_; }

  // The shared-memory data path, set up before run() when some worker of
  // this shard shares its host (ps_zmq.cc): share() makes the two segments
  // the sums go to (one per step parity) and returns their names, and
  // starts the threads the sums run on (`sum_threads` >= 1, the shard's own
  // included; ps_sum_pool.h); attach_workers() opens each local worker's
  // segment, by worker index (an empty name: a worker on another host, which
  // pushes over ZeroMQ); `offers` are the workers' CrossMemory::offer()
  // tags, by worker index (empty: none offered), and the shard reads and
  // writes in place the local workers whose offer it can attach. From then
  // on a local worker's pushes must be shared ones, naming where its values
  // are exactly when it is read in place, and a remote worker's must carry
  // their payload. unlink_shared() removes the names once the workers have
  // opened them.
  std::array<std::string, 2> share(int sum_threads);
  void attach_workers(const std::vector<std::string>& names,
                      const std::vector<std::string>& offers = {});
  void unlink_shared();
  // Whether some worker takes the shared path here; whether `worker` does;
  // those that do, in order.
  bool shared() const { return shared_workers_ > 0; }
  bool local(std::uint32_t worker) const {
    return worker < worker_values_.size() && worker_values_[worker].valid();
  }
  std::vector<std::uint32_t> shared_workers() const;
  // Whether the shard reads `worker`'s values where they lie; those it does, in order.
  bool in_place(std::uint32_t worker) const {
    return worker < in_place_.size() && in_place_[worker].has_value();
  }
  std::vector<std::uint32_t> in_place_workers() const;
  int shard() const { return shard_; }
  int workers() const { return workers_; }
  // Whether some of its workers push and pull on the rotated schedule (not
  // those on its host: their shared pushes are headers, which it answers
  // when the sum is ready).
  bool rotated() const { return rotated_ && shared_workers_ < workers_; }
  // The threads each shared-memory sum runs on; 1 off that path.
  int sum_threads() const { return sum_pool_ ? sum_pool_->threads() : 1; }
  // The largest partition of its plan, in bytes (--ps-partition, or its default).
  std::size_t partition_bytes() const { return plan_.partition_bytes; }

  // Serves on the calling thread until every worker said bye, `stop` is
  // requested, or the test-only fault (options.faults.ps_stop_after = N >= 0)
  // stops the shard: it answers N pushes and closes its socket on the next.
  // Throws when work is pending and no message was accepted for
  // options.timeout_s. The sockets move to the calling thread: call run()
  // once, from one thread. A shard hosted by a worker's rank is
  // Voice::silent on a stall: the worker, which waits on it, speaks
  // (stall_marks.h). A shared-memory sum that cannot reserve its memory
  // ends the shard and its workers at once (fail_workers).
  void run(std::stop_token stop = {}, Voice voice = Voice::speaks);

  // What was refused so far, by reason (any thread may ask).
  PsRejections rejections() const;
  std::uint64_t rejected() const { return rejections().total; }
  std::string last_rejection() const { return rejections().last; }

  // Whether the shard failed and tells its workers so (any thread may ask):
  // it must keep answering until each was told, or some would wait for it.
  bool failing() const { return failing_.load(); }

  // Partial sums held right now (any thread may ask): at most two steps'
  // partitions of this shard, whatever the workers send.
  std::size_t pending_partitions() const { return pending_partitions_.load(); }

  // Async and ssp modes: the steps applied per worker and the staleness seen
  // so far (any thread may ask); empty `steps` in sync mode.
  PsAsyncStats async_stats() const;

  // Payload bytes received and sent; read once run() has returned.
  Traffic traffic() const { return traffic_; }

 private:
  // The sum of one partition at one step, while workers' pushes arrive.
  struct Partial {
    std::size_t element_bytes = sizeof(float);  // of every push: 4, or 2 (--compression)
    zmq::message_t sum;       // float pushes: the first received; later ones are added into it
    std::vector<float> wide;  // 16-bit pushes: their sum in fp32
    // A shard with local workers: the remote workers' pushes, held by worker
    // index until every worker's values are in (ps_server_shared.cc).
    std::vector<zmq::message_t> held;
    std::vector<bool> pushed;
    int arrived = 0;
    std::vector<bool> pull_waiting;  // the rotated schedule: pulls that came before the sum
    std::vector<std::uint64_t> addresses;  // where the workers read in place have their values
  };
  // The rotated schedule: a partition's sum, kept until every worker pulled it.
  struct Ready {
    PsHeader header;  // the partition's, as pushed
    std::size_t element_bytes = sizeof(float);
    zmq::message_t sum;
    std::vector<bool> pulled;
    int pulls = 0;
  };
  // A step with partitions in flight; every push of it is for a buffer of `total` elements.
  struct Step {
    std::uint64_t total = 0;
    std::map<std::uint32_t, Partial> partitions;
  };
  // What the shard knows of one worker: the connection it is bound to (the
  // first that spoke for it and was accepted), and where its pushes are.
  struct Worker {
    std::string identity;  // the ROUTER's routing id of its connection, once bound
    bool bound = false;
    bool said_bye = false;
    bool told_failed = false;           // sent the shard's failure
    std::optional<std::uint64_t> step;  // the step of its latest push
    std::set<std::uint32_t> pushed;     // partitions it pushed at that step
    int unanswered = 0;                 // its pushes still waiting for their sum
    // Async and ssp modes:
    std::uint64_t clock = 0;      // its gradient steps applied in full here
    std::uint64_t pulled_at = 0;  // applied_steps_ when its parameters last left
    bool held = false;            // its step is applied; the reply waits for the bound
  };
  // Async and ssp modes: the parameters of one partition this shard owns.
  struct Owned {
    std::vector<float> value, velocity;
  };

  // True when the message was accepted (it is progress).
  bool handle(std::vector<zmq::message_t>& frames);
  // Why `header` from `identity` may not be accepted, or nullopt.
  std::optional<std::pair<PsRejectReason, std::string>> refuse(const zmq::message_t& identity,
                                                               zmq::message_t& header_frame,
                                                               const PsHeader& header) const;
  std::optional<std::pair<PsRejectReason, std::string>> refuse_push(const PsHeader& header) const;
  // A worker's own order: no step older than its last, no partition twice
  // in a step, no new step before the last was answered.
  std::optional<std::pair<PsRejectReason, std::string>> refuse_worker_step(
      const PsHeader& header) const;
  void bind(std::uint32_t worker, zmq::message_t& identity);
  // The element size of a payload: 2 when it holds header.count 16-bit
  // elements and the job compresses, else 4 (check_payload_size then checks
  // the payload against it).
  std::size_t element_bytes(const PsHeader& header, const zmq::message_t& payload) const;
  // Why a shared push names an address from a worker not read in place, or
  // none from one that is; or empty.
  std::string in_place_mismatch(const PsHeader& header, const PsSharedPush& push) const;
  // Why a push may not join its partition's sum (elements of another size), or empty.
  std::string mixed_elements(const PsHeader& header, std::size_t element_bytes) const;
  // Adds a push of `element`-byte elements (element_bytes) into its partition's sum.
  // `address`: where a local worker read in place has its values of the
  // partition (its shared push's).
  void accumulate(const PsHeader& header, zmq::message_t& payload, std::size_t element,
                  std::uint64_t address = 0);
  void reply(const PsHeader& header, Partial& partial);
  // One message to worker `worker`, over the connection it is bound to.
  void send_to(std::uint32_t worker, const PsHeader& header, zmq::message_t payload);
  // The fp32 sum of 16-bit pushes, rounded once into partial.sum.
  void round_sum(const PsHeader& header, Partial& partial);
  // The partition's sum to one worker (shares the sum's content).
  void send_sum(const PsHeader& header, std::uint32_t worker, zmq::message_t& sum,
                std::size_t element_bytes);
  // The rotated schedule (ps_server_pull.cc): a receipt for each push, the
  // sum kept until every worker pulled it, and the pulls answered.
  void send_receipt(const PsHeader& header);
  void hold_for_pulls(const PsHeader& header, Partial& partial);
  void take_pull(const PsHeader& header);
  std::optional<std::pair<PsRejectReason, std::string>> refuse_pull(const PsHeader& header) const;
  void answer_pull(Ready& ready, std::uint32_t worker);
  // The shared path: the sum of every worker's values of the partition (a
  // local worker's in its segment, a remote one's held) into this shard's
  // segment of the step's parity, and into partial.sum when some worker is
  // remote; then a shared reply to each local worker and reply() to the rest.
  void sum_shared(const PsHeader& header, Partial& partial);
  void reply_shared(const PsHeader& header, Partial& partial);
  // Every worker has pushed the partition: its sum made and answered
  // (true), or not (false: a worker read in place exited, forget_push, or
  // the shard failed, fail_workers) and the partition stays pending.
  bool answer_shared(const PsHeader& header, Partial& partial);
  // Where each worker's values of the partition are, in worker order
  // (nullptr for a worker read in place).
  std::vector<const std::byte*> shared_values(const PsHeader& header, Partial& partial,
                                              std::size_t bytes);
  // The sum when some worker is read in place: chunk by chunk, those
  // workers' values read into this thread's cache, added up in worker order
  // with the others', and written back where they lie, into `out` (the
  // sums segment, for local workers that copy it out) and `remote`.
  void sum_in_place(const Partial& partial, const std::vector<const std::byte*>& values,
                    std::byte* out, std::byte* remote, std::size_t count);
  // The push of the worker read in place in process `gone`, which exited
  // before its values could be read: undone, as if it never came.
  void forget_push(const PsHeader& header, Partial& partial, pid_t gone);
  // The shard, or a worker, cannot go on (shared memory that cannot grow):
  // the shard keeps `line` and tells every worker it knows in a `failed`
  // message, which each raises alike (AgreedError); from then on it answers
  // every message with it, until every worker was told it or left, and run()
  // then throws it (a dedicated server's rank ends alike).
  void fail_workers(const PsHeader& header, const std::string& line);
  // A failed shard's answer to a message (a worker's own `failed` first
  // fails the shard with the worker's line).
  void answer_failed(const PsHeader& header, std::vector<zmq::message_t>& frames);
  void send_failed(int worker, std::uint64_t step);
  std::string failure_;  // the line every worker is told; empty while the shard is well
  std::atomic<bool> failing_{false};  // failure_ is set (read by other threads)
  // Whether every worker said bye or was told the failure: run() ends.
  bool all_workers_gone() const;
  // Async and ssp modes (ps_server_async.cc).
  std::optional<std::pair<PsRejectReason, std::string>> refuse_owned(const PsHeader& header) const;
  void take_init(const PsHeader& header, const zmq::message_t& payload);
  void take_gradient(const PsHeader& header, zmq::message_t& payload);
  // A worker's step is in: sends it its partitions' parameters unless
  // --ps-staleness holds it back; then releases whom the step let through.
  void release_allowed();
  std::uint64_t slowest_clock() const;
  void send_parameters(std::uint32_t worker, std::uint64_t step, std::uint32_t partition);
  void note_step(const PsHeader& header);  // the per-worker step bookkeeping
  bool pending() const;                    // sums in flight, or replies held back
  void reject(PsRejectReason reason, std::string why);
  void stop_answering();

  // The oldest step in flight: which workers it still waits for, and where.
  struct Stall {
    std::uint64_t step = 0;
    std::vector<std::uint32_t> partitions;  // those still pending
    std::vector<std::uint32_t> missing;     // workers that did not push all of them
  };
  Stall stall() const;       // while sums or held replies are pending
  Stall held_stall() const;  // replies held back: the slowest workers are the missing
  void send_status();
  std::string timeout_message() const;

  const int shard_;
  const int workers_;
  const PsPlan plan_;
  const double timeout_s_;
  const Compression format_;  // of 16-bit pushes
  const long fault_stop_after_;
  const PsJob job_;
  const PsMode mode_;
  const bool rotated_;         // sums on the rotated schedule: receipts and pulls
  const int staleness_;        // ssp: the bound on a worker's lead
  const SgdCoefficients sgd_;  // async, ssp

  zmq::context_t context_{1};
  std::unique_ptr<PsZapHandler> zap_;  // CURVE only; bound before socket_
  zmq::socket_t socket_;
  std::unique_ptr<HandshakeMonitor> handshakes_;  // watches socket_
  std::filesystem::path ipc_dir_;                 // removed on destruction; empty for tcp
  std::string endpoint_;
  std::array<SharedSegment, 2> sums_;         // the shared path: sums, by step parity
  std::vector<SharedSegment> worker_values_;  // the shared path: each local worker's pushes
  int shared_workers_ = 0;                    // the local ones
  std::vector<std::optional<CrossMemory>> in_place_;  // by worker: read where its values lie
  std::unique_ptr<SumPool> sum_pool_;         // the shared path: the threads that sum

  std::map<std::uint64_t, Step> steps_;           // at most kStepsInFlight
  std::map<std::pair<std::uint64_t, std::uint32_t>, Ready> ready_;  // by step and partition
  std::optional<std::uint64_t> newest_answered_;  // the latest step with a sum sent
  std::vector<Worker> workers_state_;
  std::map<std::string, std::uint32_t> connections_;  // bound routing id -> its worker
  long pushes_handled_ = 0;
  bool stopped_ = false;  // by the fault injection
  Traffic traffic_;
  std::atomic<std::size_t> pending_partitions_{0};

  // Async and ssp modes: the parameters, for a buffer of owned_total_ elements.
  std::uint64_t owned_total_ = 0;
  std::map<std::uint32_t, Owned> owned_;      // by partition index
  std::vector<std::uint32_t> my_partitions_;  // this shard's, of owned_total_
  std::uint64_t applied_steps_ = 0;           // every worker's, in full
  mutable std::mutex stats_mutex_;
  PsAsyncStats stats_;

  mutable std::mutex rejections_mutex_;
  PsRejections rejections_;
};

}  // namespace gradsync
