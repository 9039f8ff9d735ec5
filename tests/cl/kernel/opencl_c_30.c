/* OpenCL C 3.0 on a 3.0 device (OpenCL 3.0 §5.8.6.5, OpenCL C 3.0
 * §6.2.1, §6.4, §6.15): CL_DEVICE_OPENCL_C_ALL_VERSIONS lists 3.0,
 * -cl-std=CL3.0 builds, the __opencl_c_* feature macros are exactly
 * CL_DEVICE_OPENCL_C_FEATURES, and the functions every OpenCL C 3.0
 * program may call run correctly: ctz, the C11 atomics on __global and
 * __local objects (every order and scope the device reports),
 * atomic_flag, atomic_work_item_fence, work_group_barrier, and the
 * linear-id and enqueued-size work-item functions. */
#include "kk.h"

#define CL30 "-cl-std=CL3.0"

static int device_version(const struct kt_env *env)
{
   char ver[128] = "";
   REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_VERSION, sizeof(ver), ver, NULL));
   int major = 0, minor = 0;
   REQUIRE(sscanf(ver, "OpenCL %d.%d", &major, &minor) == 2, " '%s'", ver);
   return major * 100 + minor * 10;
}

static bool lists_c_30(const struct kt_env *env)
{
   size_t size = 0;
   REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, 0, NULL, &size));
   cl_name_version v[16];
   REQUIRE(size <= sizeof(v) && size % sizeof(v[0]) == 0, " %zu bytes", size);
   REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, size, v, NULL));
   for (size_t i = 0; i < size / sizeof(v[0]); i++)
      if (v[i].version == CL_MAKE_VERSION(3, 0, 0) && !strcmp(v[i].name, "OpenCL C"))
         return true;
   return false;
}

/* Every OpenCL C 3.0 feature macro (§6.2.1). */
static const char *const all_features[] = {
   "__opencl_c_3d_image_writes",
   "__opencl_c_atomic_order_acq_rel",
   "__opencl_c_atomic_order_seq_cst",
   "__opencl_c_atomic_scope_device",
   "__opencl_c_atomic_scope_all_devices",
   "__opencl_c_device_enqueue",
   "__opencl_c_generic_address_space",
   "__opencl_c_fp64",
   "__opencl_c_fp16",
   "__opencl_c_images",
   "__opencl_c_int64",
   "__opencl_c_pipes",
   "__opencl_c_program_scope_global_variables",
   "__opencl_c_read_write_images",
   "__opencl_c_subgroups",
   "__opencl_c_work_group_collective_functions",
   "__opencl_c_integer_dot_product_input_4x8bit",
   "__opencl_c_integer_dot_product_input_4x8bit_packed",
   "__opencl_c_kernel_clock_scope_device",
   "__opencl_c_kernel_clock_scope_work_group",
   "__opencl_c_kernel_clock_scope_sub_group",
};
#define NUM_FEATURES (sizeof(all_features) / sizeof(all_features[0]))

/* The macros a CL3.0 kernel sees are the features the device reports. */
static void feature_macros(const struct kt_env *env)
{
   char src[8192];
   size_t n = (size_t)snprintf(src, sizeof(src), "__kernel void k(__global int *o)\n{\n");
   for (size_t i = 0; i < NUM_FEATURES; i++)
      n += (size_t)snprintf(src + n, sizeof(src) - n,
                            "#ifdef %s\n  o[%zu] = 1;\n#else\n  o[%zu] = 0;\n#endif\n",
                            all_features[i], i, i);
   snprintf(src + n, sizeof(src) - n, "}\n");
   cl_program p = kk_build(env, src, CL30);
   cl_kernel k = kk_kernel(p, "k");
   cl_mem m = kk_buffer_in(env, NUM_FEATURES * sizeof(cl_int), NULL);
   KK_ARG(k, 0, m);
   size_t one = 1;
   KK_RUN(env, k, 1, NULL, &one, NULL);
   cl_int o[NUM_FEATURES];
   kk_read(env, m, sizeof(o), o);

   size_t size = 0;
   REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_FEATURES, 0, NULL, &size));
   cl_name_version f[64];
   REQUIRE(size <= sizeof(f), " %zu bytes", size);
   REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_FEATURES, size, f, NULL));
   size_t nf = size / sizeof(f[0]);
   for (size_t i = 0; i < NUM_FEATURES; i++) {
      bool reported = false;
      for (size_t j = 0; j < nf; j++)
         reported |= !strcmp(f[j].name, all_features[i]);
      CHECK(reported == (o[i] == 1), " %s: reported %d, macro %s", all_features[i], reported,
            o[i] ? "defined" : "undefined");
   }
   /* And nothing reported that the list above does not know. */
   for (size_t j = 0; j < nf; j++) {
      bool known = false;
      for (size_t i = 0; i < NUM_FEATURES; i++)
         known |= !strcmp(f[j].name, all_features[i]);
      CHECK(known, " unknown feature %s reported", f[j].name);
   }

   /* The atomic capabilities agree with the atomic macros (§4.2). */
   cl_device_atomic_capabilities caps = 0;
   REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES, sizeof(caps),
                              &caps, NULL));
   CHECK(!!(caps & CL_DEVICE_ATOMIC_ORDER_ACQ_REL) == (o[1] == 1), " acq_rel");
   CHECK(!!(caps & CL_DEVICE_ATOMIC_ORDER_SEQ_CST) == (o[2] == 1), " seq_cst");
   CHECK(!!(caps & CL_DEVICE_ATOMIC_SCOPE_DEVICE) == (o[3] == 1), " scope device");
   CHECK(!!(caps & CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES) == (o[4] == 1), " scope all devices");
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseKernel(k));
   CHECK_OK(clReleaseProgram(p));
}

