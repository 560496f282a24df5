#include "harness/results/published_table.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "harness/engine/input_rules.h"
#include "harness/results/csv_table.h"

namespace gradsync {
namespace {

// Every number column of a published table and the range that makes sense
// for it (docs/guide/cost-model.md, "Ranges", lists the same table): an
// efficiency above 0 and up to 200% (superlinear scaling happens, a
// percentage beyond that is a typo).
constexpr NumberRule kPublishedRules[] = {
    {"gpus", true, 1, 1e6, ""},
    {"gpus_per_node", true, 1, 1024, ""},
    {"batch_per_gpu", true, 1, 1e6, ""},
    {"single_gpu_img_per_sec", false, 0, 1e7, "img/s", true},  // or empty
    {"efficiency_pct", false, 0, 200, "%", true},
};

// The number in `column` of `row`, under its rule.
double checked_cell(const CsvTable& table, const CsvRow& row, const NumberRule& rule) {
  const double value = table.number(row, rule.name, rule.whole);
  try {
    return checked(value, rule, table.where(row, rule.name));
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(e.what());
  }
}

std::vector<PublishedResult> published_rows(const CsvTable& table, const std::string& name) {
  std::vector<PublishedResult> rows;
  const auto& [gpus, per_node, batch, single, efficiency] = kPublishedRules;
  table.require_columns({"system", "strategy", "model", gpus.name, per_node.name, batch.name,
                         single.name, efficiency.name});
  for (const CsvRow& row : table.rows()) {
    const bool single_given = !table.text(row, single.name).empty();
    rows.push_back({.system = table.text(row, "system"),
                    .strategy = table.text(row, "strategy"),
                    .model = table.text(row, "model"),
                    .gpus = int(checked_cell(table, row, gpus)),
                    .gpus_per_node = int(checked_cell(table, row, per_node)),
                    .batch = int(checked_cell(table, row, batch)),
                    .single_img_sec = single_given ? checked_cell(table, row, single) : 0,
                    .efficiency_pct = checked_cell(table, row, efficiency),
                    .where = table.where(row)});
  }
  if (rows.empty()) throw std::runtime_error(fmt::format("{}: no rows", name));
  return rows;
}

}  // namespace

std::vector<PublishedResult> read_published_table(const std::string& path) {
  return published_rows(CsvTable::read(path), path);
}

std::vector<PublishedResult> published_table_from_text(std::string_view text,
                                                       const std::string& name) {
  std::istringstream in{std::string(text)};
  return published_rows(CsvTable::parse(in, name), name);
}

}  // namespace gradsync
