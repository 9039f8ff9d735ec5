#!/bin/bash
# Runs kiln_bench on a machine without Kiln's or PoCL's packages, from
# what bench/device/pack.sh put in build-carry/ (it is copied there as
# build-carry/common/run.sh).
# usage: bash build-carry/common/run.sh [kiln_bench options]
set -u
C=$(cd "$(dirname "$0")" && pwd)
R=$(cd "$C/.." && pwd)
echo "== machine"
nproc; lscpu | grep -E "Model name|^CPU\(s\)|Thread\(s\) per|Socket\(s\)|NUMA node\(s\)|L3|Flags" | cut -c1-200
head -2 /etc/os-release; ldd --version | head -1; which ld gcc cc; ls /usr/lib/gcc/x86_64-linux-gnu/ 2>&1; free -g | head -2
ldconfig -p | grep -E "libOpenCL|libhwloc|libffi|libedit|libtinfo|libbsd|libmd\.|liblzma|libudev|libxml2|libz3" | cut -c1-120
mkdir -p /tmp/vend /tmp/common
cp "$C/kiln_bench" "$C/libOpenCL.so.1" /tmp/common/
if [ -f "$R/p/p.tar.xz" ] && [ ! -d /tmp/p/pcarry ]; then mkdir -p /tmp/p; tar xJf "$R/p/p.tar.xz" -C /tmp/p; fi
if [ -f "$R/k/k.tar.xz" ] && [ ! -d /tmp/k/kcarry ]; then mkdir -p /tmp/k; tar xJf "$R/k/k.tar.xz" -C /tmp/k; fi
PL=/tmp/p/pcarry/lib/x86_64-linux-gnu
if [ -d $PL ]; then
   # Prefer the machine's own copies of ordinary libraries.
   for f in libhwloc.so.15 libffi.so.8 libedit.so.2 libtinfo.so.6 libbsd.so.0 libmd.so.0 liblzma.so.5 libudev.so.1; do
      if ldconfig -p | grep -q "^\s*$f "; then rm -f $PL/$f; echo "using the machine's $f"; fi
   done
   echo $PL/libpocl.so.2 > /tmp/vend/pocl.icd
fi
[ -f /tmp/k/kcarry/lib/libKilnOpenCL.so.1 ] && echo /tmp/k/kcarry/lib/libKilnOpenCL.so.1 > /tmp/vend/kiln.icd
export OCL_ICD_VENDORS=/tmp/vend LD_LIBRARY_PATH=/tmp/common:$PL
echo "== vendors: $(ls /tmp/vend)"
echo "== command: kiln_bench $*"
/tmp/common/kiln_bench "$@"
echo "== exit $?"
