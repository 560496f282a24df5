// im2col lays out, for each kernel tap (c, ky, kx), the input pixels that tap
// touches at every output position, so that convolution becomes one matrix
// product W[Cout x C*kh*kw] * col[C*kh*kw x Ho*Wo]. Padding reads as zero.
// Cost: C*kh*kw*Ho*Wo copies per sample (the same memory the product reads).
// col2im is its adjoint: every entry of col is added back to the pixel it came
// from, which is what the input gradient of a convolution needs.
#include "models/im2col.h"

#include <cstring>

namespace gradsync {

void im2col(const ConvGeometry& g, const float* image, float* col) {
  const int ho = g.out_height(), wo = g.out_width();
  for (int c = 0; c < g.in_channels; ++c) {
    const float* plane = image + std::size_t(c) * g.in_height * g.in_width;
    for (int ky = 0; ky < g.kernel_h; ++ky) {
      for (int kx = 0; kx < g.kernel_w; ++kx) {
        float* row = col + ((std::size_t(c) * g.kernel_h + ky) * g.kernel_w + kx) * ho * wo;
        for (int oy = 0; oy < ho; ++oy) {
          const int iy = oy * g.stride - g.pad_h + ky;
          float* out = row + std::size_t(oy) * wo;
          if (iy < 0 || iy >= g.in_height) {
            std::memset(out, 0, sizeof(float) * wo);
            continue;
          }
          const float* in = plane + std::size_t(iy) * g.in_width;
          for (int ox = 0; ox < wo; ++ox) {
            const int ix = ox * g.stride - g.pad_w + kx;
            out[ox] = (ix >= 0 && ix < g.in_width) ? in[ix] : 0.0f;
          }
        }
      }
    }
  }
}

void col2im_add(const ConvGeometry& g, const float* col, float* image) {
  const int ho = g.out_height(), wo = g.out_width();
  for (int c = 0; c < g.in_channels; ++c) {
    float* plane = image + std::size_t(c) * g.in_height * g.in_width;
    for (int ky = 0; ky < g.kernel_h; ++ky) {
      for (int kx = 0; kx < g.kernel_w; ++kx) {
        const float* row =
            col + ((std::size_t(c) * g.kernel_h + ky) * g.kernel_w + kx) * ho * wo;
        for (int oy = 0; oy < ho; ++oy) {
          const int iy = oy * g.stride - g.pad_h + ky;
          if (iy < 0 || iy >= g.in_height) continue;
          float* out = plane + std::size_t(iy) * g.in_width;
          const float* in = row + std::size_t(oy) * wo;
          for (int ox = 0; ox < wo; ++ox) {
            const int ix = ox * g.stride - g.pad_w + kx;
            if (ix >= 0 && ix < g.in_width) out[ix] += in[ox];
          }
        }
      }
    }
  }
}

}  // namespace gradsync
