// The Chrome trace file (harness/results/chrome_trace.h): every event has the
// fields the format requires, times are microseconds, processes and threads
// are named, and the write is atomic. Gathering across ranks is checked with
// the whole trace by tests/cli/timeline.sh.
#include "harness/results/chrome_trace.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace gradsync {
namespace {

TraceEvent make_event(std::string name, std::string category, std::int64_t start, std::int64_t end,
                      int thread) {
  return {std::move(name), std::move(category), start, end, thread};
}

std::vector<TraceProcess> two_ranks() {
  return {{0,
           "rank 0 (a)",
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
  EXPECT_EQ(process_names,
            (std::set<std::pair<int, std::string>>{{0, "rank 0 (a)"}, {1, "rank 1 (a)"}}));
  EXPECT_EQ(thread_names,
            (std::set<std::pair<int, std::string>>{
                {0, "compute"}, {1, "communication"}, {10, "compute"}, {11, "communication"}}));
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
  const auto trace = nlohmann::json::parse(in);           // throws if not JSON
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

}  // namespace
}  // namespace gradsync
