// Multi-head scaled dot-product attention (Vaswani et al. 2017). Per sample
// and head h, with head width dh = d / heads and Q_h, K_h, V_h the T x dh
// column blocks h*dh.. of q, k, v:
//   forward   S = Q_h K_h^T / sqrt(dh)     (T x dh)(dh x T); when causal S[i][j] = -inf, j > i
//             P = softmax of each row of S
//             O_h = P V_h                  (T x T)(T x dh), into the output's columns h*dh..
//   backward  dV_h += P^T dO_h,  dP = dO_h V_h^T,  dS = P * (dP - rowsum(dP * P)),
//             dQ_h += dS K_h / sqrt(dh),  dK_h += dS^T Q_h / sqrt(dh)
// Backward recomputes P from q and k (no state is kept between the passes).
// Every product is one OpenBLAS SGEMM reading q, k, v where they lie, through
// their row stride (3d when packed in one input, d otherwise), so nothing is
// copied. Cost: 4*T*T*d FLOPs per sample forward (the two products over all
// T x T pairs, also when causal), twice that backward.
#include "models/attention.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace gradsync {
namespace {

std::string attention_shape_text(FeatureShape s) {
  return "{" + std::to_string(s.channels) + ", " + std::to_string(s.height) + ", " +
         std::to_string(s.width) + "}";
}

// Softmax of a row of n scores in place; -inf entries become 0.
void attention_softmax_row(float* row, int n) {
  const float top = *std::max_element(row, row + n);
  double sum = 0;
  for (int j = 0; j < n; ++j) {
    row[j] = std::exp(row[j] - top);
    sum += row[j];
  }
  const float inv = float(1.0 / sum);
  for (int j = 0; j < n; ++j) row[j] *= inv;
}

// dS = P * (dP - rowsum(dP * P)), in place of dP, one row of n.
void attention_softmax_backward_row(const float* p, float* dp, int n) {
  double dot = 0;
  for (int j = 0; j < n; ++j) dot += double(dp[j]) * p[j];
  for (int j = 0; j < n; ++j) dp[j] = p[j] * (dp[j] - float(dot));
}

}  // namespace

Attention::Attention(std::vector<FeatureShape> inputs, AttentionOptions options)
    : options_(options), packed_(inputs.size() == 1) {
  if (inputs.size() != 1 && inputs.size() != 3)
    throw std::invalid_argument("attention: takes one input {T, 3d} or three {T, d}, not " +
                                std::to_string(inputs.size()));
  for (const FeatureShape& s : inputs)
    if (!(s == inputs[0]) || s.width != 1 || s.channels <= 0)
      throw std::invalid_argument(
          "attention: inputs must be sequences {T, d, 1} of one shape; got " +
          attention_shape_text(s) + " beside " + attention_shape_text(inputs[0]));
  positions_ = inputs[0].channels;
  features_ = packed_ ? inputs[0].height / 3 : inputs[0].height;
  if (features_ <= 0 || (packed_ && inputs[0].height % 3 != 0))
    throw std::invalid_argument(
        "attention: a single input's rows must be q | k | v, 3d wide; got " +
        std::to_string(inputs[0].height));
  if (options_.heads <= 0 || features_ % options_.heads != 0)
    throw std::invalid_argument("attention: " + std::to_string(options_.heads) +
                                " heads do not divide the " + std::to_string(features_) +
                                " features");
  head_dim_ = features_ / options_.heads;
  scale_ = float(1.0 / std::sqrt(double(head_dim_)));
}

double Attention::forward_flops() const {
  return 4.0 * double(positions_) * positions_ * features_;
}

Attention::Qkv<const float> Attention::sample_qkv(std::span<const Tensor* const> inputs,
                                                  int n) const {
  if (packed_) {
    const float* row = inputs[0]->sample(n);
    return {row, row + features_, row + 2 * features_, 3 * features_, 3 * features_, 3 * features_};
  }
  return {inputs[0]->sample(n),
          inputs[1]->sample(n),
          inputs[2]->sample(n),
          features_,
          features_,
          features_};
}

Attention::Qkv<float> Attention::sample_grad_qkv(std::span<Tensor* const> grads, int n) const {
  if (packed_) {
    float* row = grads[0] ? grads[0]->sample(n) : nullptr;
    if (!row) return {nullptr, nullptr, nullptr, 3 * features_, 3 * features_, 3 * features_};
    return {row, row + features_, row + 2 * features_, 3 * features_, 3 * features_, 3 * features_};
  }
  auto at = [&](int k) { return grads[k] ? grads[k]->sample(n) : nullptr; };
  return {at(0), at(1), at(2), features_, features_, features_};
}

void Attention::head_probabilities(const Qkv<const float>& in, int head) {
  const int t = positions_, off = head * head_dim_;
  probs_.resize(std::size_t(t) * t);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, t, t, head_dim_, scale_, in.q + off, in.ldq,
              in.k + off, in.ldk, 0.0f, probs_.data(), t);
  for (int i = 0; i < t; ++i) {
    float* row = probs_.data() + std::size_t(i) * t;
    if (options_.causal) std::fill(row + i + 1, row + t, -std::numeric_limits<float>::infinity());
    attention_softmax_row(row, t);
  }
}

void Attention::forward(std::span<const Tensor* const> inputs, Tensor& output,
                        std::span<Parameter>) {
  const int t = positions_;
  for (int n = 0; n < inputs[0]->batch; ++n) {
    const Qkv<const float> in = sample_qkv(inputs, n);
    for (int h = 0; h < options_.heads; ++h) {
      head_probabilities(in, h);
      const int off = h * head_dim_;
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, t, head_dim_, t, 1.0f, probs_.data(),
                  t, in.v + off, in.ldv, 0.0f, output.sample(n) + off, features_);
    }
  }
}

void Attention::head_backward(const Qkv<const float>& in, const float* grad_out,
                              const Qkv<float>& grads, int head) {
  const int t = positions_, off = head * head_dim_;
  head_probabilities(in, head);
  const float* p = probs_.data();
  if (grads.v)
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, t, head_dim_, t, 1.0f, p, t,
                grad_out + off, features_, 1.0f, grads.v + off, grads.ldv);
  if (!grads.q && !grads.k) return;
  grad_scores_.resize(std::size_t(t) * t);
  float* ds = grad_scores_.data();
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, t, t, head_dim_, 1.0f, grad_out + off,
              features_, in.v + off, in.ldv, 0.0f, ds, t);
  for (int i = 0; i < t; ++i)
    attention_softmax_backward_row(p + std::size_t(i) * t, ds + std::size_t(i) * t, t);
  if (grads.q)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, t, head_dim_, t, scale_, ds, t,
                in.k + off, in.ldk, 1.0f, grads.q + off, grads.ldq);
  if (grads.k)
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, t, head_dim_, t, scale_, ds, t, in.q + off,
                in.ldq, 1.0f, grads.k + off, grads.ldk);
}

void Attention::backward(std::span<const Tensor* const> inputs, const Tensor&,
                         const Tensor& grad_output, std::span<Tensor* const> grad_inputs,
                         std::span<Parameter>) {
  for (int n = 0; n < inputs[0]->batch; ++n) {
    const Qkv<const float> in = sample_qkv(inputs, n);
    const Qkv<float> grads = sample_grad_qkv(grad_inputs, n);
    if (!grads.q && !grads.k && !grads.v) continue;
    for (int h = 0; h < options_.heads; ++h) head_backward(in, grad_output.sample(n), grads, h);
  }
}

}  // namespace gradsync
