#pragma once
// The plug-in point: how gradients are synchronized. A strategy makes every
// worker's buffer hold the element-wise sum over all workers, and owns its
// transport. Everything else (fusion, overlap, averaging, timing) lives in the
// harness, so every strategy is measured by the same code.

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "strategies/core/compression.h"
#include "strategies/core/memory_kind.h"
#include "strategies/core/partition.h"
#include "strategies/core/world.h"

namespace gradsync {

// Payload bytes this rank put on and took off its transport.
struct Traffic {
  std::uint64_t bytes_sent = 0;
  std::uint64_t bytes_received = 0;
};

// What a data-parallel worker keeps of the model's state: everything (a
// replica), or its shard (ZeRO, FSDP). Sharded, the step's gradients are
// reduce-scattered, each worker updates its shard of the parameters with its
// shard of the optimizer state, and the parameters are all-gathered again.
enum class Sharding {
  none,
  optimizer_state,  // ZeRO stages 1 and 2, FSDP's SHARD_GRAD_OP: the parameters stay whole
  parameters,       // ZeRO stage 3, FSDP's FULL_SHARD: each layer group's parameters are
                    // gathered before its forward and backward, and freed after
};

// "none", "optimizer-state" or "parameters", as listings and records spell it.
std::string_view to_string(Sharding sharding);

class Strategy {
 public:
  virtual ~Strategy() = default;

  virtual std::string_view name() const = 0;

  // Blocking, in place: afterwards every worker's `buffer` holds the
  // element-wise sum of all workers' buffers. Every worker passes the same
  // element count; any count works, 0 included.
  virtual void allreduce(std::span<float> buffer) = 0;

  // The same on 16-bit elements in `format` (fp16 or bf16): what goes on the
  // wire is 16-bit, and the sum is done at that precision, or in fp32 where
  // the strategy can (the parameter server). make_strategy wraps a strategy
  // in the decorator that casts around it (compressed.h) for --compression.
  // Every CPU strategy takes it; the others refuse.
  virtual void allreduce_compressed(std::span<std::uint16_t> /*buffer*/, Compression format) {
    throw std::invalid_argument(std::string(name()) + ": --compression " +
                                std::string(to_string(format)) + " is not supported");
  }

  // Blocking, in place: afterwards every worker's `buffer` equals the buffer of
  // worker `root` (a rank of peers()).
  virtual void broadcast(std::span<float> buffer, int root) = 0;

  // The ranks that share this rank's role. On a worker: the workers, among
  // which allreduce sums. On a dedicated server rank: the servers.
  virtual const World& peers() const = 0;

  // False for `none`, which leaves every buffer as it was: the harness then
  // expects each worker's own input back and reports no bus bandwidth.
  virtual bool synchronizes() const { return true; }

  // False on ranks that only serve (dedicated parameter-server shards). The
  // harness calls serve() on those instead of allreduce(); serve() returns
  // once every worker has closed its strategy.
  virtual bool is_worker() const { return true; }
  virtual void serve() {}

  // Whether allreduce and broadcast take buffers in `kind` of memory. Host
  // strategies take host memory only; the NCCL strategies device memory only.
  // make_strategy wraps a strategy in a staging decorator for the other kind.
  virtual bool accepts(MemoryKind kind) const { return kind == MemoryKind::host; }

  // Seconds this rank spent copying buffers between host and device memory
  // around the transport (a staged strategy), not counting the transport.
  virtual double staging_seconds() const { return 0; }

  // This rank's part of what the strategy tells about the run beyond its
  // traffic (run_account.h), as JSON text: read once after the run, before
  // the strategy is closed; empty when it has nothing to tell. Its table
  // entry's merge_account reads every rank's part.
  virtual std::string account() const { return {}; }

  // Which of its algorithms an allreduce of `count` elements of
  // `element_bytes` each (4: fp32; 2: a compressed buffer) takes, for a
  // strategy that switches by size (the latency path of the MPI strategies,
  // strategies/mpi/short_allreduce.h): what a collectives row's `path`
  // says. Empty: the one its table entry names.
  virtual std::string path_for(std::size_t /*count*/,
                               std::size_t /*element_bytes*/ = sizeof(float)) const {
    return {};
  }

  // Sharded data parallelism: what a sharded strategy (sharding() not none)
  // does in place of allreduce. Every worker passes the same count.
  // reduce_scatter leaves, in this worker's shard of `buffer` (the range
  // shard(buffer.size())), the element-wise sum over the workers of that
  // range; the rest of the buffer is left undefined. all_gather leaves in
  // every worker's buffer, in each worker's shard range, that worker's values
  // there. The shards of all workers tile the buffer.
  virtual Sharding sharding() const { return Sharding::none; }
  virtual Range shard(std::size_t count) const {
    return even_part(count, std::size_t(peers().size()), std::size_t(peers().rank()));
  }
  virtual void reduce_scatter(std::span<float> /*buffer*/) {
    throw std::invalid_argument(std::string(name()) + " has no reduce-scatter (it is not sharded)");
  }
  virtual void all_gather(std::span<float> /*buffer*/) {
    throw std::invalid_argument(std::string(name()) + " has no all-gather (it is not sharded)");
  }

  Traffic traffic() const { return traffic_; }

 protected:
  Traffic traffic_;
};

}  // namespace gradsync
