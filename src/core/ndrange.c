#include "core/ndrange.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "core/event.h"
#include "core/kernel.h"
#include "core/mem.h"
#include "kiln/bounds.h"
#include "kiln/image.h"
#include "kiln/kernel_info.h"
#include "util/alloc.h"
#include "util/check.h"
#include "util/log.h"

#define LOCAL_ALIGN 128

struct kiln_launch {
   cl_kernel kernel; /* held so the program's code stays loaded */
   struct pipe_grid_info grid;
   unsigned char *args;
   cl_mem *mems; /* buffers and images the arguments point into, held */
   unsigned num_mems;
   struct kiln_image_desc *images; /* what image arguments point to */
   struct kiln_bounds *bounds; /* KILN_CHECK=bounds */
   struct kiln_bounds_arg *bounds_args;
};

static void launch_free(struct kiln_launch *n)
{
   if (!n)
      return;
   for (unsigned i = 0; i < n->num_mems; i++)
      kiln_object_unref(&n->mems[i]->obj);
   kiln_free(n->mems);
   kiln_free(n->images);
   kiln_free(n->args);
   kiln_free(n->bounds);
   kiln_free(n->bounds_args);
   kiln_object_unref(&n->kernel->obj);
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

cl_int kiln_launch_run(struct kiln_launch *n, struct pipe_context *p)
{
   /* A command buffer replays one launch many times: count afresh. */
   if (n->bounds)
      atomic_store(&n->bounds->violations, 0);
   cl_int err = p->launch_grid(p, &n->grid);
   if (!err && n->bounds && atomic_load(&n->bounds->violations)) {
      report_bounds(n);
      err = BOUNDS_STATUS;
   }
   return err;
}

void kiln_launch_destroy(struct kiln_launch *l)
{
   launch_free(l);
}

static cl_int ndrange_run(cl_event ev)
{
   return kiln_launch_run(ev->payload, ev->queue->device->pipe);
}

/* KILN_CHECK=bounds: where each argument's object lies and how big it is
 * (include/kiln/bounds.h); filled from the packed arguments. */
static cl_int make_bounds(struct kiln_launch *n, const struct kiln_kernel_info *info, cl_kernel k,
                          uint64_t local_total)
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
         memcpy(&b->base, n->args + ai->offset, sizeof(b->base));
         b->size = k->args[i].mem ? k->args[i].mem->size : 0;
         b->space = ai->kind == KILN_ARG_GLOBAL ? 1 : 2;
         break;
      case KILN_ARG_LOCAL:
         memcpy(&b->base, n->args + ai->offset, sizeof(b->base));
         b->size = k->args[i].local_size;
         b->space = 3;
         break;
      default:
         break;
      }
   }
   n->bounds->args = n->bounds_args;
   n->bounds->num_args = info->num_args;
   n->bounds->local_total = local_total;
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
                                                    ndrange_describe};

