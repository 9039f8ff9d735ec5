/* The compile cache's files (util/fcache.h).  Every file operation goes
 * through the directory's descriptor (openat, renameat, unlinkat), taken
 * once after its owner and mode were checked: a path swapped for a link
 * afterwards cannot redirect it. */
#include "util/fcache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/log.h"
#include "util/sha256.h"

#define MAGIC "KILNCACH"
#define FORMAT_VERSION 1u
#define HEADER_SIZE (8 + 4 + 4 + KILN_FCACHE_KEY_SIZE + 8)
#define TRAILER_SIZE KILN_SHA256_SIZE
/* Larger than any program Kiln builds; a bigger file is not an entry. */
#define MAX_ENTRY ((uint64_t)1 << 30)
/* A temporary file this old belongs to a writer that died. */
#define STALE_TEMP_SECONDS 3600

void kiln_fcache_entry_name(const unsigned char key[KILN_FCACHE_KEY_SIZE], char out[69])
{
   kiln_sha256_hex(key, out); /* any 32 bytes as hex */
   memcpy(out + 64, ".kce", 5);
}

/* mkdir -p, creating what is missing with mode 0700. */
static bool make_dirs(const char *path)
{
   char p[4096];
   if (snprintf(p, sizeof(p), "%s", path) >= (int)sizeof(p)) {
      errno = ENAMETOOLONG;
      return false;
   }
   bool ok = true;
   for (char *s = p + 1; ok; s++) {
      if (*s != '/' && *s)
         continue;
      char c = *s;
      *s = 0;
      if (mkdir(p, 0700) && errno != EEXIST)
         ok = false;
      *s = c;
      if (!c)
         break;
   }
   return ok;
}

bool kiln_fcache_open(struct kiln_fcache *c, const char *dir, uint64_t max_bytes)
{
   c->dir = -1;
   c->error[0] = 0;
   if (!dir || !*dir || strlen(dir) >= sizeof(c->path)) {
      snprintf(c->error, sizeof(c->error), "no usable directory name");
      return false;
   }
   if (!make_dirs(dir)) {
      snprintf(c->error, sizeof(c->error), "cannot create %s: %s", dir, strerror(errno));
      return false;
   }
   int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
   if (fd < 0) {
      snprintf(c->error, sizeof(c->error), "cannot open %s: %s", dir,
               errno == ELOOP || errno == ENOTDIR ? "not a directory (or a symbolic link)"
                                                  : strerror(errno));
      return false;
   }
   struct stat st;
   const char *why = NULL;
   /* Others may read the directory (its names are hashes; the entries are
    * 0600), but only its owner, this user, may create, rename or remove
    * entries in it. */
   if (fstat(fd, &st))
      why = strerror(errno);
   else if (st.st_uid != geteuid())
      why = "owned by another user";
   else if (st.st_mode & (S_IWGRP | S_IWOTH))
      why = "its group or others may write to it (chmod go-w fixes that)";
   else if (faccessat(fd, ".", W_OK | X_OK, AT_EACCESS))
      why = "not writable";
   if (why) {
      snprintf(c->error, sizeof(c->error), "refusing %s: %s", dir, why);
      close(fd);
      return false;
   }
   c->dir = fd;
   c->max_bytes = max_bytes;
   snprintf(c->path, sizeof(c->path), "%s", dir);
   return true;
}

void kiln_fcache_close(struct kiln_fcache *c)
{
   if (c->dir >= 0)
      close(c->dir);
   c->dir = -1;
}

static void put_le(unsigned char *p, uint64_t v, int bytes)
{
   for (int i = 0; i < bytes; i++)
      p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, int bytes)
{
   uint64_t v = 0;
   for (int i = bytes - 1; i >= 0; i--)
      v = v << 8 | p[i];
   return v;
}

static bool read_all(int fd, unsigned char *buf, size_t size)
{
   while (size) {
      ssize_t n = read(fd, buf, size);
      if (n < 0 && errno == EINTR)
         continue;
      if (n <= 0)
         return false;
      buf += n;
      size -= (size_t)n;
   }
   return true;
}

static bool write_all(int fd, const void *data, size_t size)
{
   const unsigned char *p = data;
   while (size) {
      ssize_t n = write(fd, p, size);
      if (n < 0 && errno == EINTR)
         continue;
      if (n <= 0)
         return false;
      p += n;
      size -= (size_t)n;
   }
   return true;
}

