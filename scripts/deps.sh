#!/usr/bin/env bash
# Make sure the tools the build and tests need are present. On Debian as root, install what is
# missing with apt-get; otherwise print the exact command to run. CUDA is optional: without nvcc the
# CUDA back end is simply not built (its tests skip).
set -euo pipefail

missing=()
need() { # need COMMAND PACKAGE
  command -v "$1" >/dev/null 2>&1 || missing+=("$2")
}
need cmake cmake
need make make
need cc gcc
need pkg-config pkg-config
need python3 python3
need git git
# A C library's headers (stdio.h) come with libc6-dev, which gcc pulls in; check anyway.
if command -v cc >/dev/null 2>&1 && ! printf '#include <stdio.h>\nint main(void){return 0;}\n' |
  cc -x c - -o /dev/null >/dev/null 2>&1; then
  missing+=(libc6-dev)
fi

# libpng's headers, for the applications' PNG snapshots (optional for the library itself).
if command -v cc >/dev/null 2>&1 && ! printf '#include <png.h>\nint main(void){return 0;}\n' |
  cc -x c - -o /dev/null >/dev/null 2>&1; then
  missing+=(libpng-dev)
fi

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
pkgs=$(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "deps: installing ${pkgs}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends ${pkgs}
else
  echo "deps: missing packages: ${pkgs}" >&2
  echo "deps: install them with:  sudo apt-get install -y ${pkgs}" >&2
  exit 1
fi
