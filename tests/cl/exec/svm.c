/* Shared virtual memory through the ICD loader.  On a device that reports
 * SVM (the CPU device): clSVMAlloc's argument checks, coarse-grain
 * buffers through map/unmap, fine-grain buffers with atomics shared with
 * the host, system SVM (malloc's memory as a kernel argument), pointers
 * stored in SVM memory and followed by a kernel, SVM memcpy/fill/free/
 * migrate with their errors and event types, buffers over SVM memory.  On
 * a device without SVM (the discrete test device): every call answers as
 * 3.0 prescribes for a device without SVM. */
#define CL_TARGET_OPENCL_VERSION 300
#include "kt.h"

#include <stdlib.h>
#include <string.h>

static const char *src =
   "kernel void scale(global const int *a, global int *b, int v)\n"
   "{ size_t i = get_global_id(0); b[i] = a[i] * 2 + v; }\n"
   "kernel void count(global volatile int *c) { atomic_add(c, 1); }\n"
   "struct node { global struct node *next; int v; };\n"
   "kernel void walk(global struct node *n, global int *out)\n"
   "{ int s = 0; while (n) { s += n->v; n = n->next; } out[0] = s; }\n";

static cl_program build(struct kt_env *e)
{
   cl_int err;
   cl_program p = clCreateProgramWithSource(e->context, 1, &src, NULL, &err);
   REQUIRE_OK(err);
   REQUIRE_OK(clBuildProgram(p, 1, &e->device, NULL, NULL, NULL));
   return p;
}

static cl_kernel kernel(cl_program p, const char *name)
{
   cl_int err;
   cl_kernel k = clCreateKernel(p, name, &err);
   REQUIRE_OK(err);
   return k;
}

static cl_command_type type_of(cl_event ev)
{
   cl_command_type t = 0;
   CHECK_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(t), &t, NULL));
   return t;
}

static void without_svm(struct kt_env *e)
{
   CHECK(clSVMAlloc(e->context, CL_MEM_READ_WRITE, 64, 0) == NULL);
   clSVMFree(e->context, NULL);
   void *bogus = (void *)0xDEADBEE0;
   cl_uint pattern = 0;
   CHECK_ERR(clEnqueueSVMMemFill(e->queue, bogus, &pattern, 4, 16, 0, NULL, NULL),
             CL_INVALID_OPERATION);
   CHECK_ERR(clEnqueueSVMMemcpy(e->queue, CL_TRUE, bogus, (char *)bogus + 64, 16, 0, NULL, NULL),
             CL_INVALID_OPERATION);
   CHECK_ERR(clEnqueueSVMMap(e->queue, CL_TRUE, CL_MAP_READ, bogus, 16, 0, NULL, NULL),
             CL_INVALID_OPERATION);
   CHECK_ERR(clEnqueueSVMUnmap(e->queue, bogus, 0, NULL, NULL), CL_INVALID_OPERATION);
   CHECK_ERR(clEnqueueSVMFree(e->queue, 1, &bogus, NULL, NULL, 0, NULL, NULL),
             CL_INVALID_OPERATION);
   CHECK_ERR(clEnqueueSVMMemFill(NULL, bogus, &pattern, 4, 16, 0, NULL, NULL),
             CL_INVALID_COMMAND_QUEUE);
   cl_program p = build(e);
   cl_kernel k = kernel(p, "scale");
   CHECK_ERR(clSetKernelArgSVMPointer(k, 0, NULL), CL_INVALID_OPERATION);
   CHECK_ERR(clSetKernelArgSVMPointer(NULL, 0, NULL), CL_INVALID_KERNEL);
   CHECK_ERR(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof(bogus), &bogus),
             CL_INVALID_OPERATION);
   CHECK_ERR(clSetKernelExecInfo(k, 0x4321, 0, NULL), CL_INVALID_VALUE);
   clReleaseKernel(k);
   clReleaseProgram(p);
}

