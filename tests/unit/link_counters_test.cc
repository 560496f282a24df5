// The link counters: /proc/net/dev read for one interface (a fixture text in
// the kernel's layout), and which rank of each host reads them.
#include "harness/engine/link_counters.h"

#include <gtest/gtest.h>

namespace gradsync {
namespace {

// /proc/net/dev as Linux 6.1 writes it: receive bytes first, transmit bytes
// ninth; "gs0x" is there to catch a prefix match.
const std::string kProcNetDev =
    "Inter-|   Receive                                                |  Transmit\n"
    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs "
    "drop fifo colls carrier compressed\n"
    "    lo: 1183744    9873    0    0    0     0          0         0  1183744    9873    0    "
    "0    0     0       0          0\n"
    "  gs0x:     111       1    0    0    0     0          0         0      222       2    0    "
    "0    0     0       0          0\n"
    "   gs0: 18446744073709551000 42 0 0 0 0 0 0 987654321 77 0 0 0 0 0 0\n"
    "eth0:5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20\n";

TEST(LinkCounters, ReadsReceiveAndTransmitBytesOfTheNamedInterface) {
  const auto gs0 = link_bytes_in(kProcNetDev, "gs0");
  ASSERT_TRUE(gs0.has_value());
  EXPECT_EQ(gs0->rx, 18446744073709551000ull);  // 64-bit counters
  EXPECT_EQ(gs0->tx, 987654321u);
  const auto lo = link_bytes_in(kProcNetDev, "lo");
  ASSERT_TRUE(lo.has_value());
  EXPECT_EQ(lo->rx, 1183744u);
  EXPECT_EQ(lo->tx, 1183744u);
  // No space after the colon (older kernels): still read.
  const auto eth0 = link_bytes_in(kProcNetDev, "eth0");
  ASSERT_TRUE(eth0.has_value());
  EXPECT_EQ(eth0->rx, 5u);
  EXPECT_EQ(eth0->tx, 13u);
}

TEST(LinkCounters, AnAbsentInterfaceIsNothingAndAShortLineAnError) {
  EXPECT_FALSE(link_bytes_in(kProcNetDev, "gs").has_value());
  EXPECT_FALSE(link_bytes_in(kProcNetDev, "face").has_value());  // a header, not an interface
  EXPECT_FALSE(link_bytes_in("", "lo").has_value());
  EXPECT_THROW((void)link_bytes_in("  gs0: 1 2 3\n", "gs0"), std::runtime_error);
}

TEST(LinkCounters, ThisMachinesLoopbackIsReadAndAMissingInterfaceNamed) {
  EXPECT_NO_THROW((void)read_link_bytes("lo"));
  try {
    (void)read_link_bytes("gradsync-no-if");
    FAIL() << "a missing interface was read";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "/proc/net/dev lists no interface gradsync-no-if");
  }
}

TEST(LinkCounters, TheLowestWorkerRankOfEachHostReads) {
  const std::vector<std::string> hosts = {"a", "a", "b", "b", "c"};
  EXPECT_EQ(link_reader_ranks(hosts, {false, false, false, false, false}),
            (std::vector<int>{0, 2, 4}));
  // Rank 0 only serves: rank 1 reads for host a. Host c has no worker: no reader.
  EXPECT_EQ(link_reader_ranks(hosts, {true, false, false, false, true}), (std::vector<int>{1, 2}));
}

}  // namespace
}  // namespace gradsync
