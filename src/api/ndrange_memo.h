/* A kernel's last launch geometry that passed the launch checks
 * (kiln_api_check_ndrange): a loop that launches a kernel with the same
 * sizes again and again skips the checks of global, offset and local
 * sizes against the device and the kernel (docs/performance.md, "Launch
 * path").  Those checks depend on nothing but the device, the kernel's
 * compiled code (whose limits core asks its driver for once) and the
 * sizes, so a geometry that passed once passes again. */
#ifndef KILN_API_NDRANGE_MEMO_H
#define KILN_API_NDRANGE_MEMO_H

#include <stdbool.h>
#include <stddef.h>

#include "core/kernel.h"

/* Whether dev, work_dim and the three size arrays as the application
 * passed them (offset and local may be NULL; global is not) are k's
 * remembered geometry; if so, sets offset, global and local as the checks
 * would have (local as chosen when local_work_size is NULL). */
bool kiln_ndrange_memo_find(cl_kernel k, cl_device_id dev, cl_uint work_dim,
                            const size_t *global_work_offset, const size_t *global_work_size,
                            const size_t *local_work_size, size_t offset[3], size_t global[3],
                            size_t local[3]);

/* Remembers a geometry that passed, with the local size it got.  Another
 * thread writing k's memo at the same time wins; this one is dropped. */
void kiln_ndrange_memo_keep(cl_kernel k, cl_device_id dev, cl_uint work_dim,
                            const size_t *global_work_offset, const size_t *global_work_size,
                            const size_t *local_work_size, const size_t local[3]);

#endif
