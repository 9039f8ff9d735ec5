/* The OpenCL version Kiln's platform reports (CL_PLATFORM_VERSION), in one
 * place: the newest version any device may implement.  Each device says
 * its own (pipe_caps::opencl_version: CL_DEVICE_VERSION,
 * __OPENCL_VERSION__, the newest -cl-std); CL_DEVICE_OPENCL_C_VERSION is
 * "OpenCL C 1.2" on every device, as 3.0 requires of a device whose
 * newest OpenCL C 1.x is 1.2.  Raise it only when every feature of the new
 * version works (docs/conformance.md). */
#ifndef KILN_CL_VERSION_H
#define KILN_CL_VERSION_H

#define KILN_CL_VERSION_MAJOR 3
#define KILN_CL_VERSION_MINOR 0

#define KILN_CL_VERSION_STR_(a, b) #a "." #b
#define KILN_CL_VERSION_STR(a, b) KILN_CL_VERSION_STR_(a, b)
/* "3.0" */
#define KILN_CL_VERSION_STRING KILN_CL_VERSION_STR(KILN_CL_VERSION_MAJOR, KILN_CL_VERSION_MINOR)
/* 110, as __OPENCL_VERSION__ and -cl-std are numbered */
#define KILN_CL_VERSION_NUMBER (KILN_CL_VERSION_MAJOR * 100 + KILN_CL_VERSION_MINOR * 10)

#endif
