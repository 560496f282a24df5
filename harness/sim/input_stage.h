#pragma once
// The input stage as one more stage of the step (`train --input`,
// harness/engine/input_spec.h), as the cost model plays it. A worker's
// loader threads make the next batches while the step runs: with a
// prefetch queue (prefetch >= 1) the step waits only when a batch takes
// longer to make than the step takes without input, so the step lasts
// max(step, batch time); without one (prefetch 0) the step waits for its
// whole batch, step + batch time.
//
// A batch takes batch x image_s / parallel seconds, where image_s is the
// loader's time for one image on one core (the spec's stated cost, or a
// measured one: jpeg) and parallel is how many cores' worth the worker's
// loader threads get:
//   - CPU work (decode, jpeg): the node's `host_cores` are shared fairly by
//     the loader threads of its workers: each gets min(1, cores / (workers
//     per node x threads)) of a core. The model's compute is a device's
//     (emulated compute: the worker's own thread waits on it), so it takes
//     no core; not modelled are the cycles communication takes from the
//     loaders (MPI progress, the parameter server's threads): the measured
//     example shows what they cost.
//   - read: a wait, no core; the worker's threads share its one link at
//     the spec's rate (as train's loader does), so parallel = 1 whatever
//     the threads.

#include <string>

#include "harness/engine/input_spec.h"

namespace gradsync::sim {

struct InputStage {
  InputSpec spec;
  double image_s = 0;  // one image on one core (or its read); 0: the spec's stated cost
  int host_cores = 0;  // cores of a node the loaders share (CPU work only)

  bool active() const { return spec.active(); }
  // The time per image the model uses: image_s, else the spec's stated cost.
  double image_seconds() const { return image_s > 0 ? image_s : spec.stated_image_s(); }
  // The stage with host_cores from `cluster_cores` where it has none.
  InputStage on_node(double cluster_cores) const {
    InputStage out = *this;
    if (out.host_cores == 0) out.host_cores = static_cast<int>(cluster_cores);
    return out;
  }
  // Throws std::invalid_argument (one line) when the stage cannot be
  // costed: a jpeg stage without a measured image_s, CPU work without
  // host_cores.
  void check() const;
};

struct InputPrediction {
  double batch_s = 0;   // one batch made by one worker's loaders
  double wait_s = 0;    // what the step waits for it, beyond its own time
  double parallel_cores = 0;  // cores' worth the worker's loaders get
};

// `step_s`: the step without input; `workers_per_node`: the workers
// sharing a node's cores (at most the job's workers).
InputPrediction predict_input(const InputStage& stage, int batch, int workers_per_node,
                              double step_s);

}  // namespace gradsync::sim
