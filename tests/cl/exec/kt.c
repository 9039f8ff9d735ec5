#include "kt.h"

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Checks may fail on callback or worker threads too. */
static atomic_int failures;

void kt_fail_at(const char *file, int line, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   flockfile(stderr);
   fprintf(stderr, "FAIL %s:%d: ", file, line);
   vfprintf(stderr, fmt, ap);
   fputc('\n', stderr);
   funlockfile(stderr);
   va_end(ap);
   atomic_fetch_add(&failures, 1);
}

void kt_die_at(const char *file, int line, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   fprintf(stderr, "FATAL %s:%d: ", file, line);
   vfprintf(stderr, fmt, ap);
   fputc('\n', stderr);
   va_end(ap);
   exit(1);
}

/* fmt starts with a space (see CHECK), which separates it from cond. */
void kt_check_at(const char *file, int line, bool fatal, const char *cond, const char *fmt, ...)
{
   char msg[512];
   va_list ap;
   va_start(ap, fmt);
   vsnprintf(msg, sizeof(msg), fmt, ap);
   va_end(ap);
   const char *why = msg;
   while (*why == ' ')
      why++;
   if (fatal)
      kt_die_at(file, line, "requirement '%s' failed%s%s", cond, *why ? ": " : "", why);
   kt_fail_at(file, line, "check '%s' failed%s%s", cond, *why ? ": " : "", why);
}

int kt_result(void)
{
   int n = atomic_load(&failures);
   if (n)
      fprintf(stderr, "%d check(s) failed\n", n);
   else
      printf("all checks passed\n");
   return n ? 1 : 0;
}

const char *kt_err_name(cl_int err)
{
   switch (err) {
#define E(x) case x: return #x;
   E(CL_SUCCESS) E(CL_SUBMITTED) E(CL_RUNNING) E(CL_QUEUED)
   E(CL_DEVICE_NOT_FOUND) E(CL_DEVICE_NOT_AVAILABLE)
   E(CL_COMPILER_NOT_AVAILABLE) E(CL_MEM_OBJECT_ALLOCATION_FAILURE)
   E(CL_OUT_OF_RESOURCES) E(CL_OUT_OF_HOST_MEMORY)
   E(CL_PROFILING_INFO_NOT_AVAILABLE) E(CL_MEM_COPY_OVERLAP)
   E(CL_IMAGE_FORMAT_MISMATCH) E(CL_IMAGE_FORMAT_NOT_SUPPORTED)
   E(CL_BUILD_PROGRAM_FAILURE) E(CL_MAP_FAILURE)
   E(CL_MISALIGNED_SUB_BUFFER_OFFSET) E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
   E(CL_INVALID_VALUE) E(CL_INVALID_DEVICE_TYPE) E(CL_INVALID_PLATFORM)
   E(CL_INVALID_DEVICE) E(CL_INVALID_CONTEXT) E(CL_INVALID_QUEUE_PROPERTIES)
   E(CL_INVALID_COMMAND_QUEUE) E(CL_INVALID_HOST_PTR) E(CL_INVALID_MEM_OBJECT)
   E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) E(CL_INVALID_IMAGE_SIZE)
   E(CL_INVALID_SAMPLER) E(CL_INVALID_BINARY) E(CL_INVALID_BUILD_OPTIONS)
   E(CL_INVALID_PROGRAM) E(CL_INVALID_PROGRAM_EXECUTABLE) E(CL_INVALID_KERNEL_NAME)
   E(CL_INVALID_KERNEL_DEFINITION) E(CL_INVALID_KERNEL) E(CL_INVALID_ARG_INDEX)
   E(CL_INVALID_ARG_VALUE) E(CL_INVALID_ARG_SIZE) E(CL_INVALID_KERNEL_ARGS)
   E(CL_INVALID_WORK_DIMENSION) E(CL_INVALID_WORK_GROUP_SIZE)
   E(CL_INVALID_WORK_ITEM_SIZE) E(CL_INVALID_GLOBAL_OFFSET)
   E(CL_INVALID_EVENT_WAIT_LIST) E(CL_INVALID_EVENT) E(CL_INVALID_OPERATION)
   E(CL_INVALID_GL_OBJECT) E(CL_INVALID_BUFFER_SIZE) E(CL_INVALID_MIP_LEVEL)
   E(CL_INVALID_GLOBAL_WORK_SIZE) E(CL_INVALID_PROPERTY)
#undef E
   default: {
      /* Unknown codes (user-event statuses, say) print as numbers. */
      static _Thread_local char buf[32];
      snprintf(buf, sizeof(buf), "%d", err);
      return buf;
   }
   }
}

