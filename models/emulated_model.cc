// Emulated compute. Nothing is computed and no activation is allocated; each
// layer's forward lasts flops * batch / R seconds and its backward twice
// that (the usual 1:2 forward:backward cost of convolution and linear
// layers), where R is the profile's FLOP/s, or 3 * forward FLOPs * X when
// emulate_img_per_sec = X (so one sample's forward plus backward takes 1/X s),
// divided by the time scale K (so every layer lasts K times longer).
// Layers without counted FLOPs (BN, ReLU, pooling, add, concat) take no time.
// Deadlines accumulate from the start of the pass, never from the end of the
// previous wait (a forward gate's wait moves them on by its length: it is
// not compute), so per-layer overshoot does not add up: a pass lasts its
// emulated total plus one wait's error. In backward, a layer's parameter
// gradients are filled (a constant that depends on the seed) before its
// deadline and ready(i) is called as the deadline passes, in reverse order,
// as a real backward would hand them out. forward returns log(classes), the
// loss of a uniform prediction. When traced, each layer that takes time is one
// event, from the end of the previous one (or the pass's start, or the end of
// the previous ready() calls) to the end of its own wait, so the events tile
// the pass, gradient fills included, around the ready() calls; layers
// without FLOPs report nothing: they take no time of their own.
#include "models/emulated_model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "models/deadline.h"

namespace gradsync {
namespace {

std::chrono::nanoseconds seconds_to_ns(double s) {
  return std::chrono::nanoseconds(static_cast<std::int64_t>(std::llround(s * 1e9)));
}

}  // namespace

EmulatedModel::EmulatedModel(std::string name, Graph graph, const ModelOptions& options)
    : GraphModel(std::move(name), std::move(graph), options.seed) {
  if (options.emulate_img_per_sec > 0) {
    flops_per_second_ = 3.0 * flops_ * options.emulate_img_per_sec;
  } else if (options.profile.flops_per_second > 0) {
    flops_per_second_ = options.profile.flops_per_second;
  } else {
    throw std::invalid_argument(
        name_ + ": emulated compute needs a device profile (e.g. find_device_profile(\"v100\")) "
                "or emulate_img_per_sec > 0");
  }
  if (!(options.time_scale >= 1))
    throw std::invalid_argument(name_ + ": time_scale must be at least 1");
  flops_per_second_ /= options.time_scale;  // K times slower: every layer lasts K times longer
  gradient_value_ = 1e-4f * float(1 + options.seed % 16);
}

float EmulatedModel::forward(std::span<const float> input, std::span<const int> labels,
                             int batch) {
  check_batch(input, labels, batch);
  batch_ = batch;
  SteadyTime start = std::chrono::steady_clock::now();
  double elapsed = 0;
  SteadyTime layer_start = start;
  for (std::size_t i = 0; i < graph_.nodes().size(); ++i) {
    // A gate's wait is not compute: the deadlines move on by it.
    const auto gated = pass_forward_gate(i) + pass_layer_gate(layer_gates_.before_forward, i);
    start += gated;
    if (trace_ && gated.count() > 0) layer_start = TraceClock::now();
    const double flops = graph_.nodes()[i].layer->forward_flops();
    if (flops == 0) continue;
    elapsed += flops * batch / flops_per_second_;
    wait_until(start + seconds_to_ns(elapsed));
    if (trace_) {
      const SteadyTime end = TraceClock::now();
      trace_forward(i, layer_start, end);
      layer_start = end;
    }
  }
  return float(std::log(double(classes_)));
}

void EmulatedModel::backward(const std::function<void(std::size_t)>& ready) {
  if (batch_ == 0) throw std::logic_error(name_ + ": backward() needs a forward() first");
  SteadyTime start = std::chrono::steady_clock::now();
  double elapsed = 0;
  SteadyTime layer_start = start;
  for (std::size_t i = graph_.nodes().size(); i-- > 0;) {
    const Node& node = graph_.nodes()[i];
    const auto gated = pass_layer_gate(layer_gates_.before_backward, i);
    start += gated;
    if (trace_ && gated.count() > 0) layer_start = TraceClock::now();
    const double flops = node.layer->forward_flops();
    for (Parameter& p : node_params(i)) std::fill(p.grad.begin(), p.grad.end(), gradient_value_);
    if (flops > 0) {
      elapsed += 2.0 * flops * batch_ / flops_per_second_;
      wait_until(start + seconds_to_ns(elapsed));
      if (trace_) {
        const SteadyTime end = TraceClock::now();
        trace_backward(i, layer_start, end);
        layer_start = end;
      }
    }
    for (std::size_t p = 0; p < node.param_count; ++p) ready(node.first_param + p);
    // What ready() did (the synchronizer's packing) is not this layer's time.
    if (trace_ && node.param_count > 0) layer_start = TraceClock::now();
  }
  batch_ = 0;
}

}  // namespace gradsync
