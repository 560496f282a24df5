// What fuzzing the readers (tests/fuzz/) found, one test a case, each input
// also a regression seed in tests/fuzz/corpus/<target>/: a number in a
// record or a cluster file beyond what its field's type holds is refused with
// a message, never cast (a float beyond an int's range is undefined
// behaviour), and a number beyond a double is a bad line of a result file
// like any other. Also: the in-memory readers the fuzz targets call read as
// the file readers do.
#include <gtest/gtest.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "harness/cli/sweep_ledger.h"
#include "harness/results/collectives_report.h"
#include "harness/results/result_file.h"
#include "harness/results/strategy_options_json.h"
#include "harness/results/train_report.h"
#include "harness/sim/cluster_model.h"
#include "harness/sim/json_whole.h"
#include "tests/unit/train_record_support.h"

namespace gradsync {
namespace {

using nlohmann::json;

const std::string kTrainLine =
    R"({"schema":"gradsync.result","schema_version":1,"kind":"train","model":"m"})";

// The message of what `read` throws, or "" when it returns.
template <class Read>
std::string refusal(Read read) {
  try {
    read();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(ReaderFuzzFindings, ANumberBeyondADoubleIsABadLineOfTheFile) {
  const std::string text =
      R"({"schema":"gradsync.result","schema_version":1,"kind":"train","x":1e999})"
      "\n" +
      kTrainLine + "\n";
  const ReadOutcome tolerant = read_results_text(text, "r.jsonl", false);
  ASSERT_EQ(tolerant.bad_lines.size(), 1u);
  EXPECT_EQ(tolerant.bad_lines[0], "r.jsonl:1: not valid JSON (number overflow parsing '1e999')");
  ASSERT_EQ(tolerant.records.size(), 1u);
  EXPECT_EQ(tolerant.records[0].origin, "r.jsonl:2");
  EXPECT_EQ(refusal([&] { read_results_text(text, "r.jsonl", true); }), tolerant.bad_lines[0]);
}

TEST(ReaderFuzzFindings, AWholeNumberIsReadOnlyWhenItsTypeHoldsIt) {
  EXPECT_EQ(whole_number(json(3)), 3);
  EXPECT_EQ(whole_number(json(3.0)), 3);
  EXPECT_EQ(whole_number(json(INT_MIN)), INT_MIN);
  EXPECT_EQ(whole_number(json(-2147483648.5)), INT_MIN);  // cast toward zero, as before
  EXPECT_EQ(whole_number<std::uint64_t>(json(UINT64_MAX)), UINT64_MAX);
  EXPECT_THROW(whole_number(json(1e300)), json::out_of_range);
  EXPECT_THROW(whole_number(json(-1e300)), json::out_of_range);
  EXPECT_THROW(whole_number(json(2147483648.0)), json::out_of_range);
  EXPECT_THROW(whole_number(json(std::int64_t{1} << 32)), json::out_of_range);
  EXPECT_THROW(whole_number<std::uint64_t>(json(-1)), json::out_of_range);
  EXPECT_THROW(whole_number<std::uint64_t>(json(18446744073709551616.0)), json::out_of_range);
  EXPECT_THROW(whole_number<std::int64_t>(json(9223372036854775808.0)), json::out_of_range);
  EXPECT_THROW(whole_number(json("3")), json::type_error);
  EXPECT_EQ(whole_numbers(json::array({1, 2})), (std::vector<int>{1, 2}));
  EXPECT_THROW(whole_numbers(json::array({1, 1e300})), json::out_of_range);
  EXPECT_THROW(whole_numbers(json(1)), json::type_error);
  EXPECT_EQ(whole_number_or(json::object(), "n", 7), 7);
  EXPECT_THROW(whole_number_or(json{{"n", 1e300}}, "n", 7), json::out_of_range);
}

// A cluster file the cost model reads, every number stated.
json small_cluster_file() {
  sim::ClusterModel m;
  m.name = "two nodes";
  m.nodes = 2;
  const sim::Sourced rate{1e9, "assumed", ""}, zero{0, "assumed", ""};
  m.intra = {"shm", rate, zero};
  m.inter = {"network", rate, zero};
  m.per_message_s = zero;
  m.reduce_bytes_per_s = rate;
  m.server_hosts = zero;
  return sim::to_json(m);
}

TEST(ReaderFuzzFindings, AClusterFilesCountBeyondAnIntIsNamed) {
  json doc = small_cluster_file();
  EXPECT_EQ(sim::cluster_model_from_json(doc, "c.json").nodes, 2);
  doc["nodes"] = 1e300;
  const std::string nodes = refusal([&] { sim::cluster_model_from_json(doc, "c.json"); });
  EXPECT_EQ(nodes.rfind("c.json", 0), 0u) << nodes;
  EXPECT_NE(nodes.find("nodes"), std::string::npos) << nodes;
  doc["nodes"] = 2;
  doc["schema_version"] = 1e300;  // another version, not a number cast to int
  EXPECT_NE(refusal([&] { sim::cluster_model_from_json(doc, "c.json"); }).find("version 1e+300"),
            std::string::npos);
  doc["schema_version"] = 1;
  doc["nodes"] = 2;
  doc["calibration"]["fits"] = {{{"strategy", "ring-mpi"},
                                 {"link", "inter"},
                                 {"overhead_s", 0},
                                 {"alpha_s", 0},
                                 {"beta_s_per_byte", 0},
                                 {"gamma_s_per_byte", 0},
                                 {"workers", {2, -1e300}}}};
  EXPECT_NE(refusal([&] { sim::cluster_model_from_json(doc, "c.json"); }).find("c.json: "),
            std::string::npos);
}

TEST(ReaderFuzzFindings, ARecordsCountBeyondAnIntIsAnIncompleteRecord) {
  StoredRecord run = small_cnn_train("ring-mpi", 2, 100);
  run.value["results"]["workers"] = 1e300;
  const std::vector<StoredRecord> records = {run};
  EXPECT_NE(refusal([&] { training_report(records); }).find(run.origin + ": incomplete"),
            std::string::npos);
  EXPECT_THROW(strategy_options_from_json(json{{"hierarchical_ranks_per_host", 1e300}}),
               std::exception);
}

TEST(ReaderFuzzFindings, ASweepAttemptsCountBeyondAnIntIsRefused) {
  json attempt = new_record("sweep");
  attempt["status"] = "failed";
  attempt["ranks"] = 1e300;
  EXPECT_THROW(failed_configurations({attempt}), json::out_of_range);
}

TEST(ReaderFuzzFindings, TheInMemoryReadersReadAsTheFileReadersDo) {
  const auto file = std::filesystem::temp_directory_path() /
                    ("gradsync_reader_fuzz_" + std::to_string(::getpid()) + ".jsonl");
  json done = new_record("train");
  done["context"] = {{"config_digest", "fnv1a64:aa"}};
  done["ranks"] = 2;
  const std::string text = done.dump() + "\nnot json\n\n" + kTrainLine + "\n";
  std::ofstream(file) << text;
  const ReadOutcome from_file = read_results_tolerant({file.string()});
  const ReadOutcome from_text = read_results_text(text, file.string(), false);
  EXPECT_EQ(from_text.bad_lines, from_file.bad_lines);
  EXPECT_EQ(from_text.lines, 3u);
  ASSERT_EQ(from_text.records.size(), from_file.records.size());
  for (std::size_t i = 0; i < from_text.records.size(); ++i) {
    EXPECT_EQ(from_text.records[i].origin, from_file.records[i].origin);
    EXPECT_EQ(from_text.records[i].value, from_file.records[i].value);
  }
  std::vector<std::string> warnings;
  const auto done_in_file = done_configurations(file, warnings);
  EXPECT_EQ(done_configurations(from_text.records), done_in_file);
  EXPECT_EQ(done_in_file.at(configuration_key("fnv1a64:aa", 2)), file.string() + ":1");
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace gradsync
