/* OpenCL C built-ins libclc-19's nvptx library lacks or gets wrong,
 * defined by Kiln where a module declares them (as nvptx_atomics.c does
 * for 64-bit atom_*) or in place of libclc's:
 *   - mad_hi(a, b, c) for every integer type and vector (libclc has
 *     mul_hi but no mad_hi at all);
 *   - smoothstep(double, double, doubleN), the scalar-edge form of the
 *     double vectors;
 *   - sub_sat of signed integers (libclc: 0 - INT_MIN gives INT_MIN) and
 *     mad_sat of long and ulong (libclc: wrong near the limits);
 *   - convert_<integer>_sat[_rte|_rtz|_rtp|_rtn](float or double): NaN
 *     gives 0 (§6.2.3.3; libclc: INT_MIN and worse), out-of-range values
 *     the limits (LLVM's fpto[su]i.sat after the rounding);
 *   - convert_float_{rtz,rtp,rtn} of integers and doubles and
 *     convert_double_{rtz,rtp,rtn} of longs: PTX's cvt with that rounding
 *     (libclc's are a step off near the limits, through an fptosi that
 *     overflows).
 * src/llvm only. */
#ifndef KILN_LLVM_NVPTX_BUILTINS_H
#define KILN_LLVM_NVPTX_BUILTINS_H

#include <llvm-c/Types.h>

void kiln_nvptx_define_builtins(LLVMModuleRef m);

#endif
