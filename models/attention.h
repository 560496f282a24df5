#pragma once
// Multi-head scaled dot-product attention, without parameters (the
// projections around it are per-position Linear layers). Inputs are either
// one sequence {T, 3d} whose rows are q | k | v side by side (GPT-2's c_attn,
// torchvision's in_proj) or three sequences {T, d}: q, k and v (BERT's
// query, key and value). The output is {T, d}, the heads side by side.

#include <vector>

#include "models/layer.h"

namespace gradsync {

struct AttentionOptions {
  int heads = 1;        // must divide d; head h reads and writes columns h*d/heads..
  bool causal = false;  // position i attends to positions j <= i only (GPT-2)
};

class Attention : public Layer {
 public:
  Attention(std::vector<FeatureShape> inputs, AttentionOptions options);
  std::string kind() const override { return "attention"; }
  FeatureShape output_shape() const override { return sequence_shape(positions_, features_); }
  // 4*T*T*d: Q K^T and P V over all T x T pairs, as implementations compute
  // them even when causal.
  double forward_flops() const override;
  void forward(std::span<const Tensor* const> inputs, Tensor& output,
               std::span<Parameter> params) override;
  void backward(std::span<const Tensor* const> inputs, const Tensor& output,
                const Tensor& grad_output, std::span<Tensor* const> grad_inputs,
                std::span<Parameter> params) override;

  const AttentionOptions& options() const { return options_; }
  bool packed() const { return packed_; }

 private:
  // Where one sample's q, k, v (or their gradients) start and their row strides.
  template <typename T>
  struct Qkv {
    T* q;
    T* k;
    T* v;
    int ldq, ldk, ldv;
  };
  Qkv<const float> sample_qkv(std::span<const Tensor* const> inputs, int n) const;
  Qkv<float> sample_grad_qkv(std::span<Tensor* const> grads, int n) const;
  // P = softmax(Q_h K_h^T / sqrt(dh)), masked when causal, into probs_.
  void head_probabilities(const Qkv<const float>& in, int head);
  void head_backward(const Qkv<const float>& in, const float* grad_out, const Qkv<float>& grads,
                     int head);

  AttentionOptions options_;
  bool packed_ = false;  // one {T, 3d} input rather than three {T, d}
  int positions_ = 0, features_ = 0, head_dim_ = 0;
  float scale_ = 1;                         // 1 / sqrt(head_dim_)
  std::vector<float> probs_, grad_scores_;  // T x T scratch, one head at a time
};

}  // namespace gradsync
