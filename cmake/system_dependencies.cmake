# The libraries dlcbench builds with, from the system's packages (Debian 12:
# scripts/install-deps.sh). cmake/bundle_dependencies.cmake makes the same
# targets from a folder carried to a machine without them.
find_package(CLI11 REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(fmt REQUIRED)
find_package(OpenSSL REQUIRED COMPONENTS Crypto)
find_package(Boost 1.74 REQUIRED)
# cblas and LAPACK's Fortran entry points (dgetrf_), straight from OpenBLAS.
find_package(PkgConfig REQUIRED)
pkg_check_modules(OPENBLAS REQUIRED IMPORTED_TARGET openblas)
add_library(dlcbench_blas INTERFACE)
target_link_libraries(dlcbench_blas INTERFACE PkgConfig::OPENBLAS)
