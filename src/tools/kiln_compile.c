/* kiln-compile: the offline compiler.  OpenCL C in, a Kiln program binary
 * (include/kiln/binary_format.h) out, for clCreateProgramWithBinary on a
 * device of that target — including GPUs this machine does not have.
 *
 *   kiln-compile -t gfx1030 -o saxpy.bin saxpy.cl
 *   kiln-compile -t gfx1100 -S saxpy.cl          (disassembly on stdout)
 *   kiln-compile -t gfx900 --elf saxpy.o saxpy.cl (the bare code object)
 *   kiln-compile -t sm_90 --elf saxpy.ptx saxpy.cl (an NVIDIA GPU's PTX)
 */
#include <CL/cl.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/binary.h"
#include "core/device_version.h"
#include "kiln/cl_version.h"
#include "kiln/kernel_info.h"
#include "llvm/amdgpu/amdgpu_target.h"
#include "llvm/compiler.h"
#include "llvm/amdgpu/disasm.h"
#include "llvm/nvptx/nvptx_target.h"
/* The GPU targets compile through src/llvm alone; their extension list
 * is a header of the driver's (no libdrm).  What needs a driver's code
 * (the CPU's caps, the amdgpu code object reader for -S) is there only
 * when meson's -Ddrivers built that driver. */
#include "pipe/amdgpu/amdgpu_caps.h"
#include "pipe/cuda/cuda_caps.h"
#if KILN_DRIVER_AMDGPU
#include "pipe/amdgpu/amdgpu_code_object.h"
#endif
#if KILN_DRIVER_CPU
#include "pipe/cpu/cpu_screen.h"
#endif
#include "util/alloc.h"

static void usage(FILE *f)
{
   fprintf(f,
           "usage: kiln-compile -t TARGET [-o BINARY] [--elf OBJECT] [-S] [-D NAME[=V]] "
           "[--options STRING] FILE.cl\n"
           "  -t, --target TARGET   cpu (this machine's processor), an AMD GPU (gfx900, ...)\n"
           "                        or an NVIDIA GPU (sm_90, ...)\n"
           "  -o, --output FILE     the program binary for clCreateProgramWithBinary\n"
           "      --elf FILE        the device code object alone (GPU targets; PTX for NVIDIA)\n"
           "  -S, --disassemble     print each kernel's descriptor and instructions (GPU)\n"
           "      --options STRING  clBuildProgram options (\"-cl-fast-relaxed-math ...\")\n"
           "  -D NAME[=VALUE]       same as --options \"-D NAME=VALUE\"\n"
           "      --list-targets    the targets this kiln-compile knows\n"
           "Exit status: 0 built, 1 the build failed (log on stderr), 2 usage or I/O.\n");
}

static char *read_all(const char *path, size_t *size)
{
   FILE *f = fopen(path, "rb");
   if (!f)
      return NULL;
   char *buf = NULL;
   size_t len = 0, cap = 0;
   for (;;) {
      if (len + 4096 + 1 > cap) {
         cap = (len + 4096 + 1) * 2;
         char *t = kiln_realloc(buf, cap);
         if (!t) {
            kiln_free(buf);
            fclose(f);
            return NULL;
         }
         buf = t;
      }
      size_t n = fread(buf + len, 1, 4096, f);
      len += n;
      if (n < 4096)
         break;
   }
   bool bad = ferror(f);
   fclose(f);
   if (bad) {
      kiln_free(buf);
      return NULL;
   }
   buf[len] = 0;
   *size = len;
   return buf;
}

static bool write_all(const char *path, const void *data, size_t size)
{
   FILE *f = fopen(path, "wb");
   if (!f)
      return false;
   bool ok = fwrite(data, 1, size, f) == size;
   return fclose(f) == 0 && ok;
}

#if KILN_DRIVER_AMDGPU
static struct amdgpu_isa isa_of(const char *gfx)
{
   struct amdgpu_isa isa = {
      .gfx_level = kiln_amdgpu_target_find(gfx)->gfx_level,
      .accum_offset = !strcmp(gfx, "gfx90a") || !strncmp(gfx, "gfx94", 5),
   };
   return isa;
}

