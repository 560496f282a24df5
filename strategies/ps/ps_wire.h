#pragma once
// The parameter server's wire format. Every message is two ZeroMQ frames (the
// server's ROUTER socket adds the sender's identity frame in front):
//
//   frame 1: a fixed 48-byte header, little-endian, versioned
//   frame 2: the payload, `count` float32 values, or `count` 16-bit values
//            of the job's --compression format (empty for bye; for status,
//            `count` u32 worker indices)
//
// Header layout (byte offsets):
//    0 magic u32 ("GSPS")      4 version u16        6 type u16 (push, reply, bye, status,
//                                                    init, gradient)
//    8 step u64               16 partition u32     20 worker u32
//   24 offset u64 (elements)  32 count u64 (elements)
//   40 total u64: the element count of the whole buffer, from which both sides
//      derive the partition plan (ps_plan.h) and so check offset and count.
//
// A status (server -> worker, version 2) says whom a stalled shard still
// waits for: step is the stalled step, partition the first partition of it
// still pending, total how many of its partitions are pending, count how
// many workers are missing, and the payload lists them; offset is 0.
//
// Asynchronous and stale-synchronous training (--ps-mode async|ssp, version
// 3): the shards own the parameters. An init carries a partition's initial
// parameters (the reply: the shard's copy of them); a gradient carries one
// worker's gradient of a partition at its step (the reply: the partition's
// parameters after the shard applied it, SGD on the shard).
//
// The shared-memory data path (ranks on one host, version 4): a shared push
// says that the worker's values of the partition are in its shared
// segment at the partition's offset (the payload: the element size, u32: 4,
// or 2 for a 16-bit format); a shared reply says that the sum is in the
// shard's segment of the step's parity, packed (PsPlan::packed_offset), and
// has no payload.
//
// The rotated schedule (--ps-schedule rotated, version 5; ps_schedule.h):
// a worker keeps a window of pushes unacknowledged and of pulls
// outstanding. A received says that a push of the partition arrived whole at
// the shard; a pull asks the shard for the partition's sum, which it sends
// (a reply) once every worker's push is in. Both have no payload, and the
// header of the push they concern.
//
// Nothing received is trusted: decode_header checks the size, magic, version
// and type and says what is wrong instead of guessing.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gradsync {

inline constexpr std::uint32_t kPsMagic = 0x53505347;  // "GSPS" as little-endian bytes
inline constexpr std::uint16_t kPsVersion = 6;  // 2: status; 3: init, gradient; 4: shared; 5: pull;
                                                // 6: in-place shared pushes
inline constexpr std::size_t kPsHeaderBytes = 48;

enum class PsMessageType : std::uint16_t {
  push = 1,          // worker -> server: my values of one partition at one step
  reply = 2,         // server -> worker: the sum over all workers of that partition
  bye = 3,           // worker -> server: this worker is done; no payload
  status = 4,        // server -> worker: the workers a stalled step still waits for
  init = 5,          // worker -> server: a partition's initial parameters (async, ssp)
  gradient = 6,      // worker -> server: my gradient of one partition; apply it (async, ssp)
  push_shared = 7,   // worker -> server: a push whose values are in my shared segment, or in place
  reply_shared = 8,  // server -> worker: a reply whose sum is in the shard's shared segment
  failed = 9,        // server -> worker: the shard cannot go on; the payload says why (count bytes)
  received = 10,     // server -> worker: your push of this partition arrived whole (rotated)
  pull = 11,         // worker -> server: send me this partition's sum once it is ready (rotated)
};

const char* to_string(PsMessageType type);

struct PsHeader {
  PsMessageType type = PsMessageType::push;
  std::uint64_t step = 0;
  std::uint32_t partition = 0;
  std::uint32_t worker = 0;
  std::uint64_t offset = 0;
  std::uint64_t count = 0;
  std::uint64_t total = 0;
  bool operator==(const PsHeader&) const = default;
};

using PsHeaderBytes = std::array<std::byte, kPsHeaderBytes>;

PsHeaderBytes encode_header(const PsHeader& header);

// Either a header or the reason the bytes are not one.
struct PsDecoded {
  PsHeader header;
  std::string error;  // empty when the bytes are a valid header
  bool ok() const { return error.empty(); }
};

PsDecoded decode_header(std::span<const std::byte> bytes);

// Empty when a payload of `payload_bytes` bytes holds header.count elements
// of `element_bytes` each (4: float32; 2: a 16-bit format under
// --compression; a status's worker indices are always 4; a pull and a
// receipt carry none); else why not.
std::string check_payload_size(const PsHeader& header, std::size_t payload_bytes,
                               std::size_t element_bytes = sizeof(float));

// A status message's payload: the missing workers' indices, u32 little-endian.
std::vector<std::byte> encode_status_workers(std::span<const std::uint32_t> workers);

// A shared push's payload: the element size (u32: 4, or 2 when the job
// compresses), then, for values the shard reads in place (ps_cross_memory.h),
// the address of the partition's first element in the worker's process
// (u64); without it the values are in the worker's shared segment.
struct PsSharedPush {
  std::size_t element_bytes = 0;  // 0: the payload is not a shared push's
  std::uint64_t address = 0;      // 0: in the segment
};
PsSharedPush decode_shared_push(std::span<const std::byte> payload, bool compressed);
std::vector<std::byte> encode_shared_push(std::size_t element_bytes, std::uint64_t address = 0);

// The workers a status message names, or why its payload is not a list of
// distinct worker indices below `workers` matching header.count.
struct PsStatusWorkers {
  std::vector<std::uint32_t> workers;
  std::string error;  // empty when the payload is valid
  bool ok() const { return error.empty(); }
};
PsStatusWorkers decode_status_workers(const PsHeader& header, std::span<const std::byte> payload,
                                      std::uint32_t workers);

}  // namespace gradsync
