#include "strategies/strategy_options.h"

#include <stdexcept>

namespace gradsync {

PsPlacement parse_ps_placement(const std::string& text) {
  if (text == "colocated") return PsPlacement::colocated;
  if (text == "dedicated") return PsPlacement::dedicated;
  throw std::invalid_argument("unknown --ps-placement '" + text + "' (known: colocated, dedicated)");
}

const char* to_string(PsPlacement placement) {
  return placement == PsPlacement::dedicated ? "dedicated" : "colocated";
}

}  // namespace gradsync
