#pragma once
// The factories of the cuda layer kinds, one per source file (internal to
// models/; make_cuda_layer() in layer_cuda.cc picks one by the CPU layer's
// type). `context` is the layer's name for error messages.

#include <memory>
#include <string>
#include <vector>

#include "models/batch_norm.h"
#include "models/conv2d.h"
#include "models/cuda_layer.h"
#include "models/pool_geometry.h"

namespace gradsync {

std::unique_ptr<CudaLayer> make_cuda_conv(const Conv2d& layer, FeatureShape input,
                                          CudaContext& cuda, std::string context);
std::unique_ptr<CudaLayer> make_cuda_batch_norm(const BatchNorm& layer, FeatureShape input,
                                                CudaContext& cuda, std::string context);
std::unique_ptr<CudaLayer> make_cuda_relu(FeatureShape input, CudaContext& cuda,
                                          std::string context);
std::unique_ptr<CudaLayer> make_cuda_residual_add(FeatureShape input, CudaContext& cuda,
                                                  std::string context);
// Max or average (padding counted in the divisor) pooling.
std::unique_ptr<CudaLayer> make_cuda_pool(bool max, const PoolOptions& options, FeatureShape input,
                                          FeatureShape output, CudaContext& cuda,
                                          std::string context);
std::unique_ptr<CudaLayer> make_cuda_concat(std::vector<FeatureShape> inputs, CudaContext& cuda,
                                            std::string context);
std::unique_ptr<CudaLayer> make_cuda_linear(FeatureShape input, int out_features,
                                            CudaContext& cuda, std::string context);

}  // namespace gradsync
