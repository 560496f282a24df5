#pragma once
// A layer of the cuda compute backend: the GPU twin of one CPU Layer
// (layer.h), with the same semantics on device pointers:
//   forward   writes `output` (batch x output_shape(), NCHW fp32)
//   backward  ADDS d(loss)/d(input k) into grad_inputs[k] (skipped where
//             nullptr) and OVERWRITES each parameter's gradient,
// so a node read by several consumers accumulates exactly as on the CPU.
// Everything is queued on the context's stream; nothing here waits.
// Parameters are device pointers in the layer's params() order.

#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "models/cuda_context.h"
#include "models/layer.h"

namespace gradsync {

class CudaLayer {
 public:
  virtual ~CudaLayer() = default;
  // Sizes the layer for `batch` samples (descriptors, algorithms, scratch);
  // returns the workspace bytes its calls need from the context. Call before
  // the first forward and whenever the batch changes, with no work queued
  // that uses the layer.
  virtual std::size_t set_batch(int batch) = 0;
  virtual void forward(std::span<const float* const> inputs, float* output,
                       std::span<const float* const> values) = 0;
  virtual void backward(std::span<const float* const> inputs, const float* output,
                        const float* grad_output, std::span<float* const> grad_inputs,
                        std::span<const float* const> values, std::span<float* const> grads) = 0;
};

// The GPU twin of `layer`, whose inputs have `input_shapes`; `name` (e.g.
// "layer1.0.conv1") goes into error messages. Throws for a layer kind the
// backend does not know.
std::unique_ptr<CudaLayer> make_cuda_layer(const Layer& layer,
                                           std::span<const FeatureShape> input_shapes,
                                           CudaContext& context, const std::string& name);

}  // namespace gradsync
