#pragma once
// The cuda compute backend: the zoo's graphs on cuDNN and cuBLAS, parameters
// and gradients in device memory (Model::device_state()). CUDA builds compile
// the backend (cuda_*.cc); builds without CUDA compile cuda_absent.cc, whose
// factory throws saying so.
//
// What the harness can rely on (CudaModel, cuda_model.cc):
// - All of a model's GPU work is queued on ONE stream of its own,
//   DeviceState::stream; parameters live in DeviceState::values and gradients
//   in DeviceState::grads (one device block each, parameter i at the same
//   offset in both, back to back in parameters() order).
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
// - set_trace() reports nothing (host clocks do not time queued GPU work).

#include <memory>
#include <string>

#include "models/graph.h"

namespace gradsync {

// Builds `graph` on GPU options.gpu with options.precision; parameters are
// initialized from options.seed exactly as the CPU model initializes them,
// then uploaded. Throws one line when cuda compute cannot run (see
// cuda_compute_unavailable()).
std::unique_ptr<Model> make_cuda_model(std::string name, Graph graph, const ModelOptions& options);

// Whether this build has the cuda backend.
bool cuda_compute_built();

// Empty when cuda compute can run on CUDA device `gpu` here; else one line
// saying why: "not built in (...)", "no GPU visible: <CUDA's text>", or
// "GPU 3 does not exist (2 visible, ordinals 0..1)".
std::string cuda_compute_unavailable(int gpu);

}  // namespace gradsync
