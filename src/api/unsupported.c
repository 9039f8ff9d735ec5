/* Entry points that Kiln does not implement yet.  Every dispatch slot must
 * hold a function (loaders jump to slots unchecked), and each of these
 * returns a real error with a log line instead of crashing or pretending.
 * An entry point leaves this file when its issue implements it. */
#include "api/api.h"
#include "api/unsupported.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

static cl_mem CL_API_CALL stub_clCreateFromGLBuffer(cl_context p0, cl_mem_flags p1, cl_GLuint p2, int * p3)
{
   cl_int err = kiln_api_unsupported("clCreateFromGLBuffer");
   if (p3)
      *p3 = err;
   return NULL;
}

static cl_mem CL_API_CALL stub_clCreateFromGLTexture2D(cl_context p0, cl_mem_flags p1, cl_GLenum p2, cl_GLint p3, cl_GLuint p4, cl_int * p5)
{
   cl_int err = kiln_api_unsupported("clCreateFromGLTexture2D");
   if (p5)
      *p5 = err;
   return NULL;
}

static cl_mem CL_API_CALL stub_clCreateFromGLTexture3D(cl_context p0, cl_mem_flags p1, cl_GLenum p2, cl_GLint p3, cl_GLuint p4, cl_int * p5)
{
   cl_int err = kiln_api_unsupported("clCreateFromGLTexture3D");
   if (p5)
      *p5 = err;
   return NULL;
}

static cl_mem CL_API_CALL stub_clCreateFromGLRenderbuffer(cl_context p0, cl_mem_flags p1, cl_GLuint p2, cl_int * p3)
{
   cl_int err = kiln_api_unsupported("clCreateFromGLRenderbuffer");
   if (p3)
      *p3 = err;
   return NULL;
}

static cl_int CL_API_CALL stub_clGetGLObjectInfo(cl_mem p0, cl_gl_object_type * p1, cl_GLuint * p2)
{
   return kiln_api_unsupported("clGetGLObjectInfo");
}

static cl_int CL_API_CALL stub_clGetGLTextureInfo(cl_mem p0, cl_gl_texture_info p1, size_t p2, void * p3, size_t * p4)
{
   return kiln_api_unsupported("clGetGLTextureInfo");
}

static cl_int CL_API_CALL stub_clEnqueueAcquireGLObjects(cl_command_queue p0, cl_uint p1, const cl_mem * p2, cl_uint p3, const cl_event * p4, cl_event * p5)
{
   return kiln_api_unsupported("clEnqueueAcquireGLObjects");
}

static cl_int CL_API_CALL stub_clEnqueueReleaseGLObjects(cl_command_queue p0, cl_uint p1, const cl_mem * p2, cl_uint p3, const cl_event * p4, cl_event * p5)
{
   return kiln_api_unsupported("clEnqueueReleaseGLObjects");
}

static cl_int CL_API_CALL stub_clGetGLContextInfoKHR(const cl_context_properties * p0, cl_gl_context_info p1, size_t p2, void * p3, size_t * p4)
{
   return kiln_api_unsupported("clGetGLContextInfoKHR");
}

static cl_int CL_API_CALL stub_clCreateSubDevicesEXT(cl_device_id p0, const cl_device_partition_property_ext * p1, cl_uint p2, cl_device_id * p3, cl_uint * p4)
{
   return kiln_api_unsupported("clCreateSubDevicesEXT");
}

static cl_int CL_API_CALL stub_clRetainDeviceEXT(cl_device_id p0)
{
   return kiln_api_unsupported("clRetainDeviceEXT");
}

static cl_int CL_API_CALL stub_clReleaseDeviceEXT(cl_device_id p0)
{
   return kiln_api_unsupported("clReleaseDeviceEXT");
}

static cl_event CL_API_CALL stub_clCreateEventFromGLsyncKHR(cl_context p0, cl_GLsync p1, cl_int * p2)
{
   cl_int err = kiln_api_unsupported("clCreateEventFromGLsyncKHR");
   if (p2)
      *p2 = err;
   return NULL;
}

static cl_mem CL_API_CALL stub_clCreateFromGLTexture(cl_context p0, cl_mem_flags p1, cl_GLenum p2, cl_GLint p3, cl_GLuint p4, cl_int * p5)
{
   cl_int err = kiln_api_unsupported("clCreateFromGLTexture");
   if (p5)
      *p5 = err;
   return NULL;
}

