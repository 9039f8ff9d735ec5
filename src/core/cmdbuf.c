#include "core/cmdbuf.h"

#include <string.h>

#include "core/context.h"
#include "core/device.h"
#include "core/event.h"
#include "core/image_fill.h"
#include "core/kernel.h"
#include "core/mem.h"
#include "core/ndrange.h"
#include "pipe/pipe.h"
#include "util/alloc.h"

/* Largest staging block a fill expands its pattern into: fills larger
 * than this write it several times. */
#define FILL_STAGING_MAX ((size_t)1 << 20)

void kiln_cmdbuf_command_drop(struct kiln_cb_command *cmd)
{
   for (int i = 0; i < 2; i++)
      if (cmd->mem[i])
         kiln_object_unref(&cmd->mem[i]->obj);
   if (cmd->kind == KILN_CB_NDRANGE && cmd->u.launch)
      kiln_launch_destroy(cmd->u.launch);
   if (cmd->kind == KILN_CB_FILL)
      kiln_free(cmd->u.fill.staging);
   if (cmd->kind == KILN_CB_FILL_IMAGE)
      kiln_free(cmd->u.fill_image.row);
   memset(cmd, 0, sizeof(*cmd));
}

static void cmdbuf_destroy(struct kiln_object *obj)
{
   cl_command_buffer_khr cb = (cl_command_buffer_khr)obj;
   for (unsigned i = 0; i < cb->num_cmds; i++)
      kiln_cmdbuf_command_drop(&cb->cmds[i]);
   kiln_free(cb->cmds);
   pthread_mutex_destroy(&cb->lock);
   if (cb->queue)
      kiln_object_unref(&cb->queue->obj);
   kiln_object_free(cb);
}

cl_int kiln_cmdbuf_create(cl_command_queue q, cl_command_buffer_flags_khr flags,
                          const cl_command_buffer_properties_khr *props, unsigned num_props,
                          cl_command_buffer_khr *out)
{
   if (num_props > KILN_CB_MAX_PROPS)
      return CL_INVALID_VALUE;
   cl_command_buffer_khr cb = kiln_object_alloc(sizeof(*cb));
   if (!cb)
      return CL_OUT_OF_HOST_MEMORY;
   cb->queue = q;
   cb->context = q->context;
   kiln_object_ref(&q->obj);
   cb->flags = flags;
   if (num_props)
      memcpy(cb->props, props, num_props * sizeof(*props));
   cb->num_props = num_props;
   pthread_mutex_init(&cb->lock, NULL);
   if (!kiln_object_init(&cb->obj, KILN_TYPE_COMMAND_BUFFER, cmdbuf_destroy)) {
      cmdbuf_destroy(&cb->obj);
      return CL_OUT_OF_HOST_MEMORY;
   }
   *out = cb;
   return CL_SUCCESS;
}

cl_int kiln_cmdbuf_record(cl_command_buffer_khr cb, struct kiln_cb_command *cmd,
                          cl_uint num_sync, const cl_sync_point_khr *sync_list,
                          cl_sync_point_khr *sync_point)
{
   cl_int err = CL_SUCCESS;
   pthread_mutex_lock(&cb->lock);
   if (cb->finalized) {
      err = CL_INVALID_OPERATION;
      goto fail;
   }
   /* Only commands already recorded can be waited for; that is what makes
    * record order a valid execution order. */
   for (cl_uint i = 0; i < num_sync; i++)
      if (sync_list[i] == 0 || sync_list[i] > cb->num_cmds) {
         err = CL_INVALID_SYNC_POINT_WAIT_LIST_KHR;
         goto fail;
      }
   if (cb->num_cmds == cb->cap_cmds) {
      unsigned cap = cb->cap_cmds ? cb->cap_cmds * 2 : 16;
      struct kiln_cb_command *grown = kiln_realloc(cb->cmds, (size_t)cap * sizeof(*grown));
      if (!grown) {
         err = CL_OUT_OF_HOST_MEMORY;
         goto fail;
      }
      cb->cmds = grown;
      cb->cap_cmds = cap;
   }
   cb->cmds[cb->num_cmds++] = *cmd;
   if (sync_point)
      *sync_point = cb->num_cmds;
   pthread_mutex_unlock(&cb->lock);
   return CL_SUCCESS;
fail:
   pthread_mutex_unlock(&cb->lock);
   kiln_cmdbuf_command_drop(cmd);
   return err;
}

/* The pattern repeated over min(size, FILL_STAGING_MAX) bytes, rounded
 * down to whole patterns. */
static cl_int build_fill_staging(struct kiln_cb_command *c)
{
   size_t ps = c->u.fill.pattern_size, size = c->u.fill.size;
   size_t n = size < FILL_STAGING_MAX ? size : FILL_STAGING_MAX / ps * ps;
   unsigned char *buf = kiln_malloc(n);
   if (!buf)
      return CL_OUT_OF_HOST_MEMORY;
   for (size_t i = 0; i < n; i += ps)
      memcpy(buf + i, c->u.fill.pattern, ps);
   c->u.fill.staging = buf;
   c->u.fill.staging_size = n;
   return CL_SUCCESS;
}

