// The gloo-* strategies (gloo.h): one Gloo mesh per strategy, and Gloo's own
// algorithm for every allreduce.
//
// gloo-ring and gloo-bcube call gloo::allreduce (Gloo's current API, the one
// PyTorch's ProcessGroupGloo uses) on the caller's buffer in place.
// gloo-ring-chunked and gloo-halving-doubling are Gloo's older algorithm
// objects, which bind their buffer and take slots of the context when they
// are made, on every rank in the same order; making one costs milliseconds
// (halving-doubling reserves 2p(p-1) slots). So they run on buffers of
// their own, kept per element count (the same sequence of counts on every
// rank, so the same objects on every rank), the caller's values copied in
// and the sums out: two copies at memory speed beside a transfer over TCP.
//
// Sums: float, or 16-bit elements of --compression with the suite's own
// 16-bit sum (reduce_kernel.h); Gloo's float16 has no bfloat16 beside it.
// Waits: every call into Gloo runs under a BlockingCallWatch, as
// mpi-allreduce's MPI_Allreduce does (bounded_wait.h): at --timeout the rank
// the stall board names speaks (which rank stopped answering) and ends the
// job. Gloo's own timeout is only the backstop behind it (twice --timeout
// and 5 s more, past every rank's last mark). A peer that dies closes its
// sockets, and Gloo throws at once, naming an address, not a rank: the rank
// holds 5 s (the longest a stalled wait holds), by when mpirun has normally ended
// the job and named the rank that died, and only then says, in one line,
// that a peer closed its connection.
// Traffic: Gloo counts nothing, so each rank counts the nominal 2(p-1)/p of
// the buffer each way per allreduce, as for NCCL.

#include "strategies/gloo/gloo.h"

#include <fmt/format.h>
#include <gloo/allreduce.h>
#include <gloo/allreduce_halving_doubling.h>
#include <gloo/allreduce_ring_chunked.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>

#include <chrono>
#include <cstring>
#include <deque>
#include <exception>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "strategies/core/bounded_wait.h"
#include "strategies/core/host_address.h"
#include "strategies/core/reduce_kernel.h"
#include "strategies/gloo/gloo_mesh.h"

namespace gradsync {

Availability gloo_availability() {
  return {true, "Gloo " GRADSYNC_GLOO_VERSION " (Debian libgloo), TCP"};
}

namespace {

// Gloo's own timeout, behind the watch: "none" (--timeout 0) is a year, since
// a zero timeout makes Gloo's waits give up at once.
std::chrono::milliseconds gloo_timeout(double timeout_s) {
  const double s = timeout_s > 0 ? 2 * timeout_s + 5 : 365 * 24 * 3600.0;
  return std::chrono::milliseconds(static_cast<long long>(std::min(s, 365 * 24 * 3600.0) * 1000));
}

enum class GlooAlgorithm { ring, bcube, ring_chunked, halving_doubling };

// The suite's sums, as Gloo's older objects call them: float, and the
// 16-bit formats of --compression.
void float_sum(float* x, const float* y, std::size_t n) { sum_into(x, y, n); }
void fp16_sum(std::uint16_t* x, const std::uint16_t* y, std::size_t n) {
  sum_into(x, y, n, Compression::fp16);
}
void bf16_sum(std::uint16_t* x, const std::uint16_t* y, std::size_t n) {
  sum_into(x, y, n, Compression::bf16);
}

// One of Gloo's older algorithm objects on a buffer of its own.
template <typename T>
struct BoundAlgorithm {
  std::size_t count;
  std::vector<T> buffer;
  std::unique_ptr<gloo::ReductionFunction<T>> sum;
  std::unique_ptr<gloo::Algorithm> algorithm;
};

class GlooStrategy final : public Strategy {
 public:
  GlooStrategy(const World& world, const StrategyOptions& options, GlooAlgorithm algorithm,
               std::string name)
      : world_(world.duplicate()),
        algorithm_(algorithm),
        name_(std::move(name)),
        timeout_s_(options.timeout_s),
        timeout_(gloo_timeout(options.timeout_s)),
        watch_(world_.comm(), options.timeout_s) {
    world_.set_timeout(options.timeout_s);
    if (world_.size() == 1) return;
    in_gloo("setting up", 0, [&] {
      mesh_ = std::make_shared<GlooMesh>(world_, address_for_peers(world_.spans_hosts()), timeout_);
    });
    // Bounded by the world itself, which names a rank that does not come.
    const std::vector<std::string> addresses = world_.allgather(mesh_->addresses());
    in_gloo("connecting", 0, [&] { mesh_->connect(addresses, name_); });
  }

