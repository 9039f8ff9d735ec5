#!/bin/bash
# Packs Kiln's own conformance checks for a machine without LLVM, piglit or
# network (the workplace's device machine, Ubuntu 24.04): meson's suite
# "cl" of BUILDDIR and Debian's piglit OpenCL profile, into
#   build-carry/t/t.tar.xz      tcarry/: the tests, their files, the
#                               libraries they need (ocl-icd's loader,
#                               libpiglitutil*, libEGL...), clinfo,
#                               cl_devices, run_tests.py
#   build-carry/t/run_tests.sh  the runner (a copy of bench/device's)
#   build-carry/k/k.tar.xz      the stripped libKilnOpenCL.so.1, in
#                               bench/device/pack.sh's format; made only
#                               when missing or older than BUILDDIR's
# (build-carry/ is ignored by git through /build*/).  Run pack.sh first
# when both are wanted: it empties build-carry/.
# usage: bench/device/pack_tests.sh BUILDDIR
# then, on the device machine (run tool, carry ["build-carry/k", "build-carry/t"]):
#   bash build-carry/t/run_tests.sh --devices cuda --out $OUT/cuda --tar-logs
set -eu
B=$(cd "${1:?usage: pack_tests.sh BUILDDIR}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
OUT=$REPO/build-carry
PIGLIT=/usr/lib/x86_64-linux-gnu/piglit
PY=/usr/bin/python3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
[ -f "$B/src/libKilnOpenCL.so.1" ] || { echo "no $B/src/libKilnOpenCL.so.1: build first" >&2; exit 2; }
[ -d "$PIGLIT/bin" ] || { echo "no $PIGLIT: apt-get install piglit" >&2; exit 2; }
# The source tree meson configured BUILDDIR from (clinfo.sh, check_trace.py).
SRC=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["directories"]["source"])' "$B/meson-info/meson-info.json")
mkdir -p "$OUT/t" "$OUT/k"

# --- Kiln's library (pack.sh's format; left alone when up to date) -----
K=$OUT/k/k.tar.xz
if [ ! -f "$K" ] || [ "$B/src/libKilnOpenCL.so.1" -nt "$K" ]; then
   bash "$HERE/pack_kiln.sh" "$B" "$K"
fi

# --- meson's suite cl ----------------------------------------------------
C=$T/tcarry
mkdir -p "$C/kiln" "$C/piglit/bin" "$C/lib" "$C/bin"
meson introspect "$B" --tests > "$T/tests.json"
$PY "$HERE/pack_manifest.py" kiln "$B" "$SRC" "$T/tests.json" "$C/kiln"

# --- piglit's profile cl -------------------------------------------------
cp "$PIGLIT"/bin/cl-* "$C/piglit/bin/"
(cd "$PIGLIT" && cp -r --parents tests/cl generated_tests/cl "$C/piglit/")
$PY "$HERE/pack_manifest.py" piglit "$PIGLIT" "$C/piglit"

# --- helpers -------------------------------------------------------------
gcc -std=c11 -O1 -Wall -Wextra -Werror -o "$C/bin/cl_devices" "$HERE/cl_devices.c" -lOpenCL
cp /usr/bin/clinfo "$C/bin/"            # tests/cl/clinfo.sh runs it
cp "$HERE/run_tests.py" "$C/"

# --- libraries -----------------------------------------------------------
# Everything the carried programs load, except the C library's own and
# the C++ runtime (the machine's are newer and compatible; an older
# libstdc++ first on the path would break the machine's programs).
# libOpenCL.so.1 is Debian's ocl-icd 2.3.1: it reads OCL_ICD_VENDORS only,
# so the vendors directory the runner makes is all the tests can see.
find "$C" -type f -perm -u+x | while read -r f; do
   file -b "$f" | grep -q '^ELF' || continue
   LD_LIBRARY_PATH=$PIGLIT/lib ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'
   if LD_LIBRARY_PATH=$PIGLIT/lib ldd "$f" | grep -q 'not found'; then
      echo "pack_tests: $f needs a library not found here" >&2
   fi
done | sort -u | while read -r l; do
   case $(basename "$l") in
   libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|ld-linux*|libstdc++.so.*|libgcc_s.so.*) ;;
   *) cp -L "$l" "$C/lib/" ;;
   esac
done
for f in "$C"/kiln/b/tests/cl/*/* "$C"/kiln/b/tests/cl/* "$C"/kiln/b/examples/*; do
   [ -f "$f" ] && [ -x "$f" ] && file -b "$f" | grep -q '^ELF' || continue
   extra=$(ldd "$f" | awk '$2 == "=>" { print $1 }' | grep -Ev '^(libOpenCL|libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s)\.so' || true)
   [ -z "$extra" ] || echo "pack_tests: note: $(basename "$f") also links $extra" >&2
done
strip --strip-unneeded "$C"/lib/*.so* "$C"/bin/* "$C"/piglit/bin/* 2>/dev/null || true

tar cf - -C "$T" tcarry | xz -9 -T0 > "$OUT/t/t.tar.xz"
cp "$HERE/run_tests.sh" "$OUT/t/"
du -sh "$OUT/k/k.tar.xz" "$OUT/t/t.tar.xz"
du -shc "$OUT/k" "$OUT/t" | tail -1
