// The transformer layers (GPT-2, BERT, ViT): finite-difference checks of
// every one's input and parameter gradients (tests/unit/grad_check.h), and
// exact checks of what each computes: causality, uniform attention, layer
// norm's statistics, embedding rows, the patch order, shapes, FLOPs and the
// construction errors.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/attention.h"
#include "models/embedding.h"
#include "models/gelu.h"
#include "models/layer_norm.h"
#include "models/linear.h"
#include "models/patch_tokens.h"
#include "models/position_bias.h"
#include "models/take_token.h"
#include "models/tied_linear.h"
#include "tests/unit/grad_check.h"

namespace gradsync {
namespace {

using ::testing::HasSubstr;

// The layer's output at `inputs` with `params`.
Tensor forward_of(Layer& layer, const std::vector<Tensor>& inputs, std::vector<Parameter>& params) {
  std::vector<const Tensor*> ins;
  for (const Tensor& t : inputs) ins.push_back(&t);
  Tensor y;
  y.reset(inputs[0].batch, layer.output_shape());
  layer.forward(ins, y, params);
  return y;
}

// Expects `make` to throw std::invalid_argument whose message holds every one of `parts`.
void expect_invalid(const std::function<void()>& make, const std::vector<std::string>& parts) {
  try {
    make();
    ADD_FAILURE() << "no exception; expected one naming " << ::testing::PrintToString(parts);
  } catch (const std::invalid_argument& e) {
    for (const std::string& part : parts) EXPECT_THAT(e.what(), HasSubstr(part));
  }
}

// Token ids {T, 1, 1} of `batch` samples as floats holding integers.
Tensor token_ids(int batch, const std::vector<float>& ids) {
  Tensor t;
  t.reset(batch, {int(ids.size()) / batch, 1, 1});
  t.data = ids;
  return t;
}

TEST(TransformerLayers, SequenceShapeIsTokenMajor) {
  EXPECT_EQ(sequence_shape(5, 8), (FeatureShape{5, 8, 1}));
  EXPECT_EQ(sequence_shape(5, 8).elements(), 40u);
}

TEST(TransformerLayers, PerPositionLinearGradients) {
  Linear fc(sequence_shape(4, 6), 5, {.per_position = true});
  EXPECT_EQ(fc.output_shape(), sequence_shape(4, 5));
  EXPECT_EQ(fc.forward_flops(), 2.0 * 4 * 6 * 5);
  EXPECT_EQ(fc.fan_in(), 6);
  EXPECT_EQ(fc.kind(), "linear");
  expect_gradients(fc, {make_tensor(2, sequence_shape(4, 6), 30)});
}

TEST(TransformerLayers, PerPositionLinearIsThePlainLayerOnEveryRow) {
  Linear rows(sequence_shape(3, 4), 5, {.per_position = true});
  Linear one({4, 1, 1}, 5);
  LayerParams params = make_params(rows, 3);
  const Tensor x = make_tensor(2, sequence_shape(3, 4), 31);
  const Tensor y = forward_of(rows, {x}, params.list);
  for (int r = 0; r < 2 * 3; ++r) {
    Tensor row;
    row.reset(1, {4, 1, 1});
    std::copy_n(x.data.data() + r * 4, 4, row.data.data());
    const Tensor want = forward_of(one, {row}, params.list);
    for (int o = 0; o < 5; ++o) EXPECT_FLOAT_EQ(y.data[r * 5 + o], want.data[o]) << r << "," << o;
  }
}

TEST(TransformerLayers, LinearNamesItsParametersBySuffix) {
  Linear plain({3, 2, 2}, 5);
  EXPECT_EQ(plain.output_shape(), (FeatureShape{5, 1, 1}));
  EXPECT_EQ(plain.params()[0].suffix, "weight");
  EXPECT_EQ(plain.params()[0].shape, (std::vector<int>{5, 12}));
  Linear proj(
      sequence_shape(4, 6), 18,
      {.per_position = true, .weight_suffix = "in_proj_weight", .bias_suffix = "in_proj_bias"});
  ASSERT_EQ(proj.params().size(), 2u);
  EXPECT_EQ(proj.params()[0].suffix, "in_proj_weight");
  EXPECT_EQ(proj.params()[0].shape, (std::vector<int>{18, 6}));
  EXPECT_EQ(proj.params()[1].suffix, "in_proj_bias");
  EXPECT_EQ(proj.params()[1].shape, (std::vector<int>{18}));
}

TEST(TransformerLayers, LayerNormGradients) {
  LayerNorm norm(sequence_shape(4, 6), 1e-5f);
  EXPECT_EQ(norm.kind(), "layer_norm");
  EXPECT_EQ(norm.fan_in(), 0);
  EXPECT_EQ(norm.params()[0].suffix, "weight");
  EXPECT_EQ(norm.params()[1].shape, (std::vector<int>{6}));
  expect_gradients(norm, {make_tensor(2, sequence_shape(4, 6), 32)});
}

TEST(TransformerLayers, LayerNormRowsHaveMeanBetaAndUnitVariance) {
  LayerNorm norm(sequence_shape(3, 8), 1e-5f);
  LayerParams params = make_params(norm, 1);
  std::fill(params.list[0].value.begin(), params.list[0].value.end(), 1.0f);
  std::fill(params.list[1].value.begin(), params.list[1].value.end(), 0.25f);
  Tensor x = make_tensor(2, sequence_shape(3, 8), 33);
  for (float& v : x.data) v = 3 * v + 2;  // far from mean 0, variance 1
  const Tensor y = forward_of(norm, {x}, params.list);
  for (int r = 0; r < 2 * 3; ++r) {
    double mean = 0, var = 0;
    for (int i = 0; i < 8; ++i) mean += y.data[r * 8 + i] / 8.0;
    for (int i = 0; i < 8; ++i) var += std::pow(y.data[r * 8 + i] - mean, 2) / 8.0;
    EXPECT_NEAR(mean, 0.25, 1e-5) << "row " << r;
    EXPECT_NEAR(var, 1.0, 1e-4) << "row " << r;
  }
}

TEST(TransformerLayers, GeluExactGradients) {
  Gelu gelu(sequence_shape(4, 5), GeluForm::exact);
  EXPECT_EQ(gelu.kind(), "gelu");
  Tensor x = make_tensor(2, sequence_shape(4, 5), 34);
  for (float& v : x.data) v *= 3;
  expect_gradients(gelu, {x});
}

TEST(TransformerLayers, GeluTanhGradients) {
  Gelu gelu({3, 2, 2}, GeluForm::tanh);
  Tensor x = make_tensor(2, {3, 2, 2}, 35);
  for (float& v : x.data) v *= 3;
  expect_gradients(gelu, {x});
}

TEST(TransformerLayers, GeluFormsMatchTheirDefinitions) {
  Tensor x;
  x.reset(1, {2, 1, 1});
  x.data = {1.0f, -0.5f};
  std::vector<Parameter> none;
  Gelu exact({2, 1, 1}, GeluForm::exact);
  Gelu tanh({2, 1, 1}, GeluForm::tanh);
  const Tensor ye = forward_of(exact, {x}, none);
  const Tensor yt = forward_of(tanh, {x}, none);
  // PyTorch: gelu(x) and gelu(x, approximate='tanh'); they differ by ~1.5e-4 here.
  EXPECT_NEAR(ye.data[0], 0.8413447461, 1e-6);
  EXPECT_NEAR(ye.data[1], -0.1542687694, 1e-6);
  EXPECT_NEAR(yt.data[0], 0.8411919906, 1e-6);
  EXPECT_NEAR(yt.data[1], -0.1542859902, 1e-6);
}

// Attention over T = 4 positions, d = 6, 2 heads of 3.
constexpr int kT = 4, kD = 6;

TEST(TransformerLayers, AttentionPackedGradients) {
  Attention attention({sequence_shape(kT, 3 * kD)}, {.heads = 2});
  EXPECT_EQ(attention.output_shape(), sequence_shape(kT, kD));
  EXPECT_EQ(attention.forward_flops(), 4.0 * kT * kT * kD);
  EXPECT_TRUE(attention.params().empty());
  EXPECT_EQ(attention.kind(), "attention");
  expect_gradients(attention, {make_tensor(2, sequence_shape(kT, 3 * kD), 36)});
}

TEST(TransformerLayers, AttentionPackedCausalGradients) {
  Attention attention({sequence_shape(kT, 3 * kD)}, {.heads = 2, .causal = true});
  expect_gradients(attention, {make_tensor(2, sequence_shape(kT, 3 * kD), 37)});
}

TEST(TransformerLayers, AttentionThreeInputsGradients) {
  const FeatureShape s = sequence_shape(kT + 1, 8);
  Attention attention({s, s, s}, {.heads = 2});
  EXPECT_EQ(attention.output_shape(), s);
  EXPECT_EQ(attention.forward_flops(), 4.0 * 5 * 5 * 8);
  expect_gradients(attention,
                   {make_tensor(2, s, 38), make_tensor(2, s, 39), make_tensor(2, s, 40)});
}

TEST(TransformerLayers, AttentionThreeInputsCausalGradients) {
  const FeatureShape s = sequence_shape(3, 4);
  Attention attention({s, s, s}, {.heads = 2, .causal = true});
  expect_gradients(attention,
                   {make_tensor(2, s, 41), make_tensor(2, s, 42), make_tensor(2, s, 43)});
}

TEST(TransformerLayers, AttentionSkipsMissingInputGradients) {
  const FeatureShape s = sequence_shape(kT, kD);
  Attention attention({s, s, s}, {.heads = 2});
  const std::vector<Tensor> in = {make_tensor(2, s, 44), make_tensor(2, s, 45),
                                  make_tensor(2, s, 46)};
  std::vector<Parameter> none;
  const Tensor y = forward_of(attention, in, none);
  Tensor dy = make_tensor(2, s, 47);
  std::vector<Tensor> all(3), some(3);
  for (int k = 0; k < 3; ++k) {
    all[k].reset(2, s);
    some[k].reset(2, s);
  }
  const Tensor* ins[] = {&in[0], &in[1], &in[2]};
  Tensor* all_grads[] = {&all[0], &all[1], &all[2]};
  Tensor* only_key[] = {nullptr, &some[1], nullptr};
  attention.backward(ins, y, dy, all_grads, none);
  attention.backward(ins, y, dy, only_key, none);
  EXPECT_EQ(some[1].data, all[1].data);
  EXPECT_NE(all[1].data, std::vector<float>(all[1].data.size(), 0.0f));
}

// Output rows 0..i of `layer` at `x` against the same with every row j > i of x changed.
double largest_change_before(Attention& attention, const Tensor& x, int i) {
  std::vector<Parameter> none;
  Tensor changed = x;
  const std::size_t width = x.shape.height;
  for (int n = 0; n < x.batch; ++n)
    for (std::size_t at = std::size_t(i + 1) * width; at < x.sample_size(); ++at)
      changed.sample(n)[at] += 0.5f;
  const Tensor a = forward_of(attention, {x}, none);
  const Tensor b = forward_of(attention, {changed}, none);
  const std::size_t d = attention.output_shape().height;
  double worst = 0;
  for (int n = 0; n < x.batch; ++n)
    for (std::size_t at = 0; at < std::size_t(i + 1) * d; ++at)
      worst = std::max(worst, double(std::abs(a.sample(n)[at] - b.sample(n)[at])));
  return worst;
}

TEST(TransformerLayers, CausalAttentionIgnoresLaterPositions) {
  Attention causal({sequence_shape(5, 3 * kD)}, {.heads = 2, .causal = true});
  Attention full({sequence_shape(5, 3 * kD)}, {.heads = 2});
  const Tensor x = make_tensor(2, sequence_shape(5, 3 * kD), 48);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(largest_change_before(causal, x, i), 0.0) << "row " << i;
    EXPECT_GT(largest_change_before(full, x, i), 1e-3) << "row " << i;  // the check can see it
  }
}

TEST(TransformerLayers, ZeroQueryAttentionAveragesValues) {
  const FeatureShape s = sequence_shape(kT, kD);
  Tensor q;
  q.reset(1, s);
  const std::vector<Tensor> in = {q, make_tensor(1, s, 49), make_tensor(1, s, 50)};
  const std::vector<float>& v = in[2].data;
  std::vector<Parameter> none;
  Attention full({s, s, s}, {.heads = 2});
  Attention causal({s, s, s}, {.heads = 2, .causal = true});
  const Tensor yf = forward_of(full, in, none);
  const Tensor yc = forward_of(causal, in, none);
  for (int i = 0; i < kT; ++i)
    for (int c = 0; c < kD; ++c) {
      double all = 0, upto = 0;
      for (int j = 0; j < kT; ++j) all += v[j * kD + c] / double(kT);
      for (int j = 0; j <= i; ++j) upto += v[j * kD + c] / double(i + 1);
      EXPECT_NEAR(yf.data[i * kD + c], all, 1e-6) << i << "," << c;
      EXPECT_NEAR(yc.data[i * kD + c], upto, 1e-6) << i << "," << c;
    }
}

// Attention written out loop by loop over a packed {T, 3d} sample: per head
// h, o_i = sum_j softmax_j(q_i . k_j / sqrt(dh)) v_j over j (j <= i when causal).
std::vector<double> reference_attention(const float* x, int t, int d, int heads, bool causal) {
  const int dh = d / heads;
  std::vector<double> out(std::size_t(t) * d, 0.0);
  auto at = [&](int row, int part, int col) { return double(x[row * 3 * d + part * d + col]); };
  for (int h = 0; h < heads; ++h)
    for (int i = 0; i < t; ++i) {
      const int last = causal ? i : t - 1;
      std::vector<double> w(last + 1);
      double sum = 0;
      for (int j = 0; j <= last; ++j) {
        double dot = 0;
        for (int c = h * dh; c < (h + 1) * dh; ++c) dot += at(i, 0, c) * at(j, 1, c);
        w[j] = std::exp(dot / std::sqrt(double(dh)));
        sum += w[j];
      }
      for (int j = 0; j <= last; ++j)
        for (int c = h * dh; c < (h + 1) * dh; ++c) out[i * d + c] += w[j] / sum * at(j, 2, c);
    }
  return out;
}

TEST(TransformerLayers, AttentionMatchesAStraightforwardReference) {
  Tensor x = make_tensor(2, sequence_shape(kT, 3 * kD), 60);
  for (float& v : x.data) v *= 3;  // scores far enough from 0 that the scale shows
  std::vector<Parameter> none;
  for (bool causal : {false, true}) {
    Attention attention({sequence_shape(kT, 3 * kD)}, {.heads = 2, .causal = causal});
    const Tensor y = forward_of(attention, {x}, none);
    for (int n = 0; n < 2; ++n) {
      const std::vector<double> want = reference_attention(x.sample(n), kT, kD, 2, causal);
      for (int i = 0; i < kT * kD; ++i)
        EXPECT_NEAR(y.sample(n)[i], want[i], 1e-5)
            << "causal " << causal << " sample " << n << " at " << i;
    }
  }
}

TEST(TransformerLayers, AttentionPackedEqualsThreeInputs) {
  const Tensor packed = make_tensor(2, sequence_shape(kT, 3 * kD), 51);
  std::vector<Tensor> three(3);
  for (int k = 0; k < 3; ++k) {
    three[k].reset(2, sequence_shape(kT, kD));
    for (int r = 0; r < 2 * kT; ++r)
      std::copy_n(packed.data.data() + r * 3 * kD + k * kD, kD, three[k].data.data() + r * kD);
  }
  std::vector<Parameter> none;
  Attention one({sequence_shape(kT, 3 * kD)}, {.heads = 3, .causal = true});
  Attention split(std::vector<FeatureShape>(3, sequence_shape(kT, kD)),
                  {.heads = 3, .causal = true});
  const Tensor a = forward_of(one, {packed}, none);
  const Tensor b = forward_of(split, three, none);
  for (std::size_t i = 0; i < a.data.size(); ++i) EXPECT_FLOAT_EQ(a.data[i], b.data[i]) << i;
}

TEST(TransformerLayers, AttentionConstructionErrorsNameTheNumbers) {
  const FeatureShape s = sequence_shape(4, 6);
  expect_invalid([&] { Attention({s, s, s}, {.heads = 4}); }, {"4 heads", "6 features"});
  expect_invalid([&] { Attention({sequence_shape(4, 18)}, {.heads = 4}); }, {"4 heads", "6"});
  expect_invalid([&] { Attention({s, s}, {}); }, {"2"});
  expect_invalid([&] { Attention({s, s, sequence_shape(5, 6)}, {}); }, {"{5, 6, 1}"});
  expect_invalid([&] { Attention({sequence_shape(4, 7)}, {}); }, {"7"});
  expect_invalid([&] { Attention({s, s, s}, {.heads = 0}); }, {"0 heads"});
}

EmbeddingOptions bert_like() {
  return {.vocabulary = 7,
          .max_positions = 6,
          .type_vocabulary = 2,
          .features = 4,
          .token_suffix = "word_embeddings.weight",
          .position_suffix = "position_embeddings.weight",
          .type_suffix = "token_type_embeddings.weight"};
}

TEST(TransformerLayers, EmbeddingParametersAndShapes) {
  Embedding e({5, 1, 1}, bert_like());
  EXPECT_EQ(e.kind(), "embedding");
  EXPECT_EQ(e.output_shape(), sequence_shape(5, 4));
  EXPECT_EQ(e.forward_flops(), 0);
  EXPECT_EQ(e.fan_in(), 4);
  EXPECT_TRUE(e.adds_to_grads());
  const std::vector<ParamSpec> p = e.params();
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].suffix, "word_embeddings.weight");
  EXPECT_EQ(p[0].shape, (std::vector<int>{7, 4}));
  EXPECT_EQ(p[1].suffix, "position_embeddings.weight");
  EXPECT_EQ(p[1].shape, (std::vector<int>{6, 4}));
  EXPECT_EQ(p[2].suffix, "token_type_embeddings.weight");
  EXPECT_EQ(p[2].shape, (std::vector<int>{2, 4}));
  // T = 5: positions 0, 1 are the first sentence, 2, 3, 4 the second.
  EXPECT_EQ(e.segment(1), 0);
  EXPECT_EQ(e.segment(2), 1);
  Embedding gpt({5, 1, 1}, {.vocabulary = 7,
                            .max_positions = 8,
                            .features = 4,
                            .token_suffix = "wte.weight",
                            .position_suffix = "wpe.weight"});
  ASSERT_EQ(gpt.params().size(), 2u);
  EXPECT_EQ(gpt.params()[1].suffix, "wpe.weight");
  EXPECT_EQ(Embedding({5, 1, 1}, {.vocabulary = 7, .features = 4}).params().size(), 1u);
}

