#include "models/gradient_block.h"

#include <numeric>
#include <stdexcept>
#include <string>

namespace gradsync {

std::vector<std::size_t> gradient_offsets(std::span<const std::size_t> sizes,
                                          std::span<const std::size_t> order) {
  constexpr std::size_t unset = static_cast<std::size_t>(-1);
  if (order.size() != sizes.size())
    throw std::invalid_argument("a gradient layout names " + std::to_string(order.size()) +
                                " gradients for " + std::to_string(sizes.size()) + " parameters");
  std::vector<std::size_t> offsets(sizes.size(), unset);
  std::size_t next = 0;
  for (std::size_t index : order) {
    if (index >= sizes.size() || offsets[index] != unset)
      throw std::invalid_argument("a gradient layout names parameter " + std::to_string(index) +
                                  (index >= sizes.size() ? ", which does not exist" : " twice"));
    offsets[index] = next;
    next += sizes[index];
  }
  return offsets;
}

std::vector<float> allocate_gradients(std::vector<Parameter>& parameters,
                                      std::span<const std::size_t> order) {
  std::vector<std::size_t> sizes;
  for (const Parameter& p : parameters) sizes.push_back(p.value.size());
  const std::vector<std::size_t> offsets = gradient_offsets(sizes, order);
  std::vector<float> block(std::accumulate(sizes.begin(), sizes.end(), std::size_t{0}), 0.0f);
  for (std::size_t i = 0; i < parameters.size(); ++i)
    parameters[i].grad = std::span<float>(block).subspan(offsets[i], sizes[i]);
  return block;
}

std::vector<float> allocate_gradients(std::vector<Parameter>& parameters) {
  std::vector<std::size_t> order(parameters.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  return allocate_gradients(parameters, order);
}

}  // namespace gradsync
