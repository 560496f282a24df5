#include "strategies/core/strategy_options.h"

namespace gradsync {
namespace {

constexpr OptionFlag kCommon[] = {
    {.flag = "--timeout",
     .key = "timeout_s",
     .help = "give up any wait on another process (a receive, a send, a collective, the "
             "parameter server) after this long, naming the peer; warn at half of it",
     .type_name = "SECONDS",
     .bound = OptionBound::above_zero,
     .field = [](StrategyOptions& o) -> OptionField { return &o.timeout_s; }},
    {.flag = "--compression",
     .key = "compression",
     .help = "gradients go on the wire as 16-bit floats, cast before the allreduce and back "
             "after (fp16: IEEE half; bf16: bfloat16); none: fp32",
     .choices = kCompressionNames,
     .named = {[](const StrategyOptions& o) { return to_string(o.compression); },
               [](StrategyOptions& o, std::string_view name) {
                 o.compression = parse_compression(name);
               }},
     .costed = true},
    {.flag = "--short-allreduce",
     .key = "short_allreduce_bytes",
     .help = "the MPI point-to-point strategies (ring, trees, halving-doubling, the "
             "hierarchy's leaders) reduce buffers of at most this many bytes by recursive "
             "doubling, their latency path (0: never)",
     .field = [](StrategyOptions& o) -> OptionField { return &o.short_allreduce_bytes; },
     .costed = true,
     .for_some = true},
};

constexpr OptionFlag kTestFaults[] = {
    {.flag = "--test-delay-ms",
     .key = "test_delay_ms",
     .help = "every allreduce of the strategy sleeps this long first, to slow it by a known "
             "amount (0: no delay)",
     .type_name = "MS",
     .bound = OptionBound::not_negative,
     .field = [](StrategyOptions& o) -> OptionField { return &o.faults.delay_ms; },
     .test_only = true},
};

}  // namespace

std::span<const OptionFlag> common_option_flags() { return kCommon; }
std::span<const OptionFlag> test_fault_flags() { return kTestFaults; }

}  // namespace gradsync
