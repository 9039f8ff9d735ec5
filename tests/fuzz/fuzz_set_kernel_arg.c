/* Fuzzes clSetKernelArg (src/api/kernel.c, src/core/kernel.c) and the
 * packing of the arguments it stored by clEnqueueNDRangeKernel
 * (src/core/ndrange.c).
 *
 * Two kernels are built once: `every` takes an argument of each kind
 * (global, constant and local pointers, scalars, vectors, a struct, a
 * sampler and images), `run` the kinds a launch can be given today.  The
 * input is a little program of operations: set an argument of either
 * kernel with a fuzzed index, size and value (the value may be NULL,
 * fuzzed bytes, or a handle: a buffer of the context, a sub-buffer, a
 * buffer of another context, a released buffer, an object of another
 * type, random bytes); launch `run` (one work-item) and wait; recreate a
 * kernel; call clSetKernelArg on a handle that is not a kernel.  Each
 * answer is checked against the error codes OpenCL 1.1 §5.7.2 allows:
 * random bytes given as a cl_mem must give CL_INVALID_MEM_OBJECT, and a
 * launch whose __local arguments exceed the device's local memory must be
 * refused, not run. */
#include <string.h>

#include "fuzz.h"

enum kind { GLOBAL, CONSTANT, LOCAL, VALUE, SAMPLER, IMAGE };

struct arg {
   enum kind kind;
   size_t size; /* VALUE: what the kernel takes */
};

#define S_DECL "typedef struct { int a; float b; char c; } S;\n"
static const char every_src[] =
   S_DECL
   "kernel void every(global int *g, constant int *c, local char *l, char a, short b,\n"
   "                  int i, long lg, float f, float4 v4, uchar3 v3, S s, ulong16 big,\n"
   "                  sampler_t smp, read_only image2d_t img2, read_only image3d_t img3,\n"
   "                  global S *gs, local float4 *l4)\n"
   "{\n"
   "   if (g) g[0] = a + b + i + (int)lg + (int)f + (int)v4.x + v3.y + s.a + (int)big.s3;\n"
   "}\n";
static const char every_src_noimage[] =
   S_DECL
   "kernel void every(global int *g, constant int *c, local char *l, char a, short b,\n"
   "                  int i, long lg, float f, float4 v4, uchar3 v3, S s, ulong16 big,\n"
   "                  global S *gs, local float4 *l4)\n"
   "{\n"
   "   if (g) g[0] = a + b + i + (int)lg + (int)f + (int)v4.x + v3.y + s.a + (int)big.s3;\n"
   "}\n";
static const char run_src[] =
   S_DECL
   "kernel void run(global int *g, constant int *c, local char *l, char a, short b, int i,\n"
   "                long lg, float f, float4 v4, uchar3 v3, S s, local int *l2)\n"
   "{\n"
   "   if (get_global_id(0) != 0) return;\n"
   "   long acc = a + b + i + lg + (long)f + (long)v4.x + v3.y + s.a + s.c;\n"
   "   l[0] = (char)acc;\n"
   "   l2[0] = (int)acc;\n"
   "   if (c) acc += c[0];\n"
   "   if (g) g[0] = (int)acc + l[0] + l2[0];\n"
   "}\n";

static const struct arg every_args[] = {
   {GLOBAL, 0}, {CONSTANT, 0}, {LOCAL, 0},  {VALUE, 1},   {VALUE, 2},   {VALUE, 4},
   {VALUE, 8},  {VALUE, 4},    {VALUE, 16}, {VALUE, 4},   {VALUE, 12},  {VALUE, 128},
   {SAMPLER, 0}, {IMAGE, 0},   {IMAGE, 0},  {GLOBAL, 0},  {LOCAL, 0},
};
static const struct arg every_args_noimage[] = {
   {GLOBAL, 0}, {CONSTANT, 0}, {LOCAL, 0},  {VALUE, 1},  {VALUE, 2},  {VALUE, 4},  {VALUE, 8},
   {VALUE, 4},  {VALUE, 16},   {VALUE, 4},  {VALUE, 12}, {VALUE, 128}, {GLOBAL, 0}, {LOCAL, 0},
};
static const struct arg run_args[] = {
   {GLOBAL, 0}, {CONSTANT, 0}, {LOCAL, 0}, {VALUE, 1}, {VALUE, 2},  {VALUE, 4},
   {VALUE, 8},  {VALUE, 4},    {VALUE, 16}, {VALUE, 4}, {VALUE, 12}, {LOCAL, 0},
};

