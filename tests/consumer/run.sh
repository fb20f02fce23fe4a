#!/usr/bin/env bash
# Install the build into a scratch prefix, then build a consumer through CMake's find_package and
# through pkg-config, and run both. Usage: run.sh BUILD_DIR SOURCE_DIR SCRATCH_DIR
set -euo pipefail
build=$1 src=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log"

echo "--- the installed command-line program runs from its prefix"
"$prefix/bin/gpusolve" version

echo "--- consumer through find_package(gpusolve)"
cmake -S "$src/tests/consumer" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure.log"
cmake --build "$work/cmake" >"$work/build.log"
"$work/cmake/consumer"

echo "--- consumer through pkg-config gpusolve"
libdir=$(dirname "$(find "$prefix" -name gpusolve.pc | head -1)")/..
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig:$libdir/pkgconfig
flags=$(pkg-config --cflags --libs gpusolve)
echo "pkg-config: $flags"
# shellcheck disable=SC2086
cc -std=c11 -Wall -Werror "$src/tests/consumer/main.c" -o "$work/consumer-pc" $flags \
  -Wl,-rpath,"$(pkg-config --variable=libdir gpusolve)"
"$work/consumer-pc"
