/* printf from the GPU (docs/printf.md, docs/cuda.md).
 *
 * A program whose kernels call printf carries its format table as the
 * module global KILN_PRINTF_TABLE_SYM (src/llvm/nvptx): program_create
 * copies it to the host once.  Each launch of such a kernel gets a device
 * buffer (struct kiln_printf_buffer; the header is written on the stream
 * before the launch) whose address is the kernel's last hidden parameter;
 * the kernel appends records with atomic adds.  The launch becomes a job
 * of its context until the next fenced flush hands the context's jobs to
 * the fence; the first wait that sees the fence signalled reads each
 * buffer back (the header, then only the bytes written) and prints it with
 * src/util/printf_format.c before it reports the fence signalled, so the
 * output is out before core completes the command.  One buffer is kept
 * for the next launch: allocating 16 MiB per launch would cost more than
 * the launch.
 */
#include <stdatomic.h>
#include <string.h>

#include "kiln/printf.h"
#include "pipe/cuda/cuda_priv.h"
#include "util/alloc.h"
#include "util/log.h"
#include "util/printf_format.h"

struct cuda_printf_table {
   atomic_int refs;
   size_t size;
   struct kiln_printf_table table; /* size bytes, offsets[] and entries included */
};

struct cuda_printf_job {
   struct cuda_printf_job *next;
   struct cuda_printf_table *table;
   CUdeviceptr buffer;
   size_t capacity;
   bool launched; /* false: CUDA refused the launch; only the header copy ran */
};

static void table_unref(struct cuda_printf_table *t)
{
   if (t && atomic_fetch_sub(&t->refs, 1) == 1)
      kiln_free(t);
}

cl_int cuda_printf_program_init(struct cuda_screen *s, struct cuda_program *p)
{
   CUdeviceptr address;
   size_t size;
   cl_int err = cuda_ws_module_global(s->ws, p->module, KILN_PRINTF_TABLE_SYM, &address, &size);
   if (err == CL_INVALID_VALUE)
      return CL_SUCCESS; /* no printf in this program */
   if (err)
      return err;
   if (size < sizeof(struct kiln_printf_table) || size > UINT32_MAX)
      return CL_SUCCESS; /* not Kiln's: nothing prints */
   struct cuda_printf_table *t = kiln_malloc(offsetof(struct cuda_printf_table, table) + size);
   if (!t)
      return CL_OUT_OF_HOST_MEMORY;
   atomic_init(&t->refs, 1);
   t->size = size;
   pthread_mutex_lock(&s->printf_lock);
   err = cuda_screen_read_now(s, &t->table, address, size);
   pthread_mutex_unlock(&s->printf_lock);
   if (err || t->table.magic != KILN_PRINTF_TABLE_MAGIC || t->table.size > size) {
      kiln_free(t);
      return err;
   }
   p->printf_table = t;
   return CL_SUCCESS;
}

void cuda_printf_program_fini(struct cuda_program *p)
{
   table_unref(p->printf_table);
   p->printf_table = NULL;
}

static void put_buffer(struct cuda_screen *s, CUdeviceptr buffer, size_t capacity)
{
   /* Under printf_lock.  Only buffers of finished work get here. */
   if (!s->printf_spare && capacity == kiln_printf_buffer_size()) {
      s->printf_spare = buffer;
      return;
   }
   cuda_ws_mem_free(s->ws, buffer);
}

cl_int cuda_printf_job_create(struct cuda_context *c, struct cuda_program *p,
                              struct cuda_printf_job **out, uint64_t *address)
{
   struct cuda_screen *s = c->screen;
   struct cuda_printf_job *j = kiln_calloc(1, sizeof(*j));
   if (!j)
      return CL_OUT_OF_HOST_MEMORY;
   j->capacity = kiln_printf_buffer_size();
   pthread_mutex_lock(&s->printf_lock);
   j->buffer = s->printf_spare;
   s->printf_spare = 0;
   pthread_mutex_unlock(&s->printf_lock);
   cl_int err = CL_SUCCESS;
   if (!j->buffer) {
      err = cuda_ws_mem_alloc(s->ws, KILN_PRINTF_BUFFER_DATA + j->capacity, &j->buffer);
      if (err) {
         kiln_free(j);
         return err == CL_MEM_OBJECT_ALLOCATION_FAILURE ? CL_OUT_OF_RESOURCES : err;
      }
   }
   /* The header only: records past `used` are never read. */
   struct kiln_printf_buffer head = {.used = 0, .capacity = j->capacity, .drop_at = UINT64_MAX};
   err = cuda_ws_copy_htod(s->ws, c->stream, j->buffer, &head, KILN_PRINTF_BUFFER_DATA);
   if (err) {
      cuda_ws_mem_free(s->ws, j->buffer);
      kiln_free(j);
      return err;
   }
   atomic_fetch_add(&p->printf_table->refs, 1);
   j->table = p->printf_table;
   *address = j->buffer;
   *out = j;
   return CL_SUCCESS;
}

