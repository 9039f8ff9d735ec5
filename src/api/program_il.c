/* clCreateProgramWithIL (and cl_khr_il_program's clCreateProgramWithILKHR,
 * the same function), clSetProgramSpecializationConstant.  A device takes
 * IL when its compiler does (kiln_llvm_il_versions: the CPU device, when
 * the SPIR-V translator is installed); without one, 3.0's answers for a
 * missing feature: CL_INVALID_OPERATION after the handle checks. */
#include "api/api.h"
#include "core/context.h"
#include "core/device.h"
#include "core/program.h"
#include "llvm/compiler.h"

/* The first of devices[0..n) that takes IL, or NULL. */
static cl_device_id il_device(cl_uint n, const cl_device_id *devices)
{
   for (cl_uint i = 0; i < n; i++)
      if (kiln_llvm_il_versions(devices[i]->caps->ir))
         return devices[i];
   return NULL;
}

CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithIL(cl_context context, const void *il,
                                                          size_t length, cl_int *errcode_ret)
{
   cl_context ctx = kiln_context_from(context);
   if (!ctx)
      API_FAIL_RET(errcode_ret, CL_INVALID_CONTEXT, "%p is not a context", (void *)context);
   if (!il || !length)
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "il %p, length %zu", il, length);
   cl_device_id dev = il_device(ctx->num_devices, ctx->devices);
   if (!dev)
      API_FAIL_RET(errcode_ret, CL_INVALID_OPERATION,
                   "no device of the context takes IL programs (docs/env.md: "
                   "KILN_LLVM_SPIRV)");
   /* The header is checked here; the rest of the module when the
    * translator reads it, at the build. */
   bool ok = false;
   for (cl_uint i = 0; i < ctx->num_devices && !ok; i++)
      ok = kiln_llvm_il_ok(ctx->devices[i]->caps->ir, il, length);
   if (!ok)
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "il is not a SPIR-V module of a version "
                   "%s takes (%s)", dev->caps->name, kiln_llvm_il_versions(dev->caps->ir));
   cl_program prog = NULL;
   cl_int err = kiln_program_create_il(ctx, il, length, &prog);
   if (err)
      API_FAIL_RET(errcode_ret, err, "out of host memory");
   kiln_set_error(errcode_ret, CL_SUCCESS);
   return prog;
}

CL_API_ENTRY cl_int CL_API_CALL clSetProgramSpecializationConstant(cl_program program,
                                                                   cl_uint spec_id,
                                                                   size_t spec_size,
                                                                   const void *spec_value)
{
   cl_program p = kiln_program_from(program);
   if (!p)
      return API_FAIL(CL_INVALID_PROGRAM, "%p is not a program", (void *)program);
   if (!il_device(p->num_devices, p->devices))
      return API_FAIL(CL_INVALID_OPERATION, "no device of the program takes IL programs");
   if (!p->il)
      return API_FAIL(CL_INVALID_PROGRAM, "the program was not created from IL");
   if (!spec_value)
      return API_FAIL(CL_INVALID_VALUE, "spec_value is NULL");
   cl_int err = kiln_program_set_spec_constant(p, spec_id, spec_size, spec_value);
   if (err)
      return API_FAIL(err, "specialization constant %u of %zu bytes", spec_id, spec_size);
   return CL_SUCCESS;
}
