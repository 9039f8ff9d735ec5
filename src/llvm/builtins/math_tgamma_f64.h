/* Double-precision Γ(x) for every double x, for GPUs whose libclc
 * tgamma is exp(lgamma(|x|)) with a reflection: exp turns lgamma's
 * rounding into 16-20 ulp of Γ (libclc-19's nvptx library, CTS
 * test_bruteforce on an H200), past OpenCL's limit of 16.
 *
 * Shared by the NVPTX built-in library (math_nvptx.cl) and a host test
 * that measures its error against the x86 long double tgammal
 * (tests/unit/test_math_tgamma_f64.c).  The includer defines:
 *   KM_FN             the functions' qualifiers
 *   KM_TABLE          a read-only table's qualifiers (__constant in OpenCL)
 *   KM_EXPONENT(d)    the biased exponent field of double d (0..2047)
 *   KM_POW2(k)        2^k as a double, integer k in [-1022, 1023]
 * and has fma, floor and fabs of double, NAN and INFINITY.
 *
 * Algorithm: Γ(x) = Γ(f) (x-1)(x-2)...(f) for x >= 2 and
 * Γ(f) / (x (x+1) ... (f-1)) for x < 1, f in [1, 2) (f = x - floor(x) + 1).
 * Every factor is exact (for |x| >= 1 each is a multiple of ulp(x) no
 * larger than x) or, for x in (-1, 0), a two-sum pair; the product is
 * a double-double (error ~2^-100 a step) rescaled by powers of two after
 * every step, so it neither overflows nor underflows: results from
 * 2^1024 down to the smallest subnormal come out of one final rounding
 * (km_scale).  Γ(f) is a polynomial in t = f - c on 16 sub-intervals of
 * [1, 2) of width 1/16 (degree 11, fitted by gen_tgamma.py to 2^-62
 * relative), evaluated by Horner in double with its constant term as a
 * double-double, so Γ(f) is good to about 2^-58 and the result to about
 * 0.5 + 0.07 ulp (the host test finds 0.523).  Near the poles at the
 * negative integers the factor x + n is exact, so the amplification
 * there costs nothing.  The cost is one multiplication step a unit of
 * |x|: up to 191 (speed is not what the GPU's double tgamma is for). */
#ifndef KILN_MATH_TGAMMA_F64_H
#define KILN_MATH_TGAMMA_F64_H

/* Γ(1 + (j + 0.5) / 16 + t), |t| <= 1/32, on sub-interval j:
 * c0 as hi, lo, then c1 .. c11 (gen_tgamma.py writes this table). */
