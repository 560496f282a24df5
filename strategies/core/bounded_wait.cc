#include "strategies/core/bounded_wait.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "strategies/core/activity.h"
#include "strategies/core/wait_clock.h"
#include "strategies/core/world.h"

namespace gradsync {
namespace {

using Clock = std::chrono::steady_clock;

// MPI_Test calls between two readings of the clock: a reading costs a few
// tens of nanoseconds, a test with its progress call far more, so the loop
// runs at the pace of MPI_Wait's own and notices the deadline within
// microseconds.
constexpr int kTestsPerClockRead = 32;

Clock::duration after(double seconds) {
  return std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(std::min(seconds, 1e9)));
}

// "rank 1", "ranks 1, 3": ranks of `comm` as ranks of MPI_COMM_WORLD.
std::string ranks_text(MPI_Comm comm, std::vector<int> ranks) {
  MPI_Group group = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
  std::vector<int> in_world(ranks.size(), MPI_UNDEFINED);
  if (MPI_Comm_group(comm, &group) == MPI_SUCCESS &&
      MPI_Comm_group(MPI_COMM_WORLD, &world) == MPI_SUCCESS)
    MPI_Group_translate_ranks(group, static_cast<int>(ranks.size()), ranks.data(), world,
                              in_world.data());
  if (group != MPI_GROUP_NULL) MPI_Group_free(&group);
  if (world != MPI_GROUP_NULL) MPI_Group_free(&world);
  for (std::size_t i = 0; i < ranks.size(); ++i)
    if (in_world[i] != MPI_UNDEFINED) ranks[i] = in_world[i];
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return fmt::format("{} {}", ranks.size() == 1 ? "rank" : "ranks", fmt::join(ranks, ", "));
}

// Whom a collective waits for: every other rank of the communicator.
std::string other_ranks(int size) {
  return size == 2 ? "the other rank" : fmt::format("the other {} ranks", size - 1);
}

std::string collective_expired(const char* operation, std::size_t bytes, int size,
                               double timeout_s) {
  return fmt::format(
      "{} of {} bytes over {} ranks did not complete within {:g} s; a rank stopped or died",
      operation, bytes, size, timeout_s);
}

// Polls `done()` until it is true. At half the timeout warns once, saying
// whom it waits for (`owed()`, a text); at the timeout throws `expired(owed)`.
// owed() may find that the wait has ended meanwhile (it returns ""): then
// polling resumes, and the next test sees it done.
template <typename Done, typename Owed, typename Expired>
void poll(Done done, const Wait& wait, Owed owed, Expired expired) {
  // Time this process did not run (it was stopped) does not count (wait_clock.h).
  WaitClock clock(wait.operation, Clock::duration::zero());
  const Clock::duration warn_at = after(wait.timeout_s / 2);
  const Clock::duration give_up_at = after(wait.timeout_s);
  bool warned = false;
  for (;;) {
    for (int i = 0; i < kTestsPerClockRead; ++i)
      if (done()) return;
    const Clock::duration waited = clock.read();
    if (waited < warn_at || (warned && waited < give_up_at)) continue;
    const std::string whom = owed();
    if (whom.empty()) continue;
    if (!warned) {  // also when the clock jumped past both: a given-up wait has warned first
      warned = true;
      warn_stall(stall_line(world_rank(), std::chrono::duration<double>(waited).count(),
                            wait.operation, whom));
    }
    if (waited >= give_up_at) throw std::runtime_error(expired(whom));
  }
}

bool test_one(MPI_Request& request, const char* operation) {
  int flag = 0;
  check_mpi(MPI_Test(&request, &flag, MPI_STATUS_IGNORE), operation);
  return flag != 0;
}

}  // namespace

void wait_peer(MPI_Request& request, int peer, Direction direction, const Wait& wait) {
  wait_peers({&request, 1}, {&peer, 1}, direction, wait);
}

