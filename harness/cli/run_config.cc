#include "harness/cli/run_config.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <stdexcept>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "generated/git_commit.h"
#include "gpu/build.h"

namespace gradsync {
namespace {

// Whether `text` is wholly a number (strtod's syntax, nan and inf included),
// and its value.
bool read_number(const std::string& text, double& value) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return false;
  if (errno == ERANGE && std::isinf(value)) value = HUGE_VAL;  // 1e999: overflows to inf
  return true;
}

// One spelling per number ("0.10" and "0.1", "1e2" and "100" are one value),
// so that ranks given the same value in other words agree; text that is not
// wholly a number is kept as it is.
std::string normalized(const std::string& text) {
  double value = 0;
  if (!read_number(text, value) || !std::isfinite(value)) return text;
  return fmt::format("{}", value);
}

// The option's value on this rank: what was given, or its default, through
// the option's own transforms (a size given as "512K" and a default of 512K
// both read 524288).
std::string effective_value(const CLI::Option& option) {
  std::vector<std::string> values;
  try {
    values = option.as<std::vector<std::string>>();
  } catch (const CLI::Error&) {
    values = option.results();
  }
  std::string joined;
  for (const auto& v : values) joined += (joined.empty() ? "" : ",") + normalized(v);
  return joined;
}

}  // namespace

bool per_rank_option(const std::string& flag) {
  return flag == "--out" || flag == "--json" || flag == "--timeline" || flag == "--wait";
}

nlohmann::json effective_options(const CLI::App& subcommand) {
  nlohmann::json out = nlohmann::json::object();
  out["subcommand"] = subcommand.get_name();
  for (const CLI::Option* option : subcommand.get_options()) {
    if (option->get_lnames().empty()) continue;  // --help has one; positional arguments none
    const std::string flag = "--" + option->get_lnames().front();
    if (flag == "--help" || per_rank_option(flag)) continue;
    out[flag] = effective_value(*option);
  }
  out["gradsync"] = fmt::format("{} {}", GRADSYNC_VERSION, GRADSYNC_GIT_COMMIT);
  out["cuda parts"] = gpu_built() ? "built" : "not built";
  return out;
}

void check_finite_numbers(const CLI::App& subcommand) {
  for (const CLI::App* chosen : subcommand.get_subcommands())
    check_finite_numbers(*chosen);
  for (const CLI::Option* option : subcommand.get_options()) {
    for (const auto& text : option->results()) {
      double value = 0;
      if (read_number(text, value) && !std::isfinite(value))
        throw std::invalid_argument(option->get_name() + ": must be a finite number (got " + text +
                                    ")");
    }
  }
}

AgreedConfig agreed_config(const nlohmann::json& options) {
  // FNV-1a, 64 bits: a fingerprint to tell configurations apart, not a
  // defence against forgery (the full options travel with it).
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : options.dump()) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return {options, fmt::format("fnv1a64:{:016x}", hash)};
}

}  // namespace gradsync
