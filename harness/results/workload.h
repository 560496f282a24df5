#pragma once
// What must match for two train runs to be compared: the model, the compute
// mode (for cuda with its precision, since the precision changes the speed)
// and the batch per worker. Every report, compare and the plots (through
// `report --format json`) tell workloads apart by this key alone.

#include <compare>
#include <nlohmann/json.hpp>
#include <string>

namespace gradsync {

struct Workload {
  std::string model;
  std::string compute;  // compute_mode() of the record
  int batch = 0;
  auto operator<=>(const Workload&) const = default;

  // "small-cnn cpu b8": how compare names a workload.
  std::string label() const;
};

// A train record's compute mode as workloads are told apart: "cpu",
// "emulated", or "cuda-fp32" / "cuda-tf32" / "cuda-mixed" (the precision
// changes the speed, so two precisions are two workloads).
std::string compute_mode(const nlohmann::json& train_record);

// The workload of a train record; throws nlohmann::json's exception when a
// field is missing or of the wrong type.
Workload workload_of(const nlohmann::json& train_record);

}  // namespace gradsync
