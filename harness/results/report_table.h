#pragma once
// The table every report prints: a caption, a header row and rows of text
// cells, written as Markdown (what `report` and `compare` print) or as CSV
// (what `report --csv` writes).

#include <cstddef>
#include <string>
#include <vector>

namespace gradsync {

struct ReportTable {
  std::string caption;
  std::vector<std::string> header;             // "size (B)", then a column per strategy and workers
  std::vector<std::vector<std::string>> rows;  // a missing measurement is "-"
  std::size_t label_columns = 0;  // leading columns of names (left-aligned), then figures
  // Lines under the table that say how to read some of its rows (Markdown
  // only; the CSV form is the cells alone).
  std::vector<std::string> notes;
};

std::string to_markdown(const ReportTable& table);
std::string to_csv(const ReportTable& table);

}  // namespace gradsync
