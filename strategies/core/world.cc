#include "strategies/core/world.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include <unistd.h>

#include "strategies/core/bounded_wait.h"
#include "strategies/core/init_watch.h"

namespace gradsync {

void check_mpi(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw std::runtime_error(std::string(what) + " failed: " + std::string(text, len));
}

MpiSession::MpiSession(int* argc, char*** argv, double init_timeout_s, int launcher_rank) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    InitWatch watch(init_timeout_s, launcher_rank);
    check_mpi(MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &thread_level_), "MPI_Init_thread");
  } else {
    MPI_Query_thread(&thread_level_);
  }
  // Errors come back as return codes, so that they become exceptions with a message.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

MpiSession::~MpiSession() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

// The calls that make communicators are collectives, and all but
// MPI_Comm_idup are blocking ones: bounded like mpi-allreduce's
// MPI_Allreduce, by a watchdog (BlockingCallWatch).
template <typename Call>
void bounded_blocking(MPI_Comm comm, double timeout_s, const char* what, Call call) {
  BlockingCallWatch watch(comm, timeout_s);
  watch.run(what, 0, call);
}

namespace {

// A duplicate of `comm`, made by the non-blocking call under the bounded
// wait; unbounded (timeout 0 or less), by the blocking one, which every MPI
// has (SimGrid's SMPI has no MPI_Comm_idup).
MPI_Comm bounded_dup(MPI_Comm comm, double timeout_s) {
  MPI_Comm dup = MPI_COMM_NULL;
  if (timeout_s <= 0) {
    check_mpi(MPI_Comm_dup(comm, &dup), "MPI_Comm_dup");
    return dup;
  }
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(MPI_Comm_idup(comm, &dup, &request), "MPI_Comm_idup");
  wait_collective(request, 0, {"MPI_Comm_dup", comm, timeout_s});
  return dup;
}

}  // namespace

World::World(MPI_Comm comm, double timeout_s)
    : comm_(bounded_dup(comm, timeout_s)), timeout_s_(timeout_s) {
  describe();
}

World::World(MPI_Comm owned, double timeout_s, Adopt) : comm_(owned), timeout_s_(timeout_s) {
  describe();
}

World::World(MPI_Comm owned, const World& same_ranks)
    : comm_(owned),
      rank_(same_ranks.rank_),
      size_(same_ranks.size_),
      local_rank_(same_ranks.local_rank_),
      local_size_(same_ranks.local_size_),
      hostnames_(same_ranks.hostnames_),
      timeout_s_(same_ranks.timeout_s_) {
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
}

void World::describe() {
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  MPI_Comm node = host_comm();
  MPI_Comm_rank(node, &local_rank_);
  MPI_Comm_size(node, &local_size_);
  MPI_Comm_free(&node);
  char name[MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  MPI_Get_processor_name(name, &len);
  hostnames_ = allgather(std::string(name, len));
}

World::~World() {
  if (comm_ != MPI_COMM_NULL) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&comm_);
  }
}

World::World(World&& other) noexcept { *this = std::move(other); }

World& World::operator=(World&& other) noexcept {
  if (this != &other) {
    std::swap(comm_, other.comm_);
    std::swap(rank_, other.rank_);
    std::swap(size_, other.size_);
    std::swap(local_rank_, other.local_rank_);
    std::swap(local_size_, other.local_size_);
    std::swap(hostnames_, other.hostnames_);
    std::swap(timeout_s_, other.timeout_s_);
  }
  return *this;
}

// The same ranks on the same hosts: only the communicator is new, so what
// describe() would ask again (a blocking MPI_Comm_split_type, which spins
// inside MPICH on an oversubscribed host, and an allgather) is copied.
World World::duplicate() const { return World(bounded_dup(comm_, timeout_s_), *this); }

World World::split(int color) const {
  MPI_Comm part = MPI_COMM_NULL;
  bounded_blocking(comm_, timeout_s_, "MPI_Comm_split", [&] {
    check_mpi(MPI_Comm_split(comm_, color, rank_, &part), "MPI_Comm_split");
  });
  return World(part, timeout_s_, Adopt{});
}

MPI_Comm World::host_comm() const {
  MPI_Comm host = MPI_COMM_NULL;
  bounded_blocking(comm_, timeout_s_, "MPI_Comm_split_type", [&] {
    check_mpi(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host),
              "MPI_Comm_split_type");
  });
  return host;
}

World World::split_by_host() const { return World(host_comm(), timeout_s_, Adopt{}); }

std::vector<std::string> World::hosts() const {
  std::vector<std::string> distinct;
  for (const auto& h : hostnames_)
    if (std::find(distinct.begin(), distinct.end(), h) == distinct.end()) distinct.push_back(h);
  return distinct;
}

