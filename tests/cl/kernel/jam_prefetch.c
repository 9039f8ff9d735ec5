/* KILN_JAM_PREFETCH (docs/env.md): jammed row loops that
 * read 8 elements at a time (src/llvm/cpu/wg_jam_wide.h) prefetch each
 * row ahead.  Run as `on` under KILN_JAM_PREFETCH=512 (that many bytes),
 * `default` with it empty and `rows` under "rows" (the distance follows
 * the rows: 8 rows' length, clamped, computed as each loop starts, and a
 * second prefetch 8 KiB beyond it), `near` under "rows+0" (the first
 * alone), `off` under 0 and `bad` under a value that is no number, which
 * keeps the default (meson.build; `bad_far` likewise with "rows+lots"):
 * the results are exact either way (float sums in
 * the kernel's order, rows at any alignment, trip counts that differ, a
 * row shared by the block), KILN_DUMP's optimised IR of the jammed
 * kernels calls llvm.prefetch with prefetching on and not without, each
 * at the row's address plus 512 under 512, plus a value computed at
 * run time (with the least distance, 512, among its constants) under
 * rows+0 and by default as many again 8192 further, the program
 * binary's target id says which (the compile cache
 * and binaries keep them apart: a binary built under another setting, in
 * a child, is refused; by default also one built with 2048, the former
 * default) and a bad value is ignored with a warning in the build log. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "kk.h"

static const char *source =
   /* kiln_bench's reduce_chunked loop: contiguous chunks per work-item. */
   "__kernel void chunked(__global const float *in, __global float *out, uint n)\n"
   "{\n"
   "  uint gid = (uint)get_global_id(0), gsize = (uint)get_global_size(0);\n"
   "  uint chunk = (n + gsize - 1) / gsize;\n"
   "  uint begin = gid * chunk, end = min(begin + chunk, n);\n"
   "  float s = 0.0f;\n"
   "  for (uint i = begin; i < end; i++) s += in[i];\n"
   "  out[gid] = s;\n"
   "}\n"
   /* Rows 37 elements apart, 3 to 42 trips: wide rounds and remainders. */
   "__kernel void rows(__global const float *in, __global float *out, uint n)\n"
   "{\n"
   "  uint g = get_global_id(0);\n"
   "  uint begin = g * 37u + g % 5u, end = begin + 3u + (g * 5u + n) % 40u;\n"
   "  float s = 0.25f;\n"
   "  for (uint i = begin; i < end; i++) s += in[i];\n"
   "  out[g] = s;\n"
   "}\n"
   /* A row per work-item and one shared by the block (x). */
   "__kernel void matvec(__global const float *A, __global const float *x,\n"
   "                     __global float *y, uint n)\n"
   "{\n"
   "  uint r = get_global_id(0);\n"
   "  float s = 0.0f;\n"
   "  for (uint k = 0; k < n; k++) s = fma(A[r * n + k], x[k], s);\n"
   "  y[r] = s;\n"
   "}\n";

enum { G = 64, N = 8192 };
static float in[N], x[N / G];

static bool is_cpu(const struct kt_env *env)
{
   cl_device_type type = 0;
   CHECK_OK(clGetDeviceInfo(env->device, CL_DEVICE_TYPE, sizeof(type), &type, NULL));
   return type & CL_DEVICE_TYPE_CPU;
}

static void check_out(const char *kernel, cl_uint n, const float *got, const float *want)
{
   for (unsigned g = 0; g < G; g++)
      if (memcmp(&got[g], &want[g], sizeof(float))) {
         KT_FAIL("%s, n %u: item %u = %a, expected %a", kernel, n, g, got[g], want[g]);
         return;
      }
}

