/* Fuzzes program binaries: the container reader (src/core/binary.c,
 * kiln_binary_read) and, through the API, clCreateProgramWithBinary,
 * clBuildProgram (which loads the object into the JIT), kernel creation,
 * clSetKernelArg from the binary's argument descriptions and the packing
 * of those arguments by clEnqueueNDRangeKernel.
 *
 * The kernels never run: each launch waits on a user event that then
 * fails, so its command is abandoned.  A binary is device code, and code
 * that runs may do anything; what must never crash is Kiln reading it.
 *
 * The committed seeds were built on one machine; a binary is only
 * accepted for the CPU it was built for, so every binary the reader
 * accepts is also written back with this machine's target id and offered
 * again. */
#include <string.h>

#include "core/binary.h"
#include "fuzz.h"
#include "fuzz_program.h"
#include "kiln/kernel_info.h"
#include "llvm/compiler.h"
#include "util/check.h"

static cl_device_id dev;
static cl_context ctx;
static cl_command_queue queue;
static char *target_id;

/* Known bug "jitlink": LLVM's JITLink trusts the ELF object it links and
 * crashes on some malformed ones (e.g. a symbol whose st_shndx is past the
 * section table): kiln_jit_lookup is reached from clCreateKernel*.  With
 * it set, every binary is given the object of fuzz_program.h, built here,
 * so that the rest of the container (kernel descriptions above all) is
 * still fuzzed. */
static void *good_object;
static size_t good_object_size;

static void build_good_object(void)
{
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
   FUZZ_CHECK(bin, "malloc");
   err = clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bin), &bin, NULL);
   FUZZ_CHECK(!err, "CL_PROGRAM_BINARIES: %d", err);
   struct kiln_binary_contents c;
   FUZZ_CHECK(kiln_binary_read(bin, size, &c) == KILN_BINARY_OK, "Kiln refuses its own binary");
   good_object = c.object;
   good_object_size = c.object_size;
   c.object = NULL;
   kiln_binary_contents_fini(&c);
   free(bin);
   clReleaseProgram(p);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
   (void)argc;
   (void)argv;
   dev = fuzz_device();
   ctx = fuzz_context(dev);
   cl_int err = -1;
   queue = clCreateCommandQueue(ctx, dev, 0, &err);
   FUZZ_CHECK(queue && !err, "clCreateCommandQueue: %d", err);
   /* The id this process accepts: KILN_CHECK=bounds is part of it. */
   struct kiln_compile_target cpu = {.ir = "cpu", .processor = "",
                                     .bounds_check = kiln_check_bounds()};
   kiln_llvm_target_id(&cpu, &target_id);
   FUZZ_CHECK(target_id, "no target id");
   if (fuzz_known("jitlink"))
      build_good_object();
   return 0;
}

static bool same_string(const char *a, const char *b)
{
   return !strcmp(a ? a : "", b ? b : "");
}

/* What the writer makes of an accepted binary reads back the same (strings
 * up to their first NUL: the format's strings carry none). */
static void check_round_trip(const struct kiln_binary_contents *c)
{
   size_t n = kiln_binary_write(c, NULL);
   unsigned char *buf = malloc(n);
   FUZZ_CHECK(buf, "malloc %zu", n);
   FUZZ_CHECK(kiln_binary_write(c, buf) == n, "writer changed its size");
   struct kiln_binary_contents d;
   FUZZ_CHECK(kiln_binary_read(buf, n, &d) == KILN_BINARY_OK, "rewritten binary refused");
   FUZZ_CHECK(same_string(c->target, d.target) && same_string(c->options, d.options),
              "strings changed");
   FUZZ_CHECK(c->object_size == d.object_size && !memcmp(c->object, d.object, c->object_size),
              "object changed");
   FUZZ_CHECK(!c->bitcode == !d.bitcode && c->bitcode_size == d.bitcode_size &&
                 (!c->bitcode || !memcmp(c->bitcode, d.bitcode, c->bitcode_size)),
              "bitcode changed");
   FUZZ_CHECK(c->num_kernels == d.num_kernels, "%u kernels, then %u", c->num_kernels,
              d.num_kernels);
   for (unsigned k = 0; k < c->num_kernels; k++) {
      const struct kiln_kernel_info *a = &c->kernels[k], *b = &d.kernels[k];
      FUZZ_CHECK(same_string(a->name, b->name) && a->num_args == b->num_args &&
                    a->args_size == b->args_size && a->local_mem_size == b->local_mem_size &&
                    a->private_mem_size == b->private_mem_size &&
                    !memcmp(a->reqd_work_group_size, b->reqd_work_group_size,
                            sizeof(a->reqd_work_group_size)) &&
                    same_string(a->vec_type_hint, b->vec_type_hint),
                 "kernel %u changed", k);
      for (uint32_t i = 0; i < a->num_args; i++) {
         const struct kiln_arg_info *x = &a->args[i], *y = &b->args[i];
         FUZZ_CHECK(x->kind == y->kind && x->size == y->size && x->offset == y->offset &&
                       x->address_qualifier == y->address_qualifier &&
                       x->access_qualifier == y->access_qualifier &&
                       x->type_qualifier == y->type_qualifier &&
                       same_string(x->type_name, y->type_name) && same_string(x->name, y->name),
                    "kernel %u arg %u changed", k, i);
      }
   }
   kiln_binary_contents_fini(&d);
   free(buf);
}

