/* The CUDA calls of the winsys: memory, streams, events, transfers,
 * modules and launches, each under the device's context and with its
 * CUDA error mapped to a CL one. */
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/log.h"
#include "winsys/cuda/cuda_winsys_priv.h"

/* One CUDA call under the device's context (cuda_ws_enter): the
 * CUresult, or the push's own failure. */
#define WS_CALL(ws, r, call)                                                                  \
   do {                                                                                       \
      bool pushed_;                                                                           \
      r = cuda_ws_enter(ws, &pushed_);                                                        \
      if (r == CUDA_SUCCESS) {                                                                \
         r = (ws)->api->call;                                                                 \
         if (pushed_)                                                                         \
            cuda_ws_leave(ws);                                                                \
      }                                                                                       \
   } while (0)

/* ---- memory ---- */

cl_int cuda_ws_mem_alloc(struct cuda_winsys *ws, size_t size, CUdeviceptr *out)
{
   CUresult r;
   WS_CALL(ws, r, cuMemAlloc(out, size ? size : 1));
   return cuda_ws_result(ws, r, "cuMemAlloc", CL_OUT_OF_RESOURCES,
                         CL_MEM_OBJECT_ALLOCATION_FAILURE);
}

void cuda_ws_mem_free(struct cuda_winsys *ws, CUdeviceptr ptr)
{
   CUresult r;
   WS_CALL(ws, r, cuMemFree(ptr));
   cuda_ws_result(ws, r, "cuMemFree", CL_OUT_OF_RESOURCES, 0);
}

cl_int cuda_ws_host_alloc(struct cuda_winsys *ws, size_t size, void **out)
{
   CUresult r;
   /* PORTABLE: staging may serve a copy to another device's context. */
   WS_CALL(ws, r, cuMemHostAlloc(out, size ? size : 1, CU_MEMHOSTALLOC_PORTABLE));
   return cuda_ws_result(ws, r, "cuMemHostAlloc", CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY);
}

void cuda_ws_host_free(struct cuda_winsys *ws, void *ptr)
{
   CUresult r;
   WS_CALL(ws, r, cuMemFreeHost(ptr));
   cuda_ws_result(ws, r, "cuMemFreeHost", CL_OUT_OF_RESOURCES, 0);
}

cl_int cuda_ws_host_register(struct cuda_winsys *ws, void *ptr, size_t size, CUdeviceptr *out)
{
   CUresult r;
   WS_CALL(ws, r, cuMemHostRegister(ptr, size, CU_MEMHOSTREGISTER_DEVICEMAP));
   cl_int err = cuda_ws_result(ws, r, "cuMemHostRegister", CL_MEM_OBJECT_ALLOCATION_FAILURE,
                               CL_MEM_OBJECT_ALLOCATION_FAILURE);
   if (err)
      return err;
   WS_CALL(ws, r, cuMemHostGetDevicePointer(out, ptr, 0));
   err = cuda_ws_result(ws, r, "cuMemHostGetDevicePointer", CL_MEM_OBJECT_ALLOCATION_FAILURE,
                        CL_MEM_OBJECT_ALLOCATION_FAILURE);
   if (err)
      cuda_ws_host_unregister(ws, ptr);
   return err;
}

cl_int cuda_ws_ctx_sync(struct cuda_winsys *ws)
{
   CUresult r;
   WS_CALL(ws, r, cuCtxSynchronize());
   return cuda_ws_result(ws, r, "cuCtxSynchronize", CL_OUT_OF_RESOURCES, 0);
}

void cuda_ws_host_unregister(struct cuda_winsys *ws, void *ptr)
{
   CUresult r;
   WS_CALL(ws, r, cuMemHostUnregister(ptr));
   cuda_ws_result(ws, r, "cuMemHostUnregister", CL_OUT_OF_RESOURCES, 0);
}

/* ---- streams and events ---- */

cl_int cuda_ws_stream_create(struct cuda_winsys *ws, CUstream *out)
{
   CUresult r;
   /* Not synchronised with the legacy NULL stream, which an application's
    * own CUDA code may use in the same context. */
   WS_CALL(ws, r, cuStreamCreate(out, CU_STREAM_NON_BLOCKING));
   return cuda_ws_result(ws, r, "cuStreamCreate", CL_OUT_OF_RESOURCES, CL_OUT_OF_RESOURCES);
}

