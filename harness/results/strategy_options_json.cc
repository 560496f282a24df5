#include "harness/results/strategy_options_json.h"

#include <string>

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

}  // namespace gradsync
