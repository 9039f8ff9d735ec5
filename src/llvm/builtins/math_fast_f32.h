/* Single-precision exp, exp2, exp10, log, log2, log10, sin, cos, pow and rsqrt
 * built from fused multiply-adds, for GPUs whose libclc versions are slow
 * (libclc-19's nvptx library: 0.3-0.5x NVIDIA's own, bench/math_bench).
 *
 * Shared by the NVPTX built-in library (math_nvptx.cl) and a host test
 * that measures every function's error against the double-precision C
 * library (tests/unit/test_math_fast_f32.c), so the algorithms are checked
 * on every CI run without a GPU.  The includer defines:
 *   KM_FN                 the functions' qualifiers
 *   KM_AS_INT, KM_AS_FLOAT  bit casts between float and int
 *   KM_FMAF, KM_FMA        fused multiply-add, float and double
 *   KM_RINTF, KM_RINT      round to nearest even, float and double
 *   KM_SIN_WIDE, KM_COS_WIDE  float sin/cos of any argument (the slow,
 *                         exact path: the double function, rounded)
 *   KM_POW_WIDE           float pow of any arguments, likewise
 *   KM_RSQRT_APPROX       a reciprocal square root good to about 2^-22
 *   KM_EX2_APPROX         2^x good to 2 ulp (PTX's ex2.approx)
 *
 * Accuracy (OpenCL C §7.4 allows 3 ulp for exp/log families, 4 for sin
 * and cos, 16 for pow, 2 for rsqrt): each function but exp2 reduces its
 * argument exactly or in double, then evaluates a polynomial fitted
 * (least squares, then reweighted to even out the relative error) over
 * the reduced range to 2^-28 or better, so that the float arithmetic's
 * own rounding dominates: the host test finds at most 1-1.5 ulp.  Results that underflow may be
 * subnormal or flushed, as the device's float denormal mode has it. */
#ifndef KILN_MATH_FAST_F32_H
#define KILN_MATH_FAST_F32_H

/* c[0] + r * (c[1] + r * (... c[5])). */
#define KM_HORNER6(r, c)                                                                      \
   KM_FMAF(KM_FMAF(KM_FMAF(KM_FMAF(KM_FMAF(c[5], r, c[4]), r, c[3]), r, c[2]), r, c[1]), r, c[0])

/* 2^n for integer n in [-252, 254], as two normal factors a * b. */
KM_FN float km_scale2(float y, int n)
{
   int n1 = n / 2, n2 = n - n1;
   return y * KM_AS_FLOAT((n1 + 127) << 23) * KM_AS_FLOAT((n2 + 127) << 23);
}

/* base^r = 1 + r * P(r) on the reduced range of each: e^r for |r| <=
 * ln2 / 2, 10^r for |r| <= log10(2) / 2. */
KM_FN float km_exp_poly(float r, int base)
{
   const float pe[6] = {1.0f, 0.4999999403953552f, 0.16666431725025177f,
                        0.04166800156235695f, 0.008374162949621677f, 0.0013843642082065344f};
   const float p10[6] = {2.3025851249694824f, 2.6509487628936768f, 2.0346498489379883f,
                         1.171292781829834f, 0.5420281887054443f, 0.20632082223892212f};
   const float *c = base == 10 ? p10 : pe;
   return KM_FMAF(r, KM_HORNER6(r, c), 1.0f);
}

/* x clamped where the result is 0 or infinity anyway; NaN stays. */
KM_FN float km_clampf(float x, float lo, float hi)
{
   return x < lo ? lo : x > hi ? hi : x;
}

/* exp2 is PTX's ex2.approx (2 ulp, what CUDA's own exp2f is).  exp and
 * exp10 reduce exactly and take the polynomial (1 ulp): the same
 * approximation after the reduction would be 2 ulp plus the reduction's
 * 0.7, too close to the limit of 3 to trust without an exhaustive run. */
KM_FN float km_exp2f(float x)
{
   return KM_EX2_APPROX(x);
}

KM_FN float km_expf(float x)
{
   if (x != x)
      return x;
   x = km_clampf(x, -104.0f, 89.0f);
   float n = KM_RINTF(x * 1.4426950216293335f);
   /* ln2 in two parts, the first with 16 bits: n * LN2_HI is exact for
    * |n| <= 256, and x - n * LN2_HI exact too (the two are close). */
   float r = KM_FMAF(-n, 0.693145751953125f, x);
   r = KM_FMAF(-n, 1.428606765330187e-06f, r);
   return km_scale2(km_exp_poly(r, 0), (int)n);
}

