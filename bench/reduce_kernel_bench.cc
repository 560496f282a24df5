// Throughput of the reduction kernel against a plain memcpy of the same
// buffer, so the kernel's cost reads as a fraction of memory bandwidth; the
// 16-bit sums of --compression; and --compression's casts, fp32 to 16 bits
// and back, as one call of the decorator (compressed.h) does them. The casts'
// rate in fp32 bytes per second is what a cluster file's "casts" holds (the
// cost model adds it to every compressed allreduce; `gradsync calibrate`
// measures it the same way, 64 MiB).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "strategies/core/compression.h"
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

// dst += src on 16-bit elements, each sum rounded back (the MPI strategies'
// additions under --compression).
template <gradsync::Compression format>
void BM_SumInto16(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::vector<std::uint16_t> dst(n, 0x3c00), src(n, 0x3c00);  // 1.0 in fp16; 1.875 in bf16
  for (auto _ : state) {
    gradsync::sum_into(dst.data(), src.data(), n, format);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 3 * n * sizeof(std::uint16_t));
}

// fp32 to 16 bits and back over n floats; bytes: the fp32 buffer's.
template <gradsync::Compression format>
void BM_CastRoundTrip(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::vector<float> values(n, 0.5f);
  std::vector<std::uint16_t> half(n);
  for (auto _ : state) {
    gradsync::compress(values, half, format);
    gradsync::decompress(half, values, format);
    benchmark::DoNotOptimize(values.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * n * sizeof(float));
}

}  // namespace

BENCHMARK(BM_SumInto)->RangeMultiplier(8)->Range(1 << 10, 1 << 24);
BENCHMARK(BM_Memcpy)->RangeMultiplier(8)->Range(1 << 10, 1 << 24);
BENCHMARK(BM_SumInto16<gradsync::Compression::fp16>)->RangeMultiplier(8)->Range(1 << 10, 1 << 24);
BENCHMARK(BM_SumInto16<gradsync::Compression::bf16>)->RangeMultiplier(8)->Range(1 << 10, 1 << 24);
BENCHMARK(BM_CastRoundTrip<gradsync::Compression::fp16>)->RangeMultiplier(8)->Range(1 << 10, 1 << 24);
BENCHMARK(BM_CastRoundTrip<gradsync::Compression::bf16>)->RangeMultiplier(8)->Range(1 << 10, 1 << 24);
BENCHMARK_MAIN();
