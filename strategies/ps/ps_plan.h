#pragma once
// The parameter server's partition plan (ps-lite style key-range sharding): a
// buffer of `total` elements is cut into near-equal contiguous partitions of
// at most about `partition_bytes` each, but at least one per shard while there
// are elements for it, and partition i is served by shard i % shards. Workers
// and servers derive the same plan from the element count alone, which is how
// each side checks the ranges the other sends.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "strategies/core/partition.h"
#include "strategies/ps/ps_wire.h"

namespace gradsync {

struct PsPlan {
  std::size_t partition_bytes = 4 * 1024 * 1024;
  int shards = 1;

  // Elements per partition at most: partition_bytes in floats, at least one.
  std::size_t max_partition_count() const;
  // max(ceil(total / max_partition_count()), min(shards, total)); 0 for total 0.
  std::size_t partition_count(std::uint64_t total) const;
  Range partition(std::uint64_t total, std::size_t index) const;
  std::vector<Range> partitions(std::uint64_t total) const;
  int shard_of(std::size_t index) const { return static_cast<int>(index % shards); }

  // A shard's partitions packed one after the other (its shared-memory
  // sums, ps_shared_segment.h): where partition `index` starts among those
  // of its shard, and how many elements they hold in all, for a buffer of
  // `total` elements. Closed forms, no walk over the partitions.
  std::uint64_t packed_offset(std::uint64_t total, std::size_t index) const;
  std::uint64_t packed_elements(std::uint64_t total, int shard) const;

  // Empty when the header's partition, offset and count are the plan's for a
  // buffer of header.total elements, and the partition is served by `shard`;
  // otherwise what does not match.
  std::string check(const PsHeader& header, int shard) const;
};

}  // namespace gradsync
