/* Math that LLVM 19's NVPTX code generator gets wrong or cannot compile
 * (nvptx_math.c says which and why).  src/llvm only. */
#ifndef KILN_LLVM_NVPTX_MATH_H
#define KILN_LLVM_NVPTX_MATH_H

#include <stdbool.h>

#include <llvm-c/Types.h>

struct kiln_build_log;

/* Before the optimiser: the llvm.sin/cos/tan/exp/exp2/exp10/log/log2/
 * log10/pow calls on float (scalar or vector) made by libclc's native_*
 * functions, or carrying the afn flag (-cl-fast-relaxed-math,
 * -cl-unsafe-math-optimizations), become PTX's approximate instructions
 * (sin.approx.f32, cos.approx.f32, ex2.approx.f32, lg2.approx.f32), which
 * native_* accuracy allows.  Other calls are left for
 * kiln_nvptx_check_selectable to refuse. */
void kiln_nvptx_lower_native_math(LLVMModuleRef m);

/* Before the optimiser: every call of an odd built-in (sin, tan, atan,
 * erf, expm1, ... float or double, scalar or vector) returns its argument
 * when that is ±0, as §7.5.1 requires (libclc's nvptx sin(-0) is +0). */
void kiln_nvptx_keep_signed_zeros(LLVMModuleRef m);

/* Before the optimiser: results libclc-19's nvptx library gets wrong,
 * fixed at every call (float and double, scalar and vector): fract of ±0
 * and ±inf is ±0, sinpi of an integer is 0 with the integer's sign,
 * ldexp on float keeps results below FLT_MIN (libclc flushes them), and
 * vstore_half*_rtp/_rtn round values between 0 and 2^-24 away from 0;
 * native_tan keeps its relative accuracy near the poles (nvptx_math.c). */
void kiln_nvptx_fix_libclc_results(LLVMModuleRef m);

/* After the optimiser, before code generation: false, with a log line per
 * intrinsic naming the function that uses it, when the module still calls
 * an intrinsic the NVPTX code generator cannot select (LLVM would abort
 * the process with "Cannot select", or end it over "no libcall"). */
bool kiln_nvptx_check_selectable(LLVMModuleRef m, struct kiln_build_log *log);

#endif