static cl_mem CL_API_CALL stub_clCreateFromEGLImageKHR(cl_context p0, CLeglDisplayKHR p1, CLeglImageKHR p2, cl_mem_flags p3, const cl_egl_image_properties_khr * p4, cl_int * p5)
{
   cl_int err = kiln_api_unsupported("clCreateFromEGLImageKHR");
   if (p5)
      *p5 = err;
   return NULL;
}

static cl_int CL_API_CALL stub_clEnqueueAcquireEGLObjectsKHR(cl_command_queue p0, cl_uint p1, const cl_mem * p2, cl_uint p3, const cl_event * p4, cl_event * p5)
{
   return kiln_api_unsupported("clEnqueueAcquireEGLObjectsKHR");
}

static cl_int CL_API_CALL stub_clEnqueueReleaseEGLObjectsKHR(cl_command_queue p0, cl_uint p1, const cl_mem * p2, cl_uint p3, const cl_event * p4, cl_event * p5)
{
   return kiln_api_unsupported("clEnqueueReleaseEGLObjectsKHR");
}

static cl_event CL_API_CALL stub_clCreateEventFromEGLSyncKHR(cl_context p0, CLeglSyncKHR p1, CLeglDisplayKHR p2, cl_int * p3)
{
   cl_int err = kiln_api_unsupported("clCreateEventFromEGLSyncKHR");
   if (p3)
      *p3 = err;
   return NULL;
}

static cl_mem CL_API_CALL stub_clCreatePipe(cl_context p0, cl_mem_flags p1, cl_uint p2, cl_uint p3, const cl_pipe_properties * p4, cl_int * p5)
{
   cl_int err = kiln_api_unsupported("clCreatePipe");
   if (p5)
      *p5 = err;
   return NULL;
}

static cl_int CL_API_CALL stub_clGetPipeInfo(cl_mem p0, cl_pipe_info p1, size_t p2, void * p3, size_t * p4)
{
   return kiln_api_unsupported("clGetPipeInfo");
}

static void * CL_API_CALL stub_clSVMAlloc(cl_context p0, cl_svm_mem_flags p1, size_t p2, unsigned int p3)
{
   kiln_api_unsupported("clSVMAlloc");
   return NULL;
}

static void CL_API_CALL stub_clSVMFree(cl_context p0, void * p1)
{
   kiln_api_unsupported("clSVMFree");
}

static cl_int CL_API_CALL stub_clEnqueueSVMFree(cl_command_queue p0, cl_uint p1, void ** p2, void(CL_CALLBACK *p3)(cl_command_queue , cl_uint , void ** , void * ), void * p4, cl_uint p5, const cl_event * p6, cl_event * p7)
{
   return kiln_api_unsupported("clEnqueueSVMFree");
}

static cl_int CL_API_CALL stub_clEnqueueSVMMemcpy(cl_command_queue p0, cl_bool p1, void * p2, const void * p3, size_t p4, cl_uint p5, const cl_event * p6, cl_event * p7)
{
   return kiln_api_unsupported("clEnqueueSVMMemcpy");
}

static cl_int CL_API_CALL stub_clEnqueueSVMMemFill(cl_command_queue p0, void * p1, const void * p2, size_t p3, size_t p4, cl_uint p5, const cl_event * p6, cl_event * p7)
{
   return kiln_api_unsupported("clEnqueueSVMMemFill");
}

static cl_int CL_API_CALL stub_clEnqueueSVMMap(cl_command_queue p0, cl_bool p1, cl_map_flags p2, void * p3, size_t p4, cl_uint p5, const cl_event * p6, cl_event * p7)
{
   return kiln_api_unsupported("clEnqueueSVMMap");
}

static cl_int CL_API_CALL stub_clEnqueueSVMUnmap(cl_command_queue p0, void * p1, cl_uint p2, const cl_event * p3, cl_event * p4)
{
   return kiln_api_unsupported("clEnqueueSVMUnmap");
}

static cl_sampler CL_API_CALL stub_clCreateSamplerWithProperties(cl_context p0, const cl_sampler_properties * p1, cl_int * p2)
{
   cl_int err = kiln_api_unsupported("clCreateSamplerWithProperties");
   if (p2)
      *p2 = err;
   return NULL;
}

static cl_int CL_API_CALL stub_clSetKernelArgSVMPointer(cl_kernel p0, cl_uint p1, const void * p2)
{
   return kiln_api_unsupported("clSetKernelArgSVMPointer");
}

static cl_int CL_API_CALL stub_clSetKernelExecInfo(cl_kernel p0, cl_kernel_exec_info p1, size_t p2, const void * p3)
{
   return kiln_api_unsupported("clSetKernelExecInfo");
}