static int host_ctz(uint64_t x, int bits)
{
   if (bits < 64)
      x &= (UINT64_C(1) << bits) - 1;
   return x ? __builtin_ctzll(x) : bits;
}

static void ctz(const struct kt_env *env)
{
   const char *src =
      "__kernel void k(__global const ulong *in, __global int *o)\n"
      "{ size_t i = get_global_id(0); ulong v = in[i];\n"
      "  __global int *r = o + i * 12;\n"
      "  r[0] = ctz((char)v);  r[1] = ctz((uchar)v);\n"
      "  r[2] = ctz((short)v); r[3] = ctz((ushort)v);\n"
      "  r[4] = ctz((int)v);   r[5] = ctz((uint)v);\n"
      "  r[6] = (int)ctz((long)v); r[7] = (int)ctz(v);\n"
      "  vstore4(ctz((int4)((int)v, (int)(v >> 32), (int)(v >> 16), 0)), 2, r);\n"
      "}\n";
   cl_program p = kk_build(env, src, CL30);
   cl_kernel k = kk_kernel(p, "k");
   enum { N = 64 };
   cl_ulong in[N];
   uint64_t x = 0x9E3779B97F4A7C15u;
   for (int i = 0; i < N; i++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      /* Low zero runs of every length 0..63, and 0. */
      in[i] = i == 0 ? 0 : (x | 1) << (i - 1);
   }
   cl_mem mi = kk_buffer_in(env, sizeof(in), in);
   cl_mem mo = kk_buffer_in(env, N * 12 * sizeof(cl_int), NULL);
   KK_ARG(k, 0, mi);
   KK_ARG(k, 1, mo);
   size_t n = N;
   KK_RUN(env, k, 1, NULL, &n, NULL);
   cl_int o[N * 12];
   kk_read(env, mo, sizeof(o), o);
   for (int i = 0; i < N; i++) {
      uint64_t v = in[i];
      static const int bits[8] = {8, 8, 16, 16, 32, 32, 64, 64};
      for (int t = 0; t < 8; t++)
         CHECK(o[i * 12 + t] == host_ctz(v, bits[t]), " ctz type %d of %#llx: %d", t,
               (unsigned long long)v, o[i * 12 + t]);
      const int want[4] = {host_ctz(v, 32), host_ctz(v >> 32, 32), host_ctz(v >> 16, 32), 32};
      for (int t = 0; t < 4; t++)
         CHECK(o[i * 12 + 8 + t] == want[t], " vector ctz %d of %#llx: %d, want %d", t,
               (unsigned long long)v, o[i * 12 + 8 + t], want[t]);
   }
   CHECK_OK(clReleaseMemObject(mi));
   CHECK_OK(clReleaseMemObject(mo));
   CHECK_OK(clReleaseKernel(k));
   CHECK_OK(clReleaseProgram(p));
}

/* C11 atomics from every work-item of several work-groups at once: the
 * totals only come out right if each operation is atomic. */
