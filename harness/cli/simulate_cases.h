#pragma once
// What every use of `gradsync simulate` shares (simulate_command.h): the
// worker list, the strategies the cluster runs by default, one case built
// from the flags, the tables' worker columns, and the records it writes.

#include <span>
#include <string>
#include <vector>

#include "harness/cli/simulate_command.h"
#include "harness/results/report_table.h"
#include "harness/results/result_file.h"
#include "harness/sim/simulation.h"

namespace gradsync {

// "1,2,4,8" or "1-1024" (the powers of two from the first to the last),
// sorted, without repeats. Throws std::invalid_argument naming --workers.
std::vector<int> parse_workers(const std::string& text);

// --strategy's entries, each checked against the table, or, in table order,
// every synchronizer and the reference that reduce the memory the cluster's
// workers hold their gradients in: host memory on a CPU cluster, device
// memory on a GPU one (host strategies there would be staged through the
// host, which the model does not cost: they are simulated when named).
std::vector<const StrategyInfo*> chosen_strategies(const SimulateOptions& options,
                                                   const sim::ClusterModel& cluster);

// "a,b,c": the strategies' names, as a refusal names what a mode runs.
std::string joined_strategy_names(std::span<const StrategyInfo* const> strategies);

// Throws std::invalid_argument when a strategy flag given to the mode acts
// on none of `strategies` (flag_scope.h): "--ring-segment does not apply to
// simulate project --strategy ps-zmq: it is for ring-mpi, ...", with
// `what` naming the strategies.
void refuse_idle_strategy_flags(const SimulateOptions& options,
                                std::span<const StrategyInfo* const> strategies,
                                const std::string& what);

// The case the flags describe for `model` under `strategy` at `workers`.
sim::SimulationCase base_case(const SimulateOptions& options, const sim::ClusterModel& cluster,
                              const std::string& model, const StrategyInfo& strategy, int workers);

// The baseline (`none`) at one worker: the efficiency's denominator.
sim::SimulationCase baseline_case(const SimulateOptions& options, const sim::ClusterModel& cluster,
                                  const std::string& model);

// The worker counts above one, each appended to the table as a column "n=N".
std::vector<int> worker_columns(ReportTable& table, const std::vector<int>& workers);

// A simulated record as the reports read it, "simulated:N".
StoredRecord stored(nlohmann::json value, std::size_t index);

// What a projection stands for in tables: --setup, or the cluster's name,
// workers per node and link between nodes.
std::string setup_label(const SimulateOptions& options, const sim::ClusterModel& cluster);

// Per strategy: how far the model was from the runs or rows it was checked
// against (harness/sim/validation.h), as a table.
ReportTable validation_table(const std::vector<sim::ValidationEntry>& entries);

// Prints the entries' table (the worker counts of each strategy's fits on
// the cluster filled in), and with --save-validation writes the cluster file
// again with them as its validation, an entry of the same strategy replaced.
void report_validation(const SimulateOptions& options, const sim::ClusterModel& cluster,
                       std::vector<sim::ValidationEntry> entries, std::ostream& out);

// Appends every record to `file` (--out).
void append_all(const std::string& file, const std::vector<StoredRecord>& records);

}  // namespace gradsync
