#pragma once
// Reading a record's fields with one wording for a record that lacks one:
// "file:line: incomplete KIND record (what nlohmann::json said)", and one
// for a field that is there but wrong (std::invalid_argument from a reader
// such as cluster_from_json): "file:line: invalid KIND record (...)".

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "harness/results/result_file.h"

namespace gradsync {

// Returns read(record.value); turns a json exception or an invalid_argument
// into the messages above.
template <class Read>
auto read_fields(const StoredRecord& record, const std::string& kind, Read read) {
  try {
    return read(record.value);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(record.origin + ": incomplete " + kind + " record (" +
                             without_json_tag(e.what()) + ")");
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(record.origin + ": invalid " + kind + " record (" + e.what() + ")");
  }
}

}  // namespace gradsync
