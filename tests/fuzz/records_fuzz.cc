// libFuzzer target for the readers of result records, built with clang and
// ASan + UBSan (GRADSYNC_BUILD_FUZZ, tests/fuzz/CMakeLists.txt). The input
// is a result file's text (JSON Lines, harness/results/result_file.h): it is
// read strictly and tolerantly, and the records read go to every reader that
// `report`, `compare`, `calibrate` and `simulate validate` hand them to: the
// training tables, the collectives table (each metric), the wire table,
// report's JSON document, compare's ratios, the calibration points and each
// record's simulation case. For any input each returns or refuses with a
// std::exception (fuzz_checks.h), and the two ways of reading agree: strict
// reading refuses exactly when tolerant reading lists a bad line, and
// otherwise both keep the same records, each named "fuzz.jsonl:LINE".
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "harness/results/collectives_report.h"
#include "harness/results/compare.h"
#include "harness/results/report_json.h"
#include "harness/results/result_file.h"
#include "harness/results/sim_inputs.h"
#include "harness/results/train_report.h"
#include "harness/results/wire_report.h"
#include "tests/fuzz/fuzz_checks.h"

namespace {

using gradsync::fuzz::reads;
using gradsync::fuzz::require;

constexpr const char* kName = "fuzz.jsonl";

gradsync::ReadOutcome read_both_ways(std::string_view text) {
  gradsync::ReadOutcome tolerant;
  require(reads([&] { tolerant = gradsync::read_results_text(text, kName, false); }),
          "tolerant reading threw instead of listing the bad line");
  require(tolerant.lines == tolerant.records.size() + tolerant.bad_lines.size(),
          "lines read are not records plus bad lines");
  for (const auto& bad : tolerant.bad_lines)
    require(bad.rfind(std::string(kName) + ":", 0) == 0, "a bad line does not say where");
  gradsync::ReadOutcome strict;
  std::string refusal;
  try {
    strict = gradsync::read_results_text(text, kName, true);
  } catch (const std::exception& e) {
    refusal = e.what();
  }
  const bool accepted = refusal.empty();
  require(accepted == tolerant.bad_lines.empty(), "strict and tolerant reading disagree");
  require(accepted || refusal == tolerant.bad_lines.front(),
          "strict reading's refusal is not tolerant reading's first bad line");
  if (accepted) {
    require(strict.records.size() == tolerant.records.size(), "strict and tolerant counts differ");
    for (std::size_t i = 0; i < strict.records.size(); ++i)
      require(strict.records[i].origin == tolerant.records[i].origin &&
                  strict.records[i].value == tolerant.records[i].value,
              "strict and tolerant records differ");
  }
  return tolerant;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gradsync;
  const ReadOutcome outcome =
      read_both_ways(std::string_view(reinterpret_cast<const char*>(data), size));
  const std::vector<StoredRecord>& records = outcome.records;
  reads([&] { training_report(records); });
  for (const char* metric : {"busbw", "algbw", "time"})
    reads([&] { collectives_report(records, metric); });
  reads([&] { wire_report(records); });
  reads([&] { report_json(records).dump(1); });
  reads([&] { side_ratios(records, CompareOptions{}); });
  reads([&] { calibration_input(records); });
  for (const auto& record : records)
    if (record.value.value("kind", nlohmann::json()) == "train")
      reads([&] { simulation_case(record); });
  return 0;
}
