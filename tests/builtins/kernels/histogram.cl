/* Histogram with local atomics, global atomics and the cl_khr atom_ names. */
#pragma OPENCL EXTENSION cl_khr_global_int32_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_local_int32_base_atomics : enable
kernel void histogram(global const uchar4 *pixels, uint n, global uint *bins,
                      local uint *lbins, global int *stats)
{
   size_t l = get_local_id(0);
   for (size_t b = l; b < 256; b += get_local_size(0))
      lbins[b] = 0;
   barrier(CLK_LOCAL_MEM_FENCE);
   for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) {
      uchar4 p = pixels[i];
      uint lum = convert_uint_sat_rte(dot(convert_float3(p.xyz), (float3)(0.299f, 0.587f, 0.114f)));
      atomic_inc(&lbins[min(lum, 255u)]);
      atomic_max(&stats[0], (int)lum);
      atomic_min(&stats[1], (int)lum);
   }
   barrier(CLK_LOCAL_MEM_FENCE);
   for (size_t b = l; b < 256; b += get_local_size(0)) {
      atomic_add(&bins[b], lbins[b]);
      atom_add(&stats[2], (int)lbins[b]);
   }
   if (l == 0) {
      atomic_cmpxchg(&stats[3], 0, 1);
      atomic_xchg(&stats[4], get_group_id(0));
      atom_or(&stats[5], 1 << (get_group_id(0) & 31));
   }
}
