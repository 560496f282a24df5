#include "strategies/ps/ps_plan.h"

#include <fmt/core.h>

#include <algorithm>

namespace gradsync {

std::size_t PsPlan::max_partition_count() const {
  return std::max<std::size_t>(1, partition_bytes / sizeof(float));
}

std::size_t PsPlan::partition_count(std::uint64_t total) const {
  const std::size_t per = max_partition_count();
  const std::size_t by_size = total / per + (total % per != 0 ? 1 : 0);
  return std::max<std::size_t>(by_size, std::min<std::uint64_t>(shards, total));
}

Range PsPlan::partition(std::uint64_t total, std::size_t index) const {
  return even_part(total, partition_count(total), index);
}

std::vector<Range> PsPlan::partitions(std::uint64_t total) const {
  return split_even(total, partition_count(total));
}

std::string PsPlan::check(const PsHeader& header, int shard) const {
  const std::size_t count = partition_count(header.total);
  if (header.partition >= count)
    return fmt::format("partition {} does not exist: a buffer of {} elements has {} partitions",
                       header.partition, header.total, count);
  if (shard_of(header.partition) != shard)
    return fmt::format("partition {} belongs to shard {}, not to shard {}", header.partition,
                       shard_of(header.partition), shard);
  const Range range = even_part(header.total, count, header.partition);
  if (header.offset != range.offset || header.count != range.count)
    return fmt::format(
        "partition {} of a {}-element buffer is elements [{}, {}), but the header says [{}, {})",
        header.partition, header.total, range.offset, range.offset + range.count, header.offset,
        header.offset + header.count);
  return {};
}

}  // namespace gradsync
