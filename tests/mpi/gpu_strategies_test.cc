// Strategies on device buffers: the NCCL entries natively (nccl-ring,
// nccl-tree, and the sharded ones' allreduce: a reduce-scatter and an
// all-gather, whose shards sharded_collectives_test.cc checks), where this
// job has one GPU per rank, every host strategy through the staging
// decorator, its ranks sharing GPUs when there are fewer, and, with host
// buffers, nccl-* staged the other way (host to device). The same awkward
// counts and exact small-integer sums as the host tests, read back from the
// GPU and compared with ==. Without the GPUs a case needs it skips, saying
// why (this machine: no GPU; one H200: nccl-* only at np 1).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/engine/device_mirror.h"
#include "strategies/mpi/mpi_allreduce.h"
#include "strategies/registry.h"
#include "tests/mpi/strategy_params.h"
#include "tests/unit/device_test_support.h"

namespace gradsync {
namespace {

const std::vector<std::size_t> kCounts = {0, 1, 3, 7, 1000, 33333, 1 << 20};

std::vector<std::string> gpu_cases() {
  std::vector<std::string> names;
  for (const auto& info : strategy_table())
    if (info.memory == MemoryKind::device) names.emplace_back(info.name);
  for (const auto& name : testing::usable_strategies())
    if (name != "none") names.push_back(name);
  return names;
}

class DeviceBuffers : public ::testing::TestWithParam<std::string> {};

TEST_P(DeviceBuffers, AllreduceSumsExactly) {
  World world;
  if (const auto why = testing::no_gpus_for(world, GetParam()); !why.empty()) GTEST_SKIP() << why;
  StrategyOptions options;
  options.timeout_s = 30;
  options.ring.segment_bytes = 4096;  // many pipeline segments at the larger counts
  options.ps.partition_bytes = 64 * 1024;
  auto strategy = make_strategy(find_strategy(GetParam()), world, options, MemoryKind::device);
  ASSERT_TRUE(strategy->accepts(MemoryKind::device));
  DeviceMirror device(kCounts.back());
  for (const std::size_t count : kCounts) {
    std::vector<float> host(count);
    for (std::size_t i = 0; i < count; ++i) host[i] = testing::exact_input(world.rank(), i);
    device.upload(host);
    strategy->allreduce(device.span(count));
    device.download(host);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < count; ++i) wrong += host[i] != testing::exact_sum(world.size(), i);
    EXPECT_EQ(wrong, 0u) << GetParam() << " count " << count << " on rank " << world.rank();
  }
  // Staged strategies copy both ways; nccl-* reduce in place and stage nothing,
  // and so does mpi-allreduce on a CUDA-aware MPI (it takes device buffers).
  const bool staged = find_strategy(GetParam()).memory == MemoryKind::host &&
                      !(GetParam() == "mpi-allreduce" && cuda_aware_mpi());
  if (staged)
    EXPECT_GT(strategy->staging_seconds(), 0.0);
  else
    EXPECT_EQ(strategy->staging_seconds(), 0.0);
}

TEST_P(DeviceBuffers, BroadcastFromEveryRoot) {
  World world;
  if (const auto why = testing::no_gpus_for(world, GetParam()); !why.empty()) GTEST_SKIP() << why;
  auto strategy =
      make_strategy(find_strategy(GetParam()), world, StrategyOptions{}, MemoryKind::device);
  const std::size_t count = 4099;
  DeviceMirror device(count);
  for (int root = 0; root < world.size(); ++root) {
    std::vector<float> host(count);
    for (std::size_t i = 0; i < count; ++i) host[i] = testing::exact_input(world.rank(), i);
    device.upload(host);
    strategy->broadcast(device.span(count), root);
    device.download(host);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < count; ++i) wrong += host[i] != testing::exact_input(root, i);
    EXPECT_EQ(wrong, 0u) << GetParam() << " root " << root;
  }
}

INSTANTIATE_TEST_SUITE_P(Gpu, DeviceBuffers, ::testing::ValuesIn(gpu_cases()),
                         [](const auto& info) { return testing::test_name(info.param); });

// nccl-ring given host buffers (emulated compute on a GPU cluster): staged to
// the device and back.
TEST(HostBuffersOnNccl, AllreduceSumsExactly) {
  World world;
  if (const auto why = testing::no_gpus_for(world, "nccl-ring"); !why.empty()) GTEST_SKIP() << why;
  auto strategy =
      make_strategy(find_strategy("nccl-ring"), world, StrategyOptions{}, MemoryKind::host);
  ASSERT_TRUE(strategy->accepts(MemoryKind::host));
  std::vector<float> host(33333);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = testing::exact_input(world.rank(), i);
  strategy->allreduce(host);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < host.size(); ++i) wrong += host[i] != testing::exact_sum(world.size(), i);
  EXPECT_EQ(wrong, 0u);
  EXPECT_GT(strategy->staging_seconds(), 0.0);
}

}  // namespace
}  // namespace gradsync
