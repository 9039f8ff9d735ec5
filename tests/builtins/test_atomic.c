/* Atomics (§6.11.11 and the atom_* extensions) hammered from several
 * threads, async work-group copies (§6.11.10) with simulated work-items. */
#include "harness.h"

#include <pthread.h>
#include <stdlib.h>

int t_atomic_add_global(volatile int32_t *, int32_t);
uint32_t t_atomic_inc_local(volatile uint32_t *);
int t_atomic_dec_global(volatile int32_t *);
int t_atomic_sub_local(volatile int32_t *, int32_t);
int t_atomic_min_global(volatile int32_t *, int32_t);
uint32_t t_atomic_max_local(volatile uint32_t *, uint32_t);
uint32_t t_atomic_or_global(volatile uint32_t *, uint32_t);
uint32_t t_atomic_and_global(volatile uint32_t *, uint32_t);
int t_atomic_xor_local(volatile int32_t *, int32_t);
int t_atomic_xchg_global(volatile int32_t *, int32_t);
float t_atomic_xchg_float(volatile float *, float);
int t_atomic_cmpxchg_global(volatile int32_t *, int32_t, int32_t);
uint32_t t_atomic_cmpxchg_local(volatile uint32_t *, uint32_t, uint32_t);
int64_t t_atom_add_long(volatile int64_t *, int64_t);
uint64_t t_atom_max_ulong(volatile uint64_t *, uint64_t);
int t_atom_inc_global(volatile int32_t *);
int64_t t_atom_cmpxchg_long(volatile int64_t *, int64_t, int64_t);

#define THREADS 8
#define ITERS 20000

static struct {
   volatile int32_t add, dec, sub, min, xor_, xchg, cas, inc32;
   volatile uint32_t inc, max, or_, and_, ucas;
   volatile float fx;
   volatile int64_t ladd, lcas;
   volatile uint64_t lmax;
} sh;
static unsigned char *seen;            /* each atomic_inc result exactly once */
static int64_t xchg_sum[THREADS];
static double fx_sum[THREADS];
static int32_t min_seen[THREADS];
static uint32_t max_seen[THREADS];
static uint64_t lmax_seen[THREADS];

static void *worker(void *arg)
{
   int t = (int)(intptr_t)arg;
   uint64_t r = 0x12345 + (uint64_t)t * 0x9e3779b97f4a7c15ull;
   min_seen[t] = INT32_MAX;
   for (int i = 0; i < ITERS; i++) {
      r ^= r << 13; r ^= r >> 7; r ^= r << 17;
      t_atomic_add_global(&sh.add, 3);
      uint32_t old = t_atomic_inc_local(&sh.inc);
      if (old < THREADS * ITERS) __atomic_fetch_add(&seen[old], 1, __ATOMIC_RELAXED);
      t_atomic_dec_global(&sh.dec);
      t_atomic_sub_local(&sh.sub, 2);
      int32_t v = (int32_t)r;
      if (v < min_seen[t]) min_seen[t] = v;
      t_atomic_min_global(&sh.min, v);
      uint32_t u = (uint32_t)(r >> 32);
      if (u > max_seen[t]) max_seen[t] = u;
      t_atomic_max_local(&sh.max, u);
      t_atomic_xor_local(&sh.xor_, 1 << t);   /* an even count per bit: back to 0 */
      xchg_sum[t] += t_atomic_xchg_global(&sh.xchg, t * ITERS + i);
      fx_sum[t] += t_atomic_xchg_float(&sh.fx, (float)(t * ITERS + i));
      int32_t o;
      do o = sh.cas; while (t_atomic_cmpxchg_global(&sh.cas, o, o + 1) != o);
      uint32_t uo;
      do uo = sh.ucas; while (t_atomic_cmpxchg_local(&sh.ucas, uo, uo + 5) != uo);
      t_atom_add_long(&sh.ladd, (int64_t)1 << 33);
      if (r > lmax_seen[t]) lmax_seen[t] = r;
      t_atom_max_ulong(&sh.lmax, r);
      t_atom_inc_global(&sh.inc32);
      int64_t lo;
      do lo = sh.lcas; while (t_atom_cmpxchg_long(&sh.lcas, lo, lo - 1) != lo);
   }
   t_atomic_or_global(&sh.or_, 1u << t);
   t_atomic_and_global(&sh.and_, ~(1u << t));
   return NULL;
}

