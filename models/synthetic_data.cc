#include "models/synthetic_data.h"

#include <cmath>

#include "models/splitmix.h"

namespace gradsync {
namespace {

std::uint64_t mix(std::uint64_t x) { return splitmix64(x); }

// Uniform in (0, 1) from a 64-bit value.
double unit(std::uint64_t x) { return (static_cast<double>(x >> 11) + 0.5) / 9007199254740992.0; }

constexpr float kSignal = 1.0f;  // template amplitude
constexpr float kNoise = 0.5f;   // noise standard deviation
constexpr int kBlock = 4;        // templates are constant over kBlock x kBlock pixels

std::uint64_t sample_key(std::uint64_t seed, std::uint64_t step, std::uint64_t index) {
  return mix(mix(seed ^ 0x5eed) ^ mix(step * 0x100000001b3ull + index));
}

// One sequence of `length` tokens from the successor table of `seed`.
void token_sequence(std::uint64_t seed, std::uint64_t key, int classes, int length, int* out) {
  const auto vocabulary = static_cast<std::uint64_t>(classes);
  out[0] = static_cast<int>(mix(key) % vocabulary);
  for (int t = 1; t < length; ++t) {
    const std::uint64_t draw = mix(key + 2 * std::uint64_t(t));
    const bool follows = draw % 4 != 0;  // probability 3/4
    const std::uint64_t successor = mix(seed * 0x9e37 + std::uint64_t(out[t - 1]) + 1);
    out[t] = static_cast<int>((follows ? successor : mix(draw)) % vocabulary);
  }
}

void make_token_batch(const ImageShape& shape, int classes, std::uint64_t seed, std::uint64_t step,
                      std::uint64_t first_sample, int batch, SyntheticBatch& out, Task task) {
  const int length = shape.channels;
  out.images.resize(std::size_t(batch) * length);
  out.labels.resize(std::size_t(batch) * length);
  std::vector<int> tokens(std::size_t(length) + 1);
  for (int b = 0; b < batch; ++b) {
    const std::uint64_t key = sample_key(seed, step, first_sample + b);
    token_sequence(seed, key, classes, length + 1, tokens.data());
    float* input = out.images.data() + std::size_t(b) * length;
    int* labels = out.labels.data() + std::size_t(b) * length;
    for (int t = 0; t < length; ++t) {
      input[t] = float(tokens[t]);
      labels[t] = task == Task::next_token ? tokens[t + 1] : tokens[t];
      if (task == Task::masked_token && mix(key ^ (0xa5a5 + std::uint64_t(t))) % 100 < 15)
        input[t] = 0.0f;  // masked
    }
  }
}

}  // namespace

void make_synthetic_batch(const ImageShape& shape, int classes, std::uint64_t seed,
                          std::uint64_t step, std::uint64_t first_sample, int batch,
                          SyntheticBatch& out, Task task) {
  if (task != Task::classify)
    return make_token_batch(shape, classes, seed, step, first_sample, batch, out, task);
  const std::size_t n = shape.elements();
  out.images.resize(static_cast<std::size_t>(batch) * n);
  out.labels.resize(batch);
  for (int b = 0; b < batch; ++b) {
    const std::uint64_t sample = sample_key(seed, step, first_sample + b);
    const int label = static_cast<int>(mix(sample) % static_cast<std::uint64_t>(classes));
    out.labels[b] = label;
    const std::uint64_t class_key = mix(seed * 31 + static_cast<std::uint64_t>(label) + 1);
    float* image = out.images.data() + static_cast<std::size_t>(b) * n;
    for (std::size_t i = 0; i < n; ++i) {
      // Template in [-1, 1) per (class, channel, block of pixels): coarse
      // enough for small convolutions to pick up; noise by Box-Muller.
      const std::size_t x = i % shape.width, y = i / shape.width % shape.height;
      const std::size_t c = i / (std::size_t(shape.width) * shape.height);
      const std::size_t cell = (c * shape.height + y / kBlock) * shape.width + x / kBlock;
      const float pattern = static_cast<float>(2.0 * unit(mix(class_key + cell)) - 1.0);
      const double u1 = unit(mix(sample + 2 * i)), u2 = unit(mix(sample + 2 * i + 1));
      const float noise = static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
      image[i] = kSignal * pattern + kNoise * noise;
    }
  }
}

}  // namespace gradsync
