/* CL_MEM_USE_HOST_PTR: the application's memory is the buffer.  Maps
 * return pointers inside that memory (5.2.8: derived from host_ptr), and
 * data written through either side is seen by the other once the command
 * that moves it has completed. */
#include <stdlib.h>
#include <string.h>

#include "kt.h"

#define N 8192

static void map_points_into_host(struct kt_env *env)
{
   unsigned char *host = malloc(N), want[N], out[N];
   REQUIRE(host);
   kt_fill(host, N, 10);
   memcpy(want, host, N);
   cl_mem m = kt_buffer(env->context, CL_MEM_USE_HOST_PTR, N, host);

   /* Several maps, each at host + offset. */
   const size_t offs[] = {0, 1, 100, 4096, N - 1};
   for (unsigned i = 0; i < 5; i++) {
      cl_int err;
      size_t len = N - offs[i] < 64 ? N - offs[i] : 64;
      unsigned char *p = clEnqueueMapBuffer(env->queue, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                            offs[i], len, 0, NULL, NULL, &err);
      CHECK(err == CL_SUCCESS, " map at %zu: %s", offs[i], kt_err_name(err));
      CHECK(p >= host && p + len <= host + N, " map at %zu returned %p outside [%p, %p)",
            offs[i], (void *)p, (void *)host, (void *)(host + N));
      CHECK(p == host + offs[i], " map at %zu returned host+%td", offs[i], p - host);
      if (!p)
         continue;
      CHECK(kt_same(p, want + offs[i], len, "mapped data"));
      /* Write through the mapping: seen by the buffer after unmap. */
      memset(p, (int)(0x40 + i), len);
      memset(want + offs[i], (int)(0x40 + i), len);
      CHECK_OK(clEnqueueUnmapMemObject(env->queue, m, p, 0, NULL, NULL));
   }
   CHECK_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, N, out, 0, NULL, NULL));
   CHECK(kt_same(out, want, N, "buffer after writes through maps"));

   /* A write command lands in the host memory. */
   kt_fill(want, N, 11);
   CHECK_OK(clEnqueueWriteBuffer(env->queue, m, CL_TRUE, 0, N, want, 0, NULL, NULL));
   void *p = clEnqueueMapBuffer(env->queue, m, CL_TRUE, CL_MAP_READ, 0, N, 0, NULL, NULL, NULL);
   CHECK(p == host);
   CHECK(kt_same(host, want, N, "host memory after clEnqueueWriteBuffer"));
   if (p)
      CHECK_OK(clEnqueueUnmapMemObject(env->queue, m, p, 0, NULL, NULL));

   /* Copy into a USE_HOST_PTR buffer from an ordinary one. */
   cl_mem src = kt_buffer(env->context, CL_MEM_COPY_HOST_PTR, N, out);
   CHECK_OK(clEnqueueCopyBuffer(env->queue, src, m, 16, 32, 1000, 0, NULL, NULL));
   memcpy(want + 32, out + 16, 1000);
   p = clEnqueueMapBuffer(env->queue, m, CL_TRUE, CL_MAP_READ, 0, N, 0, NULL, NULL, NULL);
   CHECK(kt_same(host, want, N, "host memory after clEnqueueCopyBuffer"));
   if (p)
      CHECK_OK(clEnqueueUnmapMemObject(env->queue, m, p, 0, NULL, NULL));
   CHECK_OK(clFinish(env->queue));

   cl_uint maps = 9;
   CHECK_OK(clGetMemObjectInfo(m, CL_MEM_MAP_COUNT, sizeof(maps), &maps, NULL));
   CHECK(maps == 0, " map count %u after all unmaps", maps);
   CHECK_OK(clReleaseMemObject(src));
   CHECK_OK(clReleaseMemObject(m));
   free(host);
}

/* Sub-buffers of a USE_HOST_PTR buffer map inside the same host memory. */
static void sub_buffer_maps(struct kt_env *env)
{
   cl_uint align = kt_device_uint(env->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN) / 8;
   size_t size = 4 * (size_t)align + 256;
   unsigned char *host = malloc(size);
   REQUIRE(host);
   kt_fill(host, size, 12);
   cl_mem m = kt_buffer(env->context, CL_MEM_USE_HOST_PTR | CL_MEM_READ_WRITE, size, host);
   cl_buffer_region r = {2 * (size_t)align, 128};
   cl_int err;
   cl_mem sub = clCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
   CHECK(sub && err == CL_SUCCESS, " %s", kt_err_name(err));
   if (!sub)
      goto out;
   void *hp = NULL;
   CHECK_OK(clGetMemObjectInfo(sub, CL_MEM_HOST_PTR, sizeof(hp), &hp, NULL));
   CHECK(hp == host + r.origin, " sub-buffer CL_MEM_HOST_PTR is host+%td, origin %zu",
         (unsigned char *)hp - host, r.origin);
   unsigned char *p = clEnqueueMapBuffer(env->queue, sub, CL_TRUE, CL_MAP_WRITE, 8, 16, 0, NULL,
                                         NULL, &err);
   CHECK(err == CL_SUCCESS && p == host + r.origin + 8,
         " sub-buffer map returned host+%td (%s)", p - host, kt_err_name(err));
   if (p) {
      memset(p, 0x5a, 16);
      CHECK_OK(clEnqueueUnmapMemObject(env->queue, sub, p, 0, NULL, NULL));
   }
   unsigned char out[16], want[16];
   memset(want, 0x5a, 16);
   CHECK_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, r.origin + 8, 16, out, 0, NULL, NULL));
   CHECK(kt_same(out, want, 16, "parent after writing through the sub-buffer's map"));
   CHECK_OK(clReleaseMemObject(sub));
out:
   CHECK_OK(clFinish(env->queue));
   CHECK_OK(clReleaseMemObject(m));
   free(host);
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   map_points_into_host(&env);
   sub_buffer_maps(&env);
   kt_teardown(&env);
   return kt_result();
}
