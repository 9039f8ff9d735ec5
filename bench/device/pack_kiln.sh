#!/bin/bash
# The carried Kiln for the device machine (bench/device/pack.sh and
# pack_tests.sh): DEST (a .tar.xz) gets kcarry/lib/libKilnOpenCL.so.1,
# stripped, and kcarry/clc/nvptx64--nvidiacl.bc, libclc's library for the
# CUDA driver, which reads it from /usr/lib/clc (the machine has no
# libclc: copy it there first).
# usage: bench/device/pack_kiln.sh BUILDDIR DEST
set -eu
B=$(cd "${1:?usage: pack_kiln.sh BUILDDIR DEST}" && pwd)
DEST=${2:?usage: pack_kiln.sh BUILDDIR DEST}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# The GPU runs need the CUDA driver in the carried Kiln: refuse a build
# configured without it (-Ddrivers=...) rather than carry one that shows
# no GPU there.
K=$B/src/libKilnOpenCL.so.1
[ -f "$K" ] || { echo "pack_kiln.sh: $K is missing: ninja -C $1 first" >&2; exit 1; }
python3 - "$B/meson-info/intro-buildoptions.json" <<'PY' || exit 1
import json, sys
opts = {o["name"]: o["value"] for o in json.load(open(sys.argv[1]))}
drivers = opts.get("drivers", [])
if "cuda" not in drivers:
    sys.exit("pack_kiln.sh: the build's drivers are %s: the CUDA driver is missing "
             "(meson configure -Ddrivers=cpu,amdgpu,cuda)" % ",".join(drivers))
PY
grep -aq 'libcuda\.so\.1' "$K" || { echo "pack_kiln.sh: $K does not name libcuda.so.1" >&2; exit 1; }
mkdir -p "$T/kcarry/lib" "$T/kcarry/clc"
cp "$K" "$T/kcarry/lib/libKilnOpenCL.so.1"
strip --strip-unneeded "$T/kcarry/lib/libKilnOpenCL.so.1"
CLC=$(python3 -c 'import json,sys; print({o["name"]: o["value"] for o in json.load(open(sys.argv[1]))}.get("libclc_dir", "/usr/lib/clc"))' "$B/meson-info/intro-buildoptions.json")
if [ -f "$CLC/nvptx64--nvidiacl.bc" ]; then
   cp "$CLC/nvptx64--nvidiacl.bc" "$T/kcarry/clc/"
else
   echo "pack_kiln.sh: warning: no $CLC/nvptx64--nvidiacl.bc: Kiln's CUDA device will not compile there" >&2
fi
tar cf - -C "$T" kcarry | xz -9 -T0 > "$DEST"
