/* Driver-internal: shared by the files of src/pipe/cuda. */
#ifndef KILN_PIPE_CUDA_PRIV_H
#define KILN_PIPE_CUDA_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "pipe/pipe.h"
#include "winsys/cuda/cuda_winsys.h"

struct cuda_api_shared;

struct cuda_screen {
   struct pipe_screen base;
   struct cuda_winsys *ws;
   struct cuda_api_shared *api;
   /* Limits launch_grid checks before CUDA would refuse. */
   unsigned max_grid[3];
   unsigned warp_size;
   size_t max_pitch;        /* of a cuMemcpy3D side */
   unsigned shared_default; /* dynamic + static shared memory without opt-in */
   unsigned shared_optin;   /* the most a kernel may opt in to */

   pthread_mutex_t lock; /* events[], the calibration */
   CUevent *events;      /* unused events, for fences */
   unsigned num_events, max_events;
   /* Device time to host time: calib_event completed at host time
    * calib_host_ns (fence_times). */
   CUstream calib_stream;
   CUevent calib_event;
   uint64_t calib_host_ns;
   bool calibrated;
};

static inline struct cuda_screen *cuda_screen(struct pipe_screen *s)
{
   return (struct cuda_screen *)s;
}

struct cuda_resource {
   struct pipe_resource base;
   CUdeviceptr ptr;
   void *host; /* user memory registered with CUDA; NULL for device memory */
};

static inline struct cuda_resource *cuda_resource(struct pipe_resource *r)
{
   return (struct cuda_resource *)r;
}

/* All the work of one flush: events around it on the context's stream,
 * and the first error seen while recording it. */
struct pipe_fence {
   CUevent start, end; /* NULL when the fence carries only an error */
   cl_int record_error;
   atomic_int state; /* FENCE_BUSY, PIPE_FENCE_SIGNALLED, or a CL error */
};

struct cuda_program;

struct cuda_kernel {
   CUfunction function;
   struct cuda_kernel *next; /* the program's list */
   int static_shared;        /* CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES */
   int max_threads;          /* CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK */
   atomic_int dynamic_optin; /* the dynamic shared memory opted in to so far */
};

struct cuda_program {
   CUmodule module;
   pthread_mutex_t lock;
   struct cuda_kernel *kernels;
};

struct cuda_context {
   struct pipe_context base;
   struct cuda_screen *screen;
   CUstream stream;
   /* Recorded at the first work after the last fenced flush: the fence's
    * start time. */
   CUevent start;
   /* The first error of the work recorded since then; the fence reports
    * it. */
   cl_int error;
   /* Work was recorded that no signalled fence is known to cover. */
   bool recorded;
   /* A pinned staging buffer kept for the next transfer_map. */
   void *staging;
   size_t staging_size;
   bool staging_busy;
};

static inline struct cuda_context *cuda_context(struct pipe_context *c)
{
   return (struct cuda_context *)c;
}

/* cuda_caps.c */
void cuda_fill_caps(struct cuda_screen *s, struct pipe_caps *caps);

/* cuda_fence.c */
/* An event for a fence or a context (from the screen's pool). */
cl_int cuda_screen_get_event(struct cuda_screen *s, CUevent *out);
void cuda_screen_put_event(struct cuda_screen *s, CUevent event);
void cuda_screen_free_events(struct cuda_screen *s);
void cuda_fence_init_screen(struct cuda_screen *s);

/* cuda_context.c */
struct pipe_context *cuda_context_create(struct pipe_screen *screen);
/* Called before any work is recorded: stamps the fence's start. */
void cuda_context_begin_work(struct cuda_context *c);
/* Keeps the first error of the work since the last fence. */
void cuda_context_error(struct cuda_context *c, cl_int err);

/* cuda_program.c */
void cuda_program_init_screen(struct cuda_screen *s);
int cuda_launch_grid(struct pipe_context *ctx, const struct pipe_grid_info *info);

#endif
