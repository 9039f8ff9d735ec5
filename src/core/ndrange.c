#include "core/ndrange.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "core/event.h"
#include "core/kernel.h"
#include "core/mem.h"
#include "core/mem_sync.h"
#include "core/pipe_sync.h"
#include "core/program.h"
#include "core/queue.h"
#include "core/svm.h"
#include "kiln/bounds.h"
#include "kiln/kernel_info.h"
#include "util/alloc.h"
#include "util/check.h"
#include "util/log.h"

#define LOCAL_ALIGN 128

struct kiln_launch {
   cl_kernel kernel; /* held so the program's code stays loaded */
   cl_device_id device;
   struct pipe_grid_info grid;
   unsigned char *args; /* by-value slots; the driver writes the others */
   /* Every argument that is not by value, as a binding whose resource is
    * found when the launch runs (mems[i] for bindings[i], held; NULL for
    * __local, samplers and NULL buffers), and how the kernel may use it. */
   struct pipe_binding *bindings;
   cl_mem *mems;
   unsigned char *access;
   uint32_t num_bindings;
   struct pipe_image_view *images; /* what image bindings point to */
   struct kiln_bounds *bounds; /* KILN_CHECK=bounds */
   struct kiln_bounds_arg *bounds_args;
   /* In its event's block (kiln_enqueue_ndrange), which the event frees;
    * else a block of its own. */
   bool embedded;
};

static void launch_free(struct kiln_launch *n)
{
   if (!n)
      return;
   for (unsigned i = 0; i < n->num_bindings; i++)
      if (n->mems[i])
         kiln_object_unref(&n->mems[i]->obj);
   /* args, bindings, mems, access and images live in n's block. */
   kiln_free(n->bounds);
   kiln_free(n->bounds_args);
   kiln_object_unref(&n->kernel->obj);
   if (!n->embedded)
      kiln_free(n);
}

static void ndrange_cleanup(cl_event ev)
{
   launch_free(ev->payload);
   ev->payload = NULL;
}

/* The status of a launch stopped by an out-of-bounds access: what vendor
 * drivers give a kernel that faulted (NVIDIA, AMD), so applications treat
 * it like the failure it is elsewhere. */
#define BOUNDS_STATUS CL_OUT_OF_RESOURCES

static const char *space_name(unsigned space)
{
   return space == 1 ? "__global" : space == 2 ? "__constant" : space == 3 ? "__local" : "?";
}

/* One line on the log (stderr unless KILN_LOG), e.g.
 *   kiln: bounds: kernel 'copy' wrote 4 bytes at byte offset 4096 of argument 1 'out'
 *   (__global, 4096 bytes) in work-item (1024,0,0) of work-group (16,0,0); ... */
static void report_bounds(const struct kiln_launch *n)
{
   const struct kiln_kernel_info *info = n->kernel->info;
   const struct kiln_bounds_violation *v = &n->bounds->first;
   unsigned space = (v->flags >> KILN_BOUNDS_AS_SHIFT) & 0xffu;
   const char *verb = v->flags & KILN_BOUNDS_ATOMIC ? "accessed atomically"
                      : v->flags & KILN_BOUNDS_WRITE ? "wrote"
                                                     : "read";
   char what[1024];
   if (v->what >= 0 && (uint32_t)v->what < info->num_args) {
      const struct kiln_arg_info *a = &info->args[v->what];
      char name[256] = "";
      if (a->name && *a->name)
         snprintf(name, sizeof(name), " '%s'", a->name);
      snprintf(what, sizeof(what), "byte offset %lld of argument %d%s (%s, %llu bytes%s)",
               (long long)v->offset, v->what, name, space_name(space),
               (unsigned long long)v->limit,
               v->flags & KILN_BOUNDS_SEARCHED
                  ? "; the nearest object to an address of unknown origin"
                  : "");
   } else if (v->what == KILN_BOUNDS_VARIABLE) {
      /* Clang names a kernel's static __local variables <kernel>.<name>. */
      const char *name = v->name ? v->name : "?";
      size_t klen = strlen(info->name);
      if (!strncmp(name, info->name, klen) && name[klen] == '.')
         name += klen + 1;
      snprintf(what, sizeof(what), "byte offset %lld of %s variable '%s' (%llu bytes)",
               (long long)v->offset, space_name(space), name, (unsigned long long)v->limit);
   } else {
      snprintf(what, sizeof(what), "address 0x%llx, which is in no %s object of the launch",
               (unsigned long long)v->offset, space_name(space));
   }
   unsigned others = atomic_load(&n->bounds->violations) - 1;
   char more[64] = "";
   if (others)
      snprintf(more, sizeof(more), " (and %u more at the same time)", others);
   kiln_log(KILN_LOG_BOUNDS,
            "kernel '%s' %s %llu bytes at %s in work-item (%llu,%llu,%llu) of work-group "
            "(%llu,%llu,%llu)%s; the launch stopped there and its event fails with "
            "CL_OUT_OF_RESOURCES",
            info->name, verb, (unsigned long long)v->size, what,
            (unsigned long long)v->global_id[0], (unsigned long long)v->global_id[1],
            (unsigned long long)v->global_id[2], (unsigned long long)v->group_id[0],
            (unsigned long long)v->group_id[1], (unsigned long long)v->group_id[2], more);
}

