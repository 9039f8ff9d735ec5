/* util/fcache.c: the compile cache's files, in a temporary directory. */
#include "kiln_test.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/fcache.h"

static char root[256];

static int setup(void **state)
{
   (void)state;
   snprintf(root, sizeof(root), "/tmp/kiln-test-fcache-XXXXXX");
   return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
   (void)state;
   char cmd[600];
   snprintf(cmd, sizeof(cmd), "chmod -R u+rwx %s; rm -rf %s", root, root);
   return system(cmd) == 0 ? 0 : -1;
}

static void path_of(char *out, size_t size, const char *sub)
{
   snprintf(out, size, "%s/%s", root, sub);
}

static void key_of(unsigned char key[KILN_FCACHE_KEY_SIZE], int n)
{
   memset(key, 0, KILN_FCACHE_KEY_SIZE);
   key[0] = (unsigned char)n;
   key[31] = 0x5a;
}

static void entry_path(char *out, size_t size, const char *dir, int n)
{
   unsigned char key[KILN_FCACHE_KEY_SIZE];
   char name[69];
   key_of(key, n);
   kiln_fcache_entry_name(key, name);
   snprintf(out, size, "%s/%s", dir, name);
}

static int count_entries(const char *dir)
{
   DIR *d = opendir(dir);
   assert_non_null(d);
   int n = 0;
   for (struct dirent *e; (e = readdir(d));)
      n += strlen(e->d_name) == 68;
   closedir(d);
   return n;
}

static void test_hit_miss(void **state)
{
   (void)state;
   char dir[300];
   path_of(dir, sizeof(dir), "a/b/cache");
   struct kiln_fcache c;
   assert_true(kiln_fcache_open(&c, dir, 1 << 20));
   struct stat st;
   assert_int_equal(stat(dir, &st), 0);
   assert_int_equal(st.st_mode & 0777, 0700);

   unsigned char k1[32], k2[32];
   key_of(k1, 1);
   key_of(k2, 2);
   void *data;
   size_t size;
   assert_int_equal(kiln_fcache_get(&c, k1, &data, &size), KILN_FCACHE_MISS);
   assert_null(data);
   assert_true(kiln_fcache_put(&c, k1, "hello", 5));
   assert_int_equal(kiln_fcache_get(&c, k1, &data, &size), KILN_FCACHE_HIT);
   assert_int_equal(size, 5);
   assert_memory_equal(data, "hello", 5);
   free(data); /* kiln_malloc is malloc outside the fault test */
   assert_int_equal(kiln_fcache_get(&c, k2, &data, &size), KILN_FCACHE_MISS);
   /* Replacing an entry. */
   assert_true(kiln_fcache_put(&c, k1, "bye", 3));
   assert_int_equal(kiln_fcache_get(&c, k1, &data, &size), KILN_FCACHE_HIT);
   assert_int_equal(size, 3);
   free(data);
   /* An empty payload is an entry too. */
   assert_true(kiln_fcache_put(&c, k2, "", 0));
   assert_int_equal(kiln_fcache_get(&c, k2, &data, &size), KILN_FCACHE_HIT);
   assert_int_equal(size, 0);
   free(data);
   kiln_fcache_remove(&c, k2);
   assert_int_equal(kiln_fcache_get(&c, k2, &data, &size), KILN_FCACHE_MISS);
   /* Entry files are private. */
   char e[400];
   entry_path(e, sizeof(e), dir, 1);
   assert_int_equal(stat(e, &st), 0);
   assert_int_equal(st.st_mode & 0777, 0600);
   kiln_fcache_close(&c);
}

/* Every single-byte corruption, truncation and extension of an entry is
 * a miss and removes the file; none is returned. */
