# GRADSYNC_MPI=smpi: the build that runs under SimGrid's SMPI (Debian's
# libsimgrid-dev; scripts/install-deps.sh smpi) instead of a real MPI. The
# same strategy and harness code, compiled against SimGrid's mpi.h and linked
# with libsimgrid: `smpirun` then runs thousands of ranks as simulated
# processes of one host process, on a platform of simulated hosts and links
# (gradsync collectives --engine smpi writes it from a cluster file). Such a
# build configures its own directory (build-smpi/) and builds `gradsync` only:
# - the binary is a shared object that smpirun's loader (smpimain) opens,
#   every object position-independent, as SimGrid's smpicxx would make it;
# - no CUDA, no Gloo, no tests or benchmarks (none of them can run there);
# - GRADSYNC_WITH_SMPI is defined for every library, and the *_smpi.cc files
#   replace the stand-in strategies/core/engine_native.cc
#   (gradsync_smpi_sources): the clock is SimGrid's, reductions are costed,
#   big buffers may be shared between ranks (strategies/core/engine.h).
# We compile with the project's own compiler and SimGrid's headers rather
# than through smpicxx, whose forced include redefines malloc, free and exit
# as macros, which the C++ standard headers do not survive.
find_path(SIMGRID_SMPI_INCLUDE_DIR smpi/smpi.h)
find_library(SIMGRID_LIBRARY simgrid)
find_program(SIMGRID_SMPIRUN smpirun)
if(NOT SIMGRID_SMPI_INCLUDE_DIR OR NOT SIMGRID_LIBRARY OR NOT SIMGRID_SMPIRUN)
  message(FATAL_ERROR "gradsync: GRADSYNC_MPI=smpi needs SimGrid's SMPI (install libsimgrid-dev: "
                      "scripts/install-deps.sh smpi)")
endif()
file(STRINGS "${SIMGRID_SMPI_INCLUDE_DIR}/simgrid/version.h" simgrid_version_line
     REGEX "define SIMGRID_VERSION_STRING")
string(REGEX REPLACE ".*\"(.*)\".*" "\\1" simgrid_version "${simgrid_version_line}")

set(CMAKE_POSITION_INDEPENDENT_CODE ON)
set(GRADSYNC_BUILD_TESTS OFF CACHE BOOL "" FORCE)
set(GRADSYNC_BUILD_BENCH OFF CACHE BOOL "" FORCE)
set(GRADSYNC_CUDA OFF CACHE STRING "" FORCE)
set(GRADSYNC_GLOO OFF CACHE STRING "" FORCE)
set(GRADSYNC_WITH_SMPI ON)

add_library(MPI::MPI_CXX INTERFACE IMPORTED)
set_target_properties(MPI::MPI_CXX PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES "${SIMGRID_SMPI_INCLUDE_DIR}/smpi;${SIMGRID_SMPI_INCLUDE_DIR}"
  INTERFACE_LINK_LIBRARIES "${SIMGRID_LIBRARY}"
  INTERFACE_COMPILE_DEFINITIONS GRADSYNC_WITH_SMPI)

set(GRADSYNC_MPI_FAMILY smpi CACHE INTERNAL "The MPI family the build uses")
set(GRADSYNC_MPIEXEC "${SIMGRID_SMPIRUN}")
set(GRADSYNC_MPI_VERSION_LINE "${simgrid_version}")
