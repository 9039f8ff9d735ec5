/* cl_khr_icd: the dispatch table and the two exported entry points. */
#include <pthread.h>
#include <string.h>

#include "api/api.h"
#include "api/command_buffer.h"
#include "api/icd.h"
#include "api/unsupported.h"
#include "core/platform.h"

cl_icd_dispatch kiln_dispatch;
static pthread_once_t dispatch_once = PTHREAD_ONCE_INIT;

static void *CL_API_CALL get_extension_function_for_platform(cl_platform_id platform,
                                                             const char *func_name);

static void dispatch_init(void)
{
   cl_icd_dispatch *d = &kiln_dispatch;
   /* Stubs first: what Kiln implements overwrites them below. */
   kiln_unsupported_fill(d);
#define SLOT(name) d->name = name
   SLOT(clGetPlatformIDs);
   SLOT(clGetPlatformInfo);
   SLOT(clGetDeviceIDs);
   SLOT(clGetDeviceInfo);
   SLOT(clCreateSubDevices);
   SLOT(clRetainDevice);
   SLOT(clReleaseDevice);
   SLOT(clCreateContext);
   SLOT(clCreateContextFromType);
   SLOT(clRetainContext);
   SLOT(clReleaseContext);
   SLOT(clGetContextInfo);
   SLOT(clCreateCommandQueue);
   SLOT(clCreateCommandQueueWithProperties);
   SLOT(clRetainCommandQueue);
   SLOT(clReleaseCommandQueue);
   SLOT(clGetCommandQueueInfo);
   SLOT(clSetCommandQueueProperty);
   SLOT(clFlush);
   SLOT(clFinish);
   SLOT(clGetExtensionFunctionAddress);
   SLOT(clCreateBuffer);
   SLOT(clCreateSubBuffer);
   SLOT(clRetainMemObject);
   SLOT(clReleaseMemObject);
   SLOT(clGetMemObjectInfo);
   SLOT(clSetMemObjectDestructorCallback);
   SLOT(clEnqueueReadBuffer);
   SLOT(clEnqueueWriteBuffer);
   SLOT(clEnqueueReadBufferRect);
   SLOT(clEnqueueWriteBufferRect);
   SLOT(clEnqueueCopyBuffer);
   SLOT(clEnqueueFillBuffer);
   SLOT(clEnqueueCopyBufferRect);
   SLOT(clEnqueueMapBuffer);
   SLOT(clEnqueueUnmapMemObject);
   SLOT(clEnqueueMarker);
   SLOT(clEnqueueBarrier);
   SLOT(clEnqueueWaitForEvents);
   SLOT(clEnqueueMarkerWithWaitList);
   SLOT(clEnqueueBarrierWithWaitList);
   SLOT(clWaitForEvents);
   SLOT(clGetEventInfo);
   SLOT(clRetainEvent);
   SLOT(clReleaseEvent);
   SLOT(clCreateUserEvent);
   SLOT(clSetUserEventStatus);
   SLOT(clSetEventCallback);
   SLOT(clGetEventProfilingInfo);
   SLOT(clCreateProgramWithSource);
   SLOT(clCreateProgramWithBinary);
   SLOT(clRetainProgram);
   SLOT(clReleaseProgram);
   SLOT(clBuildProgram);
   SLOT(clUnloadCompiler);
   SLOT(clGetProgramInfo);
   SLOT(clGetProgramBuildInfo);
   SLOT(clCreateKernel);
   SLOT(clCreateKernelsInProgram);
   SLOT(clRetainKernel);
   SLOT(clReleaseKernel);
   SLOT(clSetKernelArg);
   SLOT(clGetKernelInfo);
   SLOT(clGetKernelWorkGroupInfo);
   SLOT(clEnqueueNDRangeKernel);
   SLOT(clEnqueueTask);
   SLOT(clEnqueueNativeKernel);
   SLOT(clCreateImage2D);
   SLOT(clCreateImage3D);
   SLOT(clGetSupportedImageFormats);
   SLOT(clGetImageInfo);
   SLOT(clCreateSampler);
   SLOT(clRetainSampler);
   SLOT(clReleaseSampler);
   SLOT(clGetSamplerInfo);
   SLOT(clEnqueueReadImage);
   SLOT(clEnqueueWriteImage);
   SLOT(clEnqueueCopyImage);
   SLOT(clEnqueueCopyImageToBuffer);
   SLOT(clEnqueueCopyBufferToImage);
   SLOT(clEnqueueMapImage);
   SLOT(clCreateImage);
   SLOT(clEnqueueFillImage);
   /* OpenCL 1.2: separate compilation and program/kernel queries. */
   SLOT(clCompileProgram);
   SLOT(clLinkProgram);
   SLOT(clCreateProgramWithBuiltInKernels);
   SLOT(clUnloadPlatformCompiler);
   SLOT(clGetKernelArgInfo);
   SLOT(clEnqueueMigrateMemObjects);
   /* OpenCL 2.x and 3.0: implemented, or (api/absent.c) answering as 3.0
    * prescribes for an optional feature no device has. */
   SLOT(clCreatePipe);
   SLOT(clGetPipeInfo);
   SLOT(clSVMAlloc);
   SLOT(clSVMFree);
   SLOT(clEnqueueSVMFree);
   SLOT(clEnqueueSVMMemcpy);
   SLOT(clEnqueueSVMMemFill);
   SLOT(clEnqueueSVMMap);
   SLOT(clEnqueueSVMUnmap);
   SLOT(clCreateSamplerWithProperties);
   SLOT(clSetKernelArgSVMPointer);
   SLOT(clSetKernelExecInfo);
   SLOT(clCloneKernel);
   SLOT(clCreateProgramWithIL);
   SLOT(clEnqueueSVMMigrateMem);
   SLOT(clGetDeviceAndHostTimer);
   SLOT(clGetHostTimer);
   SLOT(clGetKernelSubGroupInfo);
   SLOT(clSetDefaultDeviceCommandQueue);
   SLOT(clSetProgramReleaseCallback);
   SLOT(clSetProgramSpecializationConstant);
   SLOT(clCreateBufferWithProperties);
   SLOT(clCreateImageWithProperties);
   SLOT(clSetContextDestructorCallback);
#undef SLOT
   /* cl_khr_subgroups' name of the same query (api/subgroup.c): the
    * extension's two queries are the core ones, with the same values. */
   d->clGetKernelSubGroupInfoKHR = clGetKernelSubGroupInfo;
   /* OpenCL 1.2, but ocl-icd and the CTS look extension entry points up
    * with it when the loader is 1.2 or later. */
   d->clGetExtensionFunctionAddressForPlatform = get_extension_function_for_platform;
   kiln_object_set_dispatch(d);
}

