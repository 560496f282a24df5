// Result files: appends are whole lines or nothing, earlier lines survive,
// and every kind of bad input is reported with its file and line.
#include "harness/results/result_file.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

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

TEST_F(ResultFile, AShortWriteIsCutBackAndThrownSoNoHalfRecordStays) {
  append_record(file(), record(1));
  const std::string before = read(file());
  // The file may grow by only a few bytes: the kernel writes part of the line.
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  rlimit small = old;
  small.rlim_cur = before.size() + 10;
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  EXPECT_THROW(append_record(file(), record(2)), std::runtime_error);
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_EQ(read(file()), before);
  append_record(file(), record(3));
  EXPECT_EQ(read_records(file()).size(), 2u);
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

}  // namespace
}  // namespace gradsync
