#include "strategies/ps/ps_cross_memory.h"

#include <fmt/core.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <sstream>
#include <stdexcept>

namespace gradsync {
namespace {

// The word a peer reads back to prove that it can: random per process, so
// that a read of some other memory cannot pass by chance.
std::uint64_t probe_value() {
  static const std::uint64_t value = [] {
    std::random_device random;
    return (std::uint64_t{random()} << 32) | random() | 1;
  }();
  return value;
}
const std::uint64_t* probe_word() {
  static const std::uint64_t word = probe_value();
  return &word;
}

std::uint64_t address_of(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

}  // namespace

std::string CrossMemory::offer() {
#ifdef PR_SET_PTRACER
  prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);  // EINVAL without Yama: nothing to allow
#endif
  return fmt::format("{}:{:x}:{:x}", getpid(), address_of(probe_word()), *probe_word());
}

std::optional<CrossMemory> CrossMemory::attach(const std::string& tag) {
  long pid = 0;
  std::uint64_t address = 0, value = 0;
  char colon1 = 0, colon2 = 0;
  std::istringstream in(tag);
  in >> pid >> colon1 >> std::hex >> address >> colon2 >> value;
  if (!in || colon1 != ':' || colon2 != ':' || pid <= 0 || address == 0) return std::nullopt;
  const CrossMemory peer(static_cast<pid_t>(pid));
  std::uint64_t read_back = 0;
  try {
    peer.read(address, reinterpret_cast<std::byte*>(&read_back), sizeof read_back);
  } catch (const std::runtime_error&) {
    return std::nullopt;
  }
  if (read_back != value) return std::nullopt;
  return peer;
}

bool CrossMemory::self() const { return pid_ == getpid(); }

void CrossMemory::read(std::uint64_t address, std::byte* to, std::size_t bytes) const {
  transfer(address, to, bytes, false);
}

void CrossMemory::write(std::uint64_t address, const std::byte* from, std::size_t bytes) const {
  transfer(address, const_cast<std::byte*>(from), bytes, true);
}

// One transfer between `local` here and `address` in the process, either
// way: the system call for another process, memcpy for this one.
void CrossMemory::transfer(std::uint64_t address, std::byte* local, std::size_t bytes,
                           bool into_process) const {
  if (bytes == 0) return;
  auto* there = reinterpret_cast<std::byte*>(address);
  if (self()) {
    std::memcpy(into_process ? there : local, into_process ? local : there, bytes);
    return;
  }
  const iovec here{local, bytes};
  const iovec remote{there, bytes};
  const ssize_t moved = into_process ? process_vm_writev(pid_, &here, 1, &remote, 1, 0)
                                     : process_vm_readv(pid_, &here, 1, &remote, 1, 0);
  if (moved < 0 && errno == ESRCH)
    throw ProcessGone(fmt::format("ps-zmq: process {} has exited", pid_), pid_);
  if (moved != static_cast<ssize_t>(bytes))
    throw std::runtime_error(fmt::format(
        "ps-zmq: cannot {} {} bytes {} process {}'s memory: {}", into_process ? "write" : "read",
        bytes, into_process ? "into" : "of", pid_,
        moved < 0 ? std::strerror(errno)
                  : fmt::format("only {} {}", moved, into_process ? "written" : "read")));
}

}  // namespace gradsync
