// The transformer workloads: parameter counts equal the published ones
// exactly (Hugging Face's GPT-2 and BERT, torchvision's ViT-B/16), counted
// from the graphs; names and tied weights; FLOPs against the closed form of
// Narayanan et al. (2021); sequence lengths as workload parameters; and
// tiny-gpt end to end on the CPU: the whole graph's backward against finite
// differences, the tied weight handed over once, the batch/shard identity
// and a loss that falls.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "models/cpu_model.h"
#include "models/model.h"
#include "models/synthetic_data.h"
#include "models/zoo.h"
#include "tests/unit/model_test_support.h"

namespace gradsync {
namespace {

using testing::zoo_by_name;

TEST(TransformerZoo, ParameterCountsEqualThePublishedOnes) {
  const auto zoo = zoo_by_name();
  // sum(p.numel() for p in GPT2LMHeadModel.from_pretrained(name).parameters())
  EXPECT_EQ(zoo.at("gpt2-124m").parameters, 124'439'808u);
  EXPECT_EQ(zoo.at("gpt2-355m").parameters, 354'823'168u);
  EXPECT_EQ(zoo.at("gpt2-774m").parameters, 774'030'080u);
  EXPECT_EQ(zoo.at("gpt2-1.5b").parameters, 1'557'611'200u);
  // BertForMaskedLM; torchvision's vit_b_16.
  EXPECT_EQ(zoo.at("bert-base").parameters, 109'514'298u);
  EXPECT_EQ(zoo.at("bert-large").parameters, 335'174'458u);
  EXPECT_EQ(zoo.at("vit-b16").parameters, 86'567'656u);
}

// BERT's published sizes (110M, 340M) are BertModel's, with the pooler
// (d x d + d) where the masked-LM head has its transform (d x d + d), its
// LayerNorm (2d) and the decoder's bias (the vocabulary).
TEST(TransformerZoo, BertWithThePoolerForItsHeadIsBertModel) {
  const auto zoo = zoo_by_name();
  EXPECT_EQ(zoo.at("bert-base").parameters - 2 * 768 - 30522, 109'482'240u);
  EXPECT_EQ(zoo.at("bert-large").parameters - 2 * 1024 - 30522, 335'141'888u);
}

TEST(TransformerZoo, TensorCountsAndNamesFollowTheLibraries) {
  const auto zoo = zoo_by_name();
  EXPECT_EQ(zoo.at("gpt2-124m").tensors, 148u);  // 2 + 12 x 12 + 2, the head tied
  EXPECT_EQ(zoo.at("bert-base").tensors, 202u);  // 5 + 12 x 16 + 5
  EXPECT_EQ(zoo.at("vit-b16").tensors, 152u);    // 4 + 12 x 12 + 4
  const Graph gpt = build_zoo_graph("gpt2-124m", 0);
  EXPECT_EQ(gpt.params().front().name, "transformer.wte.weight");
  EXPECT_EQ(gpt.params()[1].name, "transformer.wpe.weight");
  EXPECT_EQ(gpt.params()[4].name, "transformer.h.0.attn.c_attn.weight");
  EXPECT_EQ(gpt.params()[4].shape, (std::vector<int>{2304, 768}));
  EXPECT_EQ(gpt.params().back().name, "transformer.ln_f.bias");
  const Graph bert = build_zoo_graph("bert-base", 0);
  EXPECT_EQ(bert.params()[2].name, "bert.embeddings.token_type_embeddings.weight");
  EXPECT_EQ(bert.params().back().name, "cls.predictions.bias");
  const Graph vit = build_zoo_graph("vit-b16", 0);
  EXPECT_EQ(vit.params()[2].name, "class_token");
  EXPECT_EQ(vit.params()[3].name, "encoder.pos_embedding");
  EXPECT_EQ(vit.params()[6].name, "encoder.layers.encoder_layer_0.self_attention.in_proj_weight");
  EXPECT_EQ(vit.params().back().name, "heads.head.bias");
}

// The token embedding is used twice (the tied head), but it is one tensor,
// handed over once, when the embedding's backward ends, last of all.
TEST(TransformerZoo, TheTiedEmbeddingIsOneGradientHandedOverLast) {
  const Graph gpt = build_zoo_graph("gpt2-124m", 0);
  const auto order = gpt.backward_order();
  EXPECT_EQ(order.size(), gpt.params().size());
  EXPECT_EQ(gpt.params()[order[order.size() - 2]].name, "transformer.wte.weight");
  EXPECT_EQ(gpt.params()[order.back()].name, "transformer.wpe.weight");
  EXPECT_EQ(gpt.params()[order.front()].name, "transformer.ln_f.weight");
}

// Forward FLOPs of a GPT-2 sequence: 24 s l h^2 + 4 s^2 l h + 2 s h V, the
// forward third of Narayanan et al. (2021), eq. 3 (without recomputation):
// the blocks' matrix products, attention's two, and the logits.
TEST(TransformerZoo, Gpt2FlopsEqualTheClosedForm) {
  for (const auto& [name, l, h] :
       {std::tuple{"gpt2-124m", 12.0, 768.0}, std::tuple{"gpt2-1.5b", 48.0, 1600.0}})
    for (int s : {1024, 128}) {
      const double expected = 24 * s * l * h * h + 4.0 * s * s * l * h + 2.0 * s * h * 50257;
      EXPECT_DOUBLE_EQ(describe_model(name, s).forward_flops_per_sample, expected) << name << s;
    }
  // ViT-B/16: torchvision lists 17.56 G multiply-adds.
  EXPECT_NEAR(describe_model("vit-b16").forward_flops_per_sample / 1e9, 2 * 17.56, 0.1);
}

TEST(TransformerZoo, SequenceLengthIsAWorkloadParameter) {
  EXPECT_EQ(describe_model("gpt2-124m").sequence_length, 1024);
  EXPECT_EQ(describe_model("bert-base").sequence_length, 128);
  EXPECT_EQ(describe_model("bert-base", 512).input.channels, 512);
  EXPECT_EQ(describe_model("bert-base", 512).parameters, describe_model("bert-base").parameters);
  EXPECT_EQ(describe_model("resnet50").sequence_length, 0);
  EXPECT_EQ(describe_model("gpt2-124m").task, Task::next_token);
  EXPECT_EQ(describe_model("bert-base").task, Task::masked_token);
  EXPECT_EQ(describe_model("vit-b16").task, Task::classify);
  EXPECT_EQ(describe_model("gpt2-124m").classes, 50257);
  auto refused = [](const char* model, int length) {
    try {
      describe_model(model, length);
      return std::string("no exception");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
  };
  EXPECT_EQ(refused("gpt2-124m", 2048),
            "sequence length 2048 is outside gpt2-124m's 1..1024 positions");
  EXPECT_EQ(refused("resnet50", 128),
            "a sequence length applies to token models; resnet50 takes images");
}

// Emulated compute times a transformer at its profile's transformer rate:
// BERT-large at 128 tokens then trains at exactly the published sequences/s
// (V100 224, A100 580), ResNet-50 still at its published img/s.
TEST(TransformerZoo, EmulatedProfilesGiveTransformersTheirOwnPublishedRate) {
  const ModelInfo bert = describe_model("bert-large", 128);
  const ModelInfo resnet = describe_model("resnet50");
  EXPECT_TRUE(bert.transformer);
  EXPECT_TRUE(describe_model("vit-b16").transformer);
  EXPECT_FALSE(resnet.transformer);
  for (const auto& [device, seq_per_s, img_per_s] :
       {std::tuple{"v100", 224.0, 1200.0}, std::tuple{"a100", 580.0, 2470.0}}) {
    const DeviceProfile profile = find_device_profile(device);
    const DeviceProfile for_bert = profile_for(profile, bert);
    EXPECT_NEAR(for_bert.flops_per_second / (3 * bert.forward_flops_per_sample), seq_per_s, 1e-9)
        << device;
    EXPECT_NE(for_bert.source.find("BERT-large"), std::string::npos) << for_bert.source;
    const DeviceProfile for_resnet = profile_for(profile, resnet);
    EXPECT_NEAR(for_resnet.flops_per_second / (3 * resnet.forward_flops_per_sample), img_per_s,
                1e-9)
        << device;
  }
  EXPECT_DOUBLE_EQ(profile_for(find_device_profile("h100"), bert).flops_per_second, 408.8e12);
}

ModelOptions tiny(int sequence_length, std::uint64_t seed = 3) {
  ModelOptions o;
  o.seed = seed;
  o.sequence_length = sequence_length;
  return o;
}

SyntheticBatch tokens(const Model& model, int batch, std::uint64_t step = 0,
                      std::uint64_t first = 0) {
  SyntheticBatch b;
  make_synthetic_batch(model.input_shape(), model.classes(), 11, step, first, batch, b,
                       model.task());
  return b;
}

TEST(TransformerTraining, TokenDataIsLabelledWithTheNextToken) {
  auto model = make_model("tiny-gpt", tiny(16));
  const SyntheticBatch b = tokens(*model, 3);
  ASSERT_EQ(b.images.size(), 3u * 16);
  ASSERT_EQ(b.labels.size(), 3u * 16);
  for (int n = 0; n < 3; ++n)
    for (int t = 0; t + 1 < 16; ++t) EXPECT_EQ(b.labels[n * 16 + t], int(b.images[n * 16 + t + 1]));
  for (int label : b.labels) EXPECT_LT(label, 256);
}

// The whole tiny-gpt (embeddings, causal attention, GELU, layer norms, the
// tied head) against finite differences of the loss, every 17th element.
TEST(TransformerTraining, TinyGptGradientsMatchFiniteDifferences) {
  auto model = make_model("tiny-gpt", tiny(6));
  const SyntheticBatch b = tokens(*model, 2);
  const auto check = testing::finite_difference_check(*model, b.images, b.labels, 2, 17);
  EXPECT_LT(check.worst, 2e-2) << check.where;
}

TEST(TransformerTraining, EveryGradientIsHandedOverOnceTheTiedOneLast) {
  auto model = make_model("tiny-gpt", tiny(8));
  const SyntheticBatch b = tokens(*model, 2);
  model->forward(b.images, b.labels, 2);
  std::vector<std::size_t> order;
  std::vector<std::vector<float>> at_ready(model->parameters().size());
  model->backward([&](std::size_t i) {
    order.push_back(i);
    at_ready[i].assign(model->parameters()[i].grad.begin(), model->parameters()[i].grad.end());
  });
  const Graph graph = build_zoo_graph("tiny-gpt", 8);
  EXPECT_EQ(order, graph.backward_order());
  for (std::size_t i = 0; i < order.size(); ++i)
    EXPECT_TRUE(std::ranges::equal(at_ready[i], model->parameters()[i].grad))
        << model->parameters()[i].name;
  // The head's part of wte's gradient survives the embedding's scatter: rows
  // of tokens that never occur still have a gradient (from the logits).
  std::vector<bool> seen(256);
  for (float id : b.images) seen[std::size_t(id)] = true;
  const auto unseen = std::ranges::find(seen, false) - seen.begin();
  ASSERT_LT(unseen, 256);
  const auto& wte = model->parameters()[0];
  EXPECT_NE(wte.grad[std::size_t(unseen) * 64], 0.0f);
}

// N workers with batch B compute the mean gradient of one worker with batch
// N x B: a layer norm normalizes each position, never across samples.
TEST(TransformerTraining, TinyGptGradientOfABatchIsTheMeanOverItsShards) {
  auto model = make_model("tiny-gpt", tiny(8, 9));
  const SyntheticBatch b = tokens(*model, 8);
  auto grads = [&](std::size_t first, int count) {
    return testing::gradients_of_slice(*model, b.images, b.labels, 8, 8, first, count);
  };
  const auto whole = grads(0, 8), low = grads(0, 4), high = grads(4, 4);
  for (std::size_t i = 0; i < whole.size(); ++i)
    for (std::size_t j = 0; j < whole[i].size(); ++j)
      ASSERT_NEAR(whole[i][j], 0.5f * (low[i][j] + high[i][j]),
                  1e-6f + 1e-4f * std::abs(whole[i][j]))
          << model->parameters()[i].name << "[" << j << "]";
}

TEST(TransformerTraining, TinyGptLossFallsWithPlainSgd) {
  auto model = make_model("tiny-gpt", tiny(32, 1));
  const int batch = 16;
  float first = 0, last = 0;
  for (int step = 0; step < 60; ++step) {
    const SyntheticBatch b = tokens(*model, batch, std::uint64_t(step));
    const float loss = model->forward(b.images, b.labels, batch);
    model->backward([](std::size_t) {});
    for (auto& p : model->parameters())
      for (std::size_t i = 0; i < p.value.size(); ++i) p.value[i] -= 0.5f * p.grad[i];
    if (step == 0) first = loss;
    last = loss;
  }
  // A uniform guess scores log(256) = 5.55; the data's own entropy (the
  // successor 3/4 of the time) is 1.94. 60 steps learn at least a nat of it
  // (measured: 6.56 at the first step, 3.77 at the last).
  EXPECT_LT(last, std::log(256.0f) - 1) << "first " << first << " last " << last;
}

TEST(TransformerTraining, TokenIdsOutsideTheVocabularyAreRefused) {
  auto model = make_model("tiny-gpt", tiny(4));
  const std::vector<float> input = {1, 2, 256, 3};
  const std::vector<int> labels = {2, 3, 3, 4};
  EXPECT_THROW(model->forward(input, labels, 1), std::invalid_argument);
}

}  // namespace
}  // namespace gradsync
