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

   pthread_mutex_t lock; /* events[], the calibration, sync_stream */
   /* Held for reading by every copy that takes a host pointer, for
    * writing while registered user memory is unregistered: CUDA copies
    * straight from (or to) pages it finds registered, and unregistering
    * them under a copy in flight faults the context
    * (CUDA_ERROR_LAUNCH_FAILED; docs/cuda.md). */
   pthread_rwlock_t host_lock;
   /* Unused events for fences, with timing ([1]) and without ([0]). */
   struct cuda_event_pool {
      CUevent *events;
      unsigned num, max;
   } pools[2];
   /* Device time to host time: calib_event completed at host time
    * calib_host_ns (fence_times). */
   CUstream calib_stream;
   CUevent calib_event;
   uint64_t calib_host_ns;
   bool calibrated;

   /* For copies the host waits for at once (cuda_screen_read_now,
    * cuda_screen_write_now): never behind a queue's work.  Made at the
    * first, under lock. */
   CUstream sync_stream;

   /* CUDA_IMAGES_*: whether images get CUDA arrays (cuda_image.c). */
   int images_mode;

   /* printf (cuda_printf.c): a launch buffer kept for the next launch;
    * the lock also keeps two launches' output apart. */
   pthread_mutex_t printf_lock;
   CUdeviceptr printf_spare;
};

static inline struct cuda_screen *cuda_screen(struct pipe_screen *s)
{
   return (struct cuda_screen *)s;
}

struct cuda_image_desc;

struct cuda_resource {
   struct pipe_resource base;
   CUdeviceptr ptr;
   void *host; /* user memory registered with CUDA; NULL for device memory */
   /* Descriptors of the image views launches used (cuda_image.c). */
   pthread_mutex_t lock;
   struct cuda_image_desc *images;
   /* Bumped by every recorded write of the resource: the CUDA arrays that
    * mirror an image in it hold the texels of one generation. */
   atomic_uint_fast64_t gen;
};

static inline struct cuda_resource *cuda_resource(struct pipe_resource *r)
{
   return (struct cuda_resource *)r;
}

/* Work recorded that may change res's bytes (a copy or fill into it, a
 * launch that may write it): its image mirrors are out of date. */
static inline void cuda_resource_written(struct pipe_resource *res)
{
   atomic_fetch_add(&cuda_resource(res)->gen, 1);
}

/* All the work of one flush: events around it on the context's stream,
 * and the first error seen while recording it. */
struct pipe_fence {
   CUevent start, end; /* NULL when the fence carries only an error */
   bool timed_end;     /* end has timing (the fence has a start) */
   cl_int record_error;
   atomic_int state; /* FENCE_BUSY, PIPE_FENCE_SIGNALLED, or a CL error */
   /* Launches whose printf output prints when the fence is first seen
    * signalled (under the screen's printf_lock). */
   struct cuda_printf_job *printf_jobs;
};

struct cuda_program;
struct cuda_printf_job;
struct cuda_printf_table;

struct cuda_kernel {
   CUfunction function;
   struct cuda_kernel *next; /* the program's list */
   int static_shared;        /* CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES */
   int max_threads;          /* CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK */
   int local_bytes;          /* CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES */
   atomic_int dynamic_optin; /* the dynamic shared memory opted in to so far */
   struct cuda_program *program;
};

struct cuda_program {
   CUmodule module;
   pthread_mutex_t lock;
   struct cuda_kernel *kernels;
   struct cuda_printf_table *printf_table; /* NULL: no kernel calls printf */
};

struct cuda_context {
   struct pipe_context base;
   struct cuda_screen *screen;
   CUstream stream;
   /* Recorded at the first work after the last fenced flush when the
    * context is timed (pipe_context::timed): the fence's start time.
    * Without it the fence has no times, and a launch costs one
    * cuEventRecord fewer. */
   CUevent start;
   /* Work was recorded since the last fenced flush. */
   bool unfenced;
   /* The first error of the work recorded since then; the fence reports
    * it. */
   cl_int error;
   /* Work was recorded that no signalled fence is known to cover. */
   bool recorded;
   /* A pinned staging buffer kept for the next transfer_map. */
   void *staging;
   size_t staging_size;
   bool staging_busy;
   /* Launches with printf output recorded since the last fenced flush, in
    * launch order. */
   struct cuda_printf_job *printf_jobs;
};

