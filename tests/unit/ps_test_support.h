#pragma once
// Helpers for the parameter-server tests that run servers and workers as
// threads of one process (no MPI).

#include <chrono>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "strategies/ps/ps_curve.h"
#include "strategies/ps/ps_server.h"
#include "strategies/core/strategy_options.h"

namespace gradsync::testing {

// A PsServer serving on a thread of its own. The destructor stops it (if the
// workers did not already end it with their byes) and joins it.
class ServerThread {
 public:
  ServerThread(int shard, int shards, int workers, const StrategyOptions& options,
               const PsJob& job = {}, const PsKeyPair& keys = {})
      : server_(shard, shards, workers, options, job, keys), thread_([this](std::stop_token stop) {
          try {
            server_.run(stop);
          } catch (...) {
            error_ = std::current_exception();
          }
        }) {}

  PsServer& server() { return server_; }
  const std::string& endpoint() const { return server_.endpoint(); }

  // Waits for run() to return; then the error it ended with, or "".
  std::string join() {
    if (thread_.joinable()) thread_.join();
    if (!error_) return {};
    try {
      std::rethrow_exception(error_);
    } catch (const std::exception& e) {
      return e.what();
    }
  }

 private:
  PsServer server_;
  std::exception_ptr error_;
  std::jthread thread_;
};

// Runs body(w) on a thread for each worker w, and rethrows the first
// exception any of them threw once all have finished.
inline void run_workers(int workers, const std::function<void(int)>& body) {
  std::vector<std::exception_ptr> errors(workers);
  {
    std::vector<std::jthread> threads;
    for (int w = 0; w < workers; ++w)
      threads.emplace_back([&, w] {
        try {
          body(w);
        } catch (...) {
          errors[w] = std::current_exception();
        }
      });
  }
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

// A bare DEALER connected to `endpoint`, for tests that play a worker by hand
// (to be slow, out of step, or malformed exactly where the test needs it);
// a CURVE client with `keys` when `server_public_key` is given.
inline zmq::socket_t bare_dealer(zmq::context_t& context, const std::string& endpoint,
                                 const PsKeyPair& keys = {},
                                 const std::string& server_public_key = {}) {
  zmq::socket_t socket(context, zmq::socket_type::dealer);
  socket.set(zmq::sockopt::linger, 0);
  if (!server_public_key.empty()) set_curve_client(socket, keys, server_public_key);
  socket.connect(endpoint);
  return socket;
}

// Polls `condition` until it holds or 10 s passed; whether it held.
template <typename Condition>
bool eventually(Condition condition) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

}  // namespace gradsync::testing
