// The sanitizer runtimes' defaults for a GRADSYNC_SANITIZE build, linked into
// every executable (cmake/GradsyncSanitize.cmake). Each runtime calls its
// function, when the program defines it, before reading *SAN_OPTIONS from the
// environment, so these reach every rank mpirun starts and the environment
// still has the last word.

extern "C" {

// halt_on_error: the first finding ends the process with a failure.
// detect_stack_use_after_return stays off: it makes MPI's and ZeroMQ's
// uninstrumented callers' stacks confusing and costs time for little here.
const char* __asan_default_options() {
  return "halt_on_error=1:abort_on_error=0:strict_string_checks=1:"
         "check_initialization_order=1:detect_leaks=1";
}

const char* __ubsan_default_options() { return "halt_on_error=1:print_stacktrace=1"; }

const char* __tsan_default_options() { return "halt_on_error=1:second_deadlock_stack=1"; }

// Leaks the project does not own, suppressed by the library they are in.
const char* __lsan_default_suppressions() {
  return "leak:libmpi.so\n"
         "leak:libopen-pal.so\n"
         "leak:libopen-rte.so\n";
}

// Two reports about code that is not ours. libzmq is not instrumented: its
// threads hand messages over through lock-free queues TSan cannot see, so a
// buffer its I/O thread allocated and filled looked raced with our thread
// reading it; its interceptor calls (malloc, memcpy) are ignored. Open MPI's
// TCP transport takes two of its own locks in both orders while it connects
// and disconnects ranks (mca_btl_tcp_add_procs / _del_procs), a potential
// deadlock inside Open MPI. Races and lock orders in our own code still report.
const char* __tsan_default_suppressions() {
  return "called_from_lib:libzmq.so\n"
         "deadlock:mca_btl_tcp.so\n";
}

}  // extern "C"
