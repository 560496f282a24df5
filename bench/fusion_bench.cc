// What the synchronizer itself costs: packing gradients into fusion buckets
// and copying them back averaged, with a strategy that costs nothing
// (LocalSum: the sum over the workers of this process's buffer is itself, as
// on one worker), so that every nanosecond is the harness's own.
//
//   BM_Memcpy                the reference: one copy of the same bytes
//   BM_Synchronizer/F/O/B    one step of 16 MiB of gradients (64 x 256 KiB)
//                            through the synchronizer with fusion F KiB (0: off,
//                            every gradient reduced in place) and overlap O;
//                            B 0: one allocation per gradient (fused buckets
//                            are packed), B 1: one block in backward order, as
//                            a model lays it out (buckets reduced in place);
//                            counters: pack, unpack and wait in microseconds per MiB of gradients
//
// Gradients are divided by peers().size(). On one rank that is 1, and the copy
// back is a plain copy; under `scripts/mpirun.sh -np 2 build/bin/fusion_bench`
// each rank runs alone (LocalSum sends nothing) but divides by 2, which shows
// the division pass. Only rank 0 prints.
//   build/bin/fusion_bench
#include <benchmark/benchmark.h>

#include <cstring>
#include <span>
#include <vector>

#include "harness/engine/synchronizer.h"
#include "strategies/core/world.h"

namespace {

using gradsync::GradientSynchronizer;

class LocalSum final : public gradsync::Strategy {
 public:
  std::string_view name() const override { return "local-sum"; }
  void allreduce(std::span<float> buffer) override { benchmark::DoNotOptimize(buffer.data()); }
  void broadcast(std::span<float>, int) override {}
  const gradsync::World& peers() const override { return world_; }

 private:
  gradsync::World world_{MPI_COMM_WORLD};
};

constexpr std::size_t kGradients = 64;
constexpr std::size_t kGradientFloats = 64 * 1024;  // 256 KiB
constexpr double kMiB = kGradients * kGradientFloats * sizeof(float) / (1024.0 * 1024.0);

void BM_Memcpy(benchmark::State& state) {
  std::vector<float> from(kGradients * kGradientFloats, 1.0f), to(from.size());
  for (auto _ : state) {
    std::memcpy(to.data(), from.data(), from.size() * sizeof(float));
    benchmark::DoNotOptimize(to.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * from.size() * sizeof(float)));
}
BENCHMARK(BM_Memcpy)->Unit(benchmark::kMillisecond);

void BM_Synchronizer(benchmark::State& state) {
  const double fusion_mb = static_cast<double>(state.range(0)) / 1024.0;
  const bool overlap = state.range(1) != 0;
  const bool block = state.range(2) != 0;
  LocalSum strategy;
  std::vector<std::vector<float>> gradients(block ? 0 : kGradients,
                                            std::vector<float>(kGradientFloats, 1.0f));
  std::vector<float> storage(block ? kGradients * kGradientFloats : 0, 1.0f);
  std::vector<std::span<float>> spans(gradients.begin(), gradients.end());
  for (std::size_t i = 0; block && i < kGradients; ++i)  // gradient kGradients - 1 first
    spans.emplace_back(storage.data() + (kGradients - 1 - i) * kGradientFloats, kGradientFloats);
  GradientSynchronizer sync(strategy, spans, {fusion_mb, overlap});
  double pack_s = 0, unpack_s = 0, wait_s = 0;
  for (auto _ : state) {
    for (std::size_t i = kGradients; i-- > 0;) sync.ready(i);  // backward order
    const gradsync::SyncStats stats = sync.finish();
    pack_s += stats.pack_s;
    unpack_s += stats.unpack_s;
    wait_s += stats.wait_s;
  }
  const double per_mib_us = 1e6 / (static_cast<double>(state.iterations()) * kMiB);
  state.counters["pack_us_per_MiB"] = pack_s * per_mib_us;
  state.counters["unpack_us_per_MiB"] = unpack_s * per_mib_us;
  state.counters["wait_us_per_MiB"] = wait_s * per_mib_us;
  state.SetBytesProcessed(
      static_cast<int64_t>(state.iterations() * kGradients * kGradientFloats * sizeof(float)));
}
BENCHMARK(BM_Synchronizer)
    ->ArgsProduct({{0, 1024, 64 * 1024}, {0, 1}, {0, 1}})
    ->ArgNames({"fusion_KiB", "overlap", "block"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Ranks other than 0 run the same benchmarks without printing.
class Silent final : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

}  // namespace

int main(int argc, char** argv) {
  gradsync::MpiSession mpi(&argc, &argv);
  benchmark::Initialize(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    benchmark::RunSpecifiedBenchmarks();
  } else {
    Silent quiet;
    benchmark::RunSpecifiedBenchmarks(&quiet);
  }
  benchmark::Shutdown();
  return 0;
}
