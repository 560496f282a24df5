#include "harness/cli/external_reference.h"

namespace gradsync {
namespace {

constexpr ExternalReference kExternalReferences[] = {
    {"ddp-gloo", "ddp-reference.py", "GRADSYNC_DDP_SCRIPT", "cpu",
     "PyTorch DistributedDataParallel over Gloo"},
    {"ddp-nccl", "ddp-reference.py", "GRADSYNC_DDP_SCRIPT", "cuda",
     "PyTorch DistributedDataParallel over NCCL"},
};

}  // namespace

const ExternalReference* find_external_reference(std::string_view name) {
  for (const auto& reference : kExternalReferences)
    if (reference.name == name) return &reference;
  return nullptr;
}

std::string external_reference_names() {
  std::string names;
  for (const auto& reference : kExternalReferences)
    names += (names.empty() ? "" : ", ") + std::string(reference.name);
  return names;
}

}  // namespace gradsync
