// The guard before a simulate table prints (harness/results/finite_cells.h):
// a nan or inf figure is refused with its column and row named.

#include "harness/results/finite_cells.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gradsync {
namespace {

ReportTable table_with(const std::string& cell) {
  return {.caption = "Exposed communication",
          .header = {"model", "strategy", "n=1", "n=16"},
          .rows = {{"vgg16", "none", "0.0%", "-"}, {"vgg16", "nccl-ring", "0.0%", cell}},
          .label_columns = 2};
}

std::string error_of(const std::string& cell) {
  try {
    require_finite_cells(table_with(cell));
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(FiniteCells, FiniteFiguresPass) {
  EXPECT_EQ(error_of("7.3%"), "(no error)");
  EXPECT_EQ(error_of("130.9 +-0.0"), "(no error)");
  EXPECT_EQ(error_of("ring-mpi +12%"), "(no error)");
  EXPECT_EQ(error_of("infiniband 3%"), "(no error)");  // a word holding "inf" is no figure
  EXPECT_EQ(finite_markdown(table_with("7.3%")), to_markdown(table_with("7.3%")));
}

TEST(FiniteCells, NanOrInfNamesColumnAndRow) {
  EXPECT_EQ(error_of("-nan%"),
            "Exposed communication: column n=16, row vgg16 nccl-ring: not a finite number (-nan%)");
  EXPECT_EQ(error_of("nan"),
            "Exposed communication: column n=16, row vgg16 nccl-ring: not a finite number (nan)");
  EXPECT_EQ(error_of("inf +-0.0"),
            "Exposed communication: column n=16, row vgg16 nccl-ring: not "
            "a finite number (inf +-0.0)");
  EXPECT_EQ(error_of("-inf s"),
            "Exposed communication: column n=16, row vgg16 nccl-ring: not a "
            "finite number (-inf s)");
  EXPECT_THROW(finite_markdown(table_with("nan%")), std::runtime_error);
}

}  // namespace
}  // namespace gradsync
