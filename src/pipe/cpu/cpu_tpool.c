/* The CPU driver's worker pool: one thread per core runs work-groups.
 *
 * A launch publishes one job; every worker takes group indices from a
 * shared counter until none are left, so uneven work-groups balance
 * themselves.  Each worker owns its __local arena, and a large stack:
 * kernels with barriers keep per-work-item copies of their private values
 * on it (src/llvm/workgroup.c).
 *
 * Launch latency (docs/performance.md, "Launch path"): waking a sleeping
 * worker costs a system call and a scheduler round trip each way, tens of
 * microseconds on a busy machine, more than a small grid takes to run.
 * So the launching thread (a queue's executor) runs the first groups
 * itself and publishes the job only once they have taken longer than
 * CPU_TPOOL_INLINE_NS; a grid of one group never wakes anyone.  Workers
 * and a launcher waiting for them poll a while before they sleep
 * (util/spin.h), and nobody signals a condition variable that no thread
 * sleeps on.
 */
/* pthread_attr_setaffinity_np needs _GNU_SOURCE, which meson.build
 * defines for every file. */
#include "pipe/cpu/cpu_tpool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "kiln/bounds.h"
#include "kiln/cpu_abi.h"
#include "pipe/cpu/cpu_bounds.h"
#include "winsys/sw/sw_winsys.h"
#include "util/alloc.h"
#include "util/env.h"
#include "util/spin.h"
#include "util/tls.h"

#define ARENA_ALIGN 128

/* The compiled code reads the launch context at these offsets
 * (include/kiln/cpu_abi.h, src/llvm/cpu/workgroup.c). */
_Static_assert(offsetof(struct kiln_wg_ctx, enqueued_local_size) == 152, "kiln_wg_ctx layout");
_Static_assert(offsetof(struct kiln_wg_ctx, local_mem_size) == 176, "kiln_wg_ctx layout");
_Static_assert(offsetof(struct kiln_wg_ctx, device_enqueue) == 184, "kiln_wg_ctx layout");
/* How long the launching thread runs groups alone before it wakes the
 * workers: about what waking them costs.  A grid slower than that loses
 * at most this much of its parallel time. */
#define CPU_TPOOL_INLINE_NS 20000

struct job {
   kiln_wg_fn fn;
   const struct pipe_grid_info *info;
   const void *args;      /* bound: addresses and __local offsets written */
   size_t local_mem_size; /* __local bytes of each work-group */
   void *printf_buffer;
   void *device_enqueue;
   uint64_t groups[3];
   bool uneven; /* some dimension ends with a smaller group */
   uint64_t total;
   atomic_uint_fast64_t next;
   uint64_t chunk;
   uint64_t deadline; /* inline phase: CLOCK_MONOTONIC ns */
};

/* The size of the group at ctx->group_id: the enqueued one, or what is
 * left of the global size in a dimension's last group. */
static inline void group_size(struct kiln_wg_ctx *ctx, const struct job *job)
{
   for (int d = 0; d < 3; d++)
      ctx->local_size[d] = ctx->group_id[d] + 1 < job->groups[d]
                              ? ctx->enqueued_local_size[d]
                              : job->info->global_size[d] -
                                   ctx->group_id[d] * ctx->enqueued_local_size[d];
}

struct cpu_tpool {
   pthread_mutex_t launch_lock;
   pthread_mutex_t lock;
   pthread_cond_t work, done;
   unsigned num_threads;
   pthread_t *threads;
   /* Written under lock; read without it by spinning threads. */
   atomic_uint_fast64_t generation; /* bumps with each job */
   atomic_uint busy;                /* workers still on the current job */
   atomic_bool quit;
   /* Under lock. */
   unsigned sleepers;     /* workers waiting on work */
   bool launcher_asleep;  /* the launcher waits on done */
   bool out_of_memory;    /* a worker could not get its arena */
   struct job *job;
};

struct gen_wait {
   struct cpu_tpool *pool;
   uint64_t seen;
};

static bool job_or_quit(void *arg)
{
   struct gen_wait *w = arg;
   return atomic_load_explicit(&w->pool->generation, memory_order_relaxed) != w->seen ||
          atomic_load_explicit(&w->pool->quit, memory_order_relaxed);
}

static bool workers_done(void *arg)
{
   return !atomic_load(&((struct cpu_tpool *)arg)->busy);
}

/* Runs groups of job until none are left.  Inline (the launcher, before
 * the workers know of the job): one group at a time, and only until
 * job->deadline; true when it stopped there with groups left. */
