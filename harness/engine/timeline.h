#pragma once
// The training timeline's collector (`gradsync train --timeline FILE`), like
// Horovod's: every worker collects timed events (per-layer forward and
// backward, each bucket's pack, allreduce and unpack, the wait for
// communication, optimizer steps and step markers) and can put them in a text
// form for exchange. Gathering them across ranks and writing the Chrome trace
// is harness/results/chrome_trace.h.

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "models/model.h"

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
  int thread = 0;  // kComputeThread, kCommunicationThread, or an input loader's
};

// The threads of a worker's trace: compute (main), communication, and the
// input stage's loader threads from kFirstLoaderThread on (loader t is
// kFirstLoaderThread + t, input_pipeline.h).
inline constexpr int kComputeThread = 0;
inline constexpr int kCommunicationThread = 1;
inline constexpr int kFirstLoaderThread = 2;

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

// `text` with tabs and newlines made spaces, so that it fits in one field of
// the text form.
std::string trace_field(std::string_view text);

}  // namespace gradsync
