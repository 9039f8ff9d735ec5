/* A fake libcuda behind src/winsys/cuda's function table (cuda_api.h):
 * GPUs with attributes, primary contexts with a per-thread current
 * stack, device memory (host memory at addresses no host pointer has),
 * pinned and registered host memory, streams whose work runs later (when
 * something waits for it), events with device times, modules and
 * launches.  It cannot run PTX: a module is text naming its entries
 * (".entry name("), and a test defines each kernel's parameter sizes and
 * a host function that does its work from the recorded parameters.
 *
 * Like the real driver, copies from pageable host memory read it at the
 * call, copies to pageable host memory wait for the stream, and pinned
 * memory is read or written only when the stream runs (so a driver that
 * frees a staging buffer too early is caught: use_after_free counts it).
 * Faults make the context sticky as CUDA does: every later call on it
 * fails with the fault's error.  Failures are injected per function. */
#ifndef KILN_TESTS_FAKE_CUDA_H
#define KILN_TESTS_FAKE_CUDA_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "winsys/cuda/cuda_api.h"

#define FAKE_CUDA_MAX_DEVICES 4
#define FAKE_CUDA_MAX_KERNELS 16
#define FAKE_CUDA_MAX_PARAMS 64
#define FAKE_CUDA_MAX_LAUNCHES 64
#define FAKE_CUDA_NUM_ATTRS 128

struct fake_cuda_launch;
/* Runs a launch on the host: read the parameters with
 * fake_cuda_param(), reach device memory with fake_cuda_ptr(). */
typedef void (*fake_cuda_kernel_fn)(const struct fake_cuda_launch *launch);

struct fake_cuda_kernel {
   const char *name;
   unsigned num_params;
   unsigned param_size[FAKE_CUDA_MAX_PARAMS];
   fake_cuda_kernel_fn run; /* NULL: the launch does nothing */
   int max_threads;         /* CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK */
   int static_shared;       /* CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES */
   int local_bytes;         /* CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES */
   /* The launch faults when it runs (CUDA_ERROR_ILLEGAL_ADDRESS...): the
    * call succeeds, the context turns sticky later. */
   CUresult fault;
};

struct fake_cuda_launch {
   const struct fake_cuda_kernel *kernel;
   int device;
   unsigned grid[3], block[3], shared_bytes;
   int max_dynamic_shared; /* the function's attribute at the launch */
   unsigned num_params;
   unsigned param_offset[FAKE_CUDA_MAX_PARAMS];
   unsigned char params[4096 + 64]; /* the values, packed back to back */
   bool ran;
   pthread_t thread; /* that called cuLaunchKernel */
};

struct fake_cuda_device {
   char name[128];
   size_t total_mem, used_mem;
   int attr[FAKE_CUDA_NUM_ATTRS];
   bool has_attr[FAKE_CUDA_NUM_ATTRS];
   /* Set by the fake. */
   int primary_refs;
   CUresult sticky; /* the fault that broke the context */
};

struct fake_cuda_state {
   struct fake_cuda_device devices[FAKE_CUDA_MAX_DEVICES];
   unsigned num_devices;
   CUresult init_result; /* what cuInit returns */
   struct fake_cuda_kernel kernels[FAKE_CUDA_MAX_KERNELS];
   unsigned num_kernels;
   struct fake_cuda_launch launches[FAKE_CUDA_MAX_LAUNCHES];
   unsigned num_launches;

   /* The n-th call (from 1) that allocates anything (device or host
    * memory, a registration, a stream, an event, a module) fails with
    * CUDA_ERROR_OUT_OF_MEMORY; 0 for none.  allocs counts them. */
   unsigned oom_at, allocs;
   /* Module loads fail with this (and write jit_log into the error log
    * buffer the caller passed). */
   CUresult module_error;
   const char *jit_log;
   /* cuEventQuery says NOT_READY while work is queued (the GPU makes no
    * progress of its own); waits still run it. */
   bool hold;
   /* Simulated device duration of every launch, in ns. */
   uint64_t launch_ns;

   /* The image of the latest successful cuModuleLoadDataEx (a copy, kept
    * after the module is unloaded), and how many loads succeeded. */
   char *last_module;
   unsigned modules_loaded;

