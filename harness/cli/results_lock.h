#pragma once
// One writer per results folder. A command that appends records to a folder
// (sweep --out DIR; train --out, collectives --json and simulate --out FILE:
// the folder FILE is in) first takes the folder's lock: flock(2) on
// DIR/.gradsync.lock, whose text says who holds it (JSON: pid, host, command,
// since when, and a token). A second writer is refused with one line naming
// the holder, or waits for it with --wait.
//
// - Released at the end: the holder empties the file and closes it; the file
//   itself stays (removing it would let two writers lock two different files).
// - Stale: the kernel drops a flock when its process dies (kill -9, a crash),
//   so a lock left by a dead holder is simply free; its text still names that
//   holder, and the next writer says in one line that it takes it over.
// - Nested: a sweep's own runs write into the sweep's folder. The sweep puts
//   its lock's token in the environment (GRADSYNC_RESULTS_LOCK; mpirun.sh
//   passes it to every host); a run that finds the folder locked by the
//   holder of that token writes under its lock instead of refusing.
// - NFS: Linux sends flock on NFS to the server as a whole-file lock (NFSv4,
//   or NFSv3 with lockd), so writers on different hosts exclude each other;
//   the server frees a dead client's lock when its lease ends (NFSv4: about
//   90 s). A mount with local_lock=flock or nolock locks on each host alone.
//   A file system without locks at all: one warning line, and no lock.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace gradsync {

inline constexpr const char* kResultsLockFile = ".gradsync.lock";
inline constexpr const char* kResultsLockVariable = "GRADSYNC_RESULTS_LOCK";

// Who holds a folder's lock, as its lock file says.
struct LockHolder {
  long pid = 0;
  std::string host, command;  // command: "gradsync sweep"
  std::string since;          // UTC, "2026-12-06T17:20:05Z"
  std::string token;          // "host:pid:nanoseconds", unique to one taking of the lock
};

nlohmann::json lock_holder_json(const LockHolder& holder);
// The holder a lock file's text names; pid 0 when it names none (empty, torn).
LockHolder lock_holder_from_text(const std::string& text);

// "gradsync sweep (pid 4242 on node1, since 17:20:05 UTC)", with the date
// when `since` is not on `today` ("2026-12-06"); "another gradsync (its lock
// file does not say which)" for a holder that names none.
std::string holder_text(const LockHolder& holder, const std::string& today);

// The refusal: "results/ is being written by <holder>; wait for it, or add --wait".
std::string busy_text(const std::string& folder, const LockHolder& holder,
                      const std::string& today);

// A folder's lock, held until destroyed (or the process ends). An empty one
// holds nothing: no lock was needed or possible, or the process writes under
// the lock of the sweep that started it.
class ResultsLock {
 public:
  ResultsLock() = default;
  ResultsLock(int fd, std::string token) : fd_(fd), token_(std::move(token)) {}
  ResultsLock(ResultsLock&& other) noexcept;
  ResultsLock& operator=(ResultsLock&& other) noexcept;
  ResultsLock(const ResultsLock&) = delete;
  ResultsLock& operator=(const ResultsLock&) = delete;
  ~ResultsLock();

  bool held() const { return fd_ >= 0; }
  const std::string& token() const { return token_; }

 private:
  void release();
  int fd_ = -1;
  std::string token_;
};

// Takes the lock of `folder` (an existing directory) for `command`
// ("gradsync sweep"). Held by another process: throws std::runtime_error
// with busy_text's line, or with `wait` says on stderr in one line that it
// waits, and waits as long as the holder writes (no bound; a signal ends
// the wait: Ctrl-C's default action, or std::runtime_error "stopped while
// waiting" when a handler interrupted it). Held by the sweep whose token GRADSYNC_RESULTS_LOCK
// holds: an empty lock. Left by a dead holder: taken over, saying so in one line on stderr. A lock
// file that cannot be made: throws std::runtime_error naming it.
ResultsLock lock_results_folder(const std::filesystem::path& folder, const std::string& command,
                                bool wait);

// The lock of the folder the output file `path` is in, as above; an empty
// lock for an empty path, for a path that exists and is not a regular file
// (/dev/null, a fifo), and for a folder that does not exist (the write
// itself says so, as without a lock).
ResultsLock lock_output_folder(const std::string& path, const std::string& command, bool wait);

}  // namespace gradsync