static void alloc_checks(struct kt_env *e, cl_device_svm_capabilities caps)
{
   cl_ulong max_alloc = kt_device_ulong(e->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
   struct {
      cl_svm_mem_flags flags;
      size_t size;
      cl_uint align;
   } bad[] = {
      {CL_MEM_USE_HOST_PTR, 64, 0},
      {CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 64, 0},
      {CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, 64, 0},
      {CL_MEM_SVM_ATOMICS, 64, 0},
      {CL_MEM_READ_WRITE, 0, 0},
      {CL_MEM_READ_WRITE, (size_t)max_alloc + 1, 0},
      {CL_MEM_READ_WRITE, 64, 3},
      {CL_MEM_READ_WRITE, 64, 256},
   };
   for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
      void *p = clSVMAlloc(e->context, bad[i].flags, bad[i].size, bad[i].align);
      CHECK(p == NULL, "case %zu allocated", i);
      clSVMFree(e->context, p);
   }
   CHECK(clSVMAlloc(NULL, CL_MEM_READ_WRITE, 64, 0) == NULL);
   for (cl_uint align = 1; align <= 128; align *= 2) {
      void *p = clSVMAlloc(e->context, CL_MEM_READ_ONLY, 100, align);
      CHECK(p && (uintptr_t)p % align == 0, "alignment %u: %p", align, p);
      clSVMFree(e->context, p);
   }
   if (caps & CL_DEVICE_SVM_ATOMICS) {
      void *p = clSVMAlloc(e->context, CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS, 8, 0);
      CHECK(p != NULL);
      clSVMFree(e->context, p);
   }
   /* Not from clSVMAlloc: ignored, the heap stays intact. */
   int on_stack[4];
   clSVMFree(e->context, on_stack);
   clSVMFree(e->context, NULL);
}

enum { N = 1000 };

/* Coarse-grain: the host writes inside map/unmap, a kernel reads through
 * an interior SVM pointer and writes a buffer created over SVM memory. */
static void coarse(struct kt_env *e, cl_program p)
{
   cl_int err;
   int *a = clSVMAlloc(e->context, CL_MEM_READ_WRITE, (N + 1) * sizeof(int), 0);
   int *b = clSVMAlloc(e->context, CL_MEM_READ_WRITE, N * sizeof(int), 0);
   REQUIRE(a && b);
   cl_event ev;
   CHECK_OK(clEnqueueSVMMap(e->queue, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, a,
                            (N + 1) * sizeof(int), 0, NULL, &ev));
   CHECK(type_of(ev) == CL_COMMAND_SVM_MAP);
   clReleaseEvent(ev);
   for (int i = 0; i <= N; i++)
      a[i] = i - 1;
   CHECK_OK(clEnqueueSVMUnmap(e->queue, a, 0, NULL, &ev));
   CHECK(type_of(ev) == CL_COMMAND_SVM_UNMAP);
   clReleaseEvent(ev);

   cl_mem over = clCreateBuffer(e->context, CL_MEM_USE_HOST_PTR, N * sizeof(int), b, &err);
   CHECK_OK(err);
   /* Larger than the allocation: 3.0's CL_INVALID_BUFFER_SIZE. */
   cl_mem big = clCreateBuffer(e->context, CL_MEM_USE_HOST_PTR, N * sizeof(int) + 4, b, &err);
   CHECK(!big && err == CL_INVALID_BUFFER_SIZE, "%s", kt_err_name(err));
   big = clCreateBuffer(e->context, CL_MEM_USE_HOST_PTR, N * sizeof(int), b + 1, &err);
   CHECK(!big && err == CL_INVALID_BUFFER_SIZE, "%s", kt_err_name(err));
   cl_bool uses = CL_FALSE;
   CHECK_OK(clGetMemObjectInfo(over, CL_MEM_USES_SVM_POINTER, sizeof(uses), &uses, NULL));
   CHECK(uses == CL_TRUE);
   int host[4];
   cl_mem plain = clCreateBuffer(e->context, CL_MEM_USE_HOST_PTR, sizeof(host), host, &err);
   CHECK_OK(clGetMemObjectInfo(plain, CL_MEM_USES_SVM_POINTER, sizeof(uses), &uses, NULL));
   CHECK(uses == CL_FALSE);
   clReleaseMemObject(plain);

   cl_kernel k = kernel(p, "scale");
   int v = 5;
   CHECK_OK(clSetKernelArgSVMPointer(k, 0, a + 1)); /* a[i + 1] == i */
   CHECK_OK(clSetKernelArg(k, 1, sizeof(over), &over));
   CHECK_OK(clSetKernelArg(k, 2, sizeof(v), &v));
   size_t g = N;
   CHECK_OK(clEnqueueNDRangeKernel(e->queue, k, 1, NULL, &g, NULL, 0, NULL, NULL));
   CHECK_OK(clEnqueueSVMMap(e->queue, CL_TRUE, CL_MAP_READ, b, N * sizeof(int), 0, NULL, NULL));
   int bad = 0;
   for (int i = 0; i < N; i++)
      bad += b[i] != 2 * i + 5;
   CHECK(bad == 0, "%d of %d wrong (b[1] = %d)", bad, N, b[1]);
   CHECK_OK(clEnqueueSVMUnmap(e->queue, b, 0, NULL, NULL));

   /* An SVM argument set again as a buffer is a buffer again. */
   int out[N];
   cl_mem ob = kt_buffer(e->context, CL_MEM_WRITE_ONLY, sizeof(out), NULL);
   CHECK_OK(clSetKernelArgSVMPointer(k, 1, b));
   CHECK_OK(clSetKernelArg(k, 1, sizeof(ob), &ob));
   CHECK_OK(clEnqueueNDRangeKernel(e->queue, k, 1, NULL, &g, NULL, 0, NULL, NULL));
   CHECK_OK(clEnqueueReadBuffer(e->queue, ob, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL));
   CHECK(out[0] == 5 && out[N - 1] == 2 * (N - 1) + 5, "%d %d", out[0], out[N - 1]);

   /* clSetKernelArgSVMPointer's errors. */
   CHECK_ERR(clSetKernelArgSVMPointer(k, 3, a), CL_INVALID_ARG_INDEX);
   CHECK_ERR(clSetKernelArgSVMPointer(k, 2, a), CL_INVALID_ARG_VALUE);
   CHECK_ERR(clSetKernelArgSVMPointer(NULL, 0, a), CL_INVALID_KERNEL);
   CHECK_ERR(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, 0, &a), CL_INVALID_VALUE);
   CHECK_ERR(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof(a), NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, 3, &a), CL_INVALID_VALUE);
   /* An empty list unsets the pointers (the CTS does this). */
   CHECK_OK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, 0, NULL));
   CHECK_ERR(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, 1, &uses),
             CL_INVALID_VALUE);
   CHECK_ERR(clSetKernelExecInfo(k, 0x4321, sizeof(a), &a), CL_INVALID_VALUE);
   clReleaseMemObject(ob);
   clReleaseMemObject(over);
   clReleaseKernel(k);
   clSVMFree(e->context, a);
   clSVMFree(e->context, b);
}

