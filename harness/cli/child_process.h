#pragma once
// Running another program from the sweep: its output into a log file, its
// exit status back, and a stop request (SIGINT, SIGTERM, SIGHUP to the
// sweep) passed on to it, so that a stopped sweep can still clean up.

#include <string>
#include <vector>

namespace gradsync {

enum class OnStop {
  stop,    // a stop request ends it (a run of the sweep)
  finish,  // it runs to its end whatever comes (cleanup after a stop)
};

// Runs argv (searched on PATH) with stdin from /dev/null and stdout and
// stderr into `log` (truncated, or appended when `append`; empty: this
// process's own stdout and stderr); returns its exit
// status, or 128 + the signal that ended it. Throws when it cannot start.
int run_logged(const std::vector<std::string>& argv, const std::string& log, bool append = false,
               OnStop on_stop = OnStop::stop);

// From now on SIGINT, SIGTERM and SIGHUP do not end this process: they are
// passed on (as SIGTERM) to the child run_logged waits for, and
// stop_requested() turns true.
void pass_stop_signals_to_children();
bool stop_requested();

}  // namespace gradsync