/* Bindings on the stack up to this many; more are rare. */
#define INLINE_BINDINGS 16

cl_int kiln_launch_run(struct kiln_launch *n, cl_device_id dev, struct pipe_context *p)
{
   /* A command buffer replays one launch many times, maybe on several
    * queues at once: resolve the resources into a copy of the bindings. */
   struct pipe_binding inline_b[INLINE_BINDINGS], *b = inline_b;
   if (n->num_bindings > INLINE_BINDINGS &&
       !(b = kiln_malloc(n->num_bindings * sizeof(*b))))
      return CL_OUT_OF_HOST_MEMORY;
   cl_int err = CL_SUCCESS;
   for (uint32_t i = 0; i < n->num_bindings && !err; i++) {
      b[i] = n->bindings[i];
      if (n->mems[i])
         err = kiln_mem_acquire(n->mems[i], dev, p, n->access[i], &b[i].res, &b[i].offset);
   }
   if (!err) {
      struct pipe_grid_info grid = n->grid;
      grid.bindings = b;
      if (dev->caps->max_on_device_queues) {
         grid.default_device_queue =
            kiln_queue_default_on_device(n->kernel->program->context, dev);
         grid.device_queue_size = kiln_queue_on_device_size;
      }
      if (n->bounds)
         atomic_store(&n->bounds->violations, 0);
      err = p->launch_grid(p, &grid);
   }
   if (b != inline_b)
      kiln_free(b);
   return err;
}

/* Once the launch finished: an out-of-bounds access fails it. */
cl_int kiln_launch_check(struct kiln_launch *n)
{
   if (n->bounds && atomic_load(&n->bounds->violations)) {
      report_bounds(n);
      return BOUNDS_STATUS;
   }
   return CL_SUCCESS;
}

void kiln_launch_destroy(struct kiln_launch *l)
{
   launch_free(l);
}

static cl_int ndrange_run(cl_event ev)
{
   return kiln_launch_run(ev->payload, ev->queue->device, ev->queue->pipe);
}

static cl_int ndrange_done(cl_event ev)
{
   return kiln_launch_check(ev->payload);
}

/* KILN_CHECK=bounds for an SVM pointer: the object runs from the pointer
 * to the end of its clSVMAlloc allocation; any other host address (fine-
 * grain system SVM) is not checked: its object is all memory above it. */
static void svm_bounds(cl_context ctx, const void *ptr, struct kiln_bounds_arg *b)
{
   struct kiln_svm_block blk;
   b->base = (uint64_t)(uintptr_t)ptr;
   if (ptr && kiln_svm_find(ctx, ptr, 0, &blk))
      b->size = (uint64_t)(blk.size - (size_t)((const char *)ptr - blk.ptr));
   else
      b->size = ptr ? UINT64_MAX - b->base : 0;
}

/* KILN_CHECK=bounds: how big each argument's object is and where
 * (include/kiln/bounds.h); the driver writes where each lies (base) and
 * the work-group's __local total as it binds them. */
