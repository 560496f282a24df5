#pragma once
// ps-zmq's account of a run (strategies/core/run_account.h), from every
// rank's part (PsZmq::account(): its shard's refusals and, in async and ssp
// modes, the steps it applied; empty on a rank without a shard):
//   "ps_rejected": every shard's refusals added up (ps_rejections_json.h),
//     and the line "Refused by PS shards: ...";
//   "ps_shared_memory": how many shards served some worker through shared
//     memory, of how many, and when some did the most threads one's sums
//     ran on ({"shards": 2, "of": 2, "sum_threads": 1}); the job's
//     "workers"; and per shard which workers took shared memory and which
//     ZeroMQ ("by_shard": [{"shard": 0, "shared_memory": [0, 1], "zeromq": [2, 3]}]);
//     and its line, which also names the threads and the partition size;
//   "ps_partition_bytes": the partitions' size the shards planned with
//     (--ps-partition, or its default by where the ranks are);
//   "ps_async" (async and ssp, when train gives the workers' steps): what
//     the shards applied against the workers' steps (ps_async_json.h), its
//     line, and a failure when some shard did not apply a step.

#include <span>
#include <string>

#include "strategies/core/run_account.h"

namespace gradsync {

RunAccount ps_zmq_merge_account(std::span<const std::string> per_rank,
                                const AccountInputs& inputs);

}  // namespace gradsync
