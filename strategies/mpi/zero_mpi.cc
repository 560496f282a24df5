// zero2-mpi and zero3-mpi: the MPI library's reduce-scatter and all-gather,
// as a sharded step calls them (harness/engine/worker_role.h): the two
// entries' calls are the same; what the step shards differs (zero3-mpi's
// parameters too, gathered per layer group: fully_sharded_replica.h).
//
// reduce_scatter: MPI_Reduce_scatter in place over the buffer cut into the
// workers' even parts (partition.h; the first count % p parts one element
// longer): the library leaves worker r's summed part at the front of its
// buffer, and it is moved to the part's own offset. all_gather:
// MPI_Allgatherv in place, each worker's part at its offset. Its allreduce is
// the two, one after the other. Both are blocking calls watched from outside
// (BlockingCallWatch): past --timeout the job ends naming the stopped rank.
//
// Traffic is what bandwidth-optimal algorithms move (the library's choice is
// hidden): (p-1)/p of the buffer each way for each call.
#include "strategies/mpi/zero_mpi.h"

#include <cstring>
#include <stdexcept>
#include <vector>

#include "strategies/core/bounded_wait.h"
#include "strategies/mpi/mpi_allreduce.h"
#include "strategies/mpi/mpi_count.h"

namespace gradsync {
namespace {

class ZeroMpi final : public Strategy {
 public:
  ZeroMpi(const World& world, double timeout_s, std::string_view name, Sharding sharding)
      : world_(world.duplicate()),
        watch_(world_.comm(), timeout_s),
        name_(name),
        sharding_(sharding) {
    world_.set_timeout(timeout_s);
  }
  std::string_view name() const override { return name_; }
  const World& peers() const override { return world_; }
  Sharding sharding() const override { return sharding_; }

  void allreduce(std::span<float> buffer) override {
    reduce_scatter(buffer);
    all_gather(buffer);
  }

  void reduce_scatter(std::span<float> buffer) override {
    if (world_.size() == 1 || buffer.empty()) return;
    const Parts parts = parts_of(buffer.size());
    watch_.run("MPI_Reduce_scatter", buffer.size_bytes(), [&] {
      check_mpi(MPI_Reduce_scatter(MPI_IN_PLACE, buffer.data(), parts.counts.data(), MPI_FLOAT,
                                   MPI_SUM, world_.comm()),
                "MPI_Reduce_scatter");
    });
    const Range mine = shard(buffer.size());
    std::memmove(buffer.data() + mine.offset, buffer.data(), mine.count * sizeof(float));
    count_traffic(buffer.size_bytes());
  }

  void all_gather(std::span<float> buffer) override {
    if (world_.size() == 1 || buffer.empty()) return;
    const Parts parts = parts_of(buffer.size());
    watch_.run("MPI_Allgatherv", buffer.size_bytes(), [&] {
      check_mpi(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buffer.data(),
                               parts.counts.data(), parts.offsets.data(), MPI_FLOAT, world_.comm()),
                "MPI_Allgatherv");
    });
    count_traffic(buffer.size_bytes());
  }

  void broadcast(std::span<float> buffer, int root) override {
    mpi_broadcast(world_, buffer, root);
  }

 private:
  struct Parts {
    std::vector<int> counts, offsets;
  };
  // Every worker's part, as MPI's int counts; a part MPI cannot count is refused.
  Parts parts_of(std::size_t count) const {
    Parts parts;
    for (const Range& part : split_even(count, std::size_t(world_.size()))) {
      if (part.offset + part.count > kMaxMpiCount)
        throw std::invalid_argument(
            std::string(name()) + ": a bucket of " + std::to_string(count) +
            " elements is beyond MPI's int counts; use a smaller --fusion-mb");
      parts.counts.push_back(int(part.count));
      parts.offsets.push_back(int(part.offset));
    }
    return parts;
  }
  void count_traffic(std::size_t buffer_bytes) {
    const int p = world_.size();
    const std::uint64_t bytes = std::uint64_t(p - 1) * buffer_bytes / p;
    traffic_.bytes_sent += bytes;
    traffic_.bytes_received += bytes;
  }

  World world_;
  BlockingCallWatch watch_;
  std::string_view name_;
  Sharding sharding_;
};

}  // namespace

std::unique_ptr<Strategy> make_zero2_mpi(const World& world, const StrategyOptions& options) {
  return std::make_unique<ZeroMpi>(world, options.timeout_s, "zero2-mpi",
                                   Sharding::optimizer_state);
}

std::unique_ptr<Strategy> make_zero3_mpi(const World& world, const StrategyOptions& options) {
  return std::make_unique<ZeroMpi>(world, options.timeout_s, "zero3-mpi", Sharding::parameters);
}

}  // namespace gradsync
