// Device profiles for emulated compute. Each figure is a published
// single-GPU ResNet-50 v1.5 training throughput (img/s, mixed precision)
// turned into sustained FLOP/s as img/s x 3 x ResNet-50's forward FLOPs per
// sample as this zoo counts them (8.18 GFLOP; backward = 2 x forward). So
// ResNet-50 emulated on a profile runs at exactly the published rate, and
// other models run at the same FLOP/s (an approximation: real GPUs reach
// different efficiencies on different layers).
//
// Transformers get a rate of their own, from a published single-GPU
// BERT-large pretraining throughput (sequences/s, phase 1: 128 tokens, mixed
// precision) x 3 x BERT-large's forward FLOPs per 128-token sequence as this
// zoo counts them (attention's matrix products included): BERT-large then
// runs at exactly the published rate, and GPT-2 or ViT at the same FLOP/s.
#include <fmt/format.h>

#include <stdexcept>

#include "models/model.h"
#include "models/zoo.h"

namespace gradsync {
namespace {

struct PublishedRate {
  const char* name;
  double resnet50_img_per_sec;
  const char* source;
  double bert_large_seq_per_sec;  // phase 1, 128 tokens; 0: transformer_flops below
  const char* transformer_source;
  double transformer_flops = 0;  // a published FLOP/s where there is no BERT figure
};

constexpr PublishedRate kRates[] = {
    {"v100", 1200,
     "NVIDIA DeepLearningExamples, PyTorch ResNet50 v1.5 README, training performance on "
     "DGX-1 (V100 16GB), 1 GPU, mixed precision: 1200 img/s",
     224,
     "NVIDIA DeepLearningExamples, PyTorch BERT README (May 2022), pre-training on DGX-1 "
     "(V100 32GB), 1 GPU, mixed precision, phase 1 (128 tokens): 224 sequences/s"},
    {"a100", 2470,
     "NVIDIA DeepLearningExamples, PyTorch ResNet50 v1.5 README, training performance on "
     "DGX A100 (A100 80GB), 1 GPU, mixed precision: 2470 img/s",
     580,
     "NVIDIA DeepLearningExamples, PyTorch BERT README (May 2022), pre-training on DGX A100 "
     "(A100 80GB), 1 GPU, mixed precision, phase 1 (128 tokens): 580 sequences/s"},
    {"h100", 3700,
     "an assumption, not a published single-GPU figure: the A100 rate above (2470 img/s) x "
     "1.5 for an H100 SXM; pass a measured rate with emulate_img_per_sec to replace it",
     0,
     "NVIDIA Megatron-LM README, performance benchmarking (Megatron-Core 0.8): GPT 1.7B at "
     "4,096 tokens on 48 H100s, 408.8 TFLOP/s per GPU end to end (its model FLOPs, attention "
     "included); not a BERT figure, and measured with communication: an approximation",
     408.8e12},
};

// The transformer rate of `r`, with its source in words.
void set_transformer_rate(const PublishedRate& r, double bert_flops, DeviceProfile& p) {
  if (r.bert_large_seq_per_sec == 0) {
    p.transformer_flops_per_second = r.transformer_flops;
    p.transformer_source =
        fmt::format("{:.1f} TFLOP/s; {}", r.transformer_flops / 1e12, r.transformer_source);
    return;
  }
  p.transformer_flops_per_second = r.bert_large_seq_per_sec * 3.0 * bert_flops;
  p.transformer_source = fmt::format(
      "{:.0f} sequences/s BERT-large training x 3 x {:.2f} GFLOP forward = {:.1f} TFLOP/s; {}",
      r.bert_large_seq_per_sec, bert_flops / 1e9, p.transformer_flops_per_second / 1e12,
      r.transformer_source);
}

}  // namespace

std::vector<DeviceProfile> device_profiles() {
  const double resnet50_flops = build_resnet50().forward_flops();
  const double bert_flops = build_zoo_graph("bert-large", 128).forward_flops();
  std::vector<DeviceProfile> out;
  for (const auto& r : kRates) {
    DeviceProfile p{r.name, r.resnet50_img_per_sec * 3.0 * resnet50_flops,
                    fmt::format("{:.0f} img/s ResNet-50 training x 3 x {:.2f} GFLOP forward = "
                                "{:.1f} TFLOP/s; {}",
                                r.resnet50_img_per_sec, resnet50_flops / 1e9,
                                r.resnet50_img_per_sec * 3.0 * resnet50_flops / 1e12, r.source)};
    set_transformer_rate(r, bert_flops, p);
    out.push_back(std::move(p));
  }
  return out;
}

DeviceProfile profile_for(const DeviceProfile& profile, const ModelInfo& model) {
  if (!model.transformer || !(profile.transformer_flops_per_second > 0)) return profile;
  DeviceProfile out = profile;
  out.flops_per_second = profile.transformer_flops_per_second;
  out.source = profile.transformer_source;
  return out;
}

DeviceProfile find_device_profile(std::string_view name) {
  std::string known;
  for (auto& p : device_profiles()) {
    if (p.name == name) return p;
    known += (known.empty() ? "" : ", ") + p.name;
  }
  throw std::invalid_argument(fmt::format("unknown device profile '{}' (known: {})", name, known));
}

}  // namespace gradsync
