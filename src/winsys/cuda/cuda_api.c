#include "winsys/cuda/cuda_api.h"

#include <dlfcn.h>
#include <stdbool.h>

#include "util/alloc.h"
#include "util/log.h"

/* dlsym into a typed slot: the first of the names the library exports
 * (newest ABI version first). */
static bool sym(void *lib, void *slot, const char *name, const char *older)
{
   void *p = dlsym(lib, name);
   if (!p && older)
      p = dlsym(lib, older);
   if (!p) {
      kiln_log(KILN_LOG_PIPE, "cuda: %s is missing from libcuda.so.1", name);
      return false;
   }
   *(void **)slot = p;
   return true;
}

struct cuda_api *cuda_api_load(void)
{
   void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
   if (!lib) {
      /* The usual case on a machine without an NVIDIA driver: not a
       * warning. */
      kiln_log(KILN_LOG_PIPE, "cuda: libcuda.so.1 not loaded (%s)", dlerror());
      return NULL;
   }
   struct cuda_api *a = kiln_calloc(1, sizeof(*a));
   if (!a) {
      dlclose(lib);
      return NULL;
   }
   a->lib = lib;
   bool ok = true;
#define CU(field, name) ok = ok && sym(lib, &a->field, name, NULL)
   CU(cuInit, "cuInit");
   CU(cuDriverGetVersion, "cuDriverGetVersion");
   CU(cuGetErrorName, "cuGetErrorName");
   CU(cuDeviceGetCount, "cuDeviceGetCount");
   CU(cuDeviceGet, "cuDeviceGet");
   CU(cuDeviceGetName, "cuDeviceGetName");
   CU(cuDeviceTotalMem, "cuDeviceTotalMem_v2");
   CU(cuDeviceGetAttribute, "cuDeviceGetAttribute");
   CU(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
   CU(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
   CU(cuCtxPushCurrent, "cuCtxPushCurrent_v2");
   CU(cuCtxPopCurrent, "cuCtxPopCurrent_v2");
   CU(cuCtxGetCurrent, "cuCtxGetCurrent");
   CU(cuCtxSetCurrent, "cuCtxSetCurrent");
   CU(cuMemAlloc, "cuMemAlloc_v2");
   CU(cuMemFree, "cuMemFree_v2");
   CU(cuMemHostAlloc, "cuMemHostAlloc");
   CU(cuMemFreeHost, "cuMemFreeHost");
   CU(cuMemHostRegister, "cuMemHostRegister_v2");
   CU(cuMemHostUnregister, "cuMemHostUnregister");
   CU(cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2");
   CU(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
   CU(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
   CU(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2");
   CU(cuMemcpy3DAsync, "cuMemcpy3DAsync_v2");
   CU(cuMemsetD8Async, "cuMemsetD8Async");
   CU(cuMemsetD16Async, "cuMemsetD16Async");
   CU(cuMemsetD32Async, "cuMemsetD32Async");
   CU(cuStreamCreate, "cuStreamCreate");
   CU(cuStreamDestroy, "cuStreamDestroy_v2");
   CU(cuStreamSynchronize, "cuStreamSynchronize");
   CU(cuCtxSynchronize, "cuCtxSynchronize");
   CU(cuEventCreate, "cuEventCreate");
   CU(cuEventDestroy, "cuEventDestroy_v2");
   CU(cuEventRecord, "cuEventRecord");
   CU(cuEventQuery, "cuEventQuery");
   CU(cuEventSynchronize, "cuEventSynchronize");
   CU(cuModuleLoadDataEx, "cuModuleLoadDataEx");
   CU(cuModuleUnload, "cuModuleUnload");
   CU(cuModuleGetFunction, "cuModuleGetFunction");
   CU(cuModuleGetGlobal, "cuModuleGetGlobal_v2");
   CU(cuFuncGetAttribute, "cuFuncGetAttribute");
   CU(cuFuncSetAttribute, "cuFuncSetAttribute");
   CU(cuLaunchKernel, "cuLaunchKernel");
#undef CU
   /* CUDA 12.8 added _v2 (what cuda.h of CUDA 13 calls); older drivers
    * have only the first version, with the same signature. */
   ok = ok && sym(lib, &a->cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime");
   if (ok) {
      /* Images through the texture units: all or none. */
      bool img = true;
#define OPT(field, name) img = img && sym(lib, &a->field, name, NULL)
      OPT(cuArray3DCreate, "cuArray3DCreate_v2");
      OPT(cuArrayDestroy, "cuArrayDestroy");
      OPT(cuTexObjectCreate, "cuTexObjectCreate");
      OPT(cuTexObjectDestroy, "cuTexObjectDestroy");
      OPT(cuSurfObjectCreate, "cuSurfObjectCreate");
      OPT(cuSurfObjectDestroy, "cuSurfObjectDestroy");
      OPT(cuStreamWaitEvent, "cuStreamWaitEvent");
#undef OPT
      if (!img) {
         a->cuArray3DCreate = NULL;
         a->cuTexObjectCreate = NULL;
         a->cuSurfObjectCreate = NULL;
      }
   }
   if (!ok) {
      /* Nothing was initialised yet: unloading is safe here. */
      dlclose(lib);
      kiln_free(a);
      return NULL;
   }
   return a;
}

void cuda_api_unload(struct cuda_api *api)
{
   /* libcuda stays loaded: after cuInit it runs threads of its own, and
    * unloading their code under them crashes the process at exit. */
   kiln_free(api);
}
