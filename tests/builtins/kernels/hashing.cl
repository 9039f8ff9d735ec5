/* Integer work: rotate, mul_hi, mad24, upsample, clz, saturating ops. */
kernel void hashing(global const uint4 *in, global uint4 *out, global ulong *wide, global short *narrow)
{
   size_t i = get_global_id(0);
   uint4 h = in[i];
   h = rotate(h, (uint4)(5, 11, 17, 23)) ^ mul_hi(h, (uint4)0x9e3779b9u);
   h += (uint4)mad24(get_global_id(0), 3u, 7u);
   h = mad_hi(h, (uint4)0x85ebca6bu, h) + clz(h) + hadd(h, h.yzwx) + rhadd(h, h.wxyz);
   h = add_sat(h, (uint4)1) - sub_sat(h, (uint4)2) + abs_diff(h, h.zwxy) + mul24(h, h);
   out[i] = max(h, min(h, (uint4)3u)) + clamp(h, 1u, 100u);
   wide[i] = upsample(h.x, h.y) + mad_sat(as_ulong(in[i].xy), 3ul, 1ul) + abs((long)h.z);
   narrow[i] = upsample((char)h.x, (uchar)h.y) + add_sat((short)h.z, (short)h.w);
   int8 v = convert_int8(vload8(i, (global const uint *)in));
   vstore8(abs_diff(v, v.s76543210) == 0u ? v : -v, i, (global int *)out);
}
