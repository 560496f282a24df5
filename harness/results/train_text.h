#pragma once
// What `gradsync train` prints, in Horovod's manner: the header before the
// run, a line per timed iteration, the summary after it, and where the
// timeline went. Pure text, so that tests can hold it to the letter.

#include <cstddef>
#include <string>

#include "harness/engine/gpu_choice.h"
#include "harness/engine/train_plan.h"
#include "harness/results/train_summary.h"
#include "harness/results/wire_record.h"

namespace gradsync {

// Model, compute, batch, strategy and workers, then `more` (lines, e.g. the
// cluster's), then "Running warmup...".
std::string train_header(const TrainPlan& plan, int blas_threads, const GpuChoice& gpu, int workers,
                         const std::string& more = "");

// "Iter #i: ... img/sec per worker", after "Running benchmark..." for the first.
std::string iteration_text(int iter, double img_sec_per_worker);

// Horovod's img/sec lines (with a time scale K, the measured ones and the
// represented, measured x K), step-time percentiles, where the step went, the
// loss and the parameter check; with --fusion-mb auto first the search's
// line (the threshold chosen, the steps it took, the candidates).
std::string summary_text(const TrainSummary& summary, const TrainSettings& settings);

// A fusion search's candidates in the order measured, "MiB: ms per step"
// ("0: 412.0, 0.25: 398.1, ..."), for train's and simulate's lines.
std::string fusion_candidates_text(const FusionSearchResult& search);

// One line on an emulated cluster: the busiest host's link bytes per step,
// beside what the strategies on it counted.
std::string wire_text(const WireTruth& wire);

// Where the Chrome trace went and how much it holds.
std::string timeline_text(std::size_t events, std::size_t workers, const std::string& file);

}  // namespace gradsync
