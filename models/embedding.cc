// Embedding lookup. For each sample and position t with token id i_t and
// segment s_t (0 for t < T/2, else 1, clamped to the type table):
//   forward   h[t] = token[i_t] + position[t] + type[s_t]
//   backward  dtoken[i_t] += dh[t],  dposition[t] += dh[t],  dtype[s_t] += dh[t]
// (a scatter-add into gradients the model zeroed; no input gradient, token
// ids are not differentiable). Cost: one row copy or add per table and
// position; no FLOPs are counted for it.
#include "models/embedding.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace gradsync {
namespace {

// An id as written: "7", "3.5", "nan".
std::string embedding_id_text(float value) {
  std::ostringstream out;
  out.precision(9);
  out << value;
  return out.str();
}

void embedding_add_row(const float* from, float* to, int n) {
  for (int i = 0; i < n; ++i) to[i] += from[i];
}

}  // namespace

Embedding::Embedding(FeatureShape input, EmbeddingOptions options)
    : positions_(input.channels), options_(std::move(options)) {
  const EmbeddingOptions& o = options_;
  if (input.height * input.width != 1 || positions_ <= 0)
    throw std::invalid_argument("embedding: the input must be token ids {T, 1, 1}");
  if (o.vocabulary <= 0 || o.features <= 0 || o.max_positions < 0 || o.type_vocabulary < 0)
    throw std::invalid_argument("embedding: vocabulary and features must be positive");
  if (o.max_positions > 0 && positions_ > o.max_positions)
    throw std::invalid_argument("embedding: sequence length " + std::to_string(positions_) +
                                " exceeds the " + std::to_string(o.max_positions) +
                                " positions of the position table");
  if (o.token_suffix.empty() || (o.max_positions > 0 && o.position_suffix.empty()) ||
      (o.type_vocabulary > 0 && o.type_suffix.empty()))
    throw std::invalid_argument("embedding: every table needs a name suffix");
}

FeatureShape Embedding::output_shape() const {
  return sequence_shape(positions_, options_.features);
}

std::vector<ParamSpec> Embedding::params() const {
  const EmbeddingOptions& o = options_;
  std::vector<ParamSpec> out = {{o.token_suffix, {o.vocabulary, o.features}}};
  if (o.max_positions > 0) out.push_back({o.position_suffix, {o.max_positions, o.features}});
  if (o.type_vocabulary > 0) out.push_back({o.type_suffix, {o.type_vocabulary, o.features}});
  return out;
}

int Embedding::segment(int position) const {
  const int s = position < positions_ / 2 ? 0 : 1;
  return std::min(s, options_.type_vocabulary - 1);
}

int Embedding::token_id(float value) const {
  if (!(value >= 0 && value < float(options_.vocabulary)) || value != std::floor(value))
    throw std::invalid_argument("embedding: token id " + embedding_id_text(value) +
                                " is not an integer in [0, " + std::to_string(options_.vocabulary) +
                                ")");
  return int(value);
}

Embedding::Rows Embedding::rows_of(const float* ids, int t) const {
  return {token_id(ids[t]), options_.max_positions > 0 ? t : -1,
          options_.type_vocabulary > 0 ? segment(t) : -1};
}

void Embedding::forward(std::span<const Tensor* const> inputs, Tensor& output,
                        std::span<Parameter> params) {
  const int d = options_.features;
  const std::size_t type_table = options_.max_positions > 0 ? 2 : 1;
  for (int n = 0; n < inputs[0]->batch; ++n) {
    const float* ids = inputs[0]->sample(n);
    for (int t = 0; t < positions_; ++t) {
      const Rows r = rows_of(ids, t);
      float* out = output.sample(n) + std::size_t(t) * d;
      std::copy_n(params[0].value.data() + std::size_t(r.token) * d, d, out);
      if (r.position >= 0)
        embedding_add_row(params[1].value.data() + std::size_t(r.position) * d, out, d);
      if (r.type >= 0)
        embedding_add_row(params[type_table].value.data() + std::size_t(r.type) * d, out, d);
    }
  }
}

void Embedding::backward(std::span<const Tensor* const> inputs, const Tensor&,
                         const Tensor& grad_output, std::span<Tensor* const>,
                         std::span<Parameter> params) {
  const int d = options_.features;
  const std::size_t type_table = options_.max_positions > 0 ? 2 : 1;
  for (int n = 0; n < inputs[0]->batch; ++n) {
    const float* ids = inputs[0]->sample(n);
    for (int t = 0; t < positions_; ++t) {
      const Rows r = rows_of(ids, t);
      const float* dh = grad_output.sample(n) + std::size_t(t) * d;
      embedding_add_row(dh, params[0].grad.data() + std::size_t(r.token) * d, d);
      if (r.position >= 0)
        embedding_add_row(dh, params[1].grad.data() + std::size_t(r.position) * d, d);
      if (r.type >= 0)
        embedding_add_row(dh, params[type_table].grad.data() + std::size_t(r.type) * d, d);
    }
  }
}

}  // namespace gradsync
