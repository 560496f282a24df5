#pragma once
// A process ended from outside says so in one line. SIGTERM (kill, a batch
// system) and SIGINT (Ctrl-C) end gradsync at once, as they would without
// a handler, but first write "gradsync: error: SUBCOMMAND: ended by SIGTERM
// (from outside); ..." to stderr; the exit status is 128 + the signal.
// The handler is async-signal-safe: the line is made when it is installed,
// and the handler only write(2)s it and _exit(2)s, so nothing half-written
// (a record is appended by one write) is flushed after it.
//
// Not under a launcher: mpirun ends every rank with SIGTERM alike whether it
// was signalled from outside or a rank failed or died (whose own line, or
// mpirun's notice, is the job's), so a rank cannot tell which; the launcher
// says it there (scripts/mpirun.sh). A subcommand that passes stop signals
// on to its children (sweep; smpi's smpirun) installs its own handlers after
// these, and says how it stopped itself.

#include <CLI/CLI.hpp>
#include <string>

namespace gradsync {

// Installs the handlers for SIGTERM and SIGINT, unless a launcher started
// this process (launcher_env.h); the line names the subcommand `app` parsed.
void say_ending_signals(const CLI::App& app);

// The line for `signal`, as the handler writes it (with its newline);
// `measures`: collectives or train, whose line adds that nothing of the
// unfinished run was recorded.
std::string ending_line(const std::string& subcommand, bool measures, int signal);

}  // namespace gradsync
