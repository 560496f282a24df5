#pragma once
// The element-wise reduction every CPU strategy runs on received data.

#include <cstddef>

namespace gradsync {

// dst[i] += src[i] for i < n. The buffers must not overlap.
void sum_into(float* dst, const float* src, std::size_t n);

}  // namespace gradsync
