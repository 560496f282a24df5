#include "harness/engine/collectives.h"

#include <algorithm>
#include <array>
#include <fmt/format.h>

#include <vector>

#include "harness/engine/device_mirror.h"
#include "harness/engine/disturbance.h"
#include "strategies/core/activity.h"
#include "strategies/core/engine.h"

namespace gradsync {
namespace {

constexpr std::uint64_t kElementBytes = sizeof(float);

// test_input repeats in `index` with this period (7 and 17 are coprime), so
// whole buffers are filled and checked from one period of values.
constexpr std::size_t kPeriod = 17;
using Pattern = std::array<float, kPeriod>;

Pattern input_pattern(int rank, int pass) {
  Pattern p{};
  for (std::size_t k = 0; k < kPeriod; ++k) p[k] = test_input(rank, k, pass);
  return p;
}

Pattern expected_pattern(const Strategy& strategy, int pass) {
  const World& peers = strategy.peers();
  if (!strategy.synchronizes()) return input_pattern(peers.rank(), pass);
  Pattern p{};
  for (std::size_t k = 0; k < kPeriod; ++k) p[k] = expected_sum(peers.size(), k, pass);
  return p;
}

void fill(std::span<float> buffer, const Pattern& pattern) {
  std::size_t k = 0;
  for (float& x : buffer) {
    x = pattern[k];
    if (++k == kPeriod) k = 0;
  }
}

std::uint64_t count_wrong(std::span<const float> buffer, const Pattern& expected) {
  std::uint64_t wrong = 0;
  std::size_t k = 0;
  for (float x : buffer) {
    wrong += x != expected[k];  // exact: inputs and sums are small integers
    if (++k == kPeriod) k = 0;
  }
  return wrong;
}

// The buffer a size runs on: host memory (shared between ranks on a
// simulated engine with shared buffers, strategies/core/engine.h), or a
// device buffer that the correctness pass fills and reads through its host twin.
struct Buffers {
  EngineBuffer memory;
  std::span<float> host;
  std::optional<DeviceMirror> device;

