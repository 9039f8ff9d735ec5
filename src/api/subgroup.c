/* clGetKernelSubGroupInfo (OpenCL 2.1+, 3.0 §5.9.4), also reached as
 * cl_khr_subgroups' clGetKernelSubGroupInfoKHR (api/icd.c).
 *
 * A Kiln device with sub-groups (CL_DEVICE_MAX_NUM_SUB_GROUPS non-zero:
 * the CPU device) makes each work-group one sub-group
 * (docs/subgroups.md, src/llvm/builtins/collective.cl), so the answers
 * follow from the local size alone: one sub-group of all its work-items.
 * A device without sub-groups answers CL_INVALID_OPERATION, as 3.0
 * prescribes, once the handles are checked. */
#include "api/api.h"
#include "core/device.h"
#include "core/kernel.h"
#include "core/program.h"

/* The local size an ND-range query passes: 1 to 3 size_t values. */
static bool local_size_input(size_t input_value_size, const void *input_value, size_t *items)
{
   if (!input_value || !input_value_size || input_value_size % sizeof(size_t) ||
       input_value_size > 3 * sizeof(size_t))
      return false;
   const size_t *local = input_value;
   size_t n = 1;
   for (size_t d = 0; d < input_value_size / sizeof(size_t); d++)
      n = local[d] && n > SIZE_MAX / local[d] ? SIZE_MAX : n * local[d];
   *items = n;
   return true;
}

CL_API_ENTRY cl_int CL_API_CALL clGetKernelSubGroupInfo(
   cl_kernel kernel, cl_device_id device, cl_kernel_sub_group_info param_name,
   size_t input_value_size, const void *input_value, size_t param_value_size,
   void *param_value, size_t *param_value_size_ret)
{
   cl_kernel k = kiln_kernel_from(kernel);
   if (!k)
      return API_FAIL(CL_INVALID_KERNEL, "%p is not a kernel", (void *)kernel);
   cl_program p = k->program;
   cl_device_id dev;
   if (!device) {
      if (p->num_devices != 1)
         return API_FAIL(CL_INVALID_DEVICE, "device NULL with %u devices", p->num_devices);
      dev = p->devices[0];
   } else {
      dev = kiln_device_from(device);
      if (!dev || kiln_program_device_index(p, dev) < 0)
         return API_FAIL(CL_INVALID_DEVICE, "%p is not a device of the kernel",
                         (void *)device);
   }
   if (!dev->caps->max_num_sub_groups)
      return API_FAIL(CL_INVALID_OPERATION, "%s has no sub-groups", dev->caps->name);

   size_t items;
   switch (param_name) {
   case CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE:
      if (!local_size_input(input_value_size, input_value, &items))
         return API_FAIL(CL_INVALID_VALUE, "local size of %zu bytes at %p", input_value_size,
                         input_value);
      /* The one sub-group holds the whole group. */
      INFO_VALUE(size_t, items);
   case CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE:
      if (!local_size_input(input_value_size, input_value, &items))
         return API_FAIL(CL_INVALID_VALUE, "local size of %zu bytes at %p", input_value_size,
                         input_value);
      INFO_VALUE(size_t, items ? 1 : 0);
   case CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT: {
      if (!input_value || input_value_size != sizeof(size_t))
         return API_FAIL(CL_INVALID_VALUE, "sub-group count of %zu bytes at %p",
                         input_value_size, input_value);
      /* As many dimensions as param_value holds (3 for a size query);
       * the first carries the size, the others 1. */
      size_t dims = param_value ? param_value_size / sizeof(size_t) : 3;
      if (param_value && (param_value_size % sizeof(size_t) || dims < 1 || dims > 3))
         return API_FAIL(CL_INVALID_VALUE, "param_value_size %zu is not 1 to 3 size_t",
                         param_value_size);
      /* Any local size makes one sub-group, the kernel's largest is as
       * good as any; no local size makes another count: zeros. */
      size_t count = *(const size_t *)input_value;
      size_t v[3] = {0, 0, 0};
      if (count == 1) {
         v[0] = kiln_kernel_max_work_group_size(k, dev);
         v[1] = v[2] = 1;
      }
      INFO_ARRAY(v, dims);
   }
   case CL_KERNEL_MAX_NUM_SUB_GROUPS:
      INFO_VALUE(size_t, dev->caps->max_num_sub_groups);
   case CL_KERNEL_COMPILE_NUM_SUB_GROUPS:
      /* Set only by an attribute OpenCL C has no spelling for. */
      INFO_VALUE(size_t, 0);
   default:
      return API_FAIL(CL_INVALID_VALUE, "unknown param_name 0x%x", param_name);
   }
}
