// nccl-ring and nccl-tree: NCCL's allreduce on device buffers, with NCCL's
// algorithm pinned to Ring or Tree (NCCL_ALGO), so that the two are compared
// under the same harness as the MPI and ZeroMQ strategies.
//
// Setup: rank 0 of the workers makes an ncclUniqueId and MPI broadcasts it;
// every rank then joins the communicator on the GPU of its local rank (one GPU
// per rank). NCCL reads NCCL_ALGO while it sets a communicator up, so the
// variable is set to the strategy's algorithm for the setup and put back
// afterwards. Only allreduce is pinned: NCCL has no Tree broadcast, and a
// bare NCCL_ALGO=Tree leaves ncclBroadcast (the parameters' broadcast before
// training) with no algorithm at all ("no algorithm/protocol available",
// ncclInvalidUsage) on two ranks or more. So nccl-tree sets
// "Ring,Tree;AllReduce:Tree" (NCCL's per-collective syntax: every collective
// may use Ring or Tree, allreduce only Tree); nccl-ring's "Ring" is valid for
// both collectives. The communicator is non-blocking: setup and every collective are
// polled with a deadline (--timeout), so that a peer that never arrives ends
// in an error naming the step, never a hang; the communicator is then aborted.
//
// Algorithms and cost, as NCCL documents them: Ring moves 2(p-1)/p n bytes
// per rank in 2(p-1) steps (bandwidth-optimal, latency linear in p); Tree is
// NCCL's double binary tree, with latency logarithmic in p and the same
// bandwidth term at large sizes. Collectives run in place on a stream of the
// strategy's own; allreduce returns once that stream is idle.
//
// What ran: NCCL_ALGO is a request, and NCCL may still choose otherwise (or
// have read its settings elsewhere), so the algorithm and protocol NCCL
// actually used are read from NCCL's own log (nccl_tuning_log.h): unless the
// user set NCCL_DEBUG, the process's NCCL logs its tuning lines to a file of
// this process's own, and rank 0 (the only rank NCCL logs them on) reports
// every allreduce size's algorithm and protocol in its account
// (nccl_account.h); without parsable lines the record says "unconfirmed".
// The cost: rank 0 writes one line of about 150 bytes per collective (a few
// microseconds on the host); NCCL_DEBUG=WARN in the environment turns it off.
//
// Traffic: NCCL counts none, so the counts are computed, per allreduce, with
// the pinned algorithm's formula (the records say "traffic_source":
// "computed"): the ring's 2(p-1)/p n per rank, the double binary tree's
// per-rank bytes of nccl_tree_traffic.h.
//
// zero2-nccl and zero3-nccl: the same communicator, pinned to Ring, as a
// sharded strategy (Strategy::reduce_scatter and all_gather). NCCL's
// reduce-scatter and all-gather give every rank the same count, so the
// shards are nccl_shard.h's: p equal parts, in place (ncclReduceScatter's
// receive buffer and ncclAllGather's send buffer are the rank's part of
// the buffer, which NCCL runs in place), and the count % p elements left at
// the end are the last rank's, reduced to it (ncclReduce) and broadcast
// from it (ncclBroadcast) in the same NCCL group. Traffic, computed: the
// ring's (p-1)/p n per call each way. Their allreduce is the two calls.

#include <fcntl.h>
#include <fmt/format.h>
#include <nccl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "gpu/check_nccl.h"
#include "gpu/device.h"
#include "gpu/stream.h"
#include "strategies/core/bounded_wait.h"
#include "strategies/core/local_gpu.h"
#include "strategies/core/wait_clock.h"
#include "strategies/nccl/nccl.h"
#include "strategies/nccl/nccl_account.h"
#include "strategies/nccl/nccl_shard.h"
#include "strategies/nccl/nccl_tree_traffic.h"
#include "strategies/nccl/nccl_tuning_log.h"

namespace gradsync {
namespace {

using Clock = std::chrono::steady_clock;

// Sets an environment variable for the lifetime of the object, then restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// This process's NCCL log, in a file of its own. NCCL reads NCCL_DEBUG,
// NCCL_DEBUG_SUBSYS and NCCL_DEBUG_FILE once per process, at its first log
// line (src/debug.cc, ncclDebugInit), so they are set before the process's
// first NCCL call and stay set; a user's own NCCL_DEBUG is left alone (and the
// algorithm stays unconfirmed). The file is made and held open here; its name
// is removed once a communicator is up (NCCL holds the file open too), so
// nothing is left behind, and it is read through the descriptor.
class NcclLog {
 public:
  static NcclLog& process() {
    static NcclLog log;
    return log;
  }
  NcclLog(const NcclLog&) = delete;
  NcclLog& operator=(const NcclLog&) = delete;
  ~NcclLog() {
    forget_name();
    if (fd_ >= 0) ::close(fd_);
  }

