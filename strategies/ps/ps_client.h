#pragma once
// The worker's side of the parameter server: see ps_client.cc.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "strategies/core/partition.h"
#include "strategies/core/strategy.h"
#include "strategies/core/strategy_options.h"
#include "strategies/ps/ps_job.h"
#include "strategies/ps/ps_plan.h"
#include "strategies/ps/ps_schedule.h"
#include "strategies/ps/ps_shared_segment.h"

namespace gradsync {

class PsClient {
 public:
  // Connects one DEALER socket to each shard; shard s listens at
  // shard_endpoints[s]. `worker` is this worker's index among all workers.
  // When job.curve(), every socket is a CURVE client with `keys`, trusting
  // shard s only with job.shard_public_keys[s]; job's ranks name the peers
  // in errors.
  PsClient(std::vector<std::string> shard_endpoints, int worker, const StrategyOptions& options,
           const PsJob& job = {}, const PsKeyPair& keys = {});
  // Says bye to every shard and waits at most options.timeout_s for the byes
  // to leave. Never throws.
  ~PsClient();
  PsClient(const PsClient&) = delete;
  PsClient& operator=(const PsClient&) = delete;

  // Blocking, in place: afterwards `buffer` holds the sum over all workers.
  // Every worker passes the same element count. Throws when a shard does not
  // answer within options.timeout_s or answers nonsense; the client is then
  // closed, and later calls throw. The 16-bit form moves elements of
  // `format`, which must be the job's --compression (options.compression):
  // the shards sum in it.
  void allreduce(std::span<float> buffer);
  void allreduce(std::span<std::uint16_t> buffer, Compression format);

  // Async and ssp modes (--ps-mode; the shards own the parameters, see
  // ps_server_async.cc). init: sends this worker's parameters as the initial
  // ones; afterwards `parameters` holds the shards' (the first init's, from
  // whichever worker). push_gradient: sends this worker's gradient; afterwards
  // the buffer holds the shards' parameters with it applied (under ssp, once
  // the staleness bound let them go). Errors as allreduce.
  void init(std::span<float> parameters);
  void push_gradient(std::span<float> buffer);
  // push_gradient calls that completed.
  std::uint64_t gradient_steps() const { return gradient_steps_; }

  // The shared-memory data path, set up before the first call (ps_zmq.cc):
  // share() makes this worker's segment, where it stages its pushes, and
  // returns its name; attach_shards() opens the sum segments of the shards
  // that take their data through shared memory (two names each, by step
  // parity; none for a shard over ZeroMQ). unlink_shared() removes the name
  // once the shards have opened it. read_in_place() names the shards that
  // read this worker's values where they lie and write their sums back
  // there (ps_cross_memory.h): no copy into the segment nor out of theirs.
  std::string share();
  void attach_shards(const std::vector<std::vector<std::string>>& names);
  void read_in_place(const std::vector<bool>& by_shard);
  void unlink_shared() { values_.unlink(); }

  Traffic traffic() const { return traffic_; }
  // Completed allreduce calls: the step the next one will carry.
  std::uint64_t step() const { return step_; }

