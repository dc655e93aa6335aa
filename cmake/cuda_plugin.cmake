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
# Debian 12's CMake 3.25.1 marks CUDA::nvToolsExt deprecated without
# checking that the target exists, and CUDA 13 has no libnvToolsExt: an
# empty stand-in lets FindCUDAToolkit finish (dlcbench does not use NVTX).
if(CMAKE_VERSION VERSION_LESS 3.25.2 AND NOT TARGET CUDA::nvToolsExt)
  add_library(CUDA::nvToolsExt INTERFACE IMPORTED)
endif()
find_package(CUDAToolkit REQUIRED)

# cuBLAS and cuDNN: beside the toolkit (NVIDIA's packages, a tarball), or in
# the folders of NVIDIA's Python wheels (site-packages/nvidia/cublas,
# .../nvidia/cudnn: include/ and lib/ with only the versioned libcudnn.so.9),
# as on a machine whose CUDA libraries came with PyTorch. CUDNN_ROOT and
# CUBLAS_ROOT name such a folder; else the Python on the PATH is asked where
# its wheels are.
set(CUDNN_ROOT "" CACHE PATH "A folder with cuDNN 9's include/ and lib/ (a wheel's site-packages/nvidia/cudnn)")
set(CUBLAS_ROOT "" CACHE PATH "A folder with cuBLAS's include/ and lib/ (a wheel's site-packages/nvidia/cublas)")
function(dlcbench_wheel_folder package out)
  find_program(DLCBENCH_PYTHON3 NAMES python3)
  if(DLCBENCH_PYTHON3)
    # nvidia is a namespace package: its folders are in __path__.
    execute_process(COMMAND ${DLCBENCH_PYTHON3} -c
                            "import nvidia.${package} as m; print(list(m.__path__)[0])"
                    OUTPUT_VARIABLE folder OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE failed)
    if(NOT failed AND IS_DIRECTORY "${folder}")
      set(${out} "${folder}" PARENT_SCOPE)
    endif()
  endif()
endfunction()
if(NOT CUDNN_ROOT)
  dlcbench_wheel_folder(cudnn CUDNN_WHEEL)
endif()
if(NOT CUBLAS_ROOT)
  dlcbench_wheel_folder(cublas CUBLAS_WHEEL)
endif()
# A folder named by the user first, then the toolkit's, then a wheel's.
set(cublas_hints ${CUBLAS_ROOT} ${CUDAToolkit_LIBRARY_ROOT} ${CUBLAS_WHEEL})
find_path(CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDNN_ROOT} ${CUDAToolkit_INCLUDE_DIRS} ${CUDAToolkit_LIBRARY_ROOT}
          PATHS ${CUDNN_WHEEL} PATH_SUFFIXES include)
find_library(CUDNN_LIBRARY NAMES cudnn libcudnn.so.9 HINTS ${CUDNN_ROOT} ${CUDAToolkit_LIBRARY_DIR}
             ${CUDAToolkit_LIBRARY_ROOT} PATHS ${CUDNN_WHEEL} PATH_SUFFIXES lib lib64)
if(NOT CUDNN_INCLUDE_DIR OR NOT CUDNN_LIBRARY)
  set(DLCBENCH_CUDA_NOT_BUILT "cuDNN 9 was not found beside the CUDA toolkit or in a Python wheel's nvidia/cudnn when it was built: install it under /usr/local/cuda (or pip install nvidia-cudnn-cu13, or -DCUDNN_ROOT=FOLDER) and rebuild (scripts/build.sh)")
  return()
endif()
if(TARGET CUDA::cublas AND TARGET CUDA::cublasLt AND NOT CUBLAS_ROOT)
  set(DLCBENCH_CUBLAS CUDA::cublas CUDA::cublasLt)
  set(DLCBENCH_CUBLAS_INCLUDE "")
else()
  find_path(DLCBENCH_CUBLAS_INCLUDE cublas_v2.h PATHS ${cublas_hints} PATH_SUFFIXES include NO_DEFAULT_PATH)
  find_library(DLCBENCH_CUBLAS_LIBRARY NAMES cublas libcublas.so.${CUDAToolkit_VERSION_MAJOR}
               PATHS ${cublas_hints} PATH_SUFFIXES lib lib64 NO_DEFAULT_PATH)
  find_library(DLCBENCH_CUBLASLT_LIBRARY NAMES cublasLt libcublasLt.so.${CUDAToolkit_VERSION_MAJOR}
               PATHS ${cublas_hints} PATH_SUFFIXES lib lib64 NO_DEFAULT_PATH)
  if(NOT DLCBENCH_CUBLAS_INCLUDE OR NOT DLCBENCH_CUBLAS_LIBRARY OR NOT DLCBENCH_CUBLASLT_LIBRARY)
    set(DLCBENCH_CUDA_NOT_BUILT "cuBLAS was not found beside the CUDA toolkit or in a Python wheel's nvidia/cublas when it was built: install it with the toolkit (or -DCUBLAS_ROOT=FOLDER) and rebuild (scripts/build.sh)")
    return()
  endif()
  set(DLCBENCH_CUBLAS ${DLCBENCH_CUBLAS_LIBRARY} ${DLCBENCH_CUBLASLT_LIBRARY})
endif()
message(STATUS "CUDA plugin: CUDA ${CUDAToolkit_VERSION}, cuBLAS ${DLCBENCH_CUBLAS}, cuDNN ${CUDNN_LIBRARY}, architectures ${CMAKE_CUDA_ARCHITECTURES}")

add_library(dlcbench_cuda MODULE
  src/backends/cuda/plugin.cpp
  src/backends/cuda/cuda_check.cpp
  src/backends/cuda/gpu_probe.cpp
  src/backends/cuda/nvml_facts.cpp
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
target_include_directories(dlcbench_cuda SYSTEM PRIVATE ${CUDNN_INCLUDE_DIR} ${DLCBENCH_CUBLAS_INCLUDE} ${CUDAToolkit_INCLUDE_DIRS})
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
  CUDA::cudart ${DLCBENCH_CUBLAS} ${CUDNN_LIBRARY} nlohmann_json::nlohmann_json fmt::fmt ${CMAKE_DL_LIBS})
math(EXPR DLCBENCH_CUDA_RUNTIME_VERSION "${CUDAToolkit_VERSION_MAJOR} * 1000 + ${CUDAToolkit_VERSION_MINOR} * 10")
target_compile_definitions(dlcbench_lib PUBLIC DLCBENCH_HAVE_CUDA=1
  DLCBENCH_CUDA_RUNTIME_VERSION=${DLCBENCH_CUDA_RUNTIME_VERSION}
  DLCBENCH_CUDA_PLUGIN_BUILD_PATH="$<TARGET_FILE:dlcbench_cuda>")
add_dependencies(dlcbench_lib dlcbench_cuda)
