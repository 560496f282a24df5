#include "harness/sim/input_stage.h"

#include <algorithm>
#include <stdexcept>

namespace gradsync::sim {

void InputStage::check() const {
  if (!active()) return;
  check_input(spec);
  if (spec.kind == InputKind::jpeg && !(image_s > 0))
    throw std::invalid_argument(
        "the cost model needs jpeg's measured time per image (--input-image-ms, from a train run's "
        "input line)");
  const bool cpu_work = spec.kind == InputKind::decode || spec.kind == InputKind::jpeg;
  if (cpu_work && host_cores < 1)
    throw std::invalid_argument(
        "the cost model needs the cores of a node for CPU input work (--host-cores, or the cluster "
        "file's host_cores)");
}

InputPrediction predict_input(const InputStage& stage, int batch, int workers_per_node,
                              double step_s) {
  InputPrediction out;
  if (!stage.active()) return out;
  stage.check();
  const double image_s = stage.image_seconds();
  const int threads = stage.spec.threads;
  if (stage.spec.kind == InputKind::read) {
    out.parallel_cores = 1;  // one link per worker, its threads taking turns
  } else {
    const double busy = static_cast<double>(std::max(workers_per_node, 1)) * threads;
    out.parallel_cores = threads * std::min(1.0, stage.host_cores / busy);
  }
  out.batch_s = batch * image_s / out.parallel_cores;
  out.wait_s = stage.spec.prefetch > 0 ? std::max(0.0, out.batch_s - step_s) : out.batch_s;
  return out;
}

}  // namespace gradsync::sim
