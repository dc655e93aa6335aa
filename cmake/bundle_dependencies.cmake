# The libraries dlcbench builds with, from the folder scripts/gpu-bundle.sh
# makes (DLCBENCH_BUNDLE): headers, and static libraries that need nothing at
# run time, for a machine with a compiler, CMake and the CUDA toolkit but no
# development packages and no network. The same targets as
# cmake/system_dependencies.cmake, so the rest of the build does not know
# which it got.
set(bundle "${DLCBENCH_BUNDLE}")
if(NOT EXISTS "${bundle}/bundle.txt")
  message(FATAL_ERROR "DLCBENCH_BUNDLE=${bundle} is not a folder made by scripts/gpu-bundle.sh (no bundle.txt in it): "
                      "run scripts/gpu-bundle.sh here, carry the folder it writes, and point DLCBENCH_BUNDLE at it")
endif()
set(bundle_include "${bundle}/include")

function(dlcbench_bundle_library target)
  cmake_parse_arguments(ARG "" "" "FILES;DEFINES;LINK" ${ARGN})
  set(paths "")
  foreach(file IN LISTS ARG_FILES)
    if(NOT EXISTS "${bundle}/lib/${file}")
      message(FATAL_ERROR "the bundle ${bundle} has no lib/${file}: make it again with scripts/gpu-bundle.sh")
    endif()
    list(APPEND paths "${bundle}/lib/${file}")
  endforeach()
  add_library(${target} INTERFACE IMPORTED GLOBAL)
  # SYSTEM: warnings in the bundled headers are not ours.
  set_target_properties(${target} PROPERTIES INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${bundle_include}"
                                             INTERFACE_INCLUDE_DIRECTORIES "${bundle_include}")
  if(paths OR ARG_LINK)
    set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${paths};${ARG_LINK}")
  endif()
  if(ARG_DEFINES)
    set_target_properties(${target} PROPERTIES INTERFACE_COMPILE_DEFINITIONS "${ARG_DEFINES}")
  endif()
endfunction()

# Header-only: CLI11, nlohmann-json, fmt (FMT_HEADER_ONLY: no libfmt to
# carry), the Boost.Math headers the statistics use.
dlcbench_bundle_library(CLI11::CLI11)
dlcbench_bundle_library(nlohmann_json::nlohmann_json)
dlcbench_bundle_library(fmt::fmt DEFINES FMT_HEADER_ONLY=1)
dlcbench_bundle_library(Boost::headers)
# Static: OpenSSL's libcrypto (SHA-256 of data files and binaries), OpenBLAS
# with the Fortran run time its LAPACK part needs, GoogleTest.
dlcbench_bundle_library(OpenSSL::Crypto FILES libcrypto.a LINK ${CMAKE_DL_LIBS} Threads::Threads)
dlcbench_bundle_library(dlcbench_blas FILES libopenblas.a libgfortran.a libquadmath.a LINK m Threads::Threads)
# The fingerprint asks OpenBLAS who it is through dlsym (it must not assume
# which BLAS the loader gave it): from a static library those functions are
# linked only if asked for, and visible to dlsym only if exported.
foreach(function openblas_get_corename openblas_get_config openblas_get_num_threads openblas_get_parallel)
  set_property(TARGET dlcbench_blas APPEND PROPERTY INTERFACE_LINK_OPTIONS
               "LINKER:--undefined=${function}" "LINKER:--export-dynamic-symbol=${function}")
endforeach()
dlcbench_bundle_library(GTest::gtest FILES libgtest.a LINK Threads::Threads)
dlcbench_bundle_library(GTest::gmock FILES libgmock.a LINK GTest::gtest)
dlcbench_bundle_library(GTest::gtest_main FILES libgtest_main.a LINK GTest::gtest)
file(READ "${bundle}/bundle.txt" bundle_description)
string(REGEX MATCH "^[^\n]*" bundle_first_line "${bundle_description}")
message(STATUS "Dependencies: from the bundle ${bundle} (${bundle_first_line})")
