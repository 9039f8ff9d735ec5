/* The compile cache (docs/cache.md) as applications see it: each case
 * runs builds in fresh processes of this program (`--run ...`), with
 * KILN_CACHE_DIR in a temporary directory and KILN_DEBUG=compile written
 * to a log file, and checks from that log whether the build hit, missed,
 * stored or threw an entry away, and from the kernel's results that the
 * code was right either way.  Builds, compiles and links alike. */
#include <dirent.h>
#include <pthread.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kk.h"

extern char **environ;

static char root[64];
static char log_path[128];

/* Kernel variant v computes v * 100 + VAL + id; with include, VAL comes
 * from "val.h" (found through -I). */
static char *variant_source(int v, bool include)
{
   char *s = malloc(512);
   REQUIRE(s);
   snprintf(s, 512,
            "%s#ifndef VAL\n#define VAL 0\n#endif\n"
            "__kernel void k(__global int *o)\n"
            "{ int i = get_global_id(0); o[i] = %d * 100 + VAL + i; }\n",
            include ? "#include \"val.h\"\n" : "", v);
   return s;
}

struct thread_build {
   struct kt_env *env;
   int variant;
   bool ok;
};

/* One of several threads building the same program at once. */
static void *thread_build(void *arg)
{
   struct thread_build *t = arg;
   char *src = variant_source(t->variant, false);
   const char *s = src;
   cl_int err;
   cl_program p = clCreateProgramWithSource(t->env->context, 1, &s, NULL, &err);
   t->ok = !err && !clBuildProgram(p, 1, &t->env->device, "", NULL, NULL);
   cl_kernel k = t->ok ? clCreateKernel(p, "k", &err) : NULL;
   t->ok = t->ok && k && !err;
   cl_command_queue q = clCreateCommandQueue(t->env->context, t->env->device, 0, &err);
   int out[16] = {0};
   cl_mem m = clCreateBuffer(t->env->context, CL_MEM_WRITE_ONLY, sizeof(out), NULL, &err);
   size_t global = 16;
   t->ok = t->ok && q && m && !clSetKernelArg(k, 0, sizeof(m), &m) &&
           !clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL) &&
           !clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL);
   for (int i = 0; t->ok && i < 16; i++)
      t->ok = out[i] == t->variant * 100 + i;
   if (m)
      clReleaseMemObject(m);
   if (q)
      clReleaseCommandQueue(q);
   if (k)
      clReleaseKernel(k);
   clReleaseProgram(p);
   free(src);
   return NULL;
}

/* Child: 4 threads build variants 6 and 7 (two each) at once. */
static int child_threads(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   struct thread_build t[4];
   pthread_t th[4];
   for (int i = 0; i < 4; i++) {
      t[i] = (struct thread_build){&env, 6 + i % 2, false};
      REQUIRE(pthread_create(&th[i], NULL, thread_build, &t[i]) == 0);
   }
   for (int i = 0; i < 4; i++) {
      pthread_join(th[i], NULL);
      CHECK(t[i].ok, "thread %d (variant %d) failed", i, t[i].variant);
   }
   kt_teardown(&env);
   return kt_result();
}

/* Child: builds each "variant[:include]" of argv with options, runs it
 * and checks the results against expect (v * 100 + expect).  Exit 0 when
 * all were right. */
static int child_run(int argc, char **argv)
{
   const char *options = argv[2];
   int val = atoi(argv[3]);
   /* A build that hangs (a FIFO in the cache, say) fails the test. */
   alarm(90);
   struct kt_env env;
   kt_setup(&env, 0);
   for (int a = 4; a < argc; a++) {
      int v = atoi(argv[a]);
      bool include = strchr(argv[a], 'i') != NULL;
      char *src = variant_source(v, include);
      cl_int err;
      const char *s = src;
      cl_program p = clCreateProgramWithSource(env.context, 1, &s, NULL, &err);
      REQUIRE_OK(err);
      err = clBuildProgram(p, 1, &env.device, options, NULL, NULL);
      if (err) {
         char *log = kk_build_log(p, env.device);
         KT_FAIL("build of variant %d failed (%s): %s", v, kt_err_name(err), log);
         free(log);
         return 1;
      }
      cl_kernel k = kk_kernel(p, "k");
      enum { N = 64 };
      int out[N];
      cl_mem m = clCreateBuffer(env.context, CL_MEM_WRITE_ONLY, sizeof(out), NULL, &err);
      REQUIRE_OK(err);
      KK_ARG(k, 0, m);
      size_t global = N;
      KK_RUN(&env, k, 1, NULL, &global, NULL);
      kk_read(&env, m, sizeof(out), out);
      for (int i = 0; i < N; i++)
         CHECK(out[i] == v * 100 + val + i, "variant %d: out[%d] = %d, want %d", v, i, out[i],
               v * 100 + val + i);
      clReleaseMemObject(m);
      clReleaseKernel(k);
      clReleaseProgram(p);
      free(src);
   }
   kt_teardown(&env);
   return kt_result();
}