/* Fine-grain with atomics: the host sees the kernel's atomic adds to a
 * counter it initialised, without map or unmap. */
static void fine_atomics(struct kt_env *e, cl_program p)
{
   volatile int *c = clSVMAlloc(e->context, CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS,
                                sizeof(int), 0);
   REQUIRE(c != NULL);
   *c = 7;
   cl_kernel k = kernel(p, "count");
   CHECK_OK(clSetKernelArgSVMPointer(k, 0, (const void *)c));
   size_t g = N;
   CHECK_OK(clEnqueueNDRangeKernel(e->queue, k, 1, NULL, &g, NULL, 0, NULL, NULL));
   CHECK_OK(clFinish(e->queue));
   CHECK(*c == N + 7, "counter %d", *c);
   clReleaseKernel(k);
   clSVMFree(e->context, (void *)c);
}

/* System SVM: malloc's memory, and pointers stored in memory that the
 * kernel follows (a list spread over malloc and clSVMAlloc memory). */
static void system_svm(struct kt_env *e, cl_program p)
{
   struct node {
      struct node *next;
      int v;
   };
   struct node *n1 = malloc(sizeof(*n1));
   struct node *n2 = clSVMAlloc(e->context, CL_MEM_SVM_FINE_GRAIN_BUFFER, sizeof(*n2), 0);
   struct node *n3 = malloc(sizeof(*n3));
   int *out = malloc(sizeof(int));
   REQUIRE(n1 && n2 && n3 && out);
   *n1 = (struct node){n2, 1};
   *n2 = (struct node){n3, 20};
   *n3 = (struct node){NULL, 300};
   *out = 0;
   cl_kernel k = kernel(p, "walk");
   cl_bool on = CL_TRUE;
   CHECK_OK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof(on), &on));
   void *reached[] = {n2, n3};
   CHECK_OK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof(reached), reached));
   CHECK_OK(clSetKernelArgSVMPointer(k, 0, n1));
   CHECK_OK(clSetKernelArgSVMPointer(k, 1, out));
   size_t g = 1;
   CHECK_OK(clEnqueueNDRangeKernel(e->queue, k, 1, NULL, &g, NULL, 0, NULL, NULL));
   CHECK_OK(clFinish(e->queue));
   CHECK(*out == 321, "sum %d", *out);
   clReleaseKernel(k);
   free(n1);
   free(n3);
   free(out);
   clSVMFree(e->context, n2);
}

