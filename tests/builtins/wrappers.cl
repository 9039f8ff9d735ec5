/* Test entry points, compiled with exactly the cc1 flags Kiln uses for
 * kernels (so every builtin call here must resolve against the library
 * the way a kernel's would).  They take plain private pointers, so C can
 * call them without depending on the vector calling convention; vector
 * results are written lane by lane through vstoren. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* ---- math, element-wise against the scalar forms ---- */
#define W1(F, T, n) void t_##F##_##T##n(const T *x, T *r) { vstore##n(F(vload##n(0, x)), 0, r); }
#define W2(F, T, n) void t_##F##_##T##n(const T *x, const T *y, T *r) { \
   vstore##n(F(vload##n(0, x), vload##n(0, y)), 0, r); }
#define W3(F, T, n) void t_##F##_##T##n(const T *x, const T *y, const T *z, T *r) { \
   vstore##n(F(vload##n(0, x), vload##n(0, y), vload##n(0, z)), 0, r); }
#define ALLN(W, F, T) W(F, T, 2) W(F, T, 3) W(F, T, 4) W(F, T, 8) W(F, T, 16)

ALLN(W1, sin, float)
ALLN(W1, sinpi, float)
ALLN(W1, exp, float)
ALLN(W1, rsqrt, float)
ALLN(W1, floor, float)
ALLN(W1, native_sin, float)
ALLN(W1, half_exp, float)
ALLN(W2, pow, float)
ALLN(W2, fmax, float)
ALLN(W2, atan2pi, float)
ALLN(W2, maxmag, float)
ALLN(W3, mad, float)
ALLN(W3, fma, float)
ALLN(W3, clamp, float)
ALLN(W3, smoothstep, float)
ALLN(W1, sign, float)
ALLN(W1, sin, double)
ALLN(W1, sinpi, double)
ALLN(W2, pow, double)

void t_fmax_bcast_float8(const float *x, float y, float *r) { vstore8(fmax(vload8(0, x), y), 0, r); }
void t_ldexp_bcast_float4(const float *x, int k, float *r) { vstore4(ldexp(vload4(0, x), k), 0, r); }
void t_ldexp_float16(const float *x, const int *k, float *r) { vstore16(ldexp(vload16(0, x), vload16(0, k)), 0, r); }
void t_rootn_float3(const float *x, const int *k, float *r) { vstore3(rootn(vload3(0, x), vload3(0, k)), 0, r); }
void t_pown_float8(const float *x, const int *k, float *r) { vstore8(pown(vload8(0, x), vload8(0, k)), 0, r); }
void t_ilogb_float8(const float *x, int *r) { vstore8(ilogb(vload8(0, x)), 0, r); }
void t_nan_float4(const uint *c, float *r) { vstore4(nan(vload4(0, c)), 0, r); }
void t_mix_bcast_float4(const float *x, const float *y, float a, float *r) { vstore4(mix(vload4(0, x), vload4(0, y), a), 0, r); }
void t_step_bcast_float3(float e, const float *x, float *r) { vstore3(step(e, vload3(0, x)), 0, r); }

/* Pointer outputs in each address space. */
void t_frexp_global_float3(const float *x, float *r, global int *e) { vstore3(frexp(vload3(0, x), (global int3 *)e), 0, r); }
void t_fract_local_float16(const float *x, float *r, local float *i) { vstore16(fract(vload16(0, x), (local float16 *)i), 0, r); }
void t_sincos_private_float8(const float *x, float *s, float *c) {
   float8 cv;
   vstore8(sincos(vload8(0, x), &cv), 0, s);
   vstore8(cv, 0, c);
}
void t_remquo_global_float4(const float *x, const float *y, float *r, global int *q) {
   vstore4(remquo(vload4(0, x), vload4(0, y), (global int4 *)q), 0, r);
}
float t_modf_local(float x, local float *i) { return modf(x, i); }
float t_lgamma_r_global(float x, global int *s) { return lgamma_r(x, s); }