void cuda_ws_stream_destroy(struct cuda_winsys *ws, CUstream stream)
{
   CUresult r;
   WS_CALL(ws, r, cuStreamDestroy(stream));
   cuda_ws_result(ws, r, "cuStreamDestroy", CL_OUT_OF_RESOURCES, 0);
}

cl_int cuda_ws_stream_sync(struct cuda_winsys *ws, CUstream stream)
{
   CUresult r;
   WS_CALL(ws, r, cuStreamSynchronize(stream));
   return cuda_ws_result(ws, r, "cuStreamSynchronize", CL_OUT_OF_RESOURCES, 0);
}

cl_int cuda_ws_event_create(struct cuda_winsys *ws, bool timing, CUevent *out)
{
   CUresult r;
   WS_CALL(ws, r, cuEventCreate(out, timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING));
   return cuda_ws_result(ws, r, "cuEventCreate", CL_OUT_OF_RESOURCES, CL_OUT_OF_RESOURCES);
}

void cuda_ws_event_destroy(struct cuda_winsys *ws, CUevent event)
{
   CUresult r;
   WS_CALL(ws, r, cuEventDestroy(event));
   cuda_ws_result(ws, r, "cuEventDestroy", CL_OUT_OF_RESOURCES, 0);
}

cl_int cuda_ws_event_record(struct cuda_winsys *ws, CUevent event, CUstream stream)
{
   CUresult r;
   WS_CALL(ws, r, cuEventRecord(event, stream));
   return cuda_ws_result(ws, r, "cuEventRecord", CL_OUT_OF_RESOURCES, 0);
}

cl_int cuda_ws_event_query(struct cuda_winsys *ws, CUevent event)
{
   CUresult r;
   WS_CALL(ws, r, cuEventQuery(event));
   if (r == CUDA_ERROR_NOT_READY)
      return 1;
   return cuda_ws_result(ws, r, "cuEventQuery", CL_OUT_OF_RESOURCES, 0);
}

cl_int cuda_ws_event_sync(struct cuda_winsys *ws, CUevent event)
{
   CUresult r;
   WS_CALL(ws, r, cuEventSynchronize(event));
   return cuda_ws_result(ws, r, "cuEventSynchronize", CL_OUT_OF_RESOURCES, 0);
}

cl_int cuda_ws_event_elapsed(struct cuda_winsys *ws, CUevent start, CUevent end, float *ms)
{
   CUresult r;
   WS_CALL(ws, r, cuEventElapsedTime(ms, start, end));
   return cuda_ws_result(ws, r, "cuEventElapsedTime", CL_OUT_OF_RESOURCES, 0);
}

/* ---- transfers ---- */

cl_int cuda_ws_copy_htod(struct cuda_winsys *ws, CUstream s, CUdeviceptr dst, const void *src,
                         size_t size)
{
   CUresult r;
   WS_CALL(ws, r, cuMemcpyHtoDAsync(dst, src, size, s));
   return cuda_ws_result(ws, r, "cuMemcpyHtoDAsync", CL_OUT_OF_RESOURCES, 0);
}

cl_int cuda_ws_copy_dtoh(struct cuda_winsys *ws, CUstream s, void *dst, CUdeviceptr src,
                         size_t size)
{
   CUresult r;
   WS_CALL(ws, r, cuMemcpyDtoHAsync(dst, src, size, s));
   return cuda_ws_result(ws, r, "cuMemcpyDtoHAsync", CL_OUT_OF_RESOURCES, 0);
}

cl_int cuda_ws_copy_dtod(struct cuda_winsys *ws, CUstream s, CUdeviceptr dst, CUdeviceptr src,
                         size_t size)
{
   CUresult r;
   WS_CALL(ws, r, cuMemcpyDtoDAsync(dst, src, size, s));
   return cuda_ws_result(ws, r, "cuMemcpyDtoDAsync", CL_OUT_OF_RESOURCES, 0);
}

cl_int cuda_ws_copy_3d(struct cuda_winsys *ws, CUstream s, const CUDA_MEMCPY3D *copy)
{
   CUresult r;
   WS_CALL(ws, r, cuMemcpy3DAsync(copy, s));
   return cuda_ws_result(ws, r, "cuMemcpy3DAsync", CL_OUT_OF_RESOURCES, 0);
}

