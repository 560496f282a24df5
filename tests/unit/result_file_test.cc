// Result files: appends are whole lines or nothing, earlier lines survive, a
// failed write says the system's reason, every kind of bad input is reported
// with its file and line, strictly or tolerantly, and no line is read past
// the bound.
#include "harness/results/result_file.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

namespace gradsync {
namespace {

namespace fs = std::filesystem;

class ResultFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gradsync_result_file_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path file(const std::string& name = "results.jsonl") const { return dir_ / name; }
  void write(const fs::path& path, const std::string& text) const { std::ofstream(path) << text; }
  std::string read(const fs::path& path) const {
    std::ostringstream out;
    out << std::ifstream(path).rdbuf();
    return out.str();
  }
  // The message read_records throws for `text`, or "" when it reads.
  std::string read_error(const std::string& text) const {
    write(file(), text);
    try {
      read_records(file());
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
};

nlohmann::json record(int n) {
  auto r = new_record("collectives");
  r["n"] = n;
  r["text"] = "two\nlines";  // must still be one line in the file
  return r;
}

TEST_F(ResultFile, AppendedRecordsReadBackInOrderOneLineEach) {
  append_record(file(), record(1));
  append_record(file(), record(2));
  const auto records = read_records(file());
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].value, record(1));
  EXPECT_EQ(records[1].value, record(2));
  EXPECT_EQ(records[1].origin, file().string() + ":2");
  const std::string text = read(file());
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
}

TEST_F(ResultFile, AppendingKeepsWhatIsAlreadyThereAndStartsItsOwnLine) {
  const std::string before = new_record("train").dump();  // no newline at the end
  write(file(), before);
  append_record(file(), record(1));
  EXPECT_EQ(read(file()), before + "\n" + record(1).dump() + "\n");
  EXPECT_EQ(read_records(file()).size(), 2u);
}

// The message `action` throws in a child process whose files may not grow
// past `limit` bytes ("" when it throws none): a real EFBIG from the kernel,
// with this process's own limit untouched.
std::string error_with_file_size_limit(rlim_t limit, const std::function<void()>& action) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return "pipe failed";
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(pipe_fds[0]);
    std::string message;
    rlimit small{};
    ::getrlimit(RLIMIT_FSIZE, &small);
    small.rlim_cur = limit;
    std::signal(SIGXFSZ, SIG_IGN);  // the write then fails with EFBIG instead
    if (::setrlimit(RLIMIT_FSIZE, &small) != 0) message = "setrlimit failed";
    try {
      if (message.empty()) action();
    } catch (const std::exception& e) {
      message = e.what();
    }
    if (::write(pipe_fds[1], message.data(), message.size()) < 0) ::_exit(2);
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string message;
  char piece[256];
  for (ssize_t n; (n = ::read(pipe_fds[0], piece, sizeof piece)) > 0;) message.append(piece, n);
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? message : "the child failed";
}

TEST_F(ResultFile, AShortWriteIsCutBackAndThrownWithTheRealReason) {
  append_record(file(), record(1));
  const std::string before = read(file());
  // The file may grow by only a few bytes: the kernel writes part of the line.
  const std::string message =
      error_with_file_size_limit(before.size() + 10, [&] { append_record(file(), record(2)); });
  EXPECT_EQ(message, file().string() + ": cannot append a record: File too large");
  EXPECT_EQ(read(file()), before);
  append_record(file(), record(3));
  EXPECT_EQ(read_records(file()).size(), 2u);
}

TEST_F(ResultFile, AFullDeviceSaysNoSpace) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  try {
    append_record("/dev/full", record(1));
    FAIL() << "appended to /dev/full";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "/dev/full: cannot append a record: No space left on device");
  }
}

TEST_F(ResultFile, AReplacingWriteThatFailsSaysWhyAndLeavesTheOldFileAlone) {
  write(file("map.json"), "old");
  const std::string message = error_with_file_size_limit(
      10, [&] { write_file_replacing(file("map.json"), std::string(100, 'x'), "the map"); });
  EXPECT_EQ(message, file("map.json").string() + ": cannot write the map: File too large");
  EXPECT_EQ(read(file("map.json")), "old");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1)
      << "a temporary file was left behind";
}

