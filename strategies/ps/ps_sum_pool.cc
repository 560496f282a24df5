#include "strategies/ps/ps_sum_pool.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "strategies/core/reduce_kernel.h"
#include "strategies/core/thread_start.h"

namespace gradsync {

std::vector<Range> sum_slices(std::size_t count, int threads, std::size_t grain,
                              std::size_t min_slice) {
  if (grain == 0) throw std::invalid_argument("sum_slices: a grain of 0 elements");
  if (count == 0) return {};
  // Whole chunks of `grain` elements (the last may be short), dealt out as
  // evenly as they go.
  const std::size_t chunks = (count + grain - 1) / grain;
  std::size_t slices = std::max<std::size_t>(threads, 1);
  slices = std::min(slices, std::max<std::size_t>(count / std::max<std::size_t>(min_slice, 1), 1));
  slices = std::min(slices, chunks);
  std::vector<Range> out;
  for (std::size_t i = 0; i < slices; ++i) {
    const Range part = even_part(chunks, slices, i);
    const std::size_t first = part.offset * grain;
    out.push_back({first, std::min(count, (part.offset + part.count) * grain) - first});
  }
  return out;
}

SumPool::SumPool(int threads) {
  if (threads < 1) throw std::invalid_argument("ps-zmq: a shard sums on at least one thread");
  helpers_ = start_threads(
      "ps-zmq server shard's sum", threads - 1,
      [this](int i) { serve(static_cast<std::size_t>(i) + 1); },
      [this] {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        wake_.notify_all();
      });
}

SumPool::~SumPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& helper : helpers_) helper.join();
}

void SumPool::run(std::size_t count, std::size_t grain, std::size_t min_slice,
                  const std::function<void(std::size_t, std::size_t)>& work) {
  const std::vector<Range> slices = sum_slices(count, threads(), grain, min_slice);
  if (slices.size() <= 1) {  // too little to wake anyone for
    if (!slices.empty()) work(slices[0].offset, slices[0].count);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    slices_ = &slices;
    work_ = &work;
    pending_ = slices.size() - 1;
    error_ = nullptr;
    ++generation_;
  }
  wake_.notify_all();
  std::exception_ptr mine;
  try {
    work(slices[0].offset, slices[0].count);
  } catch (...) {
    mine = std::current_exception();
  }
  // The helpers read `slices` and `work`: wait for them whatever happened here.
  std::unique_lock lock(mutex_);
  done_.wait(lock, [&] { return pending_ == 0; });
  slices_ = nullptr;
  work_ = nullptr;
  if (!mine) mine = std::exchange(error_, nullptr);
  if (mine) std::rethrow_exception(mine);
}

void SumPool::serve(std::size_t index) {
  std::uint64_t seen = 0;
  std::unique_lock lock(mutex_);
  while (true) {
    wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
    if (stopping_) return;
    seen = generation_;
    // A sum cut in fewer slices than threads leaves this helper asleep; one
    // that it woke for too late is over.
    if (slices_ == nullptr || index >= slices_->size()) continue;
    const Range slice = (*slices_)[index];
    const auto& work = *work_;
    lock.unlock();
    std::exception_ptr error;
    try {
      work(slice.offset, slice.count);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    if (error && !error_) error_ = error;
    if (--pending_ == 0) done_.notify_one();
  }
}

void sum_values(std::byte* out, std::span<const std::byte* const> values, std::size_t element,
                Compression format, std::size_t first, std::size_t n, std::byte* copy) {
  if (n == 0 || values.empty()) return;
  std::vector<float> wide(element == sizeof(float) ? 0 : std::min(kSumChunk, n));
  for (std::size_t begin = first; begin < first + n; begin += kSumChunk) {
    const std::size_t m = std::min(kSumChunk, first + n - begin);
    if (element == sizeof(float)) {
      auto* sum = reinterpret_cast<float*>(out) + begin;
      std::memcpy(sum, reinterpret_cast<const float*>(values[0]) + begin, m * sizeof(float));
      for (std::size_t w = 1; w < values.size(); ++w)
        sum_into(sum, reinterpret_cast<const float*>(values[w]) + begin, m);
    } else {  // 16-bit values, summed in fp32 and rounded once
      std::fill_n(wide.begin(), m, 0.0f);
      for (const std::byte* value : values)
        add_widened(wide.data(), reinterpret_cast<const std::uint16_t*>(value) + begin, m, format);
      compress({wide.data(), m}, {reinterpret_cast<std::uint16_t*>(out) + begin, m}, format);
    }
    if (copy) std::memcpy(copy + begin * element, out + begin * element, m * element);
  }
}

void sum_values(SumPool& pool, std::byte* out, std::span<const std::byte* const> values,
                std::size_t element, Compression format, std::size_t count, std::byte* copy) {
  pool.run(count, kSumChunk, kSumMinSlice, [&](std::size_t first, std::size_t n) {
    sum_values(out, values, element, format, first, n, copy);
  });
}

}  // namespace gradsync
