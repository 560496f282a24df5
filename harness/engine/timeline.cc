// The timeline: collecting, gathering and writing a Chrome trace.
//
// Collecting: each worker keeps its events in one vector under a mutex, with
// timestamps as nanoseconds since an origin taken right after a barrier, so
// that event k on rank 0 and on rank 1 can be compared to within the
// barrier's exit skew (microseconds on one host). Gathering: every worker
// serializes its events as text lines and World::allgather brings them to
// every worker (the control collectives have no gather; the trace is bounded
// by --timeline-steps, so the extra copies are small). Writing: worker 0 turns
// them into the Chrome trace event format (the JSON Object form, complete "X"
// events with microsecond ts/dur, "M" metadata naming processes and threads),
// writes it to a temporary file in the target directory and renames it over
// the target, which is atomic on POSIX file systems.
#include "harness/engine/timeline.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace gradsync {
namespace {

std::string one_line(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return out;
}

double microseconds(std::int64_t ns) { return static_cast<double>(ns) / 1000.0; }

nlohmann::json metadata(const char* what, int pid, int tid, const std::string& name) {
  return {{"name", what}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}};
}

}  // namespace

Timeline::Timeline(TimelineWindow window, std::size_t expected_events)
    : window_(window), origin_(TraceClock::now()) {
  events_.reserve(expected_events);
}

void Timeline::start() { origin_ = TraceClock::now(); }

void Timeline::event(std::string_view name, std::string_view category,
                     TraceClock::time_point start, TraceClock::time_point end, int thread) {
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
           std::to_string(e.end_ns) + ' ' + one_line(e.category) + '\t' + one_line(e.name) + '\n';
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
      throw std::runtime_error("timeline: malformed event line " + std::to_string(line_no) +
                               ": '" + std::string(line) + "'");
    e.category.assign(p, line.data() + tab);
    e.name.assign(line.substr(tab + 1));
    events.push_back(std::move(e));
  }
  return events;
}

std::vector<TraceProcess> gather_timeline(const World& peers, const Timeline& timeline, int pid,
                                          const std::string& process_name) {
  const auto all = peers.allgather(std::to_string(pid) + '\t' + one_line(process_name) + '\n' +
                                   timeline.serialize());
  std::vector<TraceProcess> processes;
  for (const std::string& text : all) {
    const std::size_t tab = text.find('\t');
    const std::size_t eol = text.find('\n');
    if (tab == std::string::npos || eol == std::string::npos || tab > eol)
      throw std::runtime_error("timeline: a worker sent a malformed header");
    TraceProcess process;
    process.pid = std::stoi(text.substr(0, tab));
    process.name = text.substr(tab + 1, eol - tab - 1);
    process.events = parse_events(std::string_view(text).substr(eol + 1));
    processes.push_back(std::move(process));
  }
  return processes;
}

nlohmann::json chrome_trace(const std::vector<TraceProcess>& processes,
                            const nlohmann::json& other_data) {
  nlohmann::json events = nlohmann::json::array();
  for (const TraceProcess& process : processes) {
    events.push_back(metadata("process_name", process.pid, 0, process.name));
    events.push_back({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", process.pid},
                      {"tid", 0}, {"args", {{"sort_index", process.pid}}}});
    events.push_back(metadata("thread_name", process.pid, 0, "compute"));
    events.push_back(metadata("thread_name", process.pid, 1, "communication"));
  }
  for (const TraceProcess& process : processes) {
    std::vector<const TraceEvent*> sorted;
    for (const TraceEvent& e : process.events) sorted.push_back(&e);
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const TraceEvent* a, const TraceEvent* b) { return a->start_ns < b->start_ns; });
    for (const TraceEvent* e : sorted)
      events.push_back({{"name", e->name},
                        {"cat", e->category},
                        {"ph", "X"},
                        {"ts", microseconds(e->start_ns)},
                        {"dur", microseconds(std::max<std::int64_t>(0, e->end_ns - e->start_ns))},
                        {"pid", process.pid},
                        {"tid", e->thread}});
  }
  return {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"}, {"otherData", other_data}};
}

std::size_t write_chrome_trace(const std::filesystem::path& file,
                               const std::vector<TraceProcess>& processes,
                               const nlohmann::json& other_data) {
  std::size_t count = 0;
  for (const auto& process : processes) count += process.events.size();
  const std::string text = chrome_trace(processes, other_data).dump() + '\n';
  std::filesystem::path temp = file;
  temp += ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (out) out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (out) out.flush();
    if (!out) {
      const std::string reason = std::strerror(errno);
      std::error_code ignored;
      std::filesystem::remove(temp, ignored);
      throw std::runtime_error(file.string() + ": cannot write the timeline: " + reason);
    }
  }
  std::error_code ec;
  std::filesystem::rename(temp, file, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    throw std::runtime_error(file.string() + ": cannot write the timeline: " + ec.message());
  }
  return count;
}

}  // namespace gradsync
