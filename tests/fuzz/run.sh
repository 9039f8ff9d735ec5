#!/bin/bash
# Builds Kiln's libFuzzer targets (clang-19, ASan+UBSan, libFuzzer) in their
# own build directory and fuzzes each for a bounded time.  Offline: needs
# only clang-19 and libclang-rt-19-dev (libFuzzer) besides Kiln's own
# build dependencies.
#
# Usage: tests/fuzz/run.sh [TARGET...]      (default: every target)
#   TARGET: binary, build_options, set_kernel_arg, image_create
# Environment:
#   FUZZ_TIME   seconds per target (default 60)
#   FUZZ_JOBS   targets fuzzed at once, one core each (default 1)
#   FUZZ_BUILD  build directory (default <repo>/build-fuzz)
#   FUZZ_ARGS   more libFuzzer flags, e.g. "-fork=4" or "-runs=1000"
#   KILN_FUZZ_KNOWN  comma-separated known bugs to step over while they
#               are open (names in tests/fuzz/regressions/README.md)
#
# The committed seeds (tests/fuzz/corpus/TARGET) are read, never written:
# what the fuzzer finds goes to FUZZ_BUILD/corpus/TARGET, and crashing
# inputs to FUZZ_BUILD/artifacts/TARGET/, libFuzzer's output to
# FUZZ_BUILD/logs/TARGET.log.  Each target ends with one line: executions,
# executions per second, coverage, inputs added to the corpus.  Exits
# non-zero if any target crashed or failed a check; to replay one input:
#   FUZZ_BUILD/tests/fuzz/fuzz_TARGET CRASH_FILE
# and add it (minimized: fuzz_TARGET -minimize_crash=1 -runs=10000 FILE)
# under tests/fuzz/regressions/TARGET/, which `meson test` replays.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${FUZZ_BUILD:-$root/build-fuzz}
seconds=${FUZZ_TIME:-60}
all=(binary build_options set_kernel_arg image_create)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
for t in "${targets[@]}"; do
   [[ " ${all[*]} " == *" $t "* ]] || { echo "fuzz: unknown target '$t' (${all[*]})" >&2; exit 2; }
done

CC=${CC_FUZZ:-clang-19}
CXX=${CXX_FUZZ:-clang++-19}
command -v "$CC" >/dev/null || { echo "fuzz: $CC not found (apt-get install clang-19)" >&2; exit 1; }
rt=$("$CC" -print-resource-dir)/lib/linux/libclang_rt.fuzzer-x86_64.a
[ -f "$rt" ] || { echo "fuzz: libFuzzer missing ($rt): apt-get install libclang-rt-19-dev" >&2; exit 1; }

if [ ! -f "$build/build.ninja" ]; then
   CC=$CC CXX=$CXX meson setup "$build" "$root" -Dfuzz=true \
      -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized
fi
ninja -C "$build" "${targets[@]/#/tests/fuzz/fuzz_}"

# halt_on_error: UBSan findings are crashes too.  The fuzzers create
# contexts and threads once and keep them: no leak check at exit.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
# Only the CPU device: the fuzzers must not depend on (or hang in) a GPU.
export KILN_DEVICES=${KILN_DEVICES:-cpu}

jobs=${FUZZ_JOBS:-1}
mkdir -p "$build/logs"

# One target: libFuzzer's output goes to its log, then a summary line
# (from -print_final_stats) and, on failure, the end of the log.
fuzz_one() {
   local t=$1 corpus=$build/corpus/$1 artifacts=$build/artifacts/$1 log=$build/logs/$1.log rc=0
   mkdir -p "$corpus" "$artifacts"
   # shellcheck disable=SC2086
   "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=60 \
      -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$artifacts/" \
      ${FUZZ_ARGS:-} "$corpus" "$root/tests/fuzz/corpus/$t" >"$log" 2>&1 || rc=$?
   final() { sed -n "s/^stat::$1: *//p" "$log" | tail -n 1; }
   local cov
   cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2) || true
   printf 'fuzz_%s: %s executions in %ss (%s/s), coverage %s, %s new inputs, peak RSS %s MB%s\n' \
      "$t" "$(final number_of_executed_units)" "$seconds" "$(final average_exec_per_sec)" \
      "${cov:-?}" "$(final new_units_added)" "$(final peak_rss_mb)" \
      "$([ $rc = 0 ] || echo ": FAILED (exit $rc), inputs in $artifacts/")"
   if [ $rc != 0 ]; then
      echo "---- end of $log"
      tail -n 60 "$log"
      echo "----"
   fi
   return $rc
}

echo "== fuzzing ${targets[*]}: ${seconds}s each, $jobs at a time"
failed=()
pids=()
names=()
wait_one() {
   # Oldest first: outputs stay in the order the targets were started.
   local pid=${pids[0]} name=${names[0]}
   pids=("${pids[@]:1}")
   names=("${names[@]:1}")
   wait "$pid" || failed+=("$name")
}
for t in "${targets[@]}"; do
   [ ${#pids[@]} -lt "$jobs" ] || wait_one
   fuzz_one "$t" >"$build/logs/$t.summary" 2>&1 &
   pids+=($!)
   names+=("$t")
done
while [ ${#pids[@]} -gt 0 ]; do wait_one; done
for t in "${targets[@]}"; do cat "$build/logs/$t.summary"; done
if [ ${#failed[@]} -gt 0 ]; then
   echo "fuzz: failures in: ${failed[*]}" >&2
   exit 1
fi
echo "fuzz: no crash in ${targets[*]}"
