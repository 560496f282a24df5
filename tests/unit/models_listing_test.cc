// `gradsync models`: one row per zoo model with the figures the zoo reports.
#include <gtest/gtest.h>

#include "models/model.h"
#include "harness/cli/models_command.h"

namespace gradsync {
namespace {

TEST(ModelListing, OneRowPerModelWithItsFigures) {
  const std::string text = models_listing();
  EXPECT_NE(text.find("gradient MiB"), std::string::npos) << text;
  for (const auto& m : model_zoo()) {
    std::string key = "\n";  // (built stepwise: GCC 12 warns falsely on "\n" + a + b)
    key += m.name;
    key += ' ';
    const auto row = text.find(key);
    ASSERT_NE(row, std::string::npos) << m.name << "\n" << text;
    const std::string line = text.substr(row + 1, text.find('\n', row + 1) - row - 1);
    EXPECT_NE(line.find(std::to_string(m.parameters)), std::string::npos) << line;
  }
  EXPECT_NE(text.find("resnet50    3x224x224"), std::string::npos) << text;
  EXPECT_NE(text.find("97.5"), std::string::npos) << text;  // ResNet-50's gradient in MiB
  EXPECT_NE(text.find("v100"), std::string::npos) << text;
}

}  // namespace
}  // namespace gradsync