static void watchdog(int sig)
{
   (void)sig;
   static const char msg[] = "FATAL: test watchdog expired (deadlock or lost completion?)\n";
   ssize_t r = write(2, msg, sizeof(msg) - 1);
   (void)r;
   _exit(2);
}

cl_platform_id kt_find_kiln(void)
{
   cl_uint n = 0;
   cl_int err = clGetPlatformIDs(0, NULL, &n);
   if (err != CL_SUCCESS || !n)
      KT_DIE("clGetPlatformIDs found no platform (%s); is OCL_ICD_VENDORS set?",
             kt_err_name(err));
   cl_platform_id *ids = calloc(n, sizeof(*ids));
   REQUIRE(ids);
   REQUIRE_OK(clGetPlatformIDs(n, ids, NULL));
   cl_platform_id found = NULL;
   for (cl_uint i = 0; i < n && !found; i++) {
      char name[256] = "";
      if (clGetPlatformInfo(ids[i], CL_PLATFORM_NAME, sizeof(name), name, NULL) == CL_SUCCESS &&
          !strcmp(name, "Kiln"))
         found = ids[i];
   }
   free(ids);
   if (!found)
      KT_DIE("no platform named \"Kiln\" among %u", n);
   return found;
}

/* KILN_CHECK=bounds instruments the CPU device's code only; another
 * device fails every build under it with a log that says so (docs/env.md).
 * A test's *_checked run skips (exit status 77) on such a device. */
static void skip_without_bounds_checks(const struct kt_env *env)
{
   const char *check = getenv("KILN_CHECK");
   if (!check || !strstr(check, "bounds"))
      return;
   const char *src = "kernel void k(global int *a) { a[0] = 1; }\n";
   cl_int err;
   cl_program p = clCreateProgramWithSource(env->context, 1, &src, NULL, &err);
   REQUIRE(p && err == CL_SUCCESS, "clCreateProgramWithSource: %s", kt_err_name(err));
   if (clBuildProgram(p, 1, &env->device, "", NULL, NULL) != CL_SUCCESS) {
      size_t size = 0;
      clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size);
      char *log = calloc(1, size + 1);
      REQUIRE(log);
      clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG, size, log, NULL);
      if (strstr(log, "KILN_CHECK=bounds is not implemented")) {
         printf("skipped: this device has no bounds checks (%s)\n", log);
         exit(77);
      }
      free(log); /* another failure: the test's own builds report it */
   }
   clReleaseProgram(p);
}

void kt_watchdog_start(void)
{
   /* Longer than any test takes, shorter than meson's own timeout. */
   const char *t = getenv("KT_WATCHDOG_S");
   signal(SIGALRM, watchdog);
   alarm(t ? (unsigned)atoi(t) : 100);
}

void kt_setup(struct kt_env *env, cl_command_queue_properties props)
{
   kt_watchdog_start();
   memset(env, 0, sizeof(*env));
   env->platform = kt_find_kiln();
   REQUIRE_OK(clGetDeviceIDs(env->platform, CL_DEVICE_TYPE_ALL, 1, &env->device, NULL));
   env->context = kt_context(env);
   env->queue = kt_queue(env, env->context, props);
   skip_without_bounds_checks(env);
}

cl_context kt_context(const struct kt_env *env)
{
   cl_context_properties cp[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)env->platform, 0};
   cl_int err;
   cl_context ctx = clCreateContext(cp, 1, &env->device, NULL, NULL, &err);
   REQUIRE(ctx && err == CL_SUCCESS, "clCreateContext: %s", kt_err_name(err));
   return ctx;
}

