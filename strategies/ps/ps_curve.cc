#include "strategies/ps/ps_curve.h"

#include <fmt/core.h>

#include <charconv>
#include <stdexcept>

#include "strategies/ps/ps_socket.h"

namespace gradsync {
namespace {

constexpr std::size_t kZ85KeyChars = 40;
constexpr std::size_t kBinaryKeyBytes = 32;

void set_z85(zmq::socket_t& socket, int option, const std::string& key, const char* what) {
  if (key.size() != kZ85KeyChars)
    throw std::invalid_argument(
        fmt::format("ps-zmq: the {} is {} characters, not a Z85 CURVE key", what, key.size()));
  // A Z85 key is passed as its 40 characters and the terminating zero.
  if (zmq_setsockopt(socket.handle(), option, key.c_str(), key.size() + 1) != 0)
    throw std::runtime_error(
        fmt::format("ps-zmq: cannot set the {}: {}", what, zmq_strerror(zmq_errno())));
}

std::string binary_key(const std::string& z85) {
  std::string out(kBinaryKeyBytes, '\0');
  if (z85.size() != kZ85KeyChars ||
      zmq_z85_decode(reinterpret_cast<std::uint8_t*>(out.data()), z85.c_str()) == nullptr)
    throw std::invalid_argument("ps-zmq: a worker's public key is not a Z85 CURVE key");
  return out;
}

bool is_loopback(const std::string& host) {
  return host.starts_with("127.") || host == "::1" || host == "[::1]" || host == "localhost" ||
         host == "lo";
}

}  // namespace

PsKeyPair make_ps_keypair() {
  char public_key[kZ85KeyChars + 1] = {};
  char secret_key[kZ85KeyChars + 1] = {};
  if (zmq_curve_keypair(public_key, secret_key) != 0)
    throw std::runtime_error(
        fmt::format("ps-zmq --ps-curve needs a libzmq with CURVE: {}", zmq_strerror(zmq_errno())));
  return {public_key, secret_key};
}

bool ps_curve_enabled(const PsZmqOptions& ps, bool job_spans_hosts) {
  if (ps.curve == "on") return true;
  if (ps.curve == "off") return false;
  if (ps.transport != "tcp") return false;
  return ps.bind_host == "auto" ? job_spans_hosts : !is_loopback(ps.bind_host);
}

void set_curve_server(zmq::socket_t& socket, const PsKeyPair& keys) {
  socket.set(zmq::sockopt::curve_server, true);
  set_z85(socket, ZMQ_CURVE_SECRETKEY, keys.secret_key, "shard's secret key");
  socket.set(zmq::sockopt::zap_domain, "gradsync-ps");
}

void set_curve_client(zmq::socket_t& socket, const PsKeyPair& keys,
                      const std::string& server_public_key) {
  set_z85(socket, ZMQ_CURVE_SERVERKEY, server_public_key, "shard's public key");
  set_z85(socket, ZMQ_CURVE_PUBLICKEY, keys.public_key, "worker's public key");
  set_z85(socket, ZMQ_CURVE_SECRETKEY, keys.secret_key, "worker's secret key");
}

std::optional<std::uint32_t> authenticated_worker(zmq::message_t& frame) {
  const char* user_id = zmq_msg_gets(frame.handle(), "User-Id");
  if (user_id == nullptr) return std::nullopt;
  const std::string_view text(user_id);
  std::uint32_t worker = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), worker);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return worker;
}

PsZapHandler::PsZapHandler(zmq::context_t& context,
                           const std::vector<std::string>& worker_public_keys)
    : socket_(context, zmq::socket_type::rep) {
  for (const std::string& key : worker_public_keys) worker_keys_.push_back(binary_key(key));
  socket_.set(zmq::sockopt::linger, 0);
  socket_.bind("inproc://zeromq.zap.01");
}

void PsZapHandler::answer_pending() {
  // ZAP (RFC 27): version, request id, domain, address, routing id,
  // mechanism, then the credentials: for CURVE, the client's public key.
  for (auto request = recv_message(socket_); !request.empty(); request = recv_message(socket_)) {
    std::string user_id;
    if (request.size() == 7 && request[5].to_string_view() == "CURVE")
      for (std::size_t w = 0; w < worker_keys_.size(); ++w)
        if (request[6].to_string_view() == worker_keys_[w]) user_id = std::to_string(w);
    const bool allowed = !user_id.empty();
    const std::string request_id = request.size() > 1 ? request[1].to_string() : std::string();
    socket_.send(zmq::str_buffer("1.0"), zmq::send_flags::sndmore);
    socket_.send(zmq::buffer(request_id), zmq::send_flags::sndmore);
    socket_.send(zmq::buffer(std::string(allowed ? "200" : "400")), zmq::send_flags::sndmore);
    socket_.send(zmq::buffer(std::string(allowed ? "OK" : "not a worker of this job")),
                 zmq::send_flags::sndmore);
    socket_.send(zmq::buffer(user_id), zmq::send_flags::sndmore);
    socket_.send(zmq::str_buffer(""), zmq::send_flags::none);
  }
}

}  // namespace gradsync
