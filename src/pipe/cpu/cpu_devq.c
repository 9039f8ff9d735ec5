/* Device-side enqueue's run-time on the CPU device (cpu_devq.h,
 * include/kiln/devq_abi.h).  Work-items of a running launch record
 * commands (a block's kernel with its ND-range, or a marker) under the
 * launch's lock; once the launch's groups are done, cpu_devq_finish runs
 * the recorded commands one launch at a time, each once its wait list is
 * complete, until none is left (a command's own children join the list
 * while it runs).  A command's event completes when it and all its
 * children have (OpenCL C 3.0 6.15.16.3). */
#include "pipe/cpu/cpu_devq.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include <CL/cl.h>

#include "kiln/bounds.h"
#include "kiln/cpu_abi.h"
#include "kiln/devq_abi.h"
#include "pipe/cpu/cpu_kernel.h"
#include "util/alloc.h"

/* OpenCL C's return codes (opencl-c-base.h). */
#define CLK_SUCCESS 0
#define CLK_ENQUEUE_FAILURE -101
#define CLK_INVALID_QUEUE -102
#define CLK_INVALID_NDRANGE -160
#define CLK_INVALID_EVENT_WAIT_LIST -57
#define CLK_DEVICE_QUEUE_FULL -161
#define CLK_INVALID_ARG_SIZE -51
#define CLK_EVENT_ALLOCATION_FAILURE -100
#define CLK_OUT_OF_RESOURCES -5
#define CLK_PROFILING_COMMAND_EXEC_TIME 0x1
/* Flags of kernel_enqueue_flags_t: NO_WAIT, WAIT_KERNEL, WAIT_WORK_GROUP. */
#define CLK_ENQUEUE_FLAGS_LAST 2

/* __local arguments lie after the kernel's own __local bytes, each at a
 * multiple of this (as cpu_compute.c binds those of host launches). */
#define LOCAL_ALIGN 128

struct devq_event {
   /* Handles the kernels hold, plus one for the command that completes
    * it and one for each command waiting for it: back in the free list
    * at 0, so that is_valid_event() says false of a released event. */
   atomic_int refs;
   atomic_int status; /* CL_SUBMITTED, CL_RUNNING, CL_COMPLETE or < 0 */
   bool user;
   uint64_t start, end; /* CLOCK_MONOTONIC ns */
   /* capture_event_profiling_info before completion: where to write. */
   uint64_t *capture;
   struct devq_event *next_free;
};

/* Events come in slabs: CL_DEVICE_MAX_ON_DEVICE_EVENTS counts those of
 * one queue, and a launch may use many queues. */
#define SLAB_EVENTS 1024
#define MAX_SLABS 64

struct devq_slab {
   struct devq_slab *next;
   struct devq_event events[SLAB_EVENTS];
};

struct devq_queue {
   void *handle;
   size_t size, used;
};

struct devq_cmd {
   struct devq_cmd *next;   /* in the pending list */
   struct devq_cmd *parent; /* NULL: the host launch */
   /* 1 until it has run, plus its children not complete. */
   unsigned outstanding;
   struct cpu_kernel *kernel; /* NULL: a marker */
   struct pipe_grid_info grid;
   size_t local_mem_size;
   struct devq_event *event; /* NULL where nobody asked for one */
   int status;               /* its own failure, or a child's */
   size_t bytes;
   unsigned queue; /* in dq->queues */
   uint32_t num_wait;
   struct devq_event **wait;
   unsigned char *args; /* the block kernel's arguments */
};

