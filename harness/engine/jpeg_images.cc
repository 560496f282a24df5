// Encoding and decoding through libjpeg's classic API (jpeglib.h, which
// libjpeg-turbo implements with its SIMD codecs). libjpeg reports a fatal
// error by calling error_exit, which must not return: as libjpeg's own
// example does, it longjmps back to the setjmp in the calling C-style
// function, whose frame holds no C++ object with a destructor, and the
// message is turned into an exception there. Planar NCHW floats are
// interleaved into (and out of) one scanline buffer per image.

#include "harness/engine/jpeg_images.h"

#include <fmt/format.h>

// jpeglib.h needs FILE and size_t declared before it.
#include <jpeglib.h>

#include <algorithm>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace gradsync {
namespace {

constexpr float kJpegCentre = 128.0f;  // sample of value 0
constexpr float kJpegScale = 51.0f;    // samples per unit of value

struct JpegError {
  jpeg_error_mgr manager;  // first: libjpeg's pointer to it is a pointer to this
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

[[noreturn]] void jump_out(j_common_ptr info) {
  auto* error = reinterpret_cast<JpegError*>(info->err);
  info->err->format_message(info, error->message);
  std::longjmp(error->jump, 1);
}

// Warnings (a truncated file that still decodes) are not printed: a loader
// thread has no business writing to stderr, and a failure is an exception.
void keep_quiet(j_common_ptr) {}

J_COLOR_SPACE color_space(int channels) {
  if (channels == 3) return JCS_RGB;
  if (channels == 1) return JCS_GRAYSCALE;
  throw std::invalid_argument(
      fmt::format("jpeg input: images of {} channels (JPEG takes 1 or 3)", channels));
}

// Compresses `samples` (height rows of width x channels bytes); false with
// error.message on failure. No C++ object lives in this frame across setjmp.
bool compress(const std::uint8_t* samples, const ImageShape& shape, int quality,
              unsigned char** out, unsigned long* out_size, JpegError& error) {
  jpeg_compress_struct info;
  info.err = jpeg_std_error(&error.manager);
  error.manager.error_exit = jump_out;
  if (setjmp(error.jump)) {
    jpeg_destroy_compress(&info);
    return false;
  }
  jpeg_create_compress(&info);
  jpeg_mem_dest(&info, out, out_size);
  info.image_width = static_cast<JDIMENSION>(shape.width);
  info.image_height = static_cast<JDIMENSION>(shape.height);
  info.input_components = shape.channels;
  info.in_color_space = shape.channels == 3 ? JCS_RGB : JCS_GRAYSCALE;
  jpeg_set_defaults(&info);
  jpeg_set_quality(&info, quality, TRUE);
  // 4:4:4: the synthetic channels are independent, and chroma subsampling
  // would average their noise away (an RMS error of 0.44 at quality 90).
  for (int c = 0; c < info.num_components; ++c)
    info.comp_info[c].h_samp_factor = info.comp_info[c].v_samp_factor = 1;
  jpeg_start_compress(&info, TRUE);
  const std::size_t row = std::size_t(shape.width) * shape.channels;
  while (info.next_scanline < info.image_height) {
    JSAMPROW line = const_cast<JSAMPROW>(samples + info.next_scanline * row);
    jpeg_write_scanlines(&info, &line, 1);
  }
  jpeg_finish_compress(&info);
  jpeg_destroy_compress(&info);
  return true;
}

// Decompresses into `samples` when the image is of `shape`; false with
// error.message otherwise.
bool decompress(const std::uint8_t* jpeg, std::size_t size, const ImageShape& shape,
                std::uint8_t* samples, JpegError& error) {
  jpeg_decompress_struct info;
  info.err = jpeg_std_error(&error.manager);
  error.manager.error_exit = jump_out;
  error.manager.output_message = keep_quiet;
  if (setjmp(error.jump)) {
    jpeg_destroy_decompress(&info);
    return false;
  }
  jpeg_create_decompress(&info);
  jpeg_mem_src(&info, jpeg, static_cast<unsigned long>(size));
  jpeg_read_header(&info, TRUE);
  info.out_color_space = shape.channels == 3 ? JCS_RGB : JCS_GRAYSCALE;
  jpeg_start_decompress(&info);
  if (info.output_width != JDIMENSION(shape.width) ||
      info.output_height != JDIMENSION(shape.height) || info.output_components != shape.channels) {
    std::snprintf(error.message, sizeof error.message,
                  "a %ux%u image of %d channels, not %dx%d of %d", info.output_width,
                  info.output_height, info.output_components, shape.width, shape.height,
                  shape.channels);
    jpeg_destroy_decompress(&info);
    return false;
  }
  const std::size_t row = std::size_t(shape.width) * shape.channels;
  while (info.output_scanline < info.output_height) {
    JSAMPROW line = samples + info.output_scanline * row;
    jpeg_read_scanlines(&info, &line, 1);
  }
  jpeg_finish_decompress(&info);
  jpeg_destroy_decompress(&info);
  return true;
}

}  // namespace

std::vector<std::uint8_t> encode_jpeg(std::span<const float> image, const ImageShape& shape,
                                      int quality) {
  const int channels = shape.channels;
  (void)color_space(channels);
  const std::size_t plane = std::size_t(shape.width) * shape.height;
  std::vector<std::uint8_t> samples(plane * channels);
  for (std::size_t p = 0; p < plane; ++p)
    for (int c = 0; c < channels; ++c) {
      const float sample = std::round(kJpegCentre + kJpegScale * image[c * plane + p]);
      samples[p * channels + c] = static_cast<std::uint8_t>(std::clamp(sample, 0.0f, 255.0f));
    }
  unsigned char* out = nullptr;
  unsigned long out_size = 0;
  JpegError error;
  const bool done = compress(samples.data(), shape, quality, &out, &out_size, error);
  std::vector<std::uint8_t> bytes;
  if (done) bytes.assign(out, out + out_size);
  std::free(out);  // jpeg_mem_dest's buffer, malloc'd by libjpeg
  if (!done)
    throw std::runtime_error(fmt::format("jpeg input: encoding failed: {}", error.message));
  return bytes;
}

void decode_jpeg(std::span<const std::uint8_t> jpeg, const ImageShape& shape,
                 std::span<float> image) {
  const int channels = shape.channels;
  (void)color_space(channels);
  const std::size_t plane = std::size_t(shape.width) * shape.height;
  thread_local std::vector<std::uint8_t> samples;  // one scratch image per loader thread
  samples.resize(plane * channels);
  JpegError error;
  if (!decompress(jpeg.data(), jpeg.size(), shape, samples.data(), error))
    throw std::runtime_error(fmt::format("jpeg input: decoding failed: {}", error.message));
  for (int c = 0; c < channels; ++c)
    for (std::size_t p = 0; p < plane; ++p)
      image[c * plane + p] = (samples[p * channels + c] - kJpegCentre) / kJpegScale;
}

}  // namespace gradsync