TEST(TransformerLayers, EmbeddingParameterGradients) {
  Embedding e({5, 1, 1}, bert_like());
  std::vector<Tensor> ids = {token_ids(2, {3, 0, 6, 3, 1, 2, 2, 5, 4, 0})};
  LayerParams params = make_params(e, 11);
  GradCheckOptions o;
  o.check_inputs = false;
  const GradCheckResult r = grad_check(e, ids, params.list, o);
  EXPECT_LT(r.worst, kTolerance) << "worst at " << r.where;
  o.analytic_scale = 1.05;  // the check sees a 5% error here too
  EXPECT_GT(grad_check(e, ids, params.list, o).worst, kTolerance);
}

TEST(TransformerLayers, EmbeddingRowIsTokenPlusPositionPlusType) {
  Embedding e({5, 1, 1}, bert_like());
  LayerParams params = make_params(e, 12);
  const std::vector<Tensor> ids = {token_ids(1, {3, 0, 6, 3, 1})};
  const Tensor y = forward_of(e, ids, params.list);
  const auto& token = params.list[0].value;
  const auto& position = params.list[1].value;
  const auto& type = params.list[2].value;
  for (int t = 0; t < 5; ++t) {
    const int id = int(ids[0].data[t]), s = t < 2 ? 0 : 1;
    for (int c = 0; c < 4; ++c)
      EXPECT_FLOAT_EQ(y.data[t * 4 + c], token[id * 4 + c] + position[t * 4 + c] + type[s * 4 + c])
          << t << "," << c;
  }
}

