#include "strategies/ps/ps_socket.h"

#include <fmt/core.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace gradsync {

std::string zmq_version_text() {
  auto [major, minor, patch] = zmq::version();
  return fmt::format("{}.{}.{}", major, minor, patch);
}

void set_unbounded_queues(zmq::socket_t& socket) {
  socket.set(zmq::sockopt::sndhwm, 0);
  socket.set(zmq::sockopt::rcvhwm, 0);
}

void poll_for(zmq::pollitem_t* items, std::size_t count, std::chrono::milliseconds timeout) {
  try {
    zmq::poll(items, count, timeout);
  } catch (const zmq::error_t& e) {
    if (e.num() != EINTR) throw;
  }
}

std::vector<zmq::message_t> recv_message(zmq::socket_t& socket) {
  std::vector<zmq::message_t> frames;
  zmq::message_t frame;
  if (!socket.recv(frame, zmq::recv_flags::dontwait)) return frames;
  frames.push_back(std::move(frame));
  while (frames.back().more()) {
    zmq::message_t next;
    (void)socket.recv(next);  // the parts of a message are delivered together
    frames.push_back(std::move(next));
  }
  return frames;
}

void send_message(zmq::socket_t& socket, const PsHeader& header, zmq::message_t&& payload) {
  const PsHeaderBytes bytes = encode_header(header);
  socket.send(zmq::const_buffer(bytes.data(), bytes.size()), zmq::send_flags::sndmore);
  socket.send(payload, zmq::send_flags::none);
}

namespace {

constexpr const char* kMonitorEndpoint = "inproc://gradsync-ps-handshakes";

std::string describe_failure(std::uint16_t event, std::uint32_t value) {
  switch (event) {
    case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH:
      return fmt::format(
          "a handshake the ZAP handler denied (status {}): not a key of this job's "
          "workers",
          value);
    case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL:
      return fmt::format(
          "a handshake that broke the ZeroMQ protocol (error 0x{:x}: a bad "
          "greeting, or another security mechanism)",
          value);
    default:
      return fmt::format("a handshake that failed ({})", zmq_strerror(static_cast<int>(value)));
  }
}

}  // namespace

HandshakeMonitor::HandshakeMonitor(zmq::context_t& context, zmq::socket_t& watched)
    : watched_(watched), events_(context, zmq::socket_type::pair) {
  const int events = ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
                     ZMQ_EVENT_HANDSHAKE_FAILED_AUTH;
  if (zmq_socket_monitor(watched.handle(), kMonitorEndpoint, events) != 0)
    throw std::runtime_error(
        fmt::format("ps-zmq: cannot monitor handshakes: {}", zmq_strerror(zmq_errno())));
  events_.set(zmq::sockopt::linger, 0);
  events_.connect(kMonitorEndpoint);
}

HandshakeMonitor::~HandshakeMonitor() {
  if (watched_) zmq_socket_monitor(watched_.handle(), nullptr, 0);
  events_.close();
}

std::vector<std::string> HandshakeMonitor::take_failures() {
  std::vector<std::string> failures;
  // An event is two frames: 2 bytes of event and 4 of value, then the endpoint.
  for (auto event = recv_message(events_); !event.empty(); event = recv_message(events_)) {
    if (event[0].size() < 6) continue;
    std::uint16_t id = 0;
    std::uint32_t value = 0;
    std::memcpy(&id, event[0].data(), sizeof id);
    std::memcpy(&value, event[0].data<std::byte>() + sizeof id, sizeof value);
    failures.push_back(describe_failure(id, value));
  }
  return failures;
}

zmq::message_t float_aligned(zmq::message_t&& message) {
  if (reinterpret_cast<std::uintptr_t>(message.data()) % alignof(float) == 0)
    return std::move(message);
  zmq::message_t copy(message.data(), message.size());
  if (reinterpret_cast<std::uintptr_t>(copy.data()) % alignof(float) != 0)
    throw std::logic_error("ps-zmq: ZeroMQ allocated a misaligned message");
  return copy;
}

}  // namespace gradsync