#define KM_TGAMMA_DEG 11
/* BEGIN gen_tgamma.py */
KM_TABLE double km_tgamma_coef[16][KM_TGAMMA_DEG + 2] = {
   /* 1.03125 */
   {0x1.f73ed01940522p-1, 0x1.0f91c8d84732bp-56, -0x1.092fd20dd784cp-1, 0x1.d1a2ea66d2d2ap-1,
    -0x1.966a1d7f2ac4cp-1, 0x1.af057a1b302a6p-1, -0x1.a114e81b264b7p-1, 0x1.99b2c19a85d73p-1,
    -0x1.8e73722c1bdd1p-1, 0x1.834e01cda3e46p-1, -0x1.7a55448d254a6p-1, 0x1.6da1baaa19510p-1,
    0x1.d5a8d245c913bp-1},
   /* 1.09375 */
   {0x1.e865a5b755fb9p-1, -0x1.dfd98213642d7p-55, -0x1.a6b50f60b5c6ep-2, 0x1.8e9a9675e8272p-1,
    -0x1.39251063e5c18p-1, 0x1.41a834ceb2200p-1, -0x1.237aaf3598f6fp-1, 0x1.0f0e6969581a7p-1,
    -0x1.f11314d1fb1e9p-2, 0x1.c7dcd93f9a9a5p-2, -0x1.9e5cf6b4d2ac5p-2, 0x1.7ea209167c83ap-2,
    -0x1.56df5809b1ecdp+0},
   /* 1.15625 */
   {0x1.dcac35f2a7419p-1, -0x1.482d80d0054b4p-55, -0x1.49cf184c91f8ep-2, 0x1.5ac61acea5830p-1,
    -0x1.e5d43093976c7p-2, 0x1.e91903e18a573p-2, -0x1.9eedaeb5fc274p-2, 0x1.6f0803a6390bbp-2,
    -0x1.3e2f394975bedp-2, 0x1.14456af1c3122p-2, -0x1.d9c61e1cd4ba2p-3, 0x1.9f1ee732904fbp-3,
    -0x1.f9ddf9cbcc18fp-1},
   /* 1.21875 */
   {0x1.d3aa3cecb6cd0p-1, 0x1.cee13b4eb7571p-55, -0x1.f0b8c2384c507p-3, 0x1.327dd5130efcdp-1,
    -0x1.7a2070b35813bp-2, 0x1.7a7cfacc8c47bp-2, -0x1.2c07bb9af33e8p-2, 0x1.fb755afc4f048p-3,
    -0x1.a0d9ae168f762p-3, 0x1.57c6ee4730859p-3, -0x1.1a5355c61eccbp-3, 0x1.d20a02ecf486fp-4,
    -0x1.08f49abad2e7cp-3},
   /* 1.28125 */
   {0x1.cd0ebb0c4e488p-1, 0x1.c89a30676ed52p-55, -0x1.5fa4609a59d2cp-3, 0x1.13236e09cf1b5p-1,
    -0x1.2616a66cb818dp-2, 0x1.29fb922406babp-2, -0x1.b7c0199f8cb47p-3, 0x1.658f891553412p-3,
    -0x1.16bfe6750f0f1p-3, 0x1.b6082e6e10fbap-4, -0x1.5013d02e16870p-4, 0x1.0ac9e33831c75p-4,
    -0x1.2f2b34462e6a5p-1},
   /* 1.34375 */
   {0x1.c89aaab6c10fdp-1, -0x1.7a7ad0aa8f0c5p-55, -0x1.b8d4972a0d9c0p-4, 0x1.f59ee44fdc7d4p-2,
    -0x1.c6c163713bd56p-3, 0x1.dd53c7e702520p-3, -0x1.45d61e6f25b78p-3, 0x1.0070717a405cep-3,
    -0x1.7bbbd6de2cdf0p-4, 0x1.1d1cde7e845f7p-4, -0x1.ae644bb7bd9a6p-5, 0x1.3f161da5dd17ap-5,
    0x1.924031129fb65p-3},
   /* 1.40625 */
   {0x1.c61d286fe74edp-1, 0x1.89d21f57aabadp-56, -0x1.8f960eacc3e79p-5, 0x1.d035f977bf824p-2,
    -0x1.5afe653a01c9ep-3, 0x1.850c1187f52ccp-3, -0x1.e6f8193300351p-4, 0x1.7607a0102d60ap-4,
    -0x1.06f5437f9c42dp-4, 0x1.7a848785c328cp-5, -0x1.0da671e48a3c9p-5, 0x1.7d8d9bf1706bap-6,
    -0x1.71e6f126c5a29p-7},
   /* 1.46875 */
   {0x1.c5709f063f61ep-1, 0x1.597568a1e8a4fp-55, 0x1.8e787a2ac1f9ep-8, 0x1.b3f656a4141a7p-2,
    -0x1.026537ebbdf9ap-3, 0x1.42e2dcb32b39ep-3, -0x1.6dedd35f5bf32p-4, 0x1.1533bc1947150p-4,
    -0x1.718dd1477de79p-5, 0x1.ffaa5c4c89db0p-6, -0x1.5c5c78bcd5f8bp-6, 0x1.d5c0f30ba0b3cp-7,
    -0x1.c0db1b2bd5ab0p-7},
   /* 1.53125 */
   {0x1.c678adaa16db2p-1, 0x1.68cf2d8556b00p-64, 0x1.dade0522ce28dp-5, 0x1.9f502b04aa925p-2,
    -0x1.7061698453df5p-4, 0x1.111adaebdb8e8p-3, -0x1.138a88634de42p-4, 0x1.a17aebbe30bdfp-5,
    -0x1.070784ec86eabp-5, 0x1.5fac1f9aa64c4p-6, -0x1.cc10da8c485f7p-7, 0x1.24b82e675acfap-7,
    0x1.cd1c0bea82b04p-8},
   /* 1.59375 */
   {0x1.c920953aa5d66p-1, -0x1.72a4bf7d08937p-56, 0x1.b9496a6874861p-4, 0x1.9116c2e5de8dap-2,
    -0x1.e346a34c78bf0p-5, 0x1.d74c383951706p-4, -0x1.9de756ef7939cp-5, 0x1.3f8137c35ad38p-5,
    -0x1.7a8872e60fc76p-6, 0x1.eb16f9209e4e5p-7, -0x1.33f2375f408f5p-7, 0x1.750b0675b7eb1p-8,
    0x1.b5c0b0dfc9a6cp-8},
   /* 1.65625 */
   {0x1.cd5a098928442p-1, -0x1.c52651cbd1544p-57, 0x1.3fb8f1d0abf2cp-3, 0x1.8867f0f1d2710p-2,
    -0x1.0654798b0337ap-5, 0x1.9f3d067f6a077p-4, -0x1.3412ca4f788efp-5, 0x1.f164faf3309adp-6,
    -0x1.12c9adb6de835p-6, 0x1.5c0fb0dd61903p-7, -0x1.af8be316d5935p-8, 0x1.059f67048f483p-8,
    0x1.34feb0d7b2a37p-4},
   /* 1.71875 */
   {0x1.d31c4db6ff586p-1, -0x1.4da1e04e80659p-59, 0x1.a140aba605e6ap-3, 0x1.849a7d111fe42p-2,
    -0x1.0665ee5c18ee9p-7, 0x1.75d82f746c42bp-4, -0x1.c1f8dc50143d8p-6, 0x1.8a4230f1e8aa3p-6,
    -0x1.91777ee12d5a6p-7, 0x1.f4b530b7da9d3p-8, -0x1.5441cb3927b06p-8, 0x1.55f1353effcc1p-9,
    0x1.1fc9d0797ea7fp-2},
   /* 1.78125 */
   {0x1.da6389f09f623p-1, -0x1.ce621951520a8p-56, 0x1.0131e5b57cf1ap-2, 0x1.853176b1f3b76p-2,
    0x1.c5c9000da2c03p-7, 0x1.581177700acd0p-4, -0x1.3d027c136e312p-6, 0x1.3ec6fd1003daep-6,
    -0x1.261f92375d911p-7, 0x1.6d7918382b424p-8, -0x1.a29d1b75be76cp-8, 0x1.bc4ed5280d9a3p-10,
    0x1.28141a03742a2p+0},
   /* 1.84375 */
   {0x1.e3304db941633p-1, -0x1.4b8c5eac76439p-55, 0x1.3217c4a579d7cp-2, 0x1.89d2fbae9b25bp-2,
    0x1.1807b533d67d4p-5, 0x1.43ae1d6079540p-4, -0x1.a0c110e16e3cfp-7, 0x1.0777483e8acdbp-6,
    -0x1.aed76b7b59b05p-8, 0x1.0ed390024aa26p-8, -0x1.89177a146c564p-10, 0x1.22cb81544cce5p-10,
    -0x1.cb0ddcda2f458p-3},
   /* 1.90625 */
   {0x1.ed87357995087p-1, -0x1.9529a8fc3f9e5p-56, 0x1.63cf26c2a3f66p-2, 0x1.924179f06fc8dp-2,
    0x1.b66aa00706c12p-5, 0x1.370c0b9265fc0p-4, -0x1.d632ba6822ff5p-8, 0x1.be2e3c592b7e5p-7,
    -0x1.3920d7a7347f8p-8, 0x1.97d9f5c85b697p-9, -0x1.36e1ad12b5b37p-11, 0x1.d30f49e63a0d6p-11,
    -0x1.4a0ca4fa69238p-2},
   /* 1.96875 */
   {0x1.f970ac84d0a49p-1, -0x1.a6db970cc2533p-55, 0x1.96cf0f1b4e4d0p-2, 0x1.9e56bf5311f1bp-2,
    0x1.2815a841a94dap-4, 0x1.30fa2528591cbp-4, -0x1.3d45246af7bc6p-9, 0x1.83e8c2d31ac49p-7,
    -0x1.bee42c4066988p-9, 0x1.38b5613754565p-9, -0x1.11e9ccf3c2b6ep-8, 0x1.c126b77aa95a0p-12,
    0x1.125966f806d61p+0},
};
/* END gen_tgamma.py */

