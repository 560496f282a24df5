#pragma once
// The element-wise reductions the CPU strategies run on received data: on
// floats, and on 16-bit elements of a compressed format (compression.h).

#include <cstddef>
#include <cstdint>

#include "strategies/core/compression.h"

namespace gradsync {

// dst[i] += src[i] for i < n. The buffers must not overlap.
void sum_into(float* dst, const float* src, std::size_t n);

// dst[i] = round(float(dst[i]) + float(src[i])) in `format` (fp16 or bf16):
// each addition in fp32, its result rounded back to 16 bits.
void sum_into(std::uint16_t* dst, const std::uint16_t* src, std::size_t n, Compression format);

// dst[i] += float(src[i]) in `format`: a 16-bit addend summed in fp32 (the
// parameter server's shards).
void add_widened(float* dst, const std::uint16_t* src, std::size_t n, Compression format);

// How a strategy sums a received segment into its own, for either element
// type it moves: floats as floats, 16-bit elements in `format`. Algorithms
// written once over the element type call it.
struct ElementSum {
  Compression format = Compression::none;
  void operator()(float* dst, const float* src, std::size_t n) const { sum_into(dst, src, n); }
  void operator()(std::uint16_t* dst, const std::uint16_t* src, std::size_t n) const {
    sum_into(dst, src, n, format);
  }
};

}  // namespace gradsync
