// The parameter server's shared-memory data path, servers and workers as
// threads of one process: the segments themselves (grow, bounds, nothing
// left in /dev/shm), exact sums for awkward counts in floats and in fp16, and
// a forged shared push that asks for more than a worker's segment holds.
// Mixed locality: shards whose workers are partly local (shared memory) and
// partly remote (payloads over ZeroMQ) in the same step, exact sums for 1 to
// 4 workers and 1 to 3 shards in fp32, fp16 and bf16, and the pushes that
// take the wrong path for their worker refused. Workers read in place
// (ps_cross_memory.h): the same sums, alone and beside the other paths, and
// pushes that claim the other way of reading refused.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "strategies/core/compression.h"
#include "strategies/ps/ps_client.h"
#include "strategies/ps/ps_cross_memory.h"
#include "strategies/ps/ps_plan.h"
#include "strategies/ps/ps_server.h"
#include "strategies/ps/ps_shared_segment.h"
#include "strategies/ps/ps_socket.h"
#include "strategies/ps/ps_sum_pool.h"
#include "tests/unit/ps_test_support.h"

namespace gradsync {
namespace {

using ::testing::HasSubstr;

// The names this process's segments have in /dev/shm right now (other
// jobs' segments come and go while tests run side by side).
std::vector<std::string> segments_left() {
  const std::string mine = "gradsync-ps-" + std::to_string(getpid()) + "-";
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator("/dev/shm"))
    if (entry.path().filename().string().starts_with(mine))
      names.push_back(entry.path().filename().string());
  return names;
}

TEST(SharedSegment, GrowsAndTheOtherSideSeesItWithinItsBounds) {
  SharedSegment mine = SharedSegment::create("test");
  SharedSegment theirs = SharedSegment::open(mine.name());
  mine.unlink();
  EXPECT_EQ(shm_open(mine.name().c_str(), O_RDWR, 0), -1) << "the name outlived unlink()";
  EXPECT_FALSE(theirs.holds(1, 1));
  mine.reserve(64);
  std::memset(mine.at(0, 64), 7, 64);
  EXPECT_TRUE(theirs.holds(16, 4));
  EXPECT_FALSE(theirs.holds(17, 4));
  EXPECT_FALSE(theirs.holds(UINT64_MAX, 4));
  EXPECT_EQ(std::to_integer<int>(theirs.at(63, 1)[0]), 7);
  EXPECT_THAT([&] { theirs.at(60, 8); },
              ::testing::ThrowsMessage<std::runtime_error>(HasSubstr("which holds 64")));
  mine.reserve(1 << 20);  // grown: the other side maps again, the bytes stay
  std::memset(mine.at((1 << 20) - 1, 1), 9, 1);
  EXPECT_EQ(std::to_integer<int>(theirs.at((1 << 20) - 1, 1)[0]), 9);
  EXPECT_EQ(std::to_integer<int>(theirs.at(0, 1)[0]), 7);
}

TEST(SharedSegment, NothingIsLeftInDevShm) {
  const std::vector<std::string> before = segments_left();
  {
    SharedSegment named = SharedSegment::create("left");  // never unlinked by hand
    named.reserve(4096);
    EXPECT_EQ(segments_left().size(), before.size() + 1);
  }
  EXPECT_EQ(segments_left(), before);
}

// Worker w's value at element i of step `step`: small integers, exact in
// floats and in fp16 whatever the order of addition.
float input(int w, std::size_t i, int step) {
  return static_cast<float>((w + 1) * static_cast<int>(i % 13) - 3 * step + w);
}

// Which workers share which shard's host, one string per shard, one letter
// per worker: L local (shared memory, through the segments), P local and
// read in place (its cross-memory offer taken; this process's own memory,
// as for a shard colocated with its worker), R remote (ZeroMQ).
using Locality = std::vector<std::string>;

bool is_local(char letter) { return letter == 'L' || letter == 'P'; }
bool any_local(const std::string& workers) {
  return std::any_of(workers.begin(), workers.end(), is_local);
}

Locality all_local(int shards, int workers, char letter = 'L') {
  return Locality(shards, std::string(workers, letter));
}

// Shards and workers on the shared path, set up as ps_zmq.cc does it: the
// shards' (those with some local worker) and the workers' segments made,
// each side opening the other's where `local` pairs them, the names
// removed; then each shard serves on a thread of its own.
struct SharedCluster {
  std::vector<std::unique_ptr<PsServer>> servers;
  std::vector<std::unique_ptr<PsClient>> clients;
  std::vector<std::string> errors;
  std::vector<std::jthread> threads;