void cuda_printf_job_push(struct cuda_context *c, struct cuda_printf_job *j, bool launched)
{
   /* A refused launch's buffer waits for the fence too: its header copy
    * is on the stream. */
   j->launched = launched;
   struct cuda_printf_job **at = &c->printf_jobs;
   while (*at)
      at = &(*at)->next;
   *at = j;
}

struct cuda_printf_job *cuda_printf_take(struct cuda_context *c)
{
   struct cuda_printf_job *j = c->printf_jobs;
   c->printf_jobs = NULL;
   return j;
}

/* %s of a pointer into device memory: up to size - 1 bytes.  CUDA
 * refuses a copy that passes the end of the allocation, so where the
 * whole length cannot be read, a binary search finds how much can (a
 * string ends before its allocation does). */
static bool read_string(void *user, uint64_t address, char *buf, size_t size)
{
   struct cuda_screen *s = user;
   size_t ok = 0, bad = size; /* ok bytes are known readable, bad not */
   for (size_t n = size - 1; n > ok;) {
      if (!cuda_screen_read_now(s, buf, (CUdeviceptr)address, n)) {
         if (memchr(buf, 0, n) || n == size - 1) {
            buf[n] = '\0';
            return true;
         }
         ok = n;
      } else {
         bad = n;
      }
      n = ok + (bad - ok) / 2;
   }
   if (!ok || cuda_screen_read_now(s, buf, (CUdeviceptr)address, ok))
      return false;
   buf[ok] = '\0'; /* no NUL within the allocation: what there is */
   return true;
}

/* One finished launch's output. */
static void print_job(struct cuda_screen *s, const struct cuda_printf_job *j)
{
   struct kiln_printf_buffer head;
   if (cuda_screen_read_now(s, &head, j->buffer, KILN_PRINTF_BUFFER_DATA))
      return;
   uint64_t end = head.used;
   if (end > j->capacity)
      end = j->capacity;
   if (end > head.drop_at)
      end = head.drop_at;
   struct kiln_printf_buffer *buf = kiln_malloc(KILN_PRINTF_BUFFER_DATA + (size_t)end + 1);
   if (!buf) {
      kiln_log(KILN_LOG_PIPE, "cuda: no memory to print a launch's printf output");
      return;
   }
   *buf = head;
   buf->used = end;
   buf->capacity = end;
   if (!end || !cuda_screen_read_now(s, buf->data, j->buffer + KILN_PRINTF_BUFFER_DATA, (size_t)end)) {
      struct kiln_printf_reader reader = {.read_string = read_string, .user = s};
      kiln_printf_print_with(&j->table->table, buf, stdout, &reader);
   }
   kiln_free(buf);
}

static void finish_locked(struct cuda_screen *s, struct cuda_printf_job *jobs, bool print)
{
   for (struct cuda_printf_job *j = jobs, *next; j; j = next) {
      next = j->next;
      if (print && j->launched)
         print_job(s, j);
      put_buffer(s, j->buffer, j->capacity);
      table_unref(j->table);
      kiln_free(j);
   }
}

void cuda_printf_finish(struct cuda_screen *s, struct cuda_printf_job *jobs, bool print)
{
   if (!jobs)
      return;
   pthread_mutex_lock(&s->printf_lock);
   finish_locked(s, jobs, print);
   pthread_mutex_unlock(&s->printf_lock);
}

void cuda_printf_fence_done(struct cuda_screen *s, struct pipe_fence *f, int state)
{
   /* Under the lock, so that a second waiter cannot report the fence
    * signalled while the first still prints. */
   pthread_mutex_lock(&s->printf_lock);
   struct cuda_printf_job *jobs = f->printf_jobs;
   f->printf_jobs = NULL;
   finish_locked(s, jobs, state == PIPE_FENCE_SIGNALLED);
   atomic_store(&f->state, state);
   pthread_mutex_unlock(&s->printf_lock);
}

void cuda_printf_screen_fini(struct cuda_screen *s)
{
   if (s->printf_spare)
      cuda_ws_mem_free(s->ws, s->printf_spare);
   s->printf_spare = 0;
}