TEST(TransformerLayers, EmbeddingBackwardScatterAddsRows) {
  Embedding e({3, 1, 1}, {.vocabulary = 5,
                          .max_positions = 4,
                          .features = 2,
                          .token_suffix = "wte.weight",
                          .position_suffix = "wpe.weight"});
  LayerParams params = make_params(e, 13);
  std::fill(params.gradients.begin(), params.gradients.end(), 1.0f);  // backward adds to it
  const std::vector<Tensor> ids = {token_ids(2, {4, 1, 4, 0, 4, 2})};
  Tensor dy;
  dy.reset(2, e.output_shape());
  for (std::size_t i = 0; i < dy.data.size(); ++i) dy.data[i] = float(i);  // row r: 2r, 2r + 1
  const Tensor* in[] = {&ids[0]};
  Tensor* no_grad[] = {nullptr};
  e.backward(in, dy, dy, no_grad, params.list);
  const auto& dtoken = params.list[0].grad;
  const auto& dposition = params.list[1].grad;
  // Id 4 at rows 0, 2 and 4: 1 + 0 + 4 + 8 and 1 + 1 + 5 + 9.
  EXPECT_EQ(dtoken[8], 13.0f);
  EXPECT_EQ(dtoken[9], 16.0f);
  EXPECT_EQ(dtoken[6], 1.0f);      // id 3 never occurs
  EXPECT_EQ(dtoken[2], 1.0f + 2);  // id 1 at row 1
  // Position 0: rows 0 and 3; position 3 is never used.
  EXPECT_EQ(dposition[0], 1.0f + 0 + 6);
  EXPECT_EQ(dposition[1], 1.0f + 1 + 7);
  EXPECT_EQ(dposition[6], 1.0f);
}

