#pragma once
// A command-line flag that takes a byte size ("4", "64K", "16M"), read with
// parse_size, so that every size flag accepts the same spellings and rejects
// a malformed one with the same message, prefixed by the flag's name. A size
// of a buffer the strategies reduce (a message, a segment, a partition) is
// in whole floats: "6" is refused, never cut down to 4 bytes unsaid.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace gradsync {

enum class SizeUnit {
  bytes,   // any whole number of bytes (a filter, a limit)
  floats,  // a multiple of sizeof(float); 0 passes here, the flag's own bound decides it
};

CLI::Option* add_size_flag(CLI::App& app, const std::string& names, std::uint64_t& bytes,
                           const std::string& help, SizeUnit unit = SizeUnit::bytes);

}  // namespace gradsync
