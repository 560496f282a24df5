#pragma once
// What `gradsync train` prints, in Horovod's manner: the header before the
// run, a line per timed iteration, the summary after it, and where the
// timeline went. Pure text, so that tests can hold it to the letter.

#include <cstddef>
#include <string>

#include "harness/engine/gpu_choice.h"
#include "harness/engine/train_plan.h"
#include "harness/results/train_summary.h"

namespace gradsync {

// Model, compute, batch, strategy and workers, then "Running warmup...".
std::string train_header(const TrainPlan& plan, int blas_threads, const GpuChoice& gpu,
                         int workers);

// "Iter #i: ... img/sec per worker", after "Running benchmark..." for the first.
std::string iteration_text(int iter, double img_sec_per_worker);

// Horovod's img/sec lines, step-time percentiles, where the step went, the
// loss and the parameter check.
std::string summary_text(const TrainSummary& summary, const TrainSettings& settings);

// Where the Chrome trace went and how much it holds.
std::string timeline_text(std::size_t events, std::size_t workers, const std::string& file);

}  // namespace gradsync
