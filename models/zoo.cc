// The model zoo: the table of models, what `gradsync models` lists (counted
// from the graphs, no tensor allocated) and the factory for a compute mode.
#include "models/zoo.h"

#include <algorithm>
#include <stdexcept>

#include "models/cpu_model.h"
#include "models/cuda_model.h"
#include "models/emulated_model.h"

namespace gradsync {
namespace {

// Hugging Face's configurations: gpt2, gpt2-medium, gpt2-large, gpt2-xl
// (50,257 tokens, 1,024 positions); bert-base/large-uncased (30,522 tokens,
// 512 positions). tiny-gpt is GPT-2's architecture at a size that trains in
// seconds on a CPU.
constexpr TransformerShape kGpt2Small{12, 768, 12, 50257, 1024};
constexpr TransformerShape kGpt2Medium{24, 1024, 16, 50257, 1024};
constexpr TransformerShape kGpt2Large{36, 1280, 20, 50257, 1024};
constexpr TransformerShape kGpt2Xl{48, 1600, 25, 50257, 1024};
constexpr TransformerShape kBertBase{12, 768, 12, 30522, 512};
constexpr TransformerShape kBertLarge{24, 1024, 16, 30522, 512};
constexpr TransformerShape kTinyGpt{2, 64, 4, 256, 64};

template <Graph (*Build)()>
Graph image_model(int) {
  return Build();
}
template <const TransformerShape& Shape>
Graph gpt2(int sequence_length) {
  return build_gpt2(Shape, sequence_length);
}
template <const TransformerShape& Shape>
Graph bert(int sequence_length) {
  return build_bert(Shape, sequence_length);
}

// Token models' default sequence lengths: GPT-2's context (1,024); BERT's
// first pretraining phase, 128, where it spends 90% of its steps (Devlin et
// al., 2019, appendix A.2).
constexpr ZooEntry kZoo[] = {
    {"small-cnn", "2 conv + ReLU + maxpool, linear; no batch norm; trains in seconds on a CPU",
     image_model<build_small_cnn>},
    {"resnet50", "ResNet-50 v1.5 (torchvision), bottleneck blocks [3,4,6,3]",
     image_model<build_resnet50>},
    {"resnet101", "ResNet-101 v1.5 (torchvision), bottleneck blocks [3,4,23,3]",
     image_model<build_resnet101>},
    {"vgg16", "VGG-16 (torchvision, configuration D, no batch norm)", image_model<build_vgg16>},
    {"inception3", "Inception-v3 (torchvision) without the auxiliary head",
     image_model<build_inception3>},
    {"alexnet", "AlexNet (torchvision, single-tower variant)", image_model<build_alexnet>},
    {"gpt2-124m", "GPT-2 small (Hugging Face gpt2): 12 blocks of 768, causal LM, tied head",
     gpt2<kGpt2Small>, 1024, 1024},
    {"gpt2-355m", "GPT-2 medium (gpt2-medium): 24 blocks of 1024, causal LM, tied head",
     gpt2<kGpt2Medium>, 1024, 1024},
    {"gpt2-774m", "GPT-2 large (gpt2-large): 36 blocks of 1280, causal LM, tied head",
     gpt2<kGpt2Large>, 1024, 1024},
    {"gpt2-1.5b", "GPT-2 XL (gpt2-xl): 48 blocks of 1600, causal LM, tied head", gpt2<kGpt2Xl>,
     1024, 1024},
    {"bert-base", "BERT-base (Hugging Face BertForMaskedLM): 12 layers of 768, masked LM",
     bert<kBertBase>, 128, 512},
    {"bert-large", "BERT-large (BertForMaskedLM): 24 layers of 1024, masked LM", bert<kBertLarge>,
     128, 512},
    {"vit-b16", "ViT-B/16 (torchvision vit_b_16): 16x16 patches, 12 layers of 768",
     image_model<build_vit_b16>},
    {"tiny-gpt", "GPT-2's architecture, 2 blocks of 64, 256 tokens; trains in seconds on a CPU",
     gpt2<kTinyGpt>, 32, 64},
};

}  // namespace

std::span<const ZooEntry> zoo_table() { return kZoo; }

const char* to_string(Task task) {
  switch (task) {
    case Task::classify:
      return "classify";
    case Task::next_token:
      return "next_token";
    case Task::masked_token:
      return "masked_token";
  }
  return "?";
}

const ZooEntry& find_zoo_entry(std::string_view name) {
  std::string known;
  for (const auto& e : kZoo) {
    if (e.name == name) return e;
    known += (known.empty() ? "" : ", ") + std::string(e.name);
  }
  throw std::invalid_argument("unknown model '" + std::string(name) + "' (known: " + known + ")");
}

namespace {

// The sequence length to build `e` at: its default for 0; refused for an
// image model or beyond the position table.
int sequence_length_of(const ZooEntry& e, int asked) {
  if (asked == 0) return e.sequence_length;
  const std::string name(e.name);
  if (e.sequence_length == 0)
    throw std::invalid_argument("a sequence length applies to token models; " + name +
                                " takes images");
  if (asked < 1 || asked > e.max_sequence_length)
    throw std::invalid_argument("sequence length " + std::to_string(asked) + " is outside " + name +
                                "'s 1.." + std::to_string(e.max_sequence_length) + " positions");
  return asked;
}

Graph build(const ZooEntry& e, int sequence_length) {
  return e.build(sequence_length_of(e, sequence_length));
}

ModelInfo describe(const ZooEntry& e, int sequence_length) {
  const Graph g = build(e, sequence_length);
  ModelInfo info{std::string(e.name),    std::string(e.description), g.input(),        g.classes(),
                 g.parameter_elements(), g.params().size(),          g.forward_flops()};
  info.task = g.task();
  info.sequence_length = e.sequence_length ? g.input().channels : 0;
  info.max_sequence_length = e.max_sequence_length;
  info.transformer = std::ranges::any_of(
      g.nodes(), [](const Node& node) { return node.layer->kind() == "attention"; });
  return info;
}

}  // namespace

std::vector<ModelInfo> model_zoo() {
  std::vector<ModelInfo> out;
  for (const auto& e : kZoo) out.push_back(describe(e, 0));
  return out;
}

Graph build_zoo_graph(std::string_view name, int sequence_length) {
  return build(find_zoo_entry(name), sequence_length);
}

ModelInfo describe_model(std::string_view name, int sequence_length) {
  return describe(find_zoo_entry(name), sequence_length);
}

std::unique_ptr<Model> make_model(std::string_view name, const ModelOptions& options) {
  const ZooEntry& e = find_zoo_entry(name);
  Graph graph = build(e, options.sequence_length);
  switch (options.compute) {
    case ComputeMode::cpu:
      return std::make_unique<CpuModel>(std::string(e.name), std::move(graph), options.seed);
    case ComputeMode::emulated:
      return std::make_unique<EmulatedModel>(std::string(e.name), std::move(graph), options);
    case ComputeMode::cuda:
      return make_cuda_model(std::string(e.name), std::move(graph), options);
  }
  throw std::invalid_argument("make_model: unknown compute mode");
}

}  // namespace gradsync
