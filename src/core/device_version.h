/* What OpenCL version each device implements and the OpenCL 3.0 queries
 * that follow from it: the OpenCL C versions and optional features
 * (derived from the driver's caps, so a feature is listed exactly when
 * the device really has it), extension versions, and the -cl-ext list
 * that makes kernels see the same feature macros. */
#ifndef KILN_CORE_DEVICE_VERSION_H
#define KILN_CORE_DEVICE_VERSION_H

#include <CL/cl.h>
#include <stdbool.h>
#include <stddef.h>

/* At most this many OpenCL C versions and optional features. */
#define KILN_MAX_C_VERSIONS 5
#define KILN_MAX_C_FEATURES 24

/* 300 for an OpenCL 3.0 device, 120 for 1.2 (pipe_caps::opencl_version,
 * 0 counting as 120). */
cl_uint kiln_device_cl_version(cl_device_id dev);

/* Whether the device has on-device queues and kernels that enqueue
 * (__opencl_c_device_enqueue in CL_DEVICE_OPENCL_C_FEATURES). */
bool kiln_device_enqueue_supported(cl_device_id dev);

/* CL_DEVICE_OPENCL_C_ALL_VERSIONS: fills out (KILN_MAX_C_VERSIONS
 * entries; may be NULL) and returns how many. */
size_t kiln_device_c_versions(cl_device_id dev, cl_name_version *out);

/* CL_DEVICE_OPENCL_C_FEATURES: the __opencl_c_* features of a 3.0
 * device (none on an older one); same protocol. */
size_t kiln_device_c_features(cl_device_id dev, cl_name_version *out);

/* Whether the device lists __opencl_c_pipes (CL_DEVICE_PIPE_SUPPORT). */
bool kiln_device_has_pipes(cl_device_id dev);

/* Whether the device has every OpenCL C 2.0 feature: then it reports
 * OpenCL C 2.0 (CL_DEVICE_OPENCL_C_VERSION, _ALL_VERSIONS) and compiles
 * -cl-std=CL2.0. */
bool kiln_device_c20(cl_device_id dev);

/* CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES and _FENCE_CAPABILITIES: the
 * driver's (pipe_caps), or 3.0's minimum where it gives none. */
cl_device_atomic_capabilities kiln_device_atomic_memory_caps(cl_device_id dev);
cl_device_atomic_capabilities kiln_device_atomic_fence_caps(cl_device_id dev);

/* *_EXTENSIONS_WITH_VERSION for a space-separated extension list: up to
 * max entries into out (may be NULL); returns how many there are. */
size_t kiln_extensions_with_version(const char *list, cl_name_version *out, size_t max);

/* The device's clang -cl-ext list (its extensions) followed by its
 * OpenCL C features, so that __opencl_c_* macros match
 * CL_DEVICE_OPENCL_C_FEATURES under -cl-std=CL3.0. */
void kiln_device_clang_ext(cl_device_id dev, char *buf, size_t size);

/* The same from a driver's caps alone, for kiln-compile (no device). */
struct pipe_caps;
void kiln_caps_clang_ext(const struct pipe_caps *caps, char *buf, size_t size);
bool kiln_caps_c20(const struct pipe_caps *caps);

#endif