static cl_int make_bounds(struct kiln_launch *n, const struct kiln_kernel_info *info, cl_kernel k)
{
   n->bounds = kiln_calloc(1, sizeof(*n->bounds));
   n->bounds_args = kiln_calloc(info->num_args ? info->num_args : 1, sizeof(*n->bounds_args));
   if (!n->bounds || !n->bounds_args)
      return CL_OUT_OF_HOST_MEMORY;
   for (uint32_t i = 0; i < info->num_args; i++) {
      const struct kiln_arg_info *ai = &info->args[i];
      struct kiln_bounds_arg *b = &n->bounds_args[i];
      switch (ai->kind) {
      case KILN_ARG_GLOBAL:
      case KILN_ARG_CONSTANT:
         b->size = k->args[i].mem ? k->args[i].mem->size : 0;
         b->space = ai->kind == KILN_ARG_GLOBAL ? 1 : 2;
         if (k->args[i].is_svm)
            svm_bounds(k->program->context, k->args[i].svm, b);
         break;
      case KILN_ARG_LOCAL:
         b->size = k->args[i].local_size;
         b->space = 3;
         break;
      default:
         break;
      }
   }
   n->bounds->args = n->bounds_args;
   n->bounds->num_args = info->num_args;
   if (kiln_kernel_uses_svm(k))
      n->bounds->flags = KILN_BOUNDS_SVM;
   atomic_init(&n->bounds->violations, 0);
   n->grid.bounds = n->bounds;
   return CL_SUCCESS;
}

/* KILN_TRACE: the kernel and its sizes. */
static void ndrange_describe(cl_event ev, struct kiln_trace_info *info)
{
   const struct kiln_launch *n = ev->payload;
   info->kernel = n->kernel->info->name;
   info->work_dim = n->grid.work_dim;
   for (unsigned d = 0; d < 3; d++) {
      info->global[d] = n->grid.global_size[d];
      info->local[d] = n->grid.local_size[d]; /* as launched, Kiln's choice when NULL */
   }
}

static const struct kiln_command_ops ndrange_ops = {ndrange_run, ndrange_cleanup,
                                                    ndrange_describe, ndrange_done, true};

/* How a kernel may use a memory object it is given: read-only objects
 * and __constant arguments do not make other devices' copies stale. */
static unsigned arg_access(const struct kiln_arg_info *ai, cl_mem mem)
{
   if (ai->kind == KILN_ARG_CONSTANT || (mem->flags & CL_MEM_READ_ONLY))
      return KILN_ACCESS_READ;
   return KILN_ACCESS_READ | KILN_ACCESS_WRITE;
}

/* Fills the by-value slots of the argument buffer from the kernel's
 * current argument values, and a binding for every other argument. */
