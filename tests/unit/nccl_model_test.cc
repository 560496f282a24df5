// NCCL's own tuning model (src/graph/tuning.cc, NCCL 2.10) against its
// formulas worked by hand: time (us) = latency + bytes / (1000 x algorithm
// bandwidth in GB/s).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>

#include "strategies/nccl/nccl_model.h"
#include "tests/unit/cost_test_support.h"

namespace gradsync {
namespace {

constexpr double kUs = 1e-6;

// 4 GPUs on PCI in one node, 12 GB/s among them.
constexpr NcclSystem kPciNode{
    .ranks = 4, .nodes = 1, .intra = IntraLink::pci, .intra_bus_gbps = 12};
// 2 such nodes of 4 GPUs, 10 GB/s of network each.
constexpr NcclSystem kTwoPciNodes{
    .ranks = 8, .nodes = 2, .intra = IntraLink::pci, .intra_bus_gbps = 12, .inter_bus_gbps = 10};

double us(std::optional<double> seconds) {
  EXPECT_TRUE(seconds.has_value());
  return seconds.value_or(-1) / kUs;
}

TEST(NcclModel, RingOnOnePciNode) {
  // nsteps = 2 x 3 = 6, all inside the node.
  // LL: latency 6.6 + 6 x 1.0; bandwidth 12 / 4 x 4 / 6 = 2 GB/s.
  EXPECT_NEAR(us(nccl_protocol_time(1024, NcclAlgo::ring, NcclProtocol::ll, kPciNode)),
              6.6 + 6 * 1.0 + 1024 / (1000 * 2.0), 1e-9);
  // Simple: latency 8.4 + 6 x 5.7; bandwidth 12 x 4 / 6 = 8 GB/s.
  EXPECT_NEAR(us(nccl_protocol_time(1024, NcclAlgo::ring, NcclProtocol::simple, kPciNode)),
              8.4 + 6 * 5.7 + 1024 / (1000 * 8.0), 1e-9);
  // LL128 needs NVLink.
  EXPECT_FALSE(nccl_protocol_time(1024, NcclAlgo::ring, NcclProtocol::ll128, kPciNode));
  const NcclTime best = nccl_allreduce_time(1024, NcclAlgo::ring, kPciNode);
  EXPECT_EQ(best.protocol, "LL");
  EXPECT_NEAR(best.seconds / kUs, 6.6 + 6 * 1.0 + 1024 / (1000 * 2.0), 1e-9);
}

TEST(NcclModel, TreeOnOnePciNode) {
  // Latency base + 2 x ((4/1 - 1) x intra + log2(1) x net); bandwidth 12 x
  // 0.9 (x 1/3.8 for LL) x 0.5, times the correction for log2(1024 / 64) = 4:
  // LL 0.9, Simple 0.9.
  EXPECT_NEAR(us(nccl_protocol_time(1024, NcclAlgo::tree, NcclProtocol::ll, kPciNode)),
              6.8 + 2 * (3 * 1.0 + 0 * 5.0) + 1024 / (1000 * (12 * 0.9 / 3.8 * 0.5 * 0.9)), 1e-9);
  EXPECT_NEAR(us(nccl_protocol_time(1024, NcclAlgo::tree, NcclProtocol::simple, kPciNode)),
              0 + 2 * (3 * 28.0) + 1024 / (1000 * (12 * 0.9 * 0.5 * 0.9)), 1e-9);
  EXPECT_EQ(nccl_allreduce_time(1024, NcclAlgo::tree, kPciNode).protocol, "LL");
}

TEST(NcclModel, RingAcrossTwoNodes) {
  // nsteps = 14, of which 2 x (2 - 1) = 2 through the network; LL's intra
  // latency x 1.8. Bus bandwidth: the slower of 12 and 10 GB/s.
  EXPECT_NEAR(us(nccl_protocol_time(1024, NcclAlgo::ring, NcclProtocol::ll, kTwoPciNodes)),
              6.6 + 12 * (1.0 * 1.8) + 2 * 2.7 + 1024 / (1000 * (10 / 4.0 * 8 / 14)), 1e-9);
  // Simple below ranks / 16 x 64 KiB = 32768 bytes: no plateau.
  EXPECT_NEAR(us(nccl_protocol_time(1024, NcclAlgo::ring, NcclProtocol::simple, kTwoPciNodes)),
              8.4 + 12 * 5.7 + 2 * 9.6 + 1024 / (1000 * (10.0 * 8 / 14)), 1e-9);
  // From 32768 bytes on, the latency x 1.9.
  EXPECT_NEAR(us(nccl_protocol_time(32767, NcclAlgo::ring, NcclProtocol::simple, kTwoPciNodes)),
              (8.4 + 12 * 5.7 + 2 * 9.6) + 32767 / (1000 * (10.0 * 8 / 14)), 1e-9);
  EXPECT_NEAR(us(nccl_protocol_time(32768, NcclAlgo::ring, NcclProtocol::simple, kTwoPciNodes)),
              (8.4 + 12 * 5.7 + 2 * 9.6) * 1.9 + 32768 / (1000 * (10.0 * 8 / 14)), 1e-9);
}

TEST(NcclModel, TreeAcrossTwoNodes) {
  // Latency 6.8 + 2 x ((8/2 - 1) x 1.0 x 1.8 + log2(2) x 5.0); bandwidth 10 x
  // 0.9 / 3.8 x 0.5 x 0.9 (LL's correction at 1 KiB).
  EXPECT_NEAR(us(nccl_protocol_time(1024, NcclAlgo::tree, NcclProtocol::ll, kTwoPciNodes)),
              6.8 + 2 * (3 * 1.8 + 1 * 5.0) + 1024 / (1000 * (10 * 0.9 / 3.8 * 0.5 * 0.9)), 1e-9);
  // Simple at 64 MiB: log2(64 MiB / 64) = 20, correction 0.8; latency 2 x (3 x 28 + 1 x 50).
  EXPECT_NEAR(us(nccl_protocol_time(64 * MiB, NcclAlgo::tree, NcclProtocol::simple, kTwoPciNodes)),
              2 * (3 * 28.0 + 1 * 50.0) + 64 * MiB / (1000 * (10 * 0.9 * 0.5 * 0.8)), 1e-6);
  // 256 MiB: log2(256 MiB / 64) = 22 is past the table's last entry (21): no correction.
  EXPECT_NEAR(us(nccl_protocol_time(256 * MiB, NcclAlgo::tree, NcclProtocol::simple, kTwoPciNodes)),
              2 * (3 * 28.0 + 1 * 50.0) + 256 * MiB / (1000 * (10 * 0.9 * 0.5)), 1e-6);
}

TEST(NcclModel, Ll128OnlyOnNvlink) {
  // 8 GPUs on NVLink, 100 GB/s. Ring LL128: 14.0 + 14 x 1.9; 100 x 0.92 x 8 / 14.
  const NcclSystem nvlink{
      .ranks = 8, .nodes = 1, .intra = IntraLink::nvlink, .intra_bus_gbps = 100};
  EXPECT_NEAR(us(nccl_protocol_time(1 * MiB, NcclAlgo::ring, NcclProtocol::ll128, nvlink)),
              14.0 + 14 * 1.9 + 1 * MiB / (1000 * (100 * 0.92 * 8 / 14)), 1e-9);
  // Tree LL128 on one node: x 7/9; log2(1 MiB / 64) = 14, correction 0.6.
  EXPECT_NEAR(us(nccl_protocol_time(1 * MiB, NcclAlgo::tree, NcclProtocol::ll128, nvlink)),
              14.0 + 2 * (7 * 1.2) + 1 * MiB / (1000 * (100 * 0.9 * 7 / 9 * 0.5 * 0.6)), 1e-9);
  // One GPU a node across 2 nodes: ring LL128 x 0.7 instead of 0.92.
  const NcclSystem sparse{.ranks = 2,
                          .nodes = 2,
                          .intra = IntraLink::nvlink,
                          .intra_bus_gbps = 100,
                          .inter_bus_gbps = 20};
  EXPECT_NEAR(us(nccl_protocol_time(1 * MiB, NcclAlgo::ring, NcclProtocol::ll128, sparse)),
              14.0 + 0 * 1.9 + 2 * 4.0 + 1 * MiB / (1000 * (20 * 0.7 * 2 / 2)), 1e-9);
}

TEST(NcclModel, TheChosenProtocolFlipsFromLlToSimpleAsTheSizeGrows) {
  // On one PCI node the ring's LL (12.6 us + B / 2000) and Simple (42.6 us +
  // B / 8000) cross at B = 30 x 8000 / 3 = 80000 bytes.
  EXPECT_EQ(nccl_allreduce_time(64 * KiB, NcclAlgo::ring, kPciNode).protocol, "LL");
  EXPECT_EQ(nccl_allreduce_time(128 * KiB, NcclAlgo::ring, kPciNode).protocol, "Simple");
  EXPECT_NEAR(nccl_allreduce_time(128 * KiB, NcclAlgo::ring, kPciNode).seconds / kUs,
              42.6 + 128 * KiB / 8000, 1e-9);
  EXPECT_EQ(nccl_allreduce_time(1024, NcclAlgo::tree, kTwoPciNodes).protocol, "LL");
  EXPECT_EQ(nccl_allreduce_time(64 * MiB, NcclAlgo::tree, kTwoPciNodes).protocol, "Simple");
  EXPECT_EQ(nccl_allreduce_time(1024, NcclAlgo::ring, kTwoPciNodes).protocol, "LL");
  EXPECT_EQ(nccl_allreduce_time(64 * MiB, NcclAlgo::ring, kTwoPciNodes).protocol, "Simple");
}

TEST(NcclModel, NothingRunsOnOneRankOrForNoBytes) {
  const NcclSystem one{.ranks = 1, .intra_bus_gbps = 12};
  EXPECT_EQ(nccl_allreduce_time(1 * MiB, NcclAlgo::ring, one).seconds, 0);
  EXPECT_EQ(nccl_allreduce_time(1 * MiB, NcclAlgo::tree, one).protocol, "");
  EXPECT_EQ(nccl_allreduce_time(0, NcclAlgo::ring, kPciNode).seconds, 0);
  EXPECT_EQ(us(nccl_protocol_time(0, NcclAlgo::tree, NcclProtocol::simple, kPciNode)), 0.0);
}

TEST(NcclModel, ImpossibleSystemsThrow) {
  EXPECT_THROW(
      nccl_allreduce_time(1024, NcclAlgo::ring, {.ranks = 2, .nodes = 3, .intra_bus_gbps = 1}),
      std::invalid_argument);
  EXPECT_THROW(nccl_allreduce_time(1024, NcclAlgo::ring, {.ranks = 0}), std::invalid_argument);
  EXPECT_THROW(nccl_allreduce_time(1024, NcclAlgo::ring, {.ranks = 2}), std::invalid_argument);
  EXPECT_THROW(nccl_allreduce_time(-1, NcclAlgo::ring, kPciNode), std::invalid_argument);
  try {
    nccl_allreduce_time(1024, NcclAlgo::tree, {.ranks = 4, .nodes = 2, .intra_bus_gbps = 12});
    ADD_FAILURE() << "2 nodes without a network bandwidth were accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("inter_bus_gbps must be positive across 2 nodes"));
  }
}

}  // namespace
}  // namespace gradsync
