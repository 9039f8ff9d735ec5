#!/bin/bash
# README command 2: set up, build, and run every test suite.
set -euo pipefail
# CI builds treat warnings as errors (scripts/setup.sh).
KILN_MESON_ARGS="-Dwerror=true ${KILN_MESON_ARGS:-}"
# The applications stage's packages (tests/apps/run.sh), unless it is
# skipped with KILN_APPS=0 (local runs; CI leaves it on).
kiln_app_packages=()
[ "${KILN_APPS:-1}" = 0 ] || kiln_app_packages=(hashcat clpeak ffmpeg darktable python3-pyopencl python3-numpy)
source "$(dirname "$0")/setup.sh" valgrind piglit ${kiln_app_packages[@]+"${kiln_app_packages[@]}"}

# Disk use, in the log: a CI machine once ran out of disk while linking.
kiln_disk() {
   echo "kiln: disk: $(du -sh "$1" | cut -f1) in $1;" \
      "$(df -h --output=avail "$KILN_ROOT" | tail -1 | tr -d ' ') free"
}
kiln_disk "$KILN_BUILD"

echo "== unit and end-to-end tests"
meson test -C "$KILN_BUILD" --print-errorlogs

# The same end-to-end suite on the discrete test device (docs/testing.md):
# memory the host cannot see and work that completes later, so staging,
# migration and fences run on every CI run without a GPU.  (Contexts of
# several devices need no stage of their own: exec_mixed_devices_discrete
# names the CPU and two discrete test devices itself, in both stages and
# under ASan; tests/cl/exec/meson.build.)
echo "== cl suite on the discrete test device (KILN_DEVICES=cpu-discrete)"
KILN_DEVICES=cpu-discrete meson test -C "$KILN_BUILD" --no-rebuild --print-errorlogs --suite cl

# The peer suite: piglit's whole OpenCL profile against this build, compared
# with tests/piglit/expected.txt; any test doing worse than expected fails.
echo "== piglit OpenCL profile"
bash "$KILN_ROOT/tests/piglit/run.sh" "$KILN_BUILD"

# Real applications (docs/apps.md): hashcat's self-tests and a known-answer
# crack, clpeak, ffmpeg's OpenCL filters against their CPU versions,
# darktable-cli's OpenCL path against its CPU path, and pyopencl against
# numpy, on Kiln alone; ~2 min on 2 cores, 5 min per
# application at most.  KILN_APPS=0 skips it.
echo "== applications"
t0=$SECONDS
bash "$KILN_ROOT/tests/apps/run.sh" "$KILN_BUILD"
echo "== applications: $((SECONDS - t0)) s"

# Sanitizer builds of the same tests: ASan+UBSan for everything, TSan for
# the multi-threaded stress test (only what it runs is built).  Each
# build directory is ~1 GB; a CI machine's disk can be short, so each is
# removed once its stage passed, unless KILN_KEEP_BUILDS=1 (local
# re-runs then rebuild only what changed).
sanitized() {
   local dir=$1 sanitize=$2 targets=$3
   shift 3
   [ -f "$dir/build.ninja" ] || meson setup "$dir" "$KILN_ROOT" -Db_sanitize="$sanitize" -Db_lundef=false
   # shellcheck disable=SC2086 # targets: a word list, empty for all
   ninja -C "$dir" $targets
   meson test -C "$dir" --no-rebuild --print-errorlogs "$@"
   kiln_disk "$dir"
   [ "${KILN_KEEP_BUILDS:-0}" = 1 ] || rm -rf "$dir"
}
echo "== ASan+UBSan"
# ASan (with KILN_CHECK=bounds on top, in the *_checked tests) runs 3-5
# times slower, more on a loaded machine: the tests' own watchdog
# (tests/cl/exec/kt.c, 100 s) and meson's limits get three times longer.
ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$KILN_ROOT/scripts/lsan.supp \
   UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 KT_WATCHDOG_S=300 \
   sanitized "$KILN_ROOT/build-asan" address,undefined "" --suite unit --suite cl --suite stress \
   --timeout-multiplier 3
echo "== TSan"
TSAN_OPTIONS=halt_on_error=1 sanitized "$KILN_ROOT/build-tsan" thread \
   "src/libKilnOpenCL.so.1.0.0 tests/cl/exec/exec_stress_threads tests/cl/exec/exec_stress_launch_threads" \
   --suite stress

# Valgrind memcheck through the ICD loader on a subset that touches every
# object kind: each program releases what it made, so a definite or
# indirect leak, an invalid access or an uninitialised read fails.  It
# sees what ASan cannot: LLVM is not instrumented.  Valgrind is slow
# (a kernel build takes ~30 s under it), hence a subset: the foundation
# (platform, device, context, queue), buffer transfers and mapping,
# events and callbacks, memory destructors, SVM, the two examples (kernel
# builds with and without barriers, launches, reads back), and SPIR-V
# programs (the translator's child process, its temporary files, the
# refused and failing modules; 30 s on the 2-core VM).
echo "== valgrind memcheck"
t0=$SECONDS
meson test -C "$KILN_BUILD" --no-rebuild --print-errorlogs --num-processes 2 \
   --timeout-multiplier 10 \
   --wrapper "valgrind --quiet --leak-check=full --show-leak-kinds=definite,indirect \
--errors-for-leak-kinds=definite,indirect --error-exitcode=99 --num-callers=30 \
--suppressions=$KILN_ROOT/scripts/valgrind.supp" \
   foundation exec_rw_buffer exec_map_unmap exec_event_callbacks exec_mem_destructor exec_svm \
   exec_il_spirv example_saxpy example_reduce
echo "== valgrind memcheck: $((SECONDS - t0)) s"

# The libFuzzer targets (tests/fuzz), a minute each, two at a time: what
# a change breaks in the binary loader, the build-options parser or
# clSetKernelArg shows here, with executions per target in the log.
t0=$SECONDS
FUZZ_TIME=${KILN_CI_FUZZ_TIME:-60} FUZZ_JOBS=2 FUZZ_BUILD="$KILN_ROOT/build-fuzz" \
   bash "$KILN_ROOT/tests/fuzz/run.sh"
kiln_disk "$KILN_ROOT/build-fuzz"
echo "== fuzzing: $((SECONDS - t0)) s"

echo "kiln: all tests passed"
