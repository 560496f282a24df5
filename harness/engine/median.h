#pragma once
// The median of some values: the middle one, or the mean of the middle two
// for an even count; 0 for none. One definition for the CI gate's ratios,
// the calibration's fit errors and the cost model's validation errors.

#include <algorithm>
#include <vector>

namespace gradsync {

inline double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t m = values.size() / 2;
  return values.size() % 2 ? values[m] : (values[m - 1] + values[m]) / 2;
}

}  // namespace gradsync
