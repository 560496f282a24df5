#include "harness/results/report_table.h"

namespace gradsync {
namespace {

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::string to_markdown(const ReportTable& table) {
  auto line = [](const std::vector<std::string>& cells) {
    std::string out = "|";
    for (const auto& cell : cells) out += " " + cell + " |";
    return out + "\n";
  };
  std::string out = table.caption + "\n\n" + line(table.header) + "|";
  for (std::size_t i = 0; i < table.header.size(); ++i)
    out += i < table.label_columns ? "---|" : "---:|";
  out += "\n";
  for (const auto& row : table.rows) out += line(row);
  if (!table.notes.empty()) out += "\n";
  for (const auto& note : table.notes) out += note + "\n";
  return out;
}

std::string to_csv(const ReportTable& table) {
  auto line = [](const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (i) out += ',';
      out += csv_field(cells[i]);
    }
    return out + "\n";
  };
  std::string out = line(table.header);
  for (const auto& row : table.rows) out += line(row);
  return out;
}

}  // namespace gradsync