TEST_F(ResultFile, AReplacingWriteOntoADirectoryFailsAtTheRename) {
  fs::create_directories(dir_ / "taken" / "inside");
  try {
    write_file_replacing(dir_ / "taken", "text", "the map");
    FAIL() << "replaced a directory";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              (dir_ / "taken").string() + ": cannot write the map: " + std::strerror(EISDIR));
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1)
      << "a temporary file was left behind";
}

// A pipe (as /dev/null or /dev/stdout, a path that is not a regular file)
// is written through and stays a pipe: a rename would have put a regular
// file in its place.
TEST_F(ResultFile, AReplacingWriteOntoAPipeWritesThroughIt) {
  const fs::path pipe = dir_ / "pipe";
  ASSERT_EQ(::mkfifo(pipe.c_str(), 0600), 0) << std::strerror(errno);
  std::string received;
  std::thread reader([&] { received = read(pipe); });
  write_file_replacing(pipe, "the text", "the map");
  reader.join();
  EXPECT_EQ(received, "the text");
  EXPECT_TRUE(fs::is_fifo(pipe));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1)
      << "a temporary file was left behind";
}

TEST_F(ResultFile, AReplacingWriteReplacesTheWholeFile) {
  write(file("map.json"), "a longer old text");
  write_file_replacing(file("map.json"), "new", "the map");
  EXPECT_EQ(read(file("map.json")), "new");
}

TEST_F(ResultFile, ANonJsonLineIsNamedByFileAndLine) {
  const std::string message = read_error(record(1).dump() + "\n\n{\"schema\": oops\n");
  EXPECT_EQ(message.rfind(file().string() + ":3: not valid JSON (", 0), 0u) << message;
  EXPECT_EQ(message.find("[json.exception"), std::string::npos) << message;
}

TEST_F(ResultFile, AForeignRecordOrUnknownVersionIsNamedByFileAndLine) {
  auto wrong_schema = record(1);
  wrong_schema["schema"] = "other.tool";
  EXPECT_NE(read_error(wrong_schema.dump() + "\n").find(":1: not a gradsync result record"),
            std::string::npos);
  EXPECT_NE(read_error("[1, 2]\n").find(":1: not a gradsync result record"), std::string::npos);
  auto future = record(1);
  future["schema_version"] = kResultSchemaVersion + 1;
  const std::string message = read_error(record(1).dump() + "\n" + future.dump() + "\n");
  EXPECT_NE(message.find(":2: schema_version 2 is not known"), std::string::npos) << message;
}

