#include "kk.h"

#include <dirent.h>
#include <stdarg.h>

void kk_known_bug_at(const char *file, int line, const char *cond, const char *fmt, ...)
{
   char msg[512];
   va_list ap;
   va_start(ap, fmt);
   vsnprintf(msg, sizeof(msg), fmt, ap);
   va_end(ap);
   const char *why = msg;
   while (*why == ' ')
      why++;
   flockfile(stderr);
   fprintf(stderr, "KNOWN BUG %s:%d: '%s' failed%s%s\n", file, line, cond, *why ? ": " : "",
           why);
   funlockfile(stderr);
}

void kk_known_fixed_at(const char *file, int line, const char *cond)
{
   fprintf(stderr, "KNOWN BUG FIXED? %s:%d: '%s' now holds; remove the KNOWN_BUG marker\n",
           file, line, cond);
}

char *kk_build_log(cl_program p, cl_device_id dev)
{
   size_t n = 0;
   cl_int err = clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
   char *log = calloc(n + 1, 1);
   REQUIRE(log);
   if (err == CL_SUCCESS && n)
      err = clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL);
   if (err != CL_SUCCESS)
      KT_FAIL("clGetProgramBuildInfo(LOG) returned %s", kt_err_name(err));
   return log;
}

char *kk_build_options(cl_program p, cl_device_id dev)
{
   size_t n = 0;
   cl_int err = clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_OPTIONS, 0, NULL, &n);
   char *s = calloc(n + 1, 1);
   REQUIRE(s);
   if (err == CL_SUCCESS && n)
      err = clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_OPTIONS, n, s, NULL);
   if (err != CL_SUCCESS)
      KT_FAIL("clGetProgramBuildInfo(OPTIONS) returned %s", kt_err_name(err));
   return s;
}

cl_build_status kk_build_status(cl_program p, cl_device_id dev)
{
   cl_build_status st = 12345;
   cl_int err = clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_STATUS, sizeof(st), &st, NULL);
   if (err != CL_SUCCESS)
      KT_FAIL("clGetProgramBuildInfo(STATUS) returned %s", kt_err_name(err));
   return st;
}

cl_int kk_try_build(const struct kt_env *env, const char *src, const char *options,
                    cl_program *out)
{
   cl_int err;
   cl_program p = clCreateProgramWithSource(env->context, 1, &src, NULL, &err);
   *out = p;
   if (!p || err != CL_SUCCESS) {
      KT_FAIL("clCreateProgramWithSource returned %s", kt_err_name(err));
      return err;
   }
   return clBuildProgram(p, 1, &env->device, options, NULL, NULL);
}

cl_program kk_build_at(const char *file, int line, const struct kt_env *env, const char *src,
                       const char *options)
{
   cl_program p;
   cl_int err = kk_try_build(env, src, options, &p);
   if (err != CL_SUCCESS) {
      char *log = p ? kk_build_log(p, env->device) : strdup("");
      kt_die_at(file, line, "clBuildProgram(\"%s\") returned %s; log:\n%s",
                options ? options : "", kt_err_name(err), log);
   }
   return p;
}

cl_kernel kk_kernel_at(const char *file, int line, cl_program p, const char *name)
{
   cl_int err;
   cl_kernel k = clCreateKernel(p, name, &err);
   if (!k || err != CL_SUCCESS)
      kt_die_at(file, line, "clCreateKernel(%s) returned %s", name, kt_err_name(err));
   return k;
}

cl_int kk_run(const struct kt_env *env, cl_kernel k, cl_uint dim, const size_t *offset,
              const size_t *global, const size_t *local)
{
   cl_event ev = NULL;
   cl_int err = clEnqueueNDRangeKernel(env->queue, k, dim, offset, global, local, 0, NULL, &ev);
   if (err != CL_SUCCESS)
      return err;
   REQUIRE_OK(clWaitForEvents(1, &ev));
   cl_int st = kt_status(ev);
   CHECK(st == CL_COMPLETE, " kernel ended with %s", kt_err_name(st));
   CHECK_OK(clReleaseEvent(ev));
   return CL_SUCCESS;
}

