#pragma once
// The first error a fold over a stream of records met, kept to be thrown
// where the fold's result is read. A report reads every line before it
// reads a figure, so a line that cannot be read is named before a record
// that cannot be reported; a fold that threw at once, mid-stream, would
// name the wrong one (and cut the warnings about bad lines short).

#include <exception>
#include <new>

namespace gradsync {

class FirstError {
 public:
  // Runs `step` unless an error is kept already; keeps what it throws
  // (running out of memory aside: that is not the record's fault).
  template <class Step>
  void guard(Step&& step) {
    if (error_) return;
    try {
      step();
    } catch (const std::bad_alloc&) {
      throw;
    } catch (...) {
      error_ = std::current_exception();
    }
  }
  // Keeps `error` unless one is kept already.
  void keep(std::exception_ptr error) {
    if (!error_) error_ = error;
  }
  // Throws the error kept, if any.
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::exception_ptr error_;
};

}  // namespace gradsync
