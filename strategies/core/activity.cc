#include "strategies/core/activity.h"

#include <fmt/format.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <utility>

namespace gradsync {
namespace {

std::mutex mu;
std::string where;  // under mu
Stalls stalls;      // under mu
std::atomic<const char*> item_kind{nullptr};
std::atomic<long> item_index{0};

}  // namespace

void set_activity(std::string now) {
  std::lock_guard lock(mu);
  where = std::move(now);
  item_kind.store(nullptr, std::memory_order_relaxed);
}

void set_activity_item(const char* kind, long index) {
  item_index.store(index, std::memory_order_relaxed);
  item_kind.store(kind, std::memory_order_relaxed);
}

std::string activity() {
  std::string out;
  {
    std::lock_guard lock(mu);
    out = where;
  }
  if (const char* kind = item_kind.load(std::memory_order_relaxed)) {
    if (!out.empty()) out += ' ';
    out += std::string(kind) + ' ' + std::to_string(item_index.load(std::memory_order_relaxed));
  }
  return out;
}

std::string in_activity() {
  const std::string where = activity();
  return where.empty() ? "" : " in " + where;
}

std::string stall_line(int rank, double waited_s, const char* operation, const std::string& whom) {
  return fmt::format("rank {}: stalled {:.1f} s{} ({}), waiting for {}", rank, waited_s,
                     in_activity(), operation, whom);
}

std::string pause_line(int rank, double paused_s, const char* operation) {
  return fmt::format(
      "rank {}: not running for {:.1f} s{} ({}): stopped, or starved of CPU; not counted "
      "against --timeout",
      rank, paused_s, in_activity(), operation);
}

void warn_stall(const std::string& line) {
  const std::string text = "gradsync: warning: " + line + "\n";
  std::fputs(text.c_str(), stderr);  // one write: lines of several ranks do not interleave
  note_stall(line);
}

void note_stall(const std::string& line) {
  std::lock_guard lock(mu);
  if (stalls.count++ == 0) stalls.first = line;
}

Stalls take_stalls() {
  std::lock_guard lock(mu);
  return std::exchange(stalls, Stalls{});
}

}  // namespace gradsync
