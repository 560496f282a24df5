// The model zoo: the table of models, what `gradsync models` lists (counted
// from the graphs, no tensor allocated) and the factory for a compute mode.
#include "models/zoo.h"

#include <stdexcept>

#include "models/cpu_model.h"
#include "models/cuda_model.h"
#include "models/emulated_model.h"

namespace gradsync {
namespace {

constexpr ZooEntry kZoo[] = {
    {"small-cnn", "2 conv + ReLU + maxpool, linear; no batch norm; trains in seconds on a CPU",
     build_small_cnn},
    {"resnet50", "ResNet-50 v1.5 (torchvision), bottleneck blocks [3,4,6,3]", build_resnet50},
    {"resnet101", "ResNet-101 v1.5 (torchvision), bottleneck blocks [3,4,23,3]", build_resnet101},
    {"vgg16", "VGG-16 (torchvision, configuration D, no batch norm)", build_vgg16},
    {"inception3", "Inception-v3 (torchvision) without the auxiliary head", build_inception3},
    {"alexnet", "AlexNet (torchvision, single-tower variant)", build_alexnet},
};

}  // namespace

std::span<const ZooEntry> zoo_table() { return kZoo; }

const ZooEntry& find_zoo_entry(std::string_view name) {
  std::string known;
  for (const auto& e : kZoo) {
    if (e.name == name) return e;
    known += (known.empty() ? "" : ", ") + std::string(e.name);
  }
  throw std::invalid_argument("unknown model '" + std::string(name) + "' (known: " + known + ")");
}

namespace {

ModelInfo describe(const ZooEntry& e) {
  const Graph g = e.build();
  return {std::string(e.name), std::string(e.description), g.input(), g.classes(),
          g.parameter_elements(), g.params().size(), g.forward_flops()};
}

}  // namespace

std::vector<ModelInfo> model_zoo() {
  std::vector<ModelInfo> out;
  for (const auto& e : kZoo) out.push_back(describe(e));
  return out;
}

ModelInfo describe_model(std::string_view name) { return describe(find_zoo_entry(name)); }

std::unique_ptr<Model> make_model(std::string_view name, const ModelOptions& options) {
  const ZooEntry& e = find_zoo_entry(name);
  switch (options.compute) {
    case ComputeMode::cpu:
      return std::make_unique<CpuModel>(std::string(e.name), e.build(), options.seed);
    case ComputeMode::emulated:
      return std::make_unique<EmulatedModel>(std::string(e.name), e.build(), options);
    case ComputeMode::cuda:
      return make_cuda_model(std::string(e.name), e.build(), options);
  }
  throw std::invalid_argument("make_model: unknown compute mode");
}

}  // namespace gradsync
