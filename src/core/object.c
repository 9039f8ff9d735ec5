#include "core/object.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Freed objects stay in Kiln's free lists (see kiln_object_alloc), so
 * neither ASan nor valgrind would see a use of one.  Everything after the
 * free_block header is poisoned while a block is free: a stale handle that
 * Kiln dereferences is then reported like a use after free. */
#if defined(__SANITIZE_ADDRESS__)
#define KILN_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KILN_ASAN 1
#endif
#endif
#if defined(KILN_ASAN)
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#elif defined(KILN_HAVE_VALGRIND)
#include <valgrind/memcheck.h>
#define POISON(p, n) VALGRIND_MAKE_MEM_NOACCESS((p), (n))
#define UNPOISON(p, n) VALGRIND_MAKE_MEM_UNDEFINED((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#include "util/alloc.h"
#include "util/tls.h"

static const cl_icd_dispatch *object_dispatch;

/* Registry of live handles: an open-addressed hash set of pointers.  One
 * mutex is enough: a lookup is a few loads, far below the cost of any
 * command it guards. */
#define TOMBSTONE ((struct kiln_object *)(uintptr_t)1)

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kiln_object **registry;
static size_t registry_cap; /* power of two */
static size_t registry_used; /* live + tombstones */
static size_t registry_live;

/* Size classes of 128 << k bytes. */
#define POOL_CLASSES 7
struct free_block {
   const cl_icd_dispatch *dispatch; /* stays valid while the block is free */
   struct free_block *next;
};
static pthread_mutex_t pool_lock = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP;
static struct free_block *pool[POOL_CLASSES];

/* Each thread keeps up to CACHE_MAX free blocks per class of its own and
 * takes or gives back CACHE_MOVE at a time: a launch's event is allocated
 * on the enqueuing thread and freed on the executor, and with one shared
 * list both took pool_lock for every command, which bounced between them
 * (docs/performance.md, "Launch path").  A thread's blocks go back to the
 * shared lists when it exits (cache_key's destructor). */
#define CACHE_MAX 64
#define CACHE_MOVE 32
struct pool_cache {
   struct free_block *head[POOL_CLASSES];
   unsigned count[POOL_CLASSES];
   bool keyed; /* the thread's cache_key points here */
};
static _Thread_local struct pool_cache cache KILN_TLS_MODEL;
static pthread_key_t cache_key;
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;
static bool cache_key_made;

/* Moves up to n blocks from the list *from to the front of *to; returns
 * how many moved. */
static unsigned move_blocks(struct free_block **from, struct free_block **to, unsigned n)
{
   unsigned moved = 0;
   while (moved < n && *from) {
      struct free_block *f = *from;
      *from = f->next;
      f->next = *to;
      *to = f;
      moved++;
   }
   return moved;
}

static void cache_flush(void *arg)
{
   struct pool_cache *pc = arg;
   pthread_mutex_lock(&pool_lock);
   for (int c = 0; c < POOL_CLASSES; c++) {
      move_blocks(&pc->head[c], &pool[c], pc->count[c]);
      pc->count[c] = 0;
   }
   pthread_mutex_unlock(&pool_lock);
   /* Another thread-exit destructor may still free objects: the next
    * use keys the cache again, and this runs once more. */
   pc->keyed = false;
}

static void cache_key_init(void)
{
   cache_key_made = pthread_key_create(&cache_key, cache_flush) == 0;
}

/* Only a thread whose exit gives its blocks back keeps any. */
static bool cache_usable(void)
{
   if (cache.keyed)
      return true;
   pthread_once(&cache_once, cache_key_init);
   cache.keyed = cache_key_made && pthread_setspecific(cache_key, &cache) == 0;
   return cache.keyed;
}

static struct free_block *pool_take(int c)
{
   if (!cache.head[c] && cache_usable()) {
      pthread_mutex_lock(&pool_lock);
      cache.count[c] += move_blocks(&pool[c], &cache.head[c], CACHE_MOVE);
      pthread_mutex_unlock(&pool_lock);
   }
   struct free_block *f = cache.head[c];
   if (f) {
      cache.head[c] = f->next;
      cache.count[c]--;
   }
   return f;
}

