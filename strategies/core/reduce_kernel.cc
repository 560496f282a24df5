// The reductions are plain loops over restrict pointers, which the compiler
// turns into SIMD code, compiled per instruction set (widest_simd.h). Their
// cost is memory bandwidth: 12 bytes moved per float element, 6 per 16-bit
// one (plus the conversions' arithmetic, vectorized too). The 16-bit format
// is chosen once per call, outside the loop.

#include "strategies/core/reduce_kernel.h"

#include <stdexcept>

#include "strategies/core/engine.h"
#include "strategies/core/widest_simd.h"

namespace gradsync {
namespace {

GRADSYNC_WIDEST_SIMD
void sum_fp16(std::uint16_t* __restrict dst, const std::uint16_t* __restrict src, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) dst[i] = fp32_to_fp16(fp16_to_fp32(dst[i]) + fp16_to_fp32(src[i]));
}

GRADSYNC_WIDEST_SIMD
void sum_bf16(std::uint16_t* __restrict dst, const std::uint16_t* __restrict src, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) dst[i] = fp32_to_bf16(bf16_to_fp32(dst[i]) + bf16_to_fp32(src[i]));
}

GRADSYNC_WIDEST_SIMD
void add_fp16(float* __restrict dst, const std::uint16_t* __restrict src, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) dst[i] += fp16_to_fp32(src[i]);
}

GRADSYNC_WIDEST_SIMD
void add_bf16(float* __restrict dst, const std::uint16_t* __restrict src, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) dst[i] += bf16_to_fp32(src[i]);
}

void check_16_bit(Compression format) {
  if (format == Compression::none)
    throw std::invalid_argument("reduce: 'none' is not a 16-bit format");
}

}  // namespace

GRADSYNC_WIDEST_SIMD
void sum_into(float* __restrict dst, const float* __restrict src, std::size_t n) {
  if (!engine_sum(n * sizeof(float))) return;  // costed, on a simulated engine
  for (std::size_t i = 0; i < n; ++i) dst[i] += src[i];
}

void sum_into(std::uint16_t* dst, const std::uint16_t* src, std::size_t n, Compression format) {
  check_16_bit(format);
  if (!engine_sum(n * sizeof(std::uint16_t))) return;
  (format == Compression::fp16 ? sum_fp16 : sum_bf16)(dst, src, n);
}

void add_widened(float* dst, const std::uint16_t* src, std::size_t n, Compression format) {
  check_16_bit(format);
  if (!engine_sum(n * sizeof(float))) return;
  (format == Compression::fp16 ? add_fp16 : add_bf16)(dst, src, n);
}

}  // namespace gradsync
