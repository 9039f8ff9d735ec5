/* Program builds in the compile cache.  An entry's payload:
 *
 *   "KPC1"
 *   uint32 number of included files, then each: uint32 length, path,
 *          32-byte SHA-256 of its contents when the entry was built
 *   uint32 length, build log
 *   uint64 length, program binary (include/kiln/binary_format.h)
 *
 * integers little-endian.  The binary is what clGetProgramInfo would give
 * for the build, so a hit goes through the same strict reader as
 * clCreateProgramWithBinary. */
#include "core/program_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/binary.h"
#include "core/program.h"
#include "kiln/kernel_info.h"
#include "llvm/compiler.h"
#include "util/alloc.h"
#include "util/bytes.h"
#include "util/env.h"
#include "util/build_id.h"
#include "util/log.h"
#include "util/sha256.h"

#define PAYLOAD_MAGIC "KPC1"
#define DEFAULT_SIZE ((uint64_t)256 << 20)

static pthread_once_t cache_once = PTHREAD_ONCE_INIT;
static struct kiln_fcache cache_store;
static struct kiln_fcache *cache;

/* "256M", "1G", "65536": bytes.  0 when the text is not a size. */
static uint64_t parse_size(const char *s)
{
   char *end;
   errno = 0;
   unsigned long long v = strtoull(s, &end, 10);
   if (errno || end == s)
      return 0;
   unsigned shift = 0;
   switch (*end) {
   case 'k': case 'K': shift = 10; end++; break;
   case 'm': case 'M': shift = 20; end++; break;
   case 'g': case 'G': shift = 30; end++; break;
   default: break;
   }
   if (*end == 'i' || *end == 'B')
      end += *end == 'i' && end[1] == 'B' ? 2 : 1;
   if (*end || v > (UINT64_MAX >> shift))
      return 0;
   return (uint64_t)v << shift;
}

/* The cache is off although the user wanted it: one line on stderr (this
 * runs once per process), not only under KILN_DEBUG, since a cache that
 * silently stays off costs every run its whole compile time.  When the
 * user expressed no wish (the default directory does not exist and cannot
 * be made, as in a read-only home), the debug log alone says so. */
static void cache_off(bool wanted, const char *why)
{
   if (wanted)
      kiln_log(KILN_LOG_WARN, "the compile cache is off: %s (docs/cache.md)", why);
   else
      kiln_log(KILN_LOG_COMPILE, "cache: off: %s", why);
}

static void cache_init(void)
{
   const char *on = getenv("KILN_CACHE");
   if (kiln_env_off(on)) {
      kiln_log(KILN_LOG_COMPILE, "cache: off (KILN_CACHE=%s)", on);
      return;
   }
   /* KILN_CACHE=1 (or anything but off) asks for the cache explicitly. */
   bool wanted = on && *on;
   uint64_t limit = DEFAULT_SIZE;
   const char *size = getenv("KILN_CACHE_SIZE");
   if (size && *size) {
      limit = parse_size(size);
      if (!limit) {
         kiln_log(KILN_LOG_WARN, "KILN_CACHE_SIZE=%s is not a size (bytes, or a number with "
                  "K, M or G); the compile cache is off", size);
         return;
      }
   }
   char dir[4096];
   const char *env = getenv("KILN_CACHE_DIR");
   const char *xdg = getenv("XDG_CACHE_HOME");
   const char *home = getenv("HOME");
   int n;
   if (env && *env) {
      wanted = true;
      n = snprintf(dir, sizeof(dir), "%s", env);
   } else if (xdg && xdg[0] == '/') { /* the XDG spec: relative paths are invalid */
      n = snprintf(dir, sizeof(dir), "%s/kiln", xdg);
   } else if (home && home[0] == '/') {
      n = snprintf(dir, sizeof(dir), "%s/.cache/kiln", home);
   } else {
      cache_off(wanted, "no KILN_CACHE_DIR, and no absolute XDG_CACHE_HOME or HOME");
      return;
   }
   if (n < 0 || n >= (int)sizeof(dir)) {
      cache_off(wanted, "the cache directory's name is too long");
      return;
   }
   /* A default directory that exists is one the user (or an earlier run)
    * made for the cache: refusing it deserves a word. */
   struct stat st;
   if (!lstat(dir, &st))
      wanted = true;
   if (kiln_fcache_open(&cache_store, dir, limit)) {
      cache = &cache_store;
      kiln_log(KILN_LOG_COMPILE, "cache: %s, limit %llu bytes (Kiln build %.16s)", dir,
               (unsigned long long)limit, kiln_build_id());
   } else {
      cache_off(wanted, cache_store.error);
   }
}