static const char *atomics_src =
   /* The widest scope the device reports (the CUDA device: device). */
   "#ifdef __opencl_c_atomic_scope_all_devices\n"
   "#define WIDEST_SCOPE memory_scope_all_devices\n"
   "#else\n"
   "#define WIDEST_SCOPE memory_scope_device\n"
   "#endif\n"
   "__kernel void g(__global atomic_int *c, __global atomic_uint *u, __global int *old,\n"
   "                __global atomic_flag *flag, __global int *winners, __global atomic_float *f)\n"
   "{ int i = (int)get_global_id(0);\n"
   "  atomic_fetch_add(&c[0], 1);\n"
   "  atomic_fetch_sub_explicit(&c[1], 2, memory_order_relaxed);\n"
   "  atomic_fetch_max_explicit(&c[2], i, memory_order_acq_rel, memory_scope_device);\n"
   "  atomic_fetch_min_explicit(&c[3], -i, memory_order_seq_cst, WIDEST_SCOPE);\n"
   "  atomic_fetch_or(&u[0], 1u << (i & 31));\n"
   "  atomic_fetch_xor_explicit(&u[1], 1u << (i & 31), memory_order_release);\n"
   "  atomic_fetch_and_explicit(&u[2], ~(1u << (i & 31)), memory_order_acquire, memory_scope_work_group);\n"
   "  /* Exchange hands each i out exactly once: the old values are a permutation. */\n"
   "  old[i] = atomic_exchange(&c[4], i);\n"
   "  /* A compare-exchange loop counts too, strong and weak. */\n"
   "  int e = atomic_load(&c[5]);\n"
   "  while (!atomic_compare_exchange_strong(&c[5], &e, e + 3)) ;\n"
   "  e = atomic_load_explicit(&c[6], memory_order_relaxed);\n"
   "  while (!atomic_compare_exchange_weak_explicit(&c[6], &e, e + 1, memory_order_acq_rel,\n"
   "                                                memory_order_relaxed, memory_scope_device)) ;\n"
   "  if (!atomic_flag_test_and_set(flag)) winners[0]++;\n"
   "  if (!atomic_flag_test_and_set_explicit(flag + 1, memory_order_acq_rel, memory_scope_device)) winners[1]++;\n"
   "  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_seq_cst, memory_scope_device);\n"
   "  if (i == 0) {\n"
   "    atomic_flag_clear_explicit(flag + 2, memory_order_seq_cst, memory_scope_device);\n"
   "    atomic_store(&c[7], 41); atomic_store_explicit(&c[7], atomic_load(&c[7]) + 1, memory_order_release);\n"
   "    atomic_store(f, 1.5f); old[get_global_size(0)] = (int)(4 * atomic_exchange(f, 2.25f));\n"
   "    float fe = 2.25f; old[get_global_size(0) + 1] = atomic_compare_exchange_strong(f, &fe, 3.0f);\n"
   "    old[get_global_size(0) + 2] = (int)(4 * atomic_load_explicit(f, memory_order_acquire));\n"
   "  }\n"
   "}\n"
   /* __local atomics, with expected values in __local and __global. */
   "__kernel void l(__global int *o, __global int *ge)\n"
   "{ __local atomic_int n; __local atomic_uint m; __local int le;\n"
   "  size_t lid = get_local_id(0);\n"
   "  if (lid == 0) { atomic_init(&n, 0); atomic_init(&m, 100u); le = 0; }\n"
   "  work_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  atomic_fetch_add_explicit(&n, (int)lid, memory_order_relaxed, memory_scope_work_group);\n"
   "  atomic_fetch_min(&m, (uint)lid + 7u);\n"
   "  work_group_barrier(CLK_LOCAL_MEM_FENCE, memory_scope_work_group);\n"
   "  if (lid == 0) {\n"
   "    o[get_group_id(0) * 4] = atomic_load(&n);\n"
   "    o[get_group_id(0) * 4 + 1] = (int)atomic_load(&m);\n"
   "    le = o[get_group_id(0) * 4];\n"
   "    o[get_group_id(0) * 4 + 2] = atomic_compare_exchange_strong(&n, &le, -1);\n"
   "    ge[get_group_id(0)] = 5;\n"
   "    o[get_group_id(0) * 4 + 3] = !atomic_compare_exchange_strong(&n, &ge[get_group_id(0)], 0) &&\n"
   "                                 ge[get_group_id(0)] == -1;\n"
   "  }\n"
   "}\n";

