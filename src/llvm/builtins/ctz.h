/* ctz (OpenCL C 2.0 and 3.0; its mangled names do not depend on the
 * version): llvm.cttz, the bit width for 0 as the spec says.  Included by
 * the CPU's integer.cl and the NVPTX cl30_nvptx.cl (libclc 19 has none). */
#define CTZ(T, U, B) \
  OVL T ctz(T x) { return (T)__builtin_ctzg(as_##U(x), B); } \
  OVL U ctz(U x) { return (U)__builtin_ctzg(x, B); } \
  SPLIT1(T, T, ctz) SPLIT1(U, U, ctz)
CTZ(char, uchar, 8)
CTZ(short, ushort, 16)
CTZ(int, uint, 32)
CTZ(long, ulong, 64)
