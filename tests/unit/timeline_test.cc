// The timeline (harness/timeline.h): collecting from two threads, the text
// form ranks exchange, the Chrome trace's fields and metadata, the atomic
// write; and the models' per-layer trace events (cpu and emulated). The
// synchronizer's bucket events and the whole multi-rank trace are checked by
// tests/cli/timeline.sh.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "models/model.h"
#include "models/synthetic_data.h"
#include "harness/engine/timeline.h"

namespace gradsync {
namespace {

using namespace std::chrono_literals;

TraceEvent make_event(std::string name, std::string category, std::int64_t start,
                      std::int64_t end, int thread) {
  return {std::move(name), std::move(category), start, end, thread};
}

std::vector<TraceProcess> two_ranks() {
  return {{0, "rank 0 (a)",
           {make_event("backward conv1", "backward", 1500, 4500, 0),
            make_event("allreduce bucket 0 (64 bytes)", "allreduce", 2000, 9000, 1)}},
          {1, "rank 1 (a)", {make_event("forward conv1", "forward", 0, 1000, 0)}}};
}

// A fresh, empty directory for one test.
std::filesystem::path scratch(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("gradsync_timeline_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

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

TEST(ChromeTrace, EveryEventHasTheFieldsTheFormatRequires) {
  const auto trace = chrome_trace(two_ranks(), {{"model", "resnet50"}});
  EXPECT_EQ(trace.at("displayTimeUnit"), "ms");
  EXPECT_EQ(trace.at("otherData").at("model"), "resnet50");
  std::size_t complete = 0;
  std::set<std::pair<int, std::string>> process_names, thread_names;
  for (const auto& e : trace.at("traceEvents")) {
    ASSERT_TRUE(e.contains("name") && e.contains("ph") && e.contains("pid") && e.contains("tid"))
        << e.dump();
    if (e["ph"] == "M") {
      if (e["name"] == "process_sort_index") continue;
      const auto name = e.at("args").at("name").get<std::string>();
      if (e["name"] == "process_name") process_names.insert({e["pid"].get<int>(), name});
      if (e["name"] == "thread_name")
        thread_names.insert({e["pid"].get<int>() * 10 + e["tid"].get<int>(), name});
      continue;
    }
    ASSERT_EQ(e["ph"], "X") << e.dump();
    ASSERT_TRUE(e.contains("ts") && e.contains("dur") && e.contains("cat")) << e.dump();
    EXPECT_TRUE(e["ts"].is_number() && e["dur"].is_number()) << e.dump();
    ++complete;
  }
  EXPECT_EQ(complete, 3u);
  EXPECT_EQ(process_names, (std::set<std::pair<int, std::string>>{{0, "rank 0 (a)"},
                                                                  {1, "rank 1 (a)"}}));
  EXPECT_EQ(thread_names, (std::set<std::pair<int, std::string>>{
                              {0, "compute"}, {1, "communication"}, {10, "compute"},
                              {11, "communication"}}));
}

TEST(ChromeTrace, TimesAreMicroseconds) {
  const auto trace = chrome_trace(two_ranks(), nlohmann::json::object());
  bool found = false;
  for (const auto& e : trace.at("traceEvents"))
    if (e["name"] == "backward conv1") {
      EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 1.5);
      EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 3.0);
      EXPECT_EQ(e["pid"], 0);
      EXPECT_EQ(e["tid"], 0);
      EXPECT_EQ(e["cat"], "backward");
      found = true;
    }
  EXPECT_TRUE(found);
}

TEST(WriteChromeTrace, WritesValidJsonAtomicallyAndLeavesNoTemporaryFile) {
  const auto dir = scratch("write");
  const auto file = dir / "trace.json";
  { std::ofstream(file) << "an older trace"; }
  EXPECT_EQ(write_chrome_trace(file, two_ranks(), {{"k", 1}}), 3u);
  std::ifstream in(file);
  const auto trace = nlohmann::json::parse(in);  // throws if not JSON
  EXPECT_EQ(trace.at("traceEvents").size(), 3u + 2 * 4);  // 3 events, 4 metadata per rank
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    names.push_back(entry.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"trace.json"});
  std::filesystem::remove_all(dir);
}

TEST(WriteChromeTrace, AMissingDirectoryThrowsNamingTheFile) {
  const auto dir = scratch("missing");
  const auto file = dir / "no" / "trace.json";
  try {
    write_chrome_trace(file, two_ranks(), {});
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  std::filesystem::remove_all(dir);
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
  options.emulate_img_per_sec = 200;  // one sample: 5 ms forward + backward
  auto model = make_model("resnet50", options);
  Recorder recorder;
  model->set_trace(&recorder);
  one_step(*model, 4);  // 4 samples: 20 ms in all, a third forward
  double forward_ns = 0, backward_ns = 0;
  for (const auto& e : recorder.events)
    (e.category == "forward" ? forward_ns : backward_ns) += double(e.end_ns - e.start_ns);
  EXPECT_EQ(recorder.count("forward"), recorder.count("backward"));
  EXPECT_EQ(recorder.count("forward"), 54u);  // ResNet-50: 53 convolutions and the fc
  EXPECT_NEAR(forward_ns / 1e6, 20.0 / 3, 2.0);
  EXPECT_NEAR(backward_ns / 1e6, 40.0 / 3, 2.0);
}

}  // namespace
}  // namespace gradsync
