/* Helpers shared by the cl* entry points. */
#ifndef KILN_API_H
#define KILN_API_H

#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/log.h"

/* Logs why an entry point fails (KILN_DEBUG=api) and returns err. */
#define API_FAIL(err, ...) kiln_api_fail(__func__, (err), __VA_ARGS__)
cl_int kiln_api_fail(const char *func, cl_int err, const char *fmt, ...)
   __attribute__((format(printf, 3, 4)));

/* Returns from a function that reports errors through errcode_ret. */
#define API_FAIL_RET(errcode_ret, err, ...)                                    \
   do {                                                                        \
      kiln_set_error((errcode_ret), API_FAIL((err), __VA_ARGS__));             \
      return NULL;                                                             \
   } while (0)

static inline void kiln_set_error(cl_int *errcode_ret, cl_int err)
{
   if (errcode_ret)
      *errcode_ret = err;
}

/* The clGet*Info protocol: copies size bytes of data to param_value if it
 * is not NULL (CL_INVALID_VALUE when param_value_size is too small), and
 * reports size through param_value_size_ret if that is not NULL. */
cl_int kiln_info(const void *data, size_t size, size_t param_value_size, void *param_value,
                 size_t *param_value_size_ret);

/* Shorthands inside a switch over param_name; they expect the function's
 * parameters to be named param_value_size, param_value, param_value_size_ret. */
#define INFO_VALUE(type, value)                                                \
   do {                                                                        \
      type info_v_ = (value);                                                  \
      return kiln_info(&info_v_, sizeof(info_v_), param_value_size,            \
                       param_value, param_value_size_ret);                     \
   } while (0)
#define INFO_STRING(str)                                                       \
   do {                                                                        \
      const char *info_s_ = (str);                                             \
      return kiln_info(info_s_, strlen(info_s_) + 1, param_value_size,         \
                       param_value, param_value_size_ret);                     \
   } while (0)
#define INFO_ARRAY(ptr, count)                                                 \
   return kiln_info((ptr), sizeof(*(ptr)) * (count), param_value_size,         \
                    param_value, param_value_size_ret)

/* OpenCL 1.1 lists CL_INVALID_VALUE (param_name not valid) before the
 * invalid-object error for clGetMemObjectInfo, clGetImageInfo,
 * clGetSamplerInfo, clGetProgramInfo, clGetProgramBuildInfo,
 * clGetKernelInfo, clGetKernelWorkGroupInfo, clGetEventInfo and
 * clGetEventProfilingInfo (later versions list the handle first for some).
 * Those entry points call this when their handle is not valid: it judges
 * the name first.  Nothing about the handle is read. */
#define API_FAIL_HANDLE(name_known, param_name, err, handle, what)            \
   ((name_known) ? API_FAIL((err), "%p is not " what, (void *)(handle))        \
                 : API_FAIL(CL_INVALID_VALUE, "unknown param_name 0x%x (and %p is not " what ")", \
                            (unsigned)(param_name), (void *)(handle)))

/* Flags valid for clCreateBuffer and clCreateImage*: known bits, one
 * access mode and one host access mode (1.2) at most, USE_HOST_PTR alone
 * among the host-pointer flags. */
bool kiln_api_valid_mem_flags(cl_mem_flags flags);
/* Whether a sub-buffer's or 1D image buffer's flags f ask for no device
 * or host access that its buffer's parent_flags deny (1.2, 5.2.2). */
bool kiln_api_flags_narrow(cl_mem_flags parent_flags, cl_mem_flags f);
/* f with the access, host-access and host-pointer flags it does not
 * give taken from parent_flags. */
cl_mem_flags kiln_api_inherit_flags(cl_mem_flags parent_flags, cl_mem_flags f);
/* CL_INVALID_OPERATION when m's CL_MEM_HOST_* flags forbid the host to
 * read (read) or write (write) it (1.2 reads, writes and maps). */
cl_int kiln_api_check_host_access(cl_mem m, bool read, bool write, const char *func);
/* clCreate{Buffer,Image}WithProperties: CL_INVALID_PROPERTY for any
 * property name (3.0 defines none without extensions). */
cl_int kiln_api_check_mem_properties(const cl_mem_properties *properties, const char *func);
/* Gives a new mem (NULL passes through) its property list for
 * CL_MEM_PROPERTIES; releases it and returns NULL when out of memory. */
cl_mem kiln_api_mem_set_properties(cl_mem mem, const cl_mem_properties *properties,
                                   cl_int *errcode_ret);
/* Map flags: CL_MAP_READ and/or CL_MAP_WRITE, or (1.2)
 * CL_MAP_WRITE_INVALIDATE_REGION alone. */
bool kiln_api_valid_map_flags(cl_map_flags flags);

/* The two symbols the library exports (cl_khr_icd); see kiln.sym. */
#define KILN_EXPORT __attribute__((visibility("default")))

/* Entry points not implemented yet share this error path. */
cl_int kiln_api_unsupported(const char *func);

#endif

/* Shared by the clEnqueue* entry points (api/event.c). */
struct kiln_wait_list;
/* CL_INVALID_EVENT_WAIT_LIST for a malformed list or a dead event,
 * CL_INVALID_CONTEXT for an event of another context. */
cl_int kiln_api_check_wait_list(cl_context ctx, cl_uint num, const cl_event *list,
                                const char *func);
/* CL_INVALID_CONTEXT if a valid event of the list belongs to another
 * context: the spec lists this before the list's other errors. */
cl_int kiln_api_check_wait_list_context(cl_context ctx, cl_uint num, const cl_event *list,
                                        const char *func);
/* Hands the new command's event to the application (or drops it), waiting
 * first for blocking calls; returns what the entry point returns. */
cl_int kiln_api_finish_enqueue(cl_event ev, bool blocking, cl_event *event_out);
