/* Every OpenCL 1.1 entry point that takes a handle, with a bad handle in
 * each handle argument (the other arguments valid):
 *   - NULL,
 *   - a released handle of the right type (not for platforms and devices,
 *     which 1.1 cannot release),
 *   - a live handle of every other type,
 *   - a forged handle: a copy of a live object's header (Kiln's dispatch
 *     table, the right type tag, counts of 1) that Kiln never made,
 *   - the integers 1 and ~0 as pointers.
 * Each call must return the error the 1.1 spec gives for that argument
 * (a few NULLs are valid: see want_null), create and destroy nothing, and
 * leave the reference count of every live object as it was.  Freed Kiln
 * objects are poisoned in ASan and valgrind runs (core/object.c), so the
 * ASan build of this test also proves no entry point reads a released
 * object's memory. */
#include "kiln_test.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/object.h"

enum kind {
   K_PLATFORM,
   K_DEVICE,
   K_CONTEXT,
   K_QUEUE,
   K_MEM,    /* a buffer */
   K_IMAGE,  /* an image: a buffer is of the wrong type */
   K_SAMPLER,
   K_PROGRAM,
   K_KERNEL,
   K_EVENT,
};

static const char *const kind_names[] = {
   "platform", "device", "context", "queue", "buffer", "image", "sampler", "program", "kernel",
   "event",
};

/* The live objects every call gets as its valid arguments. */
static struct {
   cl_platform_id platform;
   cl_device_id device;
   cl_context ctx;
   cl_command_queue q;
   cl_mem buf, buf2;
   void *mapped; /* buf2 mapped, for clEnqueueUnmapMemObject */
   cl_event ev;  /* a complete user event */
   cl_program prog;
   cl_kernel kernel;
   unsigned char *binary;
   size_t binary_size;
} w;

static const char *source = "__kernel void k(__global int *a, int n) { a[get_global_id(0)] = n; }";

static void CL_CALLBACK mem_cb(cl_mem m, void *data)
{
   (void)m, (void)data;
}

static void CL_CALLBACK event_cb(cl_event e, cl_int status, void *data)
{
   (void)e, (void)status, (void)data;
}

static void CL_CALLBACK native_fn(void *args)
{
   (void)args;
}

/* A create function given a bad handle must return NULL. */
static cl_int created(void *obj, cl_int err)
{
   if (obj)
      fail_msg("an object was created (error %d)", err);
   return err;
}

/* ---- the calls: h goes into one argument ------------------------------- */

#define CALL(id) static cl_int id(void *h)
#define HANDLE(type) ((type)h)

static const size_t zero3[3] = {0, 0, 0}, one3[3] = {1, 1, 1}, size16 = 16;
static int host[16];

CALL(get_platform_info) { return clGetPlatformInfo(HANDLE(cl_platform_id), CL_PLATFORM_NAME, 0, NULL, &(size_t){0}); }
CALL(get_device_ids) { return clGetDeviceIDs(HANDLE(cl_platform_id), CL_DEVICE_TYPE_ALL, 0, NULL, &(cl_uint){0}); }
CALL(get_device_info) { return clGetDeviceInfo(HANDLE(cl_device_id), CL_DEVICE_TYPE, 0, NULL, &(size_t){0}); }

CALL(create_context_platform)
{
   cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)h, 0};
   cl_int err = 0;
   void *obj = clCreateContext(props, 1, &w.device, NULL, NULL, &err);
   return created(obj, err);
}
CALL(create_context_device)
{
   cl_device_id d = HANDLE(cl_device_id);
   cl_int err = 0;
   void *obj = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
   return created(obj, err);
}
CALL(create_context_from_type_platform)
{
   cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)h, 0};
   cl_int err = 0;
   void *obj = clCreateContextFromType(props, CL_DEVICE_TYPE_ALL, NULL, NULL, &err);
   return created(obj, err);
}
CALL(retain_context) { return clRetainContext(HANDLE(cl_context)); }
CALL(release_context) { return clReleaseContext(HANDLE(cl_context)); }
CALL(get_context_info) { return clGetContextInfo(HANDLE(cl_context), CL_CONTEXT_REFERENCE_COUNT, 0, NULL, &(size_t){0}); }

CALL(create_queue_context)
{
   cl_int err = 0;
   void *obj = clCreateCommandQueue(HANDLE(cl_context), w.device, 0, &err);
   return created(obj, err);
}
CALL(create_queue_device)
{
   cl_int err = 0;
   void *obj = clCreateCommandQueue(w.ctx, HANDLE(cl_device_id), 0, &err);
   return created(obj, err);
}
CALL(retain_queue) { return clRetainCommandQueue(HANDLE(cl_command_queue)); }
CALL(release_queue) { return clReleaseCommandQueue(HANDLE(cl_command_queue)); }
CALL(get_queue_info) { return clGetCommandQueueInfo(HANDLE(cl_command_queue), CL_QUEUE_REFERENCE_COUNT, 0, NULL, &(size_t){0}); }
CALL(set_queue_property) { return clSetCommandQueueProperty(HANDLE(cl_command_queue), CL_QUEUE_PROFILING_ENABLE, CL_FALSE, NULL); }
CALL(flush) { return clFlush(HANDLE(cl_command_queue)); }
CALL(finish) { return clFinish(HANDLE(cl_command_queue)); }