/* Quiet children run without KILN_DEBUG and KILN_LOG, their stderr in
 * stderr_path: what a user sees. */
static bool quiet;
static char stderr_path[128];

/* Runs `<self> argv...` with the cache in dir (and the extra NAME=value
 * settings), its log in log_path (or, quiet, its stderr in stderr_path). */
static pid_t spawn_args(const char *dir, const char *extra, char **argv)
{
   setenv("KILN_CACHE_DIR", dir, 1);
   if (quiet) {
      unsetenv("KILN_DEBUG");
      unsetenv("KILN_LOG");
   } else {
      setenv("KILN_DEBUG", "compile", 1);
      setenv("KILN_LOG", log_path, 1);
   }
   unsetenv("KILN_CACHE");
   unsetenv("KILN_CACHE_SIZE");
   char extra_copy[256] = "";
   snprintf(extra_copy, sizeof(extra_copy), "%s", extra ? extra : "");
   for (char *save, *tok = strtok_r(extra_copy, " ", &save); tok;
        tok = strtok_r(NULL, " ", &save)) {
      char *eq = strchr(tok, '=');
      *eq = 0;
      if (eq[1] == '-' && !eq[2])
         unsetenv(tok); /* NAME=- */
      else
         setenv(tok, eq + 1, 1);
   }
   posix_spawn_file_actions_t fa;
   REQUIRE(posix_spawn_file_actions_init(&fa) == 0);
   if (quiet)
      REQUIRE(posix_spawn_file_actions_addopen(&fa, 2, stderr_path,
                                               O_WRONLY | O_CREAT | O_TRUNC, 0600) == 0);
   pid_t pid;
   REQUIRE(posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, environ) == 0);
   posix_spawn_file_actions_destroy(&fa);
   return pid;
}

/* Child: clCompileProgram + clLinkProgram as hashcat builds: "main"
 * includes val.h, given to clCompileProgram as a header program holding
 * "#define VAL <val>"; "helper" is compiled alone and linked into a
 * library; main and the library link into the executable, whose kernel
 * must compute 2 * i + val. */
static int child_compile_link(int val)
{
   alarm(90);
   struct kt_env env;
   kt_setup(&env, 0);
   static const char *main_src = "#include \"val.h\"\n"
                                 "int helper(int i);\n"
                                 "__kernel void k(__global int *o)\n"
                                 "{ int i = get_global_id(0); o[i] = helper(i) + VAL; }\n";
   static const char *helper_src = "int helper(int i) { return 2 * i; }\n";
   char header[64];
   snprintf(header, sizeof(header), "#define VAL %d\n", val);
   const char *h_text = header, *name = "val.h";
   cl_int err;
   cl_program h = clCreateProgramWithSource(env.context, 1, &h_text, NULL, &err);
   REQUIRE_OK(err);
   cl_program a = clCreateProgramWithSource(env.context, 1, &main_src, NULL, &err);
   REQUIRE_OK(err);
   cl_program b = clCreateProgramWithSource(env.context, 1, &helper_src, NULL, &err);
   REQUIRE_OK(err);
   REQUIRE_OK(clCompileProgram(a, 1, &env.device, "", 1, &h, &name, NULL, NULL));
   REQUIRE_OK(clCompileProgram(b, 1, &env.device, "", 0, NULL, NULL, NULL, NULL));
   cl_program lib = clLinkProgram(env.context, 1, &env.device, "-create-library", 1, &b, NULL,
                                  NULL, &err);
   REQUIRE_OK(err);
   cl_program in[2] = {a, lib};
   cl_program exe = clLinkProgram(env.context, 1, &env.device, "", 2, in, NULL, NULL, &err);
   REQUIRE_OK(err);
   cl_kernel k = kk_kernel(exe, "k");
   enum { N = 32 };
   int out[N];
   cl_mem m = clCreateBuffer(env.context, CL_MEM_WRITE_ONLY, sizeof(out), NULL, &err);
   REQUIRE_OK(err);
   KK_ARG(k, 0, m);
   size_t global = N;
   KK_RUN(&env, k, 1, NULL, &global, NULL);
   kk_read(&env, m, sizeof(out), out);
   for (int i = 0; i < N; i++)
      CHECK(out[i] == 2 * i + val, "out[%d] = %d, want %d", i, out[i], 2 * i + val);
   clReleaseMemObject(m);
   clReleaseKernel(k);
   clReleaseProgram(exe);
   clReleaseProgram(lib);
   clReleaseProgram(b);
   clReleaseProgram(a);
   clReleaseProgram(h);
   kt_teardown(&env);
   return kt_result();
}

