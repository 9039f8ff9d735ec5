/* core/object.c: the registry of live handles and the two reference
 * counts, tested on objects of the test's own making. */
#include "kiln_test.h"

#include <pthread.h>
#include <stdlib.h>

#include "core/object.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define TEST_ASAN 1
#elif defined(KILN_HAVE_VALGRIND)
#include <valgrind/memcheck.h>
#endif

/* Types nothing else creates in this process, so live counts are exact. */
#define T KILN_TYPE_SAMPLER
#define OTHER KILN_TYPE_KERNEL

struct thing {
   struct kiln_object obj;
   int *destroyed; /* incremented by destroy */
};

static void thing_destroy(struct kiln_object *obj)
{
   struct thing *t = (struct thing *)obj;
   (*t->destroyed)++;
   free(t);
}

static struct thing *thing_new(enum kiln_type type, int *destroyed)
{
   struct thing *t = calloc(1, sizeof(*t));
   assert_non_null(t);
   t->destroyed = destroyed;
   assert_true(kiln_object_init(&t->obj, type, thing_destroy));
   return t;
}

static void init_sets_header(void **state)
{
   (void)state;
   int destroyed = 0;
   struct thing *t = thing_new(T, &destroyed);
   assert_int_equal(t->obj.type, T);
   assert_int_equal(kiln_object_refcount(&t->obj), 1);
   assert_int_equal(atomic_load(&t->obj.internal), 1);
   assert_ptr_equal(kiln_object_lookup(t, T), &t->obj);
   assert_int_equal(kiln_object_count_live(T), 1);
   kiln_object_release(&t->obj);
   assert_int_equal(destroyed, 1);
   assert_int_equal(kiln_object_count_live(T), 0);
}

static void lookup_rejects_non_handles(void **state)
{
   (void)state;
   int destroyed = 0;
   int junk[8] = {0};
   struct thing *t = thing_new(T, &destroyed);
   assert_null(kiln_object_lookup(NULL, T));
   assert_null(kiln_object_lookup(junk, T));
   /* An interior pointer or one past the object is not the handle. */
   assert_null(kiln_object_lookup((char *)t + 1, T));
   assert_null(kiln_object_lookup(t + 1, T));
   /* Right pointer, wrong type. */
   assert_null(kiln_object_lookup(t, OTHER));
   assert_null(kiln_object_lookup(t, KILN_TYPE_NONE));
   /* Something that looks like a header of the right type but was never
    * registered. */
   struct kiln_object fake = {.type = T};
   atomic_init(&fake.refcount, 1);
   assert_null(kiln_object_lookup(&fake, T));
   kiln_object_release(&t->obj);
}

static void retain_release_counts(void **state)
{
   (void)state;
   int destroyed = 0;
   struct thing *t = thing_new(T, &destroyed);
   kiln_object_retain(&t->obj);
   kiln_object_retain(&t->obj);
   assert_int_equal(kiln_object_refcount(&t->obj), 3);
   kiln_object_release(&t->obj);
   kiln_object_release(&t->obj);
   assert_int_equal(kiln_object_refcount(&t->obj), 1);
   assert_int_equal(destroyed, 0);
   assert_non_null(kiln_object_lookup(t, T));
   kiln_object_release(&t->obj);
   assert_int_equal(destroyed, 1);
   /* The address is unregistered even though malloc may reuse it. */
   assert_null(kiln_object_lookup(t, T));
}

static void internal_refs_outlive_handle(void **state)
{
   (void)state;
   int destroyed = 0;
   struct thing *t = thing_new(T, &destroyed);
   kiln_object_ref(&t->obj); /* e.g. a pending command */
   kiln_object_ref(&t->obj);
   kiln_object_release(&t->obj);
   /* The application is done: the handle is dead, the memory is not. */
   assert_null(kiln_object_lookup(t, T));
   assert_int_equal(kiln_object_count_live(T), 0);
   assert_int_equal(destroyed, 0);
   kiln_object_unref(&t->obj);
   assert_int_equal(destroyed, 0);
   kiln_object_unref(&t->obj);
   assert_int_equal(destroyed, 1);
}

