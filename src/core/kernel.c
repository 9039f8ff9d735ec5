#include "core/kernel.h"

#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "core/mem.h"
#include "core/program.h"
#include "core/sampler.h"
#include "kiln/kernel_info.h"
#include "util/log.h"
#include "util/alloc.h"

static void kernel_destroy(struct kiln_object *obj)
{
   cl_kernel k = (cl_kernel)obj;
   for (uint32_t i = 0; k->args && i < k->info->num_args; i++)
      kiln_free(k->args[i].value);
   kiln_free(k->args);
   kiln_free(k->device_kernels);
   kiln_free(k->dev_info);
   pthread_mutex_lock(&k->program->lock);
   k->program->num_kernel_objects--;
   pthread_mutex_unlock(&k->program->lock);
   kiln_object_unref(&k->program->obj);
   kiln_object_free(k);
}

cl_int kiln_kernel_create(cl_program prog, const struct kiln_kernel_info *info, cl_kernel *out)
{
   cl_kernel k = kiln_object_alloc(sizeof(*k));
   if (!k)
      return CL_OUT_OF_HOST_MEMORY;
   k->info = info;
   k->args = kiln_calloc(info->num_args ? info->num_args : 1, sizeof(*k->args));
   k->device_kernels = kiln_calloc(prog->num_devices, sizeof(void *));
   k->dev_info = kiln_calloc(prog->num_devices, sizeof(*k->dev_info));
   if (!k->args || !k->device_kernels || !k->dev_info) {
      kiln_free(k->args);
      kiln_free(k->device_kernels);
      kiln_free(k->dev_info);
      kiln_object_free(k);
      return CL_OUT_OF_HOST_MEMORY;
   }
   for (cl_uint i = 0; i < prog->num_devices; i++) {
      struct kiln_program_build *b = &prog->builds[i];
      if (b->status != CL_BUILD_SUCCESS || !b->loaded)
         continue;
      cl_device_id dev = prog->devices[i];
      char *error = NULL;
      k->device_kernels[i] = dev->screen->get_kernel(dev->screen, b->loaded, info->name, &error);
      if (!k->device_kernels[i] && !error) {
         kiln_free(k->args);
         kiln_free(k->device_kernels);
         kiln_free(k->dev_info);
         kiln_object_free(k);
         return CL_OUT_OF_HOST_MEMORY;
      }
      /* Binaries may give each device other kernels: this one is then
       * not runnable there (CL_INVALID_PROGRAM_EXECUTABLE at enqueue). */
      if (!k->device_kernels[i])
         kiln_log(KILN_LOG_COMPILE, "kernel %s missing from device code: %s", info->name,
                  error);
      kiln_free(error);
   }
   k->program = prog;
   kiln_object_ref(&prog->obj);
   pthread_mutex_lock(&prog->lock);
   prog->num_kernel_objects++;
   pthread_mutex_unlock(&prog->lock);
   if (!kiln_object_init(&k->obj, KILN_TYPE_KERNEL, kernel_destroy)) {
      kernel_destroy(&k->obj);
      return CL_OUT_OF_HOST_MEMORY;
   }
   *out = k;
   return CL_SUCCESS;
}

cl_int kiln_kernel_clone(cl_kernel src, cl_kernel *out)
{
   cl_kernel k = NULL;
   cl_int err = kiln_kernel_create(src->program, src->info, &k);
   if (err)
      return err;
   for (uint32_t i = 0; i < src->info->num_args; i++) {
      const struct kiln_kernel_arg *a = &src->args[i];
      struct kiln_kernel_arg *b = &k->args[i];
      *b = *a;
      b->value = NULL;
      if (a->value) {
         b->value = kiln_malloc(a->value_size ? a->value_size : 1);
         if (!b->value) {
            b->value_size = 0;
            kiln_object_release(&k->obj);
            return CL_OUT_OF_HOST_MEMORY;
         }
         memcpy(b->value, a->value, a->value_size);
      }
   }
   *out = k;
   return CL_SUCCESS;
}

