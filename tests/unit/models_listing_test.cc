// `gradsync models`: one row per zoo model with the figures the zoo reports.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "harness/cli/models_command.h"
#include "models/model.h"

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

TEST(ModelListing, JsonListsEveryGradientTensorInTheModelsOrder) {
  // What another framework's build of the network is checked against
  // (tests/cli/ddp.sh): each tensor's name and shape, adding up to the
  // parameter count, and the order backward hands them over.
  const auto models = nlohmann::json::parse(models_json());
  ASSERT_EQ(models.size(), model_zoo().size());
  for (const auto& m : models) {
    std::uint64_t total = 0;
    for (const auto& g : m.at("gradients")) {
      std::uint64_t elements = 1;
      for (int d : g.at("shape")) elements *= d;
      EXPECT_EQ(g.at("elements").get<std::uint64_t>(), elements) << g.dump();
      total += elements;
    }
    EXPECT_EQ(total, describe_model(m.at("name").get<std::string>()).parameters) << m.at("name");
    EXPECT_EQ(m.at("tensors"), m.at("gradients").size());
    EXPECT_EQ(m.at("backward_order").size(), m.at("gradients").size());
  }
  const auto& small = models.at(0);
  ASSERT_EQ(small.at("name"), "small-cnn");
  EXPECT_EQ(small.at("input"), nlohmann::json({3, 32, 32}));
  EXPECT_EQ(small.at("gradients").at(0).at("name"), "conv1.weight");
  EXPECT_EQ(small.at("gradients").at(0).at("shape"), nlohmann::json({16, 3, 3, 3}));
  EXPECT_EQ(small.at("gradients").at(5).at("name"), "fc.bias");
  // Backward hands the last layer's gradients over first: fc's weight, then its bias.
  EXPECT_EQ(small.at("backward_order"), nlohmann::json({4, 5, 2, 3, 0, 1}));
}

}  // namespace
}  // namespace gradsync