static uint64_t now_ns(void)
{
   struct timespec t;
   clock_gettime(CLOCK_MONOTONIC, &t);
   return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static size_t align_up(size_t n, size_t a)
{
   return (n + a - 1) / a * a;
}

void cpu_devq_init(struct cpu_devq *dq, struct pipe_context *ctx, const struct cpu_kernel *k,
                   const struct pipe_grid_info *grid)
{
   memset(dq, 0, sizeof(*dq));
   dq->ctx = ctx;
   dq->program = cpu_kernel_program(k);
   dq->default_queue = grid->default_device_queue;
   dq->host_bounds = grid->bounds;
   dq->queue_size = grid->device_queue_size;
   pthread_mutex_init(&dq->lock, NULL);
}

static struct cpu_devq *devq_of(const struct kiln_wg_ctx *ctx)
{
   return ctx ? ctx->device_enqueue : NULL;
}

/* ---- Events ---- */

/* A fresh event with one reference; NULL when MAX_SLABS are all in use
 * or out of memory.  dq->lock held. */
static struct devq_event *event_new_locked(struct cpu_devq *dq, bool user)
{
   if (!dq->free_events && dq->num_slabs < MAX_SLABS) {
      struct devq_slab *slab = kiln_calloc(1, sizeof(*slab));
      if (slab) {
         slab->next = dq->slabs;
         dq->slabs = slab;
         dq->num_slabs++;
         for (unsigned i = SLAB_EVENTS; i-- > 0;) {
            slab->events[i].next_free = dq->free_events;
            dq->free_events = &slab->events[i];
         }
      }
   }
   struct devq_event *e = dq->free_events;
   if (!e)
      return NULL;
   dq->free_events = e->next_free;
   e->next_free = NULL;
   atomic_store(&e->refs, 1);
   atomic_store(&e->status, CL_SUBMITTED);
   e->user = user;
   e->start = e->end = 0;
   e->capture = NULL;
   return e;
}

/* The event behind a handle of this launch, NULL for anything else
 * (CLK_NULL_EVENT, a released event, a stray pointer).  Slabs are only
 * added, under the lock, before any handle into them exists. */
static struct devq_event *event_from(struct cpu_devq *dq, const void *handle)
{
   if (!dq || !handle)
      return NULL;
   uintptr_t a = (uintptr_t)handle;
   pthread_mutex_lock(&dq->lock);
   struct devq_slab *slab = dq->slabs;
   for (; slab; slab = slab->next) {
      uintptr_t base = (uintptr_t)slab->events;
      if (a >= base && a < base + sizeof(slab->events))
         break;
   }
   pthread_mutex_unlock(&dq->lock);
   if (!slab || (a - (uintptr_t)slab->events) % sizeof(struct devq_event))
      return NULL;
   struct devq_event *e = (struct devq_event *)handle;
   return atomic_load(&e->refs) > 0 ? e : NULL;
}

static void event_unref(struct cpu_devq *dq, struct devq_event *e)
{
   if (e && atomic_fetch_sub(&e->refs, 1) == 1) {
      pthread_mutex_lock(&dq->lock);
      e->next_free = dq->free_events;
      dq->free_events = e;
      pthread_mutex_unlock(&dq->lock);
   }
}

/* CLK_PROFILING_COMMAND_EXEC_TIME: END - START, then COMPLETE - START,
 * in ns; at least 1, as a command takes some time. */
static void write_profile(const struct devq_event *e, uint64_t *value)
{
   uint64_t exec = e->end > e->start ? e->end - e->start : 1;
   value[0] = exec;
   value[1] = exec;
}

/* ---- Commands ---- */

static void cmd_free(struct cpu_devq *dq, struct devq_cmd *c)
{
   for (uint32_t i = 0; i < c->num_wait; i++)
      event_unref(dq, c->wait[i]);
   event_unref(dq, c->event);
   pthread_mutex_lock(&dq->lock);
   dq->queues[c->queue].used -= c->bytes;
   pthread_mutex_unlock(&dq->lock);
   kiln_free(c);
}

static void child_done(struct cpu_devq *dq, struct devq_cmd *parent, int status);

/* c has run (or failed) and has no child left: its event completes and
 * its parent has one child less. */
static void cmd_complete(struct cpu_devq *dq, struct devq_cmd *c)
{
   struct devq_event *e = c->event;
   if (e) {
      if (!e->end)
         e->end = now_ns();
      if (!e->start)
         e->start = e->end;
      if (e->capture && !c->status)
         write_profile(e, e->capture);
      atomic_store(&e->status, c->status ? c->status : CL_COMPLETE);
   }
   struct devq_cmd *parent = c->parent;
   int status = c->status;
   cmd_free(dq, c);
   child_done(dq, parent, status);
}

/* One of parent's children (NULL: of the host launch) completed. */
static void child_done(struct cpu_devq *dq, struct devq_cmd *parent, int status)
{
   if (status && !dq->error)
      dq->error = status;
   if (!parent)
      return;
   if (status && !parent->status)
      parent->status = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
   if (--parent->outstanding == 0)
      cmd_complete(dq, parent);
}

/* The first pending command whose wait list is complete (or failed),
 * taken off the list; NULL where none is.  dq->lock held. */
static struct devq_cmd *take_runnable_locked(struct cpu_devq *dq)
{
   for (struct devq_cmd **pp = &dq->head, *prev = NULL; *pp; prev = *pp, pp = &(*pp)->next) {
      struct devq_cmd *c = *pp;
      bool ready = true;
      for (uint32_t i = 0; i < c->num_wait && ready; i++)
         ready = atomic_load(&c->wait[i]->status) <= CL_COMPLETE;
      if (!ready)
         continue;
      *pp = c->next;
      if (dq->tail == c)
         dq->tail = prev;
      c->next = NULL;
      return c;
   }
   return NULL;
}

/* KILN_CHECK=bounds: a child's violation becomes the host launch's (core
 * reports the first one, src/core/ndrange.c), and fails the child. */
static int report_bounds(struct cpu_devq *dq, struct kiln_bounds *b)
{
   if (!atomic_load(&b->violations))
      return CL_SUCCESS;
   struct kiln_bounds *h = dq->host_bounds;
   if (atomic_fetch_add(&h->violations, 1) == 0) {
      h->first = b->first;
      /* An index into the child's table: past the child's own arguments
       * (make_bounds) it is the host launch's argument of that object;
       * the child's own (its __local pointers) the host does not have. */
      uint32_t own = b->num_args - h->num_args;
      if (h->first.what >= 0)
         h->first.what = (uint32_t)h->first.what >= own ? h->first.what - (int32_t)own
                                                         : KILN_BOUNDS_UNKNOWN;
   }
   return CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
}

/* KILN_CHECK=bounds: the child's table, in its command's block: its
 * arguments (the block, a value; its __local pointers), then the host
 * launch's __global and __constant objects, which bounds_find searches
 * (captured pointers come from them). */
static size_t bounds_bytes(const struct cpu_devq *dq, uint32_t num_locals)
{
   if (!dq->host_bounds)
      return 0;
   return sizeof(struct kiln_bounds) +
          (1 + (size_t)num_locals + dq->host_bounds->num_args) * sizeof(struct kiln_bounds_arg);
}

static struct kiln_bounds *make_bounds(const struct cpu_devq *dq, void *at, uint32_t num_locals,
                                       const uint64_t *local_offsets, const uint64_t *local_sizes,
                                       uint64_t local_total)
{
   const struct kiln_bounds *h = dq->host_bounds;
   struct kiln_bounds *b = at;
   memset(b, 0, sizeof(*b));
   b->args = (struct kiln_bounds_arg *)(b + 1);
   b->num_args = 1 + num_locals + h->num_args;
   memset(b->args, 0, b->num_args * sizeof(*b->args));
   for (uint32_t i = 0; i < num_locals; i++)
      b->args[1 + i] = (struct kiln_bounds_arg){local_offsets[i], local_sizes[i], 3, 0};
   for (uint32_t i = 0; i < h->num_args; i++)
      if (h->args[i].space == 1 || h->args[i].space == 2)
         b->args[1 + num_locals + i] = h->args[i];
   b->flags = h->flags;
   b->local_total = local_total;
   atomic_init(&b->violations, 0);
   return b;
}

static void run_cmd(struct cpu_devq *dq, struct devq_cmd *c)
{
   for (uint32_t i = 0; i < c->num_wait && !c->status; i++)
      if (atomic_load(&c->wait[i]->status) < 0)
         c->status = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
   if (c->kernel && !c->status) {
      if (c->event) {
         atomic_store(&c->event->status, CL_RUNNING);
         c->event->start = now_ns();
      }
      dq->current = c;
      c->status = cpu_kernel_run(dq->ctx, c->kernel, &c->grid, c->args, c->local_mem_size, dq);
      dq->current = NULL;
      if (!c->status && c->grid.bounds)
         c->status = report_bounds(dq, c->grid.bounds);
      if (c->event)
         c->event->end = now_ns();
   } else if (c->event) {
      c->event->start = c->event->end = now_ns();
   }
   if (--c->outstanding == 0)
      cmd_complete(dq, c);
}

int cpu_devq_finish(struct cpu_devq *dq)
{
   /* The launch's groups are done: nothing else touches dq now.  Most
    * launches enqueued nothing. */
   if (!dq->head && !dq->slabs && !dq->queues) {
      pthread_mutex_destroy(&dq->lock);
      return CL_SUCCESS;
   }
   for (;;) {
      pthread_mutex_lock(&dq->lock);
      struct devq_cmd *c = take_runnable_locked(dq);
      bool stuck = !c && dq->head;
      if (stuck) {
         /* Every command left waits for an event nothing will complete
          * (a user event never set): they fail, and the launch with them,
          * rather than wait for ever. */
         c = dq->head;
         dq->head = c->next;
         if (!dq->head)
            dq->tail = NULL;
         c->next = NULL;
      }
      pthread_mutex_unlock(&dq->lock);
      if (!c)
         break;
      if (stuck)
         c->status = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
      run_cmd(dq, c);
   }
   kiln_free(dq->queues);
   for (struct devq_slab *slab = dq->slabs, *next; slab; slab = next) {
      next = slab->next;
      kiln_free(slab);
   }
   pthread_mutex_destroy(&dq->lock);
   /* A descendant's bounds violation is in the host launch's table:
    * core's check reports it and fails the launch (src/core/ndrange.c). */
   if (dq->host_bounds && atomic_load(&dq->host_bounds->violations))
      return CL_SUCCESS;
   return dq->error ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : CL_SUCCESS;
}

/* ---- What kernels call ---- */

/* The wait list's events into c->wait (room for n); with c NULL, only
 * checked. */
static int check_wait_list(struct cpu_devq *dq, uint32_t n, void *const *wait,
                           struct devq_cmd *c)
{
   if ((n && !wait) || (!n && wait))
      return CLK_INVALID_EVENT_WAIT_LIST;
   for (uint32_t i = 0; i < n; i++) {
      struct devq_event *e = event_from(dq, wait[i]);
      if (!e)
         return CLK_INVALID_EVENT_WAIT_LIST;
      if (c)
         c->wait[i] = e;
   }
   return CLK_SUCCESS;
}

/* The launch's entry of the on-device queue behind handle, made at its
 * first use; -1 when handle is no on-device queue (-2: out of memory).
 * dq->lock held. */
static int queue_index_locked(struct cpu_devq *dq, void *handle)
{
   for (unsigned i = 0; i < dq->num_queues; i++)
      if (dq->queues[i].handle == handle)
         return (int)i;
   uint32_t size = handle && dq->queue_size ? dq->queue_size(handle) : 0;
   if (!size)
      return -1;
   if (dq->num_queues == dq->queues_cap) {
      unsigned cap = dq->queues_cap ? 2 * dq->queues_cap : 4;
      struct devq_queue *grown = kiln_realloc(dq->queues, cap * sizeof(*grown));
      if (!grown)
         return -2;
      dq->queues = grown;
      dq->queues_cap = cap;
   }
   dq->queues[dq->num_queues] = (struct devq_queue){handle, size, 0};
   return (int)dq->num_queues++;
}

/* Puts c (fully made) on the pending list of queue as a child of the
 * command running now, with a new event in *event_ret where asked for. */
static int32_t submit(struct cpu_devq *dq, void *queue, struct devq_cmd *c, void **event_ret)
{
   pthread_mutex_lock(&dq->lock);
   int qi = queue_index_locked(dq, queue);
   int32_t err = qi == -1 ? CLK_INVALID_QUEUE
                 : qi < 0 ? CLK_OUT_OF_RESOURCES
                 /* Its commands not yet complete take at most its size. */
                 : c->bytes > dq->queues[qi].size - dq->queues[qi].used ? CLK_DEVICE_QUEUE_FULL
                                                                         : CLK_SUCCESS;
   if (err) {
      pthread_mutex_unlock(&dq->lock);
      kiln_free(c);
      return err;
   }
   c->queue = (unsigned)qi;
   if (event_ret) {
      /* One reference for the handle, one for the command. */
      if (!(c->event = event_new_locked(dq, false))) {
         pthread_mutex_unlock(&dq->lock);
         kiln_free(c);
         return CLK_EVENT_ALLOCATION_FAILURE;
      }
      atomic_store(&c->event->refs, 2);
      *event_ret = c->event;
   }
   for (uint32_t i = 0; i < c->num_wait; i++)
      atomic_fetch_add(&c->wait[i]->refs, 1);
   dq->queues[qi].used += c->bytes;
   c->outstanding = 1;
   c->parent = dq->current;
   if (c->parent)
      c->parent->outstanding++;
   if (dq->tail)
      dq->tail->next = c;
   else
      dq->head = c;
   dq->tail = c;
   pthread_mutex_unlock(&dq->lock);
   return CLK_SUCCESS;
}

/* A local size for a dimension the kernel left to the implementation:
 * the whole dimension up to what the kernel's groups may hold. */
static void pick_local_size(struct kiln_ndrange *nd, size_t max_items)
{
   size_t left = max_items ? max_items : 1;
   for (uint32_t d = 0; d < 3; d++) {
      uint64_t g = d < nd->work_dim ? nd->global_size[d] : 1;
      uint64_t l = g < left ? g : left;
      if (!l)
         l = 1;
      nd->local_size[d] = l;
      left /= l;
      if (!left)
         left = 1;
   }
}

/* The ND-range checked against the kernel (CLK_INVALID_NDRANGE), local
 * sizes picked where it gives none. */
static int32_t check_ndrange(struct cpu_devq *dq, const struct cpu_kernel *k,
                             struct kiln_ndrange *nd)
{
   const struct pipe_caps *caps = &dq->ctx->screen->caps;
   if (nd->work_dim < 1 || nd->work_dim > 3)
      return CLK_INVALID_NDRANGE;
   struct pipe_kernel_info ki;
   cpu_kernel_limits(dq->ctx->screen, k, &ki);
   /* A work-group whose frame alone passes a worker's stack (core refuses
    * such host launches with CL_OUT_OF_RESOURCES, docs/design.md "Launch
    * limits"). */
   if (ki.private_group_limit && ki.private_group_fixed > ki.private_group_limit)
      return CLK_OUT_OF_RESOURCES;
   bool given = false;
   for (uint32_t d = 0; d < nd->work_dim; d++) {
      if (!nd->global_size[d])
         return CLK_INVALID_NDRANGE;
      given |= nd->local_size[d] != 0;
   }
   if (!given) {
      pick_local_size(nd, ki.max_work_group_size);
      return CLK_SUCCESS;
   }
   uint64_t items = 1;
   for (uint32_t d = 0; d < 3; d++) {
      if (d >= nd->work_dim) {
         nd->global_size[d] = 1;
         nd->local_size[d] = 1;
         nd->global_offset[d] = 0;
      }
      if (!nd->local_size[d] || nd->local_size[d] > caps->max_work_item_sizes[d])
         return CLK_INVALID_NDRANGE;
      items *= nd->local_size[d];
   }
   return items > ki.max_work_group_size ? CLK_INVALID_NDRANGE : CLK_SUCCESS;
}

static int32_t devq_enqueue(const struct kiln_wg_ctx *ctx, void *queue, int32_t flags,
                            const struct kiln_ndrange *ndrange, uint32_t num_events,
                            void *const *wait, void **event_ret, const char *name,
                            const void *block, uint32_t num_locals, const uint64_t *local_sizes)
{
   struct cpu_devq *dq = devq_of(ctx);
   if (!dq || !dq->program)
      return CLK_ENQUEUE_FAILURE;
   if (!queue)
      return CLK_INVALID_QUEUE;
   if (flags < 0 || flags > CLK_ENQUEUE_FLAGS_LAST)
      return CLK_ENQUEUE_FAILURE;
   int32_t err = check_wait_list(dq, num_events, wait, NULL);
   if (err)
      return err;
   struct cpu_kernel *k = cpu_program_ready_kernel(dq->program, name);
   if (!k)
      return CLK_ENQUEUE_FAILURE;
   struct kiln_ndrange nd = *ndrange;
   if ((err = check_ndrange(dq, k, &nd)))
      return err;
   /* __local arguments: after the kernel's own bytes, within the
    * device's local memory. */
   size_t local = align_up(cpu_kernel_local_size(k), LOCAL_ALIGN);
   for (uint32_t i = 0; i < num_locals; i++) {
      if (!local_sizes[i])
         return CLK_INVALID_ARG_SIZE;
      if (local_sizes[i] > dq->ctx->screen->caps.local_mem_size)
         return CLK_OUT_OF_RESOURCES;
      local += align_up(local_sizes[i], LOCAL_ALIGN);
   }
   if (local > dq->ctx->screen->caps.local_mem_size)
      return CLK_OUT_OF_RESOURCES;
   /* The block literal starts with its size (Clang's layout: size,
    * alignment, invoke function, captures). */
   uint32_t block_size = 0;
   memcpy(&block_size, block, sizeof(block_size));
   size_t args_size = 8 * (1 + (size_t)num_locals);
   size_t head = align_up(sizeof(struct devq_cmd) + num_events * sizeof(struct devq_event *), 16);
   size_t bbytes = bounds_bytes(dq, num_locals);
   size_t bytes = head + align_up(args_size, 16) + align_up(block_size, 16) + bbytes;
   struct devq_cmd *c = kiln_calloc(1, bytes);
   if (!c)
      return CLK_OUT_OF_RESOURCES;
   /* The bounds table is the checks' own: it takes no room of the queue,
    * so that checks do not change which enqueues succeed. */
   c->bytes = bytes - bbytes;
   c->kernel = k;
   c->wait = (struct devq_event **)(c + 1);
   c->num_wait = num_events;
   /* Again, into the command: a kernel may have released one since. */
   if ((err = check_wait_list(dq, num_events, wait, c))) {
      kiln_free(c);
      return err;
   }
   c->args = (unsigned char *)c + head;
   unsigned char *copy = c->args + align_up(args_size, 16);
   memcpy(copy, block, block_size);
   uint64_t v = (uint64_t)(uintptr_t)copy;
   memcpy(c->args, &v, 8);
   uint64_t off = align_up(cpu_kernel_local_size(k), LOCAL_ALIGN);
   uint64_t *offsets = (uint64_t *)(c->args + 8);
   for (uint32_t i = 0; i < num_locals; i++) {
      memcpy(c->args + 8 * (1 + i), &off, 8);
      off += align_up(local_sizes[i], LOCAL_ALIGN);
   }
   c->local_mem_size = local;
   c->grid = (struct pipe_grid_info){
      .kernel = k,
      .work_dim = nd.work_dim,
      .args = c->args,
      .args_size = args_size,
      .default_device_queue = dq->default_queue,
   };
   if (bbytes)
      c->grid.bounds = make_bounds(dq, copy + align_up(block_size, 16), num_locals, offsets,
                                   local_sizes, local);
   for (int d = 0; d < 3; d++) {
      c->grid.global_offset[d] = nd.global_offset[d];
      c->grid.global_size[d] = nd.global_size[d];
      c->grid.local_size[d] = nd.local_size[d];
   }
   return submit(dq, queue, c, event_ret);
}

static int32_t devq_marker(const struct kiln_wg_ctx *ctx, void *queue, uint32_t num_events,
                           void *const *wait, void **event_ret)
{
   struct cpu_devq *dq = devq_of(ctx);
   if (!dq)
      return CLK_ENQUEUE_FAILURE;
   if (!queue)
      return CLK_INVALID_QUEUE;
   /* A marker waits for a list of events: it must have one. */
   if (!num_events || !wait)
      return CLK_INVALID_EVENT_WAIT_LIST;
   int32_t err = check_wait_list(dq, num_events, wait, NULL);
   if (err)
      return err;
   size_t bytes = sizeof(struct devq_cmd) + num_events * sizeof(struct devq_event *);
   struct devq_cmd *c = kiln_calloc(1, bytes);
   if (!c)
      return CLK_OUT_OF_RESOURCES;
   c->bytes = bytes;
   c->wait = (struct devq_event **)(c + 1);
   c->num_wait = num_events;
   /* Again, into the command: a kernel may have released one since. */
   if ((err = check_wait_list(dq, num_events, wait, c))) {
      kiln_free(c);
      return err;
   }
   return submit(dq, queue, c, event_ret);
}

static int32_t devq_kernel_query(const struct kiln_wg_ctx *ctx, int32_t what, const char *name,
                                 const struct kiln_ndrange *ndrange)
{
   struct cpu_devq *dq = devq_of(ctx);
   struct cpu_kernel *k = dq && dq->program ? cpu_program_ready_kernel(dq->program, name) : NULL;
   if (!k)
      return 0;
   struct pipe_kernel_info ki;
   cpu_kernel_limits(dq->ctx->screen, k, &ki);
   switch (what) {
   case KILN_DEVQ_QUERY_WORK_GROUP_SIZE:
      return (int32_t)ki.max_work_group_size;
   case KILN_DEVQ_QUERY_PREFERRED_MULTIPLE:
      return (int32_t)ki.preferred_work_group_size_multiple;
   case KILN_DEVQ_QUERY_MAX_SUB_GROUP_SIZE: {
      /* A work-group is one sub-group (docs/subgroups.md). */
      struct kiln_ndrange nd = *ndrange;
      if (check_ndrange(dq, k, &nd))
         return 0;
      return (int32_t)(nd.local_size[0] * nd.local_size[1] * nd.local_size[2]);
   }
   case KILN_DEVQ_QUERY_SUB_GROUP_COUNT: {
      struct kiln_ndrange nd = *ndrange;
      return check_ndrange(dq, k, &nd) ? 0 : 1;
   }
   default:
      return 0;
   }
}

static void *devq_default_queue(const struct kiln_wg_ctx *ctx)
{
   struct cpu_devq *dq = devq_of(ctx);
   return dq ? dq->default_queue : NULL;
}

static void *devq_user_event(const struct kiln_wg_ctx *ctx)
{
   struct cpu_devq *dq = devq_of(ctx);
   struct devq_event *e = NULL;
   if (dq) {
      pthread_mutex_lock(&dq->lock);
      e = event_new_locked(dq, true);
      pthread_mutex_unlock(&dq->lock);
   }
   /* CLK_NULL_EVENT where there is no room (CLK_EVENT_ALLOCATION_FAILURE
    * for enqueue_kernel). */
   return e ? (void *)e : (void *)UINTPTR_MAX;
}

static void devq_retain(const struct kiln_wg_ctx *ctx, void *handle)
{
   struct devq_event *e = event_from(devq_of(ctx), handle);
   if (e)
      atomic_fetch_add(&e->refs, 1);
}

static void devq_release(const struct kiln_wg_ctx *ctx, void *handle)
{
   struct cpu_devq *dq = devq_of(ctx);
   event_unref(dq, event_from(dq, handle));
}

static void devq_set_status(const struct kiln_wg_ctx *ctx, void *handle, int32_t status)
{
   struct devq_event *e = event_from(devq_of(ctx), handle);
   /* Only user events, only once, only to complete or an error. */
   if (!e || !e->user || (status != CL_COMPLETE && status >= 0))
      return;
   int expected = CL_SUBMITTED;
   if (status == CL_COMPLETE)
      e->start = e->end = now_ns();
   atomic_compare_exchange_strong(&e->status, &expected, status);
}

static int32_t devq_is_valid(const struct kiln_wg_ctx *ctx, void *handle)
{
   return event_from(devq_of(ctx), handle) != NULL;
}

static void devq_capture(const struct kiln_wg_ctx *ctx, void *handle, int32_t name,
                         uint64_t *value)
{
   struct cpu_devq *dq = devq_of(ctx);
   struct devq_event *e = event_from(dq, handle);
   if (!e || e->user || name != CLK_PROFILING_COMMAND_EXEC_TIME || !value)
      return;
   /* Written when the command completes, or now if it has. */
   pthread_mutex_lock(&dq->lock);
   if (atomic_load(&e->status) == CL_COMPLETE)
      write_profile(e, value);
   else
      e->capture = value;
   pthread_mutex_unlock(&dq->lock);
}

const struct kiln_jit_symbol cpu_devq_symbols[] = {
   {KILN_DEVQ_PREFIX "enqueue", (void (*)(void))devq_enqueue},
   {KILN_DEVQ_PREFIX "kernel_query", (void (*)(void))devq_kernel_query},
   {KILN_DEVQ_PREFIX "default_queue", (void (*)(void))devq_default_queue},
   {KILN_DEVQ_PREFIX "marker", (void (*)(void))devq_marker},
   {KILN_DEVQ_PREFIX "user_event", (void (*)(void))devq_user_event},
   {KILN_DEVQ_PREFIX "retain", (void (*)(void))devq_retain},
   {KILN_DEVQ_PREFIX "release", (void (*)(void))devq_release},
   {KILN_DEVQ_PREFIX "set_status", (void (*)(void))devq_set_status},
   {KILN_DEVQ_PREFIX "is_valid", (void (*)(void))devq_is_valid},
   {KILN_DEVQ_PREFIX "capture", (void (*)(void))devq_capture},
};
const unsigned cpu_devq_num_symbols = sizeof(cpu_devq_symbols) / sizeof(cpu_devq_symbols[0]);