cl_int kiln_kernel_set_arg(cl_kernel k, cl_uint index, size_t size, const void *value)
{
   const struct kiln_arg_info *ai = &k->info->args[index];
   struct kiln_kernel_arg *a = &k->args[index];
   atomic_store_explicit(&k->args_live_gen, 0, memory_order_relaxed);
   switch (ai->kind) {
   case KILN_ARG_GLOBAL:
   case KILN_ARG_CONSTANT:
   case KILN_ARG_IMAGE2D:
   case KILN_ARG_IMAGE3D:
   case KILN_ARG_IMAGE1D:
   case KILN_ARG_IMAGE1D_BUFFER:
   case KILN_ARG_IMAGE1D_ARRAY:
   case KILN_ARG_IMAGE2D_ARRAY: {
      cl_mem mem = value ? *(const cl_mem *)value : NULL;
      a->is_svm = false;
      a->svm = NULL;
      a->mem = mem;
      a->mem_serial = mem ? mem->serial : 0;
      break;
   }
   case KILN_ARG_LOCAL:
      a->local_size = size;
      break;
   case KILN_ARG_SAMPLER: {
      /* Samplers never change: their bits are the whole value, so the
       * argument needs no reference on the object. */
      uint64_t bits = kiln_sampler_bits(*(const cl_sampler *)value);
      void *copy = kiln_malloc(sizeof(bits));
      if (!copy)
         return CL_OUT_OF_HOST_MEMORY;
      memcpy(copy, &bits, sizeof(bits));
      kiln_free(a->value);
      a->value = copy;
      a->value_size = sizeof(bits);
      break;
   }
   default: {
      void *copy = kiln_malloc(size);
      if (!copy)
         return CL_OUT_OF_HOST_MEMORY;
      memcpy(copy, value, size);
      kiln_free(a->value);
      a->value = copy;
      a->value_size = size;
      break;
   }
   }
   a->set = true;
   return CL_SUCCESS;
}

bool kiln_kernel_args_live(cl_kernel k)
{
   /* Read before the look-ups: a buffer released while they run makes
    * the next launch look again. */
   uint64_t gen = kiln_object_mems_gone() + 1;
   if (atomic_load_explicit(&k->args_live_gen, memory_order_relaxed) == gen)
      return true;
   for (uint32_t i = 0; i < k->info->num_args; i++) {
      const struct kiln_kernel_arg *a = &k->args[i];
      if (!a->mem)
         continue;
      cl_mem m = kiln_mem_from(a->mem);
      if (!m || m->serial != a->mem_serial)
         return false;
   }
   atomic_store_explicit(&k->args_live_gen, gen, memory_order_relaxed);
   return true;
}

void kiln_kernel_set_arg_svm(cl_kernel k, cl_uint index, const void *ptr)
{
   struct kiln_kernel_arg *a = &k->args[index];
   atomic_store_explicit(&k->args_live_gen, 0, memory_order_relaxed);
   a->mem = NULL;
   a->mem_serial = 0;
   a->is_svm = true;
   a->svm = ptr;
   a->set = true;
}

bool kiln_kernel_uses_svm(cl_kernel k)
{
   for (uint32_t i = 0; i < k->info->num_args; i++)
      if (k->args[i].is_svm)
         return true;
   return false;
}

bool kiln_kernel_args_complete(cl_kernel k)
{
   for (uint32_t i = 0; i < k->info->num_args; i++)
      if (!k->args[i].set)
         return false;
   return true;
}

void *kiln_kernel_on_device(cl_kernel k, cl_device_id dev)
{
   int i = kiln_program_device_index(k->program, dev);
   return i < 0 ? NULL : k->device_kernels[i];
}

/* Asks the driver (kiln_kernel_device_info does it once). */
static void ask_device_info(cl_kernel k, cl_device_id dev, struct pipe_kernel_info *out)
{
   /* What the device promises for any kernel, unless its driver knows
    * better for this one (register use, SIMD width, scratch). */
   *out = (struct pipe_kernel_info){
      .max_work_group_size = dev->caps->max_work_group_size,
      .preferred_work_group_size_multiple = 1,
      .private_mem_size = k->info->private_mem_size,
      .static_local_mem_size = k->info->local_mem_size,
   };
   void *dk = kiln_kernel_on_device(k, dev);
   if (dk && dev->screen->get_kernel_info)
      dev->screen->get_kernel_info(dev->screen, dk, k->info, out);
   if (out->max_work_group_size > dev->caps->max_work_group_size)
      out->max_work_group_size = dev->caps->max_work_group_size;
   if (!out->max_work_group_size)
      out->max_work_group_size = 1;
   if (!out->preferred_work_group_size_multiple)
      out->preferred_work_group_size_multiple = 1;
}

void kiln_kernel_device_info(cl_kernel k, cl_device_id dev, struct pipe_kernel_info *out)
{
   int i = kiln_program_device_index(k->program, dev);
   struct kiln_kernel_dev_info *c = i < 0 ? NULL : &k->dev_info[i];
   if (c && atomic_load_explicit(&c->state, memory_order_acquire) == 2) {
      *out = c->info;
      return;
   }
   ask_device_info(k, dev, out);
   /* Only once the driver has the kernel's code (a driver that compiles
    * kernels when first needed has compiled it by now); the first thread
    * to get here fills the copy, others meanwhile ask for themselves. */
   int empty = 0;
   if (c && k->device_kernels[i] &&
       atomic_compare_exchange_strong(&c->state, &empty, 1)) {
      c->info = *out;
      atomic_store_explicit(&c->state, 2, memory_order_release);
   }
}

size_t kiln_kernel_max_work_group_size(cl_kernel k, cl_device_id dev)
{
   struct pipe_kernel_info ki;
   kiln_kernel_device_info(k, dev, &ki);
   return ki.max_work_group_size;
}
