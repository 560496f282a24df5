// Device profiles for emulated compute. Each figure is a published
// single-GPU ResNet-50 v1.5 training throughput (img/s, mixed precision)
// turned into sustained FLOP/s as img/s x 3 x ResNet-50's forward FLOPs per
// sample as this zoo counts them (8.18 GFLOP; backward = 2 x forward). So
// ResNet-50 emulated on a profile runs at exactly the published rate, and
// other models run at the same FLOP/s (an approximation: real GPUs reach
// different efficiencies on different layers).
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
};

constexpr PublishedRate kRates[] = {
    {"v100", 1200,
     "NVIDIA DeepLearningExamples, PyTorch ResNet50 v1.5 README, training performance on "
     "DGX-1 (V100 16GB), 1 GPU, mixed precision: 1200 img/s"},
    {"a100", 2470,
     "NVIDIA DeepLearningExamples, PyTorch ResNet50 v1.5 README, training performance on "
     "DGX A100 (A100 80GB), 1 GPU, mixed precision: 2470 img/s"},
    {"h100", 3700,
     "an assumption, not a published single-GPU figure: the A100 rate above (2470 img/s) x "
     "1.5 for an H100 SXM; pass a measured rate with emulate_img_per_sec to replace it"},
};

}  // namespace

std::vector<DeviceProfile> device_profiles() {
  const double resnet50_flops = build_resnet50().forward_flops();
  std::vector<DeviceProfile> out;
  for (const auto& r : kRates)
    out.push_back({r.name, r.resnet50_img_per_sec * 3.0 * resnet50_flops,
                   fmt::format("{:.0f} img/s ResNet-50 training x 3 x {:.2f} GFLOP forward = "
                               "{:.1f} TFLOP/s; {}",
                               r.resnet50_img_per_sec, resnet50_flops / 1e9,
                               r.resnet50_img_per_sec * 3.0 * resnet50_flops / 1e12, r.source)});
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
