/* clEnqueueNDRangeKernel, clEnqueueTask, clEnqueueNativeKernel. */
#include <string.h>

#include "api/api.h"
#include "api/ndrange_check.h"
#include "api/ndrange_memo.h"
#include "core/command.h"
#include "core/context.h"
#include "core/device.h"
#include "core/kernel.h"
#include "core/mem.h"
#include "core/ndrange.h"
#include "core/program.h"
#include "core/queue.h"
#include "kiln/kernel_info.h"

cl_int kiln_api_check_kernel_args(cl_command_queue q, cl_kernel k)
{
   /* An SVM pointer means an address of the host's: only a device that
    * runs kernels there can take it (3.0 leaves this case open). */
   if (!q->device->caps->svm_capabilities && kiln_kernel_uses_svm(k))
      return API_FAIL(CL_INVALID_OPERATION, "kernel '%s' has SVM arguments and %s has no SVM",
                      k->info->name, q->device->caps->name);
   size_t align = q->device->caps->mem_base_addr_align / 8;
   for (uint32_t i = 0; i < k->info->num_args; i++) {
      cl_mem m = k->args[i].mem;
      if (m && m->parent && m->offset % align)
         return API_FAIL(CL_MISALIGNED_SUB_BUFFER_OFFSET,
                         "argument %u: sub-buffer origin %zu not aligned for the device", i,
                         m->offset);
   }
   return CL_SUCCESS;
}

/* The largest value of the device's size_t. */
static uint64_t device_size_max(const struct pipe_caps *caps)
{
   return caps->address_bits && caps->address_bits < 64 ? (1ull << caps->address_bits) - 1
                                                         : UINT64_MAX;
}

/* What the device can launch (docs/design.md, "Launch limits"): its grid
 * (caps.max_grid_*: 32-bit AMD dispatches, CUDA's block counts) and the
 * private memory of one work-group (the CPU workers' stacks).  Refused
 * here, where the application sees it, rather than by the driver once the
 * command runs, or never. */
static cl_int check_device_grid(cl_device_id dev, cl_kernel k, const size_t offset[3],
                                const size_t global[3], const size_t local[3], const char *func)
{
   const struct pipe_caps *caps = dev->caps;
   for (int d = 0; d < 3; d++) {
      if (caps->max_grid_size[d] && global[d] > caps->max_grid_size[d])
         return kiln_api_fail(func, CL_INVALID_GLOBAL_WORK_SIZE,
                              "global_work_size[%d] = %zu: the device launches at most %llu", d,
                              global[d], (unsigned long long)caps->max_grid_size[d]);
      if (caps->max_grid_offset[d] && offset[d] > caps->max_grid_offset[d])
         return kiln_api_fail(func, CL_INVALID_GLOBAL_OFFSET,
                              "global_work_offset[%d] = %zu: the device takes at most %llu", d,
                              offset[d], (unsigned long long)caps->max_grid_offset[d]);
      if (caps->max_grid_groups[d] && global[d] / local[d] > caps->max_grid_groups[d])
         return kiln_api_fail(func, CL_OUT_OF_RESOURCES,
                              "%zu work-groups in dimension %d (global %zu / local %zu): the "
                              "device launches at most %llu",
                              global[d] / local[d], d, global[d], local[d],
                              (unsigned long long)caps->max_grid_groups[d]);
   }
   struct pipe_kernel_info ki;
   kiln_kernel_device_info(k, dev, &ki);
   if (ki.private_group_limit) {
      uint64_t items = (uint64_t)local[0] * local[1] * local[2];
      uint64_t per = ki.private_group_per_item;
      bool fits = ki.private_group_fixed <= ki.private_group_limit &&
                  (!per || items <= (ki.private_group_limit - ki.private_group_fixed) / per);
      if (!fits)
         return kiln_api_fail(func, CL_OUT_OF_RESOURCES,
                              "kernel '%s' needs %llu bytes of private memory (stack) per "
                              "work-group, plus %llu per work-item (%llu work-items); the "
                              "device holds %llu",
                              k->info->name, (unsigned long long)ki.private_group_fixed,
                              (unsigned long long)per, (unsigned long long)items,
                              (unsigned long long)ki.private_group_limit);
   }
   return CL_SUCCESS;
}

