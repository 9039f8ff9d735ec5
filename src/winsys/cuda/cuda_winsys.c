/* CUDA device discovery, primary contexts and error mapping. */
#include "winsys/cuda/cuda_winsys.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/log.h"
#include "winsys/cuda/cuda_winsys_priv.h"

const char *cuda_ws_error_name(struct cuda_winsys *ws, CUresult r, char *buf, size_t size)
{
   const char *name = NULL;
   if (ws->api->cuGetErrorName(r, &name) != CUDA_SUCCESS || !name) {
      snprintf(buf, size, "CUresult %d", r);
      return buf;
   }
   return name;
}

/* Errors after which CUDA refuses all further work in the context (the
 * "sticky" errors of the driver API's documentation): a kernel faulted,
 * trapped or ran into a hardware error.  Recovering would need the
 * primary context reset, which frees every allocation under core's
 * resources, so the device is lost instead. */
static bool sticky(CUresult r)
{
   switch (r) {
   case CUDA_ERROR_ECC_UNCORRECTABLE:
   case CUDA_ERROR_ILLEGAL_ADDRESS:
   case CUDA_ERROR_LAUNCH_TIMEOUT:
   case CUDA_ERROR_HARDWARE_STACK_ERROR:
   case CUDA_ERROR_ILLEGAL_INSTRUCTION:
   case CUDA_ERROR_MISALIGNED_ADDRESS:
   case CUDA_ERROR_INVALID_ADDRESS_SPACE:
   case CUDA_ERROR_INVALID_PC:
   case CUDA_ERROR_LAUNCH_FAILED:
   case 710: /* CUDA_ERROR_ASSERT: a device-side assert */
      return true;
   default:
      return false;
   }
}

cl_int cuda_ws_result(struct cuda_winsys *ws, CUresult r, const char *call, cl_int fallback,
                      cl_int out_of_memory)
{
   if (r == CUDA_SUCCESS)
      return CL_SUCCESS;
   char buf[32];
   const char *name = cuda_ws_error_name(ws, r, buf, sizeof(buf));
   if (sticky(r)) {
      if (!atomic_exchange(&ws->lost, true))
         kiln_log(KILN_LOG_PIPE, "cuda: device %d: %s failed with %s: the device is lost",
                  ws->info.ordinal, call, name);
      return CL_OUT_OF_RESOURCES;
   }
   kiln_log(KILN_LOG_PIPE, "cuda: device %d: %s failed with %s", ws->info.ordinal, call, name);
   if (r == CUDA_ERROR_OUT_OF_MEMORY && out_of_memory)
      return out_of_memory;
   return fallback;
}

CUresult cuda_ws_enter(struct cuda_winsys *ws, bool *pushed)
{
   const struct cuda_api *a = ws->api;
   CUcontext cur = NULL;
   *pushed = false;
   if (a->cuCtxGetCurrent && a->cuCtxGetCurrent(&cur) == CUDA_SUCCESS) {
      if (cur == ws->ctx)
         return CUDA_SUCCESS;
      /* No context on this thread: the device's primary context becomes
       * current and stays, as the CUDA runtime leaves it (and PoCL's CUDA
       * device).  Never over a context that something else made current:
       * that one gets the push and pop. */
      if (!cur && a->cuCtxSetCurrent(ws->ctx) == CUDA_SUCCESS)
         return CUDA_SUCCESS;
   }
   *pushed = true;
   return a->cuCtxPushCurrent(ws->ctx);
}

void cuda_ws_leave(struct cuda_winsys *ws)
{
   CUcontext ctx;
   ws->api->cuCtxPopCurrent(&ctx);
}

