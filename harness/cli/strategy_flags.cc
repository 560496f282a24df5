#include "harness/cli/strategy_flags.h"

#include <cstdint>
#include <type_traits>

#include "harness/cli/size_flag.h"

namespace gradsync {

namespace {

static_assert(std::is_same_v<std::size_t, std::uint64_t>,
              "size flags bind std::size_t fields through std::uint64_t");

// CLI::PositiveNumber's message prints the largest double in full.
CLI::Validator above_zero() {
  return CLI::Validator(
      [](std::string& text) {
        double value = 0;
        if (CLI::detail::lexical_cast(text, value) && value > 0) return std::string();
        return "must be a number above 0, not '" + text + "'";
      },
      "");
}

}  // namespace

void add_strategy_flags(CLI::App& app, StrategyOptions& options) {
  const std::string group = "Strategy options";
  add_size_flag(app, "--ring-segment", options.ring_segment_bytes,
                "ring-mpi: bytes per pipelined segment")
      ->group(group);
  add_size_flag(app, "--tree-segment", options.tree_segment_bytes,
                "tree-mpi: bytes per pipelined segment")
      ->group(group);
  app.add_option("--ps-servers", options.ps_servers, "ps-zmq: number of server shards")
      ->check(above_zero())
      ->group(group);
  app.add_option_function<std::string>(
         "--ps-placement",
         [&options](const std::string& text) { options.ps_placement = parse_ps_placement(text); },
         "ps-zmq: server shards as threads in the first workers (colocated) or as the first "
         "ranks, which then only serve (dedicated)")
      ->check(CLI::IsMember({"colocated", "dedicated"}))
      ->default_str(to_string(options.ps_placement))
      ->group(group);
  app.add_option("--ps-transport", options.ps_transport, "ps-zmq: ZeroMQ transport")
      ->check(CLI::IsMember({"tcp", "ipc"}))
      ->group(group);
  app.add_option("--ps-bind", options.ps_bind_host, "ps-zmq: the address servers bind to (tcp)")
      ->type_name("HOST")
      ->group(group);
  add_size_flag(app, "--ps-partition", options.ps_partition_bytes,
                "ps-zmq: bytes per partition spread over the shards")
      ->group(group);
  app.add_option("--timeout", options.timeout_s,
                 "give up a receive that waits on another process after this long, naming the peer")
      ->type_name("SECONDS")
      ->check(above_zero())
      ->group(group);
  app.add_option("--ps-fault-stop-after", options.ps_fault_stop_after,
                 "for tests only: each ps-zmq server shard stops answering after N requests, as "
                 "a crashed server would (negative: never)")
      ->group(group);
  app.add_option("--test-delay-ms", options.test_delay_ms,
                 "for tests only: every allreduce of the strategy sleeps this long first, to slow "
                 "it by a known amount (0: no delay)")
      ->type_name("MS")
      ->check(CLI::NonNegativeNumber)
      ->group(group);
}

nlohmann::json to_json(const StrategyOptions& options) {
  return {
      {"ring_segment_bytes", options.ring_segment_bytes},
      {"tree_segment_bytes", options.tree_segment_bytes},
      {"ps_servers", options.ps_servers},
      {"ps_placement", to_string(options.ps_placement)},
      {"ps_transport", options.ps_transport},
      {"ps_bind_host", options.ps_bind_host},
      {"ps_partition_bytes", options.ps_partition_bytes},
      {"ps_fault_stop_after", options.ps_fault_stop_after},
      {"timeout_s", options.timeout_s},
      {"test_delay_ms", options.test_delay_ms},
  };
}

}  // namespace gradsync
