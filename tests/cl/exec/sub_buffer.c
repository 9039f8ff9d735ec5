/* clCreateSubBuffer (5.2.1, 1.1): argument errors, origin alignment,
 * access-flag inheritance and conflicts, info queries, and that a
 * sub-buffer is a window onto its parent's bytes. */
#include <stdlib.h>
#include <string.h>

#include "kt.h"

#define ACCESS (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY)

static size_t align; /* CL_DEVICE_MEM_BASE_ADDR_ALIGN in bytes */

static cl_mem sub(cl_mem parent, cl_mem_flags flags, size_t origin, size_t size, cl_int *err)
{
   cl_buffer_region r = {origin, size};
   *err = 12345;
   return clCreateSubBuffer(parent, flags, CL_BUFFER_CREATE_TYPE_REGION, &r, err);
}

#define CHECK_SUB_FAILS(parent, flags, origin, size, want)                     \
   do {                                                                        \
      cl_int e_;                                                               \
      cl_mem s_ = sub((parent), (flags), (origin), (size), &e_);               \
      CHECK(!s_ && e_ == (want), " sub(flags 0x%llx, %zu+%zu) gave %p / %s, expected %s", \
            (unsigned long long)(flags), (size_t)(origin), (size_t)(size), (void *)s_,     \
            kt_err_name(e_), kt_err_name(want));                               \
      if (s_)                                                                  \
         clReleaseMemObject(s_);                                               \
   } while (0)

