/* Shared by the files of src/winsys/cuda only. */
#ifndef KILN_WINSYS_CUDA_WINSYS_PRIV_H
#define KILN_WINSYS_CUDA_WINSYS_PRIV_H

#include <stdatomic.h>
#include <stdbool.h>

#include "winsys/cuda/cuda_winsys.h"

struct cuda_winsys {
   const struct cuda_api *api;
   CUdevice dev;
   CUcontext ctx; /* the device's primary context, retained */
   atomic_bool lost;
   struct cuda_ws_info info;
};

/* Makes the device's context current on this thread for a call: pushed
 * over whatever was current (*pushed: cuda_ws_leave puts that back), or
 * nothing to do where it is current already, or made current for good on
 * a thread of Kiln's own where none was (util/thread_role.h). */
CUresult cuda_ws_enter(struct cuda_winsys *ws, bool *pushed);
void cuda_ws_leave(struct cuda_winsys *ws);

#endif