  // Empty when the log is read; else why not.
  const std::string& unavailable() const { return unavailable_; }

  // Bytes NCCL has written so far: where a new communicator's lines start.
  std::uint64_t size() const {
    struct stat st {};
    return fd_ >= 0 && ::fstat(fd_, &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
  }

  // The allreduces logged from `offset` on.
  std::vector<NcclAllreduceChoice> choices_since(std::uint64_t offset) const {
    std::string text;
    char chunk[1 << 16];
    for (off_t at = static_cast<off_t>(offset);;) {
      const ssize_t n = ::pread(fd_, chunk, sizeof chunk, at);
      if (n <= 0) break;
      text.append(chunk, static_cast<std::size_t>(n));
      at += n;
    }
    std::istringstream lines(text);
    return nccl_allreduce_choices(lines);
  }

  void forget_name() noexcept {
    if (!path_.empty()) ::unlink(path_.c_str());
    path_.clear();
  }

 private:
  NcclLog() : unavailable_(nccl_log_unavailable(std::getenv("NCCL_DEBUG"))) {
    if (!unavailable_.empty()) return;
    const char* dir = std::getenv("TMPDIR");
    path_ = fmt::format("{}/gradsync-nccl-{}.log", dir && *dir ? dir : "/tmp", ::getpid());
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd_ < 0) {
      unavailable_ =
          fmt::format("cannot make a file for NCCL's log ({}: {})", path_, std::strerror(errno));
      path_.clear();
      return;
    }
    std::string escaped;  // NCCL expands %h and %p in the name: a literal % is %%
    for (char c : path_) escaped += c == '%' ? std::string("%%") : std::string(1, c);
    ::setenv("NCCL_DEBUG", "INFO", 1);
    ::setenv("NCCL_DEBUG_SUBSYS", "TUNING", 1);
    ::setenv("NCCL_DEBUG_FILE", escaped.c_str(), 1);
  }

  std::string unavailable_;
  std::string path_;
  int fd_ = -1;
};

class Nccl final : public Strategy {
 public:
  Nccl(const World& world, const StrategyOptions& options, std::string_view name,
       const char* algorithm, bool tree, Sharding sharding = Sharding::none)
      : world_(world.duplicate()),
        name_(name),
        timeout_s_(options.timeout_s),
        tree_(tree),
        sharding_(sharding),
        log_start_(NcclLog::process().size()) {
    world_.set_timeout(timeout_s_);
    const std::vector<std::string> hosts = world_.hosts();
    node_ =
        static_cast<int>(std::find(hosts.begin(), hosts.end(), world_.hostname()) - hosts.begin());
    nodes_ = static_cast<int>(hosts.size());
    device_ = select_local_gpu(world_, {.exclusive_for = std::string(name_)});
    // Owned: freed on every path below that throws, and after the communicator.
    stream_.emplace("the NCCL strategy's stream");
    ncclUniqueId id{};
    if (world_.rank() == 0) check("ncclGetUniqueId", ncclGetUniqueId(&id));
    MPI_Request request;
    check_mpi(MPI_Ibcast(&id, sizeof id, MPI_BYTE, 0, world_.comm(), &request),
              "MPI_Ibcast(ncclUniqueId)");
    wait_collective(request, sizeof id, {"MPI_Bcast(ncclUniqueId)", world_.comm(), timeout_s_});
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    const ScopedEnv pin("NCCL_ALGO", algorithm);
    try {
      enqueue("ncclCommInitRankConfig",
              ncclCommInitRankConfig(&comm_, world_.size(), id, world_.rank(), &config));
      wait_idle("communicator setup", nullptr);
    } catch (...) {
      release();  // the destructor does not run for a half-built object
      throw;
    }
    NcclLog::process().forget_name();  // NCCL has opened it by now
  }

  ~Nccl() override { release(); }

