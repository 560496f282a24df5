#pragma once
// GRADSYNC_WIDEST_SIMD before a function of plain loops compiles it once per
// instruction set (AVX-512, AVX2 and the x86-64 baseline) and lets the loader
// pick the widest one the CPU has, so that the same binary runs everywhere
// and still uses the wide units where present. Under TSan the function is
// compiled once: the loader runs the clones' resolver before TSan's runtime
// is up, and GCC instruments the resolver, so the program crashed before main.

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
#define GRADSYNC_WIDEST_SIMD [[gnu::target_clones("avx512f", "avx2", "default")]]
#else
#define GRADSYNC_WIDEST_SIMD
#endif
