/* Writes the seed corpora of tests/fuzz/corpus (run once; its output is
 * committed):
 *
 *    make_seeds OUTDIR      writes OUTDIR/{binary,set_kernel_arg}/...
 *
 * binary/: a real program binary built by Kiln (the object is for the CPU
 * that ran this; fuzz_binary retargets binaries to the CPU it runs on), the
 * same without its bitcode, and small hand-made containers.
 * set_kernel_arg/: operation sequences in fuzz_set_kernel_arg.c's format.
 * The build_options seeds are plain text files, written by hand. */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

#include "core/binary.h"
#include "fuzz.h"
#include "fuzz_program.h"
#include "kiln/binary_format.h"
#include "kiln/kernel_info.h"

static const char *outdir;

static void write_file(const char *sub, const char *name, const void *data, size_t size)
{
   char path[4096];
   snprintf(path, sizeof(path), "%s/%s", outdir, sub);
   if (mkdir(path, 0755) && errno != EEXIST) {
      perror(path);
      exit(1);
   }
   snprintf(path, sizeof(path), "%s/%s/%s", outdir, sub, name);
   FILE *f = fopen(path, "wb");
   FUZZ_CHECK(f && fwrite(data, 1, size, f) == size && !fclose(f), "writing %s", path);
   printf("%s: %zu bytes\n", path, size);
}

static void binary_seeds(void)
{
   cl_device_id dev = fuzz_device();
   cl_context ctx = fuzz_context(dev);
   const char *src = fuzz_program_src;
   cl_int err = -1;
   cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
   FUZZ_CHECK(!err, "clCreateProgramWithSource: %d", err);
   err = clBuildProgram(p, 1, &dev, FUZZ_PROGRAM_OPTIONS, NULL, NULL);
   FUZZ_CHECK(!err, "clBuildProgram: %d", err);
   size_t size = 0;
   err = clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, NULL);
   FUZZ_CHECK(!err && size, "CL_PROGRAM_BINARY_SIZES: %d", err);
   unsigned char *bin = malloc(size);
   err = clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bin), &bin, NULL);
   FUZZ_CHECK(!err, "CL_PROGRAM_BINARIES: %d", err);
   write_file("binary", "real.bin", bin, size);

   struct kiln_binary_contents c;
   FUZZ_CHECK(kiln_binary_read(bin, size, &c) == KILN_BINARY_OK, "Kiln refuses its own binary");
   void *bitcode = c.bitcode;
   c.bitcode = NULL;
   size_t n = kiln_binary_write(&c, NULL);
   unsigned char *out = malloc(n);
   kiln_binary_write(&c, out);
   write_file("binary", "real_no_bitcode.bin", out, n);
   free(out);
   c.bitcode = bitcode;
   kiln_binary_contents_fini(&c);
   free(bin);
   clReleaseProgram(p);
   clReleaseContext(ctx);

   /* Hand-made: every argument kind, a bogus object. */
   struct kiln_arg_info args[] = {
      {KILN_ARG_VALUE, 4, 0, CL_KERNEL_ARG_ADDRESS_PRIVATE, CL_KERNEL_ARG_ACCESS_NONE, 0, "int", "i"},
      {KILN_ARG_GLOBAL, 8, 8, CL_KERNEL_ARG_ADDRESS_GLOBAL, CL_KERNEL_ARG_ACCESS_NONE, 0, "float*", "g"},
      {KILN_ARG_CONSTANT, 8, 16, CL_KERNEL_ARG_ADDRESS_CONSTANT, CL_KERNEL_ARG_ACCESS_NONE, 1, "float*", "c"},
      {KILN_ARG_LOCAL, 8, 24, CL_KERNEL_ARG_ADDRESS_LOCAL, CL_KERNEL_ARG_ACCESS_NONE, 0, "int*", "l"},
      {KILN_ARG_SAMPLER, 8, 32, CL_KERNEL_ARG_ADDRESS_PRIVATE, CL_KERNEL_ARG_ACCESS_NONE, 0, "sampler_t", "s"},
      {KILN_ARG_IMAGE2D, 8, 40, CL_KERNEL_ARG_ADDRESS_GLOBAL, CL_KERNEL_ARG_ACCESS_READ_ONLY, 0, "image2d_t", "i2"},
      {KILN_ARG_IMAGE3D, 8, 48, CL_KERNEL_ARG_ADDRESS_GLOBAL, CL_KERNEL_ARG_ACCESS_READ_ONLY, 0, "image3d_t", "i3"},
      {KILN_ARG_VALUE, 16, 56, CL_KERNEL_ARG_ADDRESS_PRIVATE, CL_KERNEL_ARG_ACCESS_NONE, 0, "float4", "v"},
   };
   struct kiln_kernel_info kernels[] = {
      {"k", 8, args, 72, {1, 1, 1}, {0, 0, 0}, "", 0, 0},
      {"empty", 0, NULL, 0, {0, 0, 0}, {8, 8, 1}, "float4", 64, 16},
   };
   static const unsigned char elf[] = "\x7f" "ELF\x02\x01\x01";
   struct kiln_binary_contents h = {
      .target = "cpu:x86_64-pc-linux-gnu:generic:",
      .options = "-cl-opt-disable",
      .object = (void *)elf,
      .object_size = sizeof(elf) - 1,
      .kernels = kernels,
      .num_kernels = 2,
   };
   n = kiln_binary_write(&h, NULL);
   out = malloc(n);
   kiln_binary_write(&h, out);
   write_file("binary", "handmade_kernels.bin", out, n);
   free(out);
   h.num_kernels = 0;
   h.options = NULL;
   n = kiln_binary_write(&h, NULL);
   out = malloc(n);
   kiln_binary_write(&h, out);
   write_file("binary", "handmade_empty.bin", out, n);
   free(out);
}

