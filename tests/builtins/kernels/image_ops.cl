/* Pixel processing: conversions with saturation and rounding, half storage,
 * vloadn/vstoren, relational selects, common functions. */
kernel void image_ops(global const uchar *src, global uchar *dst, global half *hdr,
                      constant float *lut, float gamma, int w)
{
   size_t x = get_global_id(0), y = get_global_id(1);
   size_t i = y * w + x;
   float4 c = convert_float4(vload4(i, src)) / 255.0f;
   c = pow(c, (float4)gamma);
   c = mix(c, (float4)(lut[0], lut[1], lut[2], lut[3]), 0.25f);
   c = smoothstep(0.0f, 1.0f, c);
   int4 bright = isgreater(c, (float4)0.5f);
   c = select(c, sqrt(c), bright);
   if (any(isnan(c))) c = (float4)0.0f;
   vstore4(convert_uchar4_sat_rte(c * 255.0f), i, dst);
   vstore_half4_rtz(c * exp2(gamma), i, hdr);
   float back = vload_half(i * 4, hdr);
   float3 t = vload3(i, lut);
   vstore3(t * back, 0, (global float *)dst);
   dst[i] = convert_uchar_sat(step(0.5f, back) * 255.0f + sign(back) + degrees(atan2(t.y, t.x)));
   short8 s = convert_short8_sat(vload8(0, lut) * 1000.0f);
   vstore8(convert_ushort8_sat_rtn(s), i, (global ushort *)dst);
   float16 f = vload16(0, lut);
   vstore16(floor(f) + fract(f, &f) + f, 0, (global float *)hdr);
   dst[0] = (uchar)all(isfinite(f.lo)) + signbit(gamma) + isordered(gamma, 1.0f);
   dst[1] = convert_uchar(bitselect(1, 2, 3) + shuffle(vload4(0, src), (uchar4)(3, 2, 1, 0)).x);
}
