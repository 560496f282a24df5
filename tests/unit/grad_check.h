#pragma once
// Finite-difference checks for layers: the test loss is L = sum(y * r) for a
// fixed random r, so dL/dy = r; each input and parameter element is moved
// by +-h and (L+ - L-) / 2h, accumulated in double, is compared with the
// analytic gradient from backward().

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "models/gradient_block.h"
#include "models/layer.h"

namespace gradsync {

inline std::vector<float> random_values(std::size_t n, std::uint64_t seed, float lo = -1,
                                        float hi = 1) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

struct GradCheckResult {
  double worst = 0;  // largest |numeric - analytic| / (|numeric| + |analytic| + floor)
  std::string where;
};

struct GradCheckOptions {
  double step = 1e-2;
  double floor = 1e-2;  // keeps near-zero gradients from dominating the relative error
  // Multiplies the analytic gradient: 1 in real checks; the self-test uses
  // another value to show the check catches a wrong gradient.
  double analytic_scale = 1.0;
  // false: only the parameters are moved and checked (inputs that are not
  // differentiable, such as an embedding's token ids).
  bool check_inputs = true;
  // Backward adds into the input gradients: they start at this value, which
  // is taken off again before comparing, so a layer that overwrites them fails.
  float input_grad_start = 0.5f;
  // The parameters' gradients start at this value too: backward overwrites
  // them, or adds to them where the layer adds_to_grads() (the value is then
  // taken off before comparing).
  float param_grad_start = 0.25f;
};

// Checks `layer` at `inputs` (modified and restored) with `params`.
inline GradCheckResult grad_check(Layer& layer, std::vector<Tensor>& inputs,
                                  std::vector<Parameter>& params, const GradCheckOptions& o = {}) {
  auto run = [&]() {
    std::vector<const Tensor*> ins;
    for (auto& t : inputs) ins.push_back(&t);
    Tensor y;
    y.reset(inputs[0].batch, layer.output_shape());
    layer.forward(ins, y, params);
    return y;
  };
  const Tensor y0 = run();
  const std::vector<float> r = random_values(y0.data.size(), 99);
  auto loss = [&]() {
    const Tensor y = run();
    double l = 0;
    for (std::size_t i = 0; i < y.data.size(); ++i) l += double(y.data[i]) * r[i];
    return l;
  };
  // Analytic.
  Tensor dy = y0;
  dy.data = r;
  std::vector<Tensor> dx(inputs.size());
  std::vector<const Tensor*> ins;
  std::vector<Tensor*> dins;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    dx[k].reset(inputs[k].batch, inputs[k].shape);
    std::fill(dx[k].data.begin(), dx[k].data.end(), o.input_grad_start);
    ins.push_back(&inputs[k]);
    dins.push_back(&dx[k]);
  }
  for (auto& p : params) std::fill(p.grad.begin(), p.grad.end(), o.param_grad_start);
  layer.backward(ins, y0, dy, dins, params);
  const float param_grad_offset = layer.adds_to_grads() ? o.param_grad_start : 0.0f;
  GradCheckResult result;
  auto compare = [&](float& value, double analytic, const std::string& where) {
    const float saved = value;
    value = float(saved + o.step);
    const double plus = loss();
    value = float(saved - o.step);
    const double minus = loss();
    value = saved;
    const double numeric = (plus - minus) / (2 * o.step);
    analytic *= o.analytic_scale;
    const double err =
        std::abs(numeric - analytic) / (std::abs(numeric) + std::abs(analytic) + o.floor);
    if (err > result.worst) {
      result.worst = err;
      result.where =
          where + " numeric " + std::to_string(numeric) + " analytic " + std::to_string(analytic);
    }
  };
  for (std::size_t k = 0; k < inputs.size() && o.check_inputs; ++k)
    for (std::size_t i = 0; i < inputs[k].data.size(); ++i)
      compare(inputs[k].data[i], dx[k].data[i] - o.input_grad_start,
              "input " + std::to_string(k) + "[" + std::to_string(i) + "]");
  for (auto& p : params) {
    const std::vector<float> grad(p.grad.begin(), p.grad.end());
    for (std::size_t i = 0; i < p.value.size(); ++i)
      compare(p.value[i], grad[i] - param_grad_offset, p.name + "[" + std::to_string(i) + "]");
  }
  return result;
}

inline Tensor make_tensor(int batch, FeatureShape shape, std::uint64_t seed) {
  Tensor t;
  t.reset(batch, shape);
  t.data = random_values(t.data.size(), seed);
  return t;
}

// A layer's parameters with random values, and the block their gradients live in.
struct LayerParams {
  std::vector<Parameter> list;
  std::vector<float> gradients;
};

inline LayerParams make_params(const Layer& layer, std::uint64_t seed) {
  LayerParams out;
  for (const auto& spec : layer.params())
    out.list.push_back({spec.suffix, spec.shape, random_values(spec.elements(), seed++), {}});
  out.gradients = allocate_gradients(out.list);
  return out;
}

// float32 forward, double accumulation of the loss, step 1e-2: agreement to
// 1e-2 relative (with a 1e-2 floor) is what a correct gradient reaches.
constexpr double kTolerance = 1e-2;

inline void expect_gradients(Layer& layer, std::vector<Tensor> inputs) {
  LayerParams params = make_params(layer, 7);
  const GradCheckResult r = grad_check(layer, inputs, params.list);
  EXPECT_LT(r.worst, kTolerance) << layer.kind() << ": worst at " << r.where;
}

}  // namespace gradsync