/* ---- geometric ---- */
float t_length4(const float *p) { return length(vload4(0, p)); }
float t_length2(const float *p) { return length(vload2(0, p)); }
float t_distance3(const float *a, const float *b) { return distance(vload3(0, a), vload3(0, b)); }
void t_normalize4(const float *p, float *r) { vstore4(normalize(vload4(0, p)), 0, r); }
void t_normalize3(const float *p, float *r) { vstore3(normalize(vload3(0, p)), 0, r); }
float t_dot4(const float *a, const float *b) { return dot(vload4(0, a), vload4(0, b)); }
void t_cross3(const float *a, const float *b, float *r) { vstore3(cross(vload3(0, a), vload3(0, b)), 0, r); }
void t_cross4(const float *a, const float *b, float *r) { vstore4(cross(vload4(0, a), vload4(0, b)), 0, r); }
float t_fast_length3(const float *p) { return fast_length(vload3(0, p)); }
double t_length_d4(const double *p) { return length(vload4(0, p)); }
void t_normalize_d2(const double *p, double *r) { vstore2(normalize(vload2(0, p)), 0, r); }

/* ---- relational ---- */
void t_isequal4(const float *a, const float *b, int *r) { vstore4(isequal(vload4(0, a), vload4(0, b)), 0, r); }
void t_isnan16(const float *a, int *r) { vstore16(isnan(vload16(0, a)), 0, r); }
void t_isnormal3(const float *a, int *r) { vstore3(isnormal(vload3(0, a)), 0, r); }
void t_signbit8(const float *a, int *r) { vstore8(signbit(vload8(0, a)), 0, r); }
void t_islessgreater2(const float *a, const float *b, int *r) { vstore2(islessgreater(vload2(0, a), vload2(0, b)), 0, r); }
void t_isunordered4(const float *a, const float *b, int *r) { vstore4(isunordered(vload4(0, a), vload4(0, b)), 0, r); }
void t_isinf_d4(const double *a, long *r) { vstore4(isinf(vload4(0, a)), 0, r); }
int t_isinf_d(double a) { return isinf(a); }
int t_any_char16(const char *a) { return any(vload16(0, a)); }
int t_all_char16(const char *a) { return all(vload16(0, a)); }
int t_any_int3(const int *a) { return any(vload3(0, a)); }
int t_all_long2(const long *a) { return all(vload2(0, a)); }
void t_select_float4_uint(const float *a, const float *b, const uint *c, float *r) {
   vstore4(select(vload4(0, a), vload4(0, b), vload4(0, c)), 0, r);
}
void t_select_short8(const short *a, const short *b, const short *c, short *r) {
   vstore8(select(vload8(0, a), vload8(0, b), vload8(0, c)), 0, r);
}
float t_select_float(float a, float b, int c) { return select(a, b, c); }
void t_bitselect_float4(const float *a, const float *b, const float *c, float *r) {
   vstore4(bitselect(vload4(0, a), vload4(0, b), vload4(0, c)), 0, r);
}

