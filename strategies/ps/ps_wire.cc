// Encoding is byte by byte in little-endian order, never a memcpy of a struct,
// so the format does not depend on the compiler's padding or the host's byte
// order, and decoding reads exactly the 48 bytes it checked it has.

#include "strategies/ps/ps_wire.h"

#include <fmt/core.h>

namespace gradsync {
namespace {

template <typename T>
void put(std::span<std::byte> out, std::size_t at, T value) {
  for (std::size_t i = 0; i < sizeof(T); ++i)
    out[at + i] = static_cast<std::byte>((static_cast<std::uint64_t>(value) >> (8 * i)) & 0xff);
}

template <typename T>
T get(std::span<const std::byte> in, std::size_t at) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i)
    value |= static_cast<std::uint64_t>(in[at + i]) << (8 * i);
  return static_cast<T>(value);
}

bool known_type(std::uint16_t type) {
  return type == static_cast<std::uint16_t>(PsMessageType::push) ||
         type == static_cast<std::uint16_t>(PsMessageType::reply) ||
         type == static_cast<std::uint16_t>(PsMessageType::bye) ||
         type == static_cast<std::uint16_t>(PsMessageType::status) ||
         type == static_cast<std::uint16_t>(PsMessageType::init) ||
         type == static_cast<std::uint16_t>(PsMessageType::gradient) ||
         type == static_cast<std::uint16_t>(PsMessageType::push_shared) ||
         type == static_cast<std::uint16_t>(PsMessageType::reply_shared) ||
         type == static_cast<std::uint16_t>(PsMessageType::failed) ||
         type == static_cast<std::uint16_t>(PsMessageType::received) ||
         type == static_cast<std::uint16_t>(PsMessageType::pull);
}

}  // namespace

const char* to_string(PsMessageType type) {
  switch (type) {
    case PsMessageType::push:
      return "push";
    case PsMessageType::reply:
      return "reply";
    case PsMessageType::bye:
      return "bye";
    case PsMessageType::status:
      return "status";
    case PsMessageType::init:
      return "init";
    case PsMessageType::gradient:
      return "gradient";
    case PsMessageType::push_shared:
      return "shared push";
    case PsMessageType::reply_shared:
      return "shared reply";
    case PsMessageType::failed:
      return "failure";
    case PsMessageType::received:
      return "receipt";
    case PsMessageType::pull:
      return "pull";
  }
  return "unknown";
}

PsHeaderBytes encode_header(const PsHeader& header) {
  PsHeaderBytes out{};
  put(out, 0, kPsMagic);
  put(out, 4, kPsVersion);
  put(out, 6, static_cast<std::uint16_t>(header.type));
  put(out, 8, header.step);
  put(out, 16, header.partition);
  put(out, 20, header.worker);
  put(out, 24, header.offset);
  put(out, 32, header.count);
  put(out, 40, header.total);
  return out;
}

PsDecoded decode_header(std::span<const std::byte> bytes) {
  PsDecoded out;
  if (bytes.size() != kPsHeaderBytes) {
    out.error = fmt::format("header frame has {} bytes, expected {}", bytes.size(), kPsHeaderBytes);
    return out;
  }
  if (auto magic = get<std::uint32_t>(bytes, 0); magic != kPsMagic) {
    out.error = fmt::format("bad magic 0x{:08x} (expected 0x{:08x}): not a gradsync ps message",
                            magic, kPsMagic);
    return out;
  }
  if (auto version = get<std::uint16_t>(bytes, 4); version != kPsVersion) {
    out.error = fmt::format("wire version {} (this build speaks {}): mixed gradsync builds?",
                            version, kPsVersion);
    return out;
  }
  auto type = get<std::uint16_t>(bytes, 6);
  if (!known_type(type)) {
    out.error = fmt::format("unknown message type {}", type);
    return out;
  }
  out.header.type = static_cast<PsMessageType>(type);
  out.header.step = get<std::uint64_t>(bytes, 8);
  out.header.partition = get<std::uint32_t>(bytes, 16);
  out.header.worker = get<std::uint32_t>(bytes, 20);
  out.header.offset = get<std::uint64_t>(bytes, 24);
  out.header.count = get<std::uint64_t>(bytes, 32);
  out.header.total = get<std::uint64_t>(bytes, 40);
  // A status always names whom it waits for, at a step with pending partitions.
  if (const PsHeader& h = out.header; h.type == PsMessageType::status) {
    if (h.count == 0)
      out.error = "a status that waits for no worker";
    else if (h.total == 0)
      out.error = "a status with no partition pending";
    else if (h.offset != 0)
      out.error = fmt::format("a status with offset {} (expected 0)", h.offset);
  }
  return out;
}

