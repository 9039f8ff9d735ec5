/* Helpers for the tests of memory objects, events and execution
 * (test_mem, test_transfer, test_event, test_sync). */
#ifndef KILN_TEST_MEM_H
#define KILN_TEST_MEM_H

#include "kiln_test.h"

#include "core/object.h"

/* A second device on the CPU driver's screen, made once and kept for the
 * whole process: its CL_DEVICE_MEM_BASE_ADDR_ALIGN is KT_SMALL_ALIGN bytes
 * (the CPU device's is 128) and its CL_DEVICE_MAX_MEM_ALLOC_SIZE is
 * KT_SMALL_MAX_ALLOC.  With it, a context can hold a sub-buffer whose
 * origin suits one of its devices and not the other. */
#define KT_CPU_ALIGN 128
#define KT_SMALL_ALIGN 64
#define KT_SMALL_MAX_ALLOC ((size_t)64 * 1024)
cl_device_id kt_small_device(void);
/* A context of kt_device() (first) and kt_small_device(). */
cl_context kt_two_device_context(void);

/* Creation that must succeed. */
cl_mem kt_buffer(cl_context ctx, cl_mem_flags flags, size_t size, void *host_ptr);
cl_mem kt_sub_buffer(cl_mem parent, cl_mem_flags flags, size_t origin, size_t size);
cl_event kt_user_event(cl_context ctx);

/* Handles that are no longer valid (see kt_released_context: use them
 * before creating another object of the kind).  The event was completed
 * before its release, so it is really gone. */
cl_mem kt_released_buffer(void);
cl_event kt_released_event(void);

/* clGetMemObjectInfo, clGetEventInfo, clGetEventProfilingInfo for
 * kt_check_info. */
cl_int kt_mem_info(const void *h, cl_uint p, size_t s, void *v, size_t *r);
cl_int kt_event_info(const void *h, cl_uint p, size_t s, void *v, size_t *r);
cl_int kt_profiling_info(const void *h, cl_uint p, size_t s, void *v, size_t *r);

cl_uint kt_mem_refcount(cl_mem m);
cl_uint kt_map_count(cl_mem m);
cl_uint kt_event_refcount(cl_event e);
cl_uint kt_queue_refcount(cl_command_queue q);
cl_int kt_event_status(cl_event e);
cl_command_type kt_event_type(cl_event e);

/* Byte i of pattern seed: distinct for nearby seeds and offsets. */
static inline unsigned char kt_pat(unsigned seed, size_t i)
{
   return (unsigned char)(seed * 31u + i * 7u + (i >> 8));
}
void kt_fill(unsigned char *buf, size_t n, unsigned seed);

/* Blocking whole-buffer write of pattern seed / read compared with want. */
void kt_write_pattern(cl_command_queue q, cl_mem m, size_t size, unsigned seed);
void kt_assert_contents(cl_command_queue q, cl_mem m, const unsigned char *want, size_t size);

/* Polls until *counter reaches want (callbacks may run on another
 * thread); fails after a few seconds. */
void kt_wait_counter(volatile _Atomic int *counter, int want);

/* Live handles of a kind (object registry). */
static inline unsigned kt_live(enum kiln_type t)
{
   return kiln_object_count_live(t);
}

#endif
