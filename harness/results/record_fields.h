#pragma once
// Reading a record's fields with one wording for a record that lacks one:
// "file:line: incomplete KIND record (what nlohmann::json said)".

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "harness/results/result_file.h"

namespace gradsync {

// Returns read(record.value); turns a json exception into the message above.
template <class Read>
auto read_fields(const StoredRecord& record, const std::string& kind, Read read) {
  try {
    return read(record.value);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(record.origin + ": incomplete " + kind + " record (" +
                             without_json_tag(e.what()) + ")");
  }
}

}  // namespace gradsync