TEST_F(ResultFile, AMissingFileIsNamed) {
  try {
    read_records(file("absent.jsonl"));
    FAIL() << "read a missing file";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("absent.jsonl: cannot read results: No such file"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(ResultFile, AppendingWhereNoFileCanBeMadeThrowsNamingIt) {
  EXPECT_THROW(append_record(dir_ / "no" / "such" / "dir.jsonl", record(1)), std::runtime_error);
}

// A file of good records with bad lines among them: the tolerant reader keeps
// every good one and names each bad one; the strict reader stops at the first.
TEST_F(ResultFile, ToleranceKeepsTheGoodRecordsAndNamesEveryBadLine) {
  auto foreign = record(9);
  foreign["schema"] = "other.tool";
  write(file("a.jsonl"), record(1).dump() + "\n" + record(2).dump() + "\n{\"schema\": oops\n\n" +
                             record(3).dump() + "\n" + foreign.dump() + "\n" + record(4).dump());
  write(file("b.jsonl"), record(5).dump() + "\n");
  const ReadOutcome outcome =
      read_results_tolerant({file("a.jsonl").string(), file("b.jsonl").string()});
  ASSERT_EQ(outcome.records.size(), 5u);
  EXPECT_EQ(outcome.records[2].value, record(3));
  EXPECT_EQ(outcome.records[2].origin, file("a.jsonl").string() + ":5");
  EXPECT_EQ(outcome.records[4].origin, file("b.jsonl").string() + ":1");
  ASSERT_EQ(outcome.bad_lines.size(), 2u);
  EXPECT_EQ(outcome.bad_lines[0].rfind(file("a.jsonl").string() + ":3: not valid JSON (", 0), 0u)
      << outcome.bad_lines[0];
  EXPECT_EQ(outcome.bad_lines[1], file("a.jsonl").string() +
                                      ":6: not a gradsync result record (expected \"schema\": "
                                      "\"gradsync.result\")");
  EXPECT_EQ(outcome.lines, 7u);  // the blank line is not counted
  try {
    read_results(std::vector<std::string>{file("a.jsonl").string(), file("b.jsonl").string()});
    FAIL() << "the strict reader read a bad line";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), outcome.bad_lines[0]);
  }
}

TEST_F(ResultFile, ToleranceStillRefusesAPathThatCannotBeRead) {
  write(file("a.jsonl"), record(1).dump() + "\n");
  EXPECT_THROW(read_results_tolerant({file("a.jsonl").string(), file("absent.jsonl").string()}),
               std::runtime_error);
  fs::create_directories(dir_ / "empty");
  EXPECT_THROW(read_results_tolerant({(dir_ / "empty").string()}), std::runtime_error);
}

// A file of `zeros` NUL bytes, then a newline and `rest`; sparse, so the
// bound's 64 MiB take no disk.
void write_zeros_then(const fs::path& path, std::size_t zeros, const std::string& rest) {
  std::ofstream(path) << "";
  fs::resize_file(path, zeros);
  std::ofstream(path, std::ios::app) << "\n" << rest;
}

TEST_F(ResultFile, ALineAtTheBoundIsALineAndOneByteMoreEndsTheFile) {
  const std::string good = record(1).dump() + "\n";
  write_zeros_then(file("at.jsonl"), kMaxLineBytes, good);
  ReadOutcome at = read_results_tolerant({file("at.jsonl").string()});
  ASSERT_EQ(at.bad_lines.size(), 1u);
  EXPECT_EQ(at.bad_lines[0].rfind(file("at.jsonl").string() + ":1: not valid JSON (", 0), 0u)
      << at.bad_lines[0].substr(0, 300);
  EXPECT_EQ(at.records.size(), 1u);  // the line after it is read

  write_zeros_then(file("over.jsonl"), kMaxLineBytes + 1, good);
  write(file("next.jsonl"), good);
  ReadOutcome over =
      read_results_tolerant({file("over.jsonl").string(), file("next.jsonl").string()});
  ASSERT_EQ(over.bad_lines.size(), 1u);
  EXPECT_EQ(over.bad_lines[0], file("over.jsonl").string() +
                                   ":1: a line longer than 64 MiB: not a result file (reading it "
                                   "stops here)");
  ASSERT_EQ(over.records.size(), 1u);  // the good line after it is not read, the next file is
  EXPECT_EQ(over.records[0].origin, file("next.jsonl").string() + ":1");
  EXPECT_EQ(over.lines, 2u);
}

TEST_F(ResultFile, DevZeroEndsAtTheBoundStrictOrTolerant) {
  if (!fs::exists("/dev/zero")) GTEST_SKIP() << "no /dev/zero here";
  const std::string expected =
      "/dev/zero:1: a line longer than 64 MiB: not a result file (reading it stops here)";
  const ReadOutcome outcome = read_results_tolerant({"/dev/zero"});
  EXPECT_TRUE(outcome.records.empty());
  EXPECT_EQ(outcome.bad_lines, std::vector<std::string>{expected});
  try {
    read_results("/dev/zero");
    FAIL() << "read /dev/zero";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), expected);
  }
}

TEST_F(ResultFile, AGarbageLineGetsAShortMessage) {
  // An unterminated string: the parser's message quotes all it read.
  const std::string message = read_error("\"" + std::string(100000, 'a') + "\n");
  EXPECT_EQ(message.rfind(file().string() + ":1: not valid JSON (", 0), 0u)
      << message.substr(0, 300);
  EXPECT_LT(message.size(), 400u);
}

