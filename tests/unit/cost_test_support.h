#pragma once
// Shared by the tests of the strategies' cost counts (strategies/core/cost.h)
// and of the cost model: sizes, and one assertion on the four counts of a
// CostTerms (calls, messages, bytes, reduced) that prints both sides when
// they differ; the contended bytes are checked where a test says so.

#include <fmt/core.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "strategies/core/cost.h"

namespace gradsync {

inline constexpr double KiB = 1024;
inline constexpr double MiB = 1024 * KiB;

inline std::string describe(const CostTerms& t) {
  return fmt::format("{{calls {}, messages {}, bytes {}, reduced {}}}", t.calls, t.messages,
                     t.bytes, t.reduced);
}

// Equal to a relative 1e-12 (the counts are sums of whole numbers and a few
// exact fractions, so only the last bits of a double may differ).
inline ::testing::AssertionResult same_terms(const CostTerms& got, const CostTerms& want) {
  auto same = [](double a, double b) {
    return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b));
  };
  if (same(got.calls, want.calls) && same(got.messages, want.messages) &&
      same(got.bytes, want.bytes) && same(got.reduced, want.reduced))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << describe(got) << ", want " << describe(want);
}

}  // namespace gradsync
