/* Kiln's benchmark kernels: one source, built unchanged on every platform.
 * kiln_bench embeds this file (bench/meson.build turns it into a C string)
 * so both platforms compile exactly the same text. */

/* 1. Streaming: y = a*x + y, one element per work-item. */
__kernel void saxpy(float a, __global const float *x, __global float *y)
{
   size_t i = get_global_id(0);
   y[i] = a * x[i] + y[i];
}

/* 2. Tiled SGEMM, C = A*B, square n x n (n a multiple of TS), row-major.
 * Work-group TS x TS; each step stages one tile of A and one of B in
 * __local memory between two barriers. */
#define TS 16
__kernel void sgemm_tiled(int n, __global const float *A, __global const float *B,
                          __global float *C)
{
   __local float As[TS][TS];
   __local float Bs[TS][TS];
   int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
   int col = (int)get_group_id(0) * TS + tx;
   int row = (int)get_group_id(1) * TS + ty;
   float acc = 0.0f;
   for (int t = 0; t < n; t += TS) {
      As[ty][tx] = A[row * n + t + tx];
      Bs[ty][tx] = B[(t + ty) * n + col];
      barrier(CLK_LOCAL_MEM_FENCE);
      for (int k = 0; k < TS; k++)
         acc += As[ty][k] * Bs[k][tx];
      barrier(CLK_LOCAL_MEM_FENCE);
   }
   C[row * n + col] = acc;
}

/* 3. Sum reduction, work-group size RL.  Each work-item first adds the
 * elements i = gid, gid + gsize, ... (the GPU-style grid-stride loop:
 * neighbouring work-items read neighbouring elements, which coalesces on a
 * GPU; with few groups each work-item sums many elements; with gsize = n
 * exactly one), then the group reduces its RL partial sums as a tree in
 * __local memory, one barrier per level, and work-item 0 writes the
 * group's sum.  The host adds the group sums. */
#define RL 256
__kernel void reduce_sum(__global const float *in, __global float *partial, uint n)
{
   __local float scratch[RL];
   uint lid = (uint)get_local_id(0);
   uint gid = (uint)get_global_id(0), gsize = (uint)get_global_size(0);
   float s = 0.0f;
   for (uint i = gid; i < n; i += gsize)
      s += in[i];
   scratch[lid] = s;
   barrier(CLK_LOCAL_MEM_FENCE);
   for (uint off = RL / 2; off > 0; off >>= 1) {
      if (lid < off)
         scratch[lid] += scratch[lid + off];
      barrier(CLK_LOCAL_MEM_FENCE);
   }
   if (lid == 0)
      partial[get_group_id(0)] = scratch[0];
}

/* 4. Transcendental-heavy: five libm-class functions per element, the kind
 * of kernel where a driver's math library (not memory) sets the speed. */
__kernel void math_mix(__global const float *x, __global float *y)
{
   size_t i = get_global_id(0);
   float a = x[i];
   y[i] = sin(a) + cos(a) * exp(-a * a) + log(1.0f + fabs(a)) + pow(fabs(a) + 1.0f, 0.3f);
}

/* 5. The same sum, CPU-style: each work-item adds one contiguous chunk of
 * ceil(n / gsize) elements (one thread streams through its own range, which
 * the CPU's prefetcher likes and a GPU's coalescing does not), then the
 * same __local tree as reduce_sum.  Same data and grid as reduce_sum, so
 * the two rows differ only in the access pattern. */
__kernel void reduce_chunked(__global const float *in, __global float *partial, uint n)
{
   __local float scratch[RL];
   uint lid = (uint)get_local_id(0);
   uint gid = (uint)get_global_id(0), gsize = (uint)get_global_size(0);
   uint chunk = (n + gsize - 1) / gsize;
   uint begin = gid * chunk, end = min(begin + chunk, n);
   float s = 0.0f;
   for (uint i = begin; i < end; i++)
      s += in[i];
   scratch[lid] = s;
   barrier(CLK_LOCAL_MEM_FENCE);
   for (uint off = RL / 2; off > 0; off >>= 1) {
      if (lid < off)
         scratch[lid] += scratch[lid + off];
      barrier(CLK_LOCAL_MEM_FENCE);
   }
   if (lid == 0)
      partial[get_group_id(0)] = scratch[0];
}

/* 6. Nothing: the launch rows time what the runtime costs per launch. */
__kernel void empty(void)
{
}

/* 7. saxpy as pyopencl's elementwise template writes it: a grid-stride
 * loop from the group's start, launched with compute units x 32 groups
 * of 128 work-items (pyopencl.array's _splay), whatever the size. */
__kernel void saxpy_strided(float a, __global const float *x, __global float *y, long n)
{
   int lid = get_local_id(0);
   int gsize = get_global_size(0);
   int work_group_start = get_local_size(0) * get_group_id(0);
   for (long i = work_group_start + lid; i < n; i += gsize)
      y[i] = a * x[i] + y[i];
}
