/* Regression from fuzz_set_kernel_arg: a cl_mem handle whose value is 1.
 *
 * The handle registry (src/core/object.c) marks freed slots with
 * TOMBSTONE, which is (struct kiln_object *)1.  registry_find compares
 * the handle with each slot of its probe chain, so the handle 1 "finds" a
 * tombstone, and kiln_object_lookup then reads ((struct kiln_object *)1)
 * ->type: SIGSEGV at address 0x9 from any entry point given (void *)1
 * (found as clSetKernelArg(k, i, sizeof(cl_mem), &(cl_mem){1})).
 *
 * Whether the chain of 1 meets a tombstone depends on where objects sit,
 * so each round releases a batch of objects at new addresses, leaving
 * tombstones in about a quarter of the table, and tries again: a hundred
 * rounds miss with probability below 1e-12. */
#include <stdio.h>
#include <stdlib.h>

#include <CL/cl.h>

#include "core/object.h"

#define ROUNDS 100
#define BATCH 60

static struct kiln_object objects[ROUNDS][BATCH];

static void nothing(struct kiln_object *obj)
{
   (void)obj;
}

int main(void)
{
   /* The platform first: it installs the dispatch table and makes the
    * registry hold real objects too. */
   cl_platform_id plat = NULL;
   clGetPlatformIDs(1, &plat, NULL);
   for (int r = 0; r < ROUNDS; r++) {
      for (int i = 0; i < BATCH; i++)
         if (!kiln_object_init(&objects[r][i], KILN_TYPE_SAMPLER, nothing)) {
            fprintf(stderr, "kiln_object_init failed\n");
            return 1;
         }
      for (int i = 0; i < BATCH; i++)
         kiln_object_release(&objects[r][i]);
      for (enum kiln_type t = KILN_TYPE_PLATFORM; t <= KILN_TYPE_SAMPLER; t++)
         if (kiln_object_lookup((void *)1, t)) {
            fprintf(stderr, "handle 1 found as type %#x\n", t);
            return 1;
         }
      cl_int err = clRetainMemObject((cl_mem)1);
      if (err != CL_INVALID_MEM_OBJECT) {
         fprintf(stderr, "clRetainMemObject((cl_mem)1): %d\n", err);
         return 1;
      }
      err = clRetainContext((cl_context)1);
      if (err != CL_INVALID_CONTEXT) {
         fprintf(stderr, "clRetainContext((cl_context)1): %d\n", err);
         return 1;
      }
   }
   printf("handle 1: refused in %d rounds\n", ROUNDS);
   return 0;
}
