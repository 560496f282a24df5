#include "strategies/mpi_allreduce.h"

#include <algorithm>
#include <climits>
#include <cstring>

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

// MPI counts are int: larger buffers go in pieces of at most this many elements.
constexpr std::size_t kMaxMpiCount = INT_MAX / 2;

// Calls `call(pointer, count)` for consecutive pieces that an int count can hold.
template <typename Call>
void in_int_pieces(std::span<float> buffer, Call call) {
  for (std::size_t done = 0; done < buffer.size(); done += kMaxMpiCount)
    call(buffer.data() + done, static_cast<int>(std::min(kMaxMpiCount, buffer.size() - done)));
}

class MpiAllreduce final : public Strategy {
 public:
  explicit MpiAllreduce(const World& world) : world_(world.duplicate()) {}
  std::string_view name() const override { return "mpi-allreduce"; }

  void allreduce(std::span<float> buffer) override {
    in_int_pieces(buffer, [&](float* piece, int n) {
      check_mpi(MPI_Allreduce(MPI_IN_PLACE, piece, n, MPI_FLOAT, MPI_SUM, world_.comm()),
                "MPI_Allreduce");
    });
    // What a bandwidth-optimal algorithm moves; the library's own choice is hidden.
    count_traffic(buffer.size());
  }

  void broadcast(std::span<float> buffer, int root) override {
    in_int_pieces(buffer, [&](float* piece, int n) {
      check_mpi(MPI_Bcast(piece, n, MPI_FLOAT, root, world_.comm()), "MPI_Bcast");
    });
  }

  const World& peers() const override { return world_; }
  bool accepts(MemoryKind kind) const override {
    return kind == MemoryKind::host || cuda_aware_mpi();
  }

 private:
  void count_traffic(std::size_t count) {
    const int p = world_.size();
    const std::uint64_t bytes = 2ull * (p - 1) * count * sizeof(float) / p;
    traffic_.bytes_sent += bytes;
    traffic_.bytes_received += bytes;
  }

  World world_;
};

}  // namespace

std::unique_ptr<Strategy> make_mpi_allreduce(const World& world, const StrategyOptions&) {
  return std::make_unique<MpiAllreduce>(world);
}

std::string mpi_library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(text, &len);
  // Open MPI counts the terminating NUL in len; keep the first line only.
  std::string version(text, strnlen(text, len));
  if (auto nl = version.find_first_of("\r\n"); nl != std::string::npos) version.resize(nl);
  while (!version.empty() && version.back() == ' ') version.pop_back();
  return version;
}

Availability mpi_allreduce_availability() {
  return {true, mpi_library_version() +
                    (cuda_aware_mpi() ? " (CUDA-aware)" : " (not CUDA-aware: device buffers staged)")};
}

}  // namespace gradsync
