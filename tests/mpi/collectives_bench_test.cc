// The collectives benchmark core on every rank count: exact correctness
// checks that catch a single wrong element, the bus factor, `none` checked
// against its own input, and the shape of a job with a dedicated server rank.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "harness/cli/collectives_command.h"
#include "harness/engine/collectives.h"
#include "strategies/registry.h"

namespace gradsync {
namespace {

const std::vector<std::uint64_t> kSizes = {0, 4, 12, 68, 4096};

// mpi-allreduce, except that worker 0's last element comes out one too high.
class Corrupting final : public Strategy {
 public:
  explicit Corrupting(const World& world) : inner_(make_strategy(find_strategy("mpi-allreduce"), world, {})) {}
  std::string_view name() const override { return "corrupting"; }
  void allreduce(std::span<float> buffer) override {
    inner_->allreduce(buffer);
    if (peers().rank() == 0 && !buffer.empty()) buffer.back() += 1;
  }
  void broadcast(std::span<float> buffer, int root) override { inner_->broadcast(buffer, root); }
  const World& peers() const override { return inner_->peers(); }

 private:
  std::unique_ptr<Strategy> inner_;
};

// The shape of a parameter server with a dedicated shard: world rank 0 only
// serves, the other ranks are the workers and sum among themselves.
class WithServerRank final : public Strategy {
 public:
  explicit WithServerRank(const World& world)
      : worker_(world.rank() != 0), role_(world.split(worker_ ? 1 : 0)) {
    if (worker_) sum_ = make_strategy(find_strategy("mpi-allreduce"), role_, {});
  }
  std::string_view name() const override { return "with-server"; }
  void allreduce(std::span<float> buffer) override { sum_->allreduce(buffer); }
  void broadcast(std::span<float> buffer, int root) override { sum_->broadcast(buffer, root); }
  const World& peers() const override { return role_; }
  bool is_worker() const override { return worker_; }
  void serve() override { traffic_.bytes_sent = 7; }

 private:
  bool worker_;
  World role_;
  std::unique_ptr<Strategy> sum_;
};

TEST(CollectivesBench, ACorrectStrategyHasNoWrongElementAndTheBusFactorOfItsWorkers) {
  const World world;
  auto strategy = make_strategy(find_strategy("mpi-allreduce"), world, {});
  const auto rows =
      benchmark_allreduce(*strategy, kSizes, {.iters = 2, .warmup_iters = 1, .check_passes = 2});
  ASSERT_EQ(rows.size(), kSizes.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].size_bytes, kSizes[i]);
    EXPECT_EQ(rows[i].count, kSizes[i] / 4);
    EXPECT_EQ(rows[i].wrong_elements, 0u) << "size " << kSizes[i];
    EXPECT_DOUBLE_EQ(rows[i].busbw_gbps, rows[i].algbw_gbps * bus_factor(world.size()));
    EXPECT_GE(rows[i].time_us, 0.0);
  }
}

TEST(CollectivesBench, OneWrongElementOnOneWorkerIsCountedOncePerCheckPass) {
  const World world;
  Corrupting strategy(world);
  for (int check : {1, 3}) {
    const auto rows = benchmark_allreduce(strategy, kSizes,
                                          {.iters = 1, .warmup_iters = 0, .check_passes = check});
    for (const auto& row : rows)
      EXPECT_EQ(row.wrong_elements, row.count > 0 ? std::uint64_t(check) : 0u)
          << "size " << row.size_bytes;
  }
  const auto unchecked =
      benchmark_allreduce(strategy, kSizes, {.iters = 1, .warmup_iters = 0, .check_passes = 0});
  for (const auto& row : unchecked) EXPECT_FALSE(row.wrong_elements.has_value());
}

TEST(CollectivesBench, AWrongResultNamesTheStrategyAndSizeOnEveryRank) {
  const World world;
  const StrategyFactory factory = [](const World& w) { return std::make_unique<Corrupting>(w); };
  const std::vector<StrategyOutcome> outcomes = {run_strategy(
      "corrupting", factory, world, kSizes, {.iters = 1, .warmup_iters = 0, .check_passes = 1})};
  const std::string message = wrong_results_message(outcomes);
  EXPECT_NE(message.find("corrupting with " + std::to_string(world.size()) + " workers"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("4 B (1 wrong)"), std::string::npos) << message;
  EXPECT_EQ(message.find(" 0 B"), std::string::npos) << message;
}

TEST(CollectivesBench, NoneIsCheckedAgainstEachWorkersOwnInputAndMovesNoBus) {
  const World world;
  auto strategy = make_strategy(find_strategy("none"), world, {});
  for (const auto& row :
       benchmark_allreduce(*strategy, kSizes, {.iters = 1, .warmup_iters = 0, .check_passes = 1})) {
    EXPECT_EQ(row.wrong_elements, 0u);
    EXPECT_EQ(row.busbw_gbps, 0.0);
  }
}

TEST(CollectivesBench, ServerRanksServeAndEveryRankGetsTheWorkersRows) {
  const World world;
  if (world.size() < 2) GTEST_SKIP() << "needs a server rank and a worker";
  const StrategyFactory factory = [](const World& w) {
    return std::make_unique<WithServerRank>(w);
  };
  const auto outcome = run_strategy("with-server", factory, world, kSizes,
                                    {.iters = 1, .warmup_iters = 1, .check_passes = 1});
  EXPECT_EQ(outcome.workers, world.size() - 1);
  ASSERT_EQ(outcome.rows.size(), kSizes.size());  // on world rank 0 too, which only served
  for (const auto& row : outcome.rows) EXPECT_EQ(row.wrong_elements, 0u);
  ASSERT_EQ(outcome.ranks.size(), std::size_t(world.size()));
  EXPECT_FALSE(outcome.ranks[0].is_worker);
  EXPECT_EQ(outcome.ranks[0].traffic.bytes_sent, 7u);
  for (int rank = 1; rank < world.size(); ++rank) EXPECT_TRUE(outcome.ranks[rank].is_worker);
}

}  // namespace
}  // namespace gradsync
