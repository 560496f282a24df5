// Finite-difference checks of the CNN layers (tests/unit/grad_check.h holds
// the machinery; transformer_layers_test.cc checks the transformer layers).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "models/avg_pool.h"
#include "models/batch_norm.h"
#include "models/concat.h"
#include "models/conv2d.h"
#include "models/layer.h"
#include "models/linear.h"
#include "models/max_pool.h"
#include "models/relu.h"
#include "models/residual_add.h"
#include "models/softmax_cross_entropy.h"
#include "tests/unit/grad_check.h"

namespace gradsync {
namespace {

TEST(LayerGradient, CheckCatchesAWrongGradient) {
  Conv2d conv({2, 5, 5}, {3, 3, 3, 1, 1, 1, true});
  std::vector<Tensor> in = {make_tensor(2, {2, 5, 5}, 1)};
  LayerParams params = make_params(conv, 7);
  GradCheckOptions wrong;
  wrong.analytic_scale = 1.05;  // a 5% error must be seen
  EXPECT_GT(grad_check(conv, in, params.list, wrong).worst, kTolerance);
}

TEST(LayerGradient, Conv3x3PaddedWithBias) {
  Conv2d conv({3, 6, 5}, {4, 3, 3, 1, 1, 1, true});
  expect_gradients(conv, {make_tensor(2, {3, 6, 5}, 1)});
}

TEST(LayerGradient, Conv3x3Stride2NoBias) {
  Conv2d conv({2, 7, 7}, {3, 3, 3, 2, 1, 1, false});
  expect_gradients(conv, {make_tensor(2, {2, 7, 7}, 2)});
}

TEST(LayerGradient, ConvPointwise) {
  Conv2d conv({4, 3, 3}, {5, 1, 1, 1, 0, 0, true});
  expect_gradients(conv, {make_tensor(2, {4, 3, 3}, 3)});
}

TEST(LayerGradient, ConvPointwiseStride2) {
  Conv2d conv({3, 5, 5}, {2, 1, 1, 2, 0, 0, false});
  expect_gradients(conv, {make_tensor(2, {3, 5, 5}, 4)});
}

TEST(LayerGradient, ConvAsymmetric1x7And7x1) {
  Conv2d wide({2, 4, 9}, {3, 1, 7, 1, 0, 3, false});
  expect_gradients(wide, {make_tensor(2, {2, 4, 9}, 5)});
  Conv2d tall({2, 9, 4}, {3, 7, 1, 1, 3, 0, false});
  expect_gradients(tall, {make_tensor(2, {2, 9, 4}, 6)});
}

TEST(LayerGradient, ConvLargeStridedKernel) {
  Conv2d conv({3, 13, 13}, {2, 5, 5, 3, 2, 2, true});
  expect_gradients(conv, {make_tensor(1, {3, 13, 13}, 7)});
}

TEST(LayerGradient, BatchNorm) {
  BatchNorm bn({3, 4, 4});
  expect_gradients(bn, {make_tensor(3, {3, 4, 4}, 8)});
}

TEST(LayerGradient, BatchNormKeepsRunningStatistics) {
  BatchNorm bn({1, 2, 2}, 1e-5f, 0.5f);
  Tensor x;
  x.reset(2, {1, 2, 2});
  x.data = {1, 2, 3, 4, 5, 6, 7, 8};  // mean 4.5, unbiased variance 6
  LayerParams params = make_params(bn, 1);
  Tensor y;
  y.reset(2, bn.output_shape());
  const Tensor* in[] = {&x};
  bn.forward(in, y, params.list);
  EXPECT_NEAR(bn.running_mean()[0], 0.5 * 0 + 0.5 * 4.5, 1e-5);
  EXPECT_NEAR(bn.running_var()[0], 0.5 * 1 + 0.5 * 6.0, 1e-4);
}

TEST(LayerGradient, Relu) {
  Relu relu({2, 3, 3});
  Tensor x = make_tensor(2, {2, 3, 3}, 9);
  for (auto& v : x.data) v += (v >= 0 ? 0.1f : -0.1f);  // stay away from the kink at 0
  expect_gradients(relu, {x});
}

// Inputs whose values differ pairwise by at least 0.05 (> 2 x step), so no
// finite-difference step changes which input is the maximum.
Tensor distinct_values(int batch, FeatureShape shape, std::uint64_t seed) {
  Tensor t;
  t.reset(batch, shape);
  std::vector<int> order(t.data.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = int(i);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
  for (std::size_t i = 0; i < order.size(); ++i) t.data[i] = 0.05f * float(order[i]) - 1.0f;
  return t;
}

TEST(LayerGradient, MaxPool3x3Stride2Padded) {
  MaxPool pool({2, 7, 7}, {3, 3, 2, 1});
  expect_gradients(pool, {distinct_values(2, {2, 7, 7}, 10)});
}

TEST(LayerGradient, MaxPool2x2) {
  MaxPool pool({2, 4, 6}, {2, 2, 2, 0});
  expect_gradients(pool, {distinct_values(2, {2, 4, 6}, 11)});
}

TEST(LayerGradient, AvgPool3x3Stride1Padded) {
  AvgPool pool({2, 5, 5}, {3, 3, 1, 1});
  expect_gradients(pool, {make_tensor(2, {2, 5, 5}, 12)});
}

TEST(LayerGradient, GlobalAvgPool) {
  AvgPool pool({3, 4, 5}, AvgPool::global({3, 4, 5}));
  EXPECT_EQ(pool.output_shape(), (FeatureShape{3, 1, 1}));
  expect_gradients(pool, {make_tensor(2, {3, 4, 5}, 13)});
}

TEST(LayerGradient, ResidualAdd) {
  ResidualAdd add({2, 3, 3}, {2, 3, 3});
  expect_gradients(add, {make_tensor(2, {2, 3, 3}, 14), make_tensor(2, {2, 3, 3}, 15)});
}

TEST(LayerGradient, Concat) {
  Concat cat({{1, 3, 3}, {2, 3, 3}, {3, 3, 3}});
  EXPECT_EQ(cat.output_shape().channels, 6);
  expect_gradients(cat, {make_tensor(2, {1, 3, 3}, 16), make_tensor(2, {2, 3, 3}, 17),
                         make_tensor(2, {3, 3, 3}, 18)});
}

TEST(LayerGradient, Linear) {
  Linear fc({3, 2, 2}, 5);
  expect_gradients(fc, {make_tensor(3, {3, 2, 2}, 19)});
}

TEST(LayerGradient, SoftmaxCrossEntropy) {
  Tensor logits = make_tensor(3, {5, 1, 1}, 20);
  const std::vector<int> labels = {0, 4, 2};
  Tensor grad;
  const float loss = softmax_cross_entropy(logits, labels, &grad);
  EXPECT_GT(loss, 0);
  const double h = 1e-2;
  for (std::size_t i = 0; i < logits.data.size(); ++i) {
    const float saved = logits.data[i];
    logits.data[i] = float(saved + h);
    const double plus = softmax_cross_entropy(logits, labels, nullptr);
    logits.data[i] = float(saved - h);
    const double minus = softmax_cross_entropy(logits, labels, nullptr);
    logits.data[i] = saved;
    EXPECT_NEAR((plus - minus) / (2 * h), grad.data[i], 1e-3) << "logit " << i;
  }
}

TEST(LayerGradient, SoftmaxCrossEntropyOfUniformLogitsIsLogClasses) {
  Tensor logits;
  logits.reset(2, {10, 1, 1});
  EXPECT_NEAR(softmax_cross_entropy(logits, std::vector<int>{3, 7}, nullptr), std::log(10.0), 1e-6);
  EXPECT_THROW(softmax_cross_entropy(logits, std::vector<int>{3, 10}, nullptr),
               std::invalid_argument);
}

TEST(LayerGradient, ShapeErrorsAreExplained) {
  EXPECT_THROW(Conv2d({3, 2, 2}, {4, 3, 3, 1, 0, 0, true}), std::invalid_argument);
  EXPECT_THROW(ResidualAdd({2, 3, 3}, {2, 3, 4}), std::invalid_argument);
  EXPECT_THROW(Concat({{1, 3, 3}, {1, 2, 3}}), std::invalid_argument);
}

}  // namespace
}  // namespace gradsync
