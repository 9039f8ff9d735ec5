#include "kiln_fault.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The real functions (src/util/alloc.c, src/core/object.c). */
void *__real_kiln_malloc(size_t size);
void *__real_kiln_calloc(size_t count, size_t size);
void *__real_kiln_realloc(void *ptr, size_t size);
char *__real_kiln_strdup(const char *s);
char *__real_kiln_strndup(const char *s, size_t n);
void *__real_kiln_aligned_alloc(size_t alignment, size_t size);
void __real_kiln_free(void *ptr);
void *__real_kiln_object_alloc(size_t size);
void __real_kiln_object_free(void *obj);

void *__wrap_kiln_malloc(size_t size);
void *__wrap_kiln_calloc(size_t count, size_t size);
void *__wrap_kiln_realloc(void *ptr, size_t size);
char *__wrap_kiln_strdup(const char *s);
char *__wrap_kiln_strndup(const char *s, size_t n);
void *__wrap_kiln_aligned_alloc(size_t alignment, size_t size);
void __wrap_kiln_free(void *ptr);
void *__wrap_kiln_object_alloc(size_t size);
void __wrap_kiln_object_free(void *obj);

static atomic_long fail_at = -1; /* -1: armed off */
static atomic_long seen;         /* allocations since kt_fault_arm */
static atomic_bool persistent, fired;
static atomic_long live_blocks, live_objects;

/* Who holds each live block: a leak report names the allocation site.
 * Open addressing on the pointer, under one lock (tests only). */
struct site {
   void *ptr;
   void *caller;
   unsigned long seq;
};
static pthread_mutex_t sites_lock = PTHREAD_MUTEX_INITIALIZER;
static struct site *sites;
static size_t sites_cap, sites_used;
static unsigned long sites_seq;
static void *bad_free_caller; /* last free of a block Kiln did not allocate */
#define GONE ((void *)(uintptr_t)1)

static size_t site_slot(const void *p, size_t cap)
{
   uintptr_t h = (uintptr_t)p;
   h ^= h >> 31;
   h *= 0x9e3779b97f4a7c15ull;
   return (h >> 7) & (cap - 1);
}

static void site_grow(void)
{
   size_t cap = sites_cap ? sites_cap * 2 : 4096;
   struct site *t = calloc(cap, sizeof(*t));
   if (!t)
      abort();
   for (size_t i = 0; i < sites_cap; i++)
      if (sites[i].ptr && sites[i].ptr != GONE) {
         size_t s = site_slot(sites[i].ptr, cap);
         while (t[s].ptr)
            s = (s + 1) & (cap - 1);
         t[s] = sites[i];
      }
   free(sites);
   sites = t;
   sites_cap = cap;
   sites_used = 0;
   for (size_t i = 0; i < cap; i++)
      sites_used += t[i].ptr != NULL;
}

static void site_add(void *p, void *caller)
{
   pthread_mutex_lock(&sites_lock);
   if ((sites_used + 1) * 2 > sites_cap)
      site_grow();
   size_t s = site_slot(p, sites_cap);
   while (sites[s].ptr && sites[s].ptr != GONE)
      s = (s + 1) & (sites_cap - 1);
   if (!sites[s].ptr)
      sites_used++;
   sites[s] = (struct site){p, caller, ++sites_seq};
   pthread_mutex_unlock(&sites_lock);
}

static void site_remove(void *p, void *caller)
{
   pthread_mutex_lock(&sites_lock);
   size_t s = sites_cap ? site_slot(p, sites_cap) : 0;
   while (sites_cap && sites[s].ptr && sites[s].ptr != p)
      s = (s + 1) & (sites_cap - 1);
   if (sites_cap && sites[s].ptr == p)
      sites[s].ptr = GONE;
   else
      bad_free_caller = caller;
   pthread_mutex_unlock(&sites_lock);
}

unsigned long kt_alloc_mark(void)
{
   pthread_mutex_lock(&sites_lock);
   unsigned long seq = sites_seq;
   bad_free_caller = NULL;
   pthread_mutex_unlock(&sites_lock);
   return seq;
}

