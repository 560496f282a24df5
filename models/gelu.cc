// GELU (Hendrycks and Gimpel 2016), elementwise:
//   exact  y = x * Phi(x) = x/2 * (1 + erf(x / sqrt 2)),
//          dy/dx = Phi(x) + x * phi(x), phi(x) = exp(-x^2/2) / sqrt(2 pi)
//   tanh   y = x/2 * (1 + tanh(u)), u = sqrt(2/pi) * (x + 0.044715 x^3),
//          dy/dx = (1 + tanh u)/2 + x/2 * (1 - tanh^2 u) * sqrt(2/pi) * (1 + 3*0.044715 x^2)
// Backward recomputes from the input. Cost: one pass each way; no FLOPs
// are counted for it.
#include "models/gelu.h"

#include <cmath>

namespace gradsync {
namespace {

constexpr double kGeluSqrt2OverPi = 0.79788456080286535588;  // sqrt(2/pi)
constexpr double kGeluCubic = 0.044715;
constexpr double kGeluInvSqrt2 = 0.70710678118654752440;
constexpr double kGeluInvSqrt2Pi = 0.39894228040143267794;  // 1/sqrt(2 pi)

float gelu_value(float x, GeluForm form) {
  const double v = x;
  if (form == GeluForm::exact) return float(0.5 * v * (1 + std::erf(v * kGeluInvSqrt2)));
  return float(0.5 * v * (1 + std::tanh(kGeluSqrt2OverPi * (v + kGeluCubic * v * v * v))));
}

float gelu_slope(float x, GeluForm form) {
  const double v = x;
  if (form == GeluForm::exact)
    return float(0.5 * (1 + std::erf(v * kGeluInvSqrt2)) +
                 v * kGeluInvSqrt2Pi * std::exp(-0.5 * v * v));
  const double t = std::tanh(kGeluSqrt2OverPi * (v + kGeluCubic * v * v * v));
  return float(0.5 * (1 + t) +
               0.5 * v * (1 - t * t) * kGeluSqrt2OverPi * (1 + 3 * kGeluCubic * v * v));
}

}  // namespace

void Gelu::forward(std::span<const Tensor* const> inputs, Tensor& output, std::span<Parameter>) {
  const auto& x = inputs[0]->data;
  for (std::size_t i = 0; i < x.size(); ++i) output.data[i] = gelu_value(x[i], form_);
}

void Gelu::backward(std::span<const Tensor* const> inputs, const Tensor&, const Tensor& grad_output,
                    std::span<Tensor* const> grad_inputs, std::span<Parameter>) {
  Tensor* dx = grad_inputs[0];
  if (!dx) return;
  const auto& x = inputs[0]->data;
  for (std::size_t i = 0; i < x.size(); ++i)
    dx->data[i] += grad_output.data[i] * gelu_slope(x[i], form_);
}

}  // namespace gradsync
