#!/usr/bin/env python3
"""Generates convert.cl: every OpenCL C explicit conversion (§6.2.3)

    convert_<dst><n>[_sat][_rte|_rtz|_rtp|_rtn](<src><n>)

for all scalar types char..ulong, float, double, half (cl_khr_fp16) and n
in {'', 2, 3, 4, 8, 16}; _sat only for integer destinations.  Written once here instead of
~5,400 hand-written functions.

Rules (§6.2.3.2-3): integer->integer wraps (or saturates) and ignores the
rounding mode; float->integer rounds per mode, default rtz, and _sat also
maps NaN to 0; integer->float and double->float round per mode, default
rte.  Whatever is width-generic is emitted once per width with vector
builtins; the few directed-rounding cases with no vector form are
computed per element by helpers at the top of the output.

half: from half everything is exact (to float/double) or goes the float
way (to integers: half values are floats); to half, round to nearest is
LLVM's fptrunc/sitofp (correct: an integer that float cannot hold
overflows half anyway), and the directed modes round float or double
bits directly (kiln_half.h), integers first to float in the same
direction (rounding twice toward the same side is rounding once).
"""
import sys

TYPES = {
    # name: (bits, signed, is_float)
    'char': (8, True, False), 'uchar': (8, False, False),
    'short': (16, True, False), 'ushort': (16, False, False),
    'int': (32, True, False), 'uint': (32, False, False),
    'long': (64, True, False), 'ulong': (64, False, False),
    'float': (32, True, True), 'double': (64, True, True),
    'half': (16, True, True),
}
WIDTHS = ['', '2', '3', '4', '8', '16']
MODES = ['', '_rte', '_rtz', '_rtp', '_rtn']
MANTISSA = {'half': 11, 'float': 24, 'double': 53}


def is_float(t):
    return TYPES[t][2]


def int_range(t):
    bits, signed, _ = TYPES[t]
    if signed:
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def lit(v):
    """An integer literal for v that C parses with the right value."""
    if v < -(1 << 63) + 1:
        return '(-%dL - 1)' % ((1 << 63) - 1)
    if v > (1 << 63) - 1:
        return '%dUL' % v
    return '%dL' % v


def cvt(x, t, n):
    """Value conversion without saturation, scalar or vector."""
    if n == '':
        return '(%s)(%s)' % (t, x)
    return '__builtin_convertvector(%s, %s%s)' % (x, t, n)


def exact_to_float(src, dst):
    """Whether every src value is representable in float type dst."""
    bits, signed, isf = TYPES[src]
    if isf:
        return TYPES[src][0] <= TYPES[dst][0]
    return bits - (1 if signed else 0) <= MANTISSA[dst]


ROUND = {'': '__builtin_elementwise_trunc', '_rtz': '__builtin_elementwise_trunc',
         '_rte': '__builtin_elementwise_rint', '_rtp': '__builtin_elementwise_ceil',
         '_rtn': '__builtin_elementwise_floor'}


def body_int_to_int(src, dst, n, sat):
    if not sat:
        return 'return %s;' % cvt('x', dst, n)
    smin, smax = int_range(src)
    dmin, dmax = int_range(dst)
    v = 'x'
    if dmin > smin:
        v = '__builtin_elementwise_max(%s, (%s%s)(%s)%s)' % (v, src, n, src, lit(dmin))
    if dmax < smax:
        v = '__builtin_elementwise_min(%s, (%s%s)(%s)%s)' % (v, src, n, src, lit(dmax))
    return 'return %s;' % cvt(v, dst, n)


def body_float_to_int(src, dst, n, sat, mode):
    r = '%s(x)' % ROUND[mode]
    bits, signed, _ = TYPES[dst]
    if not sat:
        # Out-of-range results are implementation-defined (§6.2.3.3).
        # Narrow types go through int and uint through long, so that
        # in-range negative or wide values wrap instead of being poison.
        if bits < 32:
            return 'return %s;' % cvt(cvt(r, 'int', n), dst, n)
        if dst == 'uint':
            return 'return %s;' % cvt(cvt(r, 'long', n), dst, n)
        return 'return %s;' % cvt(r, dst, n)
    # Saturate in double, where every bound of a <= 32-bit type is exact
    # and float converts exactly; NaN -> 0 first (fmin/fmax would drop it).
    lines = ['double%s d = %s;' % (n, cvt(r, 'double', n)),
             'd = d != d ? (double%s)0.0 : d;' % n]
    dmin, dmax = int_range(dst)
    if bits <= 32:
        lines.append('d = __builtin_elementwise_max(__builtin_elementwise_min(d, (double%s)%d.0), (double%s)%d.0);'
                     % (n, dmax, n, dmin))
        lines.append('return %s;' % cvt('d', dst, n))
    else:
        # 2^63-1 / 2^64-1 are not doubles: clamp below the limit, then
        # pick the maximum for anything at or beyond 2^63 / 2^64.
        top = '0x1p63' if signed else '0x1p64'
        below = '0x1.fffffffffffffp62' if signed else '0x1.fffffffffffffp63'
        lines.append('%s%s r = %s;' % (dst, n, cvt(
            '__builtin_elementwise_max(__builtin_elementwise_min(d, (double%s)%s), (double%s)%s)'
            % (n, below, n, '-0x1p63' if signed else '0.0'), dst, n)))
        lines.append('return d >= (double%s)%s ? (%s%s)%s : r;' % (n, top, dst, n, lit(dmax)))
    return '\n   '.join(lines)


