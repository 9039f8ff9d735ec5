/* Running the LLVM/SPIR-V translator (spirv_tool.h).  posix_spawn, no
 * shell: the IL goes to a file in a private mkdtemp directory, the tool
 * writes its bitcode and messages there, and the directory is removed
 * before the call returns, whatever happened.  Nothing here aborts: a
 * tool that is missing, crashes or writes nothing fails the build with
 * what it printed in the log. */
#include "llvm/spirv/spirv_tool.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "llvm/build_log.h"
#include "util/alloc.h"
#include "util/env.h"

extern char **environ;

#define SPIRV_MAGIC 0x07230203u

/* A private directory for one run, and its files. */
struct workdir {
   char dir[PATH_MAX];
   char in[PATH_MAX], out[PATH_MAX], msg[PATH_MAX];
};

static bool workdir_open(struct workdir *w)
{
   const char *tmp = getenv("TMPDIR");
   if (!tmp || !*tmp)
      tmp = "/tmp";
   if ((size_t)snprintf(w->dir, sizeof(w->dir), "%s/kiln-spirv-XXXXXX", tmp) >= sizeof(w->dir) ||
       !mkdtemp(w->dir))
      return false;
   snprintf(w->in, sizeof(w->in), "%.*s/in.spv", PATH_MAX - 16, w->dir);
   snprintf(w->out, sizeof(w->out), "%.*s/out.bc", PATH_MAX - 16, w->dir);
   snprintf(w->msg, sizeof(w->msg), "%.*s/messages", PATH_MAX - 16, w->dir);
   return true;
}

static void workdir_close(struct workdir *w)
{
   unlink(w->in);
   unlink(w->out);
   unlink(w->msg);
   rmdir(w->dir);
}

static bool write_file(const char *path, const void *data, size_t size)
{
   int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
   if (fd < 0)
      return false;
   const char *p = data;
   while (size) {
      ssize_t n = write(fd, p, size);
      if (n < 0 && errno == EINTR)
         continue;
      if (n <= 0) {
         close(fd);
         return false;
      }
      p += n;
      size -= (size_t)n;
   }
   return close(fd) == 0;
}

/* The whole file, NUL-terminated (*size excludes the NUL); NULL when it
 * cannot be read or there is no memory. */
static char *read_file(const char *path, size_t *size)
{
   int fd = open(path, O_RDONLY | O_CLOEXEC);
   if (fd < 0)
      return NULL;
   size_t cap = 4096, len = 0;
   char *buf = kiln_malloc(cap);
   while (buf) {
      if (len + 1 == cap) {
         char *bigger = kiln_realloc(buf, cap * 2);
         if (!bigger) {
            kiln_free(buf);
            buf = NULL;
            break;
         }
         buf = bigger;
         cap *= 2;
      }
      ssize_t n = read(fd, buf + len, cap - 1 - len);
      if (n < 0 && errno == EINTR)
         continue;
      if (n < 0) {
         kiln_free(buf);
         buf = NULL;
         break;
      }
      if (n == 0)
         break;
      len += (size_t)n;
   }
   close(fd);
   if (buf) {
      buf[len] = 0;
      *size = len;
   }
   return buf;
}

/* Runs argv[0] with stdin from /dev/null and stdout and stderr to msg;
 * its exit status, or -1 when it did not run or ended by a signal. */
static int run(char *const argv[], const char *msg)
{
   posix_spawn_file_actions_t fa;
   if (posix_spawn_file_actions_init(&fa))
      return -1;
   int status = -1;
   pid_t pid;
   if (!posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0) &&
       !posix_spawn_file_actions_addopen(&fa, 1, msg, O_WRONLY | O_CREAT | O_TRUNC, 0600) &&
       !posix_spawn_file_actions_adddup2(&fa, 1, 2) &&
       !posix_spawn(&pid, argv[0], &fa, NULL, argv, environ)) {
      int ws;
      pid_t got;
      while ((got = waitpid(pid, &ws, 0)) < 0 && errno == EINTR)
         ;
      if (got == pid && WIFEXITED(ws))
         status = WEXITSTATUS(ws);
   }
   posix_spawn_file_actions_destroy(&fa);
   return status;
}

