// The timeline's collector (harness/engine/timeline.h): the steps a window
// covers, collecting from two threads, the text form ranks exchange; and the
// models' per-layer trace events (cpu and emulated). The Chrome trace file is
// tests/unit/chrome_trace_test.cc; the synchronizer's bucket events and the
// whole multi-rank trace are checked by tests/cli/timeline.sh.
#include "harness/engine/timeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

#include "models/model.h"
#include "models/synthetic_data.h"

namespace gradsync {
namespace {

using namespace std::chrono_literals;

TEST(TimelineWindow, CoversItsStepsOnly) {
  const TimelineWindow all;
  EXPECT_TRUE(all.covers(0));
  EXPECT_TRUE(all.covers(1000));
  const TimelineWindow some{.first_step = 3, .steps = 2};
  EXPECT_FALSE(some.covers(2));
  EXPECT_TRUE(some.covers(3));
  EXPECT_TRUE(some.covers(4));
  EXPECT_FALSE(some.covers(5));
}

TEST(Timeline, TimesAreNanosecondsSinceStart) {
  Timeline timeline;
  timeline.start();
  const auto now = TraceClock::now();
  timeline.event("x", "c", now + 1ms, now + 3ms, 1);
  const auto events = timeline.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_GE(events[0].start_ns, 1'000'000);
  EXPECT_LT(events[0].start_ns, 500'000'000);  // origin is "now", give or take scheduling
  EXPECT_EQ(events[0].end_ns - events[0].start_ns, 2'000'000);
  EXPECT_EQ(events[0].thread, 1);
  EXPECT_EQ(events[0].name, "x");
  EXPECT_EQ(events[0].category, "c");
}

TEST(Timeline, TwoThreadsEmittingAtOnceLoseNothing) {
  Timeline timeline({}, 16);
  timeline.start();
  auto emit = [&](int thread) {
    for (int i = 0; i < 20000; ++i) {
      const auto t = TraceClock::now();
      timeline.event("e", "c", t, t, thread);
    }
  };
  std::thread other(emit, 1);
  emit(0);
  other.join();
  const auto events = timeline.events();
  ASSERT_EQ(events.size(), 40000u);
  EXPECT_EQ(std::count_if(events.begin(), events.end(), [](auto& e) { return e.thread == 1; }),
            20000);
}

TEST(Timeline, SerializedEventsParseBack) {
  Timeline timeline;
  const auto t = TraceClock::now();
  timeline.start();
  timeline.event("allreduce bucket 3 (1024 bytes)", "allreduce", t + 5us, t + 7us, 1);
  timeline.event("a\tname\nwith breaks", "", t, t + 1us, 0);
  const auto parsed = parse_events(timeline.serialize());
  const auto original = timeline.events();
  ASSERT_EQ(parsed.size(), 2u);
  EXPECT_EQ(parsed[0].name, "allreduce bucket 3 (1024 bytes)");
  EXPECT_EQ(parsed[0].category, "allreduce");
  EXPECT_EQ(parsed[0].start_ns, original[0].start_ns);
  EXPECT_EQ(parsed[0].end_ns, original[0].end_ns);
  EXPECT_EQ(parsed[0].thread, 1);
  EXPECT_EQ(parsed[1].name, "a name with breaks");
  EXPECT_EQ(parsed[1].category, "");
}

TEST(Timeline, MalformedLinesAreRejected) {
  EXPECT_THROW(parse_events("0 1 2 cat name without a tab\n"), std::runtime_error);
  EXPECT_THROW(parse_events("x 1 2 cat\tname\n"), std::runtime_error);
  EXPECT_THROW(parse_events("0 1\tname\n"), std::runtime_error);
  EXPECT_TRUE(parse_events("").empty());
}

// A model's layer events: one forward and one backward per layer on thread 0,
// and none once the sink is taken away.
struct Recorder : TraceSink {
  std::vector<TraceEvent> events;
  TraceClock::time_point origin = TraceClock::now();
  void event(std::string_view name, std::string_view category, TraceClock::time_point start,
             TraceClock::time_point end, int thread) override {
    events.push_back({std::string(name), std::string(category), (start - origin).count(),
                      (end - origin).count(), thread});
  }
  std::size_t count(std::string_view category) const {
    return std::count_if(events.begin(), events.end(),
                         [&](const TraceEvent& e) { return e.category == category; });
  }
};

void one_step(Model& model, int batch) {
  SyntheticBatch data;
  make_synthetic_batch(model.input_shape(), model.classes(), 1, 0, 0, batch, data);
  model.forward(data.images, data.labels, batch);
  model.backward([](std::size_t) {});
}

TEST(ModelTrace, CpuModelReportsEveryLayerForwardAndBackward) {
  auto model = make_model("small-cnn", ModelOptions{});
  Recorder recorder;
  model->set_trace(&recorder);
  one_step(*model, 2);
  const std::size_t layers = recorder.count("forward");
  EXPECT_GT(layers, 3u);
  EXPECT_EQ(recorder.count("backward"), layers);
  for (const auto& e : recorder.events) {
    EXPECT_EQ(e.thread, 0);
    EXPECT_LE(e.start_ns, e.end_ns);
    EXPECT_EQ(e.name.rfind(e.category + " ", 0), 0u) << e.name;  // "forward conv1", ...
  }
  model->set_trace(nullptr);
  recorder.events.clear();
  one_step(*model, 2);
  EXPECT_TRUE(recorder.events.empty());
}

TEST(ModelTrace, EmulatedLayersLastTheirFlopsOverTheRate) {
  ModelOptions options;
  options.compute = ComputeMode::emulated;
  // One sample: 20 ms forward + backward. Backward fills ResNet-50's 97.5 MiB
  // of gradients inside its layers' time; at 200 img/sec (13 ms of backward)
  // the fills alone could outlast it on a slow-memory VM.
  options.emulate_img_per_sec = 50;
  auto model = make_model("resnet50", options);
  Recorder recorder;
  model->set_trace(&recorder);
  one_step(*model, 4);  // 4 samples: 80 ms in all, a third forward
  double forward_ns = 0, backward_ns = 0;
  for (const auto& e : recorder.events)
    (e.category == "forward" ? forward_ns : backward_ns) += double(e.end_ns - e.start_ns);
  EXPECT_EQ(recorder.count("forward"), recorder.count("backward"));
  EXPECT_EQ(recorder.count("forward"), 54u);  // ResNet-50: 53 convolutions and the fc
  EXPECT_NEAR(forward_ns / 1e6, 80.0 / 3, 2.0);
  EXPECT_NEAR(backward_ns / 1e6, 160.0 / 3, 2.0);
}

}  // namespace
}  // namespace gradsync
