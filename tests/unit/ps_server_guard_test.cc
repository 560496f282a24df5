// What a shard accepts from whom, over real ZeroMQ: a foreign connection can
// neither end the job with a forged bye nor make the shard keep pushes for
// steps to come; a worker pushes each partition once; with CURVE, only the
// job's workers get a message accepted; and a stalled step is blamed on the
// worker that did not push, on both sides of the wire.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "strategies/ps/ps_client.h"
#include "strategies/ps/ps_curve.h"
#include "strategies/ps/ps_socket.h"
#include "tests/unit/ps_test_support.h"

namespace gradsync {
namespace {

using ::testing::HasSubstr;
using Reasons = std::map<std::string, std::uint64_t>;

constexpr std::size_t kCount = 1024;  // one partition of 4 KiB

StrategyOptions small_options(double timeout_s) {
  StrategyOptions options;
  options.ps.partition_bytes = kCount * sizeof(float);
  options.ps.schedule = "all-at-once";  // bare sockets play workers of that schedule
  options.timeout_s = timeout_s;
  return options;
}

// Sends one push of `kCount` copies of `value` for partition 0 at `step`.
void push(zmq::socket_t& socket, std::uint32_t worker, std::uint64_t step, float value) {
  std::vector<float> values(kCount, value);
  send_message(socket,
               {.type = PsMessageType::push,
                .step = step,
                .worker = worker,
                .count = kCount,
                .total = kCount},
               zmq::message_t(values.data(), values.size() * sizeof(float)));
}

void bye(zmq::socket_t& socket, std::uint32_t worker) {
  send_message(socket, {.type = PsMessageType::bye, .worker = worker}, zmq::message_t());
}

// One allreduce on every client at once (each blocks until all have pushed);
// worker w contributes w + 1 everywhere, so each element sums to W(W+1)/2.
void allreduce_all(std::vector<std::unique_ptr<PsClient>>& clients) {
  testing::run_workers(static_cast<int>(clients.size()), [&](int w) {
    std::vector<float> buffer(kCount, static_cast<float>(w + 1));
    clients[w]->allreduce(buffer);
    const auto n = static_cast<float>(clients.size());
    if (buffer != std::vector<float>(kCount, n * (n + 1) / 2))
      throw std::runtime_error("worker " + std::to_string(w) + " got a wrong sum");
  });
}

std::vector<std::unique_ptr<PsClient>> clients_of(const testing::ServerThread& shard, int workers,
                                                  const StrategyOptions& options) {
  std::vector<std::unique_ptr<PsClient>> clients;
  for (int w = 0; w < workers; ++w)
    clients.push_back(std::make_unique<PsClient>(std::vector{shard.endpoint()}, w, options));
  return clients;
}

// A shard whose two workers have done a step (so both are bound to their
// connections), and a foreign socket connected to it.
class PsForeignSocket : public ::testing::Test {
 protected:
  void SetUp() override { allreduce_all(clients_); }

