#include "strategies/core/strategy.h"

namespace gradsync {

std::string_view to_string(Sharding sharding) {
  switch (sharding) {
    case Sharding::none:
      return "none";
    case Sharding::optimizer_state:
      return "optimizer-state";
    case Sharding::parameters:
      return "parameters";
  }
  return "?";
}

}  // namespace gradsync
