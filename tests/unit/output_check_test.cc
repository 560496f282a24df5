// Output files are checked before any measurement: a missing folder, a
// directory, and a file that can be written, which is left as it was.
#include "harness/cli/output_check.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace gradsync {
namespace {

std::string error_of(const std::string& flag, const std::string& path) {
  try {
    check_output_file(flag, path);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

class OutputCheck : public ::testing::Test {
 protected:
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("gradsync-output-check-" + std::to_string(::getpid()));
  void SetUp() override { std::filesystem::create_directories(dir); }
  void TearDown() override { std::filesystem::remove_all(dir); }
};

TEST_F(OutputCheck, NamesTheFlagAndWhy) {
  EXPECT_EQ(error_of("--out", dir.string()), "--out " + dir.string() + ": is a directory, not a file");
  const auto missing = dir / "none" / "r.jsonl";
  EXPECT_EQ(error_of("--json", missing.string()),
            "--json " + missing.string() + ": directory " + (dir / "none").string() +
                " does not exist");
  EXPECT_EQ(error_of("--out", ""), "");
}

TEST_F(OutputCheck, AWritableFileIsLeftAsItWas) {
  const auto fresh = dir / "new.jsonl";
  EXPECT_EQ(error_of("--out", fresh.string()), "");
  EXPECT_FALSE(std::filesystem::exists(fresh)) << "the check created a file and left it";
  const auto existing = dir / "old.jsonl";
  std::ofstream(existing) << "{\"a\":1}\n";
  EXPECT_EQ(error_of("--out", existing.string()), "");
  EXPECT_EQ(std::filesystem::file_size(existing), 8u);
}

}  // namespace
}  // namespace gradsync
