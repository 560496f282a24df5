#include "harness/cli/internal_error.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <csignal>
#include <cstring>
#include <new>
#include <stdexcept>
#include <vector>

#include "harness/results/result_file.h"

namespace gradsync {
namespace {

// Read by the handlers, so plain storage and lock-free atomics only.
char g_subcommand[32] = {};
std::atomic<int> g_phase{int(Phase::parsing)};
std::atomic<int> g_rank{-1};

static_assert(std::atomic<int>::is_always_lock_free);

// Appends to a fixed buffer, cutting what does not fit.
struct LineBuilder {
  std::span<char> buffer;
  std::size_t used = 0;
  void add(std::string_view text) {
    const std::size_t n = std::min(text.size(), buffer.size() - used);
    std::copy_n(text.data(), n, buffer.data() + used);
    used += n;
  }
  void add_number(int value) {
    char digits[16];
    const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    add(std::string_view(digits, std::size_t(end - digits)));
  }
};

void add_internal_error(LineBuilder& line, const FailurePlace& place, std::string_view what) {
  if (!place.subcommand.empty()) {
    line.add(place.subcommand);
    line.add(": ");
  }
  line.add("internal error while ");
  line.add(phase_name(place.phase));
  line.add(": ");
  line.add(what);
}

void write_line(std::string_view what) {
  char line[1024];
  const std::size_t n = internal_error_line(line, current_place(), what);
  for (std::size_t done = 0; done < n;) {
    const ssize_t wrote = ::write(STDERR_FILENO, line + done, n - done);
    if (wrote <= 0) break;
    done += std::size_t(wrote);
  }
}

[[noreturn]] void on_terminate() {
  std::string_view what =
      "std::terminate with no exception in flight (a std::thread destroyed while joinable?)";
  const std::exception_ptr escaped = std::current_exception();  // keeps what() alive
  if (escaped) try {
      std::rethrow_exception(escaped);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
      what = "an exception that is not a std::exception";
    }
  write_line(what);
  ::_exit(1);
}

const char* signal_text(int signal) {
  switch (signal) {
    case SIGSEGV:
      return "SIGSEGV (invalid memory access)";
    case SIGBUS:
      return "SIGBUS (invalid memory access)";
    case SIGFPE:
      return "SIGFPE (arithmetic error)";
    case SIGILL:
      return "SIGILL (illegal instruction)";
    default:
      return "SIGABRT (aborted)";
  }
}

// The line, then the signal's own default action (the process ends as
// killed by it, with a core dump where enabled).
void on_fatal_signal(int signal) {
  write_line(signal_text(signal));
  std::raise(signal);  // SA_RESETHAND: the default action now
}

}  // namespace

const char* phase_name(Phase phase) {
  switch (phase) {
    case Phase::parsing:
      return "parsing the command line";
    case Phase::setting_up:
      return "setting up";
    case Phase::measuring:
      return "measuring";
    case Phase::writing_results:
      return "writing results";
    case Phase::reporting:
      return "reporting";
    case Phase::calibrating:
      return "calibrating";
    case Phase::simulating:
      return "simulating";
    case Phase::running_runs:
      return "running its runs";
  }
  return "running";
}

void name_subcommand(std::string_view subcommand) {
  const std::size_t n = std::min(subcommand.size(), sizeof g_subcommand - 1);
  std::copy_n(subcommand.data(), n, g_subcommand);
  g_subcommand[n] = '\0';
}

void enter_phase(Phase phase) { g_phase = int(phase); }
void name_rank(int rank) { g_rank = rank; }

FailurePlace current_place() { return {g_subcommand, Phase(g_phase.load()), g_rank.load()}; }

std::string internal_error_text(const FailurePlace& place, std::string_view what) {
  std::vector<char> buffer(place.subcommand.size() + what.size() + 64);
  LineBuilder line{buffer};
  add_internal_error(line, place, what);
  return std::string(buffer.data(), line.used);
}

std::size_t internal_error_line(std::span<char> buffer, const FailurePlace& place,
                                std::string_view what) {
  if (buffer.empty()) return 0;
  LineBuilder line{buffer.first(buffer.size() - 1)};  // room for the newline
  line.add("gradsync: error: ");
  if (place.rank >= 0) {
    line.add("rank ");
    line.add_number(place.rank);
    line.add(": ");
  }
  add_internal_error(line, place, what);
  buffer[line.used] = '\n';
  return line.used + 1;
}

std::string failure_text(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e))
    return "out of memory: an allocation failed (std::bad_alloc); ask for smaller sizes or fewer "
           "ranks per host";
  if (dynamic_cast<const std::runtime_error*>(&e) || dynamic_cast<const std::invalid_argument*>(&e))
    return e.what();
  return internal_error_text(current_place(), without_json_tag(e.what()));
}

std::string current_failure_text() {
  try {
    throw;
  } catch (const std::exception& e) {
    return failure_text(e);
  } catch (...) {
    return internal_error_text(current_place(), "an exception that is not a std::exception");
  }
}

void install_internal_error_handlers() {
  std::set_terminate(on_terminate);
  for (int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) {
    struct sigaction current {};
    if (sigaction(signal, nullptr, &current) != 0 || current.sa_handler != SIG_DFL) continue;
    struct sigaction action {};
    action.sa_handler = on_fatal_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND | SA_NODEFER;
    sigaction(signal, &action, nullptr);
  }
}

}  // namespace gradsync
