/* The CUDA driver API as Kiln calls it: the few types, constants and
 * entry points it uses, declared here (no CUDA headers at build time),
 * and a table of functions that the winsys fills by dlopen()ing
 * libcuda.so.1 (so Kiln builds and runs where there is no CUDA, and shows
 * no NVIDIA device there) and that unit tests fill with a fake GPU
 * (tests/unit/fake_cuda.c).
 *
 * Values and layouts are those of the driver API's ABI (cuda.h of CUDA 12
 * and 13 agree on every one used here); symbol names are the versioned
 * ones libcuda exports (cuMemAlloc_v2, ...), which cuda.h reaches through
 * #defines. */
#ifndef KILN_WINSYS_CUDA_API_H
#define KILN_WINSYS_CUDA_API_H

#include <stddef.h>
#include <stdint.h>

typedef int CUresult;
typedef int CUdevice;
typedef uint64_t CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUarray_st *CUarray;
typedef unsigned long long CUtexObject;
typedef unsigned long long CUsurfObject;

/* CUresult values Kiln tells apart (the rest only reach the log). */
enum {
   CUDA_SUCCESS = 0,
   CUDA_ERROR_INVALID_VALUE = 1,
   CUDA_ERROR_OUT_OF_MEMORY = 2,
   CUDA_ERROR_NOT_INITIALIZED = 3,
   CUDA_ERROR_DEINITIALIZED = 4,
   CUDA_ERROR_STUB_LIBRARY = 34,
   CUDA_ERROR_NO_DEVICE = 100,
   CUDA_ERROR_INVALID_DEVICE = 101,
   CUDA_ERROR_INVALID_IMAGE = 200,
   CUDA_ERROR_INVALID_CONTEXT = 201,
   CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
   CUDA_ERROR_ECC_UNCORRECTABLE = 214,
   CUDA_ERROR_INVALID_PTX = 218,
   CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221,
   CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
   CUDA_ERROR_INVALID_HANDLE = 400,
   CUDA_ERROR_NOT_FOUND = 500,
   CUDA_ERROR_NOT_READY = 600,
   CUDA_ERROR_ILLEGAL_ADDRESS = 700,
   CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
   CUDA_ERROR_LAUNCH_TIMEOUT = 702,
   CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712,
   CUDA_ERROR_HARDWARE_STACK_ERROR = 714,
   CUDA_ERROR_ILLEGAL_INSTRUCTION = 715,
   CUDA_ERROR_MISALIGNED_ADDRESS = 716,
   CUDA_ERROR_INVALID_ADDRESS_SPACE = 717,
   CUDA_ERROR_INVALID_PC = 718,
   CUDA_ERROR_LAUNCH_FAILED = 719,
   CUDA_ERROR_NOT_SUPPORTED = 801,
   CUDA_ERROR_UNKNOWN = 999,
};

/* CUdevice_attribute values read by the pipe's caps. */
enum {
   CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
   CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
   CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3,
   CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4,
   CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
   CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
   CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
   CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
   CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY = 9,
   CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
   CU_DEVICE_ATTRIBUTE_MAX_PITCH = 11,
   CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13, /* kHz */
   CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
   CU_DEVICE_ATTRIBUTE_INTEGRATED = 18,
   CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY = 19,
   CU_DEVICE_ATTRIBUTE_ECC_ENABLED = 32,
   CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
   CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING = 41,
   CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
   CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
   CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
};

/* CUfunction_attribute values. */
enum {
   CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
   CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
   CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2,
   CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
   CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
   CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
};

