/* clCreateKernel, clCreateKernelsInProgram, clRetain/ReleaseKernel,
 * clSetKernelArg, clGetKernelInfo, clGetKernelWorkGroupInfo,
 * clGetKernelArgInfo. */
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "core/context.h"
#include "core/device.h"
#include "core/kernel.h"
#include "core/mem.h"
#include "core/program.h"
#include "core/queue.h"
#include "core/sampler.h"
#include "kiln/kernel_info.h"

CL_API_ENTRY cl_kernel CL_API_CALL clCreateKernel(cl_program program, const char *kernel_name,
                                                  cl_int *errcode_ret)
{
   cl_program p = kiln_program_from(program);
   if (!p)
      API_FAIL_RET(errcode_ret, CL_INVALID_PROGRAM, "%p is not a program", (void *)program);
   if (!kiln_program_has_executable(p))
      API_FAIL_RET(errcode_ret, CL_INVALID_PROGRAM_EXECUTABLE, "the program is not built");
   if (!kernel_name)
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "kernel_name is NULL");
   /* Kernels made of enqueued blocks are the device's own. */
   const struct kiln_kernel_info *info =
      kiln_is_block_kernel_name(kernel_name) ? NULL : kiln_program_find_kernel(p, kernel_name);
   if (!info)
      API_FAIL_RET(errcode_ret, CL_INVALID_KERNEL_NAME, "no kernel \"%s\" in the program",
                   kernel_name);
   cl_kernel k = NULL;
   cl_int err = kiln_kernel_create(p, info, &k);
   if (err)
      API_FAIL_RET(errcode_ret, err, "out of host memory");
   kiln_set_error(errcode_ret, CL_SUCCESS);
   return k;
}

