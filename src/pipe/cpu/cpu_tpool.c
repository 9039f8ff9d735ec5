/* The CPU driver's worker pool: one thread per core runs work-groups.
 *
 * A launch publishes one job; every worker takes group indices from a
 * shared counter until none are left, so uneven work-groups balance
 * themselves.  Each worker owns its __local arena, and a large stack:
 * kernels with barriers keep per-work-item copies of their private values
 * on it (src/llvm/workgroup.c).
 */
/* pthread_attr_setaffinity_np needs _GNU_SOURCE, which meson.build
 * defines for every file. */
#include "pipe/cpu/cpu_tpool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "kiln/bounds.h"
#include "kiln/cpu_abi.h"
#include "pipe/cpu/cpu_bounds.h"
#include "winsys/sw/sw_winsys.h"
#include "util/alloc.h"

#define ARENA_ALIGN 128

struct job {
   kiln_wg_fn fn;
   const struct pipe_grid_info *info;
   const void *args;      /* bound: addresses and __local offsets written */
   size_t local_mem_size; /* __local bytes of each work-group */
   void *printf_buffer;
   uint64_t groups[3];
   uint64_t total;
   atomic_uint_fast64_t next;
   uint64_t chunk;
};

struct cpu_tpool {
   pthread_mutex_t launch_lock;
   pthread_mutex_t lock;
   pthread_cond_t work, done;
   unsigned num_threads;
   pthread_t *threads;
   uint64_t generation;   /* bumps with each job */
   unsigned busy;         /* workers still on the current job */
   bool out_of_memory;    /* a worker could not get its arena */
   bool quit;
   struct job *job;
};

