#include "strategies/ps_socket.h"

#include <fmt/core.h>

#include <cerrno>

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

}  // namespace gradsync