CL_API_ENTRY cl_int CL_API_CALL clCreateKernelsInProgram(cl_program program, cl_uint num_kernels,
                                                         cl_kernel *kernels,
                                                         cl_uint *num_kernels_ret)
{
   cl_program p = kiln_program_from(program);
   if (!p)
      return API_FAIL(CL_INVALID_PROGRAM, "%p is not a program", (void *)program);
   const struct kiln_program_build *b = NULL;
   for (cl_uint i = 0; i < p->num_devices && !b; i++)
      if (kiln_program_build_executable(&p->builds[i]))
         b = &p->builds[i];
   if (!b)
      return API_FAIL(CL_INVALID_PROGRAM_EXECUTABLE, "the program is not built");
   /* Kernels made of enqueued blocks are the device's own. */
   cl_uint visible = 0;
   for (unsigned i = 0; i < b->num_kernels; i++)
      visible += !kiln_is_block_kernel_name(b->kernels[i].name);
   if (kernels && num_kernels < visible)
      return API_FAIL(CL_INVALID_VALUE, "room for %u kernels, the program has %u", num_kernels,
                      visible);
   if (kernels) {
      cl_uint n = 0;
      for (unsigned i = 0; i < b->num_kernels; i++) {
         if (kiln_is_block_kernel_name(b->kernels[i].name))
            continue;
         cl_int err = kiln_kernel_create(p, &b->kernels[i], &kernels[n]);
         if (err) {
            for (cl_uint k = 0; k < n; k++)
               kiln_object_release(&kernels[k]->obj);
            return API_FAIL(err, "out of host memory");
         }
         n++;
      }
   }
   if (num_kernels_ret)
      *num_kernels_ret = visible;
   return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clRetainKernel(cl_kernel kernel)
{
   cl_kernel k = kiln_kernel_from(kernel);
   if (!k)
      return API_FAIL(CL_INVALID_KERNEL, "%p is not a kernel", (void *)kernel);
   kiln_object_retain(&k->obj);
   return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseKernel(cl_kernel kernel)
{
   cl_kernel k = kiln_kernel_from(kernel);
   if (!k)
      return API_FAIL(CL_INVALID_KERNEL, "%p is not a kernel", (void *)kernel);
   kiln_object_release(&k->obj);
   return CL_SUCCESS;
}

/* OpenCL 2.1 and 3.0 (5.9.1): a copy of a kernel with its argument values
 * so far; the two are independent afterwards. */
CL_API_ENTRY cl_kernel CL_API_CALL clCloneKernel(cl_kernel source_kernel, cl_int *errcode_ret)
{
   cl_kernel k = kiln_kernel_from(source_kernel);
   if (!k)
      API_FAIL_RET(errcode_ret, CL_INVALID_KERNEL, "%p is not a kernel", (void *)source_kernel);
   cl_kernel clone = NULL;
   cl_int err = kiln_kernel_clone(k, &clone);
   if (err)
      API_FAIL_RET(errcode_ret, err, "out of host memory");
   kiln_set_error(errcode_ret, CL_SUCCESS);
   return clone;
}

/* The memory object type an image parameter takes. */
static cl_mem_object_type image_arg_type(enum kiln_arg_kind k)
{
   switch (k) {
   case KILN_ARG_IMAGE3D:
      return CL_MEM_OBJECT_IMAGE3D;
   case KILN_ARG_IMAGE1D:
      return CL_MEM_OBJECT_IMAGE1D;
   case KILN_ARG_IMAGE1D_BUFFER:
      return CL_MEM_OBJECT_IMAGE1D_BUFFER;
   case KILN_ARG_IMAGE1D_ARRAY:
      return CL_MEM_OBJECT_IMAGE1D_ARRAY;
   case KILN_ARG_IMAGE2D_ARRAY:
      return CL_MEM_OBJECT_IMAGE2D_ARRAY;
   default:
      return CL_MEM_OBJECT_IMAGE2D;
   }
}

CL_API_ENTRY cl_int CL_API_CALL clSetKernelArg(cl_kernel kernel, cl_uint arg_index,
                                               size_t arg_size, const void *arg_value)
{
   cl_kernel k = kiln_kernel_from(kernel);
   if (!k)
      return API_FAIL(CL_INVALID_KERNEL, "%p is not a kernel", (void *)kernel);
   if (arg_index >= k->info->num_args)
      return API_FAIL(CL_INVALID_ARG_INDEX, "index %u of %u arguments", arg_index,
                      k->info->num_args);
   const struct kiln_arg_info *ai = &k->info->args[arg_index];
   switch (ai->kind) {
   case KILN_ARG_GLOBAL:
   case KILN_ARG_CONSTANT: {
      /* The size is checked first here: reading a cl_mem out of a smaller
       * buffer would read past it. */
      if (arg_size != sizeof(cl_mem))
         return API_FAIL(CL_INVALID_ARG_SIZE, "arg %u: a buffer takes sizeof(cl_mem), not %zu",
                         arg_index, arg_size);
      cl_mem mem = arg_value ? *(const cl_mem *)arg_value : NULL;
      /* A pipe parameter (a __global handle to Clang) takes a pipe object
       * and nothing else, not even NULL. */
      if (ai->type_qualifier & CL_KERNEL_ARG_TYPE_PIPE) {
         cl_mem m = mem ? kiln_mem_from(mem) : NULL;
         if (!m || m->type != CL_MEM_OBJECT_PIPE)
            return API_FAIL(CL_INVALID_ARG_VALUE, "arg %u: %p is not a pipe", arg_index,
                            (void *)mem);
         if (m->context != k->program->context)
            return API_FAIL(CL_INVALID_MEM_OBJECT, "arg %u: pipe of another context", arg_index);
         break;
      }
      if (mem) {
         cl_mem m = kiln_mem_from(mem);
         if (!m || m->type != CL_MEM_OBJECT_BUFFER)
            return API_FAIL(CL_INVALID_MEM_OBJECT, "arg %u: %p is not a buffer", arg_index,
                            (void *)mem);
         if (m->context != k->program->context)
            return API_FAIL(CL_INVALID_MEM_OBJECT, "arg %u: buffer of another context",
                            arg_index);
      }
      break;
   }
   case KILN_ARG_LOCAL:
      if (arg_value)
         return API_FAIL(CL_INVALID_ARG_VALUE, "arg %u: __local takes a NULL value", arg_index);
      if (!arg_size)
         return API_FAIL(CL_INVALID_ARG_SIZE, "arg %u: __local size 0", arg_index);
      break;
   case KILN_ARG_SAMPLER: {
      if (arg_size != sizeof(cl_sampler))
         return API_FAIL(CL_INVALID_ARG_SIZE, "arg %u: a sampler takes sizeof(cl_sampler)",
                         arg_index);
      cl_sampler s = arg_value ? kiln_sampler_from(*(const cl_sampler *)arg_value) : NULL;
      if (!s || s->context != k->program->context)
         return API_FAIL(CL_INVALID_SAMPLER, "arg %u: not a sampler of the kernel's context",
                         arg_index);
      break;
   }
   case KILN_ARG_IMAGE2D:
   case KILN_ARG_IMAGE3D:
   case KILN_ARG_IMAGE1D:
   case KILN_ARG_IMAGE1D_BUFFER:
   case KILN_ARG_IMAGE1D_ARRAY:
   case KILN_ARG_IMAGE2D_ARRAY: {
      if (arg_size != sizeof(cl_mem))
         return API_FAIL(CL_INVALID_ARG_SIZE, "arg %u: an image takes sizeof(cl_mem), not %zu",
                         arg_index, arg_size);
      cl_mem m = arg_value ? kiln_mem_from(*(const cl_mem *)arg_value) : NULL;
      cl_mem_object_type want = image_arg_type(ai->kind);
      if (!m || m->type != want)
         return API_FAIL(CL_INVALID_MEM_OBJECT, "arg %u: not an image of type 0x%x (%s)",
                         arg_index, want, ai->type_name);
      if (m->context != k->program->context)
         return API_FAIL(CL_INVALID_MEM_OBJECT, "arg %u: image of another context", arg_index);
      /* An image the kernel reads must be readable by kernels, one it
       * writes writable (clSetKernelArg, CL_INVALID_ARG_VALUE). */
      if ((ai->access_qualifier == CL_KERNEL_ARG_ACCESS_READ_ONLY &&
           (m->flags & CL_MEM_WRITE_ONLY)) ||
          (ai->access_qualifier == CL_KERNEL_ARG_ACCESS_WRITE_ONLY &&
           (m->flags & CL_MEM_READ_ONLY)))
         return API_FAIL(CL_INVALID_ARG_VALUE, "arg %u: image flags 0x%llx for a %s argument",
                         arg_index, (unsigned long long)m->flags,
                         ai->access_qualifier == CL_KERNEL_ARG_ACCESS_READ_ONLY ? "read_only"
                                                                                 : "write_only");
      break;
   }
   default:
      /* A queue_t (device-side enqueue): the handle of an on-device queue
       * of the kernel's context, which the kernel gets as it is (the
       * value get_default_queue() gives for the default one). */
      if (ai->type_name && !strcmp(ai->type_name, "queue_t")) {
         if (arg_size != sizeof(cl_command_queue))
            return API_FAIL(CL_INVALID_ARG_SIZE, "arg %u: a queue_t takes sizeof(cl_command_queue)",
                            arg_index);
         cl_command_queue dq =
            arg_value ? kiln_any_queue_from(*(const cl_command_queue *)arg_value) : NULL;
         if (!dq || !dq->on_device || dq->context != k->program->context)
            return API_FAIL(CL_INVALID_DEVICE_QUEUE,
                            "arg %u: not an on-device queue of the kernel's context", arg_index);
         break;
      }
      if (!arg_value)
         return API_FAIL(CL_INVALID_ARG_VALUE, "arg %u: NULL value", arg_index);
      if (arg_size != ai->size)
         return API_FAIL(CL_INVALID_ARG_SIZE, "arg %u (%s): size %zu, the kernel takes %u",
                         arg_index, ai->type_name, arg_size, ai->size);
      break;
   }
   cl_int err = kiln_kernel_set_arg(k, arg_index, arg_size, arg_value);
   return err ? API_FAIL(err, "out of host memory") : CL_SUCCESS;
}

/* The attributes the kernel was declared with, as OpenCL C spells them,
 * space-separated: Clang keeps them as metadata, which kernel_info holds. */
static cl_int kernel_attributes(const struct kiln_kernel_info *info, size_t param_value_size,
                                void *param_value, size_t *param_value_size_ret)
{
   char text[512] = "";
   size_t n = 0;
   const uint64_t *r = info->reqd_work_group_size, *h = info->work_group_size_hint;
   if (r[0] || r[1] || r[2])
      n += (size_t)snprintf(text + n, sizeof(text) - n, "reqd_work_group_size(%llu,%llu,%llu)",
                            (unsigned long long)r[0], (unsigned long long)r[1],
                            (unsigned long long)r[2]);
   if ((h[0] || h[1] || h[2]) && n < sizeof(text))
      n += (size_t)snprintf(text + n, sizeof(text) - n, "%swork_group_size_hint(%llu,%llu,%llu)",
                            n ? " " : "", (unsigned long long)h[0], (unsigned long long)h[1],
                            (unsigned long long)h[2]);
   if (info->vec_type_hint && *info->vec_type_hint && n < sizeof(text))
      snprintf(text + n, sizeof(text) - n, "%svec_type_hint(%s)", n ? " " : "",
               info->vec_type_hint);
   return kiln_info(text, strlen(text) + 1, param_value_size, param_value,
                    param_value_size_ret);
}

CL_API_ENTRY cl_int CL_API_CALL clGetKernelInfo(cl_kernel kernel, cl_kernel_info param_name,
                                                size_t param_value_size, void *param_value,
                                                size_t *param_value_size_ret)
{
   cl_kernel k = kiln_kernel_from(kernel);
   if (!k)
      return API_FAIL_HANDLE(param_name >= CL_KERNEL_FUNCTION_NAME &&
                                param_name <= CL_KERNEL_ATTRIBUTES,
                             param_name, CL_INVALID_KERNEL, kernel, "a kernel");
   switch (param_name) {
   case CL_KERNEL_FUNCTION_NAME:
      INFO_STRING(k->info->name);
   case CL_KERNEL_NUM_ARGS:
      INFO_VALUE(cl_uint, k->info->num_args);
   case CL_KERNEL_REFERENCE_COUNT:
      INFO_VALUE(cl_uint, kiln_object_refcount(&k->obj));
   case CL_KERNEL_CONTEXT:
      INFO_VALUE(cl_context, k->program->context);
   case CL_KERNEL_PROGRAM:
      INFO_VALUE(cl_program, k->program);
   case CL_KERNEL_ATTRIBUTES:
      return kernel_attributes(k->info, param_value_size, param_value, param_value_size_ret);
   default:
      return API_FAIL(CL_INVALID_VALUE, "unknown param_name 0x%x", param_name);
   }
}

CL_API_ENTRY cl_int CL_API_CALL clGetKernelWorkGroupInfo(cl_kernel kernel, cl_device_id device,
                                                         cl_kernel_work_group_info param_name,
                                                         size_t param_value_size,
                                                         void *param_value,
                                                         size_t *param_value_size_ret)
{
   cl_kernel k = kiln_kernel_from(kernel);
   /* CL_INVALID_DEVICE, listed first, needs a valid kernel to judge. */
   if (!k)
      return API_FAIL_HANDLE(param_name >= CL_KERNEL_WORK_GROUP_SIZE &&
                                param_name <= CL_KERNEL_GLOBAL_WORK_SIZE,
                             param_name, CL_INVALID_KERNEL, kernel, "a kernel");
   cl_program p = k->program;
   cl_device_id dev;
   if (!device) {
      /* NULL is allowed when the kernel's program has a single device. */
      if (p->num_devices != 1)
         return API_FAIL(CL_INVALID_DEVICE, "device NULL with %u devices", p->num_devices);
      dev = p->devices[0];
   } else {
      dev = kiln_device_from(device);
      if (!dev || kiln_program_device_index(p, dev) < 0)
         return API_FAIL(CL_INVALID_DEVICE, "%p is not a device of the kernel", (void *)device);
   }
   switch (param_name) {
   case CL_KERNEL_WORK_GROUP_SIZE:
      INFO_VALUE(size_t, kiln_kernel_max_work_group_size(k, dev));
   case CL_KERNEL_COMPILE_WORK_GROUP_SIZE: {
      size_t v[3];
      for (int d = 0; d < 3; d++)
         v[d] = (size_t)k->info->reqd_work_group_size[d];
      INFO_ARRAY(v, 3);
   }
   case CL_KERNEL_LOCAL_MEM_SIZE: {
      /* Static __local variables plus the __local arguments set so far. */
      struct pipe_kernel_info ki;
      kiln_kernel_device_info(k, dev, &ki);
      cl_ulong total = ki.static_local_mem_size;
      for (uint32_t i = 0; i < k->info->num_args; i++)
         if (k->info->args[i].kind == KILN_ARG_LOCAL)
            total += k->args[i].local_size;
      INFO_VALUE(cl_ulong, total);
   }
   case CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE: {
      struct pipe_kernel_info ki;
      kiln_kernel_device_info(k, dev, &ki);
      INFO_VALUE(size_t, ki.preferred_work_group_size_multiple);
   }
   case CL_KERNEL_PRIVATE_MEM_SIZE: {
      struct pipe_kernel_info ki;
      kiln_kernel_device_info(k, dev, &ki);
      INFO_VALUE(cl_ulong, ki.private_mem_size);
   }
   case CL_KERNEL_GLOBAL_WORK_SIZE:
      /* Only for built-in kernels or custom devices, neither of which
       * Kiln has (1.2 §5.7.3). */
      return API_FAIL(CL_INVALID_VALUE, "CL_KERNEL_GLOBAL_WORK_SIZE of a kernel that is not "
                      "built-in, on a device that is not custom");
   default:
      return API_FAIL(CL_INVALID_VALUE, "unknown param_name 0x%x", param_name);
   }
}

CL_API_ENTRY cl_int CL_API_CALL clGetKernelArgInfo(cl_kernel kernel, cl_uint arg_index,
                                                   cl_kernel_arg_info param_name,
                                                   size_t param_value_size, void *param_value,
                                                   size_t *param_value_size_ret)
{
   cl_kernel k = kiln_kernel_from(kernel);
   if (!k)
      return API_FAIL(CL_INVALID_KERNEL, "%p is not a kernel", (void *)kernel);
   if (arg_index >= k->info->num_args)
      return API_FAIL(CL_INVALID_ARG_INDEX, "argument %u of a kernel with %u", arg_index,
                      k->info->num_args);
   const struct kiln_arg_info *a = &k->info->args[arg_index];
   /* Names (of the type and the argument) need -cl-kernel-arg-info at
    * compile time. */
   bool named = !k->info->no_arg_info;
   switch (param_name) {
   case CL_KERNEL_ARG_ADDRESS_QUALIFIER:
      INFO_VALUE(cl_kernel_arg_address_qualifier, a->address_qualifier);
   case CL_KERNEL_ARG_ACCESS_QUALIFIER:
      INFO_VALUE(cl_kernel_arg_access_qualifier, a->access_qualifier);
   case CL_KERNEL_ARG_TYPE_QUALIFIER:
      INFO_VALUE(cl_kernel_arg_type_qualifier, a->type_qualifier);
   case CL_KERNEL_ARG_TYPE_NAME:
      if (!named)
         return API_FAIL(CL_KERNEL_ARG_INFO_NOT_AVAILABLE,
                         "the program was not compiled with -cl-kernel-arg-info");
      INFO_STRING(a->type_name);
   case CL_KERNEL_ARG_NAME:
      if (!named)
         return API_FAIL(CL_KERNEL_ARG_INFO_NOT_AVAILABLE,
                         "the program was not compiled with -cl-kernel-arg-info");
      INFO_STRING(a->name);
   default:
      return API_FAIL(CL_INVALID_VALUE, "unknown param_name 0x%x", param_name);
   }
}
