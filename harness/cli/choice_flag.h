#pragma once
// A flag that takes one of a fixed set of names and stores the typed value the
// name stands for (an enum, a bool): the value is parsed once, by CLI11, and
// an unknown name is CLI11's one-line error "--flag: x not in {a,b,c}". The
// help shows TEXT:{a,b,c}=default, as CLI::IsMember on a string did.

#include <CLI/CLI.hpp>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <type_traits>

namespace gradsync {

// `table`: a static array of entries with .name (string_view) and .value,
// e.g. NamedValue<T>.
// `target` is a T (its value is shown as the default) or a std::optional<T>
// (no default: left empty unless the flag is given).
template <typename Target, typename Entry, std::size_t N>
CLI::Option* add_choice_flag(CLI::App& app, const std::string& flag, Target& target,
                             const Entry (&table)[N], const std::string& help) {
  const std::span<const Entry> choices(table);  // a static table: outlives the App
  std::string known;
  for (const auto& entry : choices) known += (known.empty() ? "" : ",") + std::string(entry.name);
  known = "{" + known + "}";
  auto* option = app.add_option_function<std::string>(
      flag,
      [&target, choices, flag, known](const std::string& name) {
        for (const auto& entry : choices)
          if (entry.name == name) {
            target = entry.value;
            return;
          }
        throw CLI::ValidationError(flag, name + " not in " + known);
      },
      help);
  option->type_name("TEXT:" + known);
  if constexpr (std::is_same_v<Target, std::remove_cvref_t<decltype(Entry::value)>>) {
    for (const auto& entry : choices)
      if (entry.value == target) option->default_str(std::string(entry.name));
  }
  return option;
}

}  // namespace gradsync