static void test_corrupt(void **state)
{
   (void)state;
   char dir[300], e[400];
   path_of(dir, sizeof(dir), "corrupt");
   struct kiln_fcache c;
   assert_true(kiln_fcache_open(&c, dir, 1 << 20));
   unsigned char k[32];
   key_of(k, 7);
   entry_path(e, sizeof(e), dir, 7);
   const char payload[] = "machine code the process would run";
   assert_true(kiln_fcache_put(&c, k, payload, sizeof(payload)));
   struct stat st;
   assert_int_equal(stat(e, &st), 0);
   size_t n = (size_t)st.st_size;
   unsigned char *good = malloc(n);
   FILE *f = fopen(e, "rb");
   assert_int_equal(fread(good, 1, n, f), n);
   fclose(f);

   for (size_t i = 0; i < n; i++) {
      unsigned char *bad = malloc(n);
      memcpy(bad, good, n);
      bad[i] ^= 0x10;
      f = fopen(e, "wb");
      fwrite(bad, 1, n, f);
      fclose(f);
      free(bad);
      void *data;
      size_t size;
      assert_int_equal(kiln_fcache_get(&c, k, &data, &size), KILN_FCACHE_MISS);
      assert_null(data);
      assert_int_not_equal(access(e, F_OK), 0); /* removed */
   }
   static const size_t lengths[] = {0, 1, 55, 100};
   for (size_t i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
      f = fopen(e, "wb");
      fwrite(good, 1, lengths[i] < n ? lengths[i] : n - 1, f);
      fclose(f);
      void *data;
      size_t size;
      assert_int_equal(kiln_fcache_get(&c, k, &data, &size), KILN_FCACHE_MISS);
   }
   f = fopen(e, "wb");
   fwrite(good, 1, n, f);
   fputc('x', f);
   fclose(f);
   void *data;
   size_t size;
   assert_int_equal(kiln_fcache_get(&c, k, &data, &size), KILN_FCACHE_MISS);

   /* A whole, valid entry of another key, under this key's name. */
   unsigned char other[32];
   key_of(other, 8);
   assert_true(kiln_fcache_put(&c, other, payload, sizeof(payload)));
   char e8[400];
   entry_path(e8, sizeof(e8), dir, 8);
   assert_int_equal(rename(e8, e), 0);
   assert_int_equal(kiln_fcache_get(&c, k, &data, &size), KILN_FCACHE_MISS);
   assert_int_not_equal(access(e, F_OK), 0);

   /* And the good one again is a hit. */
   f = fopen(e, "wb");
   fwrite(good, 1, n, f);
   fclose(f);
   assert_int_equal(kiln_fcache_get(&c, k, &data, &size), KILN_FCACHE_HIT);
   assert_memory_equal(data, payload, sizeof(payload));
   free(data);
   free(good);
   kiln_fcache_close(&c);
}

static void set_age(const char *path, time_t seconds_ago)
{
   struct timespec t[2];
   clock_gettime(CLOCK_REALTIME, &t[0]);
   t[0].tv_sec -= seconds_ago;
   t[1] = t[0];
   assert_int_equal(utimensat(AT_FDCWD, path, t, 0), 0);
}

