/* Entry points of OpenCL 3.0's optional features that no Kiln device
 * has: pipes, on-device queues, program-scope global constructors and
 * destructors.  3.0 keeps these in every implementation and
 * says exactly what each returns when the feature is missing (mostly
 * CL_INVALID_OPERATION, after the handle checks); the matching device
 * queries say the feature is absent (api/device.c: CL_DEVICE_PIPE_SUPPORT
 * false, ...).  docs/conformance.md lists them.  SVM is in api/svm.c,
 * sub-groups in api/subgroup.c, IL programs in api/program_il.c. */
#include "api/api.h"
#include "core/context.h"
#include "core/device.h"
#include "core/kernel.h"
#include "core/mem.h"
#include "core/program.h"
#include "core/queue.h"

/* ---- Pipes (CL_DEVICE_PIPE_SUPPORT is false) ---- */

CL_API_ENTRY cl_mem CL_API_CALL clCreatePipe(cl_context context, cl_mem_flags flags,
                                             cl_uint pipe_packet_size, cl_uint pipe_max_packets,
                                             const cl_pipe_properties *properties,
                                             cl_int *errcode_ret)
{
   (void)flags, (void)pipe_packet_size, (void)pipe_max_packets, (void)properties;
   if (!kiln_context_from(context))
      API_FAIL_RET(errcode_ret, CL_INVALID_CONTEXT, "%p is not a context", (void *)context);
   API_FAIL_RET(errcode_ret, CL_INVALID_OPERATION, "no device of the context has pipes");
}

CL_API_ENTRY cl_int CL_API_CALL clGetPipeInfo(cl_mem pipe, cl_pipe_info param_name,
                                              size_t param_value_size, void *param_value,
                                              size_t *param_value_size_ret)
{
   (void)param_name, (void)param_value_size, (void)param_value, (void)param_value_size_ret;
   /* clCreatePipe never succeeds, so no memory object is a pipe. */
   cl_mem m = kiln_mem_from(pipe);
   return API_FAIL(CL_INVALID_MEM_OBJECT, "%p is not a pipe%s", (void *)pipe,
                   m ? " (it is another memory object)" : "");
}

/* ---- Program-scope global constructors and destructors ---- */

CL_API_ENTRY cl_int CL_API_CALL clSetProgramReleaseCallback(
   cl_program program, void(CL_CALLBACK *pfn_notify)(cl_program, void *), void *user_data)
{
   (void)user_data;
   if (!kiln_program_from(program))
      return API_FAIL(CL_INVALID_PROGRAM, "%p is not a program", (void *)program);
   if (!pfn_notify)
      return API_FAIL(CL_INVALID_VALUE, "pfn_notify is NULL");
   /* 3.0 (5.8.1): CL_INVALID_OPERATION where no device of the program
    * supports program-scope global constructors and destructors. */
   return API_FAIL(CL_INVALID_OPERATION,
                   "no device of the program has program-scope global destructors");
}