static struct cuda_winsys *winsys_create(const struct cuda_api *api, int ordinal)
{
   CUdevice dev;
   char buf[32];
   CUresult r = api->cuDeviceGet(&dev, ordinal);
   struct cuda_winsys *ws = kiln_calloc(1, sizeof(*ws));
   if (!ws)
      return NULL;
   ws->api = api;
   ws->dev = dev;
   ws->info.ordinal = ordinal;
   atomic_init(&ws->lost, false);
   const char *call = "cuDeviceGet";
   if (r == CUDA_SUCCESS) {
      call = "cuDeviceGetName";
      r = api->cuDeviceGetName(ws->info.name, (int)sizeof(ws->info.name), dev);
   }
   size_t mem = 0;
   if (r == CUDA_SUCCESS) {
      call = "cuDeviceTotalMem";
      r = api->cuDeviceTotalMem(&mem, dev);
   }
   if (r == CUDA_SUCCESS) {
      call = "cuDeviceGetAttribute";
      r = api->cuDeviceGetAttribute(&ws->info.cc_major,
                                    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
   }
   if (r == CUDA_SUCCESS)
      r = api->cuDeviceGetAttribute(&ws->info.cc_minor,
                                    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
   if (r == CUDA_SUCCESS) {
      call = "cuDevicePrimaryCtxRetain";
      r = api->cuDevicePrimaryCtxRetain(&ws->ctx, dev);
   }
   if (r != CUDA_SUCCESS) {
      kiln_log(KILN_LOG_PIPE, "cuda: device %d skipped: %s failed with %s", ordinal, call,
               cuda_ws_error_name(ws, r, buf, sizeof(buf)));
      kiln_free(ws);
      return NULL;
   }
   ws->info.name[sizeof(ws->info.name) - 1] = '\0';
   ws->info.total_mem = mem;
   if (api->cuDriverGetVersion(&ws->info.driver_version) != CUDA_SUCCESS)
      ws->info.driver_version = 0;
   kiln_log(KILN_LOG_PIPE, "cuda: device %d: %s, sm_%d%d, %zu MiB", ordinal, ws->info.name,
            ws->info.cc_major, ws->info.cc_minor, mem >> 20);
   return ws;
}

unsigned cuda_winsys_probe(const struct cuda_api *api, struct cuda_winsys **out, unsigned max)
{
   CUresult r = api->cuInit(0);
   int count = 0;
   if (r == CUDA_SUCCESS)
      r = api->cuDeviceGetCount(&count);
   if (r != CUDA_SUCCESS) {
      /* CUDA_ERROR_NO_DEVICE on a machine with the driver and no GPU,
       * CUDA_ERROR_STUB_LIBRARY for the toolkit's stub: not warnings. */
      const char *name = NULL;
      if (api->cuGetErrorName(r, &name) != CUDA_SUCCESS)
         name = NULL;
      kiln_log(KILN_LOG_PIPE, "cuda: no device (%s)", name ? name : "unknown error");
      return 0;
   }
   unsigned n = 0;
   for (int i = 0; i < count && n < max; i++) {
      struct cuda_winsys *ws = winsys_create(api, i);
      if (ws)
         out[n++] = ws;
   }
   return n;
}

void cuda_winsys_destroy(struct cuda_winsys *ws)
{
   if (!ws)
      return;
   /* This thread keeps no context that is about to go. */
   CUcontext cur = NULL;
   if (ws->api->cuCtxGetCurrent && ws->api->cuCtxGetCurrent(&cur) == CUDA_SUCCESS &&
       cur == ws->ctx)
      ws->api->cuCtxSetCurrent(NULL);
   ws->api->cuDevicePrimaryCtxRelease(ws->dev);
   kiln_free(ws);
}

const struct cuda_ws_info *cuda_winsys_info(const struct cuda_winsys *ws)
{
   return &ws->info;
}

bool cuda_winsys_lost(const struct cuda_winsys *ws)
{
   return atomic_load(&ws->lost);
}

int cuda_ws_attribute(struct cuda_winsys *ws, int attrib, int fallback)
{
   int value;
   CUresult r = ws->api->cuDeviceGetAttribute(&value, attrib, ws->dev);
   if (r != CUDA_SUCCESS) {
      char buf[32];
      kiln_log(KILN_LOG_PIPE, "cuda: device %d: attribute %d unknown (%s)", ws->info.ordinal,
               attrib, cuda_ws_error_name(ws, r, buf, sizeof(buf)));
      return fallback;
   }
   return value;
}