cl_int cuda_ws_memset(struct cuda_winsys *ws, CUstream s, CUdeviceptr dst, unsigned elem_size,
                      uint32_t value, size_t count)
{
   CUresult r;
   const char *call;
   if (elem_size == 1) {
      call = "cuMemsetD8Async";
      WS_CALL(ws, r, cuMemsetD8Async(dst, (unsigned char)value, count, s));
   } else if (elem_size == 2) {
      call = "cuMemsetD16Async";
      WS_CALL(ws, r, cuMemsetD16Async(dst, (unsigned short)value, count, s));
   } else {
      call = "cuMemsetD32Async";
      WS_CALL(ws, r, cuMemsetD32Async(dst, value, count, s));
   }
   return cuda_ws_result(ws, r, call, CL_OUT_OF_RESOURCES, 0);
}

/* ---- code ---- */

/* Errors that say the code itself is wrong (for this GPU or this JIT). */
static bool code_error(CUresult r)
{
   return r == CUDA_ERROR_INVALID_PTX || r == CUDA_ERROR_INVALID_IMAGE ||
          r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION ||
          r == CUDA_ERROR_JIT_COMPILER_NOT_FOUND || r == 223 /* JIT_COMPILATION_DISABLED */;
}

#define JIT_LOG_SIZE 16384

cl_int cuda_ws_module_load(struct cuda_winsys *ws, const void *image, CUmodule *out, char **log)
{
   *log = NULL;
   char *jit_log = kiln_calloc(1, JIT_LOG_SIZE);
   if (!jit_log)
      return CL_OUT_OF_HOST_MEMORY;
   CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
   void *values[2] = {jit_log, (void *)(uintptr_t)JIT_LOG_SIZE};
   CUresult r;
   WS_CALL(ws, r, cuModuleLoadDataEx(out, image, 2, opts, values));
   if (r == CUDA_SUCCESS) {
      kiln_free(jit_log);
      return CL_SUCCESS;
   }
   jit_log[JIT_LOG_SIZE - 1] = '\0';
   char buf[32];
   const char *name = cuda_ws_error_name(ws, r, buf, sizeof(buf));
   size_t size = strlen(jit_log) + strlen(name) + 64;
   *log = kiln_malloc(size);
   if (*log)
      snprintf(*log, size, "cuModuleLoadDataEx failed with %s%s%s", name, *jit_log ? ":\n" : "",
               jit_log);
   kiln_free(jit_log);
   cl_int err = cuda_ws_result(ws, r, "cuModuleLoadDataEx", CL_OUT_OF_RESOURCES,
                               CL_OUT_OF_RESOURCES);
   return code_error(r) ? CL_BUILD_PROGRAM_FAILURE : err;
}

void cuda_ws_module_unload(struct cuda_winsys *ws, CUmodule module)
{
   CUresult r;
   WS_CALL(ws, r, cuModuleUnload(module));
   cuda_ws_result(ws, r, "cuModuleUnload", CL_OUT_OF_RESOURCES, 0);
}

cl_int cuda_ws_function(struct cuda_winsys *ws, CUmodule module, const char *name,
                        CUfunction *out)
{
   CUresult r;
   WS_CALL(ws, r, cuModuleGetFunction(out, module, name));
   return cuda_ws_result(ws, r, "cuModuleGetFunction",
                         r == CUDA_ERROR_NOT_FOUND ? CL_INVALID_KERNEL_NAME : CL_OUT_OF_RESOURCES,
                         CL_OUT_OF_HOST_MEMORY);
}

cl_int cuda_ws_module_global(struct cuda_winsys *ws, CUmodule module, const char *name,
                             CUdeviceptr *out, size_t *size)
{
   CUresult r;
   WS_CALL(ws, r, cuModuleGetGlobal(out, size, module, name));
   if (r == CUDA_ERROR_NOT_FOUND)
      return CL_INVALID_VALUE; /* not an error worth a log line */
   return cuda_ws_result(ws, r, "cuModuleGetGlobal", CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY);
}

int cuda_ws_function_attribute(struct cuda_winsys *ws, CUfunction f, int attrib, int fallback)
{
   int value = fallback;
   CUresult r;
   WS_CALL(ws, r, cuFuncGetAttribute(&value, attrib, f));
   return cuda_ws_result(ws, r, "cuFuncGetAttribute", CL_OUT_OF_RESOURCES, 0) ? fallback
                                                                                : value;
}