  SharedCluster(int shards, int workers, const StrategyOptions& options, int sum_threads = 1)
      : SharedCluster(all_local(shards, workers), options, sum_threads) {}

  SharedCluster(const Locality& local, const StrategyOptions& options, int sum_threads = 1)
      : errors(local.size()) {
    const int shards = static_cast<int>(local.size());
    const int workers = static_cast<int>(local[0].size());
    std::vector<std::string> endpoints;
    std::vector<std::array<std::string, 2>> sums;
    for (int s = 0; s < shards; ++s) {
      servers.push_back(std::make_unique<PsServer>(s, shards, workers, options));
      endpoints.push_back(servers.back()->endpoint());
      sums.push_back(any_local(local[s]) ? servers.back()->share(sum_threads)
                                         : std::array<std::string, 2>{});
    }
    std::vector<std::string> values;
    for (int w = 0; w < workers; ++w) {
      clients.push_back(std::make_unique<PsClient>(endpoints, w, options));
      values.push_back(clients.back()->share());
    }
    for (int s = 0; s < shards; ++s) {
      if (!any_local(local[s])) continue;
      std::vector<std::string> names, offers;
      for (int w = 0; w < workers; ++w) {
        names.push_back(is_local(local[s][w]) ? values[w] : "");
        offers.push_back(local[s][w] == 'P' ? CrossMemory::offer() : "");
      }
      servers[s]->attach_workers(names, offers);
    }
    for (int w = 0; w < workers; ++w) {
      std::vector<std::vector<std::string>> names(shards);
      std::vector<bool> in_place(shards, false);
      for (int s = 0; s < shards; ++s) {
        if (is_local(local[s][w])) names[s] = {sums[s][0], sums[s][1]};
        in_place[s] = servers[s]->in_place(static_cast<std::uint32_t>(w));
      }
      clients[w]->attach_shards(names);
      clients[w]->read_in_place(in_place);
    }
    for (auto& server : servers) server->unlink_shared();
    for (auto& client : clients) client->unlink_shared();
    for (int s = 0; s < shards; ++s)
      threads.emplace_back([this, s] {
        try {
          servers[s]->run();
        } catch (const std::exception& e) {
          errors[s] = e.what();
        }
      });
  }

