#pragma once
// The suite's synthetic images as JPEG files in memory, for `train --input
// jpeg[:Q]`: a real decode with libjpeg-turbo on the loader threads, of images
// whose content is known. An image (a float NCHW plane per channel, 1 or 3
// channels) becomes 8-bit samples through one fixed affine map, sample =
// 128 + 51 x value rounded and clamped to 0..255 (the synthetic values, a
// template in [-1, 1) plus noise of standard deviation 0.5, lie within
// +-2.5 but for a few in a million), and back as value = (sample - 128) / 51.
// A round trip therefore differs from the original by JPEG's loss plus at
// most 1/102 of rounding (more where a value was clamped).

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "models/model.h"

namespace gradsync {

// One image as a JPEG file's bytes: RGB for 3 channels, grayscale for 1, at
// `quality` (1..100). Throws std::invalid_argument for another channel count
// and std::runtime_error when libjpeg fails.
std::vector<std::uint8_t> encode_jpeg(std::span<const float> image, const ImageShape& shape,
                                      int quality);

// Decodes `jpeg` into `image` (shape.elements() floats, NCHW), through the
// inverse of the map above. Throws std::runtime_error, one line, when the
// bytes are not a JPEG of exactly this shape.
void decode_jpeg(std::span<const std::uint8_t> jpeg, const ImageShape& shape,
                 std::span<float> image);

}  // namespace gradsync
