#pragma once
// Every failure ends as one line on stderr, never a backtrace. The failures
// the code raises for users (std::runtime_error, std::invalid_argument) carry
// their own line; anything else that reaches main's guards is an internal
// error, and so are std::terminate (an exception escaping a thread, a
// joinable std::thread destroyed) and a fatal signal (SIGSEGV, SIGFPE,
// SIGBUS, SIGILL, SIGABRT). Their line names the subcommand and what it was
// doing:
//
//   gradsync: error: train: internal error while measuring: <what()>
//   gradsync: error: rank 1: train: internal error while measuring: SIGSEGV (invalid memory access)
//
// std::terminate then ends the process with _exit(1), a signal with its own
// default action (a core dump where enabled); under mpirun that rank's end
// ends the job, no rank is left waiting. The handlers are installed before
// MPI_Init, so Open MPI keeps them instead of its own backtrace printers, and
// only over the default action, so a sanitizer's stay.

#include <cstddef>
#include <exception>
#include <span>
#include <string>
#include <string_view>

namespace gradsync {

// What the command is doing, as the line names it.
enum class Phase {
  parsing,          // the command line
  setting_up,       // plans, the ranks' agreement, files checked and locked
  measuring,        // collectives, train
  writing_results,  // a measurement's record
  reporting,        // report, compare, strategies, models; a sweep's closing report
  calibrating,      // calibrate
  simulating,       // simulate
  running_runs,     // a sweep's runs
};

const char* phase_name(Phase phase);

// Recorded for the line: the subcommand ("train"), the phase, and the MPI
// rank (named only in jobs of more than one rank; -1: none).
void name_subcommand(std::string_view subcommand);
void enter_phase(Phase phase);
void name_rank(int rank);

// Where a failure happened, for the line.
struct FailurePlace {
  std::string_view subcommand;  // empty before the command line is read
  Phase phase = Phase::parsing;
  int rank = -1;
};

// The place recorded by the calls above.
FailurePlace current_place();

// "train: internal error while measuring: <what>" ("internal error while
// parsing: ..." without a subcommand).
std::string internal_error_text(const FailurePlace& place, std::string_view what);

// The whole line, "gradsync: error: [rank R: ]" + internal_error_text + "\n",
// written into `buffer` and cut to fit it (still ending in a newline); its
// length. It allocates nothing, for the terminate and signal handlers.
std::size_t internal_error_line(std::span<char> buffer, const FailurePlace& place,
                                std::string_view what);

// The line for a failure that reached a guard, without "gradsync: error: ":
// the user's line for std::runtime_error and std::invalid_argument, what
// running out of memory means for std::bad_alloc, internal_error_text at the
// current place for anything else (nlohmann::json's tag left out).
std::string failure_text(const std::exception& e);
// The same for the exception being handled (inside a catch (...)).
std::string current_failure_text();

// std::set_terminate and the fatal signals, as above.
void install_internal_error_handlers();

}  // namespace gradsync
