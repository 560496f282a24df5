#pragma once
// The shards of the NCCL sharded entries (zero2-nccl, zero3-nccl). NCCL's
// ncclReduceScatter and ncclAllGather give every rank the same count, so a
// buffer of `count` elements over p workers is cut into p parts of
// count / p elements, worker r's at r x (count / p), and the count % p
// elements left at the end go to the last worker, which a reduce to it and a
// broadcast from it carry. The parts tile the buffer, as Strategy::shard's
// must; they differ from the even parts of the other entries (partition.h)
// by at most p - 1 elements on the last worker.

#include <cstddef>

#include "strategies/core/partition.h"

namespace gradsync {

inline Range nccl_shard(std::size_t count, std::size_t workers, std::size_t rank) {
  const std::size_t each = count / workers;
  const std::size_t tail = rank + 1 == workers ? count - each * workers : 0;
  return {rank * each, each + tail};
}

}  // namespace gradsync
