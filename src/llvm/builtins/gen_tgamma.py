#!/usr/bin/python3
"""Writes the coefficient table of math_tgamma_f64.h: Γ(1 + (j + 0.5) / 16 + t)
for |t| <= 1/32, j = 0..15, as polynomials of degree 11 in t, the constant
term a double-double (hi, lo), the others doubles.

Run by hand (the build does not):  src/llvm/builtins/gen_tgamma.py [HEADER]
It rewrites the lines between the BEGIN/END gen_tgamma.py markers of HEADER
(default: math_tgamma_f64.h beside it) and prints each sub-interval's
fitting error, checked at 201 points over the sub-interval (and 0.1% past
its ends) against Γ at 70 significant digits.

Γ itself, with the standard library only: Stirling's series for ln Γ(z)
with exact Bernoulli numbers (40 terms) at z = f + 40, where its error is
below 1e-70, and Γ(f) = Γ(f + 40) / (f (f+1) ... (f+39)); π by Machin's
formula.  Checked against Γ(1) = Γ(2) = 1, Γ(1.5) = √π / 2 and Γ(5) = 24
(to 60 digits) before anything is written.

The fit: weighted (relative) least squares on 48 Chebyshev points of each
sub-interval, then the coefficients rounded to double one at a time from
c0 up, the higher ones refitted to what each rounding left, so the
rounding of c0 (kept to 106 bits) and the others does not add up.
"""
import os
import sys
from decimal import Decimal as D, getcontext
from fractions import Fraction as F

getcontext().prec = 70

NSUB = 16  # sub-intervals of [1, 2)
DEG = 11  # polynomial degree (the header's KM_TGAMMA_DEG)

def pi():
    """π by Machin's formula, 16 atan(1/5) - 4 atan(1/239)."""
    def atan_inv(n):
        x = D(1) / n
        x2, s, t, k = x * x, x, x, 1
        while True:
            t = -t * x2
            k += 2
            if abs(t / k) < D(10) ** -75:
                return s
            s += t / k
    return 16 * atan_inv(5) - 4 * atan_inv(239)


PI = pi()


def bernoulli(n):
    """B_0 .. B_n exactly (the Akiyama-Tanigawa algorithm; B_1 = +1/2,
    which the series below does not use)."""
    a, out = [F(0)] * (n + 1), []
    for m in range(n + 1):
        a[m] = F(1, m + 1)
        for j in range(m, 0, -1):
            a[j - 1] = j * (a[j - 1] - a[j])
        out.append(a[0])
    return out


B = bernoulli(80)
HALF_LN_2PI = (2 * PI).ln() / 2


def lgamma_big(z):
    """ln Γ(z) for z >= 40 by Stirling's series, 40 terms: the next one is
    below 1e-70."""
    s = (z - D('0.5')) * z.ln() - z + HALF_LN_2PI
    zp, z2 = z, z * z
    for k in range(1, 41):
        b = B[2 * k]
        s += D(b.numerator) / D(b.denominator) / (2 * k * (2 * k - 1)) / zp
        zp *= z2
    return s


def gamma(x):
    """Γ(x) for x > 0 (70 digits): Γ(x + 40) / (x (x+1) ... (x+39))."""
    x = D(x)
    p = D(1)
    for k in range(40):
        p *= x + k
    return lgamma_big(x + 40).exp() / p


def pw(x, k):
    """x^k for integer k >= 0 (Decimal's ** refuses 0^0)."""
    r = D(1)
    for _ in range(k):
        r *= x
    return r


def dcos(a):
    s, t, k = D(1), D(1), 0
    while True:
        t = -t * a * a / ((k + 1) * (k + 2))
        k += 2
        if abs(t) < D(10) ** -72:
            return s
        s += t


def cheb_nodes(n):
    """The n Chebyshev points of the first kind on [-1, 1] (none is 0 for
    even n)."""
    return [dcos(PI * (2 * i + 1) / (2 * n)) for i in range(n)]


def solve(a, b):
    """x with a x = b, Gaussian elimination with partial pivoting."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            for k in range(c, n + 1):
                m[r][k] -= f * m[c][k]
    x = [D(0)] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][k] * x[k] for k in range(r + 1, n))) / m[r][r]
    return x


def lsq(rows, vals):
    """Least-squares solution of rows x = vals (normal equations: 70
    digits leave plenty for their squared condition)."""
    n = len(rows[0])
    a = [[sum(r[i] * r[j] for r in rows) for j in range(n)] for i in range(n)]
    b = [sum(r[i] * v for r, v in zip(rows, vals)) for i in range(n)]
    return solve(a, b)


def fit(center, h, deg):
    """Coefficients (c0 hi, c0 lo, c1 .. c_deg), doubles, of Γ(center + t)
    for |t| <= h, and their exact values: each rounded in turn from c0 up,
    the higher ones refitted to what the roundings left (relative least
    squares on 4 (deg + 1) Chebyshev points, in u = t / h)."""
    us = cheb_nodes(4 * (deg + 1))
    gs = [gamma(center + u * h) for u in us]
    cs, out = [], []
    for k in range(deg + 1):
        rows, vals = [], []
        for u, g in zip(us, gs):
            t = u * h
            rows.append([pw(u, i) / g for i in range(k, deg + 1)])
            vals.append((g - sum(c * pw(t, i) for i, c in enumerate(cs))) / g)
        a = lsq(rows, vals)[0] / pw(h, k)
        if k == 0:
            hi = float(a)  # float(Decimal) rounds correctly
            lo = float(a - D(hi))
            out += [hi, lo]
            cs.append(D(hi) + D(lo))
        else:
            out.append(float(a))
            cs.append(D(out[-1]))
    return out, cs


def err(center, h, cs, pts=200):
    """Max relative error of the polynomial cs (exact values) against Γ at
    pts + 1 points from 1.001 h left of center to 1.001 h right of it."""
    m = D(0)
    for i in range(pts + 1):
        t = h * (D('-1.001') + D('2.002') * i / pts)
        g = gamma(center + t)
        p = sum(c * pw(t, k) for k, c in enumerate(cs))
        m = max(m, abs(p - g) / g)
    return m


def check_gamma():
    tol = D(10) ** -60
    assert abs(gamma(1) - 1) < tol and abs(gamma(2) - 1) < tol
    assert abs(gamma(5) - 24) < tol * 24
    assert abs(gamma(D('1.5')) - PI.sqrt() / 2) < tol


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    header = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, 'math_tgamma_f64.h')
    check_gamma()
    h = D(1) / (2 * NSUB)
    rows, worst = [], 0.0
    for j in range(NSUB):
        c = 1 + D(2 * j + 1) / (2 * NSUB)
        out, cs = fit(c, h, DEG)
        e = float(err(c, h, cs))
        worst = max(worst, e)
        print('sub-interval %2d: centre %s, max relative error %.3g' % (j, c, e))
        vals = [v.hex() for v in out]
        lines = [', '.join(vals[i:i + 4]) for i in range(0, len(vals), 4)]
        rows.append('   /* ' + str(c) + ' */\n   {' + ',\n    '.join(lines) + '},')
    print('worst %.3g' % worst)
    table = ['KM_TABLE double km_tgamma_coef[%d][KM_TGAMMA_DEG + 2] = {' % NSUB] + rows + ['};']
    text = open(header).read().split('\n')
    b = text.index('/* BEGIN gen_tgamma.py */')
    e = text.index('/* END gen_tgamma.py */')
    text[b + 1:e] = table
    with open(header, 'w') as f:
        f.write('\n'.join(text))


if __name__ == '__main__':
    main()
