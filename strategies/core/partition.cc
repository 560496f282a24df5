#include "strategies/core/partition.h"

#include <stdexcept>

namespace gradsync {

Range even_part(std::size_t count, std::size_t parts, std::size_t index) {
  if (parts == 0 || index >= parts) throw std::invalid_argument("even_part: index out of range");
  const std::size_t base = count / parts;
  const std::size_t extra = count % parts;
  const std::size_t offset = index * base + (index < extra ? index : extra);
  return {offset, base + (index < extra ? 1 : 0)};
}

std::vector<Range> split_even(std::size_t count, std::size_t parts) {
  std::vector<Range> out;
  out.reserve(parts);
  for (std::size_t i = 0; i < parts; ++i) out.push_back(even_part(count, parts, i));
  return out;
}

std::vector<Range> split_by_max(std::size_t count, std::size_t max_count) {
  if (max_count == 0) throw std::invalid_argument("split_by_max: max_count must be positive");
  std::vector<Range> out;
  for (std::size_t offset = 0; offset < count; offset += max_count)
    out.push_back({offset, count - offset < max_count ? count - offset : max_count});
  return out;
}

std::size_t segment_elements(std::size_t segment_bytes) {
  const std::size_t elements = segment_bytes / sizeof(float);
  if (elements == 0) throw std::invalid_argument("segment size must be at least 4 bytes (one float)");
  if (elements > (1u << 30)) throw std::invalid_argument("segment size must be at most 4G");
  return elements;
}

}  // namespace gradsync
