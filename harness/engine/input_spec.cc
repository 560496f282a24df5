#include "harness/engine/input_spec.h"

#include <fmt/format.h>

#include <stdexcept>

#include "strategies/core/thread_start.h"

namespace gradsync {

double InputSpec::stated_image_s() const {
  switch (kind) {
    case InputKind::decode:
      return decode_us * 1e-6;
    case InputKind::read:
      return image_bytes / (read_mb_per_s * 1e6);
    case InputKind::synthetic:
    case InputKind::jpeg:
      return 0;
  }
  return 0;
}

void check_input(const InputSpec& spec) {
  if (spec.threads < 1 || spec.threads > kMaxThreadsPerOption)
    throw std::invalid_argument(
        fmt::format("--input-threads {}: from 1 to {}", spec.threads, kMaxThreadsPerOption));
  if (spec.prefetch < 0 || spec.prefetch > 64)
    throw std::invalid_argument(fmt::format("--input-prefetch {}: from 0 to 64", spec.prefetch));
}

}  // namespace gradsync
