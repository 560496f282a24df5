#include "strategies/ps/ps_options.h"

#include <fmt/core.h>

#include <algorithm>
#include <stdexcept>
#include <string_view>

#include "strategies/core/engine.h"
#include "strategies/core/host_address.h"
#include "strategies/core/launcher_env.h"
#include "strategies/core/strategy_options.h"
#include "strategies/core/thread_start.h"

namespace gradsync {
namespace {

constexpr std::string_view kPlacements[] = {"colocated", "dedicated"};
constexpr std::string_view kTransports[] = {"tcp", "ipc", "mpi"};
constexpr std::string_view kCurveModes[] = {"auto", "on", "off"};
constexpr std::string_view kModes[] = {"sync", "async", "ssp"};
constexpr std::string_view kShmModes[] = {"auto", "copy", "off"};
constexpr std::string_view kSchedules[] = {"all-at-once", "rotated"};

// When an option does nothing (OptionFlag::idle_because): the shards' own
// parameters have no staleness in sync; only tcp binds to an address; MPI
// messages have no CURVE, no shared segments and no ZeroMQ shard to stop.
std::string_view idle_without_ssp(const StrategyOptions& o) {
  return o.ps.mode == PsMode::ssp ? "" : "is for --ps-mode ssp";
}
std::string_view idle_without_tcp(const StrategyOptions& o) {
  return o.ps.transport == "tcp" ? "" : "is for --ps-transport tcp";
}
std::string_view idle_over_mpi(const StrategyOptions& o) {
  return o.ps.transport == "mpi" ? "is for --ps-transport tcp or ipc" : "";
}
std::string_view idle_without_sync(const StrategyOptions& o) {
  if (o.ps.mode != PsMode::sync) return "is for --ps-mode sync";
  return idle_over_mpi(o);
}

std::string_view idle_without_rotation(const StrategyOptions& o) {
  if (o.ps.schedule != "rotated") return "is for --ps-schedule rotated";
  return idle_without_sync(o);
}
std::string_view idle_without_shm(const StrategyOptions& o) {
  if (o.ps.shm == "off") return "is for --ps-shm auto or copy";
  return idle_without_sync(o);
}

constexpr OptionFlag kFlags[] = {
    {.flag = "--ps-servers",
     .key = "ps_servers",
     .help = "number of server shards",
     .bound = OptionBound::above_zero,
     .field = [](StrategyOptions& o) -> OptionField { return &o.ps.servers; },
     .costed = true},
    {.flag = "--ps-placement",
     .key = "ps_placement",
     .help = "server shards as threads in the first workers (colocated) or as the first ranks, "
             "which then only serve (dedicated)",
     .choices = kPlacements,
     .named = {[](const StrategyOptions& o) { return std::string_view(to_string(o.ps.placement)); },
               [](StrategyOptions& o, std::string_view name) {
                 o.ps.placement = parse_ps_placement(std::string(name));
               }},
     .costed = true},
    {.flag = "--ps-transport",
     .key = "ps_transport",
     .help = "ZeroMQ's tcp or ipc, or mpi: the same protocol over MPI point-to-point messages "
             "(--ps-mode sync; the one that runs under SMPI)",
     .choices = kTransports,
     .field = [](StrategyOptions& o) -> OptionField { return &o.ps.transport; }},
    {.flag = "--ps-bind",
     .key = "ps_bind_host",
     .help = "the address (or interface) servers bind to (tcp); auto: loopback on one host, "
             "this host's address when the job spans hosts",
     .type_name = "HOST",
     .field = [](StrategyOptions& o) -> OptionField { return &o.ps.bind_host; },
     .idle_because = idle_without_tcp},
    {.flag = "--ps-curve",
     .key = "ps_curve",
     .help = "ZeroMQ CURVE with keys made per run: traffic encrypted, only the job's workers "
             "admitted; auto: on unless the servers bind to loopback or use ipc",
     .choices = kCurveModes,
     .field = [](StrategyOptions& o) -> OptionField { return &o.ps.curve; },
     .idle_because = idle_over_mpi},
    {.flag = "--ps-partition",
     .key = "ps_partition_bytes",
     .help = "bytes per partition spread over the shards (0: 4M on one host, 1M when the job "
             "spans hosts)",
     .field = [](StrategyOptions& o) -> OptionField { return &o.ps.partition_bytes; },
     .costed = true},
    {.flag = "--ps-shm",
     .key = "ps_shm",
     .help = "auto: a shard takes the values of the workers on its host and gives them its "
             "sums through memory, ZeroMQ carrying only their headers, and the other workers' "
             "over ZeroMQ (--ps-mode sync); it reads and writes those workers' buffers in place "
             "where the kernel allows cross-memory attach, else copies through shared segments; "
             "copy: always through the segments; off: every byte through ZeroMQ",
     .choices = kShmModes,
     .field = [](StrategyOptions& o) -> OptionField { return &o.ps.shm; },
     .idle_because = idle_without_sync},
    {.flag = "--ps-schedule",
     .key = "ps_schedule",
     .help = "how workers put partitions on the wire (--ps-mode sync): all-at-once, every "
             "push at once and each sum sent when ready; rotated, worker w starts at shard w, "
             "keeps at most --ps-window pushes unacknowledged and pulls each sum with at most "
             "--ps-window outstanding, so a link does not carry every worker's push at once",
     .choices = kSchedules,
     .field = [](StrategyOptions& o) -> OptionField { return &o.ps.schedule; },
     .costed = true,
     .idle_because = idle_without_sync},
    {.flag = "--ps-window",
     .key = "ps_window",
     .help = "--ps-schedule rotated: the pushes a worker keeps unacknowledged, and the pulls "
             "it keeps outstanding",
     .type_name = "N",
     .bound = OptionBound::above_zero,
     .field = [](StrategyOptions& o) -> OptionField { return &o.ps.window; },
     .costed = true,
     .idle_because = idle_without_rotation},
    {.flag = "--ps-sum-threads",
     .key = "ps_sum_threads",
     .help = "threads a shard's shared-memory sum runs on, the shard's own included (0: the "
             "cores this process may use over the shards on its host)",
     .type_name = "N",
     .bound = OptionBound::not_negative,
     .field = [](StrategyOptions& o) -> OptionField { return &o.ps.sum_threads; },
     .idle_because = idle_without_shm},
    {.flag = "--ps-mode",
     .key = "ps_mode",
     .help = "sync: the shards sum every step over all workers; async: the shards own the "
             "parameters and apply each worker's gradient as it arrives (SGD at --lr), workers "
             "never wait for each other; ssp: async, but no worker runs more than "
             "--ps-staleness steps ahead of the slowest (train only)",
     .choices = kModes,
     .named = {[](const StrategyOptions& o) { return std::string_view(to_string(o.ps.mode)); },
               [](StrategyOptions& o, std::string_view name) { o.ps.mode = parse_ps_mode(name); }},
     .costed = true},
    {.flag = "--ps-staleness",
     .key = "ps_staleness",
     .help = "--ps-mode ssp: the most steps a worker may run ahead of the slowest (0: in "
             "lockstep)",
     .type_name = "K",
     .bound = OptionBound::not_negative,
     .field = [](StrategyOptions& o) -> OptionField { return &o.ps.staleness; },
     .idle_because = idle_without_ssp},
    {.flag = "--ps-fault-stop-after",
     .key = "ps_fault_stop_after",
     .help = "each server shard stops answering after N requests, as a crashed server would "
             "(negative: never)",
     .field = [](StrategyOptions& o) -> OptionField { return &o.faults.ps_stop_after; },
     .test_only = true,
     .idle_because = idle_over_mpi},
};

// What the MPI transport does not carry: the shards' own parameters (async,
// ssp), 16-bit pushes, CURVE.
void check_mpi_transport(const StrategyOptions& options) {
  const PsZmqOptions& ps = options.ps;
  if (ps.mode != PsMode::sync)
    throw std::invalid_argument(fmt::format(
        "ps-zmq --ps-transport mpi carries --ps-mode sync only (got {})", to_string(ps.mode)));
  if (options.compression != Compression::none)
    throw std::invalid_argument(
        fmt::format("ps-zmq --ps-transport mpi pushes fp32; --compression {} needs tcp or ipc",
                    to_string(options.compression)));
  if (ps.curve == "on")
    throw std::invalid_argument(
        "ps-zmq --ps-curve on is ZeroMQ's encryption; --ps-transport mpi has none");
}

}  // namespace

std::string ps_bind_host(const PsZmqOptions& ps, bool job_spans_hosts) {
  if (ps.bind_host != "auto") return ps.bind_host;
  return address_for_peers(job_spans_hosts);
}

PsPlacement parse_ps_placement(const std::string& text) {
  if (text == "colocated") return PsPlacement::colocated;
  if (text == "dedicated") return PsPlacement::dedicated;
  throw std::invalid_argument("unknown --ps-placement '" + text +
                              "' (known: colocated, dedicated)");
}

PsMode parse_ps_mode(std::string_view text) {
  if (text == "sync") return PsMode::sync;
  if (text == "async") return PsMode::async;
  if (text == "ssp") return PsMode::ssp;
  throw std::invalid_argument(
      fmt::format("unknown --ps-mode '{}' (known: sync, async, ssp)", text));
}

const char* to_string(PsMode mode) {
  switch (mode) {
    case PsMode::sync:
      return "sync";
    case PsMode::async:
      return "async";
    case PsMode::ssp:
      return "ssp";
  }
  return "unknown";
}

const char* to_string(PsPlacement placement) {
  return placement == PsPlacement::dedicated ? "dedicated" : "colocated";
}

std::span<const OptionFlag> ps_zmq_flags() { return kFlags; }

bool ps_rotated(const PsZmqOptions& ps) {
  return ps.schedule == "rotated" && ps.mode == PsMode::sync && ps.transport != "mpi";
}

int ps_sum_threads(const PsZmqOptions& ps, int shards_on_host) {
  if (ps.sum_threads > 0) return ps.sum_threads;
  return std::max(usable_cores() / std::max(shards_on_host, 1), 1);
}

std::size_t ps_partition_bytes(const PsZmqOptions& ps, bool job_spans_hosts) {
  if (ps.partition_bytes != 0) return ps.partition_bytes;
  return job_spans_hosts ? kPsPartitionAcrossHosts : kPsPartitionOneHost;
}

void ps_zmq_validate(const StrategyOptions& options, int world_size) {
  const PsZmqOptions& ps = options.ps;
  const int shards = ps.servers;
  if (shards < 1)
    throw std::invalid_argument(
        fmt::format("ps-zmq --ps-servers must be at least 1 (got {})", shards));
  if (ps.transport != "tcp" && ps.transport != "ipc" && ps.transport != "mpi")
    throw std::invalid_argument("unknown --ps-transport '" + ps.transport +
                                "' (known: tcp, ipc, mpi)");
  if (ps.transport == "mpi")
    check_mpi_transport(options);
  else if (engine_info().simulated)
    throw std::invalid_argument(fmt::format(
        "ps-zmq --ps-transport {} is ZeroMQ's, whose sockets and server threads run outside the "
        "simulation; under {} give --ps-transport mpi",
        ps.transport, engine_info().name));
  // Over MPI a timeout of 0 waits unbounded, as the MPI strategies do.
  if (ps.transport != "mpi" && !(options.timeout_s > 0))
    throw std::invalid_argument(
        fmt::format("ps-zmq --timeout must be positive (got {} s)", options.timeout_s));
  if (ps.shm != "auto" && ps.shm != "copy" && ps.shm != "off")
    throw std::invalid_argument("unknown --ps-shm '" + ps.shm + "' (known: auto, copy, off)");
  if (ps.schedule != "all-at-once" && ps.schedule != "rotated")
    throw std::invalid_argument("unknown --ps-schedule '" + ps.schedule +
                                "' (known: all-at-once, rotated)");
  if (ps.window < 1)
    throw std::invalid_argument(
        fmt::format("ps-zmq --ps-window must be at least 1 (got {})", ps.window));
  if (ps.sum_threads < 0 || ps.sum_threads > kMaxThreadsPerOption)
    throw std::invalid_argument(fmt::format("ps-zmq --ps-sum-threads {}: from 0 (auto) to {}",
                                            ps.sum_threads, kMaxThreadsPerOption));
  if (ps.curve != "auto" && ps.curve != "on" && ps.curve != "off")
    throw std::invalid_argument("unknown --ps-curve '" + ps.curve + "' (known: auto, on, off)");
  if (ps.staleness < 0)
    throw std::invalid_argument(
        fmt::format("ps-zmq --ps-staleness must be 0 or more (got {})", ps.staleness));
  if (ps.mode != PsMode::sync && options.compression != Compression::none)
    throw std::invalid_argument(fmt::format(
        "ps-zmq --ps-mode {} sends fp32 gradients and parameters; --compression {} is for "
        "--ps-mode sync",
        to_string(ps.mode), to_string(options.compression)));
  if (ps.mode != PsMode::sync && options.faults.delay_ms > 0)
    throw std::invalid_argument(fmt::format(
        "ps-zmq --ps-mode {} has no allreduce for --test-delay-ms to delay", to_string(ps.mode)));
  if (ps.placement == PsPlacement::colocated && shards > world_size)
    throw std::invalid_argument(fmt::format(
        "ps-zmq --ps-servers {} in colocated placement needs at least {} ranks (shard s runs in "
        "rank s), but the job has {}; use fewer shards or more ranks",
        shards, shards, world_size));
  if (ps.placement == PsPlacement::dedicated && world_size <= shards)
    throw std::invalid_argument(fmt::format(
        "ps-zmq --ps-placement dedicated needs more ranks than --ps-servers ({}): the first {} "
        "ranks only serve, but the job has {} rank{}, which leaves no worker",
        shards, shards, world_size, world_size == 1 ? "" : "s"));
}

int ps_zmq_dedicated_servers(const StrategyOptions& options) {
  return options.ps.placement == PsPlacement::dedicated ? options.ps.servers : 0;
}

void ps_zmq_set_servers(StrategyOptions& options, int k, bool dedicated) {
  options.ps.servers = k;
  options.ps.placement = dedicated ? PsPlacement::dedicated : PsPlacement::colocated;
}

std::string ps_zmq_label(const StrategyOptions& options) {
  const PsZmqOptions& ps = options.ps;
  if (ps.mode == PsMode::sync) return "ps-zmq";
  return fmt::format("ps-zmq {}{}", to_string(ps.mode),
                     ps.mode == PsMode::ssp ? fmt::format(" K={}", ps.staleness) : "");
}

bool ps_zmq_servers_own_parameters(const StrategyOptions& options) {
  return options.ps.mode != PsMode::sync;
}

std::string ps_zmq_train_note(const StrategyOptions& options) {
  const PsZmqOptions& ps = options.ps;
  if (!ps_zmq_servers_own_parameters(options)) return "";
  return fmt::format(
      "Parameters: owned by the PS shards (--ps-mode {}{}), SGD there at lr {:g}, momentum {:g}; "
      "each worker at its own pace, no fusion",
      to_string(ps.mode), ps.mode == PsMode::ssp ? fmt::format(", K = {}", ps.staleness) : "",
      options.sgd.lr, options.sgd.momentum);
}

}  // namespace gradsync
