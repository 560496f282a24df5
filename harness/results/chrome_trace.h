#pragma once
// The training timeline as a file (`gradsync train --timeline FILE`), like
// Horovod's: the workers' collected events (harness/engine/timeline.h) are
// gathered to every worker, and worker 0 writes one Chrome trace (the JSON
// format of chrome://tracing and Perfetto) with one process per rank,
// thread 0 = compute, thread 1 = communication, thread 2 on = input loaders.

#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/engine/timeline.h"
#include "strategies/core/world.h"

namespace gradsync {

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
