#!/bin/bash
# kiln-compile → code objects that LLVM's own llvm-objdump disassembles,
# for every test kernel and one processor of each generation; and
# kiln-compile -S agrees.  Usage: check_objdump.sh KILN_COMPILE LLVM_OBJDUMP KERNEL_DIR
set -u
kc=$1 objdump=$2 dir=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
checks=0
for gfx in gfx900 gfx90a gfx1030 gfx1100; do
   for cl in "$dir"/*.cl; do
      name=$(basename "$cl" .cl)
      if ! "$kc" -t "$gfx" -o "$tmp/$name.bin" --elf "$tmp/$name.o" "$cl" 2> "$tmp/log"; then
         echo "FAIL $gfx $name: kiln-compile failed"; cat "$tmp/log"; fail=1; continue
      fi
      # The program binary is Kiln's container (include/kiln/binary_format.h).
      if [ "$(head -c 8 "$tmp/$name.bin" | tr -d '\0')" != "KILNBIN" ]; then
         echo "FAIL $gfx $name: not a Kiln program binary"; fail=1
      fi
      if ! "$objdump" -d --mcpu="$gfx" "$tmp/$name.o" > "$tmp/dis" 2> "$tmp/err"; then
         echo "FAIL $gfx $name: llvm-objdump failed"; cat "$tmp/err"; fail=1; continue
      fi
      # The kernel's instructions start after its 256-byte amd_kernel_code_t.
      grep -q "<$name>:" "$tmp/dis" || { echo "FAIL $gfx $name: no symbol $name"; fail=1; }
      grep -Eq "^\s+s_[a-z_0-9]+.*// 000000000100:" "$tmp/dis" ||
         { echo "FAIL $gfx $name: no instruction at 0x100"; fail=1; }
      grep -q "s_endpgm" "$tmp/dis" || { echo "FAIL $gfx $name: no s_endpgm"; fail=1; }
      n_obj=$(grep -cE "^\s+(s|v|ds|global|buffer|flat|scratch)_" "$tmp/dis")
      # kiln-compile's own disassembler reads the same instructions.
      if ! "$kc" -t "$gfx" -S "$cl" > "$tmp/S" 2> "$tmp/log"; then
         echo "FAIL $gfx $name: kiln-compile -S failed"; cat "$tmp/log"; fail=1; continue
      fi
      grep -q "^kernel $name ($gfx" "$tmp/S" || { echo "FAIL $gfx $name: -S header"; fail=1; }
      n_s=$(grep -cE "^  [0-9a-f]{8}:  (s|v|ds|global|buffer|flat|scratch)_" "$tmp/S")
      if [ "$n_s" -ne "$n_obj" ]; then
         echo "FAIL $gfx $name: -S shows $n_s instructions, llvm-objdump $n_obj"; fail=1
      fi
      checks=$((checks + 1))
   done
done
# A target kiln-compile does not know is a usage error (exit 2).
"$kc" -t gfx9999 -o "$tmp/x.bin" "$dir/saxpy.cl" 2> /dev/null
[ $? -eq 2 ] || { echo "FAIL: unknown target not refused with 2"; fail=1; }
echo "$checks code objects checked"
[ "$checks" -gt 0 ] || fail=1
exit $fail