/* A double-double: the value hi + lo, |lo| <= ulp(hi) / 2. */
typedef struct {
   double hi, lo;
} km_dd;

/* a + b exactly as a double-double, given |a| >= |b| (or a == 0). */
KM_FN km_dd km_fast_two_sum(double a, double b)
{
   km_dd r;
   r.hi = a + b;
   r.lo = b - (r.hi - a);
   return r;
}

/* a + b exactly as a double-double, for any finite a and b. */
KM_FN km_dd km_two_sum(double a, double b)
{
   km_dd r;
   r.hi = a + b;
   double bb = r.hi - a;
   r.lo = (a - (r.hi - bb)) + (b - bb);
   return r;
}

/* a * b, relative error about 2^-104 (the lo * lo term dropped). */
KM_FN km_dd km_dd_mul(km_dd a, km_dd b)
{
   double p = a.hi * b.hi;
   double e = fma(a.hi, b.hi, -p); /* exactly the rounding error of p */
   e = fma(a.hi, b.lo, e);
   e = fma(a.lo, b.hi, e);
   return km_fast_two_sum(p, e);
}

/* a / b, relative error about 2^-100: q1 = a.hi / b.hi correctly
 * rounded leaves the remainder a.hi - q1 b.hi exact (fma). */
KM_FN km_dd km_dd_div(km_dd a, km_dd b)
{
   double q1 = a.hi / b.hi;
   double r = fma(-q1, b.hi, a.hi);
   r = r + a.lo;
   r = fma(-q1, b.lo, r);
   return km_fast_two_sum(q1, r / b.hi);
}

