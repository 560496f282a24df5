#pragma once
// Gradients as slices of one block. A model lays its gradients out back to
// back in the order its backward hands them over (Graph::backward_order), so
// that every run of consecutive gradients in that order, which is what a
// fusion bucket is, is one contiguous slice: the synchronizer reduces it
// where it lies instead of packing it into a bucket of its own and copying it
// back (PyTorch DDP's gradient_as_bucket_view, seen from the model's side).

#include <cstddef>
#include <span>
#include <vector>

#include "models/model.h"

namespace gradsync {

// Allocates one zeroed block for every parameter's gradient (as many elements
// as its value) and points each Parameter::grad at its slice, the slices back
// to back in `order` (every index exactly once; throws std::invalid_argument
// otherwise). The caller keeps the block as long as the parameters' grads are
// used; moving the vector keeps its storage where it is.
std::vector<float> allocate_gradients(std::vector<Parameter>& parameters,
                                      std::span<const std::size_t> order);
// The same, in parameters() order.
std::vector<float> allocate_gradients(std::vector<Parameter>& parameters);

// Where each parameter's gradient starts in a block laid out in `order` (the
// layout allocate_gradients makes), by parameter index, in floats; a
// parameter's size is `sizes[i]`. For blocks the caller allocates itself (a
// GPU model's device block).
std::vector<std::size_t> gradient_offsets(std::span<const std::size_t> sizes,
                                          std::span<const std::size_t> order);

}  // namespace gradsync