static inline struct cuda_context *cuda_context(struct pipe_context *c)
{
   return (struct cuda_context *)c;
}

/* cuda_screen.c: copies between host memory and the device that are
 * done when they return. */
cl_int cuda_screen_read_now(struct cuda_screen *s, void *dst, CUdeviceptr src, size_t size);
cl_int cuda_screen_write_now(struct cuda_screen *s, CUdeviceptr dst, const void *src, size_t size);

/* cuda_image.c */
enum {
   CUDA_IMAGES_TEXTURE,   /* CUDA arrays and texture/surface objects where exact */
   CUDA_IMAGES_NO_FILTER, /* the same, but LINEAR samplers read in software */
   CUDA_IMAGES_LINEAR,    /* every image linear, read and written in software */
};
/* KILN_CUDA_IMAGES (docs/env.md). */
int cuda_images_mode_from_env(void);
/* The device address of the descriptor of view (struct kiln_image_hw),
 * whose element (0, 0, 0) is offset bytes into res, for a launch on c
 * that reads (write false) or writes it; its CUDA array, if it has one,
 * is brought up to date on c's stream first.  *written non-NULL: the
 * kernel writes the array, and cuda_image_written(c, res, *written) must
 * follow the launch. */
cl_int cuda_image_bind(struct cuda_context *c, struct pipe_resource *res, size_t offset,
                       const struct pipe_image_view *view, bool write, uint64_t *address,
                       void **written);
/* Copies what the kernel wrote into the array back to res. */
cl_int cuda_image_written(struct cuda_context *c, struct pipe_resource *res, void *written);
void cuda_image_free_descriptors(struct cuda_screen *s, struct cuda_resource *r);

/* cuda_caps.c */
void cuda_fill_caps(struct cuda_screen *s, struct pipe_caps *caps);

/* cuda_fence.c */
/* An event for a fence or a context (from the screen's pools), with
 * timing (a fence's times) or without (cheaper to record: fences nobody
 * times, stream waits); back to the pool it came from. */
cl_int cuda_screen_get_event(struct cuda_screen *s, bool timing, CUevent *out);
void cuda_screen_put_event(struct cuda_screen *s, bool timing, CUevent event);
void cuda_screen_free_events(struct cuda_screen *s);
void cuda_fence_init_screen(struct cuda_screen *s);

/* cuda_context.c */
struct pipe_context *cuda_context_create(struct pipe_screen *screen);
/* Called before any work is recorded: stamps the fence's start. */
void cuda_context_begin_work(struct cuda_context *c);
/* Keeps the first error of the work since the last fence. */
void cuda_context_error(struct cuda_context *c, cl_int err);

/* cuda_printf.c */
/* Copies the module's printf table, if it has one. */
cl_int cuda_printf_program_init(struct cuda_screen *s, struct cuda_program *p);
void cuda_printf_program_fini(struct cuda_program *p);
/* A buffer for one launch of p's kernel, its header written on c's
 * stream; *address is the kernel's hidden parameter. */
cl_int cuda_printf_job_create(struct cuda_context *c, struct cuda_program *p,
                              struct cuda_printf_job **out, uint64_t *address);
/* j goes with the context's next fence, which prints it if launched. */
void cuda_printf_job_push(struct cuda_context *c, struct cuda_printf_job *j, bool launched);
/* The context's jobs, for a fence. */
struct cuda_printf_job *cuda_printf_take(struct cuda_context *c);
/* The jobs' work is done (print: and succeeded): print their output and
 * free them. */
void cuda_printf_finish(struct cuda_screen *s, struct cuda_printf_job *jobs, bool print);
/* The fence's work ended in state: prints its jobs' output when it
 * signalled, then publishes state. */
void cuda_printf_fence_done(struct cuda_screen *s, struct pipe_fence *f, int state);
void cuda_printf_screen_fini(struct cuda_screen *s);

/* cuda_program.c */
void cuda_program_init_screen(struct cuda_screen *s);
int cuda_launch_grid(struct pipe_context *ctx, const struct pipe_grid_info *info);

#endif