static void internal_refs_do_not_count_as_app_refs(void **state)
{
   (void)state;
   int destroyed = 0;
   struct thing *t = thing_new(T, &destroyed);
   kiln_object_ref(&t->obj);
   assert_int_equal(kiln_object_refcount(&t->obj), 1);
   kiln_object_unref(&t->obj);
   /* Dropping the internal one must not end the application's. */
   assert_int_equal(destroyed, 0);
   assert_non_null(kiln_object_lookup(t, T));
   kiln_object_release(&t->obj);
   assert_int_equal(destroyed, 1);
}

static void registry_grows_and_reuses_slots(void **state)
{
   (void)state;
   /* Well past the first table size, then freed in an interleaved order
    * so lookups must probe past tombstones. */
   enum { N = 5000 };
   int destroyed = 0;
   struct thing **ts = calloc(N, sizeof(*ts));
   assert_non_null(ts);
   for (int i = 0; i < N; i++)
      ts[i] = thing_new(i % 3 ? T : OTHER, &destroyed);
   assert_int_equal(kiln_object_count_live(T) + kiln_object_count_live(OTHER), N);
   for (int i = 0; i < N; i++)
      assert_ptr_equal(kiln_object_lookup(ts[i], i % 3 ? T : OTHER), &ts[i]->obj);

   for (int i = 0; i < N; i += 2)
      kiln_object_release(&ts[i]->obj);
   for (int i = 1; i < N; i += 2) {
      assert_ptr_equal(kiln_object_lookup(ts[i], i % 3 ? T : OTHER), &ts[i]->obj);
      assert_null(kiln_object_lookup(ts[i], i % 3 ? OTHER : T));
   }
   for (int i = 1; i < N; i += 2)
      kiln_object_release(&ts[i]->obj);
   assert_int_equal(destroyed, N);
   assert_int_equal(kiln_object_count_live(T), 0);
   assert_int_equal(kiln_object_count_live(OTHER), 0);

   /* Churn: many create/release cycles with few live objects must keep
    * working (tombstones get reclaimed rather than filling the table). */
   struct thing *keep = thing_new(T, &destroyed);
   for (int i = 0; i < 100000; i++) {
      struct thing *t = thing_new(OTHER, &destroyed);
      assert_non_null(kiln_object_lookup(t, OTHER));
      kiln_object_release(&t->obj);
   }
   assert_ptr_equal(kiln_object_lookup(keep, T), &keep->obj);
   kiln_object_release(&keep->obj);
   assert_int_equal(destroyed, N + 100001);
   free(ts);
}

static void null_destroy_is_allowed(void **state)
{
   (void)state;
   /* Platform and devices live for the process and pass no destroy. */
   struct kiln_object o;
   assert_true(kiln_object_init(&o, T, NULL));
   assert_ptr_equal(kiln_object_lookup(&o, T), &o);
   kiln_object_release(&o);
   assert_null(kiln_object_lookup(&o, T));
}

/* A freed block keeps its dispatch pointer (a loader reads it from a stale
 * handle) and nothing else: the rest is cleared, so it keeps nothing
 * reachable, and poisoned under ASan and valgrind, so that reading it is
 * reported.  The next allocation of its size gets it back, zeroed. */
static void freed_blocks_are_cleared_and_poisoned(void **state)
{
   (void)state;
   const size_t size = 100; /* a 128-byte class: 112 bytes past the header */
   unsigned char *p = kiln_object_alloc(size);
   assert_non_null(p);
   memset(p, 0xAB, size);
   kiln_object_free(p);
#if defined(TEST_ASAN)
   assert_false(__asan_address_is_poisoned(p));
   assert_true(__asan_address_is_poisoned(p + 16));
   assert_true(__asan_address_is_poisoned(p + size - 1));
#else
#if defined(KILN_HAVE_VALGRIND)
   if (RUNNING_ON_VALGRIND) {
      /* 3: not addressable (a check request would report an error). */
      unsigned char vbits;
      assert_int_equal(VALGRIND_GET_VBITS(p + 16, &vbits, 1), 3);
      assert_int_equal(VALGRIND_GET_VBITS(p, &vbits, 1), 1);
   } else
#endif
   {
      for (size_t i = 16; i < size; i++)
         assert_int_equal(p[i], 0);
   }
#endif
   unsigned char *q = kiln_object_alloc(size);
   assert_ptr_equal(q, p);
   for (size_t i = 0; i < size; i++)
      assert_int_equal(q[i], 0);
   kiln_object_free(q);
}

