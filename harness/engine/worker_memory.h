#pragma once
// What a worker holds of the model's training state, in bytes, as its role
// allocated it (WorkerRole::memory): the parameters, the gradients, the
// optimizer's state (SGD's velocity or AdamW's two moments; allocated under emulated compute too,
// where no update runs, so that the figure is the run's it stands for), and
// buffers a sharded worker gathers parameters into. Activations, input
// batches and a synchronizer's packed buckets are not counted.

#include <cstdint>

namespace gradsync {

struct WorkerMemory {
  std::uint64_t parameters_bytes = 0;
  std::uint64_t gradients_bytes = 0;
  std::uint64_t optimizer_bytes = 0;
  std::uint64_t gathered_bytes = 0;
  std::uint64_t total_bytes() const {
    return parameters_bytes + gradients_bytes + optimizer_bytes + gathered_bytes;
  }
};

}  // namespace gradsync