   /* The table has no CUDA array, texture or surface entry points (an
    * older libcuda: images stay linear). */
   bool no_images;

   /* Counters. */
   unsigned arrays_created, arrays_destroyed;
   unsigned tex_created, tex_destroyed;
   unsigned surf_created, surf_destroyed;
   unsigned array_copies; /* cuMemcpy3DAsync calls with an array side */
   unsigned stream_waits; /* cuStreamWaitEvent calls */
   unsigned use_after_free; /* queued work touched freed pinned memory */
   unsigned elapsed_calls;
   unsigned event_records; /* cuEventRecord calls */
   pthread_t dtoh_thread;  /* that called cuMemcpyDtoHAsync last */
   unsigned untimed_records; /* of those, of CU_EVENT_DISABLE_TIMING events */
   unsigned stream_syncs;    /* cuStreamSynchronize calls */
   /* With watch_thread, cuEventRecord calls made by thread watched: what
    * one thread records, whatever the completer thread does meanwhile. */
   atomic_bool watch_thread; /* set after watched, read before it */
   pthread_t watched;
   unsigned watched_records;
};

extern struct fake_cuda_state fake_cuda;

/* Forgets everything (tests check fake_cuda_live() first). */
void fake_cuda_reset(void);
/* An H100-like GPU: sm_90, 132 SMs, 80 GiB, Hopper's limits. */
struct fake_cuda_device *fake_cuda_add_device(const char *name);
/* The name most tests give it. */
#define FAKE_CUDA_H100 "NVIDIA H100 80GB HBM3"
/* fake_cuda_reset(), then n GPUs named FAKE_CUDA_H100. */
void fake_cuda_reset_h100s(unsigned n);
/* For teardowns: 0 when the driver gave back everything it took (no
 * fake_cuda_live() object, no context left pushed on this thread, no
 * queued work that touched freed pinned memory, as many CUDA arrays,
 * texture and surface objects destroyed as created); else -1 after
 * printing what is left on stderr. */
int fake_cuda_check_clean(void);
void fake_cuda_set_attr(struct fake_cuda_device *d, int attrib, int value);
const struct cuda_api *fake_cuda_table(void);
/* Objects the driver still holds: allocations, pinned and registered
 * memory, streams, events, modules, primary context references.  0 after
 * a clean teardown. */
unsigned fake_cuda_live(void);
/* Device memory in use on a device, in bytes. */
size_t fake_cuda_used(int device);
/* Contexts pushed on this thread and not popped (0 between driver calls). */
int fake_cuda_ctx_depth(void);

/* Defines a kernel that modules may contain (by name). */
struct fake_cuda_kernel *fake_cuda_define_kernel(const char *name, unsigned num_params,
                                                 const unsigned *param_size,
                                                 fake_cuda_kernel_fn run);
/* Parameter i of a launch (size bytes, which must be its size). */
void fake_cuda_param(const struct fake_cuda_launch *l, unsigned i, void *out, size_t size);
/* Host memory behind a device (or mapped host) address with size bytes
 * valid; NULL if none. */
void *fake_cuda_ptr(uint64_t address, size_t size);
/* The device whose memory holds [address, address + size): -1 for host
 * memory (pinned, registered: every device reaches it), -2 for none.  A
 * kernel of one GPU cannot dereference another's memory (no peer
 * access), which a test's kernel functions check. */
int fake_cuda_ptr_device(uint64_t address, size_t size);

/* A CUDA array's bytes, rows of Width * element bytes packed, a row per
 * (y, layer or z); NULL when it is no live array.  *size: their number;
 * *desc: what it was created with. */
void *fake_cuda_array_bytes(CUarray array, size_t *size, CUDA_ARRAY3D_DESCRIPTOR *desc);
/* What a live texture object was created with: false when it is none. */
bool fake_cuda_tex_info(CUtexObject tex, CUarray *array, CUDA_TEXTURE_DESC *desc);
/* The array of a live surface object, NULL when it is none. */
CUarray fake_cuda_surf_array(CUsurfObject surf);

/* The next call of the named function (its table name: "cuMemAlloc")
 * returns error instead of working. */
void fake_cuda_fail(const char *function, CUresult error);

#endif