/* Least recently used entries go first; a hit makes an entry young. */
static void test_eviction(void **state)
{
   (void)state;
   char dir[300], e[400];
   path_of(dir, sizeof(dir), "evict");
   char payload[1000];
   memset(payload, 'p', sizeof(payload));
   /* Room for three entries (each 1000 + 88 bytes), not four. */
   struct kiln_fcache c;
   assert_true(kiln_fcache_open(&c, dir, 3 * 1088 + 500));
   unsigned char k[32];
   for (int i = 1; i <= 3; i++) {
      key_of(k, i);
      assert_true(kiln_fcache_put(&c, k, payload, sizeof(payload)));
      entry_path(e, sizeof(e), dir, i);
      set_age(e, 100 - i); /* 1 oldest */
   }
   assert_int_equal(count_entries(dir), 3);
   assert_int_equal(kiln_fcache_size(&c), 3 * 1088);
   /* Use 1: now 2 is the least recently used. */
   void *data;
   size_t size;
   key_of(k, 1);
   assert_int_equal(kiln_fcache_get(&c, k, &data, &size), KILN_FCACHE_HIT);
   free(data);
   key_of(k, 4);
   assert_true(kiln_fcache_put(&c, k, payload, sizeof(payload)));
   assert_int_equal(count_entries(dir), 3);
   assert_true(kiln_fcache_size(&c) <= 3 * 1088 + 500);
   entry_path(e, sizeof(e), dir, 2);
   assert_int_not_equal(access(e, F_OK), 0);
   for (int i = 1; i <= 4; i += (i == 1 ? 2 : 1)) {
      key_of(k, i);
      assert_int_equal(kiln_fcache_get(&c, k, &data, &size), KILN_FCACHE_HIT);
      free(data);
   }
   /* An entry larger than the whole limit is not stored at all. */
   char big[4000];
   memset(big, 'b', sizeof(big));
   key_of(k, 9);
   assert_false(kiln_fcache_put(&c, k, big, sizeof(big)));
   assert_int_equal(count_entries(dir), 3);
   kiln_fcache_close(&c);

   /* Leftovers of a writer that died long ago are cleaned up; a recent
    * one (a writer at work) is left alone. */
   char tmp_old[400], tmp_new[400];
   snprintf(tmp_old, sizeof(tmp_old), "%s/.tmp-1-1-1", dir);
   snprintf(tmp_new, sizeof(tmp_new), "%s/.tmp-1-1-2", dir);
   fclose(fopen(tmp_old, "w"));
   fclose(fopen(tmp_new, "w"));
   set_age(tmp_old, 2 * 3600);
   assert_true(kiln_fcache_open(&c, dir, 3 * 1088 + 500));
   kiln_fcache_size(&c);
   assert_int_not_equal(access(tmp_old, F_OK), 0);
   assert_int_equal(access(tmp_new, F_OK), 0);
   kiln_fcache_close(&c);
}

/* A directory only its owner may write to is used, whoever may read it
 * (0755 is what mkdir gives); one its group or others may write to, or a
 * link to one, is refused, and the reason names the directory. */
static void test_refused(void **state)
{
   (void)state;
   char dir[300], link[300];
   path_of(dir, sizeof(dir), "loose");
   assert_int_equal(mkdir(dir, 0755), 0);
   assert_int_equal(chmod(dir, 0755), 0); /* whatever the umask */
   struct kiln_fcache c;
   assert_true(kiln_fcache_open(&c, dir, 1 << 20));
   unsigned char k[32];
   key_of(k, 3);
   assert_true(kiln_fcache_put(&c, k, "x", 1));
   kiln_fcache_close(&c);
   static const mode_t loose[] = {0775, 0757, 0770, 0777, 0720, 0702};
   for (size_t i = 0; i < sizeof(loose) / sizeof(loose[0]); i++) {
      assert_int_equal(chmod(dir, loose[i]), 0);
      assert_false(kiln_fcache_open(&c, dir, 1 << 20));
      assert_non_null(strstr(c.error, "refusing"));
      assert_non_null(strstr(c.error, dir));
      assert_non_null(strstr(c.error, "write"));
   }
   static const mode_t tight[] = {0700, 0750, 0705, 0755};
   for (size_t i = 0; i < sizeof(tight) / sizeof(tight[0]); i++) {
      assert_int_equal(chmod(dir, tight[i]), 0);
      assert_true(kiln_fcache_open(&c, dir, 1 << 20));
      kiln_fcache_close(&c);
   }
   assert_int_equal(chmod(dir, 0700), 0);

   path_of(link, sizeof(link), "link");
   assert_int_equal(symlink(dir, link), 0);
   assert_false(kiln_fcache_open(&c, link, 1 << 20));

   /* Not writable (the cache is then off), and not creatable. */
   assert_int_equal(chmod(dir, 0500), 0);
   if (geteuid() != 0) {
      assert_false(kiln_fcache_open(&c, dir, 1 << 20));
      char sub[400];
      snprintf(sub, sizeof(sub), "%s/sub", dir);
      assert_false(kiln_fcache_open(&c, sub, 1 << 20));
   }
   assert_int_equal(chmod(dir, 0700), 0);
   assert_false(kiln_fcache_open(&c, "", 1 << 20));
}

