/* Shared by the files of src/winsys/cuda only. */
#ifndef KILN_WINSYS_CUDA_WINSYS_PRIV_H
#define KILN_WINSYS_CUDA_WINSYS_PRIV_H

#include <stdatomic.h>

#include "winsys/cuda/cuda_winsys.h"

struct cuda_winsys {
   const struct cuda_api *api;
   CUdevice dev;
   CUcontext ctx; /* the device's primary context, retained */
   atomic_bool lost;
   struct cuda_ws_info info;
};

/* Makes the device's context current on this thread (pushed over whatever
 * was current); cuda_ws_leave puts the previous one back. */
cl_int cuda_ws_enter(struct cuda_winsys *ws);
void cuda_ws_leave(struct cuda_winsys *ws);

#endif