cl_platform_id kiln_api_platform(void)
{
   pthread_once(&dispatch_once, dispatch_init);
   return kiln_platform_get();
}

static const struct {
   const char *name;
   void *fn;
} extension_functions[] = {
   {"clIcdGetPlatformIDsKHR", (void *)clIcdGetPlatformIDsKHR},
   /* ocl-icd looks clGetPlatformInfo up here (no symbol is exported) to
    * read CL_PLATFORM_ICD_SUFFIX_KHR before it trusts a platform. */
   {"clGetPlatformInfo", (void *)clGetPlatformInfo},
   /* cl_khr_il_program (the CPU device with the SPIR-V translator): the
    * core entry point, which has the same signature. */
   {"clCreateProgramWithILKHR", (void *)clCreateProgramWithIL},
   /* cl_khr_subgroups (the CPU device): the core entry point. */
   {"clGetKernelSubGroupInfoKHR", (void *)clGetKernelSubGroupInfo},
   /* cl_khr_command_buffer, with the registry's signatures
    * (kiln/cl_command_buffer.h). */
#define CMDBUF_FN(name) {#name, (void *)kiln_##name}
   CMDBUF_FN(clCreateCommandBufferKHR),
   CMDBUF_FN(clFinalizeCommandBufferKHR),
   CMDBUF_FN(clRetainCommandBufferKHR),
   CMDBUF_FN(clReleaseCommandBufferKHR),
   CMDBUF_FN(clEnqueueCommandBufferKHR),
   CMDBUF_FN(clGetCommandBufferInfoKHR),
   CMDBUF_FN(clCommandBarrierWithWaitListKHR),
   CMDBUF_FN(clCommandCopyBufferKHR),
   CMDBUF_FN(clCommandCopyBufferRectKHR),
   CMDBUF_FN(clCommandFillBufferKHR),
   CMDBUF_FN(clCommandNDRangeKernelKHR),
   CMDBUF_FN(clCommandSVMMemcpyKHR),
   CMDBUF_FN(clCommandSVMMemFillKHR),
   CMDBUF_FN(clCommandCopyBufferToImageKHR),
   CMDBUF_FN(clCommandCopyImageKHR),
   CMDBUF_FN(clCommandCopyImageToBufferKHR),
   CMDBUF_FN(clCommandFillImageKHR),
#undef CMDBUF_FN
};

KILN_EXPORT CL_API_ENTRY void *CL_API_CALL clGetExtensionFunctionAddress(const char *func_name)
{
   if (!func_name)
      return NULL;
   for (size_t i = 0; i < sizeof(extension_functions) / sizeof(extension_functions[0]); i++)
      if (!strcmp(func_name, extension_functions[i].name))
         return extension_functions[i].fn;
   return NULL;
}

static void *CL_API_CALL get_extension_function_for_platform(cl_platform_id platform,
                                                             const char *func_name)
{
   if (platform != kiln_api_platform())
      return NULL;
   return clGetExtensionFunctionAddress(func_name);
}
