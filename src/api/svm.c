/* Shared virtual memory (OpenCL 2.0 and 3.0, 5.6): clSVMAlloc/clSVMFree,
 * the SVM commands, clSetKernelArgSVMPointer and clSetKernelExecInfo.
 * Devices that report SVM (CL_DEVICE_SVM_CAPABILITIES non-zero: the CPU
 * device) run kernels in the host's address space; on the others every
 * call returns what 3.0 prescribes for a device without SVM
 * (docs/svm.md). */
#include "api/svm_check.h"

#include "api/api.h"
#include "core/context.h"
#include "core/device.h"
#include "core/kernel.h"
#include "core/program.h"
#include "core/queue.h"
#include "core/svm.h"
#include "kiln/kernel_info.h"

#define SVM_ACCESS_FLAGS (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY)
#define SVM_FLAGS (SVM_ACCESS_FLAGS | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS)
/* 3.0: no larger than the largest OpenCL C type (double16, long16). */
#define SVM_MAX_ALIGNMENT 128

CL_API_ENTRY void *CL_API_CALL clSVMAlloc(cl_context context, cl_svm_mem_flags flags, size_t size,
                                          cl_uint alignment)
{
   /* NULL is clSVMAlloc's only answer, whatever the reason: KILN_DEBUG=api
    * says which. */
   cl_context ctx = kiln_context_from(context);
   if (!ctx) {
      API_FAIL(CL_INVALID_CONTEXT, "%p is not a context", (void *)context);
      return NULL;
   }
   cl_svm_mem_flags access = flags & SVM_ACCESS_FLAGS;
   if ((flags & ~(cl_svm_mem_flags)SVM_FLAGS) || (access & (access - 1)) ||
       ((flags & CL_MEM_SVM_ATOMICS) && !(flags & CL_MEM_SVM_FINE_GRAIN_BUFFER))) {
      API_FAIL(CL_INVALID_VALUE, "flags 0x%llx", (unsigned long long)flags);
      return NULL;
   }
   cl_device_svm_capabilities caps = kiln_context_svm_caps(ctx);
   if (!caps || ((flags & CL_MEM_SVM_FINE_GRAIN_BUFFER) &&
                 !(caps & CL_DEVICE_SVM_FINE_GRAIN_BUFFER)) ||
       ((flags & CL_MEM_SVM_ATOMICS) && !(caps & CL_DEVICE_SVM_ATOMICS))) {
      API_FAIL(CL_INVALID_OPERATION, "flags 0x%llx: no device of the context has %s",
               (unsigned long long)flags,
               !caps ? "SVM" : "this kind of SVM");
      return NULL;
   }
   if (!size) {
      API_FAIL(CL_INVALID_VALUE, "size 0");
      return NULL;
   }
   for (cl_uint i = 0; i < ctx->num_devices; i++)
      if (size > ctx->devices[i]->caps->max_mem_alloc_size) {
         API_FAIL(CL_INVALID_VALUE, "size %zu > CL_DEVICE_MAX_MEM_ALLOC_SIZE %llu of %s", size,
                  (unsigned long long)ctx->devices[i]->caps->max_mem_alloc_size,
                  ctx->devices[i]->caps->name);
         return NULL;
      }
   if ((alignment & (alignment - 1)) || alignment > SVM_MAX_ALIGNMENT) {
      API_FAIL(CL_INVALID_VALUE, "alignment %u: a power of two up to %d", alignment,
               SVM_MAX_ALIGNMENT);
      return NULL;
   }
   void *ptr = kiln_svm_alloc(ctx, flags, size, alignment);
   if (!ptr)
      API_FAIL(CL_OUT_OF_HOST_MEMORY, "%zu bytes", size);
   return ptr;
}

CL_API_ENTRY void CL_API_CALL clSVMFree(cl_context context, void *svm_pointer)
{
   cl_context ctx = kiln_context_from(context);
   if (!ctx) {
      API_FAIL(CL_INVALID_CONTEXT, "%p is not a context", (void *)context);
      return;
   }
   kiln_svm_free(ctx, svm_pointer);
}

cl_int kiln_api_check_svm_copy(void *dst, const void *src, size_t size, const char *func)
{
   if (!dst || !src)
      return kiln_api_fail(func, CL_INVALID_VALUE, "dst_ptr %p, src_ptr %p", dst, src);
   const char *d = dst, *s = src;
   if (size && d < s + size && s < d + size)
      return kiln_api_fail(func, CL_MEM_COPY_OVERLAP, "%zu bytes from %p to %p overlap", size,
                           src, dst);
   return CL_SUCCESS;
}

