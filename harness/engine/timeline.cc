// The timeline's collector: each worker keeps its events in one vector under
// a mutex, with timestamps as nanoseconds since an origin taken right after a
// barrier, so that event k on rank 0 and on rank 1 can be compared to within
// the barrier's exit skew (microseconds on one host). The text form (one line
// per event) is what the ranks exchange when the trace is gathered.
#include "harness/engine/timeline.h"

#include <charconv>
#include <stdexcept>

namespace gradsync {

std::string trace_field(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return out;
}

Timeline::Timeline(TimelineWindow window, std::size_t expected_events)
    : window_(window), origin_(TraceClock::now()) {
  events_.reserve(expected_events);
}

void Timeline::start() { origin_ = TraceClock::now(); }

void Timeline::event(std::string_view name, std::string_view category, TraceClock::time_point start,
                     TraceClock::time_point end, int thread) {
  TraceEvent e{std::string(name), std::string(category),
               std::chrono::duration_cast<std::chrono::nanoseconds>(start - origin_).count(),
               std::chrono::duration_cast<std::chrono::nanoseconds>(end - origin_).count(), thread};
  std::lock_guard lock(mu_);
  events_.push_back(std::move(e));
}

std::vector<TraceEvent> Timeline::events() const {
  std::lock_guard lock(mu_);
  return events_;
}

std::string Timeline::serialize() const {
  std::lock_guard lock(mu_);
  std::string out;
  out.reserve(events_.size() * 64);
  for (const TraceEvent& e : events_) {
    out += std::to_string(e.thread) + ' ' + std::to_string(e.start_ns) + ' ' +
           std::to_string(e.end_ns) + ' ' + trace_field(e.category) + '\t' + trace_field(e.name) +
           '\n';
  }
  return out;
}

std::vector<TraceEvent> parse_events(std::string_view text) {
  std::vector<TraceEvent> events;
  std::size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    const std::size_t eol = text.find('\n');
    const std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    TraceEvent e;
    const char* p = line.data();
    const char* end = line.data() + line.size();
    auto number = [&](auto& value) {
      const auto [next, ec] = std::from_chars(p, end, value);
      if (ec != std::errc() || next == end || *next != ' ') return false;
      p = next + 1;
      return true;
    };
    const std::size_t tab = line.find('\t');
    if (!number(e.thread) || !number(e.start_ns) || !number(e.end_ns) ||
        tab == std::string_view::npos || p > line.data() + tab)
      throw std::runtime_error("timeline: malformed event line " + std::to_string(line_no) + ": '" +
                               std::string(line) + "'");
    e.category.assign(p, line.data() + tab);
    e.name.assign(line.substr(tab + 1));
    events.push_back(std::move(e));
  }
  return events;
}

}  // namespace gradsync
