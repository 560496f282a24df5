#pragma once
// `gradsync report --format json`: every figure the plots draw, computed here
// so that the plots only draw (plots/gsplots reads it). One JSON document:
//   schema "gradsync.report", schema_version 1;
//   strategies: the strategy table in its order, {name, index, role
//     ("synchronizer", "baseline" or "reference"), in_table}, then the cost
//     model's model-only algorithms (role "model", in_table false), then
//     names the records use that neither knows (sorted, in_table false;
//     role "external" for an external reference's, e.g. PyTorch DDP's
//     ddp-gloo), so a reader orders, colours and recognises the baseline
//     without knowing names;
//   train: one row per workload x strategy x workers x measured/simulated
//     (the later record of a configuration counts): model, compute, batch,
//     strategy, workers, simulated, setup (workload.h: the cluster the run
//     represents, "time xK", or ""), time_scale, correct, failed, origin
//     ("file:line"), img_sec {mean, conf} in total img/sec as represented
//     (measured x time_scale), measured_img_sec {mean, conf} as measured,
//     efficiency {value, conf} as a
//     fraction (efficiency.h; against the baseline of its own side, measured
//     or simulated, else of the other side; null without one) and baseline
//     ("measured", "simulated" or null: whose baseline it is), band (a
//     simulated row's band from its cluster's validation: {low, high:
//     factors on img_sec and efficiency, beyond_validation}, else null),
//     exposed_comm_share, external (the framework of an external reference,
//     "pytorch-ddp", whose efficiency is against its own run at one worker;
//     null for gradsync's own), breakdown {compute_s, allreduce_s, exposed_comm_s,
//     step_mean_s, and input_wait_s with an input stage (train --input)} or null, hosts, timestamp,
//     device_profile, cluster (the record's cluster object with its "label", or null off a
//     cluster), wire (the record's wire truth, or null);
//   collectives: one entry per strategy x workers x measured/simulated x
//     setup, with its setup, cluster and rows by size (the later record of
//     a size counts): size_bytes, count, time_us, algbw_gbps, busbw_gbps,
//     wrong (null when unchecked), failed (wrong elements, or the record's
//     check failed), wire (or null), origin, hosts, timestamp.
// Records of no kind the report knows are skipped; no records at all give
// empty lists (the reader decides what it needs).

#include <nlohmann/json.hpp>
#include <span>

#include "harness/results/result_file.h"

namespace gradsync {

inline constexpr const char* kReportSchema = "gradsync.report";
inline constexpr int kReportSchemaVersion = 1;

// The strategy table and the cost model's model-only algorithms, as the
// report's `strategies` list starts (also the crossover map's list, so a
// strategy has one colour in every figure).
nlohmann::json known_strategies_json();

// Throws std::runtime_error naming the record ("file:line: ...") when one is
// incomplete.
nlohmann::json report_json(std::span<const StoredRecord> records);

}  // namespace gradsync
