#include "winsys/sw/sw_buffer_cache.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/alloc.h"
#include "util/log.h"
#include "util/spin.h"
#include "winsys/sw/sw_winsys.h"

/* Blocks kept at most, and for how long: a block nobody took within a
 * second goes back to the C library at the cache's next use. */
#define MAX_ENTRIES 64
#define MAX_AGE_NS 1000000000ull
/* KILN_BUFFER_CACHE_MB's default: this much, or a sixteenth of the
 * machine's memory where that is less. */
#define DEFAULT_LIMIT_MB 1024u

struct entry {
   void *ptr;
   size_t capacity, alignment;
   uint64_t since; /* kiln_monotonic_ns when it was put */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry entries[MAX_ENTRIES];
static unsigned num_entries;
static size_t kept_bytes;

static pthread_once_t limit_once = PTHREAD_ONCE_INIT;
static size_t limit_bytes;

static void limit_init(void)
{
   uint64_t mb = sw_winsys_total_memory() / 16 >> 20;
   if (mb > DEFAULT_LIMIT_MB)
      mb = DEFAULT_LIMIT_MB;
   const char *env = getenv("KILN_BUFFER_CACHE_MB");
   if (env && *env) {
      char *end;
      unsigned long long v = strtoull(env, &end, 10);
      if (*end || v > SIZE_MAX >> 20)
         kiln_log(KILN_LOG_WARN,
                  "KILN_BUFFER_CACHE_MB=%s: not a number of MiB; using %llu", env,
                  (unsigned long long)mb);
      else
         mb = v;
   }
   limit_bytes = (size_t)mb << 20;
}

/* Removes entry i (lock held); returns its block. */
static void *remove_entry(unsigned i)
{
   void *ptr = entries[i].ptr;
   kept_bytes -= entries[i].capacity;
   entries[i] = entries[--num_entries];
   return ptr;
}

/* Takes out the blocks kept longer than MAX_AGE_NS (lock held) into
 * out[], to be freed once the lock is released; returns how many. */
static unsigned take_expired(uint64_t now, void **out)
{
   unsigned n = 0;
   for (unsigned i = 0; i < num_entries;) {
      if (now - entries[i].since > MAX_AGE_NS)
         out[n++] = remove_entry(i);
      else
         i++;
   }
   return n;
}

static void free_all(void **blocks, unsigned n)
{
   for (unsigned i = 0; i < n; i++)
      kiln_free(blocks[i]);
}

void *sw_buffer_cache_take(size_t size, size_t alignment, size_t *capacity)
{
   if (size < SW_BUFFER_CACHE_MIN)
      return NULL;
   void *expired[MAX_ENTRIES];
   uint64_t now = kiln_monotonic_ns();
   pthread_mutex_lock(&lock);
   unsigned n_expired = take_expired(now, expired);
   /* The smallest block that fits, and wastes no more than a quarter. */
   unsigned best = num_entries;
   for (unsigned i = 0; i < num_entries; i++) {
      const struct entry *e = &entries[i];
      if (e->alignment != alignment || e->capacity < size || e->capacity - size > size / 4)
         continue;
      if (best == num_entries || e->capacity < entries[best].capacity)
         best = i;
   }
   void *ptr = NULL;
   if (best < num_entries) {
      *capacity = entries[best].capacity;
      ptr = remove_entry(best);
   }
   pthread_mutex_unlock(&lock);
   free_all(expired, n_expired);
   return ptr;
}

bool sw_buffer_cache_put(void *ptr, size_t capacity, size_t alignment)
{
   pthread_once(&limit_once, limit_init);
   if (capacity < SW_BUFFER_CACHE_MIN || capacity > limit_bytes)
      return false;
   void *evicted[MAX_ENTRIES];
   uint64_t now = kiln_monotonic_ns();
   pthread_mutex_lock(&lock);
   unsigned n = take_expired(now, evicted);
   /* Room by count and by bytes: the oldest go first. */
   while (num_entries && (num_entries == MAX_ENTRIES || kept_bytes + capacity > limit_bytes)) {
      unsigned oldest = 0;
      for (unsigned i = 1; i < num_entries; i++)
         if (entries[i].since < entries[oldest].since)
            oldest = i;
      evicted[n++] = remove_entry(oldest);
   }
   entries[num_entries++] = (struct entry){ptr, capacity, alignment, now};
   kept_bytes += capacity;
   pthread_mutex_unlock(&lock);
   free_all(evicted, n);
   return true;
}

void sw_buffer_cache_drop_all(void)
{
   void *all[MAX_ENTRIES];
   pthread_mutex_lock(&lock);
   unsigned n = 0;
   while (num_entries)
      all[n++] = remove_entry(num_entries - 1);
   pthread_mutex_unlock(&lock);
   free_all(all, n);
}
