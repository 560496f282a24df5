#include "harness/results/result_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace gradsync {
namespace {

std::runtime_error file_error(const std::filesystem::path& file, const std::string& what) {
  return std::runtime_error(file.string() + ": " + what + ": " + std::strerror(errno));
}

// Closes the descriptor on every path out.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// True when the file is empty or ends with a newline, so that an appended
// line starts a line of its own (`fd` must be open for reading too).
bool ends_with_newline(int fd) {
  const off_t size = ::lseek(fd, 0, SEEK_END);
  if (size <= 0) return true;
  char last = 0;
  return ::pread(fd, &last, 1, size - 1) == 1 && last == '\n';
}

void check_schema(const nlohmann::json& record, const std::string& origin) {
  if (!record.is_object() || record.value("schema", nlohmann::json()) != kResultSchema)
    throw std::runtime_error(origin + ": not a gradsync result record (expected \"schema\": \"" +
                             kResultSchema + "\")");
  const nlohmann::json version = record.value("schema_version", nlohmann::json());
  if (version != kResultSchemaVersion)
    throw std::runtime_error(origin + ": schema_version " + version.dump() +
                             " is not known to this gradsync (it reads version " +
                             std::to_string(kResultSchemaVersion) + ")");
}

}  // namespace

std::string without_json_tag(const std::string& message) {
  const auto end = message.find("] ");
  return !message.empty() && message.front() == '[' && end != std::string::npos
             ? message.substr(end + 2)
             : message;
}

nlohmann::json new_record(const std::string& kind) {
  return {{"schema", kResultSchema}, {"schema_version", kResultSchemaVersion}, {"kind", kind}};
}

void append_record(const std::filesystem::path& file, const nlohmann::json& record) {
  std::string line = record.dump() + "\n";  // dump() escapes newlines: one record, one line
  Fd fd(::open(file.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644));
  if (fd.get() < 0) throw file_error(file, "cannot open for appending");
  if (!ends_with_newline(fd.get())) line.insert(line.begin(), '\n');
  ssize_t written = 0;
  do {
    written = ::write(fd.get(), line.data(), line.size());
  } while (written < 0 && errno == EINTR);
  if (written == static_cast<ssize_t>(line.size())) return;
  const int write_errno = written < 0 ? errno : ENOSPC;
  if (written > 0) {
    // With O_APPEND the offset now stands just past our partial line.
    const off_t end = ::lseek(fd.get(), 0, SEEK_CUR);
    if (end >= written && ::ftruncate(fd.get(), end - written) != 0)
      throw file_error(file, "a record was cut short and could not be removed");
  }
  errno = write_errno;
  throw file_error(file, "cannot append a record");
}

std::vector<StoredRecord> read_records(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw file_error(file, "cannot read results");
  std::vector<StoredRecord> records;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string origin = file.string() + ":" + std::to_string(number);
    nlohmann::json value;
    try {
      value = nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error& e) {
      throw std::runtime_error(origin + ": not valid JSON (" + without_json_tag(e.what()) + ")");
    }
    check_schema(value, origin);
    records.push_back({origin, std::move(value)});
  }
  if (in.bad()) throw file_error(file, "cannot read results");
  return records;
}

std::vector<StoredRecord> read_results(const std::string& path) {
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(path)) {
    for (const auto& entry : std::filesystem::directory_iterator(path))
      if (entry.path().extension() == ".jsonl") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    if (files.empty()) throw std::runtime_error(path + ": no .jsonl result files in this directory");
  } else {
    files.push_back(path);
  }
  std::vector<StoredRecord> records;
  for (const auto& file : files) {
    auto more = read_records(file);
    records.insert(records.end(), std::make_move_iterator(more.begin()),
                   std::make_move_iterator(more.end()));
  }
  return records;
}

std::vector<StoredRecord> read_results(const std::vector<std::string>& paths) {
  std::vector<StoredRecord> records;
  for (const auto& path : paths) {
    auto more = read_results(path);
    records.insert(records.end(), std::make_move_iterator(more.begin()),
                   std::make_move_iterator(more.end()));
  }
  return records;
}

void write_file_replacing(const std::filesystem::path& file, const std::string& text,
                          const std::string& what) {
  std::filesystem::path temp = file;
  temp += ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (out) out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (out) out.flush();
    if (!out) {
      const std::string reason = std::strerror(errno);
      std::error_code ignored;
      std::filesystem::remove(temp, ignored);
      throw std::runtime_error(file.string() + ": cannot write " + what + ": " + reason);
    }
  }
  std::error_code ec;
  std::filesystem::rename(temp, file, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    throw std::runtime_error(file.string() + ": cannot write " + what + ": " + ec.message());
  }
}

}  // namespace gradsync
