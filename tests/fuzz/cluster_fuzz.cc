// libFuzzer target for the three readers of a cluster's description, built
// with clang and ASan + UBSan (GRADSYNC_BUILD_FUZZ, tests/fuzz/CMakeLists.txt):
//   - `sweep --cluster`'s spec (harness/cli/cluster_spec.h), the input as text;
//   - cluster.json of scripts/cluster.sh (harness/engine/cluster.h), and
//   - the cost model's cluster file (harness/sim/cluster_model.h), the input
//     as JSON (an input that is not JSON stops there: nlohmann's parser is
//     not ours to fuzz).
// For any input each reader returns or refuses with a std::exception
// (fuzz_checks.h), and what it returns keeps the rules it promises: a spec's
// ranges, a description's positive rate and named hosts, and a cluster
// model that writes out and reads back to the same file.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "harness/cli/cluster_spec.h"
#include "harness/engine/cluster.h"
#include "harness/sim/cluster_model.h"
#include "tests/fuzz/fuzz_checks.h"

namespace {

using gradsync::fuzz::reads;
using gradsync::fuzz::require;

void check_spec(const std::string& text) {
  gradsync::ClusterSpec spec;
  if (!reads([&] { spec = gradsync::parse_cluster_spec(text); })) return;
  require(spec.hosts >= 1 && spec.hosts <= 250 && spec.slots >= 1 && spec.slots <= 1024,
          "a spec out of its hosts' or slots' range was accepted");
  require(spec.mtu == 0 || (spec.mtu >= 1280 && spec.mtu <= 65000),
          "a spec's MTU out of range was accepted");
  require(!spec.rate.empty() && !gradsync::describe(spec).empty(), "a spec without a rate");
}

void check_description(const nlohmann::json& json) {
  gradsync::ClusterDescription d;
  if (!reads([&] { d = gradsync::cluster_from_json(json); })) return;
  require(
      !d.hosts.empty() && d.slots >= 1 && d.rate_bits_per_s > 0 && d.delay_s >= 0 && d.mtu >= 576,
      "a description breaking its rules was accepted");
  for (const auto& host : d.hosts)
    require(!host.name.empty() && host.slots >= 1 && d.find_host(host.name) == &host,
            "a host without a name, a slot, or named twice was accepted");
}

void check_model(const nlohmann::json& json) {
  namespace sim = gradsync::sim;
  sim::ClusterModel model;
  if (!reads([&] { model = sim::cluster_model_from_json(json, "fuzz.json"); })) return;
  require(model.nodes >= 1 && model.workers_per_node >= 1, "a cluster without workers");
  // What calibrate writes, simulate reads: the model written out reads back
  // as the same model.
  const nlohmann::json written = sim::to_json(model);
  sim::ClusterModel again;
  require(reads([&] { again = sim::cluster_model_from_json(written, "fuzz.json"); }),
          "a cluster model written out does not read back");
  require(sim::to_json(again) == written, "a cluster model reads back as another");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  check_spec(text);
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return 0;
  check_description(json);
  check_model(json);
  return 0;
}
