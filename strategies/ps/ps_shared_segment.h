#pragma once
// A shared-memory segment between the processes of one host, for the
// parameter server's local data path (ps_zmq.cc): a worker stages its pushes
// in one, a shard writes its sums in two (one per step parity), and the
// peers on the same host read them in place instead of receiving them over
// a socket. ZeroMQ then carries only the headers.
//
// POSIX shared memory (shm_open): the creator makes it under a fresh name;
// the peers open it by that name during the job's set-up, and the creator
// removes the name as soon as every peer has it open (unlink), so that
// nothing is left in /dev/shm after the job, however it ends (a process
// killed inside that set-up window is the one exception). Only the creator
// grows a segment, and it reserves the pages as it does (fallocate), so a
// full /dev/shm is an error with a message, never a SIGBUS later. A peer
// maps what the segment holds now and maps again when it needs more (the
// creator has grown it since).
//
// Nothing read from a segment is trusted beyond its bounds: at() refuses a
// range past the segment's end.

#include <cstddef>
#include <cstdint>
#include <string>

namespace gradsync {

class SharedSegment {
 public:
  // A new, empty segment under a fresh name; `role` goes into the name
  // ("in", "out0"), for whoever lists /dev/shm during the set-up.
  static SharedSegment create(const char* role);
  // Another process's segment, by the name it was created under.
  static SharedSegment open(const std::string& name);

  SharedSegment() = default;
  SharedSegment(SharedSegment&& other) noexcept;
  SharedSegment& operator=(SharedSegment&& other) noexcept;
  ~SharedSegment();
  SharedSegment(const SharedSegment&) = delete;
  SharedSegment& operator=(const SharedSegment&) = delete;

  const std::string& name() const { return name_; }
  bool valid() const { return fd_ >= 0; }

  // Removes the name (the segment lives on while it is open); the creator
  // calls it once the peers have opened it, and the destructor if not yet.
  void unlink();
  // The creator: the segment at least `bytes` long, its pages reserved.
  // Throws (naming /dev/shm) when they cannot be.
  void reserve(std::size_t bytes);
  // Whether the segment holds `elements` elements of `element_bytes` each
  // (no overflow for any count).
  bool holds(std::uint64_t elements, std::size_t element_bytes) const;
  // [offset, offset + bytes) of the segment, mapped; valid until the next
  // call. Throws when the segment is shorter.
  std::byte* at(std::size_t offset, std::size_t bytes);

 private:
  void map(std::size_t bytes);
  void close() noexcept;

  int fd_ = -1;
  std::string name_;
  bool named_ = false;  // the name still exists, and this object made it
  std::byte* base_ = nullptr;
  std::size_t mapped_ = 0;
  std::size_t reserved_ = 0;  // creator: bytes reserved so far
};

}  // namespace gradsync
