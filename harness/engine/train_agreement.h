#pragma once
// What the workers of a training run agree on, each a collective over the
// peers, so that every worker reports, and ends, alike:
// - after each timed iteration (workers at one pace): the slowest worker's
//   time, and the earliest step at which any worker's loss stopped being
//   finite, in one collective;
// - at the end: a loss that stopped being finite (workers at their own
//   pace), a parameter that is not finite, and whether the parameters are
//   bit-identical.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/model.h"
#include "strategies/core/world.h"

namespace gradsync {

// The first step at which this worker's loss was not finite.
class NonfiniteLoss {
 public:
  void see(int step, float loss);
  std::optional<int> first_step() const { return first_step_; }

 private:
  std::optional<int> first_step_;
};

struct IterationAgreement {
  double slowest_s = 0;                     // the slowest worker's iteration time
  std::optional<int> first_nonfinite_step;  // the earliest step over the workers
};

// Collective: one per timed iteration.
IterationAgreement agree_on_iteration(const World& peers, double iteration_s,
                                      const NonfiniteLoss& loss);
// Collective: the earliest step over the workers at which a loss was not finite.
std::optional<int> agree_on_first_nonfinite(const World& peers, const NonfiniteLoss& loss);

// "the loss stopped being finite at step S (of T; warm-up W)".
std::string nonfinite_loss_line(int step, int total_steps, int warmup_steps);

// Collective: "parameter P of worker W is not finite after N steps" for the
// lowest worker holding one (its first such parameter); empty when none.
std::string nonfinite_parameter_line(const World& peers, const std::vector<Parameter>& parameters,
                                     std::size_t steps);

// Collective: "worker W's parameters differ from worker 0's after N steps"
// for the lowest such worker; empty when every worker's are bit-identical.
std::string parameter_mismatch(const World& peers, const std::vector<Parameter>& parameters,
                               int steps);

// Collective over the workers that call it: throws AgreedError(1) on each
// with "RANKS: ERROR", RANKS every worker whose error is not empty and ERROR
// the lowest one's; returns when none failed. For an input stage that failed
// to start or outwaited --timeout: every worker meets it alike (the same
// stage, started at the common start), and one line names them all.
void agree_on_input_failure(const World& peers, const std::string& error);

// A 64-bit FNV-1a fingerprint of every parameter value, for cross-rank checks.
std::uint64_t parameter_fingerprint(const std::vector<Parameter>& parameters);

}  // namespace gradsync
