#pragma once
// Gradient compression (Horovod's Compression.fp16): a strategy may move its
// elements as 16-bit floats instead of 32-bit ones, halving the bytes on the
// wire at the cost of precision. Two 16-bit formats:
//   fp16 (IEEE binary16): 5 exponent bits, 10 mantissa bits; largest finite
//        value 65504, integers exact up to 2048;
//   bf16 (bfloat16): fp32's 8 exponent bits, 7 mantissa bits; fp32's range,
//        integers exact up to 256.
// Conversions round to nearest, ties to even; inf and nan stay inf and nan,
// fp16's subnormals are kept (no flush to zero).

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace gradsync {

enum class Compression { none, fp16, bf16 };

// "none", "fp16", "bf16".
std::string_view to_string(Compression format);
// Throws std::invalid_argument naming the choices for anything else.
Compression parse_compression(std::string_view name);
// The names parse_compression takes, in enum order.
inline constexpr std::string_view kCompressionNames[] = {"none", "fp16", "bf16"};

// Bytes per element on the wire: 4 for none (fp32), 2 otherwise.
std::size_t element_bytes(Compression format);

// One value. Inline and branch-free (every case computed, one selected), so
// that the loops over buffers here and in reduce_kernel.cc vectorize.

// a when `pick`, else b, by masks rather than a branch (which GCC does not
// vectorize in these loops).
inline std::uint32_t pick_bits(bool pick, std::uint32_t a, std::uint32_t b) {
  const std::uint32_t mask = 0u - static_cast<std::uint32_t>(pick);
  return (a & mask) | (b & ~mask);
}

// fp32 -> fp16 (F. Giesen's float_to_half_fast3_rtne): at or above 65536 (and
// so the exponent of inf and nan) the result is inf, or a quiet nan; below
// 2^-14 it is subnormal, rounded by one float addition that aligns the
// mantissa; otherwise the exponent is rebiased and 13 mantissa bits are cut,
// adding 0xfff plus the kept lowest bit first (ties to even). 65520 and above
// round to inf.
inline std::uint16_t fp32_to_fp16(float value) {
  const std::uint32_t f = std::bit_cast<std::uint32_t>(value);
  const std::uint32_t sign = (f >> 16) & 0x8000u;
  const std::uint32_t a = f & 0x7fffffffu;
  constexpr std::uint32_t kDenormMagic = (127u - 15u + 23u - 10u + 1u) << 23;
  const std::uint32_t subnormal =
      std::bit_cast<std::uint32_t>(std::bit_cast<float>(a) + std::bit_cast<float>(kDenormMagic)) -
      kDenormMagic;
  const std::uint32_t normal = (a - (112u << 23) + 0xfffu + ((a >> 13) & 1u)) >> 13;
  const std::uint32_t special = pick_bits(a > 0x7f800000u, 0x7e00u, 0x7c00u);
  const std::uint32_t out =
      pick_bits(a >= (143u << 23), special, pick_bits(a < (113u << 23), subnormal, normal));
  return static_cast<std::uint16_t>(out | sign);
}

// fp16 -> fp32, exact: the exponent is rebiased; inf and nan get fp32's top
// exponent; subnormals are made normal by one exact float subtraction.
inline float fp16_to_fp32(std::uint16_t bits) {
  const std::uint32_t h = bits;
  const std::uint32_t exponent = h & 0x7c00u;
  const std::uint32_t base = ((h & 0x7fffu) << 13) + (112u << 23);
  const std::uint32_t special = base + (112u << 23);
  const std::uint32_t subnormal = std::bit_cast<std::uint32_t>(
      std::bit_cast<float>(base + (1u << 23)) - std::bit_cast<float>(113u << 23));
  const std::uint32_t out =
      pick_bits(exponent == 0x7c00u, special, pick_bits(exponent == 0, subnormal, base));
  return std::bit_cast<float>(out | ((h & 0x8000u) << 16));
}

// fp32 -> bf16: the top 16 bits, rounded to nearest even by adding 0x7fff
// plus the kept lowest bit; a nan stays a (quiet) nan.
inline std::uint16_t fp32_to_bf16(float value) {
  const std::uint32_t f = std::bit_cast<std::uint32_t>(value);
  const std::uint32_t rounded = (f + 0x7fffu + ((f >> 16) & 1u)) >> 16;
  const std::uint32_t nan = (f >> 16) | 0x40u;
  return static_cast<std::uint16_t>(pick_bits((f & 0x7fffffffu) > 0x7f800000u, nan, rounded));
}

// bf16 -> fp32, exact.
inline float bf16_to_fp32(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

// Whole buffers of equal length, in `format` (fp16 or bf16; none throws
// std::invalid_argument). Plain loops that the compiler vectorizes.
void compress(std::span<const float> from, std::span<std::uint16_t> to, Compression format);
void decompress(std::span<const std::uint16_t> from, std::span<float> to, Compression format);

}  // namespace gradsync
