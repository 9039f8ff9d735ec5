/* clCreatePipe and clGetPipeInfo (OpenCL 3.0 §5.3, optional feature
 * __opencl_c_pipes).  A pipe is a memory object core lays out for the
 * device's pipe builtins (core/mem_pipe.c); only devices that list the
 * feature (api/device.c: CL_DEVICE_PIPE_SUPPORT) can run kernels on it,
 * and a context without one refuses to create pipes, as 3.0 says. */
#include "api/api.h"
#include "core/context.h"
#include "core/device.h"
#include "core/device_version.h"
#include "core/mem.h"

/* The largest packet any device of the context takes (0: no device has
 * pipes), and the largest allocation one of those devices allows. */
static cl_uint context_pipe_limits(cl_context ctx, cl_ulong *max_alloc)
{
   cl_uint packet = 0;
   *max_alloc = 0;
   for (cl_uint i = 0; i < ctx->num_devices; i++) {
      cl_device_id dev = ctx->devices[i];
      if (!kiln_device_has_pipes(dev))
         continue;
      if (dev->caps->pipe_max_packet_size > packet)
         packet = dev->caps->pipe_max_packet_size;
      if (dev->caps->max_mem_alloc_size > *max_alloc)
         *max_alloc = dev->caps->max_mem_alloc_size;
   }
   return packet;
}

CL_API_ENTRY cl_mem CL_API_CALL clCreatePipe(cl_context context, cl_mem_flags flags,
                                             cl_uint pipe_packet_size, cl_uint pipe_max_packets,
                                             const cl_pipe_properties *properties,
                                             cl_int *errcode_ret)
{
   cl_context ctx = kiln_context_from(context);
   if (!ctx)
      API_FAIL_RET(errcode_ret, CL_INVALID_CONTEXT, "%p is not a context", (void *)context);
   cl_ulong max_alloc;
   cl_uint max_packet = context_pipe_limits(ctx, &max_alloc);
   if (!max_packet)
      API_FAIL_RET(errcode_ret, CL_INVALID_OPERATION, "no device of the context has pipes");
   /* Only these two may be given; 0 means both (the default). */
   if (flags & ~(cl_mem_flags)(CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS))
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "flags 0x%llx (only CL_MEM_READ_WRITE and "
                   "CL_MEM_HOST_NO_ACCESS)", (unsigned long long)flags);
   /* 3.0 defines no pipe property: the list must be NULL. */
   if (properties)
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "properties must be NULL");
   if (!pipe_packet_size || pipe_packet_size > max_packet || !pipe_max_packets)
      API_FAIL_RET(errcode_ret, CL_INVALID_PIPE_SIZE,
                   "packet size %u (max %u), %u packets", pipe_packet_size, max_packet,
                   pipe_max_packets);
   size_t size = kiln_mem_pipe_size(pipe_packet_size, pipe_max_packets);
   if (!size || size > max_alloc)
      API_FAIL_RET(errcode_ret, CL_MEM_OBJECT_ALLOCATION_FAILURE,
                   "%u packets of %u bytes: more than one allocation holds (%llu bytes)",
                   pipe_max_packets, pipe_packet_size, (unsigned long long)max_alloc);

   cl_mem mem = NULL;
   cl_int err = kiln_mem_create_pipe(ctx, CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS,
                                     pipe_packet_size, pipe_max_packets, &mem);
   if (err)
      API_FAIL_RET(errcode_ret, err == CL_INVALID_BUFFER_SIZE ? CL_MEM_OBJECT_ALLOCATION_FAILURE : err,
                   "cannot create a pipe of %u packets of %u bytes", pipe_max_packets,
                   pipe_packet_size);
   kiln_set_error(errcode_ret, CL_SUCCESS);
   return mem;
}

CL_API_ENTRY cl_int CL_API_CALL clGetPipeInfo(cl_mem pipe, cl_pipe_info param_name,
                                              size_t param_value_size, void *param_value,
                                              size_t *param_value_size_ret)
{
   cl_mem mem = kiln_mem_from(pipe);
   if (!mem || mem->type != CL_MEM_OBJECT_PIPE)
      return API_FAIL(CL_INVALID_MEM_OBJECT, "%p is not a pipe%s", (void *)pipe,
                      mem ? " (it is another memory object)" : "");
   switch (param_name) {
   case CL_PIPE_PACKET_SIZE:
      INFO_VALUE(cl_uint, mem->pipe.packet_size);
   case CL_PIPE_MAX_PACKETS:
      INFO_VALUE(cl_uint, mem->pipe.max_packets);
   case CL_PIPE_PROPERTIES:
      /* clCreatePipe takes only NULL: no properties, size 0. */
      INFO_ARRAY((const cl_pipe_properties *)NULL, 0);
   default:
      return API_FAIL(CL_INVALID_VALUE, "unknown param_name 0x%x", param_name);
   }
}