static void run(const struct kt_env *env, cl_program p)
{
   cl_mem min = kk_buffer_in(env, sizeof(in), in);
   cl_mem mx = kk_buffer_in(env, sizeof(x), x);
   cl_mem out = kk_buffer_in(env, G * sizeof(float), NULL);
   size_t global = G, local = G;
   float got[G], want[G];
   cl_kernel k = kk_kernel(p, "chunked");
   static const cl_uint sizes[] = {0, 5, 1000, 4099, N};
   for (size_t t = 0; t < sizeof(sizes) / sizeof(sizes[0]); t++) {
      cl_uint n = sizes[t], chunk = (n + G - 1) / G;
      KK_ARG(k, 0, min);
      KK_ARG(k, 1, out);
      KK_ARG(k, 2, n);
      KK_RUN(env, k, 1, NULL, &global, &local);
      kk_read(env, out, sizeof(got), got);
      for (cl_uint g = 0; g < G; g++) {
         want[g] = 0.0f;
         for (cl_uint i = g * chunk; i < g * chunk + chunk && i < n; i++)
            want[g] += in[i];
      }
      check_out("chunked", n, got, want);
   }
   /* Four groups: three whose rows are 8 long each, which no work-item
    * finishes after the rounds (the region after them without its loop,
    * src/llvm/cpu/wg_skip.h), and one whose last row is 5 long. */
   enum { GROUPS = 4 };
   cl_mem out4 = kk_buffer_in(env, GROUPS * G * sizeof(float), NULL);
   size_t global4 = GROUPS * G;
   cl_uint n4 = GROUPS * G * 8 - 3;
   KK_ARG(k, 0, min);
   KK_ARG(k, 1, out4);
   KK_ARG(k, 2, n4);
   KK_RUN(env, k, 1, NULL, &global4, &local);
   float got4[GROUPS * G];
   kk_read(env, out4, sizeof(got4), got4);
   for (cl_uint g = 0; g < GROUPS * G; g++) {
      float w = 0.0f;
      for (cl_uint i = g * 8; i < g * 8 + 8 && i < n4; i++)
         w += in[i];
      if (memcmp(&got4[g], &w, sizeof(w))) {
         KT_FAIL("chunked, 4 groups: item %u = %a, expected %a", g, got4[g], w);
         break;
      }
   }
   CHECK_OK(clReleaseMemObject(out4));
   CHECK_OK(clReleaseKernel(k));
   k = kk_kernel(p, "rows");
   for (cl_uint n = 0; n < 3; n++) {
      KK_ARG(k, 0, min);
      KK_ARG(k, 1, out);
      KK_ARG(k, 2, n);
      KK_RUN(env, k, 1, NULL, &global, &local);
      kk_read(env, out, sizeof(got), got);
      for (cl_uint g = 0; g < G; g++) {
         cl_uint begin = g * 37 + g % 5, end = begin + 3 + (g * 5 + n) % 40;
         want[g] = 0.25f;
         for (cl_uint i = begin; i < end; i++)
            want[g] += in[i];
      }
      check_out("rows", n, got, want);
   }
   CHECK_OK(clReleaseKernel(k));
   k = kk_kernel(p, "matvec");
   cl_uint n = N / G;
   KK_ARG(k, 0, min);
   KK_ARG(k, 1, mx);
   KK_ARG(k, 2, out);
   KK_ARG(k, 3, n);
   KK_RUN(env, k, 1, NULL, &global, &local);
   kk_read(env, out, sizeof(got), got);
   for (cl_uint r = 0; r < G; r++) {
      want[r] = 0.0f;
      for (cl_uint i = 0; i < n; i++)
         want[r] = fmaf(in[r * n + i], x[i], want[r]);
   }
   check_out("matvec", n, got, want);
   CHECK_OK(clReleaseKernel(k));
   CHECK_OK(clReleaseMemObject(min));
   CHECK_OK(clReleaseMemObject(mx));
   CHECK_OK(clReleaseMemObject(out));
}

/* The last few `%name = getelementptr i8, ptr addrspace(1) %row, i64 OFF`
 * of the function (the prefetch's address, wg_jam_wide.c), OFF a number
 * or a value. */
#define RECENT 64

struct ir {
   const char *fn; /* "@__kiln_wg_<kernel>(" */
   bool found, vector;
   bool vector_store; /* the sums stored to global memory 8 or 16 at a time */
   unsigned prefetches, constant, variable; /* of the prefetches: offset 512, a value */
   unsigned near, far; /* of the prefetches: at the row + a value; 8192 beyond another */
   bool lo;        /* "i64 512" in a umax or select: the least distance */
   char add[RECENT][32]; /* "%a = add i64 %x, 8192": a far prefetch's distance */
   unsigned nadd;
   char gep[RECENT][32];
   bool gep_var[RECENT], gep_far[RECENT];
   long gep_off[RECENT];
   unsigned ngep;
};

