#pragma once
// What a sweep has done, so that a sweep run again into the same results
// directory (after its time limit, a scancel, a crash) picks up where it
// stopped and every configuration ends up recorded exactly once.
//
// A configuration is done when train.jsonl holds a record of it: the same
// effective configuration (context.config_digest: every option of `train`,
// given or default, and the binary's version; run_config.h) on the same
// number of ranks. The file name and the order of the runs do not matter,
// and a run killed before its record was appended (records are appended
// whole, result_file.h) is simply not done. A rebuilt binary of another
// version makes other configurations: its results are not mixed with the
// old ones.
//
// Every attempt is also logged, one record of kind "sweep" a line, in
// sweep.jsonl beside train.jsonl: the configuration, whether it was done,
// failed (with its exit status and the first error line of its log) or was
// stopped with the sweep, how long it took, and where its ranks ran; report
// lists the configurations whose last attempt failed.

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "harness/results/result_file.h"

namespace gradsync {

// The config digest `gradsync train` will record for `train_argv` (the
// arguments after the binary: "train", "--model", ...). Throws
// std::invalid_argument with CLI11's one-line message when they do not parse.
std::string train_config_digest(const std::vector<std::string>& train_argv);

// "fnv1a64:... on 4 ranks": the key of a configuration.
std::string configuration_key(const std::string& config_digest, int ranks);

// The configurations train.jsonl records as done, by key, each with the
// "file:line" of its first record. A missing file has none; bad lines are
// skipped with the warnings `report` prints (a torn line is not a record).
std::map<std::string, std::string> done_configurations(const std::filesystem::path& records,
                                                       std::vector<std::string>& warnings);
// The same of records already read (train records; others are skipped).
std::map<std::string, std::string> done_configurations(std::span<const StoredRecord> records);

// One attempt, as sweep.jsonl keeps it.
struct SweepAttempt {
  std::string model, compute, strategy;
  int workers = 0, ranks = 0;
  std::string config_digest;
  std::string status;  // "done", "failed" or "stopped"
  int exit_status = 0;
  std::string reason;  // the first error line of the log (failed or stopped)
  std::string log;
  double seconds = 0;
  std::string launcher;               // "mpirun" or "srun"
  std::string slurm_job;              // srun: the allocation's job id
  std::vector<std::string> rank_hosts;  // srun: the node of each rank
  std::vector<std::string> command;
  std::string input;  // --input; empty or "synthetic": none (the record has no "input")
  std::string fusion_mb;  // the sweep's --fusion-mb value for this run; empty: not given
};

nlohmann::json sweep_attempt_record(const SweepAttempt& attempt);

// Configurations whose last attempt in `records` (sweep records, any order of
// files) failed and that no later attempt did: "resnet50 emulated ring-mpi x4:
// exit 1: gradsync: error: ...", with " input decode:2ms" after the workers
// when the run had an input stage. For report.
std::vector<std::string> failed_configurations(const std::vector<nlohmann::json>& sweep_records);

}  // namespace gradsync
