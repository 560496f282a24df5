#pragma once
// Whether a strategy can run on this machine, and why not: what `gradsync
// strategies` lists beside each entry of the table.

#include <string>

namespace gradsync {

struct Availability {
  bool usable = true;
  std::string detail;  // the library behind it, or why it cannot run here
};

}  // namespace gradsync
