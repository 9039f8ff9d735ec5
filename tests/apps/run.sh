#!/bin/bash
# The applications stage: real Debian OpenCL applications (hashcat, clpeak,
# ffmpeg's OpenCL filters, darktable-cli, pyopencl) run on one Kiln build,
# with only that build visible to the ICD loader, and their results checked
# against known answers or the applications' own CPU paths (docs/apps.md).  Exit status 0
# when every check passed, 1 on a wrong result, a crash or a time-out, 2 on
# a set-up error.
#
#   tests/apps/run.sh [options] [BUILD_DIR]
#
# BUILD_DIR   Kiln's meson build directory (default: $KILN_BUILD, else ./build)
# -i ICD      the .icd file the loader sees instead of BUILD_DIR's kiln.icd
#             (docs/apps.md runs PoCL's this way, to compare times)
# -p NAME     the platform name every application must report (default Kiln)
# -t SECONDS  time-out for each application run (default 300)
# -o DIR      logs directory (default BUILD_DIR/apps; replaced)
#
# KILN_APPS=0 skips the stage (exit 0); CI leaves it on.  Kiln's compile
# cache lives in BUILD_DIR/apps-cache, so a second run skips the builds.
# Needs hashcat, clpeak, ffmpeg, darktable, python3-pyopencl (scripts/test.sh
# installs them).
set -euo pipefail

if [ "${KILN_APPS:-1}" = 0 ]; then
   echo "apps: skipped (KILN_APPS=0)"
   exit 0
fi

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
icd= platform=Kiln timeout=300 logs=
usage() { sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }
while getopts i:p:t:o:h opt; do
   case $opt in
   i) icd=$OPTARG ;;
   p) platform=$OPTARG ;;
   t) timeout=$OPTARG ;;
   o) logs=$OPTARG ;;
   *) usage ;;
   esac
done
shift $((OPTIND - 1))
[ $# -le 1 ] || usage
build=${1:-${KILN_BUILD:-$root/build}}
die() { echo "apps: $*" >&2; exit 2; }
[ -d "$build" ] || die "no build directory $build"
build=$(cd "$build" && pwd)
icd=${icd:-$build/etc/OpenCL/vendors/kiln.icd}
[ -f "$icd" ] || die "no $icd: build Kiln first (ninja -C $build)"
for tool in hashcat clpeak ffmpeg darktable-cli /usr/bin/python3; do
   command -v "$tool" >/dev/null || die "$tool not found (scripts/test.sh installs it)"
done
/usr/bin/python3 -c 'import pyopencl' 2>/dev/null || die "no pyopencl for /usr/bin/python3 (apt-get install python3-pyopencl)"

logs=${logs:-$build/apps}
rm -rf "$logs"
mkdir -p "$logs"
logs=$(cd "$logs" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A vendors directory holding the one .icd: Debian's ocl-icd then shows no
# other platform (PoCL, a GPU driver).  hashcat's session, potfile and
# kernel cache go to a throw-away HOME, so every run compiles through the
# driver; Kiln's own compile cache is kept in the build directory.
mkdir "$work/vendors" "$work/home"
cp "$icd" "$work/vendors/"
export OCL_ICD_VENDORS=$work/vendors HOME=$work/home
export XDG_DATA_HOME=$work/home/data XDG_CACHE_HOME=$work/home/cache XDG_CONFIG_HOME=$work/home/config
export KILN_CACHE_DIR=$build/apps-cache
unset OCL_ICD_FILENAMES OCL_ICD_DEFAULT_PLATFORM

failures=0
fail() { echo "apps: FAIL $*"; failures=$((failures + 1)); }
ok() { echo "apps: ok   $*"; }
times=()

# run NAME CMD...: runs one application under the time-out with its output
# in $logs/NAME.log; a non-zero status (a crash, a time-out: 124) fails.
run() {
   local name=$1 rc=0 t0=$SECONDS
   shift
   timeout -k 10 "$timeout" "$@" >"$logs/$name.log" 2>&1 || rc=$?
   times+=("$name $((SECONDS - t0))")
   if [ $rc = 124 ] || [ $rc = 137 ]; then
      fail "$name: timed out after ${timeout}s (log: $logs/$name.log)"
   elif [ $rc != 0 ]; then
      fail "$name: exit status $rc (log: $logs/$name.log)"; tail -n 20 "$logs/$name.log" | sed 's/^/    /'
   fi
   return $rc
}
# platform_is NAME PATTERN: the log names the expected platform.
platform_is() {
   if grep -qE "$2" "$logs/$1.log"; then ok "$1: ran on platform '$platform'"
   else fail "$1: the log does not name platform '$platform'"; fi
}

echo "apps: platform '$platform' from $icd; logs in $logs; ${timeout}s per run"

# -- hashcat: a brute-force crack of a known 4-letter password for MD5 (-m 0)
# and SHA-256 (-m 1400) on the CPU device (-D 1).  hashcat runs its own
# self-test of the mode's kernel (a known hash) before the attack and stops
# with "Self-test failed" if the kernel computes a wrong hash.
# Its logs name the platform's vendor, so `hashcat -I` checks the name.
if run hashcat-info hashcat -I --backend-ignore-cuda --backend-ignore-hip; then
   platform_is hashcat-info "^ *Name\.+: $platform\$"
   grep -q "Platform ID #2" "$logs/hashcat-info.log" && fail "hashcat -I: more than one platform"
fi
word=kiln
for mode in 0 1400; do
   case $mode in
   0) hash=$(printf %s "$word" | md5sum | cut -d' ' -f1) ;;
   1400) hash=$(printf %s "$word" | sha256sum | cut -d' ' -f1) ;;
   esac
   out=$work/hashcat-$mode.out
   if run "hashcat-m$mode" hashcat -m "$mode" -a 3 -D 1 --backend-ignore-cuda \
         --backend-ignore-hip --potfile-disable \
         --outfile "$out" --outfile-format 2 --status-timer 60 \
         "$hash" '?l?l?l?l'; then
      platform_is "hashcat-m$mode" "^OpenCL API .* Platform #1 "
      if grep -qi "self-test failed" "$logs/hashcat-m$mode.log"; then
         fail "hashcat -m $mode: self-test failed"
      fi
      got=$(cat "$out" 2>/dev/null || true)
      if [ "$got" = "$word" ]; then ok "hashcat -m $mode: self-test passed, cracked $hash -> '$got'"
      else fail "hashcat -m $mode: cracked '$got', expected '$word'"; fi
   fi
