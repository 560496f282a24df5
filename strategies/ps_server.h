#pragma once
// One server shard of the parameter server: see ps_server.cc.

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>
#include <zmq.hpp>

#include "strategies/ps_plan.h"
#include "strategies/strategy.h"
#include "strategies/strategy_options.h"

namespace gradsync {

class PsServer {
 public:
  // Binds a ROUTER socket for shard `shard` of `shards`, which serves
  // `workers` workers: tcp://ps.bind_host:<ephemeral port>, or an ipc socket
  // in a fresh temporary directory when options.ps.transport is "ipc".
  PsServer(int shard, int shards, int workers, const StrategyOptions& options);
  ~PsServer();
  PsServer(const PsServer&) = delete;
  PsServer& operator=(const PsServer&) = delete;

  // Where workers connect, e.g. "tcp://127.0.0.1:40123".
  const std::string& endpoint() const { return endpoint_; }

  // Serves on the calling thread until every worker said bye, `stop` is
  // requested, or the test-only fault (options.faults.ps_stop_after = N >= 0)
  // stops the shard: it answers N pushes and closes its socket on the next. Throws when
  // work is pending and no message arrived for options.timeout_s. The socket
  // moves to the calling thread: call run() once, from one thread.
  void run(std::stop_token stop = {});

  // Malformed or inconsistent messages received and dropped so far (any
  // thread may ask), and the reason for the last of them.
  std::uint64_t rejected() const { return rejected_.load(); }
  std::string last_rejection() const;

  // Payload bytes received and sent; read once run() has returned.
  Traffic traffic() const { return traffic_; }

 private:
  // The sum of one partition at one step, while workers' pushes arrive.
  struct Pending {
    zmq::message_t sum;  // the first push received; later ones are added into it
    std::uint64_t total = 0;
    std::vector<zmq::message_t> identities;  // per worker: where its reply goes
    std::vector<bool> pushed;
    int arrived = 0;
  };
  using Key = std::pair<std::uint64_t, std::uint32_t>;  // (step, partition)

  void handle(std::vector<zmq::message_t>& frames);
  void accumulate(zmq::message_t& identity, const PsHeader& header, zmq::message_t& payload);
  void reject(std::string why);
  void stop_answering();
  std::string timeout_message() const;

  const int shard_;
  const int workers_;
  const PsPlan plan_;
  const double timeout_s_;
  const long fault_stop_after_;

  zmq::context_t context_{1};
  zmq::socket_t socket_;
  std::filesystem::path ipc_dir_;  // removed on destruction; empty for tcp
  std::string endpoint_;

  std::map<Key, Pending> pending_;
  std::vector<bool> said_bye_;
  int byes_ = 0;
  long pushes_handled_ = 0;
  bool stopped_ = false;  // by the fault injection
  Traffic traffic_;

  std::atomic<std::uint64_t> rejected_{0};
  mutable std::mutex rejection_mutex_;
  std::string last_rejection_;
};

}  // namespace gradsync