struct kiln_fcache *kiln_program_cache(void)
{
   pthread_once(&cache_once, cache_init);
   return cache;
}

void kiln_program_cache_use(const char *dir, uint64_t max_bytes)
{
   pthread_once(&cache_once, cache_init);
   if (cache)
      kiln_fcache_close(cache);
   cache = NULL;
   if (dir && kiln_fcache_open(&cache_store, dir, max_bytes))
      cache = &cache_store;
   else if (dir)
      kiln_log(KILN_LOG_COMPILE, "cache: off: %s", cache_store.error);
}

/* Fields are length-prefixed, so no two different builds hash the same
 * byte stream ("-DA" + "B" vs "-D" + "AB"). */
static void field(struct kiln_sha256 *s, const void *data, size_t size)
{
   unsigned char len[8];
   for (int i = 0; i < 8; i++)
      len[i] = (unsigned char)((uint64_t)size >> (8 * i));
   kiln_sha256_update(s, len, 8);
   kiln_sha256_update(s, data, size);
}

static void field_str(struct kiln_sha256 *s, const char *str)
{
   field(s, str ? str : "", str ? strlen(str) : 0);
}

/* The fields every key starts with: what kind of result, the device's own
 * target (two GPUs never share an entry), the builtins its builds link and
 * the versions of everything that compiles.  False when out of memory or
 * for a target src/llvm does not compile for. */
static bool key_begin(struct kiln_sha256 *s, const char *kind,
                      const struct kiln_compile_target *target)
{
   char *id = NULL;
   char *builtins = kiln_llvm_builtins_id(target);
   if (!builtins || kiln_llvm_target_id(target, &id)) {
      kiln_free(builtins);
      return false;
   }
   /* The request to check bounds is part of the key even where the target
    * id has no room for it (a target that cannot check): such a build
    * fails, and must not be answered by an unchecked build's entry. */
   char flags[96];
   snprintf(flags, sizeof(flags), "cl%d image%d check%d gvar%llu", target->opencl_version,
            target->image_support ? 1 : 0, target->bounds_check ? 1 : 0,
            (unsigned long long)target->max_global_variable_size);
   kiln_sha256_init(s);
   field_str(s, kind);
   field_str(s, KILN_VERSION);
   field_str(s, kiln_build_id());
   field_str(s, kiln_llvm_version());
   field_str(s, builtins);
   field_str(s, id);
   field_str(s, flags);
   field_str(s, target->cl_ext);
   kiln_free(id);
   kiln_free(builtins);
   return true;
}

bool kiln_program_cache_key(const char *source, size_t size, const char *options,
                            const struct kiln_compile_target *target,
                            unsigned char key[KILN_FCACHE_KEY_SIZE])
{
   struct kiln_sha256 s;
   if (!key_begin(&s, "kiln compile cache key 1", target))
      return false;
   field_str(&s, options);
   field(&s, source, size);
   kiln_sha256_final(&s, key);
   return true;
}

bool kiln_program_cache_il_key(const void *il, size_t size, const char *spec,
                               const char *options, bool compile,
                               const struct kiln_compile_target *target,
                               unsigned char key[KILN_FCACHE_KEY_SIZE])
{
   struct kiln_sha256 s;
   if (!key_begin(&s, compile ? "kiln compile cache key 1: IL compile"
                              : "kiln compile cache key 1: IL build", target))
      return false;
   /* The translator's output is the front end's: which one ran counts. */
   const char *tool = kiln_llvm_il_translator();
   field_str(&s, tool ? tool : "");
   field_str(&s, options);
   field_str(&s, spec ? spec : "");
   field(&s, il, size);
   kiln_sha256_final(&s, key);
   return true;
}

bool kiln_program_cache_compile_key(const char *source, size_t size, const char *options,
                                    const struct kiln_header *headers, unsigned num_headers,
                                    const struct kiln_compile_target *target,
                                    unsigned char key[KILN_FCACHE_KEY_SIZE])
{
   struct kiln_sha256 s;
   if (!key_begin(&s, "kiln compile cache key 1: clCompileProgram", target))
      return false;
   field_str(&s, options);
   field(&s, source, size);
   /* The count first: headers' fields cannot pass for one another's. */
   unsigned char count[4] = {(unsigned char)num_headers, (unsigned char)(num_headers >> 8),
                             (unsigned char)(num_headers >> 16),
                             (unsigned char)(num_headers >> 24)};
   field(&s, count, 4);
   for (unsigned i = 0; i < num_headers; i++) {
      field_str(&s, headers[i].name);
      field(&s, headers[i].text, headers[i].size);
   }
   kiln_sha256_final(&s, key);
   return true;
}

