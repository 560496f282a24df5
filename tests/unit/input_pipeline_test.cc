// The input stage's loader (harness/engine/input_pipeline.h) and its slice
// makers (input_stage.h, jpeg_images.h): batches in step order with
// make_synthetic_batch's content, the prefetch bound, errors and timeouts
// that reach the step, destruction that joins, decode's CPU cost, and the
// JPEG round trip.
#include "harness/engine/input_pipeline.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <thread>

#include "harness/engine/input_stage.h"
#include "harness/engine/jpeg_images.h"
#include "harness/results/input_text.h"
#include "models/synthetic_data.h"

namespace gradsync {
namespace {

const ImageShape kShape{3, 16, 16};
constexpr int kClasses = 10;
constexpr std::uint64_t kSeed = 7;

InputRecipe recipe(std::uint64_t first_sample = 0, std::uint64_t global_batch = 1) {
  return {.shape = kShape,
          .classes = kClasses,
          .seed = kSeed,
          .first_sample = first_sample,
          .global_batch = global_batch};
}

// A maker that writes the step into every label, after `work` of sleep.
SliceMaker step_labels(std::chrono::microseconds work = {}) {
  return [work](const InputSlice& slice, const std::atomic<bool>&) {
    std::this_thread::sleep_for(work);
    for (int i = 0; i < slice.count; ++i) slice.labels[i] = slice.step;
  };
}

// Waits (up to 10 s) until `done` holds; false if it never did.
template <typename Done>
bool eventually(Done done) {
  for (int i = 0; i < 10000 && !done(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return done();
}

class InputBatches : public ::testing::TestWithParam<const char*> {};

// decode and read: the batch of step s on a worker whose samples start at 10
// is make_synthetic_batch's, whichever thread made which image.
TEST_P(InputBatches, EqualSyntheticBatches) {
  InputSpec spec = parse_input(GetParam());
  constexpr int kBatch = 5, kSteps = 6;
  InputPipeline input(make_input_stage(spec, recipe(10, 20)), kShape.elements(), kBatch,
                      {.threads = 3, .prefetch = 2, .steps = kSteps});
  for (int step = 0; step < kSteps; ++step) {
    SyntheticBatch expected;
    make_synthetic_batch(kShape, kClasses, kSeed, step, 10, kBatch, expected);
    const SyntheticBatch& got = input.take(step);
    EXPECT_EQ(got.images, expected.images) << "step " << step;
    EXPECT_EQ(got.labels, expected.labels) << "step " << step;
  }
}

INSTANTIATE_TEST_SUITE_P(DecodeAndRead, InputBatches,
                         ::testing::Values("decode:50us", "read:1000@100"),
                         [](const auto& info) { return info.index == 0 ? "decode" : "read"; });

TEST(InputPipeline, BatchesComeInStepOrderFromEveryThread) {
  constexpr int kSteps = 40;
  InputPipeline input(step_labels(std::chrono::microseconds(100)), 1, 7,
                      {.threads = 4, .prefetch = 3, .steps = kSteps});
  for (int step = 0; step < kSteps; ++step)
    for (int label : input.take(step).labels) ASSERT_EQ(label, step);
  EXPECT_THROW(input.take(kSteps), std::logic_error);
}

TEST(InputPipeline, StepsAreTakenInOrder) {
  InputPipeline input(step_labels(), 1, 2, {.steps = 3});
  EXPECT_THROW(input.take(1), std::logic_error);
}

class InputPrefetch : public ::testing::TestWithParam<int> {};

// The loader never starts a batch more than `prefetch` ahead of the one the
// step asked for last, and does fill the queue up to there.
TEST_P(InputPrefetch, NeverMoreThanPrefetchBatchesAhead) {
  const int prefetch = GetParam();
  std::atomic<int> asked{0}, too_far{0}, made{0};
  SliceMaker maker = [&](const InputSlice& slice, const std::atomic<bool>&) {
    if (slice.step >= asked + prefetch) ++too_far;
    if (slice.first == 0) ++made;  // thread 0's slice: once per batch
  };
  InputPipeline input(maker, 1, 4, {.threads = 2, .prefetch = prefetch, .steps = 20});
  for (int step = 0; step < 6; ++step) {
    asked = step + 1;
    input.take(step);
    // Batches 0 .. step + prefetch get made, and no more.
    ASSERT_TRUE(eventually([&] { return made == step + 1 + prefetch; }))
        << made << " made after taking step " << step;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_EQ(made, step + 1 + prefetch);
  }
  EXPECT_EQ(too_far, 0);
}

INSTANTIATE_TEST_SUITE_P(Depths, InputPrefetch, ::testing::Values(0, 1, 3));

// With prefetch 0 every batch is made after the step asks, so taking it
// blocks at least as long as one slice takes; the stats count what was made
// from the first counted step on.
TEST(InputPipeline, WaitAndLoaderTimeAreAccounted) {
  constexpr auto kSlice = std::chrono::milliseconds(20);
  constexpr int kSteps = 4, kBatch = 6;
  InputPipeline input(step_labels(kSlice), 1, kBatch,
                      {.threads = 2, .prefetch = 0, .steps = kSteps, .first_counted_step = 1});
  for (int step = 0; step < kSteps; ++step) {
    const auto start = std::chrono::steady_clock::now();
    input.take(step);
    EXPECT_GE(std::chrono::steady_clock::now() - start, kSlice) << "step " << step;
  }
  const LoaderStats stats = input.stats();
  EXPECT_EQ(stats.batches, kSteps - 1);
  EXPECT_EQ(stats.images, std::uint64_t(kSteps - 1) * kBatch);
  const double slice_s = std::chrono::duration<double>(kSlice).count();
  EXPECT_GE(stats.seconds_per_batch, slice_s);
  // Each thread's slice of 3 images took at least kSlice.
  EXPECT_GE(stats.seconds_per_image, slice_s / 3);
}

TEST(InputPipeline, LoaderErrorReachesTheStep) {
  SliceMaker maker = [](const InputSlice& slice, const std::atomic<bool>&) {
    if (slice.step == 2) throw std::runtime_error("corrupt image");
  };
  InputPipeline input(maker, 1, 4, {.threads = 2, .prefetch = 0, .steps = 5});
  input.take(0);
  input.take(1);
  try {
    input.take(2);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("batch 2: corrupt image"), std::string::npos) << e.what();
  }
}

TEST(InputPipeline, LoaderThatNeverDeliversTimesOut) {
  SliceMaker stuck = [](const InputSlice&, const std::atomic<bool>& stop) {
    while (!stop) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  };
  InputPipeline input(stuck, 1, 2, {.steps = 3, .timeout_s = 0.1});
  try {
    input.take(0);
    FAIL() << "no timeout";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("--timeout"), std::string::npos) << e.what();
  }
}

// Destroyed while its threads sleep in a read far from done, or wait for a
// step that never asks, the pipeline stops and joins them (a hang here is
// the test's timeout).
TEST(InputPipeline, DestructionMidRunJoins) {
  for (int taken : {0, 1}) {
    InputSpec slow = parse_input("read:1M@0.01");  // 100 s per image
    slow.threads = 3;
    InputPipeline input(make_input_stage(slow, recipe()), kShape.elements(), 4,
                        {.threads = 3, .prefetch = 2, .steps = 10});
    InputPipeline waiting(step_labels(), 1, 4, {.threads = 2, .prefetch = 1, .steps = 10});
    for (int step = 0; step < taken; ++step) waiting.take(step);
  }
}

// decode's busy work runs on the calling thread's CPU clock: making 4
// images of decode:2ms takes at least 8 ms of the thread's CPU time, and at
// most 50% + 2 ms more (the last spin past the mark, the clock reads).
TEST(InputStage, DecodeTakesItsTimeOfThreadCpu) {
  InputRecipe no_content = recipe();
  no_content.make_content = false;
  const SliceMaker decode = make_input_stage(parse_input("decode:2ms"), no_content);
  std::vector<float> images(4 * kShape.elements());
  std::vector<int> labels(4);
  const std::atomic<bool> stop{false};
  const double before = thread_cpu_seconds();
  decode({.step = 0, .first = 0, .count = 4, .images = images.data(), .labels = labels.data()},
         stop);
  const double used = thread_cpu_seconds() - before;
  EXPECT_GE(used, 4 * 2e-3);
  EXPECT_LE(used, 4 * 2e-3 * 1.5 + 2e-3);
}

double rms(std::span<const float> a, std::span<const float> b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += double(a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(sum / double(a.size()));
}

// A synthetic image through JPEG at quality 90 and back: within 0.25 RMS of
// the original (measured 0.16, against the pixel noise's standard deviation
// of 0.5, which is what JPEG's quantization loses; the template, constant
// over 4x4 blocks, survives), and closer at 100 than at 50.
TEST(JpegImages, RoundTripStaysNearTheOriginal) {
  SyntheticBatch original;
  make_synthetic_batch(kShape, kClasses, kSeed, 0, 0, 1, original);
  std::vector<float> back(kShape.elements());
  std::vector<double> errors;
  for (int quality : {50, 90, 100}) {
    decode_jpeg(encode_jpeg(original.images, kShape, quality), kShape, back);
    errors.push_back(rms(back, original.images));
  }
  EXPECT_LE(errors[1], 0.25);
  EXPECT_LT(errors[2], errors[0]);
  EXPECT_GT(errors[0], 0);  // lossy: the decode is not a copy of the original
}

TEST(JpegImages, RefusesWhatIsNotAJpegOfTheShape) {
  SyntheticBatch image;
  make_synthetic_batch(kShape, kClasses, kSeed, 0, 0, 1, image);
  std::vector<std::uint8_t> jpeg = encode_jpeg(image.images, kShape, 90);
  std::vector<float> out(kShape.elements());
  EXPECT_THROW(decode_jpeg(jpeg, {3, 16, 8}, out), std::runtime_error);
  jpeg.resize(20);
  EXPECT_THROW(decode_jpeg(jpeg, kShape, out), std::runtime_error);
  EXPECT_THROW(encode_jpeg(std::vector<float>(2 * 16 * 16), {2, 16, 16}, 90),
               std::invalid_argument);
}

// jpeg: two workers of batch 3 see, step by step, what one worker of batch 6
// sees (the pool is indexed by the global sample), and the pool's labels.
TEST(InputStage, JpegWorkersSeeTheGlobalBatch) {
  const InputSpec jpeg = parse_input("jpeg");
  constexpr int kSteps = 3;
  InputPipeline whole(make_input_stage(jpeg, recipe(0, 6)), kShape.elements(), 6,
                      {.threads = 2, .steps = kSteps});
  InputPipeline first(make_input_stage(jpeg, recipe(0, 6)), kShape.elements(), 3,
                      {.steps = kSteps});
  InputPipeline second(make_input_stage(jpeg, recipe(3, 6)), kShape.elements(), 3,
                       {.steps = kSteps});
  const std::size_t half = 3 * kShape.elements();
  for (int step = 0; step < kSteps; ++step) {
    const SyntheticBatch& all = whole.take(step);
    const SyntheticBatch& a = first.take(step);
    const SyntheticBatch& b = second.take(step);
    EXPECT_TRUE(std::equal(a.images.begin(), a.images.end(), all.images.begin()));
    EXPECT_TRUE(std::equal(b.images.begin(), b.images.end(), all.images.begin() + half));
    EXPECT_EQ(std::vector<int>(all.labels.begin(), all.labels.begin() + 3), a.labels);
    EXPECT_EQ(std::vector<int>(all.labels.begin() + 3, all.labels.end()), b.labels);
  }
  // Step 1's first image is pool image 6: synthetic sample 6 of step 0.
  SyntheticBatch pool_image;
  make_synthetic_batch(kShape, kClasses, kSeed, 0, 6, 1, pool_image);
  InputPipeline again(make_input_stage(jpeg, recipe(0, 6)), kShape.elements(), 6, {.steps = 2});
  again.take(0);
  const SyntheticBatch& step1 = again.take(1);
  EXPECT_EQ(step1.labels[0], pool_image.labels[0]);
  EXPECT_LE(rms(std::span(step1.images).first(kShape.elements()), pool_image.images), 0.25);
}

TEST(InputStage, SyntheticHasNoLoader) {
  EXPECT_THROW(make_input_stage(InputSpec{}, recipe()), std::invalid_argument);
}

}  // namespace
}  // namespace gradsync
