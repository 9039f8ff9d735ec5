/* The CUDA winsys: one NVIDIA GPU reached through the CUDA driver API
 * (libcuda.so.1, cuda_api.h).  One primary context per device, device and
 * pinned host memory, streams, events, modules and launches.  Every CUDA
 * error becomes a CL error code, with the CUDA error's name in the
 * KILN_DEBUG=pipe log; an error that CUDA makes sticky (a faulting kernel:
 * CUDA_ERROR_ILLEGAL_ADDRESS and its family) marks the device lost, and
 * every later call on it fails with CL_OUT_OF_RESOURCES instead of
 * hanging.  Other devices keep working.
 *
 * Every function may be called from any thread: each makes the device's
 * context current for the duration of the call (push/pop, so that an
 * application's own CUDA or another OpenCL platform on the same thread
 * finds its context as it left it). */
#ifndef KILN_WINSYS_CUDA_WINSYS_H
#define KILN_WINSYS_CUDA_WINSYS_H

#include <CL/cl.h>
#include <stdbool.h>
#include <stdint.h>

#include "winsys/cuda/cuda_api.h"

struct cuda_winsys;

struct cuda_ws_info {
   char name[128];      /* cuDeviceGetName: "NVIDIA H100 80GB HBM3" */
   int ordinal;         /* the CUDA device number */
   int cc_major, cc_minor; /* compute capability: 9.0 is sm_90 */
   uint64_t total_mem;  /* bytes */
   int driver_version;  /* cuDriverGetVersion: 13000 for CUDA 13.0 */
};

/* Initialises CUDA and retains the primary context of every device, up to
 * max; returns how many.  A device that fails is skipped with a
 * KILN_DEBUG=pipe line; no device (or no driver) is not an error and
 * prints nothing. */
unsigned cuda_winsys_probe(const struct cuda_api *api, struct cuda_winsys **out, unsigned max);
/* Releases the primary context.  Everything created on it must be gone. */
void cuda_winsys_destroy(struct cuda_winsys *ws);
const struct cuda_ws_info *cuda_winsys_info(const struct cuda_winsys *ws);
/* cuDeviceGetAttribute, or fallback when CUDA does not know it. */
int cuda_ws_attribute(struct cuda_winsys *ws, int attrib, int fallback);
/* A sticky error was seen: the device runs nothing more. */
bool cuda_winsys_lost(const struct cuda_winsys *ws);

/* The CL error for a CUDA result, logged (call names the CUDA function):
 * CL_SUCCESS, CL_OUT_OF_RESOURCES for a sticky error (the device is then
 * lost), fallback for anything else (out_of_memory for
 * CUDA_ERROR_OUT_OF_MEMORY, when non-zero). */
cl_int cuda_ws_result(struct cuda_winsys *ws, CUresult r, const char *call, cl_int fallback,
                      cl_int out_of_memory);
/* CUDA's name of an error ("CUDA_ERROR_ILLEGAL_ADDRESS"), or "CUresult n". */
const char *cuda_ws_error_name(struct cuda_winsys *ws, CUresult r, char *buf, size_t size);

/* ---- memory ---- */

/* Device memory: CL_MEM_OBJECT_ALLOCATION_FAILURE when the GPU is full. */
cl_int cuda_ws_mem_alloc(struct cuda_winsys *ws, size_t size, CUdeviceptr *out);
void cuda_ws_mem_free(struct cuda_winsys *ws, CUdeviceptr ptr);
/* Pinned host memory (DMA at full speed, async copies truly async):
 * CL_OUT_OF_HOST_MEMORY when none is left. */
cl_int cuda_ws_host_alloc(struct cuda_winsys *ws, size_t size, void **out);
void cuda_ws_host_free(struct cuda_winsys *ws, void *ptr);
/* Pins application memory and maps it for the device: *out is its device
 * address.  CL_MEM_OBJECT_ALLOCATION_FAILURE when CUDA refuses (already
 * registered, not supported). */
cl_int cuda_ws_host_register(struct cuda_winsys *ws, void *ptr, size_t size, CUdeviceptr *out);
void cuda_ws_host_unregister(struct cuda_winsys *ws, void *ptr);

/* ---- streams and events ---- */

cl_int cuda_ws_stream_create(struct cuda_winsys *ws, CUstream *out);
void cuda_ws_stream_destroy(struct cuda_winsys *ws, CUstream stream);
cl_int cuda_ws_stream_sync(struct cuda_winsys *ws, CUstream stream);
/* Waits for all work of the device's primary context (every stream). */
cl_int cuda_ws_ctx_sync(struct cuda_winsys *ws);
/* Events with timing (cuEventElapsedTime: fence_times needs it), or
 * without (CU_EVENT_DISABLE_TIMING: cheaper to record, for fences nobody
 * times and for stream waits). */
