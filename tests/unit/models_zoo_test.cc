// The zoo: parameter counts equal torchvision's exactly, counted from the
// graphs without allocating; allocated models agree; names, FLOPs and
// initialization follow the contract.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "models/model.h"
#include "models/zoo.h"
#include "tests/unit/model_test_support.h"

namespace gradsync {
namespace {

using testing::zoo_by_name;

std::uint64_t allocated_elements(Model& m) {
  std::uint64_t total = 0;
  for (const auto& p : m.parameters()) {
    EXPECT_EQ(p.value.size(), p.grad.size()) << p.name;
    const std::size_t from_shape =
        std::accumulate(p.shape.begin(), p.shape.end(), std::size_t(1), std::multiplies<>());
    EXPECT_EQ(p.value.size(), from_shape) << p.name;
    total += p.value.size();
  }
  return total;
}

TEST(ModelZoo, ParameterCountsEqualTorchvision) {
  const auto zoo = zoo_by_name();
  EXPECT_EQ(zoo.at("resnet50").parameters, 25'557'032u);
  EXPECT_EQ(zoo.at("resnet101").parameters, 44'549'160u);
  EXPECT_EQ(zoo.at("vgg16").parameters, 138'357'544u);
  EXPECT_EQ(zoo.at("alexnet").parameters, 61'100'840u);
  EXPECT_EQ(zoo.at("inception3").parameters, 23'834'568u);
  EXPECT_EQ(zoo.at("small-cnn").parameters, 25'578u);
}

TEST(ModelZoo, TensorCountsEqualTorchvision) {
  const auto zoo = zoo_by_name();
  EXPECT_EQ(zoo.at("resnet50").tensors, 161u);   // len(list(resnet50().parameters()))
  EXPECT_EQ(zoo.at("resnet101").tensors, 314u);
  EXPECT_EQ(zoo.at("vgg16").tensors, 32u);
  EXPECT_EQ(zoo.at("alexnet").tensors, 16u);
  EXPECT_EQ(zoo.at("inception3").tensors, 284u);  // 292 with the auxiliary head
  EXPECT_EQ(zoo.at("small-cnn").tensors, 6u);
}

TEST(ModelZoo, InputsAndClasses) {
  for (const auto& [name, m] : zoo_by_name()) {
    EXPECT_FALSE(m.description.empty()) << name;
    if (m.task != Task::classify) continue;  // models_transformer_test.cc
    if (name == "small-cnn") {
      EXPECT_EQ(m.classes, 10);
      EXPECT_EQ(m.input.height, 32);
    } else {
      EXPECT_EQ(m.classes, 1000) << name;
      EXPECT_EQ(m.input.height, name == "inception3" ? 299 : 224) << name;
    }
    EXPECT_FALSE(m.description.empty()) << name;
  }
}

TEST(ModelZoo, ForwardFlopsCountTwoPerMultiplyAdd) {
  const auto zoo = zoo_by_name();
  // Published multiply-accumulates: ResNet-50 4.09 G, ResNet-101 7.8 G, VGG-16 15.5 G,
  // Inception-v3 5.7 G, AlexNet 0.71 G.
  EXPECT_NEAR(zoo.at("resnet50").forward_flops_per_sample / 1e9, 8.18, 0.1);
  EXPECT_NEAR(zoo.at("resnet101").forward_flops_per_sample / 1e9, 15.6, 0.3);
  EXPECT_NEAR(zoo.at("vgg16").forward_flops_per_sample / 1e9, 30.9, 0.3);
  EXPECT_NEAR(zoo.at("inception3").forward_flops_per_sample / 1e9, 11.4, 0.3);
  EXPECT_NEAR(zoo.at("alexnet").forward_flops_per_sample / 1e9, 1.43, 0.05);
  // small-cnn exactly: conv1 2*16*32*32*27 + conv2 2*32*16*16*144 + fc 2*2048*10.
  EXPECT_DOUBLE_EQ(zoo.at("small-cnn").forward_flops_per_sample, 884736.0 + 2359296.0 + 40960.0);
}

TEST(ModelZoo, AllocatedParametersMatchTheListing) {
  const auto zoo = zoo_by_name();
  for (const char* name : {"small-cnn", "resnet50"}) {
    auto model = make_model(name, {});
    EXPECT_EQ(allocated_elements(*model), zoo.at(name).parameters) << name;
    EXPECT_EQ(model->parameters().size(), zoo.at(name).tensors) << name;
    EXPECT_DOUBLE_EQ(model->forward_flops_per_sample(), zoo.at(name).forward_flops_per_sample);
  }
}

TEST(ModelZoo, ParameterNamesFollowTorchvisionInForwardOrder) {
  const Graph r = build_resnet50();
  EXPECT_EQ(r.params().front().name, "conv1.weight");
  EXPECT_EQ(r.params()[1].name, "bn1.weight");
  EXPECT_EQ(r.params().back().name, "fc.bias");
  bool has_downsample = false;
  for (const auto& p : r.params())
    has_downsample |= p.name == "layer2.0.downsample.0.weight" &&
                      p.shape == std::vector<int>{512, 256, 1, 1};
  EXPECT_TRUE(has_downsample);
  const Graph i = build_inception3();
  EXPECT_EQ(i.params().front().name, "Conv2d_1a_3x3.conv.weight");
  EXPECT_EQ(i.params().back().name, "fc.bias");
  const Graph v = build_vgg16();
  EXPECT_EQ(v.params()[v.params().size() - 2].name, "classifier.6.weight");
}

TEST(ModelZoo, SameSeedSameValuesOtherSeedOtherValues) {
  ModelOptions five, six;
  five.seed = 5;
  six.seed = 6;
  auto a = make_model("small-cnn", five);
  auto b = make_model("small-cnn", five);
  auto c = make_model("small-cnn", six);
  for (std::size_t i = 0; i < a->parameters().size(); ++i)
    EXPECT_EQ(a->parameters()[i].value, b->parameters()[i].value) << a->parameters()[i].name;
  EXPECT_NE(a->parameters()[0].value, c->parameters()[0].value);
  // He-uniform: weights within sqrt(6 / fan_in), biases zero.
  const auto& w = a->parameters()[0];  // conv1.weight, fan_in 27
  const float bound = std::sqrt(6.0f / 27);
  for (float v : w.value) EXPECT_LE(std::abs(v), bound);
  EXPECT_GT(*std::max_element(w.value.begin(), w.value.end()), 0.5f * bound);
  for (float v : a->parameters()[1].value) EXPECT_EQ(v, 0.0f);
}

TEST(ModelZoo, UnknownNamesAreExplained) {
  try {
    make_model("resnet51", {});
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown model 'resnet51' (known: small-cnn"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace gradsync