  const StrategyOptions options_ = small_options(20);
  testing::ServerThread shard_{0, 1, 2, options_};
  std::vector<std::unique_ptr<PsClient>> clients_ = clients_of(shard_, 2, options_);
  zmq::context_t context_{1};
  zmq::socket_t forger_ = testing::bare_dealer(context_, shard_.endpoint());
};

// A bye from another connection is refused, and the shard goes on serving
// the workers until their own byes.
TEST_F(PsForeignSocket, AForgedByeDoesNotEndTheShard) {
  bye(forger_, 0);
  bye(forger_, 1);
  ASSERT_TRUE(testing::eventually([&] { return shard_.server().rejected() >= 2; }));
  EXPECT_EQ(shard_.server().rejections().by_reason, (Reasons{{"wrong_identity", 2}}));
  EXPECT_THAT(shard_.server().last_rejection(),
              HasSubstr("a bye as worker 1, which another connection speaks for"));

  allreduce_all(clients_);  // the shard still serves both workers
  clients_.clear();         // their byes end it
  EXPECT_EQ(shard_.join(), "");
  EXPECT_EQ(shard_.server().rejected(), 2u);
}

// 150 pushes for steps to come, claiming the workers' indices, are refused
// one by one and none is kept.
TEST_F(PsForeignSocket, AFloodOfFutureStepsIsRefusedAndNotStored) {
  for (std::uint64_t step = 1; step <= 150; ++step) push(forger_, step % 2, step, 1e6f);
  ASSERT_TRUE(testing::eventually([&] { return shard_.server().rejected() >= 150; }));
  EXPECT_EQ(shard_.server().rejections().by_reason, (Reasons{{"wrong_identity", 150}}));
  EXPECT_EQ(shard_.server().pending_partitions(), 0u);

  allreduce_all(clients_);  // the forged values were added nowhere
  clients_.clear();
  EXPECT_EQ(shard_.join(), "");
}

// Even a connection the shard accepted as a worker cannot make it hold more
// than one step of that worker, nor more than two steps in all.
TEST(PsServerGuard, AtMostTwoStepsAreHeldWhateverTheWorkersPush) {
  const StrategyOptions options = small_options(20);
  testing::ServerThread shard(0, 1, 3, options);
  zmq::context_t context(1);
  zmq::socket_t one = testing::bare_dealer(context, shard.endpoint());
  zmq::socket_t two = testing::bare_dealer(context, shard.endpoint());
  zmq::socket_t zero = testing::bare_dealer(context, shard.endpoint());

  for (std::uint64_t step = 5; step < 155; ++step) push(one, 1, step, 1.0f);
  ASSERT_TRUE(testing::eventually([&] { return shard.server().rejected() >= 149; }));
  EXPECT_EQ(shard.server().pending_partitions(), 1u);  // step 5 only
  EXPECT_THAT(shard.server().last_rejection(),
              HasSubstr("worker 1 pushed step 154 before its step 5 was answered"));

  push(two, 2, 9, 1.0f);   // a second step in flight
  push(two, 2, 10, 1.0f);  // refused: its step 9 is unanswered
  ASSERT_TRUE(testing::eventually([&] { return shard.server().rejected() >= 150; }));
  EXPECT_EQ(shard.server().pending_partitions(), 2u);
  push(zero, 0, 12, 1.0f);  // refused: a third step
  push(two, 1, 9, 1.0f);    // refused: the connection speaks for worker 2
  ASSERT_TRUE(testing::eventually([&] { return shard.server().rejected() >= 152; }));
  EXPECT_EQ(shard.server().pending_partitions(), 2u);
  EXPECT_EQ(shard.server().rejections().by_reason,
            (Reasons{{"out_of_window", 151}, {"wrong_identity", 1}}));
}

// A worker's second push of the same partition and step is refused, and the
// sum holds its first push only.
TEST(PsServerGuard, ASecondPushOfTheSamePartitionAndStepIsRefused) {
  const StrategyOptions options = small_options(20);
  testing::ServerThread shard(0, 1, 2, options);
  zmq::context_t context(1);
  zmq::socket_t one = testing::bare_dealer(context, shard.endpoint());
  push(one, 1, 0, 2.0f);
  push(one, 1, 0, 100.0f);
  ASSERT_TRUE(testing::eventually([&] { return shard.server().rejected() >= 1; }));
  EXPECT_EQ(shard.server().rejections().by_reason, (Reasons{{"duplicate", 1}}));
  EXPECT_THAT(shard.server().last_rejection(), HasSubstr("pushed partition 0 of step 0 twice"));

  PsClient zero({shard.endpoint()}, 0, options);
  std::vector<float> buffer(kCount, 1.0f);
  zero.allreduce(buffer);
  EXPECT_EQ(buffer, std::vector<float>(kCount, 3.0f));
  bye(one, 1);
}

// CURVE on: a socket without CURVE, one with a key of its own, and one with
// worker 0's key claiming worker 1 get no message accepted, each refusal
// counted, while the real workers finish.
TEST(PsServerGuard, WithCurveOnlyTheJobsWorkersGetAMessageAccepted) {
  ASSERT_TRUE(zmq_has("curve")) << "this libzmq has no CURVE";
  const StrategyOptions options = small_options(20);
  const PsKeyPair shard_keys = make_ps_keypair();
  const std::vector<PsKeyPair> worker_keys = {make_ps_keypair(), make_ps_keypair()};
  PsJob job;
  job.shard_public_keys = {shard_keys.public_key};
  for (const PsKeyPair& keys : worker_keys) job.worker_public_keys.push_back(keys.public_key);
  testing::ServerThread shard(0, 1, 2, options, job, shard_keys);

  zmq::context_t context(1);
  auto handshakes = [&] {
    const PsRejections refused = shard.server().rejections();
    return refused.by_reason.contains("handshake") ? refused.by_reason.at("handshake") : 0;
  };
  {
    // Refused as another mechanism, or dropped mid-greeting: counted either way.
    zmq::socket_t plain = testing::bare_dealer(context, shard.endpoint());
    push(plain, 1, 0, 1e6f);
    EXPECT_TRUE(testing::eventually([&] { return handshakes() >= 1; }));
  }
  const std::uint64_t before = handshakes();
  {
    zmq::socket_t stranger =
        testing::bare_dealer(context, shard.endpoint(), make_ps_keypair(), shard_keys.public_key);
    push(stranger, 1, 0, 1e6f);
    EXPECT_TRUE(testing::eventually([&] { return handshakes() > before; }));
  }
  zmq::socket_t impostor =
      testing::bare_dealer(context, shard.endpoint(), worker_keys[0], shard_keys.public_key);
  push(impostor, 1, 0, 1e6f);
  EXPECT_TRUE(testing::eventually([&] {
    return shard.server().last_rejection().find(
               "authenticated as worker 0 sent a push as worker 1") != std::string::npos;
  })) << shard.server().last_rejection();

  std::vector<std::unique_ptr<PsClient>> clients;
  for (int w = 0; w < 2; ++w)
    clients.push_back(
        std::make_unique<PsClient>(std::vector{shard.endpoint()}, w, options, job, worker_keys[w]));
  allreduce_all(clients);  // no forged 1e6 in the sums
  allreduce_all(clients);
  clients.clear();
  EXPECT_EQ(shard.join(), "");
  const PsRejections refused = shard.server().rejections();
  EXPECT_EQ(refused.by_reason.at("wrong_identity"), 1u);
  EXPECT_GE(refused.by_reason.at("handshake"), 2u);
  EXPECT_EQ(refused.by_reason.size(), 2u) << refused.last;
}

TEST(PsCurveAuto, IsOnWhenShardsBindBeyondLoopbackOnly) {
  PsZmqOptions ps;  // --ps-curve auto, --ps-bind auto, tcp
  EXPECT_FALSE(ps_curve_enabled(ps, false));
  EXPECT_TRUE(ps_curve_enabled(ps, true));
  for (const char* loopback : {"127.0.0.1", "127.3.2.1", "::1", "localhost", "lo"}) {
    ps.bind_host = loopback;
    EXPECT_FALSE(ps_curve_enabled(ps, false)) << loopback;
  }
  for (const char* beyond : {"0.0.0.0", "10.0.0.2", "eth0"}) {
    ps.bind_host = beyond;
    EXPECT_TRUE(ps_curve_enabled(ps, false)) << beyond;
  }
  ps.transport = "ipc";
  EXPECT_FALSE(ps_curve_enabled(ps, false));
  ps.curve = "on";
  EXPECT_TRUE(ps_curve_enabled(ps, false));
  ps.transport = "tcp";
  ps.curve = "off";
  EXPECT_FALSE(ps_curve_enabled(ps, true));
}

// Worker 1 (rank 5) never pushes. The shard (rank 2) tells worker 0 whom it
// waits for, so worker 0's timeout blames rank 5, not the shard; the shard's
// own timeout names the same worker and rank.
TEST(PsServerGuard, AStalledStepIsBlamedOnTheWorkerThatDidNotPushOnBothSides) {
  const StrategyOptions options = small_options(2);
  PsJob job;
  job.shard_ranks = {2};
  job.worker_ranks = {3, 5};
  testing::ServerThread shard(0, 1, 2, options, job);
  PsClient zero({shard.endpoint()}, 0, options, job);
  std::vector<float> buffer(kCount, 1.0f);
  try {
    zero.allreduce(buffer);
    FAIL() << "no error although worker 1 never pushed";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("no reply from server shard 0 (rank 2, " + shard.endpoint() +
                                    ") for partition 0 at step 0 within 2 s"));
    EXPECT_THAT(e.what(), HasSubstr("; it is still waiting for worker 1 (rank 5) at step 0: "
                                    "is rank 5 alive?"));
  }
  const std::string shard_error = shard.join();
  EXPECT_THAT(shard_error, HasSubstr("server shard 0 (rank 2, " + shard.endpoint() +
                                     ") accepted no message within 2 s while waiting for worker 1 "
                                     "(rank 5) to push partition 0 at step 0"));
  EXPECT_THAT(shard_error, HasSubstr("): is rank 5 alive?"));
}

}  // namespace
}  // namespace gradsync