static cl_int CL_API_CALL stub_clGetKernelSubGroupInfoKHR(cl_kernel p0, cl_device_id p1, cl_kernel_sub_group_info p2, size_t p3, const void * p4, size_t p5, void * p6, size_t * p7)
{
   return kiln_api_unsupported("clGetKernelSubGroupInfoKHR");
}

static cl_kernel CL_API_CALL stub_clCloneKernel(cl_kernel p0, cl_int * p1)
{
   cl_int err = kiln_api_unsupported("clCloneKernel");
   if (p1)
      *p1 = err;
   return NULL;
}

static cl_program CL_API_CALL stub_clCreateProgramWithIL(cl_context p0, const void * p1, size_t p2, cl_int * p3)
{
   cl_int err = kiln_api_unsupported("clCreateProgramWithIL");
   if (p3)
      *p3 = err;
   return NULL;
}

static cl_int CL_API_CALL stub_clEnqueueSVMMigrateMem(cl_command_queue p0, cl_uint p1, const void ** p2, const size_t * p3, cl_mem_migration_flags p4, cl_uint p5, const cl_event * p6, cl_event * p7)
{
   return kiln_api_unsupported("clEnqueueSVMMigrateMem");
}

static cl_int CL_API_CALL stub_clGetDeviceAndHostTimer(cl_device_id p0, cl_ulong * p1, cl_ulong * p2)
{
   return kiln_api_unsupported("clGetDeviceAndHostTimer");
}

static cl_int CL_API_CALL stub_clGetHostTimer(cl_device_id p0, cl_ulong * p1)
{
   return kiln_api_unsupported("clGetHostTimer");
}

static cl_int CL_API_CALL stub_clGetKernelSubGroupInfo(cl_kernel p0, cl_device_id p1, cl_kernel_sub_group_info p2, size_t p3, const void * p4, size_t p5, void * p6, size_t * p7)
{
   return kiln_api_unsupported("clGetKernelSubGroupInfo");
}

static cl_int CL_API_CALL stub_clSetDefaultDeviceCommandQueue(cl_context p0, cl_device_id p1, cl_command_queue p2)
{
   return kiln_api_unsupported("clSetDefaultDeviceCommandQueue");
}

static cl_int CL_API_CALL stub_clSetProgramReleaseCallback(cl_program p0, void(CL_CALLBACK *p1)(cl_program program, void *user_data), void * p2)
{
   return kiln_api_unsupported("clSetProgramReleaseCallback");
}

static cl_int CL_API_CALL stub_clSetProgramSpecializationConstant(cl_program p0, cl_uint p1, size_t p2, const void * p3)
{
   return kiln_api_unsupported("clSetProgramSpecializationConstant");
}

static cl_mem CL_API_CALL stub_clCreateBufferWithProperties(cl_context p0, const cl_mem_properties * p1, cl_mem_flags p2, size_t p3, void * p4, cl_int * p5)
{
   cl_int err = kiln_api_unsupported("clCreateBufferWithProperties");
   if (p5)
      *p5 = err;
   return NULL;
}

static cl_mem CL_API_CALL stub_clCreateImageWithProperties(cl_context p0, const cl_mem_properties * p1, cl_mem_flags p2, const cl_image_format * p3, const cl_image_desc * p4, void * p5, cl_int * p6)
{
   cl_int err = kiln_api_unsupported("clCreateImageWithProperties");
   if (p6)
      *p6 = err;
   return NULL;
}

static cl_int CL_API_CALL stub_clSetContextDestructorCallback(cl_context p0, void(CL_CALLBACK *p1)(cl_context context, void* user_data), void* p2)
{
   return kiln_api_unsupported("clSetContextDestructorCallback");
}

/* Slots whose types exist only on other systems (Direct3D, DX9). */
static cl_int kiln_stub_generic(void)
{
   return kiln_api_unsupported("a Windows-only entry point");
}

