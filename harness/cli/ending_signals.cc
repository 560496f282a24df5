#include "harness/cli/ending_signals.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "strategies/core/launcher_env.h"

namespace gradsync {
namespace {

// The lines, made before any signal can come; the handler only reads them.
constexpr std::size_t kLongestLine = 512;
char g_term_line[kLongestLine];
char g_int_line[kLongestLine];

void copy_line(char (&to)[kLongestLine], const std::string& line) {
  const std::size_t n = std::min(line.size(), kLongestLine - 1);
  std::memcpy(to, line.data(), n);
  to[n] = '\0';
}

void on_ending_signal(int signal) {
  const char* line = signal == SIGINT ? g_int_line : g_term_line;
  std::size_t left = std::strlen(line);
  while (left > 0) {
    const ssize_t n = ::write(STDERR_FILENO, line, left);
    if (n <= 0) break;
    line += n;
    left -= std::size_t(n);
  }
  ::_exit(128 + signal);
}

}  // namespace

std::string ending_line(const std::string& subcommand, bool measures, int signal) {
  return fmt::format("gradsync: error: {}: ended by {} (from outside); {}\n", subcommand,
                     signal == SIGINT ? "SIGINT" : "SIGTERM",
                     measures ? "nothing of the unfinished run was recorded" : "it did not finish");
}

void say_ending_signals(const CLI::App& app) {
  if (under_launcher()) return;
  const auto chosen = app.get_subcommands();
  const std::string subcommand = chosen.empty() ? app.get_name() : chosen.front()->get_name();
  const bool measures = subcommand == "collectives" || subcommand == "train";
  copy_line(g_term_line, ending_line(subcommand, measures, SIGTERM));
  copy_line(g_int_line, ending_line(subcommand, measures, SIGINT));
  struct sigaction action {};
  action.sa_handler = on_ending_signal;
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, SIGTERM);  // one line, whichever comes first
  sigaddset(&action.sa_mask, SIGINT);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
}

}  // namespace gradsync
