#pragma once
// What must match for two train runs to be compared: the model, the compute
// mode (for cuda with its precision, since the precision changes the speed),
// the batch per worker and the setup the run stands for (the emulated
// cluster and the time scale: a baseline measured at another time scale or
// on another cluster is not this workload's; a slow worker, --straggler; an
// input stage, --input, whose baseline is the one with the same stage; an
// optimizer other than SGD, --optimizer adamw). Every report, compare and
// the plots (through `report --format json`) tell workloads apart by this key alone.

#include <compare>
#include <nlohmann/json.hpp>
#include <string>

#include "harness/engine/input_spec.h"

namespace gradsync {

struct Workload {
  std::string model;
  std::string compute;  // compute_mode() of the record
  int batch = 0;
  // setup_of() the record, then the straggler, then input_label(): "" on one
  // machine at time scale 1 with synthetic input
  std::string setup;
  int sequence_length = 0;  // token models' positions per sample; 0 for image models
  auto operator<=>(const Workload&) const = default;

  // "small-cnn cpu b8", then " [setup]" when there is one: how compare names
  // a workload.
  std::string label() const;
  // The model as tables name it: "gpt2-124m T1024" for a token model.
  std::string model_label() const;
};

// A train record's input stage (its "input" object: spec, threads,
// prefetch); synthetic when it has none. Throws nlohmann::json's exception
// when the object is malformed, std::invalid_argument when its spec is.
InputSpec input_of(const nlohmann::json& train_record);

// A train record's compute mode as workloads are told apart: "cpu",
// "emulated", or "cuda-fp32" / "cuda-tf32" / "cuda-mixed" (the precision
// changes the speed, so two precisions are two workloads).
std::string compute_mode(const nlohmann::json& train_record);

// A train record's optimizer ("sgd", "adamw"): its "optimizer", which records
// older than the choice lack (they ran SGD).
std::string optimizer_of(const nlohmann::json& train_record);

// The workload of a train record; throws nlohmann::json's exception when a
// field is missing or of the wrong type, std::invalid_argument when its
// cluster object is malformed.
Workload workload_of(const nlohmann::json& train_record);

}  // namespace gradsync