std::string check_payload_size(const PsHeader& header, std::size_t payload_bytes,
                               std::size_t element_bytes) {
  if (header.type == PsMessageType::pull || header.type == PsMessageType::received)
    return payload_bytes == 0 ? std::string()
                              : fmt::format("a {} with a payload of {} bytes (it has none)",
                                            to_string(header.type), payload_bytes);
  const bool status = header.type == PsMessageType::status;
  const bool text = header.type == PsMessageType::failed;
  const std::size_t unit = status ? sizeof(std::uint32_t) : text ? 1 : element_bytes;
  // Compared by division: count * unit could overflow for a hostile count.
  if (unit > 0 && payload_bytes % unit == 0 && payload_bytes / unit == header.count) return {};
  return fmt::format("{} payload has {} bytes but the header says {} {}", to_string(header.type),
                     payload_bytes, header.count,
                     status                  ? "worker indices"
                     : text                  ? "bytes of text"
                     : unit == sizeof(float) ? "floats"
                                             : "16-bit elements");
}

PsSharedPush decode_shared_push(std::span<const std::byte> payload, bool compressed) {
  constexpr std::size_t kElement = sizeof(std::uint32_t);
  if (payload.size() != kElement && payload.size() != kElement + sizeof(std::uint64_t)) return {};
  const auto bytes = get<std::uint32_t>(payload, 0);
  if (bytes != sizeof(float) && !(compressed && bytes == sizeof(std::uint16_t))) return {};
  const std::uint64_t address =
      payload.size() == kElement ? 0 : get<std::uint64_t>(payload, kElement);
  if (payload.size() > kElement && address == 0) return {};  // in place names an address
  return {bytes, address};
}

std::vector<std::byte> encode_shared_push(std::size_t element_bytes, std::uint64_t address) {
  std::vector<std::byte> out(sizeof(std::uint32_t) + (address == 0 ? 0 : sizeof(std::uint64_t)));
  put(out, 0, static_cast<std::uint32_t>(element_bytes));
  if (address != 0) put(out, sizeof(std::uint32_t), address);
  return out;
}

std::vector<std::byte> encode_status_workers(std::span<const std::uint32_t> workers) {
  std::vector<std::byte> out(workers.size() * sizeof(std::uint32_t));
  for (std::size_t i = 0; i < workers.size(); ++i) put(out, i * sizeof(std::uint32_t), workers[i]);
  return out;
}

PsStatusWorkers decode_status_workers(const PsHeader& header, std::span<const std::byte> payload,
                                      std::uint32_t workers) {
  PsStatusWorkers out;
  if (std::string e = check_payload_size(header, payload.size()); !e.empty()) {
    out.error = std::move(e);
    return out;
  }
  if (header.count > workers) {
    out.error = fmt::format("a status naming {} missing workers of {}", header.count, workers);
    return out;
  }
  for (std::size_t i = 0; i < header.count; ++i) {
    const auto worker = get<std::uint32_t>(payload, i * sizeof(std::uint32_t));
    if (worker >= workers) {
      out.error =
          fmt::format("a status naming worker {}, but there are {} workers", worker, workers);
      return out;
    }
    for (std::uint32_t seen : out.workers)
      if (seen == worker) {
        out.error = fmt::format("a status naming worker {} twice", worker);
        return out;
      }
    out.workers.push_back(worker);
  }
  return out;
}

}  // namespace gradsync
