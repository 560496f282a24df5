#pragma once
// The parameter server's options (`ps-zmq`), their flags, and the checks
// that need only the job's size, so that every rank rejects a layout that
// cannot run before anything is built. ps_zmq.cc checks the rest (hosts).

#include <cstddef>
#include <span>
#include <string>

#include "strategies/option_flag.h"

namespace gradsync {

enum class PsPlacement {
  colocated,  // server shards are threads inside the first S workers
  dedicated,  // the first S ranks only serve; the others are the workers
};

// Who owns the parameters, and how far workers may drift apart:
enum class PsMode {
  sync,   // the shards sum each step's pushes over every worker; workers apply SGD
  async,  // the shards own the parameters and apply each worker's gradient as it comes
  ssp,    // async, but no worker runs more than --ps-staleness steps ahead of the slowest
};

// The SGD a shard applies in async and ssp modes (sgd_rule.h), set by the
// trainer from its --lr, --momentum and --weight-decay: each gradient is one
// worker's batch, so the rate is one worker's, not scaled by the workers.
struct PsServerSgd {
  double lr = 0.01;
  double momentum = 0.9;
  double weight_decay = 0.0;
};

struct PsZmqOptions {
  int servers = 1;
  PsPlacement placement = PsPlacement::colocated;
  std::string transport = "tcp";  // tcp or ipc
  // The address servers bind to (tcp): an address, an interface name, 0.0.0.0,
  // or "auto" (loopback on one host; this host's address, host_address.h,
  // when the job spans hosts). A wildcard is bound, but peers are given this
  // host's address.
  std::string bind_host = "auto";
  // ZeroMQ CURVE (encryption, and only the job's workers admitted): on, off,
  // or "auto" (on unless the shards bind to loopback or use ipc; ps_curve.h).
  std::string curve = "auto";
  std::size_t partition_bytes = 4 * 1024 * 1024;
  PsMode mode = PsMode::sync;
  int staleness = 2;  // ssp: the most steps a worker may run ahead of the slowest
  PsServerSgd sgd;
};

PsMode parse_ps_mode(std::string_view text);
const char* to_string(PsMode mode);

PsPlacement parse_ps_placement(const std::string& text);
const char* to_string(PsPlacement placement);

std::span<const OptionFlag> ps_zmq_flags();

// Throws std::invalid_argument, naming the flag, when the options cannot run
// on a job of `world_size` ranks (dedicated servers leave no worker, more
// colocated shards than ranks, an unknown transport, ...).
void ps_zmq_validate(const StrategyOptions& options, int world_size);

// The host shards bind to: `ps.bind_host`, with "auto" resolved for a job
// that does or does not span hosts. Throws when a multi-host job's host has
// no address but loopback.
std::string ps_bind_host(const PsZmqOptions& ps, bool job_spans_hosts);

// Whether world rank `rank` is a dedicated server (it serves, never reduces).
bool ps_zmq_serves_only(const StrategyOptions& options, int rank);

}  // namespace gradsync