static bool run_groups(struct job *job, char **arena, size_t *arena_size, bool *oom,
                       bool inline_phase)
{
   const struct pipe_grid_info *info = job->info;
   if (job->local_mem_size > *arena_size) {
      /* The old arena stays if there is no memory for a larger one. */
      char *grown = sw_winsys_alloc(job->local_mem_size, ARENA_ALIGN);
      if (!grown) {
         *oom = true;
         /* Claim the remaining groups so the launch ends. */
         atomic_store(&job->next, job->total);
         return false;
      }
      sw_winsys_free(*arena);
      *arena = grown;
      *arena_size = job->local_mem_size;
   }
   struct kiln_wg_ctx ctx;
   memset(&ctx, 0, sizeof(ctx));
   ctx.work_dim = info->work_dim;
   ctx.local_mem = *arena;
   ctx.local_mem_size = job->local_mem_size;
   for (int d = 0; d < 3; d++) {
      ctx.global_offset[d] = info->global_offset[d];
      ctx.global_size[d] = info->global_size[d];
      ctx.local_size[d] = ctx.enqueued_local_size[d] = info->local_size[d];
      ctx.num_groups[d] = job->groups[d];
   }
   ctx.bounds = info->bounds;
   ctx.printf_buffer = job->printf_buffer;
   ctx.device_enqueue = job->device_enqueue;
   uint64_t chunk = inline_phase ? 1 : job->chunk;
   /* Inline: groups run so far, and when the phase began. */
   uint64_t ran = 0, began = job->deadline - CPU_TPOOL_INLINE_NS;
   for (;;) {
      if (inline_phase && job->total > 1) {
         /* The clock once per chunk, not per group (a read costs about
          * what an empty group does): chunks double from one group, and
          * hold at most half of what the time left fits at the pace so
          * far, so the phase ends close to its deadline. */
         uint64_t now = kiln_monotonic_ns();
         if (now >= job->deadline)
            return atomic_load_explicit(&job->next, memory_order_relaxed) < job->total;
         uint64_t spent = now > began ? now - began : 1;
         chunk = ran ? (job->deadline - now) * ran / spent / 2 : 1;
         if (chunk > ran)
            chunk = ran;
         if (chunk < 1)
            chunk = 1;
      }
      /* Claim [first, last) without ever moving the counter past total:
       * a fetch-add by every worker at the end would wrap it for grids
       * near 2^64 groups and run groups again. */
      uint64_t first = atomic_load_explicit(&job->next, memory_order_relaxed), last;
      do {
         if (first >= job->total)
            return false;
         last = job->total - first > chunk ? first + chunk : job->total;
      } while (!atomic_compare_exchange_weak(&job->next, &first, last));
      ran += last - first;
      /* Divide once per chunk, then step the id like an odometer. */
      ctx.group_id[0] = first % job->groups[0];
      ctx.group_id[1] = (first / job->groups[0]) % job->groups[1];
      ctx.group_id[2] = first / (job->groups[0] * job->groups[1]);
      for (uint64_t g = first; g < last; g++) {
         if (job->uneven)
            group_size(&ctx, job);
         if (!ctx.bounds) {
            job->fn(job->args, &ctx);
         } else if (!cpu_bounds_run_group(job->fn, job->args, &ctx) ||
                    atomic_load_explicit(&ctx.bounds->violations, memory_order_relaxed)) {
            /* An access failed its check (here or on another worker): the
             * launch stops; groups already running finish. */
            atomic_store(&job->next, job->total);
            return false;
         }
         if (++ctx.group_id[0] == job->groups[0]) {
            ctx.group_id[0] = 0;
            if (++ctx.group_id[1] == job->groups[1]) {
               ctx.group_id[1] = 0;
               ctx.group_id[2]++;
            }
         }
      }
   }
}