static cl_int pack_args(struct kiln_launch *n, cl_device_id dev, cl_kernel k)
{
   const struct kiln_kernel_info *info = k->info;
   /* The check the driver's placement will pass: each __local argument
    * rounded up to LOCAL_ALIGN after the kernel's own variables, each size
    * checked before it is added so huge ones cannot wrap the sum. */
   uint64_t local = (info->local_mem_size + LOCAL_ALIGN - 1) / LOCAL_ALIGN * LOCAL_ALIGN;
   for (uint32_t i = 0; i < info->num_args; i++) {
      const struct kiln_arg_info *ai = &info->args[i];
      const struct kiln_kernel_arg *a = &k->args[i];
      struct pipe_binding *b = &n->bindings[n->num_bindings];
      b->arg = i;
      switch (ai->kind) {
      case KILN_ARG_GLOBAL:
      case KILN_ARG_CONSTANT:
         if (a->is_svm) {
            /* Only devices that run kernels in the host's address space
             * take SVM (api/enqueue.c checks): the pointer is the value. */
            uint64_t v = (uint64_t)(uintptr_t)a->svm;
            memcpy(n->args + ai->offset, &v, ai->size < sizeof(v) ? ai->size : sizeof(v));
            break;
         }
         b->kind = PIPE_BIND_GLOBAL;
         if (a->mem) {
            kiln_object_ref(&a->mem->obj);
            n->mems[n->num_bindings] = a->mem;
            n->access[n->num_bindings] = arg_access(ai, a->mem);
         }
         n->num_bindings++;
         break;
      case KILN_ARG_IMAGE2D:
      case KILN_ARG_IMAGE3D:
      case KILN_ARG_IMAGE1D:
      case KILN_ARG_IMAGE1D_BUFFER:
      case KILN_ARG_IMAGE1D_ARRAY:
      case KILN_ARG_IMAGE2D_ARRAY: {
         cl_mem m = a->mem;
         struct pipe_image_view *v = &n->images[i];
         v->type = m->type;
         v->format = m->image.format;
         v->elem_size = (uint32_t)m->image.elem_size;
         v->width = m->image.width;
         v->height = m->image.height;
         v->depth = m->image.depth;
         v->array_size = m->image.array_size;
         v->row_pitch = m->image.row_pitch;
         v->slice_pitch = m->image.slice_pitch;
         b->kind = PIPE_BIND_IMAGE;
         b->image = v;
         kiln_object_ref(&m->obj);
         n->mems[n->num_bindings] = m;
         n->access[n->num_bindings] = ai->access_qualifier == CL_KERNEL_ARG_ACCESS_READ_ONLY
                                         ? KILN_ACCESS_READ
                                         : KILN_ACCESS_READ | KILN_ACCESS_WRITE;
         n->num_bindings++;
         break;
      }
      case KILN_ARG_SAMPLER: {
         uint64_t bits;
         memcpy(&bits, a->value, sizeof(bits));
         b->kind = PIPE_BIND_SAMPLER;
         b->sampler_bits = (uint32_t)bits;
         n->num_bindings++;
         break;
      }
      case KILN_ARG_LOCAL:
         if (a->local_size > dev->caps->local_mem_size)
            return CL_OUT_OF_RESOURCES;
         local += (a->local_size + LOCAL_ALIGN - 1) / LOCAL_ALIGN * LOCAL_ALIGN;
         b->kind = PIPE_BIND_LOCAL;
         b->local_size = a->local_size;
         n->num_bindings++;
         break;
      default:
         memcpy(n->args + ai->offset, a->value, ai->size);
         break;
      }
   }
   if (local > dev->caps->local_mem_size)
      return CL_OUT_OF_RESOURCES;
   n->grid.args = n->args;
   n->grid.info = info;
   n->grid.args_size = info->args_size;
   n->grid.num_bindings = n->num_bindings;
   /* Checked code exists only in processes with KILN_CHECK=bounds (it is
    * part of the target id, so no binary brings it in otherwise). */
   if (kiln_check_bounds())
      return make_bounds(n, info, k);
   return CL_SUCCESS;
}

/* Rounds n up to a multiple of a's alignment. */
#define ALIGN_TO(n, a) (((n) + _Alignof(a) - 1) / _Alignof(a) * _Alignof(a))

/* Where the parts of a launch of k lie in its block (one allocation per
 * launch, or none beyond its event's: a launch is on the path whose every
 * microsecond counts, docs/performance.md): the launch, then its
 * bindings, images, memory objects, access bits and argument bytes. */
struct launch_layout {
   size_t at_bindings, at_images, at_mems, at_access, at_args, total;
};

static struct launch_layout launch_layout(const struct kiln_kernel_info *info)
{
   struct launch_layout o;
   size_t na = info->num_args ? info->num_args : 1;
   o.at_bindings = ALIGN_TO(sizeof(struct kiln_launch), struct pipe_binding);
   o.at_images = ALIGN_TO(o.at_bindings + na * sizeof(struct pipe_binding),
                          struct pipe_image_view);
   o.at_mems = ALIGN_TO(o.at_images + na * sizeof(struct pipe_image_view), cl_mem);
   o.at_access = o.at_mems + na * sizeof(cl_mem);
   /* The argument buffer holds any OpenCL type: align it like max_align_t. */
   o.at_args = ALIGN_TO(o.at_access + na, max_align_t);
   o.total = o.at_args + (info->args_size ? info->args_size : 1);
   return o;
}

/* Builds a launch in block (zeroed, launch_layout(k->info).total bytes,
 * aligned like max_align_t); on failure it holds nothing. */
