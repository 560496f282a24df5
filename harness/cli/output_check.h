#pragma once
// Output files are checked before any measurement, on the rank that writes
// them, so that a run is never lost at its end to a path it could not write,
// and their folder is locked (results_lock.h) so that no second writer
// measures and records into it at the same time.

#include <CLI/CLI.hpp>
#include <string>

namespace gradsync {

// Throws std::invalid_argument "<flag> <path>: <why>" unless `path` can be
// opened for appending: it is not a directory, its directory exists, and the
// file can be created or opened (permissions, a read-only file system). A
// file created only to check this is removed again. Empty `path`: nothing.
void check_output_file(const std::string& flag, const std::string& path);

// --wait on a command that writes into a results folder: wait for the
// folder's other writer to finish instead of refusing.
CLI::Option* add_wait_flag(CLI::App& command, bool& wait);

}  // namespace gradsync
