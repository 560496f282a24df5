#include "harness/cli/results_lock.h"

#include <fcntl.h>
#include <fmt/chrono.h>
#include <fmt/core.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <thread>

#include "harness/results/run_context.h"

namespace gradsync {
namespace {

namespace fs = std::filesystem;

// The lock file's descriptor until it is handed to a ResultsLock.
struct OpenFile {
  int fd = -1;
  ~OpenFile() {
    if (fd >= 0) ::close(fd);
  }
  int release() { return std::exchange(fd, -1); }
};

std::string host_name() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

std::string today_utc() { return fmt::format("{:%Y-%m-%d}", fmt::gmtime(std::time(nullptr))); }

// "results/": the folder as the user named it, "./" for the current one.
std::string folder_text(const fs::path& folder) {
  std::string text = folder.empty() ? "." : folder.string();
  if (text.back() != '/') text += '/';
  return text;
}

std::string lock_file_text(int fd) {
  std::string text(16 * 1024, '\0');
  const ssize_t n = ::pread(fd, text.data(), text.size(), 0);
  text.resize(n > 0 ? std::size_t(n) : 0);
  return text;
}

// 0 once the lock is ours, else flock's errno (EWOULDBLOCK: held elsewhere;
// EINTR: a signal whose handler asks no restart, a stop, ended the wait).
int take_flock(int fd, bool wait) {
  while (::flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0)
    if (errno != EINTR || wait) return errno;
  return 0;
}

// The holder a held lock's file names. A writer takes the lock, then writes
// its name: a file still empty is read again for up to a second, until it
// names one (else the holder is unnamed, pid 0).
LockHolder named_holder(int fd) {
  LockHolder holder = lock_holder_from_text(lock_file_text(fd));
  for (int tries = 0; holder.pid == 0 && tries < 100; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    holder = lock_holder_from_text(lock_file_text(fd));
  }
  return holder;
}

void say(const std::string& line) {
  fmt::print(stderr, "gradsync: {}\n", line);
  std::fflush(stderr);
}

LockHolder this_process(const std::string& command) {
  LockHolder me;
  me.pid = ::getpid();
  me.host = host_name();
  me.command = command;
  me.since = utc_now();
  const auto ns = std::chrono::system_clock::now().time_since_epoch() / std::chrono::nanoseconds(1);
  me.token = fmt::format("{}:{}:{}", me.host, me.pid, ns);
  return me;
}

// The lock is ours: the holder it names, if any, ended without releasing it;
// it now names this process.
ResultsLock claim(OpenFile& file, const std::string& folder, const std::string& command) {
  const LockHolder left = lock_holder_from_text(lock_file_text(file.fd));
  if (left.pid != 0)
    say(fmt::format("warning: {}: taking over the lock left by {}, which is no longer running",
                    folder, holder_text(left, today_utc())));
  const LockHolder me = this_process(command);
  const std::string text = lock_holder_json(me).dump() + "\n";
  if (::ftruncate(file.fd, 0) != 0 ||
      ::pwrite(file.fd, text.data(), text.size(), 0) != ssize_t(text.size()))
    throw std::runtime_error(fmt::format("{}: cannot write its lock file {}: {}", folder,
                                         kResultsLockFile, std::strerror(errno)));
  return ResultsLock(file.release(), me.token);
}

}  // namespace

nlohmann::json lock_holder_json(const LockHolder& h) {
  return {{"pid", h.pid},
          {"host", h.host},
          {"command", h.command},
          {"since", h.since},
          {"token", h.token}};
}

LockHolder lock_holder_from_text(const std::string& text) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  LockHolder h;
  if (!j.is_object() || !j.contains("pid") || !j["pid"].is_number_integer()) return h;
  h.pid = j["pid"].get<long>();
  const auto text_of = [&](const char* key) {
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
  };
  h.host = text_of("host");
  h.command = text_of("command");
  h.since = text_of("since");
  h.token = text_of("token");
  return h;
}

std::string holder_text(const LockHolder& h, const std::string& today) {
  if (h.pid == 0) return "another gradsync (its lock file does not say which)";
  // since: "2026-12-06T17:20:05Z"; the time alone when it is today.
  std::string since = h.since;
  if (since.size() == 20 && since[10] == 'T')
    since = (since.compare(0, 10, today) == 0 ? "" : since.substr(0, 10) + " ") +
            since.substr(11, 8) + " UTC";
  return fmt::format("{} (pid {} on {}, since {})", h.command.empty() ? "gradsync" : h.command,
                     h.pid, h.host.empty() ? "an unnamed host" : h.host,
                     since.empty() ? "an unknown time" : since);
}

std::string busy_text(const std::string& folder, const LockHolder& holder,
                      const std::string& today) {
  return fmt::format("{} is being written by {}; wait for it, or add --wait", folder,
                     holder_text(holder, today));
}

ResultsLock::ResultsLock(ResultsLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), token_(std::move(other.token_)) {}

ResultsLock& ResultsLock::operator=(ResultsLock&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = std::exchange(other.fd_, -1);
    token_ = std::move(other.token_);
  }
  return *this;
}

ResultsLock::~ResultsLock() { release(); }

void ResultsLock::release() {
  if (fd_ < 0) return;
  // Emptied first: a lock file that names a holder while free was left by a
  // process that died.
  if (::ftruncate(fd_, 0) != 0) {
  }
  ::close(fd_);  // drops the flock
  fd_ = -1;
}

ResultsLock lock_results_folder(const fs::path& folder, const std::string& command, bool wait) {
  const std::string shown = folder_text(folder);
  const fs::path path = folder / kResultsLockFile;
  OpenFile file{::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)};
  if (file.fd < 0)
    throw std::runtime_error(fmt::format("{}: cannot make its lock file {}: {}", shown,
                                         path.string(), std::strerror(errno)));
  int error = take_flock(file.fd, false);
  if (error == EWOULDBLOCK) {
    const LockHolder holder = named_holder(file.fd);
    const char* inherited = std::getenv(kResultsLockVariable);
    if (inherited && !holder.token.empty() && holder.token == inherited) return {};
    if (!wait) throw std::runtime_error(busy_text(shown, holder, today_utc()));
    say(fmt::format("{} is being written by {}; waiting for it to finish (--wait)", shown,
                    holder_text(holder, today_utc())));
    error = take_flock(file.fd, true);
    if (error == EINTR)
      throw std::runtime_error(fmt::format("{}: stopped while waiting for its lock", shown));
  }
  if (error != 0) {
    say(fmt::format("warning: {}: cannot be locked ({}); a second writer would not be refused",
                    shown, std::strerror(error)));
    return {};
  }
  return claim(file, shown, command);
}

ResultsLock lock_output_folder(const std::string& path, const std::string& command, bool wait) {
  if (path.empty()) return {};
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (fs::exists(status) && !fs::is_regular_file(status)) return {};
  const fs::path folder = fs::path(path).parent_path();
  if (!fs::is_directory(folder.empty() ? fs::path(".") : folder, error)) return {};
  return lock_results_folder(folder, command, wait);
}

}  // namespace gradsync
