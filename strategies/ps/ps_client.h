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
  // once the shards have opened it.
  std::string share();
  void attach_shards(const std::vector<std::vector<std::string>>& names);
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
  // copies each reply into place.
  void exchange(Elements buffer, PsMessageType type);
  void push(Elements buffer, const std::vector<Range>& parts, PsMessageType type);
  // This worker cannot go on (its shared memory cannot grow): every shard
  // is told `line`, which it sends every worker (PsServer::fail_workers).
  void tell_shards_failed(const std::string& line);
  void pull(Elements buffer, const std::vector<Range>& parts);
  // Whether `shard` takes its data through shared memory (attach_shards).
  bool shared(int shard) const;
  // Checks a message from `shard`: a reply is copied into place and its
  // partition returned; a status is kept for the timeout's message (nullopt).
  std::optional<std::uint32_t> take_message(std::vector<zmq::message_t>& frames, int shard,
                                            Elements buffer, const std::vector<bool>& received);
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
  std::string broken_;                                  // why the client was abandoned
  std::uint64_t step_ = 0;
  std::uint64_t gradient_steps_ = 0;
  Traffic traffic_;
};

}  // namespace gradsync