/* ---- integer vectors ---- */
void t_add_sat_char16(const char *a, const char *b, char *r) { vstore16(add_sat(vload16(0, a), vload16(0, b)), 0, r); }
void t_sub_sat_uint4(const uint *a, const uint *b, uint *r) { vstore4(sub_sat(vload4(0, a), vload4(0, b)), 0, r); }
void t_mul_hi_long3(const long *a, const long *b, long *r) { vstore3(mul_hi(vload3(0, a), vload3(0, b)), 0, r); }
void t_mul_hi_short8(const short *a, const short *b, short *r) { vstore8(mul_hi(vload8(0, a), vload8(0, b)), 0, r); }
void t_mad_sat_int4(const int *a, const int *b, const int *c, int *r) {
   vstore4(mad_sat(vload4(0, a), vload4(0, b), vload4(0, c)), 0, r);
}
void t_mad_sat_ulong2(const ulong *a, const ulong *b, const ulong *c, ulong *r) {
   vstore2(mad_sat(vload2(0, a), vload2(0, b), vload2(0, c)), 0, r);
}
void t_rotate_uchar16(const uchar *a, const uchar *b, uchar *r) { vstore16(rotate(vload16(0, a), vload16(0, b)), 0, r); }
void t_clz_ushort8(const ushort *a, ushort *r) { vstore8(clz(vload8(0, a)), 0, r); }
void t_abs_char4(const char *a, uchar *r) { vstore4(abs(vload4(0, a)), 0, r); }
void t_abs_diff_int8(const int *a, const int *b, uint *r) { vstore8(abs_diff(vload8(0, a), vload8(0, b)), 0, r); }
void t_upsample_short4(const short *hi, const ushort *lo, int *r) { vstore4(upsample(vload4(0, hi), vload4(0, lo)), 0, r); }
void t_clamp_bcast_int8(const int *a, int lo, int hi, int *r) { vstore8(clamp(vload8(0, a), lo, hi), 0, r); }
void t_min_bcast_uchar3(const uchar *a, uchar m, uchar *r) { vstore3(min(vload3(0, a), m), 0, r); }
void t_hadd_long16(const long *a, const long *b, long *r) { vstore16(hadd(vload16(0, a), vload16(0, b)), 0, r); }
void t_rhadd_uint2(const uint *a, const uint *b, uint *r) { vstore2(rhadd(vload2(0, a), vload2(0, b)), 0, r); }
void t_mad24_int4(const int *a, const int *b, const int *c, int *r) {
   vstore4(mad24(vload4(0, a), vload4(0, b), vload4(0, c)), 0, r);
}
void t_mad_hi_uint3(const uint *a, const uint *b, const uint *c, uint *r) {
   vstore3(mad_hi(vload3(0, a), vload3(0, b), vload3(0, c)), 0, r);
}

/* ---- vload/vstore in every address space ---- */
void t_vload3_global(size_t i, const global float *p, float *r) { float3 v = vload3(i, p); r[0] = v.x; r[1] = v.y; r[2] = v.z; }
void t_vload16_constant(size_t i, constant int *p, int *r) { int16 v = vload16(i, p); for (int k = 0; k < 16; k++) r[k] = v[k]; }
void t_vload8_local(size_t i, const local short *p, short *r) { short8 v = vload8(i, p); for (int k = 0; k < 8; k++) r[k] = v[k]; }
void t_vload2_private(size_t i, const double *p, double *r) { double2 v = vload2(i, p); r[0] = v.x; r[1] = v.y; }
void t_vstore3_local(const uchar *v, size_t i, local uchar *p) { vstore3((uchar3)(v[0], v[1], v[2]), i, p); }
void t_vstore4_global(const long *v, size_t i, global long *p) { vstore4((long4)(v[0], v[1], v[2], v[3]), i, p); }
void t_vstore16_private(const float *v, size_t i, float *p) { vstore16(vload16(0, v), i, p); }