cl_command_queue kt_queue(const struct kt_env *env, cl_context ctx,
                          cl_command_queue_properties props)
{
   cl_int err;
   cl_command_queue q = clCreateCommandQueue(ctx, env->device, props, &err);
   REQUIRE(q && err == CL_SUCCESS, "clCreateCommandQueue(0x%llx): %s",
           (unsigned long long)props, kt_err_name(err));
   return q;
}

void kt_teardown(struct kt_env *env)
{
   CHECK_OK(clFinish(env->queue));
   CHECK_OK(clReleaseCommandQueue(env->queue));
   CHECK_OK(clReleaseContext(env->context));
}

cl_int kt_status(cl_event ev)
{
   cl_int st = 0;
   cl_int err = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL);
   if (err != CL_SUCCESS) {
      KT_FAIL("clGetEventInfo(EXECUTION_STATUS) returned %s", kt_err_name(err));
      return CL_INVALID_EVENT;
   }
   return st;
}

cl_int kt_wait_end(cl_event ev, int timeout_ms)
{
   cl_int st = kt_status(ev);
   for (int waited = 0; st > CL_COMPLETE && waited < timeout_ms; waited++) {
      kt_sleep_ms(1);
      st = kt_status(ev);
   }
   return st;
}

cl_event kt_user_event(cl_context ctx)
{
   cl_int err;
   cl_event ev = clCreateUserEvent(ctx, &err);
   REQUIRE(ev && err == CL_SUCCESS, "clCreateUserEvent: %s", kt_err_name(err));
   return ev;
}

cl_mem kt_buffer(cl_context ctx, cl_mem_flags flags, size_t size, void *host_ptr)
{
   cl_int err;
   cl_mem m = clCreateBuffer(ctx, flags, size, host_ptr, &err);
   REQUIRE(m && err == CL_SUCCESS, "clCreateBuffer(0x%llx, %zu): %s",
           (unsigned long long)flags, size, kt_err_name(err));
   return m;
}

void kt_fill(void *p, size_t size, unsigned seed)
{
   unsigned char *b = p;
   uint32_t x = seed * 2654435761u + 1;
   for (size_t i = 0; i < size; i++) {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      b[i] = (unsigned char)(x ^ (i >> 8));
   }
}

bool kt_same(const void *got, const void *want, size_t size, const char *what)
{
   const unsigned char *g = got, *w = want;
   for (size_t i = 0; i < size; i++)
      if (g[i] != w[i]) {
         fprintf(stderr, "  %s: first difference at byte %zu: got 0x%02x, expected 0x%02x\n",
                 what, i, g[i], w[i]);
         return false;
      }
   return true;
}

void kt_sleep_ms(int ms)
{
   struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
   while (nanosleep(&ts, &ts))
      ;
}

struct kt_later {
   pthread_t thread;
   int delay_ms;
   void (*fn)(void *);
   void *arg;
};

static void *later_main(void *p)
{
   struct kt_later *l = p;
   kt_sleep_ms(l->delay_ms);
   l->fn(l->arg);
   return NULL;
}

struct kt_later *kt_after(int delay_ms, void (*fn)(void *), void *arg)
{
   struct kt_later *l = calloc(1, sizeof(*l));
   REQUIRE(l);
   l->delay_ms = delay_ms;
   l->fn = fn;
   l->arg = arg;
   REQUIRE(!pthread_create(&l->thread, NULL, later_main, l));
   return l;
}

void kt_join(struct kt_later *l)
{
   pthread_join(l->thread, NULL);
   free(l);
}

cl_ulong kt_device_ulong(cl_device_id dev, cl_device_info param)
{
   cl_ulong v = 0;
   REQUIRE_OK(clGetDeviceInfo(dev, param, sizeof(v), &v, NULL));
   return v;
}

cl_uint kt_device_uint(cl_device_id dev, cl_device_info param)
{
   cl_uint v = 0;
   REQUIRE_OK(clGetDeviceInfo(dev, param, sizeof(v), &v, NULL));
   return v;
}

int kt_platform_version(cl_platform_id platform)
{
   char v[256] = "";
   int major = 0, minor = 0;
   REQUIRE_OK(clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof(v), v, NULL));
   REQUIRE(sscanf(v, "OpenCL %d.%d", &major, &minor) == 2, " CL_PLATFORM_VERSION '%s'", v);
   return major * 10 + minor;
}
