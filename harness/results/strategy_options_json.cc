#include "harness/results/strategy_options_json.h"

#include <fmt/format.h>

#include <stdexcept>
#include <string>

#include "harness/results/result_file.h"
#include "harness/sim/json_whole.h"
#include "strategies/registry.h"

namespace gradsync {

nlohmann::json to_json(const StrategyOptions& options) {
  StrategyOptions copy = options;  // the fields are reached through a mutable object
  nlohmann::json out = nlohmann::json::object();
  for (const auto& owned : strategy_option_flags()) {
    const OptionFlag& flag = *owned.flag;
    const std::string key(flag.key);
    if (flag.field)
      std::visit([&](auto* value) { out[key] = *value; }, flag.field(copy));
    else
      out[key] = std::string(flag.named.get(options));
  }
  return out;
}

StrategyOptions strategy_options_from_json(const nlohmann::json& json) {
  StrategyOptions options;
  for (const auto& owned : strategy_option_flags()) {
    const OptionFlag& flag = *owned.flag;
    const std::string key(flag.key);
    if (!json.contains(key)) continue;
    const auto& value = json.at(key);
    try {
      if (flag.field) {
        std::visit(
            [&](auto* field) {
              using Field = std::remove_pointer_t<decltype(field)>;
              if constexpr (std::is_integral_v<Field> && !std::is_same_v<Field, bool>)
                *field = whole_number<Field>(value);
              else
                *field = value.get<Field>();
            },
            flag.field(options));
      } else {
        const auto name = value.get<std::string>();
        bool known = false;
        for (auto choice : flag.choices) known = known || choice == name;
        if (!known) throw std::invalid_argument("not one of its choices");
        flag.named.set(options, name);
      }
    } catch (const std::exception& e) {
      throw std::invalid_argument(fmt::format("strategy_options.{}: {} is not a valid value ({})",
                                              key, value.dump(), without_json_tag(e.what())));
    }
  }
  return options;
}

std::vector<std::pair<std::string, std::string>> changed_option_values(
    const StrategyOptions& options, const StrategyOptions& base, std::string_view strategy) {
  const nlohmann::json values = to_json(options);
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& owned : changed_option_flags(options, base)) {
    if (!strategy.empty() && !owned.strategy.empty() && owned.strategy != strategy) continue;
    const nlohmann::json& value = values.at(std::string(owned.flag->key));
    out.emplace_back(std::string(owned.flag->flag),
                     value.is_string() ? value.get<std::string>() : value.dump());
  }
  return out;
}

}  // namespace gradsync
