// Servers and workers as threads of one process, over tcp loopback and ipc:
// exact sums (small integers in floats) for awkward counts and several shard
// and worker counts, and the timeouts that name the silent peer.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <ostream>
#include <vector>
#include <zmq.hpp>

#include "strategies/ps/ps_client.h"
#include "strategies/ps/ps_socket.h"
#include "tests/unit/ps_test_support.h"

namespace gradsync {
namespace {

using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;

// Worker w's value at element i of step `step`: small integers, so that every
// sum is exact whatever the order of addition.
float input(int w, std::size_t i, int step) {
  return static_cast<float>((w + 1) * static_cast<int>(i % 13) - 3 * step + w);
}

float expected_sum(int workers, std::size_t i, int step) {
  float sum = 0;
  for (int w = 0; w < workers; ++w) sum += input(w, i, step);
  return sum;
}

struct Cluster {
  std::vector<std::unique_ptr<testing::ServerThread>> shards;
  std::vector<std::string> endpoints;

  Cluster(int shards_count, int workers, const StrategyOptions& options) {
    for (int s = 0; s < shards_count; ++s) {
      shards.push_back(std::make_unique<testing::ServerThread>(s, shards_count, workers, options));
      endpoints.push_back(shards.back()->endpoint());
    }
  }
};

struct Shape {
  std::string transport;
  int shards;
  int workers;
  std::size_t partition_bytes;
  std::string schedule = "all-at-once";
  int window = 2;  // the rotated schedule's
};

void PrintTo(const Shape& shape, std::ostream* out) {
  *out << shape.transport << ", " << shape.shards << " shards, " << shape.workers
       << " workers, partitions of " << shape.partition_bytes << " bytes, " << shape.schedule
       << " (window " << shape.window << ")";
}

class PsClientServer : public ::testing::TestWithParam<Shape> {};

TEST_P(PsClientServer, SumsExactlyForAwkwardCountsStepAfterStep) {
  const auto& [transport, shards, worker_count, partition_bytes, schedule, window] = GetParam();
  const int workers = worker_count;  // a lambda below uses it: clang 14 captures no structured binding
  StrategyOptions options;
  options.ps.transport = transport;
  options.ps.partition_bytes = partition_bytes;
  options.ps.schedule = schedule;
  options.ps.window = window;
  options.timeout_s = 20;
  Cluster cluster(shards, workers, options);
  if (transport == "ipc")
    EXPECT_THAT(cluster.endpoints[0], HasSubstr("ipc://"));
  else
    EXPECT_THAT(cluster.endpoints[0], HasSubstr("tcp://127.0.0.1:"));

  const std::vector<std::size_t> counts = {0, 1, 2, 3, 5, 7, 8, 13, 100, 1001, 0, 4099};
  testing::run_workers(workers, [&](int w) {
    PsClient client(cluster.endpoints, w, options);
    for (std::size_t step = 0; step < counts.size(); ++step) {
      std::vector<float> buffer(counts[step] + 1);
      for (std::size_t i = 0; i < buffer.size(); ++i) buffer[i] = input(w, i, step);
      const float guard = buffer.back();
      client.allreduce(std::span(buffer).first(counts[step]));
      for (std::size_t i = 0; i < counts[step]; ++i)
        ASSERT_EQ(buffer[i], expected_sum(workers, i, step))
            << "worker " << w << " step " << step << " count " << counts[step] << " element " << i;
      ASSERT_EQ(buffer.back(), guard) << "wrote past the end at step " << step;
    }
    EXPECT_EQ(client.step(), counts.size());
    std::uint64_t bytes = 0;
    for (std::size_t c : counts) bytes += c * sizeof(float);
    EXPECT_EQ(client.traffic().bytes_sent, bytes);
    EXPECT_EQ(client.traffic().bytes_received, bytes);
  });
  for (auto& shard : cluster.shards) {
    EXPECT_EQ(shard->join(), "");  // every worker said bye, so every shard returned
    EXPECT_EQ(shard->server().rejected(), 0u);
  }
}

// Partitions of 28 bytes travel inside ZeroMQ's small-message storage; of 1000
// bytes, at odd offsets inside its receive buffer (the shard must realign
// them); of 4 bytes, by the thousand (more than ZeroMQ's default queue
// limits, which would drop replies); of 4 MB (the default), in one piece.
// The rotated schedule with windows of 1 (one push and one pull at a time),
// 2 (its default) and more than the partitions.
INSTANTIATE_TEST_SUITE_P(
    Shapes, PsClientServer,
    ::testing::Values(Shape{"tcp", 1, 1, 28}, Shape{"tcp", 1, 3, 28}, Shape{"tcp", 2, 2, 1000},
                      Shape{"tcp", 3, 5, 28}, Shape{"tcp", 2, 3, 4}, Shape{"tcp", 2, 2, 4 << 20},
                      Shape{"ipc", 1, 2, 1000}, Shape{"ipc", 2, 3, 28},
                      Shape{"tcp", 1, 3, 28, "rotated", 1}, Shape{"tcp", 3, 5, 28, "rotated", 2},
                      Shape{"tcp", 2, 3, 4, "rotated", 2}, Shape{"ipc", 4, 4, 100, "rotated", 3},
                      Shape{"tcp", 2, 2, 1000, "rotated", 64}),
    [](const ::testing::TestParamInfo<Shape>& info) {
      const Shape& s = info.param;
      return s.transport + "_" + std::to_string(s.shards) + "shards_" + std::to_string(s.workers) +
             "workers_" + std::to_string(s.partition_bytes) + "bytes" +
             (s.schedule == "rotated" ? "_rotated" + std::to_string(s.window) : "");
    });

TEST(PsClientServerLarge, DefaultPartitionsOfAFewMegabytes) {
  StrategyOptions options;  // 4 MB partitions
  options.timeout_s = 30;
  Cluster cluster(2, 2, options);
  const std::size_t count = 3'000'001;  // three partitions, the last one uneven
  testing::run_workers(2, [&](int w) {
    PsClient client(cluster.endpoints, w, options);
    std::vector<float> buffer(count);
    for (std::size_t i = 0; i < count; ++i) buffer[i] = input(w, i, 0);
    client.allreduce(buffer);
    for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(buffer[i], expected_sum(2, i, 0)) << i;
  });
}

// A worker reads no reply until it has pushed every partition, so with many
// partitions the shard's replies queue up meanwhile: none may be dropped
// (ZeroMQ's default queue limit of 1000 messages drops a ROUTER's replies).
TEST(PsClientServerLarge, RepliesQueueWhileTheWorkerIsStillPushing) {
  StrategyOptions options;
  options.ps.partition_bytes = 1024;  // 32768 partitions of 256 floats
  options.timeout_s = 20;
  Cluster cluster(1, 1, options);
  PsClient client(cluster.endpoints, 0, options);
  std::vector<float> buffer(8 << 20);
  for (std::size_t i = 0; i < buffer.size(); ++i) buffer[i] = input(0, i, 0);
  client.allreduce(buffer);
  for (std::size_t i = 0; i < buffer.size(); ++i) ASSERT_EQ(buffer[i], input(0, i, 0)) << i;
}

// A fast worker pushes step 1 while a slow one has not yet read its step-0
// reply: each gets the right sums, tagged with the right step. Worker 1 is
// played by a bare socket, so that it can be slow at exactly that point.
TEST(PsClientServerSteps, AFastWorkerMayRunOneStepAhead) {
  StrategyOptions options;
  options.ps.schedule = "all-at-once";  // a bare socket plays a worker of that schedule
  options.timeout_s = 10;
  testing::ServerThread shard(0, 1, 2, options);
  zmq::context_t context(1);
  zmq::socket_t slow = testing::bare_dealer(context, shard.endpoint());
  auto slow_push = [&](std::uint64_t step, float value) {
    std::vector<float> values(4, value);
    send_message(slow,
                 {.type = PsMessageType::push, .step = step, .worker = 1, .count = 4, .total = 4},
                 zmq::message_t(values.data(), values.size() * sizeof(float)));
  };
  auto slow_reply = [&] {
    zmq::pollitem_t item{slow.handle(), 0, ZMQ_POLLIN, 0};
    poll_for(&item, 1, std::chrono::seconds(10));
    std::vector<zmq::message_t> frames = recv_message(slow);
    if (frames.size() != 2) throw std::runtime_error("the slow worker got no reply");
    const PsDecoded decoded = decode_header({frames[0].data<std::byte>(), frames[0].size()});
    EXPECT_TRUE(decoded.ok()) << decoded.error;
    return std::pair{decoded.header.step, frames[1].data<float>()[3]};
  };

  PsClient fast({shard.endpoint()}, 0, options);
  slow_push(0, 10.0f);
  std::vector<float> step0(4, 1.0f);
  fast.allreduce(step0);
  EXPECT_EQ(step0, std::vector<float>(4, 11.0f));
  std::vector<float> step1(4, 2.0f);
  std::jthread ahead([&] { fast.allreduce(step1); });
  // Give the fast worker's step-1 push time to reach the shard first (the
  // test passes either way; this makes it test the interesting order).
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(slow_reply(), (std::pair<std::uint64_t, float>{0, 11.0f}));
  slow_push(1, 20.0f);
  EXPECT_EQ(slow_reply(), (std::pair<std::uint64_t, float>{1, 22.0f}));
  ahead.join();
  EXPECT_EQ(step1, std::vector<float>(4, 22.0f));
  send_message(slow, {.type = PsMessageType::bye, .worker = 1}, zmq::message_t());
}

// Pushes of the same partition for different steps are never added together
// (a worker out of step is a bug to surface, not data to mix in).
TEST(PsClientServerSteps, PushesOfDifferentStepsAreNeverSummedTogether) {
  StrategyOptions options;
  options.ps.schedule = "all-at-once";  // a bare socket plays a worker of that schedule
  options.timeout_s = 0.3;
  testing::ServerThread shard(0, 1, 2, options);
  zmq::context_t context(1);
  zmq::socket_t stray = testing::bare_dealer(context, shard.endpoint());
  std::vector<float> values(4, 5.0f);
  send_message(stray, {.type = PsMessageType::push, .step = 7, .worker = 1, .count = 4, .total = 4},
               zmq::message_t(values.data(), values.size() * sizeof(float)));
  PsClient client({shard.endpoint()}, 0, options);
  std::vector<float> buffer(4, 1.0f);
  EXPECT_THAT([&] { client.allreduce(buffer); },
              ::testing::ThrowsMessage<std::runtime_error>(HasSubstr("no reply")));
  EXPECT_EQ(buffer, std::vector<float>(4, 1.0f));
  EXPECT_THAT(shard.join(),
              HasSubstr("waiting for worker 1 (rank 1) to push partition 0 at step 0"));
}

// Shard 1 answers its first pushes, then closes like a crashed server: the
// worker gives up after the timeout, naming the shard, its endpoint, the first
// unanswered partition and the step; and it refuses to go on afterwards.
TEST(PsClientTimeout, NamesTheSilentShardPartitionAndStep) {
  StrategyOptions options;
  options.ps.partition_bytes = 16;  // 10 floats: partitions 0 and 2 on shard 0, 1 on shard 1
  options.timeout_s = 0.5;
  StrategyOptions faulty = options;
  faulty.faults.ps_stop_after = 1;  // answers step 0's partition 1, then dies
  testing::ServerThread shard0(0, 2, 1, options);
  testing::ServerThread shard1(1, 2, 1, faulty);
  PsClient client({shard0.endpoint(), shard1.endpoint()}, 0, options);

  std::vector<float> buffer(10, 1.0f);
  client.allreduce(buffer);
  EXPECT_EQ(buffer, std::vector<float>(10, 1.0f));

  const auto start = Clock::now();
  try {
    client.allreduce(buffer);
    FAIL() << "no error although shard 1 stopped answering";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("no reply from server shard 1 (rank 1, " + shard1.endpoint() +
                                    ") for partition 1 at step 1 within 0.5 s"));
    EXPECT_THAT(e.what(), HasSubstr("is rank 1 (server shard 1) alive?"));
  }
  const double waited = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_GE(waited, 0.45);
  EXPECT_LT(waited, 5.0);
  EXPECT_THAT([&] { client.allreduce(buffer); },
              ::testing::ThrowsMessage<std::runtime_error>(HasSubstr("after an earlier error")));
}

// A server that is there but never answers (a bound ROUTER that only reads).
TEST(PsClientTimeout, ServerThatNeverRepliesOverIpc) {
  StrategyOptions options;
  options.ps.transport = "ipc";
  options.timeout_s = 0.3;
  testing::ServerThread mute(0, 1, 2, options);  // waits for a second worker that never comes
  PsClient client({mute.endpoint()}, 0, options);
  std::vector<float> buffer(3, 2.0f);
  const auto start = Clock::now();
  EXPECT_THAT([&] { client.allreduce(buffer); },
              ::testing::ThrowsMessage<std::runtime_error>(
                  HasSubstr("no reply from server shard 0 (rank 0, " + mute.endpoint() +
                            ") for partition 0 at step 0 within 0.3 s")));
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 5.0);
  // The shard gives up as well, naming the worker it waited for.
  EXPECT_THAT(mute.join(),
              HasSubstr("waiting for worker 1 (rank 1) to push partition 0 at step 0"));
}

