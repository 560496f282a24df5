#pragma once
// The cuda compute backend: the zoo's graphs on cuDNN and cuBLAS, parameters
// and gradients in device memory (Model::device_state()). CUDA builds compile
// the backend (*_cuda.cc); in builds without CUDA make_cuda_model throws the
// GPU floor's "not built in" line (gpu/build.h).
//
// What the harness can rely on (CudaModel, model_cuda.cc):
// - All of a model's GPU work is queued on ONE stream of its own,
//   DeviceState::stream; parameters live in DeviceState::values and gradients
//   in DeviceState::grads (one device block each, parameter i at the same
//   offset in both, back to back in the order backward hands the gradients
//   over, Graph::backward_order, so that fusion buckets are slices of grads).
// - forward() waits for the stream once (to read the logits for the loss).
// - backward() does NOT wait: ready(i) is called as soon as the work that
//   writes parameter i's gradient has been QUEUED on the model's stream, not
//   when it has run. A consumer of grad_of[i] must order its own device work
//   after that point of the stream (e.g. cudaEventRecord on the model stream
//   inside ready(i), then cudaStreamWaitEvent on its own stream), or wait for
//   the stream. backward() may return before the GPU has finished.
// - The harness may update DeviceState::values in place (e.g. an SGD step on
//   the device) when its work is ordered after backward's on the stream and
//   before the next forward's (the same stream, or an event).
// - copy_to_device() / copy_to_host() wait for the stream.
// - Every call sets the model's GPU as the calling thread's current device.
// - set_trace() reports nothing (host clocks do not time queued GPU work):
//   the training step times the GPU's forward, backward and update with CUDA
//   events on the model's stream (harness/engine/step_marks.h) and traces them.

#include <memory>
#include <stdexcept>
#include <string>

#include "gpu/build.h"
#include "gpu/device.h"
#include "models/graph.h"

namespace gradsync {

// Whether this build has the cuda backend.
constexpr bool cuda_compute_built() { return gpu_built(); }

// Empty when cuda compute can run on CUDA device `gpu` here; else one line
// saying why: "not built in (...)", "no GPU visible: <CUDA's text>", or
// "GPU 3 does not exist (2 visible, ordinals 0..1)" (the GPU floor's
// gpu_unusable()).
inline std::string cuda_compute_unavailable(int gpu) { return gpu_unusable(gpu); }

namespace cuda {
// CUDA builds only (model_cuda.cc): the backend behind make_cuda_model.
std::unique_ptr<Model> make_model(std::string name, Graph graph, const ModelOptions& options);
}  // namespace cuda

// Builds `graph` on GPU options.gpu with options.precision; parameters are
// initialized from options.seed exactly as the CPU model initializes them,
// then uploaded. Throws one line when cuda compute cannot run (see
// cuda_compute_unavailable()).
inline std::unique_ptr<Model> make_cuda_model(std::string name, Graph graph,
                                              const ModelOptions& options) {
  if constexpr (cuda_compute_built())
    return cuda::make_model(std::move(name), std::move(graph), options);
  else
    throw std::invalid_argument("--compute cuda: " + cuda_compute_unavailable(options.gpu));
}

}  // namespace gradsync
