// A shard on the rotated schedule, played by bare sockets: a receipt for
// each push, each sum to a worker when it pulls it (held when the pull comes
// first), and pulls out of turn refused and counted.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <vector>
#include <zmq.hpp>

#include "strategies/ps/ps_socket.h"
#include "tests/unit/ps_test_support.h"

namespace gradsync {
namespace {

using ::testing::HasSubstr;
using Reasons = std::map<std::string, std::uint64_t>;

constexpr std::size_t kCount = 256;  // one partition

StrategyOptions rotated_options(const std::string& schedule = "rotated") {
  StrategyOptions options;
  options.ps.schedule = schedule;
  options.timeout_s = 20;
  return options;
}

PsHeader header_of(PsMessageType type, std::uint32_t worker, std::uint64_t step = 0) {
  return {.type = type, .step = step, .worker = worker, .count = kCount, .total = kCount};
}

void push(zmq::socket_t& socket, std::uint32_t worker, float value, std::uint64_t step = 0) {
  std::vector<float> values(kCount, value);
  send_message(socket, header_of(PsMessageType::push, worker, step),
               zmq::message_t(values.data(), values.size() * sizeof(float)));
}

void pull(zmq::socket_t& socket, std::uint32_t worker, std::uint64_t step = 0) {
  send_message(socket, header_of(PsMessageType::pull, worker, step), zmq::message_t());
}

// The next message within `ms` milliseconds: its header and payload, or none.
struct Message {
  PsHeader header;
  std::vector<float> values;
};
std::optional<Message> next(zmq::socket_t& socket, int ms = 5000) {
  zmq::pollitem_t item{socket.handle(), 0, ZMQ_POLLIN, 0};
  poll_for(&item, 1, std::chrono::milliseconds(ms));
  std::vector<zmq::message_t> frames = recv_message(socket);
  if (frames.size() != 2) return std::nullopt;
  const PsDecoded decoded = decode_header({frames[0].data<std::byte>(), frames[0].size()});
  EXPECT_TRUE(decoded.ok()) << decoded.error;
  const float* data = frames[1].data<float>();
  return Message{decoded.header, {data, data + frames[1].size() / sizeof(float)}};
}

TEST(PsRotatedShard, SendsReceiptsAndEachSumWhenItIsPulled) {
  testing::ServerThread shard(0, 1, 2, rotated_options());
  zmq::context_t context(1);
  zmq::socket_t zero = testing::bare_dealer(context, shard.endpoint());
  zmq::socket_t one = testing::bare_dealer(context, shard.endpoint());

  push(zero, 0, 1.0f);
  const auto receipt = next(zero);
  ASSERT_TRUE(receipt);
  EXPECT_EQ(receipt->header, header_of(PsMessageType::received, 0));
  EXPECT_TRUE(receipt->values.empty());
  pull(zero, 0);                             // before worker 1 pushed: held
  EXPECT_EQ(next(zero, 200), std::nullopt);  // no sum yet

  push(one, 1, 2.0f);
  ASSERT_TRUE(next(one));  // its receipt
  const auto sum = next(zero);
  ASSERT_TRUE(sum);  // the held pull answered once the sum is ready
  EXPECT_EQ(sum->header, header_of(PsMessageType::reply, 0));
  EXPECT_EQ(sum->values, std::vector<float>(kCount, 3.0f));
  EXPECT_EQ(next(one, 200), std::nullopt);             // worker 1 did not pull: nothing came
  EXPECT_EQ(shard.server().pending_partitions(), 1u);  // kept for worker 1

  pull(one, 1);
  const auto late = next(one);
  ASSERT_TRUE(late);
  EXPECT_EQ(late->header, header_of(PsMessageType::reply, 1));
  EXPECT_EQ(late->values, std::vector<float>(kCount, 3.0f));
  EXPECT_TRUE(testing::eventually([&] { return shard.server().pending_partitions() == 0; }));

  pull(one, 1);  // a second pull of a sum given to every worker
  ASSERT_TRUE(testing::eventually([&] { return shard.server().rejected() == 1; }));
  EXPECT_EQ(shard.server().rejections().by_reason, (Reasons{{"duplicate", 1}}));
  EXPECT_THAT(shard.server().last_rejection(),
              HasSubstr("worker 1 pulled partition 0 of step 0 twice"));
}

TEST(PsRotatedShard, RefusesPullsOutOfTurn) {
  testing::ServerThread shard(0, 1, 2, rotated_options());
  zmq::context_t context(1);
  zmq::socket_t zero = testing::bare_dealer(context, shard.endpoint());
  pull(zero, 0);  // nothing pushed
  push(zero, 0, 1.0f);
  pull(zero, 0);
  pull(zero, 0);  // twice while its sum is still being made
  PsHeader with_payload = header_of(PsMessageType::pull, 0);
  std::vector<float> junk(kCount, 9.0f);
  send_message(zero, with_payload, zmq::message_t(junk.data(), junk.size() * sizeof(float)));
  ASSERT_TRUE(testing::eventually([&] { return shard.server().rejected() == 3; }));
  EXPECT_EQ(shard.server().rejections().by_reason,
            (Reasons{{"out_of_window", 1}, {"duplicate", 1}, {"malformed", 1}}));
  EXPECT_THAT(shard.server().rejections().last, HasSubstr("a pull with a payload of 1024 bytes"));
}

TEST(PsRotatedShard, AnAllAtOnceShardRefusesPullsAndSendsNoReceipts) {
  testing::ServerThread shard(0, 1, 2, rotated_options("all-at-once"));
  zmq::context_t context(1);
  zmq::socket_t zero = testing::bare_dealer(context, shard.endpoint());
  push(zero, 0, 1.0f);
  EXPECT_EQ(next(zero, 200), std::nullopt);  // no receipt
  pull(zero, 0);
  ASSERT_TRUE(testing::eventually([&] { return shard.server().rejected() == 1; }));
  EXPECT_EQ(shard.server().rejections().by_reason, (Reasons{{"wrong_mode", 1}}));
}

}  // namespace
}  // namespace gradsync