static void atomics(const struct kt_env *env)
{
   cl_program p = kk_build(env, atomics_src, CL30);
   enum { G = 256, L = 32 };
   cl_int c[8] = {0, 0, -1, 1, -1, 0, 0, 0};
   cl_uint u[3] = {0, 0, ~0u};
   cl_int winners[2] = {0, 0};
   cl_int flags[3] = {0, 0, 1};
   cl_float f = 0;
   cl_mem mc = kk_buffer_in(env, sizeof(c), c), mu = kk_buffer_in(env, sizeof(u), u);
   cl_mem mo = kk_buffer_in(env, (G + 3) * sizeof(cl_int), NULL);
   cl_mem mfl = kk_buffer_in(env, sizeof(flags), flags);
   cl_mem mw = kk_buffer_in(env, sizeof(winners), winners);
   cl_mem mf = kk_buffer_in(env, sizeof(f), &f);
   cl_kernel k = kk_kernel(p, "g");
   KK_ARG(k, 0, mc);
   KK_ARG(k, 1, mu);
   KK_ARG(k, 2, mo);
   KK_ARG(k, 3, mfl);
   KK_ARG(k, 4, mw);
   KK_ARG(k, 5, mf);
   size_t g = G, l = L;
   KK_RUN(env, k, 1, NULL, &g, &l);
   cl_int old[G + 3];
   kk_read(env, mc, sizeof(c), c);
   kk_read(env, mu, sizeof(u), u);
   kk_read(env, mo, sizeof(old), old);
   kk_read(env, mw, sizeof(winners), winners);
   kk_read(env, mfl, sizeof(flags), flags);
   CHECK(c[0] == G, " fetch_add: %d", c[0]);
   CHECK(c[1] == -2 * G, " fetch_sub: %d", c[1]);
   CHECK(c[2] == G - 1, " fetch_max: %d", c[2]);
   CHECK(c[3] == -(G - 1), " fetch_min: %d", c[3]);
   CHECK(u[0] == ~0u && u[1] == 0 && u[2] == 0, " or/xor/and: %#x %#x %#x", u[0], u[1], u[2]);
   int seen[G + 1] = {0};
   seen[G] = 0;
   for (int i = 0; i < G; i++)
      if (old[i] >= -1 && old[i] < G)
         seen[old[i] + 1]++;
   /* Old values: -1 (the start) and every i but the last one stored. */
   int once = 0;
   for (int i = 0; i <= G; i++)
      once += seen[i] == 1;
   CHECK(once == G && c[4] >= 0 && c[4] < G && seen[c[4] + 1] == 0,
         " exchange: %d distinct old values, final %d", once, c[4]);
   CHECK(c[5] == 3 * G, " compare_exchange_strong loop: %d", c[5]);
   CHECK(c[6] == G, " compare_exchange_weak loop: %d", c[6]);
   CHECK(winners[0] == 1 && winners[1] == 1, " test_and_set winners %d %d", winners[0], winners[1]);
   CHECK(flags[0] != 0 && flags[1] != 0 && flags[2] == 0, " flags %d %d %d", flags[0], flags[1],
         flags[2]);
   CHECK(c[7] == 42, " store/load: %d", c[7]);
   CHECK(old[G] == 6 && old[G + 1] == 1 && old[G + 2] == 12, " atomic_float: %d %d %d", old[G],
         old[G + 1], old[G + 2]);
   CHECK_OK(clReleaseKernel(k));

   k = kk_kernel(p, "l");
   cl_mem ml = kk_buffer_in(env, (G / L) * 4 * sizeof(cl_int), NULL);
   cl_mem mge = kk_buffer_in(env, (G / L) * sizeof(cl_int), NULL);
   KK_ARG(k, 0, ml);
   KK_ARG(k, 1, mge);
   KK_RUN(env, k, 1, NULL, &g, &l);
   cl_int lo[(G / L) * 4];
   kk_read(env, ml, sizeof(lo), lo);
   for (int w = 0; w < G / L; w++) {
      CHECK(lo[w * 4] == L * (L - 1) / 2, " group %d: local fetch_add %d", w, lo[w * 4]);
      CHECK(lo[w * 4 + 1] == 7, " group %d: local fetch_min %d", w, lo[w * 4 + 1]);
      CHECK(lo[w * 4 + 2] == 1 && lo[w * 4 + 3] == 1, " group %d: local compare_exchange %d %d",
            w, lo[w * 4 + 2], lo[w * 4 + 3]);
   }
   CHECK_OK(clReleaseMemObject(ml));
   CHECK_OK(clReleaseMemObject(mge));
   CHECK_OK(clReleaseKernel(k));
   cl_mem all[] = {mc, mu, mo, mfl, mw, mf};
   for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
      CHECK_OK(clReleaseMemObject(all[i]));
   CHECK_OK(clReleaseProgram(p));
}

/* get_global_linear_id, get_local_linear_id, get_enqueued_local_size in
 * three dimensions with a global offset, and work_group_barrier ordering
 * __local memory: each work-item reads what its neighbour wrote. */
