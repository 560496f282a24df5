#include "harness/cli/strategy_flags.h"

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "harness/cli/size_flag.h"
#include "strategies/registry.h"

namespace gradsync {

namespace {

static_assert(std::is_same_v<std::size_t, std::uint64_t>,
              "size flags bind std::size_t fields through std::uint64_t");

// CLI::PositiveNumber's message prints the largest double in full.
CLI::Validator above_zero() {
  return CLI::Validator(
      [](std::string& text) {
        double value = 0;
        if (CLI::detail::lexical_cast(text, value) && value > 0) return std::string();
        return "must be a number above 0, not '" + text + "'";
      },
      "");
}

// Binds the flag to its field: a std::size_t is the byte size of floats (a
// segment, a partition), the rest CLI11 reads.
CLI::Option* add_field(CLI::App& app, const std::string& flag, OptionField field,
                       const std::string& help) {
  return std::visit(
      [&](auto* value) -> CLI::Option* {
        if constexpr (std::is_same_v<decltype(value), std::size_t*>)
          return add_size_flag(app, flag, *value, help, SizeUnit::floats);
        else
          return app.add_option(flag, *value, help);
      },
      field);
}

CLI::Option* add_named(CLI::App& app, const std::string& flag, NamedField named,
                       StrategyOptions& options, const std::string& help) {
  return app
      .add_option_function<std::string>(
          flag, [&options, named](const std::string& text) { named.set(options, text); }, help)
      ->default_str(std::string(named.get(options)));
}

}  // namespace

void add_strategy_flags(CLI::App& app, StrategyOptions& options, StrategyFlagSet set) {
  for (const auto& [strategy, flag] : strategy_option_flags()) {
    if (set == StrategyFlagSet::costed && !flag->costed) continue;
    const std::string name(flag->flag);
    const std::string help =
        strategy.empty() ? std::string(flag->help) : fmt::format("{}: {}", strategy, flag->help);
    CLI::Option* option = flag->field ? add_field(app, name, flag->field(options), help)
                                      : add_named(app, name, flag->named, options, help);
    if (!flag->choices.empty())
      option->check(
          CLI::IsMember(std::vector<std::string>(flag->choices.begin(), flag->choices.end())));
    if (flag->bound == OptionBound::above_zero) option->check(above_zero());
    if (flag->bound == OptionBound::not_negative) option->check(CLI::NonNegativeNumber);
    if (!flag->type_name.empty()) option->type_name(std::string(flag->type_name));
    option->group(flag->test_only ? "Test-only faults (not for measurements)" : "Strategy options");
  }
}

}  // namespace gradsync
