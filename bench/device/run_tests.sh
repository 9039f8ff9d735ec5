#!/bin/bash
# Runs Kiln's conformance checks (meson's suite "cl" and piglit's OpenCL
# profile) from what bench/device/pack_tests.sh packed, on a machine with
# neither (the device machine).  Unpacks build-carry/t/t.tar.xz and
# build-carry/k/k.tar.xz under /tmp (once), then runs run_tests.py.
#
#   bash build-carry/t/run_tests.sh [--devices cuda|cpu|...] [--out DIR]
#        [--tar-logs] [-j N] [--timeout S] [--only kiln|piglit] [--filter RE]
#        [--carry DIR] [--kiln-lib LIB]
#
# --carry DIR   where t/ and k/ are (default: build-carry/ of the repository
#               this script is in, or the folder above it when it is the
#               copy in build-carry/t/)
# --kiln-lib    a libKilnOpenCL.so.1 to test instead of k/k.tar.xz's
# The rest go to run_tests.py (its docstring): --devices (default cuda),
# --out (default /tmp/kiln-tests-out), --tar-logs (logs only as one
# logs.tar.xz: the device tool brings back 8 files from $OUT).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ -f "$here/t.tar.xz" ]; then carry=$(cd "$here/.." && pwd)
else carry=$(cd "$here/../.." && pwd)/build-carry
fi
lib=
args=()
while [ $# -gt 0 ]; do
   case $1 in
   --carry) carry=$2; shift 2 ;;
   --kiln-lib) lib=$2; shift 2 ;;
   *) args+=("$1"); shift ;;
   esac
done
[ -f "$carry/t/t.tar.xz" ] || { echo "run_tests: no $carry/t/t.tar.xz (bench/device/pack_tests.sh)" >&2; exit 2; }
dest=/tmp/kiln-tests
# Unpacked again whenever the pack changed (a new pack on a warm machine).
stamp=$(stat -c %Y-%s "$carry/t/t.tar.xz")
if [ "$(cat $dest/t.stamp 2>/dev/null)" != "$stamp" ]; then
   rm -rf $dest/t && mkdir -p $dest/t && tar xJf "$carry/t/t.tar.xz" -C $dest/t || exit 2
   echo "$stamp" > $dest/t.stamp
fi
if [ -z "$lib" ]; then
   [ -f "$carry/k/k.tar.xz" ] || { echo "run_tests: no $carry/k/k.tar.xz and no --kiln-lib" >&2; exit 2; }
   stamp=$(stat -c %Y-%s "$carry/k/k.tar.xz")
   if [ "$(cat $dest/k.stamp 2>/dev/null)" != "$stamp" ]; then
      rm -rf $dest/k && mkdir -p $dest/k && tar xJf "$carry/k/k.tar.xz" -C $dest/k || exit 2
      echo "$stamp" > $dest/k.stamp
   fi
   lib=$dest/k/kcarry/lib/libKilnOpenCL.so.1
   # The CUDA device compiles with libclc's nvptx64 library, which it reads
   # from /usr/lib/clc (the device machine has no libclc; run.sh does the
   # same); never replace one that is there.
   bc=$dest/k/kcarry/clc/nvptx64--nvidiacl.bc
   if [ -f $bc ] && [ ! -f /usr/lib/clc/nvptx64--nvidiacl.bc ]; then
      mkdir -p /usr/lib/clc 2>/dev/null && cp $bc /usr/lib/clc/ 2>/dev/null ||
         echo "run_tests: cannot write /usr/lib/clc: the CUDA device will fail to build kernels" >&2
   fi
fi
py=$(command -v python3 || echo /usr/bin/python3)
exec "$py" $dest/t/tcarry/run_tests.py --root $dest/t/tcarry --kiln-lib "$lib" ${args[@]+"${args[@]}"}
