#!/bin/bash
# README command 1: set up, build, and run OpenCL programs on Kiln's CPU
# device through the system ICD loader.
set -euo pipefail
source "$(dirname "$0")/setup.sh"

echo "== clinfo (Kiln through the ICD loader: OCL_ICD_VENDORS=$OCL_ICD_VENDORS)"
clinfo
for demo in "$KILN_BUILD"/examples/*; do
   [ -f "$demo" ] && [ -x "$demo" ] || continue
   echo "== $(basename "$demo")"
   "$demo"
done
