#pragma once
// Result files: JSON Lines, one record a line, schema documented in
// results/README.md. Records are appended atomically (a crash never leaves
// half a record, and nothing already in the file is lost), and reading checks
// every line, naming the file and line of each that is wrong.
//
// Reading is bounded: no line may be longer than kMaxLineBytes (64 MiB). The
// longest real record, a collectives record with its wire truth at every
// size, is a few tens of KB (a simulated record names its cluster by digest,
// simulated_record.h), so a longer line means the file is not a result file (a binary
// file, /dev/zero): that line is bad and reading of that file stops there,
// since what follows cannot be trusted to be lines. No line longer than the
// bound is ever held, whatever the file (devices and fifos included).
//
// Two ways to meet a bad line, one reader: strict (throw at the first, for
// compare, the CI gate, and for calibrate and simulate) and tolerant (go on
// past it and say which it was, for report, so that one torn line does not
// hide a long sweep).
//
// The reader streams: visit_results hands each record to a visitor and holds
// one line at a time, so that what a command keeps is what it folds the
// records into (report, compare, calibrate: a few numbers per configuration),
// never the file. read_results and read_results_tolerant gather every record
// into a vector, for the callers whose inputs are small (a sweep's own
// records, simulate's measured twins) and for tests.

#include <cstddef>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace gradsync {

inline constexpr const char* kResultSchema = "gradsync.result";
inline constexpr int kResultSchemaVersion = 1;
inline constexpr std::size_t kMaxLineBytes = std::size_t{64} << 20;

// The fields every record starts with: schema, schema_version and kind.
nlohmann::json new_record(const std::string& kind);

// Appends `record` as one line with one write to a file opened for appending
// (continued should the kernel take only part of it). When the line cannot be
// written whole, the file is cut back to where the line began and this throws
// std::runtime_error "<file>: cannot append a record: <the system's reason>"
// (e.g. "File too large", "No space left on device", "Disk quota exceeded").
void append_record(const std::filesystem::path& file, const nlohmann::json& record);

struct StoredRecord {
  std::string origin;  // "file:line", for messages about this record
  nlohmann::json value;
};

// What tolerant reading found.
struct ReadOutcome {
  std::vector<StoredRecord> records;   // the good records, in order
  std::vector<std::string> bad_lines;  // "file:line: why", in order
  std::size_t lines = 0;               // lines read, blank ones aside: records + bad lines
};

// One line of a result file, its newline aside: "" with `value` the record
// when it is a record of this build, else why it is not ("not valid JSON
// (...)", "not a gradsync result record (...)", "schema_version 9 is not
// known ..."), the text the reader puts after "file:line: ". Touches no file.
std::string parse_record_line(std::string_view line, nlohmann::json& value);

// What reading does with each record and each bad line, in file order.
struct RecordVisitor {
  std::function<void(StoredRecord&&)> record;
  // "file:line: why" for each bad line, reading going on (after an over-long
  // line, with the next file); empty: strict, the first bad line is thrown.
  std::function<void(const std::string&)> bad_line;
};

// Every line of every path (a file, or a directory standing for its .jsonl
// files in name order; none is an error), in the order given, to `visitor`.
// Returns the lines read, blank ones aside. Throws as read_records for a bad
// line when strict, and "file: ..." when a file cannot be read at all (a
// wrong path is not a torn line), whichever the mode.
std::size_t visit_results(const std::vector<std::string>& paths, const RecordVisitor& visitor);

// Every record of the file, in order (blank lines are skipped). Throws
// std::runtime_error "file:line: ..." for a line that is not JSON, not a
// gradsync result, of a schema_version this build does not know, or longer
// than kMaxLineBytes, and "file: ..." when the file cannot be read.
std::vector<StoredRecord> read_records(const std::filesystem::path& file);

// Every record of `path`: a file, or a directory standing for its .jsonl
// files (in name order; none is an error). Strict, as read_records.
std::vector<StoredRecord> read_results(const std::string& path);
// Every record of every path, in the order given. Strict, as read_records.
std::vector<StoredRecord> read_results(const std::vector<std::string>& paths);

// As read_results, but a bad line is listed in bad_lines and reading goes on
// (after an over-long line, with the next file). A file or directory that
// cannot be read at all still throws: it is a wrong path, not a torn line.
ReadOutcome read_results_tolerant(const std::vector<std::string>& paths);

// The records of `text`, the content of a result file that messages call
// `name`, read line by line as a file is: strict (throw at the first bad
// line, as read_records) or tolerant (list it, as read_results_tolerant).
ReadOutcome read_results_text(std::string_view text, const std::string& name, bool strict);

// Writes `text` to a temporary file beside `file`, syncs it and renames it
// over `file`, so a reader sees the old file or the whole new one, never a
// torn one. Throws std::runtime_error "<file>: cannot write <what>: <the
// system's reason>", leaving no temporary file behind. A path that names a
// device or a pipe (/dev/null, /dev/stdout) is written through in place:
// renaming over it would put a regular file where the device was.
void write_file_replacing(const std::filesystem::path& file, const std::string& text,
                          const std::string& what);

// nlohmann::json's message without its "[json.exception.x.y] " tag.
std::string without_json_tag(const std::string& message);

}  // namespace gradsync
