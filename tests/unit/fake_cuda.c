#include "fake_cuda.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct fake_cuda_state fake_cuda;

/* ---- internal objects ---- */

struct fake_ctx {
   int device;
};

enum mem_kind { MEM_DEVICE, MEM_PINNED, MEM_REGISTERED };

struct fake_mem {
   bool live;
   enum mem_kind kind;
   int device;
   void *host;    /* the bytes */
   uint64_t addr; /* device address; the host address for host memory */
   size_t size;
};

enum op_type { OP_HTOD, OP_DTOH, OP_DTOD, OP_MEMSET, OP_EVENT, OP_LAUNCH };

struct fake_op {
   enum op_type type;
   uint64_t dst, src;
   void *hdst;       /* DTOH into pinned memory */
   const void *hsrc; /* HTOD from pinned memory */
   void *snapshot;   /* HTOD from pageable memory: its bytes at the call */
   size_t size;
   uint32_t value;
   unsigned elem;
   int event;
   uint64_t seq;
   unsigned launch;
   struct fake_op *next;
};

struct fake_stream {
   bool live;
   int device;
   struct fake_op *head, *tail;
};

struct fake_event {
   bool live;
   int device;
   unsigned flags;
   bool recorded, done;
   uint64_t seq; /* of the latest record */
   uint64_t time;
};

struct fake_module {
   bool live;
   int device;
   char *text;
   struct fake_mem *global; /* the one global cuModuleGetGlobal gave, or NULL */
   char global_name[64];
};

struct fake_func {
   bool live;
   int module;
   const struct fake_cuda_kernel *kernel;
   int max_dynamic;
};

#define MAX_MEMS 1024
#define MAX_STREAMS 64
#define MAX_EVENTS 8192
#define MAX_MODULES 64
#define MAX_FUNCS 256
#define MAX_INJECT 16
#define DEVICE_EPOCH_NS 7000000000ull /* device clock minus host clock */

struct fake_array {
   bool live;
   int device;
   CUDA_ARRAY3D_DESCRIPTOR desc;
   size_t row_bytes, rows, slices; /* rows per slice */
   unsigned char *bytes;
};

struct fake_tex {
   bool live;
   int array;
   CUDA_TEXTURE_DESC desc;
};

struct fake_surf {
   bool live;
   int array;
};

#define MAX_ARRAYS 64
#define MAX_TEX 256
#define MAX_SURF 64

static struct fake_array arrays[MAX_ARRAYS];
static struct fake_tex texs[MAX_TEX];
static struct fake_surf surfs[MAX_SURF];
static struct fake_ctx ctxs[FAKE_CUDA_MAX_DEVICES];
static struct fake_mem mems[MAX_MEMS];
static struct fake_stream streams[MAX_STREAMS];
static struct fake_event events[MAX_EVENTS];
static struct fake_module modules[MAX_MODULES];
static struct fake_func funcs[MAX_FUNCS];
static struct {
   const char *name;
   CUresult error;
} injects[MAX_INJECT];
static uint64_t next_addr, next_seq;
static uint64_t dev_clock[FAKE_CUDA_MAX_DEVICES];

static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static __thread int ctx_stack[16];
static __thread int ctx_depth;

#define LOCK() pthread_mutex_lock(&lock)
#define RETURN(r)                                                                             \
   do {                                                                                       \
      CUresult r_ = (r);                                                                      \
      pthread_mutex_unlock(&lock);                                                            \
      return r_;                                                                              \
   } while (0)

