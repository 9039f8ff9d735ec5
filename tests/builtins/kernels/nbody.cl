/* N-body step: float4 math, rsqrt, native_*, mad, dot, local tiles. */
kernel void nbody(global const float4 *pos, global float4 *vel, global float4 *out,
                  local float4 *tile, float dt, float eps2)
{
   size_t i = get_global_id(0), n = get_global_size(0), l = get_local_id(0), ls = get_local_size(0);
   float4 p = pos[i], acc = (float4)(0.0f);
   for (size_t t = 0; t < n; t += ls) {
      tile[l] = pos[t + l];
      barrier(CLK_LOCAL_MEM_FENCE);
      for (size_t j = 0; j < ls; j++) {
         float4 d = tile[j] - p;
         float r2 = mad(d.x, d.x, mad(d.y, d.y, mad(d.z, d.z, eps2)));
         float inv = rsqrt(r2);
         acc += d * (tile[j].w * inv * inv * inv);
         acc.w += native_sqrt(dot(d.xyz, d.xyz)) * half_recip(r2) + fast_length(d);
      }
      barrier(CLK_LOCAL_MEM_FENCE);
   }
   float4 v = vel[i] + acc * dt;
   vel[i] = v;
   out[i] = (float4)(p.xyz + v.xyz * dt, length(v) + distance(p, v) + normalize(v).x
                     + cross(p, v).y + clamp(p.w, 0.0f, 1.0f) + fmax(p.x, 0.0f));
}