/* Runs `<self> --run options val variants...` (spawn_args); returns its
 * pid. */
static pid_t spawn_run(const char *dir, const char *extra, const char *options, int val,
                       const char *variants)
{
   char val_s[16], variants_copy[128];
   snprintf(val_s, sizeof(val_s), "%d", val);
   snprintf(variants_copy, sizeof(variants_copy), "%s", variants);
   char *argv[16] = {"/proc/self/exe", "--run", (char *)options, val_s};
   int n = 4;
   for (char *save, *tok = strtok_r(variants_copy, " ", &save); tok && n < 15;
        tok = strtok_r(NULL, " ", &save))
      argv[n++] = tok;
   argv[n] = NULL;
   return spawn_args(dir, extra, argv);
}

static int wait_child(pid_t pid)
{
   int ws;
   REQUIRE(waitpid(pid, &ws, 0) == pid);
   return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

static char *read_file(const char *path)
{
   FILE *f = fopen(path, "rb");
   if (!f)
      return strdup("");
   char *buf = calloc(1, 1 << 20);
   REQUIRE(buf);
   size_t n = fread(buf, 1, (1 << 20) - 1, f);
   buf[n] = 0;
   fclose(f);
   return buf;
}

static int count(const char *text, const char *what)
{
   int n = 0;
   for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
      n++;
   return n;
}

struct result {
   int status;
   int hits, misses, stored, bad, changed;
   char *log;
};

static struct result finish(pid_t pid, const char *what)
{
   struct result r = {0};
   r.status = wait_child(pid);
   r.log = read_file(quiet ? stderr_path : log_path);
   r.hits = count(r.log, "cache: hit ");
   r.misses = count(r.log, "cache: miss ");
   r.stored = count(r.log, "cache: stored ");
   r.bad = count(r.log, "ignored and removed");
   r.changed = count(r.log, "changed; rebuilding");
   CHECK(r.status == 0, "child (%s) exited %d; log:\n%s", what, r.status, r.log);
   return r;
}

static struct result run(const char *dir, const char *extra, const char *options, int val,
                         const char *variants)
{
   unlink(log_path);
   char what[400];
   snprintf(what, sizeof(what), "%s, options '%s', variants %s", dir, options, variants);
   return finish(spawn_run(dir, extra, options, val, variants), what);
}

#define EXPECT(r, h, m, s)                                                                   \
   CHECK((r).hits == (h) && (r).misses == (m) && (r).stored == (s),                          \
         "want %d hits, %d misses, %d stored; got %d, %d, %d; log:\n%s", h, m, s, (r).hits,  \
         (r).misses, (r).stored, (r).log)

static void sub(char *out, size_t size, const char *name)
{
   snprintf(out, size, "%s/%s", root, name);
}

static int entries(const char *dir, char *first, size_t size, int *temps)
{
   DIR *d = opendir(dir);
   int n = 0;
   if (temps)
      *temps = 0;
   if (!d)
      return 0;
   for (struct dirent *e; (e = readdir(d));) {
      if (strlen(e->d_name) == 68) {
         if (first && !n)
            snprintf(first, size, "%s/%s", dir, e->d_name);
         n++;
      }
      if (temps && !strncmp(e->d_name, ".tmp-", 5))
         (*temps)++;
   }
   closedir(d);
   return n;
}

static void hit_miss(void)
{
   char dir[128];
   sub(dir, sizeof(dir), "hm");
   struct result r = run(dir, NULL, "", 0, "1");
   EXPECT(r, 0, 1, 1);
   free(r.log);
   CHECK(entries(dir, NULL, 0, NULL) == 1, "one entry after one build");
   struct stat st;
   REQUIRE(stat(dir, &st) == 0);
   CHECK((st.st_mode & 0777) == 0700, "cache directory mode %o", st.st_mode & 0777);
   r = run(dir, NULL, "", 0, "1");
   EXPECT(r, 1, 0, 0);
   free(r.log);
   /* Another source, other options: misses; each then hits. */
   r = run(dir, NULL, "", 0, "2");
   EXPECT(r, 0, 1, 1);
   free(r.log);
   r = run(dir, NULL, "-DVAL=5", 5, "1");
   EXPECT(r, 0, 1, 1);
   free(r.log);
   r = run(dir, NULL, "-DVAL=6", 6, "1");
   EXPECT(r, 0, 1, 1);
   free(r.log);
   r = run(dir, NULL, "-DVAL=5", 5, "1 2 1");
   EXPECT(r, 2, 1, 1);
   free(r.log);
   /* The same source twice in one process: the second build hits. */
   r = run(dir, NULL, "-cl-mad-enable", 0, "3 3");
   EXPECT(r, 1, 1, 1);
   free(r.log);
}

static void write_text(const char *path, const char *text)
{
   FILE *f = fopen(path, "w");
   REQUIRE(f);
   fputs(text, f);
   fclose(f);
}

/* A header's contents are not in the key: the entry lists it, and a hit
 * needs it unchanged. */
static void headers(void)
{
   char dir[128], inc[128], hdr[160], opts[200];
   sub(dir, sizeof(dir), "hdr");
   sub(inc, sizeof(inc), "inc");
   REQUIRE(mkdir(inc, 0700) == 0);
   snprintf(hdr, sizeof(hdr), "%s/val.h", inc);
   snprintf(opts, sizeof(opts), "-I %s", inc);
   write_text(hdr, "#define VAL 7\n");
   struct result r = run(dir, NULL, opts, 7, "1i");
   EXPECT(r, 0, 1, 1);
   CHECK(strstr(r.log, "1 included files") != NULL, "the entry lists val.h:\n%s", r.log);
   free(r.log);
   r = run(dir, NULL, opts, 7, "1i");
   EXPECT(r, 1, 0, 0);
   free(r.log);
   write_text(hdr, "#define VAL 8\n");
   r = run(dir, NULL, opts, 8, "1i");
   CHECK(r.changed == 1, "the changed header is noticed:\n%s", r.log);
   EXPECT(r, 0, 1, 1); /* an entry that no longer matches is a miss */
   free(r.log);
   r = run(dir, NULL, opts, 8, "1i");
   EXPECT(r, 1, 0, 0);
   free(r.log);
}

static void flip_byte(const char *path, long at_from_end_or_middle, bool truncate_it)
{
   struct stat st;
   REQUIRE(stat(path, &st) == 0);
   if (truncate_it) {
      REQUIRE(truncate(path, st.st_size / 2) == 0);
      return;
   }
   int fd = open(path, O_RDWR);
   REQUIRE(fd >= 0);
   off_t at = at_from_end_or_middle >= 0 ? st.st_size / 2 : st.st_size - 1;
   unsigned char c;
   REQUIRE(pread(fd, &c, 1, at) == 1);
   c ^= 0x01;
   REQUIRE(pwrite(fd, &c, 1, at) == 1);
   close(fd);
}

/* A corrupted entry is never loaded: the build rebuilds and replaces it. */
static void corrupted(void)
{
   char dir[128], entry[300];
   sub(dir, sizeof(dir), "corrupt");
   struct result r = run(dir, NULL, "", 0, "4");
   EXPECT(r, 0, 1, 1);
   free(r.log);
   REQUIRE(entries(dir, entry, sizeof(entry), NULL) == 1);
   for (int how = 0; how < 3; how++) {
      flip_byte(entry, how == 1 ? -1 : 0, how == 2);
      r = run(dir, NULL, "", 0, "4");
      CHECK(r.bad == 1, "case %d: the corrupt entry is reported:\n%s", how, r.log);
      EXPECT(r, 0, 1, 1);
      free(r.log);
      r = run(dir, NULL, "", 0, "4");
      EXPECT(r, 1, 0, 0);
      free(r.log);
   }
}

static void disabled(void)
{
   char dir[128];
   sub(dir, sizeof(dir), "off");
   static const char *const offs[] = {"KILN_CACHE=0", "KILN_CACHE=off"};
   for (int i = 0; i < 2; i++) {
      struct result r = run(dir, offs[i], "", 0, "1 1");
      EXPECT(r, 0, 0, 0);
      CHECK(strstr(r.log, "cache: off") != NULL, "%s is logged:\n%s", offs[i], r.log);
      free(r.log);
      struct stat st;
      CHECK(stat(dir, &st) != 0, "%s: the directory was not created", offs[i]);
   }
}

static void eviction(void)
{
   char dir[128], entry[300];
   sub(dir, sizeof(dir), "evict");
   struct result r = run(dir, NULL, "", 0, "1");
   free(r.log);
   REQUIRE(entries(dir, entry, sizeof(entry), NULL) == 1);
   struct stat st;
   REQUIRE(stat(entry, &st) == 0);
   /* Room for two entries of this size, not three (the variants' entries
    * differ by a few bytes). */
   char size[64];
   snprintf(size, sizeof(size), "KILN_CACHE_SIZE=%lld", (long long)(st.st_size * 5 / 2));
   for (int v = 2; v <= 5; v++) {
      char vs[8];
      snprintf(vs, sizeof(vs), "%d", v);
      usleep(20000); /* distinct mtimes */
      r = run(dir, size, "", 0, vs);
      EXPECT(r, 0, 1, 1);
      free(r.log);
      int n = entries(dir, NULL, 0, NULL);
      CHECK(n == 2, "after variant %d: %d entries, want 2", v, n);
   }
   /* 4 and 5 stayed; 4 is used, so 5 goes first when 1 comes back. */
   r = run(dir, size, "", 0, "4");
   EXPECT(r, 1, 0, 0);
   free(r.log);
   usleep(20000);
   r = run(dir, size, "", 0, "1 4 5");
   CHECK(r.hits == 1 && r.misses == 2, "1 evicted, 4 kept, 5 evicted by 1:\n%s", r.log);
   free(r.log);
}

/* Several processes filling one cache with the same programs at once. */
static void concurrent(void)
{
   char dir[128];
   sub(dir, sizeof(dir), "concurrent");
   static const char *const orders[] = {"1 2 3", "3 2 1", "2 3 1", "1 3 2", "2 1 3", "3 1 2"};
   enum { PROCS = 6 };
   pid_t pids[PROCS];
   char logs[PROCS][160];
   for (int i = 0; i < PROCS; i++) {
      snprintf(logs[i], sizeof(logs[i]), "%s/concurrent-%d.log", root, i);
      snprintf(log_path, sizeof(log_path), "%s", logs[i]);
      pids[i] = spawn_run(dir, NULL, "", 0, orders[i]);
   }
   int total_bad = 0;
   for (int i = 0; i < PROCS; i++) {
      int st = wait_child(pids[i]);
      char *log = read_file(logs[i]);
      CHECK(st == 0, "process %d exited %d:\n%s", i, st, log);
      total_bad += count(log, "ignored and removed");
      free(log);
   }
   snprintf(log_path, sizeof(log_path), "%s/log", root);
   CHECK(total_bad == 0, "%d entries were seen half-written or corrupt", total_bad);
   int temps;
   int n = entries(dir, NULL, 0, &temps);
   CHECK(n == 3 && temps == 0, "%d entries (want 3), %d temporary files left", n, temps);
   struct result r = run(dir, NULL, "", 0, "1 2 3");
   EXPECT(r, 3, 0, 0);
   free(r.log);

   /* Threads of one process building the same programs at once, twice:
    * first into an empty cache, then from a full one. */
   sub(dir, sizeof(dir), "threads");
   for (int round = 0; round < 2; round++) {
      setenv("KILN_CACHE_DIR", dir, 1);
      setenv("KILN_DEBUG", "compile", 1);
      setenv("KILN_LOG", log_path, 1);
      unlink(log_path);
      char *argv[] = {"/proc/self/exe", "--threads", NULL};
      pid_t pid;
      REQUIRE(posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, environ) == 0);
      int st = wait_child(pid);
      char *log = read_file(log_path);
      CHECK(st == 0, "threads, round %d: exited %d:\n%s", round, st, log);
      CHECK(count(log, "ignored and removed") == 0, "threads: a bad entry:\n%s", log);
      if (round == 1)
         CHECK(count(log, "cache: hit ") == 4, "threads: 4 hits from a full cache:\n%s", log);
      free(log);
   }
   CHECK(entries(dir, NULL, 0, NULL) == 2, "threads: two entries");
}

