/* Entry points of OpenCL 3.0's optional features that no Kiln device
 * has: program-scope global constructors and destructors.  3.0 keeps these in every implementation and
 * says exactly what each returns when the feature is missing (mostly
 * CL_INVALID_OPERATION, after the handle checks); the matching device
 * queries say the feature is absent (api/device.c).  Pipes are in
 * api/pipe.c, on-device queues in api/queue.c.  docs/conformance.md lists them.  SVM is in api/svm.c,
 * sub-groups in api/subgroup.c, IL programs in api/program_il.c. */
#include "api/api.h"
#include "core/context.h"
#include "core/device.h"
#include "core/kernel.h"
#include "core/mem.h"
#include "core/program.h"
#include "core/queue.h"

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