TEST(TransformerLayers, EmbeddingErrorsNameTheNumbers) {
  expect_invalid([] { Embedding({9, 1, 1}, bert_like()); }, {"9", "6 positions"});
  expect_invalid([] { Embedding({4, 2, 1}, bert_like()); }, {"{T, 1, 1}"});
  EmbeddingOptions unnamed = bert_like();
  unnamed.position_suffix.clear();
  expect_invalid([&] { Embedding({4, 1, 1}, unnamed); }, {"suffix"});
  Embedding e({2, 1, 1}, bert_like());
  LayerParams params = make_params(e, 14);
  expect_invalid([&] { forward_of(e, {token_ids(1, {1, 7})}, params.list); }, {"id 7", "7)"});
  expect_invalid([&] { forward_of(e, {token_ids(1, {2.5f, 1})}, params.list); }, {"2.5"});
  expect_invalid([&] { forward_of(e, {token_ids(1, {-1, 1})}, params.list); }, {"-1"});
}

// A borrowed {V, d} weight named as its owner names it.
LayerParams borrowed_weight(int vocabulary, int features, std::uint64_t seed) {
  LayerParams out;
  out.list.push_back({"wte.weight",
                      {vocabulary, features},
                      random_values(std::size_t(vocabulary) * features, seed),
                      {}});
  out.gradients = allocate_gradients(out.list);
  return out;
}

