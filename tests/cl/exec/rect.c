/* clEnqueueRead/Write/CopyBufferRect (1.1): 2D and 3D regions with
 * explicit and default pitches, checked byte for byte against a host
 * reference; events; argument errors. */
#include <stdlib.h>
#include <string.h>

#include "kt.h"

#define SIZE 8192

struct layout {
   size_t origin[3];
   size_t row, slice; /* 0: the spec's defaults */
};

/* Slice pitches are multiples of row pitches: 1.2 made anything else
 * CL_INVALID_VALUE, and these cases should stay valid in every version. */
struct rect_case {
   const char *name;
   size_t region[3];
   struct layout a, b; /* buffer and host, or source and destination */
};

static const struct rect_case cases[] = {
   {"2d pitched", {5, 4, 1}, {{3, 2, 0}, 16, 0}, {{1, 1, 0}, 10, 0}},
   {"3d pitched", {4, 3, 5}, {{2, 1, 1}, 12, 48}, {{0, 2, 3}, 7, 42}},
   {"3d default pitches", {8, 4, 2}, {{0, 0, 0}, 0, 0}, {{0, 0, 0}, 0, 0}},
   {"3d origin with default pitches", {8, 4, 3}, {{1, 2, 3}, 0, 0}, {{2, 0, 1}, 0, 0}},
   {"row only", {100, 1, 1}, {{17, 0, 0}, 0, 0}, {{3, 0, 0}, 0, 0}},
   {"column", {1, 30, 2}, {{5, 3, 1}, 33, 33 * 31}, {{0, 0, 0}, 1, 30}},
   {"pitch equals width", {16, 8, 4}, {{0, 0, 2}, 16, 128}, {{0, 1, 0}, 16, 16 * 13}},
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static size_t row_of(const struct layout *l, const size_t region[3])
{
   return l->row ? l->row : region[0];
}

static size_t slice_of(const struct layout *l, const size_t region[3])
{
   return l->slice ? l->slice : region[1] * row_of(l, region);
}

static size_t offset_of(const struct layout *l, const size_t region[3], size_t y, size_t z)
{
   return l->origin[0] + (l->origin[1] + y) * row_of(l, region) +
          (l->origin[2] + z) * slice_of(l, region);
}

/* The reference: copy the region from layout `from` in src to layout
 * `to` in dst. */
static void ref_copy(unsigned char *dst, const struct layout *to, const unsigned char *src,
                     const struct layout *from, const size_t region[3])
{
   for (size_t z = 0; z < region[2]; z++)
      for (size_t y = 0; y < region[1]; y++)
         memcpy(dst + offset_of(to, region, y, z), src + offset_of(from, region, y, z),
                region[0]);
}

static void one_case(struct kt_env *env, const struct rect_case *c)
{
   unsigned char *buf0 = malloc(SIZE), *host0 = malloc(SIZE), *want = malloc(SIZE),
                 *got = malloc(SIZE);
   REQUIRE(buf0 && host0 && want && got);
   kt_fill(buf0, SIZE, 50);
   kt_fill(host0, SIZE, 51);
   cl_mem m = kt_buffer(env->context, CL_MEM_COPY_HOST_PTR, SIZE, buf0);
   const size_t *r = c->region;

   /* Write: host layout b into buffer layout a. */
   cl_event ev;
   CHECK_OK(clEnqueueWriteBufferRect(env->queue, m, CL_TRUE, c->a.origin, c->b.origin, r,
                                     c->a.row, c->a.slice, c->b.row, c->b.slice, host0, 0,
                                     NULL, &ev));
   cl_command_type type = 0;
   CHECK_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL));
   CHECK(type == CL_COMMAND_WRITE_BUFFER_RECT);
   CHECK(kt_status(ev) == CL_COMPLETE);
   CHECK_OK(clReleaseEvent(ev));
   memcpy(want, buf0, SIZE);
   ref_copy(want, &c->a, host0, &c->b, r);
   CHECK_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, SIZE, got, 0, NULL, NULL));
   CHECK(kt_same(got, want, SIZE, "buffer after write rect"), " case %s", c->name);

   /* Read: buffer layout a into host layout b, non-blocking. */
   unsigned char *bufnow = malloc(SIZE);
   REQUIRE(bufnow);
   memcpy(bufnow, want, SIZE);
   memcpy(got, host0, SIZE);
   cl_event gate = kt_user_event(env->context);
   CHECK_OK(clEnqueueReadBufferRect(env->queue, m, CL_FALSE, c->a.origin, c->b.origin, r,
                                    c->a.row, c->a.slice, c->b.row, c->b.slice, got, 1, &gate,
                                    &ev));
   CHECK_PENDING(ev, 5);
   CHECK(kt_same(got, host0, SIZE, "host memory before the gated read rect ran"));
   CHECK_OK(clSetUserEventStatus(gate, CL_COMPLETE));
   CHECK_OK(clWaitForEvents(1, &ev));
   CHECK_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL));
   CHECK(type == CL_COMMAND_READ_BUFFER_RECT);
   CHECK_OK(clReleaseEvent(ev));
   CHECK_OK(clReleaseEvent(gate));
   memcpy(want, host0, SIZE);
   ref_copy(want, &c->b, bufnow, &c->a, r);
   CHECK(kt_same(got, want, SIZE, "host after read rect"), " case %s", c->name);

   /* Copy: buffer m layout a into a second buffer, layout b. */
   unsigned char *dst0 = malloc(SIZE);
   REQUIRE(dst0);
   kt_fill(dst0, SIZE, 52);
   cl_mem d = kt_buffer(env->context, CL_MEM_COPY_HOST_PTR, SIZE, dst0);
   CHECK_OK(clEnqueueCopyBufferRect(env->queue, m, d, c->a.origin, c->b.origin, r, c->a.row,
                                    c->a.slice, c->b.row, c->b.slice, 0, NULL, &ev));
   CHECK_OK(clWaitForEvents(1, &ev));
   CHECK_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL));
   CHECK(type == CL_COMMAND_COPY_BUFFER_RECT);
   CHECK_OK(clReleaseEvent(ev));
   memcpy(want, dst0, SIZE);
   ref_copy(want, &c->b, bufnow, &c->a, r);
   CHECK_OK(clEnqueueReadBuffer(env->queue, d, CL_TRUE, 0, SIZE, got, 0, NULL, NULL));
   CHECK(kt_same(got, want, SIZE, "destination after copy rect"), " case %s", c->name);

   CHECK_OK(clReleaseMemObject(d));
   CHECK_OK(clReleaseMemObject(m));
   free(buf0);
   free(host0);
   free(want);
   free(got);
   free(bufnow);
   free(dst0);
}

