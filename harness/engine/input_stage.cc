// The input stage's costs, one slice maker per kind:
//
// - decode: per image, the thread makes the content and then spins on
//   arithmetic until its own CPU clock (CLOCK_THREAD_CPUTIME_ID) has moved
//   decode_us since the image began. Timed on the thread's CPU clock, the
//   work takes a core for that long whatever else runs, as a real decode
//   would; preempted, it takes longer on the wall clock.
// - read: the worker's storage is one link of read_mb_per_s shared by its
//   loader threads. A slice reserves count x bytes / rate of the link's time
//   at once (from the later of now and the end of the last reservation), the
//   thread makes the content, and sleeps to the reservation's end. Reserving
//   a whole slice keeps sleep overshoot from adding up image by image.
// - jpeg: per image, libjpeg-turbo decodes its pool image into the batch.
//
// Sleeps and spins check `stop` every few milliseconds at most, so that a
// pipeline being destroyed does not wait out a long slice.

#include "harness/engine/input_stage.h"

#include <fmt/format.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "harness/engine/jpeg_images.h"
#include "models/synthetic_data.h"

namespace gradsync {
namespace {

using StageClock = std::chrono::steady_clock;

// Writes image `i` of the slice as make_synthetic_batch makes it.
void make_content(const InputRecipe& recipe, const InputSlice& slice, int i,
                  SyntheticBatch& scratch) {
  make_synthetic_batch(recipe.shape, recipe.classes, recipe.seed, std::uint64_t(slice.step),
                       recipe.first_sample + std::uint64_t(slice.first + i), 1, scratch);
  std::copy(scratch.images.begin(), scratch.images.end(),
            slice.images + std::size_t(i) * recipe.shape.elements());
  slice.labels[i] = scratch.labels[0];
}

// Arithmetic the compiler cannot drop, a few microseconds of it.
void spin_a_little() {
  static thread_local volatile double sink = 1;
  double x = sink;
  for (int k = 0; k < 2000; ++k) x = x * 1.0000001 + 1e-9;
  sink = x;
}

SliceMaker decode_stage(const InputSpec& spec, const InputRecipe& recipe) {
  const double image_s = spec.stated_image_s();
  return [image_s, recipe](const InputSlice& slice, const std::atomic<bool>& stop) {
    SyntheticBatch scratch;
    for (int i = 0; i < slice.count && !stop; ++i) {
      const double until = thread_cpu_seconds() + image_s;
      if (recipe.make_content) make_content(recipe, slice, i, scratch);
      while (thread_cpu_seconds() < until && !stop) spin_a_little();
    }
  };
}

// The worker's storage link: reservations of its time, one after another.
class ReadLink {
 public:
  StageClock::time_point reserve(double seconds) {
    std::lock_guard lock(mu_);
    free_ = std::max(free_, StageClock::now()) + std::chrono::duration_cast<StageClock::duration>(
                                                     std::chrono::duration<double>(seconds));
    return free_;
  }

 private:
  std::mutex mu_;
  StageClock::time_point free_;
};

SliceMaker read_stage(const InputSpec& spec, const InputRecipe& recipe) {
  const double image_s = spec.stated_image_s();
  auto link = std::make_shared<ReadLink>();
  return [image_s, recipe, link](const InputSlice& slice, const std::atomic<bool>& stop) {
    const auto until = link->reserve(image_s * slice.count);
    SyntheticBatch scratch;
    for (int i = 0; i < slice.count && recipe.make_content && !stop; ++i)
      make_content(recipe, slice, i, scratch);
    constexpr auto kLongestSleep = std::chrono::milliseconds(5);
    for (auto now = StageClock::now(); now < until && !stop; now = StageClock::now())
      std::this_thread::sleep_for(std::min<StageClock::duration>(until - now, kLongestSleep));
  };
}

struct JpegPool {
  std::vector<std::vector<std::uint8_t>> files;
  std::vector<int> labels;
};

// The pool's images, made and encoded a few at a time.
std::shared_ptr<const JpegPool> encode_pool(const InputRecipe& recipe, int quality) {
  auto pool = std::make_shared<JpegPool>();
  constexpr int kChunk = 16;
  SyntheticBatch chunk;
  const std::size_t n = recipe.shape.elements();
  for (int first = 0; first < kJpegPoolImages; first += kChunk) {
    make_synthetic_batch(recipe.shape, recipe.classes, recipe.seed, 0, std::uint64_t(first), kChunk,
                         chunk);
    for (int i = 0; i < kChunk; ++i) {
      pool->files.push_back(encode_jpeg(std::span<const float>(chunk.images).subspan(i * n, n),
                                        recipe.shape, quality));
      pool->labels.push_back(chunk.labels[i]);
    }
  }
  return pool;
}

SliceMaker jpeg_stage(const InputSpec& spec, const InputRecipe& recipe) {
  auto pool = encode_pool(recipe, spec.jpeg_quality);
  return [pool, recipe](const InputSlice& slice, const std::atomic<bool>& stop) {
    const std::size_t n = recipe.shape.elements();
    for (int i = 0; i < slice.count && !stop; ++i) {
      const std::uint64_t sample = std::uint64_t(slice.step) * recipe.global_batch +
                                   recipe.first_sample + std::uint64_t(slice.first + i);
      const std::size_t k = sample % pool->files.size();
      decode_jpeg(pool->files[k], recipe.shape, std::span<float>(slice.images + i * n, n));
      slice.labels[i] = pool->labels[k];
    }
  };
}

}  // namespace

double thread_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return double(now.tv_sec) + 1e-9 * double(now.tv_nsec);
}

SliceMaker make_input_stage(const InputSpec& spec, const InputRecipe& recipe) {
  switch (spec.kind) {
    case InputKind::decode:
      return decode_stage(spec, recipe);
    case InputKind::read:
      return read_stage(spec, recipe);
    case InputKind::jpeg:
      return jpeg_stage(spec, recipe);
    case InputKind::synthetic:
      break;
  }
  throw std::invalid_argument("synthetic input has no loader");
}

}  // namespace gradsync