TEST(TransformerLayers, TiedLinearGradients) {
  TiedLinear head(sequence_shape(4, 5), 7);
  EXPECT_EQ(head.kind(), "tied_linear");
  EXPECT_EQ(head.output_shape(), sequence_shape(4, 7));
  EXPECT_EQ(head.forward_flops(), 2.0 * 4 * 5 * 7);
  EXPECT_TRUE(head.params().empty());
  EXPECT_TRUE(head.adds_to_grads());
  LayerParams w = borrowed_weight(7, 5, 15);
  std::vector<Tensor> x = {make_tensor(2, sequence_shape(4, 5), 52)};
  const GradCheckResult r = grad_check(head, x, w.list);
  EXPECT_LT(r.worst, kTolerance) << "worst at " << r.where;
}

TEST(TransformerLayers, TiedLinearIsALinearWithoutBias) {
  TiedLinear head(sequence_shape(3, 4), 6);
  Linear fc(sequence_shape(3, 4), 6, {.per_position = true});
  LayerParams w = borrowed_weight(6, 4, 19);
  LayerParams fc_params = make_params(fc, 1);
  fc_params.list[0].value = w.list[0].value;
  std::fill(fc_params.list[1].value.begin(), fc_params.list[1].value.end(), 0.0f);
  const std::vector<Tensor> x = {make_tensor(2, sequence_shape(3, 4), 61)};
  const Tensor a = forward_of(head, x, w.list);
  const Tensor b = forward_of(fc, x, fc_params.list);
  for (std::size_t i = 0; i < a.data.size(); ++i) EXPECT_FLOAT_EQ(a.data[i], b.data[i]) << i;
}

