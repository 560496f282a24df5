#include "harness/results/csv_table.h"

#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>
#include <string>

namespace gradsync {
namespace {

CsvTable parse(const std::string& text) {
  std::istringstream in(text);
  return CsvTable::parse(in, "t.csv");
}

// The message of the error parsing (or reading a cell of) `text` throws.
template <typename Read>
std::string error_of(Read read) {
  try {
    read();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

TEST(CsvTable, ReadsHeaderAndRowsPastCommentsAndBlankLines) {
  const CsvTable t = parse("# a comment\n\nname,gpus,rate\r\nring,16,134.4\n# more\ntree,8,\n");
  ASSERT_EQ(t.header(), (std::vector<std::string>{"name", "gpus", "rate"}));
  ASSERT_EQ(t.rows().size(), 2u);
  const CsvRow& ring = t.rows()[0];
  EXPECT_EQ(ring.line, 4);
  EXPECT_EQ(t.text(ring, "name"), "ring");
  EXPECT_EQ(t.whole_number(ring, "gpus"), 16);
  EXPECT_DOUBLE_EQ(t.number(ring, "rate"), 134.4);
  EXPECT_EQ(ring.cells[2].column, 9);
  const CsvRow& tree = t.rows()[1];
  EXPECT_EQ(tree.line, 6);
  EXPECT_EQ(t.text(tree, "rate"), "");  // a trailing comma is an empty last cell
  EXPECT_EQ(t.where(tree), "t.csv:6");
}

TEST(CsvTable, QuotedCellsHoldCommasAndDoubledQuotes) {
  const CsvTable t = parse("a,b,c\n\"x, y\",\"say \"\"hi\"\"\",\"\"\n");
  ASSERT_EQ(t.rows().size(), 1u);
  EXPECT_EQ(t.text(t.rows()[0], "a"), "x, y");
  EXPECT_EQ(t.text(t.rows()[0], "b"), "say \"hi\"");
  EXPECT_EQ(t.text(t.rows()[0], "c"), "");
  EXPECT_EQ(t.rows()[0].cells[1].column, 8);
}

TEST(CsvTable, MalformedLinesNameFileLineAndColumn) {
  EXPECT_EQ(error_of([] { parse("a,b\n1,\"open\n"); }),
            "t.csv:2:3: a quoted cell has no closing quote");
  EXPECT_EQ(error_of([] { parse("a,b\n\"x\"y,2\n"); }),
            "t.csv:2:4: a comma must follow a quoted cell's closing quote");
  EXPECT_EQ(error_of([] { parse("a,b\n1,2\"3\n"); }),
            "t.csv:2:4: a quote inside an unquoted cell (quote the whole cell, \"\" for a quote)");
  EXPECT_EQ(error_of([] { parse("a,b\n1,2,3\n"); }),
            "t.csv:2:5: 3 cells, but the header (line 1) has 2");
  EXPECT_EQ(error_of([] { parse("# only\na,b\n1\n"); }),
            "t.csv:3:2: 1 cells, but the header (line 2) has 2");
  EXPECT_EQ(error_of([] { parse("# nothing but comments\n"); }), "t.csv: no header line");
}

TEST(CsvTable, CellsThatAreNotWhatIsAskedForNameTheirColumn) {
  const CsvTable t = parse("model,gpus,rate\nvgg16,16x,1.5e\nvgg16,,nan\n");
  const CsvRow& bad = t.rows()[0];
  EXPECT_EQ(error_of([&] { (void)t.whole_number(bad, "gpus"); }),
            "t.csv:2:7: gpus: '16x' is not a whole number");
  EXPECT_EQ(error_of([&] { (void)t.number(bad, "rate"); }),
            "t.csv:2:11: rate: '1.5e' is not a number");
  EXPECT_EQ(error_of([&] { (void)t.whole_number(t.rows()[1], "gpus"); }),
            "t.csv:3:7: gpus: '' is not a whole number");
  EXPECT_EQ(error_of([&] { (void)t.number(t.rows()[1], "rate"); }),
            "t.csv:3:8: rate: 'nan' is not a number");
  EXPECT_EQ(error_of([&] { (void)t.text(bad, "batch"); }),
            "t.csv:1: no column \"batch\" (the header's columns: model, gpus, rate)");
}

TEST(CsvTable, AFileThatCannotBeReadSaysSo) {
  EXPECT_EQ(error_of([] { (void)CsvTable::read("/nonexistent/table.csv"); }),
            "/nonexistent/table.csv: cannot read the table");
}

}  // namespace
}  // namespace gradsync