done

# -- clpeak: global memory bandwidth and single-precision compute, to the end
# with no error line (clpeak prints its OpenCL errors and goes on).
if run clpeak clpeak -p 0 -d 0 --global-bandwidth --compute-sp; then
   platform_is clpeak "Platform: $platform"
   if grep -qiE "error|fail|exception" "$logs/clpeak.log"; then
      fail "clpeak: error lines:"; grep -iE "error|fail|exception" "$logs/clpeak.log" | head -5 | sed 's/^/    /'
   elif ! grep -q "float16" "$logs/clpeak.log"; then
      fail "clpeak: did not reach the last single-precision test (float16)"
   else
      ok "clpeak: bandwidth and compute-sp ran to the end: $(grep -E 'float16 *:' "$logs/clpeak.log" | tail -1 | xargs)"
   fi
fi

# -- ffmpeg: each OpenCL filter against its CPU counterpart on the same 10
# frames of testsrc2 (320x240, yuv420p), by PSNR (ffmpeg's psnr filter):
# the lowest frame's PSNR (over Y, U and V, or over Y alone where the
# filters differ on chroma by design) must reach the threshold; `inf` means
# bit-identical.  The thresholds sit ~3-5 dB under what Kiln and PoCL both
# give on this input (docs/apps.md): the OpenCL blur filters round
# differently from the CPU ones; a broken filter gives < 30 dB.
ffmpeg_filters=(
   # name  OpenCL filter  CPU filter  planes compared  minimum PSNR (dB)
   "avgblur avgblur_opencl=sizeX=3:sizeY=3 avgblur=sizeX=3:sizeY=3 yuv 43"
   "boxblur boxblur_opencl=luma_radius=2:luma_power=1 boxblur=luma_radius=2:luma_power=1 yuv 50"
   "unsharp unsharp_opencl=lx=5:ly=5:la=1.0 unsharp=lx=5:ly=5:la=1.0 yuv 46"
   # sobel/prewitt: the OpenCL filters offset chroma differently (PoCL
   # gives the same 25-31 dB on U and V), so luma only.
   "sobel sobel_opencl sobel y 60"
   "prewitt prewitt_opencl prewitt y 60"
   "dilation dilation_opencl dilation yuv inf"
   "erosion erosion_opencl erosion yuv inf"
   "transpose transpose_opencl=dir=clock transpose=dir=clock yuv inf"
)
for f in "${ffmpeg_filters[@]}"; do
   read -r name clf cpuf planes min <<< "$f"
   post=
   [ "$planes" = y ] && post=,extractplanes=y
   if run "ffmpeg-$name" ffmpeg -hide_banner -nostdin -v verbose \
         -f lavfi -i testsrc2=size=320x240:rate=10 -frames:v 10 \
         -init_hw_device opencl=ocl:0.0 -filter_hw_device ocl \
         -filter_complex "[0:v]format=yuv420p,split[a][b];[a]hwupload,$clf,hwdownload,format=yuv420p$post[g];[b]$cpuf$post[c];[g][c]psnr" \
         -f null -; then
      platform_is "ffmpeg-$name" "0\.0: $platform /"
      line=$(grep -E "PSNR y:" "$logs/ffmpeg-$name.log" | tail -1)
      worst=$(sed -nE 's/.* min:([0-9.]+|inf).*/\1/p' <<< "$line")
      if [ -z "$worst" ]; then fail "ffmpeg $clf: no PSNR line"
      elif [ "$worst" = inf ] || { [ "$min" != inf ] &&
            awk -v p="$worst" -v m="$min" 'BEGIN { exit !(p >= m) }'; }; then
         ok "ffmpeg $clf vs $cpuf ($planes): lowest frame PSNR $worst dB (>= $min)"
      else fail "ffmpeg $clf vs $cpuf ($planes): lowest frame PSNR $worst dB < $min: $line"; fi
   fi