void wait_peers(std::span<MPI_Request> requests, std::span<const int> peers, Direction direction,
                const Wait& wait) {
  const int count = static_cast<int>(requests.size());
  auto done = [&] {
    if (count == 1) return test_one(requests[0], wait.operation);
    int flag = 0;
    check_mpi(MPI_Testall(count, requests.data(), &flag, MPI_STATUSES_IGNORE), wait.operation);
    return flag != 0;
  };
  if (done()) return;
  if (wait.timeout_s <= 0) {
    check_mpi(MPI_Waitall(count, requests.data(), MPI_STATUSES_IGNORE), wait.operation);
    return;
  }
  // Cold: which requests are still pending (testing each one alone
  // completes, and releases, those that are done).
  auto owed = [&]() -> std::string {
    std::vector<int> pending;
    for (std::size_t i = 0; i < requests.size(); ++i)
      if (requests[i] != MPI_REQUEST_NULL && !test_one(requests[i], wait.operation))
        pending.push_back(peers[i]);
    return pending.empty() ? "" : ranks_text(wait.comm, pending);
  };
  auto expired = [&](const std::string& whom) {
    const bool one = whom.starts_with("rank ");
    return direction == Direction::from_peer
               ? fmt::format("{}: no data from {} for {:g} s (--timeout); {} {} alive?",
                             wait.operation, whom, wait.timeout_s, one ? "is" : "are", whom)
               : fmt::format("{}: no data taken by {} for {:g} s (--timeout); {} {} alive?",
                             wait.operation, whom, wait.timeout_s, one ? "is" : "are", whom);
  };
  poll(done, wait, owed, expired);
}

void wait_collective(MPI_Request& request, std::size_t bytes, const Wait& wait) {
  auto done = [&] { return test_one(request, wait.operation); };
  if (done()) return;
  if (wait.timeout_s <= 0) {
    check_mpi(MPI_Wait(&request, MPI_STATUS_IGNORE), wait.operation);
    return;
  }
  int size = 1;
  MPI_Comm_size(wait.comm, &size);
  auto owed = [&] { return other_ranks(size); };
  auto expired = [&](const std::string&) {
    return collective_expired(wait.operation, bytes, size, wait.timeout_s);
  };
  poll(done, wait, owed, expired);
}

BlockingCallWatch::BlockingCallWatch(MPI_Comm comm, double timeout_s)
    : timeout_s_(timeout_s), rank_(world_rank()) {
  MPI_Comm_size(comm, &size_);
  if (timeout_s_ > 0) thread_ = std::thread([this] { watch(); });
}

BlockingCallWatch::~BlockingCallWatch() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

// The watchdog. It never reads the clock on the caller's behalf: it samples
// the call counter a few times per timeout, and a call still in flight at a
// later sample with the same number has lasted at least the time between.
void BlockingCallWatch::watch() {
  const auto tick = after(std::clamp(timeout_s_ / 20, 0.01, 1.0));
  std::uint64_t seen = 0;
  // A stopped process stops this thread too: the gap between its samples
  // around the stop is left out of the call's time (wait_clock.h).
  WaitClock clock("", tick);
  bool warned = false;
  std::unique_lock lock(mu_);
  while (!wake_.wait_for(lock, tick, [&] { return stop_; })) {
    const std::uint64_t call = calls_.load(std::memory_order_acquire);
    if (!in_flight_.load(std::memory_order_acquire) || call != seen) {
      seen = in_flight_.load(std::memory_order_acquire) ? call : 0;
      clock = WaitClock(operation_.load(std::memory_order_relaxed), tick);
      warned = false;
      continue;
    }
    const double waited = clock.read_s();
    const char* operation = operation_.load(std::memory_order_relaxed);
    if (!warned && waited >= timeout_s_ / 2) {
      warned = true;
      warn_stall(stall_line(rank_, waited, operation, other_ranks(size_)));
    }
    if (waited >= timeout_s_) {
      // The call cannot be made to throw: say what main would say, and end the job as it would.
      const std::string line = fmt::format(
          "gradsync: error: rank {}: {}\n", rank_,
          collective_expired(operation, bytes_.load(std::memory_order_relaxed), size_, timeout_s_));
      std::fputs(line.c_str(), stderr);
      MPI_Abort(MPI_COMM_WORLD, 1);
      std::_Exit(1);  // should MPI_Abort return
    }
  }
}

}  // namespace gradsync
