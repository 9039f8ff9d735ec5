/* A private array indexed with run-time values, too big for registers:
 * it must live in scratch memory. */
__kernel void private_array(__global const int *idx, __global int *out)
{
   int buf[256];
   int i = get_global_id(0);
   for (int k = 0; k < 256; k++)
      buf[k] = i * k + idx[k];
   out[i] = buf[idx[i] & 255] + buf[(idx[i] >> 8) & 255];
}