#define MAX_ARGS 17

struct kern {
   const char *name;
   cl_program prog;
   cl_kernel k;
   const struct arg *args;
   unsigned nargs;
   bool set[MAX_ARGS];
   size_t local_size[MAX_ARGS];
};

static cl_device_id dev;
static cl_context ctx, other_ctx;
static cl_command_queue queue;
static cl_mem buf_a, buf_b, sub, other_buf, released_buf;
static cl_ulong local_mem_size;
static struct kern kerns[2];

static cl_program build(cl_context c, const char *src)
{
   cl_int err = -1;
   cl_program p = clCreateProgramWithSource(c, 1, &src, NULL, &err);
   FUZZ_CHECK(p && !err, "clCreateProgramWithSource: %d", err);
   err = clBuildProgram(p, 1, &dev, NULL, NULL, NULL);
   if (err) {
      char log[4096] = "";
      clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof(log) - 1, log, NULL);
      fprintf(stderr, "fuzz_set_kernel_arg: build failed (%d):\n%s\n", err, log);
      clReleaseProgram(p);
      return NULL;
   }
   return p;
}

static cl_kernel create(struct kern *k)
{
   cl_int err = -1;
   cl_kernel kernel = clCreateKernel(k->prog, k->name, &err);
   FUZZ_CHECK(kernel && !err, "clCreateKernel(%s): %d", k->name, err);
   cl_uint n = 0;
   err = clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof(n), &n, NULL);
   FUZZ_CHECK(!err && n == k->nargs, "%s: %u args, %u expected (%d)", k->name, n, k->nargs, err);
   memset(k->set, 0, sizeof(k->set));
   memset(k->local_size, 0, sizeof(k->local_size));
   return kernel;
}

static cl_mem buffer(cl_context c, size_t size)
{
   cl_int err = -1;
   cl_mem m = clCreateBuffer(c, CL_MEM_READ_WRITE, size, NULL, &err);
   FUZZ_CHECK(m && !err, "clCreateBuffer: %d", err);
   return m;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
   (void)argc;
   (void)argv;
   dev = fuzz_device();
   ctx = fuzz_context(dev);
   other_ctx = fuzz_context(dev);
   cl_int err = -1;
   queue = clCreateCommandQueue(ctx, dev, 0, &err);
   FUZZ_CHECK(queue && !err, "clCreateCommandQueue: %d", err);
   err = clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof(local_mem_size), &local_mem_size,
                         NULL);
   FUZZ_CHECK(!err && local_mem_size, "CL_DEVICE_LOCAL_MEM_SIZE: %d", err);
   buf_a = buffer(ctx, 64);
   buf_b = buffer(ctx, 64);
   cl_buffer_region region = {0, 32};
   sub = clCreateSubBuffer(buf_a, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
   FUZZ_CHECK(sub && !err, "clCreateSubBuffer: %d", err);
   other_buf = buffer(other_ctx, 64);
   released_buf = buffer(ctx, 64);
   clReleaseMemObject(released_buf);

   kerns[0] = (struct kern){"every", build(ctx, every_src), NULL, every_args,
                            sizeof(every_args) / sizeof(every_args[0])};
   if (!kerns[0].prog) {
      /* Until the compiler takes image and sampler arguments. */
      fprintf(stderr, "fuzz_set_kernel_arg: `every` without sampler and images\n");
      kerns[0] = (struct kern){"every", build(ctx, every_src_noimage), NULL, every_args_noimage,
                               sizeof(every_args_noimage) / sizeof(every_args_noimage[0])};
   }
   kerns[1] = (struct kern){"run", build(ctx, run_src), NULL, run_args,
                            sizeof(run_args) / sizeof(run_args[0])};
   FUZZ_CHECK(kerns[0].prog && kerns[1].prog, "the kernels do not build");
   for (int i = 0; i < 2; i++)
      kerns[i].k = create(&kerns[i]);
   return 0;
}

