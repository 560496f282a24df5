#pragma once
// The input stage's one spelling (harness/engine/input_spec.h lists the
// forms): `train --input`, `simulate project --input` and `sweep --input` parse it,
// the record stores it, and a report names the stage in the workload's setup
// with it.

#include <string>
#include <string_view>

#include "harness/engine/input_spec.h"

namespace gradsync {

// Parses "synthetic", "decode:2ms", "decode:500us", "read:110K@200" (the size
// as parse_size reads it, the rate in MB/s, an optional "MB/s" after it),
// "jpeg" or "jpeg:75"; threads and prefetch keep their defaults. Throws
// std::invalid_argument, one line naming the text and what it expected.
InputSpec parse_input(std::string_view text);

// The text that parses back to `spec`'s kind and cost: "synthetic",
// "decode:2ms", "decode:500us", "read:110K@200", "jpeg:90".
std::string input_text(const InputSpec& spec);

// How a report names the stage in a workload's setup, threads and prefetch
// included: "input decode:2ms x2 threads prefetch 2"; "" for synthetic.
std::string input_label(const InputSpec& spec);

}  // namespace gradsync
