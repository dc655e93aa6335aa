#!/usr/bin/env bash
# Makes the folder a bare GPU machine builds dlcbench from (no development
# packages, no network there: scripts/gpu-check.sh): the headers of the
# header-only libraries (CLI11, nlohmann-json, fmt, the Boost.Math headers
# the statistics include), OpenSSL's libcrypto, OpenBLAS with the Fortran run
# time its LAPACK part needs, and GoogleTest, as headers and static
# libraries taken from this Debian 12 machine's packages
# (scripts/install-deps.sh installs them). LibTorch, oneDNN and CUDA are not
# in it: the GPU machine has its own CUDA, and the torch back end builds
# there only against a LibTorch it finds.
#
# The folder is packed into one archive, since OpenBLAS's static library
# alone is 58 MB: gpu-bundle.tar.gz, which must stay under the 64 MiB that
# can be carried to that machine together with the repository.
#
#   scripts/gpu-bundle.sh [ARCHIVE]      (default: gpu-bundle.tar.gz)
#
# The machine's compiler only has to read these headers and link these
# archives: any GCC from 12 on (they are GCC 12's), glibc 2.36 or later.
set -euo pipefail
cd "$(dirname "$0")/.."
archive=$(realpath -m "${1:-gpu-bundle.tar.gz}")
# 64 MiB travel to the GPU machine, the repository's own files included.
repository=$(git ls-files -z | du -cb --files0-from=- | tail -1 | cut -f1)
limit=$((64 * 1048576 - repository))
arch=$(gcc -print-multiarch)
work=$(mktemp -d "${TMPDIR:-/tmp}/dlcbench-bundle.XXXXXX")
trap 'rm -rf "$work"' EXIT
bundle=$work/gpu-bundle
mkdir -p "$bundle/include" "$bundle/lib"

need() {  # FILE PACKAGE
  [ -e "$1" ] || { echo "gpu-bundle: $1 is missing: install $2 (scripts/install-deps.sh installs it)" >&2; exit 1; }
}

# Header-only libraries, whole.
for pair in nlohmann:nlohmann-json3-dev CLI:libcli11-dev fmt:libfmt-dev gtest:libgtest-dev gmock:libgmock-dev; do
  folder=${pair%%:*}
  need "/usr/include/$folder" "${pair#*:}"
  cp -r "/usr/include/$folder" "$bundle/include/"
done

# Boost and OpenSSL: only the headers dlcbench's includes reach (Boost is
# 160 MB in all), found by the compiler itself.
need /usr/include/boost/math libboost-math-dev
need /usr/include/openssl/evp.h libssl-dev
need "/usr/include/$arch/openblas-pthread/cblas.h" libopenblas-pthread-dev
printf '#include <boost/math/distributions/normal.hpp>\n#include <boost/math/distributions/students_t.hpp>\n#include <openssl/evp.h>\n' |
  g++ -std=c++20 -M -x c++ - -o "$work/deps"
tr ' \\' '\n\n' <"$work/deps" | grep -E "^/usr/include/(boost|openssl|$arch/openssl)/" | sort -u |
  while read -r header; do
    relative=${header#/usr/include/}
    relative=${relative#"$arch"/}  # the arch-specific openssl/configuration.h beside the rest
    mkdir -p "$bundle/include/$(dirname "$relative")"
    cp "$header" "$bundle/include/$relative"
  done
cp "/usr/include/$arch/openblas-pthread/"*.h "$bundle/include/"

# Static libraries.
gcc_lib=$(dirname "$(gcc -print-libgcc-file-name)")
need "/usr/lib/$arch/libcrypto.a" libssl-dev
need "/usr/lib/$arch/openblas-pthread/libopenblas.a" libopenblas-pthread-dev
need "$gcc_lib/libgfortran.a" gfortran
need "/usr/lib/$arch/libgtest.a" libgtest-dev
cp "/usr/lib/$arch/libcrypto.a" "$bundle/lib/"
cp -L "/usr/lib/$arch/openblas-pthread/libopenblas.a" "$bundle/lib/"
cp "$gcc_lib/libgfortran.a" "$gcc_lib/libquadmath.a" "$bundle/lib/"
cp "/usr/lib/$arch/"{libgtest.a,libgtest_main.a,libgmock.a} "$bundle/lib/"

# What it was made from: the first line is what CMake prints.
packages="nlohmann-json3-dev libcli11-dev libfmt-dev libgtest-dev libgmock-dev libboost1.74-dev libssl-dev
          libopenblas-pthread-dev libgfortran-12-dev"
{
  echo "made $(date -u +%Y-%m-%d) on $(. /etc/os-release; echo "$PRETTY_NAME") with $(gcc -dumpfullversion)"
  # shellcheck disable=SC2086  # a list of package names
  dpkg-query -W -f '${Package} ${Version}\n' $packages
} >"$bundle/bundle.txt"

tar -C "$work" -czf "$archive" gpu-bundle
size=$(stat -c %s "$archive")
unpacked=$(du -sb "$bundle" | cut -f1)
echo "gpu-bundle: $archive: $((size / 1048576)) MiB ($((unpacked / 1048576)) MiB unpacked)"
if [ "$size" -ge "$limit" ]; then
  echo "gpu-bundle: $archive is over the $((limit / 1048576)) MiB that can be carried to the GPU machine beside" \
    "the repository's $((repository / 1048576)) MiB (64 MiB in all)" >&2
  exit 1
fi
