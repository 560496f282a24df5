#pragma once
// The effective configuration of a measurement, which every rank of the job
// must share: every option of the subcommand with the value it takes on this
// rank (as given, or its default), the subcommand, and the binary that runs
// it. The ranks compare it before any work (engine/agreement.h), and the
// record stores it with its digest, so that a run whose ranks disagreed is
// never measured and a record says exactly what all of its ranks ran.

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "harness/results/run_context.h"

namespace gradsync {

// Options that may differ between ranks because only one rank uses them:
// the files the writing rank writes (--out, --json, --timeline) and whether
// it waits for their folder's lock (--wait). None is part of the
// configuration.
bool per_rank_option(const std::string& flag);

// {"subcommand": "train", "--batch-size": "64", ..., "gradsync": "<version> <commit>",
// "cuda parts": "built"|"not built"}: every option by its long flag, its value
// normalized (sizes in bytes, numbers in one spelling, lists joined by ','),
// per-rank options left out.
nlohmann::json effective_options(const CLI::App& subcommand);

// Throws std::invalid_argument "--lr: must be a finite number (got nan)" for the first
// option of `subcommand` (or of its chosen subcommand) given a value that
// reads as a number but is not finite (nan, inf, 1e999): no option takes
// one, and a non-finite rate or size would make every figure meaningless.
void check_finite_numbers(const CLI::App& subcommand);

// The options and a digest of them ("fnv1a64:<16 hex digits>", over their
// canonical JSON text): equal configurations have equal digests.
AgreedConfig agreed_config(const nlohmann::json& options);

}  // namespace gradsync