cl_int kiln_cmdbuf_finalize(cl_command_buffer_khr cb)
{
   pthread_mutex_lock(&cb->lock);
   if (cb->finalized) {
      pthread_mutex_unlock(&cb->lock);
      return CL_INVALID_OPERATION;
   }
   for (unsigned i = 0; i < cb->num_cmds; i++) {
      struct kiln_cb_command *c = &cb->cmds[i];
      for (int m = 0; m < 2; m++)
         if (c->mem[m])
            c->res[m] = kiln_mem_resource(c->mem[m], &c->base[m]);
      cl_int err = CL_SUCCESS;
      if (c->kind == KILN_CB_FILL && !c->u.fill.staging)
         err = build_fill_staging(c);
      if (c->kind == KILN_CB_FILL_IMAGE && !c->u.fill_image.row) {
         size_t ps = c->u.fill_image.pixel_size;
         c->u.fill_image.row =
            kiln_image_fill_row(c->u.fill_image.pixel, ps, c->u.fill_image.bytes[0] / ps);
         if (!c->u.fill_image.row)
            err = CL_OUT_OF_HOST_MEMORY;
      }
      if (err) {
         /* Still recording: the application may try again. */
         pthread_mutex_unlock(&cb->lock);
         return err;
      }
   }
   cb->finalized = true;
   pthread_mutex_unlock(&cb->lock);
   return CL_SUCCESS;
}

cl_command_buffer_state_khr kiln_cmdbuf_state(cl_command_buffer_khr cb)
{
   pthread_mutex_lock(&cb->lock);
   /* 0.9.8: no Pending state (a replay's event tells when it is done). */
   cl_command_buffer_state_khr s = !cb->finalized ? CL_COMMAND_BUFFER_STATE_RECORDING_KHR
                                                  : CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR;
   pthread_mutex_unlock(&cb->lock);
   return s;
}

static size_t rect_offset(const struct kiln_rect *r, size_t y, size_t z)
{
   return r->origin[0] + (r->origin[1] + y) * r->row_pitch + (r->origin[2] + z) * r->slice_pitch;
}

/* Runs one pre-resolved command: pipe calls only. */
static cl_int replay_command(const struct kiln_cb_command *c, struct pipe_context *p)
{
   switch (c->kind) {
   case KILN_CB_BARRIER:
      return CL_SUCCESS; /* commands already run in record order */
   case KILN_CB_COPY:
      p->resource_copy_region(p, c->res[1], c->base[1] + c->u.copy.dst_offset, c->res[0],
                              c->base[0] + c->u.copy.src_offset, c->u.copy.size);
      return CL_SUCCESS;
   case KILN_CB_COPY_RECT: {
      const size_t *region = c->u.rect.region;
      for (size_t z = 0; z < region[2]; z++)
         for (size_t y = 0; y < region[1]; y++)
            p->resource_copy_region(p, c->res[1], c->base[1] + rect_offset(&c->u.rect.d, y, z),
                                    c->res[0], c->base[0] + rect_offset(&c->u.rect.s, y, z),
                                    region[0]);
      return CL_SUCCESS;
   }
   case KILN_CB_FILL: {
      size_t size = c->u.fill.size, chunk = c->u.fill.staging_size;
      for (size_t done = 0; done < size; done += chunk) {
         size_t n = size - done < chunk ? size - done : chunk;
         p->buffer_write(p, c->res[0], c->base[0] + c->u.fill.offset + done, n,
                         c->u.fill.staging);
      }
      return CL_SUCCESS;
   }
   case KILN_CB_NDRANGE:
      return kiln_launch_run(c->u.launch, p);
   case KILN_CB_FILL_IMAGE:
      kiln_image_fill_run(p, c->res[0], c->base[0], &c->u.fill_image.r, c->u.fill_image.bytes,
                          c->u.fill_image.row);
      return CL_SUCCESS;
   }
   return CL_INVALID_OPERATION;
}

/* One enqueue of a command buffer.  Version 0.9.8 of the extension has
 * no Pending state: a finalized command buffer may be enqueued again at
 * any time.  Replays share the finalized commands, which never change,
 * so overlapping replays are safe whether or not the application asked
 * for SIMULTANEOUS_USE (without it, overlapping them is the
 * application's undefined behaviour, which here simply runs both). */
struct replay {
   cl_command_buffer_khr cb;
};

static cl_int replay_run(cl_event ev)
{
   struct replay *r = ev->payload;
   cl_command_buffer_khr cb = r->cb;
   struct pipe_context *p = ev->queue->device->pipe;
   cl_int err = CL_SUCCESS;
   /* Finalized commands never change, so no lock is needed to read them. */
   for (unsigned i = 0; i < cb->num_cmds && !err; i++)
      err = replay_command(&cb->cmds[i], p);
   return err;
}

static void replay_cleanup(cl_event ev)
{
   struct replay *r = ev->payload;
   if (!r)
      return;
   kiln_object_unref(&r->cb->obj);
   kiln_free(r);
   ev->payload = NULL;
}

static const struct kiln_command_ops replay_ops = {replay_run, replay_cleanup};

cl_int kiln_cmdbuf_enqueue(cl_command_buffer_khr cb, cl_command_queue q,
                           struct kiln_wait_list wait, cl_event *out)
{
   struct replay *r = kiln_malloc(sizeof(*r));
   if (!r)
      return CL_OUT_OF_HOST_MEMORY;
   pthread_mutex_lock(&cb->lock);
   bool finalized = cb->finalized;
   pthread_mutex_unlock(&cb->lock);
   if (!finalized) {
      kiln_free(r);
      return CL_INVALID_OPERATION;
   }
   kiln_object_ref(&cb->obj);
   r->cb = cb;
   /* On failure the cleanup has run: the reference is back. */
   return kiln_enqueue_command(q, CL_COMMAND_COMMAND_BUFFER_KHR, &replay_ops, r,
                               KILN_ORDER_COMMAND, wait, out);
}
