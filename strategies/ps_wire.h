#pragma once
// The parameter server's wire format. Every message is two ZeroMQ frames (the
// server's ROUTER socket adds the sender's identity frame in front):
//
//   frame 1: a fixed 48-byte header, little-endian, versioned
//   frame 2: the payload, `count` float32 values (empty for bye)
//
// Header layout (byte offsets):
//    0 magic u32 ("GSPS")      4 version u16        6 type u16 (push, reply, bye)
//    8 step u64               16 partition u32     20 worker u32
//   24 offset u64 (elements)  32 count u64 (elements)
//   40 total u64: the element count of the whole buffer, from which both sides
//      derive the partition plan (ps_plan.h) and so check offset and count.
//
// Nothing received is trusted: decode_header checks the size, magic, version
// and type and says what is wrong instead of guessing.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace gradsync {

inline constexpr std::uint32_t kPsMagic = 0x53505347;  // "GSPS" as little-endian bytes
inline constexpr std::uint16_t kPsVersion = 1;
inline constexpr std::size_t kPsHeaderBytes = 48;

enum class PsMessageType : std::uint16_t {
  push = 1,   // worker -> server: my values of one partition at one step
  reply = 2,  // server -> worker: the sum over all workers of that partition
  bye = 3,    // worker -> server: this worker is done; no payload
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

// Empty when a payload of `payload_bytes` bytes matches header.count; else why not.
std::string check_payload_size(const PsHeader& header, std::size_t payload_bytes);

}  // namespace gradsync
