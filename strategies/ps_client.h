#pragma once
// The worker's side of the parameter server: see ps_client.cc.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "strategies/partition.h"
#include "strategies/ps_plan.h"
#include "strategies/strategy.h"
#include "strategies/strategy_options.h"

namespace gradsync {

class PsClient {
 public:
  // Connects one DEALER socket to each shard; shard s listens at
  // shard_endpoints[s]. `worker` is this worker's index among all workers.
  PsClient(std::vector<std::string> shard_endpoints, int worker, const StrategyOptions& options);
  // Says bye to every shard and waits at most options.timeout_s for the byes
  // to leave. Never throws.
  ~PsClient();
  PsClient(const PsClient&) = delete;
  PsClient& operator=(const PsClient&) = delete;

  // Blocking, in place: afterwards `buffer` holds the sum over all workers.
  // Every worker passes the same element count. Throws when a shard does not
  // answer within options.timeout_s or answers nonsense; the client is then
  // closed, and later calls throw.
  void allreduce(std::span<float> buffer);

  Traffic traffic() const { return traffic_; }
  // Completed allreduce calls: the step the next one will carry.
  std::uint64_t step() const { return step_; }

 private:
  void push(std::span<float> buffer, const std::vector<Range>& parts);
  void pull(std::span<float> buffer, const std::vector<Range>& parts);
  // Checks a reply from `shard` and copies it into place; returns its partition.
  std::uint32_t take_reply(std::vector<zmq::message_t>& frames, int shard, std::span<float> buffer,
                           const std::vector<bool>& received);
  // Closes every socket dropping whatever is queued, and ends the context, so
  // that ZeroMQ no longer reads any user buffer a push pointed at.
  void abandon() noexcept;

  const std::vector<std::string> endpoints_;
  const std::uint32_t worker_;
  const PsPlan plan_;
  const double timeout_s_;

  std::unique_ptr<zmq::context_t> context_;  // null once abandoned
  std::vector<zmq::socket_t> sockets_;       // one per shard
  std::string broken_;                       // why the client was abandoned
  std::uint64_t step_ = 0;
  Traffic traffic_;
};

}  // namespace gradsync
