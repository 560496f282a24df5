#pragma once
// A layer: one operation of a model graph with a CPU forward and backward.
// Layers know their input shapes when built, so shapes, parameter counts and
// FLOPs are known without allocating anything.

#include <span>
#include <string>
#include <vector>

#include "models/model.h"
#include "models/tensor.h"

namespace gradsync {

// A trainable tensor's name suffix (e.g. "weight") and shape, before allocation.
struct ParamSpec {
  std::string suffix;
  std::vector<int> shape;
  std::size_t elements() const {
    std::size_t n = 1;
    for (int d : shape) n *= std::size_t(d);
    return n;
  }
};

class Layer {
 public:
  virtual ~Layer() = default;
  virtual std::string kind() const = 0;
  virtual FeatureShape output_shape() const = 0;
  // Trainable tensors in the order the layer uses them (default: none).
  virtual std::vector<ParamSpec> params() const { return {}; }
  // Forward floating-point operations per sample, counting 2 per multiply-add
  // of convolution and linear layers and 0 for every other layer.
  virtual double forward_flops() const { return 0; }
  // For a layer's weight: fan-in used by initialization (0: not a weight).
  virtual int fan_in() const { return 0; }
  // True for a layer whose backward adds into its parameters' gradients
  // instead of overwriting them (an embedding's scatter, a head that uses
  // another layer's weight, which is then tied); the model zeroes those
  // gradients before backward.
  virtual bool adds_to_grads() const { return false; }

  // `params` holds this layer's parameters in params() order.
  virtual void forward(std::span<const Tensor* const> inputs, Tensor& output,
                       std::span<Parameter> params) = 0;
  // Adds d(loss)/d(input k) into *grad_inputs[k] (skipped where nullptr) and
  // overwrites each parameter's grad, or adds to it where adds_to_grads().
  virtual void backward(std::span<const Tensor* const> inputs, const Tensor& output,
                        const Tensor& grad_output, std::span<Tensor* const> grad_inputs,
                        std::span<Parameter> params) = 0;
};

}  // namespace gradsync