done

# -- darktable-cli: one generated 256x192 image (PFM, written by
# darktable_check.py) through exposure, sharpen and soften (an XMP sidecar
# the script writes), once on darktable's CPU path and once with OpenCL
# forced on, compared by PSNR and the largest difference.  darktable drops
# CPU OpenCL devices on first sight ("discarding new device as emulated by
# CPU") and remembers them in its darktablerc; the CPU run writes that
# entry, the test clears its "disabled" field (the eighth) and the OpenCL
# run then builds darktable's 36 programs (Kiln's compile cache keeps them
# for the next run) and benchmarks the device once.  Each run's log must
# show every module processed where it should ("on GPU" is darktable's
# word for any OpenCL device).
dt=$work/darktable
mkdir -p "$dt/conf"
if /usr/bin/python3 "$here/darktable_check.py" make "$dt" >"$logs/darktable-make.log" 2>&1; then
   dtcli=(darktable-cli "$dt/in.pfm" "$dt/edit.xmp")
   dtopts=(--core --configdir "$dt/conf" --cachedir "$dt/cache" --conf opencl=TRUE -d opencl -d perf)
   if run darktable-cpu "${dtcli[@]}" "$dt/cpu.pfm" "${dtopts[@]}"; then
      # The first run saw the device, dropped it and wrote its entry.
      sed -i -E 's/^(cldevice_v[0-9]+_[a-z0-9]+=([^ ]+ ){7})1 /\10 /' "$dt/conf/darktablerc"
      if run darktable-opencl "${dtcli[@]}" "$dt/cl.pfm" "${dtopts[@]}"; then
         platform_is darktable-opencl "PLATFORM NAME & VENDOR: +$platform,"
         for m in exposure sharpen soften; do
            grep -q "processed \`$m' on CPU" "$logs/darktable-cpu.log" ||
               fail "darktable: the CPU run did not process $m on the CPU"
            grep -q "processed \`$m' on GPU" "$logs/darktable-opencl.log" ||
               fail "darktable: the OpenCL run did not process $m through OpenCL"
         done
         if line=$(/usr/bin/python3 "$here/darktable_check.py" compare "$dt/cpu.pfm" "$dt/cl.pfm" 2>&1); then
            ok "darktable-cli OpenCL vs CPU (exposure, sharpen, soften): $line"
         else fail "darktable-cli OpenCL vs CPU: $line"; fi
         # Informative only: absent when darktable dropped the device.
         grep -h "opencl_summary_statistics\|KERNEL LOADING TIME" "$logs/darktable-opencl.log" |
            sed 's/^ */    /' || true
      fi
   fi
else
   fail "darktable: could not write the input image (log: $logs/darktable-make.log)"
fi

# -- pyopencl: arrays, reductions, scans and random numbers against numpy
# (tests/apps/pyopencl_check.py prints each comparison).
if run pyopencl /usr/bin/python3 "$here/pyopencl_check.py"; then
   platform_is pyopencl "platforms \['$platform"
   grep -E "^pyopencl: (ok|FAIL)" "$logs/pyopencl.log" | sed 's/^/    /'
   ok "pyopencl: $(grep -c '^pyopencl: ok' "$logs/pyopencl.log") checks against numpy"
fi

echo "apps: seconds per run: ${times[*]}"
if [ $failures -gt 0 ]; then
   echo "apps: $failures check(s) FAILED (logs in $logs)"
   exit 1
fi
echo "apps: all checks passed"