  // The workers' byes end the shards; then what each shard ended with.
  std::vector<std::string> finish() {
    clients.clear();
    threads.clear();
    return errors;
  }
};

struct Shape {
  int shards;
  int workers;
  std::size_t partition_bytes;
  Compression compression;
  int sum_threads = 1;    // each shard's
  bool in_place = false;  // every worker read in place ('P'), else through the segments
};

// Every worker of `cluster` allreduces awkward counts step after step, and
// each checks the exact sum. Sizes that shrink and grow again, so that the
// segments grow while the other side has them mapped, and parities
// alternate over both; with helpers (`sum_threads`), partitions large
// enough to be cut among the threads, in slices of whole chunks and a short
// last one (ps_sum_pool.h).
void expect_exact_sums(SharedCluster& cluster, int workers, Compression compression,
                       int sum_threads) {
  const bool compressed = compression != Compression::none;
  std::vector<std::size_t> counts = {0, 1, 2, 3, 5, 7, 8, 13, 100, 1001, 0, 4099, 7, 70000};
  if (sum_threads > 1) counts.insert(counts.end(), {600011, 5, 2 * kSumMinSlice});
  testing::run_workers(workers, [&](int w) {
    PsClient& client = *cluster.clients[w];
    for (std::size_t step = 0; step < counts.size(); ++step) {
      const std::size_t count = counts[step];
      std::vector<float> values(count);
      for (std::size_t i = 0; i < count; ++i) values[i] = input(w, i, static_cast<int>(step));
      std::vector<float> got(count);
      if (compressed) {
        std::vector<std::uint16_t> buffer(count + 1, 0x1234);
        compress(values, std::span(buffer).first(count), compression);
        client.allreduce(std::span(buffer).first(count), compression);
        ASSERT_EQ(buffer.back(), 0x1234) << "wrote past the end at step " << step;
        decompress(std::span(buffer).first(count), got, compression);
      } else {
        std::vector<float> buffer = values;
        buffer.push_back(-1.5f);
        client.allreduce(std::span(buffer).first(count));
        ASSERT_EQ(buffer.back(), -1.5f) << "wrote past the end at step " << step;
        std::copy_n(buffer.begin(), count, got.begin());
      }
      for (std::size_t i = 0; i < count; ++i) {
        float expected = 0;
        for (int v = 0; v < workers; ++v) expected += input(v, i, static_cast<int>(step));
        ASSERT_EQ(got[i], expected)
            << "worker " << w << " step " << step << " count " << count << " element " << i;
      }
    }
  });
}

// Shards and workers placed as `local` says sum step after step; the sums
// are exact on both paths, each shard says which workers took shared
// memory, and nothing is left in /dev/shm.
void expect_exact_sums(const Locality& local, std::size_t partition_bytes, Compression compression,
                       const std::string& schedule = "rotated", int sum_threads = 1) {
  StrategyOptions options;
  options.ps.schedule = schedule;
  options.ps.partition_bytes = partition_bytes;
  options.compression = compression;
  options.timeout_s = 20;
  const std::vector<std::string> before = segments_left();
  SharedCluster cluster(local, options, sum_threads);
  EXPECT_EQ(segments_left(), before) << "names left after the set-up";
  const int workers = static_cast<int>(local[0].size());
  expect_exact_sums(cluster, workers, compression, sum_threads);
  for (const std::string& error : cluster.finish()) EXPECT_EQ(error, "");
  for (std::size_t s = 0; s < cluster.servers.size(); ++s) {
    const PsServer& server = *cluster.servers[s];
    std::vector<std::uint32_t> expected, in_place;
    for (int w = 0; w < workers; ++w) {
      if (is_local(local[s][w])) expected.push_back(static_cast<std::uint32_t>(w));
      if (local[s][w] == 'P') in_place.push_back(static_cast<std::uint32_t>(w));
    }
    EXPECT_EQ(server.shared_workers(), expected) << "shard " << s;
    EXPECT_EQ(server.in_place_workers(), in_place) << "shard " << s;
    EXPECT_EQ(server.shared(), !expected.empty()) << "shard " << s;
    EXPECT_EQ(server.rejected(), 0u) << server.last_rejection();
  }
  cluster.servers.clear();
  EXPECT_EQ(segments_left(), before);
}

class PsSharedMemory : public ::testing::TestWithParam<Shape> {};

TEST_P(PsSharedMemory, SumsExactlyForAwkwardCountsStepAfterStep) {
  const Shape shape = GetParam();
  expect_exact_sums(all_local(shape.shards, shape.workers, shape.in_place ? 'P' : 'L'),
                    shape.partition_bytes, shape.compression, "all-at-once", shape.sum_threads);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, PsSharedMemory,
    ::testing::Values(
        Shape{1, 1, 4 << 20, Compression::none}, Shape{1, 3, 28, Compression::none},
        Shape{2, 2, 1000, Compression::none}, Shape{3, 5, 4096, Compression::none},
        Shape{2, 3, 4, Compression::none}, Shape{2, 2, 1000, Compression::fp16},
        Shape{3, 3, 4 << 20, Compression::bf16}, Shape{1, 2, 4 << 20, Compression::none, 2},
        Shape{1, 4, 4 << 20, Compression::none, 3}, Shape{2, 3, 1 << 20, Compression::fp16, 4},
        Shape{4, 1, 4 << 20, Compression::none, 2}, Shape{4, 4, 1 << 20, Compression::bf16, 2},
        Shape{1, 2, 4 << 20, Compression::none, 1, true},
        Shape{1, 3, 28, Compression::none, 1, true},
        Shape{1, 2, 4 << 20, Compression::none, 2, true},
        Shape{2, 3, 1 << 20, Compression::fp16, 3, true},
        Shape{3, 4, 4096, Compression::bf16, 1, true}),
    [](const ::testing::TestParamInfo<Shape>& info) {
      const Shape& s = info.param;
      return std::to_string(s.shards) + "shards_" + std::to_string(s.workers) + "workers_" +
             std::to_string(s.partition_bytes) + "bytes_" + std::string(to_string(s.compression)) +
             (s.sum_threads > 1 ? "_" + std::to_string(s.sum_threads) + "threads" : "") +
             (s.in_place ? "_in_place" : "");
    });

// After refused forgeries, the cluster's two real workers still sum: 1 + 2
// in every element.
void expect_the_real_workers_served(SharedCluster& cluster) {
  testing::run_workers(2, [&](int w) {
    std::vector<float> buffer(10, static_cast<float>(w + 1));
    cluster.clients[w]->allreduce(buffer);
    for (float x : buffer) ASSERT_EQ(x, 3.0f);
  });
}

// A push over ZeroMQ to a shard on shared memory, and a shared push of a
// buffer larger than the worker's segment (a forged total: the shard would
// otherwise reserve, and read, what the header says), are refused; the
// shard goes on serving the real workers.
TEST(PsSharedMemory, PushesThatDoNotFitTheSharedPathAreRefused) {
  StrategyOptions options;
  options.timeout_s = 20;
  SharedCluster cluster(1, 2, options);
  zmq::context_t context(1);
  zmq::socket_t forger = testing::bare_dealer(context, cluster.servers[0]->endpoint());
  const std::vector<std::byte> element = encode_shared_push(sizeof(float));
  const std::uint64_t huge = std::uint64_t{1} << 40;
  const Range first =
      PsPlan{cluster.servers[0]->partition_bytes(), 1}.partition(huge, 0);  // as planned
  send_message(forger,
               {.type = PsMessageType::push_shared,
                .worker = 1,
                .offset = first.offset,
                .count = first.count,
                .total = huge},
               zmq::message_t(element.data(), element.size()));
  ASSERT_TRUE(testing::eventually([&] { return cluster.servers[0]->rejected() == 1; }));
  EXPECT_THAT(cluster.servers[0]->last_rejection(),
              HasSubstr("a shared push of a 1099511627776-element buffer, more than worker 1's "
                        "segment holds"));
  const float value = 2.0f;
  send_message(forger, {.type = PsMessageType::push, .worker = 1, .count = 1, .total = 1},
               zmq::message_t(&value, sizeof value));
  ASSERT_TRUE(testing::eventually([&] { return cluster.servers[0]->rejected() == 2; }));
  EXPECT_THAT(cluster.servers[0]->last_rejection(),
              HasSubstr("a push from worker 1 to a shard that takes its data through shared "
                        "memory"));
  expect_the_real_workers_served(cluster);
  for (const std::string& error : cluster.finish()) EXPECT_EQ(error, "");
}

struct MixedShape {
  Locality local;  // per shard, per worker: L or R
  std::size_t partition_bytes;
  Compression compression;
  std::string schedule = "rotated";  // --ps-schedule of the remote workers' pushes
};

class PsMixedLocality : public ::testing::TestWithParam<MixedShape> {};

// Each shard serves its local workers through shared memory and its remote
// ones over ZeroMQ in the same step; the sums are exact on both paths, and
// each shard says which workers took shared memory.
TEST_P(PsMixedLocality, SumsExactlyWithLocalAndRemoteWorkersInOneStep) {
  expect_exact_sums(GetParam().local, GetParam().partition_bytes, GetParam().compression,
                    GetParam().schedule);
}

INSTANTIATE_TEST_SUITE_P(
    Mixes, PsMixedLocality,
    ::testing::Values(
        // one worker, shared toward one shard and not the other
        MixedShape{{"L", "R"}, 28, Compression::none},
        MixedShape{{"LR", "RL"}, 1000, Compression::none},
        MixedShape{{"LRL"}, 4096, Compression::fp16}, MixedShape{{"RLR"}, 4, Compression::none},
        // 2 hosts x 2 slots, both shards on the first host
        MixedShape{{"LLRR", "LLRR"}, 4 << 20, Compression::none},
        MixedShape{{"LLRR", "LLRR"}, 1000, Compression::bf16},
        // one shard all remote, one all local, one mixed
        MixedShape{{"RRR", "LLL", "RLR"}, 28, Compression::none},
        MixedShape{{"LLRR", "RRLL", "LRRR"}, 4096, Compression::none},
        MixedShape{{"LLRR", "RRLL", "LRRR"}, 1000, Compression::fp16},
        // the remote workers' pushes all at once (the default) instead of rotated
        MixedShape{{"L", "R"}, 28, Compression::none, "all-at-once"},
        MixedShape{{"LLRR", "LLRR"}, 4 << 20, Compression::none, "all-at-once"},
        MixedShape{{"LLRR", "RRLL", "LRRR"}, 1000, Compression::fp16, "all-at-once"},
        // read in place: alone, beside workers through the segments, and remote ones
        MixedShape{{"PP"}, 4 << 20, Compression::none, "all-at-once"},
        MixedShape{{"PPP", "PPP"}, 1000, Compression::bf16, "all-at-once"},
        MixedShape{{"PLR"}, 28, Compression::none},
        MixedShape{{"PPRR", "RRPP", "LPRR"}, 4096, Compression::fp16},
        MixedShape{{"PRP"}, 4, Compression::none, "all-at-once"}),
    [](const ::testing::TestParamInfo<MixedShape>& info) {
      std::string name;
      for (const std::string& shard : info.param.local) name += shard + "_";
      name += std::to_string(info.param.partition_bytes) + "bytes_" +
              std::string(to_string(info.param.compression));
      return info.param.schedule == "rotated" ? name : name + "_all_at_once";
    });

// The sum is taken in worker order whatever the order of arrival: with
// worker 0 pushing last, 1 + 1e8 - 1e8 is 0 in floats as workers 0, 1, 2
// add up, where the order of arrival (1e8 - 1e8 + 1) would give 1. Worker 1
// is remote, 0 and 2 local.
TEST(PsMixedLocality, SumsInWorkerOrderWhateverTheOrderOfArrival) {
  StrategyOptions options;
  options.timeout_s = 20;
  SharedCluster cluster(Locality{"LRL"}, options);
  const std::vector<float> values = {1.0f, 1e8f, -1e8f};
  testing::run_workers(3, [&](int w) {
    for (int step = 0; step < 3; ++step) {
      if (w == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      std::vector<float> buffer(5, values[w]);
      cluster.clients[w]->allreduce(buffer);
      for (float x : buffer) ASSERT_EQ(x, (values[0] + values[1]) + values[2]) << "step " << step;
    }
  });
  EXPECT_EQ((values[0] + values[1]) + values[2], 0.0f);
  for (const std::string& error : cluster.finish()) EXPECT_EQ(error, "");
}

// A shard with a local worker 0 and a remote worker 1: a shared push from
// the remote one and a payload push from the local one are refused (each
// would read, or leave unread, the wrong worker's data); the shard goes on
// serving the real workers.
TEST(PsMixedLocality, PushesOnTheOtherWorkersPathAreRefused) {
  StrategyOptions options;
  options.timeout_s = 20;
  SharedCluster cluster(Locality{"LR"}, options);
  PsServer& server = *cluster.servers[0];
  zmq::context_t context(1);
  zmq::socket_t forger = testing::bare_dealer(context, server.endpoint());
  const std::vector<std::byte> element = encode_shared_push(sizeof(float));
  send_message(forger, {.type = PsMessageType::push_shared, .worker = 1, .count = 1, .total = 1},
               zmq::message_t(element.data(), element.size()));
  ASSERT_TRUE(testing::eventually([&] { return server.rejected() == 1; }));
  EXPECT_THAT(server.last_rejection(),
              HasSubstr("a shared push from worker 1 to a shard that takes its data through "
                        "ZeroMQ"));
  const float value = 2.0f;
  send_message(forger, {.type = PsMessageType::push, .worker = 0, .count = 1, .total = 1},
               zmq::message_t(&value, sizeof value));
  ASSERT_TRUE(testing::eventually([&] { return server.rejected() == 2; }));
  EXPECT_THAT(server.last_rejection(),
              HasSubstr("a push from worker 0 to a shard that takes its data through shared "
                        "memory"));
  EXPECT_EQ(server.rejections().by_reason.at("malformed"), 2u);
  expect_the_real_workers_served(cluster);
  for (const std::string& error : cluster.finish()) EXPECT_EQ(error, "");
}

// A shard that reads worker 0 in place and worker 1 through its segment: a
// shared push naming an address from worker 1, and one from worker 0
// naming none, are refused (the shard would write the sum where nobody
// asked, or read a segment worker 0 never filled); the shard goes on
// serving the real workers.
TEST(PsSharedMemory, SharedPushesOnTheOtherWayOfReadingAreRefused) {
  StrategyOptions options;
  options.timeout_s = 20;
  SharedCluster cluster(Locality{"PL"}, options);
  PsServer& server = *cluster.servers[0];
  zmq::context_t context(1);
  zmq::socket_t forger = testing::bare_dealer(context, server.endpoint());
  float target = 0;
  const std::vector<std::byte> in_place =
      encode_shared_push(sizeof(float), reinterpret_cast<std::uintptr_t>(&target));
  send_message(forger, {.type = PsMessageType::push_shared, .worker = 1, .count = 1, .total = 1},
               zmq::message_t(in_place.data(), in_place.size()));
  ASSERT_TRUE(testing::eventually([&] { return server.rejected() == 1; }));
  EXPECT_THAT(server.last_rejection(),
              HasSubstr("a shared push from worker 1 naming an address, but this shard does not "
                        "read that worker in place"));
  const std::vector<std::byte> segment = encode_shared_push(sizeof(float));
  send_message(forger, {.type = PsMessageType::push_shared, .worker = 0, .count = 1, .total = 1},
               zmq::message_t(segment.data(), segment.size()));
  ASSERT_TRUE(testing::eventually([&] { return server.rejected() == 2; }));
  EXPECT_THAT(server.last_rejection(),
              HasSubstr("a shared push from worker 0 through its segment, but this shard reads "
                        "that worker in place"));
  EXPECT_EQ(server.rejections().by_reason.at("malformed"), 2u);
  expect_the_real_workers_served(cluster);
  EXPECT_EQ(target, 0.0f);
  for (const std::string& error : cluster.finish()) EXPECT_EQ(error, "");
}

}  // namespace
}  // namespace gradsync