/* Copy rect within one buffer, same pitches, disjoint boxes: legal. */
static void same_buffer_disjoint(struct kt_env *env)
{
   unsigned char *b0 = malloc(SIZE), *want = malloc(SIZE), *got = malloc(SIZE);
   REQUIRE(b0 && want && got);
   kt_fill(b0, SIZE, 53);
   cl_mem m = kt_buffer(env->context, CL_MEM_COPY_HOST_PTR, SIZE, b0);
   /* Two 8x8 boxes side by side in rows of 32: their byte spans interleave
    * but no byte is shared. */
   struct layout s = {{0, 2, 0}, 32, 32 * 16}, d = {{8, 2, 0}, 32, 32 * 16};
   size_t region[3] = {8, 8, 2};
   CHECK_OK(clEnqueueCopyBufferRect(env->queue, m, m, s.origin, d.origin, region, 32, 512, 32,
                                    512, 0, NULL, NULL));
   memcpy(want, b0, SIZE);
   ref_copy(want, &d, b0, &s, region);
   CHECK_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, SIZE, got, 0, NULL, NULL));
   CHECK(kt_same(got, want, SIZE, "copy rect between interleaved disjoint boxes"));
   CHECK_OK(clReleaseMemObject(m));
   free(b0);
   free(want);
   free(got);
}

