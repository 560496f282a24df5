#include "harness/results/size_parse.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>

#include "harness/engine/input_rules.h"

namespace gradsync {

std::uint64_t parse_size(std::string_view text) {
  auto fail = [&] {
    return std::invalid_argument("malformed size '" + std::string(text) +
                                 "': expected a whole number of bytes with an optional K, M or G "
                                 "suffix, e.g. 64M");
  };
  std::uint64_t number = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  auto [rest, ec] = std::from_chars(begin, end, number);
  if (ec != std::errc() || rest == begin) throw fail();
  std::string_view suffix(rest, end - rest);
  std::uint64_t unit = 1;
  if (!suffix.empty()) {
    switch (std::toupper(static_cast<unsigned char>(suffix.front()))) {
      case 'K':
        unit = 1ull << 10;
        suffix.remove_prefix(1);
        break;
      case 'M':
        unit = 1ull << 20;
        suffix.remove_prefix(1);
        break;
      case 'G':
        unit = 1ull << 30;
        suffix.remove_prefix(1);
        break;
      default:
        break;
    }
    if (unit > 1 && (suffix == "i" || suffix == "iB")) suffix = {};
    if (suffix == "B" || suffix == "b") suffix = {};
    if (!suffix.empty()) throw fail();
  }
  if (number > UINT64_MAX / unit)
    throw std::invalid_argument("size '" + std::string(text) + "' is too large");
  return number * unit;
}

std::string not_whole_floats(std::uint64_t bytes, std::string_view spelled) {
  if (bytes % sizeof(float) == 0) return {};
  return std::string(spelled) + " is not a whole number of floats (" +
         std::to_string(sizeof(float)) + " bytes each)";
}

std::string format_size(std::uint64_t bytes) {
  const char* units[] = {"G", "M", "K"};
  const int shifts[] = {30, 20, 10};
  for (int i = 0; i < 3; ++i) {
    const std::uint64_t unit = 1ull << shifts[i];
    if (bytes >= unit && bytes % unit == 0) return std::to_string(bytes / unit) + units[i];
  }
  return std::to_string(bytes);
}

double parse_bit_rate(std::string_view text) {
  const std::string t(text);
  std::size_t used = 0;
  double number = 0;
  try {
    number = std::stod(t, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string unit = t.substr(used);
  for (char& c : unit) c = char(std::tolower(static_cast<unsigned char>(c)));
  double scale = 0;
  if (unit.empty() || unit == "bit") scale = 1;
  if (unit == "kbit") scale = 1e3;
  if (unit == "mbit") scale = 1e6;
  if (unit == "gbit") scale = 1e9;
  if (used == 0 || scale == 0 || !(number > 0) || !std::isfinite(number))
    throw std::invalid_argument(
        "malformed rate '" + t +
        "': expected a positive number with kbit, mbit or gbit, e.g. 25gbit");
  // A link from 1 kbit/s to 10 Tbit/s, as a cluster file's (cluster_model.cc).
  if (std::string why = broken_rule(number * scale, {"", false, 1e3, 1e13, "bit/s"}); !why.empty())
    throw std::invalid_argument("rate '" + t + "' " + why);
  return number * scale;
}

}  // namespace gradsync
