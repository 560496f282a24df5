#pragma once
// Cutting a buffer of `count` elements into contiguous ranges: into a given
// number of near-equal parts (ring chunks, parameter-server key ranges), or
// into pieces of bounded size (pipeline segments, wire partitions).

#include <cstddef>
#include <vector>

namespace gradsync {

struct Range {
  std::size_t offset = 0;
  std::size_t count = 0;
  bool operator==(const Range&) const = default;
};

// Part `index` of `parts` near-equal parts: sizes differ by at most one, the
// first count % parts parts are the larger ones. Parts may be empty.
Range even_part(std::size_t count, std::size_t parts, std::size_t index);

// All `parts` parts of even_part, in order.
std::vector<Range> split_even(std::size_t count, std::size_t parts);

// Pieces of at most `max_count` elements (max_count > 0), in order; none for
// count 0.
std::vector<Range> split_by_max(std::size_t count, std::size_t max_count);

// Segment length in elements for a segment size in bytes, counted in floats
// (a 16-bit element's segment holds as many elements): at least one element,
// at most 1G; throws std::invalid_argument otherwise.
std::size_t segment_elements(std::size_t segment_bytes);

}  // namespace gradsync