static void pool_give(int c, struct free_block *f)
{
   if (!cache_usable()) {
      pthread_mutex_lock(&pool_lock);
      f->next = pool[c];
      pool[c] = f;
      pthread_mutex_unlock(&pool_lock);
      return;
   }
   f->next = cache.head[c];
   cache.head[c] = f;
   if (++cache.count[c] > CACHE_MAX) {
      pthread_mutex_lock(&pool_lock);
      cache.count[c] -= move_blocks(&cache.head[c], &pool[c], CACHE_MOVE);
      pthread_mutex_unlock(&pool_lock);
   }
}

static int size_class(size_t size)
{
   for (int c = 0; c < POOL_CLASSES; c++)
      if (size + sizeof(size_t) <= (size_t)128 << c)
         return c;
   return -1;
}

/* Blocks carry their class in a word just before the object.  The pool is
 * an allocator of its own, below util/alloc.h: its blocks come from malloc
 * and never go back.  kiln_object_alloc itself is the point where the
 * fault-injection test makes object allocations fail (tests/unit). */
void *kiln_object_alloc(size_t size)
{
   int c = size_class(size);
   size_t *block = NULL;
   if (c >= 0) {
      struct free_block *f = pool_take(c);
      if (f)
         UNPOISON(f + 1, ((size_t)128 << c) - sizeof(size_t) - sizeof(*f));
      block = f ? (size_t *)f - 1 : malloc((size_t)128 << c);
   } else {
      block = malloc(size + sizeof(size_t));
   }
   if (!block)
      return NULL;
   block[0] = (size_t)c;
   memset(block + 1, 0, size);
   return block + 1;
}

void kiln_object_free(void *obj)
{
   if (!obj)
      return;
   size_t *block = (size_t *)obj - 1;
   int c = (int)block[0];
   if (c < 0 || c >= POOL_CLASSES) {
      free(block);
      return;
   }
   struct free_block *f = obj;
   f->dispatch = object_dispatch;
   ((struct kiln_object *)obj)->type = KILN_TYPE_NONE;
   /* Cleared, so that what a destroyed object pointed to is not kept
    * reachable by a stale copy of the pointer (a leak checker would miss
    * a leak of it), then poisoned. */
   size_t rest = ((size_t)128 << c) - sizeof(size_t) - sizeof(*f);
   memset(f + 1, 0, rest);
   POISON(f + 1, rest);
   pool_give(c, f);
}

void kiln_object_set_dispatch(const cl_icd_dispatch *dispatch)
{
   object_dispatch = dispatch;
}

static size_t slot_of(const void *p, size_t cap)
{
   uintptr_t h = (uintptr_t)p;
   h ^= h >> 33;
   h *= 0xff51afd7ed558ccdULL;
   h ^= h >> 33;
   return h & (cap - 1);
}

static bool registry_grow(void)
{
   size_t cap = registry_cap ? registry_cap * 2 : 256;
   /* Only tombstones: rehash at the same size. */
   if (registry_live * 4 < registry_cap)
      cap = registry_cap;
   struct kiln_object **table = kiln_calloc(cap, sizeof(*table));
   if (!table)
      return false;
   for (size_t i = 0; i < registry_cap; i++) {
      struct kiln_object *o = registry[i];
      if (!o || o == TOMBSTONE)
         continue;
      size_t s = slot_of(o, cap);
      while (table[s])
         s = (s + 1) & (cap - 1);
      table[s] = o;
   }
   kiln_free(registry);
   registry = table;
   registry_cap = cap;
   registry_used = registry_live;
   return true;
}

static bool registry_insert(struct kiln_object *obj)
{
   bool ok = true;
   pthread_mutex_lock(&registry_lock);
   if ((registry_used + 1) * 2 > registry_cap)
      ok = registry_grow();
   if (ok) {
      size_t s = slot_of(obj, registry_cap);
      while (registry[s] && registry[s] != TOMBSTONE)
         s = (s + 1) & (registry_cap - 1);
      if (!registry[s])
         registry_used++;
      registry[s] = obj;
      registry_live++;
   }
   pthread_mutex_unlock(&registry_lock);
   return ok;
}

/* Caller holds registry_lock. */
static size_t registry_find(const void *p)
{
   if (!registry_cap)
      return SIZE_MAX;
   size_t s = slot_of(p, registry_cap);
   while (registry[s]) {
      /* A handle equal to the tombstone's value must not match one. */
      if (registry[s] == p && registry[s] != TOMBSTONE)
         return s;
      s = (s + 1) & (registry_cap - 1);
   }
   return SIZE_MAX;
}

