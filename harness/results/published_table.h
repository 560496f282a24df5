#pragma once
// A published scaling table (results/reference/published-scaling.csv, what
// `simulate published` reads): per row a system's strategy, model, GPUs and
// GPUs per node, batch per GPU, single-GPU rate and the efficiency it
// published. Every number is checked against its column's rule
// (published_table.cc's kPublishedRules: whole, range; docs/guide/cost-model.md
// lists them) as the table is read, so that no row reaches the cost model
// with a number it cannot compute with; an error names the file, the line,
// the cell's column and the rule:
// "published.csv:7:25: gpus_per_node: must be at least 1 (got 0)".

#include <string>
#include <string_view>
#include <vector>

namespace gradsync {

struct PublishedResult {
  std::string system, strategy, model;
  int gpus = 0, gpus_per_node = 0, batch = 0;
  double single_img_sec = 0;  // 0: the table leaves it to another row of the model
  double efficiency_pct = 0;
  std::string where;  // "FILE:LINE"
};

// Throws std::runtime_error "PATH: ..." (cannot be read, no header, no
// rows), "PATH:LINE: no column ..." or "PATH:LINE:COLUMN: NAME: RULE".
std::vector<PublishedResult> read_published_table(const std::string& path);
// The same from the table's text, `name` naming it in messages (no file is
// read: what a fuzz target calls).
std::vector<PublishedResult> published_table_from_text(std::string_view text,
                                                       const std::string& name);

}  // namespace gradsync
