# Decides whether the CUDA parts are built, from GRADSYNC_CUDA:
#   AUTO  build them when the CUDA toolkit (nvcc's), NCCL and cuDNN are all
#         found, else leave them out
#   ON    build them, fail when any is missing
#   OFF   leave them out
# The CUDA parts: the GPU floor (gpu/), the NCCL strategies and device-buffer
# staging (strategies/), the cuDNN/cuBLAS compute backend (models/) and device
# gradients and SGD (harness/). They are plain C++ against the CUDA runtime,
# NCCL, cuDNN and cuBLAS, in files named *_cuda.cc (gradsync_cuda_sources).
# Sets GRADSYNC_WITH_CUDA and, when on, the imported targets gradsync::nccl
# and gradsync::cudnn (CUDA::cudart and CUDA::cublas come from CUDAToolkit).
set(GRADSYNC_WITH_CUDA OFF)
if(NOT GRADSYNC_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  find_package(CUDAToolkit QUIET)
  set(cuda_hints ${CUDAToolkit_LIBRARY_DIR} /usr/local/cuda/lib64 $ENV{CUDNN_HOME}/lib $ENV{NCCL_HOME}/lib)
  set(cuda_include_hints ${CUDAToolkit_INCLUDE_DIRS} /usr/local/cuda/include $ENV{CUDNN_HOME}/include
      $ENV{NCCL_HOME}/include)
  find_library(NCCL_LIBRARY nccl HINTS ${cuda_hints})
  find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${cuda_include_hints})
  find_library(CUDNN_LIBRARY cudnn HINTS ${cuda_hints})
  find_path(CUDNN_INCLUDE_DIR cudnn.h HINTS ${cuda_include_hints})
  if(CUDAToolkit_FOUND AND TARGET CUDA::cublas AND NCCL_LIBRARY AND NCCL_INCLUDE_DIR
     AND CUDNN_LIBRARY AND CUDNN_INCLUDE_DIR)
    set(GRADSYNC_WITH_CUDA ON)
    add_library(gradsync::nccl UNKNOWN IMPORTED)
    set_target_properties(gradsync::nccl PROPERTIES
      IMPORTED_LOCATION ${NCCL_LIBRARY}
      INTERFACE_INCLUDE_DIRECTORIES ${NCCL_INCLUDE_DIR})
    add_library(gradsync::cudnn UNKNOWN IMPORTED)
    set_target_properties(gradsync::cudnn PROPERTIES
      IMPORTED_LOCATION ${CUDNN_LIBRARY}
      INTERFACE_INCLUDE_DIRECTORIES ${CUDNN_INCLUDE_DIR})
    message(STATUS "gradsync: CUDA ${CUDAToolkit_VERSION}, NCCL ${NCCL_LIBRARY}, cuDNN ${CUDNN_LIBRARY}")
  elseif(GRADSYNC_CUDA STREQUAL "ON")
    message(FATAL_ERROR "GRADSYNC_CUDA=ON but not everything was found: CUDA toolkit "
                        "(${CUDAToolkit_FOUND}), NCCL (${NCCL_LIBRARY}), cuDNN (${CUDNN_LIBRARY})")
  endif()
endif()
message(STATUS "gradsync: CUDA/NCCL parts ${GRADSYNC_WITH_CUDA} (GRADSYNC_CUDA=${GRADSYNC_CUDA})")

# gradsync_optional_sources(VAR SUFFIX ENABLED STAND_IN): the one rule every
# library uses to pick its sources from the list in VAR for an optional part
# (CUDA, Gloo): files named *_SUFFIX.cc are compiled only when ENABLED, and
# the part's stand-in (STAND_IN, a path ending such as gpu/absent.cc) only
# when not. Each part names its own stand-in, so that one part's absence
# never drops another's.
function(gradsync_optional_sources var suffix enabled stand_in)
  set(sources ${${var}})
  if(enabled)
    list(FILTER sources EXCLUDE REGEX "/${stand_in}$")
  else()
    list(FILTER sources EXCLUDE REGEX "_${suffix}\\.cc$")
  endif()
  set(${var} ${sources} PARENT_SCOPE)
endfunction()

# gradsync_cuda_sources(VAR): *_cuda.cc only in CUDA builds, gpu/absent.cc
# (the one no-CUDA stand-in) only in others.
macro(gradsync_cuda_sources var)
  gradsync_optional_sources(${var} cuda "${GRADSYNC_WITH_CUDA}" "gpu/absent\\.cc")
endmacro()
