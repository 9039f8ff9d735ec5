/* __local pointer arguments: the host sizes them at clSetKernelArg. */
__kernel void local_args(__global const float *in, __global float *out, __local float *a,
                         __local float *b)
{
   size_t l = get_local_id(0);
   a[l] = in[get_global_id(0)];
   b[l] = 2.0f * a[l];
   barrier(CLK_LOCAL_MEM_FENCE);
   out[get_global_id(0)] = a[(l + 1) % get_local_size(0)] + b[l];
}
