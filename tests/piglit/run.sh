#!/bin/bash
# The piglit gate: runs piglit's whole OpenCL profile ("cl") against one Kiln
# build, with only that build visible to the ICD loader, and compares the
# results with tests/piglit/expected.txt (compare.py).  Exit status: 0 when
# no test does worse than expected, 1 on a regression, 2 on a set-up error.
#
#   tests/piglit/run.sh [options] [BUILD_DIR] [-- PIGLIT_RUN_ARGS...]
#
# BUILD_DIR   Kiln's meson build directory (default: $KILN_BUILD, else
#             ./build); its etc/OpenCL/vendors/kiln.icd is what the loader sees.
# -o DIR      piglit's results directory (default BUILD_DIR/piglit; replaced).
# -j N        tests run at once (default: CPU count + 1: a test is mostly one
#             thread parsing its test file and compiling kernels)
# -t SECONDS  per-test timeout (default 60; the slowest test passes in 3.5-7 s
#             on 2 loaded cores)
# -T SECONDS  limit for the whole run (default 2400); when it is reached the
#             tests that did not finish are reported missing, so the gate fails
# -c          compare the results directory again, without running piglit
# -w FILE     also write the results as a new expected file (see compare.py)
# Arguments after `--` go to `piglit run`: with -t/-x filters, tests left
# out of the run are not counted as missing.
#
# Needs Debian's piglit (/usr/bin/piglit) and the Python it is packaged for
# (/usr/bin/python3; another python3 first on PATH lacks piglit's modules).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
py=/usr/bin/python3
piglit=/usr/bin/piglit
jobs=$(( $(nproc) + 1 ))
timeout=60
limit=2400
results=
compare_only=0
write=

usage() { sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }
# Split at `--` first: getopts would swallow it.
args=() piglit_args=() rest=0
for a in "$@"; do
   if [ $rest = 1 ]; then piglit_args+=("$a")
   elif [ "$a" = -- ]; then rest=1
   else args+=("$a")
   fi
done
set -- ${args[@]+"${args[@]}"}
while getopts o:j:t:T:cw:h opt; do
   case $opt in
   o) results=$OPTARG ;;
   j) jobs=$OPTARG ;;
   t) timeout=$OPTARG ;;
   T) limit=$OPTARG ;;
   c) compare_only=1 ;;
   w) write=$OPTARG ;;
   *) usage ;;
   esac
done
shift $((OPTIND - 1))
[ $# -le 1 ] || usage
build=${1:-${KILN_BUILD:-$root/build}}
die() { echo "piglit gate: $*" >&2; exit 2; }
[ -d "$build" ] || die "no build directory $build"
build=$(cd "$build" && pwd)
results=${results:-$build/piglit}
[ -x "$py" ] || die "$py not found"
[ -f "$piglit" ] || die "$piglit not found (apt-get install piglit)"
icd=$build/etc/OpenCL/vendors/kiln.icd
[ -f "$icd" ] || die "no $icd: build Kiln first (ninja -C $build)"

compare_args=()
[ ${#piglit_args[@]} -gt 0 ] && compare_args+=(--allow-missing)

if [ $compare_only = 0 ]; then
   # A vendors directory holding Kiln's .icd alone: ocl-icd and the Khronos
   # loader read only OCL_ICD_VENDORS when it is set, so no system-wide
   # platform (PoCL, a GPU driver) can answer piglit's tests.
   work=$(mktemp -d)
   trap 'rm -rf "$work"' EXIT
   vendors=$work/vendors
   mkdir "$vendors"
   cp "$icd" "$vendors/"
   # Kiln's compile cache in the throw-away directory: a run neither reads
   # nor fills the user's ~/.cache/kiln, and every run builds from source.
   loader_env=(env -u OCL_ICD_FILENAMES -u OCL_ICD_DEFAULT_PLATFORM
               -u PIGLIT_NO_TIMEOUT OCL_ICD_VENDORS="$vendors"
               KILN_CACHE_DIR="$work/kiln-cache" PIGLIT_CL_PLATFORM=Kiln)
   if command -v clinfo >/dev/null; then
      platforms=$("${loader_env[@]}" clinfo -l 2>&1 | grep -c '^Platform #' || true)
      [ "$platforms" = 1 ] ||
         die "the loader shows $platforms platforms with OCL_ICD_VENDORS=$vendors: $("${loader_env[@]}" clinfo -l 2>&1)"
   fi

   mkdir -p "$(dirname "$results")"
   results=$(cd "$(dirname "$results")" && pwd)/$(basename "$results")
   echo "piglit gate: profile cl, $jobs at once, ${timeout}s per test, results in $results"
   start=$(date +%s)
   # -c: piglit's CL tests are not marked concurrent, but each is its own
   # process with its own context, so they can run side by side.
   # The whole run is bounded too, so that a driver that hangs every test
   # cannot hold CI for hours. piglit starts each test in its own session,
   # so the watchdog stops piglit, then kills its tests by their PIDs.
   "${loader_env[@]}" "$py" "$piglit" run -o -l dummy -c -j "$jobs" \
      --timeout "$timeout" ${piglit_args[@]+"${piglit_args[@]}"} cl "$results" &
   pid=$!
   stop_piglit() {
      kill -STOP "$pid" 2>/dev/null || return 0
      local child
      for child in $(cat /proc/"$pid"/task/*/children 2>/dev/null); do
         kill -KILL "$child" 2>/dev/null || true
      done
      kill -KILL "$pid" 2>/dev/null || true
   }
   trap 'stop_piglit; exit 130' INT TERM
   expired=0
   while kill -0 "$pid" 2>/dev/null; do
      if [ $(( $(date +%s) - start )) -ge "$limit" ]; then
         expired=1
         stop_piglit
         break
      fi
      sleep 1
   done
   rc=0
   wait "$pid" || rc=$?
   echo "piglit gate: piglit run took $(( $(date +%s) - start )) s (exit status $rc)"
   if [ $expired = 1 ]; then
      echo "piglit gate: the run passed its ${limit}s limit and was stopped; unfinished tests count as missing" >&2
   fi
fi

if [ -n "$write" ]; then
   "$py" "$here/compare.py" --write "$write" "$here/expected.txt" "$results" || exit 2
fi
exec "$py" "$here/compare.py" "${compare_args[@]}" "$here/expected.txt" "$results"
