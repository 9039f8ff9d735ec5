#include "core/cmdbuf.h"

#include <string.h>

#include "core/context.h"
#include "core/device.h"
#include "core/event.h"
#include "core/image_fill.h"
#include "core/kernel.h"
#include "core/mem.h"
#include "core/mem_sync.h"
#include "core/ndrange.h"
#include "core/pipe_sync.h"
#include "core/svm.h"
#include "pipe/pipe.h"
#include "util/alloc.h"

void kiln_cmdbuf_command_drop(struct kiln_cb_command *cmd)
{
   for (int i = 0; i < 2; i++)
      if (cmd->mem[i])
         kiln_object_unref(&cmd->mem[i]->obj);
   if (cmd->kind == KILN_CB_NDRANGE && cmd->u.launch)
      kiln_launch_destroy(cmd->u.launch);
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

cl_int kiln_cmdbuf_finalize(cl_command_buffer_khr cb)
{
   pthread_mutex_lock(&cb->lock);
   if (cb->finalized) {
      pthread_mutex_unlock(&cb->lock);
      return CL_INVALID_OPERATION;
   }
   for (unsigned i = 0; i < cb->num_cmds; i++) {
      struct kiln_cb_command *c = &cb->cmds[i];
      cl_int err = CL_SUCCESS;
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

/* Runs one recorded command on dev: its objects' storage there, then pipe
 * calls only. */
static cl_int replay_command(const struct kiln_cb_command *c, cl_device_id dev,
                             struct pipe_context *p)
{
   struct pipe_resource *res[2] = {NULL, NULL};
   size_t base[2] = {0, 0};
   if (c->kind == KILN_CB_NDRANGE)
      return kiln_launch_run(c->u.launch, dev, p);
   /* mem[0] is read (copies) or written (fills), mem[1] written. */
   for (int m = 0; m < 2; m++) {
      if (!c->mem[m])
         continue;
      unsigned access = m == 1 || c->kind == KILN_CB_FILL || c->kind == KILN_CB_FILL_IMAGE
                           ? KILN_ACCESS_WRITE
                           : KILN_ACCESS_READ;
      cl_int err = kiln_mem_acquire(c->mem[m], dev, p, access, &res[m], &base[m]);
      if (err)
         return err;
   }
   switch (c->kind) {
   case KILN_CB_BARRIER:
   case KILN_CB_NDRANGE:
      return CL_SUCCESS; /* commands already run in record order */
   case KILN_CB_COPY:
      p->resource_copy_region(p, res[1], base[1] + c->u.copy.dst_offset, res[0],
                              base[0] + c->u.copy.src_offset, c->u.copy.size);
      return CL_SUCCESS;
   case KILN_CB_COPY_RECT: {
      struct pipe_rect s = kiln_pipe_rect(&c->u.rect.s, base[0]);
      struct pipe_rect d = kiln_pipe_rect(&c->u.rect.d, base[1]);
      p->resource_copy_rect(p, res[1], &d, res[0], &s, c->u.rect.region);
      return CL_SUCCESS;
   }
   case KILN_CB_FILL:
      p->clear_buffer(p, res[0], base[0] + c->u.fill.offset, c->u.fill.size, c->u.fill.pattern,
                      c->u.fill.pattern_size);
      return CL_SUCCESS;
   case KILN_CB_FILL_IMAGE:
      kiln_image_fill_run(p, res[0], base[0], &c->u.fill_image.r, c->u.fill_image.bytes,
                          c->u.fill_image.row);
      return CL_SUCCESS;
   case KILN_CB_SVM_COPY:
   case KILN_CB_SVM_FILL: {
      /* Host memory (core/svm.h): after the device's part of the replay
       * so far, on this thread. */
      cl_int err = kiln_pipe_finish(p);
      if (err)
         return err;
      if (c->kind == KILN_CB_SVM_COPY)
         memcpy(c->u.svm_copy.dst, c->u.svm_copy.src, c->u.svm_copy.size);
      else
         kiln_svm_fill_host((void *)(uintptr_t)c->u.fill.offset, c->u.fill.pattern,
                            c->u.fill.pattern_size, c->u.fill.size);
      return CL_SUCCESS;
   }
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
   struct pipe_context *p = ev->queue->pipe;
   cl_int err = CL_SUCCESS;
   /* Finalized commands never change, so no lock is needed to read them. */
   for (unsigned i = 0; i < cb->num_cmds && !err; i++)
      err = replay_command(&cb->cmds[i], ev->queue->device, p);
   return err;
}

/* Once the device is done: the first launch that went out of bounds
 * (KILN_CHECK=bounds) fails the replay. */
static cl_int replay_done(cl_event ev)
{
   struct replay *r = ev->payload;
   cl_int err = CL_SUCCESS;
   for (unsigned i = 0; i < r->cb->num_cmds && !err; i++)
      if (r->cb->cmds[i].kind == KILN_CB_NDRANGE)
         err = kiln_launch_check(r->cb->cmds[i].u.launch);
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

static const struct kiln_command_ops replay_ops = {replay_run, replay_cleanup, NULL, replay_done};

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
