/* read_pattern: how fast T threads read a large float array in the order
 * Kiln's jammed row loops read it (issue 19: "reduce chunked" runs at
 * 0.55-0.72 of the triad on the 16-core Xeon).  No OpenCL: plain C and
 * AVX2, to tell the memory access pattern apart from the rest of the
 * kernel.
 *
 * The array is cut into rows of C floats, one per work-item (reduce_chunked
 * in kernels.cl: 64 Mi floats over 4096 * 256 work-items is 64 floats a
 * row).  A jammed block of 8 work-items reads its 8 rows round-robin, 8
 * floats (32 bytes) from each row in turn (docs/kernels.md, "Jammed rows
 * are read 8 elements at a time"), blocks in order.  Patterns:
 *   a  contiguous: each thread sums its range in order (the read bound)
 *   b  jammed, 8 rows per block
 *   c  jammed, 16 rows per block
 *   d  b with a prefetch D bytes ahead in each row, once per 32-byte read
 *      (what KILN_JAM_PREFETCH=D makes Kiln emit; -d, default 256, 1024,
 *      2048, 4096).  A block's rows are adjacent: D below 8 rows (2 KiB
 *      for 64-float rows) lands in a row of the same block, which the
 *      same round reads anyway; D = 8 rows is the next block's row.
 *   e  b with a prefetch of the next block's rows, one per 64-byte line
 *   f  b with the arithmetic of Kiln's code: the 8 rows' vectors
 *      transposed in registers, then strict-order float adds per row (one
 *      row per lane), as in src/llvm/cpu/wg_jam_wide.c
 *   g  a with each thread's range read as two halves side by side: two
 *      streams per thread, as a triad reads (b and c).  On the 2-core Zen 5
 *      VM one stream read 0.76-0.81 of kiln_bench's triad and two streams
 *      0.93-0.97 (docs/performance.md): a kernel that reads one array in
 *      order, as the chunked reduction does, meets a's figure, not g's.
 *   h  e with the same lines prefetched in address order: each round
 *      pair the next run of 8 lines of the next block, not one line of
 *      each of its rows
 *   i  e with a block's first 4 rows from the first half of the thread's
 *      range and its other 4 from the second half: two places read in the
 *      same rounds, as g reads
 *   j  i with blocks of 16 rows, 8 from each half
 * a to e and g to j sum the floats' bits as integers (no order to keep, so the
 * adds never limit them), and each must give a's sum; f's float sum is checked
 * against the exact total.  Each thread first touches the range it reads
 * (its NUMA node), split in whole 16-row blocks.  One warm-up run, then
 * R timed runs: best and median GB/s, and the median as a fraction of a's.
 *
 * usage: read_pattern [-t threads] [-n Mi floats] [-c row floats] [-r runs]
 *                     [-d D,D,...]
 */
#include <immintrin.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MAX_D 8
#define UNIT_ROWS 16 /* the split between threads: whole blocks of b and c */

enum kind { CONTIG, CONTIG2, JAM, JAM_NEXT, JAM_NEXT_SEQ, JAM_SPLIT, JAM_FLOAT };

struct pattern {
   char name[48];
   enum kind kind;
   unsigned rows;  /* rows per block */
   unsigned ahead; /* bytes ahead in each row, 0 for none */
};

struct shared {
   float *a;
   size_t n, row;
   unsigned threads;
   const struct pattern *p;
   pthread_barrier_t start, done;
   bool quit;
};

struct worker {
   struct shared *s;
   unsigned index;
   pthread_t thread;
   uint32_t isum; /* a to e */
   double fsum;   /* f */
};