static bool executable(const char *path)
{
   struct stat st;
   return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

/* The newest SPIR-V minor version Kiln reports, whatever the translator's
 * --help lists: llvm-spirv-15 takes 1.4 modules but asserts on five of
 * 1.4's new instructions (OpCopyLogical, OpPtrDiff, OpDecorateString, ...:
 * the CTS's spirv14_* tests), so it does not truly read 1.4. */
#define MAX_MINOR 3

/* The versions of "--spirv-max-version=<value>", listed as "=1.N" lines
 * under it in --help. */
static void parse_versions(struct kiln_spirv_tool *t, const char *help)
{
   const char *p = strstr(help, "--spirv-max-version");
   if (!p)
      return;
   p = strchr(p, '\n');
   while (p && t->num_versions < KILN_SPIRV_MAX_VERSIONS) {
      p++;
      while (*p == ' ')
         p++;
      unsigned minor;
      int used = 0;
      if (sscanf(p, "=1.%u%n", &minor, &used) != 1 || !used || minor > 9)
         break;
      if (minor <= MAX_MINOR)
         t->minor[t->num_versions++] = minor;
      p = strchr(p, '\n');
   }
}

static struct kiln_spirv_tool found;
static bool have_tool;
static pthread_once_t lookup_once = PTHREAD_ONCE_INIT;

/* Whether path answers --help as the translator does. */
static bool probe(const char *path)
{
   struct kiln_spirv_tool t = {0};
   if ((size_t)snprintf(t.path, sizeof(t.path), "%s", path) >= sizeof(t.path))
      return false;
   struct workdir w;
   if (!workdir_open(&w))
      return false;
   char *argv[] = {t.path, "--help", NULL};
   size_t size;
   char *help = run(argv, w.msg) == 0 ? read_file(w.msg, &size) : NULL;
   workdir_close(&w);
   if (help && strstr(help, "SPIR-V") && strstr(help, "-r "))
      parse_versions(&t, help);
   kiln_free(help);
   if (!t.num_versions || t.minor[0] != 0)
      return false;
   size_t n = 0;
   for (unsigned i = 0; i < t.num_versions; i++)
      n += (size_t)snprintf(t.versions + n, sizeof(t.versions) - n, "%sSPIR-V_1.%u",
                            i ? " " : "", t.minor[i]);
   found = t;
   return true;
}

static void lookup(void)
{
   const char *env = getenv("KILN_LLVM_SPIRV");
   if (env && *env) {
      /* Named: that tool or none (no fallback, so that a test can turn IL
       * off by naming something that is not there). */
      have_tool = !kiln_env_off(env) && executable(env) && probe(env);
   } else {
      /* Translators of LLVM 14 and 15 write bitcode LLVM 19 reads; newer
       * ones would too, but Debian 12 has these. */
      static const char *const candidates[] = {
         "/usr/bin/llvm-spirv-15",          "/usr/lib/llvm-15/bin/llvm-spirv",
         "/usr/local/bin/llvm-spirv-15",    "/usr/bin/llvm-spirv-14",
         "/usr/lib/llvm-14/bin/llvm-spirv", "/usr/local/bin/llvm-spirv-14",
      };
      for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]) && !have_tool; i++)
         have_tool = executable(candidates[i]) && probe(candidates[i]);
   }
}

const struct kiln_spirv_tool *kiln_spirv_tool(void)
{
   pthread_once(&lookup_once, lookup);
   return have_tool ? &found : NULL;
}

