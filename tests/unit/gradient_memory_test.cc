// The synchronizer's bucket memory (harness/gradient_memory.h). Host: a
// bucket grows keeping what it held, pack copies, averaging divides (exactly:
// correctly rounded x / workers) and copies when there is one worker. Device
// (CUDA builds with a GPU, skipped otherwise with the reason): the same
// operations agree with the host's, the averaging within 1 unit in the last
// place (it multiplies by 1/workers), and exactly for power-of-two counts.
#include "harness/engine/gradient_memory.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "tests/unit/device_test_support.h"

namespace gradsync {
namespace {

std::vector<float> ramp(std::size_t n, float start) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), start);
  return v;
}

TEST(HostGradientMemory, GrowKeepsWhatTheBucketHeld) {
  auto memory = make_host_gradient_memory(2);
  EXPECT_EQ(memory->kind(), MemoryKind::host);
  const std::vector<float> first = ramp(5, 1);
  memory->pack(memory->grow(1, 5), first);
  float* grown = memory->grow(1, 100000);
  EXPECT_EQ(std::vector<float>(grown, grown + 5), first);
  // Growing another bucket leaves this one where it is.
  memory->grow(0, 100000);
  EXPECT_EQ(memory->grow(1, 5), grown);
}

TEST(HostGradientMemory, PackCopiesAtTheOffset) {
  auto memory = make_host_gradient_memory(1);
  const std::vector<float> a = ramp(3, 1), b = ramp(4, 10);
  memory->pack(memory->grow(0, 3), a);
  float* buffer = memory->grow(0, 7);
  memory->pack(buffer + 3, b);
  memory->pack(buffer + 7, std::span<const float>());  // empty gradients copy nothing
  memory->close(0);
  memory->wait_closed(0);
  EXPECT_EQ(std::vector<float>(buffer, buffer + 7), (std::vector<float>{1, 2, 3, 10, 11, 12, 13}));
}

TEST(HostGradientMemory, AverageDividesCorrectlyRounded) {
  auto memory = make_host_gradient_memory(1);
  const std::vector<float> sums = {3, -7, 1, 0.1f, 1e-30f};
  std::vector<float> out(sums.size());
  memory->average(out, sums.data(), 3.0f);
  for (std::size_t i = 0; i < sums.size(); ++i) EXPECT_EQ(out[i], sums[i] / 3.0f) << i;
  std::vector<float> in_place = sums;
  memory->average(in_place, in_place.data(), 3.0f);
  EXPECT_EQ(in_place, out);
  memory->average(out, sums.data(), 1.0f);  // one worker: a copy
  EXPECT_EQ(out, sums);
}

#ifdef GRADSYNC_WITH_CUDA
TEST(DeviceGradientMemory, AgreesWithTheHostMemory) {
  if (const std::string why = testing::no_gpu_reason(); !why.empty()) GTEST_SKIP() << why;
  const std::vector<std::size_t> sizes = {5, 0, 3000, 7};
  testing::DeviceBlock block(0, sizes);
  const auto& state = block.state();
  auto device = make_device_gradient_memory(state, sizes.size());
  auto host = make_host_gradient_memory(sizes.size());
  EXPECT_EQ(device->kind(), MemoryKind::device);

  // Pack every gradient into bucket 0 the way the synchronizer does, growing
  // it one gradient at a time (so its contents must survive each growth).
  std::vector<std::vector<float>> grads;
  std::size_t offset = 0;
  float* host_buffer = nullptr;
  float* device_buffer = nullptr;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    grads.push_back(ramp(sizes[i], 100.0f * i - 50));
    block.write(state.grad_of[i], grads[i]);
    host_buffer = host->grow(0, offset + sizes[i]);
    device_buffer = device->grow(0, offset + sizes[i]);
    host->pack(host_buffer + offset, grads[i]);
    device->pack(device_buffer + offset, state.grad_of[i]);
    offset += sizes[i];
  }
  device->close(0);
  device->bind_thread();
  device->wait_closed(0);
  EXPECT_EQ(block.read({device_buffer, offset}),
            std::vector<float>(host_buffer, host_buffer + offset));

  for (float workers : {1.0f, 4.0f, 3.0f}) {
    offset = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      std::vector<float> expected(sizes[i]);
      host->average(expected, host_buffer + offset, workers);
      device->average(state.grad_of[i], device_buffer + offset, workers);
      device->unpacked();
      const std::vector<float> got = block.read(state.grad_of[i]);
      for (std::size_t k = 0; k < expected.size(); ++k) {
        if (workers == 3.0f)
          EXPECT_FLOAT_EQ(got[k], expected[k]) << "gradient " << i << " element " << k;
        else
          EXPECT_EQ(got[k], expected[k])
              << workers << " workers, gradient " << i << " element " << k;
      }
      offset += sizes[i];
    }
  }
}
#endif

}  // namespace
}  // namespace gradsync
