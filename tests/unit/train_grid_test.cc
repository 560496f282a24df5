// The training tables' rows as data (train_grid.h): what a row is (an
// external reference, a projection) and which cells hold a figure come from
// the runs, never from the text a cell or a strategy's name happens to hold.
#include "harness/results/train_grid.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/results/result_file.h"
#include "harness/results/train_report.h"
#include "tests/unit/train_record_support.h"

namespace gradsync {
namespace {

StoredRecord with_target(StoredRecord record, double seconds) {
  record.value["results"]["time_to_target"] = {{"target_loss", 0.5}, {"window_steps", 10},
                                               {"reached", true},    {"seconds", seconds},
                                               {"samples", 640},     {"smoothed_loss", 0.49}};
  return record;
}

std::vector<TrainRun> runs_of(const std::vector<StoredRecord>& records, bool simulated) {
  return latest_train_runs(records, [&](const TrainRun& r) { return r.simulated == simulated; });
}

const TrainRow* row_named(const TrainGrid& grid, const std::string& strategy) {
  for (const TrainRow& row : grid.rows)
    if (row.strategy == strategy) return &row;
  return nullptr;
}

TEST(TrainGrid, AnExternalRunMarksItsRowWhateverItsNameSays) {
  // An external reference named like any strategy, and a strategy of
  // gradsync's whose name reads like a marked row.
  const std::vector<StoredRecord> records = {small_cnn_train("none", 1, 100),
                                             small_cnn_train("plain-name", 1, 40, true),
                                             small_cnn_train("fake (external)", 2, 90)};
  const auto measured = runs_of(records, false);
  const TrainGrid grid = train_grid(measured, {});
  const TrainRow* plain = row_named(grid, "plain-name");
  const TrainRow* fake = row_named(grid, "fake (external)");
  ASSERT_TRUE(plain && fake);
  EXPECT_TRUE(plain->is_external());
  EXPECT_EQ(plain->external, "pytorch-ddp");
  EXPECT_FALSE(fake->is_external());
  ASSERT_EQ(grid.externals.size(), 1u);
  EXPECT_EQ(grid.externals[0], (std::pair<std::string, std::string>{"plain-name", "pytorch-ddp"}));
  // The mark is written from the row, once, at the end.
  const ReportTable table = train_table(grid, "t", [](const TrainRun&) { return "x"; });
  ASSERT_EQ(table.rows.size(), 3u);
  EXPECT_EQ(table.rows[1][3], "plain-name (external)");
  EXPECT_EQ(table.rows[2][3], "fake (external)");
}

TEST(TrainGrid, ColumnsAscendARunPerCellAndAProjectionSitsUnderItsTwin) {
  auto projected = small_cnn_train("ring-mpi", 4, 70);
  projected.value["simulated"] = true;
  const std::vector<StoredRecord> records = {small_cnn_train("ring-mpi", 4, 80),
                                             small_cnn_train("none", 2, 95),
                                             small_cnn_train("none", 1, 100), projected};
  const auto measured = runs_of(records, false), simulated = runs_of(records, true);
  const TrainGrid grid = train_grid(measured, simulated);
  EXPECT_EQ(grid.worker_counts, (std::vector<int>{1, 2, 4}));
  EXPECT_FALSE(grid.any_setup);
  ASSERT_EQ(grid.rows.size(), 3u);
  EXPECT_EQ(grid.rows[0].strategy, "ring-mpi");
  EXPECT_FALSE(grid.rows[0].simulated);
  EXPECT_EQ(grid.rows[1].strategy, "ring-mpi");
  EXPECT_TRUE(grid.rows[1].simulated);
  EXPECT_EQ(grid.rows[2].strategy, "none");
  ASSERT_EQ(grid.rows[0].runs.size(), 3u);
  EXPECT_EQ(grid.rows[0].runs[0], nullptr);
  EXPECT_EQ(grid.rows[0].runs[1], nullptr);
  ASSERT_NE(grid.rows[0].runs[2], nullptr);
  EXPECT_EQ(grid.rows[0].runs[2]->img_sec_mean, 80);
  EXPECT_EQ(grid.rows[1].runs[2]->img_sec_mean, 70);  // the projection's own run
  EXPECT_NE(grid.rows[2].runs[0], nullptr);
  // No run: "-"; a run without the figure: "-" and its marks after it.
  const ReportTable table =
      train_table(grid, "t", [](const TrainRun& run) -> std::optional<std::string> {
        if (run.workers == 4) return std::nullopt;
        return "x";
      });
  EXPECT_EQ(table.rows[0],
            (std::vector<std::string>{"small-cnn", "cpu", "8", "ring-mpi", "-", "-", "-"}));
  EXPECT_EQ(table.rows[1][3], "ring-mpi (simulated)");
  EXPECT_EQ(table.rows[2],
            (std::vector<std::string>{"small-cnn", "cpu", "8", "none", "x", "x", "-"}));
}

TEST(TrainGrid, TimeToTargetKeepsTheRowsWithATargetAndTheNoteOnlyWithAnExternalOne) {
  // The external reference ran without a target; a strategy of gradsync's
  // whose name reads "(external)" ran with one: the note goes.
  auto failed = small_cnn_train("tree-mpi", 2, 80);
  failed.value["correct"] = false;  // no target: its "- (FAILED CHECK)" row goes
  std::vector<StoredRecord> records = {
      small_cnn_train("none", 1, 100), small_cnn_train("ddp-gloo", 2, 40, true),
      with_target(small_cnn_train("fake (external)", 2, 90), 1.5), failed};
  auto tables = training_report(records);
  ASSERT_EQ(tables.size(), 4u);
  ASSERT_EQ(tables[3].rows.size(), 1u);
  EXPECT_EQ(tables[3].rows[0][3], "fake (external)");
  EXPECT_TRUE(tables[3].notes.empty());
  EXPECT_EQ(tables[0].notes.size(), 1u);  // the other tables have the row, and the note
  // The external reference with a target: its row and the note stay.
  records[1] = with_target(records[1], 3.0);
  tables = training_report(records);
  ASSERT_EQ(tables.size(), 4u);
  ASSERT_EQ(tables[3].rows.size(), 2u);
  EXPECT_EQ(tables[3].rows[0][3], "ddp-gloo (external)");
  EXPECT_EQ(tables[3].rows[0].back(), "3.00 s, 640 samples");
  ASSERT_EQ(tables[3].notes.size(), 1u);
  EXPECT_NE(tables[3].notes[0].find("`ddp-gloo` is an external reference"), std::string::npos);
}

}  // namespace
}  // namespace gradsync
