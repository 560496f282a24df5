// Gathering and writing a Chrome trace. Gathering: every worker serializes its
// events as text lines and World::allgather brings them to every worker (the
// control collectives have no gather; the trace is bounded by
// --timeline-steps, so the extra copies are small). Writing: worker 0 turns
// them into the Chrome trace event format (the JSON Object form, complete "X"
// events with microsecond ts/dur, "M" metadata naming processes and threads:
// compute, communication, and "input loader T" for each loader thread seen),
// writes it to a temporary file in the target directory and renames it over
// the target, which is atomic on POSIX file systems.
#include "harness/results/chrome_trace.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <stdexcept>

#include "harness/results/result_file.h"

namespace gradsync {
namespace {

double microseconds(std::int64_t ns) { return static_cast<double>(ns) / 1000.0; }

nlohmann::json metadata(const char* what, int pid, int tid, const std::string& name) {
  return {{"name", what}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}};
}

}  // namespace

std::vector<TraceProcess> gather_timeline(const World& peers, const Timeline& timeline, int pid,
                                          const std::string& process_name) {
  const auto all = peers.allgather(std::to_string(pid) + '\t' + trace_field(process_name) + '\n' +
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
    events.push_back({{"name", "process_sort_index"},
                      {"ph", "M"},
                      {"pid", process.pid},
                      {"tid", 0},
                      {"args", {{"sort_index", process.pid}}}});
    events.push_back(metadata("thread_name", process.pid, kComputeThread, "compute"));
    events.push_back(metadata("thread_name", process.pid, kCommunicationThread, "communication"));
    // Loader threads (train --input) are named only where they have events.
    std::set<int> loaders;
    for (const TraceEvent& e : process.events)
      if (e.thread >= kFirstLoaderThread) loaders.insert(e.thread);
    for (int tid : loaders)
      events.push_back(metadata("thread_name", process.pid, tid,
                                "input loader " + std::to_string(tid - kFirstLoaderThread)));
  }
  for (const TraceProcess& process : processes) {
    std::vector<const TraceEvent*> sorted;
    for (const TraceEvent& e : process.events) sorted.push_back(&e);
    std::stable_sort(sorted.begin(), sorted.end(), [](const TraceEvent* a, const TraceEvent* b) {
      return a->start_ns < b->start_ns;
    });
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
  write_file_replacing(file, text, "the timeline");
  return count;
}

}  // namespace gradsync