/* ---- input ---- */

struct input {
   const uint8_t *p;
   size_t n;
};

static uint8_t u8(struct input *in)
{
   if (!in->n)
      return 0;
   in->n--;
   return *in->p++;
}

static uint64_t uN(struct input *in, int bytes)
{
   uint64_t v = 0;
   for (int i = 0; i < bytes; i++)
      v |= (uint64_t)u8(in) << (8 * i);
   return v;
}

/* ---- the oracle ---- */

static bool is_buffer_of_ctx(cl_mem m)
{
   return m == buf_a || m == buf_b || m == sub;
}

static const char *kind_name(enum kind k)
{
   static const char *names[] = {"global", "constant", "local", "value", "sampler", "image"};
   return names[k];
}

/* Checks one clSetKernelArg answer against what §5.7.2 allows. */
static void check_set(struct kern *k, cl_uint index, size_t size, const void *value, cl_int err)
{
   if (index >= k->nargs) {
      FUZZ_CHECK(err == CL_INVALID_ARG_INDEX, "%s arg %u of %u: %d", k->name, index, k->nargs,
                 err);
      return;
   }
   const struct arg *a = &k->args[index];
   bool ok = false; /* success required */
   bool size_ok;
   switch (a->kind) {
   case GLOBAL:
   case CONSTANT: {
      size_ok = size == sizeof(cl_mem);
      cl_mem m = NULL;
      if (value && size_ok)
         memcpy(&m, value, sizeof(m));
      if (!size_ok)
         FUZZ_CHECK(err == CL_INVALID_ARG_SIZE || err == CL_INVALID_ARG_VALUE ||
                       err == CL_INVALID_MEM_OBJECT,
                    "%s arg %u (%s), size %zu: %d", k->name, index, kind_name(a->kind), size, err);
      else if (!m || is_buffer_of_ctx(m))
         ok = true;
      else
         FUZZ_CHECK(err == CL_INVALID_MEM_OBJECT, "%s arg %u (%s), cl_mem %p: %d", k->name,
                    index, kind_name(a->kind), (void *)m, err);
      break;
   }
   case LOCAL:
      if (value || !size)
         FUZZ_CHECK(err == CL_INVALID_ARG_VALUE || err == CL_INVALID_ARG_SIZE,
                    "%s arg %u (local), size %zu value %p: %d", k->name, index, size, value, err);
      else
         ok = true;
      break;
   case VALUE:
      if (!value || size != a->size)
         FUZZ_CHECK(err == CL_INVALID_ARG_VALUE || err == CL_INVALID_ARG_SIZE,
                    "%s arg %u (value of %zu), size %zu value %p: %d", k->name, index, a->size,
                    size, value, err);
      else
         ok = true;
      break;
   case SAMPLER:
      /* No sampler exists in these contexts, so none is valid. */
      if (size == sizeof(cl_sampler) && value)
         FUZZ_CHECK(err == CL_INVALID_SAMPLER, "%s arg %u (sampler): %d", k->name, index, err);
      else
         FUZZ_CHECK(err == CL_INVALID_SAMPLER || err == CL_INVALID_ARG_SIZE ||
                       err == CL_INVALID_ARG_VALUE,
                    "%s arg %u (sampler), size %zu value %p: %d", k->name, index, size, value,
                    err);
      break;
   case IMAGE:
      /* Nor any image.  Known bug "image-arg-is-buffer": the kernel
       * metadata (src/llvm/metadata.c) calls image arguments __global
       * buffers, so a buffer or NULL is accepted for them. */
      if (fuzz_known("image-arg-is-buffer") && !err) {
         ok = true;
         break;
      }
      if (size == sizeof(cl_mem) && value)
         FUZZ_CHECK(err == CL_INVALID_MEM_OBJECT, "%s arg %u (image): %d", k->name, index, err);
      else
         FUZZ_CHECK(err == CL_INVALID_MEM_OBJECT || err == CL_INVALID_ARG_SIZE ||
                       err == CL_INVALID_ARG_VALUE,
                    "%s arg %u (image), size %zu value %p: %d", k->name, index, size, value, err);
      break;
   }
   if (ok) {
      FUZZ_CHECK(err == CL_SUCCESS, "%s arg %u (%s), size %zu value %p: %d, success expected",
                 k->name, index, kind_name(a->kind), size, value, err);
      k->set[index] = true;
      if (a->kind == LOCAL)
         k->local_size[index] = size;
   } else {
      FUZZ_CHECK(err != CL_SUCCESS, "%s arg %u (%s), size %zu value %p accepted", k->name, index,
                 kind_name(a->kind), size, value);
   }
}

