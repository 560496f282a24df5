#include "strategies/core/stall_board.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <exception>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <zmq.hpp>

#include "strategies/core/host_address.h"
#include "strategies/core/world.h"

namespace gradsync {
namespace {

constexpr std::string_view kMagic = "gradsync-stall";
constexpr std::int64_t kLongestReport = 4096;  // bytes; ZeroMQ drops a peer sending more

// The board of this process. Every member is under `mu`.
struct Board {
  zmq::context_t context{1};
  zmq::socket_t inbox{context, zmq::socket_type::pull};
  std::vector<std::string> endpoints;  // by world rank
  std::map<int, zmq::socket_t> outboxes;  // connected on the first report
  std::string token;
  int rank = 0;
  std::uint64_t sequence = 0;
  std::map<int, std::vector<int>> mine;   // ticket -> the ranks that wait waits for
  std::vector<int> told;                  // their union, as last told
  std::map<int, std::uint64_t> last_seen; // rank -> the newest sequence read from it
  std::map<int, std::vector<int>> theirs; // rank -> the ranks it waits for
  int next_ticket = 0;
};

std::mutex mu;
std::unique_ptr<Board> board;  // under mu

std::vector<int> union_of(const std::map<int, std::vector<int>>& waits) {
  std::set<int> all;
  for (const auto& [ticket, ranks] : waits) all.insert(ranks.begin(), ranks.end());
  return {all.begin(), all.end()};
}

// Sends this rank's union, if it changed, to every other rank. A full or
// unconnected queue drops the message: telling must never block a wait.
void tell(Board& b) {
  std::vector<int> now = union_of(b.mine);
  if (now == b.told) return;
  b.told = now;
  const std::string text = fmt::format("{} {} {} {} {}", kMagic, b.token, b.rank, ++b.sequence,
                                       now.empty() ? "-" : fmt::format("{}", fmt::join(now, ",")));
  for (int peer = 0; peer < static_cast<int>(b.endpoints.size()); ++peer) {
    if (peer == b.rank) continue;
    auto [it, fresh] = b.outboxes.try_emplace(peer, b.context, zmq::socket_type::push);
    if (fresh) {
      it->second.set(zmq::sockopt::linger, 0);
      it->second.set(zmq::sockopt::sndhwm, 16);
      it->second.connect(b.endpoints[peer]);
    }
    try {
      (void)it->second.send(zmq::const_buffer(text.data(), text.size()), zmq::send_flags::dontwait);
    } catch (const zmq::error_t&) {
      // A peer gone is what the board is there to find; nothing to say here.
    }
  }
}

bool parse_int(std::string_view text, long long& out) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc{} && end == text.data() + text.size();
}

std::string draw_token();

// Reads one report into b.theirs; malformed or foreign ones are dropped.
void read_report(Board& b, std::string_view text) {
  std::vector<std::string_view> words;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t space = std::min(text.find(' ', start), text.size());
    words.push_back(text.substr(start, space - start));
    start = space + 1;
  }
  const long long size = static_cast<long long>(b.endpoints.size());
  long long rank = 0, sequence = 0;
  if (words.size() != 5 || words[0] != kMagic || words[1] != b.token ||
      !parse_int(words[2], rank) || rank < 0 || rank >= size || rank == b.rank ||
      !parse_int(words[3], sequence) || sequence <= 0)
    return;
  std::vector<int> waits;
  if (words[4] != "-") {
    std::string_view list = words[4];
    for (std::size_t start = 0; start <= list.size();) {
      const std::size_t comma = std::min(list.find(',', start), list.size());
      long long peer = 0;
      if (!parse_int(list.substr(start, comma - start), peer) || peer < 0 || peer >= size) return;
      waits.push_back(static_cast<int>(peer));
      start = comma + 1;
    }
  }
  std::uint64_t& seen = b.last_seen[static_cast<int>(rank)];
  if (static_cast<std::uint64_t>(sequence) <= seen) return;
  seen = static_cast<std::uint64_t>(sequence);
  if (waits.empty()) b.theirs.erase(static_cast<int>(rank));
  else b.theirs[static_cast<int>(rank)] = std::move(waits);
}

void read_reports(Board& b) {
  zmq::message_t message;
  while (b.inbox.recv(message, zmq::recv_flags::dontwait))
    read_report(b, std::string_view(static_cast<const char*>(message.data()), message.size()));
}

std::string draw_token() {
  std::random_device device;
  std::uniform_int_distribution<std::uint64_t> any;
  return fmt::format("{:016x}{:016x}", any(device), any(device));
}

}  // namespace

StallBoard::StallBoard(const World& world) {
  auto b = std::make_unique<Board>();
  b->rank = world.rank();
  b->inbox.set(zmq::sockopt::linger, 0);
  b->inbox.set(zmq::sockopt::maxmsgsize, kLongestReport);
  // One host: a Unix socket in the abstract namespace (no port, no file
  // left behind, and no TCP queue shared with the data a stall is about);
  // across hosts: TCP on the address the other hosts reach this one at.
  b->inbox.bind(world.spans_hosts()
                    ? fmt::format("tcp://{}:*", this_host_address())
                    : fmt::format("ipc://@gradsync-stall-{}", draw_token()));
  b->endpoints = world.allgather(b->inbox.get(zmq::sockopt::last_endpoint));
  b->token = world.allgather(world.rank() == 0 ? draw_token() : std::string())[0];
  std::lock_guard lock(mu);
  board = std::move(b);
}

StallBoard::~StallBoard() {
  std::lock_guard lock(mu);
  board.reset();
}

StallReport::StallReport(int rank, std::span<const int> waits_for)
    : rank_(rank), unwinding_(std::uncaught_exceptions()) {
  std::lock_guard lock(mu);
  if (!board) return;
  ticket_ = board->next_ticket++;
  board->mine[ticket_].assign(waits_for.begin(), waits_for.end());
  tell(*board);
}

StallReport::~StallReport() {
  std::lock_guard lock(mu);
  if (!board || !board->mine.contains(ticket_)) return;
  board->mine.erase(ticket_);
  if (std::uncaught_exceptions() == unwinding_) tell(*board);
}

Blame StallReport::judge(std::span<const int> waits_for) {
  std::lock_guard lock(mu);
  if (!board || !board->mine.contains(ticket_))
    return judge_stall(rank_, waits_for, {});
  board->mine[ticket_].assign(waits_for.begin(), waits_for.end());
  tell(*board);
  read_reports(*board);
  // This rank's other waits (another thread's) are its own edges too.
  return judge_stall(rank_, union_of(board->mine), board->theirs);
}

}  // namespace gradsync