/* Sets every argument the way an application reading the binary's
 * description would, then packs them for a launch that never runs. */
static void exercise_kernel(cl_kernel k, const struct kiln_binary_contents *c)
{
   cl_uint nargs = 0;
   cl_int err = clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof(nargs), &nargs, NULL);
   FUZZ_CHECK(!err, "CL_KERNEL_NUM_ARGS: %d", err);
   size_t name_size = 0;
   err = clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, 0, NULL, &name_size);
   FUZZ_CHECK(!err && name_size, "CL_KERNEL_FUNCTION_NAME: %d", err);
   size_t wg = 0, reqd[3] = {0, 0, 0};
   cl_ulong local = 0;
   clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg), &wg, NULL);
   clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof(reqd), reqd, NULL);
   clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof(local), &local, NULL);

   static const unsigned char zeros[65536];
   /* Without a description of the argument kinds (1.1 has no
    * clGetKernelArgInfo), try each kind of value on each argument:
    * whichever the binary says it is must be accepted or refused. */
   for (cl_uint i = 0; i < nargs && i < 64; i++) {
      cl_mem none = NULL;
      if (clSetKernelArg(k, i, sizeof(cl_mem), &none) == CL_SUCCESS)
         continue;
      if (clSetKernelArg(k, i, 16, NULL) == CL_SUCCESS)
         continue;
      /* By value: sizes up to 512, then powers of two; stop at the first
       * answer that is not about the size. */
      for (size_t s = 1; s <= sizeof(zeros); s = s < 512 ? s + 1 : s * 2) {
         err = clSetKernelArg(k, i, s, zeros);
         if (err != CL_INVALID_ARG_SIZE)
            break;
      }
   }
   err = clSetKernelArg(k, nargs, 4, zeros);
   FUZZ_CHECK(err == CL_INVALID_ARG_INDEX, "arg %u of %u: %d", nargs, nargs, err);

   /* Known bug "reqd-zero": a binary may give reqd_work_group_size with a
    * zero in it (the reader takes any value); clEnqueueNDRangeKernel then
    * divides by it (src/api/enqueue.c, enqueue_ndrange). */
   if ((reqd[0] || reqd[1] || reqd[2]) && !(reqd[0] && reqd[1] && reqd[2]) &&
       fuzz_known("reqd-zero"))
      return;

   /* Known bug "arg-slot-small": the reader lets a buffer, constant or
    * __local argument have a slot smaller than the 8 bytes pack_args
    * (src/core/ndrange.c) writes into it: a heap overflow at the end of
    * the argument buffer. */
   if (fuzz_known("arg-slot-small")) {
      char *name = malloc(name_size);
      FUZZ_CHECK(name, "malloc");
      clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, name_size, name, NULL);
      bool small = false;
      for (unsigned i = 0; i < c->num_kernels; i++) {
         if (strcmp(c->kernels[i].name, name))
            continue;
         for (uint32_t a = 0; a < c->kernels[i].num_args; a++) {
            const struct kiln_arg_info *ai = &c->kernels[i].args[a];
            small |= ai->kind != KILN_ARG_VALUE && ai->size < 8;
         }
      }
      free(name);
      if (small)
         return;
   }

   cl_event gate = clCreateUserEvent(ctx, &err);
   FUZZ_CHECK(gate && !err, "clCreateUserEvent: %d", err);
   size_t global = 1;
   cl_event run = NULL;
   err = clEnqueueNDRangeKernel(queue, k, 1, NULL, &global, NULL, 1, &gate, &run);
   clSetUserEventStatus(gate, -1);
   if (!err) {
      clWaitForEvents(1, &run);
      cl_int st = 0;
      clGetEventInfo(run, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL);
      FUZZ_CHECK(st < 0, "a launch waiting on a failed event ended with %d", st);
      clReleaseEvent(run);
   }
   clFinish(queue);
   clReleaseEvent(gate);
}

/* Offers one binary; returns the program when it was accepted. */
static cl_program offer(const unsigned char *bin, size_t size, cl_int *status)
{
   cl_int err = 1;
   *status = 1;
   cl_program p = clCreateProgramWithBinary(ctx, 1, &dev, &size, &bin, status, &err);
   FUZZ_CHECK(!err == !!p, "errcode %d with program %p", err, (void *)p);
   FUZZ_CHECK(err == CL_SUCCESS || err == CL_INVALID_BINARY || (err == CL_INVALID_VALUE && !size),
              "clCreateProgramWithBinary: %d", err);
   if (size)
      FUZZ_CHECK(*status == err, "binary_status %d, errcode %d", *status, err);
   return p;
}

