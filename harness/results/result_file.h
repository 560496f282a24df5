#pragma once
// Result files: JSON Lines, one record a line, schema documented in
// results/README.md. Records are appended atomically (a crash never leaves
// half a record, and nothing already in the file is lost), and reading checks
// every line, naming the file and line of the first that is wrong.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gradsync {

inline constexpr const char* kResultSchema = "gradsync.result";
inline constexpr int kResultSchemaVersion = 1;

// The fields every record starts with: schema, schema_version and kind.
nlohmann::json new_record(const std::string& kind);

// Appends `record` as one line with a single write to a file opened for
// appending; on a short write the file is cut back to where the line began
// and this throws. Throws std::runtime_error naming the file on any failure.
void append_record(const std::filesystem::path& file, const nlohmann::json& record);

struct StoredRecord {
  std::string origin;  // "file:line", for messages about this record
  nlohmann::json value;
};

// Every record of the file, in order (blank lines are skipped). Throws
// std::runtime_error "file:line: ..." for a line that is not JSON, not a
// gradsync result, or of a schema_version this build does not know, and
// "file: ..." when the file cannot be read.
std::vector<StoredRecord> read_records(const std::filesystem::path& file);

// Every record of `path`: a file, or a directory standing for its .jsonl
// files (in name order; none is an error).
std::vector<StoredRecord> read_results(const std::string& path);
// Every record of every path, in the order given.
std::vector<StoredRecord> read_results(const std::vector<std::string>& paths);

// Writes `text` to a temporary file beside `file` and renames it over
// `file`, so a reader sees the old file or the whole new one, never a torn
// one. Throws std::runtime_error "<file>: cannot write <what>: <reason>",
// leaving no temporary file behind.
void write_file_replacing(const std::filesystem::path& file, const std::string& text,
                          const std::string& what);

// nlohmann::json's message without its "[json.exception.x.y] " tag.
std::string without_json_tag(const std::string& message);

}  // namespace gradsync
