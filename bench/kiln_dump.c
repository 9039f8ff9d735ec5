/* kiln_dump: builds an OpenCL C file on the first platform whose name
 * contains "Kiln" (or --platform SUBSTR) and writes the sections of its
 * program binary, to look at what the CPU compiler made of a kernel:
 *
 *   kiln_dump kernels.cl OUTDIR [--options "..."]
 *   objdump -d --no-show-raw-insn OUTDIR/object.o     (the device code)
 *   llvm-dis-19 OUTDIR/program.bc                     (front-end IR)
 *
 * Sections are named after include/kiln/binary_format.h; the reader here
 * checks sizes but is a debugging aid, not a validator.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CL/cl.h>

#include "kiln/binary_format.h"

static bool contains_ci(const char *hay, const char *needle)
{
   size_t n = strlen(needle);
   for (; *hay; hay++) {
      size_t k = 0;
      while (k < n && hay[k] && tolower((unsigned char)hay[k]) == tolower((unsigned char)needle[k]))
         k++;
      if (k == n)
         return true;
   }
   return false;
}

static char *read_file(const char *path, size_t *size)
{
   FILE *f = fopen(path, "rb");
   if (!f)
      return NULL;
   fseek(f, 0, SEEK_END);
   long n = ftell(f);
   fseek(f, 0, SEEK_SET);
   char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
   if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
      free(buf);
      buf = NULL;
   }
   fclose(f);
   if (buf) {
      buf[n] = 0;
      *size = (size_t)n;
   }
   return buf;
}

static int write_file(const char *dir, const char *name, const void *data, size_t size)
{
   char path[4096];
   snprintf(path, sizeof(path), "%s/%s", dir, name);
   FILE *f = fopen(path, "wb");
   if (!f || fwrite(data, 1, size, f) != size) {
      fprintf(stderr, "kiln_dump: cannot write %s\n", path);
      if (f)
         fclose(f);
      return 1;
   }
   fclose(f);
   printf("%s (%zu bytes)\n", path, size);
   return 0;
}

static uint32_t get32(const unsigned char *p)
{
   return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

int main(int argc, char **argv)
{
   const char *options = "", *filter = "kiln";
   const char *src_path = NULL, *out_dir = NULL;
   for (int i = 1; i < argc; i++) {
      if (!strcmp(argv[i], "--options") && i + 1 < argc)
         options = argv[++i];
      else if (!strcmp(argv[i], "--platform") && i + 1 < argc)
         filter = argv[++i];
      else if (!src_path)
         src_path = argv[i];
      else if (!out_dir)
         out_dir = argv[i];
   }
   if (!src_path || !out_dir) {
      fprintf(stderr, "usage: %s FILE.cl OUTDIR [--options OPTS] [--platform SUBSTR]\n", argv[0]);
      return 2;
   }
   size_t src_size;
   char *src = read_file(src_path, &src_size);
   if (!src) {
      fprintf(stderr, "kiln_dump: cannot read %s\n", src_path);
      return 1;
   }
   cl_platform_id ids[16];
   cl_uint n = 0;
   clGetPlatformIDs(16, ids, &n);
   cl_platform_id plat = NULL;
   for (cl_uint i = 0; i < n && i < 16 && !plat; i++) {
      char name[256] = "";
      clGetPlatformInfo(ids[i], CL_PLATFORM_NAME, sizeof(name), name, NULL);
      if (contains_ci(name, filter))
         plat = ids[i];
   }
   if (!plat) {
      fprintf(stderr, "kiln_dump: no platform matching '%s'\n", filter);
      return 1;
   }
   cl_device_id dev;
   cl_int err = clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL);
   cl_context ctx = err ? NULL : clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
   const char *srcs[] = {src};
   cl_program prog = err ? NULL : clCreateProgramWithSource(ctx, 1, srcs, &src_size, &err);
   if (!err)
      err = clBuildProgram(prog, 1, &dev, options, NULL, NULL);
   if (prog) {
      size_t log_size = 0;
      clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size);
      char *log = malloc(log_size + 1);
      if (log && !clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, log_size, log, NULL) &&
          log_size > 1)
         fprintf(stderr, "%s\n", log);
      free(log);
   }
   if (err) {
      fprintf(stderr, "kiln_dump: build failed: %d\n", (int)err);
      return 1;
   }
   size_t bin_size = 0;
   clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof(bin_size), &bin_size, NULL);
   unsigned char *bin = malloc(bin_size ? bin_size : 1);
   unsigned char *bins[] = {bin};
   if (!bin || clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof(bins), bins, NULL)) {
      fprintf(stderr, "kiln_dump: no program binary\n");
      return 1;
   }
   int rc = write_file(out_dir, "program.kilnbin", bin, bin_size);
   if (bin_size < 16 || memcmp(bin, KILN_BINARY_MAGIC, 8)) {
      fprintf(stderr, "kiln_dump: not a Kiln binary (written as is)\n");
      return 1;
   }
   static const char *const names[] = {NULL, "target.txt", "kiln_version.txt", "options.txt",
                                       "object.o", "kernels.bin", "program.bc"};
   uint32_t count = get32(bin + 12);
   size_t off = 16;
   for (uint32_t s = 0; s < count && off + 16 <= bin_size; s++) {
      uint32_t type = get32(bin + off);
      uint64_t size = get32(bin + off + 8) | (uint64_t)get32(bin + off + 12) << 32;
      off += 16;
      if (size > bin_size - off)
         break;
      char other[32];
      snprintf(other, sizeof(other), "section%u.bin", type);
      rc |= write_file(out_dir, type < 7 && names[type] ? names[type] : other, bin + off,
                       (size_t)size);
      off += (size_t)((size + 7) & ~(uint64_t)7);
   }
   clReleaseProgram(prog);
   clReleaseContext(ctx);
   free(bin);
   free(src);
   return rc;
}