  std::string_view name() const override { return name_; }
  const World& peers() const override { return world_; }
  bool accepts(MemoryKind kind) const override { return kind == MemoryKind::device; }
  Sharding sharding() const override { return sharding_; }
  Range shard(std::size_t count) const override {
    if (sharding_ == Sharding::none) return Strategy::shard(count);
    return nccl_shard(count, static_cast<std::size_t>(world_.size()),
                      static_cast<std::size_t>(world_.rank()));
  }

  void allreduce(std::span<float> buffer) override {
    if (buffer.empty()) return;
    if (sharding_ != Sharding::none) {
      reduce_scatter(buffer);
      all_gather(buffer);
      return;
    }
    use_device(device_);
    enqueue("ncclAllReduce", ncclAllReduce(buffer.data(), buffer.data(), buffer.size(), ncclFloat,
                                           ncclSum, comm_, stream()));
    wait_idle("allreduce", &buffer);
    // NCCL does not count its traffic: computed, with the pinned algorithm's
    // formula (see the top of the file).
    const std::uint64_t bytes = computed_bytes(buffer.size_bytes());
    traffic_.bytes_sent += bytes;
    traffic_.bytes_received += bytes;
  }

  // The equal parts in one call, the tail reduced to the last rank.
  void reduce_scatter(std::span<float> buffer) override {
    const Parts parts = parts_of(buffer);
    if (!parts.calls) return;
    grouped("ncclReduceScatter", buffer, [&] {
      if (parts.each > 0)
        enqueue("ncclReduceScatter",
                ncclReduceScatter(buffer.data(), buffer.data() + parts.mine, parts.each, ncclFloat,
                                  ncclSum, comm_, stream()));
      if (parts.tail > 0)
        enqueue("ncclReduce", ncclReduce(parts.tail_data, parts.tail_data, parts.tail, ncclFloat,
                                         ncclSum, world_.size() - 1, comm_, stream()));
    });
  }

  // The equal parts in one call, the tail broadcast from the last rank.
  void all_gather(std::span<float> buffer) override {
    const Parts parts = parts_of(buffer);
    if (!parts.calls) return;
    grouped("ncclAllGather", buffer, [&] {
      if (parts.each > 0)
        enqueue("ncclAllGather", ncclAllGather(buffer.data() + parts.mine, buffer.data(),
                                               parts.each, ncclFloat, comm_, stream()));
      if (parts.tail > 0)
        enqueue("ncclBroadcast", ncclBroadcast(parts.tail_data, parts.tail_data, parts.tail,
                                               ncclFloat, world_.size() - 1, comm_, stream()));
    });
  }

  // Rank 0 of the communicator tells what NCCL's log says it ran (its
  // allreduces: the sharded entries run none of their own).
  std::string account() const override {
    if (world_.rank() != 0 || sharding_ != Sharding::none) return {};
    const NcclLog& log = NcclLog::process();
    if (!log.unavailable().empty()) return nccl_account_part({}, log.unavailable());
    return nccl_account_part(log.choices_since(log_start_), {});
  }

  void broadcast(std::span<float> buffer, int root) override {
    if (buffer.empty()) return;
    use_device(device_);
    enqueue("ncclBroadcast", ncclBroadcast(buffer.data(), buffer.data(), buffer.size(), ncclFloat,
                                           root, comm_, stream()));
    wait_idle("broadcast", &buffer);
  }

 private:
  [[noreturn]] void fail(const char* what, ncclResult_t rc) {
    broken_ = true;
    throw_cuda_error(
        rc, comm_, what,
        fmt::format("{} rank {} on {} (GPU {})", name_, world_.rank(), world_.hostname(), device_));
  }
  void check(const char* what, ncclResult_t rc) {
    if (rc != ncclSuccess) fail(what, rc);
  }
  void enqueue(const char* what, ncclResult_t rc) {
    if (rc != ncclSuccess && rc != ncclInProgress) fail(what, rc);
  }
  cudaStream_t stream() const { return stream_->get(); }

  // A sharded call's pieces of `buffer`, from its shards (shard(), nccl_shard.h):
  // the equal part's length (the first worker's shard), this rank's offset,
  // and the tail past the p equal parts; no calls at 1 rank or for an empty
  // buffer.
  struct Parts {
    bool calls = false;
    std::size_t each = 0, mine = 0, tail = 0;
    float* tail_data = nullptr;
  };
  Parts parts_of(std::span<float> buffer) const {
    const auto p = static_cast<std::size_t>(world_.size());
    if (p == 1 || buffer.empty()) return {};
    const std::size_t each = nccl_shard(buffer.size(), p, 0).count;
    return {.calls = true,
            .each = each,
            .mine = shard(buffer.size()).offset,
            .tail = buffer.size() - each * p,
            .tail_data = buffer.data() + each * p};
  }