def body_scalar_directed(src, dst, mode):
    """Scalar int->float or double->float conversion, directed modes."""
    m = {'_rtz': 'RTZ', '_rtp': 'RTP', '_rtn': 'RTN'}[mode]
    if dst == 'half':
        if src == 'double':
            return 'return as_half(double_to_half_bits(x, %s));' % m
        if src == 'float':
            return 'return as_half(float_to_half_bits(x, %s));' % m
        return 'return as_half(float_to_half_bits(convert_float%s(x), %s));' % (mode, m)
    if is_float(src):
        return 'return kiln_d2f(x, %s);' % m
    mag = 'ulong'
    helper = 'kiln_u2%s' % ('f' if dst == 'float' else 'd')
    if TYPES[src][1]:
        return ('ulong mag = x < 0 ? -(ulong)(long)x : (ulong)(long)x;\n'
                '   return %s(mag, x < 0, %s);' % (helper, m))
    return 'return %s((ulong)x, 0, %s);' % (helper, m)


def fname(dst, n, suffix):
    return 'convert_%s%s%s' % (dst, n, suffix)


def emit(out, src, dst, n, sat, mode):
    suffix = ('_sat' if sat else '') + mode
    name = fname(dst, n, suffix)
    sig = 'OVL %s%s %s(%s%s x)' % (dst, n, name, src, n)
    if not is_float(dst):
        if is_float(src):
            body = body_float_to_int(src, dst, n, sat, mode)
        else:
            body = body_int_to_int(src, dst, n, sat)
    elif src == dst or mode in ('', '_rte') or exact_to_float(src, dst):
        body = 'return %s;' % cvt('x', dst, n)
    elif n == '':
        body = body_scalar_directed(src, dst, mode)
    else:
        # Directed rounding has no vector instruction: halves.
        lo, hi = ('x.s01', 'x.s2') if n == '3' else ('x.lo', 'x.hi')
        hn = {'2': '', '3': ('2', ''), '4': '2', '8': '4', '16': '8'}[n]
        hl, hh = hn if n == '3' else (hn, hn)
        body = 'return (%s%s)(%s(%s), %s(%s));' % (dst, n, fname(dst, hl, suffix), lo,
                                                    fname(dst, hh, suffix), hi)
    out.append('%s {\n   %s\n}' % (sig, body))


PRELUDE = r'''/* Generated by gen_convert.py: do not edit. */
#include "kiln_cl.h"
#include "kiln_half.h"          /* INTERNAL, the rounding modes, half bits */

/* Magnitude m (sign neg) to float/double rounded toward zero, +inf or -inf:
 * keep the top 24/53 significant bits, add one unit when rounding away from
 * zero and bits were dropped, and scale back by a power of two (exact; a
 * carry to 2^24/2^53 is exact too). */
INTERNAL float kiln_u2f(ulong m, int neg, int mode)
{
   float r;
   if (m < (1ul << 24)) {
      r = (float)m;
   } else {
      int shift = 40 - __builtin_clzg(m);
      ulong top = m >> shift;
      bool away = (mode == RTP && !neg) || (mode == RTN && neg);
      top += away && (m & ((1ul << shift) - 1)) != 0;
      r = (float)top * as_float((uint)(127 + shift) << 23);
   }
   return neg ? -r : r;
}

INTERNAL double kiln_u2d(ulong m, int neg, int mode)
{
   double r;
   if (m < (1ul << 53)) {
      r = (double)m;
   } else {
      int shift = 11 - __builtin_clzg(m);
      ulong top = m >> shift;
      bool away = (mode == RTP && !neg) || (mode == RTN && neg);
      top += away && (m & ((1ul << shift) - 1)) != 0;
      r = (double)top * (double)(1u << shift);
   }
   return neg ? -r : r;
}

/* double to float, directed: round to nearest, then step one ulp toward
 * the wanted direction if that went the wrong way.  Works through
 * overflow (inf steps back to FLT_MAX), denormals and zeros; NaN compares
 * false everywhere and passes through. */
INTERNAL float kiln_d2f(double d, int mode)
{
   float f = (float)d;
   double back = (double)f;
   bool down = (mode == RTZ) ? __builtin_fabs(back) > __builtin_fabs(d)
             : (mode == RTN) ? back > d : false;
   bool up = (mode == RTP) ? back < d : false;
   if (mode == RTZ && down)
      return as_float(as_uint(f) - 1);          /* magnitude one step smaller */
   if (down)                                     /* toward -inf */
      return f == 0.0f ? -0x1p-149f : (f > 0 ? as_float(as_uint(f) - 1) : as_float(as_uint(f) + 1));
   if (up)                                       /* toward +inf */
      return f == 0.0f ? 0x1p-149f : (f > 0 ? as_float(as_uint(f) + 1) : as_float(as_uint(f) - 1));
   return f;
}
'''


def main():
    out = [PRELUDE]
    for dst in TYPES:
        for src in TYPES:
            for n in WIDTHS:
                for sat in ([False, True] if not is_float(dst) else [False]):
                    for mode in MODES:
                        emit(out, src, dst, n, sat, mode)
    text = '\n'.join(out) + '\n'
    if len(sys.argv) > 1:
        with open(sys.argv[1], 'w') as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == '__main__':
    main()
