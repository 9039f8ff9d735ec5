/* Must FAIL the resolve check (meson test builtins-resolve-detects): images
 * are not in the library yet, so read_imagef stays undefined.  Proves that
 * check_resolve.py reports what it should. */
kernel void uses_image(read_only image2d_t img, sampler_t s, global float4 *out)
{
   out[get_global_id(0)] = read_imagef(img, s, (int2)(0, 0)) + sin(out[0]);
}
