// sum_into is a plain loop over restrict pointers, which the compiler turns
// into SIMD code. It is compiled once per instruction set (AVX-512, AVX2 and
// the x86-64 baseline) and the loader picks the widest one the CPU has, so the
// same binary runs everywhere and still uses the wide units where present.
// Its cost is memory bandwidth: 12 bytes moved per element. Under TSan it is
// compiled once: the loader runs the clones' resolver before TSan's runtime is
// up, and GCC instruments the resolver, so the program crashed before main.

#include "strategies/reduce_kernel.h"

namespace gradsync {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
[[gnu::target_clones("avx512f", "avx2", "default")]]
#endif
void sum_into(float* __restrict dst, const float* __restrict src, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) dst[i] += src[i];
}

}  // namespace gradsync
