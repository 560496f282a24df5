// Maps a CPU layer (by its type) to its cuDNN/cuBLAS twin. An explicit list;
// a layer kind missing here is an error naming it.
#include <stdexcept>

#include "models/avg_pool.h"
#include "models/concat.h"
#include "models/cuda_layer_kinds.h"
#include "models/linear.h"
#include "models/max_pool.h"
#include "models/relu.h"
#include "models/residual_add.h"

namespace gradsync {

std::unique_ptr<CudaLayer> make_cuda_layer(const Layer& layer,
                                           std::span<const FeatureShape> input_shapes,
                                           CudaContext& cuda, const std::string& name) {
  std::string context = "cuda compute, layer " + name + " (" + layer.kind() + ")";
  if (input_shapes.empty()) throw std::invalid_argument(context + ": no input shapes");
  const FeatureShape in = input_shapes[0];
  if (const auto* conv = dynamic_cast<const Conv2d*>(&layer))
    return make_cuda_conv(*conv, in, cuda, std::move(context));
  if (const auto* bn = dynamic_cast<const BatchNorm*>(&layer))
    return make_cuda_batch_norm(*bn, in, cuda, std::move(context));
  if (dynamic_cast<const Relu*>(&layer)) return make_cuda_relu(in, cuda, std::move(context));
  if (const auto* pool = dynamic_cast<const MaxPool*>(&layer))
    return make_cuda_pool(true, pool->options(), in, layer.output_shape(), cuda, std::move(context));
  if (const auto* pool = dynamic_cast<const AvgPool*>(&layer))
    return make_cuda_pool(false, pool->options(), in, layer.output_shape(), cuda,
                          std::move(context));
  if (dynamic_cast<const ResidualAdd*>(&layer))
    return make_cuda_residual_add(in, cuda, std::move(context));
  if (dynamic_cast<const Concat*>(&layer))
    return make_cuda_concat({input_shapes.begin(), input_shapes.end()}, cuda, std::move(context));
  if (const auto* fc = dynamic_cast<const Linear*>(&layer)) {
    // The cuBLAS twin flattens each sample into one row; per position it would not.
    if (fc->per_position())
      throw std::invalid_argument(context + ": a per-position linear has no cuda implementation");
    return make_cuda_linear(in, layer.output_shape().channels, cuda, std::move(context));
  }
  throw std::invalid_argument(context + ": this layer kind has no cuda implementation");
}

}  // namespace gradsync