CALL(create_buffer)
{
   cl_int err = 0;
   void *obj = clCreateBuffer(HANDLE(cl_context), 0, 64, NULL, &err);
   return created(obj, err);
}
CALL(create_sub_buffer)
{
   cl_buffer_region r = {0, 64};
   cl_int err = 0;
   void *obj = clCreateSubBuffer(HANDLE(cl_mem), 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
   return created(obj, err);
}
CALL(retain_mem) { return clRetainMemObject(HANDLE(cl_mem)); }
CALL(release_mem) { return clReleaseMemObject(HANDLE(cl_mem)); }
CALL(get_mem_info) { return clGetMemObjectInfo(HANDLE(cl_mem), CL_MEM_SIZE, 0, NULL, &(size_t){0}); }
CALL(set_mem_destructor) { return clSetMemObjectDestructorCallback(HANDLE(cl_mem), mem_cb, NULL); }

static const cl_image_format rgba8 = {CL_RGBA, CL_UNORM_INT8};
CALL(create_image2d)
{
   cl_int err = 0;
   void *obj = clCreateImage2D(HANDLE(cl_context), 0, &rgba8, 4, 4, 0, NULL, &err);
   return created(obj, err);
}
CALL(create_image3d)
{
   cl_int err = 0;
   void *obj = clCreateImage3D(HANDLE(cl_context), 0, &rgba8, 4, 4, 2, 0, 0, NULL, &err);
   return created(obj, err);
}
CALL(get_image_formats) { return clGetSupportedImageFormats(HANDLE(cl_context), 0, CL_MEM_OBJECT_IMAGE2D, 0, NULL, &(cl_uint){0}); }
CALL(get_image_info) { return clGetImageInfo(HANDLE(cl_mem), CL_IMAGE_WIDTH, 0, NULL, &(size_t){0}); }

CALL(create_sampler)
{
   cl_int err = 0;
   void *obj = clCreateSampler(HANDLE(cl_context), CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err);
   return created(obj, err);
}
CALL(retain_sampler) { return clRetainSampler(HANDLE(cl_sampler)); }
CALL(release_sampler) { return clReleaseSampler(HANDLE(cl_sampler)); }
CALL(get_sampler_info) { return clGetSamplerInfo(HANDLE(cl_sampler), CL_SAMPLER_REFERENCE_COUNT, 0, NULL, &(size_t){0}); }

CALL(create_program_source)
{
   cl_int err = 0;
   void *obj = clCreateProgramWithSource(HANDLE(cl_context), 1, &source, NULL, &err);
   return created(obj, err);
}
CALL(create_program_binary_context)
{
   const unsigned char *bin = w.binary;
   cl_int err = 0;
   void *obj = clCreateProgramWithBinary(HANDLE(cl_context), 1, &w.device, &w.binary_size, &bin, NULL, &err);
   return created(obj, err);
}
CALL(create_program_binary_device)
{
   cl_device_id d = HANDLE(cl_device_id);
   const unsigned char *bin = w.binary;
   cl_int err = 0;
   void *obj = clCreateProgramWithBinary(w.ctx, 1, &d, &w.binary_size, &bin, NULL, &err);
   return created(obj, err);
}
CALL(retain_program) { return clRetainProgram(HANDLE(cl_program)); }
CALL(release_program) { return clReleaseProgram(HANDLE(cl_program)); }
CALL(build_program) { return clBuildProgram(HANDLE(cl_program), 0, NULL, NULL, NULL, NULL); }
CALL(build_program_device)
{
   cl_device_id d = HANDLE(cl_device_id);
   return clBuildProgram(w.prog, 1, &d, NULL, NULL, NULL);
}
CALL(get_program_info) { return clGetProgramInfo(HANDLE(cl_program), CL_PROGRAM_REFERENCE_COUNT, 0, NULL, &(size_t){0}); }
CALL(get_build_info_program) { return clGetProgramBuildInfo(HANDLE(cl_program), w.device, CL_PROGRAM_BUILD_STATUS, 0, NULL, &(size_t){0}); }
CALL(get_build_info_device) { return clGetProgramBuildInfo(w.prog, HANDLE(cl_device_id), CL_PROGRAM_BUILD_STATUS, 0, NULL, &(size_t){0}); }

CALL(create_kernel)
{
   cl_int err = 0;
   void *obj = clCreateKernel(HANDLE(cl_program), "k", &err);
   return created(obj, err);
}
CALL(create_kernels) { return clCreateKernelsInProgram(HANDLE(cl_program), 0, NULL, &(cl_uint){0}); }
CALL(retain_kernel) { return clRetainKernel(HANDLE(cl_kernel)); }
CALL(release_kernel) { return clReleaseKernel(HANDLE(cl_kernel)); }
CALL(set_kernel_arg_kernel) { return clSetKernelArg(HANDLE(cl_kernel), 1, sizeof(int), &(int){1}); }
CALL(set_kernel_arg_value) { return clSetKernelArg(w.kernel, 0, sizeof(cl_mem), &h); }
CALL(get_kernel_info) { return clGetKernelInfo(HANDLE(cl_kernel), CL_KERNEL_REFERENCE_COUNT, 0, NULL, &(size_t){0}); }
CALL(get_wg_info_kernel) { return clGetKernelWorkGroupInfo(HANDLE(cl_kernel), w.device, CL_KERNEL_WORK_GROUP_SIZE, 0, NULL, &(size_t){0}); }
CALL(get_wg_info_device) { return clGetKernelWorkGroupInfo(w.kernel, HANDLE(cl_device_id), CL_KERNEL_WORK_GROUP_SIZE, 0, NULL, &(size_t){0}); }

CALL(wait_for_events)
{
   cl_event e = HANDLE(cl_event);
   return clWaitForEvents(1, &e);
}
CALL(get_event_info) { return clGetEventInfo(HANDLE(cl_event), CL_EVENT_REFERENCE_COUNT, 0, NULL, &(size_t){0}); }
CALL(create_user_event)
{
   cl_int err = 0;
   void *obj = clCreateUserEvent(HANDLE(cl_context), &err);
   return created(obj, err);
}
CALL(retain_event) { return clRetainEvent(HANDLE(cl_event)); }
CALL(release_event) { return clReleaseEvent(HANDLE(cl_event)); }
CALL(set_user_event_status) { return clSetUserEventStatus(HANDLE(cl_event), CL_COMPLETE); }
CALL(set_event_callback) { return clSetEventCallback(HANDLE(cl_event), CL_COMPLETE, event_cb, NULL); }
CALL(get_profiling_info) { return clGetEventProfilingInfo(HANDLE(cl_event), CL_PROFILING_COMMAND_QUEUED, 0, NULL, &(size_t){0}); }

/* The enqueue functions, three ways each: a bad queue (q), a bad memory
 * object or kernel, and a bad event in a one-entry wait list (wl).  The
 * commands are non-blocking, so a valid call would not wait. */
#define Q(h) ((cl_command_queue)(h))
#define WL(h) 1, &(cl_event){(cl_event)(h)}
#define ENQ3(id) \
   static cl_int id##_q(void *h) { return id(Q(h), w.buf, WL(w.ev)); } \
   static cl_int id##_m(void *h) { return id(w.q, (cl_mem)h, WL(w.ev)); } \
   static cl_int id##_w(void *h) { return id(w.q, w.buf, WL(h)); }

static cl_int read_buffer(cl_command_queue q, cl_mem m, cl_uint n, const cl_event *l)
{
   return clEnqueueReadBuffer(q, m, CL_FALSE, 0, sizeof(host), host, n, l, NULL);
}
static cl_int write_buffer(cl_command_queue q, cl_mem m, cl_uint n, const cl_event *l)
{
   return clEnqueueWriteBuffer(q, m, CL_FALSE, 0, sizeof(host), host, n, l, NULL);
}
static cl_int read_rect(cl_command_queue q, cl_mem m, cl_uint n, const cl_event *l)
{
   return clEnqueueReadBufferRect(q, m, CL_FALSE, zero3, zero3, one3, 0, 0, 0, 0, host, n, l, NULL);
}
static cl_int write_rect(cl_command_queue q, cl_mem m, cl_uint n, const cl_event *l)
{
   return clEnqueueWriteBufferRect(q, m, CL_FALSE, zero3, zero3, one3, 0, 0, 0, 0, host, n, l, NULL);
}
static cl_int map_buffer(cl_command_queue q, cl_mem m, cl_uint n, const cl_event *l)
{
   cl_int err = 0;
   void *p = clEnqueueMapBuffer(q, m, CL_FALSE, CL_MAP_READ, 0, 16, n, l, NULL, &err);
   void *obj = p;
   return created(obj, err);
}
static cl_int unmap(cl_command_queue q, cl_mem m, cl_uint n, const cl_event *l)
{
   /* buf2 is the mapped one. */
   return clEnqueueUnmapMemObject(q, m == w.buf ? w.buf2 : m, w.mapped, n, l, NULL);
}
static cl_int native_kernel(cl_command_queue q, cl_mem m, cl_uint n, const cl_event *l)
{
   struct { void *p; } args = {NULL};
   const void *loc = &args.p;
   return clEnqueueNativeKernel(q, native_fn, &args, sizeof(args), 1, &m, &loc, n, l, NULL);
}
ENQ3(read_buffer)
ENQ3(write_buffer)
ENQ3(read_rect)
ENQ3(write_rect)
ENQ3(map_buffer)
ENQ3(unmap)
ENQ3(native_kernel)

/* Copies: src and dst are bad one at a time. */
static cl_int copy(cl_command_queue q, cl_mem s, cl_mem d, cl_uint n, const cl_event *l)
{
   return clEnqueueCopyBuffer(q, s, d, 0, 0, 16, n, l, NULL);
}
static cl_int copy_rect(cl_command_queue q, cl_mem s, cl_mem d, cl_uint n, const cl_event *l)
{
   return clEnqueueCopyBufferRect(q, s, d, zero3, zero3, one3, 0, 0, 0, 0, n, l, NULL);
}
#define ENQCOPY(id) \
   static cl_int id##_q(void *h) { return id(Q(h), w.buf, w.buf2, WL(w.ev)); } \
   static cl_int id##_src(void *h) { return id(w.q, (cl_mem)h, w.buf2, WL(w.ev)); } \
   static cl_int id##_dst(void *h) { return id(w.q, w.buf, (cl_mem)h, WL(w.ev)); } \
   static cl_int id##_w(void *h) { return id(w.q, w.buf, w.buf2, WL(h)); }
ENQCOPY(copy)
ENQCOPY(copy_rect)

/* Kernels: a bad queue, kernel or wait-list entry. */
static cl_int ndrange(cl_command_queue q, cl_kernel k, cl_uint n, const cl_event *l)
{
   return clEnqueueNDRangeKernel(q, k, 1, NULL, &size16, NULL, n, l, NULL);
}
static cl_int task(cl_command_queue q, cl_kernel k, cl_uint n, const cl_event *l)
{
   return clEnqueueTask(q, k, n, l, NULL);
}
#define ENQKERNEL(id) \
   static cl_int id##_q(void *h) { return id(Q(h), w.kernel, WL(w.ev)); } \
   static cl_int id##_k(void *h) { return id(w.q, (cl_kernel)h, WL(w.ev)); } \
   static cl_int id##_w(void *h) { return id(w.q, w.kernel, WL(h)); }
ENQKERNEL(ndrange)
ENQKERNEL(task)

CALL(marker) { return clEnqueueMarker(Q(h), &(cl_event){NULL}); }
CALL(barrier) { return clEnqueueBarrier(Q(h)); }
CALL(wait_events_q) { return clEnqueueWaitForEvents(Q(h), 1, &w.ev); }
CALL(wait_events_e) { return clEnqueueWaitForEvents(w.q, WL(h)); }

/* Images: the calls with a bad queue pass NULL images (1.1 lists the queue
 * first, so the image is never looked at). */
CALL(read_image_q) { return clEnqueueReadImage(Q(h), NULL, CL_FALSE, zero3, one3, 0, 0, host, 0, NULL, NULL); }
CALL(read_image_i) { return clEnqueueReadImage(w.q, (cl_mem)h, CL_FALSE, zero3, one3, 0, 0, host, 0, NULL, NULL); }
CALL(write_image_q) { return clEnqueueWriteImage(Q(h), NULL, CL_FALSE, zero3, one3, 0, 0, host, 0, NULL, NULL); }
CALL(write_image_i) { return clEnqueueWriteImage(w.q, (cl_mem)h, CL_FALSE, zero3, one3, 0, 0, host, 0, NULL, NULL); }
CALL(copy_image_q) { return clEnqueueCopyImage(Q(h), NULL, NULL, zero3, zero3, one3, 0, NULL, NULL); }
CALL(copy_image_src) { return clEnqueueCopyImage(w.q, (cl_mem)h, NULL, zero3, zero3, one3, 0, NULL, NULL); }
CALL(copy_image_dst) { return clEnqueueCopyImage(w.q, NULL, (cl_mem)h, zero3, zero3, one3, 0, NULL, NULL); }
CALL(image_to_buffer_q) { return clEnqueueCopyImageToBuffer(Q(h), NULL, w.buf, zero3, one3, 0, 0, NULL, NULL); }
CALL(image_to_buffer_i) { return clEnqueueCopyImageToBuffer(w.q, (cl_mem)h, w.buf, zero3, one3, 0, 0, NULL, NULL); }
CALL(image_to_buffer_b) { return clEnqueueCopyImageToBuffer(w.q, NULL, (cl_mem)h, zero3, one3, 0, 0, NULL, NULL); }
CALL(buffer_to_image_q) { return clEnqueueCopyBufferToImage(Q(h), w.buf, NULL, 0, zero3, one3, 0, NULL, NULL); }
CALL(buffer_to_image_b) { return clEnqueueCopyBufferToImage(w.q, (cl_mem)h, NULL, 0, zero3, one3, 0, NULL, NULL); }
CALL(buffer_to_image_i) { return clEnqueueCopyBufferToImage(w.q, w.buf, (cl_mem)h, 0, zero3, one3, 0, NULL, NULL); }
CALL(map_image_q)
{
   size_t pitch;
   cl_int err = 0;
   void *obj = clEnqueueMapImage(Q(h), NULL, CL_FALSE, CL_MAP_READ, zero3, one3, &pitch, NULL, 0, NULL, NULL, &err);
   return created(obj, err);
}
CALL(map_image_i)
{
   size_t pitch;
   cl_int err = 0;
   void *obj = clEnqueueMapImage(w.q, (cl_mem)h, CL_FALSE, CL_MAP_READ, zero3, one3, &pitch, NULL, 0, NULL, NULL, &err);
   return created(obj, err);
}

/* ---- the table ---------------------------------------------------------- */

/* want_null: what NULL gives when the spec lets NULL mean something, or
 * NULL_SAME (no OpenCL error code is 1). */
#define NULL_SAME 1
struct row {
   const char *what;
   enum kind kind;
   cl_int want;
   cl_int want_null;
   cl_int (*call)(void *h);
};

#define INV_Q CL_INVALID_COMMAND_QUEUE
#define INV_M CL_INVALID_MEM_OBJECT
#define INV_WL CL_INVALID_EVENT_WAIT_LIST

static const struct row rows[] = {
   /* 1.1 leaves a NULL platform to the implementation: Kiln's. */
   {"clGetPlatformInfo(platform)", K_PLATFORM, CL_INVALID_PLATFORM, CL_SUCCESS, get_platform_info},
   {"clGetDeviceIDs(platform)", K_PLATFORM, CL_INVALID_PLATFORM, CL_SUCCESS, get_device_ids},
   {"clGetDeviceInfo(device)", K_DEVICE, CL_INVALID_DEVICE, NULL_SAME, get_device_info},
   {"clCreateContext(CL_CONTEXT_PLATFORM)", K_PLATFORM, CL_INVALID_PLATFORM, NULL_SAME, create_context_platform},
   {"clCreateContext(devices[0])", K_DEVICE, CL_INVALID_DEVICE, NULL_SAME, create_context_device},
   {"clCreateContextFromType(CL_CONTEXT_PLATFORM)", K_PLATFORM, CL_INVALID_PLATFORM, NULL_SAME, create_context_from_type_platform},
   {"clRetainContext(context)", K_CONTEXT, CL_INVALID_CONTEXT, NULL_SAME, retain_context},
   {"clReleaseContext(context)", K_CONTEXT, CL_INVALID_CONTEXT, NULL_SAME, release_context},
   {"clGetContextInfo(context)", K_CONTEXT, CL_INVALID_CONTEXT, NULL_SAME, get_context_info},
   {"clCreateCommandQueue(context)", K_CONTEXT, CL_INVALID_CONTEXT, NULL_SAME, create_queue_context},
   {"clCreateCommandQueue(device)", K_DEVICE, CL_INVALID_DEVICE, NULL_SAME, create_queue_device},
   {"clRetainCommandQueue(queue)", K_QUEUE, INV_Q, NULL_SAME, retain_queue},
   {"clReleaseCommandQueue(queue)", K_QUEUE, INV_Q, NULL_SAME, release_queue},
   {"clGetCommandQueueInfo(queue)", K_QUEUE, INV_Q, NULL_SAME, get_queue_info},
   {"clSetCommandQueueProperty(queue)", K_QUEUE, INV_Q, NULL_SAME, set_queue_property},
   {"clFlush(queue)", K_QUEUE, INV_Q, NULL_SAME, flush},
   {"clFinish(queue)", K_QUEUE, INV_Q, NULL_SAME, finish},
   {"clCreateBuffer(context)", K_CONTEXT, CL_INVALID_CONTEXT, NULL_SAME, create_buffer},
   {"clCreateSubBuffer(buffer)", K_MEM, INV_M, NULL_SAME, create_sub_buffer},
   {"clRetainMemObject(memobj)", K_MEM, INV_M, NULL_SAME, retain_mem},
   {"clReleaseMemObject(memobj)", K_MEM, INV_M, NULL_SAME, release_mem},
   {"clGetMemObjectInfo(memobj)", K_MEM, INV_M, NULL_SAME, get_mem_info},
   {"clSetMemObjectDestructorCallback(memobj)", K_MEM, INV_M, NULL_SAME, set_mem_destructor},
   {"clCreateImage2D(context)", K_CONTEXT, CL_INVALID_CONTEXT, NULL_SAME, create_image2d},
   {"clCreateImage3D(context)", K_CONTEXT, CL_INVALID_CONTEXT, NULL_SAME, create_image3d},
   {"clGetSupportedImageFormats(context)", K_CONTEXT, CL_INVALID_CONTEXT, NULL_SAME, get_image_formats},
   {"clGetImageInfo(image)", K_IMAGE, INV_M, NULL_SAME, get_image_info},
   {"clCreateSampler(context)", K_CONTEXT, CL_INVALID_CONTEXT, NULL_SAME, create_sampler},
   {"clRetainSampler(sampler)", K_SAMPLER, CL_INVALID_SAMPLER, NULL_SAME, retain_sampler},
   {"clReleaseSampler(sampler)", K_SAMPLER, CL_INVALID_SAMPLER, NULL_SAME, release_sampler},
   {"clGetSamplerInfo(sampler)", K_SAMPLER, CL_INVALID_SAMPLER, NULL_SAME, get_sampler_info},
   {"clCreateProgramWithSource(context)", K_CONTEXT, CL_INVALID_CONTEXT, NULL_SAME, create_program_source},
   {"clCreateProgramWithBinary(context)", K_CONTEXT, CL_INVALID_CONTEXT, NULL_SAME, create_program_binary_context},
   {"clCreateProgramWithBinary(device_list[0])", K_DEVICE, CL_INVALID_DEVICE, NULL_SAME, create_program_binary_device},
   {"clRetainProgram(program)", K_PROGRAM, CL_INVALID_PROGRAM, NULL_SAME, retain_program},
   {"clReleaseProgram(program)", K_PROGRAM, CL_INVALID_PROGRAM, NULL_SAME, release_program},
   {"clBuildProgram(program)", K_PROGRAM, CL_INVALID_PROGRAM, NULL_SAME, build_program},
   {"clBuildProgram(device_list[0])", K_DEVICE, CL_INVALID_DEVICE, NULL_SAME, build_program_device},
   {"clGetProgramInfo(program)", K_PROGRAM, CL_INVALID_PROGRAM, NULL_SAME, get_program_info},
   {"clGetProgramBuildInfo(program)", K_PROGRAM, CL_INVALID_PROGRAM, NULL_SAME, get_build_info_program},
   {"clGetProgramBuildInfo(device)", K_DEVICE, CL_INVALID_DEVICE, NULL_SAME, get_build_info_device},
   {"clCreateKernel(program)", K_PROGRAM, CL_INVALID_PROGRAM, NULL_SAME, create_kernel},
   {"clCreateKernelsInProgram(program)", K_PROGRAM, CL_INVALID_PROGRAM, NULL_SAME, create_kernels},
   {"clRetainKernel(kernel)", K_KERNEL, CL_INVALID_KERNEL, NULL_SAME, retain_kernel},
   {"clReleaseKernel(kernel)", K_KERNEL, CL_INVALID_KERNEL, NULL_SAME, release_kernel},
   {"clSetKernelArg(kernel)", K_KERNEL, CL_INVALID_KERNEL, NULL_SAME, set_kernel_arg_kernel},
   /* 5.7.2: a NULL buffer is a valid value for a __global argument. */
   {"clSetKernelArg(*arg_value, __global)", K_MEM, INV_M, CL_SUCCESS, set_kernel_arg_value},
   {"clGetKernelInfo(kernel)", K_KERNEL, CL_INVALID_KERNEL, NULL_SAME, get_kernel_info},
   {"clGetKernelWorkGroupInfo(kernel)", K_KERNEL, CL_INVALID_KERNEL, NULL_SAME, get_wg_info_kernel},
   /* A NULL device is valid when the kernel's program has one device. */
   {"clGetKernelWorkGroupInfo(device)", K_DEVICE, CL_INVALID_DEVICE, CL_SUCCESS, get_wg_info_device},
   {"clWaitForEvents(event_list[0])", K_EVENT, CL_INVALID_EVENT, NULL_SAME, wait_for_events},
   {"clGetEventInfo(event)", K_EVENT, CL_INVALID_EVENT, NULL_SAME, get_event_info},
   {"clCreateUserEvent(context)", K_CONTEXT, CL_INVALID_CONTEXT, NULL_SAME, create_user_event},
   {"clRetainEvent(event)", K_EVENT, CL_INVALID_EVENT, NULL_SAME, retain_event},
   {"clReleaseEvent(event)", K_EVENT, CL_INVALID_EVENT, NULL_SAME, release_event},
   {"clSetUserEventStatus(event)", K_EVENT, CL_INVALID_EVENT, NULL_SAME, set_user_event_status},
   {"clSetEventCallback(event)", K_EVENT, CL_INVALID_EVENT, NULL_SAME, set_event_callback},
   {"clGetEventProfilingInfo(event)", K_EVENT, CL_INVALID_EVENT, NULL_SAME, get_profiling_info},
#define ROWS3(fn, id)                                                          \
   {fn "(command_queue)", K_QUEUE, INV_Q, NULL_SAME, id##_q},                  \
   {fn "(buffer)", K_MEM, INV_M, NULL_SAME, id##_m},                           \
   {fn "(event_wait_list[0])", K_EVENT, INV_WL, NULL_SAME, id##_w}
   ROWS3("clEnqueueReadBuffer", read_buffer),
   ROWS3("clEnqueueWriteBuffer", write_buffer),
   ROWS3("clEnqueueReadBufferRect", read_rect),
   ROWS3("clEnqueueWriteBufferRect", write_rect),
   ROWS3("clEnqueueMapBuffer", map_buffer),
   ROWS3("clEnqueueUnmapMemObject", unmap),
   ROWS3("clEnqueueNativeKernel", native_kernel), /* the buffer is mem_list[0] */
#define ROWSCOPY(fn, id)                                                       \
   {fn "(command_queue)", K_QUEUE, INV_Q, NULL_SAME, id##_q},                  \
   {fn "(src_buffer)", K_MEM, INV_M, NULL_SAME, id##_src},                     \
   {fn "(dst_buffer)", K_MEM, INV_M, NULL_SAME, id##_dst},                     \
   {fn "(event_wait_list[0])", K_EVENT, INV_WL, NULL_SAME, id##_w}
   ROWSCOPY("clEnqueueCopyBuffer", copy),
   ROWSCOPY("clEnqueueCopyBufferRect", copy_rect),
#define ROWSKERNEL(fn, id)                                                     \
   {fn "(command_queue)", K_QUEUE, INV_Q, NULL_SAME, id##_q},                  \
   {fn "(kernel)", K_KERNEL, CL_INVALID_KERNEL, NULL_SAME, id##_k},            \
   {fn "(event_wait_list[0])", K_EVENT, INV_WL, NULL_SAME, id##_w}
   ROWSKERNEL("clEnqueueNDRangeKernel", ndrange),
   ROWSKERNEL("clEnqueueTask", task),
   {"clEnqueueMarker(command_queue)", K_QUEUE, INV_Q, NULL_SAME, marker},
   {"clEnqueueBarrier(command_queue)", K_QUEUE, INV_Q, NULL_SAME, barrier},
   {"clEnqueueWaitForEvents(command_queue)", K_QUEUE, INV_Q, NULL_SAME, wait_events_q},
   {"clEnqueueWaitForEvents(event_list[0])", K_EVENT, CL_INVALID_EVENT, NULL_SAME, wait_events_e},
   {"clEnqueueReadImage(command_queue)", K_QUEUE, INV_Q, NULL_SAME, read_image_q},
   {"clEnqueueReadImage(image)", K_IMAGE, INV_M, NULL_SAME, read_image_i},
   {"clEnqueueWriteImage(command_queue)", K_QUEUE, INV_Q, NULL_SAME, write_image_q},
   {"clEnqueueWriteImage(image)", K_IMAGE, INV_M, NULL_SAME, write_image_i},
   {"clEnqueueCopyImage(command_queue)", K_QUEUE, INV_Q, NULL_SAME, copy_image_q},
   {"clEnqueueCopyImage(src_image)", K_IMAGE, INV_M, NULL_SAME, copy_image_src},
   {"clEnqueueCopyImage(dst_image)", K_IMAGE, INV_M, NULL_SAME, copy_image_dst},
   {"clEnqueueCopyImageToBuffer(command_queue)", K_QUEUE, INV_Q, NULL_SAME, image_to_buffer_q},
   {"clEnqueueCopyImageToBuffer(src_image)", K_IMAGE, INV_M, NULL_SAME, image_to_buffer_i},
   {"clEnqueueCopyImageToBuffer(dst_buffer)", K_MEM, INV_M, NULL_SAME, image_to_buffer_b},
   {"clEnqueueCopyBufferToImage(command_queue)", K_QUEUE, INV_Q, NULL_SAME, buffer_to_image_q},
   {"clEnqueueCopyBufferToImage(src_buffer)", K_MEM, INV_M, NULL_SAME, buffer_to_image_b},
   {"clEnqueueCopyBufferToImage(dst_image)", K_IMAGE, INV_M, NULL_SAME, buffer_to_image_i},
   {"clEnqueueMapImage(command_queue)", K_QUEUE, INV_Q, NULL_SAME, map_image_q},
   {"clEnqueueMapImage(image)", K_IMAGE, INV_M, NULL_SAME, map_image_i},
};

/* ---- the bad handles ------------------------------------------------------ */

/* A live object of each kind (NULL: none can exist). */
static void *live_of(enum kind k)
{
   switch (k) {
   case K_PLATFORM: return w.platform;
   case K_DEVICE: return w.device;
   case K_CONTEXT: return w.ctx;
   case K_QUEUE: return w.q;
   case K_MEM: return w.buf;
   case K_PROGRAM: return w.prog;
   case K_KERNEL: return w.kernel;
   case K_EVENT: return w.ev;
   case K_IMAGE:
   case K_SAMPLER: return NULL;
   }
   return NULL;
}

static enum kiln_type tag_of(enum kind k)
{
   static const enum kiln_type tags[] = {
      KILN_TYPE_PLATFORM, KILN_TYPE_DEVICE, KILN_TYPE_CONTEXT, KILN_TYPE_QUEUE, KILN_TYPE_MEM,
      KILN_TYPE_MEM,      KILN_TYPE_SAMPLER, KILN_TYPE_PROGRAM, KILN_TYPE_KERNEL, KILN_TYPE_EVENT,
   };
   return tags[k];
}

/* A handle of kind k that was valid and is not any more: made just before
 * the call, with nothing created in between, so that its memory cannot be
 * a new object yet.  NULL where 1.1 has no such thing. */
static void *released_of(enum kind k)
{
   cl_int err = -1;
   void *h = NULL;
   switch (k) {
   case K_CONTEXT:
      return kt_released_context();
   case K_QUEUE:
      return kt_released_queue();
   case K_MEM:
      h = clCreateBuffer(w.ctx, 0, 64, NULL, &err);
      assert_int_equal(err, CL_SUCCESS);
      assert_int_equal(clReleaseMemObject(h), CL_SUCCESS);
      return h;
   case K_IMAGE:
      h = clCreateImage2D(w.ctx, 0, &rgba8, 4, 4, 0, NULL, &err);
      assert_int_equal(err, CL_SUCCESS);
      assert_int_equal(clReleaseMemObject(h), CL_SUCCESS);
      return h;
   case K_SAMPLER:
      h = clCreateSampler(w.ctx, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err);
      assert_int_equal(err, CL_SUCCESS);
      assert_int_equal(clReleaseSampler(h), CL_SUCCESS);
      return h;
   case K_PROGRAM:
      h = clCreateProgramWithSource(w.ctx, 1, &source, NULL, &err);
      assert_int_equal(err, CL_SUCCESS);
      assert_int_equal(clReleaseProgram(h), CL_SUCCESS);
      return h;
   case K_KERNEL:
      h = clCreateKernel(w.prog, "k", &err);
      assert_int_equal(err, CL_SUCCESS);
      assert_int_equal(clReleaseKernel(h), CL_SUCCESS);
      return h;
   case K_EVENT:
      h = clCreateUserEvent(w.ctx, &err);
      assert_int_equal(err, CL_SUCCESS);
      assert_int_equal(clSetUserEventStatus(h, CL_COMPLETE), CL_SUCCESS);
      assert_int_equal(clReleaseEvent(h), CL_SUCCESS);
      return h;
   case K_PLATFORM:
   case K_DEVICE:
      return NULL;
   }
   return NULL;
}

/* Room for a forged object: a header like Kiln's and zeros behind it. */
static union {
   struct kiln_object obj;
   char bytes[4096];
} forged;

static void *forged_of(enum kind k)
{
   memset(&forged, 0, sizeof(forged));
   void *live = live_of(k);
   if (live)
      memcpy(&forged.obj, live, sizeof(forged.obj));
   else
      forged.obj.dispatch = ((struct kiln_object *)w.ctx)->dispatch;
   forged.obj.type = tag_of(k);
   atomic_store(&forged.obj.refcount, 1);
   atomic_store(&forged.obj.internal, 1);
   return &forged;
}

/* ---- the checks ---------------------------------------------------------- */

static const enum kiln_type all_tags[] = {
   KILN_TYPE_PLATFORM, KILN_TYPE_DEVICE, KILN_TYPE_CONTEXT, KILN_TYPE_QUEUE, KILN_TYPE_MEM,
   KILN_TYPE_PROGRAM,  KILN_TYPE_KERNEL, KILN_TYPE_EVENT,   KILN_TYPE_SAMPLER,
};
#define NTAGS (sizeof(all_tags) / sizeof(all_tags[0]))

struct snapshot {
   unsigned live[NTAGS];
   cl_uint refs[7];
};

static void snap(struct snapshot *s)
{
   for (size_t i = 0; i < NTAGS; i++)
      s->live[i] = kiln_object_count_live(all_tags[i]);
   struct kiln_object *objs[] = {
      (void *)w.ctx, (void *)w.q, (void *)w.buf, (void *)w.buf2, (void *)w.ev, (void *)w.prog,
      (void *)w.kernel,
   };
   for (size_t i = 0; i < 7; i++)
      s->refs[i] = kiln_object_refcount(objs[i]);
}

static int failures;
static unsigned calls;

static void check(const struct row *r, const char *handle_desc, void *h, cl_int want)
{
   struct snapshot before, after;
   snap(&before);
   cl_int got = r->call(h);
   snap(&after);
   calls++;
   if (got != want) {
      print_error("%s with %s: got %d, want %d\n", r->what, handle_desc, got, want);
      failures++;
   }
   for (size_t i = 0; i < NTAGS; i++)
      if (before.live[i] != after.live[i]) {
         print_error("%s with %s: live objects of type %#x went from %u to %u\n", r->what,
                     handle_desc, (unsigned)all_tags[i], before.live[i], after.live[i]);
         failures++;
      }
   for (size_t i = 0; i < 7; i++)
      if (before.refs[i] != after.refs[i]) {
         print_error("%s with %s: reference count of live object %zu went from %u to %u\n",
                     r->what, handle_desc, i, before.refs[i], after.refs[i]);
         failures++;
      }
}

static void run_row(const struct row *r)
{
   char desc[64];
   check(r, "NULL", NULL, r->want_null == NULL_SAME ? r->want : r->want_null);
   void *released = released_of(r->kind);
   if (released)
      check(r, "a released handle", released, r->want);
   for (int k = K_PLATFORM; k <= K_EVENT; k++) {
      void *other = live_of((enum kind)k);
      if (!other || k == (int)r->kind)
         continue;
      snprintf(desc, sizeof(desc), "a %s", kind_names[k]);
      check(r, desc, other, r->want);
   }
   check(r, "a forged handle", forged_of(r->kind), r->want);
   check(r, "(void *)1", (void *)(uintptr_t)1, r->want);
   check(r, "(void *)~0", (void *)~(uintptr_t)0, r->want);
}

/* ---- set-up ---------------------------------------------------------------- */

static int setup(void **state)
{
   (void)state;
   cl_int err = -1;
   w.platform = kt_platform();
   w.device = kt_device();
   w.ctx = kt_context();
   w.q = kt_queue(w.ctx, 0);
   w.buf = clCreateBuffer(w.ctx, 0, sizeof(host), NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   w.buf2 = clCreateBuffer(w.ctx, 0, sizeof(host), NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   w.mapped = clEnqueueMapBuffer(w.q, w.buf2, CL_TRUE, CL_MAP_READ, 0, 16, 0, NULL, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   w.ev = clCreateUserEvent(w.ctx, &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_int_equal(clSetUserEventStatus(w.ev, CL_COMPLETE), CL_SUCCESS);
   w.prog = clCreateProgramWithSource(w.ctx, 1, &source, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_int_equal(clBuildProgram(w.prog, 0, NULL, NULL, NULL, NULL), CL_SUCCESS);
   assert_int_equal(clGetProgramInfo(w.prog, CL_PROGRAM_BINARY_SIZES, sizeof(size_t),
                                     &w.binary_size, NULL),
                    CL_SUCCESS);
   w.binary = malloc(w.binary_size);
   assert_non_null(w.binary);
   assert_int_equal(clGetProgramInfo(w.prog, CL_PROGRAM_BINARIES, sizeof(w.binary), &w.binary,
                                     NULL),
                    CL_SUCCESS);
   w.kernel = clCreateKernel(w.prog, "k", &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_int_equal(clSetKernelArg(w.kernel, 0, sizeof(cl_mem), &w.buf), CL_SUCCESS);
   assert_int_equal(clSetKernelArg(w.kernel, 1, sizeof(int), &(int){1}), CL_SUCCESS);
   return 0;
}

static int teardown(void **state)
{
   (void)state;
   assert_int_equal(clEnqueueUnmapMemObject(w.q, w.buf2, w.mapped, 0, NULL, NULL), CL_SUCCESS);
   assert_int_equal(clFinish(w.q), CL_SUCCESS);
   assert_int_equal(clReleaseKernel(w.kernel), CL_SUCCESS);
   assert_int_equal(clReleaseProgram(w.prog), CL_SUCCESS);
   assert_int_equal(clReleaseEvent(w.ev), CL_SUCCESS);
   assert_int_equal(clReleaseMemObject(w.buf2), CL_SUCCESS);
   assert_int_equal(clReleaseMemObject(w.buf), CL_SUCCESS);
   assert_int_equal(clReleaseCommandQueue(w.q), CL_SUCCESS);
   assert_int_equal(clReleaseContext(w.ctx), CL_SUCCESS);
   free(w.binary);
   return 0;
}

/* ---- tests ------------------------------------------------------------------ */

static void every_entry_point(void **state)
{
   (void)state;
   failures = 0;
   calls = 0;
   for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
      run_row(&rows[i]);
   print_message("%zu handle arguments, %u calls\n", sizeof(rows) / sizeof(rows[0]), calls);
   assert_int_equal(failures, 0);
}

/* The table must name every 1.1 entry point that takes a handle: a new
 * one (or a typo) shows here. */
static void table_is_complete(void **state)
{
   (void)state;
   static const char *const entry_points[] = {
      "clGetPlatformInfo", "clGetDeviceIDs", "clGetDeviceInfo", "clCreateContext",
      "clCreateContextFromType", "clRetainContext", "clReleaseContext", "clGetContextInfo",
      "clCreateCommandQueue", "clRetainCommandQueue", "clReleaseCommandQueue",
      "clGetCommandQueueInfo", "clSetCommandQueueProperty", "clCreateBuffer", "clCreateSubBuffer",
      "clCreateImage2D", "clCreateImage3D", "clRetainMemObject", "clReleaseMemObject",
      "clGetSupportedImageFormats", "clGetMemObjectInfo", "clGetImageInfo",
      "clSetMemObjectDestructorCallback", "clCreateSampler", "clRetainSampler",
      "clReleaseSampler", "clGetSamplerInfo", "clCreateProgramWithSource",
      "clCreateProgramWithBinary", "clRetainProgram", "clReleaseProgram", "clBuildProgram",
      "clGetProgramInfo", "clGetProgramBuildInfo", "clCreateKernel", "clCreateKernelsInProgram",
      "clRetainKernel", "clReleaseKernel", "clSetKernelArg", "clGetKernelInfo",
      "clGetKernelWorkGroupInfo", "clWaitForEvents", "clGetEventInfo", "clCreateUserEvent",
      "clRetainEvent", "clReleaseEvent", "clSetUserEventStatus", "clSetEventCallback",
      "clGetEventProfilingInfo", "clFlush", "clFinish", "clEnqueueReadBuffer",
      "clEnqueueReadBufferRect", "clEnqueueWriteBuffer", "clEnqueueWriteBufferRect",
      "clEnqueueCopyBuffer", "clEnqueueCopyBufferRect", "clEnqueueReadImage",
      "clEnqueueWriteImage", "clEnqueueCopyImage", "clEnqueueCopyImageToBuffer",
      "clEnqueueCopyBufferToImage", "clEnqueueMapBuffer", "clEnqueueMapImage",
      "clEnqueueUnmapMemObject", "clEnqueueNDRangeKernel", "clEnqueueTask",
      "clEnqueueNativeKernel", "clEnqueueMarker", "clEnqueueWaitForEvents", "clEnqueueBarrier",
   };
   size_t n = sizeof(entry_points) / sizeof(entry_points[0]);
   assert_int_equal(n, 71);
   for (size_t i = 0; i < n; i++) {
      size_t len = strlen(entry_points[i]);
      bool found = false;
      for (size_t j = 0; j < sizeof(rows) / sizeof(rows[0]) && !found; j++)
         found = !strncmp(rows[j].what, entry_points[i], len) && rows[j].what[len] == '(';
      if (!found)
         fail_msg("%s has no row", entry_points[i]);
   }
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(table_is_complete),
      cmocka_unit_test(every_entry_point),
   };
   return cmocka_run_group_tests(tests, setup, teardown);
}
