// Training with an input stage (TrainSettings::input): decode and read make
// the batches a synthetic run makes, so the parameters after a few steps are
// bit for bit a synthetic run's, on every rank count; each step's input wait
// is part of its time; and with jpeg input N workers of batch B train as one
// worker of batch N x B does (the equivalence of train_equivalence_test.cc,
// same tolerance), since the pool is indexed by the global sample.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "harness/engine/train.h"
#include "harness/results/input_text.h"
#include "models/model.h"
#include "strategies/registry.h"

namespace gradsync {
namespace {

TrainSettings input_settings(const std::string& input, int batch) {
  TrainSettings s;
  s.model = "small-cnn";
  s.batch_size = batch;
  s.warmup_batches = 1;
  s.batches_per_iter = 1;
  s.iters = 3;
  s.optimizer.base_lr = 0.05;
  s.optimizer.momentum = 0.9;
  s.optimizer.warmup_steps = 2;
  s.input = parse_input(input);
  s.input.threads = 2;
  s.input.prefetch = 0;  // every batch made after its step asks: each step waits
  return s;
}

struct Trained {
  std::vector<Parameter> parameters;
  TrainOutcome outcome;
};

Trained train_on(const World& world, const TrainSettings& s) {
  auto strategy = make_strategy(find_strategy("mpi-allreduce"), world, {});
  auto model = make_model(s.model, s.model_options);
  Trained t;
  t.outcome = train(*strategy, *model, s);
  t.parameters = model->parameters();
  return t;
}

TEST(TrainInput, DecodeAndReadTrainAsSyntheticDoes) {
  World world;
  const Trained synthetic = train_on(world, input_settings("synthetic", 4));
  EXPECT_FALSE(synthetic.outcome.loader.has_value());
  for (const char* input : {"decode:200us", "read:2K@10"}) {
    const Trained loaded = train_on(world, input_settings(input, 4));
    ASSERT_EQ(loaded.parameters.size(), synthetic.parameters.size());
    for (std::size_t p = 0; p < loaded.parameters.size(); ++p)
      EXPECT_EQ(loaded.parameters[p].value, synthetic.parameters[p].value) << input << " " << p;
    for (std::size_t i = 0; i < loaded.outcome.steps.size(); ++i) {
      const StepTiming& step = loaded.outcome.steps[i];
      EXPECT_EQ(step.loss, synthetic.outcome.steps[i].loss) << input << " step " << i;
      // Two threads make 2 images each after the step asks: at least 2
      // images' stated time (200 us; read: 2048 B at 10 MB/s, 205 us each).
      EXPECT_GE(step.input_wait_s, 2 * 200e-6) << input << " step " << i;
      EXPECT_GE(step.step_s, step.input_wait_s);
    }
    ASSERT_TRUE(loaded.outcome.loader.has_value());
    EXPECT_EQ(loaded.outcome.loader->batches, 3u);  // the timed steps'
  }
}

TEST(TrainInput, JpegWorkersTrainAsOneWorkerWithTheWholeBatch) {
  World world;
  constexpr int kBatch = 2;
  const Trained mine = train_on(world, input_settings("jpeg", kBatch));
  World self(MPI_COMM_SELF);
  TrainSettings whole = input_settings("jpeg", kBatch * world.size());
  whole.optimizer.workers = world.size();  // the N-worker run's schedule
  const Trained reference = train_on(self, whole);
  double worst = 0;
  for (std::size_t p = 0; p < mine.parameters.size(); ++p)
    for (std::size_t i = 0; i < mine.parameters[p].value.size(); ++i) {
      const double a = mine.parameters[p].value[i], b = reference.parameters[p].value[i];
      worst = std::max(worst, std::abs(a - b) / (1 + std::abs(b)));
    }
  EXPECT_LE(worst, 1e-5);
}

}  // namespace
}  // namespace gradsync