TEST(TransformerLayers, TiedLinearAddsToTheBorrowedGradient) {
  TiedLinear head(sequence_shape(3, 4), 6);
  LayerParams w = borrowed_weight(6, 4, 16);
  const Tensor x = make_tensor(2, sequence_shape(3, 4), 53);
  const Tensor dy = make_tensor(2, sequence_shape(3, 6), 54);
  const Tensor* in[] = {&x};
  Tensor* no_grad[] = {nullptr};
  head.backward(in, dy, dy, no_grad, w.list);
  const std::vector<float> once = w.gradients;
  head.backward(in, dy, dy, no_grad, w.list);
  for (std::size_t i = 0; i < once.size(); ++i) EXPECT_FLOAT_EQ(w.gradients[i], 2 * once[i]) << i;
}

TEST(TransformerLayers, TiedLinearChecksTheBorrowedWeight) {
  TiedLinear head(sequence_shape(3, 4), 6);
  LayerParams wrong = borrowed_weight(6, 5, 17);
  const std::vector<Tensor> x = {make_tensor(1, sequence_shape(3, 4), 55)};
  expect_invalid([&] { forward_of(head, x, wrong.list); }, {"wte.weight", "6 x 4"});
  std::vector<Parameter> none;
  expect_invalid([&] { forward_of(head, x, none); }, {"0 parameters"});
}

