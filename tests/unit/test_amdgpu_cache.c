/* The compile cache and KILN_DUMP for an AMD GPU (fake libdrm, as in
 * test_amdgpu_pipe.c): a program built twice hits the cache the second
 * time, keyed by the device's own processor (a gfx1100 never takes a
 * gfx900's entry), and KILN_DUMP keeps an amdgcn build's files.  What the
 * cache did is read from its KILN_DEBUG=compile lines (KILN_LOG). */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <CL/cl.h>

#include "fake_drm.h"

struct amdgpu_drm *__wrap_amdgpu_drm_load(void);
void __wrap_amdgpu_drm_unload(struct amdgpu_drm *drm);

struct amdgpu_drm *__wrap_amdgpu_drm_load(void)
{
   return (struct amdgpu_drm *)fake_drm_table();
}

void __wrap_amdgpu_drm_unload(struct amdgpu_drm *drm)
{
   (void)drm;
}

static cl_device_id gpus[2]; /* gfx900, gfx1100 */
static char root[64];
static char log_path[128];

static const char *source =
   "__kernel void scale(__global float *p, float f) { p[get_global_id(0)] *= f; }\n";

/* What the cache has logged so far. */
struct counts {
   int hits, misses, stored;
};

static int count(const char *text, const char *what)
{
   int n = 0;
   for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
      n++;
   return n;
}

static struct counts read_counts(void)
{
   struct counts c = {0};
   FILE *f = fopen(log_path, "rb");
   if (!f)
      return c;
   static char text[1 << 20];
   size_t n = fread(text, 1, sizeof(text) - 1, f);
   text[n] = 0;
   fclose(f);
   c.hits = count(text, "cache: hit ");
   c.misses = count(text, "cache: miss ");
   c.stored = count(text, "cache: stored ");
   return c;
}

/* Builds src for device which in a fresh program; returns its binary
 * (malloc'd, *size bytes). */
static unsigned char *build(unsigned which, const char *src, size_t *size)
{
   cl_int err;
   cl_context ctx = clCreateContext(NULL, 1, &gpus[which], NULL, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   err = clBuildProgram(p, 1, &gpus[which], "", NULL, NULL);
   if (err) {
      char log[8192] = "";
      clGetProgramBuildInfo(p, gpus[which], CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL);
      fprintf(stderr, "%s\n", log);
   }
   assert_int_equal(err, CL_SUCCESS);
   /* The program is usable whichever way it was built. */
   cl_kernel k = clCreateKernel(p, "scale", &err);
   assert_int_equal(err, CL_SUCCESS);
   clReleaseKernel(k);
   assert_int_equal(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(*size), size, NULL),
                    CL_SUCCESS);
   unsigned char *bin = malloc(*size);
   assert_non_null(bin);
   assert_int_equal(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bin), &bin, NULL),
                    CL_SUCCESS);
   clReleaseProgram(p);
   clReleaseContext(ctx);
   return bin;
}

static void test_second_build_hits(void **state)
{
   (void)state;
   struct counts c0 = read_counts();
   size_t n1, n2;
   unsigned char *first = build(0, source, &n1);
   struct counts c1 = read_counts();
   assert_int_equal(c1.misses - c0.misses, 1);
   assert_int_equal(c1.stored - c0.stored, 1);
   assert_int_equal(c1.hits - c0.hits, 0);
   unsigned char *second = build(0, source, &n2);
   struct counts c2 = read_counts();
   assert_int_equal(c2.hits - c1.hits, 1);
   assert_int_equal(c2.misses - c1.misses, 0);
   assert_int_equal(c2.stored - c1.stored, 0);
   /* The cached build is the build. */
   assert_int_equal(n1, n2);
   assert_memory_equal(first, second, n1);
   free(first);
   free(second);
}