cl_int kiln_api_check_ndrange(cl_command_queue q, cl_kernel kernel, cl_uint work_dim,
                              const size_t *global_work_offset, const size_t *global_work_size,
                              const size_t *local_work_size, cl_kernel *kp, size_t offset[3],
                              size_t global[3], size_t local[3], bool *empty, const char *func)
{
   cl_kernel k = kiln_kernel_from(kernel);
   if (!k)
      return kiln_api_fail(func, CL_INVALID_KERNEL, "%p is not a kernel", (void *)kernel);
   if (k->program->context != q->context)
      return kiln_api_fail(func, CL_INVALID_CONTEXT, "kernel and queue of different contexts");
   if (!kiln_kernel_on_device(k, q->device))
      return kiln_api_fail(func, CL_INVALID_PROGRAM_EXECUTABLE,
                           "the program is not built for the queue's device");
   if (!kiln_kernel_args_complete(k))
      return kiln_api_fail(func, CL_INVALID_KERNEL_ARGS, "not every argument of %s is set",
                           k->info->name);
   if (!kiln_kernel_args_live(k))
      return kiln_api_fail(func, CL_INVALID_KERNEL_ARGS,
                           "a buffer set as an argument of %s has been released", k->info->name);
   if (work_dim < 1 || work_dim > 3)
      return kiln_api_fail(func, CL_INVALID_WORK_DIMENSION, "work_dim %u", work_dim);
   /* The same sizes as the kernel's last launch that passed: they pass
    * again (api/ndrange_memo.h). */
   if (global_work_size && kiln_ndrange_memo_find(k, q->device, work_dim, global_work_offset,
                                                  global_work_size, local_work_size, offset,
                                                  global, local)) {
      if (empty)
         *empty = false;
      *kp = k;
      return CL_SUCCESS;
   }
   const struct pipe_caps *caps = q->device->caps;
   /* OpenCL 2.1 made a launch of no work-items legal: it completes once
    * its wait list has.  The other arguments are still checked. */
   bool may_be_empty = empty && caps->opencl_version >= 210;
   if (empty)
      *empty = !global_work_size && may_be_empty;
   if (!global_work_size && !may_be_empty)
      return kiln_api_fail(func, CL_INVALID_GLOBAL_WORK_SIZE, "global_work_size is NULL");

   for (int d = 0; d < 3; d++) {
      offset[d] = 0;
      global[d] = local[d] = 1;
   }
   /* Every value, and the work-item count (get_global_linear_id), must
    * fit the device's size_t; a product that wraps would launch nothing. */
   uint64_t size_max = device_size_max(caps);
   uint64_t items = 1;
   for (cl_uint d = 0; global_work_size && d < work_dim; d++) {
      if (!global_work_size[d]) {
         if (!may_be_empty)
            return kiln_api_fail(func, CL_INVALID_GLOBAL_WORK_SIZE, "global_work_size[%u] is 0",
                                 d);
         *empty = true;
      }
   }
   if (empty && *empty) {
      *kp = k;
      return CL_SUCCESS;
   }
   for (cl_uint d = 0; d < work_dim; d++) {
      global[d] = global_work_size[d];
      if (global[d] > size_max)
         return kiln_api_fail(func, CL_INVALID_GLOBAL_WORK_SIZE,
                              "global_work_size[%u] = %zu exceeds the device's size_t", d,
                              global[d]);
      if (items > size_max / global[d])
         return kiln_api_fail(func, CL_INVALID_GLOBAL_WORK_SIZE,
                              "%u-dimensional global work size %zux%zux%zu: more work-items "
                              "than the device's size_t counts (%llu)",
                              work_dim, global[0], work_dim > 1 ? global_work_size[1] : 1,
                              work_dim > 2 ? global_work_size[2] : 1,
                              (unsigned long long)size_max);
      items *= global[d];
   }
   if (global_work_offset)
      for (cl_uint d = 0; d < work_dim; d++) {
         offset[d] = global_work_offset[d];
         if (offset[d] > size_max - global[d])
            return kiln_api_fail(func, CL_INVALID_GLOBAL_OFFSET,
                                 "offset %zu + size %zu exceeds the device's size_t in %u",
                                 offset[d], global[d], d);
      }

   const uint64_t *reqd = k->info->reqd_work_group_size;
   bool has_reqd = reqd[0] || reqd[1] || reqd[2];
   /* 2.0+: a local size that does not divide the global size makes the
    * last group of that dimension smaller, where the device has
    * non-uniform work-groups and the kernel was compiled as OpenCL C 2.0
    * or later without -cl-uniform-work-group-size. */
   bool non_uniform = caps->non_uniform_work_groups && k->info->non_uniform_work_groups;
   const char *why = caps->non_uniform_work_groups
                        ? " (kernels of OpenCL C 1.x or -cl-uniform-work-group-size run in "
                          "uniform work-groups only)"
                        : "";
   if (local_work_size) {
      size_t total = 1;
      for (cl_uint d = 0; d < work_dim; d++) {
         local[d] = local_work_size[d];
         if (!local[d] || (!non_uniform && global[d] % local[d]))
            return kiln_api_fail(func, CL_INVALID_WORK_GROUP_SIZE,
                                 "local_work_size[%u] = %zu does not divide %zu%s", d, local[d],
                                 global[d], local[d] ? why : "");
         total *= local[d];
      }
      if (has_reqd)
         for (int d = 0; d < 3; d++)
            if (local[d] != reqd[d])
               return kiln_api_fail(func, CL_INVALID_WORK_GROUP_SIZE,
                                    "the kernel requires a work-group of %llux%llux%llu",
                                    (unsigned long long)reqd[0], (unsigned long long)reqd[1],
                                    (unsigned long long)reqd[2]);
      if (total > kiln_kernel_max_work_group_size(k, q->device))
         return kiln_api_fail(func, CL_INVALID_WORK_GROUP_SIZE, "work-group of %zu items", total);
      for (cl_uint d = 0; d < work_dim; d++)
         if (local[d] > caps->max_work_item_sizes[d])
            return kiln_api_fail(func, CL_INVALID_WORK_ITEM_SIZE, "local_work_size[%u] = %zu",
                                 d, local[d]);
   } else if (has_reqd) {
      for (int d = 0; d < 3; d++) {
         local[d] = (size_t)reqd[d];
         if (!non_uniform && global[d] % local[d])
            return kiln_api_fail(func, CL_INVALID_WORK_GROUP_SIZE,
                                 "global size not a multiple of reqd_work_group_size%s", why);
      }
   } else {
      kiln_ndrange_choose_local(q->device, k, work_dim, global, local);
   }
   cl_int err = check_device_grid(q->device, k, offset, global, local, func);
   if (err)
      return err;

   kiln_ndrange_memo_keep(k, q->device, work_dim, global_work_offset, global_work_size,
                          local_work_size, local);
   *kp = k;
   return CL_SUCCESS;
}

