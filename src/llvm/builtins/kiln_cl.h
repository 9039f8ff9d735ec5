/* Shared by every OpenCL C file of Kiln's CPU builtins library.
 *
 * The library is compiled with the same cc1 flags as user kernels (same
 * triple, -cl-std=CL1.2, -fdeclare-opencl-builtins, fake address-space map),
 * so an overloadable definition here gets exactly the Itanium-mangled name
 * that a kernel's call refers to (e.g. _Z3sinf, _Z6vload4mPU8CLglobalKf).
 *
 * Only the scalar form of most functions holds an implementation; the vector
 * forms are built by splitting into halves (SPLIT*), which keeps one source
 * of truth and lets LLVM re-vectorise after inlining into the kernel.
 */
#ifndef KILN_CL_H
#define KILN_CL_H

/* The double overloads (cl_khr_fp64); OpenCL C 1.2 needs no pragma, 1.1 does. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* The half overloads (cl_khr_fp16): half arithmetic needs the pragma in
 * every OpenCL C version.  The OpenCL C 3.0 files are compiled with the
 * CPU device's list minus cl_khr_fp16 (they define no half function). */
#ifdef cl_khr_fp16
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#endif

#define OVL __attribute__((overloadable))
/* For functions that must be inlined into the kernel before Kiln's
 * work-group pass runs: they call get_local_id()/barrier(), which that pass
 * only rewrites in the kernel's own body. */
#define OVL_INLINE __attribute__((overloadable, always_inline))

/* Bind a libm function under an internal name: a plain C declaration of
 * "sin" would clash with the OpenCL overloads.  const: OpenCL has no errno,
 * so the calls may be CSE'd and hoisted. */
#define LIBM_DECL(R, NAME, ...) \
  R kiln_libm_##NAME(__VA_ARGS__) __asm__(#NAME) __attribute__((const))

/* ---- Element-wise vector forms from the scalar (or narrower) ones ---- */

/* R f(T x) */
#define SPLIT1(R, T, F) \
  OVL R##2 F(T##2 x) { return (R##2)(F(x.lo), F(x.hi)); } \
  OVL R##3 F(T##3 x) { return (R##3)(F(x.s01), F(x.s2)); } \
  OVL R##4 F(T##4 x) { return (R##4)(F(x.lo), F(x.hi)); } \
  OVL R##8 F(T##8 x) { return (R##8)(F(x.lo), F(x.hi)); } \
  OVL R##16 F(T##16 x) { return (R##16)(F(x.lo), F(x.hi)); }

/* R f(T x, U y) */
#define SPLIT2(R, T, U, F) \
  OVL R##2 F(T##2 x, U##2 y) { return (R##2)(F(x.lo, y.lo), F(x.hi, y.hi)); } \
  OVL R##3 F(T##3 x, U##3 y) { return (R##3)(F(x.s01, y.s01), F(x.s2, y.s2)); } \
  OVL R##4 F(T##4 x, U##4 y) { return (R##4)(F(x.lo, y.lo), F(x.hi, y.hi)); } \
  OVL R##8 F(T##8 x, U##8 y) { return (R##8)(F(x.lo, y.lo), F(x.hi, y.hi)); } \
  OVL R##16 F(T##16 x, U##16 y) { return (R##16)(F(x.lo, y.lo), F(x.hi, y.hi)); }

/* R f(T x, T y, T z) */
#define SPLIT3(R, T, F) \
  OVL R##2 F(T##2 x, T##2 y, T##2 z) { return (R##2)(F(x.lo, y.lo, z.lo), F(x.hi, y.hi, z.hi)); } \
  OVL R##3 F(T##3 x, T##3 y, T##3 z) { return (R##3)(F(x.s01, y.s01, z.s01), F(x.s2, y.s2, z.s2)); } \
  OVL R##4 F(T##4 x, T##4 y, T##4 z) { return (R##4)(F(x.lo, y.lo, z.lo), F(x.hi, y.hi, z.hi)); } \
  OVL R##8 F(T##8 x, T##8 y, T##8 z) { return (R##8)(F(x.lo, y.lo, z.lo), F(x.hi, y.hi, z.hi)); } \
  OVL R##16 F(T##16 x, T##16 y, T##16 z) { return (R##16)(F(x.lo, y.lo, z.lo), F(x.hi, y.hi, z.hi)); }

/* Vector form with a scalar last argument, e.g. ldexp(floatn, int): widen
 * the scalar and call the all-vector form. */
