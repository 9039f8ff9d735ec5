/* The OpenCL version Kiln reports, in one place: CL_PLATFORM_VERSION,
 * CL_DEVICE_VERSION, CL_DEVICE_OPENCL_C_VERSION, __OPENCL_VERSION__ and the
 * newest -cl-std a program may ask for all follow it.  Raise it only when
 * every feature of the new version works (docs/conformance.md). */
#ifndef KILN_CL_VERSION_H
#define KILN_CL_VERSION_H

#define KILN_CL_VERSION_MAJOR 1
#define KILN_CL_VERSION_MINOR 2

#define KILN_CL_VERSION_STR_(a, b) #a "." #b
#define KILN_CL_VERSION_STR(a, b) KILN_CL_VERSION_STR_(a, b)
/* "1.1" */
#define KILN_CL_VERSION_STRING KILN_CL_VERSION_STR(KILN_CL_VERSION_MAJOR, KILN_CL_VERSION_MINOR)
/* 110, as __OPENCL_VERSION__ and -cl-std are numbered */
#define KILN_CL_VERSION_NUMBER (KILN_CL_VERSION_MAJOR * 100 + KILN_CL_VERSION_MINOR * 10)

#endif
