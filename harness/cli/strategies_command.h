#pragma once
// `gradsync strategies`: every entry of the strategy table, whether it can run
// here, and the library behind it or the reason it cannot.

#include <string>

namespace gradsync {

// One line per strategy under a header: name, usable, transport, algorithm, detail.
std::string strategies_listing();

}  // namespace gradsync
