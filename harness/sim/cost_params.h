#pragma once
// The constants that price a strategy's counts (strategies/core/cost.h: each
// strategy counts its own allreduce in calls, messages, bytes, reduced and
// contended bytes): one link class's, from a cluster file, or one strategy's
// calibrated fit on it (calibration.h).

#include "strategies/core/cost.h"

namespace gradsync::sim {

struct CostParams {
  double overhead_s = 0;        // o, per call
  double alpha_s = 0;           // per message
  double beta_s_per_byte = 0;   // per byte through one link direction
  double gamma_s_per_byte = 0;  // per byte added
  double delta_s_per_byte = 0;  // per contended byte (CostTerms::contended)
  double seconds(const CostTerms& terms) const {
    return terms.calls * overhead_s + terms.messages * alpha_s + terms.bytes * beta_s_per_byte +
           terms.reduced * gamma_s_per_byte + terms.contended * delta_s_per_byte;
  }
};

}  // namespace gradsync::sim
