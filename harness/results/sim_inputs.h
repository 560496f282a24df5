#pragma once
// What the cost model reads from result records: the allreduce times of
// collectives records as calibration points (with the wire bytes an
// emulated cluster's links carried, to check the model's byte counts), and a
// measured train record as the simulation case of its twin.

#include <span>
#include <string>
#include <vector>

#include "harness/results/result_file.h"
#include "harness/sim/calibration.h"
#include "harness/sim/simulation.h"

namespace gradsync {

// Where a record's workers were: workers per host (the most on any host),
// and the hosts that ran only dedicated parameter-server ranks.
WorkerPlacement placement_of(const nlohmann::json& record);

// One size of a collectives record whose links were counted: the busiest
// host's busier link direction per allreduce against the model's count.
struct WireCheck {
  std::string strategy, origin;
  int workers = 0;
  double size_bytes = 0;   // the allreduce's message size
  double link_bytes = 0;   // measured: max over hosts of max(tx, rx) per allreduce
  double model_bytes = 0;  // the counts' bytes through the links the job spans
};

struct CalibrationInput {
  std::vector<sim::CalibrationPoint> points;
  std::vector<WireCheck> wire_checks;
};

// Every row of every collectives record (other kinds are skipped). Throws
// std::runtime_error "file:line: ..." for a record it cannot read (one of a
// strategy the table does not know included).
CalibrationInput calibration_input(std::span<const StoredRecord> records);

// The twin of a measured train record: its model, batch, compute (profile,
// forced rate, time scale), strategy and options, placement, fusion and
// overlap, its input stage (jpeg: the run's measured time per image). Throws std::runtime_error "file:line: ..." when a field is missing.
sim::SimulationCase simulation_case(const StoredRecord& record);

}  // namespace gradsync
