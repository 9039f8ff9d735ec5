#!/bin/bash
# Issue 19: does a software prefetch help jammed row loops?  Runs
# read_pattern (the access order in plain C) and then kiln_bench on Kiln's
# CPU device with KILN_JAM_PREFETCH unset (the default: a distance that
# follows the rows, docs/env.md) and each value in turn, ROUNDS
# times alternating (a noisy machine drifts; alternation spreads it over
# all values), and prints one line per run and the median per value of
# "reduce chunked" as a fraction of the triad and of the read bound.
#
# usage: bench/jam_prefetch_rounds.sh [ROUNDS [VALUES...]]
#        defaults: 3 rounds of 0 2048 4096 8192 (0 = unset, the default,
#        is always run; "off" runs KILN_JAM_PREFETCH=0, no prefetch).
# kiln_bench's rows are 256 bytes (1 KiB with --size 4) and a jammed
# block's 8 rows adjacent: below 8 rows ahead a prefetch lands in a row of
# the same block, which the same round reads (the default takes 8 rows:
# 2048 at size 1, 8192 at size 4).
# READ_PATTERN=0: kiln_bench alone.  KILN_BENCH_ARGS: more kiln_bench
# options ("--size 4 --runs 3": arrays past a large L3).
# Where build-carry/common/run.sh is (bench/device/pack.sh: the device
# machine) it runs the carried kiln_bench and read_pattern, else build/'s.
set -euo pipefail
rounds=${1:-3}
if [ $# -gt 1 ]; then
   shift
   values=(0 "$@")
else
   values=(0 2048 4096 8192)
fi
unset KILN_JAM_PREFETCH
if [ -f build-carry/common/run.sh ]; then
   rp=build-carry/common/read_pattern
   kb=(bash build-carry/common/run.sh)
else
   rp=build/bench/read_pattern
   kb=(build/bench/kiln_bench)
   export OCL_ICD_VENDORS=$PWD/build/etc/OpenCL/vendors
fi

# The bench's rows (64 floats: 64M floats over 4096 x 256 work-items; 256
# floats, 1 KiB, with --size 4), in its array and in one past any L3.
# READ_PATTERN=0 skips them.
if [ "${READ_PATTERN:-1}" != 0 ]; then
   "$rp" -c 64
   "$rp" -c 256 -d 1024,2048,4096,8192
   "$rp" -c 64 -n 1024 -r 5
   "$rp" -c 256 -n 1024 -r 5 -d 1024,2048,4096,8192
fi

runs=$(mktemp)
trap 'rm -f "$runs"' EXIT
for r in $(seq 1 "$rounds"); do
   for d in "${values[@]}"; do
      case $d in
      0) unset KILN_JAM_PREFETCH ;;
      off) export KILN_JAM_PREFETCH=0 ;;
      *) export KILN_JAM_PREFETCH=$d ;;
      esac
      # shellcheck disable=SC2086 # KILN_BENCH_ARGS: several words
      out=$("${kb[@]}" --platform kiln --no-child ${KILN_BENCH_ARGS:-} 2>/dev/null) || true
      # Columns: GB/s, then the fractions of the triad and of the read bound.
      line=$(echo "$out" | awk -F'|' -v d="$d" '
         /^\| reduce chunked/ { v[++n] = $(NF - 1) + 0 }
         /^\| bound: triad/ { t = $(NF - 1) + 0 }
         /^\| bound: read/ { rd = $(NF - 1) + 0 }
         END { printf "%s %.2f %.2f %.2f %.3f %.3f", d, v[1], t, rd, v[2], v[3] }')
      echo "$line" >> "$runs"
      echo "round $r KILN_JAM_PREFETCH=$d: chunked/triad/read GB/s, of triad, of read: ${line#* }"
   done
done
echo "median per KILN_JAM_PREFETCH: reduce chunked GB/s, of triad, of read bound"
for d in "${values[@]}"; do
   for col in 2 5 6; do
      awk -v d="$d" -v c="$col" '$1 == d { print $c }' "$runs" | sort -g |
         awk '{ a[NR] = $1 } END { printf "%.3f ", NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
   done | sed "s/^/  $d: /"
   echo
done