static cl_int launch_init(char *block, bool embedded, cl_device_id dev, cl_kernel k,
                          cl_uint work_dim, const size_t offset[3], const size_t global[3],
                          const size_t local[3], struct kiln_launch **out)
{
   struct launch_layout o = launch_layout(k->info);
   size_t at_bindings = o.at_bindings, at_images = o.at_images, at_mems = o.at_mems,
          at_access = o.at_access, at_args = o.at_args;
   struct kiln_launch *n = (struct kiln_launch *)block;
   n->embedded = embedded;
   n->bindings = (struct pipe_binding *)(block + at_bindings);
   n->images = (struct pipe_image_view *)(block + at_images);
   n->mems = (cl_mem *)(block + at_mems);
   n->access = (unsigned char *)(block + at_access);
   n->args = (unsigned char *)(block + at_args);
   n->kernel = k;
   n->device = dev;
   kiln_object_ref(&k->obj);
   n->grid.kernel = kiln_kernel_on_device(k, dev);
   n->grid.work_dim = work_dim;
   for (int d = 0; d < 3; d++) {
      n->grid.global_offset[d] = offset[d];
      n->grid.global_size[d] = global[d];
      n->grid.local_size[d] = local[d];
   }
   cl_int err = pack_args(n, dev, k);
   if (err) {
      launch_free(n);
      return err;
   }
   *out = n;
   return CL_SUCCESS;
}

cl_int kiln_launch_create(cl_device_id dev, cl_kernel k, cl_uint work_dim,
                          const size_t offset[3], const size_t global[3], const size_t local[3],
                          struct kiln_launch **out)
{
   char *block = kiln_calloc(1, launch_layout(k->info).total);
   if (!block)
      return CL_OUT_OF_HOST_MEMORY;
   return launch_init(block, false, dev, k, work_dim, offset, global, local, out);
}

cl_int kiln_enqueue_ndrange(cl_command_queue q, cl_command_type type, cl_kernel k,
                            cl_uint work_dim,
                            const size_t offset[3], const size_t global[3],
                            const size_t local[3], struct kiln_wait_list wait, bool observed,
                            cl_event *out)
{
   /* kiln_enqueue_command, with the launch in the event's own block (one
    * allocation from the object pool, no malloc or free per launch). */
   cl_event ev;
   void *block;
   cl_int err = kiln_event_create_command_with(q, type, &ndrange_ops, observed,
                                               launch_layout(k->info).total, &block, &ev);
   if (err)
      return err;
   struct kiln_launch *n;
   err = launch_init(block, true, q->device, k, work_dim, offset, global, local, &n);
   if (err) {
      kiln_event_abandon(ev);
      return err;
   }
   ev->payload = n;
   err = kiln_queue_add_command(q, ev, KILN_ORDER_COMMAND, wait);
   if (err) {
      kiln_event_abandon(ev);
      return err;
   }
   kiln_event_submit(ev);
   *out = ev;
   return CL_SUCCESS;
}

static size_t largest_divisor_at_most(size_t n, size_t limit)
{
   if (limit >= n)
      return n;
   for (size_t d = limit; d > 1; d--)
      if (n % d == 0)
         return d;
   return 1;
}

void kiln_ndrange_choose_local(cl_device_id dev, cl_kernel k, cl_uint work_dim,
                               const size_t global[3], size_t local[3])
{
   const struct pipe_caps *c = dev->caps;
   size_t budget = kiln_kernel_max_work_group_size(k, dev);
   /* Enough groups to keep every core busy with some slack for balance. */
   size_t total = 1;
   for (cl_uint d = 0; d < work_dim; d++)
      total *= global[d];
   size_t want_groups = (size_t)c->max_compute_units * 8;
   size_t target = total / want_groups;
   if (c->type & CL_DEVICE_TYPE_GPU) {
      /* GPUs hide latency with many work-items per compute unit; a
       * group of a few hundred in multiples of the warp is what their
       * own drivers pick. */
      struct pipe_kernel_info ki;
      kiln_kernel_device_info(k, dev, &ki);
      size_t m = ki.preferred_work_group_size_multiple;
      target = 256 / m * m;
   }
   if (target < 1)
      target = 1;
   if (target > budget)
      target = budget;
   for (int d = 0; d < 3; d++)
      local[d] = 1;
   for (cl_uint d = 0; d < work_dim && target > 1; d++) {
      size_t limit = target < c->max_work_item_sizes[d] ? target : c->max_work_item_sizes[d];
      local[d] = largest_divisor_at_most(global[d], limit);
      target /= local[d];
   }
   /* A device with few work-groups per dimension (CUDA: 65535 in y and
    * z) gets groups large enough to cover the grid where a divisor allows;
    * where none does, the enqueue's grid check refuses the launch. */
   for (cl_uint d = 0; d < work_dim; d++) {
      uint64_t most = c->max_grid_groups[d];
      if (!most || global[d] / local[d] <= most)
         continue;
      size_t others = 1;
      for (cl_uint e = 0; e < work_dim; e++)
         if (e != d)
            others *= local[e];
      size_t limit = budget / others < c->max_work_item_sizes[d] ? budget / others
                                                                  : c->max_work_item_sizes[d];
      for (size_t l = (size_t)((global[d] + most - 1) / most); l && l <= limit; l++)
         if (global[d] % l == 0) {
            local[d] = l;
            break;
         }
   }
}

