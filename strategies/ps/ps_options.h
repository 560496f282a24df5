#pragma once
// The parameter server's options (`ps-zmq`; their fields are PsZmqOptions in
// strategies/core/strategy_options.h), their flags, and the checks
// that need only the job's size, so that every rank rejects a layout that
// cannot run before anything is built. ps_zmq.cc checks the rest (hosts).

#include <cstddef>
#include <span>
#include <string>

#include "strategies/core/option_flag.h"
#include "strategies/core/strategy_options.h"

namespace gradsync {

PsMode parse_ps_mode(std::string_view text);
const char* to_string(PsMode mode);

PsPlacement parse_ps_placement(const std::string& text);
const char* to_string(PsPlacement placement);

std::span<const OptionFlag> ps_zmq_flags();

// Throws std::invalid_argument, naming the flag, when the options cannot run
// on a job of `world_size` ranks (dedicated servers leave no worker, more
// colocated shards than ranks, an unknown transport, ...).
void ps_zmq_validate(const StrategyOptions& options, int world_size);

// The partition size a job uses: `ps.partition_bytes`, or with 0 (the
// default) 4 MiB when the job runs on one host and 1 MiB when it spans
// hosts. Measured (docs/results/cost-model-checks.md, "The partition
// size"): on one host, with the shards' shared memory, 4 MiB partitions ran
// at 1.29-1.48x ring-mpi's busbw from 64 MiB on at 4 ranks and 1 MiB at
// 0.96-1.03x; across 4 emulated hosts at 500mbit a 64 MiB allreduce took
// 3.58 s with 4 MiB and 3.48 with 1 MiB (one shard), 1.82 and 1.71 s (one
// per worker). 256 KiB was as fast as 1 MiB across hosts, with four times
// the messages, which cost more on faster links.
inline constexpr std::size_t kPsPartitionOneHost = 4 * 1024 * 1024;
inline constexpr std::size_t kPsPartitionAcrossHosts = 1024 * 1024;
std::size_t ps_partition_bytes(const PsZmqOptions& ps, bool job_spans_hosts);

// Whether workers push and pull on the rotated schedule (ps_schedule.h):
// --ps-schedule rotated, in --ps-mode sync over ZeroMQ (async gradients and
// the MPI transport keep their own order). Not the default: measured on the
// emulated cluster (docs/results/emulated-cluster.md, "The parameter
// server's push schedule") it took a 16 MiB allreduce at 8 hosts with a
// shard each from 0.96 to 0.71 s and ResNet-50's training up 5%, but
// VGG-16's down 3-11%, and with one shard it costs up to 9%.
bool ps_rotated(const PsZmqOptions& ps);
// The threads a shard's shared-memory sum runs on (ps_sum_pool.h):
// --ps-sum-threads, or with 0 (the default) the cores this process may use
// (its affinity mask) over the job's `shards_on_host` shards on this host,
// at least 1. While a shard sums, the workers it serves wait for its reply,
// so their cores are free; shards on one host share its cores.
int ps_sum_threads(const PsZmqOptions& ps, int shards_on_host);

// The host shards bind to: `ps.bind_host`, with "auto" resolved for a job
// that does or does not span hosts. Throws when a multi-host job's host has
// no address but loopback.
std::string ps_bind_host(const PsZmqOptions& ps, bool job_spans_hosts);

// The table entry's hooks (strategies/registry.h):
// how many of the first world ranks are dedicated servers (they serve, never reduce);
int ps_zmq_dedicated_servers(const StrategyOptions& options);
// k shards, on ranks of their own or as threads of the first k workers;
void ps_zmq_set_servers(StrategyOptions& options, int k, bool dedicated);
// "ps-zmq", or with servers that own the parameters "ps-zmq async" or
// "ps-zmq ssp K=2": runs that reports keep apart;
std::string ps_zmq_label(const StrategyOptions& options);
// in async and ssp modes, train's header line saying who applies SGD; else empty.
std::string ps_zmq_train_note(const StrategyOptions& options);
// --ps-mode async or ssp: the shards own the parameters and apply SGD.
bool ps_zmq_servers_own_parameters(const StrategyOptions& options);

}  // namespace gradsync
