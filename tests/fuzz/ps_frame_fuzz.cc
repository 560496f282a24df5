// libFuzzer target for the parameter server's header decoder
// (strategies/ps/ps_wire.h), built with clang and ASan + UBSan
// (GRADSYNC_BUILD_FUZZ, tests/fuzz/CMakeLists.txt).
//
// An input is a header frame, optionally followed by 8 bytes read as the size
// of the payload frame that came with it. For any input:
//   - decode_header of the whole input is an error unless it is exactly 48
//     bytes, and a failed decode says why;
//   - when the first 48 bytes decode, encoding the header gives those bytes
//     back, and decoding that encoding gives the same header;
//   - check_payload_size accepts the payload size exactly when it is count
//     elements (floats, or 16-bit ones), computed here in 128 bits so that no
//     count can wrap; a count near 2^64 / 4 is the case a multiplication in
//     64 bits would get wrong. A pull or a receipt names a slice of count
//     elements but carries no payload: only 0 bytes are accepted;
//   - the bytes after the header, read as a shared push's payload, decode
//     (4 bytes: an element size; 12: and a non-zero address) exactly when
//     encoding what they decode to gives them back.
// A broken property aborts, which libFuzzer reports with the input; UBSan does
// not recover, so undefined behaviour on the way aborts too.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "strategies/ps/ps_wire.h"

namespace {

void require(bool holds, const char* property) {
  if (holds) return;
  std::fprintf(stderr, "ps_frame_fuzz: %s\n", property);
  std::abort();
}

std::uint64_t little_endian_u64(std::span<const std::byte> bytes) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < bytes.size() && i < 8; ++i)
    value |= static_cast<std::uint64_t>(bytes[i]) << (8 * i);
  return value;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gradsync;
  const auto input = std::as_bytes(std::span(data, size));

  const PsDecoded whole = decode_header(input);
  require(!whole.ok() || size == kPsHeaderBytes, "a frame that is not 48 bytes decoded");
  require(whole.ok() || !whole.error.empty(), "a failed decode gave no reason");
  if (size < kPsHeaderBytes) return 0;
  const auto tail = input.subspan(kPsHeaderBytes);
  for (bool compressed : {false, true}) {
    const PsSharedPush push = decode_shared_push(tail, compressed);
    if (push.element_bytes == 0) continue;
    const std::vector<std::byte> again = encode_shared_push(push.element_bytes, push.address);
    require(std::equal(again.begin(), again.end(), tail.begin(), tail.end()),
            "encode(decode(shared push)) differs from the payload");
  }

  const auto frame = input.first(kPsHeaderBytes);
  const PsDecoded decoded = decode_header(frame);
  if (!decoded.ok()) return 0;
  const PsHeaderBytes encoded = encode_header(decoded.header);
  require(std::equal(encoded.begin(), encoded.end(), frame.begin()),
          "encode(decode(frame)) differs from the frame");
  const PsDecoded again = decode_header(encoded);
  require(again.ok() && again.header == decoded.header, "decode(encode(header)) differs");

  // Floats, and the 16-bit elements of --compression (a status's worker
  // indices are 4 bytes whatever the element size, a failure's text 1).
  const std::size_t payload_bytes = little_endian_u64(input.subspan(kPsHeaderBytes));
  for (std::size_t element : {sizeof(float), sizeof(std::uint16_t)}) {
    const std::size_t unit = decoded.header.type == PsMessageType::status   ? sizeof(std::uint32_t)
                             : decoded.header.type == PsMessageType::failed ? 1  // text
                                                                            : element;
    const bool bare = decoded.header.type == PsMessageType::pull ||
                      decoded.header.type == PsMessageType::received;
    const bool matches = bare ? payload_bytes == 0
                              : static_cast<unsigned __int128>(payload_bytes) ==
                                    static_cast<unsigned __int128>(decoded.header.count) * unit;
    const std::string verdict = check_payload_size(decoded.header, payload_bytes, element);
    require(verdict.empty() == matches,
            matches ? "a matching payload size was refused"
                    : "a payload size that is not count elements was accepted");
  }
  return 0;
}
