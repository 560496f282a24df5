// A numeric flag under its rule (harness/cli/number_flag.h): CLI11's usage
// error names the flag and the broken rule.

#include "harness/cli/number_flag.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gradsync {
namespace {

std::string error_of(const std::string& value) {
  CLI::App app;
  int workers_per_node = 0;
  app.add_option("--workers-per-node", workers_per_node)
      ->check(number_rule({"--workers-per-node", true, 1, 1024, ""}));
  try {
    app.parse(std::vector<std::string>{value, "--workers-per-node"});  // reversed: argv order
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return "(no error) " + std::to_string(workers_per_node);
}

TEST(NumberFlag, KeepsItsRule) {
  EXPECT_EQ(error_of("4"), "(no error) 4");
  EXPECT_EQ(error_of("2.5"), "--workers-per-node: must be a whole number (got 2.5)");
  EXPECT_EQ(error_of("0"), "--workers-per-node: must be at least 1 (got 0)");
  EXPECT_EQ(error_of("100000"), "--workers-per-node: must be at most 1024 (got 100000)");
  EXPECT_EQ(error_of("4x"), "--workers-per-node: '4x' is not a whole number");
  EXPECT_EQ(error_of("nan"), "--workers-per-node: must be a finite number (got nan)");
}

TEST(NumberFlag, BitRatesNameTheFlag) {
  EXPECT_DOUBLE_EQ(flag_bit_rate("--inter-bandwidth", "25gbit"), 25e9);
  try {
    flag_bit_rate("--inter-bandwidth", "1e-300");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "--inter-bandwidth: rate '1e-300' must be at least 1000 bit/s (got 1e-300)");
  }
  EXPECT_THROW(flag_bit_rate("--inter-bandwidth", "100tbit"), std::invalid_argument);
  EXPECT_THROW(flag_bit_rate("--inter-bandwidth", "20000gbit"), std::invalid_argument);
}

}  // namespace
}  // namespace gradsync