static int disassemble(const char *gfx, const struct kiln_build_output *out)
{
   struct amdgpu_code_object co;
   char error[256] = "";
   struct amdgpu_isa isa = isa_of(gfx);
   if (amdgpu_code_object_parse(out->object, out->object_size, &isa, &co,
                                error, sizeof(error))) {
      fprintf(stderr, "kiln-compile: the code object does not parse: %s\n", error);
      return 1;
   }
   const unsigned char *text = (const unsigned char *)out->object + co.text_file_offset;
   for (unsigned i = 0; i < co.num_kernels; i++) {
      const struct amdgpu_kernel_desc *k = &co.kernels[i];
      printf("kernel %s (%s, wave%u)\n", k->name, gfx, k->wave32 ? 32 : 64);
      printf("  COMPUTE_PGM_RSRC1 0x%08x  RSRC2 0x%08x  RSRC3 0x%08x\n", k->rsrc1, k->rsrc2,
             k->rsrc3);
      printf("  sgprs %u  vgprs %u  user sgprs %u (dispatch ptr s%d, kernarg ptr s%d, "
             "scratch buffer s%d)\n",
             k->sgpr_count, k->vgpr_count, k->user_sgpr_count, k->sgpr_dispatch_ptr,
             k->sgpr_kernarg_ptr, k->sgpr_private_segment_buffer);
      printf("  kernarg %llu bytes  lds %u bytes  scratch %u bytes/work-item\n",
             (unsigned long long)k->kernarg_size, k->group_segment_size,
             k->private_segment_size);
      char *s = kiln_llvm_disassemble_amdgpu(gfx, text + k->code_offset, k->code_size,
                                             k->code_offset);
      if (!s) {
         amdgpu_code_object_fini(&co);
         fprintf(stderr, "kiln-compile: no disassembler for %s\n", gfx);
         return 1;
      }
      fputs(s, stdout);
      kiln_free(s);
   }
   amdgpu_code_object_fini(&co);
   return 0;
}
#endif

/* Appends " -D <def>" to *options. */
static bool add_define(char **options, const char *def)
{
   size_t n = strlen(*options) + strlen(def) + 5;
   char *o = kiln_malloc(n);
   if (!o)
      return false;
   snprintf(o, n, "%s -D %s", *options, def);
   kiln_free(*options);
   *options = o;
   return true;
}

