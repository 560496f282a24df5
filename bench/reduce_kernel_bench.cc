// Throughput of the reduction kernel against a plain memcpy of the same
// buffer, so the kernel's cost reads as a fraction of memory bandwidth.
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "strategies/core/reduce_kernel.h"

namespace {

void BM_SumInto(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::vector<float> dst(n, 1.0f), src(n, 2.0f);
  for (auto _ : state) {
    gradsync::sum_into(dst.data(), src.data(), n);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  // Read dst and src, write dst.
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 3 * n * sizeof(float));
}

void BM_Memcpy(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::vector<float> dst(n, 1.0f), src(n, 2.0f);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), n * sizeof(float));
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  // Read src, write dst.
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 2 * n * sizeof(float));
}

}  // namespace

BENCHMARK(BM_SumInto)->RangeMultiplier(8)->Range(1 << 10, 1 << 24);
BENCHMARK(BM_Memcpy)->RangeMultiplier(8)->Range(1 << 10, 1 << 24);
BENCHMARK_MAIN();
