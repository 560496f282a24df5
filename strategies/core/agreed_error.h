#pragma once
// AgreedError: a failure raised alike on every rank, which main prints once,
// from world rank 0 (harness/engine/errors.h says how main tells failures
// apart). Here, below the harness, so that a strategy whose every rank learns
// the same cause at once (a parameter-server shard that tells each of its
// workers why it cannot go on) raises it too.

#include <stdexcept>
#include <string>

namespace gradsync {

class AgreedError : public std::runtime_error {
 public:
  AgreedError(const std::string& message, int exit_status)
      : std::runtime_error(message), exit_status_(exit_status) {}
  int exit_status() const { return exit_status_; }

 private:
  int exit_status_;
};

}  // namespace gradsync
