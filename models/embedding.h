#pragma once
// Token embedding of a transformer: token ids {T, 1, 1} (floats holding exact
// integers) to a sequence {T, features}, each row the sum of the token's row
// of the token table, the position's row of the position table (where there
// is one) and the segment's row of the token-type table (where there is one).

#include <string>

#include "models/layer.h"

namespace gradsync {

struct EmbeddingOptions {
  int vocabulary = 0;       // rows of the token table
  int max_positions = 0;    // rows of the position table; 0: none
  int type_vocabulary = 0;  // rows of the token-type (segment) table; 0: none
  int features = 0;         // d: the width of every table and of the output
  // The tables' name suffixes (each table that exists needs one).
  std::string token_suffix = "weight";
  std::string position_suffix;
  std::string type_suffix;
};

class Embedding : public Layer {
 public:
  // Throws std::invalid_argument where T exceeds max_positions (with a
  // position table) or a table that exists has no suffix.
  Embedding(FeatureShape input, EmbeddingOptions options);
  std::string kind() const override { return "embedding"; }
  FeatureShape output_shape() const override;
  // The token table {vocabulary, features}, then the position table
  // {max_positions, features} and the type table {type_vocabulary, features}
  // where they exist.
  std::vector<ParamSpec> params() const override;
  // features: initialization draws every table He-uniform with this fan-in
  // (where its name ends in ".weight").
  int fan_in() const override { return options_.features; }
  // Backward scatter-adds rows into the tables' gradients, which the model
  // zeroes first (a token table tied to an output head gets both shares).
  bool adds_to_grads() const override { return true; }
  // Throws std::invalid_argument for an id that is not an integer in [0, vocabulary).
  void forward(std::span<const Tensor* const> inputs, Tensor& output,
               std::span<Parameter> params) override;
  // Tokens are not differentiable: grad_inputs is ignored.
  void backward(std::span<const Tensor* const> inputs, const Tensor& output,
                const Tensor& grad_output, std::span<Tensor* const> grad_inputs,
                std::span<Parameter> params) override;

  const EmbeddingOptions& options() const { return options_; }
  // The segment of position t: 0 in the first half of the sequence (t < T/2),
  // 1 in the second (BERT's sentence pair), at most type_vocabulary - 1.
  int segment(int position) const;

 private:
  int token_id(float value) const;
  // The tables' rows that position t of a sample reads: token, position, type
  // (-1 where the table does not exist).
  struct Rows {
    int token, position, type;
  };
  Rows rows_of(const float* ids, int t) const;

  int positions_ = 0;  // T
  EmbeddingOptions options_;
};

}  // namespace gradsync