static void run_groups(struct job *job, char **arena, size_t *arena_size, bool *oom)
{
   const struct pipe_grid_info *info = job->info;
   if (job->local_mem_size > *arena_size) {
      /* The old arena stays if there is no memory for a larger one. */
      char *grown = sw_winsys_alloc(job->local_mem_size, ARENA_ALIGN);
      if (!grown) {
         *oom = true;
         /* Claim the remaining groups so the launch ends. */
         atomic_store(&job->next, job->total);
         return;
      }
      sw_winsys_free(*arena);
      *arena = grown;
      *arena_size = job->local_mem_size;
   }
   struct kiln_wg_ctx ctx;
   memset(&ctx, 0, sizeof(ctx));
   ctx.work_dim = info->work_dim;
   ctx.local_mem = *arena;
   for (int d = 0; d < 3; d++) {
      ctx.global_offset[d] = info->global_offset[d];
      ctx.global_size[d] = info->global_size[d];
      ctx.local_size[d] = info->local_size[d];
      ctx.num_groups[d] = job->groups[d];
   }
   ctx.bounds = info->bounds;
   ctx.printf_buffer = job->printf_buffer;
   for (;;) {
      /* Claim [first, last) without ever moving the counter past total:
       * a fetch-add by every worker at the end would wrap it for grids
       * near 2^64 groups and run groups again. */
      uint64_t first = atomic_load_explicit(&job->next, memory_order_relaxed), last;
      do {
         if (first >= job->total)
            return;
         last = job->total - first > job->chunk ? first + job->chunk : job->total;
      } while (!atomic_compare_exchange_weak(&job->next, &first, last));
      /* Divide once per chunk, then step the id like an odometer. */
      ctx.group_id[0] = first % job->groups[0];
      ctx.group_id[1] = (first / job->groups[0]) % job->groups[1];
      ctx.group_id[2] = first / (job->groups[0] * job->groups[1]);
      for (uint64_t g = first; g < last; g++) {
         if (!ctx.bounds) {
            job->fn(job->args, &ctx);
         } else if (!cpu_bounds_run_group(job->fn, job->args, &ctx) ||
                    atomic_load_explicit(&ctx.bounds->violations, memory_order_relaxed)) {
            /* An access failed its check (here or on another worker): the
             * launch stops; groups already running finish. */
            atomic_store(&job->next, job->total);
            return;
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
   pthread_mutex_lock(&pool->lock);
   for (;;) {
      while (!pool->quit && pool->generation == seen)
         pthread_cond_wait(&pool->work, &pool->lock);
      if (pool->quit)
         break;
      seen = pool->generation;
      struct job *job = pool->job;
      pthread_mutex_unlock(&pool->lock);
      bool oom = false;
      run_groups(job, &arena, &arena_size, &oom);
      pthread_mutex_lock(&pool->lock);
      pool->out_of_memory |= oom;
      if (--pool->busy == 0)
         pthread_cond_signal(&pool->done);
   }
   pthread_mutex_unlock(&pool->lock);
   sw_winsys_free(arena);
   return NULL;
}

struct cpu_tpool *cpu_tpool_create(unsigned num_threads, const int *cpus, unsigned num_cpus)
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
   pthread_attr_t attr;
   pthread_attr_init(&attr);
   pthread_attr_setstacksize(&attr, CPU_WORKER_STACK_SIZE);
   /* A sub-device's workers may run on its CPUs only; the scheduler still
    * balances them among those.  Pinning is best effort: a CPU set the
    * kernel refuses leaves the threads unpinned (their number still
    * bounds the sub-device's share of the machine). */
   if (num_cpus) {
      cpu_set_t set;
      CPU_ZERO(&set);
      for (unsigned i = 0; i < num_cpus; i++)
         if (cpus[i] >= 0 && cpus[i] < CPU_SETSIZE)
            CPU_SET(cpus[i], &set);
      pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
   }
   for (unsigned i = 0; i < (num_threads ? num_threads : 1); i++) {
      if (pthread_create(&pool->threads[i], &attr, worker_main, pool)) {
         if (!num_cpus)
            break;
         /* Unpinned, as said above. */
         num_cpus = 0;
         pthread_attr_destroy(&attr);
         pthread_attr_init(&attr);
         pthread_attr_setstacksize(&attr, CPU_WORKER_STACK_SIZE);
         i--;
         continue;
      }
      pool->num_threads++;
   }
   pthread_attr_destroy(&attr);
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
   pool->quit = true;
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

int cpu_tpool_launch(struct cpu_tpool *pool, kiln_wg_fn fn, const struct pipe_grid_info *info,
                     const void *args, size_t local_mem_size, void *printf_buffer)
{
   struct job job = {.fn = fn, .info = info, .args = args, .local_mem_size = local_mem_size,
                     .printf_buffer = printf_buffer};
   job.total = 1;
   for (int d = 0; d < 3; d++) {
      job.groups[d] = info->local_size[d] ? info->global_size[d] / info->local_size[d] : 0;
      /* Core refuses grids of more than 2^64-1 work-items; one that got
       * here anyway fails rather than running a wrapped count. */
      if (job.groups[d] && job.total > UINT64_MAX / job.groups[d])
         return -1;
      job.total *= job.groups[d];
   }
   atomic_init(&job.next, 0);
   /* Several groups per grab when there are many: fewer atomic operations,
    * while keeping at least ~8 grabs per thread for balance. */
   job.chunk = job.total / (pool->num_threads * 8u);
   if (job.chunk < 1)
      job.chunk = 1;

   /* One launch at a time: several contexts (queues) may share a pool. */
   pthread_mutex_lock(&pool->launch_lock);
   pthread_mutex_lock(&pool->lock);
   pool->job = &job;
   pool->busy = pool->num_threads;
   pool->out_of_memory = false;
   pool->generation++;
   pthread_cond_broadcast(&pool->work);
   while (pool->busy)
      pthread_cond_wait(&pool->done, &pool->lock);
   bool oom = pool->out_of_memory;
   pool->job = NULL;
   pthread_mutex_unlock(&pool->lock);
   pthread_mutex_unlock(&pool->launch_lock);
   return oom ? -1 : 0;
}
