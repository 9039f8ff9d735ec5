#!/bin/bash
# Packs what kiln_bench needs on a machine without Kiln's or PoCL's
# packages (the workplace's device machine: Ubuntu 24.04, no network) into
# <repo>/build-carry/ (ignored by git through /build*/), under the 64 MiB a
# `run` call may carry:
#   build-carry/k/k.tar.xz     libKilnOpenCL.so.1 (stripped; the full build:
#                              CPU, AMD and CUDA drivers, LLVM linked in) and
#                              libclc's nvptx64--nvidiacl.bc, which the CUDA
#                              driver's compiler reads from /usr/lib/clc
#   build-carry/p/p.tar.xz     Debian 12's PoCL 3.1 with libLLVM-15 and
#                              libclang-cpp15; libxml2/libz3 replaced by stubs
#   build-carry/common/        kiln_bench, read_pattern, ocl-icd's libOpenCL.so.1, run.sh
# usage: bench/device/pack.sh BUILDDIR
# then, on the device machine (run tool, carry ["build-carry"]):
#   bash build-carry/common/run.sh --runs 9             Kiln and PoCL, CPUs
#   bash build-carry/common/run.sh --nvidia --runs 5    Kiln and NVIDIA, GPUs
set -eu
B=$(cd "${1:?usage: pack.sh BUILDDIR}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
OUT=$REPO/build-carry
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
L=/usr/lib/x86_64-linux-gnu
rm -rf "$OUT" && mkdir -p "$OUT/common" "$OUT/k" "$OUT/p"

bash "$HERE/pack_kiln.sh" "$B" "$OUT/k/k.tar.xz"

P=$T/pcarry/lib/x86_64-linux-gnu
mkdir -p "$P/pocl" "$T/pcarry/share"
for f in libpocl.so.2 libLLVM-15.so.1 libclang-cpp.so.15 libhwloc.so.15 libffi.so.8 \
         libedit.so.2 libtinfo.so.6 libbsd.so.0 libmd.so.0 liblzma.so.5 libudev.so.1; do
   cp -L "$L/$f" "$P/"
done
cp "$L"/pocl/*.so "$P/pocl/"
cp -r /usr/share/pocl "$T/pcarry/share/"   # PoCL finds it next to libpocl: lib/../../share
rm -f "$T"/pcarry/share/pocl/kernel-x86_64-pc-linux-gnu-{avx,avx_f16c,avx_fma4,sse2,sse41,ssse3}.bc
# LLVM 15 names libxml2 (Windows manifests) and libz3 (the static
# analyzer); neither is reached by an OpenCL build, and their real copies
# (with ICU) would not fit.  Functions bind lazily; xmlFree is the one data
# symbol bound at load.
echo 'void *xmlFree = 0;' > "$T/xml.c"
printf 'LIBXML2_2.4.30 { global: xmlFree; local: *; };\nLIBXML2_2.6.0 { } LIBXML2_2.4.30;\n' > "$T/xml.map"
gcc -shared -fPIC -o "$P/libxml2.so.2" -Wl,-soname,libxml2.so.2 -Wl,--version-script="$T/xml.map" "$T/xml.c"
echo '' > "$T/z3.c"
gcc -shared -fPIC -o "$P/libz3.so.4" -Wl,-soname,libz3.so.4 "$T/z3.c"
tar cf - -C "$T" pcarry | xz -9 -T0 > "$OUT/p/p.tar.xz"

cp "$B/bench/kiln_bench" "$OUT/common/" && strip "$OUT/common/kiln_bench"
# read_pattern (no OpenCL) and bench/jam_prefetch_rounds.sh, which runs it
# with kiln_bench (issue 19).
cp "$B/bench/read_pattern" "$OUT/common/" && strip "$OUT/common/read_pattern"
cp -L "$L/libOpenCL.so.1" "$OUT/common/"
cp "$HERE/run.sh" "$OUT/common/"
du -sh "$OUT"/*
TOTAL=$(du -sb "$OUT" | cut -f1)
echo "build-carry: $((TOTAL / 1024 / 1024)) MiB (a run call carries 64 MiB with the working tree)"
[ "$TOTAL" -lt $((60 * 1024 * 1024)) ] || echo "pack.sh: warning: build-carry is near or over the limit" >&2
