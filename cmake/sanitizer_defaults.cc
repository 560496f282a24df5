// The sanitizer runtimes' defaults for a GRADSYNC_SANITIZE build, linked into
// every executable (cmake/GradsyncSanitize.cmake). Each runtime calls its
// function, when the program defines it, before reading *SAN_OPTIONS from the
// environment, so these reach every rank mpirun starts and the environment
// still has the last word.

extern "C" {

// halt_on_error: the first finding ends the process with a failure.
// detect_leaks=0: Open MPI leaves about 3,300 allocations (115 KiB) behind at
// MPI_Finalize, most of them made by its components, which it has unloaded by
// the time LeakSanitizer looks, so their stacks name no library a suppression
// could match (even with mca_base_component_disable_dlclose=1), and every
// binary of ours initializes MPI. The fuzz target, which does not, keeps leak
// checking (tests/fuzz/).
const char* __asan_default_options() {
  return "halt_on_error=1:detect_leaks=0:strict_string_checks=1:check_initialization_order=1";
}

const char* __ubsan_default_options() { return "halt_on_error=1:print_stacktrace=1"; }

const char* __tsan_default_options() { return "halt_on_error=1:second_deadlock_stack=1"; }

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