static void atomics(void)
{
   sh.dec = THREADS * ITERS;
   sh.min = INT32_MAX;
   sh.and_ = 0xffffffffu;
   seen = calloc(THREADS * ITERS, 1);
   pthread_t th[THREADS];
   for (int t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
   for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
   const int n = THREADS * ITERS;
   CHECK(sh.add == 3 * n, "atomic_add: %d", sh.add);
   CHECK(sh.inc == (uint32_t)n, "atomic_inc: %u", sh.inc);
   int dup = 0;
   for (int i = 0; i < n; i++) dup += seen[i] != 1;
   CHECK(dup == 0, "atomic_inc returned %d values other than exactly once", dup);
   CHECK(sh.dec == 0, "atomic_dec: %d", sh.dec);
   CHECK(sh.sub == -2 * n, "atomic_sub: %d", sh.sub);
   int32_t mn = INT32_MAX; uint32_t mx = 0; uint64_t lmx = 0;
   for (int t = 0; t < THREADS; t++) {
      if (min_seen[t] < mn) mn = min_seen[t];
      if (max_seen[t] > mx) mx = max_seen[t];
      if (lmax_seen[t] > lmx) lmx = lmax_seen[t];
   }
   CHECK(sh.min == mn, "atomic_min: %d, want %d", sh.min, mn);
   CHECK(sh.max == mx, "atomic_max: %u, want %u", sh.max, mx);
   CHECK(sh.lmax == lmx, "atom_max(ulong)");
   CHECK(sh.xor_ == 0, "atomic_xor: %x", sh.xor_);
   CHECK(sh.or_ == (1u << THREADS) - 1, "atomic_or: %x", sh.or_);
   CHECK(sh.and_ == ~((1u << THREADS) - 1), "atomic_and: %x", sh.and_);
   /* xchg conserves: initial + everything written = everything read + final. */
   int64_t written = (int64_t)n * (n - 1) / 2, read = sh.xchg;
   double fread = sh.fx;
   for (int t = 0; t < THREADS; t++) { read += xchg_sum[t]; fread += fx_sum[t]; }
   CHECK(read == written, "atomic_xchg: %lld != %lld", (long long)read, (long long)written);
   CHECK(fread == (double)written, "atomic_xchg(float): %.0f != %lld", fread, (long long)written);
   CHECK(sh.cas == n, "atomic_cmpxchg: %d", sh.cas);
   CHECK(sh.ucas == 5u * n, "atomic_cmpxchg(local uint): %u", sh.ucas);
   CHECK(sh.ladd == ((int64_t)n << 33), "atom_add(long)");
   CHECK(sh.inc32 == n, "atom_inc: %d", sh.inc32);
   CHECK(sh.lcas == -(int64_t)n, "atom_cmpxchg(long)");
   free(seen);
}

/* ---- async copies ---- */
typedef float float4v __attribute__((vector_size(16)));
void *t_async_to_local(float4v *, const float4v *, size_t);
void *t_async_strided_to_global(int32_t *, const int32_t *, size_t, size_t);
void *t_async_strided_to_local(uint8_t *, const uint8_t *, size_t, size_t);
void t_wait(void);
void t_prefetch(const float *);

/* Runs each work-item of a (4, 2, 1) group in turn, only those with a
 * flattened id in [first, last). */
static void group(int first, int last, void (*item)(void *), void *arg)
{
   test_local_size[0] = 4; test_local_size[1] = 2; test_local_size[2] = 1;
   for (int y = 0; y < 2; y++)
      for (int x = 0; x < 4; x++) {
         int flat = x + 4 * y;
         if (flat < first || flat >= last) continue;
         test_local_id[0] = (size_t)x; test_local_id[1] = (size_t)y; test_local_id[2] = 0;
         item(arg);
      }
   test_local_id[0] = test_local_id[1] = 0;
   test_local_size[0] = test_local_size[1] = 1;
}

static float4v src4[37], dst4[37];
static void copy4(void *arg) { CHECK(t_async_to_local(dst4, src4, 37) == arg, "event handed back"); }
static int32_t isrc[21], idst[70];
static void copy_strided_out(void *arg) { (void)arg; t_async_strided_to_global(idst, isrc, 21, 3); }
static uint8_t usrc[200], udst[40];
static void copy_strided_in(void *arg) { (void)arg; t_async_strided_to_local(udst, usrc, 40, 5); }

static void async_copies(void)
{
   for (int i = 0; i < 37; i++) src4[i] = (float4v){i, i + 0.25f, -i, 1e6f + i};
   /* One work-item copies its share only: elements 1, 9, 17, ... */
   group(1, 2, copy4, NULL);
   for (int i = 0; i < 37; i++)
      CHECK((i % 8 == 1) ? dst4[i][0] == (float)i : dst4[i][0] == 0.0f, "share of work-item 1 at %d", i);
   group(0, 8, copy4, NULL);
   for (int i = 0; i < 37; i++)
      CHECK(memcmp(&dst4[i], &src4[i], sizeof src4[i]) == 0, "async_work_group_copy element %d", i);
   int before = test_barriers;
   t_wait();
   CHECK(test_barriers == before + 1, "wait_group_events is one barrier");

   for (int i = 0; i < 21; i++) isrc[i] = 1000 + i;
   memset(idst, 0xff, sizeof idst);
   group(0, 8, copy_strided_out, NULL);
   for (int i = 0; i < 70; i++)
      CHECK(idst[i] == (i % 3 == 0 && i / 3 < 21 ? 1000 + i / 3 : -1), "strided to global at %d: %d", i, idst[i]);

   for (int i = 0; i < 200; i++) usrc[i] = (uint8_t)i;
   group(0, 8, copy_strided_in, NULL);
   for (int i = 0; i < 40; i++) CHECK(udst[i] == (uint8_t)(i * 5), "strided to local at %d", i);
   float pf[16] = {0};
   t_prefetch(pf);                                      /* a no-op that must link */
}

int main(void)
{
   atomics();
   async_copies();
   return test_report("builtins-atomic-async");
}
