#pragma once
// A described cluster, as the cost model reads it from a cluster file (JSON,
// schema "gradsync.cluster"; docs/guide/cost-model.md, "Describe a
// cluster", lists every field): its nodes and workers per node, the two
// link classes (within a node, between nodes), what one message and one
// added byte cost, the hosts available as dedicated parameter servers, and
// the calibrated fits per strategy and link class. Every number says where
// it came from (calibrated, datasheet, published, measured or assumed) and
// why, so a prediction can be traced to its inputs. `gradsync calibrate`
// writes one; a user may write one by hand (results/reference/clusters/ has
// examples).

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/sim/cost_params.h"
#include "harness/sim/validation.h"
#include "strategies/core/compression.h"

namespace gradsync::sim {

// A number and where it came from.
struct Sourced {
  double value = 0;
  std::string source;  // calibrated | datasheet | published | measured | assumed
  std::string note;    // what exactly: the document, the fit, the reasoning
};

struct LinkClass {
  std::string kind;              // intra: "shm", "pci" or "nvlink"; inter: "network"
  Sourced bandwidth_bits_per_s;  // one direction
  Sourced latency_s;             // one message's latency on the wire
};

// The --compression of fp32 runs, as fits name it ("none").
inline const std::string kUncompressed{to_string(Compression::none)};

// One strategy's calibrated constants on one link class.
struct StrategyFit {
  std::string strategy;  // a strategy name (`gradsync strategies`)
  // The --compression of the runs it was fitted from ("none", "fp16",
  // "bf16"): a compressed run's casts and halved bytes are in its constants.
  std::string compression = kUncompressed;
  std::string link;  // "intra" or "inter"
  CostParams params;
  bool gamma_folded = false;   // the data could not tell gamma from beta: gamma is in beta
  bool alpha_folded = false;   // every message was a whole segment: alpha is in beta
  double link_bits_per_s = 0;  // the link rate the points were measured at (0: unknown)
  // The part of beta that is the link's own per-byte time, held fixed while
  // the rest was fitted (0: beta was fitted whole); `link_beta_from` names
  // the fit it came from.
  double link_beta_s_per_byte = 0;
  std::string link_beta_from;
  int max_flows = 1;          // the most flows arriving at once at a link in the points
  int black_box_workers = 0;  // > 0: fitted at this worker count alone (a black box, see
                              // StrategyCost::per_workers); 0: over every worker count
  // A black box's measured times, (size in bytes, seconds) by size: when not
  // empty, the cost is interpolated from them (table_seconds) and `params`
  // is only the best alpha-beta line, kept to show how far it misses.
  std::vector<std::pair<double, double>> times_by_size;
  int points = 0;
  std::vector<int> worker_counts;  // the worker counts the points cover
  std::vector<double> sizes;       // the message sizes, bytes
  double median_abs_error = 0;     // of the fitted times, a fraction
  double worst_abs_error = 0;
  std::string worst_point;  // "64 MiB at 8 workers: 2.31 s measured, 2.05 s fitted"
  std::string from;         // the files it was fitted from
};

// What --compression costs beyond its halved bytes, for one 16-bit format,
// measured on a host like the cluster's (the suite's own kernels: `gradsync
// calibrate` times them, bench/reduce_kernel_bench shows them).
struct CompressionCosts {
  // fp32 bytes per second of one call's casts, fp32 to 16 bits before the
  // allreduce and back after (compressed.h).
  Sourced casts_bytes_per_s;
  // The time to add one byte of 16-bit elements over that of one byte of
  // fp32 ones (reduce_kernel.h's sums, e.g. 6 for fp16 on a CPU without
  // fp16 arithmetic): what a 16-bit byte's gamma is in fp32 gammas.
  Sourced sum_cost_ratio;
};

// What a step loses beyond the counts, each a mechanism with its parameter
// in the cluster file (`mechanisms`, every field optional; absent, the
// mechanism is off) and a name that `simulate project --without` and `--explain`
// switch it off by:
//   achieved-rate  `achieved_fraction`: the share of the line rate between
//                  nodes a transport achieves (a NIC's framing and protocol,
//                  TCP's or RDMA's). It scales the inter bandwidth wherever
//                  the model uses the link's constants (a strategy without
//                  a fit, NCCL's model); a fit measured its own.
//   cycle          `framework_cycle_s`: the framework hands buckets to the
//                  communication thread on a cycle (Horovod's coordinator,
//                  HOROVOD_CYCLE_TIME): an idle thread looks for ready
//                  buckets once per cycle, so a bucket waits for the next
//                  look; a busy thread takes the next bucket at once.
//   staging        `staging_bytes_per_s`: a host strategy on a GPU cluster
//                  copies every bucket device to host before its allreduce
//                  and back after, over the node's PCIe, which the node's
//                  GPUs share (each copies at rate / GPUs per node).
struct Mechanisms {
  Sourced achieved_fraction;    // 0: not stated
  Sourced framework_cycle_s;    // 0: not stated
  Sourced staging_bytes_per_s;  // 0: not stated
  bool any() const;             // whether the file states one
};

// Every mechanism, walked wherever all of them are (the file's form,
// --without, --explain): its name, its key in the file, its field, and its
// parameter in words as value x scale then unit.
struct MechanismInfo {
  const char* name;
  const char* key;
  Sourced Mechanisms::*field;
  double scale;
  const char* unit;
};
inline constexpr MechanismInfo kMechanisms[] = {
    {"achieved-rate", "achieved_fraction", &Mechanisms::achieved_fraction, 1, "of the line rate"},
    {"cycle", "framework_cycle_s", &Mechanisms::framework_cycle_s, 1e3, "ms"},
    {"staging", "staging_bytes_per_s", &Mechanisms::staging_bytes_per_s, 1e-9, "GB/s per node"},
};
inline bool Mechanisms::any() const {
  for (const auto& m : kMechanisms)
    if ((this->*m.field).value > 0) return true;
  return false;
}

struct ClusterModel {
  std::string name;
  std::string description;
  int nodes = 1;
  int workers_per_node = 1;         // GPUs (or CPU worker ranks) per node
  std::string accelerator = "cpu";  // "cpu" or "gpu": the NCCL strategies need "gpu"
  LinkClass intra{"shm", {}, {}};
  LinkClass inter{"network", {}, {}};
  Sourced per_message_s;       // software overhead per message, beyond the wire latency
  Sourced reduce_bytes_per_s;  // how fast a worker adds received bytes into its own
  Sourced server_hosts;        // hosts free to run dedicated parameter-server shards
  Sourced host_cores;          // CPU cores of a node, for the input stage (0: not described)
  // By format ("fp16", "bf16"): what a compressed run without a fit of its
  // own pays beyond its halved bytes.
  std::map<std::string, CompressionCosts> compression_costs;
  std::vector<StrategyFit> fits;
  Mechanisms mechanisms;
  // What the model's checks against runs found, per strategy (validation.h):
  // the band every projection on this cluster carries.
  std::vector<ValidationEntry> validation;