static void build_and_use(cl_program p, const struct kiln_binary_contents *c)
{
   cl_int err = clBuildProgram(p, 1, &dev, NULL, NULL, NULL);
   cl_build_status bs = 0;
   cl_int qerr = clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_STATUS, sizeof(bs), &bs, NULL);
   FUZZ_CHECK(!qerr, "CL_PROGRAM_BUILD_STATUS: %d", qerr);
   size_t log_size = 0;
   qerr = clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size);
   FUZZ_CHECK(!qerr && log_size, "CL_PROGRAM_BUILD_LOG: %d", qerr);
   if (err) {
      FUZZ_CHECK(err == CL_BUILD_PROGRAM_FAILURE || err == CL_INVALID_BINARY,
                 "clBuildProgram: %d", err);
      FUZZ_CHECK(bs == CL_BUILD_ERROR, "failed build with status %d", bs);
      cl_kernel k = clCreateKernel(p, "k", &err);
      FUZZ_CHECK(!k && err == CL_INVALID_PROGRAM_EXECUTABLE, "kernel of a failed build: %d", err);
      return;
   }
   FUZZ_CHECK(bs == CL_BUILD_SUCCESS, "built with status %d", bs);

   /* The binary the program gives back is one Kiln reads again. */
   size_t bin_size = 0;
   err = clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(bin_size), &bin_size, NULL);
   FUZZ_CHECK(!err && bin_size, "CL_PROGRAM_BINARY_SIZES: %d, %zu", err, bin_size);
   unsigned char *bin = malloc(bin_size);
   FUZZ_CHECK(bin, "malloc");
   err = clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bin), &bin, NULL);
   FUZZ_CHECK(!err, "CL_PROGRAM_BINARIES: %d", err);
   struct kiln_binary_contents back;
   FUZZ_CHECK(kiln_binary_read(bin, bin_size, &back) == KILN_BINARY_OK,
              "Kiln refuses the binary it gave");
   kiln_binary_contents_fini(&back);
   free(bin);

   cl_uint n = 0;
   err = clCreateKernelsInProgram(p, 0, NULL, &n);
   FUZZ_CHECK(!err, "clCreateKernelsInProgram: %d", err);
   if (n > 64)
      n = 64;
   cl_kernel *ks = calloc(n ? n : 1, sizeof(*ks));
   FUZZ_CHECK(ks, "calloc");
   err = clCreateKernelsInProgram(p, n, ks, NULL);
   if (!err) {
      for (cl_uint i = 0; i < n; i++) {
         exercise_kernel(ks[i], c);
         clReleaseKernel(ks[i]);
      }
   } else {
      FUZZ_CHECK(err == CL_INVALID_VALUE, "clCreateKernelsInProgram: %d", err);
   }
   free(ks);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   struct kiln_binary_contents c;
   bool ok = kiln_binary_read(data, size, &c) == KILN_BINARY_OK;
   if (!ok) {
      FUZZ_CHECK(!c.target && !c.options && !c.object && !c.kernels && !c.bitcode,
                 "refused binary left contents behind");
   } else {
      FUZZ_CHECK(c.target && c.object && c.object_size && (c.kernels || !c.num_kernels),
                 "accepted binary without its parts");
   }

   /* As given: accepted exactly when the reader accepts it for this CPU. */
   cl_int st;
   cl_program p = offer(data, size, &st);
   if (size) {
      bool want = ok && !strcmp(c.target, target_id);
      FUZZ_CHECK(!p == !want, "API %s a binary the reader %s", p ? "accepts" : "refuses",
                 want ? "accepts" : "refuses");
   }
   if (p) {
      if (!good_object || (c.object_size == good_object_size &&
                           !memcmp(c.object, good_object, good_object_size)))
         build_and_use(p, &c);
      clReleaseProgram(p);
   }
   if (!ok)
      return 0;

   check_round_trip(&c);

   /* Rewritten for this CPU: always accepted, then built. */
   char *theirs = c.target;
   void *their_object = c.object;
   size_t their_object_size = c.object_size;
   c.target = target_id;
   if (good_object) {
      c.object = good_object;
      c.object_size = good_object_size;
   }
   size_t n = kiln_binary_write(&c, NULL);
   unsigned char *bin = malloc(n);
   FUZZ_CHECK(bin, "malloc %zu", n);
   kiln_binary_write(&c, bin);
   c.target = theirs;
   c.object = their_object;
   c.object_size = their_object_size;
   p = offer(bin, n, &st);
   FUZZ_CHECK(p, "retargeted binary refused: %d", st);
   build_and_use(p, &c);
   clReleaseProgram(p);
   free(bin);
   kiln_binary_contents_fini(&c);
   return 0;
}