static void scan_ir(FILE *f, void *arg)
{
   struct ir *r = arg;
   char line[4096];
   bool in_fn = false;
   while (kk_next_line_in(f, r->fn, line, sizeof(line), &in_fn)) {
      r->found = true;
      /* A round's rows: 8 elements of each, read whole or (blocks of
       * 16, the transposition joining halves) as two halves. */
      r->vector |= (strstr(line, " = load <8 x ") || strstr(line, " = load <4 x ")) &&
                   strstr(line, "ptr addrspace(1)");
      r->vector_store |= strstr(line, "store <") && strstr(line, "ptr addrspace(1)");
      r->lo |= (strstr(line, "@llvm.umax") || strstr(line, " select ")) &&
               strstr(line, "i64 512") != NULL;
      char name[32], off[32];
      if (sscanf(line, " %31s = getelementptr i8, ptr addrspace(1) %%%*[^,], i64 %31s", name, off) ==
          2) {
         unsigned k = r->ngep++ % RECENT;
         snprintf(r->gep[k], sizeof(r->gep[k]), "%s", name);
         r->gep_var[k] = off[0] == '%';
         r->gep_off[k] = r->gep_var[k] ? -1 : strtol(off, NULL, 10);
         r->gep_far[k] = r->gep_off[k] == 8192;
         for (unsigned a = 0; a < RECENT && a < r->nadd && r->gep_var[k]; a++)
            r->gep_far[k] |= !strcmp(r->add[a], off);
         continue;
      }
      if (sscanf(line, " %31s = add i64 %%%*[^,], %31s", name, off) == 2 && !strcmp(off, "8192"))
         snprintf(r->add[r->nadd++ % RECENT], sizeof(r->add[0]), "%s", name);
      const char *call = strstr(line, "call void @llvm.prefetch");
      if (!call)
         continue;
      r->prefetches++;
      const char *a = strstr(call, " %");
      if (a && sscanf(a + 1, "%31[^,)]", name) == 1)
         for (unsigned k = 0; k < RECENT && k < r->ngep; k++)
            if (!strcmp(r->gep[k], name)) {
               r->variable += r->gep_var[k];
               r->constant += r->gep_off[k] == 512;
               r->far += r->gep_far[k];
               r->near += r->gep_var[k] && !r->gep_far[k];
               break;
            }
   }
}

enum want { NONE, FIXED_512, ROWS, ROWS_NEAR };

/* In the dump named for first, the jammed loop of kernel reads rows 8
 * elements at a time, with the prefetches asked for: none, each at the
 * row's address + 512, or each + a value and the least distance among
 * the constants, with (ROWS) as many again 8192 bytes further: at a
 * near one's address + 8192, or at the row + a value that adds 8192 to
 * another (one add serves a block's rows). */
static void check_ir(const char *dir, const char *first, const char *kernel, enum want want)
{
   char fn[128];
   snprintf(fn, sizeof(fn), "@__kiln_wg_%s(", kernel);
   struct ir r = {.fn = fn};
   CHECK(kk_each_dumped_ir(dir, first, scan_ir, &r) > 0 && r.found,
         "KILN_DUMP wrote no optimised IR for %s", kernel);
   CHECK(r.vector, "%s: the rows are not read 8 elements at a time (not jammed)", kernel);
   /* After the rounds, the region without the rest of the rows' loop
    * (src/llvm/cpu/wg_skip.h) stores the sums as vectors. */
   CHECK(r.vector_store, "%s: no copy of the region after the rounds stores as vectors", kernel);
   if (want == NONE) {
      CHECK(!r.prefetches, "%s: an unwanted llvm.prefetch", kernel);
      return;
   }
   CHECK(r.prefetches, "%s: no llvm.prefetch", kernel);
   if (want == FIXED_512)
      CHECK(r.constant == r.prefetches && !r.variable,
            "%s: of %u prefetches %u at the row + 512, %u at the row + a value", kernel,
            r.prefetches, r.constant, r.variable);
   else if (want == ROWS_NEAR)
      CHECK(r.near == r.prefetches && r.lo,
            "%s: of %u prefetches %u at the row + a value (want all), %u 8192 further (want "
            "none), least distance 512 %s",
            kernel, r.prefetches, r.near, r.far, r.lo ? "found" : "missing");
   else
      CHECK(r.near == r.far && r.near + r.far == r.prefetches && r.lo,
            "%s: of %u prefetches %u at the row + a value, %u 8192 beyond another (want "
            "half each), least distance 512 %s",
            kernel, r.prefetches, r.near, r.far, r.lo ? "found" : "missing");
}