cl_mem kk_buffer_in(const struct kt_env *env, size_t size, const void *host)
{
   cl_mem m = kt_buffer(env->context, CL_MEM_READ_WRITE, size, NULL);
   if (host) {
      REQUIRE_OK(clEnqueueWriteBuffer(env->queue, m, CL_TRUE, 0, size, host, 0, NULL, NULL));
   } else {
      void *z = calloc(1, size);
      REQUIRE(z);
      REQUIRE_OK(clEnqueueWriteBuffer(env->queue, m, CL_TRUE, 0, size, z, 0, NULL, NULL));
      free(z);
   }
   return m;
}

void kk_read(const struct kt_env *env, cl_mem m, size_t size, void *host)
{
   REQUIRE_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, size, host, 0, NULL, NULL));
}

static int64_t ordered(float f)
{
   int32_t i;
   memcpy(&i, &f, sizeof(i));
   return i < 0 ? (int64_t)INT32_MIN - i : i;
}

int64_t kk_ulps(float got, float want)
{
   if (isnan(got) || isnan(want))
      return isnan(got) && isnan(want) ? 0 : INT64_MAX;
   int64_t d = ordered(got) - ordered(want);
   return d < 0 ? -d : d;
}

#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

int kk_child(const char *name, int timeout_s)
{
   char t[16];
   snprintf(t, sizeof(t), "%d", timeout_s);
   /* The child's kt_setup arms its watchdog from this. */
   char *old = getenv("KT_WATCHDOG_S");
   char *saved = old ? strdup(old) : NULL;
   setenv("KT_WATCHDOG_S", t, 1);
   char *argv[] = {"/proc/self/exe", "--child", (char *)name, NULL};
   printf("running case '%s' in a child process (watchdog %d s)\n", name, timeout_s);
   fflush(stdout);
   pid_t pid;
   int rc = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, environ);
   if (saved) {
      setenv("KT_WATCHDOG_S", saved, 1);
      free(saved);
   } else {
      unsetenv("KT_WATCHDOG_S");
   }
   REQUIRE(rc == 0, " posix_spawn: %d", rc);
   int ws = 0;
   REQUIRE(waitpid(pid, &ws, 0) == pid);
   if (WIFSIGNALED(ws))
      return 128 + WTERMSIG(ws);
   return WEXITSTATUS(ws);
}

bool kk_next_line_in(FILE *f, const char *fn, char *line, size_t size, bool *in)
{
   while (fgets(line, (int)size, f)) {
      if (!strncmp(line, "define ", 7))
         *in = strstr(line, fn) != NULL;
      else if (line[0] == '}')
         *in = false;
      if (*in)
         return true;
   }
   return false;
}

void kk_dump_begin(char *dir_template)
{
   REQUIRE(mkdtemp(dir_template), "mkdtemp failed");
   setenv("KILN_DUMP", dir_template, 1);
}

void kk_dump_end(const char *dir)
{
   char cmd[4200];
   snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
   if (system(cmd))
      fprintf(stderr, "could not remove %s\n", dir);
}

int kk_each_dumped_ir(const char *dir, const char *kernel, void (*fn)(FILE *f, void *arg),
                      void *arg)
{
   DIR *d = opendir(dir);
   if (!d)
      return -1;
   char suffix[128];
   snprintf(suffix, sizeof(suffix), "-%s.opt.ll", kernel);
   size_t slen = strlen(suffix);
   int files = 0;
   for (struct dirent *e; (e = readdir(d));) {
      size_t len = strlen(e->d_name);
      if (len < slen || strcmp(e->d_name + len - slen, suffix))
         continue;
      char path[1024];
      snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
      FILE *f = fopen(path, "r");
      if (!f)
         continue;
      files++;
      fn(f, arg);
      fclose(f);
   }
   closedir(d);
   return files;
}

struct ir_match {
   bool (*match)(const char *);
   bool found;
};

static void match_lines(FILE *f, void *arg)
{
   struct ir_match *m = arg;
   char line[4096];
   while (fgets(line, sizeof(line), f))
      m->found |= m->match(line);
}

int kk_dumped_ir_matches(const char *dir, const char *kernel, bool (*match)(const char *line))
{
   struct ir_match m = {match, false};
   return kk_each_dumped_ir(dir, kernel, match_lines, &m) > 0 ? m.found : -1;
}