/* ---- operations ---- */

/* Known bug "handle-one": the handle registry's TOMBSTONE is the pointer
 * value 1, and a lookup of handle 1 may find it and read through it
 * (src/core/object.c, kiln_object_lookup; regress_handle_one.c). */
static uintptr_t not_one(uint64_t v)
{
   return v == 1 && fuzz_known("handle-one") ? 3 : (uintptr_t)v;
}

static cl_mem pick_handle(struct input *in)
{
   switch (u8(in) % 12) {
   case 0: return NULL;
   case 1: return buf_a;
   case 2: return buf_b;
   case 3: return sub;
   case 4: return other_buf;
   case 5: return released_buf;
   case 6: return (cl_mem)ctx;
   case 7: return (cl_mem)queue;
   case 8: return (cl_mem)kerns[u8(in) & 1].k;
   case 9: return (cl_mem)not_one(1);
   case 10: return (cl_mem)&kerns[0]; /* a live pointer that is no object */
   default: return (cl_mem)not_one(uN(in, 8));
   }
}

static void op_set_arg(struct input *in)
{
   struct kern *k = &kerns[u8(in) & 1];
   uint8_t b = u8(in);
   cl_uint index = b < 0xf0 ? b % (k->nargs + 2) : (cl_uint)uN(in, 4);
   const struct arg *a = index < k->nargs ? &k->args[index] : NULL;
   size_t natural = !a ? 4
                    : a->kind == VALUE ? a->size
                    : a->kind == LOCAL ? 1 + uN(in, 2)
                    : a->kind == SAMPLER ? sizeof(cl_sampler)
                                          : sizeof(cl_mem);
   size_t size;
   switch (u8(in) % 8) {
   case 0: size = natural; break;
   case 1: size = sizeof(cl_mem); break;
   case 2: size = 0; break;
   case 3: size = u8(in); break;
   case 4: size = uN(in, 2); break;
   case 5: size = uN(in, 8); break;
   case 6: size = natural + (u8(in) & 1 ? 1 : -1); break;
   default: size = uN(in, 4); break;
   }
   uint8_t v = u8(in) % 8;
   unsigned char *value = NULL;
   if (v) {
      /* Exactly the bytes the application says it passes (capped: no
       * argument is that large, so Kiln must refuse before reading). */
      size_t have = size < 65536 ? size : 65536;
      value = malloc(have ? have : 1);
      FUZZ_CHECK(value, "malloc");
      for (size_t i = 0; i < have; i++)
         value[i] = u8(in);
      if (v == 1 && have >= sizeof(cl_mem)) {
         cl_mem h = pick_handle(in);
         memcpy(value, &h, sizeof(h));
      } else if (have >= sizeof(cl_mem)) {
         uint64_t h;
         memcpy(&h, value, sizeof(h));
         uintptr_t fixed = not_one(h);
         memcpy(value, &fixed, sizeof(fixed));
      }
   }
   cl_int err = clSetKernelArg(k->k, index, size, value);
   check_set(k, index, size, value, err);
   free(value);
}

