// Builds without Gloo: the gloo-* entries exist, say why they cannot run,
// and refuse to be made.
#include <stdexcept>

#include "strategies/gloo/gloo.h"

namespace gradsync {
namespace {

[[noreturn]] std::unique_ptr<Strategy> not_built(const World&, const StrategyOptions&) {
  throw std::invalid_argument(gloo_availability().detail);
}

}  // namespace

Availability gloo_availability() {
  return {false,
          "not built: Gloo (libgloo-dev) was not found when gradsync was configured "
          "(scripts/install-deps.sh peers, then scripts/build.sh)"};
}

std::unique_ptr<Strategy> make_gloo_ring(const World& w, const StrategyOptions& o) {
  return not_built(w, o);
}
std::unique_ptr<Strategy> make_gloo_bcube(const World& w, const StrategyOptions& o) {
  return not_built(w, o);
}
std::unique_ptr<Strategy> make_gloo_ring_chunked(const World& w, const StrategyOptions& o) {
  return not_built(w, o);
}
std::unique_ptr<Strategy> make_gloo_halving_doubling(const World& w, const StrategyOptions& o) {
  return not_built(w, o);
}

}  // namespace gradsync