  // The link-level constants of a class, for a strategy with no fit:
  // alpha = latency + per-message overhead, beta = 8 / bandwidth, gamma = 1 /
  // reduce rate, no per-call overhead.
  CostParams link_params(const std::string& link) const;
  // The fit of `strategy` with `compression` on `link` for `workers`: one
  // fitted at exactly that worker count, else one over every worker count,
  // else the one of the nearest worker count below (the smallest when there
  // is none below); nothing when the strategy has no such fit on the link.
  const StrategyFit* find_fit(const std::string& strategy, const std::string& link, int workers = 0,
                              const std::string& compression = kUncompressed) const;
};

// The time of `bytes` from a fit's table: linear between the two measured
// sizes around it, beyond the largest along the last two points' slope,
// below the smallest in proportion to the smallest.
double table_seconds(const std::vector<std::pair<double, double>>& table, double bytes);

// Reads and checks a cluster file; throws std::runtime_error "FILE: ..." on
// a missing file, bad JSON (text after the document, a key given twice), a
// wrong schema, or a number that is missing, not a number or out of its
// range ("FILE: inter.latency_s.value: must be at most 10 s (got 1e+308)";
// cluster_model.cc's kClusterRules holds every field's rule). One line.
ClusterModel read_cluster_model(const std::string& path);
// The same from the file's text, `name` naming it in messages (no file is
// read: what a fuzz target calls).
ClusterModel cluster_model_from_text(std::string_view text, const std::string& name);
ClusterModel cluster_model_from_json(const nlohmann::json& doc, const std::string& where);
nlohmann::json to_json(const ClusterModel& model);
nlohmann::json to_json(const StrategyFit& fit);

// The same cluster with its links between nodes at another rate: the link
// class's bandwidth, and every inter fit's beta and delta (and a tabulated
// black box's whole times) scaled by old rate / new rate (the assumption,
// stated in the note: per-byte time between nodes is the link's, so it
// scales with it; latencies stay).
ClusterModel with_inter_bandwidth(ClusterModel model, double bits_per_s);

// "500 Mbit/s", "25 Gbit/s"
std::string bits_text(double bits_per_s);

}  // namespace gradsync::sim
