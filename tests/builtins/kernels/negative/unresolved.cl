/* Must FAIL the resolve check (meson test builtins-resolve-detects): an
 * overloadable function the library does not define stays undefined under
 * its mangled name.  Proves that check_resolve.py reports what it should. */
__attribute__((overloadable)) float kiln_not_a_builtin(float x);

kernel void uses_missing(global float *out)
{
   out[get_global_id(0)] = kiln_not_a_builtin(out[0]) + sin(out[1]);
}
