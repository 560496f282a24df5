// Asynchronous and stale-synchronous parameter servers (--ps-mode async|ssp)
// over real ZeroMQ, workers as threads: the shard applies exactly the SGD
// the trainer would, one gradient at a time; under ssp no worker starts a
// step more than K ahead of the slowest, however slow one worker is, while
// async lets it run ahead; every worker's every step is applied by every
// shard; and a shard takes only its mode's messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "strategies/ps/ps_client.h"
#include "strategies/ps/ps_socket.h"
#include "strategies/ps/sgd_rule.h"
#include "tests/unit/ps_test_support.h"

namespace gradsync {
namespace {

using ::testing::HasSubstr;

// Two partitions per shard when there are two shards: ranges cut and spread.
constexpr std::size_t kCount = 4096;
constexpr std::size_t kPartitionFloats = 1024;

StrategyOptions async_options(PsMode mode, int staleness = 0) {
  StrategyOptions options;
  options.ps.partition_bytes = kPartitionFloats * sizeof(float);
  options.ps.mode = mode;
  options.ps.staleness = staleness;
  options.sgd = {.lr = 0.05, .momentum = 0.9, .weight_decay = 0.001};
  options.timeout_s = 20;
  return options;
}

// Worker w's gradient at its step s: distinct for every (w, s, element).
std::vector<float> gradient(int worker, int step) {
  std::vector<float> g(kCount);
  for (std::size_t k = 0; k < kCount; ++k)
    g[k] = 0.001f * static_cast<float>((k * 7 + static_cast<std::size_t>(worker) * 13 +
                                        static_cast<std::size_t>(step) * 5) % 97) - 0.04f;
  return g;
}

std::vector<float> initial_parameters() {
  std::vector<float> w(kCount);
  for (std::size_t k = 0; k < kCount; ++k) w[k] = 0.5f - 0.0001f * static_cast<float>(k);
  return w;
}

struct Shards {
  explicit Shards(int count, int workers, const StrategyOptions& options) {
    for (int s = 0; s < count; ++s)
      threads.push_back(std::make_unique<testing::ServerThread>(s, count, workers, options));
  }
  std::vector<std::string> endpoints() const {
    std::vector<std::string> out;
    for (const auto& t : threads) out.push_back(t->endpoint());
    return out;
  }
  std::vector<std::unique_ptr<testing::ServerThread>> threads;
};

TEST(PsAsync, OneWorkerGetsExactlyTheSgdOfItsGradients) {
  // One worker: each step's parameters are the rule applied to the last
  // ones, bit for bit, across two shards' partitions.
  const StrategyOptions options = async_options(PsMode::async);
  Shards shards(2, 1, options);
  std::vector<float> reference = initial_parameters(), velocity(kCount, 0.0f);
  const SgdCoefficients c{.lr = 0.05f, .momentum = 0.9f, .weight_decay = 0.001f};
  {
    PsClient client(shards.endpoints(), 0, options);
    std::vector<float> buffer = initial_parameters();
    client.init(buffer);
    ASSERT_EQ(buffer, reference);
    for (int step = 0; step < 5; ++step) {
      const std::vector<float> g = gradient(0, step);
      buffer = g;
      client.push_gradient(buffer);
      sgd_momentum_update(reference.data(), g.data(), velocity.data(), kCount, c);
      ASSERT_EQ(buffer, reference) << "step " << step;
    }
    EXPECT_EQ(client.gradient_steps(), 5u);
  }
  for (auto& shard : shards.threads) {
    EXPECT_EQ(shard->join(), "");
    const PsAsyncStats stats = shard->server().async_stats();
    EXPECT_EQ(stats.steps, std::vector<std::uint64_t>{5});
    EXPECT_EQ(stats.delay.max, 0u);  // nobody else applied anything in between
    EXPECT_EQ(stats.lead.max, 0u);
  }
}

TEST(PsAsync, LaterInitsTakeTheFirstWorkersParameters) {
  const StrategyOptions options = async_options(PsMode::async);
  Shards shards(1, 2, options);
  PsClient first(shards.endpoints(), 0, options), second(shards.endpoints(), 1, options);
  std::vector<float> mine = initial_parameters();
  first.init(mine);
  std::vector<float> theirs(kCount, 7.0f);
  second.init(theirs);
  EXPECT_EQ(theirs, initial_parameters());
}

// Runs `workers` workers of `steps` steps on `shards` shards; worker 0
// computes `slow` per step before pushing, the others nothing. Returns the
// largest lead any worker had when it got its parameters, as the test sees
// it: its own steps done, minus the steps the slow worker had sent by then
// (a step sent may not be applied yet, so this never overstates the lead).
struct StragglerRun {
  std::uint64_t observed_lead = 0;
  std::vector<PsAsyncStats> stats;
  std::vector<std::uint64_t> worker_steps;
};

StragglerRun run_with_straggler(PsMode mode, int staleness, int workers, int shard_count, int steps,
                       std::chrono::milliseconds slow) {
  const StrategyOptions options = async_options(mode, staleness);
  Shards shards(shard_count, workers, options);
  StragglerRun run;
  run.worker_steps.assign(workers, 0);
  std::atomic<std::uint64_t> slow_sent{0}, lead{0};
  {
    std::vector<std::unique_ptr<PsClient>> clients;
    for (int w = 0; w < workers; ++w)
      clients.push_back(std::make_unique<PsClient>(shards.endpoints(), w, options));
    std::vector<float> start = initial_parameters();
    clients[0]->init(start);
    testing::run_workers(workers, [&](int w) {
      std::vector<float> buffer = initial_parameters();
      if (w != 0) clients[w]->init(buffer);
      for (int step = 0; step < steps; ++step) {
        if (w == 0) std::this_thread::sleep_for(slow);
        buffer = gradient(w, step);
        if (w == 0) ++slow_sent;
        clients[w]->push_gradient(buffer);
        if (w == 0) continue;
        const std::uint64_t done = static_cast<std::uint64_t>(step) + 1;
        const std::uint64_t behind = slow_sent.load();
        if (done > behind) {
          std::uint64_t seen = lead.load();
          while (done - behind > seen && !lead.compare_exchange_weak(seen, done - behind)) {
          }
        }
      }
      run.worker_steps[w] = clients[w]->gradient_steps();
    });
  }  // byes
  for (auto& shard : shards.threads) {
    EXPECT_EQ(shard->join(), "");
    run.stats.push_back(shard->server().async_stats());
  }
  run.observed_lead = lead.load();
  return run;
}

TEST(PsAsync, StaleSynchronousBoundHoldsUnderAStraggler) {
  // Worker 0 takes 15 ms a step, the others none: they would run far ahead.
  for (int bound : {0, 2}) {
    const StragglerRun run = run_with_straggler(PsMode::ssp, bound, 3, 2, 12, std::chrono::milliseconds(15));
    EXPECT_LE(run.observed_lead, static_cast<std::uint64_t>(bound)) << "K = " << bound;
    for (const PsAsyncStats& shard : run.stats) {
      EXPECT_EQ(shard.steps, run.worker_steps) << "a push was lost, K = " << bound;
      EXPECT_EQ(shard.lead.max, static_cast<std::uint64_t>(bound)) << "K = " << bound;
      // Every reply after init is counted: workers x steps.
      EXPECT_EQ(shard.lead.count, 3u * 12u);
      EXPECT_EQ(shard.delay.count, 3u * 12u);
    }
    EXPECT_EQ(run.worker_steps, (std::vector<std::uint64_t>{12, 12, 12}));
  }
}

TEST(PsAsync, AsynchronousWorkersRunAheadOfAStraggler) {
  // The same straggler without the bound: the check above can fail.
  const StragglerRun run = run_with_straggler(PsMode::async, 0, 3, 2, 12, std::chrono::milliseconds(15));
  EXPECT_GT(run.observed_lead, 2u);
  for (const PsAsyncStats& shard : run.stats) {
    EXPECT_EQ(shard.steps, run.worker_steps);
    EXPECT_GT(shard.lead.max, 2u);
    EXPECT_GT(shard.delay.max, 2u);  // the slow worker's gradients are old news
  }
}

// Under ssp a worker that stops pushing holds the others back, but not
// forever: the held worker gives up at the timeout naming the one it waits
// for (the shard told it), and so does the shard.
TEST(PsAsync, AStoppedWorkerEndsTheHeldOnesAtTheTimeoutNamingIt) {
  StrategyOptions options = async_options(PsMode::ssp, 0);
  options.timeout_s = 2;
  Shards shards(1, 2, options);
  PsClient held(shards.endpoints(), 0, options), stopped(shards.endpoints(), 1, options);
  std::vector<float> buffer = initial_parameters();
  held.init(buffer);
  stopped.init(buffer);
  buffer = gradient(0, 0);
  const auto start = std::chrono::steady_clock::now();
  try {
    held.push_gradient(buffer);
    FAIL() << "a worker held by a stopped one got its parameters";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("still waiting for worker 1 (rank 1)"));
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_THAT(shards.threads[0]->join(), HasSubstr("worker 1"));
}

// A shard refuses what its mode does not take, says why, and goes on.
TEST(PsAsync, ShardsTakeOnlyTheirModesMessages) {
  const auto send = [](zmq::socket_t& socket, PsMessageType type) {
    std::vector<float> values(kPartitionFloats, 1.0f);
    send_message(socket,
                 {.type = type, .step = 0, .count = kPartitionFloats, .total = kPartitionFloats},
                 zmq::message_t(values.data(), values.size() * sizeof(float)));
  };
  zmq::context_t context(1);
  {
    testing::ServerThread shard(0, 1, 1, async_options(PsMode::async));
    zmq::socket_t socket = testing::bare_dealer(context, shard.endpoint());
    send(socket, PsMessageType::gradient);
    ASSERT_TRUE(testing::eventually([&] { return shard.server().rejected() == 1; }));
    EXPECT_THAT(shard.server().last_rejection(),
                HasSubstr("worker 0's gradient of partition 0 before any init of it"));
    send(socket, PsMessageType::push);
    ASSERT_TRUE(testing::eventually([&] { return shard.server().rejected() == 2; }));
    EXPECT_THAT(shard.server().last_rejection(), HasSubstr("a sum push from worker 0"));
    EXPECT_EQ(shard.server().rejections().by_reason.at("wrong_mode"), 2u);
    send_message(socket, {.type = PsMessageType::bye}, zmq::message_t());
    EXPECT_EQ(shard.join(), "");
  }
  {
    testing::ServerThread shard(0, 1, 1, async_options(PsMode::sync));
    zmq::socket_t socket = testing::bare_dealer(context, shard.endpoint());
    send(socket, PsMessageType::init);
    ASSERT_TRUE(testing::eventually([&] { return shard.server().rejected() == 1; }));
    EXPECT_THAT(shard.server().last_rejection(), HasSubstr("an init from worker 0 to a shard in "
                                                           "--ps-mode sync"));
    send_message(socket, {.type = PsMessageType::bye}, zmq::message_t());
    EXPECT_EQ(shard.join(), "");
  }
}

}  // namespace
}  // namespace gradsync