// The streaming reader: one event per line, records and bad lines in file
// order, each record handed over before the next line is read (a visitor
// that throws stops the reading there).
TEST_F(ResultFile, VisitHandsOverEachLineInFileOrder) {
  write(file("a.jsonl"), record(1).dump() + "\nnot json\n\n" + record(2).dump() + "\n");
  write(file("b.jsonl"), record(3).dump());  // no newline at the end: still a line
  std::vector<std::string> events;
  const std::size_t lines = visit_results(
      {file("a.jsonl").string(), file("b.jsonl").string()},
      {[&](StoredRecord&& r) {
         events.push_back(r.origin + " n=" + std::to_string(r.value.at("n").get<int>()));
       },
       [&](const std::string& bad) { events.push_back(bad.substr(0, bad.find(" ("))); }});
  const std::string a = file("a.jsonl").string(), b = file("b.jsonl").string();
  EXPECT_EQ(events, (std::vector<std::string>{a + ":1 n=1", a + ":2: not valid JSON", a + ":4 n=2",
                                              b + ":1 n=3"}));
  EXPECT_EQ(lines, 4u);

  // Strict: the records before the bad line were visited, then it is thrown.
  events.clear();
  try {
    visit_results({a}, {[&](StoredRecord&& r) { events.push_back(r.origin); }, {}});
    FAIL() << "the strict reader read a bad line";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(a + ":2: not valid JSON (", 0), 0u) << e.what();
  }
  EXPECT_EQ(events, std::vector<std::string>{a + ":1"});

  // A visitor's exception ends the reading at its record.
  events.clear();
  EXPECT_THROW(visit_results({a, b}, {[&](StoredRecord&& r) {
                                        events.push_back(r.origin);
                                        throw std::logic_error("stop");
                                      },
                                      [&](const std::string&) { events.push_back("bad"); }}),
               std::logic_error);
  EXPECT_EQ(events, std::vector<std::string>{a + ":1"});
}

// One line, from a string, without a file: what the reader puts after
// "file:line: ", and the record when there is one.
TEST(ParseRecordLine, SaysWhyALineIsNotARecordOfThisBuild) {
  nlohmann::json value;
  EXPECT_EQ(parse_record_line(record(7).dump(), value), "");
  EXPECT_EQ(value, record(7));
  EXPECT_EQ(parse_record_line("[1,2]", value),
            "not a gradsync result record (expected \"schema\": \"gradsync.result\")");
  EXPECT_EQ(parse_record_line(R"({"schema":"gradsync.result","schema_version":2})", value),
            "schema_version 2 is not known to this gradsync (it reads version 1)");
  EXPECT_EQ(parse_record_line(R"({"schema":"gradsync.result"})", value),
            "schema_version null is not known to this gradsync (it reads version 1)");
  const std::string long_version =
      R"({"schema":"gradsync.result","schema_version":")" + std::string(300, 'x') + "\"}";
  EXPECT_EQ(parse_record_line(long_version, value),
            "schema_version \"" + std::string(199, 'x') +
                "... is not known to this gradsync (it reads version 1)");
  const std::string torn = parse_record_line(R"({"schema": "gradsync.res)", value);
  EXPECT_EQ(torn.rfind("not valid JSON (parse error at line 1, column 25: syntax error", 0), 0u) << torn;
  // A NUL byte inside the line is not the line's end.
  std::string with_nul = record(7).dump();
  with_nul.insert(with_nul.size() - 1, std::string("\0", 1));
  EXPECT_EQ(parse_record_line(with_nul, value).rfind("not valid JSON (", 0), 0u);
  const std::string line = record(7).dump();
  EXPECT_EQ(parse_record_line(line + std::string("\0junk", 5), value),
            "not valid JSON (a NUL byte at byte " + std::to_string(line.size() + 1) + ")");
}

}  // namespace
}  // namespace gradsync