 private:
  // The client moves elements without reading them: a buffer is its bytes
  // and the size of one element (4, or 2 for a 16-bit format).
  struct Elements {
    std::span<std::byte> bytes;
    std::size_t size = sizeof(float);
    std::size_t count() const { return bytes.size() / size; }
    std::byte* at(std::uint64_t element) const { return bytes.data() + element * size; }
  };
  // Pushes every partition as a message of `type` (push, init, gradient) and
  // copies each reply into place: all at once, or a sum on the rotated
  // schedule (ps_schedule.h).
  void exchange(Elements buffer, PsMessageType type);
  void push(Elements buffer, const std::vector<Range>& parts, PsMessageType type);
  void exchange_rotated(Elements buffer, const std::vector<Range>& parts);
  // Before a sum's pushes: makes room in this worker's segment when a shard
  // takes shared pushes. False when it cannot; the shards were then told why.
  bool reserve_shared(Elements buffer, PsMessageType type);
  // Partition i as a message of `type` (or a shared push) to its shard.
  void send_push(Elements buffer, const std::vector<Range>& parts, std::size_t i,
                 PsMessageType type);
  void send_pull(Elements buffer, const std::vector<Range>& parts, std::size_t i);
  // The header of partition i of this step, as a message of `type`.
  PsHeader header_of(PsMessageType type, Elements buffer, const std::vector<Range>& parts,
                     std::size_t i) const;
  // The pushes and pulls `window` allows now.
  void feed(Elements buffer, const std::vector<Range>& parts, PushPullWindow& window);
  // This worker cannot go on (its shared memory cannot grow): every shard
  // is told `line`, which it sends every worker (PsServer::fail_workers).
  void tell_shards_failed(const std::string& line);
  // Waits for every partition's sum; on the rotated schedule (`window`), sends
  // the pushes and pulls it allows as receipts and replies come back.
  void pull(Elements buffer, const std::vector<Range>& parts, PushPullWindow* window = nullptr);
  // Whether `shard` takes its data through shared memory (attach_shards);
  // whether it reads this worker's values in place (read_in_place).
  bool shared(int shard) const;
  bool in_place(int shard) const;
  // Checks a message from `shard`: a reply is copied into place, a receipt
  // checked against the pushes, a status kept for the timeout's message.
  struct Taken {
    enum class Kind { news, receipt, reply } kind = Kind::news;
    std::uint32_t partition = 0;  // of a receipt or a reply
  };
  Taken take_message(std::vector<zmq::message_t>& frames, int shard, Elements buffer,
                     const std::vector<bool>& received, std::vector<bool>& acknowledged);
  // A receipt's checks: this step, this worker, the plan's range, once.
  void check_receipt(const PsHeader& h, int shard, Elements buffer,
                     std::vector<bool>& acknowledged) const;
  std::runtime_error bad_reply(int shard, const std::string& why) const;
  // "server shard 0 (rank 0), which waits for worker 1 (rank 1)": whom the
  // reply of partition `first` waits on, as far as its shard said.
  std::string waited_for(std::size_t first) const;
  // The world ranks a pull waits for, partitions `received` so far: the
  // workers a shard said it waits for at this step, else the shard's rank.
  std::vector<int> waited_ranks(const std::vector<bool>& received) const;
  std::string timeout_message(std::size_t first, std::size_t missing, std::size_t parts) const;
  // Closes every socket dropping whatever is queued, and ends the context, so
  // that ZeroMQ no longer reads any user buffer a push pointed at.
  void abandon() noexcept;

  const std::vector<std::string> endpoints_;
  const std::uint32_t worker_;
  const PsPlan plan_;
  const double timeout_s_;
  const Compression format_;  // of the 16-bit form
  const PsJob job_;
  const bool rotated_;  // sums on the rotated schedule (ps_options.h, ps_rotated)
  const int window_;    // its pushes unacknowledged and pulls outstanding, at most

  // What a shard last said it waits for (a status message), per shard.
  struct ShardStatus {
    std::uint64_t step = 0;
    std::vector<std::uint32_t> missing;
  };
  std::vector<std::optional<ShardStatus>> status_;

  std::unique_ptr<zmq::context_t> context_;             // null once abandoned
  std::vector<zmq::socket_t> sockets_;                  // one per shard
  SharedSegment values_;                                // the shared path: this worker's pushes
  std::vector<std::vector<SharedSegment>> shard_sums_;  // per shard: its sums by parity, or none
  std::vector<bool> in_place_;  // per shard: it reads this worker's values where they lie
  std::string broken_;                                  // why the client was abandoned
  std::uint64_t step_ = 0;
  std::uint64_t gradient_steps_ = 0;
  Traffic traffic_;
};

}  // namespace gradsync