/* ---- native kernels ---- */

struct native {
   kiln_native_fn fn;
   unsigned char *args;
   unsigned num_mems;
   cl_mem *mems;
   size_t *offsets; /* where in args each memory object's pointer goes */
};

static void native_cleanup(cl_event ev)
{
   struct native *n = ev->payload;
   if (!n)
      return;
   for (unsigned i = 0; i < n->num_mems; i++)
      if (n->mems[i])
         kiln_object_unref(&n->mems[i]->obj);
   kiln_free(n->mems);
   kiln_free(n->offsets);
   kiln_free(n->args);
   kiln_free(n);
   ev->payload = NULL;
}

static cl_int native_run(cl_event ev)
{
   struct native *n = ev->payload;
   struct pipe_context *p = ev->queue->pipe;
   /* The function sees host pointers to the memory objects' storage on
    * this device (only devices whose memory the host sees run native
    * kernels: CL_EXEC_NATIVE_KERNEL), once its earlier work is done. */
   for (unsigned i = 0; i < n->num_mems; i++) {
      struct pipe_resource *res;
      size_t off;
      cl_int err = kiln_mem_acquire(n->mems[i], ev->queue->device, p,
                                    KILN_ACCESS_READ | KILN_ACCESS_WRITE, &res, &off);
      char *hp = err ? NULL : kiln_resource_host_pointer(res);
      if (!hp)
         return err ? err : CL_INVALID_OPERATION;
      void *ptr = hp + off;
      memcpy(n->args + n->offsets[i], &ptr, sizeof(ptr));
   }
   cl_int err = kiln_pipe_finish(p);
   if (err)
      return err;
   n->fn(n->args);
   return CL_SUCCESS;
}

static const struct kiln_command_ops native_ops = {native_run, native_cleanup};

cl_int kiln_enqueue_native(cl_command_queue q, kiln_native_fn fn, const void *args,
                           size_t cb_args, cl_uint num_mems, const cl_mem *mems,
                           const void **mem_locs, struct kiln_wait_list wait, cl_event *out)
{
   struct native *n = kiln_calloc(1, sizeof(*n));
   if (!n)
      return CL_OUT_OF_HOST_MEMORY;
   n->fn = fn;
   n->args = kiln_malloc(cb_args ? cb_args : 1);
   n->mems = kiln_calloc(num_mems ? num_mems : 1, sizeof(cl_mem));
   n->offsets = kiln_calloc(num_mems ? num_mems : 1, sizeof(size_t));
   if (!n->args || !n->mems || !n->offsets) {
      struct _cl_event tmp = {.payload = n};
      native_cleanup(&tmp);
      return CL_OUT_OF_HOST_MEMORY;
   }
   if (cb_args)
      memcpy(n->args, args, cb_args);
   for (cl_uint i = 0; i < num_mems; i++) {
      n->mems[i] = mems[i];
      kiln_object_ref(&mems[i]->obj);
      n->num_mems++;
      n->offsets[i] = (size_t)((const unsigned char *)mem_locs[i] - (const unsigned char *)args);
   }
   return kiln_enqueue_command(q, CL_COMMAND_NATIVE_KERNEL, &native_ops, n, KILN_ORDER_COMMAND,
                               wait, out);
}
