#pragma once
// A command-line flag that takes a byte size ("4", "64K", "16M"), read with
// parse_size, so that every size flag accepts the same spellings and rejects
// a malformed one with the same message, prefixed by the flag's name.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace gradsync {

CLI::Option* add_size_flag(CLI::App& app, const std::string& names, std::uint64_t& bytes,
                           const std::string& help);

}  // namespace gradsync