static uint64_t host_ns(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t device_now(int d)
{
   uint64_t t = host_ns() + DEVICE_EPOCH_NS;
   if (t > dev_clock[d])
      dev_clock[d] = t;
   return dev_clock[d];
}

static CUresult injected(const char *name)
{
   for (unsigned i = 0; i < MAX_INJECT; i++)
      if (injects[i].name && !strcmp(injects[i].name, name)) {
         CUresult r = injects[i].error;
         injects[i].name = NULL;
         return r;
      }
   return CUDA_SUCCESS;
}

void fake_cuda_fail(const char *function, CUresult error)
{
   LOCK();
   for (unsigned i = 0; i < MAX_INJECT; i++)
      if (!injects[i].name) {
         injects[i].name = function;
         injects[i].error = error;
         break;
      }
   pthread_mutex_unlock(&lock);
}

static bool alloc_fails(void)
{
   fake_cuda.allocs++;
   return fake_cuda.oom_at && fake_cuda.allocs == fake_cuda.oom_at;
}

/* The device of the current context, or -1. */
static int current(void)
{
   return ctx_depth ? ctx_stack[ctx_depth - 1] : -1;
}

static CUresult sticky(int d)
{
   return d >= 0 ? fake_cuda.devices[d].sticky : CUDA_SUCCESS;
}

/* What a call that needs a context starts with. */
#define NEED_CTX(name)                                                                        \
   LOCK();                                                                                    \
   int dev = current();                                                                       \
   if (dev < 0)                                                                               \
      RETURN(CUDA_ERROR_INVALID_CONTEXT);                                                     \
   if (sticky(dev))                                                                           \
      RETURN(sticky(dev));                                                                    \
   do {                                                                                       \
      CUresult inj_ = injected(name);                                                         \
      if (inj_)                                                                               \
         RETURN(inj_);                                                                        \
   } while (0)

static struct fake_mem *mem_at(uint64_t addr, size_t size)
{
   for (unsigned i = 0; i < MAX_MEMS; i++) {
      struct fake_mem *m = &mems[i];
      if (m->live && addr >= m->addr && addr - m->addr <= m->size &&
          size <= m->size - (addr - m->addr))
         return m;
   }
   return NULL;
}

void *fake_cuda_ptr(uint64_t address, size_t size)
{
   LOCK();
   struct fake_mem *m = mem_at(address, size);
   void *p = m ? (char *)m->host + (address - m->addr) : NULL;
   pthread_mutex_unlock(&lock);
   return p;
}

int fake_cuda_ptr_device(uint64_t address, size_t size)
{
   LOCK();
   struct fake_mem *m = mem_at(address, size);
   int d = !m ? -2 : m->kind == MEM_DEVICE ? m->device : -1;
   pthread_mutex_unlock(&lock);
   return d;
}

static bool pinned(const void *p, size_t size)
{
   struct fake_mem *m = mem_at((uint64_t)(uintptr_t)p, size);
   return m && m->kind != MEM_DEVICE;
}

static struct fake_mem *new_mem(void)
{
   for (unsigned i = 0; i < MAX_MEMS; i++)
      if (!mems[i].live) {
         memset(&mems[i], 0, sizeof(mems[i]));
         return &mems[i];
      }
   return NULL;
}

/* ---- streams ---- */

static struct fake_stream *stream_of(CUstream s)
{
   struct fake_stream *st = (struct fake_stream *)s;
   if (st < streams || st >= streams + MAX_STREAMS || !st->live)
      return NULL;
   return st;
}

static void run_op(int d, struct fake_op *op)
{
   if (sticky(d))
      return; /* the context is broken: queued work never runs */
   switch (op->type) {
   case OP_HTOD: {
      void *dst = fake_cuda_ptr(op->dst, op->size);
      const void *src = op->snapshot;
      if (!src) {
         if (!pinned(op->hsrc, op->size)) {
            fake_cuda.use_after_free++;
            return;
         }
         src = op->hsrc;
      }
      if (!dst) {
         fake_cuda.devices[d].sticky = CUDA_ERROR_ILLEGAL_ADDRESS;
         return;
      }
      memcpy(dst, src, op->size);
      break;
   }
   case OP_DTOH: {
      const void *src = fake_cuda_ptr(op->src, op->size);
      if (!pinned(op->hdst, op->size)) {
         fake_cuda.use_after_free++;
         return;
      }
      if (!src) {
         fake_cuda.devices[d].sticky = CUDA_ERROR_ILLEGAL_ADDRESS;
         return;
      }
      memcpy(op->hdst, src, op->size);
      break;
   }
   case OP_DTOD: {
      void *dst = fake_cuda_ptr(op->dst, op->size);
      const void *src = fake_cuda_ptr(op->src, op->size);
      if (!dst || !src) {
         fake_cuda.devices[d].sticky = CUDA_ERROR_ILLEGAL_ADDRESS;
         return;
      }
      memmove(dst, src, op->size);
      break;
   }
   case OP_MEMSET: {
      unsigned char *dst = fake_cuda_ptr(op->dst, op->size * op->elem);
      if (!dst) {
         fake_cuda.devices[d].sticky = CUDA_ERROR_ILLEGAL_ADDRESS;
         return;
      }
      for (size_t i = 0; i < op->size; i++)
         memcpy(dst + i * op->elem, &op->value, op->elem); /* little-endian */
      break;
   }
   case OP_EVENT: {
      struct fake_event *e = &events[op->event];
      if (e->live && e->seq == op->seq) {
         e->done = true;
         e->time = device_now(d);
      }
      break;
   }
   case OP_LAUNCH: {
      struct fake_cuda_launch *l = &fake_cuda.launches[op->launch];
      /* The kernel takes real time, so that the device clock never runs
       * ahead of the host's (a GPU's does not). */
      if (fake_cuda.launch_ns) {
         struct timespec ts = {(time_t)(fake_cuda.launch_ns / 1000000000ull),
                               (long)(fake_cuda.launch_ns % 1000000000ull)};
         nanosleep(&ts, NULL);
      }
      if (l->kernel->fault) {
         fake_cuda.devices[d].sticky = l->kernel->fault;
         return;
      }
      if (l->kernel->run)
         l->kernel->run(l);
      l->ran = true;
      break;
   }
   }
}

static void run_stream(struct fake_stream *st)
{
   while (st->head) {
      struct fake_op *op = st->head;
      st->head = op->next;
      if (!st->head)
         st->tail = NULL;
      run_op(st->device, op);
      free(op->snapshot);
      free(op);
   }
}

static void run_device(int d)
{
   for (unsigned i = 0; i < MAX_STREAMS; i++)
      if (streams[i].live && streams[i].device == d)
         run_stream(&streams[i]);
}

static CUresult enqueue(struct fake_stream *st, struct fake_op *op)
{
   struct fake_op *o = malloc(sizeof(*o));
   if (!o) {
      free(op->snapshot);
      return CUDA_ERROR_OUT_OF_MEMORY;
   }
   *o = *op;
   o->next = NULL;
   if (st->tail)
      st->tail->next = o;
   else
      st->head = o;
   st->tail = o;
   return CUDA_SUCCESS;
}

/* ---- the API ---- */

static const struct {
   CUresult r;
   const char *name;
} error_names[] = {
   {CUDA_SUCCESS, "CUDA_SUCCESS"},
   {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE"},
   {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY"},
   {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED"},
   {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE"},
   {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE"},
   {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT"},
   {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX"},
   {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE"},
   {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND"},
   {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY"},
   {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS"},
   {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"},
   {CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED"},
   {713, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED"},
   {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED"},
};

static CUresult f_cuGetErrorName(CUresult error, const char **name)
{
   for (size_t i = 0; i < sizeof(error_names) / sizeof(error_names[0]); i++)
      if (error_names[i].r == error) {
         *name = error_names[i].name;
         return CUDA_SUCCESS;
      }
   *name = NULL;
   return CUDA_ERROR_INVALID_VALUE;
}

static CUresult f_cuInit(unsigned flags)
{
   LOCK();
   if (flags)
      RETURN(CUDA_ERROR_INVALID_VALUE);
   RETURN(fake_cuda.init_result);
}

static CUresult f_cuDriverGetVersion(int *version)
{
   *version = 13000;
   return CUDA_SUCCESS;
}

static CUresult f_cuDeviceGetCount(int *count)
{
   LOCK();
   *count = (int)fake_cuda.num_devices;
   RETURN(fake_cuda.init_result);
}

static bool bad_device(CUdevice d)
{
   return d < 0 || (unsigned)d >= fake_cuda.num_devices;
}

static CUresult f_cuDeviceGet(CUdevice *dev, int ordinal)
{
   LOCK();
   if (bad_device(ordinal))
      RETURN(CUDA_ERROR_INVALID_DEVICE);
   *dev = ordinal;
   RETURN(injected("cuDeviceGet"));
}

static CUresult f_cuDeviceGetName(char *name, int len, CUdevice dev)
{
   LOCK();
   if (bad_device(dev) || len <= 0)
      RETURN(CUDA_ERROR_INVALID_VALUE);
   strncpy(name, fake_cuda.devices[dev].name, (size_t)len);
   RETURN(CUDA_SUCCESS);
}

static CUresult f_cuDeviceTotalMem(size_t *bytes, CUdevice dev)
{
   LOCK();
   if (bad_device(dev))
      RETURN(CUDA_ERROR_INVALID_DEVICE);
   *bytes = fake_cuda.devices[dev].total_mem;
   RETURN(CUDA_SUCCESS);
}

static CUresult f_cuDeviceGetAttribute(int *value, int attrib, CUdevice dev)
{
   LOCK();
   if (bad_device(dev))
      RETURN(CUDA_ERROR_INVALID_DEVICE);
   if (attrib < 0 || attrib >= FAKE_CUDA_NUM_ATTRS || !fake_cuda.devices[dev].has_attr[attrib])
      RETURN(CUDA_ERROR_INVALID_VALUE);
   *value = fake_cuda.devices[dev].attr[attrib];
   RETURN(CUDA_SUCCESS);
}

static CUresult f_cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev)
{
   LOCK();
   if (bad_device(dev))
      RETURN(CUDA_ERROR_INVALID_DEVICE);
   CUresult r = injected("cuDevicePrimaryCtxRetain");
   if (r)
      RETURN(r);
   fake_cuda.devices[dev].primary_refs++;
   ctxs[dev].device = dev;
   *ctx = (CUcontext)&ctxs[dev];
   RETURN(CUDA_SUCCESS);
}

static CUresult f_cuDevicePrimaryCtxRelease(CUdevice dev)
{
   LOCK();
   if (bad_device(dev) || fake_cuda.devices[dev].primary_refs <= 0)
      RETURN(CUDA_ERROR_INVALID_CONTEXT);
   fake_cuda.devices[dev].primary_refs--;
   RETURN(CUDA_SUCCESS);
}

static CUresult f_cuCtxPushCurrent(CUcontext ctx)
{
   LOCK();
   struct fake_ctx *c = (struct fake_ctx *)ctx;
   if (c < ctxs || c >= ctxs + FAKE_CUDA_MAX_DEVICES ||
       fake_cuda.devices[c->device].primary_refs <= 0 || ctx_depth == 16)
      RETURN(CUDA_ERROR_INVALID_CONTEXT);
   ctx_stack[ctx_depth++] = c->device;
   RETURN(CUDA_SUCCESS);
}

static CUresult f_cuCtxPopCurrent(CUcontext *ctx)
{
   LOCK();
   if (!ctx_depth)
      RETURN(CUDA_ERROR_INVALID_CONTEXT);
   *ctx = (CUcontext)&ctxs[ctx_stack[--ctx_depth]];
   RETURN(CUDA_SUCCESS);
}

static CUresult f_cuCtxGetCurrent(CUcontext *ctx)
{
   LOCK();
   *ctx = ctx_depth ? (CUcontext)&ctxs[ctx_stack[ctx_depth - 1]] : NULL;
   RETURN(CUDA_SUCCESS);
}

/* Replaces the top of the stack (pushes onto an empty one); NULL pops. */
static CUresult f_cuCtxSetCurrent(CUcontext ctx)
{
   LOCK();
   struct fake_ctx *c = (struct fake_ctx *)ctx;
   if (!c) {
      if (ctx_depth)
         ctx_depth--;
      RETURN(CUDA_SUCCESS);
   }
   if (c < ctxs || c >= ctxs + FAKE_CUDA_MAX_DEVICES || fake_cuda.devices[c->device].primary_refs <= 0)
      RETURN(CUDA_ERROR_INVALID_CONTEXT);
   if (!ctx_depth)
      ctx_depth = 1;
   ctx_stack[ctx_depth - 1] = c->device;
   RETURN(CUDA_SUCCESS);
}

/* ---- memory ---- */

static CUresult f_cuMemAlloc(CUdeviceptr *dptr, size_t bytes)
{
   NEED_CTX("cuMemAlloc");
   struct fake_cuda_device *d = &fake_cuda.devices[dev];
   if (!bytes)
      RETURN(CUDA_ERROR_INVALID_VALUE);
   if (alloc_fails() || bytes > d->total_mem - d->used_mem)
      RETURN(CUDA_ERROR_OUT_OF_MEMORY);
   struct fake_mem *m = new_mem();
   void *host = m ? malloc(bytes) : NULL;
   if (!host)
      RETURN(CUDA_ERROR_OUT_OF_MEMORY);
   /* Device memory starts as garbage, not zeros. */
   memset(host, 0xcd, bytes);
   m->live = true;
   m->kind = MEM_DEVICE;
   m->device = dev;
   m->host = host;
   m->addr = next_addr;
   m->size = bytes;
   /* 256-byte aligned like cuMemAlloc, with a gap so that an access past
    * the end finds no allocation. */
   next_addr += (bytes + 4096 + 255) & ~255ull;
   d->used_mem += bytes;
   *dptr = m->addr;
   RETURN(CUDA_SUCCESS);
}

static CUresult f_cuMemFree(CUdeviceptr dptr)
{
   LOCK();
   int dev = current();
   if (dev < 0)
      RETURN(CUDA_ERROR_INVALID_CONTEXT);
   for (unsigned i = 0; i < MAX_MEMS; i++)
      if (mems[i].live && mems[i].kind == MEM_DEVICE && mems[i].addr == dptr) {
         if (mems[i].device != dev)
            RETURN(CUDA_ERROR_INVALID_VALUE);
         mems[i].live = false;
         free(mems[i].host);
         fake_cuda.devices[dev].used_mem -= mems[i].size;
         RETURN(sticky(dev));
      }
   RETURN(CUDA_ERROR_INVALID_VALUE);
}

static CUresult f_cuMemHostAlloc(void **p, size_t bytes, unsigned flags)
{
   NEED_CTX("cuMemHostAlloc");
   if (!bytes || flags & ~3u)
      RETURN(CUDA_ERROR_INVALID_VALUE);
   if (alloc_fails())
      RETURN(CUDA_ERROR_OUT_OF_MEMORY);
   struct fake_mem *m = new_mem();
   void *host = m ? malloc(bytes) : NULL;
   if (!host)
      RETURN(CUDA_ERROR_OUT_OF_MEMORY);
   m->live = true;
   m->kind = MEM_PINNED;
   m->device = dev;
   m->host = host;
   m->addr = (uint64_t)(uintptr_t)host;
   m->size = bytes;
   *p = host;
   RETURN(CUDA_SUCCESS);
}

static CUresult f_cuMemFreeHost(void *p)
{
   LOCK();
   for (unsigned i = 0; i < MAX_MEMS; i++)
      if (mems[i].live && mems[i].kind == MEM_PINNED && mems[i].host == p) {
         mems[i].live = false;
         free(p);
         RETURN(CUDA_SUCCESS);
      }
   RETURN(CUDA_ERROR_INVALID_VALUE);
}

static CUresult f_cuMemHostRegister(void *p, size_t bytes, unsigned flags)
{
   NEED_CTX("cuMemHostRegister");
   if (!p || !bytes || flags & ~7u)
      RETURN(CUDA_ERROR_INVALID_VALUE);
   uint64_t a = (uint64_t)(uintptr_t)p;
   for (unsigned i = 0; i < MAX_MEMS; i++)
      if (mems[i].live && mems[i].kind != MEM_DEVICE && a < mems[i].addr + mems[i].size &&
          mems[i].addr < a + bytes)
         RETURN(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
   if (alloc_fails())
      RETURN(CUDA_ERROR_OUT_OF_MEMORY);
   struct fake_mem *m = new_mem();
   if (!m)
      RETURN(CUDA_ERROR_OUT_OF_MEMORY);
   m->live = true;
   m->kind = MEM_REGISTERED;
   m->device = dev;
   m->host = p;
   m->addr = a;
   m->size = bytes;
   RETURN(CUDA_SUCCESS);
}

static CUresult f_cuMemHostUnregister(void *p)
{
   LOCK();
   for (unsigned i = 0; i < MAX_MEMS; i++)
      if (mems[i].live && mems[i].kind == MEM_REGISTERED && mems[i].host == p) {
         mems[i].live = false;
         RETURN(CUDA_SUCCESS);
      }
   RETURN(713); /* CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED */
}

static CUresult f_cuMemHostGetDevicePointer(CUdeviceptr *dptr, void *p, unsigned flags)
{
   NEED_CTX("cuMemHostGetDevicePointer");
   if (flags || !pinned(p, 1))
      RETURN(CUDA_ERROR_INVALID_VALUE);
   *dptr = (uint64_t)(uintptr_t)p;
   RETURN(CUDA_SUCCESS);
}

/* ---- transfers ---- */

/* The stream, on the current context's device. */
#define NEED_STREAM(s)                                                                        \
   struct fake_stream *st = stream_of(s);                                                     \
   if (!st || st->device != dev)                                                              \
      RETURN(CUDA_ERROR_INVALID_HANDLE)

static bool device_range(uint64_t addr, size_t size)
{
   return mem_at(addr, size) != NULL;
}

static CUresult f_cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t bytes, CUstream s)
{
   NEED_CTX("cuMemcpyHtoDAsync");
   NEED_STREAM(s);
   if (!device_range(dst, bytes) || !src)
      RETURN(CUDA_ERROR_INVALID_VALUE);
   struct fake_op op = {.type = OP_HTOD, .dst = dst, .size = bytes};
   if (pinned(src, bytes)) {
      op.hsrc = src;
   } else {
      /* Pageable memory is staged at the call. */
      op.snapshot = malloc(bytes);
      if (!op.snapshot)
         RETURN(CUDA_ERROR_OUT_OF_MEMORY);
      memcpy(op.snapshot, src, bytes);
   }
   RETURN(enqueue(st, &op));
}

static CUresult f_cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t bytes, CUstream s)
{
   NEED_CTX("cuMemcpyDtoHAsync");
   NEED_STREAM(s);
   fake_cuda.dtoh_thread = pthread_self();
   if (!device_range(src, bytes) || !dst)
      RETURN(CUDA_ERROR_INVALID_VALUE);
   if (pinned(dst, bytes)) {
      struct fake_op op = {.type = OP_DTOH, .src = src, .hdst = dst, .size = bytes};
      RETURN(enqueue(st, &op));
   }
   /* Into pageable memory the call waits for the stream and the copy. */
   run_stream(st);
   if (sticky(dev))
      RETURN(sticky(dev));
   memcpy(dst, fake_cuda_ptr(src, bytes), bytes);
   RETURN(CUDA_SUCCESS);
}

static CUresult f_cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s)
{
   NEED_CTX("cuMemcpyDtoDAsync");
   NEED_STREAM(s);
   if (!device_range(dst, bytes) || !device_range(src, bytes))
      RETURN(CUDA_ERROR_INVALID_VALUE);
   struct fake_op op = {.type = OP_DTOD, .dst = dst, .src = src, .size = bytes};
   RETURN(enqueue(st, &op));
}

/* The live array behind a handle, or NULL. */
static struct fake_array *array_of(CUarray a)
{
   struct fake_array *fa = (struct fake_array *)a;
   if (fa < arrays || fa >= arrays + MAX_ARRAYS || !fa->live)
      return NULL;
   return fa;
}

/* One side of a 3D copy, as the fake resolves it. */
struct side {
   int type;
   const void *host;
   CUdeviceptr dev;
   struct fake_array *array;
   size_t x, y, z, pitch, height;
};

/* Row y of slice z of one side of a 3D copy, or NULL when outside.  An
 * array's pitch and height are its own (the copy's are ignored, as
 * CUDA's are). */
static char *side_row(const struct side *s, size_t y, size_t z, size_t width)
{
   if (s->array) {
      struct fake_array *a = s->array;
      if (s->x + width > a->row_bytes || s->y + y >= a->rows || s->z + z >= a->slices)
         return NULL;
      return (char *)a->bytes + s->x + ((s->z + z) * a->rows + s->y + y) * a->row_bytes;
   }
   size_t off = s->x + ((s->z + z) * s->height + s->y + y) * s->pitch;
   if (s->type == CU_MEMORYTYPE_HOST)
      return (char *)s->host + off;
   return fake_cuda_ptr(s->dev + off, width);
}

static bool side_of(struct side *s, int type, const void *host, CUdeviceptr dev, CUarray array,
                    size_t x, size_t y, size_t z, size_t pitch, size_t height, size_t width,
                    size_t depth)
{
   memset(s, 0, sizeof(*s));
   s->type = type;
   s->host = host;
   s->dev = dev;
   s->x = x, s->y = y, s->z = z, s->pitch = pitch, s->height = height;
   if (type == CU_MEMORYTYPE_ARRAY) {
      s->array = array_of(array);
      return s->array != NULL;
   }
   if (type != CU_MEMORYTYPE_HOST && type != CU_MEMORYTYPE_DEVICE)
      return false;
   (void)depth;
   return x + width <= pitch;
}

static CUresult f_cuMemcpy3DAsync(const CUDA_MEMCPY3D *m, CUstream s)
{
   NEED_CTX("cuMemcpy3DAsync");
   NEED_STREAM(s);
   struct side src, dst;
   if (m->reserved0 || m->reserved1 || m->srcLOD || m->dstLOD ||
       !side_of(&src, m->srcMemoryType, m->srcHost, m->srcDevice, m->srcArray, m->srcXInBytes,
                m->srcY, m->srcZ, m->srcPitch, m->srcHeight, m->WidthInBytes, m->Depth) ||
       !side_of(&dst, m->dstMemoryType, m->dstHost, m->dstDevice, m->dstArray, m->dstXInBytes,
                m->dstY, m->dstZ, m->dstPitch, m->dstHeight, m->WidthInBytes, m->Depth) ||
       (m->Depth > 1 && ((!src.array && m->srcY + m->Height > m->srcHeight) ||
                         (!dst.array && m->dstY + m->Height > m->dstHeight))))
      RETURN(CUDA_ERROR_INVALID_VALUE);
   /* A pointer where an array is named (or the reverse) is the caller's
    * bug: CUDA reads only the fields of the memory type. */
   if ((!src.array && m->srcArray) || (!dst.array && m->dstArray))
      RETURN(CUDA_ERROR_INVALID_VALUE);
   /* Every row must lie in memory before anything is copied. */
   for (size_t z = 0; z < m->Depth; z++)
      for (size_t y = 0; y < m->Height; y++)
         if (!side_row(&src, y, z, m->WidthInBytes) || !side_row(&dst, y, z, m->WidthInBytes))
            RETURN(CUDA_ERROR_INVALID_VALUE);
   if (src.array || dst.array)
      fake_cuda.array_copies++;
   /* Done at the call, in stream order (as CUDA does with pageable host
    * memory). */
   run_stream(st);
   if (sticky(dev))
      RETURN(sticky(dev));
   for (size_t z = 0; z < m->Depth; z++)
      for (size_t y = 0; y < m->Height; y++)
         memmove(side_row(&dst, y, z, m->WidthInBytes), side_row(&src, y, z, m->WidthInBytes),
                 m->WidthInBytes);
   RETURN(CUDA_SUCCESS);
}

/* ---- CUDA arrays, texture and surface objects ---- */

static size_t format_bytes(int format)
{
   switch (format) {
   case CU_AD_FORMAT_UNSIGNED_INT8:
   case CU_AD_FORMAT_SIGNED_INT8:
      return 1;
   case CU_AD_FORMAT_UNSIGNED_INT16:
   case CU_AD_FORMAT_SIGNED_INT16:
   case CU_AD_FORMAT_HALF:
      return 2;
   case CU_AD_FORMAT_UNSIGNED_INT32:
   case CU_AD_FORMAT_SIGNED_INT32:
   case CU_AD_FORMAT_FLOAT:
      return 4;
   default:
      return 0;
   }
}

static CUresult f_cuArray3DCreate(CUarray *out, const CUDA_ARRAY3D_DESCRIPTOR *d)
{
   NEED_CTX("cuArray3DCreate");
   size_t elem = format_bytes(d->Format);
   bool layered = d->Flags & CUDA_ARRAY3D_LAYERED;
   /* CUDA's rules: 1, 2 or 4 channels; no height without width, no depth
    * without height unless layered (a layered 1D array). */
   if (!out || !elem || (d->NumChannels != 1 && d->NumChannels != 2 && d->NumChannels != 4) ||
       !d->Width || (d->Flags & ~(unsigned)(CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST)) ||
       (d->Depth && !d->Height && !layered) || (layered && !d->Depth))
      RETURN(CUDA_ERROR_INVALID_VALUE);
   struct fake_cuda_device *fd = &fake_cuda.devices[dev];
   size_t row = d->Width * elem * d->NumChannels;
   size_t rows = d->Height ? d->Height : 1, slices = d->Depth ? d->Depth : 1;
   size_t bytes = row * rows * slices;
   if (alloc_fails() || bytes > fd->total_mem - fd->used_mem)
      RETURN(CUDA_ERROR_OUT_OF_MEMORY);
   struct fake_array *a = NULL;
   for (unsigned i = 0; i < MAX_ARRAYS && !a; i++)
      if (!arrays[i].live)
         a = &arrays[i];
   unsigned char *p = a ? malloc(bytes) : NULL;
   if (!p)
      RETURN(CUDA_ERROR_OUT_OF_MEMORY);
   memset(p, 0xcd, bytes);
   memset(a, 0, sizeof(*a));
   a->live = true;
   a->device = dev;
   a->desc = *d;
   a->row_bytes = row;
   a->rows = rows;
   a->slices = slices;
   a->bytes = p;
   fd->used_mem += bytes;
   fake_cuda.arrays_created++;
   *out = (CUarray)a;
   RETURN(CUDA_SUCCESS);
}

static bool array_in_use(int index)
{
   for (unsigned i = 0; i < MAX_TEX; i++)
      if (texs[i].live && texs[i].array == index)
         return true;
   for (unsigned i = 0; i < MAX_SURF; i++)
      if (surfs[i].live && surfs[i].array == index)
         return true;
   return false;
}

static CUresult f_cuArrayDestroy(CUarray array)
{
   NEED_CTX("cuArrayDestroy");
   struct fake_array *a = array_of(array);
   if (!a || a->device != dev)
      RETURN(CUDA_ERROR_INVALID_HANDLE);
   /* CUDA leaves objects over a destroyed array dangling; a driver that
    * does that has a bug, which the fake makes loud. */
   if (array_in_use((int)(a - arrays)))
      RETURN(CUDA_ERROR_INVALID_VALUE);
   fake_cuda.devices[dev].used_mem -= a->row_bytes * a->rows * a->slices;
   free(a->bytes);
   a->live = false;
   fake_cuda.arrays_destroyed++;
   RETURN(CUDA_SUCCESS);
}

static struct fake_array *resource_array(const CUDA_RESOURCE_DESC *res)
{
   if (!res || res->resType != CU_RESOURCE_TYPE_ARRAY || res->flags)
      return NULL;
   return array_of(res->res.array.hArray);
}

static CUresult f_cuTexObjectCreate(CUtexObject *tex, const CUDA_RESOURCE_DESC *res,
                                    const CUDA_TEXTURE_DESC *desc, const void *view)
{
   NEED_CTX("cuTexObjectCreate");
   struct fake_array *a = resource_array(res);
   if (!tex || !a || !desc || view)
      RETURN(CUDA_ERROR_INVALID_VALUE);
   for (int i = 0; i < 3; i++)
      if (desc->addressMode[i] < CU_TR_ADDRESS_MODE_WRAP ||
          desc->addressMode[i] > CU_TR_ADDRESS_MODE_BORDER)
         RETURN(CUDA_ERROR_INVALID_VALUE);
   /* CUDA filters only what it returns as floats. */
   int f = a->desc.Format;
   bool integer = (desc->flags & CU_TRSF_READ_AS_INTEGER) || f == CU_AD_FORMAT_UNSIGNED_INT32 ||
                  f == CU_AD_FORMAT_SIGNED_INT32;
   if (desc->filterMode == CU_TR_FILTER_MODE_LINEAR && integer && f != CU_AD_FORMAT_FLOAT &&
       f != CU_AD_FORMAT_HALF)
      RETURN(CUDA_ERROR_INVALID_VALUE);
   for (unsigned i = 0; i < MAX_TEX; i++)
      if (!texs[i].live) {
         texs[i].live = true;
         texs[i].array = (int)(a - arrays);
         texs[i].desc = *desc;
         fake_cuda.tex_created++;
         *tex = 0x7e000000ull + i; /* never 0 */
         RETURN(CUDA_SUCCESS);
      }
   RETURN(CUDA_ERROR_OUT_OF_MEMORY);
}

static struct fake_tex *tex_of(CUtexObject t)
{
   if (t < 0x7e000000ull || t >= 0x7e000000ull + MAX_TEX || !texs[t - 0x7e000000ull].live)
      return NULL;
   return &texs[t - 0x7e000000ull];
}

static CUresult f_cuTexObjectDestroy(CUtexObject tex)
{
   NEED_CTX("cuTexObjectDestroy");
   struct fake_tex *t = tex_of(tex);
   if (!t)
      RETURN(CUDA_ERROR_INVALID_VALUE);
   t->live = false;
   fake_cuda.tex_destroyed++;
   RETURN(CUDA_SUCCESS);
}

static CUresult f_cuSurfObjectCreate(CUsurfObject *surf, const CUDA_RESOURCE_DESC *res)
{
   NEED_CTX("cuSurfObjectCreate");
   struct fake_array *a = resource_array(res);
   if (!surf || !a || !(a->desc.Flags & CUDA_ARRAY3D_SURFACE_LDST))
      RETURN(CUDA_ERROR_INVALID_VALUE);
   for (unsigned i = 0; i < MAX_SURF; i++)
      if (!surfs[i].live) {
         surfs[i].live = true;
         surfs[i].array = (int)(a - arrays);
         fake_cuda.surf_created++;
         *surf = 0x5f000000ull + i;
         RETURN(CUDA_SUCCESS);
      }
   RETURN(CUDA_ERROR_OUT_OF_MEMORY);
}

static struct fake_surf *surf_of(CUsurfObject s)
{
   if (s < 0x5f000000ull || s >= 0x5f000000ull + MAX_SURF || !surfs[s - 0x5f000000ull].live)
      return NULL;
   return &surfs[s - 0x5f000000ull];
}

static CUresult f_cuSurfObjectDestroy(CUsurfObject surf)
{
   NEED_CTX("cuSurfObjectDestroy");
   struct fake_surf *sf = surf_of(surf);
   if (!sf)
      RETURN(CUDA_ERROR_INVALID_VALUE);
   sf->live = false;
   fake_cuda.surf_destroyed++;
   RETURN(CUDA_SUCCESS);
}

void *fake_cuda_array_bytes(CUarray array, size_t *size, CUDA_ARRAY3D_DESCRIPTOR *desc)
{
   LOCK();
   struct fake_array *a = array_of(array);
   void *p = NULL;
   if (a) {
      p = a->bytes;
      if (size)
         *size = a->row_bytes * a->rows * a->slices;
      if (desc)
         *desc = a->desc;
   }
   pthread_mutex_unlock(&lock);
   return p;
}

bool fake_cuda_tex_info(CUtexObject tex, CUarray *array, CUDA_TEXTURE_DESC *desc)
{
   LOCK();
   struct fake_tex *t = tex_of(tex);
   if (t) {
      if (array)
         *array = (CUarray)&arrays[t->array];
      if (desc)
         *desc = t->desc;
   }
   pthread_mutex_unlock(&lock);
   return t != NULL;
}

CUarray fake_cuda_surf_array(CUsurfObject surf)
{
   LOCK();
   struct fake_surf *sf = surf_of(surf);
   CUarray a = sf ? (CUarray)&arrays[sf->array] : NULL;
   pthread_mutex_unlock(&lock);
   return a;
}

static CUresult memset_op(const char *name, CUdeviceptr dst, uint32_t value, unsigned elem,
                          size_t n, CUstream s)
{
   NEED_CTX(name);
   NEED_STREAM(s);
   if (dst % elem || !device_range(dst, n * elem))
      RETURN(CUDA_ERROR_INVALID_VALUE);
   struct fake_op op = {.type = OP_MEMSET, .dst = dst, .value = value, .elem = elem, .size = n};
   RETURN(enqueue(st, &op));
}

static CUresult f_cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, CUstream s)
{
   return memset_op("cuMemsetD8Async", dst, v, 1, n, s);
}

static CUresult f_cuMemsetD16Async(CUdeviceptr dst, unsigned short v, size_t n, CUstream s)
{
   return memset_op("cuMemsetD16Async", dst, v, 2, n, s);
}

static CUresult f_cuMemsetD32Async(CUdeviceptr dst, unsigned v, size_t n, CUstream s)
{
   return memset_op("cuMemsetD32Async", dst, v, 4, n, s);
}

/* ---- streams and events ---- */

static CUresult f_cuStreamCreate(CUstream *stream, unsigned flags)
{
   NEED_CTX("cuStreamCreate");
   if (flags & ~1u)
      RETURN(CUDA_ERROR_INVALID_VALUE);
   if (alloc_fails())
      RETURN(CUDA_ERROR_OUT_OF_MEMORY);
   for (unsigned i = 0; i < MAX_STREAMS; i++)
      if (!streams[i].live) {
         memset(&streams[i], 0, sizeof(streams[i]));
         streams[i].live = true;
         streams[i].device = dev;
         *stream = (CUstream)&streams[i];
         RETURN(CUDA_SUCCESS);
      }
   RETURN(CUDA_ERROR_OUT_OF_MEMORY);
}

static CUresult f_cuStreamDestroy(CUstream stream)
{
   LOCK();
   struct fake_stream *st = stream_of(stream);
   if (!st || st->device != current())
      RETURN(CUDA_ERROR_INVALID_HANDLE);
   /* Queued work still runs (CUDA frees the stream once it is idle). */
   run_stream(st);
   st->live = false;
   RETURN(sticky(st->device));
}

static CUresult f_cuStreamSynchronize(CUstream stream)
{
   NEED_CTX("cuStreamSynchronize");
   NEED_STREAM(stream);
   fake_cuda.stream_syncs++;
   run_stream(st);
   RETURN(sticky(dev));
}

static CUresult f_cuCtxSynchronize(void)
{
   NEED_CTX("cuCtxSynchronize");
   run_device(dev);
   RETURN(sticky(dev));
}

static struct fake_event *event_of(CUevent e);

/* Streams of the fake run in order when waited on, all of a device's
 * at once: a wait only needs a valid event and stream. */
static CUresult f_cuStreamWaitEvent(CUstream s, CUevent event, unsigned flags)
{
   NEED_CTX("cuStreamWaitEvent");
   NEED_STREAM(s);
   if (!event_of(event) || flags)
      RETURN(CUDA_ERROR_INVALID_VALUE);
   fake_cuda.stream_waits++;
   RETURN(CUDA_SUCCESS);
}

static struct fake_event *event_of(CUevent e)
{
   struct fake_event *ev = (struct fake_event *)e;
   if (ev < events || ev >= events + MAX_EVENTS || !ev->live)
      return NULL;
   return ev;
}

static CUresult f_cuEventCreate(CUevent *event, unsigned flags)
{
   NEED_CTX("cuEventCreate");
   if (flags & ~0xfu)
      RETURN(CUDA_ERROR_INVALID_VALUE);
   if (alloc_fails())
      RETURN(CUDA_ERROR_OUT_OF_MEMORY);
   for (unsigned i = 0; i < MAX_EVENTS; i++)
      if (!events[i].live) {
         memset(&events[i], 0, sizeof(events[i]));
         events[i].live = true;
         events[i].device = dev;
         events[i].flags = flags;
         *event = (CUevent)&events[i];
         RETURN(CUDA_SUCCESS);
      }
   RETURN(CUDA_ERROR_OUT_OF_MEMORY);
}

static CUresult f_cuEventDestroy(CUevent event)
{
   LOCK();
   struct fake_event *e = event_of(event);
   if (!e)
      RETURN(CUDA_ERROR_INVALID_HANDLE);
   e->live = false;
   RETURN(sticky(e->device));
}

static CUresult f_cuEventRecord(CUevent event, CUstream stream)
{
   NEED_CTX("cuEventRecord");
   NEED_STREAM(stream);
   struct fake_event *e = event_of(event);
   if (!e || e->device != dev)
      RETURN(CUDA_ERROR_INVALID_HANDLE);
   fake_cuda.event_records++;
   if (fake_cuda.watch_thread && pthread_equal(pthread_self(), fake_cuda.watched))
      fake_cuda.watched_records++;
   if (e->flags & CU_EVENT_DISABLE_TIMING)
      fake_cuda.untimed_records++;
   e->recorded = true;
   e->done = false;
   e->seq = ++next_seq;
   struct fake_op op = {.type = OP_EVENT, .event = (int)(e - events), .seq = e->seq};
   RETURN(enqueue(st, &op));
}

static CUresult f_cuEventQuery(CUevent event)
{
   LOCK();
   struct fake_event *e = event_of(event);
   if (!e)
      RETURN(CUDA_ERROR_INVALID_HANDLE);
   CUresult r = injected("cuEventQuery");
   if (r)
      RETURN(r);
   if (!fake_cuda.hold)
      run_device(e->device);
   if (sticky(e->device))
      RETURN(sticky(e->device));
   RETURN(!e->recorded || e->done ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY);
}

static CUresult f_cuEventSynchronize(CUevent event)
{
   LOCK();
   struct fake_event *e = event_of(event);
   if (!e)
      RETURN(CUDA_ERROR_INVALID_HANDLE);
   CUresult r = injected("cuEventSynchronize");
   if (r)
      RETURN(r);
   run_device(e->device);
   RETURN(sticky(e->device));
}

static CUresult f_cuEventElapsedTime(float *ms, CUevent start, CUevent end)
{
   LOCK();
   fake_cuda.elapsed_calls++;
   struct fake_event *a = event_of(start), *b = event_of(end);
   if (!a || !b || a->device != b->device || (a->flags | b->flags) & CU_EVENT_DISABLE_TIMING ||
       !a->recorded || !b->recorded)
      RETURN(CUDA_ERROR_INVALID_HANDLE);
   if (sticky(a->device))
      RETURN(sticky(a->device));
   if (!a->done || !b->done)
      RETURN(CUDA_ERROR_NOT_READY);
   *ms = (float)(((double)b->time - (double)a->time) / 1e6);
   RETURN(CUDA_SUCCESS);
}

/* ---- code ---- */

static CUresult f_cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned num_options,
                                     CUjit_option *options, void **values)
{
   NEED_CTX("cuModuleLoadDataEx");
   if (!image || (num_options && (!options || !values)))
      RETURN(CUDA_ERROR_INVALID_VALUE);
   if (alloc_fails())
      RETURN(CUDA_ERROR_OUT_OF_MEMORY);
   if (fake_cuda.module_error) {
      char *log = NULL;
      size_t size = 0;
      for (unsigned i = 0; i < num_options; i++) {
         if (options[i] == CU_JIT_ERROR_LOG_BUFFER)
            log = values[i];
         if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
            size = (size_t)(uintptr_t)values[i];
      }
      if (log && size && fake_cuda.jit_log) {
         strncpy(log, fake_cuda.jit_log, size - 1);
         log[size - 1] = '\0';
      }
      RETURN(fake_cuda.module_error);
   }
   for (unsigned i = 0; i < MAX_MODULES; i++)
      if (!modules[i].live) {
         modules[i].text = strdup(image);
         if (!modules[i].text)
            RETURN(CUDA_ERROR_OUT_OF_MEMORY);
         char *copy = strdup(image);
         if (!copy) {
            free(modules[i].text);
            modules[i].text = NULL;
            RETURN(CUDA_ERROR_OUT_OF_MEMORY);
         }
         free(fake_cuda.last_module);
         fake_cuda.last_module = copy;
         fake_cuda.modules_loaded++;
         modules[i].live = true;
         modules[i].device = dev;
         *module = (CUmodule)&modules[i];
         RETURN(CUDA_SUCCESS);
      }
   RETURN(CUDA_ERROR_OUT_OF_MEMORY);
}

static struct fake_module *module_of(CUmodule m)
{
   struct fake_module *mod = (struct fake_module *)m;
   if (mod < modules || mod >= modules + MAX_MODULES || !mod->live)
      return NULL;
   return mod;
}

static CUresult f_cuModuleUnload(CUmodule module)
{
   LOCK();
   struct fake_module *m = module_of(module);
   if (!m || m->device != current())
      RETURN(CUDA_ERROR_INVALID_HANDLE);
   for (unsigned i = 0; i < MAX_FUNCS; i++)
      if (funcs[i].live && funcs[i].module == (int)(m - modules))
         funcs[i].live = false;
   if (m->global) {
      fake_cuda.devices[m->device].used_mem -= m->global->size;
      free(m->global->host);
      m->global->live = false;
      m->global = NULL;
   }
   free(m->text);
   m->text = NULL;
   m->live = false;
   RETURN(sticky(m->device));
}

/* A global the PTX defines with an initializer, as LLVM writes it:
 * ".global .align A .b8 name[N] = {b0, b1, ...};" (other globals are not
 * needed yet).  Device memory holding those bytes, kept until the module
 * is unloaded; one global per module. */
static CUresult f_cuModuleGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUmodule module,
                                    const char *name)
{
   NEED_CTX("cuModuleGetGlobal");
   struct fake_module *m = module_of(module);
   if (!m || m->device != dev || !name)
      RETURN(CUDA_ERROR_INVALID_HANDLE);
   if (m->global) {
      if (strcmp(m->global_name, name))
         RETURN(CUDA_ERROR_NOT_SUPPORTED);
   } else {
      char head[96];
      snprintf(head, sizeof(head), ".b8 %s[", name);
      const char *p = strstr(m->text, head);
      if (!p || strlen(name) >= sizeof(m->global_name))
         RETURN(CUDA_ERROR_NOT_FOUND);
      char *end;
      unsigned long n = strtoul(p + strlen(head), &end, 10);
      p = strchr(end, '{');
      if (!n || !p)
         RETURN(CUDA_ERROR_NOT_FOUND);
      if (alloc_fails())
         RETURN(CUDA_ERROR_OUT_OF_MEMORY);
      struct fake_mem *g = new_mem();
      unsigned char *host = g ? calloc(1, n) : NULL;
      if (!host)
         RETURN(CUDA_ERROR_OUT_OF_MEMORY);
      for (unsigned long i = 0; i < n; i++) {
         host[i] = (unsigned char)strtoul(p + 1, &end, 10);
         p = end;
      }
      g->live = true;
      g->kind = MEM_DEVICE;
      g->device = dev;
      g->host = host;
      g->addr = next_addr;
      g->size = n;
      next_addr += (n + 4096 + 255) & ~255ull;
      fake_cuda.devices[dev].used_mem += n;
      m->global = g;
      snprintf(m->global_name, sizeof(m->global_name), "%s", name);
   }
   if (dptr)
      *dptr = m->global->addr;
   if (bytes)
      *bytes = m->global->size;
   RETURN(CUDA_SUCCESS);
}

static CUresult f_cuModuleGetFunction(CUfunction *func, CUmodule module, const char *name)
{
   NEED_CTX("cuModuleGetFunction");
   struct fake_module *m = module_of(module);
   if (!m || m->device != dev)
      RETURN(CUDA_ERROR_INVALID_HANDLE);
   char entry[160];
   snprintf(entry, sizeof(entry), ".entry %s(", name);
   if (!strstr(m->text, entry))
      RETURN(CUDA_ERROR_NOT_FOUND);
   const struct fake_cuda_kernel *k = NULL;
   for (unsigned i = 0; i < fake_cuda.num_kernels; i++)
      if (!strcmp(fake_cuda.kernels[i].name, name))
         k = &fake_cuda.kernels[i];
   if (!k)
      RETURN(CUDA_ERROR_NOT_FOUND);
   /* One handle per (module, name), as CUDA gives. */
   for (unsigned i = 0; i < MAX_FUNCS; i++)
      if (funcs[i].live && funcs[i].module == (int)(m - modules) && funcs[i].kernel == k) {
         *func = (CUfunction)&funcs[i];
         RETURN(CUDA_SUCCESS);
      }
   for (unsigned i = 0; i < MAX_FUNCS; i++)
      if (!funcs[i].live) {
         funcs[i].live = true;
         funcs[i].module = (int)(m - modules);
         funcs[i].kernel = k;
         funcs[i].max_dynamic =
            fake_cuda.devices[dev].attr[CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK] -
            k->static_shared;
         *func = (CUfunction)&funcs[i];
         RETURN(CUDA_SUCCESS);
      }
   RETURN(CUDA_ERROR_OUT_OF_MEMORY);
}

static struct fake_func *func_of(CUfunction f)
{
   struct fake_func *fn = (struct fake_func *)f;
   if (fn < funcs || fn >= funcs + MAX_FUNCS || !fn->live)
      return NULL;
   return fn;
}

static CUresult f_cuFuncGetAttribute(int *value, int attrib, CUfunction f)
{
   LOCK();
   struct fake_func *fn = func_of(f);
   if (!fn)
      RETURN(CUDA_ERROR_INVALID_HANDLE);
   const struct fake_cuda_kernel *k = fn->kernel;
   switch (attrib) {
   case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
      *value = k->max_threads ? k->max_threads : 1024;
      break;
   case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
      *value = k->static_shared;
      break;
   case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
      *value = 0;
      break;
   case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
      *value = k->local_bytes;
      break;
   case CU_FUNC_ATTRIBUTE_NUM_REGS:
      *value = 32;
      break;
   case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
      *value = fn->max_dynamic;
      break;
   default:
      RETURN(CUDA_ERROR_INVALID_VALUE);
   }
   RETURN(CUDA_SUCCESS);
}

static CUresult f_cuFuncSetAttribute(CUfunction f, int attrib, int value)
{
   LOCK();
   struct fake_func *fn = func_of(f);
   if (!fn)
      RETURN(CUDA_ERROR_INVALID_HANDLE);
   int dev = modules[fn->module].device;
   if (attrib != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES || value < 0 ||
       value + fn->kernel->static_shared >
          fake_cuda.devices[dev].attr[CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN])
      RETURN(CUDA_ERROR_INVALID_VALUE);
   fn->max_dynamic = value;
   RETURN(CUDA_SUCCESS);
}

static CUresult f_cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                                 unsigned bx, unsigned by, unsigned bz, unsigned shared_bytes,
                                 CUstream s, void **params, void **extra)
{
   NEED_CTX("cuLaunchKernel");
   NEED_STREAM(s);
   struct fake_func *fn = func_of(f);
   if (!fn || modules[fn->module].device != dev)
      RETURN(CUDA_ERROR_INVALID_HANDLE);
   const struct fake_cuda_kernel *k = fn->kernel;
   const int *attr = fake_cuda.devices[dev].attr;
   unsigned max_threads = (unsigned)(k->max_threads ? k->max_threads : 1024);
   if (extra || (k->num_params && !params) || !gx || !gy || !gz || !bx || !by || !bz ||
       gx > (unsigned)attr[CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X] ||
       gy > (unsigned)attr[CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y] ||
       gz > (unsigned)attr[CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z] ||
       bx > (unsigned)attr[CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X] ||
       by > (unsigned)attr[CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y] ||
       bz > (unsigned)attr[CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z] ||
       (uint64_t)bx * by * bz > max_threads || (int)shared_bytes > fn->max_dynamic)
      RETURN(CUDA_ERROR_INVALID_VALUE);
   struct fake_cuda_launch *l = &fake_cuda.launches[fake_cuda.num_launches %
                                                    FAKE_CUDA_MAX_LAUNCHES];
   memset(l, 0, sizeof(*l));
   l->kernel = k;
   l->device = dev;
   l->grid[0] = gx, l->grid[1] = gy, l->grid[2] = gz;
   l->block[0] = bx, l->block[1] = by, l->block[2] = bz;
   l->shared_bytes = shared_bytes;
   l->max_dynamic_shared = fn->max_dynamic;
   l->thread = pthread_self();
   l->num_params = k->num_params;
   unsigned at = 0;
   for (unsigned i = 0; i < k->num_params; i++) {
      if (at + k->param_size[i] > sizeof(l->params))
         RETURN(CUDA_ERROR_INVALID_VALUE);
      l->param_offset[i] = at;
      memcpy(l->params + at, params[i], k->param_size[i]);
      at += k->param_size[i];
   }
   struct fake_op op = {.type = OP_LAUNCH,
                        .launch = fake_cuda.num_launches % FAKE_CUDA_MAX_LAUNCHES};
   fake_cuda.num_launches++;
   RETURN(enqueue(st, &op));
}

/* ---- the table and the test's side ---- */

static struct cuda_api table = {
   .cuInit = f_cuInit,
   .cuDriverGetVersion = f_cuDriverGetVersion,
   .cuGetErrorName = f_cuGetErrorName,
   .cuDeviceGetCount = f_cuDeviceGetCount,
   .cuDeviceGet = f_cuDeviceGet,
   .cuDeviceGetName = f_cuDeviceGetName,
   .cuDeviceTotalMem = f_cuDeviceTotalMem,
   .cuDeviceGetAttribute = f_cuDeviceGetAttribute,
   .cuDevicePrimaryCtxRetain = f_cuDevicePrimaryCtxRetain,
   .cuDevicePrimaryCtxRelease = f_cuDevicePrimaryCtxRelease,
   .cuCtxPushCurrent = f_cuCtxPushCurrent,
   .cuCtxPopCurrent = f_cuCtxPopCurrent,
   .cuCtxGetCurrent = f_cuCtxGetCurrent,
   .cuCtxSetCurrent = f_cuCtxSetCurrent,
   .cuMemAlloc = f_cuMemAlloc,
   .cuMemFree = f_cuMemFree,
   .cuMemHostAlloc = f_cuMemHostAlloc,
   .cuMemFreeHost = f_cuMemFreeHost,
   .cuMemHostRegister = f_cuMemHostRegister,
   .cuMemHostUnregister = f_cuMemHostUnregister,
   .cuMemHostGetDevicePointer = f_cuMemHostGetDevicePointer,
   .cuMemcpyHtoDAsync = f_cuMemcpyHtoDAsync,
   .cuMemcpyDtoHAsync = f_cuMemcpyDtoHAsync,
   .cuMemcpyDtoDAsync = f_cuMemcpyDtoDAsync,
   .cuMemcpy3DAsync = f_cuMemcpy3DAsync,
   .cuMemsetD8Async = f_cuMemsetD8Async,
   .cuMemsetD16Async = f_cuMemsetD16Async,
   .cuMemsetD32Async = f_cuMemsetD32Async,
   .cuStreamCreate = f_cuStreamCreate,
   .cuStreamDestroy = f_cuStreamDestroy,
   .cuStreamSynchronize = f_cuStreamSynchronize,
   .cuCtxSynchronize = f_cuCtxSynchronize,
   .cuEventCreate = f_cuEventCreate,
   .cuEventDestroy = f_cuEventDestroy,
   .cuEventRecord = f_cuEventRecord,
   .cuEventQuery = f_cuEventQuery,
   .cuEventSynchronize = f_cuEventSynchronize,
   .cuEventElapsedTime = f_cuEventElapsedTime,
   .cuModuleLoadDataEx = f_cuModuleLoadDataEx,
   .cuModuleUnload = f_cuModuleUnload,
   .cuModuleGetFunction = f_cuModuleGetFunction,
   .cuModuleGetGlobal = f_cuModuleGetGlobal,
   .cuFuncGetAttribute = f_cuFuncGetAttribute,
   .cuFuncSetAttribute = f_cuFuncSetAttribute,
   .cuLaunchKernel = f_cuLaunchKernel,
   .cuArray3DCreate = f_cuArray3DCreate,
   .cuArrayDestroy = f_cuArrayDestroy,
   .cuTexObjectCreate = f_cuTexObjectCreate,
   .cuTexObjectDestroy = f_cuTexObjectDestroy,
   .cuSurfObjectCreate = f_cuSurfObjectCreate,
   .cuSurfObjectDestroy = f_cuSurfObjectDestroy,
   .cuStreamWaitEvent = f_cuStreamWaitEvent,
   .lib = NULL,
};

const struct cuda_api *fake_cuda_table(void)
{
   /* The winsys reads the table when it probes, after the test's setup. */
   static struct cuda_api without;
   if (!fake_cuda.no_images)
      return &table;
   without = table;
   without.cuArray3DCreate = NULL;
   without.cuArrayDestroy = NULL;
   without.cuTexObjectCreate = NULL;
   without.cuTexObjectDestroy = NULL;
   without.cuSurfObjectCreate = NULL;
   without.cuSurfObjectDestroy = NULL;
   without.cuStreamWaitEvent = NULL;
   return &without;
}

void fake_cuda_reset(void)
{
   LOCK();
   for (unsigned i = 0; i < MAX_MEMS; i++)
      if (mems[i].live && mems[i].kind != MEM_REGISTERED)
         free(mems[i].host);
   for (unsigned i = 0; i < MAX_STREAMS; i++) {
      for (struct fake_op *op = streams[i].head, *next; op; op = next) {
         next = op->next;
         free(op->snapshot);
         free(op);
      }
   }
   for (unsigned i = 0; i < MAX_MODULES; i++)
      free(modules[i].text);
   for (unsigned i = 0; i < MAX_ARRAYS; i++)
      if (arrays[i].live)
         free(arrays[i].bytes);
   memset(arrays, 0, sizeof(arrays));
   memset(texs, 0, sizeof(texs));
   memset(surfs, 0, sizeof(surfs));
   free(fake_cuda.last_module);
   memset(mems, 0, sizeof(mems));
   memset(streams, 0, sizeof(streams));
   memset(events, 0, sizeof(events));
   memset(modules, 0, sizeof(modules));
   memset(funcs, 0, sizeof(funcs));
   memset(injects, 0, sizeof(injects));
   memset(dev_clock, 0, sizeof(dev_clock));
   memset(&fake_cuda, 0, sizeof(fake_cuda));
   /* Far from any host mapping, so that a device address used as a host
    * pointer faults. */
   next_addr = 0x100000000000ull;
   next_seq = 0;
   ctx_depth = 0;
   pthread_mutex_unlock(&lock);
}

void fake_cuda_set_attr(struct fake_cuda_device *d, int attrib, int value)
{
   d->attr[attrib] = value;
   d->has_attr[attrib] = true;
}

struct fake_cuda_device *fake_cuda_add_device(const char *name)
{
   struct fake_cuda_device *d = &fake_cuda.devices[fake_cuda.num_devices++];
   memset(d, 0, sizeof(*d));
   snprintf(d->name, sizeof(d->name), "%s", name);
   d->total_mem = 80ull << 30;
   static const int h100[][2] = {
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1024},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, 1024},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, 1024},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 64},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 2147483647},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, 65535},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, 65535},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 49152},
      {CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY, 65536},
      {CU_DEVICE_ATTRIBUTE_WARP_SIZE, 32},
      {CU_DEVICE_ATTRIBUTE_MAX_PITCH, 2147483647},
      {CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 1980000},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 132},
      {CU_DEVICE_ATTRIBUTE_INTEGRATED, 0},
      {CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, 1},
      {CU_DEVICE_ATTRIBUTE_ECC_ENABLED, 1},
      {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, 52428800},
      {CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 1},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 9},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 232448},
   };
   for (size_t i = 0; i < sizeof(h100) / sizeof(h100[0]); i++)
      fake_cuda_set_attr(d, h100[i][0], h100[i][1]);
   return d;
}

