#include "harness/results/csv_table.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace gradsync {
namespace {

std::runtime_error csv_error(const std::string& path, int line, int column,
                             const std::string& what) {
  return std::runtime_error(fmt::format("{}:{}:{}: {}", path, line, column, what));
}

// The cells of one line. A quoted cell runs to its closing quote ("" inside
// it is one quote) and must end there or at a comma; an unquoted one runs to
// the next comma and holds no quote.
std::vector<CsvCell> split_csv_line(const std::string& text, const std::string& path, int line) {
  std::vector<CsvCell> cells;
  std::size_t i = 0;
  while (true) {
    CsvCell cell{"", int(i) + 1};
    if (i < text.size() && text[i] == '"') {
      for (++i;; ++i) {
        if (i >= text.size())
          throw csv_error(path, line, cell.column, "a quoted cell has no closing quote");
        if (text[i] != '"') {
          cell.text += text[i];
        } else if (i + 1 < text.size() && text[i + 1] == '"') {
          cell.text += '"';
          ++i;
        } else {
          break;
        }
      }
      ++i;  // past the closing quote
      if (i < text.size() && text[i] != ',')
        throw csv_error(path, line, int(i) + 1,
                        "a comma must follow a quoted cell's closing quote");
    } else {
      const std::size_t end = std::min(text.find(',', i), text.size());
      cell.text = text.substr(i, end - i);
      if (const auto quote = cell.text.find('"'); quote != std::string::npos)
        throw csv_error(path, line, int(i + quote) + 1,
                        "a quote inside an unquoted cell (quote the whole cell, \"\" for a quote)");
      i = end;
    }
    cells.push_back(std::move(cell));
    if (i >= text.size()) return cells;
    ++i;  // past the comma
  }
}

}  // namespace

CsvTable CsvTable::read(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot read the table");
  return parse(in, path);
}

CsvTable CsvTable::parse(std::istream& in, const std::string& path) {
  CsvTable table;
  table.path_ = path;
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    if (!text.empty() && text.back() == '\r') text.pop_back();  // CRLF, as RFC 4180 writes it
    if (text.empty() || text[0] == '#') continue;
    std::vector<CsvCell> cells = split_csv_line(text, path, line);
    if (table.header_.empty()) {
      table.header_line_ = line;
      for (auto& cell : cells) {
        if (std::ranges::find(table.header_, cell.text) != table.header_.end())
          throw csv_error(path, line, cell.column,
                          fmt::format("the header names the column \"{}\" twice", cell.text));
        table.header_.push_back(std::move(cell.text));
      }
      continue;
    }
    if (cells.size() != table.header_.size()) {
      const int column = cells.size() > table.header_.size() ? cells[table.header_.size()].column
                                                             : int(text.size()) + 1;
      throw csv_error(path, line, column,
                      fmt::format("{} cells, but the header (line {}) has {}", cells.size(),
                                  table.header_line_, table.header_.size()));
    }
    table.rows_.push_back({line, std::move(cells)});
  }
  if (table.header_.empty()) throw std::runtime_error(path + ": no header line");
  return table;
}

const CsvCell& CsvTable::cell(const CsvRow& row, std::string_view column) const {
  require_columns({column});
  const auto it = std::find(header_.begin(), header_.end(), column);
  return row.cells.at(std::size_t(it - header_.begin()));
}

void CsvTable::require_columns(std::initializer_list<std::string_view> columns) const {
  for (std::string_view column : columns)
    if (std::find(header_.begin(), header_.end(), column) == header_.end())
      throw std::runtime_error(fmt::format("{}:{}: no column \"{}\" (the header's columns: {})",
                                           path_, header_line_, column, fmt::join(header_, ", ")));
}

const std::string& CsvTable::text(const CsvRow& row, std::string_view column) const {
  return cell(row, column).text;
}

int CsvTable::whole_number(const CsvRow& row, std::string_view column) const {
  const CsvCell& c = cell(row, column);
  int value = 0;
  const char* end = c.text.data() + c.text.size();
  const auto [stop, error] = std::from_chars(c.text.data(), end, value);
  if (c.text.empty() || error != std::errc() || stop != end)
    throw csv_error(path_, row.line, c.column,
                    fmt::format("{}: '{}' is not a whole number", column, c.text));
  return value;
}

double CsvTable::number(const CsvRow& row, std::string_view column, bool whole) const {
  const CsvCell& c = cell(row, column);
  errno = 0;
  char* stop = nullptr;
  const double value = std::strtod(c.text.c_str(), &stop);
  if (c.text.empty() || stop != c.text.c_str() + c.text.size() || errno == ERANGE ||
      !std::isfinite(value) || std::isspace(static_cast<unsigned char>(c.text[0])))
    throw csv_error(
        path_, row.line, c.column,
        fmt::format("{}: '{}' is not a {}number", column, c.text, whole ? "whole " : ""));
  return value;
}

std::string CsvTable::where(const CsvRow& row) const {
  return fmt::format("{}:{}", path_, row.line);
}

std::string CsvTable::where(const CsvRow& row, std::string_view column) const {
  return fmt::format("{}:{}:{}", path_, row.line, cell(row, column).column);
}

}  // namespace gradsync
