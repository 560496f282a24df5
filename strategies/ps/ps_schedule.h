#pragma once
// The rotated push schedule (--ps-schedule rotated): the order in which one
// worker puts its partitions on the wire, and the window that bounds what it
// has in flight. See ps_schedule.cc.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace gradsync {

// Partitions 0..partitions-1, partition i on shard i % shards, in the order
// worker `worker` pushes them: round by round (round r holds partitions
// r*shards .. r*shards + shards - 1), and within a round starting at shard
// worker % shards and going round the shards.
std::vector<std::uint32_t> rotated_order(std::size_t partitions, int shards, int worker);

// One allreduce's pushes and pulls over `order`, with at most `window`
// pushes unacknowledged and `window` pulls outstanding, and a partition
// pulled only once its push has left (so that on one socket the push comes
// first). The client asks what it may send next and says what came back.
class PushPullWindow {
 public:
  PushPullWindow(std::vector<std::uint32_t> order, int window);

  // The next partition to push or pull, if the window allows one now.
  std::optional<std::uint32_t> next_push();
  std::optional<std::uint32_t> next_pull();
  // A receipt for a push, a reply to a pull.
  void acknowledged() { --pushes_in_flight_; }
  void answered() { --pulls_in_flight_; }
  bool done() const { return pulled_ == order_.size() && pulls_in_flight_ == 0; }

 private:
  const std::vector<std::uint32_t> order_;
  const int window_;
  std::size_t pushed_ = 0, pulled_ = 0;  // of order_, sent so far
  int pushes_in_flight_ = 0, pulls_in_flight_ = 0;
};

}  // namespace gradsync