/* Code addresses as offsets into their object, for addr2line -e. */
static void print_caller(const char *what, void *caller)
{
   Dl_info info;
   if (dladdr(caller, &info) && info.dli_fname)
      fprintf(stderr, "   %s at %s+0x%lx\n", what, info.dli_fname,
              (unsigned long)((uintptr_t)caller - (uintptr_t)info.dli_fbase));
   else
      fprintf(stderr, "   %s at %p\n", what, caller);
}

void kt_alloc_report(unsigned long mark)
{
   pthread_mutex_lock(&sites_lock);
   int shown = 0;
   for (size_t i = 0; i < sites_cap && shown < 20; i++)
      if (sites[i].ptr && sites[i].ptr != GONE && sites[i].seq > mark) {
         print_caller("block still allocated, made", sites[i].caller);
         shown++;
      }
   if (bad_free_caller)
      print_caller("kiln_free of a block not from util/alloc.h", bad_free_caller);
   pthread_mutex_unlock(&sites_lock);
}

void kt_fault_arm(long n, bool persist)
{
   atomic_store(&fail_at, -1);
   atomic_store(&seen, 0);
   atomic_store(&fired, false);
   atomic_store(&persistent, persist);
   atomic_store(&fail_at, n);
}

bool kt_fault_disarm(void)
{
   atomic_store(&fail_at, -1);
   return atomic_load(&fired);
}

struct kt_alloc_count kt_alloc_live(void)
{
   return (struct kt_alloc_count){atomic_load(&live_blocks), atomic_load(&live_objects)};
}

/* Whether this allocation is the one (or one of those) to fail. */
static bool fail_now(void)
{
   long at = atomic_load(&fail_at);
   if (at < 0)
      return false;
   long k = atomic_fetch_add(&seen, 1);
   if (k == at || (k > at && atomic_load(&persistent))) {
      atomic_store(&fired, true);
      return true;
   }
   return false;
}

#define counted(p) counted_by((p), __builtin_return_address(0))
static void *counted_by(void *p, void *caller)
{
   if (p) {
      atomic_fetch_add(&live_blocks, 1);
      site_add(p, caller);
   }
   return p;
}

void *__wrap_kiln_malloc(size_t size)
{
   return fail_now() ? NULL : counted(__real_kiln_malloc(size));
}

void *__wrap_kiln_calloc(size_t count, size_t size)
{
   return fail_now() ? NULL : counted(__real_kiln_calloc(count, size));
}

void *__wrap_kiln_realloc(void *ptr, size_t size)
{
   if (fail_now())
      return NULL;
   void *p = __real_kiln_realloc(ptr, size);
   if (p && ptr) {
      site_remove(ptr, __builtin_return_address(0));
      site_add(p, __builtin_return_address(0));
      return p;
   }
   return ptr ? p : counted(p);
}

char *__wrap_kiln_strdup(const char *s)
{
   return fail_now() ? NULL : counted(__real_kiln_strdup(s));
}

char *__wrap_kiln_strndup(const char *s, size_t n)
{
   return fail_now() ? NULL : counted(__real_kiln_strndup(s, n));
}

void *__wrap_kiln_aligned_alloc(size_t alignment, size_t size)
{
   return fail_now() ? NULL : counted(__real_kiln_aligned_alloc(alignment, size));
}

void __wrap_kiln_free(void *ptr)
{
   if (ptr) {
      atomic_fetch_sub(&live_blocks, 1);
      site_remove(ptr, __builtin_return_address(0));
   }
   __real_kiln_free(ptr);
}

void *__wrap_kiln_object_alloc(size_t size)
{
   if (fail_now())
      return NULL;
   void *p = __real_kiln_object_alloc(size);
   if (p)
      atomic_fetch_add(&live_objects, 1);
   return p;
}

void __wrap_kiln_object_free(void *obj)
{
   if (obj)
      atomic_fetch_sub(&live_objects, 1);
   __real_kiln_object_free(obj);
}
