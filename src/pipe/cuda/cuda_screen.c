/* CUDA screens: one per GPU, with its memory (cuMemAlloc, not visible to
 * the host: core reaches it through transfers) and imported application
 * memory (cuMemHostRegister). */
#include "pipe/cuda/cuda_screen.h"

#include <stdatomic.h>
#include <time.h>

#include "pipe/cuda/cuda_priv.h"
#include "util/alloc.h"
#include "util/log.h"

#define MAX_GPUS 16

/* The libcuda table, shared by the screens of one probe. */
struct cuda_api_shared {
   struct cuda_api *api;
   atomic_uint refs;
};

static void api_release(struct cuda_api_shared *a)
{
   if (atomic_fetch_sub(&a->refs, 1) == 1) {
      cuda_api_unload(a->api);
      kiln_free(a);
   }
}

static cl_int sync_stream(struct cuda_screen *s, CUstream *out)
{
   cl_int err = CL_SUCCESS;
   pthread_mutex_lock(&s->lock);
   if (!s->sync_stream)
      err = cuda_ws_stream_create(s->ws, &s->sync_stream);
   *out = s->sync_stream;
   pthread_mutex_unlock(&s->lock);
   return err;
}

cl_int cuda_screen_read_now(struct cuda_screen *s, void *dst, CUdeviceptr src, size_t size)
{
   CUstream st;
   cl_int err = sync_stream(s, &st);
   if (!err)
      err = cuda_ws_copy_dtoh(s->ws, st, dst, src, size);
   if (!err)
      err = cuda_ws_stream_sync(s->ws, st);
   return err;
}

cl_int cuda_screen_write_now(struct cuda_screen *s, CUdeviceptr dst, const void *src, size_t size)
{
   CUstream st;
   cl_int err = sync_stream(s, &st);
   if (!err)
      err = cuda_ws_copy_htod(s->ws, st, dst, src, size);
   if (!err)
      err = cuda_ws_stream_sync(s->ws, st);
   return err;
}

static void screen_destroy(struct pipe_screen *screen)
{
   struct cuda_screen *s = cuda_screen(screen);
   cuda_screen_free_events(s);
   cuda_printf_screen_fini(s);
   if (s->sync_stream)
      cuda_ws_stream_destroy(s->ws, s->sync_stream);
   cuda_winsys_destroy(s->ws);
   api_release(s->api);
   pthread_mutex_destroy(&s->lock);
   pthread_rwlock_destroy(&s->host_lock);
   pthread_mutex_destroy(&s->printf_lock);
   kiln_free(s);
}

static uint64_t screen_timestamp(struct pipe_screen *screen)
{
   (void)screen;
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- resources ---- */

static struct pipe_resource *resource_create(struct pipe_screen *screen, size_t size)
{
   struct cuda_screen *s = cuda_screen(screen);
   struct cuda_resource *r = kiln_calloc(1, sizeof(*r));
   if (!r)
      return NULL;
   if (cuda_ws_mem_alloc(s->ws, size, &r->ptr)) {
      kiln_free(r);
      return NULL;
   }
   pthread_mutex_init(&r->lock, NULL);
   atomic_init(&r->gen, 1);
   r->base.screen = screen;
   r->base.size = size;
   return &r->base;
}

/* The application's pages pinned and mapped for the GPU: kernels reach
 * them over the bus, and the host sees the bytes where they are.  CUDA
 * refuses memory that is registered already (another buffer over the same
 * pages, or this GPU's twin in a context of several): core then keeps a
 * device copy instead. */
static struct pipe_resource *resource_from_user_memory(struct pipe_screen *screen, void *ptr,
                                                       size_t size)
{
   struct cuda_screen *s = cuda_screen(screen);
   if (!ptr || !size)
      return NULL;
   struct cuda_resource *r = kiln_calloc(1, sizeof(*r));
   if (!r)
      return NULL;
   if (cuda_ws_host_register(s->ws, ptr, size, &r->ptr)) {
      kiln_free(r);
      return NULL;
   }
   r->host = ptr;
   pthread_mutex_init(&r->lock, NULL);
   atomic_init(&r->gen, 1);
   r->base.screen = screen;
   r->base.size = size;
   r->base.user_memory = true;
   return &r->base;
}

static void resource_destroy(struct pipe_screen *screen, struct pipe_resource *res)
{
   struct cuda_screen *s = cuda_screen(screen);
   struct cuda_resource *r = cuda_resource(res);
   if (!r)
      return;
   cuda_image_free_descriptors(s, r);
   pthread_mutex_destroy(&r->lock);
   if (r->host) {
      /* No copy may be using these pages, on any stream (see host_lock):
       * those already queued finish first. */
      pthread_rwlock_wrlock(&s->host_lock);
      cuda_ws_ctx_sync(s->ws);
      cuda_ws_host_unregister(s->ws, r->host);
      pthread_rwlock_unlock(&s->host_lock);
   } else
      cuda_ws_mem_free(s->ws, r->ptr);
   kiln_free(r);
}

/* Device memory is not host-visible; registered user memory is the
 * host's own. */
static void *resource_host_pointer(struct pipe_screen *screen, struct pipe_resource *res)
{
   (void)screen;
   return cuda_resource(res)->host;
}

static struct pipe_screen *screen_create(struct cuda_winsys *ws, struct cuda_api_shared *api)
{
   struct cuda_screen *s = kiln_calloc(1, sizeof(*s));
   if (!s)
      return NULL;
   s->ws = ws;
   s->api = api;
   pthread_mutex_init(&s->lock, NULL);
   pthread_rwlock_init(&s->host_lock, NULL);
   pthread_mutex_init(&s->printf_lock, NULL);
   s->base.driver_name = "cuda";
   s->images_mode = cuda_images_mode_from_env();
   s->base.destroy = screen_destroy;
   s->base.get_timestamp = screen_timestamp;
   s->base.resource_create = resource_create;
   s->base.resource_from_user_memory = resource_from_user_memory;
   s->base.resource_destroy = resource_destroy;
   s->base.resource_host_pointer = resource_host_pointer;
   s->base.context_create = cuda_context_create;
   /* Sub-devices: CUDA places blocks itself (no partition by SM here). */
   s->base.topology.num_units = 0;
   s->base.context_create_on_units = NULL;
   cuda_fence_init_screen(s);
   cuda_program_init_screen(s);
   cuda_fill_caps(s, &s->base.caps);
   return &s->base;
}

unsigned cuda_screen_probe(struct pipe_screen **screens, unsigned max)
{
   struct cuda_api *api = cuda_api_load();
   if (!api)
      return 0;
   struct cuda_api_shared *shared = kiln_calloc(1, sizeof(*shared));
   if (!shared) {
      cuda_api_unload(api);
      return 0;
   }
   shared->api = api;
   atomic_init(&shared->refs, 1); /* the probe's own */
   struct cuda_winsys *ws[MAX_GPUS];
   unsigned n = cuda_winsys_probe(api, ws, max < MAX_GPUS ? max : MAX_GPUS), added = 0;
   for (unsigned i = 0; i < n; i++) {
      atomic_fetch_add(&shared->refs, 1);
      struct pipe_screen *s = screen_create(ws[i], shared);
      if (s) {
         screens[added++] = s;
      } else {
         cuda_winsys_destroy(ws[i]);
         api_release(shared);
      }
   }
   api_release(shared);
   return added;
}