/* Another processor has its own entry: its first build misses. */
static void test_per_processor(void **state)
{
   (void)state;
   struct counts c0 = read_counts();
   size_t n9, n11, again;
   unsigned char *gfx900 = build(0, source, &n9); /* in the cache by now */
   unsigned char *gfx1100 = build(1, source, &n11);
   struct counts c1 = read_counts();
   assert_int_equal(c1.hits - c0.hits, 1);
   assert_int_equal(c1.misses - c0.misses, 1);
   assert_int_equal(c1.stored - c0.stored, 1);
   assert_true(n9 != n11 || memcmp(gfx900, gfx1100, n9));
   free(build(1, source, &again));
   struct counts c2 = read_counts();
   assert_int_equal(c2.hits - c1.hits, 1);
   assert_int_equal(again, n11);
   free(gfx900);
   free(gfx1100);
}

/* KILN_DUMP: the amdgcn build leaves its source, IR, code object and log. */
static void test_dump(void **state)
{
   (void)state;
   char dir[128];
   snprintf(dir, sizeof(dir), "%s/dump", root);
   assert_int_equal(mkdir(dir, 0700), 0);
   setenv("KILN_DUMP", dir, 1);
   size_t n;
   const char *src = "__kernel void scale(__global float *p, float f) { p[0] = f; }\n";
   free(build(0, src, &n));
   unsetenv("KILN_DUMP");

   const char *want[] = {".cl", ".ll", ".opt.ll", ".o", ".log"};
   bool seen[5] = {false};
   char object[512] = "";
   DIR *d = opendir(dir);
   assert_non_null(d);
   for (struct dirent *e; (e = readdir(d));) {
      const char *dot = strchr(e->d_name, '.');
      for (int i = 0; dot && i < 5; i++)
         if (!strcmp(dot, want[i])) {
            seen[i] = true;
            if (i == 3)
               snprintf(object, sizeof(object), "%s/%s", dir, e->d_name);
         }
   }
   closedir(d);
   for (int i = 0; i < 5; i++) {
      if (!seen[i])
         fprintf(stderr, "no kiln-*%s in %s\n", want[i], dir);
      assert_true(seen[i]);
   }
   /* The code object is an ELF file. */
   FILE *f = fopen(object, "rb");
   assert_non_null(f);
   unsigned char magic[4] = {0};
   assert_int_equal(fread(magic, 1, 4, f), 4);
   fclose(f);
   assert_memory_equal(magic, "\177ELF", 4);
}

int main(void)
{
   snprintf(root, sizeof(root), "/tmp/kiln-amdgpu-cache-XXXXXX");
   if (!mkdtemp(root)) {
      perror("mkdtemp");
      return 1;
   }
   char cache[128];
   snprintf(cache, sizeof(cache), "%s/cache", root);
   snprintf(log_path, sizeof(log_path), "%s/log", root);
   /* Read at the first build and the first log line, both still to come. */
   setenv("KILN_CACHE_DIR", cache, 1);
   setenv("KILN_DEBUG", "compile", 1);
   setenv("KILN_LOG", log_path, 1);
   unsetenv("KILN_CACHE");
   unsetenv("KILN_CACHE_SIZE");
   unsetenv("KILN_DUMP");

   /* KILN_DEVICES=amdgpu (meson.build): the faked GPUs alone. */
   fake_drm_reset();
   fake_drm_add_gpu(141, 0x01, "Radeon RX Vega 64"); /* gfx900 */
   fake_drm_add_gpu(145, 0x01, NULL);                /* gfx1100 */
   cl_platform_id platform;
   cl_uint n = 0;
   if (clGetPlatformIDs(1, &platform, NULL) ||
       clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 2, gpus, &n) || n != 2) {
      fprintf(stderr, "the faked AMD GPUs are not devices (%u)\n", n);
      return 1;
   }
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_second_build_hits),
      cmocka_unit_test(test_per_processor),
      cmocka_unit_test(test_dump),
   };
   int failed = cmocka_run_group_tests(tests, NULL, NULL);
   char cmd[128];
   snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
   if (!failed && system(cmd) != 0)
      fprintf(stderr, "could not remove %s\n", root);
   return failed;
}
