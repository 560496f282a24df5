// ps-zmq across ranks: both placements, one and two shards, tcp, ipc and its
// protocol over MPI (--ps-transport mpi, ps_mpi.h), exact
// sums for awkward counts, broadcast, and the errors for impossible layouts.
// Runs under mpirun for 1..5 ranks; a configuration the rank count cannot
// hold is skipped with the reason, and every rank count runs the colocated
// single-shard case and the layout errors.
#include "strategies/ps/ps_zmq.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "strategies/core/world.h"
#include "strategies/ps/ps_cross_memory.h"
#include "strategies/registry.h"

namespace gradsync {
namespace {

// The message of the std::invalid_argument that `make` throws, or what went wrong.
template <typename F>
std::string invalid_argument_from(F make) {
  try {
    make();
  } catch (const std::invalid_argument& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("a different exception: ") + e.what();
  }
  return "no exception";
}

struct Layout {
  PsPlacement placement;
  int shards;
  const char* transport;
  const char* shm;  // --ps-shm
};

void PrintTo(const Layout& layout, std::ostream* out) {
  *out << to_string(layout.placement) << ", " << layout.shards << " shards, " << layout.transport
       << ", --ps-shm " << layout.shm;
}

std::string layout_name(const ::testing::TestParamInfo<Layout>& info) {
  return std::string(to_string(info.param.placement)) + "_" + std::to_string(info.param.shards) +
         "shards_" + info.param.transport + "_shm_" + info.param.shm;
}

// Why `layout` cannot run on `ranks` ranks, or "" when it can.
std::string cannot_hold(const Layout& layout, const World& world) {
  const int ranks = world.size();
  if (std::string_view(layout.transport) == "ipc" && world.spans_hosts())
    return "ipc sockets need every rank on one host; this run spans " +
           std::to_string(world.hosts().size()) + " hosts";
  if (layout.placement == PsPlacement::colocated && layout.shards > ranks)
    return "colocated placement with " + std::to_string(layout.shards) +
           " shards needs that many ranks; this run has " + std::to_string(ranks);
  if (layout.placement == PsPlacement::dedicated && layout.shards >= ranks)
    return "dedicated placement with " + std::to_string(layout.shards) +
           " shards needs at least one more rank to be a worker; this run has " +
           std::to_string(ranks);
  return {};
}

StrategyOptions options_for(const Layout& layout) {
  StrategyOptions options;
  options.ps.servers = layout.shards;
  options.ps.placement = layout.placement;
  options.ps.transport = layout.transport;
  options.ps.shm = layout.shm;
  options.ps.partition_bytes = 20;  // 5 floats: many partitions, spread over the shards
  options.timeout_s = 30;           // a fault fails the test instead of hanging it
  return options;
}

float input(int worker, std::size_t i) {
  return static_cast<float>((worker + 1) * static_cast<int>(i % 11) - 2 * worker);
}

// Whether every rank can attach to every other rank's cross-memory offer
// (ps_cross_memory.h), agreed.
bool every_rank_attaches(const World& world) {
  const std::vector<std::string> offers = world.allgather(CrossMemory::offer());
  int refused = 0;
  for (const std::string& offer : offers) refused += CrossMemory::attach(offer) ? 0 : 1;
  return world.sum(static_cast<std::uint64_t>(refused)) == 0;
}

class PsZmqMpi : public ::testing::TestWithParam<Layout> {};

TEST_P(PsZmqMpi, SumsExactlyOverAwkwardCounts) {
  World world;
  if (auto why = cannot_hold(GetParam(), world); !why.empty()) GTEST_SKIP() << why;
  const int shards = GetParam().shards;
  const bool dedicated = GetParam().placement == PsPlacement::dedicated;
  auto strategy = make_ps_zmq(world, options_for(GetParam()));
  // A shard says which path each worker's data took: shared memory when
  // asked for and the worker shares its host, ZeroMQ (or MPI) otherwise;
  // with auto, read in place wherever this kernel lets the ranks attach to
  // each other (tried here as the strategy tries it).
  const bool attach = every_rank_attaches(world);
  if (world.rank() < shards) {
    const bool shm = std::string_view(GetParam().shm) != "off" &&
                     std::string_view(GetParam().transport) != "mpi";
    const bool in_place = shm && attach && std::string_view(GetParam().shm) == "auto";
    const std::vector<std::string>& hosts = world.hostnames();
    std::vector<std::uint32_t> local;
    for (int r = dedicated ? shards : 0; r < world.size(); ++r)
      if (shm && hosts[r] == hosts[world.rank()])
        local.push_back(static_cast<std::uint32_t>(r - (dedicated ? shards : 0)));
    const nlohmann::json part = nlohmann::json::parse(strategy->account());
    EXPECT_EQ(part.at("shared_memory"), !local.empty());
    if (shm) EXPECT_EQ(part.at("shared_workers").get<std::vector<std::uint32_t>>(), local);
    if (shm)
      EXPECT_EQ(part.at("in_place_workers").get<std::vector<std::uint32_t>>(),
                in_place ? local : std::vector<std::uint32_t>{});
  }
  if (!strategy->is_worker()) {
    EXPECT_TRUE(dedicated);
    EXPECT_EQ(strategy->peers().size(), shards);
    strategy->serve();  // returns once every worker said bye
    return;
  }
  const int workers = strategy->peers().size();
  const int me = strategy->peers().rank();
  EXPECT_EQ(workers, dedicated ? world.size() - shards : world.size());

  std::vector<std::size_t> counts = {0, 1, 2, 3, 7, 1000, 1027};
  counts.push_back(static_cast<std::size_t>(workers) + 1);
  if (workers > 1) counts.push_back(static_cast<std::size_t>(workers) - 1);
  std::uint64_t bytes = 0;
  for (std::size_t count : counts) {
    std::vector<float> buffer(count);
    for (std::size_t i = 0; i < count; ++i) buffer[i] = input(me, i);
    strategy->allreduce(buffer);
    for (std::size_t i = 0; i < count; ++i) {
      float expected = 0;
      for (int w = 0; w < workers; ++w) expected += input(w, i);
      ASSERT_EQ(buffer[i], expected)
          << "count " << count << " element " << i << " on worker " << me;
    }
    bytes += count * sizeof(float);
  }
  // One worker moves nothing: the sum is its own buffer.
  EXPECT_EQ(strategy->traffic().bytes_sent, workers > 1 ? bytes : 0);
  EXPECT_EQ(strategy->traffic().bytes_received, workers > 1 ? bytes : 0);
}

TEST_P(PsZmqMpi, BroadcastCopiesTheRootBitForBit) {
  World world;
  if (auto why = cannot_hold(GetParam(), world); !why.empty()) GTEST_SKIP() << why;
  auto strategy = make_ps_zmq(world, options_for(GetParam()));
  if (!strategy->is_worker()) return strategy->serve();
  const int workers = strategy->peers().size();
  const int me = strategy->peers().rank();
  // -0.0 must stay -0.0, and values must not be rounded on the way.
  auto pattern = [](int root, std::size_t i) {
    const float values[] = {-0.0f, 0.0f, 1.5f, -3.25f, 1e-40f, 16777217.0f, -1e30f};
    return i % 7 == 2 ? values[2] + static_cast<float>(root) : values[i % 7];
  };
  for (int root : {0, workers - 1, workers / 2}) {
    for (std::size_t count : {0u, 1u, 6u, 23u}) {
      std::vector<float> buffer(count, 999.0f + me);
      if (me == root)
        for (std::size_t i = 0; i < count; ++i) buffer[i] = pattern(root, i);
      strategy->broadcast(buffer, root);
      for (std::size_t i = 0; i < count; ++i)
        ASSERT_EQ(std::bit_cast<std::uint32_t>(buffer[i]),
                  std::bit_cast<std::uint32_t>(pattern(root, i)))
            << "root " << root << " count " << count << " element " << i << " on worker " << me;
    }
  }
  std::vector<float> one(1);
  EXPECT_THROW(strategy->broadcast(one, workers), std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(Layouts, PsZmqMpi,
                         ::testing::Values(Layout{PsPlacement::colocated, 1, "tcp", "auto"},
                                           Layout{PsPlacement::colocated, 2, "tcp", "off"},
                                           Layout{PsPlacement::colocated, 3, "ipc", "auto"},
                                           Layout{PsPlacement::dedicated, 1, "tcp", "off"},
                                           Layout{PsPlacement::dedicated, 2, "ipc", "auto"},
                                           Layout{PsPlacement::colocated, 2, "tcp", "copy"},
                                           Layout{PsPlacement::dedicated, 1, "tcp", "copy"},
                                           Layout{PsPlacement::colocated, 1, "mpi", "auto"},
                                           Layout{PsPlacement::colocated, 3, "mpi", "auto"},
                                           Layout{PsPlacement::dedicated, 2, "mpi", "auto"}),
                         layout_name);

TEST(PsZmqMpiLarge, DefaultPartitionSizeOverTwoShards) {
  World world;
  StrategyOptions options;  // 4 MB partitions
  options.ps.servers = world.size() >= 2 ? 2 : 1;
  options.timeout_s = 60;
  auto strategy = make_ps_zmq(world, options);
  const std::size_t count = 2'500'003;  // 10 MB: three partitions
  std::vector<float> buffer(count);
  for (std::size_t i = 0; i < count; ++i) buffer[i] = input(world.rank(), i);
  strategy->allreduce(buffer);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < count; ++i) {
    float expected = 0;
    for (int w = 0; w < world.size(); ++w) expected += input(w, i);
    wrong += buffer[i] != expected;
  }
  EXPECT_EQ(wrong, 0u);
}

// CURVE on (keys made and exchanged per run): the sums are exact in both
// placements, and every shard reports that it refused nothing, while ranks
// without a shard report no counts at all.
TEST(PsZmqMpiCurve, SumsExactlyWithKeysExchangedAtBootstrap) {
  World world;
  for (PsPlacement placement : {PsPlacement::colocated, PsPlacement::dedicated}) {
    if (placement == PsPlacement::dedicated && world.size() < 2) continue;
    StrategyOptions options;
    options.ps.placement = placement;
    options.ps.servers = world.size() >= 3 ? 2 : 1;
    options.ps.curve = "on";
    options.ps.partition_bytes = 20;
    options.timeout_s = 30;
    auto strategy = make_ps_zmq(world, options);
    const bool hosts_shard = world.rank() < options.ps.servers;
    if (strategy->is_worker()) {
      const int workers = strategy->peers().size();
      std::vector<float> buffer(1027);
      for (std::size_t i = 0; i < buffer.size(); ++i)
        buffer[i] = input(strategy->peers().rank(), i);
      strategy->allreduce(buffer);
      for (std::size_t i = 0; i < buffer.size(); ++i) {
        float expected = 0;
        for (int w = 0; w < workers; ++w) expected += input(w, i);
        ASSERT_EQ(buffer[i], expected) << to_string(placement) << " element " << i;
      }
    } else {
      strategy->serve();
    }
    // The strategy's account: a rank with a shard tells what it refused.
    const std::string account = strategy->account();
    ASSERT_EQ(!account.empty(), hosts_shard) << to_string(placement);
    if (hosts_shard) {
      const auto refused = nlohmann::json::parse(account).at("rejected");
      EXPECT_EQ(refused.at("total").get<int>(), 0) << refused.dump();
    }
  }
}

TEST(PsZmqMpiErrors, DedicatedPlacementNeedsMoreRanksThanShards) {
  World world;
  StrategyOptions options;
  options.ps.placement = PsPlacement::dedicated;
  options.ps.servers = world.size();
  const std::string error = invalid_argument_from([&] { make_strategy(find_strategy("ps-zmq"), world, options); });
  EXPECT_NE(error.find("ps-zmq --ps-placement dedicated needs more ranks than "
                       "--ps-servers (" +
                       std::to_string(world.size()) + ")"),
            std::string::npos)
      << error;
}

TEST(PsZmqMpiErrors, ColocatedPlacementNeedsARankPerShard) {
  World world;
  StrategyOptions options;
  options.ps.servers = world.size() + 1;
  const std::string error = invalid_argument_from([&] { make_strategy(find_strategy("ps-zmq"), world, options); });
  EXPECT_NE(error.find("needs at least " + std::to_string(world.size() + 1) + " ranks"),
            std::string::npos)
      << error;
}

TEST(PsZmqMpiErrors, UnknownTransportIsNamed) {
  World world;
  StrategyOptions options;
  options.ps.transport = "udp";
  const std::string error = invalid_argument_from([&] { make_strategy(find_strategy("ps-zmq"), world, options); });
  EXPECT_NE(error.find("unknown --ps-transport 'udp'"), std::string::npos) << error;
}

// Over MPI the shards sum fp32 pushes in step: what ZeroMQ alone carries is
// refused in one line, naming it.
TEST(PsZmqMpiErrors, MpiTransportRefusesWhatOnlyZeroMqCarries) {
  World world;
  StrategyOptions options;
  options.ps.transport = "mpi";
  options.ps.mode = PsMode::async;
  std::string error = invalid_argument_from([&] { make_strategy(find_strategy("ps-zmq"), world, options); });
  EXPECT_NE(error.find("--ps-transport mpi carries --ps-mode sync only (got async)"), std::string::npos)
      << error;
  options.ps.mode = PsMode::sync;
  options.compression = Compression::bf16;
  error = invalid_argument_from([&] { make_strategy(find_strategy("ps-zmq"), world, options); });
  EXPECT_NE(error.find("--compression bf16 needs tcp or ipc"), std::string::npos) << error;
  options.compression = Compression::none;
  options.ps.curve = "on";
  error = invalid_argument_from([&] { make_strategy(find_strategy("ps-zmq"), world, options); });
  EXPECT_NE(error.find("--ps-transport mpi has none"), std::string::npos) << error;
}

}  // namespace
}  // namespace gradsync