TEST(TransformerLayers, PositionBiasGradients) {
  PositionBias bias(sequence_shape(4, 6));
  EXPECT_EQ(bias.kind(), "bias");
  ASSERT_EQ(bias.params().size(), 1u);
  EXPECT_EQ(bias.params()[0].suffix, "bias");
  EXPECT_EQ(bias.params()[0].shape, (std::vector<int>{6}));
  expect_gradients(bias, {make_tensor(2, sequence_shape(4, 6), 56)});
}

TEST(TransformerLayers, PatchTokensGradients) {
  PatchTokens tokens({4, 2, 3});
  EXPECT_EQ(tokens.kind(), "patch_tokens");
  EXPECT_EQ(tokens.output_shape(), sequence_shape(7, 4));
  EXPECT_EQ(tokens.fan_in(), 0);
  const std::vector<ParamSpec> p = tokens.params();
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].suffix, "class_token");
  EXPECT_EQ(p[0].shape, (std::vector<int>{1, 1, 4}));
  EXPECT_EQ(p[1].suffix, "encoder.pos_embedding");
  EXPECT_EQ(p[1].shape, (std::vector<int>{1, 7, 4}));
  expect_gradients(tokens, {make_tensor(2, {4, 2, 3}, 57)});
}

TEST(TransformerLayers, PatchTokensOrderClassTokenThenPatchesRowMajor) {
  PatchTokens tokens({3, 2, 2});  // C 3, patches p = y*2 + x
  LayerParams params = make_params(tokens, 18);
  Tensor x;
  x.reset(1, {3, 2, 2});
  for (std::size_t i = 0; i < x.data.size(); ++i)
    x.data[i] = float(100 * i);  // x[c][p] = 100*(4c + p)
  const Tensor y = forward_of(tokens, {x}, params.list);
  const auto& cls = params.list[0].value;
  const auto& pos = params.list[1].value;
  for (int c = 0; c < 3; ++c) EXPECT_FLOAT_EQ(y.data[c], cls[c] + pos[c]);
  for (int p = 0; p < 4; ++p)
    for (int c = 0; c < 3; ++c)
      EXPECT_FLOAT_EQ(y.data[(1 + p) * 3 + c], 100.0f * (4 * c + p) + pos[(1 + p) * 3 + c])
          << p << "," << c;
}

TEST(TransformerLayers, TakeTokenGradientsAndRow) {
  TakeToken take(sequence_shape(4, 5), 2);
  EXPECT_EQ(take.kind(), "take_token");
  EXPECT_EQ(take.output_shape(), (FeatureShape{5, 1, 1}));
  expect_gradients(take, {make_tensor(2, sequence_shape(4, 5), 58)});
  std::vector<Parameter> none;
  const Tensor x = make_tensor(2, sequence_shape(4, 5), 59);
  const Tensor y = forward_of(take, {x}, none);
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < 5; ++c) EXPECT_EQ(y.sample(n)[c], x.sample(n)[2 * 5 + c]);
  expect_invalid([] { TakeToken(sequence_shape(4, 5), 4); }, {"row 4", "4 rows"});
}

TEST(TransformerLayers, OnlyScatteringLayersAddToGradients) {
  EXPECT_FALSE(Linear(sequence_shape(3, 4), 2, {.per_position = true}).adds_to_grads());
  EXPECT_FALSE(LayerNorm(sequence_shape(3, 4), 1e-5f).adds_to_grads());
  EXPECT_FALSE(PositionBias(sequence_shape(3, 4)).adds_to_grads());
  EXPECT_FALSE(PatchTokens({4, 2, 2}).adds_to_grads());
  EXPECT_TRUE(TiedLinear(sequence_shape(3, 4), 2).adds_to_grads());
}

}  // namespace
}  // namespace gradsync
