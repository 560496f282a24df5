#pragma once
// The model zoo's table: each model's name, description and graph builder.
// An explicit list, not a chain of string comparisons.

#include <functional>
#include <span>
#include <string_view>

#include "models/graph.h"

namespace gradsync {

struct ZooEntry {
  std::string_view name;
  std::string_view description;
  Graph (*build)();
};

std::span<const ZooEntry> zoo_table();
// Throws naming the known models.
const ZooEntry& find_zoo_entry(std::string_view name);

// The builders (one file each).
Graph build_small_cnn();
Graph build_resnet50();
Graph build_resnet101();
Graph build_vgg16();
Graph build_alexnet();
Graph build_inception3();

}  // namespace gradsync
