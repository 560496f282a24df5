// What the parameter server's protocol costs on top of ZeroMQ itself, over
// the same transport (tcp loopback) in one process:
//
//   BM_RawZmqEcho      the best case of raw ZeroMQ: a DEALER sends N bytes
//                      zero-copy, a ROUTER thread sends the very message it
//                      received back; nothing else.
//   BM_RawZmqEchoInPlace  the same, and the echoed bytes copied into the
//                      buffer they were sent from: the least any allreduce
//                      over ZeroMQ does, since a reply cannot be received
//                      into the caller's memory (ZeroMQ's decoder allocates
//                      each large message itself).
//   BM_RawZmqEchoOtherProcess  the echo served by another process (forked
//                      before anything else starts), as a worker and a shard
//                      on different ranks of one host talk: the round trip
//                      that ps-zmq's allreduce at 2 ranks is measured against.
//   BM_PsZmqAllreduce  one PsClient and one PsServer (1 worker, 1 shard)
//                      reducing a buffer of the same N bytes: headers,
//                      partitions, checks, and the copy of the reply into the
//                      user's buffer that an allreduce has to make.
//
// Both count 2 N bytes per iteration (N each way across the socket), so the
// bytes/s columns read side by side. Each side has its own context with one
// I/O thread in both. Times are wall-clock (the work runs on other threads).
//   build/bin/ps_vs_raw_zmq_bench
#include <benchmark/benchmark.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>
#include <zmq.hpp>

#include "strategies/ps/ps_client.h"
#include "strategies/ps/ps_server.h"

namespace {

constexpr auto kEndpoint = "tcp://127.0.0.1:*";

// The echo loop itself: the very message received goes back, until an
// empty one says the client is done.
void echo_until_empty(zmq::socket_t& server) {
  for (;;) {
    zmq::message_t identity, data;
    (void)server.recv(identity);
    (void)server.recv(data);
    if (data.size() == 0) return;
    server.send(identity, zmq::send_flags::sndmore);
    server.send(data, zmq::send_flags::none);
  }
}

// The other process's echo endpoint, set by main() before any benchmark.
std::string g_other_process_endpoint;

void BM_RawZmqEchoOtherProcess(benchmark::State& state) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  zmq::context_t context(1);
  zmq::socket_t client(context, zmq::socket_type::dealer);
  client.connect(g_other_process_endpoint);
  std::vector<float> buffer(bytes / sizeof(float), 1.0f);
  for (auto _ : state) {
    client.send(zmq::message_t(buffer.data(), bytes, nullptr), zmq::send_flags::none);
    zmq::message_t reply;
    (void)client.recv(reply);
    std::memcpy(buffer.data(), reply.data(), std::min(bytes, reply.size()));
    benchmark::DoNotOptimize(buffer.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 2 * bytes);
}

// Forks the echo process (before any thread exists in this one) and returns
// its endpoint; the process ends when main() sends it an empty message.
std::string fork_echo_process(pid_t& child) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return {};
  child = fork();
  if (child == 0) {
    close(pipe_fds[0]);
    zmq::context_t context(1);
    zmq::socket_t server(context, zmq::socket_type::router);
    server.bind(kEndpoint);
    const std::string endpoint = server.get(zmq::sockopt::last_endpoint);
    (void)!write(pipe_fds[1], endpoint.data(), endpoint.size());
    close(pipe_fds[1]);
    echo_until_empty(server);
    _exit(0);
  }
  close(pipe_fds[1]);
  char text[256] = {};
  const ssize_t got = read(pipe_fds[0], text, sizeof text - 1);
  close(pipe_fds[0]);
  return got > 0 ? std::string(text, static_cast<std::size_t>(got)) : std::string();
}

// The echo, with the reply copied into the buffer when `in_place`.
void raw_echo(benchmark::State& state, bool in_place) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  zmq::context_t server_context(1);
  zmq::socket_t server(server_context, zmq::socket_type::router);
  server.bind(kEndpoint);
  const std::string endpoint = server.get(zmq::sockopt::last_endpoint);
  std::jthread echo([&] { echo_until_empty(server); });

  zmq::context_t client_context(1);
  zmq::socket_t client(client_context, zmq::socket_type::dealer);
  client.connect(endpoint);
  std::vector<float> buffer(bytes / sizeof(float), 1.0f);
  for (auto _ : state) {
    // Zero-copy: ZeroMQ reads the buffer; the echo proves it is done with it.
    client.send(zmq::message_t(buffer.data(), bytes, nullptr), zmq::send_flags::none);
    zmq::message_t reply;
    (void)client.recv(reply);
    if (in_place) std::memcpy(buffer.data(), reply.data(), std::min(bytes, reply.size()));
    benchmark::DoNotOptimize(reply.data());
    benchmark::DoNotOptimize(buffer.data());
  }
  client.send(zmq::message_t(), zmq::send_flags::none);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 2 * bytes);
}

// Ends the echo process: an empty message, then its exit.
void stop_echo_process(pid_t child) {
  {
    zmq::context_t context(1);
    zmq::socket_t client(context, zmq::socket_type::dealer);
    client.set(zmq::sockopt::linger, 1000);
    client.connect(g_other_process_endpoint);
    client.send(zmq::message_t(), zmq::send_flags::none);
  }
  waitpid(child, nullptr, 0);
}

void BM_RawZmqEcho(benchmark::State& state) { raw_echo(state, false); }
void BM_RawZmqEchoInPlace(benchmark::State& state) { raw_echo(state, true); }

void BM_PsZmqAllreduce(benchmark::State& state) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  gradsync::StrategyOptions options;  // the defaults, as a user gets them
  gradsync::PsServer server(0, 1, 1, options);
  std::jthread serve([&] { server.run(); });
  {
    gradsync::PsClient client({server.endpoint()}, 0, options);
    std::vector<float> buffer(bytes / sizeof(float), 1.0f);
    for (auto _ : state) {
      client.allreduce(buffer);
      benchmark::DoNotOptimize(buffer.data());
    }
  }  // bye: the server returns
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 2 * bytes);
}

}  // namespace

// Raw, raw in place and PS alternate size by size, so that each pair runs under the same
// load; three repetitions each, of which the median is the figure to read.
int main(int argc, char** argv) {
  pid_t echo_process = -1;
  g_other_process_endpoint = fork_echo_process(echo_process);
  if (g_other_process_endpoint.empty()) {
    std::fprintf(stderr, "ps_vs_raw_zmq_bench: cannot start the echo process\n");
    return 1;
  }
  // 4 B to 64 KiB, where the per-message cost is the figure, then up to 64 MiB.
  for (int64_t bytes = 4; bytes <= 64 << 20; bytes *= bytes < 64 << 10 ? 16 : 4) {
    using Bench = void (*)(benchmark::State&);
    for (auto [name, fn] :
         {std::pair<const char*, Bench>{"BM_RawZmqEcho", BM_RawZmqEcho},
          std::pair<const char*, Bench>{"BM_RawZmqEchoOtherProcess", BM_RawZmqEchoOtherProcess},
          std::pair<const char*, Bench>{"BM_RawZmqEchoInPlace", BM_RawZmqEchoInPlace},
          std::pair<const char*, Bench>{"BM_PsZmqAllreduce", BM_PsZmqAllreduce}})
      benchmark::RegisterBenchmark(name, fn)
          ->Arg(bytes)
          ->UseRealTime()
          ->MinTime(0.2)
          ->Repetitions(3)
          ->ReportAggregatesOnly(true);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
    stop_echo_process(echo_process);
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  stop_echo_process(echo_process);
  return 0;
}