static unsigned char *get_binary(cl_program p, size_t *size)
{
   *size = 0;
   CHECK_OK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(*size), size, NULL));
   REQUIRE(*size > 0);
   unsigned char *bin = malloc(*size);
   REQUIRE(bin);
   unsigned char *bins[1] = {bin};
   CHECK_OK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bins), bins, NULL));
   return bin;
}

/* The target id in the program's binary names the setting (want, e.g.
 * ":jam-prefetch=512"), or none (NULL). */
static void check_binary(cl_program p, const char *want)
{
   size_t size;
   unsigned char *bin = get_binary(p, &size);
   bool has = want && memmem(bin, size, want, strlen(want)) != NULL;
   bool any = memmem(bin, size, "jam-prefetch", 12) != NULL;
   CHECK(want ? has : !any, "the binary's target id %s %s", want ? "lacks" : "has a",
         want ? want : "jam-prefetch");
   free(bin);
}

/* KILN_JAM_WIDTH (meson.build runs the rows mode with 8, 16 and a bad
 * value too): the binary's target id names a width other than 8, and a
 * bad value is ignored with a warning in the build log.  (The rows'
 * results and IR above are checked whatever the width.) */
static void check_width(const struct kt_env *env, cl_program p)
{
   const char *w = getenv("KILN_JAM_WIDTH");
   if (!w || !*w)
      return;
   size_t size;
   unsigned char *bin = get_binary(p, &size);
   bool named16 = memmem(bin, size, "jam-width=16", 12) != NULL;
   bool named = memmem(bin, size, "jam-width", 9) != NULL;
   free(bin);
   if (!strcmp(w, "16")) {
      CHECK(named16, "KILN_JAM_WIDTH=16: the binary's target id lacks jam-width=16");
   } else if (!strcmp(w, "8")) {
      CHECK(!named, "KILN_JAM_WIDTH=8: the binary's target id names a jam width");
   } else {
      char log[4096] = "";
      CHECK_OK(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG, sizeof(log), log,
                                     NULL));
      char want[64];
      snprintf(want, sizeof(want), "KILN_JAM_WIDTH=%s", w);
      CHECK(strstr(log, want) && strstr(log, "ignored"),
            "no warning about KILN_JAM_WIDTH=%s in the build log: %s", w, log);
   }
}

/* In a child process under the other setting (kk_child): the program's
 * binary, into the file JAM_PREFETCH_BINARY names. */
static int child_main(const char *name)
{
   if (strcmp(name, "binary"))
      return 3;
   unsetenv("KILN_DUMP");
   struct kt_env env;
   kt_setup(&env, 0);
   cl_program p = kk_build(&env, source, NULL);
   size_t size;
   unsigned char *bin = get_binary(p, &size);
   FILE *f = fopen(getenv("JAM_PREFETCH_BINARY"), "wb");
   REQUIRE(f && fwrite(bin, 1, size, f) == size);
   fclose(f);
   free(bin);
   CHECK_OK(clReleaseProgram(p));
   kt_teardown(&env);
   return kt_result();
}

/* A binary built under the other setting is refused (its target id
 * differs), as the compile cache keeps the two apart. */
static void check_other_binary(const struct kt_env *env, const char *other)
{
   char path[] = "/tmp/kiln-jam-prefetch-bin-XXXXXX";
   int fd = mkstemp(path);
   REQUIRE(fd >= 0);
   close(fd);
   char *mine = strdup(getenv("KILN_JAM_PREFETCH"));
   REQUIRE(mine);
   setenv("JAM_PREFETCH_BINARY", path, 1);
   setenv("KILN_JAM_PREFETCH", other, 1);
   int rc = kk_child("binary", 60);
   setenv("KILN_JAM_PREFETCH", mine, 1);
   free(mine);
   REQUIRE(rc == 0, " the child building with KILN_JAM_PREFETCH=%s failed (%d)", other, rc);
   FILE *f = fopen(path, "rb");
   REQUIRE(f);
   static unsigned char bin[1 << 20];
   size_t size = fread(bin, 1, sizeof(bin), f);
   fclose(f);
   unlink(path);
   REQUIRE(size > 0 && size < sizeof(bin));
   const unsigned char *bins[1] = {bin};
   cl_int st = 0, err = 0;
   cl_program q = clCreateProgramWithBinary(env->context, 1, &env->device, &size, bins, &st, &err);
   CHECK(err == CL_INVALID_BINARY && st == CL_INVALID_BINARY && !q,
         " a binary built with KILN_JAM_PREFETCH=%s gave %s/%s", other, kt_err_name(err),
         kt_err_name(st));
   if (q)
      clReleaseProgram(q);
}

