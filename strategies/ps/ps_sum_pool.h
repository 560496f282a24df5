#pragma once
// The threads a parameter-server shard sums with on the shared-memory path
// (ps_server_shared.cc), and the sum itself. While a shard sums, the workers
// it serves wait for its reply, so their cores are free: the shard's own
// thread and `threads - 1` helpers each add up a contiguous slice of the
// partition. Each element's sum is still the workers' values added in
// worker order, so the result is the same bit for bit however the range is
// cut. The helpers start with the pool and are stopped and joined with it;
// between sums they sleep.

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "strategies/core/compression.h"
#include "strategies/core/partition.h"

namespace gradsync {

// The slices that `threads` threads sum `count` elements in, in order: as
// even as `grain` allows (every boundary a multiple of it, so that each
// slice keeps its cache-sized chunks whole), no more than `threads`, and no
// more than lets each hold `min_slice` elements; one slice when count is
// smaller than two of them, none when count is 0. grain > 0.
std::vector<Range> sum_slices(std::size_t count, int threads, std::size_t grain,
                              std::size_t min_slice);

class SumPool {
 public:
  // Starts threads - 1 helpers (threads >= 1). When the system refuses one,
  // those started are stopped and joined, and the line says so
  // (thread_start.h).
  explicit SumPool(int threads);
  ~SumPool();
  SumPool(const SumPool&) = delete;
  SumPool& operator=(const SumPool&) = delete;

  int threads() const { return static_cast<int>(helpers_.size()) + 1; }

  // Calls work(first, n) over the slices of sum_slices(count, threads(),
  // grain, min_slice): the calling thread sums the first, helpers the
  // others. Returns once every slice is done; the first exception a slice
  // threw is then rethrown.
  void run(std::size_t count, std::size_t grain, std::size_t min_slice,
           const std::function<void(std::size_t first, std::size_t n)>& work);

 private:
  void serve(std::size_t index);  // helper `index` (1 ..): one slice per sum, until stopped

  std::mutex mutex_;
  std::condition_variable wake_;  // a sum to take part in, or stop
  std::condition_variable done_;  // the last helper's slice of a sum is done
  std::uint64_t generation_ = 0;  // sums started
  bool stopping_ = false;
  const std::vector<Range>* slices_ = nullptr;  // the current sum's
  const std::function<void(std::size_t, std::size_t)>* work_ = nullptr;
  std::size_t pending_ = 0;  // helpers' slices of the current sum not done yet
  std::exception_ptr error_;
  std::vector<std::thread> helpers_;
};

// The shared path's sum of elements [first, first + n) of every worker's
// `values` into `out`: out[i] = values[0][i] + values[1][i] + ..., in that
// order. Floats (element 4) are added in fp32; 16-bit elements (element 2)
// of `format` are widened, added in fp32 and rounded once. In chunks of 64
// KiB of floats, so that a chunk of the sum stays in cache while each
// worker's values are added to it, and, with `copy`, is copied there too
// while still in cache (the remote workers' reply).
void sum_values(std::byte* out, std::span<const std::byte* const> values, std::size_t element,
                Compression format, std::size_t first, std::size_t n, std::byte* copy = nullptr);

// The elements a chunk of sum_values holds, and the smallest slice a helper
// is woken for: a wake-up costs tens of microseconds, the time to sum about
// this many elements of two workers.
inline constexpr std::size_t kSumChunk = 16384;
inline constexpr std::size_t kSumMinSlice = 4 * kSumChunk;
// The elements a sum reads from and writes to another process at once
// (ps_cross_memory.h): a transfer is a system call of about a microsecond,
// which 256 KiB of floats amortizes while a worker's chunk and the sum's
// still fit a core's L2 cache.
inline constexpr std::size_t kInPlaceChunk = 4 * kSumChunk;

// sum_values over [0, count), on the pool's threads.
void sum_values(SumPool& pool, std::byte* out, std::span<const std::byte* const> values,
                std::size_t element, Compression format, std::size_t count,
                std::byte* copy = nullptr);

}  // namespace gradsync
