#!/bin/bash
# Runs kiln_bench on a machine without Kiln's or PoCL's packages, from
# what bench/device/pack.sh put in build-carry/ (it is copied there as
# build-carry/common/run.sh).
# usage: bash build-carry/common/run.sh [--nvidia] [kiln_bench options]
#   (default)  Kiln and the carried PoCL, CPU devices (kiln_bench --device cpu)
#   --nvidia   Kiln and the machine's own NVIDIA OpenCL (libnvidia-opencl.so.1),
#              GPUs (kiln_bench --device gpu)
#
# Which drivers the benchmark sees: the carried loader is Debian's ocl-icd,
# put first on LD_LIBRARY_PATH; it reads only OCL_ICD_VENDORS (it ignores
# OCL_ICD_FILENAMES), so the drivers meant are the .icd files of a private
# vendors folder.  The device machine presets OCL_ICD_FILENAMES to its own
# PoCL and NVIDIA libraries, which the Khronos loader would add to any
# vendors folder: it is set here to exactly the same drivers, so whichever
# loader binds, no other driver comes in (kiln_bench skips a driver that a
# loader lists twice).
set -u
MODE=cpu
if [ "${1:-}" = --nvidia ]; then
   MODE=nvidia
   shift
fi
C=$(cd "$(dirname "$0")" && pwd)
R=$(cd "$C/.." && pwd)
echo "== machine ($MODE mode)"
nproc; lscpu | grep -E "Model name|^CPU\(s\)|Thread\(s\) per|Socket\(s\)|NUMA node\(s\)|L3|Flags" | cut -c1-200
head -2 /etc/os-release; ldd --version | head -1; free -g | head -2
echo "preset: OCL_ICD_FILENAMES=${OCL_ICD_FILENAMES-<unset>} OCL_ICD_VENDORS=${OCL_ICD_VENDORS-<unset>}"
mkdir -p /tmp/common
cp "$C/kiln_bench" "$C/libOpenCL.so.1" /tmp/common/

# Kiln: unpacked again whenever the carried archive changed (a warm
# machine keeps /tmp between calls).
if [ -f "$R/k/k.tar.xz" ] && ! cmp -s "$R/k/k.tar.xz" /tmp/k/k.tar.xz; then
   rm -rf /tmp/k && mkdir -p /tmp/k && tar xJf "$R/k/k.tar.xz" -C /tmp/k &&
      cp "$R/k/k.tar.xz" /tmp/k/
fi
K=/tmp/k/kcarry/lib/libKilnOpenCL.so.1
VEND=/tmp/vend-$MODE
rm -rf "$VEND" && mkdir -p "$VEND"
ICDS=()
if [ -f $K ]; then
   echo $K > "$VEND/kiln.icd"
   ICDS+=("$K")
else
   echo "== no carried Kiln ($R/k/k.tar.xz): run bench/device/pack.sh BUILDDIR first"
fi
EXTRA_LD=/tmp/common

if [ $MODE = cpu ]; then
   ldconfig -p | grep -E "libOpenCL|libhwloc|libffi|libedit|libtinfo|libbsd|libmd\.|liblzma|libudev|libxml2|libz3" | cut -c1-120
   if [ -f "$R/p/p.tar.xz" ] && [ ! -d /tmp/p/pcarry ]; then mkdir -p /tmp/p; tar xJf "$R/p/p.tar.xz" -C /tmp/p; fi
   PL=/tmp/p/pcarry/lib/x86_64-linux-gnu
   if [ -d $PL ]; then
      # Prefer the machine's own copies of ordinary libraries.
      for f in libhwloc.so.15 libffi.so.8 libedit.so.2 libtinfo.so.6 libbsd.so.0 libmd.so.0 liblzma.so.5 libudev.so.1; do
         if ldconfig -p | grep -q "^\s*$f "; then rm -f $PL/$f; echo "using the machine's $f"; fi
      done
      echo $PL/libpocl.so.2 > "$VEND/pocl.icd"
      ICDS+=("$PL/libpocl.so.2")
      EXTRA_LD=$EXTRA_LD:$PL
   else
      # No carried PoCL: the machine's own, where its preset names one.
      IFS=: read -r -a PRESET <<< "${OCL_ICD_FILENAMES-}"
      for f in "${PRESET[@]}"; do
         # A bare name (the device machine presets libpocl.so.2) is the
         # linker cache's.
         case "$f" in */*) ;; *) f=$(ldconfig -p | awk -v n="$f" '$1 == n && /x86-64/ { print $NF; exit }') ;; esac
         case "$f" in *libpocl.so*) [ -f "$f" ] && echo "$f" > "$VEND/pocl.icd" && ICDS+=("$f") && break ;; esac
      done
      [ -f "$VEND/pocl.icd" ] && echo "== the machine's PoCL: $(cat "$VEND/pocl.icd")" ||
         echo "== no carried PoCL ($R/p/p.tar.xz) and none preset: Kiln alone"
   fi
   DEVICE=cpu
else
   if command -v nvidia-smi >/dev/null; then nvidia-smi -L 2>&1 | head -8; else echo "== no nvidia-smi"; fi
   ldconfig -p | grep -E "libcuda\.so|libnvidia-opencl" | cut -c1-160
   # Kiln's CUDA device compiles with libclc's nvptx64 library, which it
   # reads from /usr/lib/clc (the build's libclc_dir); this machine has no
   # libclc.  Never replace one that is there.
   BC=/tmp/k/kcarry/clc/nvptx64--nvidiacl.bc
   if [ -f $BC ] && [ ! -f /usr/lib/clc/nvptx64--nvidiacl.bc ]; then
      mkdir -p /usr/lib/clc 2>/dev/null && cp $BC /usr/lib/clc/ 2>/dev/null ||
         echo "== cannot write /usr/lib/clc: Kiln's CUDA device will fail to build kernels"
   fi
   ldconfig -p | grep -q "libcuda\.so\.1 " ||
      echo "== no libcuda.so.1 in ldconfig -p: Kiln's CUDA device cannot appear"
   NV=$(ldconfig -p | awk '$1 == "libnvidia-opencl.so.1" && /x86-64/ { print $NF; exit }')
   if [ -z "$NV" ]; then
      # Not in the linker cache: look where the machine's preset points.
      IFS=: read -r -a PRESET <<< "${OCL_ICD_FILENAMES-}"
      for f in "${PRESET[@]}"; do
         case "$f" in *libnvidia-opencl.so*) [ -f "$f" ] && NV=$f && break ;; esac
      done
   fi
   if [ -n "$NV" ]; then
      echo "$NV" > "$VEND/nvidia.icd"
      ICDS+=("$NV")
   else
      echo "== no libnvidia-opencl.so.1 (ldconfig -p, OCL_ICD_FILENAMES): NVIDIA's OpenCL is not here; Kiln alone"
   fi
   DEVICE=gpu
fi

export OCL_ICD_VENDORS=$VEND
OCL_ICD_FILENAMES=$(IFS=:; echo "${ICDS[*]}")
export OCL_ICD_FILENAMES
export LD_LIBRARY_PATH=$EXTRA_LD${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
echo "== vendors: $(cd "$VEND" && ls)  OCL_ICD_VENDORS=$OCL_ICD_VENDORS"
echo "== OCL_ICD_FILENAMES=$OCL_ICD_FILENAMES"
echo "== loader: $(ldd /tmp/common/kiln_bench | grep libOpenCL)"
echo "== command: kiln_bench --device $DEVICE $*"
/tmp/common/kiln_bench --device $DEVICE "$@"
rc=$?
echo "== exit $rc"
exit $rc
