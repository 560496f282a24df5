// What nccl-ring and nccl-tree tell of a run beyond their timings: the
// algorithm NCCL's own log says ran (parsed from lines in NCCL 2.28.9's
// format), the tree's computed per-rank traffic, and how records and
// reports mark computed traffic.
#include <gtest/gtest.h>

#include <sstream>

#include "harness/results/collectives_report.h"
#include "harness/results/collectives_table.h"
#include "harness/results/report_table.h"
#include "harness/results/wire_report.h"
#include "strategies/core/strategy_options.h"
#include "strategies/nccl/nccl_account.h"
#include "strategies/nccl/nccl_tree_traffic.h"
#include "strategies/nccl/nccl_tuning_log.h"
#include "strategies/registry.h"

namespace gradsync {
namespace {

// NCCL 2.28.9: src/debug.cc's ncclDebugLog prefix "%s:%d:%d " (host, pid,
// tid) and "[%d] NCCL INFO " (device), then src/enqueue.cc's
// "%s: %ld Bytes -> Algo %s proto %s channel{Lo..Hi}={%d..%d}".
std::string tuning_line(const char* function, long bytes, const char* algo, const char* proto) {
  char line[256];
  std::snprintf(line, sizeof line,
                "%s:%d:%d [%d] NCCL INFO %s: %ld Bytes -> Algo %s proto %s "
                "channel{Lo..Hi}={%d..%d}",
                "gpu-node-1", 4242, 4250, 0, function, bytes, algo, proto, 0, 1);
  return line;
}

TEST(NcclTuningLog, ParsesNcclsTuningLineField_by_field) {
  const auto parsed = parse_nccl_tuning_line(tuning_line("AllReduce", 4096, "TREE", "LL"));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->function, "AllReduce");
  EXPECT_EQ(parsed->bytes, 4096u);
  EXPECT_EQ(parsed->algorithm, "TREE");
  EXPECT_EQ(parsed->protocol, "LL");
  // A timestamp before the prefix (NCCL_DEBUG_TIMESTAMP_LEVELS) changes nothing.
  const auto stamped = parse_nccl_tuning_line("[2026-12-06 21:00:00] " +
                                              tuning_line("AllReduce", 67108864, "RING", "SIMPLE"));
  ASSERT_TRUE(stamped.has_value());
  EXPECT_EQ(stamped->bytes, 67108864u);
  EXPECT_EQ(stamped->protocol, "SIMPLE");
}

TEST(NcclTuningLog, OtherLinesAreNotTuningLines) {
  // src/scheduler/symmetric_sched.cc's symmetric-kernel line, a TRACE line
  // of src/enqueue.cc, a tuning table line, a version line.
  for (const std::string line :
       {"h:1:2 [0] NCCL INFO AllReduce [Symmetric]: 4096 Bytes -> Kernel AllReduce_RSxLD "
        "nchannels 4 nthreads 512 nWorks 1",
        "h:1:2 [0] 0.100000 enqueue.cc:1863 NCCL TRACE 4096 Bytes -> Algo 1 proto 0 time 7.5",
        "h:1:2 [0] NCCL INFO  Algorithm   |            Tree |            Ring |",
        "NCCL version 2.28.9+cuda13.0", "h:1:2 [0] NCCL INFO AllReduce: many Bytes -> Algo TREE",
        "h:1:2 [0] NCCL INFO AllReduce: 4096 Bytes -> Algo  proto LL"})
    EXPECT_FALSE(parse_nccl_tuning_line(line).has_value()) << line;
}

TEST(NcclTuningLog, CountsTheAllreducesPerSizeAndChoice) {
  std::stringstream log;
  log << "h:1:2 [0] NCCL INFO  Algorithm   |            Tree |\n"
      << tuning_line("Broadcast", 1024, "RING", "LL") << "\n"
      << tuning_line("AllReduce", 65536, "TREE", "LL128") << "\n"
      << tuning_line("AllReduce", 4096, "TREE", "LL") << "\n"
      << tuning_line("AllReduce", 4096, "TREE", "LL") << "\n"
      << tuning_line("AllReduce", 4096, "RING", "LL") << "\n";
  const auto choices = nccl_allreduce_choices(log);
  ASSERT_EQ(choices.size(), 3u);
  EXPECT_EQ(choices[0].bytes, 4096u);
  EXPECT_EQ(choices[0].algorithm, "RING");
  EXPECT_EQ(choices[0].calls, 1u);
  EXPECT_EQ(choices[1].algorithm, "TREE");
  EXPECT_EQ(choices[1].calls, 2u);
  EXPECT_EQ(choices[2].bytes, 65536u);
  EXPECT_EQ(choices[2].protocol, "LL128");
}

TEST(NcclTuningLog, TheUsersOwnNcclDebugIsLeftAlone) {
  EXPECT_EQ(nccl_log_unavailable(nullptr), "");
  EXPECT_EQ(nccl_log_unavailable("WARN"),
            "NCCL_DEBUG is set (to \"WARN\"), so NCCL's log is the user's and is not read");
}

TEST(NcclAccount, AConfirmedPinSaysSoPerSizeRange) {
  const std::vector<std::string> parts = {
      nccl_account_part(
          {{4096, "TREE", "LL", 20}, {8192, "TREE", "LL", 20}, {1 << 20, "TREE", "SIMPLE", 20}},
          ""),
      ""};
  const RunAccount account = nccl_tree_merge_account(parts, {});
  const auto& field = account.fields.at("nccl_algorithm");
  EXPECT_EQ(field.at("pinned"), "TREE");
  EXPECT_EQ(field.at("confirmed"), "TREE");
  EXPECT_EQ(field.at("matches_pin"), true);
  EXPECT_EQ(field.at("by_size").size(), 3u);
  EXPECT_EQ(field.at("by_size").at(2).at("protocol"), "SIMPLE");
  EXPECT_EQ(account.lines,
            (std::vector<std::string>{"NCCL algorithm (NCCL's log): TREE/LL at 4096 B..8192 B, "
                                      "TREE/SIMPLE at 1048576 B"}));
}

TEST(NcclAccount, AnotherAlgorithmThanThePinIsSaidInOneLine) {
  const std::vector<std::string> parts = {"", nccl_account_part({{4096, "RING", "LL", 5}}, "")};
  const RunAccount tree = nccl_tree_merge_account(parts, {});
  EXPECT_EQ(tree.fields.at("nccl_algorithm").at("confirmed"), "RING");
  EXPECT_EQ(tree.fields.at("nccl_algorithm").at("matches_pin"), false);
  ASSERT_EQ(tree.lines.size(), 2u);
  EXPECT_EQ(tree.lines[1], "nccl-tree: NCCL ran RING, not the TREE it was pinned to");
  EXPECT_TRUE(tree.failure.empty());
  const RunAccount mixed =
      nccl_ring_merge_account(std::vector<std::string>{nccl_account_part(
                                  {{8, "RING", "LL", 1}, {16, "TREE", "LL", 1}}, "")},
                              {});
  EXPECT_EQ(mixed.lines.back(),
            "nccl-ring: NCCL ran RING,TREE, not only the RING it was pinned to");
}

TEST(NcclAccount, NothingParsableIsUnconfirmedNeverThePin) {
  const RunAccount user = nccl_tree_merge_account(
      std::vector<std::string>{nccl_account_part({}, "NCCL_DEBUG is set (to \"INFO\")")}, {});
  const auto& field = user.fields.at("nccl_algorithm");
  EXPECT_EQ(field.at("confirmed"), "unconfirmed");
  EXPECT_TRUE(field.at("matches_pin").is_null());
  EXPECT_EQ(field.at("unconfirmed_because"), "NCCL_DEBUG is set (to \"INFO\")");
  EXPECT_EQ(
      user.lines,
      (std::vector<std::string>{"NCCL algorithm: unconfirmed (NCCL_DEBUG is set (to \"INFO\"))"}));
  const RunAccount silent =
      nccl_ring_merge_account(std::vector<std::string>{nccl_account_part({}, ""), ""}, {});
  EXPECT_EQ(silent.fields.at("nccl_algorithm").at("confirmed"), "unconfirmed");
  EXPECT_EQ(silent.fields.at("nccl_algorithm").at("unconfirmed_because"),
            "NCCL logged no allreduce (it logs none at 1 rank, nor when its log was set up "
            "before the communicator)");
}

TEST(NcclTreeTraffic, TheTreesAreNcclsDoubleBinaryTree) {
  // 4 nodes: tree 0 is 0 -> 2 -> {1, 3}; tree 1 mirrors it: 3 -> 1 -> {2, 0}.
  const NcclTreeLinks two = nccl_dtree(4, 2, false);
  EXPECT_EQ(two.parent, 0);
  EXPECT_EQ(two.child0, 1);
  EXPECT_EQ(two.child1, 3);
  const NcclTreeLinks one = nccl_dtree(4, 1, true);
  EXPECT_EQ(one.parent, 3);
  EXPECT_EQ(one.child0, 2);
  EXPECT_EQ(one.child1, 0);
  // 3 nodes (odd): tree 0 is 0 -> 2 -> 1, tree 1 shifts it by one: 1 -> 0 -> 2.
  EXPECT_EQ(nccl_dtree(3, 2, false).child0, 1);
  EXPECT_EQ(nccl_dtree(3, 2, false).child1, kNcclTreeNone);
  EXPECT_EQ(nccl_dtree(3, 0, true).parent, 1);
  EXPECT_EQ(nccl_dtree(3, 0, true).child0, 2);
}

TEST(NcclTreeTraffic, AnInnerNodeMovesAboutTwiceTheBuffer) {
  // One rank a node: half the buffer per tree, once per link.
  EXPECT_EQ(nccl_tree_rank_bytes(1000, 0, 1, 0, 1), 0u);     // alone: nothing moves
  EXPECT_EQ(nccl_tree_rank_bytes(1000, 0, 2, 0, 1), 1000u);  // one link in each tree
  EXPECT_EQ(nccl_tree_rank_bytes(1000, 0, 4, 0, 1), 1000u);  // leaf-ish in both
  EXPECT_EQ(nccl_tree_rank_bytes(1000, 1, 4, 0, 1), 2000u);  // leaf, then inner (3 links)
  EXPECT_EQ(nccl_tree_rank_bytes(1000, 2, 4, 0, 1), 2000u);  // inner, then leaf
  EXPECT_EQ(nccl_tree_rank_bytes(1001, 1, 4, 0, 1), 500u + 3u * 501u);  // odd halves
  EXPECT_EQ(nccl_tree_rank_bytes(1000, 0, 3, 0, 1), 1500u);             // leaf, then 2 links
  // A chain inside a node: its ends one neighbour, its middle two; the
  // node's first rank also carries the node's links across nodes.
  EXPECT_EQ(nccl_tree_rank_bytes(1000, 0, 1, 0, 4), 1000u);
  EXPECT_EQ(nccl_tree_rank_bytes(1000, 0, 1, 1, 4), 2000u);
  EXPECT_EQ(nccl_tree_rank_bytes(1000, 0, 1, 3, 4), 1000u);
  EXPECT_EQ(nccl_tree_rank_bytes(1000, 1, 2, 0, 2), 2000u);
  EXPECT_EQ(nccl_tree_rank_bytes(1000, 1, 2, 1, 2), 1000u);
  EXPECT_THROW(nccl_tree_rank_bytes(1000, 2, 2, 0, 1), std::invalid_argument);
  EXPECT_THROW(nccl_tree_rank_bytes(1000, 0, 2, 1, 1), std::invalid_argument);
}

TEST(TrafficSource, EveryRecordSaysWhetherItsTrafficIsComputed) {
  const StrategyOptions options;
  const auto source = [&](std::string_view name) {
    return merge_account(find_strategy(name), {}, {.options = &options})
        .fields.at("traffic_source");
  };
  EXPECT_EQ(source("nccl-tree"), "computed");
  EXPECT_EQ(source("nccl-ring"), "computed");
  EXPECT_EQ(source("mpi-allreduce"), "computed");
  EXPECT_EQ(source("gloo-ring"), "computed");
  EXPECT_EQ(source("ring-mpi"), "measured");
  EXPECT_EQ(source("ps-zmq"), "measured");
  // A record's own field first; a record from before it by its strategy.
  EXPECT_TRUE(traffic_is_computed({{"traffic_source", "computed"}}, "ring-mpi"));
  EXPECT_FALSE(traffic_is_computed({{"traffic_source", "measured"}}, "nccl-tree"));
  EXPECT_TRUE(traffic_is_computed(nlohmann::json::object(), "nccl-tree"));
  EXPECT_FALSE(traffic_is_computed(nlohmann::json::object(), "ring-mpi"));
  EXPECT_FALSE(traffic_is_computed(nlohmann::json::object(), "ps-zmq ssp K=2"));
}

TEST(TrafficSource, TheCollectivesSummaryMarksComputedCounts) {
  StrategyOutcome outcome{.strategy = "nccl-tree", .workers = 2, .memory = MemoryKind::device};
  outcome.ranks = {{0, true, {100, 100}}, {1, true, {200, 200}}};
  outcome.account.fields["traffic_source"] = "computed";
  const std::string computed = collectives_summary(outcome);
  EXPECT_NE(computed.find("#   Bytes sent/received : rank 0 100/100* rank 1 200/200*\n"
                          "#   * computed from the algorithm's formula, not counted: the library "
                          "(MPI_Allreduce, Gloo, NCCL) does not tell the bytes it moves\n"),
            std::string::npos)
      << computed;
  outcome.account.fields["traffic_source"] = "measured";
  const std::string measured = collectives_summary(outcome);
  EXPECT_NE(measured.find("#   Bytes sent/received : rank 0 100/100 rank 1 200/200\n"),
            std::string::npos);
  EXPECT_EQ(measured.find('*'), std::string::npos);
}

TEST(TrafficSource, TheWireTableMarksComputedCountsWithANote) {
  const WireTruth wire{"allreduce", 1, {{"h0", {0}, LinkBytes{1048576, 1048576}, {1048576, 0}}}};
  const auto record = [&](const char* source) {
    return StoredRecord{"r.jsonl:1",
                        {{"kind", "collectives"},
                         {"traffic_source", source},
                         {"rows", {{{"size_bytes", 1024}, {"wire", to_json(wire)}}}}}};
  };
  CollectivesWire both;
  both.add(record("computed"), CollectivesRun{.strategy = "nccl-tree", .workers = 2});
  both.add(record("measured"), CollectivesRun{.strategy = "ring-mpi", .workers = 2});
  const auto table = wire_report({}, both);
  ASSERT_TRUE(table.has_value());
  ASSERT_EQ(table->rows.size(), 2u);
  EXPECT_EQ(table->rows[0][5], "1.00*");
  EXPECT_EQ(table->rows[0][6], "0.00*");
  EXPECT_EQ(table->rows[1][5], "1.00");
  ASSERT_EQ(table->notes.size(), 1u);
  EXPECT_EQ(table->notes[0],
            "* computed from the algorithm's formula, not counted: the library (MPI_Allreduce, "
            "Gloo, NCCL) does not tell the bytes it moves");
}

TEST(NcclAccount, TheCollectivesReportNotesWhatNcclRanUnderItsColumn) {
  const auto record = [](const char* strategy, nlohmann::json nccl) {
    nlohmann::json v = {{"kind", "collectives"},
                        {"strategy", strategy},
                        {"workers", 2},
                        {"rows", nlohmann::json::array()}};
    if (!nccl.is_null()) v["nccl_algorithm"] = nccl;
    return StoredRecord{"r.jsonl:1", v};
  };
  CollectivesColumns columns;
  columns.add(read_collectives_run(record("ring-mpi", nullptr)));
  columns.add(read_collectives_run(
      record("nccl-tree", {{"pinned", "TREE"}, {"confirmed", "RING"}, {"by_size", {}}})));
  const ReportTable table = columns.table("time");
  EXPECT_EQ(table.notes,
            (std::vector<std::string>{"n=2 nccl-tree: NCCL's log says it ran RING (pinned TREE)"}));
}

}  // namespace
}  // namespace gradsync