KM_FN float km_exp10f(float x)
{
   if (x != x)
      return x;
   x = km_clampf(x, -46.0f, 39.0f);
   float n = KM_RINTF(x * 3.321928024291992f);
   /* log10(2) in two parts, the first with 16 bits. */
   float r = KM_FMAF(-n, 0.30103302001953125f, x);
   r = KM_FMAF(-n, -3.024355464731343e-06f, r);
   return km_scale2(km_exp_poly(r, 10), (int)n);
}

/* x = m * 2^e with m in [sqrt(1/2), sqrt(2)): m - 1 (exact), *e the
 * exponent; x positive and finite (log and pow share it). */
KM_FN float km_split(float x, int *e)
{
   int adj = 0;
   if (x < 1.17549435e-38f) { /* subnormal: make it normal first */
      x *= 8388608.0f;
      adj = 23;
   }
   int bits = KM_AS_INT(x);
   int ex = ((bits >> 23) & 0xff) - 127 - adj;
   int mbits = (bits & 0x7fffff) | 0x3f800000;
   if (mbits > 0x3fb504f3) { /* m > sqrt(2): halve it */
      mbits -= 0x800000;
      ex++;
   }
   *e = ex;
   return KM_AS_FLOAT(mbits) - 1.0f;
}

/* ln(m) for x = m * 2^e (km_split), as ln1p(f), f = m - 1; *e the
 * exponent; x positive and finite. */
KM_FN float km_log_parts(float x, float *e)
{
   int ex;
   float f = km_split(x, &ex);
   *e = (float)ex;
   /* ln(1 + f) = f + f * f * R(f), R fitted on [sqrt(1/2) - 1, sqrt(2) - 1]. */
   const float c[9] = {-0.49999988079071045f, 0.33333325386047363f, -0.25001585483551025f,
                       0.20001965761184692f,  -0.16609010100364685f, 0.14181874692440033f,
                       -0.13243521749973297f, 0.12904444336891174f,  -0.07620716840028763f};
   float q = c[8];
   for (int i = 7; i >= 0; i--)
      q = KM_FMAF(q, f, c[i]);
   return KM_FMAF(f * f, q, f);
}

/* The special values every log shares: NaN, negative, 0, infinity; 0
 * when x is an ordinary positive number. */
KM_FN int km_log_special(float x, float *out)
{
   if (x != x || x < 0.0f) {
      *out = (x - x) / (x - x); /* NaN */
      return 1;
   }
   if (x == 0.0f) {
      *out = -1.0f / 0.0f;
      return 1;
   }
   if (x == 1.0f / 0.0f) {
      *out = x;
      return 1;
   }
   return 0;
}

KM_FN float km_logf(float x)
{
   float out, e;
   if (km_log_special(x, &out))
      return out;
   float t = km_log_parts(x, &e);
   /* e * ln2 in two parts (16 bits in the first: e * LN2_HI exact). */
   return KM_FMAF(e, 0.693145751953125f, KM_FMAF(e, 1.428606765330187e-06f, t));
}

KM_FN float km_log2f(float x)
{
   float out, e;
   if (km_log_special(x, &out))
      return out;
   float t = km_log_parts(x, &e);
   /* e + t * log2(e), log2(e) in two parts: one rounding at the end. */
   return KM_FMAF(t, 1.4426950216293335f, KM_FMAF(t, 1.925963033500011e-08f, e));
}

KM_FN float km_log10f(float x)
{
   float out, e;
   if (km_log_special(x, &out))
      return out;
   float t = km_log_parts(x, &e);
   /* e * log10(2) + t * log10(e), each constant in two parts. */
   float lo = KM_FMAF(e, -3.024355464731343e-06f, t * -1.0103049952192578e-08f);
   return KM_FMAF(e, 0.30103302001953125f, KM_FMAF(t, 0.4342944920063019f, lo));
}