static void copy_fill(struct kt_env *e)
{
   enum { SIZE = 4096 };
   unsigned char *a = clSVMAlloc(e->context, CL_MEM_READ_WRITE, SIZE, 0);
   unsigned char *b = clSVMAlloc(e->context, CL_MEM_READ_WRITE, SIZE, 0);
   unsigned char host[SIZE], want[SIZE];
   REQUIRE(a && b);
   kt_fill(host, SIZE, 3);
   cl_event ev;
   /* host -> a -> b, then back to the host. */
   CHECK_OK(clEnqueueSVMMemcpy(e->queue, CL_FALSE, a, host, SIZE, 0, NULL, &ev));
   CHECK(type_of(ev) == CL_COMMAND_SVM_MEMCPY);
   CHECK_OK(clEnqueueSVMMemcpy(e->queue, CL_FALSE, b, a, SIZE, 1, &ev, NULL));
   clReleaseEvent(ev);
   unsigned char back[SIZE];
   CHECK_OK(clEnqueueSVMMemcpy(e->queue, CL_TRUE, back, b, SIZE, 0, NULL, NULL));
   kt_same(back, host, SIZE, "host -> SVM -> SVM -> host");

   CHECK_ERR(clEnqueueSVMMemcpy(e->queue, CL_TRUE, a + 8, a, 16, 0, NULL, NULL),
             CL_MEM_COPY_OVERLAP);
   CHECK_ERR(clEnqueueSVMMemcpy(e->queue, CL_TRUE, NULL, a, 16, 0, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueSVMMemcpy(e->queue, CL_TRUE, a, NULL, 16, 0, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueSVMMemcpy(NULL, CL_TRUE, a, b, 16, 0, NULL, NULL),
             CL_INVALID_COMMAND_QUEUE);
   CHECK_ERR(clEnqueueSVMMemcpy(e->queue, CL_TRUE, a, b, 16, 1, NULL, NULL),
             CL_INVALID_EVENT_WAIT_LIST);

   /* Every pattern size, at an offset and a length that are multiples of
    * it but not of the larger ones. */
   memcpy(want, host, SIZE);
   CHECK_OK(clEnqueueSVMMemcpy(e->queue, CL_TRUE, a, host, SIZE, 0, NULL, NULL));
   for (size_t ps = 1; ps <= 128; ps *= 2) {
      unsigned char pattern[128];
      kt_fill(pattern, ps, (unsigned)ps);
      size_t off = ps * 3, len = ps * 7;
      CHECK_OK(clEnqueueSVMMemFill(e->queue, a + off, pattern, ps, len, 0, NULL, &ev));
      CHECK(type_of(ev) == CL_COMMAND_SVM_MEMFILL);
      clReleaseEvent(ev);
      for (size_t i = 0; i < len; i++)
         want[off + i] = pattern[i % ps];
   }
   CHECK_OK(clEnqueueSVMMemcpy(e->queue, CL_TRUE, back, a, SIZE, 0, NULL, NULL));
   kt_same(back, want, SIZE, "after the fills");
   cl_uint pat = 0;
   CHECK_ERR(clEnqueueSVMMemFill(e->queue, a, &pat, 3, 12, 0, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueSVMMemFill(e->queue, a, &pat, 0, 12, 0, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueSVMMemFill(e->queue, a, &pat, 256, 256, 0, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueSVMMemFill(e->queue, a + 2, &pat, 4, 12, 0, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueSVMMemFill(e->queue, a, &pat, 4, 10, 0, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueSVMMemFill(e->queue, a, NULL, 4, 12, 0, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueSVMMemFill(e->queue, NULL, &pat, 4, 12, 0, NULL, NULL), CL_INVALID_VALUE);

   /* Map and unmap errors. */
   CHECK_ERR(clEnqueueSVMMap(e->queue, CL_TRUE, CL_MAP_READ, a, 0, 0, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueSVMMap(e->queue, CL_TRUE, CL_MAP_READ, NULL, 4, 0, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueSVMMap(e->queue, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION, a,
                             4, 0, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueSVMUnmap(e->queue, NULL, 0, NULL, NULL), CL_INVALID_VALUE);

   /* Migration: SVM pointers only, whole allocations with sizes NULL. */
   const void *both[] = {a, b + 100};
   size_t sizes[] = {0, 64};
   CHECK_OK(clEnqueueSVMMigrateMem(e->queue, 2, both, sizes, CL_MIGRATE_MEM_OBJECT_HOST, 0, NULL,
                                   &ev));
   CHECK(type_of(ev) == CL_COMMAND_SVM_MIGRATE_MEM);
   clReleaseEvent(ev);
   CHECK_OK(clEnqueueSVMMigrateMem(e->queue, 1, both, NULL, 0, 0, NULL, NULL));
   const void *not_svm[] = {host};
   CHECK_ERR(clEnqueueSVMMigrateMem(e->queue, 1, not_svm, NULL, 0, 0, NULL, NULL),
             CL_INVALID_VALUE);
   /* The pointers come before the wait list in the spec's list. */
   CHECK_ERR(clEnqueueSVMMigrateMem(e->queue, 1, not_svm, NULL, 0, 1, NULL, NULL),
             CL_INVALID_VALUE);
   size_t too_big[] = {SIZE};
   const void *tail[] = {b + 1};
   CHECK_ERR(clEnqueueSVMMigrateMem(e->queue, 1, tail, too_big, 0, 0, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueSVMMigrateMem(e->queue, 0, both, NULL, 0, 0, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueSVMMigrateMem(e->queue, 1, both, NULL, 0x100, 0, NULL, NULL),
             CL_INVALID_VALUE);
   clSVMFree(e->context, a);
   clSVMFree(e->context, b);
}

struct freed {
   cl_command_queue queue;
   cl_uint num;
   void *ptrs[2];
   cl_context context;
};

static void CL_CALLBACK free_fn(cl_command_queue q, cl_uint num, void *ptrs[], void *user_data)
{
   struct freed *f = user_data;
   f->queue = q;
   f->num = num;
   for (cl_uint i = 0; i < num && i < 2; i++) {
      f->ptrs[i] = ptrs[i];
      clSVMFree(f->context, ptrs[i]);
   }
}

static void enqueue_free(struct kt_env *e)
{
   void *p[2] = {clSVMAlloc(e->context, CL_MEM_READ_WRITE, 64, 0),
                 clSVMAlloc(e->context, CL_MEM_READ_WRITE, 1 << 20, 0)};
   void *want[2] = {p[0], p[1]};
   REQUIRE(p[0] && p[1]);
   struct freed f = {.context = e->context};
   cl_event ev;
   CHECK_OK(clEnqueueSVMFree(e->queue, 2, p, free_fn, &f, 0, NULL, &ev));
   p[0] = p[1] = NULL; /* the list is Kiln's to copy */
   CHECK_OK(clWaitForEvents(1, &ev));
   CHECK(type_of(ev) == CL_COMMAND_SVM_FREE);
   clReleaseEvent(ev);
   CHECK(f.queue == e->queue && f.num == 2 && f.ptrs[0] == want[0] && f.ptrs[1] == want[1],
         "callback saw queue %p, %u pointers", (void *)f.queue, f.num);
   /* Without a callback Kiln frees them (LSan and valgrind see the rest). */
   void *q[1] = {clSVMAlloc(e->context, CL_MEM_READ_WRITE, 64, 0)};
   CHECK_OK(clEnqueueSVMFree(e->queue, 1, q, NULL, NULL, 0, NULL, NULL));
   CHECK_OK(clEnqueueSVMFree(e->queue, 0, NULL, NULL, NULL, 0, NULL, NULL));
   CHECK_OK(clFinish(e->queue));
   CHECK_ERR(clEnqueueSVMFree(e->queue, 0, q, NULL, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueSVMFree(e->queue, 1, NULL, NULL, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
   /* An allocation left for the context's release to free. */
   CHECK(clSVMAlloc(e->context, CL_MEM_READ_WRITE, 64, 0) != NULL);
}

int main(void)
{
   struct kt_env e;
   kt_setup(&e, 0);
   cl_device_svm_capabilities caps = kt_device_ulong(e.device, CL_DEVICE_SVM_CAPABILITIES);
   printf("CL_DEVICE_SVM_CAPABILITIES 0x%llx\n", (unsigned long long)caps);
   if (!caps) {
      without_svm(&e);
   } else {
      CHECK(caps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER);
      cl_program p = build(&e);
      alloc_checks(&e, caps);
      coarse(&e, p);
      if ((caps & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) && (caps & CL_DEVICE_SVM_ATOMICS))
         fine_atomics(&e, p);
      if (caps & CL_DEVICE_SVM_FINE_GRAIN_SYSTEM)
         system_svm(&e, p);
      copy_fill(&e);
      enqueue_free(&e);
      clReleaseProgram(p);
   }
   kt_teardown(&e);
   return kt_result();
}
