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

// even_part gives the first total % count partitions one element more than
// the rest. Shard s serves partitions s, s + S, s + 2S, ...: the first k of
// them hold k * base elements plus one for each below that remainder.
std::uint64_t PsPlan::packed_offset(std::uint64_t total, std::size_t index) const {
  const std::size_t count = partition_count(total);
  if (count == 0) return 0;
  const std::uint64_t base = total / count;
  const std::uint64_t extra = total % count;
  const std::uint64_t shard = index % shards;
  const std::uint64_t before = index / shards;  // its shard's partitions before it
  const std::uint64_t longer = extra > shard ? (extra - shard + shards - 1) / shards : 0;
  return before * base + std::min(before, longer);
}

std::uint64_t PsPlan::packed_elements(std::uint64_t total, int shard) const {
  const std::size_t count = partition_count(total);
  const auto s = static_cast<std::size_t>(shard);
  if (s >= count) return 0;
  // Its partitions are s, s + S, ..., up to the last below count: the
  // offset one past them, as if there were one more.
  const std::size_t mine = (count - s + shards - 1) / shards;
  return packed_offset(total, s + mine * shards);
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
