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

#include <nccl.h>

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "gpu/check_nccl.h"
#include "gpu/device.h"
#include "strategies/core/bounded_wait.h"
#include "strategies/core/local_gpu.h"
#include "strategies/nccl/nccl.h"
#include "strategies/core/wait_clock.h"

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
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

class Nccl final : public Strategy {
 public:
  Nccl(const World& world, const StrategyOptions& options, std::string_view name,
       const char* algorithm)
      : world_(world.duplicate()), name_(name), timeout_s_(options.timeout_s) {
    world_.set_timeout(timeout_s_);
    device_ = select_local_gpu(world_);
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
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
  }

  ~Nccl() override { release(); }

  std::string_view name() const override { return name_; }
  const World& peers() const override { return world_; }
  bool accepts(MemoryKind kind) const override { return kind == MemoryKind::device; }

  void allreduce(std::span<float> buffer) override {
    if (buffer.empty()) return;
    use_device(device_);
    enqueue("ncclAllReduce", ncclAllReduce(buffer.data(), buffer.data(), buffer.size(), ncclFloat,
                                           ncclSum, comm_, stream_));
    wait_idle("allreduce", &buffer);
    // NCCL does not count its traffic: this is the ring's (and, at large
    // sizes, the tree's) per-rank volume, the figure busbw is built on.
    const int p = world_.size();
    const std::uint64_t bytes = 2ull * (p - 1) * buffer.size_bytes() / p;
    traffic_.bytes_sent += bytes;
    traffic_.bytes_received += bytes;
  }

  void broadcast(std::span<float> buffer, int root) override {
    if (buffer.empty()) return;
    use_device(device_);
    enqueue("ncclBroadcast", ncclBroadcast(buffer.data(), buffer.data(), buffer.size(), ncclFloat,
                                           root, comm_, stream_));
    wait_idle("broadcast", &buffer);
  }

 private:
  [[noreturn]] void fail(const char* what, ncclResult_t rc) {
    broken_ = true;
    throw_cuda_error(rc, comm_, what,
                     fmt::format("{} rank {} on {} (GPU {})", name_, world_.rank(),
                                 world_.hostname(), device_));
  }
  void check(const char* what, ncclResult_t rc) {
    if (rc != ncclSuccess) fail(what, rc);
  }
  void enqueue(const char* what, ncclResult_t rc) {
    if (rc != ncclSuccess && rc != ncclInProgress) fail(what, rc);
  }

  // Frees the communicator: flushed and destroyed when healthy (within the
  // deadline), aborted after an error or a timeout.
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
    if (stream_) cudaStreamDestroy(stream_);
    stream_ = nullptr;
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
        const cudaError_t rc = cudaStreamQuery(stream_);
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
            buffer ? fmt::format(" of {} bytes", buffer->size_bytes()) : std::string(), timeout_s_));
      }
      std::this_thread::yield();
    }
  }

  World world_;
  std::string_view name_;
  double timeout_s_;
  int device_ = 0;
  cudaStream_t stream_ = nullptr;
  ncclComm_t comm_ = nullptr;
  bool broken_ = false;
};

}  // namespace

std::unique_ptr<Strategy> cuda::make_nccl(const World& world, const StrategyOptions& options,
                                           bool tree) {
  if (tree) return std::make_unique<Nccl>(world, options, "nccl-tree", "Ring,Tree;AllReduce:Tree");
  return std::make_unique<Nccl>(world, options, "nccl-ring", "Ring");
}

}  // namespace gradsync