/* a scaled by 2^-k into [1, 2) in magnitude, *e += k; a.hi finite and
 * not zero, |a.hi| < 2^1000.  A subnormal a.hi is made normal first. */
KM_FN km_dd km_dd_norm(km_dd a, int *e)
{
   if (fabs(a.hi) < 0x1p-1000) {
      a.hi *= 0x1p600;
      a.lo *= 0x1p600;
      *e -= 600;
   }
   int k = KM_EXPONENT(a.hi) - 1023;
   double s = KM_POW2(-k);
   a.hi *= s;
   a.lo *= s;
   *e += k;
   return a;
}

/* (r.hi + r.lo) * 2^e rounded once (|r.hi| in [2^-3, 2^3], |e| <= 2000):
 * r.hi times the first factor is exact, the second rounds (to a
 * subnormal, or overflows to infinity, as the exact value would).  r.hi
 * is r rounded to 53 bits already, which gives the right result unless
 * r.hi lands exactly halfway between two subnormals: then r.lo decides
 * (rounding r.hi + r.lo first and then to the subnormal was 0.75 ulp
 * off at -170.7, found by the host test). */
KM_FN double km_scale(km_dd r, int e)
{
   int e1 = e / 2, e2 = e - e1;
   double a = r.hi * KM_POW2(e1);
   double s = a * KM_POW2(e2);
   if (fabs(s) < 0x1p-1022) { /* e2 < -500 */
      double d = a - s * KM_POW2(-e2); /* what the rounding took off, exact */
      if (fabs(d) == KM_POW2(-1075 - e2) && d * r.lo > 0)
         s += d > 0 ? 0x1p-1074 : -0x1p-1074;
   }
   return s;
}

/* Γ(1 + (j + 0.5) / 16 + t) as a double-double, |t| <= 1/32 (a hair
 * more from rounding is fine: the fit holds a little beyond). */
KM_FN km_dd km_gamma_1_2(int j, double t)
{
   double q = km_tgamma_coef[j][KM_TGAMMA_DEG + 1];
   for (int i = KM_TGAMMA_DEG; i >= 2; i--)
      q = fma(q, t, km_tgamma_coef[j][i]);
   /* c0 + t q: t q is below 0.02 (|c1| < 0.58), so its rounding and
    * q's are 2^-58 of the result at most. */
   return km_fast_two_sum(km_tgamma_coef[j][0], fma(q, t, km_tgamma_coef[j][1]));
}

KM_FN double km_tgamma(double x)
{
   if (x != x)
      return x;
   if (x == 0)
      return 1.0 / x; /* ±inf, the zero's sign (C99 F.9.5.4) */
   double n = floor(x);
   if (x < 0 && x == n)
      return NAN; /* the poles, and -inf */
   if (x > 172)
      return INFINITY; /* Γ overflows from 171.62437695630272 */
   if (x < -190) {
      /* |Γ| < 2^-1200 here (the closest double to a pole is 2^-45 away,
       * and 1 / (190! 2^-45) is far below the smallest subnormal): a
       * zero with Γ's sign on (n, n + 1), positive for even n. */
      double h = n * 0.5;
      return floor(h) == h ? 0.0 : -0.0;
   }
   /* Sub-interval j of f = x - n + 1 in [1, 2) and t = f - its centre:
    * exact for |x| >= 1, one rounding below 2^-58 otherwise (x - n may
    * round up to 1 for tiny negative x: j is clamped). */
   int j = (int)((x - n) * 16);
   j = j > 15 ? 15 : j;
   double t = x + (-n - (j + 0.5) * 0.0625);
   km_dd g = km_gamma_1_2(j, t);
   int e = 0;
   km_dd p, r;
   if (x >= 2) {
      /* Γ(x) = Γ(f) (x-1) (x-2) ... (x-m), x - m = f. */
      int m = (int)n - 1;
      p.hi = x - 1;
      p.lo = 0;
      p = km_dd_norm(p, &e);
      for (int k = 2; k <= m; k++) {
         km_dd a;
         a.hi = x - k;
         a.lo = 0;
         p = km_dd_norm(km_dd_mul(p, a), &e);
      }
      r = km_dd_mul(g, p);
   } else if (x < 1) {
      /* Γ(x) = Γ(f) / (x (x+1) ... (x+m-1)), x + m = f. */
      int m = 1 - (int)n;
      p.hi = x;
      p.lo = 0;
      p = km_dd_norm(p, &e);
      for (int k = 1; k < m; k++)
         p = km_dd_norm(km_dd_mul(p, km_two_sum(x, k)), &e);
      r = km_dd_div(g, p);
      e = -e;
   } else {
      r = g;
   }
   return km_scale(r, e);
}

#endif