/* A directory only this user may write to is used, whoever may read it
 * (0755 is what mkdir gives); one its group or others may write to is
 * refused, the build goes on without it, and the user is told once, on
 * stderr, however many programs the process builds. */
static void refused(void)
{
   char dir[128];
   sub(dir, sizeof(dir), "readable");
   REQUIRE(mkdir(dir, 0755) == 0);
   REQUIRE(chmod(dir, 0755) == 0);
   struct result r = run(dir, NULL, "", 0, "1");
   EXPECT(r, 0, 1, 1);
   free(r.log);
   r = run(dir, NULL, "", 0, "1");
   EXPECT(r, 1, 0, 0);
   free(r.log);

   sub(dir, sizeof(dir), "loose");
   REQUIRE(mkdir(dir, 0775) == 0);
   REQUIRE(chmod(dir, 0775) == 0);
   r = run(dir, NULL, "", 0, "1 2 3");
   EXPECT(r, 0, 0, 0);
   CHECK(strstr(r.log, "refusing") != NULL, "the refusal is logged:\n%s", r.log);
   free(r.log);
   CHECK(entries(dir, NULL, 0, NULL) == 0, "nothing written into a loose directory");
   quiet = true;
   r = run(dir, NULL, "", 0, "1 2 3");
   int lines = count(r.log, "\n"), said = count(r.log, "compile cache is off");
   CHECK(said == 1 && lines == 1 && strstr(r.log, dir) && strstr(r.log, "write"),
         "one line on stderr names the directory and why; stderr:\n%s", r.log);
   free(r.log);
   /* The user's wish: KILN_CACHE=0 is silent, and so is a usable cache. */
   r = run(dir, "KILN_CACHE=0", "", 0, "1");
   CHECK(r.log[0] == 0, "KILN_CACHE=0 is silent; stderr:\n%s", r.log);
   free(r.log);
   sub(dir, sizeof(dir), "readable");
   r = run(dir, NULL, "", 0, "1");
   CHECK(r.log[0] == 0, "a usable cache is silent; stderr:\n%s", r.log);
   free(r.log);
   /* The default directory ($HOME/.cache/kiln): refused when it exists
    * (an earlier run or the user made it), so the user is told; when it
    * cannot even be made (a read-only home), the cache is off quietly. */
   char home[128], made[200];
   sub(home, sizeof(home), "home");
   REQUIRE(mkdir(home, 0700) == 0);
   snprintf(made, sizeof(made), "%s/.cache", home);
   REQUIRE(mkdir(made, 0700) == 0);
   snprintf(made, sizeof(made), "%s/.cache/kiln", home);
   REQUIRE(mkdir(made, 0777) == 0);
   REQUIRE(chmod(made, 0777) == 0);
   char extra[200];
   snprintf(extra, sizeof(extra), "HOME=%s XDG_CACHE_HOME=-", home);
   r = run("", extra, "", 0, "1 2");
   CHECK(count(r.log, "compile cache is off") == 1 && strstr(r.log, made),
         "the refused default directory is reported once; stderr:\n%s", r.log);
   free(r.log);
   if (geteuid() != 0) {
      sub(home, sizeof(home), "readonly-home");
      REQUIRE(mkdir(home, 0500) == 0);
      snprintf(extra, sizeof(extra), "HOME=%s XDG_CACHE_HOME=-", home);
      r = run("", extra, "", 0, "1");
      CHECK(r.log[0] == 0, "no cache directory can be made: quiet; stderr:\n%s", r.log);
      free(r.log);
      /* ... unless KILN_CACHE=1 asked for the cache. */
      snprintf(extra, sizeof(extra), "HOME=%s XDG_CACHE_HOME=- KILN_CACHE=1", home);
      r = run("", extra, "", 0, "1");
      CHECK(count(r.log, "compile cache is off") == 1,
            "KILN_CACHE=1 without a directory is reported; stderr:\n%s", r.log);
      free(r.log);
   }
   quiet = false;
   /* A file where the directory should be. */
   char file[128];
   sub(file, sizeof(file), "file");
   write_text(file, "");
   char under[160];
   snprintf(under, sizeof(under), "%s/cache", file);
   r = run(under, NULL, "", 0, "1");
   EXPECT(r, 0, 0, 0);
   free(r.log);
   /* Neither KILN_CACHE_DIR nor a usable home: off, builds fine. */
   r = run("", "HOME=relative XDG_CACHE_HOME=also-relative", "", 0, "1");
   EXPECT(r, 0, 0, 0);
   free(r.log);
}

