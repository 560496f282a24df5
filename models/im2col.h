#pragma once
// im2col / col2im: unfold a CHW image into the matrix a convolution becomes a
// matrix product with, and fold such a matrix back (accumulating).

#include "models/tensor.h"

namespace gradsync {

struct ConvGeometry {
  int in_channels = 0, in_height = 0, in_width = 0;
  int kernel_h = 1, kernel_w = 1, stride = 1, pad_h = 0, pad_w = 0;
  int out_height() const { return (in_height + 2 * pad_h - kernel_h) / stride + 1; }
  int out_width() const { return (in_width + 2 * pad_w - kernel_w) / stride + 1; }
  int col_rows() const { return in_channels * kernel_h * kernel_w; }
  int col_cols() const { return out_height() * out_width(); }
  // A 1x1 stride-1 unpadded convolution needs no unfolding: the image is the matrix.
  bool is_pointwise() const {
    return kernel_h == 1 && kernel_w == 1 && stride == 1 && pad_h == 0 && pad_w == 0;
  }
};

// col is col_rows() x col_cols(), row-major: row (c, ky, kx), column (oy, ox).
void im2col(const ConvGeometry& g, const float* image, float* col);
// Adds col back into image (image must be initialized).
void col2im_add(const ConvGeometry& g, const float* col, float* image);

}  // namespace gradsync