static void errors(struct kt_env *env)
{
   unsigned char host[SIZE];
   cl_mem m = kt_buffer(env->context, 0, 1024, NULL), m2 = kt_buffer(env->context, 0, 1024, NULL);
   cl_command_queue q = env->queue;
   size_t zero[3] = {0, 0, 0}, region[3] = {8, 8, 2};
   /* Pitches smaller than the region. */
   CHECK_ERR(clEnqueueReadBufferRect(q, m, CL_TRUE, zero, zero, region, 7, 0, 0, 0, host, 0,
                                     NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueReadBufferRect(q, m, CL_TRUE, zero, zero, region, 8, 63, 0, 0, host, 0,
                                     NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueWriteBufferRect(q, m, CL_TRUE, zero, zero, region, 0, 0, 4, 0, host, 0,
                                      NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueWriteBufferRect(q, m, CL_TRUE, zero, zero, region, 0, 0, 10, 70, host, 0,
                                      NULL, NULL),
             CL_INVALID_VALUE);
   /* Out of the buffer: 16 rows of 64 = 1024 fits; one more byte not. */
   size_t fits[3] = {64, 16, 1}, big[3] = {65, 16, 1}, org[3] = {0, 1, 0};
   CHECK_OK(clEnqueueReadBufferRect(q, m, CL_TRUE, zero, zero, fits, 64, 0, 0, 0, host, 0,
                                    NULL, NULL));
   CHECK_ERR(clEnqueueReadBufferRect(q, m, CL_TRUE, zero, zero, big, 65, 0, 0, 0, host, 0, NULL,
                                     NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueReadBufferRect(q, m, CL_TRUE, org, zero, fits, 64, 0, 0, 0, host, 0, NULL,
                                     NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueCopyBufferRect(q, m, m2, zero, org, fits, 64, 0, 64, 0, 0, NULL, NULL),
             CL_INVALID_VALUE);
   /* Empty regions and NULL pointers. */
   size_t empty[3] = {8, 0, 1};
   CHECK_ERR(clEnqueueReadBufferRect(q, m, CL_TRUE, zero, zero, empty, 0, 0, 0, 0, host, 0,
                                     NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueReadBufferRect(q, m, CL_TRUE, NULL, zero, region, 0, 0, 0, 0, host, 0,
                                     NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueWriteBufferRect(q, m, CL_TRUE, zero, zero, region, 0, 0, 0, 0, NULL, 0,
                                      NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueCopyBufferRect(q, m, m2, zero, zero, NULL, 0, 0, 0, 0, 0, NULL, NULL),
             CL_INVALID_VALUE);
   /* 1.1, clEnqueueCopyBufferRect: the same buffer with different pitches
    * for source and destination is CL_INVALID_VALUE. */
   size_t r2[3] = {4, 4, 1}, far[3] = {0, 0, 1};
   CHECK_ERR(clEnqueueCopyBufferRect(q, m, m, zero, far, r2, 8, 64, 16, 128, 0, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clEnqueueCopyBufferRect(q, NULL, m2, zero, zero, r2, 0, 0, 0, 0, 0, NULL, NULL),
             CL_INVALID_MEM_OBJECT);
   CHECK_ERR(clEnqueueCopyBufferRect(NULL, m, m2, zero, zero, r2, 0, 0, 0, 0, 0, NULL, NULL),
             CL_INVALID_COMMAND_QUEUE);
   CHECK_OK(clFinish(q));
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseMemObject(m2));
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   for (unsigned i = 0; i < NCASES; i++)
      one_case(&env, &cases[i]);
   same_buffer_disjoint(&env);
   errors(&env);
   kt_teardown(&env);
   return kt_result();
}
