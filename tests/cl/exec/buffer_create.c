/* clCreateBuffer: every combination of the 1.1 flags, with and without a
 * host pointer, against the rules of 5.2.1; sizes; info queries; initial
 * contents. */
#include <stdlib.h>
#include <string.h>

#include "kt.h"

#define N 4096

static const cl_mem_flags all_flags[] = {
   CL_MEM_READ_WRITE,    CL_MEM_WRITE_ONLY,     CL_MEM_READ_ONLY,
   CL_MEM_USE_HOST_PTR,  CL_MEM_ALLOC_HOST_PTR, CL_MEM_COPY_HOST_PTR,
};
#define NFLAGS (sizeof(all_flags) / sizeof(all_flags[0]))
#define ACCESS (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY)

static int platform_version; /* 11 for OpenCL 1.1 */

/* What 5.2.1 says clCreateBuffer must return for flags and host_ptr. */
static cl_int expected_error(cl_mem_flags flags, bool with_ptr)
{
   cl_mem_flags access = flags & ACCESS;
   /* One access mode at most (Table 5.3; made explicit in 1.2). */
   if (access & (access - 1))
      return CL_INVALID_VALUE;
   if ((flags & CL_MEM_USE_HOST_PTR) && (flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)))
      return CL_INVALID_VALUE;
   bool needs_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
   if (needs_ptr != with_ptr)
      return CL_INVALID_HOST_PTR;
   return CL_SUCCESS;
}

/* A buffer that was created: its info and contents. */
static void check_buffer(struct kt_env *env, cl_mem m, cl_mem_flags flags, unsigned char *host)
{
   cl_mem_object_type type = 0;
   CHECK_OK(clGetMemObjectInfo(m, CL_MEM_TYPE, sizeof(type), &type, NULL));
   CHECK(type == CL_MEM_OBJECT_BUFFER);

   cl_mem_flags got = 0;
   CHECK_OK(clGetMemObjectInfo(m, CL_MEM_FLAGS, sizeof(got), &got, NULL));
   /* Kiln may add the default access mode when none was given. */
   CHECK(got == flags || (!(flags & ACCESS) && got == (flags | CL_MEM_READ_WRITE)),
         " flags 0x%llx reported as 0x%llx", (unsigned long long)flags,
         (unsigned long long)got);

   size_t size = 0;
   CHECK_OK(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof(size), &size, NULL));
   CHECK(size == N, " size %zu", size);

   void *hp = (void *)1;
   CHECK_OK(clGetMemObjectInfo(m, CL_MEM_HOST_PTR, sizeof(hp), &hp, NULL));
   if (flags & CL_MEM_USE_HOST_PTR)
      CHECK(hp == host, " CL_MEM_HOST_PTR %p, created with %p", hp, (void *)host);
   else if (flags & CL_MEM_COPY_HOST_PTR)
      /* 1.1: "the host_ptr argument value specified when memobj is
       * created"; 1.2 made it NULL unless CL_MEM_USE_HOST_PTR.  piglit's
       * clGetMemObjectInfo test checks the same. */
      CHECK(hp == (platform_version < 12 ? (void *)host : NULL),
            " CL_MEM_HOST_PTR of a COPY_HOST_PTR buffer is %p, host_ptr was %p (OpenCL %d.%d)",
            hp, (void *)host, platform_version / 10, platform_version % 10);
   else
      CHECK(hp == NULL, " CL_MEM_HOST_PTR %p without a host pointer", hp);

   cl_uint maps = 99, refs = 0;
   CHECK_OK(clGetMemObjectInfo(m, CL_MEM_MAP_COUNT, sizeof(maps), &maps, NULL));
   CHECK(maps == 0);
   CHECK_OK(clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
   CHECK(refs == 1, " refcount %u", refs);
   cl_context ctx = NULL;
   CHECK_OK(clGetMemObjectInfo(m, CL_MEM_CONTEXT, sizeof(ctx), &ctx, NULL));
   CHECK(ctx == env->context);
   cl_mem assoc = (cl_mem)1;
   size_t off = 99;
   CHECK_OK(clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof(assoc), &assoc, NULL));
   CHECK(assoc == NULL);
   CHECK_OK(clGetMemObjectInfo(m, CL_MEM_OFFSET, sizeof(off), &off, NULL));
   CHECK(off == 0);

   unsigned char want[N], out[N];
   if (flags & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR)) {
      /* Initial contents come from host_ptr. */
      kt_fill(want, N, 1);
      CHECK_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, N, out, 0, NULL, NULL));
      CHECK(kt_same(out, want, N, "initial contents"), " flags 0x%llx",
            (unsigned long long)flags);
   }
   if (flags & CL_MEM_COPY_HOST_PTR) {
      /* A copy: later changes to host memory must not reach the buffer. */
      memset(host, 0xee, N);
      CHECK_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, N, out, 0, NULL, NULL));
      CHECK(kt_same(out, want, N, "COPY_HOST_PTR after host change"));
   }
   /* Host access through the API works whatever the kernel access mode. */
   kt_fill(want, N, 2);
   CHECK_OK(clEnqueueWriteBuffer(env->queue, m, CL_TRUE, 0, N, want, 0, NULL, NULL));
   memset(out, 0, N);
   CHECK_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, N, out, 0, NULL, NULL));
   CHECK(kt_same(out, want, N, "write/read back"), " flags 0x%llx",
         (unsigned long long)flags);
   if (flags & CL_MEM_USE_HOST_PTR) {
      /* The host memory is the storage: a completed blocking read makes
       * the host copy current on the CPU device (5.2.1; no map needed to
       * observe it on a host-memory device, but map to be portable). */
      void *p = clEnqueueMapBuffer(env->queue, m, CL_TRUE, CL_MAP_READ, 0, N, 0, NULL, NULL,
                                   NULL);
      CHECK(p == host, " map of a USE_HOST_PTR buffer returned %p, host_ptr %p", p,
            (void *)host);
      if (p) {
         CHECK(kt_same(host, want, N, "USE_HOST_PTR storage after write"));
         CHECK_OK(clEnqueueUnmapMemObject(env->queue, m, p, 0, NULL, NULL));
      }
   }
}

