#!/bin/sh
# clinfo through the ICD loader with only Kiln's build-tree .icd: the
# platform "Kiln" and its device must be listed, no query in Kiln's part
# of the output may fail, and the library must export exactly the two
# cl_khr_icd symbols.
#
# usage: clinfo.sh <dir holding kiln.icd> <path of libKilnOpenCL.so.1>
set -u

fail() {
   echo "clinfo.sh: FAIL: $*" >&2
   exit 1
}

[ $# -eq 2 ] || fail "usage: clinfo.sh <icd dir> <library>"
icd_dir=$1
lib=$2
[ -f "$icd_dir/kiln.icd" ] || fail "no kiln.icd in $icd_dir"
[ -f "$lib" ] || fail "no library at $lib"
command -v clinfo >/dev/null || fail "clinfo is not installed"
command -v nm >/dev/null || fail "nm is not installed"

# --- exported symbols --------------------------------------------------
want="clGetExtensionFunctionAddress clIcdGetPlatformIDsKHR "
symbols=$(nm -D --defined-only "$lib" | awk '{print $NF}' | sort | tr '\n' ' ')
[ "$symbols" = "$want" ] || fail "$lib exports [$symbols], expected exactly [$want]"

# --- clinfo ------------------------------------------------------------
# A sanitizer build of Kiln needs its runtime loaded before clinfo's own
# libraries; clinfo and the loader are not built to free everything, so
# leak reports are theirs and are turned off (test_foundation checks
# Kiln's leaks).
preload=$(ldd "$lib" | awk '/libasan\.so/ { print $3 }')
if [ -n "$preload" ]; then
   export LD_PRELOAD="$preload${LD_PRELOAD:+ $LD_PRELOAD}"
   # Last, so that it wins over the detect_leaks=1 CI's ASan stage sets.
   export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi
out=$(OCL_ICD_VENDORS=$icd_dir clinfo 2>&1)
status=$?
printf '%s\n' "$out"
[ $status -eq 0 ] || fail "clinfo exited with status $status"

# The detailed part for platform Kiln: from its "Platform Name" line up
# to the next platform, the NULL-platform section or the loader's.
kiln=$(printf '%s\n' "$out" | awk '
   /^  Platform Name +/ {
      name = $0
      sub(/^  Platform Name +/, "", name)
      inside = (name == "Kiln")
   }
   /^NULL platform behavior/ || /^ICD loader properties/ { inside = 0 }
   inside { print }')
[ -n "$kiln" ] || fail "clinfo lists no platform named Kiln"

# clinfo prints the summary (Platform Name, Vendor, Version, ...) and the
# device details; both must be there.
# The version include/kiln/cl_version.h sets ("1.2").
version=$(sed -n 's/^#define KILN_CL_VERSION_\(MAJOR\|MINOR\) //p' "$(dirname "$0")/../../include/kiln/cl_version.h" | paste -sd.)
printf '%s\n' "$kiln" | grep -Eq "^  Platform Version +OpenCL $(echo "$version" | sed 's/[.]/[.]/') " ||
   fail "Kiln's platform version is not OpenCL $version"
printf '%s\n' "$kiln" | grep -Eq '^  Platform Extensions +.*cl_khr_icd' ||
   fail "Kiln does not list cl_khr_icd"
printf '%s\n' "$kiln" | grep -Eq '^Number of devices +[1-9]' ||
   fail "Kiln has no device"
printf '%s\n' "$kiln" | grep -Eq '^  Device Type +.*(CPU|GPU)' ||
   fail "Kiln has no CPU or GPU device"

device=$(printf '%s\n' "$kiln" | sed -n 's/^  Device Name  *//p' | head -n 1)
[ -n "$device" ] || fail "no Device Name line under platform Kiln"
# The CPU driver names its device after /proc/cpuinfo's model name (plus a
# suffix in its discrete test mode, KILN_DEVICES=cpu-discrete); a GPU
# driver (KILN_DEVICES=cuda) after the GPU.
device=${device% (discrete test mode)}
model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1 |
        sed 's/[[:space:]]*$//')
first_type=$(printf '%s\n' "$kiln" | sed -n 's/^  Device Type  *//p' | head -n 1)
if [ -n "$model" ] && [ "${first_type#*CPU}" != "$first_type" ]; then
   [ "$(printf '%s' "$device" | sed 's/[[:space:]]*$//')" = "$model" ] ||
      fail "Device Name is '$device', /proc/cpuinfo says '$model'"
fi

# A query that fails shows up as "Invalid ..." or "<... failed ...>".
bad=$(printf '%s\n' "$kiln" | grep -E 'Invalid|failed|<error' || true)
[ -z "$bad" ] || fail "clinfo reports failing queries for Kiln:
$bad"

echo "clinfo.sh: platform Kiln, device '$device', two exported symbols: OK"