static void work_items(const struct kt_env *env)
{
   const char *src =
      "__kernel void k(__global int *o)\n"
      "{ __local int s[64];\n"
      "  size_t g = get_global_linear_id(), l = get_local_linear_id();\n"
      "  size_t want_g = ((get_global_id(2) - get_global_offset(2)) * get_global_size(1) +\n"
      "                   (get_global_id(1) - get_global_offset(1))) * get_global_size(0) +\n"
      "                  (get_global_id(0) - get_global_offset(0));\n"
      "  size_t want_l = (get_local_id(2) * get_local_size(1) + get_local_id(1)) * get_local_size(0) +\n"
      "                  get_local_id(0);\n"
      "  s[l] = (int)g;\n"
      "  work_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  size_t n = get_local_size(0) * get_local_size(1) * get_local_size(2);\n"
      "  int neighbour = s[(l + 1) % n];\n"
      "  work_group_barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE, memory_scope_work_group);\n"
      "  s[l] = neighbour;\n"
      "  work_group_barrier(CLK_LOCAL_MEM_FENCE, memory_scope_device);\n"
      "  __global int *r = o + g * 6;\n"
      "  r[0] = (int)g; r[1] = (int)l; r[2] = g == want_g && l == want_l;\n"
      "  r[3] = get_enqueued_local_size(0) == get_local_size(0) &&\n"
      "         get_enqueued_local_size(1) == get_local_size(1) &&\n"
      "         get_enqueued_local_size(2) == get_local_size(2) && get_enqueued_local_size(3) == 1;\n"
      "  r[4] = s[l];\n"
      "  r[5] = (int)get_enqueued_local_size(1);\n"
      "}\n";
   cl_program p = kk_build(env, src, CL30);
   cl_kernel k = kk_kernel(p, "k");
   const size_t off[3] = {3, 5, 7}, glob[3] = {8, 6, 4}, loc[3] = {4, 3, 2};
   const size_t total = 8 * 6 * 4;
   cl_mem m = kk_buffer_in(env, total * 6 * sizeof(cl_int), NULL);
   KK_ARG(k, 0, m);
   KK_RUN(env, k, 3, off, glob, loc);
   cl_int *o = malloc(total * 6 * sizeof(cl_int));
   REQUIRE(o != NULL);
   kk_read(env, m, total * 6 * sizeof(cl_int), o);
   for (size_t z = 0; z < 4; z++)
      for (size_t y = 0; y < 6; y++)
         for (size_t x = 0; x < 8; x++) {
            size_t g = (z * 6 + y) * 8 + x;
            size_t l = ((z % 2) * 3 + y % 3) * 4 + x % 4;
            /* Work-item l's neighbour l + 1 in the same group. */
            size_t nl = (l + 1) % 24;
            size_t nx = x - x % 4 + nl % 4, ny = y - y % 3 + nl / 4 % 3, nz = z - z % 2 + nl / 12;
            int ng = (int)((nz * 6 + ny) * 8 + nx);
            const cl_int *r = o + g * 6;
            CHECK(r[0] == (int)g && r[1] == (int)l && r[2] == 1,
                  " (%zu,%zu,%zu): global linear %d local linear %d (want %zu %zu)", x, y, z,
                  r[0], r[1], g, l);
            CHECK(r[3] == 1 && r[5] == 3, " (%zu,%zu,%zu): get_enqueued_local_size", x, y, z);
            CHECK(r[4] == ng, " (%zu,%zu,%zu): neighbour across work_group_barrier %d, want %d", x,
                  y, z, r[4], ng);
         }
   free(o);
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseKernel(k));
   CHECK_OK(clReleaseProgram(p));
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   cl_device_type type = 0;
   REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_TYPE, sizeof(type), &type, NULL));
   /* Kiln's CPU device is a 3.0 device; others may still be 1.2. */
   if (type & CL_DEVICE_TYPE_CPU)
      CHECK(device_version(&env) >= 300, " the CPU device reports OpenCL %d", device_version(&env));
   if (device_version(&env) < 300) {
      /* A 1.2 device: 3.0 must be refused. */
      cl_program p;
      CHECK_ERR(kk_try_build(&env, "__kernel void k(void) {}", CL30, &p), CL_INVALID_BUILD_OPTIONS);
      CHECK_OK(clReleaseProgram(p));
   } else {
      CHECK(lists_c_30(&env), " CL_DEVICE_OPENCL_C_ALL_VERSIONS lacks OpenCL C 3.0");
      feature_macros(&env);
      ctz(&env);
      atomics(&env);
      work_items(&env);
   }
   kt_teardown(&env);
   return kt_result();
}
