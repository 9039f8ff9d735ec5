#!/bin/bash
# README command 2: set up, build, and run every test suite.
set -euo pipefail
source "$(dirname "$0")/setup.sh" valgrind piglit

echo "== unit and end-to-end tests"
meson test -C "$KILN_BUILD" --print-errorlogs

# The peer suite: piglit's whole OpenCL profile against this build, compared
# with tests/piglit/expected.txt; any test doing worse than expected fails.
echo "== piglit OpenCL profile"
bash "$KILN_ROOT/tests/piglit/run.sh" "$KILN_BUILD"

# Sanitizer builds of the same tests: ASan+UBSan for everything, TSan for
# the multi-threaded stress tests.
sanitized() {
   local dir=$1 sanitize=$2
   shift 2
   [ -f "$dir/build.ninja" ] || meson setup "$dir" "$KILN_ROOT" -Db_sanitize="$sanitize" -Db_lundef=false
   ninja -C "$dir"
   meson test -C "$dir" --print-errorlogs "$@"
}
echo "== ASan+UBSan"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
   sanitized "$KILN_ROOT/build-asan" address,undefined --suite unit --suite cl --suite stress
echo "== TSan"
TSAN_OPTIONS=halt_on_error=1 sanitized "$KILN_ROOT/build-tsan" thread --suite stress

echo "kiln: all tests passed"
