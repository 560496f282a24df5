#pragma once
// Small text helpers shared by the printers.

#include <string>

namespace gradsync {

// Without trailing whitespace and NUL bytes (some libraries count their
// terminating NUL in the length of the text they hand back).
inline std::string trim_right(std::string text) {
  while (!text.empty() && (text.back() == '\0' || text.back() == ' ' || text.back() == '\n' ||
                           text.back() == '\r' || text.back() == '\t'))
    text.pop_back();
  return text;
}

}  // namespace gradsync
