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
  Graph (*build)(int sequence_length);  // image models take 0
  int sequence_length = 0;              // token models: the default positions per sample
  int max_sequence_length = 0;          // token models: the position table's length
};

// A transformer's size: blocks, features per position, attention heads,
// vocabulary and positions of its tables.
struct TransformerShape {
  int layers = 0, features = 0, heads = 0, vocabulary = 0, positions = 0;
};

std::span<const ZooEntry> zoo_table();
// Throws naming the known models.
const ZooEntry& find_zoo_entry(std::string_view name);
// `name`'s graph at `sequence_length` positions (0: its default); throws for
// a length given to an image model or beyond the position table.
Graph build_zoo_graph(std::string_view name, int sequence_length);

// The builders (one file each).
Graph build_small_cnn();
Graph build_resnet50();
Graph build_resnet101();
Graph build_vgg16();
Graph build_alexnet();
Graph build_inception3();
Graph build_gpt2(const TransformerShape& shape, int sequence_length);
Graph build_bert(const TransformerShape& shape, int sequence_length);
Graph build_vit_b16();

}  // namespace gradsync
