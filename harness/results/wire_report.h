#pragma once
// The wire table of `gradsync report`: for every run on an emulated cluster
// (the later record of a configuration counting), per host, the bytes its
// link put on and took off the wire per step (train) or per allreduce at the
// largest size measured (collectives), beside the bytes the strategies on
// that host counted, and link / counted. Above 1: protocol headers,
// acknowledgements and control traffic; below 1: bytes between ranks of one
// host, which shared memory carried and no link saw.

#include <optional>
#include <span>

#include "harness/results/report_table.h"
#include "harness/results/result_file.h"

namespace gradsync {

// Nothing when no record carries wire truth. Throws std::runtime_error
// naming the record when one is malformed.
std::optional<ReportTable> wire_report(std::span<const StoredRecord> records);

}  // namespace gradsync
