# Finds nvcc, the CUDA runtime, cuBLAS and cuDNN, and builds
# libdlcbench-cuda.so beside the dlcbench binary. Sets DLCBENCH_HAVE_CUDA on
# dlcbench_lib when it does; when it does not, DLCBENCH_CUDA_NOT_BUILT says
# what is missing (in the configure log and in dlcbench's own messages).
if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
  set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
endif()
include(CheckLanguage)
check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER)
  set(DLCBENCH_CUDA_NOT_BUILT "no nvcc was found when it was built: install the CUDA toolkit 13 with cuBLAS and cuDNN 9 under /usr/local/cuda and rebuild (scripts/build.sh)")
  return()
endif()
# sm_90 (H100, H200) machine code and its PTX, which newer GPUs compile at
# load time. -DCMAKE_CUDA_ARCHITECTURES=80 (A100) or native for others.
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES 90)
endif()
enable_language(CUDA)
# CMake 3.25 does not know nvcc's C++20 flag; the .cu files hold kernels only.
set(CMAKE_CUDA_STANDARD 17)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
if(CCACHE_PROGRAM)
  set(CMAKE_CUDA_COMPILER_LAUNCHER ${CCACHE_PROGRAM})
endif()
find_package(CUDAToolkit REQUIRED)
find_path(CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
find_library(CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}/lib)
if(NOT CUDNN_INCLUDE_DIR OR NOT CUDNN_LIBRARY)
  set(DLCBENCH_CUDA_NOT_BUILT "cuDNN 9 was not found beside the CUDA toolkit when it was built: install it under /usr/local/cuda and rebuild (scripts/build.sh)")
  return()
endif()
message(STATUS "CUDA plugin: CUDA ${CUDAToolkit_VERSION}, cuDNN ${CUDNN_LIBRARY}, architectures ${CMAKE_CUDA_ARCHITECTURES}")

add_library(dlcbench_cuda MODULE
  src/backends/cuda/plugin.cpp
  src/backends/cuda/cuda_check.cpp
  src/backends/cuda/gpu_probe.cpp
  src/backends/cuda/gpu_gemm.cpp
  src/backends/cuda/gpu_copy.cpp
  src/backends/cuda/gpu_context.cpp
  src/backends/cuda/blas.cpp
  src/backends/cuda/descriptors.cpp
  src/backends/cuda/device_parameters.cpp
  src/backends/cuda/linear.cpp
  src/backends/cuda/convolution.cpp
  src/backends/cuda/batch_norm.cpp
  src/backends/cuda/pooling.cpp
  src/backends/cuda/embedding.cpp
  src/backends/cuda/lstm.cpp
  src/backends/cuda/networks.cpp
  src/backends/cuda/optimizer.cpp
  src/backends/cuda/kernels.cu
  src/backends/cuda/cuda_backend.cpp
  $<TARGET_OBJECTS:dlcbench_models>
)
set_target_properties(dlcbench_cuda PROPERTIES
  OUTPUT_NAME dlcbench-cuda
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}
  CXX_VISIBILITY_PRESET hidden
  CUDA_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON)
target_include_directories(dlcbench_cuda PRIVATE src)
target_include_directories(dlcbench_cuda SYSTEM PRIVATE ${CUDNN_INCLUDE_DIR} ${CUDAToolkit_INCLUDE_DIRS})
target_compile_options(dlcbench_cuda PRIVATE
  $<$<COMPILE_LANGUAGE:CXX>:${DLCBENCH_WARNINGS}>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --expt-relaxed-constexpr>)
if(DLCBENCH_WERROR)
  target_compile_options(dlcbench_cuda PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings>)
endif()
# Every symbol resolved at link time: a missing one fails the build, not a
# worker on a GPU machine.
target_link_options(dlcbench_cuda PRIVATE -Wl,--no-undefined)
target_link_libraries(dlcbench_cuda PRIVATE
  CUDA::cudart CUDA::cublas CUDA::cublasLt ${CUDNN_LIBRARY} nlohmann_json::nlohmann_json fmt::fmt ${CMAKE_DL_LIBS})
math(EXPR DLCBENCH_CUDA_RUNTIME_VERSION "${CUDAToolkit_VERSION_MAJOR} * 1000 + ${CUDAToolkit_VERSION_MINOR} * 10")
target_compile_definitions(dlcbench_lib PUBLIC DLCBENCH_HAVE_CUDA=1
  DLCBENCH_CUDA_RUNTIME_VERSION=${DLCBENCH_CUDA_RUNTIME_VERSION}
  DLCBENCH_CUDA_PLUGIN_BUILD_PATH="$<TARGET_FILE:dlcbench_cuda>")
add_dependencies(dlcbench_lib dlcbench_cuda)