bool kiln_program_cache_link_key(const struct kiln_bitcode *inputs, unsigned n,
                                 const char *options, const struct kiln_compile_target *target,
                                 unsigned char key[KILN_FCACHE_KEY_SIZE])
{
   struct kiln_sha256 s;
   if (!key_begin(&s, "kiln compile cache key 1: clLinkProgram", target))
      return false;
   field_str(&s, options);
   unsigned char count[4] = {(unsigned char)n, (unsigned char)(n >> 8),
                             (unsigned char)(n >> 16), (unsigned char)(n >> 24)};
   field(&s, count, 4);
   for (unsigned i = 0; i < n; i++)
      field(&s, inputs[i].data, inputs[i].size);
   kiln_sha256_final(&s, key);
   return true;
}

/* ---- payload ---- */

static void put_payload(struct kiln_bytes_out *o, const struct kiln_program_build *b,
                        const struct kiln_build_dep *deps, unsigned num_deps,
                        size_t bin_size)
{
   kiln_bytes_put(o, PAYLOAD_MAGIC, 4);
   kiln_bytes_put_le(o, num_deps, 4);
   for (unsigned i = 0; i < num_deps; i++) {
      size_t n = strlen(deps[i].path);
      kiln_bytes_put_le(o, n, 4);
      kiln_bytes_put(o, deps[i].path, n);
      kiln_bytes_put(o, deps[i].sha256, 32);
   }
   size_t log = b->log ? strlen(b->log) : 0;
   kiln_bytes_put_le(o, log, 4);
   kiln_bytes_put(o, b->log, log);
   kiln_bytes_put_le(o, bin_size, 8);
   if (o->p)
      kiln_program_build_write(b, o->p + o->pos);
   o->pos += bin_size;
}

void kiln_program_cache_store(struct kiln_fcache *c, const unsigned char key[KILN_FCACHE_KEY_SIZE],
                              const struct kiln_program_build *b,
                              const struct kiln_build_dep *deps, unsigned num_deps)
{
   size_t bin_size = kiln_program_build_write(b, NULL);
   struct kiln_bytes_out o = {NULL, 0};
   put_payload(&o, b, deps, num_deps, bin_size);
   size_t total = o.pos;
   o.p = kiln_malloc(total);
   o.pos = 0;
   if (!o.p) {
      kiln_log(KILN_LOG_COMPILE, "cache: not stored: out of host memory");
      return;
   }
   put_payload(&o, b, deps, num_deps, bin_size);
   char hex[65];
   kiln_sha256_hex(key, hex);
   if (kiln_fcache_put(c, key, o.p, total))
      kiln_log(KILN_LOG_COMPILE, "cache: stored %.16s (%zu bytes, %u included files)", hex,
               total, num_deps);
   kiln_free(o.p);
}

/* Whether the file at path (n bytes, not NUL-terminated) still has the
 * contents it had. */
static bool file_unchanged(const unsigned char *path, size_t n, const unsigned char *want)
{
   char name[4096];
   if (n >= sizeof(name))
      return false;
   memcpy(name, path, n);
   name[n] = 0;
   /* O_NONBLOCK: a FIFO put in a header's place must not hang the
    * check; only a regular file can still match. */
   int fd = open(name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
   struct stat st;
   if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
      close(fd);
      kiln_log(KILN_LOG_COMPILE, "cache: included file %s is no longer a regular file; "
               "rebuilding", name);
      return false;
   }
   if (fd < 0) {
      kiln_log(KILN_LOG_COMPILE, "cache: included file %s is gone; rebuilding", name);
      return false;
   }
   struct kiln_sha256 s;
   kiln_sha256_init(&s);
   unsigned char buf[16384];
   ssize_t got;
   while ((got = read(fd, buf, sizeof(buf))) > 0 || (got < 0 && errno == EINTR))
      if (got > 0)
         kiln_sha256_update(&s, buf, (size_t)got);
   close(fd);
   unsigned char d[32];
   kiln_sha256_final(&s, d);
   if (got < 0 || memcmp(d, want, 32)) {
      kiln_log(KILN_LOG_COMPILE, "cache: included file %s changed; rebuilding", name);
      return false;
   }
   return true;
}

