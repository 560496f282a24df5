#pragma once
// Starting threads so that the system refusing one is an error line, not an
// abort. std::thread's constructor throws std::system_error when the system
// will not make another thread (EAGAIN: a limit on threads or processes, or
// memory for its stack); threads already started and still joinable when
// their std::thread is destroyed end the process (std::terminate). Here a
// refusal first stops and joins what started, then throws one line that
// says which threads were asked for, how many the host gave, and what to do.

#include <functional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace gradsync {

[[noreturn]] void throw_refused_thread(const std::string& what, const std::system_error& e);

// The most loader or shard threads an option may ask for: far above what a
// worker uses (a few per core), far below what a host can start.
inline constexpr int kMaxThreadsPerOption = 4096;

// Returns make(), which constructs one thread (a std::thread or
// std::jthread); a refusal throws std::runtime_error "WHAT: cannot start a
// thread: REASON (...)". `what` names the thread ("the gradient
// synchronizer's communication thread").
template <class Make>
auto start_thread(const std::string& what, Make make) -> decltype(make()) {
  try {
    return make();
  } catch (const std::system_error& e) {
    throw_refused_thread(what, e);
  }
}

// Starts `count` threads, thread i running body(i). When the system refuses
// thread k, calls stop() (which must make every started body return), joins
// threads 0 .. k-1 and throws std::runtime_error "WHAT: cannot start thread
// K of COUNT: REASON (this host started K-1; ask for fewer)"; `what` names
// what asked ("--input-threads 100000").
std::vector<std::thread> start_threads(const std::string& what, int count,
                                       const std::function<void(int)>& body,
                                       const std::function<void()>& stop);

}  // namespace gradsync