static void op_launch(struct kern *k)
{
   bool all = true;
   unsigned __int128 local = 0, slack = 1024;
   for (unsigned i = 0; i < k->nargs; i++) {
      all &= k->set[i];
      if (k->args[i].kind == LOCAL) {
         local += k->local_size[i];
         slack += 64;
      }
   }
   for (unsigned i = 0; i < k->nargs; i++)
      if (k->args[i].kind == SAMPLER || k->args[i].kind == IMAGE)
         FUZZ_CHECK(!k->set[i] || fuzz_known("image-arg-is-buffer"), "sampler or image set");
   /* Known bug "local-size-wraps": the __local total of a launch is summed
    * and rounded in 64 bits without an overflow check (src/core/ndrange.c,
    * pack_args), so sizes near 2^64 pass and the kernel runs past its
    * arena; such a launch would corrupt the fuzzer's memory. */
   if (all && local > local_mem_size && fuzz_known("local-size-wraps"))
      return;
   size_t global = 1;
   cl_event ev = NULL;
   cl_int err = clEnqueueNDRangeKernel(queue, k->k, 1, NULL, &global, NULL, 0, NULL, &ev);
   if (!all) {
      FUZZ_CHECK(err == CL_INVALID_KERNEL_ARGS, "%s launched with arguments unset: %d", k->name,
                 err);
   } else if (local > local_mem_size) {
      FUZZ_CHECK(err == CL_OUT_OF_RESOURCES,
                 "%s launched with %llu bytes of __local arguments (the device has %llu): %d",
                 k->name, (unsigned long long)(local > UINT64_MAX ? UINT64_MAX : local),
                 (unsigned long long)local_mem_size, err);
   } else if (local + slack <= local_mem_size) {
      FUZZ_CHECK(err == CL_SUCCESS, "%s, %llu bytes of __local: %d", k->name,
                 (unsigned long long)local, err);
   } else {
      FUZZ_CHECK(err == CL_SUCCESS || err == CL_OUT_OF_RESOURCES, "%s: %d", k->name, err);
   }
   FUZZ_CHECK(!err == !!ev, "event %p with %d", (void *)ev, err);
   if (ev) {
      err = clWaitForEvents(1, &ev);
      cl_int st = 1;
      clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL);
      FUZZ_CHECK(!err && st == CL_COMPLETE, "%s ended with %d (wait %d)", k->name, st, err);
      clReleaseEvent(ev);
   }
}

static void op_recreate(struct input *in)
{
   struct kern *k = &kerns[u8(in) & 1];
   clReleaseKernel(k->k);
   k->k = create(k);
}

static void op_not_a_kernel(struct input *in)
{
   static cl_kernel stale;
   cl_kernel h;
   switch (u8(in) % 6) {
   case 0: h = NULL; break;
   case 1: h = (cl_kernel)ctx; break;
   case 2: h = (cl_kernel)buf_a; break;
   case 3: h = (cl_kernel)not_one(uN(in, 8)); break;
   case 4: {
      /* A released kernel (its memory may since hold another object). */
      cl_int err;
      if (!stale) {
         stale = clCreateKernel(kerns[1].prog, "run", &err);
         clReleaseKernel(stale);
      }
      h = stale;
      break;
   }
   default: h = (cl_kernel)&kerns[0]; break;
   }
   int live = h == kerns[0].k ? 0 : h == kerns[1].k ? 1 : -1;
   int i = 42;
   cl_int err = clSetKernelArg(h, 5, sizeof(i), &i);
   if (live >= 0)
      check_set(&kerns[live], 5, sizeof(i), &i, err);
   else
      FUZZ_CHECK(err == CL_INVALID_KERNEL, "kernel %p: %d", (void *)h, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   struct input in = {data, size};
   for (int n = 0; in.n && n < 64; n++) {
      switch (u8(&in) % 10) {
      case 7: op_launch(&kerns[1]); break;
      case 8: op_recreate(&in); break;
      case 9: op_not_a_kernel(&in); break;
      default: op_set_arg(&in); break;
      }
   }
   /* The every-kind kernel can never launch while samplers and images
    * cannot be set; a launch must say so, not run. */
   if (size && data[0] == 0xee)
      op_launch(&kerns[0]);
   /* Each input starts from fresh kernels. */
   for (int i = 0; i < 2; i++) {
      clReleaseKernel(kerns[i].k);
      kerns[i].k = create(&kerns[i]);
   }
   return 0;
}
