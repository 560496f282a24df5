#include "strategies/core/bounded_wait.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "strategies/core/activity.h"
#include "strategies/core/blame.h"
#include "strategies/core/launcher_env.h"
#include "strategies/core/stall_marks.h"
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

// Ranks of `comm` as ranks of MPI_COMM_WORLD, sorted, each once.
std::vector<int> in_world(MPI_Comm comm, std::vector<int> ranks) {
  if (ranks.empty()) return ranks;  // (SMPI refuses a translation of none, with a warning)
  MPI_Group group = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
  std::vector<int> translated(ranks.size(), MPI_UNDEFINED);
  if (MPI_Comm_group(comm, &group) == MPI_SUCCESS &&
      MPI_Comm_group(MPI_COMM_WORLD, &world) == MPI_SUCCESS)
    MPI_Group_translate_ranks(group, static_cast<int>(ranks.size()), ranks.data(), world,
                              translated.data());
  if (group != MPI_GROUP_NULL) MPI_Group_free(&group);
  if (world != MPI_GROUP_NULL) MPI_Group_free(&world);
  for (std::size_t i = 0; i < ranks.size(); ++i)
    if (translated[i] != MPI_UNDEFINED) ranks[i] = translated[i];
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

// Every rank of `comm` but this one, as ranks of MPI_COMM_WORLD: whom a
// collective waits for.
std::vector<int> other_ranks(MPI_Comm comm) {
  int size = 1, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  std::vector<int> others;
  for (int r = 0; r < size; ++r)
    if (r != rank) others.push_back(r);
  return in_world(comm, std::move(others));
}

int comm_size(MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  return size;
}

bool same(std::span<const int> a, std::span<const int> b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

// "is rank 2 alive?", and who else waited: "is rank 2 alive? (rank 1
// waited as well)".
std::string alive_question(const Blame& blame, int me) {
  if (blame.circle)
    return fmt::format("no rank stopped: {} all wait for one another (a link that moves nothing, or "
                       "a deadlock)",
                       ranks_text(blame.behind));
  const bool one = blame.stopped.size() == 1;
  std::string text = fmt::format("{} {} alive?", one ? "is" : "are", ranks_text(blame.stopped));
  std::vector<int> others;
  for (int rank : blame.behind)
    if (rank != me) others.push_back(rank);
  if (!others.empty())
    text += fmt::format(" ({} waited as well)", ranks_text(others));
  return text;
}

// Whom this rank waits for, in words: the stopped ranks when it waits for
// them itself, else its own peers and whom they wait behind.
std::string waited_for(const Blame& blame, std::span<const int> direct) {
  if (blame.circle) return ranks_text(direct);
  const bool waits_on_stopped = std::any_of(direct.begin(), direct.end(), [&](int rank) {
    return std::binary_search(blame.stopped.begin(), blame.stopped.end(), rank);
  });
  if (waits_on_stopped) return ranks_text(blame.stopped);
  return fmt::format("{}, behind {}", ranks_text(direct), ranks_text(blame.stopped));
}

std::string collective_expired(const char* operation, std::size_t bytes, int size,
                               double timeout_s, const Blame& blame,
                               std::span<const int> others, int me) {
  const std::string head = fmt::format(
      "{}{} over {} ranks{} did not complete within {:g} s", operation,
      bytes > 0 ? fmt::format(" of {} bytes", bytes) : "", size, in_activity(), timeout_s);
  // Every other rank blamed, more than one: nothing told which (no board).
  if (blame.stopped.size() > 1 && same(blame.stopped, others))
    return head + "; a rank stopped or died";
  if (blame.circle) return fmt::format("{} (--timeout); {}", head, alive_question(blame, me));
  return fmt::format("{}: {} stopped answering (--timeout); {}", head, ranks_text(blame.stopped),
                     alive_question(blame, me));
}

// Polls `done()` until it is true; `owed()` says whom the wait waits for
// (ranks of MPI_COMM_WORLD; empty when it has just ended), and a stall goes
// through its marks (stall_marks.h), giving up with `expired(blame, whom)`.
template <typename Done, typename Owed, typename Expired>
void poll(Done done, const Wait& wait, Owed owed, Expired expired) {
  // Time this process did not run (it was stopped) does not count (wait_clock.h).
  WaitClock clock(wait.operation, Clock::duration::zero());
  StallMarks marks(wait.timeout_s, world_rank());
  // On an oversubscribed host a wait that outlasts its first tests gives the
  // core away between rounds, as Open MPI's progress loop does there
  // (mpi_yield_when_idle) and MPICH's does not: the rank it waits for may
  // need that core (launcher_env.h). Asked once the first round found nothing.
  std::optional<bool> yield;
  for (;;) {
    for (int i = 0; i < kTestsPerClockRead; ++i)
      if (done()) return;
    if (!yield) yield = oversubscribed();
    if (marks.stalled())
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    else if (*yield)
      std::this_thread::yield();
    const Clock::duration waited = clock.read();
    if (waited < marks.next()) continue;
    const std::vector<int> whom = owed();
    if (whom.empty()) continue;  // it ended meanwhile: the next test sees it done
    if (const auto blame = marks.pass(whom, [&](const Blame& blame) {
          return stall_line(world_rank(), std::chrono::duration<double>(waited).count(),
                            wait.operation, waited_for(blame, whom));
        }))
      throw std::runtime_error(expired(*blame, whom));
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
  // Unbounded: straight to MPI_Waitall, without testing first. Under SMPI a
  // test of a request still in flight leaves SimGrid work that grows with
  // every later message (a 64 KiB ring at 256 ranks: 3 calls took 51 s of
  // SimGrid with the test first, 20 s without).
  if (wait.timeout_s <= 0) {
    check_mpi(MPI_Waitall(count, requests.data(), MPI_STATUSES_IGNORE), wait.operation);
    return;
  }
  if (done()) return;
  // Cold: which requests are still pending (testing each one alone
  // completes, and releases, those that are done).
  auto owed = [&] {
    std::vector<int> pending;
    for (std::size_t i = 0; i < requests.size(); ++i)
      if (requests[i] != MPI_REQUEST_NULL && !test_one(requests[i], wait.operation))
        pending.push_back(peers[i]);
    return pending.empty() ? pending : in_world(wait.comm, std::move(pending));
  };
  auto expired = [&](const Blame& blame, std::span<const int> whom) {
    const char* verb = direction == Direction::from_peer ? "no data from" : "no data taken by";
    return fmt::format("{}{}: {} {} for {:g} s (--timeout); {}", wait.operation, in_activity(), verb,
                       waited_for(blame, whom), wait.timeout_s, alive_question(blame, world_rank()));
  };
  poll(done, wait, owed, expired);
}

std::vector<int> wait_some(std::span<MPI_Request> requests, std::span<const int> peers,
                           const Wait& wait) {
  const int count = static_cast<int>(requests.size());
  std::vector<int> indices(requests.size());
  int completed = 0;
  auto done = [&] {
    check_mpi(MPI_Testsome(count, requests.data(), &completed, indices.data(), MPI_STATUSES_IGNORE),
              wait.operation);
    return completed != 0;  // MPI_UNDEFINED when every request was null
  };
  if (wait.timeout_s <= 0)
    check_mpi(MPI_Waitsome(count, requests.data(), &completed, indices.data(), MPI_STATUSES_IGNORE),
              wait.operation);
  if (wait.timeout_s > 0 && !done()) {
    auto owed = [&] {
      std::vector<int> pending;
      for (std::size_t i = 0; i < requests.size(); ++i)
        if (requests[i] != MPI_REQUEST_NULL) pending.push_back(peers[i]);
      return in_world(wait.comm, std::move(pending));
    };
    auto expired = [&](const Blame& blame, std::span<const int> whom) {
      return fmt::format("{}{}: nothing from or to {} for {:g} s (--timeout); {}", wait.operation,
                         in_activity(), waited_for(blame, whom), wait.timeout_s,
                         alive_question(blame, world_rank()));
    };
    poll(done, wait, owed, expired);
  }
  indices.resize(completed == MPI_UNDEFINED ? 0 : completed);
  return indices;
}

void wait_collective(MPI_Request& request, std::size_t bytes, const Wait& wait) {
  auto done = [&] { return test_one(request, wait.operation); };
  if (wait.timeout_s <= 0) {
    check_mpi(MPI_Wait(&request, MPI_STATUS_IGNORE), wait.operation);
    return;
  }
  if (done()) return;
  int size = 1;
  MPI_Comm_size(wait.comm, &size);
  const std::vector<int> others = other_ranks(wait.comm);
  auto owed = [&] { return others; };
  auto expired = [&](const Blame& blame, std::span<const int>) {
    return collective_expired(wait.operation, bytes, size, wait.timeout_s, blame, others,
                              world_rank());
  };
  poll(done, wait, owed, expired);
}

BlockingCallWatch::BlockingCallWatch(MPI_Comm comm, double timeout_s)
    : timeout_s_(timeout_s),
      rank_(world_rank()),
      others_(other_ranks(comm)),
      size_(comm_size(comm)),
      thread_(timeout_s > 0, [this](WatchdogThread::Ticks& ticks) { watch(ticks); }) {}

BlockingCallWatch::~BlockingCallWatch() = default;

// The watchdog. It never reads the clock on the caller's behalf: it samples
// the call counter a few times per timeout, and a call still in flight at a
// later sample with the same number has lasted at least the time between.
// It calls no MPI function (the caller is inside one, and MPI runs
// MPI_THREAD_SERIALIZED): it tells and judges over the stall board alone.
void BlockingCallWatch::watch(WatchdogThread::Ticks& ticks) {
  const auto tick = wait_duration(std::clamp(timeout_s_ / 20, 0.01, 1.0));
  std::uint64_t seen = 0;
  // A stopped process stops this thread too: the gap between its samples
  // around the stop is left out of the call's time (wait_clock.h).
  WaitClock clock("", tick);
  StallMarks marks(timeout_s_, rank_);
  while (ticks.next(tick)) {
    const std::uint64_t call = calls_.load(std::memory_order_acquire);
    if (!in_flight_.load(std::memory_order_acquire) || call != seen) {
      seen = in_flight_.load(std::memory_order_acquire) ? call : 0;
      clock = WaitClock(operation_.load(std::memory_order_relaxed), tick);
      marks.reset();
      continue;
    }
    const Clock::duration waited = clock.read();
    if (waited < marks.next()) continue;
    const char* operation = operation_.load(std::memory_order_relaxed);
    const auto blame = marks.pass(others_, [&](const Blame& blame) {
      return stall_line(rank_, std::chrono::duration<double>(waited).count(), operation,
                        waited_for(blame, others_));
    });
    if (!blame) continue;
    // The call cannot be made to throw: say what main would say, and end the job as it would.
    const std::string line = fmt::format(
        "gradsync: error: rank {}: {}\n", rank_,
        collective_expired(operation, bytes_.load(std::memory_order_relaxed), size_, timeout_s_,
                           *blame, others_, rank_));
    std::fputs(line.c_str(), stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    std::_Exit(1);  // should MPI_Abort return
  }
}

}  // namespace gradsync