bool kiln_spirv_header_ok(const struct kiln_spirv_tool *tool, const void *il, size_t size)
{
   /* Magic, version, generator, bound, schema: five words. */
   if (!tool || size < 20 || size % 4)
      return false;
   uint32_t w[2];
   memcpy(w, il, sizeof(w));
   if (w[0] != SPIRV_MAGIC || (w[1] >> 16) != 1 || (w[1] & 0xff0000ffu))
      return false;
   unsigned minor = (w[1] >> 8) & 0xff;
   for (unsigned i = 0; i < tool->num_versions; i++)
      if (tool->minor[i] == minor)
         return true;
   return false;
}

/* Appends the tool's messages to the log, each line marked as its. */
static void log_messages(struct kiln_build_log *log, const char *path)
{
   size_t size;
   char *text = read_file(path, &size);
   if (!text)
      return;
   for (char *line = text; *line;) {
      char *end = strchr(line, '\n');
      if (end)
         *end = 0;
      if (*line)
         kiln_build_log_append(log, "llvm-spirv: %s\n", line);
      if (!end)
         break;
      line = end + 1;
   }
   kiln_free(text);
}

enum kiln_build_status kiln_spirv_translate(const struct kiln_spirv_tool *tool, const void *il,
                                            size_t size, const char *spec_consts,
                                            void **bitcode, size_t *bitcode_size,
                                            struct kiln_build_log *log)
{
   *bitcode = NULL;
   *bitcode_size = 0;
   struct workdir w;
   if (!workdir_open(&w)) {
      kiln_build_log_append(log, "error: no directory for the SPIR-V translator: %s\n",
                            strerror(errno));
      return KILN_BUILD_FAILED;
   }
   enum kiln_build_status st = KILN_BUILD_FAILED;
   if (!write_file(w.in, il, size)) {
      kiln_build_log_append(log, "error: could not write the IL for the translator: %s\n",
                            strerror(errno));
   } else {
      char path[sizeof(tool->path)];
      memcpy(path, tool->path, sizeof(path));
      /* OpenCL C 1.2's builtin names: Kiln's library has every one of
       * them (2.0's would name work_group_barrier and C11 atomics). */
      char *argv[] = {path, "-r", "--spirv-target-env=CL1.2", "-o", w.out, w.in,
                      (char *)spec_consts, NULL};
      int rc = run(argv, w.msg);
      log_messages(log, w.msg);
      size_t n = 0;
      char *bc = rc == 0 ? read_file(w.out, &n) : NULL;
      if (rc == 0 && bc && n) {
         *bitcode = bc;
         *bitcode_size = n;
         st = KILN_BUILD_OK;
      } else {
         kiln_free(bc);
         if (rc < 0)
            kiln_build_log_append(log, "error: the SPIR-V translator %s did not run to its "
                                  "end\n", tool->path);
         else
            kiln_build_log_append(log, "error: the SPIR-V translator %s could not read the "
                                  "IL (exit status %d)\n", tool->path, rc);
      }
   }
   workdir_close(&w);
   return st;
}

int kiln_spirv_spec_constants(const struct kiln_spirv_tool *tool, const void *il, size_t size,
                              unsigned *ids, unsigned *sizes, int max)
{
   struct workdir w;
   if (!workdir_open(&w))
      return -1;
   int count = -1;
   if (write_file(w.in, il, size)) {
      char path[sizeof(tool->path)];
      memcpy(path, tool->path, sizeof(path));
      char *argv[] = {path, "--spec-const-info", w.in, NULL};
      size_t n;
      char *text = run(argv, w.msg) == 0 ? read_file(w.msg, &n) : NULL;
      /* "Spec const id = 7, size in bytes = 4" per constant. */
      for (const char *p = text; p && (p = strstr(p, "Spec const id = "));) {
         unsigned id, bytes;
         if (sscanf(p, "Spec const id = %u, size in bytes = %u", &id, &bytes) == 2) {
            if (count < 0)
               count = 0;
            if (count < max) {
               ids[count] = id;
               sizes[count] = bytes;
            }
            count++;
         }
         p += 16;
      }
      if (text && count < 0 && strstr(text, "= 0"))
         count = 0;
      kiln_free(text);
   }
   workdir_close(&w);
   return count < max ? count : max;
}
