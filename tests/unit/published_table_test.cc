// A published scaling table's rows (harness/results/published_table.h):
// every number under its column's rule, each refusal naming the file, the
// line, the cell's column and the rule.

#include "harness/results/published_table.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gradsync {
namespace {

const std::string kHeader =
    "# a comment\n"
    "system,strategy,model,gpus,gpus_per_node,batch_per_gpu,single_gpu_img_per_sec,efficiency_"
    "pct\n";

std::string error_of(const std::string& rows) {
  try {
    published_table_from_text(kHeader + rows, "published.csv");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(PublishedTable, ReadsRowsAndWhereTheyAre) {
  const auto rows = published_table_from_text(kHeader +
                                                  "horovod,nccl-ring,vgg16,16,4,64,130.9,86\n"
                                                  "horovod,nccl-ring,vgg16,128,4,64,,79\n",
                                              "published.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].gpus, 16);
  EXPECT_EQ(rows[0].gpus_per_node, 4);
  EXPECT_DOUBLE_EQ(rows[0].single_img_sec, 130.9);
  EXPECT_EQ(rows[1].single_img_sec, 0);  // left to another row of the model
  EXPECT_DOUBLE_EQ(rows[1].efficiency_pct, 79);
  EXPECT_EQ(rows[1].where, "published.csv:4");
}

TEST(PublishedTable, EveryNumberKeepsItsRule) {
  EXPECT_EQ(error_of("h,nccl-ring,vgg16,16,0,64,130.9,86\n"),
            "published.csv:3:22: gpus_per_node: must be at least 1 (got 0)");
  EXPECT_EQ(error_of("h,nccl-ring,vgg16,16.5,4,64,130.9,86\n"),
            "published.csv:3:19: gpus: must be a whole number (got 16.5)");
  EXPECT_EQ(error_of("h,nccl-ring,vgg16,16,4,64,130.9,-5\n"),
            "published.csv:3:33: efficiency_pct: must be more than 0 % (got -5)");
  EXPECT_EQ(error_of("h,nccl-ring,vgg16,16,4,64,130.9,500\n"),
            "published.csv:3:33: efficiency_pct: must be at most 200 % (got 500)");
  EXPECT_EQ(error_of("h,nccl-ring,vgg16,16,4,0,130.9,86\n"),
            "published.csv:3:24: batch_per_gpu: must be at least 1 (got 0)");
  EXPECT_EQ(error_of("h,nccl-ring,vgg16,16,4,64,0,86\n"),
            "published.csv:3:27: single_gpu_img_per_sec: must be more than 0 img/s (got 0)");
  EXPECT_EQ(error_of("h,nccl-ring,vgg16,1e300,4,64,130.9,86\n"),
            "published.csv:3:19: gpus: must be at most 1e+06 (got 1e+300)");
  EXPECT_EQ(error_of("h,nccl-ring,vgg16,16,4,64,130.9,nan\n"),
            "published.csv:3:33: efficiency_pct: 'nan' is not a number");
}

TEST(PublishedTable, ShapeOfTheTable) {
  EXPECT_EQ(error_of(""), "published.csv: no rows");
  EXPECT_EQ(error_of("h,nccl-ring,vgg16,16,4\n"),
            "published.csv:3:23: 5 cells, but the header (line 2) has 8");
  try {
    published_table_from_text("", "empty.csv");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "empty.csv: no header line");
  }
  try {
    published_table_from_text("system,gpus,gpus\nx,1,1\n", "twice.csv");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "twice.csv:1:13: the header names the column \"gpus\" twice");
  }
  try {
    published_table_from_text("system,strategy,model,gpus\nx,y,z,1\n", "short.csv");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("short.csv:1: no column \"gpus_per_node\"", 0), 0u)
        << e.what();
  }
}

}  // namespace
}  // namespace gradsync
