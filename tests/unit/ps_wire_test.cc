#include "strategies/ps/ps_wire.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <limits>
#include <map>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "strategies/ps/ps_client.h"
#include "strategies/ps/ps_socket.h"
#include "tests/unit/ps_test_support.h"

namespace gradsync {
namespace {

using ::testing::HasSubstr;

PsHeader sample_header() {
  return {.type = PsMessageType::push,
          .step = 0x0102030405060708ull,
          .partition = 0xa1b2c3d4u,
          .worker = 7,
          .offset = 1ull << 40,
          .count = 12345,
          .total = (1ull << 40) + 99999};
}

std::vector<std::byte> bytes_of(const PsHeader& header) {
  const PsHeaderBytes encoded = encode_header(header);
  return {encoded.begin(), encoded.end()};
}

TEST(PsWire, HeaderRoundTripsForEveryTypeAndExtremeValues) {
  constexpr auto kMax64 = std::numeric_limits<std::uint64_t>::max();
  constexpr auto kMax32 = std::numeric_limits<std::uint32_t>::max();
  for (PsMessageType type : {PsMessageType::push, PsMessageType::reply, PsMessageType::bye,
                            PsMessageType::init, PsMessageType::gradient}) {
    for (PsHeader header : {sample_header(), PsHeader{},
                            PsHeader{type, kMax64, kMax32, kMax32, kMax64, kMax64, kMax64}}) {
      header.type = type;
      const PsDecoded decoded = decode_header(bytes_of(header));
      ASSERT_TRUE(decoded.ok()) << decoded.error;
      EXPECT_EQ(decoded.header, header);
    }
  }
  // A status names at least one worker, at a step with a partition pending.
  for (PsHeader status :
       {PsHeader{PsMessageType::status, 12, 3, 0, 0, 1, 1},
        PsHeader{PsMessageType::status, kMax64, kMax32, kMax32, 0, kMax64, kMax64}}) {
    const PsDecoded decoded = decode_header(bytes_of(status));
    ASSERT_TRUE(decoded.ok()) << decoded.error;
    EXPECT_EQ(decoded.header, status);
  }
}

TEST(PsWire, StatusHeadersThatWaitForNobodyAreRejected) {
  const PsHeader valid{.type = PsMessageType::status, .step = 4, .count = 2, .total = 1};
  EXPECT_TRUE(decode_header(bytes_of(valid)).ok());
  PsHeader bad = valid;
  bad.count = 0;
  EXPECT_THAT(decode_header(bytes_of(bad)).error, HasSubstr("waits for no worker"));
  bad = valid;
  bad.total = 0;
  EXPECT_THAT(decode_header(bytes_of(bad)).error, HasSubstr("no partition pending"));
  bad = valid;
  bad.offset = 8;
  EXPECT_THAT(decode_header(bytes_of(bad)).error, HasSubstr("offset 8 (expected 0)"));
}

TEST(PsWire, StatusWorkersRoundTripAndAreChecked) {
  const std::vector<std::uint32_t> missing = {1, 7, 0x01020304};
  const std::vector<std::byte> payload = encode_status_workers(missing);
  ASSERT_EQ(payload.size(), 12u);
  EXPECT_EQ(payload[4], std::byte{7});  // little-endian u32s
  EXPECT_EQ(payload[8], std::byte{0x04});
  PsHeader header{.type = PsMessageType::status, .count = 3, .total = 1};
  PsStatusWorkers decoded = decode_status_workers(header, payload, 0x01020305);
  ASSERT_TRUE(decoded.ok()) << decoded.error;
  EXPECT_EQ(decoded.workers, missing);

  EXPECT_THAT(decode_status_workers(header, payload, 8).error,
              HasSubstr("worker 16909060, but there are 8 workers"));
  EXPECT_THAT(decode_status_workers(header, std::span(payload).first(8), 1u << 30).error,
              HasSubstr("8 bytes but the header says 3 worker indices"));
  const std::vector<std::byte> twice = encode_status_workers(std::vector<std::uint32_t>{2, 2});
  header.count = 2;
  EXPECT_THAT(decode_status_workers(header, twice, 4).error, HasSubstr("worker 2 twice"));
  EXPECT_THAT(decode_status_workers(header, twice, 1).error, HasSubstr("2 missing workers of 1"));
}

TEST(PsWire, LayoutIsLittleEndianAtFixedOffsets) {
  const std::vector<std::byte> bytes = bytes_of(sample_header());
  ASSERT_EQ(bytes.size(), 48u);
  EXPECT_EQ(std::memcmp(bytes.data(), "GSPS", 4), 0);
  EXPECT_EQ(bytes[4], std::byte{kPsVersion});
  EXPECT_EQ(bytes[5], std::byte{0});
  EXPECT_EQ(bytes[6], std::byte{1});     // push
  EXPECT_EQ(bytes[8], std::byte{0x08});  // step, lowest byte first
  EXPECT_EQ(bytes[15], std::byte{0x01});
  EXPECT_EQ(bytes[16], std::byte{0xd4});  // partition
  EXPECT_EQ(bytes[20], std::byte{7});     // worker
  EXPECT_EQ(bytes[29], std::byte{1});     // offset 1 << 40
}

TEST(PsWire, RejectsShortAndOversizedHeaders) {
  std::vector<std::byte> bytes = bytes_of(sample_header());
  EXPECT_THAT(decode_header(std::span(bytes).first(47)).error, HasSubstr("47 bytes, expected 48"));
  EXPECT_THAT(decode_header({}).error, HasSubstr("0 bytes"));
  bytes.push_back(std::byte{0});
  EXPECT_THAT(decode_header(bytes).error, HasSubstr("49 bytes"));
}

TEST(PsWire, RejectsWrongMagicVersionAndUnknownTypes) {
  std::vector<std::byte> bytes = bytes_of(sample_header());
  bytes[0] = std::byte{'X'};
  EXPECT_THAT(decode_header(bytes).error, HasSubstr("bad magic"));

  bytes = bytes_of(sample_header());
  bytes[4] = std::byte{kPsVersion + 1};
  EXPECT_THAT(decode_header(bytes).error,
              HasSubstr("wire version " + std::to_string(kPsVersion + 1)));
  bytes[4] = std::byte{5};  // the version before in-place shared pushes
  EXPECT_THAT(decode_header(bytes).error, HasSubstr("wire version 5 (this build speaks 6)"));
  bytes[5] = std::byte{1};  // version 261
  EXPECT_THAT(decode_header(bytes).error, HasSubstr("wire version 261"));

  for (std::uint8_t type : {0, 12, 255}) {
    bytes = bytes_of(sample_header());
    bytes[6] = std::byte{type};
    EXPECT_THAT(decode_header(bytes).error,
                HasSubstr("unknown message type " + std::to_string(type)));
  }
}

// A pull and a receipt name a partition by the push's header and carry nothing.
TEST(PsWire, PullsAndReceiptsCarryNoPayload) {
  for (PsMessageType type : {PsMessageType::pull, PsMessageType::received}) {
    const PsHeader header{.type = type, .step = 3, .partition = 1, .count = 8, .total = 16};
    EXPECT_EQ(decode_header(encode_header(header)).header, header);
    EXPECT_EQ(check_payload_size(header, 0), "");
    EXPECT_THAT(check_payload_size(header, 32),
                HasSubstr(std::string("a ") + to_string(type) + " with a payload of 32 bytes"));
  }
}

TEST(PsWire, ASharedPushStatesItsElementSize) {
  auto element = [](std::span<const std::byte> payload, bool compressed) {
    return decode_shared_push(payload, compressed).element_bytes;
  };
  EXPECT_EQ(element(encode_shared_push(4), false), 4u);
  EXPECT_EQ(element(encode_shared_push(2), true), 2u);
  EXPECT_EQ(element(encode_shared_push(2), false), 0u);  // not compressed
  EXPECT_EQ(element(encode_shared_push(8), true), 0u);
  EXPECT_EQ(element(std::vector<std::byte>(3), true), 0u);
  EXPECT_EQ(element({}, false), 0u);
  // In place: the element size, then the address, little-endian.
  const std::uint64_t address = 0x00007f1234567890;
  const std::vector<std::byte> in_place = encode_shared_push(4, address);
  ASSERT_EQ(in_place.size(), 12u);
  EXPECT_EQ(in_place[4], std::byte{0x90});
  EXPECT_EQ(in_place[11], std::byte{0x00});
  EXPECT_EQ(decode_shared_push(in_place, false).element_bytes, 4u);
  EXPECT_EQ(decode_shared_push(in_place, false).address, address);
  EXPECT_EQ(decode_shared_push(encode_shared_push(2, address), true).address, address);
  EXPECT_EQ(decode_shared_push(encode_shared_push(4), false).address, 0u);
  std::vector<std::byte> zero_address = in_place;
  std::fill(zero_address.begin() + 4, zero_address.end(), std::byte{0});
  EXPECT_EQ(element(zero_address, false), 0u);  // in place names an address
  EXPECT_EQ(element(std::vector<std::byte>(in_place.begin(), in_place.end() - 1), false), 0u);
}

TEST(PsWire, PayloadSizeMustMatchTheCountExactly) {
  PsHeader header = sample_header();
  header.count = 3;
  EXPECT_EQ(check_payload_size(header, 12), "");
  EXPECT_THAT(check_payload_size(header, 8), HasSubstr("8 bytes but the header says 3 floats"));
  EXPECT_THAT(check_payload_size(header, 13), HasSubstr("13 bytes"));
  EXPECT_THAT(check_payload_size(header, 16), HasSubstr("16 bytes"));
  // A count whose byte size overflows 64 bits must not wrap around to a match.
  header.count = (1ull << 62) + 1;
  EXPECT_NE(check_payload_size(header, 4), "");
  header.count = 0;
  EXPECT_EQ(check_payload_size(header, 0), "");
}

// Garbage of every kind sent to a real shard is counted by reason and
// dropped, binds no worker index to the sender, and the shard still serves a
// correct allreduce afterwards.
TEST(PsServerRejects, CountsMalformedMessagesAndKeepsServing) {
  StrategyOptions options;
  options.ps.partition_bytes = 16;  // 4 floats: a 10-element buffer has 3 partitions
  options.timeout_s = 20;
  testing::ServerThread shard(0, 1, 2, options);

  zmq::context_t context(1);
  zmq::socket_t raw = testing::bare_dealer(context, shard.endpoint());
  auto send = [&](std::vector<std::vector<std::byte>> frames) {
    for (std::size_t i = 0; i < frames.size(); ++i)
      raw.send(zmq::const_buffer(frames[i].data(), frames[i].size()),
               i + 1 < frames.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
  };
  auto push = [](std::uint32_t partition, std::uint64_t offset, std::uint64_t count) {
    return PsHeader{.type = PsMessageType::push,
                    .step = 99,
                    .partition = partition,
                    .worker = 0,
                    .offset = offset,
                    .count = count,
                    .total = 10};
  };
  auto floats = [](std::size_t n) { return std::vector<std::byte>(n * sizeof(float)); };
  std::vector<std::byte> header = bytes_of(push(0, 0, 4));

  send({std::vector<std::byte>(5)});                                            // one frame
  send({header, floats(4), floats(1)});                                         // three frames
  send({std::vector<std::byte>(header.begin(), header.end() - 1), floats(4)});  // short header
  std::vector<std::byte> bad = header;
  bad[0] = std::byte{0};
  send({bad, floats(4)});  // magic
  bad = header;
  bad[4] = std::byte{9};
  send({bad, floats(4)});  // version
  bad = header;
  bad[6] = std::byte{42};
  send({bad, floats(4)});     // type
  send({header, floats(3)});  // payload size
  PsHeader stranger = push(0, 0, 4);
  stranger.worker = 2;
  send({bytes_of(stranger), floats(4)});        // worker index
  send({bytes_of(push(3, 10, 0)), floats(0)});  // partition beyond plan
  send({bytes_of(push(1, 3, 4)), floats(4)});   // wrong range
  PsHeader reply = push(0, 0, 4);
  reply.type = PsMessageType::reply;
  send({bytes_of(reply), floats(4)});  // reply to a server
  send({bytes_of({.type = PsMessageType::status, .count = 1, .total = 1}), floats(1)});
  constexpr std::uint64_t kRejects = 12;

  testing::eventually([&] { return shard.server().rejected() >= kRejects; });
  const PsRejections refused = shard.server().rejections();
  EXPECT_EQ(refused.total, kRejects);
  EXPECT_EQ(
      refused.by_reason,
      (std::map<std::string, std::uint64_t>{
          {"malformed", 7}, {"unknown_worker", 1}, {"plan_mismatch", 2}, {"wrong_direction", 2}}));
  EXPECT_THAT(refused.last, HasSubstr("a status sent to a server"));
  EXPECT_EQ(shard.server().pending_partitions(), 0u);

  std::vector<float> sums[2];
  testing::run_workers(2, [&](int w) {
    PsClient client({shard.endpoint()}, w, options);
    for (int step = 0; step < 2; ++step) {
      std::vector<float> buffer(10);
      for (int i = 0; i < 10; ++i) buffer[i] = static_cast<float>((w + 1) * (i + step));
      client.allreduce(buffer);
      sums[w] = buffer;
    }
  });
  for (int w = 0; w < 2; ++w)
    for (int i = 0; i < 10; ++i) EXPECT_EQ(sums[w][i], 3.0f * (i + 1)) << "worker " << w;
  EXPECT_EQ(shard.join(), "");
  EXPECT_EQ(shard.server().rejected(), kRejects);
}

}  // namespace
}  // namespace gradsync