static void all_combinations(struct kt_env *env)
{
   unsigned created = 0, rejected = 0;
   for (unsigned mask = 0; mask < (1u << NFLAGS); mask++) {
      cl_mem_flags flags = 0;
      for (unsigned b = 0; b < NFLAGS; b++)
         if (mask & (1u << b))
            flags |= all_flags[b];
      for (int with_ptr = 0; with_ptr < 2; with_ptr++) {
         unsigned char *host = malloc(N);
         REQUIRE(host);
         kt_fill(host, N, 1);
         cl_int want = expected_error(flags, with_ptr);
         cl_int err = 12345;
         cl_mem m = clCreateBuffer(env->context, flags, N, with_ptr ? host : NULL, &err);
         if (err != want || (want == CL_SUCCESS) != (m != NULL)) {
            KT_FAIL("clCreateBuffer(flags 0x%llx, host_ptr %s) returned %p / %s, expected %s",
                    (unsigned long long)flags, with_ptr ? "set" : "NULL", (void *)m,
                    kt_err_name(err), kt_err_name(want));
         } else if (m) {
            created++;
            check_buffer(env, m, flags, host);
         } else {
            rejected++;
         }
         if (m)
            CHECK_OK(clReleaseMemObject(m));
         CHECK_OK(clFinish(env->queue));
         free(host);
      }
   }
   printf("flag combinations: %u created, %u rejected as expected\n", created, rejected);
   /* 64 masks x 2 pointers: the valid ones are 4 access choices x
    * {none, USE, ALLOC, COPY, ALLOC|COPY} = 20. */
   CHECK(created == 20, " %u combinations created", created);
}

static void bad_flags_and_sizes(struct kt_env *env)
{
   cl_int err;
   unsigned char host[16];
   /* Bits no OpenCL version defines for buffers. */
   const cl_mem_flags unknown[] = {(cl_mem_flags)1 << 12, (cl_mem_flags)1 << 31,
                                   (cl_mem_flags)1 << 63};
   for (unsigned i = 0; i < 3; i++) {
      err = 0;
      cl_mem m = clCreateBuffer(env->context, CL_MEM_READ_WRITE | unknown[i], 16, NULL, &err);
      CHECK(!m && err == CL_INVALID_VALUE, " unknown flag 0x%llx: %s",
            (unsigned long long)unknown[i], kt_err_name(err));
   }

   cl_ulong max = kt_device_ulong(env->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
   const size_t sizes[] = {0, (size_t)max + 1, SIZE_MAX};
   const cl_mem_flags flags[] = {0, CL_MEM_READ_ONLY, CL_MEM_ALLOC_HOST_PTR,
                                 CL_MEM_COPY_HOST_PTR, CL_MEM_USE_HOST_PTR};
   for (unsigned s = 0; s < 3; s++)
      for (unsigned f = 0; f < 5; f++) {
         void *p = flags[f] & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR) ? host : NULL;
         err = 0;
         cl_mem m = clCreateBuffer(env->context, flags[f], sizes[s], p, &err);
         CHECK(!m && err == CL_INVALID_BUFFER_SIZE, " size %zu flags 0x%llx: %s", sizes[s],
               (unsigned long long)flags[f], kt_err_name(err));
         if (m)
            clReleaseMemObject(m);
      }

   /* Invalid contexts, and errcode_ret may be NULL. */
   cl_mem m = clCreateBuffer(NULL, 0, 16, NULL, &err);
   CHECK(!m && err == CL_INVALID_CONTEXT, " NULL context: %s", kt_err_name(err));
   m = clCreateBuffer((cl_context)env->queue, 0, 16, NULL, &err);
   CHECK(!m && err == CL_INVALID_CONTEXT, " a queue as context: %s", kt_err_name(err));
   m = clCreateBuffer(env->context, 0, 16, NULL, NULL);
   CHECK(m != NULL);
   if (m)
      CHECK_OK(clReleaseMemObject(m));
   m = clCreateBuffer(env->context, 0, 0, NULL, NULL);
   CHECK(m == NULL);

   /* Smallest and an odd size. */
   m = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, 1, host, &err);
   CHECK(m && err == CL_SUCCESS);
   if (m)
      CHECK_OK(clReleaseMemObject(m));
   m = clCreateBuffer(env->context, 0, 12345, NULL, &err);
   CHECK(m && err == CL_SUCCESS);
   if (m)
      CHECK_OK(clReleaseMemObject(m));
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   platform_version = kt_platform_version(env.platform);
   all_combinations(&env);
   bad_flags_and_sizes(&env);
   kt_teardown(&env);
   return kt_result();
}
