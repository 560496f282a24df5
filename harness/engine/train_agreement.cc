#include "harness/engine/train_agreement.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "harness/engine/errors.h"
#include "strategies/core/blame.h"

namespace gradsync {
namespace {

// The earliest step over the workers is a maximum over negated steps, so
// that it travels in the same MPI_MAX collective as the slowest time; a
// worker without one contributes minus infinity.
double negated(const NonfiniteLoss& loss) {
  const auto step = loss.first_step();
  return step ? -double(*step) : -std::numeric_limits<double>::infinity();
}

std::optional<int> from_negated(double agreed) {
  if (std::isinf(agreed)) return std::nullopt;
  return static_cast<int>(-agreed);
}

}  // namespace

void NonfiniteLoss::see(int step, float loss) {
  if (!first_step_ && !std::isfinite(loss)) first_step_ = step;
}

IterationAgreement agree_on_iteration(const World& peers, double iteration_s,
                                      const NonfiniteLoss& loss) {
  const auto agreed = peers.max_each({iteration_s, negated(loss)});
  return {.slowest_s = agreed[0], .first_nonfinite_step = from_negated(agreed[1])};
}

std::optional<int> agree_on_first_nonfinite(const World& peers, const NonfiniteLoss& loss) {
  return from_negated(peers.max_each({negated(loss)})[0]);
}

std::string nonfinite_loss_line(int step, int total_steps, int warmup_steps) {
  return fmt::format("the loss stopped being finite at step {} (of {}; warm-up {})", step,
                     total_steps, warmup_steps);
}

std::string nonfinite_parameter_line(const World& peers, const std::vector<Parameter>& parameters,
                                     std::size_t steps) {
  std::string bad;
  for (const auto& p : parameters)
    if (!std::all_of(p.value.begin(), p.value.end(), [](float v) { return std::isfinite(v); })) {
      bad = p.name;
      break;
    }
  const auto all_bad = peers.allgather(bad);
  for (int r = 0; r < peers.size(); ++r)
    if (!all_bad[r].empty())
      return fmt::format("parameter {} of worker {} is not finite after {} steps", all_bad[r], r,
                         steps);
  return "";
}

std::string parameter_mismatch(const World& peers, const std::vector<Parameter>& parameters,
                               int steps) {
  const auto fingerprints =
      peers.allgather(fmt::format("{:016x}", parameter_fingerprint(parameters)));
  for (int r = 1; r < peers.size(); ++r)
    if (fingerprints[r] != fingerprints[0])
      return fmt::format("worker {}'s parameters differ from worker 0's after {} steps", r, steps);
  return "";
}

void agree_on_input_failure(const World& peers, const std::string& error) {
  const auto errors = peers.allgather(error);
  std::vector<int> failed;
  for (int r = 0; r < peers.size(); ++r)
    if (!errors[r].empty()) failed.push_back(r);
  if (failed.empty()) return;
  throw AgreedError(fmt::format("{}: {}", ranks_text(failed), errors[failed.front()]), 1);
}

std::uint64_t parameter_fingerprint(const std::vector<Parameter>& parameters) {
  std::uint64_t hash = 1469598103934665603ull;
  for (const auto& p : parameters) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(p.value.data());
    for (std::size_t i = 0; i < p.value.size() * sizeof(float); ++i) {
      hash ^= bytes[i];
      hash *= 1099511628211ull;
    }
  }
  return hash;
}

}  // namespace gradsync