cl_int kiln_api_check_svm_fill(void *ptr, const void *pattern, size_t pattern_size, size_t size,
                               const char *func)
{
   if (!ptr || !pattern)
      return kiln_api_fail(func, CL_INVALID_VALUE, "svm_ptr %p, pattern %p", ptr, pattern);
   if (!pattern_size || pattern_size > 128 || (pattern_size & (pattern_size - 1)))
      return kiln_api_fail(func, CL_INVALID_VALUE, "pattern_size %zu: 1, 2, 4, ... or 128",
                           pattern_size);
   if ((uintptr_t)ptr % pattern_size || size % pattern_size)
      return kiln_api_fail(func, CL_INVALID_VALUE,
                           "svm_ptr %p and size %zu must be multiples of pattern_size %zu", ptr,
                           size, pattern_size);
   return CL_SUCCESS;
}

/* The queue, or NULL after the error is recorded in *err. */
static cl_command_queue svm_queue(cl_command_queue command_queue, cl_int *err, const char *func)
{
   cl_command_queue q = kiln_queue_from(command_queue);
   *err = q ? CL_SUCCESS
            : kiln_api_fail(func, CL_INVALID_COMMAND_QUEUE, "%p is not a queue",
                            (void *)command_queue);
   return q;
}

/* The checks every SVM command ends with: the wait list, then (3.0) a
 * device without SVM. */
static cl_int svm_check_tail(cl_command_queue q, cl_uint num, const cl_event *list,
                             const char *func)
{
   cl_int err = kiln_api_check_wait_list(q->context, num, list, func);
   if (err)
      return err;
   if (!q->device->caps->svm_capabilities)
      return kiln_api_fail(func, CL_INVALID_OPERATION, "%s has no SVM", q->device->caps->name);
   return CL_SUCCESS;
}