/* Separate compilation is cached as builds are: a second compile + link
 * in a fresh process compiles and links nothing; a header given to
 * clCompileProgram with other contents is a miss for the program that
 * includes it (and so for the link), not for the others. */
static struct result run_compile_link(const char *dir, int val)
{
   unlink(log_path);
   char val_s[16];
   snprintf(val_s, sizeof(val_s), "%d", val);
   char *argv[] = {"/proc/self/exe", "--compile-link", val_s, NULL};
   return finish(spawn_args(dir, NULL, argv), "compile-link");
}

static void compile_link(void)
{
   char dir[128];
   sub(dir, sizeof(dir), "compile-link");
   /* Compile main, compile helper, link the library, link the program. */
   struct result r = run_compile_link(dir, 3);
   EXPECT(r, 0, 4, 4);
   free(r.log);
   CHECK(entries(dir, NULL, 0, NULL) == 4, "four entries");
   r = run_compile_link(dir, 3);
   EXPECT(r, 4, 0, 0);
   free(r.log);
   /* val.h changes: main and the program miss; helper and library hit. */
   r = run_compile_link(dir, 4);
   EXPECT(r, 2, 2, 2);
   free(r.log);
   r = run_compile_link(dir, 4);
   EXPECT(r, 4, 0, 0);
   free(r.log);
   r = run_compile_link(dir, 3);
   EXPECT(r, 4, 0, 0);
   free(r.log);
}

