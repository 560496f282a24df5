// An internal error is one line naming the subcommand and what it was doing:
// the line itself (cut to its buffer, still one line), which failures keep
// their own line, and the terminate and signal handlers, each in a child
// process (death tests): one line, then _exit(1) or the signal's own end.
#include "harness/cli/internal_error.h"

#include <gtest/gtest.h>

#include <csignal>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

namespace gradsync {
namespace {

TEST(InternalError, TextNamesSubcommandAndPhase) {
  EXPECT_EQ(internal_error_text({"train", Phase::measuring, -1}, "vector::at"),
            "train: internal error while measuring: vector::at");
  EXPECT_EQ(internal_error_text({"", Phase::parsing, -1}, "boom"),
            "internal error while parsing the command line: boom");
}

TEST(InternalError, LineNamesTheRankInJobsOfSeveral) {
  char buffer[256];
  const std::size_t n = internal_error_line(buffer, {"sweep", Phase::running_runs, 3}, "x");
  EXPECT_EQ(std::string(buffer, n),
            "gradsync: error: rank 3: sweep: internal error while running "
            "its runs: x\n");
  const std::size_t alone = internal_error_line(buffer, {"report", Phase::reporting, -1}, "y");
  EXPECT_EQ(std::string(buffer, alone),
            "gradsync: error: report: internal error while reporting: y\n");
}

TEST(InternalError, LineCutToItsBufferStillEndsInANewline) {
  char buffer[24];
  const std::size_t n = internal_error_line(buffer, {"train", Phase::measuring, -1}, "long");
  EXPECT_EQ(std::string(buffer, n), "gradsync: error: train:\n");
}

TEST(InternalError, UsersFailuresKeepTheirLine) {
  name_subcommand("train");
  enter_phase(Phase::measuring);
  EXPECT_EQ(failure_text(std::runtime_error("peer 1 timed out")), "peer 1 timed out");
  EXPECT_EQ(failure_text(std::invalid_argument("--batch-size must be positive")),
            "--batch-size must be positive");
  EXPECT_EQ(failure_text(std::bad_alloc()).rfind("out of memory: ", 0), 0u);
}

TEST(InternalError, AnythingElseIsInternalAtThePlaceRecorded) {
  name_subcommand("simulate");
  enter_phase(Phase::simulating);
  EXPECT_EQ(failure_text(std::out_of_range("vector::_M_range_check")),
            "simulate: internal error while simulating: vector::_M_range_check");
  try {
    (void)nlohmann::json::parse("[1]").at(5);
  } catch (const std::exception& e) {
    EXPECT_EQ(failure_text(e),
              "simulate: internal error while simulating: array index 5 is out "
              "of range");
  }
  try {
    throw 42;
  } catch (...) {
    EXPECT_EQ(current_failure_text(),
              "simulate: internal error while simulating: an exception that is not a "
              "std::exception");
  }
}

void escape_from_thread() {
  install_internal_error_handlers();
  name_subcommand("train");
  enter_phase(Phase::measuring);
  std::thread([] { throw std::logic_error("bucket 3 finished twice"); }).join();
}

void leave_thread_joinable() {
  install_internal_error_handlers();
  name_subcommand("collectives");
  enter_phase(Phase::setting_up);
  std::optional<std::thread> thread(std::in_place, [] {});
  thread.reset();
}

void raise_fpe() {
  install_internal_error_handlers();
  name_subcommand("calibrate");
  enter_phase(Phase::calibrating);
  name_rank(-1);
  std::raise(SIGFPE);
}

TEST(InternalErrorDeathTest, ExceptionEscapingAThreadIsOneLine) {
  EXPECT_EXIT(escape_from_thread(), testing::ExitedWithCode(1),
              "^gradsync: error: train: internal error while measuring: bucket 3 finished "
              "twice\n$");
}

TEST(InternalErrorDeathTest, JoinableThreadDestroyedIsOneLine) {
  EXPECT_EXIT(leave_thread_joinable(), testing::ExitedWithCode(1),
              "^gradsync: error: collectives: internal error while setting up: std::terminate "
              "with no exception in flight");
}

TEST(InternalErrorDeathTest, FatalSignalIsOneLineThenTheSignal) {
  struct sigaction current {};
  sigaction(SIGFPE, nullptr, &current);
  if (current.sa_handler != SIG_DFL) GTEST_SKIP() << "a sanitizer handles SIGFPE here";
  EXPECT_EXIT(raise_fpe(), testing::KilledBySignal(SIGFPE),
              "^gradsync: error: calibrate: internal error while calibrating: SIGFPE "
              "\\(arithmetic error\\)\n$");
}

}  // namespace
}  // namespace gradsync
