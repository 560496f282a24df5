#pragma once
// What every reader target of tests/fuzz/ checks of a reader's answer: it
// either returns, or refuses the input with a std::exception that says why.
// Anything else (a crash, a sanitizer's report, an exception of another
// type, which escapes LLVMFuzzerTestOneInput and terminates) is a finding
// that libFuzzer reports with the input.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

namespace gradsync::fuzz {

// Aborts, naming the property, unless it holds.
inline void require(bool holds, const char* property) {
  if (holds) return;
  std::fprintf(stderr, "fuzz: %s\n", property);
  std::abort();
}

// Runs `read`; true when it returned, false when it refused with a
// std::exception, whose message must not be empty.
template <class Read>
bool reads(Read&& read) {
  try {
    read();
    return true;
  } catch (const std::exception& e) {
    require(e.what() != nullptr && e.what()[0] != '\0', "a reader refused without a message");
    return false;
  }
}

}  // namespace gradsync::fuzz
