#include "harness/results/result_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <string_view>

namespace gradsync {
namespace {

std::runtime_error file_error(const std::filesystem::path& file, const std::string& what,
                              int error = errno) {
  return std::runtime_error(file.string() + ": " + what + ": " + std::strerror(error));
}

// Closes the descriptor on every path out; close() closes it checking.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  // 0, or the errno of close (some file systems report a failed write only here).
  int close() {
    const int result = ::close(fd_);
    fd_ = -1;
    return result == 0 ? 0 : errno;
  }

 private:
  int fd_;
};

// Writes all of `text`. Returns 0, or the errno of the write that failed;
// `written` is what went out either way. A short write is continued: the
// kernel says why it stopped (EFBIG, ENOSPC, EDQUOT...) only on the next one.
int write_all(int fd, std::string_view text, std::size_t& written) {
  written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;  // no progress and no reason given
    written += static_cast<std::size_t>(n);
  }
  return 0;
}

// True when the file is empty or ends with a newline, so that an appended
// line starts a line of its own (`fd` must be open for reading too).
bool ends_with_newline(int fd) {
  const off_t size = ::lseek(fd, 0, SEEK_END);
  if (size <= 0) return true;
  char last = 0;
  return ::pread(fd, &last, 1, size - 1) == 1 && last == '\n';
}

// The lines of a file, read through a buffer of its own, so that no line
// longer than kMaxLineBytes is ever held (std::getline would grow without end
// on /dev/zero).
class LineReader {
 public:
  enum class Next { line, too_long, end };

  explicit LineReader(const std::filesystem::path& file)
      : file_(file), fd_(::open(file.c_str(), O_RDONLY | O_CLOEXEC)), buffer_(1 << 16) {
    if (fd_.get() < 0) throw file_error(file_, "cannot read results");
  }
  // A text already in memory, which is then the buffer.
  LineReader(std::string_view text, const std::filesystem::path& name)
      : file_(name), fd_(-1), buffer_(text.begin(), text.end()), end_(text.size()) {}

  // The next line, without its newline; a last line without one counts.
  Next next(std::string& line) {
    line.clear();
    for (;;) {
      const char* begin = buffer_.data() + begin_;
      const char* end = buffer_.data() + end_;
      const char* newline = std::find(begin, end, '\n');
      line.append(begin, newline);
      begin_ = static_cast<std::size_t>(newline - buffer_.data());
      if (line.size() > kMaxLineBytes) return Next::too_long;
      if (newline != end) {
        ++begin_;
        return Next::line;
      }
      if (!fill()) return line.empty() ? Next::end : Next::line;
    }
  }

 private:
  // Reads the next piece into the buffer; false at the end of the file.
  bool fill() {
    if (fd_.get() < 0) return false;  // a text in memory has no next piece
    ssize_t n = 0;
    do {
      n = ::read(fd_.get(), buffer_.data(), buffer_.size());
    } while (n < 0 && errno == EINTR);
    if (n < 0) throw file_error(file_, "cannot read results");
    begin_ = 0;
    end_ = static_cast<std::size_t>(n);
    return n > 0;
  }

  std::filesystem::path file_;
  Fd fd_;
  std::vector<char> buffer_;
  std::size_t begin_ = 0, end_ = 0;
};

// A parser's message can quote what it read; one line of a report stays short.
std::string shortened(std::string text) {
  constexpr std::size_t kMax = 200;
  if (text.size() > kMax) text = text.substr(0, kMax) + "...";
  return text;
}

// The one reader: every line of `reader`, a file or a text named `file`,
// each record to the visitor and each bad line to its bad_line, or thrown
// without one (strict). An over-long line ends the file either way. Returns
// the lines read, blank ones aside.
std::size_t visit_lines(LineReader& reader, const std::filesystem::path& file,
                        const RecordVisitor& visitor) {
  std::string line;
  std::size_t number = 0, lines = 0;
  LineReader::Next next;
  while ((next = reader.next(line)) != LineReader::Next::end) {
    ++number;
    const bool too_long = next == LineReader::Next::too_long;
    if (!too_long && line.find_first_not_of(" \t\r") == std::string::npos) continue;
    ++lines;
    std::string origin = file.string() + ":" + std::to_string(number);
    nlohmann::json value;
    const std::string why = too_long ? "a line longer than " + std::to_string(kMaxLineBytes >> 20) +
                                           " MiB: not a result file (reading it stops here)"
                                     : parse_record_line(line, value);
    if (why.empty()) {
      visitor.record(StoredRecord{std::move(origin), std::move(value)});
      continue;
    }
    if (!visitor.bad_line) throw std::runtime_error(origin + ": " + why);
    visitor.bad_line(origin + ": " + why);
    if (too_long) break;
  }
  return lines;
}

std::size_t visit_file(const std::filesystem::path& file, const RecordVisitor& visitor) {
  LineReader reader(file);
  return visit_lines(reader, file, visitor);
}

// `path` as the files it stands for: itself, or a directory's .jsonl files.
std::vector<std::filesystem::path> result_files(const std::string& path) {
  if (!std::filesystem::is_directory(path)) return {path};
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(path))
    if (entry.path().extension() == ".jsonl") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw std::runtime_error(path + ": no .jsonl result files in this directory");
  return files;
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

