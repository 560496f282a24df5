#pragma once
// Tables of training records: scaling efficiency, throughput and the share of
// exposed communication, per model and strategy (rows) and worker count
// (columns). Efficiency = total img/sec at N workers / (N x img/sec of the
// `none` run at one worker, same model, compute mode and batch).

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "harness/results/report.h"

namespace gradsync {

// Empty when there are no train records. Where the same configuration was
// measured twice, the later record counts.
std::vector<ReportTable> training_report(std::span<const StoredRecord> records);

// A train record's compute mode as workloads are told apart: "cpu",
// "emulated", or "cuda-fp32" / "cuda-tf32" / "cuda-mixed" (the precision
// changes the speed, so two precisions are two workloads).
std::string compute_mode(const nlohmann::json& train_record);

}  // namespace gradsync
