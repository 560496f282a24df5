# Which MPI the build uses. GRADSYNC_MPI:
#   auto     Open MPI when its wrapper (mpicxx.openmpi) is installed, else
#            MPICH (mpicxx.mpich), else whatever FindMPI finds (a cluster's
#            own mpicxx, or -DMPI_CXX_COMPILER=...);
#   openmpi  Open MPI, required;
#   mpich    MPICH, or a library of its family (Cray MPICH, Intel MPI,
#            MVAPICH), required;
#   smpi     SimGrid's SMPI, the simulator (cmake/GradsyncSmpi.cmake): a
#            build of its own that runs only under smpirun.
# Debian installs both libraries side by side and picks one for the plain
# names (mpicxx, mpirun) with update-alternatives; this never relies on that
# choice: it names the family's own wrapper and launcher (mpicxx.mpich,
# mpiexec.mpich), and plain names only where no suffixed one exists.
#
# After FindMPI the family is read from the headers themselves (OPEN_MPI,
# MPICH_VERSION), and the build records what it found, for the scripts and
# the tests:
#   GRADSYNC_MPI_FAMILY    openmpi or mpich (cache, internal);
#   GRADSYNC_MPIEXEC       the family's launcher (MPIEXEC_EXECUTABLE);
#   <build>/gradsync-mpi.env   both, as shell assignments, which
#       scripts/mpirun.sh reads for the build in build/ (or
#       $GRADSYNC_BUILD_DIR);
#   <build>/generated/mpi_build.h   both, and the first line of the
#       library's version as FindMPI read it at configure time, for the code
#       (a sweep's launcher) and the tests.
set(GRADSYNC_MPI "auto" CACHE STRING "The MPI to build with: auto, openmpi, mpich or smpi")
set_property(CACHE GRADSYNC_MPI PROPERTY STRINGS auto openmpi mpich smpi)
if(NOT GRADSYNC_MPI MATCHES "^(auto|openmpi|mpich|smpi)$")
  message(FATAL_ERROR "GRADSYNC_MPI=${GRADSYNC_MPI}: expected auto, openmpi, mpich or smpi")
endif()

# A build directory configured for one MPI and now asked for another, or
# configured before this choice existed (FindMPI then took the plain
# mpicxx): forget what FindMPI cached there.
if((DEFINED GRADSYNC_MPI_CONFIGURED AND NOT GRADSYNC_MPI_CONFIGURED STREQUAL GRADSYNC_MPI)
   OR (NOT DEFINED GRADSYNC_MPI_CONFIGURED AND DEFINED CACHE{MPI_CXX_LIB_NAMES}))
  get_cmake_property(cached CACHE_VARIABLES)
  foreach(var ${cached})
    if(var MATCHES "^MPI(EXEC)?_")
      unset(${var} CACHE)
    endif()
  endforeach()
endif()
set(GRADSYNC_MPI_CONFIGURED "${GRADSYNC_MPI}" CACHE INTERNAL "GRADSYNC_MPI at the last configure")

set(GRADSYNC_WITH_SMPI OFF)
if(GRADSYNC_MPI STREQUAL "smpi")
  include(${CMAKE_CURRENT_LIST_DIR}/GradsyncSmpi.cmake)
else()
# gradsync_mpi_tools(FAMILY): points FindMPI at FAMILY's own wrapper and
# launcher; sets gradsync_mpi_found when the wrapper is installed.
function(gradsync_mpi_tools family)
  find_program(GRADSYNC_${family}_CXX NAMES mpicxx.${family} NO_CACHE)
  find_program(GRADSYNC_${family}_EXEC NAMES mpiexec.${family} NO_CACHE)
  set(gradsync_mpi_found FALSE PARENT_SCOPE)
  if(GRADSYNC_${family}_CXX)
    set(MPI_CXX_COMPILER "${GRADSYNC_${family}_CXX}" CACHE FILEPATH "MPI C++ wrapper" FORCE)
    set(gradsync_mpi_found TRUE PARENT_SCOPE)
    if(GRADSYNC_${family}_EXEC)
      set(MPIEXEC_EXECUTABLE "${GRADSYNC_${family}_EXEC}" CACHE FILEPATH "MPI launcher" FORCE)
    endif()
  endif()
endfunction()