static void on_alarm(int sig)
{
   (void)sig;
   static const char msg[] = "test_fcache: kiln_fcache_get hung on a FIFO\n";
   if (write(2, msg, sizeof(msg) - 1) < 0)
      _exit(3);
   _exit(3);
}

/* Something else than a regular file at an entry's name: a FIFO (nobody
 * writes to it: opening it for reading without O_NONBLOCK would block
 * for ever) is a miss, not a hang, and is replaced by the next put. */
static void test_fifo(void **state)
{
   (void)state;
   char dir[300], e[400];
   path_of(dir, sizeof(dir), "fifo");
   struct kiln_fcache c;
   assert_true(kiln_fcache_open(&c, dir, 1 << 20));
   unsigned char k[32];
   key_of(k, 9);
   entry_path(e, sizeof(e), dir, 9);
   assert_int_equal(mkfifo(e, 0600), 0);
   signal(SIGALRM, on_alarm);
   alarm(20);
   void *data;
   size_t size;
   assert_int_equal(kiln_fcache_get(&c, k, &data, &size), KILN_FCACHE_MISS);
   alarm(0);
   assert_null(data);
   assert_true(kiln_fcache_put(&c, k, "code", 4));
   struct stat st;
   assert_int_equal(lstat(e, &st), 0);
   assert_true(S_ISREG(st.st_mode));
   assert_int_equal(kiln_fcache_get(&c, k, &data, &size), KILN_FCACHE_HIT);
   assert_int_equal(size, 4);
   free(data);
   /* A directory in its place: also a miss. */
   unlink(e);
   assert_int_equal(mkdir(e, 0700), 0);
   assert_int_equal(kiln_fcache_get(&c, k, &data, &size), KILN_FCACHE_MISS);
   rmdir(e);
   kiln_fcache_close(&c);
}

/* Several processes writing and reading the same keys at once: every
 * read is a miss or the whole payload of that key, never a mix. */
static void test_processes(void **state)
{
   (void)state;
   char dir[300];
   path_of(dir, sizeof(dir), "shared");
   enum { PROCS = 4, ROUNDS = 200, KEYS = 5 };
   pid_t pids[PROCS];
   for (int p = 0; p < PROCS; p++) {
      pids[p] = fork();
      assert_true(pids[p] >= 0);
      if (pids[p])
         continue;
      struct kiln_fcache c;
      if (!kiln_fcache_open(&c, dir, 1 << 20))
         _exit(2);
      static char payload[KEYS][20000];
      for (int k = 0; k < KEYS; k++)
         memset(payload[k], 'A' + k, sizeof(payload[k]));
      for (int r = 0; r < ROUNDS; r++) {
         unsigned char key[32];
         int k = (r * 7 + p) % KEYS;
         key_of(key, k);
         void *data;
         size_t size;
         enum kiln_fcache_result res = kiln_fcache_get(&c, key, &data, &size);
         if (res == KILN_FCACHE_HIT) {
            if (size != sizeof(payload[k]) || memcmp(data, payload[k], size))
               _exit(3);
            free(data);
         } else if (res != KILN_FCACHE_MISS) {
            _exit(4);
         }
         if (!kiln_fcache_put(&c, key, payload[k], (size_t)(r % 3 ? sizeof(payload[k]) : 20000)))
            _exit(5);
      }
      _exit(0);
   }
   for (int p = 0; p < PROCS; p++) {
      int st;
      assert_int_equal(waitpid(pids[p], &st, 0), pids[p]);
      assert_true(WIFEXITED(st));
      assert_int_equal(WEXITSTATUS(st), 0);
   }
   assert_int_equal(count_entries(dir), KEYS);
   /* No temporary file left behind. */
   DIR *d = opendir(dir);
   for (struct dirent *e; (e = readdir(d));)
      assert_true(strncmp(e->d_name, ".tmp-", 5) != 0);
   closedir(d);
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hit_miss), cmocka_unit_test(test_corrupt),
      cmocka_unit_test(test_eviction), cmocka_unit_test(test_refused),
      cmocka_unit_test(test_processes), cmocka_unit_test(test_fifo),
   };
   return cmocka_run_group_tests(tests, setup, teardown);
}