  // No rank closes its pairs while another may still be reading what it
  // sent: a socket closed with unread data resets the connection, and the
  // peer loses what was in flight ("Connection closed by peer" at 5 ranks,
  // seen in the correctness tests). Skipped while an error unwinds, which
  // the peers learn of from their own waits.
  ~GlooStrategy() override {
    if (!mesh_ || std::uncaught_exceptions() > 0) return;
    try {
      world_.barrier();
    } catch (const std::exception&) {
    }
  }

  std::string_view name() const override { return name_; }
  const World& peers() const override { return world_; }

  void allreduce(std::span<float> buffer) override { reduce(buffer, Compression::none); }
  void allreduce_compressed(std::span<std::uint16_t> buffer, Compression format) override {
    reduce(buffer, format);
  }

  // Gloo's broadcast from `root`, in place.
  void broadcast(std::span<float> buffer, int root) override {
    if (world_.size() == 1 || buffer.empty()) return;
    in_gloo("broadcast", buffer.size_bytes(), [&] {
      gloo::BroadcastOptions opts(mesh_);
      opts.setRoot(root);
      opts.setOutput(buffer.data(), buffer.size());
      opts.setTimeout(timeout_);
      gloo::broadcast(opts);
    });
    (world_.rank() == root ? traffic_.bytes_sent : traffic_.bytes_received) +=
        buffer.size_bytes();
  }

 private:
  template <typename T>
  void reduce(std::span<T> buffer, Compression format) {
    const int p = world_.size();
    if (p == 1 || buffer.empty()) return;
    if (algorithm_ == GlooAlgorithm::ring || algorithm_ == GlooAlgorithm::bcube)
      reduce_in_place(buffer, format);
    else
      reduce_bound(buffer, format);
    const std::uint64_t nominal = 2 * static_cast<std::uint64_t>(p - 1) * buffer.size_bytes() / p;
    traffic_.bytes_sent += nominal;
    traffic_.bytes_received += nominal;
  }

  // gloo::allreduce on the caller's buffer: out = a + b, out perhaps a or b.
  template <typename T>
  void reduce_in_place(std::span<T> buffer, Compression format) {
    in_gloo("allreduce", buffer.size_bytes(), [&] {
      gloo::AllreduceOptions opts(mesh_);
      opts.setAlgorithm(algorithm_ == GlooAlgorithm::ring
                            ? gloo::AllreduceOptions::Algorithm::RING
                            : gloo::AllreduceOptions::Algorithm::BCUBE);
      opts.setOutput(buffer.data(), buffer.size());
      opts.setTimeout(timeout_);
      opts.setReduceFunction([format](void* out, const void* a, const void* b, std::size_t n) {
        T* c = static_cast<T*>(out);
        const T* x = static_cast<const T*>(a);
        const T* y = static_cast<const T*>(b);
        if (c == y) std::swap(x, y);
        if (c != x) std::memcpy(c, x, n * sizeof(T));
        if constexpr (std::is_same_v<T, float>)
          sum_into(c, y, n);
        else
          sum_into(c, y, n, format);
      });
      gloo::allreduce(opts);
    });
  }

  // Gloo's older objects: on a buffer of their own per element count.
  template <typename T>
  void reduce_bound(std::span<T> buffer, Compression format) {
    BoundAlgorithm<T>& bound = bound_for<T>(buffer.size(), format);
    std::memcpy(bound.buffer.data(), buffer.data(), buffer.size_bytes());
    in_gloo("allreduce", buffer.size_bytes(), [&] { bound.algorithm->run(); });
    std::memcpy(buffer.data(), bound.buffer.data(), buffer.size_bytes());
  }