/* A FIFO at an entry's name (nobody writes to it): opening it to read
 * must not block the build; it is no entry, so it is removed and the
 * build stores a real one.  The child's alarm fails a hang. */
static void fifo(void)
{
   char dir[128], entry[300];
   sub(dir, sizeof(dir), "fifo");
   struct result r = run(dir, NULL, "", 0, "5");
   EXPECT(r, 0, 1, 1);
   free(r.log);
   REQUIRE(entries(dir, entry, sizeof(entry), NULL) == 1);
   REQUIRE(unlink(entry) == 0);
   REQUIRE(mkfifo(entry, 0600) == 0);
   r = run(dir, NULL, "", 0, "5");
   CHECK(r.bad == 1, "the FIFO is refused:\n%s", r.log);
   EXPECT(r, 0, 1, 1);
   free(r.log);
   struct stat st;
   CHECK(lstat(entry, &st) == 0 && S_ISREG(st.st_mode), "a real entry replaced the FIFO");
   r = run(dir, NULL, "", 0, "5");
   EXPECT(r, 1, 0, 0);
   free(r.log);
}

int main(int argc, char **argv)
{
   if (argc >= 4 && !strcmp(argv[1], "--run"))
      return child_run(argc, argv);
   if (argc == 2 && !strcmp(argv[1], "--threads"))
      return child_threads();
   if (argc == 3 && !strcmp(argv[1], "--compile-link"))
      return child_compile_link(atoi(argv[2]));
   snprintf(root, sizeof(root), "/tmp/kiln-test-cache-XXXXXX");
   REQUIRE(mkdtemp(root));
   snprintf(log_path, sizeof(log_path), "%s/log", root);
   snprintf(stderr_path, sizeof(stderr_path), "%s/stderr", root);
   hit_miss();
   headers();
   corrupted();
   disabled();
   eviction();
   concurrent();
   refused();
   compile_link();
   fifo();
   if (kt_result() == 0) {
      char cmd[128];
      snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
      if (system(cmd))
         printf("could not remove %s\n", root);
   } else {
      printf("left %s for inspection\n", root);
   }
   return kt_result();
}
