// CPU models end to end: a graph's backward (branches, concat, residual add,
// batch norm) agrees with finite differences of the loss; ready(i) hands out
// each final gradient once, last layer first; small-cnn's gradients split
// over workers equal the whole batch's; and its loss falls.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "models/cpu_model.h"
#include "models/model.h"
#include "tests/unit/model_test_support.h"
#include "tests/unit/random_values.h"

namespace gradsync {
namespace {

ModelOptions seeded(std::uint64_t seed) {
  ModelOptions o;
  o.seed = seed;
  return o;
}

std::vector<float> uniform(std::size_t n, std::uint64_t seed) {
  return testing::random_values(n, seed);
}

// conv-bn, two branches (1x1 and 3x3) joined by concat, a 1x1 projection
// added back to the trunk, average pooling, linear. No ReLU or max pooling,
// so finite differences never cross a kink.
Graph branchy_graph() {
  Graph g(ImageShape{2, 6, 6});
  const NodeId trunk = g.batch_norm(g.conv(kInput, "stem", 4, 3, 1, 1, false), "stem_bn");
  const NodeId a = g.conv(trunk, "a", 3, 1);
  const NodeId b = g.conv(trunk, "b", 2, 3, 1, 1);
  const NodeId joined = g.conv(g.concat({a, b}), "join", 4, 1);
  NodeId x = g.residual_add(joined, trunk);
  x = g.avg_pool(x, 2, 2);
  g.linear(x, "fc", 3);
  return g;
}

TEST(ModelTraining, GraphGradientsMatchFiniteDifferences) {
  CpuModel model("branchy", branchy_graph(), 3);
  const int batch = 3;
  const std::vector<float> input = uniform(batch * 2 * 6 * 6, 4);
  const std::vector<int> labels = {0, 2, 1};
  const auto check = testing::finite_difference_check(model, input, labels, batch, 3);
  EXPECT_LT(check.worst, 2e-2) << check.where;  // float32 loss differences: 2e-2 relative
}

TEST(ModelTraining, ReadyHandsOutEachFinalGradientOnceLastLayerFirst) {
  auto model = make_model("small-cnn", {});
  const int batch = 4;
  model->forward(uniform(batch * 3 * 32 * 32, 1), std::vector<int>{1, 2, 3, 4}, batch);
  std::vector<std::size_t> order;
  std::vector<std::vector<float>> at_ready(model->parameters().size());
  model->backward([&](std::size_t i) {
    order.push_back(i);
    at_ready[i].assign(model->parameters()[i].grad.begin(), model->parameters()[i].grad.end());
  });
  // fc.weight, fc.bias, conv2.weight, conv2.bias, conv1.weight, conv1.bias
  EXPECT_EQ(order, (std::vector<std::size_t>{4, 5, 2, 3, 0, 1}));
  for (std::size_t i = 0; i < order.size(); ++i)
    EXPECT_TRUE(std::ranges::equal(at_ready[i], model->parameters()[i].grad))
        << model->parameters()[i].name;
}

// The data-parallel identity the harness relies on: without batch norm, the
// mean gradient of a batch of 8 is the mean of the gradients of its halves.
TEST(ModelTraining, SmallCnnGradientOfABatchIsTheMeanOverItsShards) {
  auto model = make_model("small-cnn", seeded(9));
  const std::size_t sample = 3 * 32 * 32;
  const std::vector<float> input = uniform(8 * sample, 2);
  const std::vector<int> labels = {0, 1, 2, 3, 4, 5, 6, 7};
  auto grads = [&](std::size_t first, int count) {
    return testing::gradients_of_slice(*model, input, labels, sample, 1, first, count);
  };
  const auto whole = grads(0, 8), low = grads(0, 4), high = grads(4, 4);
  for (std::size_t i = 0; i < whole.size(); ++i)
    for (std::size_t j = 0; j < whole[i].size(); ++j)
      ASSERT_NEAR(whole[i][j], 0.5f * (low[i][j] + high[i][j]), 1e-5f + 1e-4f * std::abs(whole[i][j]))
          << model->parameters()[i].name << "[" << j << "]";
}

TEST(ModelTraining, SmallCnnLossFallsWithPlainSgd) {
  auto model = make_model("small-cnn", seeded(1));
  const std::size_t sample = 3 * 32 * 32;
  // Ten fixed class patterns plus noise: learnable in a few dozen steps.
  const std::vector<float> patterns = uniform(10 * sample, 77);
  std::mt19937_64 rng(5);
  std::normal_distribution<float> noise(0, 0.5f);
  const int batch = 32;
  std::vector<float> input(batch * sample);
  std::vector<int> labels(batch);
  float first = 0, last = 0;
  for (int step = 0; step < 30; ++step) {
    for (int n = 0; n < batch; ++n) {
      labels[n] = int(rng() % 10);
      for (std::size_t i = 0; i < sample; ++i)
        input[n * sample + i] = patterns[labels[n] * sample + i] + noise(rng);
    }
    const float loss = model->forward(input, labels, batch);
    model->backward([](std::size_t) {});
    for (auto& p : model->parameters())
      for (std::size_t i = 0; i < p.value.size(); ++i) p.value[i] -= 0.01f * p.grad[i];
    if (step == 0) first = loss;
    last = loss;
  }
  EXPECT_LT(last, 0.3f * first) << "first " << first << " last " << last;
}

TEST(ModelTraining, BadBatchesAreExplained) {
  auto model = make_model("small-cnn", {});
  EXPECT_THROW(model->forward(std::vector<float>(10), std::vector<int>{0}, 1),
               std::invalid_argument);
  EXPECT_THROW(model->backward([](std::size_t) {}), std::logic_error);
}

}  // namespace
}  // namespace gradsync