/* ---- half ---- */
float t_vload_half_global(size_t i, const global half *p) { return vload_half(i, p); }
void t_vload_half4_constant(size_t i, constant half *p, float *r) { vstore4(vload_half4(i, p), 0, r); }
void t_vloada_half3_local(size_t i, const local half *p, float *r) { vstore3(vloada_half3(i, p), 0, r); }
void t_vstore_half(float v, size_t i, global half *p) { vstore_half(v, i, p); }
void t_vstore_half_rte(float v, size_t i, global half *p) { vstore_half_rte(v, i, p); }
void t_vstore_half_rtz(float v, size_t i, local half *p) { vstore_half_rtz(v, i, p); }
void t_vstore_half_rtp(float v, size_t i, half *p) { vstore_half_rtp(v, i, p); }
void t_vstore_half_rtn(float v, size_t i, global half *p) { vstore_half_rtn(v, i, p); }
void t_vstore_half_d_rte(double v, size_t i, global half *p) { vstore_half_rte(v, i, p); }
void t_vstore_half_d_rtz(double v, size_t i, global half *p) { vstore_half_rtz(v, i, p); }
void t_vstore_half_d_rtp(double v, size_t i, global half *p) { vstore_half_rtp(v, i, p); }
void t_vstore_half_d_rtn(double v, size_t i, global half *p) { vstore_half_rtn(v, i, p); }
void t_vstore_half8_rtp(const float *v, size_t i, global half *p) { vstore_half8_rtp(vload8(0, v), i, p); }
void t_vstorea_half3_rtn(const float *v, size_t i, local half *p) { vstorea_half3_rtn(vload3(0, v), i, p); }

/* ---- shuffle ---- */
void t_shuffle_float8_4(const float *x, const uint *m, float *r) { vstore4(shuffle(vload8(0, x), vload4(0, m)), 0, r); }
void t_shuffle_uchar2_16(const uchar *x, const uchar *m, uchar *r) { vstore16(shuffle(vload2(0, x), vload16(0, m)), 0, r); }
void t_shuffle2_int4_8(const int *x, const int *y, const uint *m, int *r) {
   vstore8(shuffle2(vload4(0, x), vload4(0, y), vload8(0, m)), 0, r);
}

/* ---- atomics (the C side runs them from several threads) ---- */
int t_atomic_add_global(volatile global int *p, int v) { return atomic_add(p, v); }
uint t_atomic_inc_local(volatile local uint *p) { return atomic_inc(p); }
int t_atomic_dec_global(volatile global int *p) { return atomic_dec(p); }
int t_atomic_sub_local(volatile local int *p, int v) { return atomic_sub(p, v); }
int t_atomic_min_global(volatile global int *p, int v) { return atomic_min(p, v); }
uint t_atomic_max_local(volatile local uint *p, uint v) { return atomic_max(p, v); }
uint t_atomic_or_global(volatile global uint *p, uint v) { return atomic_or(p, v); }
uint t_atomic_and_global(volatile global uint *p, uint v) { return atomic_and(p, v); }
int t_atomic_xor_local(volatile local int *p, int v) { return atomic_xor(p, v); }
int t_atomic_xchg_global(volatile global int *p, int v) { return atomic_xchg(p, v); }
float t_atomic_xchg_float(volatile local float *p, float v) { return atomic_xchg(p, v); }
int t_atomic_cmpxchg_global(volatile global int *p, int c, int v) { return atomic_cmpxchg(p, c, v); }
uint t_atomic_cmpxchg_local(volatile local uint *p, uint c, uint v) { return atomic_cmpxchg(p, c, v); }
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
long t_atom_add_long(volatile global long *p, long v) { return atom_add(p, v); }
ulong t_atom_max_ulong(volatile local ulong *p, ulong v) { return atom_max(p, v); }
int t_atom_inc_global(volatile global int *p) { return atom_inc(p); }
long t_atom_cmpxchg_long(volatile global long *p, long c, long v) { return atom_cmpxchg(p, c, v); }

/* ---- async copies: each simulated work-item calls these ---- */
event_t t_async_to_local(local float4 *dst, const global float4 *src, size_t n) {
   return async_work_group_copy(dst, src, n, 0);
}
event_t t_async_strided_to_global(global int *dst, const local int *src, size_t n, size_t stride) {
   return async_work_group_strided_copy(dst, src, n, stride, 0);
}
event_t t_async_strided_to_local(local uchar *dst, const global uchar *src, size_t n, size_t stride) {
   return async_work_group_strided_copy(dst, src, n, stride, 0);
}
void t_wait(void) {
   event_t e = 0;
   wait_group_events(1, &e);
}
void t_prefetch(const global float *p) { prefetch(p, 16); }
