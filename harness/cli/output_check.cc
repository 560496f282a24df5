#include "harness/cli/output_check.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace gradsync {

void check_output_file(const std::string& flag, const std::string& path) {
  if (path.empty()) return;
  namespace fs = std::filesystem;
  const auto fail = [&](const std::string& why) {
    throw std::invalid_argument(flag + " " + path + ": " + why);
  };
  std::error_code error;
  if (fs::is_directory(path, error)) fail("is a directory, not a file");
  const fs::path dir = fs::absolute(path, error).parent_path();
  if (!fs::is_directory(dir, error)) fail("directory " + dir.string() + " does not exist");
  const bool existed = fs::exists(path, error);
  std::FILE* file = std::fopen(path.c_str(), "a");
  if (!file) fail(std::string("cannot be opened for writing: ") + std::strerror(errno));
  std::fclose(file);
  if (!existed) fs::remove(path, error);
}

CLI::Option* add_wait_flag(CLI::App& command, bool& wait) {
  return command.add_flag("--wait", wait,
                          "when another gradsync is writing into the same results folder, wait "
                          "for it to finish (however long) instead of refusing");
}

}  // namespace gradsync
