#pragma once
// The order of the shared-memory hand-offs, told to ThreadSanitizer.
//
// A worker's values and a shard's sums change hands through a ZeroMQ
// message (the header that says they are there). ZeroMQ is not instrumented,
// so ThreadSanitizer sees the writes before the message and the reads after
// it as a race when the worker and its colocated shard share a process. A
// release before each such message and an acquire after it, on one object,
// tell it the order the message enforces. Outside ThreadSanitizer builds
// both are nothing.

#if defined(__SANITIZE_THREAD__)
#define GRADSYNC_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GRADSYNC_TSAN 1
#endif
#endif

#ifdef GRADSYNC_TSAN
extern "C" void __tsan_acquire(void* address);
extern "C" void __tsan_release(void* address);
#endif

namespace gradsync {

#ifdef GRADSYNC_TSAN
inline char shared_memory_order;
// Written shared memory is about to be announced.
inline void shared_memory_released() { __tsan_release(&shared_memory_order); }
// An announcement arrived: what it announces may be read.
inline void shared_memory_acquired() { __tsan_acquire(&shared_memory_order); }
#else
inline void shared_memory_released() {}
inline void shared_memory_acquired() {}
#endif

}  // namespace gradsync
