// A results folder has one writer: the holder's line, a second taker
// refused (flock is per open file, so one process can stand for two), a
// released lock free again and emptied, a lock left by a dead holder taken
// over, and a run inside the holder's sweep (its token in the environment)
// let through without a lock of its own.
#include "harness/cli/results_lock.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gradsync {
namespace {

namespace fs = std::filesystem;

LockHolder sweep_holder() {
  LockHolder h;
  h.pid = 4242;
  h.host = "node1";
  h.command = "gradsync sweep";
  h.since = "2026-12-06T17:20:05Z";
  h.token = "node1:4242:1";
  return h;
}

TEST(LockHolderText, TimeAloneToday) {
  EXPECT_EQ(holder_text(sweep_holder(), "2026-12-06"),
            "gradsync sweep (pid 4242 on node1, since 17:20:05 UTC)");
}

TEST(LockHolderText, DateOnAnotherDay) {
  EXPECT_EQ(holder_text(sweep_holder(), "2026-12-07"),
            "gradsync sweep (pid 4242 on node1, since 2026-12-06 17:20:05 UTC)");
}

TEST(LockHolderText, RefusalLine) {
  EXPECT_EQ(busy_text("results/", sweep_holder(), "2026-12-06"),
            "results/ is being written by gradsync sweep (pid 4242 on node1, since 17:20:05 "
            "UTC); wait for it, or add --wait");
}

TEST(LockHolderText, ReadBackFromItsJson) {
  const LockHolder h = lock_holder_from_text(lock_holder_json(sweep_holder()).dump());
  EXPECT_EQ(h.pid, 4242);
  EXPECT_EQ(h.host, "node1");
  EXPECT_EQ(h.command, "gradsync sweep");
  EXPECT_EQ(h.since, "2026-12-06T17:20:05Z");
  EXPECT_EQ(h.token, "node1:4242:1");
}

TEST(LockHolderText, EmptyOrTornNamesNobody) {
  for (const char* text : {"", "{\"pid\":42", "[]", "{\"pid\":\"x\"}"}) {
    EXPECT_EQ(lock_holder_from_text(text).pid, 0) << text;
    EXPECT_EQ(holder_text(lock_holder_from_text(text), "2026-12-06"),
              "another gradsync (its lock file does not say which)")
        << text;
  }
}

class ResultsLockTest : public ::testing::Test {
 protected:
  fs::path dir =
      fs::temp_directory_path() / ("gradsync-results-lock-" + std::to_string(::getpid()));
  fs::path lock_file = dir / kResultsLockFile;
  void SetUp() override {
    fs::create_directories(dir);
    ::unsetenv(kResultsLockVariable);
  }
  void TearDown() override {
    ::unsetenv(kResultsLockVariable);
    fs::remove_all(dir);
  }
  std::string lock_text() const {
    std::ifstream in(lock_file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  std::string refusal() const {
    try {
      lock_results_folder(dir, "gradsync train", false);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(ResultsLockTest, SecondWriterRefusedNamingTheFirst) {
  const ResultsLock first = lock_results_folder(dir, "gradsync sweep", false);
  ASSERT_TRUE(first.held());
  const LockHolder holder = lock_holder_from_text(lock_text());
  EXPECT_EQ(holder.pid, ::getpid());
  EXPECT_EQ(holder.command, "gradsync sweep");
  EXPECT_EQ(holder.token, first.token());
  const std::string why = refusal();
  EXPECT_EQ(why.rfind(dir.string() + "/ is being written by gradsync sweep (pid " +
                          std::to_string(::getpid()) + " on ",
                      0),
            0u)
      << why;
  EXPECT_NE(why.find(" UTC); wait for it, or add --wait"), std::string::npos) << why;
}

TEST_F(ResultsLockTest, ReleasedLockIsEmptiedAndFree) {
  { const ResultsLock first = lock_results_folder(dir, "gradsync sweep", false); }
  EXPECT_EQ(lock_text(), "");
  EXPECT_EQ(refusal(), "");
}

TEST_F(ResultsLockTest, RunOfTheHoldingSweepWritesUnderItsLock) {
  const ResultsLock sweep = lock_results_folder(dir, "gradsync sweep", false);
  ::setenv(kResultsLockVariable, sweep.token().c_str(), 1);
  const ResultsLock run = lock_results_folder(dir, "gradsync train", false);
  EXPECT_FALSE(run.held());
  ::setenv(kResultsLockVariable, "another-sweep", 1);
  EXPECT_NE(refusal(), "");
}

TEST_F(ResultsLockTest, LockLeftByADeadHolderIsTakenOver) {
  LockHolder dead = sweep_holder();
  dead.since = "2020-01-02T03:04:05Z";  // not today: the line shows the date
  std::ofstream(lock_file) << lock_holder_json(dead).dump() << "\n";
  testing::internal::CaptureStderr();
  const ResultsLock lock = lock_results_folder(dir, "gradsync train", false);
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(lock.held());
  EXPECT_EQ(said, "gradsync: warning: " + dir.string() +
                      "/: taking over the lock left by gradsync sweep (pid 4242 on node1, since "
                      "2020-01-02 03:04:05 UTC), which is no longer running\n");
  EXPECT_EQ(lock_holder_from_text(lock_text()).command, "gradsync train");
}

TEST_F(ResultsLockTest, OutputFolderLockedButNotDevicesOrMissingFolders) {
  EXPECT_FALSE(lock_output_folder("", "gradsync train", false).held());
  EXPECT_FALSE(lock_output_folder("/dev/null", "gradsync train", false).held());
  EXPECT_FALSE(
      lock_output_folder((dir / "none" / "x.jsonl").string(), "gradsync train", false).held());
  const ResultsLock lock = lock_output_folder((dir / "x.jsonl").string(), "gradsync train", false);
  EXPECT_TRUE(lock.held());
  EXPECT_NE(refusal(), "");
}

}  // namespace
}  // namespace gradsync