static double now_s(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint32_t hsum(__m256i v)
{
   uint32_t l[8];
   _mm256_storeu_si256((__m256i *)l, v);
   uint32_t s = 0;
   for (int k = 0; k < 8; k++)
      s += l[k];
   return s;
}

static uint32_t read_contig(const float *a, size_t b, size_t e)
{
   __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
   for (size_t i = b; i < e; i += 32) {
      s0 = _mm256_add_epi32(s0, _mm256_load_si256((const __m256i *)(a + i)));
      s1 = _mm256_add_epi32(s1, _mm256_load_si256((const __m256i *)(a + i + 8)));
      s2 = _mm256_add_epi32(s2, _mm256_load_si256((const __m256i *)(a + i + 16)));
      s3 = _mm256_add_epi32(s3, _mm256_load_si256((const __m256i *)(a + i + 24)));
   }
   return hsum(_mm256_add_epi32(_mm256_add_epi32(s0, s1), _mm256_add_epi32(s2, s3)));
}

/* [b, e) as two halves read side by side (b and e multiples of 32). */
static uint32_t read_contig2(const float *a, size_t b, size_t e)
{
   size_t half = (e - b) / 64 * 32;
   __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
   for (size_t i = b; i < b + half; i += 16) {
      const float *p = a + i, *q = a + i + half;
      s0 = _mm256_add_epi32(s0, _mm256_load_si256((const __m256i *)p));
      s1 = _mm256_add_epi32(s1, _mm256_load_si256((const __m256i *)(p + 8)));
      s2 = _mm256_add_epi32(s2, _mm256_load_si256((const __m256i *)q));
      s3 = _mm256_add_epi32(s3, _mm256_load_si256((const __m256i *)(q + 8)));
   }
   uint32_t rest = b + 2 * half < e ? read_contig(a, b + 2 * half, e) : 0;
   return hsum(_mm256_add_epi32(_mm256_add_epi32(s0, s1), _mm256_add_epi32(s2, s3))) + rest;
}

/* Blocks of `rows` rows of C floats, 8 floats from each row in turn. */
static uint32_t read_jam(const float *a, size_t b, size_t e, size_t C, unsigned rows,
                         unsigned ahead, enum kind kind)
{
   __m256i s0 = _mm256_setzero_si256(), s1 = s0;
   size_t block = rows * C;
   for (size_t blk = b; blk < e; blk += block) {
      const float *r = a + blk;
      for (size_t off = 0; off < C; off += 8) {
         if (kind == JAM_NEXT && !(off & 15))
            for (unsigned j = 0; j < rows; j++)
               _mm_prefetch((const char *)(r + block + j * C + off), _MM_HINT_T0);
         /* The same lines in address order: the (off / 16)-th run of
          * `rows` lines of the next block. */
         if (kind == JAM_NEXT_SEQ && !(off & 15))
            for (unsigned j = 0; j < rows; j++)
               _mm_prefetch((const char *)(r + block + (off / 16 * rows + j) * 16), _MM_HINT_T0);
         for (unsigned j = 0; j < rows; j += 2) {
            const float *p = r + j * C + off, *q = p + C;
            if (ahead) {
               _mm_prefetch((const char *)p + ahead, _MM_HINT_T0);
               _mm_prefetch((const char *)q + ahead, _MM_HINT_T0);
            }
            s0 = _mm256_add_epi32(s0, _mm256_load_si256((const __m256i *)p));
            s1 = _mm256_add_epi32(s1, _mm256_load_si256((const __m256i *)q));
         }
      }
   }
   return hsum(_mm256_add_epi32(s0, s1));
}

/* As read_jam with the next block prefetched, but a block's first half
 * of rows from the first half of [b, e) and its second half from the
 * second: two places read in the same rounds. */
static uint32_t read_jam_split(const float *a, size_t b, size_t e, size_t C, unsigned rows)
{
   __m256i s0 = _mm256_setzero_si256(), s1 = s0;
   size_t hb = rows / 2 * C, half = (e - b) / 2 / hb * hb;
   for (size_t i = 0; i < half; i += hb) {
      const float *r[2] = {a + b + i, a + b + half + i};
      for (size_t off = 0; off < C; off += 8) {
         if (!(off & 15))
            for (unsigned h = 0; h < 2; h++)
               for (unsigned j = 0; j < rows / 2; j++)
                  _mm_prefetch((const char *)(r[h] + hb + j * C + off), _MM_HINT_T0);
         for (unsigned j = 0; j < rows / 2; j++) {
            s0 = _mm256_add_epi32(s0, _mm256_load_si256((const __m256i *)(r[0] + j * C + off)));
            s1 = _mm256_add_epi32(s1, _mm256_load_si256((const __m256i *)(r[1] + j * C + off)));
         }
      }
   }
   uint32_t rest = b + 2 * half < e ? read_jam(a, b + 2 * half, e, C, rows, 0, JAM_NEXT) : 0;
   return hsum(_mm256_add_epi32(s0, s1)) + rest;
}

/* v[j] = row j's 8 floats; afterwards v[k] holds element k of every row. */
static void transpose8(__m256 *v)
{
   __m256 t[8], u[8];
   for (int p = 0; p < 8; p += 2) {
      t[p] = _mm256_unpacklo_ps(v[p], v[p + 1]);
      t[p + 1] = _mm256_unpackhi_ps(v[p], v[p + 1]);
   }
   for (int q = 0; q < 8; q += 4) {
      u[q] = _mm256_shuffle_ps(t[q], t[q + 2], 0x44);
      u[q + 1] = _mm256_shuffle_ps(t[q], t[q + 2], 0xee);
      u[q + 2] = _mm256_shuffle_ps(t[q + 1], t[q + 3], 0x44);
      u[q + 3] = _mm256_shuffle_ps(t[q + 1], t[q + 3], 0xee);
   }
   for (int q = 0; q < 4; q++) {
      v[q] = _mm256_permute2f128_ps(u[q], u[q + 4], 0x20);
      v[q + 4] = _mm256_permute2f128_ps(u[q], u[q + 4], 0x31);
   }
}

static double read_jam_float(const float *a, size_t b, size_t e, size_t C)
{
   double total = 0;
   for (size_t blk = b; blk < e; blk += 8 * C) {
      const float *r = a + blk;
      __m256 acc = _mm256_setzero_ps(); /* lane j: row j's sum, in order */
      for (size_t off = 0; off < C; off += 8) {
         __m256 v[8];
         for (int j = 0; j < 8; j++)
            v[j] = _mm256_load_ps(r + j * C + off);
         transpose8(v);
         for (int k = 0; k < 8; k++)
            acc = _mm256_add_ps(acc, v[k]);
      }
      float l[8];
      _mm256_storeu_ps(l, acc);
      for (int j = 0; j < 8; j++)
         total += l[j];
   }
   return total;
}

static void range(const struct shared *s, unsigned i, size_t *b, size_t *e)
{
   size_t unit = UNIT_ROWS * s->row, units = s->n / unit;
   *b = units * i / s->threads * unit;
   *e = units * (i + 1) / s->threads * unit;
}

static void *worker_main(void *arg)
{
   struct worker *w = arg;
   struct shared *s = w->s;
   size_t b, e;
   range(s, w->index, &b, &e);
   for (size_t i = b; i < e; i++)
      s->a[i] = (float)(i % 16);
   for (;;) {
      pthread_barrier_wait(&s->start);
      if (s->quit)
         return NULL;
      const struct pattern *p = s->p;
      switch (p->kind) {
      case CONTIG:
         w->isum = read_contig(s->a, b, e);
         break;
      case CONTIG2:
         w->isum = read_contig2(s->a, b, e);
         break;
      case JAM:
      case JAM_NEXT:
      case JAM_NEXT_SEQ:
         w->isum = read_jam(s->a, b, e, s->row, p->rows, p->ahead, p->kind);
         break;
      case JAM_SPLIT:
         w->isum = read_jam_split(s->a, b, e, s->row, p->rows);
         break;
      case JAM_FLOAT:
         w->fsum = read_jam_float(s->a, b, e, s->row);
         break;
      }
      pthread_barrier_wait(&s->done);
   }
}

static int cmp_double(const void *x, const void *y)
{
   double a = *(const double *)x, b = *(const double *)y;
   return (a > b) - (a < b);
}

int main(int argc, char **argv)
{
   long cpus = sysconf(_SC_NPROCESSORS_ONLN);
   unsigned threads = cpus > 0 ? (unsigned)cpus : 1, runs = 9;
   size_t mi = 64, row = 64;
   unsigned ahead[MAX_D] = {256, 1024, 2048, 4096}, nd = 4;
   int opt;
   while ((opt = getopt(argc, argv, "t:n:c:r:d:h")) != -1) {
      switch (opt) {
      case 't': threads = (unsigned)strtoul(optarg, NULL, 0); break;
      case 'n': mi = strtoull(optarg, NULL, 0); break;
      case 'c': row = strtoull(optarg, NULL, 0); break;
      case 'r': runs = (unsigned)strtoul(optarg, NULL, 0); break;
      case 'd':
         nd = 0;
         for (char *t = strtok(optarg, ","); t && nd < MAX_D; t = strtok(NULL, ","))
            ahead[nd++] = (unsigned)strtoul(t, NULL, 0);
         break;
      default:
         fprintf(stderr, "usage: %s [-t threads] [-n Mi floats] [-c row floats (multiple of 8)] "
                         "[-r runs] [-d bytes,bytes,...]\n", argv[0]);
         return opt == 'h' ? 0 : 2;
      }
   }
   __builtin_cpu_init();
   if (!__builtin_cpu_supports("avx2")) {
      fprintf(stderr, "read_pattern: needs AVX2\n");
      return 1;
   }
   size_t n = mi << 20;
   if (!threads || !runs || !row || row % 8 || n < UNIT_ROWS * row * threads) {
      fprintf(stderr, "read_pattern: bad arguments (rows are a multiple of 8 floats; each "
                      "thread needs at least %d rows)\n", UNIT_ROWS);
      return 2;
   }
   n -= n % (UNIT_ROWS * row * threads); /* whole units for every thread */
   struct shared s = {.n = n, .row = row, .threads = threads};
   s.a = mmap(NULL, n * sizeof(float), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
   if (s.a == MAP_FAILED) {
      perror("mmap");
      return 1;
   }
   madvise(s.a, n * sizeof(float), MADV_HUGEPAGE); /* as Kiln's CPU buffers; a hint */
   struct pattern pats[9 + MAX_D];
   unsigned np = 0;
   pats[np++] = (struct pattern){"a contiguous", CONTIG, 0, 0};
   pats[np++] = (struct pattern){"b jammed 8 rows", JAM, 8, 0};
   pats[np++] = (struct pattern){"c jammed 16 rows", JAM, 16, 0};
   for (unsigned k = 0; k < nd; k++) {
      pats[np] = (struct pattern){"", JAM, 8, ahead[k]};
      snprintf(pats[np].name, sizeof(pats[np].name), "d jammed 8, prefetch +%u B", ahead[k]);
      np++;
   }
   pats[np++] = (struct pattern){"e jammed 8, prefetch next block", JAM_NEXT, 8, 0};
   pats[np++] = (struct pattern){"f jammed 8, transpose + float adds", JAM_FLOAT, 8, 0};
   pats[np++] = (struct pattern){"g contiguous, two streams per thread", CONTIG2, 0, 0};
   pats[np++] = (struct pattern){"h as e, the lines in address order", JAM_NEXT_SEQ, 8, 0};
   pats[np++] = (struct pattern){"i e, 4 rows from each half", JAM_SPLIT, 8, 0};
   pats[np++] = (struct pattern){"j e, 8 rows from each half (16 a block)", JAM_SPLIT, 16, 0};

   struct worker *w = calloc(threads, sizeof(*w));
   double *t = calloc(runs, sizeof(double));
   if (!w || !t || pthread_barrier_init(&s.start, NULL, threads + 1) ||
       pthread_barrier_init(&s.done, NULL, threads + 1))
      return 1;
   for (unsigned i = 0; i < threads; i++) {
      w[i] = (struct worker){.s = &s, .index = i};
      if (pthread_create(&w[i].thread, NULL, worker_main, &w[i])) {
         fprintf(stderr, "read_pattern: pthread_create failed\n");
         return 1; /* the others wait at a barrier: exit ends them */
      }
   }
   printf("read_pattern: %u threads, %zu floats (%.0f MiB), rows of %zu floats (%zu B), "
          "%u runs\n", threads, n, n * 4.0 / (1 << 20), row, row * 4, runs);
   printf("%-38s %9s %9s %8s\n", "pattern", "best GB/s", "med GB/s", "of a");
   uint32_t ref = 0;
   double ref_gbs = 0;
   int status = 0;
   for (unsigned k = 0; k < np; k++) {
      s.p = &pats[k];
      uint32_t isum = 0;
      double fsum = 0;
      for (int r = -1; r < (int)runs; r++) {
         pthread_barrier_wait(&s.start);
         double t0 = now_s();
         pthread_barrier_wait(&s.done);
         double dt = now_s() - t0;
         if (r >= 0)
            t[r] = dt;
      }
      for (unsigned i = 0; i < threads; i++) {
         isum += w[i].isum;
         fsum += w[i].fsum;
      }
      qsort(t, runs, sizeof(double), cmp_double);
      double best = n * 4.0 / t[0] * 1e-9, med = n * 4.0 / t[runs / 2] * 1e-9;
      bool ok;
      if (pats[k].kind == CONTIG) {
         ref = isum;
         ref_gbs = med;
         ok = true;
      } else if (pats[k].kind == JAM_FLOAT) {
         ok = fsum == (double)(n / 16) * 120.0; /* 0 + 1 + ... + 15 per 16 */
      } else {
         ok = isum == ref;
      }
      printf("%-38s %9.2f %9.2f %8.2f%s\n", pats[k].name, best, med, med / ref_gbs,
             ok ? "" : "  WRONG SUM");
      if (!ok)
         status = 1;
   }
   s.quit = true;
   pthread_barrier_wait(&s.start);
   for (unsigned i = 0; i < threads; i++)
      pthread_join(w[i].thread, NULL);
   return status;
}