if(GRADSYNC_MPI STREQUAL "auto")
  if(NOT MPI_CXX_COMPILER)
    gradsync_mpi_tools(openmpi)
    if(NOT gradsync_mpi_found)
      gradsync_mpi_tools(mpich)
    endif()
  endif()
else()
  gradsync_mpi_tools(${GRADSYNC_MPI})
endif()

# The library's version string, read by a small program at configure time.
set(MPI_DETERMINE_LIBRARY_VERSION TRUE)
find_package(MPI REQUIRED COMPONENTS CXX)

# The family, from the headers the build compiles against.
include(CheckCXXSourceCompiles)
function(gradsync_mpi_header_defines macro result)
  set(CMAKE_REQUIRED_LIBRARIES MPI::MPI_CXX)
  set(CMAKE_REQUIRED_QUIET TRUE)
  unset(${result} CACHE)
  check_cxx_source_compiles("#include <mpi.h>\n#ifndef ${macro}\n#error\n#endif\nint main() {}"
                            ${result})
  set(${result} ${${result}} PARENT_SCOPE)
endfunction()
gradsync_mpi_header_defines(OPEN_MPI GRADSYNC_MPI_IS_OPENMPI)
gradsync_mpi_header_defines(MPICH_VERSION GRADSYNC_MPI_IS_MPICH)
if(GRADSYNC_MPI_IS_OPENMPI)
  set(family openmpi)
elseif(GRADSYNC_MPI_IS_MPICH)
  set(family mpich)
else()
  message(FATAL_ERROR "gradsync: the MPI found (${MPI_CXX_COMPILER}) is neither Open MPI nor of "
                      "MPICH's family; scripts/mpirun.sh knows only their launchers")
endif()
if(NOT GRADSYNC_MPI STREQUAL "auto" AND NOT family STREQUAL GRADSYNC_MPI)
  message(FATAL_ERROR "gradsync: GRADSYNC_MPI=${GRADSYNC_MPI} but the MPI found "
                      "(${MPI_CXX_COMPILER}) is ${family}: install it (scripts/install-deps.sh "
                      "thorough has MPICH) or name its wrapper with -DMPI_CXX_COMPILER=")
endif()
set(GRADSYNC_MPI_FAMILY ${family} CACHE INTERNAL "The MPI family the build uses")
set(GRADSYNC_MPIEXEC "${MPIEXEC_EXECUTABLE}")

string(REGEX REPLACE "[\r\n].*" "" version_line "${MPI_CXX_LIBRARY_VERSION_STRING}")
string(REGEX REPLACE "[ \t]+" " " version_line "${version_line}")
string(STRIP "${version_line}" GRADSYNC_MPI_VERSION_LINE)
endif()
file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/gradsync-mpi.env CONTENT
"# Written by cmake/GradsyncMpi.cmake: the MPI this build uses (scripts/mpirun.sh reads it).
GRADSYNC_MPI=@GRADSYNC_MPI_FAMILY@
GRADSYNC_MPIEXEC=@GRADSYNC_MPIEXEC@
" @ONLY)
file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/generated/mpi_build.h CONTENT
"// Written by cmake/GradsyncMpi.cmake: the MPI this build was configured with.
#pragma once
#define GRADSYNC_MPI_FAMILY \"@GRADSYNC_MPI_FAMILY@\"
#define GRADSYNC_MPIEXEC \"@GRADSYNC_MPIEXEC@\"
// The first line of MPI_Get_library_version, as FindMPI's program read it.
#define GRADSYNC_MPI_CONFIGURED_VERSION \"@GRADSYNC_MPI_VERSION_LINE@\"
" @ONLY)
message(STATUS "gradsync: MPI ${GRADSYNC_MPI_FAMILY} (${GRADSYNC_MPI_VERSION_LINE}; "
               "${MPI_CXX_COMPILER}, ${GRADSYNC_MPIEXEC})")

# gradsync_smpi_sources(VAR): *_smpi.cc only in SMPI builds
# (cmake/GradsyncSmpi.cmake), the native engine (strategies/core/
# engine_native.cc) only in the others (gradsync_optional_sources).
macro(gradsync_smpi_sources var)
  gradsync_optional_sources(${var} smpi "${GRADSYNC_WITH_SMPI}" "core/engine_native\\.cc")
endmacro()
