#pragma once
// How sure a projection is: what the cost model's validation found for a
// strategy on a cluster, kept in the cluster file (`validation`, written by
// `gradsync simulate validate ... --save-validation FILE`), and the band
// it puts around a projection.
//
// A validation entry is one strategy's errors against runs it was checked
// on: error = simulated / measured throughput - 1, over the runs of 2 or
// more workers, with the worker counts of those runs and the worker counts
// the calibration saw. The band of a projection is plus and minus the
// strategy's worst error: simulated x (1 - w) to simulated x (1 + w), w the
// largest |error| of its validation. **Decision:** symmetric, and as wide as
// the worst run, not the signed range: a validation has a few runs, and a
// band from their spread alone (two runs 0.1 points apart) would claim a
// certainty they cannot give; the signed range stays in the entry, to show
// which way the model leans. A projection at more workers than any
// validated run is beyond validation, and says so; a strategy without an
// entry has no band. A strategy may have several entries (runs on the
// cluster, the model against SMPI at scale: `scripts/smpi-scaling.sh
// --save-validation`): the widest sets the band, and a projection is beyond
// validation above the most workers any entry saw.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace gradsync::sim {

struct ValidationEntry {
  std::string strategy;            // a strategy name (`gradsync strategies`)
  std::string against;             // what it was checked against, in words (files, table)
  std::string engine;              // "smpi": the model against SMPI; "": against runs or tables
  int runs = 0;                    // runs of 2 or more workers
  std::vector<int> worker_counts;  // their worker counts
  std::vector<int> calibrated_workers;  // the worker counts its calibration saw (empty: none)
  std::vector<std::string> models;
  double median_abs_error = 0;
  double min_error = 0, max_error = 0;  // signed, simulated / measured - 1
  std::string worst_run;                // the worst run, in words
};

// The band of one projected case.
struct Band {
  bool validated = false;  // the strategy has an entry
  bool beyond_validation = false;  // more workers than any validated run
  double low = 1, high = 1;  // factors on the simulated throughput
  const ValidationEntry* entry = nullptr;  // the widest entry
  int validated_to_workers = 0;            // the most workers of any entry
  std::string text() const;  // "-12% to +3% (validated at 8 workers)", "not validated", ...
};

Band band_for(const std::vector<ValidationEntry>& validation, const std::string& strategy,
              int workers);

// The per-strategy entries of a set of validated runs.
struct ValidatedRun {
  std::string strategy, model;
  int workers = 0;
  double error = 0;
  std::string label;  // "vgg16 ps-zmq (--ps-servers 1) at 8 workers"
};
std::vector<ValidationEntry> summarize_validation(const std::vector<ValidatedRun>& runs,
                                                  const std::string& against);

// The file form; `where` names the file in errors (one line).
nlohmann::json to_json(const ValidationEntry& entry);
ValidationEntry validation_from_json(const nlohmann::json& v, const std::string& where);

}  // namespace gradsync::sim