/* ---- set_kernel_arg: operation sequences ---- */

struct seq {
   unsigned char b[512];
   size_t n;
};

static void put(struct seq *s, int count, ...)
{
   va_list ap;
   va_start(ap, count);
   for (int i = 0; i < count; i++)
      s->b[s->n++] = (unsigned char)va_arg(ap, int);
   va_end(ap);
}

static void put_n(struct seq *s, unsigned char byte, int count)
{
   for (int i = 0; i < count; i++)
      s->b[s->n++] = byte;
}

/* op 0 (set), kernel, index, [local size], size mode 0 (natural), value
 * mode, bytes, [handle]. */
static void set_mem(struct seq *s, int kern, int index, int handle)
{
   put(s, 5, 0, kern, index, 0, 1);
   put_n(s, 0, 8);
   put(s, 1, handle);
}

static void set_value(struct seq *s, int kern, int index, int size, unsigned char fill)
{
   put(s, 5, 0, kern, index, 0, 2);
   put_n(s, fill, size);
}

static void set_local(struct seq *s, int kern, int index, int size)
{
   put(s, 6, 0, kern, index, (size - 1) & 0xff, (size - 1) >> 8, 0);
   put(s, 1, 0); /* value NULL */
}

/* Every argument of `run` (see fuzz_set_kernel_arg.c), buffers chosen by
 * handle picks g and c. */
static void set_run(struct seq *s, int g, int c)
{
   set_mem(s, 1, 0, g);
   set_mem(s, 1, 1, c);
   set_local(s, 1, 2, 16);
   static const int sizes[] = {1, 2, 4, 8, 4, 16, 4, 12};
   for (int i = 0; i < 8; i++)
      set_value(s, 1, 3 + i, sizes[i], (unsigned char)(0x11 * (i + 1)));
   set_local(s, 1, 11, 64);
}

static void set_kernel_arg_seeds(void)
{
   struct seq s = {{0}, 0};
   set_run(&s, 1, 3); /* buf_a, sub-buffer */
   put(&s, 1, 7);     /* launch */
   write_file("set_kernel_arg", "run_all_set.bin", s.b, s.n);

   s.n = 0;
   set_run(&s, 0, 0); /* NULL buffers */
   put(&s, 1, 7);
   write_file("set_kernel_arg", "run_null_buffers.bin", s.b, s.n);

   s.n = 0;
   set_run(&s, 1, 3);
   /* Random bytes as the cl_mem, then a buffer of another context. */
   put(&s, 5, 0, 1, 0, 0, 1);
   put_n(&s, 0, 8);
   put(&s, 1, 11);
   put_n(&s, 0x41, 8);
   set_mem(&s, 1, 1, 4);
   set_mem(&s, 1, 0, 5);
   put(&s, 1, 7);
   write_file("set_kernel_arg", "bad_handles.bin", s.b, s.n);

   /* regressions/set_kernel_arg/local_size_wraps.bin was written here:
    * set_run(&s, 2, 2), then a __local argument of 2^64-1 bytes (size
    * mode 5: put(&s, 6, 0, 1, 2, 0, 0, 5); put_n(&s, 0xff, 8); put(&s, 1,
    * 0)) and a launch (put(&s, 1, 7)). */

   s.n = 0;
   /* `every`: sampler and images with handles, wrong sizes, bad index. */
   set_mem(&s, 0, 12, 1);
   set_mem(&s, 0, 13, 4); /* another context's buffer */
   set_mem(&s, 0, 14, 11);
   put_n(&s, 0x7f, 8);
   put(&s, 5, 0, 0, 0xf0, 0xff, 0xff);
   put(&s, 4, 0xff, 0xff, 3, 0);
   set_value(&s, 0, 10, 12, 0x5a);
   set_value(&s, 0, 11, 128, 0xa5);
   put(&s, 5, 0, 0, 5, 6, 1); /* int with size 5 */
   put(&s, 1, 2);
   put_n(&s, 1, 5);
   put(&s, 2, 8, 0); /* recreate `every` */
   put(&s, 2, 9, 4); /* released kernel */
   put(&s, 3, 9, 3, 0x10);
   write_file("set_kernel_arg", "every_kinds.bin", s.b, s.n);
}

int main(int argc, char **argv)
{
   if (argc != 2) {
      fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
      return 2;
   }
   outdir = argv[1];
   binary_seeds();
   set_kernel_arg_seeds();
   return 0;
}