#define BCAST2(R, T, S, F) \
  OVL R##2 F(T##2 x, S y) { return F(x, (S##2)(y)); } \
  OVL R##3 F(T##3 x, S y) { return F(x, (S##3)(y)); } \
  OVL R##4 F(T##4 x, S y) { return F(x, (S##4)(y)); } \
  OVL R##8 F(T##8 x, S y) { return F(x, (S##8)(y)); } \
  OVL R##16 F(T##16 x, S y) { return F(x, (S##16)(y)); }

/* R f(T x, AS P *out): the halves write to private temporaries. */
#define SPLIT_PTR_AS(R, T, P, F, AS) \
  OVL R##2 F(T##2 x, AS P##2 *o) { P a, b; R##2 r = (R##2)(F(x.lo, &a), F(x.hi, &b)); *o = (P##2)(a, b); return r; } \
  OVL R##3 F(T##3 x, AS P##3 *o) { P##2 a; P b; R##3 r = (R##3)(F(x.s01, &a), F(x.s2, &b)); *o = (P##3)(a, b); return r; } \
  OVL R##4 F(T##4 x, AS P##4 *o) { P##2 a, b; R##4 r = (R##4)(F(x.lo, &a), F(x.hi, &b)); *o = (P##4)(a, b); return r; } \
  OVL R##8 F(T##8 x, AS P##8 *o) { P##4 a, b; R##8 r = (R##8)(F(x.lo, &a), F(x.hi, &b)); *o = (P##8)(a, b); return r; } \
  OVL R##16 F(T##16 x, AS P##16 *o) { P##8 a, b; R##16 r = (R##16)(F(x.lo, &a), F(x.hi, &b)); *o = (P##16)(a, b); return r; }

/* The scalar form of a pointer-output function for the non-private address
 * spaces forwards to the private one. */
#define FWD_PTR_AS(R, T, P, F, AS) \
  OVL R F(T x, AS P *o) { P t; R r = F(x, &t); *o = t; return r; }

/* Everything for one pointer-output function whose scalar private form
 * exists: scalar global/local forms, vector forms in all three spaces. */
#define PTR_FAMILY(R, T, P, F) \
  FWD_PTR_AS(R, T, P, F, __global) \
  FWD_PTR_AS(R, T, P, F, __local) \
  SPLIT_PTR_AS(R, T, P, F, __private) \
  SPLIT_PTR_AS(R, T, P, F, __global) \
  SPLIT_PTR_AS(R, T, P, F, __local)

/* Same shapes with two value arguments (remquo). */
#define SPLIT2_PTR_AS(R, T, P, F, AS) \
  OVL R##2 F(T##2 x, T##2 y, AS P##2 *o) { P a, b; R##2 r = (R##2)(F(x.lo, y.lo, &a), F(x.hi, y.hi, &b)); *o = (P##2)(a, b); return r; } \
  OVL R##3 F(T##3 x, T##3 y, AS P##3 *o) { P##2 a; P b; R##3 r = (R##3)(F(x.s01, y.s01, &a), F(x.s2, y.s2, &b)); *o = (P##3)(a, b); return r; } \
  OVL R##4 F(T##4 x, T##4 y, AS P##4 *o) { P##2 a, b; R##4 r = (R##4)(F(x.lo, y.lo, &a), F(x.hi, y.hi, &b)); *o = (P##4)(a, b); return r; } \
  OVL R##8 F(T##8 x, T##8 y, AS P##8 *o) { P##4 a, b; R##8 r = (R##8)(F(x.lo, y.lo, &a), F(x.hi, y.hi, &b)); *o = (P##8)(a, b); return r; } \
  OVL R##16 F(T##16 x, T##16 y, AS P##16 *o) { P##8 a, b; R##16 r = (R##16)(F(x.lo, y.lo, &a), F(x.hi, y.hi, &b)); *o = (P##16)(a, b); return r; }
#define FWD2_PTR_AS(R, T, P, F, AS) \
  OVL R F(T x, T y, AS P *o) { P t; R r = F(x, y, &t); *o = t; return r; }
#define PTR2_FAMILY(R, T, P, F) \
  FWD2_PTR_AS(R, T, P, F, __global) \
  FWD2_PTR_AS(R, T, P, F, __local) \
  SPLIT2_PTR_AS(R, T, P, F, __private) \
  SPLIT2_PTR_AS(R, T, P, F, __global) \
  SPLIT2_PTR_AS(R, T, P, F, __local)

/* Apply M(n) to every vector width, and to scalars with n empty. */
#define FOR_WIDTHS(M) M() M(2) M(3) M(4) M(8) M(16)
#define FOR_VWIDTHS(M) M(2) M(3) M(4) M(8) M(16)

#endif
