#include "harness/cli/fusion_flag.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "harness/engine/input_rules.h"
#include "harness/engine/synchronizer.h"

namespace gradsync {

FusionChoice parse_fusion_mb(const std::string& text) {
  if (text == "auto") return {.automatic = true, .mb = SyncOptions{}.fusion_mb};
  double mb = -1;
  std::size_t used = 0;
  try {
    mb = std::stod(text, &used);
  } catch (const std::logic_error&) {  // not a number, or out of range
    used = 0;
  }
  if (text.empty() || used != text.size() || !std::isfinite(mb) || mb < 0)
    throw std::invalid_argument(fmt::format(
        "--fusion-mb: expected auto or a threshold in MiB, 0 or more (0: no fusion), got '{}'",
        text));
  // Beyond a TiB no model has gradients to fuse; a threshold there is a typo.
  checked(mb, {"--fusion-mb", false, 0, 1e6, "MiB"}, "");
  return {.automatic = false, .mb = mb};
}

std::string default_fusion_mb_text() { return fmt::format("{:g}", SyncOptions{}.fusion_mb); }

}  // namespace gradsync