static cl_int enqueue_ndrange(cl_command_queue command_queue, cl_command_type type,
                              cl_kernel kernel, cl_uint work_dim,
                              const size_t *global_work_offset, const size_t *global_work_size,
                              const size_t *local_work_size, cl_uint num_events,
                              const cl_event *wait_list, cl_event *event, const char *func)
{
   cl_command_queue q = kiln_queue_from(command_queue);
   if (!q)
      return kiln_api_fail(func, CL_INVALID_COMMAND_QUEUE, "%p is not a queue",
                           (void *)command_queue);
   cl_kernel k;
   size_t offset[3], global[3], local[3];
   bool empty;
   cl_int err = kiln_api_check_ndrange(q, kernel, work_dim, global_work_offset, global_work_size,
                                       local_work_size, &k, offset, global, local, &empty, func);
   if (err)
      return err;
   err = kiln_api_check_wait_list(q->context, num_events, wait_list, func);
   if (err || (err = kiln_api_check_kernel_args(q, k)))
      return err;
   cl_event ev;
   struct kiln_wait_list wait = {num_events, wait_list};
   if (empty)
      err = kiln_enqueue_sync(q, type, KILN_ORDER_COMMAND, wait, &ev);
   else
      err = kiln_enqueue_ndrange(q, type, k, work_dim, offset, global, local, wait, event != NULL,
                                 &ev);
   if (err)
      return kiln_api_fail(func, err, err == CL_OUT_OF_RESOURCES
                                         ? "the __local memory exceeds the device's"
                                         : "cannot enqueue");
   return kiln_api_finish_enqueue(ev, false, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueNDRangeKernel(
   cl_command_queue command_queue, cl_kernel kernel, cl_uint work_dim,
   const size_t *global_work_offset, const size_t *global_work_size,
   const size_t *local_work_size, cl_uint num_events_in_wait_list,
   const cl_event *event_wait_list, cl_event *event)
{
   return enqueue_ndrange(command_queue, CL_COMMAND_NDRANGE_KERNEL, kernel, work_dim,
                          global_work_offset, global_work_size,
                          local_work_size, num_events_in_wait_list, event_wait_list, event,
                          __func__);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueTask(cl_command_queue command_queue, cl_kernel kernel,
                                              cl_uint num_events_in_wait_list,
                                              const cl_event *event_wait_list, cl_event *event)
{
   static const size_t one = 1;
   return enqueue_ndrange(command_queue, CL_COMMAND_TASK, kernel, 1, NULL, &one, &one,
                          num_events_in_wait_list,
                          event_wait_list, event, __func__);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueNativeKernel(
   cl_command_queue command_queue, void(CL_CALLBACK *user_func)(void *), void *args,
   size_t cb_args, cl_uint num_mem_objects, const cl_mem *mem_list, const void **args_mem_loc,
   cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
   cl_command_queue q = kiln_queue_from(command_queue);
   if (!q)
      return API_FAIL(CL_INVALID_COMMAND_QUEUE, "%p is not a queue", (void *)command_queue);
   if (!user_func)
      return API_FAIL(CL_INVALID_VALUE, "user_func is NULL");
   if ((!args && cb_args) || (args && !cb_args))
      return API_FAIL(CL_INVALID_VALUE, "args %p with cb_args %zu", args, cb_args);
   if ((num_mem_objects && (!mem_list || !args_mem_loc)) ||
       (!num_mem_objects && (mem_list || args_mem_loc)))
      return API_FAIL(CL_INVALID_VALUE, "num_mem_objects %u, mem_list %p, args_mem_loc %p",
                      num_mem_objects, (void *)mem_list, (void *)args_mem_loc);
   if (!(q->device->caps->execution_capabilities & CL_EXEC_NATIVE_KERNEL))
      return API_FAIL(CL_INVALID_OPERATION, "the device cannot run native kernels");
   for (cl_uint i = 0; i < num_mem_objects; i++) {
      cl_mem m = kiln_mem_from(mem_list[i]);
      if (!m || m->context != q->context)
         return API_FAIL(CL_INVALID_MEM_OBJECT, "mem_list[%u] = %p", i, (void *)mem_list[i]);
      const unsigned char *loc = args_mem_loc[i];
      /* Each location must be a pointer-sized slot inside args. */
      if (!loc || loc < (const unsigned char *)args ||
          loc + sizeof(void *) > (const unsigned char *)args + cb_args)
         return API_FAIL(CL_INVALID_VALUE, "args_mem_loc[%u] is not inside args", i);
   }
   cl_int err = kiln_api_check_wait_list(q->context, num_events_in_wait_list, event_wait_list,
                                         __func__);
   if (err)
      return err;
   cl_event ev;
   err = kiln_enqueue_native(q, user_func, args, cb_args, num_mem_objects, mem_list,
                             args_mem_loc, (struct kiln_wait_list){num_events_in_wait_list,
                                                                   event_wait_list},
                             &ev);
   if (err)
      return API_FAIL(err, "cannot enqueue");
   return kiln_api_finish_enqueue(ev, false, event);
}