static double ms_since(const struct timespec *t0)
{
   struct timespec t1;
   clock_gettime(CLOCK_MONOTONIC, &t1);
   return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

bool kiln_program_cache_load(struct kiln_fcache *c, const unsigned char key[KILN_FCACHE_KEY_SIZE],
                             const struct kiln_compile_target *target, unsigned binary_type,
                             struct kiln_program_build *b)
{
   struct timespec t0;
   clock_gettime(CLOCK_MONOTONIC, &t0);
   char hex[65];
   kiln_sha256_hex(key, hex);
   void *data;
   size_t size;
   if (kiln_fcache_get(c, key, &data, &size) != KILN_FCACHE_HIT) {
      kiln_log(KILN_LOG_COMPILE, "cache: miss %.16s", hex);
      return false;
   }
   struct kiln_bytes_in in = {data, size, false};
   const unsigned char *magic = kiln_bytes_take(&in, 4);
   bool ok = magic && !memcmp(magic, PAYLOAD_MAGIC, 4);
   uint32_t num_deps = ok ? (uint32_t)kiln_bytes_get_le(&in, 4) : 0;
   for (uint32_t i = 0; ok && i < num_deps; i++) {
      size_t n = (size_t)kiln_bytes_get_le(&in, 4);
      const unsigned char *path = kiln_bytes_take(&in, n);
      const unsigned char *sum = kiln_bytes_take(&in, 32);
      ok = !in.bad && file_unchanged(path, n, sum);
   }
   size_t log_size = ok ? (size_t)kiln_bytes_get_le(&in, 4) : 0;
   const unsigned char *log = ok ? kiln_bytes_take(&in, log_size) : NULL;
   size_t bin_size = ok ? (size_t)kiln_bytes_get_le(&in, 8) : 0;
   const unsigned char *bin = ok ? kiln_bytes_take(&in, bin_size) : NULL;
   ok = ok && !in.bad && in.left == 0;

   struct kiln_binary_contents contents = {0};
   char *want = NULL, *log_copy = NULL;
   if (ok) {
      kiln_llvm_target_id(target, &want);
      log_copy = kiln_strndup((const char *)log, log_size);
      ok = want && log_copy && kiln_binary_read(bin, bin_size, &contents) == KILN_BINARY_OK &&
           !strcmp(contents.target, want) && contents.binary_type == binary_type;
   }
   kiln_free(want);
   kiln_free(data);
   if (!ok) {
      kiln_binary_contents_fini(&contents);
      kiln_free(log_copy);
      kiln_log(KILN_LOG_COMPILE, "cache: miss %.16s (entry not usable)", hex);
      return false;
   }
   b->object = contents.object;
   b->object_size = contents.object_size;
   b->kernels = contents.kernels;
   b->num_kernels = contents.num_kernels;
   b->target = contents.target;
   b->bitcode = contents.bitcode;
   b->bitcode_size = contents.bitcode_size;
   b->binary_type = contents.binary_type;
   b->global_variable_size = contents.global_variable_size;
   if (contents.options) { /* the options given, as the key had them */
      kiln_free(b->options);
      b->options = contents.options;
   }
   b->log = log_copy;
   kiln_log(KILN_LOG_COMPILE, "cache: hit %.16s (%.2f ms, %zu bytes)", hex, ms_since(&t0), size);
   return true;
}

void kiln_program_cache_update(struct kiln_fcache *c, const unsigned char key[KILN_FCACHE_KEY_SIZE],
                               const struct kiln_program_build *b)
{
   void *data;
   size_t size;
   if (kiln_fcache_get(c, key, &data, &size) != KILN_FCACHE_HIT)
      return; /* evicted, or never stored: nothing to bring up to date */
   /* The entry's included files and log stay; only its binary changes. */
   struct kiln_bytes_in in = {data, size, false};
   const unsigned char *magic = kiln_bytes_take(&in, 4);
   bool ok = magic && !memcmp(magic, PAYLOAD_MAGIC, 4);
   uint32_t num_deps = ok ? (uint32_t)kiln_bytes_get_le(&in, 4) : 0;
   for (uint32_t i = 0; ok && i < num_deps; i++) {
      kiln_bytes_take(&in, (size_t)kiln_bytes_get_le(&in, 4));
      kiln_bytes_take(&in, 32);
   }
   if (ok)
      kiln_bytes_take(&in, (size_t)kiln_bytes_get_le(&in, 4));
   ok = ok && !in.bad;
   size_t head = size - in.left;
   size_t bin_size = kiln_program_build_write(b, NULL);
   unsigned char *p = ok ? kiln_malloc(head + 8 + bin_size) : NULL;
   if (p) {
      memcpy(p, data, head);
      struct kiln_bytes_out o = {p + head, 0};
      kiln_bytes_put_le(&o, bin_size, 8);
      kiln_program_build_write(b, p + head + 8);
      char hex[65];
      kiln_sha256_hex(key, hex);
      if (kiln_fcache_put(c, key, p, head + 8 + bin_size))
         kiln_log(KILN_LOG_COMPILE, "cache: updated %.16s with the kernels compiled since "
                  "(%zu bytes)", hex, head + 8 + bin_size);
   }
   kiln_free(p);
   kiln_free(data);
}
