// libFuzzer target for the CSV reader of `simulate published`'s scaling
// tables (harness/results/csv_table.h), built with clang and ASan + UBSan
// (GRADSYNC_BUILD_FUZZ, tests/fuzz/CMakeLists.txt). The input is the table's
// text. For any input the reader returns or refuses with a std::exception
// (fuzz_checks.h) naming the file; a table it returns has a header and rows
// of as many cells, in increasing line order, and every cell of every column
// reads as text, and as a whole number or a number or a refusal naming
// where the cell is (a number read is finite), as `simulate published` reads
// its columns. A column the header lacks is refused.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "harness/results/csv_table.h"
#include "tests/fuzz/fuzz_checks.h"

namespace {

using gradsync::fuzz::reads;
using gradsync::fuzz::require;

constexpr const char* kName = "fuzz.csv";

bool names_the_file(const std::string& message) { return message.rfind(kName, 0) == 0; }

// The cell read every way a reader of the table reads one.
void read_cell(const gradsync::CsvTable& table, const gradsync::CsvRow& row,
               const std::string& column) {
  require(table.text(row, column).size() < (std::size_t{1} << 30), "a cell's text is not text");
  try {
    table.whole_number(row, column);
  } catch (const std::runtime_error& e) {
    require(names_the_file(e.what()), "a whole number's refusal does not say where");
  }
  try {
    require(std::isfinite(table.number(row, column)), "a number that is not finite was read");
  } catch (const std::runtime_error& e) {
    require(names_the_file(e.what()), "a number's refusal does not say where");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  gradsync::CsvTable table;
  try {
    table = gradsync::CsvTable::parse(in, kName);
  } catch (const std::runtime_error& e) {
    require(names_the_file(e.what()), "a refused table's message does not name the file");
    return 0;
  }
  require(!table.header().empty(), "a table without a header was read");
  int line = 0;
  for (const auto& row : table.rows()) {
    require(row.cells.size() == table.header().size(), "a row of another width was read");
    require(row.line > line, "rows out of line order");
    line = row.line;
    for (const auto& column : table.header()) read_cell(table, row, column);
    require(!reads([&] { table.text(row, "no such column\n"); }),
            "a column the header lacks was read");
    require(table.where(row).rfind(kName, 0) == 0, "a row's place does not name the file");
  }
  return 0;
}