static void *worker_main(void *arg)
{
   struct cpu_tpool *pool = arg;
   char *arena = NULL;
   size_t arena_size = 0;
   uint64_t seen = 0;
   for (;;) {
      /* Back-to-back launches find it polling, not asleep. */
      kiln_spin_until(job_or_quit, &(struct gen_wait){pool, seen});
      pthread_mutex_lock(&pool->lock);
      while (!pool->quit && pool->generation == seen) {
         pool->sleepers++;
         pthread_cond_wait(&pool->work, &pool->lock);
         pool->sleepers--;
      }
      if (pool->quit) {
         pthread_mutex_unlock(&pool->lock);
         break;
      }
      seen = pool->generation;
      struct job *job = pool->job;
      pthread_mutex_unlock(&pool->lock);
      bool oom = false;
      run_groups(job, &arena, &arena_size, &oom, false);
      pthread_mutex_lock(&pool->lock);
      pool->out_of_memory |= oom;
      /* The job lives on the launcher's stack: not touched after this. */
      if (atomic_fetch_sub(&pool->busy, 1) == 1 && pool->launcher_asleep)
         pthread_cond_signal(&pool->done);
      pthread_mutex_unlock(&pool->lock);
   }
   sw_winsys_free(arena);
   return NULL;
}

/* Why a CPU per worker: a launch wakes every worker at once while the
 * thread that wakes them still runs, so the scheduler finds one CPU busy
 * and may queue two workers on another; when the waker then sleeps, the
 * CPU it leaves stays idle, as the workers count as cache-hot where they
 * are queued.  On the 2-core VM that made one launch in four of clpeak's
 * kernels take twice as long (perf sched: a worker waiting 4.4 ms on
 * the other's CPU with its own idle; docs/performance.md, "Workers on
 * CPUs of their own").  A worker pinned to its CPU waits at most for the
 * waker's polling there to end. */
static pthread_once_t pin_once = PTHREAD_ONCE_INIT;
static bool pin_on = true;

static void pin_init(void)
{
   pin_on = !kiln_env_off(getenv("KILN_CPU_PIN"));
}

bool cpu_tpool_pinned(void)
{
   pthread_once(&pin_once, pin_init);
   return pin_on;
}

/* Thread attributes for worker i: its stack, and where it may run. */
static void worker_attr(pthread_attr_t *attr, unsigned i, const int *cpus, unsigned num_cpus,
                        bool one_each)
{
   pthread_attr_init(attr);
   pthread_attr_setstacksize(attr, CPU_WORKER_STACK_SIZE);
   if (!num_cpus)
      return;
   cpu_set_t set;
   CPU_ZERO(&set);
   for (unsigned c = one_each ? i % num_cpus : 0; c < num_cpus; c++) {
      if (cpus[c] >= 0 && cpus[c] < CPU_SETSIZE)
         CPU_SET(cpus[c], &set);
      if (one_each)
         break;
   }
   pthread_attr_setaffinity_np(attr, sizeof(set), &set);
}

struct cpu_tpool *cpu_tpool_create(unsigned num_threads, const int *cpus, unsigned num_cpus,
                                   bool one_each)
{
   struct cpu_tpool *pool = kiln_calloc(1, sizeof(*pool));
   if (!pool)
      return NULL;
   pool->threads = kiln_calloc(num_threads ? num_threads : 1, sizeof(pthread_t));
   if (!pool->threads) {
      kiln_free(pool);
      return NULL;
   }
   pthread_mutex_init(&pool->launch_lock, NULL);
   pthread_mutex_init(&pool->lock, NULL);
   pthread_cond_init(&pool->work, NULL);
   pthread_cond_init(&pool->done, NULL);
   /* A sub-device's workers may run on its CPUs only; unpinned, the
    * scheduler still balances them among those.  Pinning is best effort:
    * a CPU set the kernel refuses leaves the threads unpinned (their
    * number still bounds the sub-device's share of the machine). */
   for (unsigned i = 0; i < (num_threads ? num_threads : 1); i++) {
      pthread_attr_t attr;
      worker_attr(&attr, i, cpus, num_cpus, one_each);
      int err = pthread_create(&pool->threads[i], &attr, worker_main, pool);
      pthread_attr_destroy(&attr);
      if (err) {
         if (!num_cpus)
            break;
         /* Unpinned, as said above. */
         num_cpus = 0;
         i--;
         continue;
      }
      pool->num_threads++;
   }
   if (!pool->num_threads) {
      cpu_tpool_destroy(pool);
      return NULL;
   }
   return pool;
}

void cpu_tpool_destroy(struct cpu_tpool *pool)
{
   if (!pool)
      return;
   pthread_mutex_lock(&pool->lock);
   atomic_store(&pool->quit, true);
   pthread_cond_broadcast(&pool->work);
   pthread_mutex_unlock(&pool->lock);
   for (unsigned i = 0; i < pool->num_threads; i++)
      pthread_join(pool->threads[i], NULL);
   pthread_mutex_destroy(&pool->lock);
   pthread_mutex_destroy(&pool->launch_lock);
   pthread_cond_destroy(&pool->work);
   pthread_cond_destroy(&pool->done);
   kiln_free(pool->threads);
   kiln_free(pool);
}

