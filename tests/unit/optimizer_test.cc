// The optimizers (harness/engine/optimizer.h): the schedule, SGD's host rule
// by hand, AdamW's against PyTorch's rule computed in double, a sharded
// worker's pieces against the whole, and the device rule (CUDA builds with a GPU; skipped otherwise
// with the reason) against the host rule on the same data. Tolerance for the device: relative 1e-5
// after 6 steps (cuBLAS may fuse a multiply-add the host rounds twice: a few units in the last
// place per step).
#include "harness/engine/optimizer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/unit/device_test_support.h"

namespace gradsync {
namespace {

TEST(LearningRate, WarmsUpLinearlyToTheScaledRate) {
  const OptimizerOptions o{.base_lr = 0.1, .warmup_steps = 4, .workers = 5};
  EXPECT_DOUBLE_EQ(learning_rate(o, 0), 0.1);
  EXPECT_DOUBLE_EQ(learning_rate(o, 2), 0.1 * 3);
  EXPECT_DOUBLE_EQ(learning_rate(o, 4), 0.5);
  EXPECT_DOUBLE_EQ(learning_rate(o, 40), 0.5);
  EXPECT_DOUBLE_EQ(learning_rate({.base_lr = 0.1, .workers = 3}, 0), 0.1 * 3);
}

TEST(HostOptimizer, AppliesTheRuleAndCountsSteps) {
  std::vector<Parameter> params(1);
  params[0].value = {1.0f, -2.0f};
  std::vector<float> grad = {0.5f, 0.25f};
  params[0].grad = grad;
  HostOptimizer sgd(params, {.base_lr = 0.1, .momentum = 0.5, .weight_decay = 0.5, .workers = 1});
  sgd.step();  // v = g + wd w = {1, -0.75}; w -= 0.1 v
  EXPECT_FLOAT_EQ(params[0].value[0], 0.9f);
  EXPECT_FLOAT_EQ(params[0].value[1], -1.925f);
  sgd.step();  // v = 0.5 v + g + wd w = {0.5 + 0.5 + 0.45, -0.375 + 0.25 - 0.9625}
  EXPECT_FLOAT_EQ(params[0].value[0], 0.9f - 0.1f * 1.45f);
  EXPECT_FLOAT_EQ(params[0].value[1], -1.925f + 0.1f * 1.0875f);
  EXPECT_EQ(sgd.steps_taken(), 2);
  EXPECT_THROW(HostOptimizer(params, {.workers = 0}), std::invalid_argument);
  EXPECT_THROW(HostOptimizer(params, {.summed_over = 0}), std::invalid_argument);
}

// Folding the averaging into the update (summed_over) is the synchronizer's
// own division, so the parameters come out bit-identical to averaging first.
TEST(HostOptimizer, DividingSumsAsItReadsThemEqualsAveragingFirst) {
  const int workers = 3;  // not a power of two: 1/3 is inexact, x / 3 is correctly rounded
  std::vector<float> sums(1000), averaged(1000);
  std::vector<Parameter> folded(1), reference(1);
  for (std::size_t k = 0; k < sums.size(); ++k)
    folded[0].value.push_back(std::sin(0.1f * float(k)));
  reference[0].value = folded[0].value;
  folded[0].grad = sums;
  reference[0].grad = averaged;
  const OptimizerOptions options{
      .base_lr = 0.05, .momentum = 0.9, .weight_decay = 1e-3, .workers = 3};
  HostOptimizer fold(folded, {.base_lr = options.base_lr,
                              .momentum = options.momentum,
                              .weight_decay = options.weight_decay,
                              .workers = workers,
                              .summed_over = workers});
  HostOptimizer plain(reference, options);
  for (int step = 0; step < 4; ++step) {
    for (std::size_t k = 0; k < sums.size(); ++k) {
      sums[k] = std::cos(0.37f * float(k) + float(step)) * 3.1f;
      averaged[k] = sums[k] / static_cast<float>(workers);  // the synchronizer's averaging
    }
    fold.step();
    plain.step();
  }
  EXPECT_EQ(folded[0].value, reference[0].value);
  EXPECT_NE(folded[0].value[1], std::sin(0.1f));  // it moved
}

// AdamW against PyTorch's torch.optim.AdamW rule, computed here in double:
// decoupled decay first, then the bias-corrected moments. Within 1e-6
// relative after 3 steps (fp32 against double).
TEST(HostOptimizer, AdamwFollowsPyTorchsRuleWithItsBiasCorrections) {
  const OptimizerOptions options{.rule = UpdateRule::adamw,
                                 .base_lr = 0.01,
                                 .beta1 = 0.8,
                                 .beta2 = 0.95,
                                 .eps = 1e-6,
                                 .weight_decay = 0.1,
                                 .workers = 2};
  std::vector<Parameter> params(1);
  params[0].value = {1.0f, -2.0f, 0.5f};
  std::vector<float> grad(3);
  params[0].grad = grad;
  HostOptimizer adamw(params, options);
  EXPECT_EQ(adamw.state_bytes(), 2u * 3u * sizeof(float));  // two moments per element
  std::vector<double> w = {1.0, -2.0, 0.5}, m(3), v(3);
  const double lr = 0.01 * 2;  // scaled by the workers, no warm-up
  for (int t = 1; t <= 3; ++t) {
    for (std::size_t k = 0; k < 3; ++k) grad[k] = float(0.3 * double(k + 1) * (t % 2 ? 1 : -1));
    adamw.step();
    for (std::size_t k = 0; k < 3; ++k) {
      const double g = grad[k];
      w[k] -= lr * 0.1 * w[k];
      m[k] = 0.8 * m[k] + 0.2 * g;
      v[k] = 0.95 * v[k] + 0.05 * g * g;
      const double m_hat = m[k] / (1 - std::pow(0.8, t)), v_hat = v[k] / (1 - std::pow(0.95, t));
      w[k] -= lr * m_hat / (std::sqrt(v_hat) + 1e-6);
    }
    for (std::size_t k = 0; k < 3; ++k)
      EXPECT_NEAR(params[0].value[k], w[k], 1e-6 * std::abs(w[k]))
          << "step " << t << " element " << k;
  }
}

// A sharded worker's pieces, under either rule, update exactly as the whole
// parameters do: each piece carries its own elements' state.
TEST(ShardOptimizer, PiecesUpdateAsTheWholeParametersDo) {
  for (UpdateRule rule : {UpdateRule::sgd, UpdateRule::adamw}) {
    const OptimizerOptions options{.rule = rule, .base_lr = 0.01, .workers = 1};
    std::vector<float> grads(8);
    std::vector<Parameter> whole(2), pieces(2);
    for (std::size_t p = 0; p < 2; ++p) {
      const std::size_t n = p == 0 ? 5 : 3;
      for (std::size_t k = 0; k < n; ++k) whole[p].value.push_back(std::sin(float(p * 5 + k)));
      pieces[p].value = whole[p].value;
      whole[p].grad = pieces[p].grad = std::span(grads).subspan(p * 5, n);
    }
    HostOptimizer reference(whole, options);
    ShardOptimizer shard(pieces, options);
    shard.set_pieces({{0, 0, 2}, {0, 2, 3}, {1, 0, 3}});
    EXPECT_EQ(shard.state_bytes(), state_floats(rule) * 8 * sizeof(float));
    for (int step = 0; step < 3; ++step) {
      for (std::size_t k = 0; k < grads.size(); ++k) grads[k] = std::cos(float(k + 3 * step));
      reference.step();
      shard.step();
    }
    EXPECT_EQ(pieces[0].value, whole[0].value) << (rule == UpdateRule::sgd ? "sgd" : "adamw");
    EXPECT_EQ(pieces[1].value, whole[1].value) << (rule == UpdateRule::sgd ? "sgd" : "adamw");
  }
}

#ifdef GRADSYNC_WITH_CUDA
TEST(DeviceSgdMomentum, MatchesTheHostRule) {
  if (const std::string why = testing::no_gpu_reason(); !why.empty()) GTEST_SKIP() << why;
  const std::vector<std::size_t> sizes = {7, 1000, 1, 4099};
  std::vector<Parameter> params(sizes.size());
  std::vector<std::vector<float>> grads(sizes.size());
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    for (std::size_t k = 0; k < sizes[i]; ++k) {
      params[i].value.push_back(std::sin(0.1f * float(k + 31 * i)));
      grads[i].push_back(std::cos(0.37f * float(k + 7 * i)));
    }
    params[i].grad = grads[i];
  }
  testing::DeviceBlock block(0, sizes);
  const auto& state = block.state();
  std::size_t offset = 0;
  for (const auto& p : params) {
    block.write(state.values.subspan(offset, p.value.size()), p.value);
    offset += p.value.size();
  }
  const OptimizerOptions options{
      .base_lr = 0.05, .momentum = 0.9, .weight_decay = 1e-3, .warmup_steps = 3, .workers = 4};
  HostOptimizer host(params, options);
  DeviceSgdMomentum device(state, options);
  for (int step = 0; step < 6; ++step) {
    // A fresh gradient each step, as backward would write it.
    for (std::size_t i = 0; i < params.size(); ++i) {
      for (float& g : params[i].grad) g = -0.5f * g + 0.01f * float(step);
      block.write(state.grad_of[i], params[i].grad);
    }
    host.step();
    device.step();
  }
  EXPECT_EQ(device.steps_taken(), 6);
  const std::vector<float> values = block.read(state.values);
  offset = 0;
  for (std::size_t i = 0; i < params.size(); ++i)
    for (std::size_t k = 0; k < sizes[i]; ++k, ++offset)
      EXPECT_NEAR(values[offset], params[i].value[k],
                  1e-5 * std::max(1.0f, std::fabs(params[i].value[k])))
          << "parameter " << i << " element " << k;
}
#endif

}  // namespace
}  // namespace gradsync
