#include "harness/cli/flag_scope.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

namespace gradsync {
namespace {

// "simulate published": the names from below the root down to `app`.
std::string command_path(const CLI::App& app) {
  std::string path = app.get_name();
  for (const CLI::App* up = app.get_parent(); up && up->get_parent(); up = up->get_parent())
    path = up->get_name() + " " + path;
  return path;
}

// The subcommand the parse was in when it stopped: the last one chosen,
// depth first, whose name is `name`.
const CLI::App* chosen_named(const CLI::App& app, const std::string& name) {
  const CLI::App* found = app.get_name() == name && app.get_parent() ? &app : nullptr;
  for (const CLI::App* sub : app.get_subcommands())
    if (const CLI::App* deeper = chosen_named(*sub, name)) found = deeper;
  return found;
}

// Every subcommand below `app` (at any depth) that takes `flag`.
void takers(const CLI::App& app, const std::string& flag, std::vector<std::string>& out) {
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_option_no_throw(flag)) out.push_back(command_path(*sub));
    takers(*sub, flag, out);
  }
}

}  // namespace

bool flag_given(const CLI::App& command, const std::string& flag) {
  const CLI::Option* option = command.get_option_no_throw(flag);
  return option && option->count() > 0;
}

void refuse_out_of_scope(const CLI::App& command, std::span<const FlagScope> scopes) {
  for (const FlagScope& scope : scopes)
    if (!scope.applies && flag_given(command, scope.flag))
      throw std::invalid_argument(
          fmt::format("{} does not apply to {}: it {}", scope.flag, scope.given, scope.why));
}

std::vector<FlagScope> strategy_flag_scopes(const CLI::App& command,
                                            std::span<const StrategyInfo* const> strategies,
                                            const StrategyOptions& options,
                                            const std::string& given) {
  std::vector<FlagScope> scopes;
  for (const OwnedOptionFlag& owned : strategy_option_flags()) {
    const std::string flag(owned.flag->flag);
    if (!flag_given(command, flag) || strategies.empty()) continue;
    FlagScope scope{flag, false, given, ""};
    for (const StrategyInfo* strategy : strategies) {
      const std::string why = idle_option_reason(*strategy, owned, options);
      if (why.empty()) scope.applies = true;
      if (scope.why.empty()) scope.why = why;
    }
    scopes.push_back(scope);
  }
  return scopes;
}

std::string misplaced_flag_line(const CLI::App& root, const CLI::ExtrasError& error) {
  const CLI::App* where = chosen_named(root, error.get_name());
  if (!where) return "";
  for (const std::string& extra : where->remaining()) {
    if (extra.rfind("--", 0) != 0 && !(extra.size() == 2 && extra[0] == '-')) continue;
    const std::string flag = extra.substr(0, extra.find('='));
    std::vector<std::string> others;
    takers(root, flag, others);
    if (others.empty()) return "";
    return fmt::format("{} does not apply to {} (it is a flag of {})", flag, command_path(*where),
                       fmt::join(others, ", "));
  }
  return "";
}

}  // namespace gradsync