// Unbounded, the blocking form: every MPI's fastest, and the one SimGrid's
// SMPI runs with its selector's algorithms (its non-blocking collectives
// send every pair's message: at 128 simulated ranks start-up took 31 s of
// host time with them, 1.1 s with the blocking ones under Open MPI's
// selector).
template <typename Blocking, typename Posting>
void World::collective(const char* what, std::size_t bytes, Blocking blocking, Posting post) const {
  if (timeout_s_ <= 0) return check_mpi(blocking(), what);
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(post(&request), what);
  wait_collective(request, bytes, {what, comm_, timeout_s_});
}

double World::reduce(double value, MPI_Op op, const char* what) const {
  double out = 0;
  collective(
      what, sizeof value, [&] { return MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, op, comm_); },
      [&](MPI_Request* r) { return MPI_Iallreduce(&value, &out, 1, MPI_DOUBLE, op, comm_, r); });
  return out;
}

double World::max(double value) const { return reduce(value, MPI_MAX, "MPI_Allreduce(max)"); }

double World::min(double value) const { return reduce(value, MPI_MIN, "MPI_Allreduce(min)"); }

std::uint64_t World::sum(std::uint64_t value) const {
  std::uint64_t out = 0;
  collective(
      "MPI_Allreduce(sum)", sizeof value,
      [&] { return MPI_Allreduce(&value, &out, 1, MPI_UINT64_T, MPI_SUM, comm_); },
      [&](MPI_Request* r) {
        return MPI_Iallreduce(&value, &out, 1, MPI_UINT64_T, MPI_SUM, comm_, r);
      });
  return out;
}

double World::mean(double value) const {
  return reduce(value, MPI_SUM, "MPI_Allreduce(mean)") / size_;
}

std::vector<double> World::max_each(std::vector<double> values) const {
  const int n = static_cast<int>(values.size());
  collective(
      "MPI_Allreduce(max_each)", values.size() * sizeof(double),
      [&] { return MPI_Allreduce(MPI_IN_PLACE, values.data(), n, MPI_DOUBLE, MPI_MAX, comm_); },
      [&](MPI_Request* r) {
        return MPI_Iallreduce(MPI_IN_PLACE, values.data(), n, MPI_DOUBLE, MPI_MAX, comm_, r);
      });
  return values;
}

// Two fixed-size allgathers, of the lengths and then of every value padded
// to the longest: an MPI's allgather of small blocks takes log2(ranks)
// rounds (Bruck's algorithm, recursive doubling), where its allgatherv of
// varying ones takes ranks - 1 (a ring): at 1,024 simulated ranks under
// SMPI, a million messages for each of the few allgathers a run makes.
// Every rank then holds ranks x the longest value, which the values' own
// total bounds when they are alike (host names, reports, configurations).
std::vector<std::string> World::allgather(const std::string& value) const {
  int len = static_cast<int>(value.size());
  std::vector<int> lens(size_);
  collective(
      "MPI_Allgather", sizeof len,
      [&] { return MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, comm_); },
      [&](MPI_Request* r) {
        return MPI_Iallgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, comm_, r);
      });
  const int longest = *std::max_element(lens.begin(), lens.end());
  std::string mine = value;
  mine.resize(longest);
  std::string all(static_cast<std::size_t>(longest) * size_, '\0');
  collective(
      "MPI_Allgather", longest,
      [&] {
        return MPI_Allgather(mine.data(), longest, MPI_CHAR, all.data(), longest, MPI_CHAR, comm_);
      },
      [&](MPI_Request* r) {
        return MPI_Iallgather(mine.data(), longest, MPI_CHAR, all.data(), longest, MPI_CHAR,
                              comm_, r);
      });
  std::vector<std::string> out(size_);
  for (int i = 0; i < size_; ++i) out[i] = all.substr(static_cast<std::size_t>(i) * longest, lens[i]);
  return out;
}

std::string World::broadcast(std::string value, int root) const {
  std::uint64_t len = value.size();
  collective(
      "MPI_Bcast(length)", sizeof len,
      [&] { return MPI_Bcast(&len, 1, MPI_UINT64_T, root, comm_); },
      [&](MPI_Request* r) { return MPI_Ibcast(&len, 1, MPI_UINT64_T, root, comm_, r); });
  value.resize(len);
  const int n = static_cast<int>(len);
  collective(
      "MPI_Bcast", len, [&] { return MPI_Bcast(value.data(), n, MPI_CHAR, root, comm_); },
      [&](MPI_Request* r) { return MPI_Ibcast(value.data(), n, MPI_CHAR, root, comm_, r); });
  return value;
}

void World::barrier() const {
  collective(
      "MPI_Barrier", 0, [&] { return MPI_Barrier(comm_); },
      [&](MPI_Request* r) { return MPI_Ibarrier(comm_, r); });
}

int world_rank() {
  int initialized = 0, finalized = 0, rank = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;  // 0 in a process without MPI (a unit test), as a single process is
}

}  // namespace gradsync