  Buffers(std::size_t elements, MemoryKind kind)
      : memory(elements * kElementBytes),
        host(reinterpret_cast<float*>(memory.data()), elements) {
    if (kind == MemoryKind::device) device.emplace(elements);
  }
  std::span<float> reduced(std::size_t count) {
    return device ? device->span(count) : host.first(count);
  }
};

// Wrong elements over `check` passes, summed over the workers.
std::uint64_t check_pass(Strategy& strategy, Buffers& buffers, std::size_t count, int check) {
  const std::span<float> host = buffers.host.first(count);
  std::uint64_t wrong = 0;
  set_activity(fmt::format("size {} B correctness pass", count * kElementBytes));
  for (int pass = 0; pass < check; ++pass) {
    set_activity_item("pass", pass);
    fill(host, input_pattern(strategy.peers().rank(), pass));
    if (buffers.device) buffers.device->upload(host);
    strategy.allreduce(buffers.reduced(count));
    if (buffers.device) buffers.device->download(host);
    wrong += count_wrong(host, expected_pattern(strategy, pass));
  }
  return strategy.peers().sum(wrong);
}

struct Timing {
  double seconds = 0;          // per allreduce, the slowest worker's average over `iters`
  double staging_seconds = 0;  // of that, the slowest worker's staging copies
  std::optional<WireSample> wire;
  std::string disturbance;  // agreed over the workers
};

// `watch` has seen this size's correctness pass; the size's verdict is
// agreed at the end of its timed pass.
Timing timed_pass(Strategy& strategy, Buffers& buffers, std::size_t count,
                  const BenchSettings& settings, DisturbanceWatch& watch) {
  const std::span<float> buffer = buffers.reduced(count);
  // Sums stay zero: no growth, no denormals. Shared buffers hold nothing
  // meaningful, and their sums are costed, not carried out.
  if (buffers.device)
    buffers.device->zero(count);
  else if (!buffers.memory.shared())
    std::fill(buffer.begin(), buffer.end(), 0.0f);
  const std::uint64_t bytes = count * kElementBytes;
  set_activity(fmt::format("size {} B warm-up", bytes));
  for (int i = 0; i < settings.warmup_iters; ++i) {
    set_activity_item("iteration", i);
    strategy.allreduce(buffer);
  }
  set_activity(fmt::format("size {} B timed pass", bytes));
  strategy.peers().barrier();
  if (settings.wire) settings.wire->start(strategy);
  const double staged_before = strategy.staging_seconds();
  // Each iteration's end is read (one clock reading, tens of nanoseconds) to
  // find the longest: one longer than --timeout disturbs the size. The clock
  // is the engine's: the steady clock, or the simulated one under SMPI.
  const double start = engine_seconds();
  double end = start;
  double longest = 0;
  int longest_at = 0;
  for (int i = 0; i < settings.iters; ++i) {
    set_activity_item("iteration", i);
    strategy.allreduce(buffer);
    const double now = engine_seconds();
    if (now - end > longest) longest = now - end, longest_at = i;
    end = now;
  }
  const double staged = strategy.staging_seconds() - staged_before;
  const std::vector<double> slowest =
      strategy.peers().max_each({(end - start) / settings.iters, staged / settings.iters});
  Timing timing{slowest[0], slowest[1], std::nullopt, {}};
  if (settings.wire) timing.wire = settings.wire->stop(strategy);
  watch.timed(fmt::format("size {} B timed iteration", bytes), longest_at, longest);
  watch.collect_stalls();
  timing.disturbance = watch.agree(strategy.peers());
  return timing;
}

}  // namespace

float test_input(int rank, std::uint64_t index, int pass) {
  const std::uint64_t mixed = static_cast<std::uint64_t>(rank) * 31 + index % kPeriod * 7 +
                              static_cast<std::uint64_t>(pass) * 13;
  return static_cast<float>(static_cast<int>(mixed % kPeriod) - 8);
}

float expected_sum(int workers, std::uint64_t index, int pass) {
  float sum = 0;
  for (int rank = 0; rank < workers; ++rank) sum += test_input(rank, index, pass);
  return sum;
}

double bus_factor(int workers) { return workers > 0 ? 2.0 * (workers - 1) / workers : 0.0; }

std::vector<SizeResult> benchmark_allreduce(Strategy& strategy,
                                            std::span<const std::uint64_t> sizes,
                                            const BenchSettings& settings) {
  const std::uint64_t max_bytes = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
  Buffers buffers(max_bytes / kElementBytes, settings.memory);
  const double factor = strategy.synchronizes() ? bus_factor(strategy.peers().size()) : 0.0;
  std::vector<SizeResult> rows;
  for (const std::uint64_t bytes : sizes) {
    SizeResult row;
    row.size_bytes = bytes;
    row.count = bytes / kElementBytes;
    row.path = strategy.path_for(row.count);
    DisturbanceWatch watch(strategy.peers().timeout());
    if (settings.check_passes > 0)
      row.wrong_elements = check_pass(strategy, buffers, row.count, settings.check_passes);
    const Timing timing = timed_pass(strategy, buffers, row.count, settings, watch);
    row.disturbance = timing.disturbance;
    const double seconds = timing.seconds;
    if (settings.memory == MemoryKind::device) row.staging_us = timing.staging_seconds * 1e6;
    row.own_wire = timing.wire;
    row.time_us = seconds * 1e6;
    row.algbw_gbps = seconds > 0 ? static_cast<double>(bytes) / seconds / 1e9 : 0.0;
    row.busbw_gbps = row.algbw_gbps * factor;
    rows.push_back(row);
  }
  set_activity("");
  return rows;
}

double average_busbw(std::span<const SizeResult> rows) {
  if (rows.empty()) return 0;
  double sum = 0;
  for (const auto& row : rows) sum += row.busbw_gbps;
  return sum / rows.size();
}

}  // namespace gradsync
