#pragma once
// The ZeroMQ plumbing the parameter server's two sides share: socket set-up,
// sending and receiving one whole two-frame message.

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "strategies/ps/ps_wire.h"

namespace gradsync {

// "ZeroMQ 4.3.4": the library this process runs with.
std::string zmq_version_text();

// No high-water mark in either direction. A ROUTER drops, without a word,
// messages to a peer whose queue is full, and a worker's queue of replies
// fills while it is still pushing; the memory is bounded by the buffers being
// reduced anyway (replies share the server's sum, pushes the user's buffer).
void set_unbounded_queues(zmq::socket_t& socket);

// zmq_poll, where a signal that interrupts the wait counts as "nothing yet"
// (callers loop until their deadline anyway).
void poll_for(zmq::pollitem_t* items, std::size_t count, std::chrono::milliseconds timeout);

// Every frame of one message, or none when no message is waiting (the call
// never blocks for the first frame; later frames of a message arrive with it).
std::vector<zmq::message_t> recv_message(zmq::socket_t& socket);

// `message`, or an aligned copy of it when it does not start where a float
// may: ZeroMQ may hand over a small received message at any byte offset
// inside its receive buffer, and floats are read and written only where they
// are aligned. The copy is malloc'd, hence aligned; large payloads arrive in
// their own allocation, so they are never copied.
zmq::message_t float_aligned(zmq::message_t&& message);

// Sends the header frame then `payload` as the last frame.
void send_message(zmq::socket_t& socket, const PsHeader& header, zmq::message_t&& payload);

// The handshakes that failed on one socket (a peer that is not ZeroMQ,
// another security mechanism, a CURVE key the ZAP handler denied), through
// ZeroMQ's socket monitor: a PAIR socket in the same context that the
// owner's poll loop services.
class HandshakeMonitor {
 public:
  HandshakeMonitor(zmq::context_t& context, zmq::socket_t& watched);
  ~HandshakeMonitor();
  HandshakeMonitor(const HandshakeMonitor&) = delete;
  HandshakeMonitor& operator=(const HandshakeMonitor&) = delete;

  zmq::socket_t& socket() { return events_; }
  // One line per failure reported since the last call.
  std::vector<std::string> take_failures();

 private:
  zmq::socket_t& watched_;
  zmq::socket_t events_;
};

}  // namespace gradsync
