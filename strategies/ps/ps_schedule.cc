// The rotated schedule. With every push sent at once (all-at-once), each
// worker's link starts a flow to every shard together, and each shard's link
// takes one from every worker: at 8 hosts, 7 TCP flows start at once into a
// queue of a few hundred kilobytes, which overflows, and the time goes to
// recovering the losses at the start of each transfer. The rotated schedule
// bounds both ends. Worker w takes the shards in turn starting at its own
// (w, w+1, ...), so that while the workers run alike each shard takes one
// worker's push at a time; and each worker keeps at most `window` pushes
// unacknowledged (the shard sends a receipt when a push has arrived whole),
// so that its link carries `window` flows, not one per shard. The sums come
// back the same way: a worker pulls each partition's sum, in the same order,
// with at most `window` pulls outstanding, so that replies do not converge on
// its link either, and a shard answers a pull as soon as its sum is ready.
// This is the credit of ps-lite and BytePS (what a worker may have in
// flight), with the start rotated as in a pairwise all-to-all.
//
// Rounds stay in order: round r's partitions are complete once every worker
// has pushed round r, so the pulls of round r overlap the pushes of round
// r+1, as the all-at-once schedule's replies do.

#include "strategies/ps/ps_schedule.h"

#include <stdexcept>

namespace gradsync {

std::vector<std::uint32_t> rotated_order(std::size_t partitions, int shards, int worker) {
  if (shards < 1 || worker < 0)
    throw std::invalid_argument("rotated_order: needs a shard and a worker index");
  std::vector<std::uint32_t> order;
  order.reserve(partitions);
  const std::size_t s = static_cast<std::size_t>(shards);
  for (std::size_t round = 0; round * s < partitions; ++round)
    for (std::size_t k = 0; k < s; ++k) {
      const std::size_t partition = round * s + (static_cast<std::size_t>(worker) + k) % s;
      if (partition < partitions) order.push_back(static_cast<std::uint32_t>(partition));
    }
  return order;
}

PushPullWindow::PushPullWindow(std::vector<std::uint32_t> order, int window)
    : order_(std::move(order)), window_(window) {
  if (window < 1) throw std::invalid_argument("PushPullWindow: the window must be at least 1");
}

std::optional<std::uint32_t> PushPullWindow::next_push() {
  if (pushed_ == order_.size() || pushes_in_flight_ >= window_) return std::nullopt;
  ++pushes_in_flight_;
  return order_[pushed_++];
}

std::optional<std::uint32_t> PushPullWindow::next_pull() {
  if (pulled_ == pushed_ || pulls_in_flight_ >= window_) return std::nullopt;
  ++pulls_in_flight_;
  return order_[pulled_++];
}

}  // namespace gradsync