void kiln_unsupported_fill(cl_icd_dispatch *d)
{
   d->clCreateFromGLBuffer = stub_clCreateFromGLBuffer;
   d->clCreateFromGLTexture2D = stub_clCreateFromGLTexture2D;
   d->clCreateFromGLTexture3D = stub_clCreateFromGLTexture3D;
   d->clCreateFromGLRenderbuffer = stub_clCreateFromGLRenderbuffer;
   d->clGetGLObjectInfo = stub_clGetGLObjectInfo;
   d->clGetGLTextureInfo = stub_clGetGLTextureInfo;
   d->clEnqueueAcquireGLObjects = stub_clEnqueueAcquireGLObjects;
   d->clEnqueueReleaseGLObjects = stub_clEnqueueReleaseGLObjects;
   d->clGetGLContextInfoKHR = stub_clGetGLContextInfoKHR;
   d->clGetDeviceIDsFromD3D10KHR = (void *)kiln_stub_generic;
   d->clCreateFromD3D10BufferKHR = (void *)kiln_stub_generic;
   d->clCreateFromD3D10Texture2DKHR = (void *)kiln_stub_generic;
   d->clCreateFromD3D10Texture3DKHR = (void *)kiln_stub_generic;
   d->clEnqueueAcquireD3D10ObjectsKHR = (void *)kiln_stub_generic;
   d->clEnqueueReleaseD3D10ObjectsKHR = (void *)kiln_stub_generic;
   d->clCreateSubDevicesEXT = stub_clCreateSubDevicesEXT;
   d->clRetainDeviceEXT = stub_clRetainDeviceEXT;
   d->clReleaseDeviceEXT = stub_clReleaseDeviceEXT;
   d->clCreateEventFromGLsyncKHR = stub_clCreateEventFromGLsyncKHR;
   d->clCreateFromGLTexture = stub_clCreateFromGLTexture;
   d->clGetDeviceIDsFromD3D11KHR = (void *)kiln_stub_generic;
   d->clCreateFromD3D11BufferKHR = (void *)kiln_stub_generic;
   d->clCreateFromD3D11Texture2DKHR = (void *)kiln_stub_generic;
   d->clCreateFromD3D11Texture3DKHR = (void *)kiln_stub_generic;
   d->clCreateFromDX9MediaSurfaceKHR = (void *)kiln_stub_generic;
   d->clEnqueueAcquireD3D11ObjectsKHR = (void *)kiln_stub_generic;
   d->clEnqueueReleaseD3D11ObjectsKHR = (void *)kiln_stub_generic;
   d->clGetDeviceIDsFromDX9MediaAdapterKHR = (void *)kiln_stub_generic;
   d->clEnqueueAcquireDX9MediaSurfacesKHR = (void *)kiln_stub_generic;
   d->clEnqueueReleaseDX9MediaSurfacesKHR = (void *)kiln_stub_generic;
   d->clCreateFromEGLImageKHR = stub_clCreateFromEGLImageKHR;
   d->clEnqueueAcquireEGLObjectsKHR = stub_clEnqueueAcquireEGLObjectsKHR;
   d->clEnqueueReleaseEGLObjectsKHR = stub_clEnqueueReleaseEGLObjectsKHR;
   d->clCreateEventFromEGLSyncKHR = stub_clCreateEventFromEGLSyncKHR;
   d->clCreatePipe = stub_clCreatePipe;
   d->clGetPipeInfo = stub_clGetPipeInfo;
   d->clSVMAlloc = stub_clSVMAlloc;
   d->clSVMFree = stub_clSVMFree;
   d->clEnqueueSVMFree = stub_clEnqueueSVMFree;
   d->clEnqueueSVMMemcpy = stub_clEnqueueSVMMemcpy;
   d->clEnqueueSVMMemFill = stub_clEnqueueSVMMemFill;
   d->clEnqueueSVMMap = stub_clEnqueueSVMMap;
   d->clEnqueueSVMUnmap = stub_clEnqueueSVMUnmap;
   d->clCreateSamplerWithProperties = stub_clCreateSamplerWithProperties;
   d->clSetKernelArgSVMPointer = stub_clSetKernelArgSVMPointer;
   d->clSetKernelExecInfo = stub_clSetKernelExecInfo;
   d->clGetKernelSubGroupInfoKHR = stub_clGetKernelSubGroupInfoKHR;
   d->clCloneKernel = stub_clCloneKernel;
   d->clCreateProgramWithIL = stub_clCreateProgramWithIL;
   d->clEnqueueSVMMigrateMem = stub_clEnqueueSVMMigrateMem;
   d->clGetDeviceAndHostTimer = stub_clGetDeviceAndHostTimer;
   d->clGetHostTimer = stub_clGetHostTimer;
   d->clGetKernelSubGroupInfo = stub_clGetKernelSubGroupInfo;
   d->clSetDefaultDeviceCommandQueue = stub_clSetDefaultDeviceCommandQueue;
   d->clSetProgramReleaseCallback = stub_clSetProgramReleaseCallback;
   d->clSetProgramSpecializationConstant = stub_clSetProgramSpecializationConstant;
   d->clCreateBufferWithProperties = stub_clCreateBufferWithProperties;
   d->clCreateImageWithProperties = stub_clCreateImageWithProperties;
   d->clSetContextDestructorCallback = stub_clSetContextDestructorCallback;
}