cl_int cuda_ws_event_create(struct cuda_winsys *ws, bool timing, CUevent *out);
void cuda_ws_event_destroy(struct cuda_winsys *ws, CUevent event);
cl_int cuda_ws_event_record(struct cuda_winsys *ws, CUevent event, CUstream stream);
/* CL_SUCCESS once the event's work is done, 1 while it is not, a
 * negative CL error when it failed. */
cl_int cuda_ws_event_query(struct cuda_winsys *ws, CUevent event);
cl_int cuda_ws_event_sync(struct cuda_winsys *ws, CUevent event);
/* Milliseconds from start to end (both complete; negative when end came
 * first). */
cl_int cuda_ws_event_elapsed(struct cuda_winsys *ws, CUevent start, CUevent end, float *ms);

/* ---- transfers (recorded on a stream) ---- */

cl_int cuda_ws_copy_htod(struct cuda_winsys *ws, CUstream s, CUdeviceptr dst, const void *src,
                         size_t size);
cl_int cuda_ws_copy_dtoh(struct cuda_winsys *ws, CUstream s, void *dst, CUdeviceptr src,
                         size_t size);
cl_int cuda_ws_copy_dtod(struct cuda_winsys *ws, CUstream s, CUdeviceptr dst, CUdeviceptr src,
                         size_t size);
cl_int cuda_ws_copy_3d(struct cuda_winsys *ws, CUstream s, const CUDA_MEMCPY3D *copy);
/* count elements of elem_size (1, 2 or 4) bytes, each value. */
cl_int cuda_ws_memset(struct cuda_winsys *ws, CUstream s, CUdeviceptr dst, unsigned elem_size,
                      uint32_t value, size_t count);

/* ---- CUDA arrays, texture and surface objects (optional) ---- */

/* libcuda has every entry point below (cuda_api.h's optional ones). */
bool cuda_ws_has_images(const struct cuda_winsys *ws);
/* CL_MEM_OBJECT_ALLOCATION_FAILURE when the GPU is full,
 * CL_IMAGE_FORMAT_NOT_SUPPORTED when CUDA refuses the descriptor. */
cl_int cuda_ws_array_create(struct cuda_winsys *ws, const CUDA_ARRAY3D_DESCRIPTOR *desc,
                            CUarray *out);
void cuda_ws_array_destroy(struct cuda_winsys *ws, CUarray array);
cl_int cuda_ws_tex_create(struct cuda_winsys *ws, CUarray array, const CUDA_TEXTURE_DESC *desc,
                          CUtexObject *out);
void cuda_ws_tex_destroy(struct cuda_winsys *ws, CUtexObject tex);
cl_int cuda_ws_surf_create(struct cuda_winsys *ws, CUarray array, CUsurfObject *out);
void cuda_ws_surf_destroy(struct cuda_winsys *ws, CUsurfObject surf);
/* Work recorded on stream after this waits for event's work. */
cl_int cuda_ws_stream_wait(struct cuda_winsys *ws, CUstream stream, CUevent event);

/* ---- code ---- */

/* Loads PTX (NUL-terminated) or a cubin.  On failure *log (kiln_malloc'd,
 * may be NULL) holds the JIT's error log and the CUDA error's name;
 * CL_BUILD_PROGRAM_FAILURE for code the JIT refused, CL_OUT_OF_HOST_MEMORY
 * or CL_OUT_OF_RESOURCES for the rest. */
cl_int cuda_ws_module_load(struct cuda_winsys *ws, const void *image, CUmodule *out, char **log);
void cuda_ws_module_unload(struct cuda_winsys *ws, CUmodule module);
/* CL_INVALID_KERNEL_NAME when the module has no such kernel. */
cl_int cuda_ws_function(struct cuda_winsys *ws, CUmodule module, const char *name,
                        CUfunction *out);
/* The address and size of a global the module defines: CL_INVALID_VALUE
 * when it has none of that name. */
cl_int cuda_ws_module_global(struct cuda_winsys *ws, CUmodule module, const char *name,
                             CUdeviceptr *out, size_t *size);
/* cuFuncGetAttribute, or fallback when CUDA cannot tell. */
int cuda_ws_function_attribute(struct cuda_winsys *ws, CUfunction f, int attrib, int fallback);
cl_int cuda_ws_function_set_attribute(struct cuda_winsys *ws, CUfunction f, int attrib,
                                      int value);
cl_int cuda_ws_launch(struct cuda_winsys *ws, CUstream s, CUfunction f, const unsigned grid[3],
                      const unsigned block[3], unsigned shared_bytes, void **params);

#endif
