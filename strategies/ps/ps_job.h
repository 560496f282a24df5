#pragma once
// Who is who in one ps-zmq job, as every rank learns it at bootstrap: the
// world rank of each shard and each worker (so that errors name the rank to
// look at), and, when CURVE is on, the public keys each side must present.
// A default PsJob (tests, benchmarks) means no CURVE and ranks equal to the
// indices.

#include <cstddef>
#include <string>
#include <vector>

#include "strategies/core/strategy_options.h"
#include "strategies/core/world.h"

namespace gradsync {

struct PsJob {
  std::vector<int> shard_ranks;                 // world rank of shard s
  std::vector<int> worker_ranks;                // world rank of worker w
  std::vector<std::string> shard_public_keys;   // Z85, per shard; empty: CURVE off
  std::vector<std::string> worker_public_keys;  // Z85, per worker; empty: CURVE off
  // Some rank on another host: a wildcard bind is advertised as this host's
  // address, else as 127.0.0.1 (host_address.h, address_for_peers).
  bool spans_hosts = true;

  bool curve() const { return !worker_public_keys.empty(); }
  int shard_rank(int s) const { return rank_of(shard_ranks, s); }
  int worker_rank(int w) const { return rank_of(worker_ranks, w); }

 private:
  static int rank_of(const std::vector<int>& ranks, int index) {
    return static_cast<std::size_t>(index) < ranks.size() ? ranks[index] : index;
  }
};

// The ranks of a job of `world_size` ranks: shard s is rank s; worker w is
// rank w (colocated) or rank S + w (dedicated).
PsJob ps_job_ranks(int world_size, const PsZmqOptions& ps, bool spans_hosts);

// The ranks that share this rank's role, a communicator of their own: every
// rank (colocated), or the shards' ranks and the workers' apart (dedicated).
World ps_role_peers(const World& world, const PsZmqOptions& ps);

// One CURVE keypair, Z85-encoded (40 characters each).
struct PsKeyPair {
  std::string public_key;
  std::string secret_key;
};

}  // namespace gradsync

#include <cstdint>
#include <span>

namespace gradsync {

// How errors name whom a wait is for, alike on both sides of the wire:
// "worker 1 (rank 1)", "workers 1 (rank 1), 3 (rank 3)", at most `limit`
// of them then "and N more".
std::string describe_workers(const PsJob& job, std::span<const std::uint32_t> workers,
                             std::size_t limit = 8);
// "is rank 1 alive?", "are ranks 1, 3 alive?"
std::string alive_question(const PsJob& job, std::span<const std::uint32_t> workers,
                           std::size_t limit = 8);
// "0, 2, 4 and 7 more"
std::string list_text(std::span<const std::uint32_t> values, std::size_t limit = 8);

}  // namespace gradsync