/* Fills the argument buffer from the kernel's current argument values. */
static cl_int pack_args(struct kiln_launch *n, cl_device_id dev, cl_kernel k)
{
   const struct kiln_kernel_info *info = k->info;
   n->args = kiln_calloc(1, info->args_size ? info->args_size : 1);
   n->mems = kiln_calloc(info->num_args ? info->num_args : 1, sizeof(cl_mem));
   n->images = kiln_calloc(info->num_args ? info->num_args : 1, sizeof(*n->images));
   if (!n->args || !n->mems || !n->images)
      return CL_OUT_OF_HOST_MEMORY;
   uint64_t local = (info->local_mem_size + LOCAL_ALIGN - 1) / LOCAL_ALIGN * LOCAL_ALIGN;
   for (uint32_t i = 0; i < info->num_args; i++) {
      const struct kiln_arg_info *ai = &info->args[i];
      const struct kiln_kernel_arg *a = &k->args[i];
      unsigned char *slot = n->args + ai->offset;
      switch (ai->kind) {
      case KILN_ARG_GLOBAL:
      case KILN_ARG_CONSTANT: {
         uint64_t addr = 0;
         if (a->mem) {
            size_t off;
            struct pipe_resource *res = kiln_mem_resource(a->mem, &off);
            addr = dev->screen->resource_address(dev->screen, res) + off;
            kiln_object_ref(&a->mem->obj);
            n->mems[n->num_mems++] = a->mem;
         }
         memcpy(slot, &addr, sizeof(addr));
         break;
      }
      case KILN_ARG_IMAGE2D:
      case KILN_ARG_IMAGE3D:
      case KILN_ARG_IMAGE1D:
      case KILN_ARG_IMAGE1D_BUFFER:
      case KILN_ARG_IMAGE1D_ARRAY:
      case KILN_ARG_IMAGE2D_ARRAY: {
         /* The kernel sees a descriptor (include/kiln/image.h) that lives
          * in this launch's payload. */
         struct kiln_image_desc *d = &n->images[i];
         size_t off;
         struct pipe_resource *res = kiln_mem_resource(a->mem, &off);
         d->data = dev->screen->resource_address(dev->screen, res) + off;
         d->row_pitch = a->mem->image.row_pitch;
         d->slice_pitch = a->mem->image.slice_pitch;
         d->width = (int32_t)a->mem->image.width;
         d->height = (int32_t)a->mem->image.height;
         d->depth = (int32_t)a->mem->image.depth;
         d->channel_order = (int32_t)a->mem->image.format.image_channel_order;
         d->channel_type = (int32_t)a->mem->image.format.image_channel_data_type;
         d->elem_size = (int32_t)a->mem->image.elem_size;
         uint64_t addr = (uint64_t)(uintptr_t)d;
         memcpy(slot, &addr, sizeof(addr));
         kiln_object_ref(&a->mem->obj);
         n->mems[n->num_mems++] = a->mem;
         break;
      }
      case KILN_ARG_LOCAL:
         /* Each size is checked before it is added: huge sizes must not
          * wrap the total around to something small. */
         if (a->local_size > dev->caps->local_mem_size)
            return CL_OUT_OF_RESOURCES;
         /* 8-byte slots on the CPU, 32-bit LDS offsets on amdgcn
          * (little-endian both). */
         memcpy(slot, &local, ai->size < sizeof(local) ? ai->size : sizeof(local));
         local += (a->local_size + LOCAL_ALIGN - 1) / LOCAL_ALIGN * LOCAL_ALIGN;
         break;
      default:
         memcpy(slot, a->value, ai->size);
         break;
      }
   }
   if (local > dev->caps->local_mem_size)
      return CL_OUT_OF_RESOURCES;
   n->grid.local_mem_size = local;
   n->grid.args = n->args;
   n->grid.info = info;
   n->grid.args_size = info->args_size;
   /* Checked code exists only in processes with KILN_CHECK=bounds (it is
    * part of the target id, so no binary brings it in otherwise). */
   if (kiln_check_bounds())
      return make_bounds(n, info, k, local);
   return CL_SUCCESS;
}

cl_int kiln_launch_create(cl_device_id dev, cl_kernel k, cl_uint work_dim,
                          const size_t offset[3], const size_t global[3], const size_t local[3],
                          struct kiln_launch **out)
{
   struct kiln_launch *n = kiln_calloc(1, sizeof(*n));
   if (!n)
      return CL_OUT_OF_HOST_MEMORY;
   n->kernel = k;
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

cl_int kiln_enqueue_ndrange(cl_command_queue q, cl_command_type type, cl_kernel k,
                            cl_uint work_dim,
                            const size_t offset[3], const size_t global[3],
                            const size_t local[3], struct kiln_wait_list wait, cl_event *out)
{
   struct kiln_launch *n;
   cl_int err = kiln_launch_create(q->device, k, work_dim, offset, global, local, &n);
   if (err)
      return err;
   return kiln_enqueue_command(q, type, &ndrange_ops, n, KILN_ORDER_COMMAND, wait, out);
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
   /* The function sees host pointers to the memory objects' storage. */
   for (unsigned i = 0; i < n->num_mems; i++) {
      void *p = kiln_mem_data(n->mems[i]);
      memcpy(n->args + n->offsets[i], &p, sizeof(p));
   }
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
