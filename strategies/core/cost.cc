#include "strategies/core/cost.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "strategies/core/partition.h"

namespace gradsync {

CostTerms& CostTerms::operator+=(const CostTerms& other) {
  calls += other.calls;
  messages += other.messages;
  bytes += other.bytes;
  reduced += other.reduced;
  contended += other.contended;
  return *this;
}

CostTerms operator+(CostTerms a, const CostTerms& b) { return a += b; }

CostTerms CostTerms::with_bytes_scaled(double factor) const {
  CostTerms out = *this;
  out.bytes *= factor;
  out.reduced *= factor;
  out.contended *= factor;
  return out;
}

std::uint64_t buffer_floats(double bytes, const char* function) {
  if (!std::isfinite(bytes) || bytes < 0)
    throw std::invalid_argument(fmt::format(
        "{}: the buffer size must be a finite number of bytes >= 0 (got {})", function, bytes));
  return static_cast<std::uint64_t>(std::ceil(bytes / kFloatBytes));
}

void require_positive_count(int value, const char* function, const char* what) {
  if (value < 1)
    throw std::invalid_argument(
        fmt::format("{}: {} must be at least 1 (got {})", function, what, value));
}

std::uint64_t segment_floats(double segment_bytes, const char* function) {
  if (!std::isfinite(segment_bytes) || segment_bytes < 0)
    throw std::invalid_argument(fmt::format(
        "{}: the segment size must be a finite number of bytes (got {})", function, segment_bytes));
  try {
    return segment_elements(static_cast<std::size_t>(std::min(segment_bytes, 1e18)));
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(
        fmt::format("{}: {} (got {} bytes)", function, e.what(), segment_bytes));
  }
}

}  // namespace gradsync
