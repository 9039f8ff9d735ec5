#!/bin/bash
# Shared set-up of README's two commands: installs the Debian packages Kiln
# needs (only those missing), then configures and builds Kiln in ./build.
# Usage: source scripts/setup.sh [extra packages...]
# KILN_MESON_ARGS (a shell variable or the environment): extra `meson setup`
# arguments, also applied to an existing ./build; scripts/test.sh (CI) sets
# -Dwerror=true there, so that a warning fails CI while plain builds
# (scripts/run.sh, `meson setup build`) keep warnings as warnings.
set -euo pipefail

KILN_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KILN_BUILD=${KILN_BUILD:-$KILN_ROOT/build}

kiln_packages=(
   meson ninja-build pkg-config gcc g++
   opencl-headers ocl-icd-libopencl1 ocl-icd-opencl-dev clinfo
   llvm-19-dev libclang-19-dev clang-19 libclc-19
   libdrm-dev libcmocka-dev libclang-rt-19-dev
   llvm-spirv-15 spirv-tools
   "$@"
)

kiln_install_missing() {
   local missing=()
   for p in "$@"; do
      dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
         missing+=("$p")
   done
   [ ${#missing[@]} -eq 0 ] && return 0
   echo "kiln: installing ${missing[*]}"
   if [ "$(id -u)" != 0 ]; then
      echo "kiln: run as root (or install these packages first): ${missing[*]}" >&2
      return 1
   fi
   export DEBIAN_FRONTEND=noninteractive
   apt-get install -y --no-install-recommends "${missing[@]}" ||
      { apt-get update && apt-get install -y --no-install-recommends "${missing[@]}"; }
}

kiln_install_missing "${kiln_packages[@]}"

read -r -a kiln_meson_args <<< "${KILN_MESON_ARGS:-}"
if [ ! -f "$KILN_BUILD/build.ninja" ]; then
   meson setup "$KILN_BUILD" "$KILN_ROOT" "${kiln_meson_args[@]}"
elif [ ${#kiln_meson_args[@]} -gt 0 ]; then
   meson configure "$KILN_BUILD" "${kiln_meson_args[@]}"
fi
ninja -C "$KILN_BUILD"

# Registers the freshly built Kiln with the ICD loader for this shell only
# (ocl-icd and the Khronos loader both read a directory here).
export OCL_ICD_VENDORS="$KILN_BUILD/etc/OpenCL/vendors"