// A reply that does not belong to the step in progress is an error, not data.
TEST(PsClientReplies, RejectsAReplyForAnotherStep) {
  zmq::context_t context(1);
  zmq::socket_t router(context, zmq::socket_type::router);
  router.set(zmq::sockopt::linger, 0);
  router.bind("tcp://127.0.0.1:*");
  const std::string endpoint = router.get(zmq::sockopt::last_endpoint);
  StrategyOptions options;
  options.timeout_s = 5;
  PsClient client({endpoint}, 0, options);
  std::vector<float> buffer(4, 1.0f);
  std::jthread impostor([&] {
    zmq::pollitem_t item{router.handle(), 0, ZMQ_POLLIN, 0};
    poll_for(&item, 1, std::chrono::seconds(5));
    std::vector<zmq::message_t> push = recv_message(router);
    if (push.size() != 3) return;
    PsHeader header = decode_header({push[1].data<std::byte>(), push[1].size()}).header;
    header.type = PsMessageType::reply;
    header.step = 5;
    router.send(push[0], zmq::send_flags::sndmore);
    send_message(router, header, std::move(push[2]));
  });
  EXPECT_THAT([&] { client.allreduce(buffer); },
              ::testing::ThrowsMessage<std::runtime_error>(
                  HasSubstr("bad reply from server shard 0 (" + endpoint +
                            ") at step 0: it is "
                            "for step 5")));
}

}  // namespace
}  // namespace gradsync