/* CUjit_option values. */
typedef int CUjit_option;
enum {
   CU_JIT_INFO_LOG_BUFFER = 3,
   CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
   CU_JIT_ERROR_LOG_BUFFER = 5,
   CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

/* CUmemorytype. */
enum {
   CU_MEMORYTYPE_HOST = 1,
   CU_MEMORYTYPE_DEVICE = 2,
   CU_MEMORYTYPE_ARRAY = 3,
};

/* CUarray_format: the element types of a CUDA array. */
enum {
   CU_AD_FORMAT_UNSIGNED_INT8 = 0x01,
   CU_AD_FORMAT_UNSIGNED_INT16 = 0x02,
   CU_AD_FORMAT_UNSIGNED_INT32 = 0x03,
   CU_AD_FORMAT_SIGNED_INT8 = 0x08,
   CU_AD_FORMAT_SIGNED_INT16 = 0x09,
   CU_AD_FORMAT_SIGNED_INT32 = 0x0a,
   CU_AD_FORMAT_HALF = 0x10,
   CU_AD_FORMAT_FLOAT = 0x20,
};

/* CUaddress_mode, CUfilter_mode, CUresourcetype. */
enum {
   CU_TR_ADDRESS_MODE_WRAP = 0,
   CU_TR_ADDRESS_MODE_CLAMP = 1,
   CU_TR_ADDRESS_MODE_MIRROR = 2,
   CU_TR_ADDRESS_MODE_BORDER = 3,
};
enum {
   CU_TR_FILTER_MODE_POINT = 0,
   CU_TR_FILTER_MODE_LINEAR = 1,
};
enum {
   CU_RESOURCE_TYPE_ARRAY = 0,
};

#define CUDA_ARRAY3D_LAYERED 0x01
#define CUDA_ARRAY3D_SURFACE_LDST 0x02
#define CU_TRSF_READ_AS_INTEGER 0x01
#define CU_TRSF_NORMALIZED_COORDINATES 0x02

#define CU_STREAM_NON_BLOCKING 0x1
#define CU_EVENT_DEFAULT 0x0
#define CU_EVENT_DISABLE_TIMING 0x2
#define CU_MEMHOSTALLOC_PORTABLE 0x1
#define CU_MEMHOSTALLOC_DEVICEMAP 0x2
#define CU_MEMHOSTREGISTER_DEVICEMAP 0x2

/* CUDA_MEMCPY3D (CUDA_MEMCPY3D_v2 in cuda.h), field for field. */
typedef struct {
   size_t srcXInBytes, srcY, srcZ, srcLOD;
   int srcMemoryType;
   const void *srcHost;
   CUdeviceptr srcDevice;
   void *srcArray;
   void *reserved0;
   size_t srcPitch, srcHeight;

   size_t dstXInBytes, dstY, dstZ, dstLOD;
   int dstMemoryType;
   void *dstHost;
   CUdeviceptr dstDevice;
   void *dstArray;
   void *reserved1;
   size_t dstPitch, dstHeight;

   size_t WidthInBytes, Height, Depth;
} CUDA_MEMCPY3D;

/* CUDA_ARRAY3D_DESCRIPTOR (_v2): Height 0 for a 1D array, Depth 0 for a
 * 2D one; with CUDA_ARRAY3D_LAYERED, Depth counts layers (a layered 1D
 * array has Height 0).  40 bytes. */
typedef struct {
   size_t Width, Height, Depth;
   int Format; /* CU_AD_FORMAT_* */
   unsigned NumChannels; /* 1, 2 or 4 */
   unsigned Flags;
} CUDA_ARRAY3D_DESCRIPTOR;

/* CUDA_RESOURCE_DESC (_v1): the union is 128 bytes (int reserved[32]) at
 * offset 8; Kiln only names arrays.  144 bytes. */
typedef struct {
   int resType; /* CU_RESOURCE_TYPE_* */
   union {
      struct {
         CUarray hArray;
      } array;
      int reserved[32];
   } res;
   unsigned flags;
} CUDA_RESOURCE_DESC;

/* CUDA_TEXTURE_DESC (_v1).  104 bytes. */
typedef struct {
   int addressMode[3]; /* CU_TR_ADDRESS_MODE_* per dimension */
   int filterMode;     /* CU_TR_FILTER_MODE_* */
   unsigned flags;     /* CU_TRSF_* */
   unsigned maxAnisotropy;
   int mipmapFilterMode;
   float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
   float borderColor[4];
   int reserved[12];
} CUDA_TEXTURE_DESC;

/* A wrong layout corrupts what the real driver reads: check the sizes
 * (and the offsets that differ between plausible layouts). */
_Static_assert(sizeof(CUDA_MEMCPY3D) == 200, "CUDA_MEMCPY3D layout");
_Static_assert(sizeof(CUDA_ARRAY3D_DESCRIPTOR) == 40, "CUDA_ARRAY3D_DESCRIPTOR layout");
_Static_assert(sizeof(CUDA_RESOURCE_DESC) == 144, "CUDA_RESOURCE_DESC layout");
_Static_assert(offsetof(CUDA_RESOURCE_DESC, res) == 8, "CUDA_RESOURCE_DESC layout");
_Static_assert(offsetof(CUDA_RESOURCE_DESC, flags) == 136, "CUDA_RESOURCE_DESC layout");
_Static_assert(sizeof(CUDA_TEXTURE_DESC) == 104, "CUDA_TEXTURE_DESC layout");
_Static_assert(offsetof(CUDA_TEXTURE_DESC, borderColor) == 40, "CUDA_TEXTURE_DESC layout");

/* The entry points, named after their libcuda symbols minus the version
 * suffix (cuda_api.c lists the exact symbol of each). */
struct cuda_api {
   CUresult (*cuInit)(unsigned flags);
   CUresult (*cuDriverGetVersion)(int *version);
   CUresult (*cuGetErrorName)(CUresult error, const char **name);
   CUresult (*cuDeviceGetCount)(int *count);
   CUresult (*cuDeviceGet)(CUdevice *dev, int ordinal);
   CUresult (*cuDeviceGetName)(char *name, int len, CUdevice dev);
   CUresult (*cuDeviceTotalMem)(size_t *bytes, CUdevice dev);
   CUresult (*cuDeviceGetAttribute)(int *value, int attrib, CUdevice dev);

   CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice dev);
   CUresult (*cuDevicePrimaryCtxRelease)(CUdevice dev);
   CUresult (*cuCtxPushCurrent)(CUcontext ctx);
   CUresult (*cuCtxPopCurrent)(CUcontext *ctx);
   CUresult (*cuCtxGetCurrent)(CUcontext *ctx);
   CUresult (*cuCtxSetCurrent)(CUcontext ctx);

   CUresult (*cuMemAlloc)(CUdeviceptr *dptr, size_t bytes);
   CUresult (*cuMemFree)(CUdeviceptr dptr);
   CUresult (*cuMemHostAlloc)(void **p, size_t bytes, unsigned flags);
   CUresult (*cuMemFreeHost)(void *p);
   CUresult (*cuMemHostRegister)(void *p, size_t bytes, unsigned flags);
   CUresult (*cuMemHostUnregister)(void *p);
   CUresult (*cuMemHostGetDevicePointer)(CUdeviceptr *dptr, void *p, unsigned flags);

   CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr dst, const void *src, size_t bytes, CUstream s);
   CUresult (*cuMemcpyDtoHAsync)(void *dst, CUdeviceptr src, size_t bytes, CUstream s);
   CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s);
   CUresult (*cuMemcpy3DAsync)(const CUDA_MEMCPY3D *copy, CUstream s);
   CUresult (*cuMemsetD8Async)(CUdeviceptr dst, unsigned char value, size_t n, CUstream s);
   CUresult (*cuMemsetD16Async)(CUdeviceptr dst, unsigned short value, size_t n, CUstream s);
   CUresult (*cuMemsetD32Async)(CUdeviceptr dst, unsigned value, size_t n, CUstream s);

   CUresult (*cuStreamCreate)(CUstream *stream, unsigned flags);
   CUresult (*cuStreamDestroy)(CUstream stream);
   CUresult (*cuStreamSynchronize)(CUstream stream);
   CUresult (*cuCtxSynchronize)(void);

   CUresult (*cuEventCreate)(CUevent *event, unsigned flags);
   CUresult (*cuEventDestroy)(CUevent event);
   CUresult (*cuEventRecord)(CUevent event, CUstream stream);
   CUresult (*cuEventQuery)(CUevent event);
   CUresult (*cuEventSynchronize)(CUevent event);
   CUresult (*cuEventElapsedTime)(float *ms, CUevent start, CUevent end);

   CUresult (*cuModuleLoadDataEx)(CUmodule *module, const void *image, unsigned num_options,
                                  CUjit_option *options, void **values);
   CUresult (*cuModuleUnload)(CUmodule module);
   CUresult (*cuModuleGetFunction)(CUfunction *func, CUmodule module, const char *name);
   CUresult (*cuModuleGetGlobal)(CUdeviceptr *dptr, size_t *bytes, CUmodule module,
                                 const char *name);
   CUresult (*cuFuncGetAttribute)(int *value, int attrib, CUfunction func);
   CUresult (*cuFuncSetAttribute)(CUfunction func, int attrib, int value);
   CUresult (*cuLaunchKernel)(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                              unsigned by, unsigned bz, unsigned shared_bytes, CUstream stream,
                              void **params, void **extra);

   /* Optional (images through CUDA arrays and texture/surface objects,
    * cuda_image_hw.c): NULL when libcuda lacks one, and then every image
    * stays linear memory. */
   CUresult (*cuArray3DCreate)(CUarray *array, const CUDA_ARRAY3D_DESCRIPTOR *desc);
   CUresult (*cuArrayDestroy)(CUarray array);
   CUresult (*cuTexObjectCreate)(CUtexObject *tex, const CUDA_RESOURCE_DESC *res,
                                 const CUDA_TEXTURE_DESC *desc, const void *view);
   CUresult (*cuTexObjectDestroy)(CUtexObject tex);
   CUresult (*cuSurfObjectCreate)(CUsurfObject *surf, const CUDA_RESOURCE_DESC *res);
   CUresult (*cuSurfObjectDestroy)(CUsurfObject surf);
   CUresult (*cuStreamWaitEvent)(CUstream stream, CUevent event, unsigned flags);

   void *lib; /* dlopen handle; NULL for a fake */
};

/* The system's libcuda.so.1; NULL when it is missing or lacks a function
 * (no NVIDIA device then, and nothing printed but a KILN_DEBUG=pipe
 * line).  Release with cuda_api_unload. */
struct cuda_api *cuda_api_load(void);
void cuda_api_unload(struct cuda_api *api);

#endif