/* Removes a bad entry, unless another process replaced it meanwhile. */
static void remove_bad(struct kiln_fcache *c, const char *name, const struct stat *seen,
                       const char *why)
{
   struct stat now;
   if (!fstatat(c->dir, name, &now, AT_SYMLINK_NOFOLLOW) && now.st_ino == seen->st_ino &&
       now.st_dev == seen->st_dev)
      unlinkat(c->dir, name, 0);
   kiln_log(KILN_LOG_COMPILE, "cache: %s/%s: %s; ignored and removed", c->path, name, why);
}

enum kiln_fcache_result kiln_fcache_get(struct kiln_fcache *c,
                                        const unsigned char key[KILN_FCACHE_KEY_SIZE],
                                        void **data, size_t *size)
{
   *data = NULL;
   *size = 0;
   char name[69];
   kiln_fcache_entry_name(key, name);
   /* O_NONBLOCK: a FIFO (or a device) at the entry's name must not block
    * the open before the fstat below can tell it is no entry. */
   int fd = openat(c->dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
   if (fd < 0)
      return KILN_FCACHE_MISS;
   struct stat st;
   int flags = fcntl(fd, F_GETFL);
   if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) || fstat(fd, &st)) {
      close(fd);
      return KILN_FCACHE_MISS;
   }
   const char *why = NULL;
   if (!S_ISREG(st.st_mode) || st.st_uid != geteuid())
      why = "not a regular file of this user";
   else if ((uint64_t)st.st_size < HEADER_SIZE + TRAILER_SIZE || (uint64_t)st.st_size > MAX_ENTRY)
      why = "truncated or oversized";
   if (why) {
      close(fd);
      remove_bad(c, name, &st, why);
      return KILN_FCACHE_MISS;
   }
   size_t total = (size_t)st.st_size;
   unsigned char *buf = kiln_malloc(total);
   if (!buf) {
      close(fd);
      return KILN_FCACHE_NO_MEMORY;
   }
   unsigned char sum[KILN_SHA256_SIZE];
   if (!read_all(fd, buf, total))
      why = "unreadable or shorter than its size";
   else if (memcmp(buf, MAGIC, 8) || get_le(buf + 8, 4) != FORMAT_VERSION)
      why = "not a Kiln cache entry of this format";
   else if (memcmp(buf + 16, key, KILN_FCACHE_KEY_SIZE))
      why = "holds another key";
   else if (get_le(buf + 16 + KILN_FCACHE_KEY_SIZE, 8) != total - HEADER_SIZE - TRAILER_SIZE)
      why = "its size does not match its header";
   if (!why) {
      kiln_sha256(buf, total - TRAILER_SIZE, sum);
      if (memcmp(sum, buf + total - TRAILER_SIZE, TRAILER_SIZE))
         why = "checksum mismatch (corrupted)";
   }
   if (why) {
      close(fd);
      kiln_free(buf);
      remove_bad(c, name, &st, why);
      return KILN_FCACHE_MISS;
   }
   /* Least recently used = oldest mtime: a hit makes the entry young. */
   futimens(fd, NULL);
   close(fd);
   *size = total - HEADER_SIZE - TRAILER_SIZE;
   memmove(buf, buf + HEADER_SIZE, *size);
   *data = buf;
   return KILN_FCACHE_HIT;
}

void kiln_fcache_remove(struct kiln_fcache *c, const unsigned char key[KILN_FCACHE_KEY_SIZE])
{
   char name[69];
   kiln_fcache_entry_name(key, name);
   unlinkat(c->dir, name, 0);
}

struct entry {
   char name[69];
   uint64_t size;
   struct timespec mtime;
};

static int older_first(const void *a, const void *b)
{
   const struct entry *x = a, *y = b;
   if (x->mtime.tv_sec != y->mtime.tv_sec)
      return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
   if (x->mtime.tv_nsec != y->mtime.tv_nsec)
      return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
   return strcmp(x->name, y->name);
}

static bool is_entry_name(const char *n)
{
   if (strlen(n) != 68 || strcmp(n + 64, ".kce"))
      return false;
   for (int i = 0; i < 64; i++)
      if (!((n[i] >= '0' && n[i] <= '9') || (n[i] >= 'a' && n[i] <= 'f')))
         return false;
   return true;
}

/* Lists the entries (and removes temporary files of dead writers); with
 * evict, removes the oldest entries until the rest fit the limit.
 * Returns the bytes left. */
