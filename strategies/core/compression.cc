// The buffer conversions are plain loops over the inline per-value ones,
// compiled per instruction set (widest_simd.h): the format
// is chosen once per call, outside the loop. Cost: 6 bytes moved per element.

#include "strategies/core/compression.h"

#include <stdexcept>

#include "strategies/core/widest_simd.h"

namespace gradsync {
namespace {

GRADSYNC_WIDEST_SIMD
void to_fp16(const float* __restrict from, std::uint16_t* __restrict to, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) to[i] = fp32_to_fp16(from[i]);
}
GRADSYNC_WIDEST_SIMD
void to_bf16(const float* __restrict from, std::uint16_t* __restrict to, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) to[i] = fp32_to_bf16(from[i]);
}
GRADSYNC_WIDEST_SIMD
void from_fp16(const std::uint16_t* __restrict from, float* __restrict to, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) to[i] = fp16_to_fp32(from[i]);
}
GRADSYNC_WIDEST_SIMD
void from_bf16(const std::uint16_t* __restrict from, float* __restrict to, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) to[i] = bf16_to_fp32(from[i]);
}

void check_lengths(std::size_t from, std::size_t to) {
  if (from != to)
    throw std::invalid_argument("compression: buffers of " + std::to_string(from) + " and " +
                                std::to_string(to) + " elements");
}

[[noreturn]] void not_16_bit() {
  throw std::invalid_argument("compression: 'none' is not a 16-bit format");
}

}  // namespace

std::string_view to_string(Compression format) { return kCompressionNames[static_cast<int>(format)]; }

Compression parse_compression(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kCompressionNames); ++i)
    if (kCompressionNames[i] == name) return static_cast<Compression>(i);
  throw std::invalid_argument("unknown compression '" + std::string(name) +
                              "' (known: none, fp16, bf16)");
}

std::size_t element_bytes(Compression format) {
  return format == Compression::none ? sizeof(float) : sizeof(std::uint16_t);
}

void compress(std::span<const float> from, std::span<std::uint16_t> to, Compression format) {
  check_lengths(from.size(), to.size());
  if (format == Compression::none) not_16_bit();
  (format == Compression::fp16 ? to_fp16 : to_bf16)(from.data(), to.data(), from.size());
}

void decompress(std::span<const std::uint16_t> from, std::span<float> to, Compression format) {
  check_lengths(from.size(), to.size());
  if (format == Compression::none) not_16_bit();
  (format == Compression::fp16 ? from_fp16 : from_bf16)(from.data(), to.data(), from.size());
}

}  // namespace gradsync
