# Gloo, the collective library under PyTorch's CPU DistributedDataParallel,
# as an optional peer: Debian's libgloo-dev (scripts/install-deps.sh peers).
# GRADSYNC_GLOO: AUTO (build the gloo-* strategies when the package is
# there), ON (require it) or OFF. Sets GRADSYNC_WITH_GLOO; without it the
# strategies are listed, unusable, with the reason (strategies/gloo/absent.cc).
set(GRADSYNC_GLOO "AUTO" CACHE STRING "Build the gloo-* strategies: AUTO, ON or OFF")
set_property(CACHE GRADSYNC_GLOO PROPERTY STRINGS AUTO ON OFF)
set(GRADSYNC_WITH_GLOO OFF)
if(NOT GRADSYNC_GLOO STREQUAL "OFF")
  find_package(Gloo CONFIG QUIET)  # /usr/share/cmake/Gloo: the imported target `gloo`
  if(Gloo_FOUND AND TARGET gloo)
    set(GRADSYNC_WITH_GLOO ON)
    # Debian's package has only a RelWithDebInfo location; any build type links it.
    set_target_properties(gloo PROPERTIES MAP_IMPORTED_CONFIG_RELEASE RelWithDebInfo
                                          MAP_IMPORTED_CONFIG_DEBUG RelWithDebInfo
                                          MAP_IMPORTED_CONFIG_MINSIZEREL RelWithDebInfo)
  elseif(GRADSYNC_GLOO STREQUAL "ON")
    message(FATAL_ERROR "GRADSYNC_GLOO=ON but Gloo was not found (install libgloo-dev: scripts/install-deps.sh peers)")
  endif()
endif()
message(STATUS "gradsync: Gloo strategies ${GRADSYNC_WITH_GLOO}")

# gradsync_gloo_sources(VAR): *_gloo.cc only with Gloo, gloo/absent.cc (the
# stand-in that says why) only without (gradsync_optional_sources).
macro(gradsync_gloo_sources var)
  gradsync_optional_sources(${var} gloo "${GRADSYNC_WITH_GLOO}" "gloo/absent\\.cc")
endmacro()
