#include "harness/results/finite_cells.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <regex>
#include <stdexcept>

namespace gradsync {

void require_finite_cells(const ReportTable& table) {
  // nan or inf as a word of its own, as fmt writes them ("-nan%", "inf s").
  static const std::regex non_finite("(^|[^a-z])-?(nan|inf)([^a-z]|$)", std::regex::icase);
  for (const auto& row : table.rows)
    for (std::size_t i = table.label_columns; i < row.size() && i < table.header.size(); ++i)
      if (std::regex_search(row[i], non_finite)) {
        const std::vector<std::string> labels(row.begin(),
                                              row.begin() + std::ptrdiff_t(table.label_columns));
        throw std::runtime_error(fmt::format("{}: column {}, row {}: not a finite number ({})",
                                             table.caption, table.header[i], fmt::join(labels, " "),
                                             row[i]));
      }
}

std::string finite_markdown(const ReportTable& table) {
  require_finite_cells(table);
  return to_markdown(table);
}

}  // namespace gradsync
