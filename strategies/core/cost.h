#pragma once
// What one allreduce costs, as each strategy declares it in its table entry
// (strategies/registry.h) and the cost model (harness/sim/) prices it. An
// allreduce of `bytes` bytes is counted in the things that take its time,
//
//   time = calls x o + messages x alpha + bytes x beta + reduced x gamma
//          (+ contended x delta),
//
// o a fixed overhead per call, alpha the latency of one message, beta the
// time of one byte through a link in one direction, gamma the time to add one
// byte, delta the loss when several flows arrive at one link at once. The
// counts are what the algorithm puts on its critical path: the messages sent
// one after another through the busiest link (pipeline fill included), the
// bytes through the busiest link direction (links are full duplex), the
// bytes the busiest rank adds. Thakur, Rabenseifner and Gropp (2005) give the
// unsegmented forms, e.g. the ring's 2(p-1) alpha + 2(p-1)/p n beta +
// (p-1)/p n gamma; the strategies count segmentation and the exact placement
// of every rank too, with their own arithmetic (partition.h, their plans),
// because `gradsync calibrate` fits o, alpha, beta, gamma and delta to
// measured times through exactly these counts.
//
// Buffers are floats: `bytes` is rounded up to whole floats. Nothing moves
// for an empty buffer or one worker: every count is 0. A negative or
// non-finite size, or an impossible layout, throws std::invalid_argument
// naming the function. Compression (16-bit elements on the wire) is applied
// by the cost model to every strategy alike: the same messages, half the
// bytes (compressed.h); the counts here are of fp32 buffers.

#include <cstdint>
#include <string>
#include <string_view>

#include "strategies/core/strategy_options.h"

namespace gradsync {

struct CostTerms {
  double calls = 0;     // o: 1 for a call that communicates, 0 when nothing moves (p = 1)
  double messages = 0;  // alpha: messages on the critical path
  double bytes = 0;     // beta: bytes through the busiest link direction
  double reduced = 0;   // gamma: bytes added by the busiest rank
  // delta: the busiest link direction's bytes x (k - 1), k the flows that
  // arrive there at once. k TCP flows into one link deliver less than one
  // flow does (incast: they overrun the queue, lose packets and back off), so
  // a strategy's per-byte time is beta (1 + kappa (k - 1)); the calibration
  // fits delta = kappa beta where the data vary k (a tree's interior node
  // takes 2 or 3 flows; a parameter-server host one per other host sending
  // to it at once, since one host's flows are paced by its own link). 0
  // for one flow per link (ring, halving-doubling).
  double contended = 0;
  CostTerms& operator+=(const CostTerms& other);
  // Every count times `factor` but the calls and messages: the same
  // algorithm on elements of another size (16-bit elements: factor 0.5).
  CostTerms with_bytes_scaled(double factor) const;
};
CostTerms operator+(CostTerms a, const CostTerms& b);

// Where a job's workers are, as the cost model sees them: `workers` ranks
// filling nodes of `workers_per_node` in rank order; a strategy's dedicated
// servers on `server_hosts` hosts of their own (0: one host per server).
struct WorkerPlacement {
  int workers = 1;
  int workers_per_node = 1;
  int server_hosts = 0;
  int nodes() const { return (workers + workers_per_node - 1) / workers_per_node; }
};

// The counts of one allreduce by the links each part crosses: `spanning` on
// the links the job spans (between nodes when the job spans several, else
// within its node), `intra` beside it on the links within each node only (a
// hierarchical algorithm's reduce and broadcast inside the nodes).
struct AllreduceCounts {
  CostTerms spanning;
  CostTerms intra;
  CostTerms total() const { return spanning + intra; }
};

// A described cluster's links, for a strategy that brings its own model of
// its time (NCCL's tuning model) instead of counts.
struct DescribedLinks {
  bool nvlink = false;            // within a node: NVLink, else PCIe
  double intra_bits_per_s = 0;    // a node's GPUs among themselves, one direction
  double inter_bits_per_s = 0;    // one node's network, one direction
};

// How the cost model costs a strategy: what its table entry carries.
// Exactly one of `counts` and `library_model_seconds` is set.
struct StrategyCost {
  // The closed form in words, as `simulate` shows it ("ring: 2(p-1) steps of
  // one chunk in segments (Thakur et al.)").
  std::string_view form;
  // The counts of one allreduce of `bytes` fp32 bytes on `placement`, under
  // the strategy's own options (segments, partitions, servers).
  AllreduceCounts (*counts)(double bytes, const StrategyOptions& options,
                            const WorkerPlacement& placement) = nullptr;
  // A black box whose algorithm changes with the size and worker count (the
  // MPI library's own allreduce): calibrated per worker count, its measured
  // times tabulated, and carried to other worker counts by its counts' bytes.
  bool per_workers = false;
  // The strategy's own model of its time on a described cluster (NCCL's), in
  // seconds: not calibrated, not counted.
  double (*library_model_seconds)(double bytes, const WorkerPlacement& placement,
                                  const DescribedLinks& links) = nullptr;
  // Its counts put every byte on a link one flow at a time, pipelined, with
  // little else to do: constants fitted through them are the link's own, so
  // `gradsync calibrate` takes a cluster's link constants from its fit.
  bool measures_links = false;
  // Why the model cannot cost these options (one line naming the flag), or
  // empty; null: it costs every option the strategy takes.
  std::string (*uncosted)(const StrategyOptions& options) = nullptr;
};

// The arithmetic every count shares.
inline constexpr double kFloatBytes = sizeof(float);

// The floats a buffer of `bytes` bytes holds, rounded up; throws
// std::invalid_argument naming `function` for a negative or non-finite size.
std::uint64_t buffer_floats(double bytes, const char* function);

// Throws std::invalid_argument naming `function` and `what` when value < 1.
void require_positive_count(int value, const char* function, const char* what);

// The segment length in floats, by the strategies' own rule (whole floats,
// at least one, at most 4G: mpi_pipeline.h's segment_elements); throws
// std::invalid_argument naming `function` otherwise.
std::uint64_t segment_floats(double segment_bytes, const char* function);

// Pieces of at most `max` elements that `count` elements make: the number of
// ranges partition.h's split_by_max returns (0 for count 0).
inline std::uint64_t piece_count(std::uint64_t count, std::uint64_t max) {
  return count / max + (count % max != 0 ? 1 : 0);
}

}  // namespace gradsync
