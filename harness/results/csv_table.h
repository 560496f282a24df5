#pragma once
// A small CSV reader for the tables the project ships
// (results/reference/published-scaling.csv): RFC 4180's records, one per
// line, cells separated by commas, a cell in double quotes holding commas
// and "" for a quote (no line break inside a cell); the first record is the
// header naming the columns (each once), every row has as many cells, and lines that are
// empty or start with '#' are comments. Every error names the file, the line
// and, where one cell is at fault, its column (1-based, in characters):
// "table.csv:9:58: efficiency_pct: 'x' is not a number".
//
// Debian's header-only libfccp-dev was weighed: a 2016 snapshot that reads
// on a thread of its own by default and whose errors name the line and the
// column's name but not where on the line; one table of a dozen rows needs
// none of its speed.

#include <initializer_list>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

namespace gradsync {

struct CsvCell {
  std::string text;
  int column = 1;  // where the cell starts on its line, 1-based
};

struct CsvRow {
  int line = 0;  // 1-based, comments and blank lines counted
  std::vector<CsvCell> cells;
};

class CsvTable {
 public:
  // Throws std::runtime_error "PATH: cannot read the table" or, for a
  // malformed line, "PATH:LINE:COLUMN: ...".
  static CsvTable read(const std::string& path);
  // The same from `in`, its errors naming `path`.
  static CsvTable parse(std::istream& in, const std::string& path);

  const std::vector<std::string>& header() const { return header_; }
  const std::vector<CsvRow>& rows() const { return rows_; }

  // The cell of `row` in `column`, as text, a whole number or a number.
  // Throws std::runtime_error "PATH:LINE: no column \"x\" (the header's
  // columns: ...)" or "PATH:LINE:COLUMN: x: '16x' is not a whole number".
  const std::string& text(const CsvRow& row, std::string_view column) const;
  int whole_number(const CsvRow& row, std::string_view column) const;
  // `whole`: only the message changes ("is not a whole number"), the
  // caller's rule (input_rules.h) refuses a fraction.
  double number(const CsvRow& row, std::string_view column, bool whole = false) const;

  // Throws the same "no column" error as text() for the first of `columns`
  // the header lacks, so that a table missing one is refused whole.
  void require_columns(std::initializer_list<std::string_view> columns) const;

  // "PATH:LINE": where the row is, for messages about what it says;
  // "PATH:LINE:COLUMN": where its cell in `column` is.
  std::string where(const CsvRow& row) const;
  std::string where(const CsvRow& row, std::string_view column) const;

 private:
  const CsvCell& cell(const CsvRow& row, std::string_view column) const;

  std::string path_;
  int header_line_ = 0;
  std::vector<std::string> header_;
  std::vector<CsvRow> rows_;
};

}  // namespace gradsync
