// Every strategy, on every rank count CTest runs this under (1 to 5), over the
// counts that break naive algorithms: 0, 1, fewer elements than workers,
// counts not divisible by the workers, and counts that span many pipeline
// segments. Inputs are small integers, so every sum is exact and results are
// compared with ==.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "strategies/registry.h"
#include "tests/mpi/strategy_params.h"

namespace gradsync {
namespace {

// Small segments and partitions, so that a few thousand elements already run
// through many pipeline stages; no latency path, so that every count runs
// the strategy's own algorithm.
StrategyOptions small_pieces() {
  StrategyOptions options;
  options.short_allreduce_bytes = 0;
  options.ring.segment_bytes = 64;
  options.tree.segment_bytes = 48;
  options.ps.partition_bytes = 256;
  options.timeout_s = 30;
  return options;
}

const std::vector<std::size_t> kCounts = {0, 1, 2, 3, 4, 5, 7, 13, 64, 1000, 4099, 33333};

class StrategyCorrectness : public ::testing::TestWithParam<std::string> {};

// Runs `body` on workers; dedicated server ranks serve meanwhile.
template <typename Body>
void on_workers(Strategy& strategy, Body body) {
  if (!strategy.is_worker()) {
    strategy.serve();
    return;
  }
  body(strategy.peers());
}

void check_allreduce(const std::string& name, const StrategyOptions& options,
                     const std::vector<std::size_t>& counts) {
  // Sharded strategies refuse --compression (they move fp32): their
  // refusal is the registry test's.
  if (options.compression != Compression::none && find_strategy(name).sharding != Sharding::none)
    GTEST_SKIP() << name << " moves fp32 only";
  World world;
  auto strategy = make_strategy(find_strategy(name), world, options);
  on_workers(*strategy, [&](const World& peers) {
    for (std::size_t count : counts) {
      std::vector<float> buffer(count);
      for (std::size_t i = 0; i < count; ++i) buffer[i] = testing::exact_input(peers.rank(), i);
      strategy->allreduce(buffer);
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < count; ++i) {
        const float want =
            strategy->synchronizes() ? testing::exact_sum(peers.size(), i) : testing::exact_input(peers.rank(), i);
        if (buffer[i] != want && wrong++ < 3)
          ADD_FAILURE() << name << " rank " << peers.rank() << "/" << peers.size() << " count "
                        << count << " element " << i << ": got " << buffer[i] << ", want " << want;
      }
      EXPECT_EQ(wrong, 0u) << name << " count " << count;
    }
  });
}

TEST_P(StrategyCorrectness, AllreduceSumsExactlyForAwkwardCounts) {
  check_allreduce(GetParam(), small_pieces(), kCounts);
}

// --compression: the same table in 16 bits. The inputs and every partial sum
// are integers below 256, exact in fp16 and bf16, so results still compare
// with ==; a strategy that sent floats into a 16-bit sum, or summed 16-bit
// words as integers, would be wrong at nearly every element.
StrategyOptions compressed(Compression format) {
  StrategyOptions options = small_pieces();
  options.compression = format;
  return options;
}

TEST_P(StrategyCorrectness, AllreduceInFp16SumsExactlyForAwkwardCounts) {
  check_allreduce(GetParam(), compressed(Compression::fp16), kCounts);
}

TEST_P(StrategyCorrectness, AllreduceInBf16SumsExactlyForAwkwardCounts) {
  check_allreduce(GetParam(), compressed(Compression::bf16), kCounts);
}

// The latency path (strategies/mpi/short_allreduce.h) at every count, in
// fp32 and fp16: the largest counts go in many pieces, and the odd rank
// counts fold pairs first.
TEST_P(StrategyCorrectness, AllreduceByTheLatencyPathSumsExactly) {
  for (Compression format : {Compression::none, Compression::fp16}) {
    StrategyOptions options = compressed(format);
    options.short_allreduce_bytes = std::size_t{1} << 30;
    check_allreduce(GetParam(), options, kCounts);
  }
}

// What a collectives row's `path` says: the MPI point-to-point strategies
// name their latency path up to --short-allreduce bytes (of the buffer they
// move: a 16-bit buffer's elements are half a float's), hierarchical-mpi
// across hosts only (on the emulated cluster, cli.cluster_mpi), the others
// never.
TEST_P(StrategyCorrectness, PathNamesTheLatencyPathUpToItsThreshold) {
  const std::set<std::string> with_latency_path = {"ring-mpi", "tree-mpi", "double-tree-mpi",
                                                   "halving-doubling-mpi"};
  const bool sharded = find_strategy(GetParam()).sharding != Sharding::none;
  for (Compression format : {Compression::none, Compression::fp16}) {
    if (sharded && format != Compression::none) continue;  // moves fp32 only
    World world;
    StrategyOptions options = compressed(format);
    options.short_allreduce_bytes = 1024;
    auto strategy = make_strategy(find_strategy(GetParam()), world, options);
    on_workers(*strategy, [&](const World& peers) {
      std::string path;
      if (with_latency_path.contains(GetParam()) && peers.size() > 1) path = "recursive doubling";
      if (GetParam() == "hierarchical-mpi" && peers.spans_hosts())
        path = "recursive doubling across hosts";
      const std::size_t limit = format == Compression::none ? 256 : 512;  // elements: 1 KiB
      EXPECT_EQ(strategy->path_for(1), path) << GetParam();
      EXPECT_EQ(strategy->path_for(limit), path) << GetParam();
      EXPECT_EQ(strategy->path_for(limit + 1), "") << GetParam();
      EXPECT_EQ(strategy->path_for(0), "") << GetParam();
    });
  }
}

TEST_P(StrategyCorrectness, AllreduceWithDefaultOptionsOnALargeBuffer) {
  check_allreduce(GetParam(), StrategyOptions{}, {3u << 20, 1});
}

TEST_P(StrategyCorrectness, BroadcastCopiesTheRootsBufferFromEveryRoot) {
  // Broadcasts stay fp32 under --compression (the parameters, exactly).
  const bool sharded = find_strategy(GetParam()).sharding != Sharding::none;
  for (Compression format : {Compression::none, Compression::fp16}) {
    if (sharded && format != Compression::none) continue;  // moves fp32 only
    World world;
    auto strategy = make_strategy(find_strategy(GetParam()), world, compressed(format));
    if (!strategy->synchronizes()) GTEST_SKIP() << GetParam() << " does not synchronize";
    on_workers(*strategy, [&](const World& peers) {
      for (int root = 0; root < peers.size(); ++root) {
        for (std::size_t count : {0u, 1u, 5u, 1001u}) {
          std::vector<float> buffer(count);
          for (std::size_t i = 0; i < count; ++i) buffer[i] = testing::exact_input(peers.rank(), i);
          strategy->broadcast(buffer, root);
          for (std::size_t i = 0; i < count; ++i)
            ASSERT_EQ(buffer[i], testing::exact_input(root, i))
                << GetParam() << " root " << root << " count " << count << " element " << i
                << " compression " << to_string(format);
        }
      }
    });
  }
}

TEST_P(StrategyCorrectness, TrafficIsCountedWhenThereArePeers) {
  World world;
  auto strategy = make_strategy(find_strategy(GetParam()), world, small_pieces());
  if (!strategy->synchronizes()) GTEST_SKIP() << GetParam() << " moves no bytes";
  on_workers(*strategy, [&](const World& peers) {
    std::vector<float> buffer(1000, 1.0f);
    strategy->allreduce(buffer);
    if (peers.size() == 1) {  // every strategy, the parameter server too
      EXPECT_EQ(strategy->traffic().bytes_sent, 0u);
      EXPECT_EQ(strategy->traffic().bytes_received, 0u);
    } else {
      // Any allreduce must send at least (p-1)/p of the buffer from every worker.
      EXPECT_GE(strategy->traffic().bytes_sent, 4000u * (peers.size() - 1) / peers.size());
      EXPECT_GT(strategy->traffic().bytes_received, 0u);
    }
  });
}

// Every 16-bit element is half a float's bytes, whatever the algorithm.
TEST_P(StrategyCorrectness, Fp16SendsAndReceivesHalfTheBytesOfFp32) {
  if (find_strategy(GetParam()).sharding != Sharding::none)
    GTEST_SKIP() << GetParam() << " moves fp32 only";
  Traffic traffic[2];
  bool moves_bytes = true;
  for (Compression format : {Compression::none, Compression::fp16}) {
    World world;
    auto strategy = make_strategy(find_strategy(GetParam()), world, compressed(format));
    moves_bytes = strategy->synchronizes() && world.size() > 1;
    on_workers(*strategy, [&](const World& peers) {
      // A multiple of 2..5 ranks' 60: mpi-allreduce counts 2(p-1)/p of the
      // buffer, which must not round differently for half the bytes.
      std::vector<float> buffer(4200);
      for (std::size_t i = 0; i < buffer.size(); ++i) buffer[i] = testing::exact_input(peers.rank(), i);
      strategy->allreduce(buffer);
      traffic[format == Compression::fp16] = strategy->traffic();
    });
  }
  if (!moves_bytes) GTEST_SKIP() << GetParam() << " moves no bytes here";
  EXPECT_GT(traffic[0].bytes_sent, 0u);
  EXPECT_EQ(traffic[1].bytes_sent * 2, traffic[0].bytes_sent) << GetParam();
  EXPECT_EQ(traffic[1].bytes_received * 2, traffic[0].bytes_received) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(All, StrategyCorrectness,
                         ::testing::ValuesIn(testing::usable_strategies()),
                         [](const auto& info) { return testing::test_name(info.param); });

}  // namespace
}  // namespace gradsync