  // `enqueue_calls` inside one NCCL group, waited for; the ring's (p-1)/p
  // of the buffer counted each way.
  template <typename Enqueue>
  void grouped(const char* what, std::span<float> buffer, Enqueue enqueue_calls) {
    use_device(device_);
    enqueue("ncclGroupStart", ncclGroupStart());
    enqueue_calls();
    enqueue("ncclGroupEnd", ncclGroupEnd());
    wait_idle(what, &buffer);
    const std::uint64_t p = world_.size();
    const std::uint64_t bytes = (p - 1) * buffer.size_bytes() / p;
    traffic_.bytes_sent += bytes;
    traffic_.bytes_received += bytes;
  }

  // This rank's bytes each way in an allreduce of `bytes`.
  std::uint64_t computed_bytes(std::uint64_t bytes) const {
    if (tree_)
      return nccl_tree_rank_bytes(bytes, node_, nodes_, world_.local_rank(), world_.local_size());
    const std::uint64_t p = world_.size();
    return 2 * (p - 1) * bytes / p;
  }

  // Frees the communicator: flushed and destroyed when healthy (within the
  // deadline), aborted after an error or a timeout. The stream outlives it
  // (a member, destroyed after the destructor's body).
  void release() noexcept {
    if (cudaSetDevice(device_) != cudaSuccess) broken_ = true;
    if (comm_ && !broken_) {
      try {
        enqueue("ncclCommFinalize", ncclCommFinalize(comm_));
        wait_idle("communicator finalize", nullptr);
      } catch (...) {
        broken_ = true;
      }
    }
    if (comm_) broken_ ? ncclCommAbort(comm_) : ncclCommDestroy(comm_);
    comm_ = nullptr;
  }

  // Polls the communicator (and, for a collective, the stream) until both are
  // idle; throws on an NCCL error or when the deadline passes.
  void wait_idle(const char* what, const std::span<float>* buffer) {
    // Time this process did not run (it was stopped) does not count (wait_clock.h).
    WaitClock clock(what, Clock::duration::zero());
    for (;;) {
      ncclResult_t state = ncclSuccess;
      check("ncclCommGetAsyncError", ncclCommGetAsyncError(comm_, &state));
      if (state != ncclSuccess && state != ncclInProgress) fail(what, state);
      if (state == ncclSuccess) {
        if (!buffer) return;
        const cudaError_t rc = cudaStreamQuery(stream());
        if (rc == cudaSuccess) return;
        if (rc != cudaErrorNotReady) {
          broken_ = true;
          check_cuda(rc, "cudaStreamQuery", fmt::format("{} {}", name_, what));
        }
      }
      if (clock.read_s() > timeout_s_) {
        broken_ = true;
        throw std::runtime_error(fmt::format(
            "{} rank {} on {}: {}{} did not finish within {} s: a peer did not answer (see "
            "--timeout)",
            name_, world_.rank(), world_.hostname(), what,
            buffer ? fmt::format(" of {} bytes", buffer->size_bytes()) : std::string(),
            timeout_s_));
      }
      std::this_thread::yield();
    }
  }

  World world_;
  std::string_view name_;
  double timeout_s_;
  bool tree_;
  Sharding sharding_;
  std::uint64_t log_start_;   // where this communicator's lines start in NCCL's log
  int node_ = 0, nodes_ = 1;  // this rank's host among the hosts, in rank order
  int device_ = 0;
  std::optional<CudaStream> stream_;  // made once the GPU is chosen
  ncclComm_t comm_ = nullptr;
  bool broken_ = false;
};

}  // namespace

std::unique_ptr<Strategy> cuda::make_nccl(const World& world, const StrategyOptions& options,
                                          bool tree) {
  if (tree)
    return std::make_unique<Nccl>(world, options, "nccl-tree", "Ring,Tree;AllReduce:Tree", true);
  return std::make_unique<Nccl>(world, options, "nccl-ring", "Ring", false);
}

std::unique_ptr<Strategy> cuda::make_nccl_sharded(const World& world,
                                                  const StrategyOptions& options,
                                                  Sharding sharding) {
  return std::make_unique<Nccl>(world, options,
                                sharding == Sharding::parameters ? "zero3-nccl" : "zero2-nccl",
                                "Ring", false, sharding);
}

}  // namespace gradsync