static cl_int svm_finish(cl_int err, cl_event ev, bool blocking, cl_event *event,
                         const char *func)
{
   if (err)
      return kiln_api_fail(func, err, "cannot enqueue");
   return kiln_api_finish_enqueue(ev, blocking, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMFree(
   cl_command_queue command_queue, cl_uint num_svm_pointers, void *svm_pointers[],
   void(CL_CALLBACK *pfn_free_func)(cl_command_queue, cl_uint, void *[], void *),
   void *user_data, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
   cl_event *event)
{
   cl_int err;
   cl_command_queue q = svm_queue(command_queue, &err, __func__);
   if (!q)
      return err;
   if ((num_svm_pointers != 0) != (svm_pointers != NULL))
      return API_FAIL(CL_INVALID_VALUE, "num_svm_pointers %u with svm_pointers %p",
                      num_svm_pointers, (void *)svm_pointers);
   if ((err = svm_check_tail(q, num_events_in_wait_list, event_wait_list, __func__)))
      return err;
   cl_event ev;
   err = kiln_enqueue_svm_free(q, num_svm_pointers, svm_pointers, pfn_free_func, user_data,
                               (struct kiln_wait_list){num_events_in_wait_list, event_wait_list},
                               &ev);
   return svm_finish(err, ev, false, event, __func__);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMMemcpy(cl_command_queue command_queue,
                                                   cl_bool blocking_copy, void *dst_ptr,
                                                   const void *src_ptr, size_t size,
                                                   cl_uint num_events_in_wait_list,
                                                   const cl_event *event_wait_list,
                                                   cl_event *event)
{
   cl_int err;
   cl_command_queue q = svm_queue(command_queue, &err, __func__);
   if (!q)
      return err;
   if ((err = kiln_api_check_wait_list_context(q->context, num_events_in_wait_list,
                                               event_wait_list, __func__)))
      return err;
   if ((err = kiln_api_check_svm_copy(dst_ptr, src_ptr, size, __func__)) ||
       (err = svm_check_tail(q, num_events_in_wait_list, event_wait_list, __func__)))
      return err;
   cl_event ev;
   err = kiln_enqueue_svm_memcpy(q, dst_ptr, src_ptr, size,
                                 (struct kiln_wait_list){num_events_in_wait_list,
                                                         event_wait_list, blocking_copy},
                                 &ev);
   return svm_finish(err, ev, blocking_copy, event, __func__);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMMemFill(cl_command_queue command_queue,
                                                    void *svm_ptr, const void *pattern,
                                                    size_t pattern_size, size_t size,
                                                    cl_uint num_events_in_wait_list,
                                                    const cl_event *event_wait_list,
                                                    cl_event *event)
{
   cl_int err;
   cl_command_queue q = svm_queue(command_queue, &err, __func__);
   if (!q)
      return err;
   if ((err = kiln_api_check_wait_list_context(q->context, num_events_in_wait_list,
                                               event_wait_list, __func__)))
      return err;
   if ((err = kiln_api_check_svm_fill(svm_ptr, pattern, pattern_size, size, __func__)) ||
       (err = svm_check_tail(q, num_events_in_wait_list, event_wait_list, __func__)))
      return err;
   cl_event ev;
   err = kiln_enqueue_svm_fill(q, svm_ptr, pattern, pattern_size, size,
                               (struct kiln_wait_list){num_events_in_wait_list, event_wait_list},
                               &ev);
   return svm_finish(err, ev, false, event, __func__);
}

/* Map, unmap and migrate move nothing: device and host share the memory
 * (svm_capabilities), so each is a command that completes in its place
 * in the queue, after the device's earlier work. */
static cl_int enqueue_in_place(cl_command_queue q, cl_command_type type, bool blocking,
                               cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                               cl_event *event, const char *func)
{
   cl_event ev;
   cl_int err = kiln_enqueue_sync(q, type, KILN_ORDER_COMMAND,
                                  (struct kiln_wait_list){num_events_in_wait_list,
                                                          event_wait_list, blocking},
                                  &ev);
   return svm_finish(err, ev, blocking, event, func);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMMap(cl_command_queue command_queue,
                                                cl_bool blocking_map, cl_map_flags flags,
                                                void *svm_ptr, size_t size,
                                                cl_uint num_events_in_wait_list,
                                                const cl_event *event_wait_list,
                                                cl_event *event)
{
   cl_int err;
   cl_command_queue q = svm_queue(command_queue, &err, __func__);
   if (!q)
      return err;
   if ((err = kiln_api_check_wait_list_context(q->context, num_events_in_wait_list,
                                               event_wait_list, __func__)))
      return err;
   if (!svm_ptr || !size || !kiln_api_valid_map_flags(flags))
      return API_FAIL(CL_INVALID_VALUE, "svm_ptr %p, size %zu, flags 0x%llx", svm_ptr, size,
                      (unsigned long long)flags);
   if ((err = svm_check_tail(q, num_events_in_wait_list, event_wait_list, __func__)))
      return err;
   return enqueue_in_place(q, CL_COMMAND_SVM_MAP, blocking_map, num_events_in_wait_list,
                           event_wait_list, event, __func__);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMUnmap(cl_command_queue command_queue, void *svm_ptr,
                                                  cl_uint num_events_in_wait_list,
                                                  const cl_event *event_wait_list,
                                                  cl_event *event)
{
   cl_int err;
   cl_command_queue q = svm_queue(command_queue, &err, __func__);
   if (!q)
      return err;
   if ((err = kiln_api_check_wait_list_context(q->context, num_events_in_wait_list,
                                               event_wait_list, __func__)))
      return err;
   if (!svm_ptr)
      return API_FAIL(CL_INVALID_VALUE, "svm_ptr NULL");
   if ((err = svm_check_tail(q, num_events_in_wait_list, event_wait_list, __func__)))
      return err;
   return enqueue_in_place(q, CL_COMMAND_SVM_UNMAP, false, num_events_in_wait_list,
                           event_wait_list, event, __func__);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMMigrateMem(cl_command_queue command_queue,
                                                       cl_uint num_svm_pointers,
                                                       const void **svm_pointers,
                                                       const size_t *sizes,
                                                       cl_mem_migration_flags flags,
                                                       cl_uint num_events_in_wait_list,
                                                       const cl_event *event_wait_list,
                                                       cl_event *event)
{
   cl_int err;
   cl_command_queue q = svm_queue(command_queue, &err, __func__);
   if (!q)
      return err;
   if ((err = kiln_api_check_wait_list_context(q->context, num_events_in_wait_list,
                                               event_wait_list, __func__)))
      return err;
   if (!num_svm_pointers || !svm_pointers)
      return API_FAIL(CL_INVALID_VALUE, "num_svm_pointers %u, svm_pointers %p",
                      num_svm_pointers, (void *)svm_pointers);
   /* A device without SVM is CL_INVALID_OPERATION whatever the pointers
    * (no allocation could hold them; the CTS's consistency_svm). */
   if (!q->device->caps->svm_capabilities)
      return API_FAIL(CL_INVALID_OPERATION, "%s has no SVM", q->device->caps->name);
   for (cl_uint i = 0; i < num_svm_pointers; i++) {
      size_t size = sizes ? sizes[i] : 0;
      /* Size 0: the whole allocation holding the pointer. */
      if (!svm_pointers[i] || !kiln_svm_find(q->context, svm_pointers[i], size, NULL))
         return API_FAIL(CL_INVALID_VALUE,
                         "svm_pointers[%u] = %p (%zu bytes) is not in an SVM allocation", i,
                         svm_pointers[i], size);
   }
   if (flags & ~(cl_mem_migration_flags)(CL_MIGRATE_MEM_OBJECT_HOST |
                                         CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED))
      return API_FAIL(CL_INVALID_VALUE, "flags 0x%llx", (unsigned long long)flags);
   if ((err = svm_check_tail(q, num_events_in_wait_list, event_wait_list, __func__)))
      return err;
   return enqueue_in_place(q, CL_COMMAND_SVM_MIGRATE_MEM, false, num_events_in_wait_list,
                           event_wait_list, event, __func__);
}

CL_API_ENTRY cl_int CL_API_CALL clSetKernelArgSVMPointer(cl_kernel kernel, cl_uint arg_index,
                                                         const void *arg_value)
{
   cl_kernel k = kiln_kernel_from(kernel);
   if (!k)
      return API_FAIL(CL_INVALID_KERNEL, "%p is not a kernel", (void *)kernel);
   cl_context ctx = k->program->context;
   cl_device_svm_capabilities caps = kiln_context_svm_caps(ctx);
   if (!caps)
      return API_FAIL(CL_INVALID_OPERATION, "no device of the kernel's context has SVM");
   if (arg_index >= k->info->num_args)
      return API_FAIL(CL_INVALID_ARG_INDEX, "index %u of %u arguments", arg_index,
                      k->info->num_args);
   enum kiln_arg_kind kind = k->info->args[arg_index].kind;
   /* A pipe is a __global handle to Clang, but its value must be a pipe
    * object (clSetKernelArg). */
   if ((kind != KILN_ARG_GLOBAL && kind != KILN_ARG_CONSTANT) ||
       (k->info->args[arg_index].type_qualifier & CL_KERNEL_ARG_TYPE_PIPE))
      return API_FAIL(CL_INVALID_ARG_VALUE,
                      "argument %u is not a pointer to __global or __constant memory",
                      arg_index);
   /* Without system SVM only clSVMAlloc's memory is shared. */
   if (arg_value && !(caps & CL_DEVICE_SVM_FINE_GRAIN_SYSTEM) &&
       !kiln_svm_find(ctx, arg_value, 0, NULL))
      return API_FAIL(CL_INVALID_ARG_VALUE, "%p is not in an SVM allocation of the context",
                      arg_value);
   kiln_kernel_set_arg_svm(k, arg_index, arg_value);
   return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clSetKernelExecInfo(cl_kernel kernel,
                                                    cl_kernel_exec_info param_name,
                                                    size_t param_value_size,
                                                    const void *param_value)
{
   cl_kernel k = kiln_kernel_from(kernel);
   if (!k)
      return API_FAIL(CL_INVALID_KERNEL, "%p is not a kernel", (void *)kernel);
   cl_device_svm_capabilities caps = kiln_context_svm_caps(k->program->context);
   switch (param_name) {
   case CL_KERNEL_EXEC_INFO_SVM_PTRS:
      /* An empty list (NULL, 0) unsets the pointers set before. */
      if (!param_value != !param_value_size || param_value_size % sizeof(void *))
         return API_FAIL(CL_INVALID_VALUE, "param_value %p, param_value_size %zu", param_value,
                         param_value_size);
      if (!caps)
         return API_FAIL(CL_INVALID_OPERATION, "no device of the kernel's context has SVM");
      /* Pointers the kernel reaches other than through its arguments:
       * the devices with SVM use host memory as it is, so nothing needs
       * to be made resident. */
      return CL_SUCCESS;
   case CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM: {
      if (!param_value || param_value_size != sizeof(cl_bool))
         return API_FAIL(CL_INVALID_VALUE, "param_value %p, param_value_size %zu", param_value,
                         param_value_size);
      cl_bool on = *(const cl_bool *)param_value;
      if (!caps || (on && !(caps & CL_DEVICE_SVM_FINE_GRAIN_SYSTEM)))
         return API_FAIL(CL_INVALID_OPERATION,
                         "no device of the kernel's context has fine-grain system SVM");
      return CL_SUCCESS;
   }
   default:
      return API_FAIL(CL_INVALID_VALUE, "unknown param_name 0x%x", param_name);
   }
}
