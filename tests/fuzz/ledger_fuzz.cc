// libFuzzer target for the sweep's ledger (harness/cli/sweep_ledger.h),
// built with clang and ASan + UBSan (GRADSYNC_BUILD_FUZZ,
// tests/fuzz/CMakeLists.txt). The input is a results file's text, read
// tolerantly as a sweep reads train.jsonl and report reads sweep.jsonl: the
// configurations it records as done (each named by a record's
// "fuzz.jsonl:LINE") and the failed configurations report lists from its
// sweep records. For any input each returns or refuses with a std::exception
// (fuzz_checks.h).
//
// sweep_ledger.cc also computes a train command line's config digest, which
// needs the whole command line of `gradsync train`; the ledger's readers do
// not. The functions the digest calls beyond the ledger are stand-ins here
// that abort: this target never computes a digest.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "harness/cli/fusion_flag.h"
#include "harness/cli/run_config.h"
#include "harness/cli/sweep_ledger.h"
#include "harness/cli/train_command.h"
#include "tests/fuzz/fuzz_checks.h"

namespace gradsync {

CLI::App* add_train_command(CLI::App&, TrainFlags&, StrategyOptions&) { std::abort(); }
nlohmann::json effective_options(const CLI::App&) { std::abort(); }
AgreedConfig agreed_config(const nlohmann::json&) { std::abort(); }
std::string default_fusion_mb_text() { std::abort(); }

}  // namespace gradsync

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gradsync;
  using fuzz::reads;
  using fuzz::require;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const ReadOutcome outcome = read_results_text(text, "fuzz.jsonl", false);
  reads([&] {
    for (const auto& [key, origin] : done_configurations(outcome.records))
      require(key.find(" on ") != std::string::npos && origin.rfind("fuzz.jsonl:", 0) == 0,
              "a done configuration without its key or origin");
  });
  std::vector<nlohmann::json> attempts;
  for (const auto& record : outcome.records)
    if (record.value.value("kind", nlohmann::json()) == "sweep") attempts.push_back(record.value);
  reads([&] { failed_configurations(attempts); });
  return 0;
}
