#include "harness/engine/fusion_plan.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace gradsync {

FusionRule::FusionRule(double fusion_mb) {
  if (!std::isfinite(fusion_mb) || fusion_mb < 0)
    throw std::invalid_argument("fusion size must be a finite number of MiB >= 0, got " +
                                std::to_string(fusion_mb));
  threshold_bytes_ = static_cast<std::size_t>(std::llround(fusion_mb * 1024.0 * 1024.0));
}

std::vector<std::vector<std::size_t>> plan_buckets(std::span<const std::size_t> order,
                                                   std::span<const std::size_t> bytes,
                                                   const FusionRule& rule) {
  std::vector<std::vector<std::size_t>> buckets;
  std::vector<std::size_t> open;
  std::size_t open_bytes = 0;
  auto close = [&] {
    buckets.push_back(std::move(open));
    open.clear();
    open_bytes = 0;
  };
  for (std::size_t index : order) {
    const std::size_t b = bytes[index];
    if (rule.alone(b)) {
      if (!open.empty()) close();
      open.push_back(index);
      close();
      continue;
    }
    open.push_back(index);
    open_bytes += b;
    if (rule.full(open_bytes)) close();
  }
  if (!open.empty()) close();
  return buckets;
}

}  // namespace gradsync
