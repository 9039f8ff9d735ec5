/* The half-precision conversions (__extendhfsf2, __truncsfhf2, ...) that
 * x86 code of cl_khr_fp16 kernels calls; the JIT defines them for every
 * program it loads (half_rt.c says why). */
#ifndef KILN_LLVM_HALF_RT_H
#define KILN_LLVM_HALF_RT_H

#include "llvm/cpu/jit.h"

/* The functions themselves, for tests: round to nearest even. */
float kiln_half_extend_sf(_Float16 h);
double kiln_half_extend_df(_Float16 h);
_Float16 kiln_half_trunc_sf(float f);
_Float16 kiln_half_trunc_df(double d);

extern const struct kiln_jit_symbol kiln_half_rt_symbols[];
extern const unsigned kiln_half_rt_num_symbols;

#endif
