/* Programs of intermediate language (OpenCL 2.1 / 3.0, cl_khr_il_program):
 * SPIR-V kept as given, built per device by the compiler
 * (kiln_llvm_build_il), with the specialization constants the
 * application sets.  Only devices whose compiler takes SPIR-V build it
 * (CL_DEVICE_IL_VERSION); the others fail the build with a log line. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/context.h"
#include "core/program.h"
#include "llvm/compiler.h"
#include "util/alloc.h"

/* The module's constants (ids and byte sizes, asked of the translator at
 * the first clSetProgramSpecializationConstant) and the values set. */
#define MAX_SPEC 256

struct kiln_spec_constants {
   int n;
   unsigned ids[MAX_SPEC], sizes[MAX_SPEC];
   uint64_t values[MAX_SPEC];
   bool set[MAX_SPEC];
};

cl_int kiln_program_create_il(cl_context ctx, const void *il, size_t size, cl_program *out)
{
   void *copy = kiln_malloc(size);
   if (!copy)
      return CL_OUT_OF_HOST_MEMORY;
   memcpy(copy, il, size);
   cl_program prog = kiln_program_new(ctx, ctx->num_devices, ctx->devices);
   if (!prog) {
      kiln_free(copy);
      return CL_OUT_OF_HOST_MEMORY;
   }
   prog->il = copy;
   prog->il_size = size;
   *out = prog;
   return CL_SUCCESS;
}

cl_int kiln_program_set_spec_constant(cl_program prog, cl_uint spec_id, size_t spec_size,
                                      const void *spec_value)
{
   pthread_mutex_lock(&prog->lock);
   cl_int err = CL_SUCCESS;
   if (!prog->spec) {
      struct kiln_spec_constants *s = kiln_calloc(1, sizeof(*s));
      if (!s) {
         err = CL_OUT_OF_HOST_MEMORY;
      } else {
         /* A module the translator cannot read has no constants: every
          * id is unknown to it. */
         s->n = kiln_llvm_il_spec_constants(prog->il, prog->il_size, s->ids, s->sizes,
                                            MAX_SPEC);
         if (s->n < 0)
            s->n = 0;
         prog->spec = s;
      }
   }
   struct kiln_spec_constants *s = prog->spec;
   int k = -1;
   for (int i = 0; s && i < s->n && k < 0; i++)
      if (s->ids[i] == spec_id)
         k = i;
   if (!err && k < 0)
      err = CL_INVALID_SPEC_ID;
   else if (!err && (spec_size != s->sizes[k] || spec_size > 8))
      err = CL_INVALID_VALUE;
   if (!err) {
      uint64_t v = 0;
      memcpy(&v, spec_value, spec_size); /* little-endian: the low bytes */
      s->values[k] = v;
      s->set[k] = true;
   }
   pthread_mutex_unlock(&prog->lock);
   return err;
}

/* kiln_program_spec_arg with prog->lock held. */
static char *spec_arg(cl_program prog, bool *oom)
{
   *oom = false;
   const struct kiln_spec_constants *s = prog->spec;
   size_t n = 0;
   for (int i = 0; s && i < s->n; i++)
      n += s->set[i];
   if (!n)
      return NULL;
   /* "--spec-const=" then "<id>:i<bits>:<value>" each: the translator
    * checks only the size against the module's, so an integer of the
    * constant's width carries a float's bits as well. */
   size_t cap = 16 + n * 48;
   char *arg = kiln_malloc(cap);
   if (!arg) {
      *oom = true;
      return NULL;
   }
   size_t len = (size_t)snprintf(arg, cap, "--spec-const=");
   const char *sep = "";
   for (int i = 0; i < s->n; i++) {
      if (!s->set[i])
         continue;
      unsigned bits = s->sizes[i] * 8;
      uint64_t v = bits < 64 ? s->values[i] & ((UINT64_C(1) << bits) - 1) : s->values[i];
      if (v < UINT64_C(10000000000000000)) {
         len += (size_t)snprintf(arg + len, cap - len, "%s%u:i%u:%" PRIu64, sep, s->ids[i],
                                 bits, v);
      } else {
         /* llvm-spirv-15 takes no integer of more than 16 digits, but
          * a double's bits for any 8-byte constant: exact as a hex
          * float.  (A NaN's payload is lost: it reads "nan".) */
         double d;
         memcpy(&d, &v, sizeof(d));
         len += (size_t)snprintf(arg + len, cap - len, "%s%u:f64:%a", sep, s->ids[i], d);
      }
      sep = " ";
   }
   return arg;
}

cl_int kiln_program_spec_arg(cl_program prog, char **out)
{
   *out = NULL;
   if (!prog->il)
      return CL_SUCCESS;
   bool oom;
   pthread_mutex_lock(&prog->lock);
   *out = spec_arg(prog, &oom);
   pthread_mutex_unlock(&prog->lock);
   return oom ? CL_OUT_OF_HOST_MEMORY : CL_SUCCESS;
}