void fake_cuda_reset_h100s(unsigned n)
{
   fake_cuda_reset();
   for (unsigned i = 0; i < n; i++)
      fake_cuda_add_device(FAKE_CUDA_H100);
}

int fake_cuda_check_clean(void)
{
   unsigned live = fake_cuda_live();
   int depth = fake_cuda_ctx_depth();
   if (!live && !depth && !fake_cuda.use_after_free &&
       fake_cuda.arrays_created == fake_cuda.arrays_destroyed &&
       fake_cuda.tex_created == fake_cuda.tex_destroyed &&
       fake_cuda.surf_created == fake_cuda.surf_destroyed)
      return 0;
   fprintf(stderr,
           "fake libcuda not clean: live %u, context depth %d, use after free %u, arrays %u/%u, "
           "textures %u/%u, surfaces %u/%u (created/destroyed)\n",
           live, depth, fake_cuda.use_after_free, fake_cuda.arrays_created,
           fake_cuda.arrays_destroyed, fake_cuda.tex_created, fake_cuda.tex_destroyed,
           fake_cuda.surf_created, fake_cuda.surf_destroyed);
   return -1;
}

unsigned fake_cuda_live(void)
{
   LOCK();
   unsigned n = 0;
   for (unsigned i = 0; i < MAX_MEMS; i++)
      n += mems[i].live;
   for (unsigned i = 0; i < MAX_STREAMS; i++)
      n += streams[i].live;
   for (unsigned i = 0; i < MAX_EVENTS; i++)
      n += events[i].live;
   for (unsigned i = 0; i < MAX_MODULES; i++)
      n += modules[i].live;
   for (unsigned i = 0; i < MAX_ARRAYS; i++)
      n += arrays[i].live;
   for (unsigned i = 0; i < MAX_TEX; i++)
      n += texs[i].live;
   for (unsigned i = 0; i < MAX_SURF; i++)
      n += surfs[i].live;
   for (unsigned i = 0; i < fake_cuda.num_devices; i++)
      n += (unsigned)fake_cuda.devices[i].primary_refs;
   pthread_mutex_unlock(&lock);
   return n;
}

size_t fake_cuda_used(int device)
{
   return fake_cuda.devices[device].used_mem;
}

int fake_cuda_ctx_depth(void)
{
   return ctx_depth;
}

struct fake_cuda_kernel *fake_cuda_define_kernel(const char *name, unsigned num_params,
                                                 const unsigned *param_size,
                                                 fake_cuda_kernel_fn run)
{
   struct fake_cuda_kernel *k = &fake_cuda.kernels[fake_cuda.num_kernels++];
   memset(k, 0, sizeof(*k));
   k->name = name;
   k->num_params = num_params;
   memcpy(k->param_size, param_size, num_params * sizeof(*param_size));
   k->run = run;
   return k;
}

void fake_cuda_param(const struct fake_cuda_launch *l, unsigned i, void *out, size_t size)
{
   memcpy(out, l->params + l->param_offset[i], size);
}
