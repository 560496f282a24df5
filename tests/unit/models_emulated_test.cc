// Emulated compute: the time a step takes follows the FLOPs and the rate,
// gradients have the real shapes and seed-dependent values, ready(i) comes
// in backward order, and device profiles are named and sourced.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>

#include "models/emulated_model.h"
#include "models/model.h"

namespace gradsync {
namespace {

ModelOptions emulated(double img_per_sec, std::uint64_t seed = 42) {
  ModelOptions o;
  o.compute = ComputeMode::emulated;
  o.emulate_img_per_sec = img_per_sec;
  o.seed = seed;
  return o;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

TEST(ModelEmulated, ImgPerSecSetsTheStepTime) {
  // 50 img/s: forward + backward of 4 samples lasts 4/50 s = 80 ms, a third forward.
  auto model = make_model("resnet50", emulated(50));
  const int batch = 4;
  const std::vector<float> input(batch * model->input_shape().elements());
  const std::vector<int> labels(batch, 0);
  const auto start = std::chrono::steady_clock::now();
  const float loss = model->forward(input, labels, batch);
  const double forward = seconds_since(start);
  model->backward([](std::size_t) {});
  const double total = seconds_since(start);
  EXPECT_NEAR(loss, std::log(1000.0), 1e-4);
  // Deadlines never end early; the upper bounds only catch gross errors
  // (a loaded machine may be late), they are not performance claims.
  EXPECT_GE(forward, 0.08 / 3);
  EXPECT_LT(forward, 0.08 / 3 * 3);
  EXPECT_GE(total, 0.08);
  EXPECT_LT(total, 0.08 * 3);
}

TEST(ModelEmulated, GradientsHaveRealShapesSeedValuesAndBackwardOrder) {
  auto model = make_model("inception3", emulated(1e6, 3));
  ModelOptions cpu_options;
  cpu_options.seed = 3;
  auto cpu = make_model("inception3", cpu_options);
  ASSERT_EQ(model->parameters().size(), cpu->parameters().size());
  for (std::size_t i = 0; i < cpu->parameters().size(); ++i) {
    EXPECT_EQ(model->parameters()[i].shape, cpu->parameters()[i].shape);
    EXPECT_EQ(model->parameters()[i].value, cpu->parameters()[i].value);  // same initial values
  }
  const std::vector<float> input(2 * model->input_shape().elements());
  model->forward(input, std::vector<int>{1, 2}, 2);
  std::vector<std::size_t> order;
  model->backward([&](std::size_t i) { order.push_back(i); });
  const std::size_t n = model->parameters().size();
  ASSERT_EQ(order.size(), n);
  EXPECT_EQ(order.front(), n - 2);  // fc.weight, then fc.bias
  EXPECT_EQ(order[1], n - 1);
  // The stem's BN finishes before its convolution: bn.weight, bn.bias, then conv.weight.
  EXPECT_EQ(order[order.size() - 3], 1u);
  EXPECT_EQ(order.back(), 0u);
  const float g = model->parameters()[0].grad[0];
  EXPECT_GT(g, 0);
  for (const auto& p : model->parameters())
    for (float v : p.grad) ASSERT_EQ(v, g) << p.name;
  auto other = make_model("small-cnn", emulated(1e6, 4));
  other->forward(std::vector<float>(3 * 32 * 32), std::vector<int>{0}, 1);
  other->backward([](std::size_t) {});
  EXPECT_NE(other->parameters()[0].grad[0], g);
}

TEST(ModelEmulated, ProfileRateMatchesItsPublishedResnet50Throughput) {
  const DeviceProfile v100 = find_device_profile("v100");
  ModelOptions options = emulated(0);
  options.profile = v100;
  auto model = make_model("resnet50", options);
  const double step = 3 * model->forward_flops_per_sample() / v100.flops_per_second;
  EXPECT_NEAR(1 / step, 1200, 1e-6);  // the DeepLearningExamples figure the profile is built on
}

TEST(ModelEmulated, ProfilesAreNamedAndSourced) {
  const auto profiles = device_profiles();
  for (const char* name : {"v100", "a100", "h100"}) {
    const DeviceProfile p = find_device_profile(name);
    EXPECT_GT(p.flops_per_second, 1e13) << name;
    EXPECT_FALSE(p.source.empty()) << name;
  }
  EXPECT_LT(find_device_profile("v100").flops_per_second,
            find_device_profile("a100").flops_per_second);
  try {
    find_device_profile("tpu");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown device profile 'tpu' (known: v100, a100, h100)");
  }
}

TEST(ModelEmulated, NeedsARate) {
  EXPECT_THROW(make_model("resnet50", emulated(0)), std::invalid_argument);
}

}  // namespace
}  // namespace gradsync