int main(int argc, char **argv)
{
   enum { OPT_ELF = 256, OPT_OPTIONS, OPT_LIST };
   static const struct option longopts[] = {
      {"target", required_argument, NULL, 't'},   {"output", required_argument, NULL, 'o'},
      {"elf", required_argument, NULL, OPT_ELF},  {"disassemble", no_argument, NULL, 'S'},
      {"options", required_argument, NULL, OPT_OPTIONS},
      {"list-targets", no_argument, NULL, OPT_LIST}, {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
   };
   const char *target = NULL, *output = NULL, *elf = NULL;
   char *options = kiln_strdup("");
   bool disasm = false;
   int c;
   while (options && (c = getopt_long(argc, argv, "t:o:SD:h", longopts, NULL)) != -1) {
      switch (c) {
      case 't': target = optarg; break;
      case 'o': output = optarg; break;
      case 'S': disasm = true; break;
      case OPT_ELF: elf = optarg; break;
      case 'D':
         if (!add_define(&options, optarg))
            return 2;
         break;
      case OPT_OPTIONS: {
         kiln_free(options);
         options = kiln_strdup(optarg);
         break;
      }
      case OPT_LIST:
#if KILN_DRIVER_CPU
         printf("cpu\n");
#endif
         for (unsigned i = 0; kiln_amdgpu_target_at(i); i++)
            printf("%s\n", kiln_amdgpu_target_at(i)->gfx);
         for (unsigned i = 0; kiln_nvptx_target_at(i); i++)
            printf("%s\n", kiln_nvptx_target_at(i)->sm);
         kiln_free(options);
         return 0;
      case 'h': usage(stdout); kiln_free(options); return 0;
      default: usage(stderr); kiln_free(options); return 2;
      }
   }
   if (!options)
      return 2;
   if (!target || optind != argc - 1 || (!output && !elf && !disasm)) {
      usage(stderr);
      kiln_free(options);
      return 2;
   }
   bool cpu = !strcmp(target, "cpu"), nvptx = kiln_nvptx_target_find(target) != NULL;
   if (!cpu && !nvptx && !kiln_amdgpu_target_find(target)) {
      fprintf(stderr, "kiln-compile: unknown target '%s' (--list-targets)\n", target);
      kiln_free(options);
      return 2;
   }
   if (cpu && (elf || disasm)) {
      fprintf(stderr, "kiln-compile: --elf and -S are for GPU targets\n");
      kiln_free(options);
      return 2;
   }
#if !KILN_DRIVER_AMDGPU
   if (disasm && !nvptx) {
      fprintf(stderr, "kiln-compile: -S needs the amdgpu driver (meson -Ddrivers=...,amdgpu)\n");
      kiln_free(options);
      return 2;
   }
#endif
#if !KILN_DRIVER_CPU
   if (cpu) {
      fprintf(stderr, "kiln-compile: -t cpu needs the cpu driver (meson -Ddrivers=cpu,...)\n");
      kiln_free(options);
      return 2;
   }
#endif
   size_t size;
   char *source = read_all(argv[optind], &size);
   if (!source) {
      fprintf(stderr, "kiln-compile: cannot read %s: %s\n", argv[optind], strerror(errno));
      kiln_free(options);
      return 2;
   }

   if (disasm && nvptx) {
      fprintf(stderr, "kiln-compile: -S is for AMD GPUs (--elf writes an NVIDIA GPU's PTX)\n");
      kiln_free(options);
      return 2;
   }
   /* --target cpu is this machine's CPU, sm_* an NVIDIA GPU, anything
    * else an AMD processor.  The version is the device's
    * (pipe_caps::opencl_version): the CPU device is the platform's 3.0,
    * AMD GPUs still 1.2, NVIDIA GPUs what cuda_kernel_caps says (below). */
   struct kiln_compile_target t = {.ir = cpu ? "cpu" : nvptx ? "nvptx" : "amdgcn",
                                   .processor = cpu ? "" : target,
                                   .opencl_version = cpu ? KILN_CL_VERSION_NUMBER : 120};
   struct kiln_build_output out;
   enum kiln_build_status st;
#if KILN_DRIVER_CPU
   if (cpu) {
      struct pipe_screen *screen = cpu_screen_create(false);
      if (!screen) {
         kiln_free(source), kiln_free(options);
         return 2;
      }
      t.image_support = screen->caps.image_support;
      /* The device's -cl-ext list with its OpenCL C 3.0 features, as
       * core gives clBuildProgram (core/device_version.c). */
      char cl_ext[sizeof(screen->caps.clang_extensions) + 512];
      kiln_caps_clang_ext(&screen->caps, cl_ext, sizeof(cl_ext));
      t.cl_ext = cl_ext;
      t.opencl_c_20 = kiln_caps_c20(&screen->caps);
      st = kiln_llvm_build(source, size, options, &t, &out);
      /* The CPU compiles kernels at their first use (docs/design.md): a
       * binary gets them all now, so that it runs without compiling. */
      char *error = NULL;
      void *prog = st == KILN_BUILD_OK && screen->program_code
                      ? screen->program_create(screen, out.object, out.object_size, &error)
                      : NULL;
      if (prog) {
         size_t n;
         void *code = screen->program_code(screen, prog, true, &n);
         if (code) {
            kiln_free(out.object);
            out.object = code;
            out.object_size = n;
         }
         screen->program_destroy(screen, prog);
      } else if (st == KILN_BUILD_OK && screen->program_code) {
         fprintf(stderr, "kiln-compile: the CPU code does not load: %s\n",
                 error ? error : "out of host memory");
         st = KILN_BUILD_FAILED;
      }
      kiln_free(error);
      screen->destroy(screen);
   } else
#endif
   {
      /* What the drivers report (images: the CUDA device's, linear;
       * its -cl-ext list with its OpenCL C 3.0 features, as core gives
       * clBuildProgram). */
      struct pipe_caps cuda = {0};
      cuda_kernel_caps(&cuda);
      char cuda_ext[sizeof(cuda.clang_extensions) + 512];
      kiln_caps_clang_ext(&cuda, cuda_ext, sizeof(cuda_ext));
      t.cl_ext = nvptx ? cuda_ext : AMDGPU_CLANG_EXTENSIONS;
      t.image_support = nvptx && cuda.image_support;
      if (nvptx) {
         t.opencl_version = (int)cuda.opencl_version;
         t.opencl_c_20 = kiln_caps_c20(&cuda);
      }
      st = kiln_llvm_build(source, size, options, &t, &out);
   }
   kiln_free(source);
   if (out.log && *out.log)
      fputs(out.log, stderr);
   int rc = 0;
   if (st != KILN_BUILD_OK) {
      fprintf(stderr, "kiln-compile: the build for %s failed\n", target);
      rc = 1;
   }
   if (!rc && elf && !write_all(elf, out.object, out.object_size)) {
      fprintf(stderr, "kiln-compile: cannot write %s: %s\n", elf, strerror(errno));
      rc = 2;
   }
   if (!rc && output) {
      struct kiln_binary_contents bin = {
         .target = out.target_id,
         .options = options,
         .object = out.object,
         .object_size = out.object_size,
         .bitcode = out.bitcode,
         .bitcode_size = out.bitcode_size,
         .kernels = out.kernels,
         .num_kernels = out.num_kernels,
      };
      size_t n = kiln_binary_write(&bin, NULL);
      unsigned char *data = kiln_malloc(n);
      if (!data || (kiln_binary_write(&bin, data), !write_all(output, data, n))) {
         fprintf(stderr, "kiln-compile: cannot write %s: %s\n", output, strerror(errno));
         rc = 2;
      }
      kiln_free(data);
   }
#if KILN_DRIVER_AMDGPU
   if (!rc && disasm)
      rc = disassemble(target, &out);
#endif
   kiln_build_output_fini(&out);
   kiln_free(options);
   return rc;
}
