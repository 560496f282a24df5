#include "strategies/ps/ps_shared_segment.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>
#include <stdexcept>
#include <utility>

namespace gradsync {
namespace {

std::string errno_text(int error) { return std::strerror(error); }

// "/gradsync-ps-<pid>-<n>-<random>-<role>": unique on the host, and O_EXCL
// makes sure of it.
std::string fresh_name(const char* role) {
  static std::atomic<unsigned> counter{0};
  std::random_device random;
  return fmt::format("/gradsync-ps-{}-{}-{:08x}-{}", getpid(), counter++, random(), role);
}

}  // namespace

SharedSegment SharedSegment::create(const char* role) {
  SharedSegment segment;
  for (int attempt = 0; attempt < 8 && segment.fd_ < 0; ++attempt) {
    segment.name_ = fresh_name(role);
    segment.fd_ = shm_open(segment.name_.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
    if (segment.fd_ < 0 && errno != EEXIST)
      throw std::runtime_error(fmt::format("ps-zmq: cannot create shared memory {} in /dev/shm: {}",
                                           segment.name_, errno_text(errno)));
  }
  if (segment.fd_ < 0)
    throw std::runtime_error("ps-zmq: cannot find a free name for shared memory in /dev/shm");
  segment.named_ = true;
  return segment;
}

SharedSegment SharedSegment::open(const std::string& name) {
  SharedSegment segment;
  segment.name_ = name;
  segment.fd_ = shm_open(name.c_str(), O_RDWR, 0);
  if (segment.fd_ < 0)
    throw std::runtime_error(
        fmt::format("ps-zmq: cannot open a peer's shared memory {}: {}", name, errno_text(errno)));
  return segment;
}

SharedSegment::SharedSegment(SharedSegment&& other) noexcept { *this = std::move(other); }

SharedSegment& SharedSegment::operator=(SharedSegment&& other) noexcept {
  if (this == &other) return *this;
  close();
  fd_ = std::exchange(other.fd_, -1);
  name_ = std::move(other.name_);
  named_ = std::exchange(other.named_, false);
  base_ = std::exchange(other.base_, nullptr);
  mapped_ = std::exchange(other.mapped_, 0);
  reserved_ = std::exchange(other.reserved_, 0);
  return *this;
}

SharedSegment::~SharedSegment() { close(); }

void SharedSegment::close() noexcept {
  unlink();
  if (base_ != nullptr) munmap(base_, mapped_);
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  base_ = nullptr;
  mapped_ = 0;
}

void SharedSegment::unlink() {
  if (named_) shm_unlink(name_.c_str());
  named_ = false;
}

void SharedSegment::reserve(std::size_t bytes) {
  if (bytes <= reserved_) return;
  // fallocate, not ftruncate: on tmpfs the pages are taken now, so that a
  // full /dev/shm fails here instead of killing a process later (SIGBUS).
  if (const int error = posix_fallocate(fd_, 0, static_cast<off_t>(bytes)); error != 0)
    throw std::runtime_error(fmt::format(
        "ps-zmq: cannot reserve {} bytes of shared memory in /dev/shm: {} (make /dev/shm "
        "larger, or send the data through ZeroMQ: --ps-shm off)",
        bytes, errno_text(error)));
  reserved_ = bytes;
}

bool SharedSegment::holds(std::uint64_t elements, std::size_t element_bytes) const {
  if (fd_ < 0 || element_bytes == 0) return false;
  // What is mapped is there (a segment never shrinks): no system call on the
  // path of every push, only when the creator may have grown it since.
  if (elements <= mapped_ / element_bytes) return true;
  struct stat info {};
  if (fstat(fd_, &info) != 0) return false;
  return elements <= static_cast<std::uint64_t>(info.st_size) / element_bytes;
}

std::byte* SharedSegment::at(std::size_t offset, std::size_t bytes) {
  const std::size_t end = offset + bytes;
  if (end < offset)
    throw std::runtime_error("ps-zmq: a shared-memory range past the address space");
  if (end > mapped_) {
    struct stat info {};
    if (fstat(fd_, &info) != 0)
      throw std::runtime_error(
          fmt::format("ps-zmq: shared memory {}: {}", name_, errno_text(errno)));
    const auto size = static_cast<std::size_t>(info.st_size);
    if (end > size)
      throw std::runtime_error(fmt::format(
          "ps-zmq: bytes [{}, {}) of shared memory {}, which holds {}", offset, end, name_, size));
    map(size);
  }
  return base_ + offset;
}

void SharedSegment::map(std::size_t bytes) {
  void* mapped = base_ == nullptr ? mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0)
                                  : mremap(base_, mapped_, bytes, MREMAP_MAYMOVE);
  if (mapped == MAP_FAILED)
    throw std::runtime_error(fmt::format("ps-zmq: cannot map {} bytes of shared memory {}: {}",
                                         bytes, name_, errno_text(errno)));
  base_ = static_cast<std::byte*>(mapped);
  mapped_ = bytes;
}

}  // namespace gradsync
