#pragma once
// Lists on the command line ("1,2,4", "--batch-size 16 --num-iters 5"): the
// non-empty parts between separators, "1,,2" giving {"1", "2"}.

#include <sstream>
#include <string>
#include <vector>

namespace gradsync {

inline std::vector<std::string> split_list(const std::string& text, char by) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, by);)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

}  // namespace gradsync
