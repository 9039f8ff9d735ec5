/* Fences from CUDA events: waits (polled when a timeout is given, since
 * cuEventSynchronize has none), failures (a kernel fault reaches the
 * event that follows it) and device times on the host clock. */
#include <errno.h>
#include <time.h>

#include "pipe/cuda/cuda_priv.h"
#include "util/alloc.h"
#include "util/log.h"

/* Re-anchor device time on host time this often: cuEventElapsedTime is a
 * float of milliseconds, which keeps sub-microsecond precision only over
 * a few seconds. */
#define CALIBRATE_EVERY_NS 1000000000ull

static uint64_t now_ns(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- the event pool ---- */

cl_int cuda_screen_get_event(struct cuda_screen *s, bool timing, CUevent *out)
{
   struct cuda_event_pool *pool = &s->pools[timing];
   pthread_mutex_lock(&s->lock);
   if (pool->num) {
      *out = pool->events[--pool->num];
      pthread_mutex_unlock(&s->lock);
      return CL_SUCCESS;
   }
   pthread_mutex_unlock(&s->lock);
   return cuda_ws_event_create(s->ws, timing, out);
}

void cuda_screen_put_event(struct cuda_screen *s, bool timing, CUevent event)
{
   struct cuda_event_pool *pool = &s->pools[timing];
   if (!event)
      return;
   pthread_mutex_lock(&s->lock);
   if (pool->num == pool->max) {
      unsigned max = pool->max ? 2 * pool->max : 16;
      CUevent *events = kiln_realloc(pool->events, max * sizeof(*events));
      if (!events) {
         pthread_mutex_unlock(&s->lock);
         cuda_ws_event_destroy(s->ws, event);
         return;
      }
      pool->events = events;
      pool->max = max;
   }
   pool->events[pool->num++] = event;
   pthread_mutex_unlock(&s->lock);
}

void cuda_screen_free_events(struct cuda_screen *s)
{
   for (int t = 0; t < 2; t++) {
      struct cuda_event_pool *pool = &s->pools[t];
      for (unsigned i = 0; i < pool->num; i++)
         cuda_ws_event_destroy(s->ws, pool->events[i]);
      kiln_free(pool->events);
      pool->events = NULL;
      pool->num = pool->max = 0;
   }
   if (s->calib_event)
      cuda_ws_event_destroy(s->ws, s->calib_event);
   if (s->calib_stream)
      cuda_ws_stream_destroy(s->ws, s->calib_stream);
   s->calib_event = NULL;
   s->calib_stream = NULL;
}

/* ---- fences ---- */

static int fence_wait(struct pipe_screen *screen, struct pipe_fence *fence, uint64_t timeout_ns)
{
   struct cuda_screen *s = cuda_screen(screen);
   int state = atomic_load(&fence->state);
   if (state != PIPE_FENCE_BUSY)
      return state;
   cl_int r;
   if (timeout_ns == PIPE_TIMEOUT_INFINITE) {
      r = cuda_ws_event_sync(s->ws, fence->end);
   } else {
      uint64_t deadline = now_ns() + timeout_ns;
      uint64_t nap = 2000;
      for (;;) {
         r = cuda_ws_event_query(s->ws, fence->end);
         if (r != 1)
            break;
         uint64_t now = now_ns();
         if (now >= deadline)
            return PIPE_FENCE_BUSY;
         uint64_t left = deadline - now;
         struct timespec ts = {0, (long)(nap < left ? nap : left)};
         while (nanosleep(&ts, &ts) && errno == EINTR)
            ;
         if (nap < 1000000)
            nap *= 2;
      }
   }
   state = r ? r : fence->record_error ? fence->record_error : PIPE_FENCE_SIGNALLED;
   /* The launches' printf output goes out before anyone learns that the
    * fence signalled (core completes the commands then). */
   cuda_printf_fence_done(s, fence, state);
   return state;
}

/* Anchors device time: an event recorded on an idle stream completes
 * between the host times around its record and synchronize. */
static bool calibrate(struct cuda_screen *s)
{
   if (s->calibrated && now_ns() - s->calib_host_ns < CALIBRATE_EVERY_NS)
      return true;
   if (!s->calib_stream && cuda_ws_stream_create(s->ws, &s->calib_stream))
      return false;
   if (!s->calib_event && cuda_ws_event_create(s->ws, true, &s->calib_event))
      return false;
   uint64_t before = now_ns();
   if (cuda_ws_event_record(s->ws, s->calib_event, s->calib_stream) ||
       cuda_ws_event_sync(s->ws, s->calib_event)) {
      s->calibrated = false;
      return false;
   }
   uint64_t after = now_ns();
   s->calib_host_ns = before + (after - before) / 2;
   s->calibrated = true;
   return true;
}

static bool fence_times(struct pipe_screen *screen, struct pipe_fence *fence, uint64_t *start,
                        uint64_t *end)
{
   struct cuda_screen *s = cuda_screen(screen);
   if (atomic_load(&fence->state) != PIPE_FENCE_SIGNALLED || !fence->start)
      return false;
   float span_ms, end_ms;
   if (cuda_ws_event_elapsed(s->ws, fence->start, fence->end, &span_ms))
      return false;
   pthread_mutex_lock(&s->lock);
   bool ok = calibrate(s) && !cuda_ws_event_elapsed(s->ws, s->calib_event, fence->end, &end_ms);
   int64_t anchor = (int64_t)s->calib_host_ns;
   pthread_mutex_unlock(&s->lock);
   if (!ok)
      return false;
   int64_t e = anchor + (int64_t)((double)end_ms * 1e6);
   int64_t span = span_ms > 0 ? (int64_t)((double)span_ms * 1e6) : 0;
   *end = e > 0 ? (uint64_t)e : 0;
   *start = e - span > 0 ? (uint64_t)(e - span) : 0;
   return true;
}

static void fence_destroy(struct pipe_screen *screen, struct pipe_fence *fence)
{
   struct cuda_screen *s = cuda_screen(screen);
   if (!fence)
      return;
   if (fence->printf_jobs) {
      /* Never waited for: the launches' buffers are free once they are
       * done, and what they printed still prints. */
      int state = fence->end ? cuda_ws_event_sync(s->ws, fence->end) : CL_OUT_OF_RESOURCES;
      cuda_printf_finish(s, fence->printf_jobs, !state && !fence->record_error);
   }
   cuda_screen_put_event(s, true, fence->start);
   cuda_screen_put_event(s, fence->timed_end, fence->end);
   kiln_free(fence);
}

void cuda_fence_init_screen(struct cuda_screen *s)
{
   s->base.fence_wait = fence_wait;
   s->base.fence_times = fence_times;
   s->base.fence_destroy = fence_destroy;
}
