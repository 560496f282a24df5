#include <gtest/gtest.h>

#include "harness/results/size_parse.h"

namespace gradsync {
namespace {

TEST(SizeParse, ReadsBinaryMultiplesLikeNcclTests) {
  EXPECT_EQ(parse_size("0"), 0u);
  EXPECT_EQ(parse_size("4"), 4u);
  EXPECT_EQ(parse_size("8B"), 8u);
  EXPECT_EQ(parse_size("64K"), 64u << 10);
  EXPECT_EQ(parse_size("64k"), 64u << 10);
  EXPECT_EQ(parse_size("16M"), 16u << 20);
  EXPECT_EQ(parse_size("16MiB"), 16u << 20);
  EXPECT_EQ(parse_size("16MB"), 16u << 20);
  EXPECT_EQ(parse_size("2G"), 2ull << 30);
}

TEST(SizeParse, RejectsWhatIsNotASizeWithAMessageNamingIt) {
  for (const char* bad : {"", "M", "-4", "4X", "4MM", "1.5M", " 4", "4 M", "0x10", "4Mi B"}) {
    try {
      parse_size(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_THROW(parse_size("99999999999G"), std::invalid_argument);
}

TEST(SizeParse, FormatsTheShortestExactSpelling) {
  EXPECT_EQ(format_size(4), "4");
  EXPECT_EQ(format_size(1024), "1K");
  EXPECT_EQ(format_size(1536), "1536");
  EXPECT_EQ(format_size(64u << 20), "64M");
  EXPECT_EQ(format_size(1ull << 30), "1G");
}

}  // namespace
}  // namespace gradsync
