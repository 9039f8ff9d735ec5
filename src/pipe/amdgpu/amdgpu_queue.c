/* Rings, in-flight submissions and fences (amdgpu_queue.h). */
#include "pipe/amdgpu/amdgpu_queue.h"

#include <pthread.h>
#include <stdatomic.h>

#include "pipe/amdgpu/amdgpu_screen.h"
#include "util/alloc.h"
#include "util/log.h"
#include "winsys/amdgpu/amdgpu_winsys.h"

struct inflight {
   uint64_t seq;
   struct amdgpu_ws_bo *own[AMDGPU_QUEUE_MAX_OWN];
   unsigned num_own;
   struct inflight *next;
};

struct amdgpu_queue {
   struct amdgpu_screen *screen;
   struct amdgpu_ws_ring *ring;
   atomic_uint refs; /* the context's and one per fence */
   pthread_mutex_t lock; /* what follows */
   uint64_t last;        /* the newest submission's sequence number; 0 none */
   uint64_t done;        /* the newest one known to have ended */
   struct inflight *head, *tail; /* oldest first */
};

/* A point in one queue's submissions.  error: a failure found while
 * recording, which the fence reports instead of waiting. */
struct pipe_fence {
   struct amdgpu_queue *q;
   uint64_t seq;
   cl_int error;
};

cl_int amdgpu_queue_create(struct amdgpu_screen *s, struct amdgpu_queue **out)
{
   struct amdgpu_queue *q = kiln_calloc(1, sizeof(*q));
   if (!q)
      return CL_OUT_OF_HOST_MEMORY;
   cl_int err = amdgpu_ws_ring_create(s->ws, &q->ring);
   if (err) {
      kiln_free(q);
      return err;
   }
   q->screen = s;
   atomic_init(&q->refs, 1);
   pthread_mutex_init(&q->lock, NULL);
   *out = q;
   return CL_SUCCESS;
}

/* Frees what submissions up to seq owned, now that they ended. */
static void retire(struct amdgpu_queue *q, uint64_t seq)
{
   struct inflight *gone = NULL;
   pthread_mutex_lock(&q->lock);
   if (seq > q->done)
      q->done = seq;
   while (q->head && q->head->seq <= q->done) {
      struct inflight *f = q->head;
      q->head = f->next;
      f->next = gone;
      gone = f;
   }
   if (!q->head)
      q->tail = NULL;
   pthread_mutex_unlock(&q->lock);
   while (gone) {
      struct inflight *f = gone;
      gone = f->next;
      for (unsigned i = 0; i < f->num_own; i++)
         amdgpu_ws_bo_destroy(q->screen->ws, f->own[i]);
      kiln_free(f);
   }
}

/* Waits up to timeout_ns for submission seq: CL_SUCCESS, or
 * CL_OUT_OF_RESOURCES with *timed_out set or not (failed, lost). */
static cl_int wait_seq(struct amdgpu_queue *q, uint64_t seq, uint64_t timeout_ns, bool *timed_out)
{
   *timed_out = false;
   pthread_mutex_lock(&q->lock);
   bool ended = seq <= q->done;
   pthread_mutex_unlock(&q->lock);
   if (ended)
      return CL_SUCCESS;
   cl_int err = amdgpu_ws_ring_wait(q->screen->ws, q->ring, seq, timeout_ns, timed_out);
   if (!err)
      retire(q, seq);
   return err;
}

static void queue_unref(struct amdgpu_queue *q)
{
   if (atomic_fetch_sub(&q->refs, 1) != 1)
      return;
   /* The BOs must not go back to the kernel while the GPU may still use
    * them; a hung or lost GPU has its work cancelled by the kernel when
    * the context is freed. */
   bool timed_out;
   if (q->last && wait_seq(q, q->last, q->screen->fence_timeout_ns, &timed_out))
      kiln_log(KILN_LOG_PIPE, "amdgpu: a queue is destroyed with work that did not end");
   retire(q, UINT64_MAX);
   amdgpu_ws_ring_destroy(q->screen->ws, q->ring);
   pthread_mutex_destroy(&q->lock);
   kiln_free(q);
}

