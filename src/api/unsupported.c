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
}