static uint64_t scan(struct kiln_fcache *c, bool evict)
{
   /* A descriptor of its own (not a dup, which would share the read
    * position with other threads' scans). */
   int fd = openat(c->dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
   if (fd < 0)
      return 0;
   DIR *d = fdopendir(fd);
   if (!d) {
      close(fd);
      return 0;
   }
   struct entry *list = NULL;
   size_t n = 0, cap = 0;
   uint64_t total = 0;
   time_t now = time(NULL);
   bool listed = true;
   for (struct dirent *e; (e = readdir(d));) {
      struct stat st;
      if (fstatat(c->dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
         continue;
      if (!strncmp(e->d_name, ".tmp-", 5)) {
         if (now - st.st_mtime > STALE_TEMP_SECONDS)
            unlinkat(c->dir, e->d_name, 0);
         continue;
      }
      if (!is_entry_name(e->d_name))
         continue;
      total += (uint64_t)st.st_size;
      if (!evict)
         continue;
      if (n == cap) {
         size_t ncap = cap ? cap * 2 : 64;
         struct entry *l = kiln_realloc(list, ncap * sizeof(*l));
         if (!l) {
            listed = false;
            break;
         }
         list = l;
         cap = ncap;
      }
      memcpy(list[n].name, e->d_name, 69);
      list[n].size = (uint64_t)st.st_size;
      list[n].mtime = st.st_mtim;
      n++;
   }
   closedir(d);
   if (evict && listed && total > c->max_bytes) {
      qsort(list, n, sizeof(*list), older_first);
      for (size_t i = 0; i < n && total > c->max_bytes; i++) {
         if (!unlinkat(c->dir, list[i].name, 0) || errno == ENOENT) {
            total -= list[i].size;
            kiln_log(KILN_LOG_COMPILE, "cache: evicted %s (%llu bytes)", list[i].name,
                     (unsigned long long)list[i].size);
         }
      }
   }
   kiln_free(list);
   return total;
}

uint64_t kiln_fcache_size(struct kiln_fcache *c)
{
   return scan(c, false);
}

bool kiln_fcache_put(struct kiln_fcache *c, const unsigned char key[KILN_FCACHE_KEY_SIZE],
                     const void *data, size_t size)
{
   if ((uint64_t)size + HEADER_SIZE + TRAILER_SIZE > MAX_ENTRY ||
       (uint64_t)size + HEADER_SIZE + TRAILER_SIZE > c->max_bytes)
      return false;
   unsigned char header[HEADER_SIZE] = {0}, sum[KILN_SHA256_SIZE];
   memcpy(header, MAGIC, 8);
   put_le(header + 8, FORMAT_VERSION, 4);
   memcpy(header + 16, key, KILN_FCACHE_KEY_SIZE);
   put_le(header + 16 + KILN_FCACHE_KEY_SIZE, size, 8);
   struct kiln_sha256 s;
   kiln_sha256_init(&s);
   kiln_sha256_update(&s, header, sizeof(header));
   kiln_sha256_update(&s, data, size);
   kiln_sha256_final(&s, sum);

   /* A name no other writer, in this process or another, can hold. */
   static atomic_uint serial;
   char tmp[96];
   int fd = -1;
   for (int tries = 0; fd < 0 && tries < 8; tries++) {
      struct timespec ts;
      clock_gettime(CLOCK_MONOTONIC, &ts);
      snprintf(tmp, sizeof(tmp), ".tmp-%ld-%u-%ld", (long)getpid(),
               atomic_fetch_add(&serial, 1), (long)ts.tv_nsec);
      fd = openat(c->dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (fd < 0 && errno != EEXIST)
         break;
   }
   if (fd < 0) {
      kiln_log(KILN_LOG_COMPILE, "cache: cannot create an entry in %s: %s", c->path,
               strerror(errno));
      return false;
   }
   bool ok = write_all(fd, header, sizeof(header)) && write_all(fd, data, size) &&
             write_all(fd, sum, sizeof(sum));
   int err = ok ? 0 : errno;
   if (close(fd) && ok) {
      ok = false;
      err = errno;
   }
   char name[69];
   kiln_fcache_entry_name(key, name);
   if (ok && renameat(c->dir, tmp, c->dir, name)) {
      ok = false;
      err = errno;
   }
   if (!ok) {
      unlinkat(c->dir, tmp, 0);
      kiln_log(KILN_LOG_COMPILE, "cache: cannot write %s/%s: %s", c->path, name, strerror(err));
      return false;
   }
   scan(c, true);
   return true;
}