unsigned cpu_tpool_size(const struct cpu_tpool *pool)
{
   return pool->num_threads;
}

int cpu_tpool_launch(struct cpu_tpool *pool, kiln_wg_fn fn, const struct pipe_grid_info *info,
                     const void *args, size_t local_mem_size, void *printf_buffer,
                     void *device_enqueue, const struct cpu_tpool_caller *caller)
{
   struct job job = {.fn = fn, .info = info, .args = args, .local_mem_size = local_mem_size,
                     .printf_buffer = printf_buffer, .device_enqueue = device_enqueue};
   job.total = 1;
   for (int d = 0; d < 3; d++) {
      /* A global size the local size does not divide (non-uniform
       * work-groups) ends each dimension with a smaller group. */
      job.groups[d] = info->local_size[d] ? info->global_size[d] / info->local_size[d] +
                                               (info->global_size[d] % info->local_size[d] != 0)
                                          : 0;
      job.uneven |= job.groups[d] * info->local_size[d] != info->global_size[d];
      /* Core refuses grids of more than 2^64-1 work-items; one that got
       * here anyway fails rather than running a wrapped count. */
      if (job.groups[d] && job.total > UINT64_MAX / job.groups[d])
         return -1;
      job.total *= job.groups[d];
   }
   atomic_init(&job.next, 0);
   bool oom = false;
   if (caller) {
      /* Small grids end here, without a word to the workers. */
      job.deadline = job.total > 1 ? kiln_monotonic_ns() + CPU_TPOOL_INLINE_NS : 0;
      if (!run_groups(&job, caller->arena, caller->arena_size, &oom, true))
         return oom ? -1 : 0;
   }
   /* Several groups per grab when there are many: fewer atomic operations,
    * while keeping at least ~8 grabs per thread for balance. */
   uint64_t left = job.total - atomic_load(&job.next);
   job.chunk = left / (pool->num_threads * 8u);
   if (job.chunk < 1)
      job.chunk = 1;

   /* One launch at a time: several contexts (queues) may share a pool. */
   pthread_mutex_lock(&pool->launch_lock);
   pthread_mutex_lock(&pool->lock);
   pool->job = &job;
   atomic_store(&pool->busy, pool->num_threads);
   pool->out_of_memory = false;
   atomic_fetch_add(&pool->generation, 1);
   if (pool->sleepers)
      pthread_cond_broadcast(&pool->work);
   pthread_mutex_unlock(&pool->lock);
   /* The caller runs no more groups: at most one group per worker runs
    * at any time, as many as the device has compute units (a sub-device
    * of one unit runs one work-group at a time). */
   /* Every worker takes part in every job (and so stops touching it
    * before busy reaches 0): wait for them, polling a while first. */
   kiln_spin_until(workers_done, pool);
   pthread_mutex_lock(&pool->lock);
   while (atomic_load(&pool->busy)) {
      pool->launcher_asleep = true;
      pthread_cond_wait(&pool->done, &pool->lock);
      pool->launcher_asleep = false;
   }
   oom |= pool->out_of_memory;
   pool->job = NULL;
   pthread_mutex_unlock(&pool->lock);
   pthread_mutex_unlock(&pool->launch_lock);
   return oom ? -1 : 0;
}

size_t cpu_tpool_stack_left(void)
{
   /* Found once per thread (for the main thread glibc reads
    * /proc/self/maps). */
   /* initial-exec: a plain load, not a __tls_get_addr call per launch. */
   static _Thread_local uintptr_t lo KILN_TLS_MODEL, hi KILN_TLS_MODEL;
   static _Thread_local bool known KILN_TLS_MODEL;
   if (!known) {
      pthread_attr_t a;
      void *addr;
      size_t size;
      if (!pthread_getattr_np(pthread_self(), &a)) {
         if (!pthread_attr_getstack(&a, &addr, &size)) {
            size_t guard = 0;
            pthread_attr_getguardsize(&a, &guard);
            lo = (uintptr_t)addr + guard;
            hi = (uintptr_t)addr + size;
         }
         pthread_attr_destroy(&a);
      }
      known = true;
   }
   uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
   /* Outside the thread's stack (a sanitizer's fake frames): unknown. */
   return sp > lo && sp <= hi ? sp - lo : 0;
}
