#!/usr/bin/python3
"""pyopencl against numpy on the one OpenCL platform the loader shows.

Each check prints what it compared and the largest difference; the script
exits 1 on the first wrong result.  Sizes are small (a few seconds on two
cores), but odd, so that partial work-groups and scan carries are used.
"""
import sys

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pyopencl.clmath as clmath
import pyopencl.clrandom as clrandom
import pyopencl.reduction
import pyopencl.scan

failed = False


def check(what, ok, detail):
    global failed
    print(f"pyopencl: {'ok  ' if ok else 'FAIL'} {what}: {detail}", flush=True)
    if not ok:
        failed = True


def close(what, got, want, rtol):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    err = np.max(np.abs(got - want) / np.maximum(np.abs(want), 1.0))
    check(what, bool(err <= rtol), f"max relative error {err:.3g} (limit {rtol:g})")


def equal(what, got, want):
    got = np.asarray(got)
    want = np.asarray(want)
    bad = int(np.count_nonzero(got != want))
    check(what, bad == 0 and got.shape == want.shape,
          f"{bad} of {want.size} elements differ")


platforms = cl.get_platforms()
names = [p.name for p in platforms]
print(f"pyopencl: platforms {names}")
if len(platforms) != 1:
    print("pyopencl: FAIL expected exactly one platform", file=sys.stderr)
    sys.exit(1)
dev = platforms[0].get_devices()[0]
print(f"pyopencl: device {dev.name!r}, OpenCL C {dev.opencl_c_version!r}")
ctx = cl.Context([dev])
q = cl.CommandQueue(ctx)
rng = np.random.default_rng(1234)
n = 100_003

# Element-wise arithmetic and math functions through pyopencl.array.
a = rng.standard_normal(n).astype(np.float32)
b = rng.standard_normal(n).astype(np.float32)
da, db = cla.to_device(q, a), cla.to_device(q, b)
close("array a*b + 2*a - b", (da * db + 2 * da - db).get(), a * b + 2 * a - b, 1e-6)
close("array sin(a) + exp(b)", (clmath.sin(da) + clmath.exp(db)).get(), np.sin(a) + np.exp(b), 1e-5)
close("array sqrt(|a|) (clmath)", clmath.sqrt(abs(da)).get(), np.sqrt(np.abs(a)), 1e-6)
ai = rng.integers(-1000, 1000, n).astype(np.int32)
bi = rng.integers(1, 1000, n).astype(np.int32)
dai, dbi = cla.to_device(q, ai), cla.to_device(q, bi)
equal("int32 array (a*3 + b) ^ b", ((dai * 3 + dbi) ^ dbi).get(), (ai * 3 + bi) ^ bi)
if dev.double_fp_config:
    ad = rng.standard_normal(n)
    close("float64 array a*a + 1", (cla.to_device(q, ad) ** 2 + 1).get(), ad * ad + 1, 1e-15)

# Reductions: the library's sum/max/dot and a ReductionKernel of our own.
close("sum(a)", cla.sum(da).get(), np.sum(a, dtype=np.float64), 1e-4)
equal("max(a)", cla.max(da).get(), np.max(a))
equal("min(int32)", cla.min(dai).get(), np.min(ai))
close("dot(a, b)", cla.dot(da, db).get(), np.dot(a.astype(np.float64), b), 1e-3)
sumsq = pyopencl.reduction.ReductionKernel(
    ctx, np.float32, neutral="0", reduce_expr="a+b",
    map_expr="x[i]*x[i]", arguments="__global const float *x")
close("ReductionKernel sum(a*a)", sumsq(da).get(), np.sum(a.astype(np.float64) ** 2), 1e-4)
equal("int32 sum (exact)", cla.sum(dai).get(), np.sum(ai))

# Scans: inclusive and exclusive prefix sums (integers: exact).
ones = rng.integers(0, 7, n).astype(np.int32)
dones = cla.to_device(q, ones)
inc = pyopencl.scan.InclusiveScanKernel(ctx, np.int32, "a+b", neutral="0")
exc = pyopencl.scan.ExclusiveScanKernel(ctx, np.int32, "a+b", neutral="0")
d1 = dones.copy()
inc(d1)
equal("inclusive scan (int32)", d1.get(), np.cumsum(ones, dtype=np.int32))
d2 = dones.copy()
exc(d2)
equal("exclusive scan (int32)", d2.get(),
      np.concatenate(([0], np.cumsum(ones, dtype=np.int32)[:-1])).astype(np.int32))
# A GenericScanKernel that compacts: indices of the positive elements.
copy_if = pyopencl.scan.GenericScanKernel(
    ctx, np.int32,
    arguments="__global const float *x, __global int *out",
    input_expr="x[i] > 0 ? 1 : 0", scan_expr="a+b", neutral="0",
    output_statement="if (prev_item != item) out[item - 1] = i;")
dout = cla.zeros(q, n, np.int32)
copy_if(da, dout)
want = np.nonzero(a > 0)[0].astype(np.int32)
equal("GenericScanKernel compaction", dout.get()[:want.size], want)

# Random numbers: the generators must fill in the right range with the
# right moments (n = 1e6 samples: a statistic off by 5 sigma fails).
m = 1_000_000
for gen in (clrandom.PhiloxGenerator(ctx, seed=7), clrandom.ThreefryGenerator(ctx, seed=7)):
    name = type(gen).__name__
    u = gen.uniform(q, m, np.float32, a=0, b=1).get()
    check(f"{name} uniform in [0,1)", bool(np.all((u >= 0) & (u < 1))),
          f"min {u.min():.9g} max {u.max():.9g}")
    se = np.sqrt(1 / 12 / m)
    close(f"{name} uniform mean", u.mean(), 0.5, 5 * se)
    g = gen.normal(q, m, np.float32, mu=0, sigma=1).get()
    close(f"{name} normal mean", g.mean(), 0.0, 5 / np.sqrt(m))
    close(f"{name} normal variance", g.var(), 1.0, 5 * np.sqrt(2 / m))
    # Same seed, same numbers: the stream is deterministic.
    again = type(gen)(ctx, seed=7).uniform(q, m, np.float32, a=0, b=1).get()
    equal(f"{name} same seed, same stream", again, u)

if failed:
    print("pyopencl: some checks FAILED", file=sys.stderr)
    sys.exit(1)
print("pyopencl: all checks passed")
