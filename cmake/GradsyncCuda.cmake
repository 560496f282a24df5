# Decides whether the CUDA/NCCL parts are built, from GRADSYNC_CUDA:
#   AUTO  build them when nvcc's toolkit and NCCL are found, else leave them out
#   ON    build them, fail when either is missing
#   OFF   leave them out
# Sets GRADSYNC_WITH_CUDA and, when on, the imported target gradsync::nccl.
set(GRADSYNC_WITH_CUDA OFF)
if(NOT GRADSYNC_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  find_package(CUDAToolkit QUIET)
  find_library(NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} /usr/local/cuda/lib64)
  find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/local/cuda/include)
  if(CUDAToolkit_FOUND AND NCCL_LIBRARY AND NCCL_INCLUDE_DIR)
    set(GRADSYNC_WITH_CUDA ON)
    add_library(gradsync::nccl UNKNOWN IMPORTED)
    set_target_properties(gradsync::nccl PROPERTIES
      IMPORTED_LOCATION ${NCCL_LIBRARY}
      INTERFACE_INCLUDE_DIRECTORIES ${NCCL_INCLUDE_DIR})
  elseif(GRADSYNC_CUDA STREQUAL "ON")
    message(FATAL_ERROR "GRADSYNC_CUDA=ON but the CUDA toolkit (${CUDAToolkit_FOUND}) "
                        "or NCCL (${NCCL_LIBRARY}) was not found")
  endif()
endif()
message(STATUS "gradsync: CUDA/NCCL parts ${GRADSYNC_WITH_CUDA} (GRADSYNC_CUDA=${GRADSYNC_CUDA})")