int main(int argc, char **argv)
{
   KK_CHILD_MAIN(argc, argv, child_main);
   const char *mode = argc == 2 ? argv[1] : "";
   bool on = !strcmp(mode, "on"), bad = !strcmp(mode, "bad"), off = !strcmp(mode, "off");
   bool dflt = !strcmp(mode, "default"), rows = !strcmp(mode, "rows");
   bool near = !strcmp(mode, "near"), bad_far = !strcmp(mode, "bad_far");
   const char *e = getenv("KILN_JAM_PREFETCH");
   if (!(on && e && !strcmp(e, "512")) && !(off && e && !strcmp(e, "0")) &&
       !(dflt && e && !*e) && !(rows && e && !strcmp(e, "rows")) &&
       !(near && e && !strcmp(e, "rows+0")) && !(bad && e && !strcmp(e, "lots")) &&
       !(bad_far && e && !strcmp(e, "rows+lots"))) {
      fprintf(stderr, "usage: KILN_JAM_PREFETCH=512 %s on | KILN_JAM_PREFETCH= %s default | "
                      "KILN_JAM_PREFETCH=rows %s rows | KILN_JAM_PREFETCH=rows+0 %s near | "
                      "KILN_JAM_PREFETCH=0 %s off | KILN_JAM_PREFETCH=lots %s bad | "
                      "KILN_JAM_PREFETCH=rows+lots %s bad_far\n",
              argv[0], argv[0], argv[0], argv[0], argv[0], argv[0], argv[0]);
      return 2;
   }
   /* What the id says: the setting, the default where unset or bad. */
   const char *id = on     ? ":jam-prefetch=512"
                    : off  ? NULL
                    : near ? ":jam-prefetch=rows+0"
                           : ":jam-prefetch=rows";
   enum want want = on ? FIXED_512 : off ? NONE : near ? ROWS_NEAR : ROWS;
   bad |= bad_far;
   /* Values whose float sums depend on the order of the adds. */
   for (size_t i = 0; i < N; i++)
      in[i] = (float)((i * 2654435761u) % 1000u) * 0.001f + (i % 7 ? 1e-7f : 1e4f);
   for (size_t i = 0; i < N / G; i++)
      x[i] = 1.0f / (float)(i + 3);
   char dir[] = "/tmp/kiln-jam-prefetch-XXXXXX";
   kk_dump_begin(dir);
   struct kt_env env;
   kt_setup(&env, 0);
   cl_program p = kk_build(&env, source, NULL);
   run(&env, p);
   /* Bounds checks put their own code in the loop, which then is not
    * jammed (meson.build runs this test with KILN_CHECK=none). */
   const char *check = getenv("KILN_CHECK");
   if (is_cpu(&env) && !(check && strstr(check, "bounds"))) {
      /* KILN_DUMP names the files for the program's first kernel. */
      check_ir(dir, "chunked", "chunked", want);
      check_ir(dir, "chunked", "rows", want);
      check_binary(p, id);
      if (!bad)
         check_other_binary(&env, off ? "512" : "0");
      /* Code of the former fixed default is refused where rows apply,
       * and rows' code with and without the far prefetch each other's. */
      if (dflt || rows)
         check_other_binary(&env, "2048");
      if (dflt || rows || near)
         check_other_binary(&env, near ? "rows" : "rows+0");
      check_width(&env, p);
      if (bad) {
         char log[4096] = "";
         CHECK_OK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_LOG, sizeof(log), log,
                                        NULL));
         CHECK(strstr(log, e) && strstr(log, "ignored"),
               "no warning about KILN_JAM_PREFETCH=%s in the build log: %s", e, log);
      }
   }
   CHECK_OK(clReleaseProgram(p));
   kt_teardown(&env);
   kk_dump_end(dir);
   return kt_result();
}