// Why the line is not a record of this build, or "" when it is one.
std::string parse_record_line(std::string_view line, nlohmann::json& value) {
  try {
    value = nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception& e) {  // a syntax error, or a number beyond a double
    return "not valid JSON (" + shortened(without_json_tag(e.what())) + ")";
  }
  // The parser takes a NUL byte for the end of its input: what follows one
  // was never read, so the line is not one JSON value.
  if (const auto nul = line.find('\0'); nul != std::string_view::npos)
    return "not valid JSON (a NUL byte at byte " + std::to_string(nul + 1) + ")";
  if (!value.is_object() || value.value("schema", nlohmann::json()) != kResultSchema)
    return std::string("not a gradsync result record (expected \"schema\": \"") + kResultSchema +
           "\")";
  const nlohmann::json version = value.value("schema_version", nlohmann::json());
  if (version != kResultSchemaVersion)
    return "schema_version " + shortened(version.dump()) +
           " is not known to this gradsync (it reads version " +
           std::to_string(kResultSchemaVersion) + ")";
  return "";
}

std::size_t visit_results(const std::vector<std::string>& paths, const RecordVisitor& visitor) {
  std::size_t lines = 0;
  for (const auto& path : paths)
    for (const auto& file : result_files(path)) lines += visit_file(file, visitor);
  return lines;
}

std::vector<StoredRecord> read_records(const std::filesystem::path& file) {
  std::vector<StoredRecord> records;
  visit_file(file, {[&](StoredRecord&& r) { records.push_back(std::move(r)); }, {}});
  return records;
}

std::vector<StoredRecord> read_results(const std::string& path) {
  return read_results(std::vector<std::string>{path});
}

std::vector<StoredRecord> read_results(const std::vector<std::string>& paths) {
  std::vector<StoredRecord> records;
  visit_results(paths, {[&](StoredRecord&& r) { records.push_back(std::move(r)); }, {}});
  return records;
}

ReadOutcome read_results_tolerant(const std::vector<std::string>& paths) {
  ReadOutcome outcome;
  outcome.lines =
      visit_results(paths, {[&](StoredRecord&& r) { outcome.records.push_back(std::move(r)); },
                            [&](const std::string& bad) { outcome.bad_lines.push_back(bad); }});
  return outcome;
}

ReadOutcome read_results_text(std::string_view text, const std::string& name, bool strict) {
  ReadOutcome outcome;
  LineReader reader(text, name);
  RecordVisitor visitor{[&](StoredRecord&& r) { outcome.records.push_back(std::move(r)); }, {}};
  if (!strict) visitor.bad_line = [&](const std::string& bad) { outcome.bad_lines.push_back(bad); };
  outcome.lines = visit_lines(reader, name, visitor);
  return outcome;
}

void append_record(const std::filesystem::path& file, const nlohmann::json& record) {
  std::string line = record.dump() + "\n";  // dump() escapes newlines: one record, one line
  Fd fd(::open(file.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644));
  if (fd.get() < 0) throw file_error(file, "cannot open for appending");
  if (!ends_with_newline(fd.get())) line.insert(line.begin(), '\n');
  std::size_t written = 0;
  const int error = write_all(fd.get(), line, written);
  if (error == 0) {
    if (const int close_error = fd.close())
      throw file_error(file, "cannot append a record", close_error);
    return;
  }
  if (written > 0) {
    // With O_APPEND the offset stands just past what went out; the line began
    // `written` bytes before, unless another process appended in between.
    const off_t end = ::lseek(fd.get(), 0, SEEK_CUR);
    struct stat st {};
    const bool ours_last = end >= 0 && ::fstat(fd.get(), &st) == 0 && st.st_size == end;
    if (!ours_last || ::ftruncate(fd.get(), end - static_cast<off_t>(written)) != 0)
      throw std::runtime_error(file.string() + ": cannot append a record: " + std::strerror(error) +
                               "; the part written could not be removed (" +
                               (ours_last ? std::strerror(errno) : "another process appended") +
                               ")");
  }
  throw file_error(file, "cannot append a record", error);
}

namespace {

// write_file_replacing for a path that names no regular file (/dev/null,
// /dev/stdout, a pipe): written through in place, since a rename would put
// a regular file where the device or pipe was.
void write_through(const std::filesystem::path& file, const std::string& text,
                   const std::string& what) {
  Fd fd(::open(file.c_str(), O_WRONLY | O_CLOEXEC));
  if (fd.get() < 0) throw file_error(file, "cannot write " + what);
  std::size_t written = 0;
  int error = write_all(fd.get(), text, written);
  if (const int close_error = fd.close(); error == 0) error = close_error;
  if (error != 0) throw file_error(file, "cannot write " + what, error);
}

}  // namespace

void write_file_replacing(const std::filesystem::path& file, const std::string& text,
                          const std::string& what) {
  struct stat st {};
  if (::stat(file.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
    return write_through(file, text, what);
  std::filesystem::path temp = file;
  temp += ".tmp." + std::to_string(::getpid());
  auto fail = [&](int error) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    return std::runtime_error(file.string() + ": cannot write " + what + ": " +
                              std::strerror(error));
  };
  Fd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666));
  if (fd.get() < 0) throw file_error(file, "cannot write " + what);
  std::size_t written = 0;
  int error = write_all(fd.get(), text, written);
  if (error == 0 && ::fsync(fd.get()) != 0) error = errno;
  if (const int close_error = fd.close(); error == 0) error = close_error;
  if (error == 0 && ::rename(temp.c_str(), file.c_str()) != 0) error = errno;
  if (error != 0) throw fail(error);
}

}  // namespace gradsync
