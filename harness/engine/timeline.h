#pragma once
// The training timeline (`gradsync train --timeline FILE`), like Horovod's:
// every worker collects timed events (per-layer forward and backward, each
// bucket's pack, allreduce and unpack, the wait for communication, optimizer
// steps and step markers), the events are gathered to worker 0, and worker 0
// writes one Chrome trace (the JSON format of chrome://tracing and Perfetto)
// with one process per rank, thread 0 = compute, thread 1 = communication.

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "models/model.h"
#include "strategies/world.h"

namespace gradsync {

// Which steps are traced (steps count from 0, warm-up included).
struct TimelineWindow {
  int first_step = 0;
  int steps = -1;  // how many from first_step; -1: all the rest
  bool covers(int step) const {
    return step >= first_step && (steps < 0 || step < first_step + steps);
  }
};

// One timed span, in nanoseconds since the timeline's origin.
struct TraceEvent {
  std::string name;
  std::string category;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  int thread = 0;  // 0: compute (main) thread, 1: communication thread
};

// A thread-safe event collector. event() takes the clock readings its caller
// made anyway, builds the event outside the lock and only moves it into a
// preallocated vector under a mutex: the two threads that emit (compute and
// communication) rarely contend, and then only for a push.
class Timeline : public TraceSink {
 public:
  explicit Timeline(TimelineWindow window = {}, std::size_t expected_events = 0);

  const TimelineWindow& window() const { return window_; }
  // Takes the origin of every timestamp: call it on every worker right after a
  // barrier, so that the ranks' timelines line up (to the barrier's skew).
  void start();
  void event(std::string_view name, std::string_view category, TraceClock::time_point start,
             TraceClock::time_point end, int thread) override;

  std::vector<TraceEvent> events() const;
  // One line per event, "thread start_ns end_ns category<TAB>name", for
  // gathering across ranks (tabs and newlines in names become spaces).
  std::string serialize() const;

 private:
  TimelineWindow window_;
  TraceClock::time_point origin_;
  mutable std::mutex mu_;
  std::vector<TraceEvent> events_;
};

// The inverse of Timeline::serialize(); throws std::runtime_error on a
// malformed line.
std::vector<TraceEvent> parse_events(std::string_view text);

// One rank's part of the trace.
struct TraceProcess {
  int pid = 0;       // the rank
  std::string name;  // e.g. "rank 0 (node1)"
  std::vector<TraceEvent> events;
};

// Collective over `peers`: every worker passes its timeline; the result (on
// every worker) is every worker's events, in worker order.
std::vector<TraceProcess> gather_timeline(const World& peers, const Timeline& timeline, int pid,
                                          const std::string& process_name);

// The Chrome trace: {"traceEvents": [...], "displayTimeUnit": "ms",
// "otherData": other_data} with a complete event ("ph": "X", ts and dur in
// microseconds) per event and metadata events naming processes and threads.
nlohmann::json chrome_trace(const std::vector<TraceProcess>& processes,
                            const nlohmann::json& other_data);

// Writes chrome_trace() atomically: to a temporary file beside `file`, then
// renamed over it, so a crash never leaves half a trace. Returns the number
// of complete events written. Throws std::runtime_error naming the file.
std::size_t write_chrome_trace(const std::filesystem::path& file,
                               const std::vector<TraceProcess>& processes,
                               const nlohmann::json& other_data);

}  // namespace gradsync