void amdgpu_queue_release(struct amdgpu_queue *q)
{
   if (q)
      queue_unref(q);
}

cl_int amdgpu_queue_submit(struct amdgpu_queue *q, struct amdgpu_ws_bo *ib, uint32_t ib_dwords,
                           struct amdgpu_ws_bo *const *bos, unsigned num_bos,
                           struct amdgpu_ws_bo *const *own, unsigned num_own)
{
   struct inflight *f = kiln_calloc(1, sizeof(*f));
   if (!f || num_own > AMDGPU_QUEUE_MAX_OWN) {
      kiln_free(f);
      return CL_OUT_OF_HOST_MEMORY;
   }
   /* Core records from one thread per context: submissions of this ring
    * are in order without the lock; fence waiters only read. */
   uint64_t seq = 0;
   cl_int err = amdgpu_ws_ring_submit(q->screen->ws, q->ring, ib, ib_dwords, bos, num_bos, &seq);
   if (err) {
      kiln_free(f);
      return err;
   }
   f->seq = seq;
   f->num_own = num_own;
   for (unsigned i = 0; i < num_own; i++)
      f->own[i] = own[i];
   pthread_mutex_lock(&q->lock);
   q->last = seq;
   if (q->tail)
      q->tail->next = f;
   else
      q->head = f;
   q->tail = f;
   pthread_mutex_unlock(&q->lock);
   return CL_SUCCESS;
}

cl_int amdgpu_queue_idle(struct amdgpu_queue *q)
{
   pthread_mutex_lock(&q->lock);
   uint64_t last = q->last;
   pthread_mutex_unlock(&q->lock);
   if (!last)
      return CL_SUCCESS;
   bool timed_out;
   cl_int err = wait_seq(q, last, q->screen->fence_timeout_ns, &timed_out);
   if (timed_out)
      kiln_log(KILN_LOG_WARN, "amdgpu: work did not end within KILN_AMDGPU_TIMEOUT_MS");
   return err;
}

cl_int amdgpu_queue_fence(struct amdgpu_queue *q, cl_int error, struct pipe_fence **fence)
{
   pthread_mutex_lock(&q->lock);
   uint64_t last = q->last, done = q->done;
   pthread_mutex_unlock(&q->lock);
   *fence = NULL;
   if (!error && last <= done)
      return CL_SUCCESS;
   struct pipe_fence *f = kiln_calloc(1, sizeof(*f));
   if (!f)
      return CL_OUT_OF_HOST_MEMORY;
   atomic_fetch_add(&q->refs, 1);
   f->q = q;
   f->seq = last;
   f->error = error;
   *fence = f;
   return CL_SUCCESS;
}

/* ---- the screen's fence slots ---- */

static int fence_wait(struct pipe_screen *screen, struct pipe_fence *f, uint64_t timeout_ns)
{
   struct amdgpu_screen *s = amdgpu_screen(screen);
   if (!f)
      return PIPE_FENCE_SIGNALLED;
   if (f->error)
      return f->error;
   /* "Forever" is bounded by the hang timeout: a kernel that never ends
    * fails instead of hanging the application. */
   bool forever = timeout_ns == PIPE_TIMEOUT_INFINITE || timeout_ns >= s->fence_timeout_ns;
   bool timed_out;
   cl_int err = wait_seq(f->q, f->seq, forever ? s->fence_timeout_ns : timeout_ns, &timed_out);
   if (!err)
      return PIPE_FENCE_SIGNALLED;
   if (timed_out && !forever)
      return PIPE_FENCE_BUSY;
   if (timed_out)
      kiln_log(KILN_LOG_WARN, "amdgpu: work did not end within KILN_AMDGPU_TIMEOUT_MS");
   return CL_OUT_OF_RESOURCES;
}

static void fence_destroy(struct pipe_screen *screen, struct pipe_fence *f)
{
   (void)screen;
   if (!f)
      return;
   queue_unref(f->q);
   kiln_free(f);
}

void amdgpu_fence_init_screen(struct amdgpu_screen *s)
{
   s->base.fence_wait = fence_wait;
   s->base.fence_destroy = fence_destroy;
   /* The CS fences carry no timestamps: core stamps with host times. */
   s->base.fence_times = NULL;
}
