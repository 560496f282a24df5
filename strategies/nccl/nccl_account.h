#pragma once
// What nccl-ring and nccl-tree add to a run's record and output: the
// algorithm and protocol NCCL confirms it ran for each allreduce size, read
// from its own log (nccl_tuning_log.h) by rank 0 of the communicator, the
// only rank NCCL logs them on, against the algorithm the strategy pinned.
//
// Record: "nccl_algorithm": {"pinned": "TREE", "confirmed": "TREE" (the
// algorithms seen, comma-separated, or "unconfirmed"), "matches_pin": true,
// false or null (unconfirmed), "by_size": [{"bytes", "algorithm",
// "protocol", "calls"}], "unconfirmed_because": "..." (only when
// unconfirmed)}.

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "strategies/core/run_account.h"
#include "strategies/nccl/nccl_tuning_log.h"

namespace gradsync {

// A rank's part (Strategy::account()): the choices its log held, or why it
// holds none.
std::string nccl_account_part(const std::vector<NcclAllreduceChoice>& choices,
                              const std::string& unconfirmed_because);

// The entries' merge_account: every rank's part into the record field and
// the output lines, one of which says so when NCCL ran another algorithm
// than the pin.
RunAccount nccl_ring_merge_account(std::span<const std::string> per_rank,
                                   const AccountInputs& inputs);
RunAccount nccl_tree_merge_account(std::span<const std::string> per_rank,
                                   const AccountInputs& inputs);

}  // namespace gradsync