/* Blocks freed on a thread stay with it (object.c, pool_cache) until
 * it exits, when they go back to the shared lists: another thread then
 * gets them, not new memory.  A size class of its own (8 KiB), which
 * nothing else in this test uses. */
#define CACHED_SIZE 5000
#define CACHED_BLOCKS 40 /* past CACHE_MOVE: some go back before the exit */

static void *alloc_and_free_blocks(void *arg)
{
   void **blocks = arg;
   for (int i = 0; i < CACHED_BLOCKS; i++)
      assert_non_null(blocks[i] = kiln_object_alloc(CACHED_SIZE));
   for (int i = 0; i < CACHED_BLOCKS; i++)
      kiln_object_free(blocks[i]);
   return NULL;
}

static void exiting_thread_gives_blocks_back(void **state)
{
   (void)state;
   void *freed[CACHED_BLOCKS];
   pthread_t t;
   assert_int_equal(pthread_create(&t, NULL, alloc_and_free_blocks, freed), 0);
   assert_int_equal(pthread_join(t, NULL), 0);
   void *got[CACHED_BLOCKS];
   for (int i = 0; i < CACHED_BLOCKS; i++) {
      assert_non_null(got[i] = kiln_object_alloc(CACHED_SIZE));
      bool reused = false;
      for (int j = 0; j < CACHED_BLOCKS; j++)
         reused |= got[i] == freed[j];
      assert_true(reused);
   }
   for (int i = 0; i < CACHED_BLOCKS; i++)
      kiln_object_free(got[i]);
}

/* A block freed by a thread-exit destructor that runs after the pool's
 * own (glibc runs them in the order the keys were made, and the pool's
 * key exists by now) still goes back to the shared lists. */
static pthread_key_t late_key;

static void free_late(void *block)
{
   kiln_object_free(block);
}

static void *alloc_for_late_free(void *arg)
{
   void **block = arg;
   assert_non_null(*block = kiln_object_alloc(CACHED_SIZE));
   assert_int_equal(pthread_setspecific(late_key, *block), 0);
   return NULL;
}

static void block_freed_after_thread_cache_is_given_back(void **state)
{
   (void)state;
   assert_int_equal(pthread_key_create(&late_key, free_late), 0);
   void *freed = NULL;
   pthread_t t;
   assert_int_equal(pthread_create(&t, NULL, alloc_for_late_free, &freed), 0);
   assert_int_equal(pthread_join(t, NULL), 0);
   void *got[CACHED_BLOCKS + 1];
   bool reused = false;
   for (int i = 0; i <= CACHED_BLOCKS; i++) {
      assert_non_null(got[i] = kiln_object_alloc(CACHED_SIZE));
      reused |= got[i] == freed;
   }
   assert_true(reused);
   for (int i = 0; i <= CACHED_BLOCKS; i++)
      kiln_object_free(got[i]);
   pthread_key_delete(late_key);
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(init_sets_header),
      cmocka_unit_test(lookup_rejects_non_handles),
      cmocka_unit_test(retain_release_counts),
      cmocka_unit_test(internal_refs_outlive_handle),
      cmocka_unit_test(internal_refs_do_not_count_as_app_refs),
      cmocka_unit_test(registry_grows_and_reuses_slots),
      cmocka_unit_test(null_destroy_is_allowed),
      cmocka_unit_test(freed_blocks_are_cleared_and_poisoned),
      cmocka_unit_test(exiting_thread_gives_blocks_back),
      cmocka_unit_test(block_freed_after_thread_cache_is_given_back),
   };
   return cmocka_run_group_tests_name("object", tests, NULL, NULL);
}