static void argument_errors(struct kt_env *env)
{
   size_t size = 8 * align;
   cl_mem p = kt_buffer(env->context, 0, size, NULL);
   cl_int err;

   CHECK_SUB_FAILS(p, 0, 1, 16, CL_MISALIGNED_SUB_BUFFER_OFFSET);
   if (align > 1)
      CHECK_SUB_FAILS(p, 0, align / 2, 16, CL_MISALIGNED_SUB_BUFFER_OFFSET);
   CHECK_SUB_FAILS(p, 0, align + 4, 16, CL_MISALIGNED_SUB_BUFFER_OFFSET);
   CHECK_SUB_FAILS(p, 0, 0, size + 1, CL_INVALID_VALUE);
   CHECK_SUB_FAILS(p, 0, align, size, CL_INVALID_VALUE);
   CHECK_SUB_FAILS(p, 0, size + align, 1, CL_INVALID_VALUE);
   CHECK_SUB_FAILS(p, 0, align, SIZE_MAX, CL_INVALID_VALUE);
   CHECK_SUB_FAILS(p, 0, align, 0, CL_INVALID_BUFFER_SIZE);
   /* Host-pointer flags may not be given to a sub-buffer. */
   CHECK_SUB_FAILS(p, CL_MEM_USE_HOST_PTR, 0, 16, CL_INVALID_VALUE);
   CHECK_SUB_FAILS(p, CL_MEM_ALLOC_HOST_PTR, 0, 16, CL_INVALID_VALUE);
   CHECK_SUB_FAILS(p, CL_MEM_COPY_HOST_PTR, 0, 16, CL_INVALID_VALUE);
   CHECK_SUB_FAILS(p, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 0, 16, CL_INVALID_VALUE);
   CHECK_SUB_FAILS(p, (cl_mem_flags)1 << 20, 0, 16, CL_INVALID_VALUE);

   cl_buffer_region r = {0, 16};
   cl_mem s = clCreateSubBuffer(p, 0, 0x5555, &r, &err);
   CHECK(!s && err == CL_INVALID_VALUE, " bad create type: %s", kt_err_name(err));
   s = clCreateSubBuffer(p, 0, CL_BUFFER_CREATE_TYPE_REGION, NULL, &err);
   CHECK(!s && err == CL_INVALID_VALUE, " NULL region: %s", kt_err_name(err));
   s = clCreateSubBuffer(NULL, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
   CHECK(!s && err == CL_INVALID_MEM_OBJECT, " NULL buffer: %s", kt_err_name(err));

   /* The whole buffer and the last aligned byte are fine; a sub-buffer of
    * a sub-buffer is not. */
   s = sub(p, 0, 0, size, &err);
   CHECK(s && err == CL_SUCCESS, " whole buffer: %s", kt_err_name(err));
   cl_mem last = sub(p, 0, size - align, align, &err);
   CHECK(last && err == CL_SUCCESS, " last aligned window: %s", kt_err_name(err));
   if (s) {
      CHECK_SUB_FAILS(s, 0, 0, 16, CL_INVALID_MEM_OBJECT);
      CHECK_OK(clReleaseMemObject(s));
   }
   if (last)
      CHECK_OK(clReleaseMemObject(last));
   CHECK_OK(clReleaseMemObject(p));
}

static cl_mem_flags flags_of(cl_mem m)
{
   cl_mem_flags f = 0;
   CHECK_OK(clGetMemObjectInfo(m, CL_MEM_FLAGS, sizeof(f), &f, NULL));
   return f;
}

/* The access a sub-buffer may have given its parent's: never more. */
static void access_inheritance(struct kt_env *env)
{
   const cl_mem_flags access[] = {CL_MEM_READ_WRITE, CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY};
   for (unsigned i = 0; i < 3; i++) {
      cl_mem p = kt_buffer(env->context, access[i], 4 * align, NULL);
      for (unsigned j = 0; j < 4; j++) {
         cl_mem_flags f = j < 3 ? access[j] : 0;
         bool ok = f == 0 || access[i] == CL_MEM_READ_WRITE || f == access[i];
         cl_int err;
         cl_mem s = sub(p, f, align, 64, &err);
         if (!ok) {
            CHECK(!s && err == CL_INVALID_VALUE,
                  " parent 0x%llx, sub 0x%llx: got %s, expected CL_INVALID_VALUE",
                  (unsigned long long)access[i], (unsigned long long)f, kt_err_name(err));
         } else {
            CHECK(s && err == CL_SUCCESS, " parent 0x%llx, sub 0x%llx: %s",
                  (unsigned long long)access[i], (unsigned long long)f, kt_err_name(err));
            if (s) {
               /* Not given: inherited from the parent. */
               cl_mem_flags want = f ? f : access[i];
               CHECK((flags_of(s) & ACCESS) == want, " sub flags 0x%llx, expected access 0x%llx",
                     (unsigned long long)flags_of(s), (unsigned long long)want);
            }
         }
         if (s)
            CHECK_OK(clReleaseMemObject(s));
      }
      CHECK_OK(clReleaseMemObject(p));
   }

   /* Host-pointer flags come from the parent. */
   const cl_mem_flags host_flags[] = {CL_MEM_USE_HOST_PTR, CL_MEM_ALLOC_HOST_PTR,
                                      CL_MEM_COPY_HOST_PTR,
                                      CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR};
   for (unsigned i = 0; i < 4; i++) {
      size_t size = 4 * align;
      unsigned char *host = malloc(size);
      REQUIRE(host);
      kt_fill(host, size, 3);
      bool ptr = host_flags[i] & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
      cl_mem p = kt_buffer(env->context, host_flags[i], size, ptr ? host : NULL);
      cl_int err;
      cl_mem s = sub(p, CL_MEM_READ_ONLY, align, 64, &err);
      CHECK(s && err == CL_SUCCESS, " %s", kt_err_name(err));
      if (s) {
         cl_mem_flags f = flags_of(s);
         CHECK((f & host_flags[i]) == host_flags[i] && (f & ACCESS) == CL_MEM_READ_ONLY,
               " parent 0x%llx: sub-buffer flags 0x%llx", (unsigned long long)host_flags[i],
               (unsigned long long)f);
         CHECK_OK(clReleaseMemObject(s));
      }
      CHECK_OK(clReleaseMemObject(p));
      free(host);
   }
}

static void info(struct kt_env *env)
{
   cl_mem p = kt_buffer(env->context, 0, 8 * align, NULL);
   cl_int err;
   cl_mem s = sub(p, 0, 3 * align, 100, &err);
   REQUIRE(s, " %s", kt_err_name(err));
   cl_mem assoc = NULL;
   size_t off = 0, size = 0;
   CHECK_OK(clGetMemObjectInfo(s, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof(assoc), &assoc, NULL));
   CHECK(assoc == p, " CL_MEM_ASSOCIATED_MEMOBJECT %p, parent %p", (void *)assoc, (void *)p);
   CHECK_OK(clGetMemObjectInfo(s, CL_MEM_OFFSET, sizeof(off), &off, NULL));
   CHECK(off == 3 * align, " CL_MEM_OFFSET %zu", off);
   CHECK_OK(clGetMemObjectInfo(s, CL_MEM_SIZE, sizeof(size), &size, NULL));
   CHECK(size == 100, " CL_MEM_SIZE %zu", size);
   cl_mem_object_type t = 0;
   CHECK_OK(clGetMemObjectInfo(s, CL_MEM_TYPE, sizeof(t), &t, NULL));
   CHECK(t == CL_MEM_OBJECT_BUFFER);
   cl_context ctx = NULL;
   CHECK_OK(clGetMemObjectInfo(s, CL_MEM_CONTEXT, sizeof(ctx), &ctx, NULL));
   CHECK(ctx == env->context);
   /* Undersized param_value. */
   char tiny;
   CHECK_ERR(clGetMemObjectInfo(s, CL_MEM_OFFSET, 1, &tiny, NULL), CL_INVALID_VALUE);
   size_t ret = 0;
   CHECK_OK(clGetMemObjectInfo(s, CL_MEM_ASSOCIATED_MEMOBJECT, 0, NULL, &ret));
   CHECK(ret == sizeof(cl_mem));
   CHECK_ERR(clGetMemObjectInfo(s, 0xdead, sizeof(off), &off, NULL), CL_INVALID_VALUE);
   CHECK_OK(clReleaseMemObject(s));
   CHECK_OK(clReleaseMemObject(p));
}

/* A sub-buffer is the parent's bytes [origin, origin+size). */
static void aliasing(struct kt_env *env)
{
   size_t size = 8 * align, o1 = 2 * align, n1 = 3 * align + 7;
   unsigned char *want = malloc(size), *out = malloc(size), *tmp = malloc(size);
   REQUIRE(want && out && tmp);
   kt_fill(want, size, 20);
   cl_mem p = kt_buffer(env->context, CL_MEM_COPY_HOST_PTR, size, want);
   cl_int err;
   cl_mem s = sub(p, 0, o1, n1, &err);
   REQUIRE(s, " %s", kt_err_name(err));

   CHECK_OK(clEnqueueReadBuffer(env->queue, s, CL_TRUE, 0, n1, out, 0, NULL, NULL));
   CHECK(kt_same(out, want + o1, n1, "sub-buffer shows the parent's bytes"));

   kt_fill(tmp, n1, 21);
   CHECK_OK(clEnqueueWriteBuffer(env->queue, s, CL_TRUE, 0, n1, tmp, 0, NULL, NULL));
   memcpy(want + o1, tmp, n1);
   CHECK_OK(clEnqueueReadBuffer(env->queue, p, CL_TRUE, 0, size, out, 0, NULL, NULL));
   CHECK(kt_same(out, want, size, "parent after writing the sub-buffer (and nothing else)"));

   /* Parent write inside the window, seen through the sub-buffer at the
    * window's offset. */
   memset(tmp, 0x77, 10);
   CHECK_OK(clEnqueueWriteBuffer(env->queue, p, CL_TRUE, o1 + 5, 10, tmp, 0, NULL, NULL));
   memcpy(want + o1 + 5, tmp, 10);
   CHECK_OK(clEnqueueReadBuffer(env->queue, s, CL_TRUE, 5, 10, out, 0, NULL, NULL));
   CHECK(kt_same(out, tmp, 10, "sub-buffer after writing the parent"));

   /* Out-of-range access of the sub-buffer is checked against its own
    * size, not the parent's. */
   CHECK_ERR(clEnqueueReadBuffer(env->queue, s, CL_TRUE, 0, n1 + 1, out, 0, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueWriteBuffer(env->queue, s, CL_TRUE, n1, 1, out, 0, NULL, NULL),
             CL_INVALID_VALUE);

   /* Copies between the sub-buffer and another buffer; map of the
    * sub-buffer sees the window. */
   cl_mem other = kt_buffer(env->context, 0, size, NULL);
   CHECK_OK(clEnqueueCopyBuffer(env->queue, s, other, 0, 0, n1, 0, NULL, NULL));
   CHECK_OK(clEnqueueReadBuffer(env->queue, other, CL_TRUE, 0, n1, out, 0, NULL, NULL));
   CHECK(kt_same(out, want + o1, n1, "copy out of the sub-buffer"));
   unsigned char *m = clEnqueueMapBuffer(env->queue, s, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                         n1, 0, NULL, NULL, &err);
   CHECK(m && err == CL_SUCCESS, " %s", kt_err_name(err));
   if (m) {
      CHECK(kt_same(m, want + o1, n1, "map of the sub-buffer"));
      m[0] ^= 0xff;
      want[o1] ^= 0xff;
      CHECK_OK(clEnqueueUnmapMemObject(env->queue, s, m, 0, NULL, NULL));
   }
   CHECK_OK(clEnqueueReadBuffer(env->queue, p, CL_TRUE, 0, size, out, 0, NULL, NULL));
   CHECK(kt_same(out, want, size, "parent after writing the sub-buffer's map"));

   /* Dropping the application's last reference to the parent leaves the
    * sub-buffer usable: its storage is the parent's. */
   CHECK_OK(clReleaseMemObject(p));
   CHECK_OK(clEnqueueReadBuffer(env->queue, s, CL_TRUE, 0, n1, out, 0, NULL, NULL));
   CHECK(kt_same(out, want + o1, n1, "sub-buffer after its parent's release"));

   CHECK_OK(clReleaseMemObject(other));
   CHECK_OK(clReleaseMemObject(s));
   free(want);
   free(out);
   free(tmp);
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   align = kt_device_uint(env.device, CL_DEVICE_MEM_BASE_ADDR_ALIGN) / 8;
   REQUIRE(align >= 1 && !(align & (align - 1)), " CL_DEVICE_MEM_BASE_ADDR_ALIGN %zu bytes",
           align);
   argument_errors(&env);
   access_inheritance(&env);
   info(&env);
   aliasing(&env);
   kt_teardown(&env);
   return kt_result();
}