/* Handles that left the registry so far (written under registry_lock). */
static atomic_uint_fast64_t registry_removals;

/* Each thread's last hits, one per slot of (type & 3): a handle found
 * live while no handle has left the registry since is live still, so
 * the calls of a loop (a queue and a kernel per launch) skip the lock
 * and the hash (docs/performance.md, "Launch path").  Initial-exec TLS
 * (util/tls.h): 96 bytes. */
struct lookup_hit {
   const void *handle;
   uint64_t removals;
   enum kiln_type type;
};
static _Thread_local struct lookup_hit lookup_hits[4] KILN_TLS_MODEL;

static void registry_remove(struct kiln_object *obj)
{
   pthread_mutex_lock(&registry_lock);
   size_t s = registry_find(obj);
   if (s != SIZE_MAX) {
      registry[s] = TOMBSTONE;
      registry_live--;
      atomic_fetch_add_explicit(&registry_removals, 1, memory_order_release);
   }
   pthread_mutex_unlock(&registry_lock);
}

void kiln_object_init_unlisted(struct kiln_object *obj, enum kiln_type type,
                               void (*destroy)(struct kiln_object *obj))
{
   obj->dispatch = object_dispatch;
   obj->type = type;
   atomic_init(&obj->refcount, 1);
   atomic_init(&obj->internal, 1);
   obj->listed = false;
   obj->destroy = destroy;
}

bool kiln_object_init(struct kiln_object *obj, enum kiln_type type,
                      void (*destroy)(struct kiln_object *obj))
{
   kiln_object_init_unlisted(obj, type, destroy);
   obj->listed = registry_insert(obj);
   return obj->listed;
}

static atomic_uint_fast64_t mems_gone;

uint64_t kiln_object_mems_gone(void)
{
   return atomic_load_explicit(&mems_gone, memory_order_acquire);
}

struct kiln_object *kiln_object_lookup(const void *handle, enum kiln_type type)
{
   if (!handle)
      return NULL;
   struct lookup_hit *hit = &lookup_hits[(unsigned)type & 3];
   if (hit->handle == handle && hit->type == type &&
       hit->removals == atomic_load_explicit(&registry_removals, memory_order_acquire))
      return (struct kiln_object *)handle;
   struct kiln_object *found = NULL;
   pthread_mutex_lock(&registry_lock);
   size_t s = registry_find(handle);
   if (s != SIZE_MAX && registry[s]->type == type) {
      found = registry[s];
      *hit = (struct lookup_hit){handle,
                                 atomic_load_explicit(&registry_removals, memory_order_relaxed),
                                 type};
   }
   pthread_mutex_unlock(&registry_lock);
   return found;
}

void kiln_object_retain(struct kiln_object *obj)
{
   atomic_fetch_add(&obj->refcount, 1);
}

void kiln_object_release(struct kiln_object *obj)
{
   if (atomic_fetch_sub(&obj->refcount, 1) == 1) {
      if (obj->listed)
         registry_remove(obj);
      if (obj->type == KILN_TYPE_MEM)
         atomic_fetch_add_explicit(&mems_gone, 1, memory_order_release);
      kiln_object_unref(obj);
   }
}

void kiln_object_ref(struct kiln_object *obj)
{
   atomic_fetch_add(&obj->internal, 1);
}

void kiln_object_unref(struct kiln_object *obj)
{
   if (atomic_fetch_sub(&obj->internal, 1) == 1 && obj->destroy)
      obj->destroy(obj);
}

unsigned kiln_object_count_live(enum kiln_type type)
{
   unsigned n = 0;
   pthread_mutex_lock(&registry_lock);
   for (size_t i = 0; i < registry_cap; i++)
      if (registry[i] && registry[i] != TOMBSTONE && registry[i]->type == type)
         n++;
   pthread_mutex_unlock(&registry_lock);
   return n;
}

void kiln_object_foreach_live(void (*fn)(struct kiln_object *obj, void *data), void *data)
{
   pthread_mutex_lock(&registry_lock);
   for (size_t i = 0; i < registry_cap; i++)
      if (registry[i] && registry[i] != TOMBSTONE)
         fn(registry[i], data);
   pthread_mutex_unlock(&registry_lock);
}
