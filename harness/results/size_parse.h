#pragma once
// Byte sizes as users type them: "4", "64K", "16M", "1G" (binary multiples,
// as nccl-tests reads -b and -e), with an optional trailing "B" or "iB";
// and link rates as tc writes them: "500mbit", "25gbit", "1.5gbit" (decimal
// multiples of bit/s).

#include <cstdint>
#include <string>
#include <string_view>

namespace gradsync {

// Throws std::invalid_argument naming the text when it is not a size.
std::uint64_t parse_size(std::string_view text);

// Empty when `bytes` is a whole number of floats (the element every buffer
// the strategies reduce is made of), else why not: "<spelled> is not a whole
// number of floats (4 bytes each)", `spelled` being how the user wrote it.
std::string not_whole_floats(std::uint64_t bytes, std::string_view spelled);

// The shortest exact spelling of `bytes`: 4, 64K, 16M, 1G, else plain bytes.
std::string format_size(std::uint64_t bytes);

// Bits per second from "100kbit", "500mbit", "25gbit", "1.5gbit" or a plain
// number of bit/s. Throws std::invalid_argument naming the text.
double parse_bit_rate(std::string_view text);

}  // namespace gradsync
