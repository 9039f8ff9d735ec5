/* One pipe context's ring (an amdgpu context of its own) and what its
 * submissions hold until they end: launches are submitted without
 * waiting, so their IB, kernarg and scratch BOs live until a fence of
 * the ring is seen signalled (by whichever thread waits).  Fences keep
 * the queue alive after its context is gone. */
#ifndef KILN_PIPE_AMDGPU_QUEUE_H
#define KILN_PIPE_AMDGPU_QUEUE_H

#include <CL/cl.h>
#include <stdbool.h>
#include <stdint.h>

struct amdgpu_screen;
struct amdgpu_ws_bo;
struct amdgpu_queue;

/* BOs a submission owns: freed once it ended. */
#define AMDGPU_QUEUE_MAX_OWN 3

cl_int amdgpu_queue_create(struct amdgpu_screen *s, struct amdgpu_queue **out);
/* Drops the context's reference (fences hold their own). */
void amdgpu_queue_release(struct amdgpu_queue *q);

/* Submits ib (ib_dwords) with bos resident.  On success the queue owns
 * own[0..num_own) and frees them when the submission has ended; on
 * failure they are still the caller's. */
cl_int amdgpu_queue_submit(struct amdgpu_queue *q, struct amdgpu_ws_bo *ib, uint32_t ib_dwords,
                           struct amdgpu_ws_bo *const *bos, unsigned num_bos,
                           struct amdgpu_ws_bo *const *own, unsigned num_own);

/* Waits until everything submitted so far has ended (up to the screen's
 * hang timeout): CL_SUCCESS, or CL_OUT_OF_RESOURCES (hung or lost GPU). */
cl_int amdgpu_queue_idle(struct amdgpu_queue *q);

/* A fence for everything submitted so far; *fence NULL when all of it
 * has ended already.  CL_OUT_OF_HOST_MEMORY when no fence could be
 * made (the caller then waits with amdgpu_queue_idle). */
struct pipe_fence;
cl_int amdgpu_queue_fence(struct amdgpu_queue *q, cl_int error, struct pipe_fence **fence);

#endif
