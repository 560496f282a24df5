// SimGrid's allreduce selectors as written out for the records
// (strategies/core/smpi_allreduce_choice.h). The bounds are those of SimGrid
// 3.32's src/smpi/colls/smpi_openmpi_selector.cpp and smpi_mpich_selector.cpp;
// tests/cli/smpi.sh checks, under SMPI itself, that the named algorithm is
// the one that ran.
#include "strategies/core/smpi_allreduce_choice.h"

#include <gtest/gtest.h>

namespace gradsync {
namespace {

std::string ompi(int ranks, std::size_t bytes) {
  return smpi_allreduce_choice("ompi", ranks, bytes, bytes / 4, true);
}

TEST(SmpiAllreduceChoice, OmpiPicksByRanksAndBytesAtEachBound) {
  // 2 and 3 ranks: the finest table.
  EXPECT_EQ(ompi(2, 4096), "lr");  // [4096, 8192) goes to the ring

  EXPECT_EQ(smpi_allreduce_choice("ompi", 2, 4092, 1023, true), "rdb");
  EXPECT_EQ(ompi(2, 262144), "rab_rdb");
  // 4 to 7 ranks: recursive doubling below 8 KiB, Rabenseifner from it.
  EXPECT_EQ(ompi(4, 8188), "rdb");
  EXPECT_EQ(ompi(4, 8192), "rab_rdb");
  // 16 to 31: below 64 bytes the segmented ring, which falls back to the
  // ring and then to a reduce and broadcast for fewer elements than ranks.
  EXPECT_EQ(ompi(16, 60), "redbcast (fallback of ompi_ring_segmented)");
  EXPECT_EQ(ompi(16, 64), "rdb");
  EXPECT_EQ(ompi(16, 4096), "rab_rdb");
  // 64 to 127: recursive doubling up to 256 KiB.
  EXPECT_EQ(ompi(64, 262140), "rdb");
  EXPECT_EQ(ompi(64, 262144), "rab_rdb");
  // 128 to 255: reduce and broadcast below 128 KiB.
  EXPECT_EQ(ompi(128, 131068), "redbcast");
  EXPECT_EQ(ompi(255, 131072), "rdb");
  EXPECT_EQ(ompi(256, 4096), "rab_rdb");
  EXPECT_EQ(ompi(1024, 16380), "rdb");
  EXPECT_EQ(ompi(1024, 64 << 20), "rab_rdb");
  EXPECT_EQ(ompi(4096, 16380), "redbcast (fallback of ompi_ring_segmented)");
}

TEST(SmpiAllreduceChoice, OmpiWithoutCommutingAvoidsRingsAndRabenseifner) {
  EXPECT_EQ(smpi_allreduce_choice("ompi", 2, 1 << 20, 1 << 18, false), "redbcast");
  EXPECT_EQ(smpi_allreduce_choice("ompi", 8, 1 << 20, 1 << 18, false), "redbcast");
  EXPECT_EQ(smpi_allreduce_choice("ompi", 16, 1 << 20, 1 << 18, false), "rdb");
}

TEST(SmpiAllreduceChoice, MpichTwoLevelForCommutativeOperations) {
  EXPECT_EQ(smpi_allreduce_choice("mpich", 64, 64 << 20, 16 << 20, true), "mvapich2_two_level");
  EXPECT_EQ(smpi_allreduce_choice("mpich", 6, 2052, 513, false), "rab_rdb");
  EXPECT_EQ(smpi_allreduce_choice("mpich", 6, 2048, 512, false), "rdb");
  EXPECT_EQ(smpi_allreduce_choice("mpich", 1024, 4096, 1000, false), "rdb");  // fewer than 1,024
}

TEST(SmpiAllreduceChoice, APinnedAlgorithmIsAlwaysTheChoice) {
  EXPECT_EQ(smpi_allreduce_choice("rab_rdb", 4, 8, 2, true), "rab_rdb");
  EXPECT_EQ(smpi_allreduce_choice("lr", 4, 1 << 20, 1 << 18, true), "lr");
  EXPECT_EQ(smpi_allreduce_choice("lr", 8, 16, 4, true), "redbcast (fallback of lr)");
}

TEST(SmpiAllreduceChoice, OnlySelectorsAndSimgridsAlgorithmsAreAccepted) {
  EXPECT_TRUE(is_smpi_allreduce_selector("ompi"));
  EXPECT_TRUE(is_smpi_allreduce_selector("mpich"));
  EXPECT_TRUE(is_smpi_allreduce_selector("rab_rdb"));
  EXPECT_FALSE(is_smpi_allreduce_selector("ring"));
  EXPECT_FALSE(is_smpi_allreduce_selector("default"));
  EXPECT_FALSE(is_smpi_allreduce_selector(""));
}

}  // namespace
}  // namespace gradsync
