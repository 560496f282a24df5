#pragma once
// ZeroMQ CURVE for the parameter server: keys made per run, sockets set up
// as CURVE server (shard) or client (worker), and the shard's ZAP handler,
// which admits only the job's workers' public keys and names each admitted
// connection by its worker index (ZeroMQ's "User-Id" message property).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "strategies/ps/ps_job.h"
#include "strategies/ps/ps_options.h"

namespace gradsync {

// A fresh keypair; throws when this libzmq has no CURVE (built without libsodium).
PsKeyPair make_ps_keypair();

// --ps-curve resolved for a job that does or does not span hosts, alike on
// every rank: "auto" is on unless the shards bind to loopback (127.0.0.0/8,
// ::1, localhost, lo; --ps-bind auto on one host) or use ipc.
bool ps_curve_enabled(const PsZmqOptions& ps, bool job_spans_hosts);

// Before bind: the shard's socket accepts CURVE clients only.
void set_curve_server(zmq::socket_t& socket, const PsKeyPair& keys);
// Before connect: the worker's socket talks to the shard with `server_public_key`.
void set_curve_client(zmq::socket_t& socket, const PsKeyPair& keys,
                      const std::string& server_public_key);

// The worker index a message arrived from, as the ZAP handler named its
// connection; nullopt when the connection was not authenticated.
std::optional<std::uint32_t> authenticated_worker(zmq::message_t& frame);

// The ZAP handler of one shard: a REP socket at inproc://zeromq.zap.01 in the
// shard's context, bound before the shard's socket, serviced by the shard's
// own poll loop (answer_pending), so that no thread of its own is needed.
class PsZapHandler {
 public:
  PsZapHandler(zmq::context_t& context, const std::vector<std::string>& worker_public_keys);
  zmq::socket_t& socket() { return socket_; }
  // Answers every waiting request: 200 with the worker index as user id for a
  // worker's key, 400 otherwise (the shard's HandshakeMonitor counts those).
  void answer_pending();

 private:
  zmq::socket_t socket_;
  std::vector<std::string> worker_keys_;  // binary, 32 bytes each
};

}  // namespace gradsync
