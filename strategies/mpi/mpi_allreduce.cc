#include "strategies/mpi/mpi_allreduce.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string_view>

#include "strategies/core/bounded_wait.h"
#include "strategies/core/engine.h"
#include "strategies/core/partition.h"
#include "strategies/mpi/mpi_count.h"
#include "strategies/mpi/mpi_sum_ops.h"

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI: MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support
#endif

namespace gradsync {

bool cuda_aware_mpi() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

namespace {

// Calls `call(pointer, count)` for consecutive pieces that an int count can hold.
template <typename T, typename Call>
void in_int_pieces(std::span<T> buffer, Call call) {
  for (std::size_t done = 0; done < buffer.size(); done += kMaxMpiCount)
    call(buffer.data() + done, static_cast<int>(std::min(kMaxMpiCount, buffer.size() - done)));
}

class MpiAllreduce final : public Strategy {
 public:
  MpiAllreduce(const World& world, double timeout_s)
      : world_(world.duplicate()), watch_(world_.comm(), timeout_s) {
    world_.set_timeout(timeout_s);
  }
  std::string_view name() const override { return "mpi-allreduce"; }

  // The blocking call, which is what this strategy measures (Open MPI's
  // MPI_Iallreduce is another, slower implementation), watched from outside:
  // past --timeout the job ends with one line saying a rank stopped.
  void allreduce(std::span<float> buffer) override { reduce(buffer, MPI_FLOAT, MPI_SUM); }

  // 16-bit elements, summed at 16 bits by a user operation (which MPI runs
  // with its own algorithm, often slower than its built-in float sum).
  void allreduce_compressed(std::span<std::uint16_t> buffer, Compression format) override {
    reduce(buffer, MPI_UINT16_T, sums_.get(format));
  }

  void broadcast(std::span<float> buffer, int root) override {
    mpi_broadcast(world_, buffer, root);
  }

  // Under SMPI: the algorithm SimGrid's selector runs (every operation this
  // strategy sums with commutes). Natively the library does not say.
  std::string path_for(std::size_t count, std::size_t element_bytes) const override {
    return engine_allreduce_algorithm(world_.size(), count * element_bytes, count);
  }

  const World& peers() const override { return world_; }
  bool accepts(MemoryKind kind) const override {
    return kind == MemoryKind::host || cuda_aware_mpi();
  }

 private:
  template <typename T>
  void reduce(std::span<T> buffer, MPI_Datatype type, MPI_Op op) {
    in_int_pieces(buffer, [&](T* piece, int n) {
      watch_.run("MPI_Allreduce", n * sizeof(T), [&] {
        check_mpi(MPI_Allreduce(MPI_IN_PLACE, piece, n, type, op, world_.comm()),
                  "MPI_Allreduce");
      });
    });
    // What a bandwidth-optimal algorithm moves; the library's own choice is hidden.
    count_traffic(buffer.size_bytes());
  }

  void count_traffic(std::size_t buffer_bytes) {
    const int p = world_.size();
    const std::uint64_t bytes = 2ull * (p - 1) * buffer_bytes / p;
    traffic_.bytes_sent += bytes;
    traffic_.bytes_received += bytes;
  }

  World world_;
  BlockingCallWatch watch_;
  MpiSumOps sums_;
};

}  // namespace

// Not measured (train broadcasts the parameters once): the non-blocking
// form, which gives up with an error (bounded_wait.h).
void mpi_broadcast(const World& world, std::span<float> buffer, int root) {
  in_int_pieces(buffer, [&](float* piece, int n) {
    MPI_Request request;
    check_mpi(MPI_Ibcast(piece, n, MPI_FLOAT, root, world.comm(), &request), "MPI_Ibcast");
    wait_collective(request, n * sizeof(float), {"MPI_Bcast", world.comm(), world.timeout()});
  });
}

std::unique_ptr<Strategy> make_mpi_allreduce(const World& world, const StrategyOptions& options) {
  return std::make_unique<MpiAllreduce>(world, options.timeout_s);
}

std::string mpi_library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(text, &len);
  // Open MPI counts the terminating NUL in len; keep the first line only,
  // its blanks folded to one space (MPICH's is "MPICH Version:\t4.0.2").
  const std::string_view all(text, strnlen(text, len));
  std::string version;
  for (char c : all.substr(0, all.find_first_of("\r\n"))) {
    const bool blank = c == ' ' || c == '\t';
    if (blank && (version.empty() || version.back() == ' ')) continue;
    version += blank ? ' ' : c;
  }
  if (!version.empty() && version.back() == ' ') version.pop_back();
  return version;
}

Availability mpi_allreduce_availability() {
  return {true, mpi_library_version() +
                    (cuda_aware_mpi() ? " (CUDA-aware)" : " (not CUDA-aware: device buffers staged)")};
}

// Over p' = 2^k ranks: k halving steps exchange half, a quarter, ... of the
// buffer with the partner at distance 1, 2, 4, ... (MPICH's order, Open
// MPI's and SimGrid's rab_rdb alike) and add what arrives (reduce-scatter); k doubling steps send the finished pieces back
// (allgather). Counted in blocks of the buffer cut into p' even parts: each
// half sends p' - 1 blocks, of the largest size. When p is not a power of
// two, each of the p - p' extra ranks first sends its whole buffer to a
// partner inside the p', which adds it, and gets the result back at the end:
// two whole-buffer messages more, n more additions, and 2n more bytes,
// because the fold-in and the fold-out are sequential (before and after the
// rest), so full duplex does not hide one behind the other. On nodes of
// several workers the near steps stay inside the node and the far ones
// share its link (rabenseifner_by_node).
AllreduceCounts mpi_allreduce_counts(double bytes, const StrategyOptions&,
                                     const WorkerPlacement& placement) {
  return rabenseifner_by_node(bytes, placement.workers, placement.workers_per_node);
}

}  // namespace gradsync