  template <typename T>
  BoundAlgorithm<T>& bound_for(std::size_t count, Compression format) {
    std::deque<BoundAlgorithm<T>>& cache = cache_of<T>();
    for (auto& b : cache)
      if (b.count == count) return b;
    // Every rank sees the same counts in the same order: the same objects
    // are made, and dropped (the oldest first, once their buffers pass
    // kKeptBytes), on every rank.
    while (!cache.empty() && cached_bytes<T>() + count * sizeof(T) > kKeptBytes) cache.pop_front();
    BoundAlgorithm<T>& b = cache.emplace_back();
    b.count = count;
    b.buffer.resize(count);
    if constexpr (std::is_same_v<T, float>)
      b.sum = std::make_unique<gloo::ReductionFunction<float>>(gloo::SUM, &float_sum);
    else
      b.sum = std::make_unique<gloo::ReductionFunction<std::uint16_t>>(
          gloo::CUSTOM, format == Compression::bf16 ? &bf16_sum : &fp16_sum);
    if (count > static_cast<std::size_t>(std::numeric_limits<int>::max()))
      throw std::invalid_argument(name_ + ": a buffer of more than 2^31-1 elements");
    const std::vector<T*> pointers = {b.buffer.data()};
    in_gloo("setting up an allreduce", 0, [&] {
      if (algorithm_ == GlooAlgorithm::ring_chunked)
        b.algorithm = std::make_unique<gloo::AllreduceRingChunked<T>>(
            mesh_, pointers, static_cast<int>(count), b.sum.get());
      else
        b.algorithm = std::make_unique<gloo::AllreduceHalvingDoubling<T>>(
            mesh_, pointers, static_cast<int>(count), b.sum.get());
    });
    return b;
  }

  template <typename T>
  std::deque<BoundAlgorithm<T>>& cache_of() {
    if constexpr (std::is_same_v<T, float>)
      return floats_;
    else
      return halves_;
  }

  // Runs a call into Gloo (`operation` moving `bytes` per rank) under the
  // watch. Its failures become one line naming the strategy and the
  // operation, with Gloo's own words; a closed connection (a peer died)
  // first holds, so that mpirun's notice, which names the rank, comes first.
  template <typename Call>
  void in_gloo(const char* operation, std::size_t bytes, Call call) {
    const std::string what = name_ + " " + operation;
    try {
      watch_.run(what.c_str(), bytes, call);
    } catch (const gloo::IoException& e) {
      std::this_thread::sleep_for(std::chrono::duration<double>(kDeadPeerHoldS));
      const bool timed_out = std::string_view(e.what()).find("Timed out") != std::string::npos;
      throw std::runtime_error(
          timed_out ? fmt::format("{}: no answer within Gloo's own timeout of {:g} s (Gloo: {})",
                                  what, timeout_.count() / 1000.0, e.what())
                    : fmt::format("{}: a peer closed its connection; did a rank die? (Gloo: {})",
                                  what, e.what()));
    } catch (const std::exception& e) {
      throw std::runtime_error(what + ": " + e.what());
    }
  }

  template <typename T>
  std::size_t cached_bytes() {
    std::size_t bytes = 0;
    for (const auto& b : cache_of<T>()) bytes += b.buffer.size() * sizeof(T);
    return bytes;
  }

  // The older objects' own buffers kept, by element count: every bucket of
  // a model as large as ResNet-50 (100 MB) trained without fusion; Gloo
  // holds about as much again inside them.
  // How long a rank whose peer closed its connection holds its line: the
  // longest a rank behind a stall holds (hold_s's cap). mpirun's notice of a
  // killed rank came later than 1 s after the kill once in some 15 kills,
  // on a busy 2-core machine.
  static constexpr double kDeadPeerHoldS = 5.0;

  static constexpr std::size_t kKeptBytes = std::size_t{256} << 20;

  World world_;
  GlooAlgorithm algorithm_;
  std::string name_;
  double timeout_s_;
  std::chrono::milliseconds timeout_;  // Gloo's own, behind the watch
  BlockingCallWatch watch_;
  std::shared_ptr<GlooMesh> mesh_;  // null at one rank
  std::deque<BoundAlgorithm<float>> floats_;
  std::deque<BoundAlgorithm<std::uint16_t>> halves_;
};

}  // namespace

std::unique_ptr<Strategy> make_gloo_ring(const World& world, const StrategyOptions& options) {
  return std::make_unique<GlooStrategy>(world, options, GlooAlgorithm::ring, "gloo-ring");
}
std::unique_ptr<Strategy> make_gloo_bcube(const World& world, const StrategyOptions& options) {
  return std::make_unique<GlooStrategy>(world, options, GlooAlgorithm::bcube, "gloo-bcube");
}
std::unique_ptr<Strategy> make_gloo_ring_chunked(const World& world,
                                                 const StrategyOptions& options) {
  return std::make_unique<GlooStrategy>(world, options, GlooAlgorithm::ring_chunked,
                                        "gloo-ring-chunked");
}
std::unique_ptr<Strategy> make_gloo_halving_doubling(const World& world,
                                                     const StrategyOptions& options) {
  return std::make_unique<GlooStrategy>(world, options, GlooAlgorithm::halving_doubling,
                                        "gloo-halving-doubling");
}

}  // namespace gradsync