/* sin and cos of r, |r| <= pi/4 (polynomials fitted to 2^-28 and 2^-33). */
KM_FN float km_sin_poly(float r)
{
   float r2 = r * r;
   float s = KM_FMAF(KM_FMAF(-0.0001951527810888365f, r2, 0.00833216030150652f), r2,
                     -0.16666655242443085f);
   return KM_FMAF(r * r2, s, r);
}

KM_FN float km_cos_poly(float r)
{
   float r2 = r * r;
   float c = KM_FMAF(KM_FMAF(KM_FMAF(2.4383562049479224e-05f, r2, -0.001388668199069798f), r2,
                             0.04166661947965622f),
                     r2, -0.5f);
   return KM_FMAF(r2, c, 1.0f);
}

/* x = k * pi/2 + r: r rounded to float, the quadrant k mod 4.  In double
 * (pi/2 to 106 bits in two doubles, k below 2^17): r keeps its relative
 * accuracy even right next to a multiple of pi/2. */
KM_FN float km_reduce(float x, int *q)
{
   double xd = x;
   double k = KM_RINT(xd * 0.63661977236758134);
   double r = KM_FMA(-k, 1.5707963267948966, xd);
   r = KM_FMA(-k, 6.123233995736766e-17, r);
   *q = (int)k & 3;
   return (float)r;
}

KM_FN float km_sinf(float x)
{
   float ax = x < 0.0f ? -x : x;
   if (!(ax < 65536.0f)) /* large, infinite or NaN */
      return KM_SIN_WIDE(x);
   if (ax < 2.44140625e-04f) /* 2^-12: sin x rounds to x (and keeps -0) */
      return x;
   int q;
   float r = km_reduce(x, &q);
   float v = q & 1 ? km_cos_poly(r) : km_sin_poly(r);
   return q & 2 ? -v : v;
}

KM_FN float km_cosf(float x)
{
   float ax = x < 0.0f ? -x : x;
   if (!(ax < 65536.0f))
      return KM_COS_WIDE(x);
   int q;
   float r = km_reduce(x, &q);
   float v = q & 1 ? km_sin_poly(r) : km_cos_poly(r);
   return (q + 1) & 2 ? -v : v;
}

/* pow(x, y) = e^(y ln x) for x > 0 and finite y, ln x in double (s =
 * f / (2 + f) and the atanh series to s^15: 2^-44 relative), so that the
 * product keeps its accuracy however large y is; the rest (x <= 0,
 * infinities, NaN, y = 0, x = 1: C99 Annex F's special values) is the
 * double function's. */
KM_FN float km_powf(float x, float y)
{
   float ay = y < 0.0f ? -y : y;
   if (!(x > 0.0f) || !(x < 1.0f / 0.0f) || !(ay < 1.0f / 0.0f) || y == 0.0f || x == 1.0f)
      return KM_POW_WIDE(x, y);
   int ex;
   double f = km_split(x, &ex);
   double sd = f / (2.0 + f), s2 = sd * sd;
   double q = KM_FMA(s2, 1.0 / 15, 1.0 / 13);
   q = KM_FMA(q, s2, 1.0 / 11);
   q = KM_FMA(q, s2, 1.0 / 9);
   q = KM_FMA(q, s2, 1.0 / 7);
   q = KM_FMA(q, s2, 1.0 / 5);
   q = KM_FMA(q, s2, 1.0 / 3);
   double lnx = KM_FMA((double)ex, 0.6931471805599453, 2.0 * sd * KM_FMA(q, s2, 1.0));
   double w = (double)y * lnx;
   if (w > 89.0)
      return 1.0f / 0.0f;
   if (w < -104.0)
      return 0.0f;
   double n = KM_RINT(w * 1.4426950408889634);
   double r = KM_FMA(-n, 0.6931471805599453, w);
   r = KM_FMA(-n, 2.3190468138462996e-17, r);
   return km_scale2(km_exp_poly((float)r, 0), (int)n);
}

/* One Newton step on the approximation: y + y/2 * (1 - x y^2). */
KM_FN float km_rsqrtf(float x)
{
   float y = KM_RSQRT_APPROX(x);
   if (!(x > 0.0f) || x == 1.0f / 0.0f || y == 1.0f / 0.0f)
      return y; /* 0 (or flushed), negative, NaN, infinity: as approximated */
   float h = KM_FMAF(-x * y, y, 1.0f);
   return KM_FMAF(y * 0.5f, h, y);
}

#endif
