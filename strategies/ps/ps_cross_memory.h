#pragma once
// Another process's memory, read and written in place: Linux's cross-memory
// attach (process_vm_readv and process_vm_writev), the single copy that Open
// MPI's shared-memory transport makes between ranks of one host. A shard of
// the parameter server reads a local worker's values where its gradients lie
// and writes the sum back there (ps_server_shared.cc), instead of the worker
// copying its values into a shared segment and the sum out of another.
//
// Whether the kernel lets a shard do it is found once, at set-up: each
// worker lets any process of its user attach (PR_SET_PTRACER, for Yama's
// ptrace scope 1) and names a probe word; the shard reads that word and
// compares its value. A kernel without the calls, a seccomp filter (a
// container's default) or a stricter ptrace scope makes the read fail, and
// that worker's values then go through its shared segment as before.
//
// A process reaching into itself (a shard thread and the worker it is
// colocated with) reads and writes the memory directly.

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace gradsync {

// A transfer to or from a process that has exited (ESRCH): what it pushed
// can no longer be read, and nothing needs writing to it.
struct ProcessGone : std::runtime_error {
  ProcessGone(const std::string& what, pid_t gone) : std::runtime_error(what), pid(gone) {}
  pid_t pid;
};

class CrossMemory {
 public:
  CrossMemory() = default;
  explicit CrossMemory(pid_t pid) : pid_(pid) {}

  // This process: lets the processes of its user attach (no-op where Yama is
  // absent) and names its probe, as "<pid>:<address>" for the set-up
  // exchange.
  static std::string offer();
  // The process that offered `tag` (offer()'s words), if its probe reads
  // back here; nullopt when the kernel refuses, or the tag is malformed.
  static std::optional<CrossMemory> attach(const std::string& tag);

  pid_t pid() const { return pid_; }
  bool self() const;
  // `bytes` at `address` in the process into `to`, and `from` into `address`;
  // throw std::runtime_error with the kernel's reason on a failed or short
  // transfer (an address the process does not map), ProcessGone when the
  // process has exited.
  void read(std::uint64_t address, std::byte* to, std::size_t bytes) const;
  void write(std::uint64_t address, const std::byte* from, std::size_t bytes) const;

 private:
  void transfer(std::uint64_t address, std::byte* local, std::size_t bytes,
                bool into_process) const;

  pid_t pid_ = 0;
};

}  // namespace gradsync
