#pragma once
// The MPI job as the strategies and the harness see it. Bootstrap is MPI for
// every strategy: rank, size, local rank and host names come from here, and so
// do the small control collectives (endpoint exchange, timing maxima).

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gradsync {

// Initializes MPI for the process's lifetime (MPI_THREAD_SERIALIZED: a
// communication thread may call MPI while the main thread does not).
// `init_timeout_s` > 0 bounds MPI_Init (init_watch.h); `launcher_rank` is
// this process's rank as its launcher announced it.
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv, double init_timeout_s = 0, int launcher_rank = 0);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int thread_level() const { return thread_level_; }

 private:
  int thread_level_ = 0;
};

// A group of ranks with its own communicator (a duplicate, so that traffic of
// one user never matches another's messages). Move-only.
class World {
 public:
  // Duplicates `comm`; the new World owns the duplicate. `timeout_s` bounds
  // the calls that make it (as set_timeout's, below), so that a rank stopped
  // while the Worlds are made ends the job like one stopped later.
  explicit World(MPI_Comm comm = MPI_COMM_WORLD, double timeout_s = 0);
  ~World();
  World(World&& other) noexcept;
  World& operator=(World&& other) noexcept;
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // A new World over the same ranks, with a communicator of its own.
  World duplicate() const;
  // Splits into groups by `color`; ranks keep their relative order.
  World split(int color) const;
  // The ranks of this World on this rank's host (MPI_COMM_TYPE_SHARED), as
  // a World of their own; bounded by the timeout like the others.
  World split_by_host() const;

  MPI_Comm comm() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }
  const std::string& hostname() const { return hostnames_[rank_]; }
  const std::vector<std::string>& hostnames() const { return hostnames_; }
  // Distinct host names, in rank order of first appearance.
  std::vector<std::string> hosts() const;
  // Whether the ranks are on more than one host.
  bool spans_hosts() const { return hosts().size() > 1; }

  // How long each control collective below may wait for the other ranks
  // (--timeout): past half of it the stall inspector warns, past all of it
  // the collective throws one line saying a rank stopped or died
  // (strategies/core/bounded_wait.h). 0 or less, the default: unbounded.
  // duplicate() and split() keep it.
  void set_timeout(double seconds) { timeout_s_ = seconds; }
  double timeout() const { return timeout_s_; }

  // Small control collectives over this World.
  double max(double value) const;
  double min(double value) const;
  std::uint64_t sum(std::uint64_t value) const;
  double mean(double value) const;
  // Element-wise maximum over ranks; every rank passes the same length.
  std::vector<double> max_each(std::vector<double> values) const;
  std::vector<std::string> allgather(const std::string& value) const;
  // Rank `root`'s value, on every rank.
  std::string broadcast(std::string value, int root) const;
  void barrier() const;

 private:
  struct Adopt {};
  World(MPI_Comm owned, double timeout_s, Adopt);
  // Owns `owned`, a duplicate of `same_ranks`'s communicator, described as it is.
  World(MPI_Comm owned, const World& same_ranks);
  void describe();
  // This World's ranks on this rank's host, as a new communicator.
  MPI_Comm host_comm() const;
  // Runs one control collective `what`, moving `bytes` per rank: unbounded
  // (timeout 0 or less), its blocking form, `blocking()`; else its
  // non-blocking form, `post(&request)`, waited for under the timeout.
  template <typename Blocking, typename Posting>
  void collective(const char* what, std::size_t bytes, Blocking blocking, Posting post) const;
  // One double reduced with `op` over the ranks, bounded as above.
  double reduce(double value, MPI_Op op, const char* what) const;

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  int local_size_ = 1;
  std::vector<std::string> hostnames_;
  double timeout_s_ = 0;
};

// This process's rank in MPI_COMM_WORLD, the one every message names.
int world_rank();

// Throws std::runtime_error naming `what` when an MPI call failed.
void check_mpi(int rc, const char* what);

}  // namespace gradsync
