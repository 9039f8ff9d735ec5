/* Kernel objects: a kernel of a built program and its argument values. */
#ifndef KILN_CORE_KERNEL_H
#define KILN_CORE_KERNEL_H

#include "core/object.h"
#include "pipe/pipe.h"

struct kiln_kernel_info;

struct kiln_kernel_arg {
   bool set;
   /* GLOBAL/CONSTANT: the buffer, or NULL; IMAGE2D/3D: the image.  Not a reference: releasing
    * the buffer deletes it even while it is set here (1.1 5.4.1; the CTS
    * waits for its destructor callback), so launches check that it still
    * lives (kiln_kernel_args_live) before they take their own reference. */
   cl_mem mem;
   uint64_t mem_serial;
   /* GLOBAL/CONSTANT set by clSetKernelArgSVMPointer: the pointer, passed
    * as it is (mem NULL). */
   bool is_svm;
   const void *svm;
   size_t local_size; /* LOCAL: bytes per work-group */
   void *value;       /* VALUE: a copy of the bytes; SAMPLER: its bits (uint64_t) */
   size_t value_size; /* bytes at value */
};

/* What the driver said of a kernel on one device (get_kernel_info),
 * asked once: it depends on the compiled code only, and every launch
 * checks against it (docs/performance.md, "Launch path"). */
struct kiln_kernel_dev_info {
   atomic_int state; /* 0 not asked, 1 being filled, 2 info valid */
   struct pipe_kernel_info info;
};

/* The last launch geometry that passed clEnqueueNDRangeKernel's checks
 * on this kernel (api/ndrange_memo.h): a sequence lock over atomic
 * words, so that threads enqueueing the kernel at once read it without a
 * lock and never see half of one. */
#define KILN_NDRANGE_MEMO_WORDS 14
struct kiln_ndrange_memo {
   atomic_uint seq; /* odd while written */
   atomic_uint_fast64_t w[KILN_NDRANGE_MEMO_WORDS];
};

struct _cl_kernel {
   struct kiln_object obj;
   cl_program program;
   const struct kiln_kernel_info *info; /* owned by the program's build */
   void **device_kernels; /* per program device: the driver's handle, or NULL */
   struct kiln_kernel_dev_info *dev_info; /* per program device */
   struct kiln_kernel_arg *args;
   /* kiln_object_mems_gone() + 1 when every buffer and image argument
    * was last found alive, 0 after any argument changed: while no memory
    * object has left the registry since, they all still live, and a
    * launch need not look each one up (kiln_kernel_args_live). */
   atomic_uint_fast64_t args_live_gen;
   struct kiln_ndrange_memo ndrange_memo;
};

static inline cl_kernel kiln_kernel_from(cl_kernel k)
{
   return (cl_kernel)kiln_object_lookup(k, KILN_TYPE_KERNEL);
}

cl_int kiln_kernel_create(cl_program prog, const struct kiln_kernel_info *info, cl_kernel *out);

/* clCloneKernel (2.1): a new kernel of src's program with a copy of
 * src's argument values. */
cl_int kiln_kernel_clone(cl_kernel src, cl_kernel *out);

/* clSetKernelArg after the API layer checked index and handles. */
cl_int kiln_kernel_set_arg(cl_kernel k, cl_uint index, size_t size, const void *value);

/* clSetKernelArgSVMPointer after the API layer checked it: a __global or
 * __constant argument becomes ptr. */
void kiln_kernel_set_arg_svm(cl_kernel k, cl_uint index, const void *ptr);

/* Whether any argument is an SVM pointer. */
bool kiln_kernel_uses_svm(cl_kernel k);

/* Whether every buffer set as an argument is still alive (the
 * application may have released it since). */
bool kiln_kernel_args_live(cl_kernel k);
/* Whether every argument has a value. */
bool kiln_kernel_args_complete(cl_kernel k);

/* Driver handle of k on dev, or NULL if the program is not built there. */
void *kiln_kernel_on_device(cl_kernel k, cl_device_id dev);

/* The kernel's limits on dev, from its driver (pipe_kernel_info). */
void kiln_kernel_device_info(cl_kernel k, cl_device_id dev, struct pipe_kernel_info *out);

/* The largest work-group the kernel can run with on dev. */
size_t kiln_kernel_max_work_group_size(cl_kernel k, cl_device_id dev);

#endif