cl_int cuda_ws_function_set_attribute(struct cuda_winsys *ws, CUfunction f, int attrib,
                                      int value)
{
   CUresult r;
   WS_CALL(ws, r, cuFuncSetAttribute(f, attrib, value));
   return cuda_ws_result(ws, r, "cuFuncSetAttribute", CL_OUT_OF_RESOURCES, 0);
}

cl_int cuda_ws_launch(struct cuda_winsys *ws, CUstream s, CUfunction f, const unsigned grid[3],
                      const unsigned block[3], unsigned shared_bytes, void **params)
{
   CUresult r;
   WS_CALL(ws, r, cuLaunchKernel(f, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                 shared_bytes, s, params, NULL));
   return cuda_ws_result(ws, r, "cuLaunchKernel", CL_OUT_OF_RESOURCES, CL_OUT_OF_RESOURCES);
}

/* ---- CUDA arrays, texture and surface objects ---- */

bool cuda_ws_has_images(const struct cuda_winsys *ws)
{
   const struct cuda_api *a = ws->api;
   return a->cuArray3DCreate && a->cuArrayDestroy && a->cuTexObjectCreate &&
          a->cuTexObjectDestroy && a->cuSurfObjectCreate && a->cuSurfObjectDestroy &&
          a->cuStreamWaitEvent;
}

cl_int cuda_ws_array_create(struct cuda_winsys *ws, const CUDA_ARRAY3D_DESCRIPTOR *desc,
                            CUarray *out)
{
   CUresult r;
   WS_CALL(ws, r, cuArray3DCreate(out, desc));
   return cuda_ws_result(ws, r, "cuArray3DCreate", CL_IMAGE_FORMAT_NOT_SUPPORTED,
                         CL_MEM_OBJECT_ALLOCATION_FAILURE);
}

void cuda_ws_array_destroy(struct cuda_winsys *ws, CUarray array)
{
   CUresult r;
   WS_CALL(ws, r, cuArrayDestroy(array));
   cuda_ws_result(ws, r, "cuArrayDestroy", CL_OUT_OF_RESOURCES, 0);
}

static CUDA_RESOURCE_DESC array_resource(CUarray array)
{
   CUDA_RESOURCE_DESC res;
   memset(&res, 0, sizeof(res));
   res.resType = CU_RESOURCE_TYPE_ARRAY;
   res.res.array.hArray = array;
   return res;
}

cl_int cuda_ws_tex_create(struct cuda_winsys *ws, CUarray array, const CUDA_TEXTURE_DESC *desc,
                          CUtexObject *out)
{
   CUDA_RESOURCE_DESC res = array_resource(array);
   CUresult r;
   WS_CALL(ws, r, cuTexObjectCreate(out, &res, desc, NULL));
   return cuda_ws_result(ws, r, "cuTexObjectCreate", CL_OUT_OF_RESOURCES, CL_OUT_OF_RESOURCES);
}

void cuda_ws_tex_destroy(struct cuda_winsys *ws, CUtexObject tex)
{
   CUresult r;
   WS_CALL(ws, r, cuTexObjectDestroy(tex));
   cuda_ws_result(ws, r, "cuTexObjectDestroy", CL_OUT_OF_RESOURCES, 0);
}

cl_int cuda_ws_surf_create(struct cuda_winsys *ws, CUarray array, CUsurfObject *out)
{
   CUDA_RESOURCE_DESC res = array_resource(array);
   CUresult r;
   WS_CALL(ws, r, cuSurfObjectCreate(out, &res));
   return cuda_ws_result(ws, r, "cuSurfObjectCreate", CL_OUT_OF_RESOURCES, CL_OUT_OF_RESOURCES);
}

void cuda_ws_surf_destroy(struct cuda_winsys *ws, CUsurfObject surf)
{
   CUresult r;
   WS_CALL(ws, r, cuSurfObjectDestroy(surf));
   cuda_ws_result(ws, r, "cuSurfObjectDestroy", CL_OUT_OF_RESOURCES, 0);
}

cl_int cuda_ws_stream_wait(struct cuda_winsys *ws, CUstream stream, CUevent event)
{
   CUresult r;
   WS_CALL(ws, r, cuStreamWaitEvent(stream, event, 0));
   return cuda_ws_result(ws, r, "cuStreamWaitEvent", CL_OUT_OF_RESOURCES, 0);
}
