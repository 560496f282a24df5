# GRADSYNC_SANITIZE builds every target with the sanitizers it names, as
# -fsanitize takes them: "address,undefined" (ASan + UBSan; scripts/test.sh's
# second build), "thread" (TSan; the synchronizer's threads), or empty (none).
# Optimized at -O1 with line tables and frame pointers, which keeps the reports
# readable (ASan alone then compiles as fast as the plain -O3 build; with UBSan
# a file takes about twice as long). UBSan does not recover, so a finding
# aborts its test instead of printing and passing. Every executable links
# cmake/sanitizer_defaults.cc: the runtimes' default options and suppressions
# (the reasons are written there), compiled in so that every run
# gets them (CTest, each rank under mpirun, by hand); *SAN_OPTIONS in the
# environment still override them.
# Code that is not measured (harness/cli, results, sim and the tests' own
# sources) compiles at this level: -O1, or -O0 when sanitized.
set(GRADSYNC_COLD_OPT -O1)
set(GRADSYNC_SANITIZE "" CACHE STRING
    "Build with these sanitizers (-fsanitize=...): address,undefined | thread | empty for none")
if(GRADSYNC_SANITIZE)
  if(GRADSYNC_SANITIZE MATCHES "thread" AND GRADSYNC_SANITIZE MATCHES "address")
    message(FATAL_ERROR "GRADSYNC_SANITIZE=${GRADSYNC_SANITIZE}: thread and address cannot be combined")
  endif()
  add_compile_options(-fsanitize=${GRADSYNC_SANITIZE} -fno-sanitize-recover=all
                      -fno-omit-frame-pointer -O1 -g1)
  add_link_options(-fsanitize=${GRADSYNC_SANITIZE})
  set(GRADSYNC_COLD_OPT -O0)
  add_library(gradsync_sanitizer_defaults OBJECT ${CMAKE_CURRENT_LIST_DIR}/sanitizer_defaults.cc)
  # Executables only: a static library would carry a copy nobody pulls out.
  link_libraries($<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:gradsync_sanitizer_defaults>)
  message(STATUS "gradsync: sanitizers ${GRADSYNC_SANITIZE}")
endif()
