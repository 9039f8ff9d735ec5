/* Programs from source (OpenCL 1.1 §5.6.1, 5.6.2, 5.6.5): several strings
 * with and without lengths, builds with and without a notification
 * callback, build failures and their logs, clGetProgramInfo,
 * clGetProgramBuildInfo, rebuilding, clUnloadCompiler. */
#include <pthread.h>

#include "kk.h"

static int run_fill(const struct kt_env *env, cl_program p, const char *name, cl_int *out, size_t n)
{
   cl_kernel k = kk_kernel(p, name);
   cl_mem m = kk_buffer_in(env, n * sizeof(cl_int), NULL);
   KK_ARG(k, 0, m);
   KK_RUN(env, k, 1, NULL, &n, NULL);
   kk_read(env, m, n * sizeof(cl_int), out);
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseKernel(k));
   return 0;
}

static char *program_source(cl_program p, size_t *size_ret)
{
   size_t n = 0;
   CHECK_OK(clGetProgramInfo(p, CL_PROGRAM_SOURCE, 0, NULL, &n));
   char *s = calloc(n + 1, 1);
   REQUIRE(s);
   CHECK_OK(clGetProgramInfo(p, CL_PROGRAM_SOURCE, n, s, NULL));
   if (size_ret)
      *size_ret = n;
   return s;
}

/* Several strings, lengths NULL: the pieces are concatenated. */
static void multiple_strings(const struct kt_env *env)
{
   const char *parts[] = {
      "#define VALUE 41\n",
      "__kernel void fill(__global int *o)\n",
      "{ o[get_global_id(0)] = VALUE + (int)get_global_id(0); }\n",
   };
   cl_int err;
   cl_program p = clCreateProgramWithSource(env->context, 3, parts, NULL, &err);
   REQUIRE(p && err == CL_SUCCESS, "%s", kt_err_name(err));
   size_t n = 0;
   char *src = program_source(p, &n);
   char want[512];
   snprintf(want, sizeof(want), "%s%s%s", parts[0], parts[1], parts[2]);
   CHECK(!strcmp(src, want), " CL_PROGRAM_SOURCE is '%s'", src);
   CHECK(n == strlen(want) + 1, " source size %zu, expected %zu (with the NUL)", n,
         strlen(want) + 1);
   free(src);
   REQUIRE_OK(clBuildProgram(p, 0, NULL, NULL, NULL, NULL));
   cl_int out[64];
   run_fill(env, p, "fill", out, 64);
   for (int i = 0; i < 64; i++)
      CHECK(out[i] == 41 + i, " out[%d] = %d", i, out[i]);
   CHECK_OK(clReleaseProgram(p));
}

/* lengths given for some strings only (0 means NUL-terminated); a length
 * shorter than the string cuts it, so what follows never compiles. */
static void partial_lengths(const struct kt_env *env)
{
   const char *parts[] = {
      "__kernel void fill(__global int *o) /* trailing junk that is cut: @@@@ $$$",
      "{ o[get_global_id(0)] = 1000",
      " - (int)get_global_id(0); }\n#error this must not be compiled",
   };
   size_t lengths[] = {strlen("__kernel void fill(__global int *o) "), 0, strlen(" - (int)get_global_id(0); }\n")};
   cl_int err;
   cl_program p = clCreateProgramWithSource(env->context, 3, parts, lengths, &err);
   REQUIRE(p && err == CL_SUCCESS, "%s", kt_err_name(err));
   char *src = program_source(p, NULL);
   const char *want = "__kernel void fill(__global int *o) { o[get_global_id(0)] = 1000"
                      " - (int)get_global_id(0); }\n";
   CHECK(!strcmp(src, want), " CL_PROGRAM_SOURCE is '%s', expected '%s'", src, want);
   free(src);
   err = clBuildProgram(p, 1, &env->device, "", NULL, NULL);
   if (err != CL_SUCCESS) {
      char *log = kk_build_log(p, env->device);
      KT_FAIL("build of length-cut source: %s; log:\n%s", kt_err_name(err), log);
      free(log);
   } else {
      cl_int out[16];
      run_fill(env, p, "fill", out, 16);
      for (int i = 0; i < 16; i++)
         CHECK(out[i] == 1000 - i, " out[%d] = %d", i, out[i]);
   }
   CHECK_OK(clReleaseProgram(p));
}

static void create_errors(const struct kt_env *env)
{
   const char *good = "__kernel void k(void) {}";
   const char *with_null[] = {good, NULL};
   cl_int err = 0;
   CHECK(!clCreateProgramWithSource(env->context, 0, &good, NULL, &err));
   CHECK_ERR(err, CL_INVALID_VALUE);
   CHECK(!clCreateProgramWithSource(env->context, 1, NULL, NULL, &err));
   CHECK_ERR(err, CL_INVALID_VALUE);
   CHECK(!clCreateProgramWithSource(env->context, 2, with_null, NULL, &err));
   CHECK_ERR(err, CL_INVALID_VALUE);
   /* errcode_ret may be NULL. */
   cl_program p = clCreateProgramWithSource(env->context, 1, &good, NULL, NULL);
   CHECK(p);
   if (p)
      CHECK_OK(clReleaseProgram(p));
}

struct notify {
   int calls;
   cl_program program;
   cl_build_status status_seen;
};

static void CL_CALLBACK on_built(cl_program p, void *data)
{
   struct notify *n = data;
   n->calls++;
   n->program = p;
   cl_device_id dev;
   if (clGetProgramInfo(p, CL_PROGRAM_DEVICES, sizeof(dev), &dev, NULL) == CL_SUCCESS)
      clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_STATUS, sizeof(n->status_seen),
                            &n->status_seen, NULL);
}

static void notify_callback(const struct kt_env *env)
{
   const char *src = "__kernel void fill(__global int *o) { o[get_global_id(0)] = 5; }";
   cl_program p = clCreateProgramWithSource(env->context, 1, &src, NULL, NULL);
   REQUIRE(p);
   struct notify n = {0, NULL, 0};
   CHECK_OK(clBuildProgram(p, 1, &env->device, NULL, on_built, &n));
   /* The callback may run asynchronously; the build has ended when
    * clBuildProgram returns only without a callback, so wait a moment. */
   for (int i = 0; i < 2000 && n.calls == 0; i++)
      kt_sleep_ms(1);
   kt_sleep_ms(20);
   CHECK(n.calls == 1, " pfn_notify called %d times", n.calls);
   CHECK(n.program == p);
   CHECK(n.status_seen == CL_BUILD_SUCCESS, " status in the callback %d", n.status_seen);
   cl_int out[4];
   run_fill(env, p, "fill", out, 4);
   CHECK(out[3] == 5);

   /* A failing build notifies too, once. */
   const char *bad = "__kernel void fill(__global int *o) { o[0] = ; }";
   cl_program q = clCreateProgramWithSource(env->context, 1, &bad, NULL, NULL);
   REQUIRE(q);
   struct notify m = {0, NULL, 0};
   CHECK_ERR(clBuildProgram(q, 1, &env->device, NULL, on_built, &m), CL_BUILD_PROGRAM_FAILURE);
   for (int i = 0; i < 2000 && m.calls == 0; i++)
      kt_sleep_ms(1);
   kt_sleep_ms(20);
   CHECK(m.calls == 1, " pfn_notify called %d times after a failed build", m.calls);
   CHECK(m.status_seen == CL_BUILD_ERROR, " status in the callback %d", m.status_seen);

   /* user_data without pfn_notify. */
   CHECK_ERR(clBuildProgram(p, 0, NULL, NULL, NULL, &n), CL_INVALID_VALUE);
   /* device_list and num_devices disagree. */
   CHECK_ERR(clBuildProgram(p, 1, NULL, NULL, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clBuildProgram(p, 0, &env->device, NULL, NULL, NULL), CL_INVALID_VALUE);
   /* A device that is not the program's. */
   cl_device_id bogus = (cl_device_id)(uintptr_t)&n;
   CHECK_ERR(clBuildProgram(p, 1, &bogus, NULL, NULL, NULL), CL_INVALID_DEVICE);
   CHECK_OK(clReleaseProgram(p));
   CHECK_OK(clReleaseProgram(q));
}

/* A syntax error: CL_BUILD_PROGRAM_FAILURE, status CL_BUILD_ERROR and a log
 * that points at the line and column, the way compilers print them. */
static void build_failure(const struct kt_env *env)
{
   const char *src = "__kernel void broken(__global int *o)\n"
                     "{\n"
                     "  o[0] = not_declared_anywhere;\n"
                     "}\n";
   cl_program p;
   CHECK_ERR(kk_try_build(env, src, NULL, &p), CL_BUILD_PROGRAM_FAILURE);
   REQUIRE(p);
   CHECK(kk_build_status(p, env->device) == CL_BUILD_ERROR);
   char *log = kk_build_log(p, env->device);
   CHECK(strstr(log, "input.cl:3:10: error"), " log lacks 'input.cl:3:10: error':\n%s", log);
   CHECK(strstr(log, "not_declared_anywhere"), " log does not name the identifier:\n%s", log);
   free(log);
   cl_int err = 0;
   CHECK(!clCreateKernel(p, "broken", &err));
   CHECK_ERR(err, CL_INVALID_PROGRAM_EXECUTABLE);
   cl_uint nk = 99;
   CHECK_ERR(clCreateKernelsInProgram(p, 0, NULL, &nk), CL_INVALID_PROGRAM_EXECUTABLE);

   /* Fixing the source means a new program; building the broken one again
    * fails the same way (not a crash, not a stale success). */
   CHECK_ERR(clBuildProgram(p, 0, NULL, NULL, NULL, NULL), CL_BUILD_PROGRAM_FAILURE);
   CHECK_OK(clReleaseProgram(p));

   /* A second error later in the file is reported with its own position. */
   const char *two = "__kernel void k(__global int *o)\n"
                     "{\n"
                     "  o[0] = 1\n"
                     "}\n";
   CHECK_ERR(kk_try_build(env, two, NULL, &p), CL_BUILD_PROGRAM_FAILURE);
   log = kk_build_log(p, env->device);
   CHECK(strstr(log, "input.cl:3:11: error"), " log lacks 'input.cl:3:11: error':\n%s", log);
   free(log);
   CHECK_OK(clReleaseProgram(p));
}

/* A long log (many warnings before the error) is returned whole: the
 * error at the end must be in it. */
static void long_log(const struct kt_env *env)
{
   char *src = malloc(16384);
   REQUIRE(src);
   size_t n = 0;
   n += sprintf(src + n, "__kernel void k(__global int *o)\n{\n");
   for (int i = 0; i < 40; i++)
      n += sprintf(src + n, "  int w%d = 3.5f; o[%d] = w%d;\n", i, i, i);
   /* Line 43, column 10. */
   n += sprintf(src + n, "  o[0] = undeclared_at_the_end;\n}\n");
   cl_program p;
   CHECK_ERR(kk_try_build(env, src, NULL, &p), CL_BUILD_PROGRAM_FAILURE);
   char *log = kk_build_log(p, env->device);
   size_t len = strlen(log);
   /* src/llvm/build.c: the front end's log goes through
    * log_append(&log, "%s", fe_log), which formats into a 1024-byte buffer
    * and keeps only its first 1023 bytes. */
   CHECK(len > 1024 && strstr(log, "input.cl:43:10: error"),
             "the build log is cut at %zu bytes; the error at input.cl:43:10 is lost", len);
   free(log);
   free(src);
   CHECK_OK(clReleaseProgram(p));
}

/* A function declared but defined nowhere (not even among the builtins):
 * the build fails at link time and the log names it. */
static void undefined_function(const struct kt_env *env)
{
   const char *src = "int kiln_test_missing_helper(int x);\n"
                     "__kernel void k(__global int *o)\n"
                     "{ o[get_global_id(0)] = kiln_test_missing_helper(3); }\n";
   cl_program p;
   cl_int err = kk_try_build(env, src, NULL, &p);
   CHECK_ERR(err, CL_BUILD_PROGRAM_FAILURE);
   REQUIRE(p);
   char *log = kk_build_log(p, env->device);
   CHECK(strstr(log, "kiln_test_missing_helper"), " log does not name the function:\n%s", log);
   CHECK(kk_build_status(p, env->device) == CL_BUILD_ERROR);
   free(log);
   CHECK_OK(clReleaseProgram(p));

   /* An undeclared function is an error already in OpenCL C (no implicit
    * declarations). */
   const char *src2 = "__kernel void k(__global int *o) { o[0] = kiln_undeclared_fn(1); }\n";
   CHECK_ERR(kk_try_build(env, src2, NULL, &p), CL_BUILD_PROGRAM_FAILURE);
   log = kk_build_log(p, env->device);
   CHECK(strstr(log, "kiln_undeclared_fn"), " log does not name the function:\n%s", log);
   free(log);
   CHECK_OK(clReleaseProgram(p));
}

static void program_info(const struct kt_env *env)
{
   const char *src = "__kernel void a(__global int *o) { o[0] = 1; }\n"
                     "__kernel void b(__global int *o) { o[0] = 2; }\n";
   cl_int err;
   cl_program p = clCreateProgramWithSource(env->context, 1, &src, NULL, &err);
   REQUIRE(p);
   cl_uint refs = 0, ndev = 0;
   CHECK_OK(clGetProgramInfo(p, CL_PROGRAM_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
   CHECK(refs == 1, " refcount %u", refs);
   CHECK_OK(clRetainProgram(p));
   CHECK_OK(clGetProgramInfo(p, CL_PROGRAM_REFERENCE_COUNT, sizeof(refs), &refs, NULL));
   CHECK(refs == 2, " refcount %u after retain", refs);
   CHECK_OK(clReleaseProgram(p));
   cl_context ctx = NULL;
   CHECK_OK(clGetProgramInfo(p, CL_PROGRAM_CONTEXT, sizeof(ctx), &ctx, NULL));
   CHECK(ctx == env->context);
   CHECK_OK(clGetProgramInfo(p, CL_PROGRAM_NUM_DEVICES, sizeof(ndev), &ndev, NULL));
   CHECK(ndev == 1, " %u devices", ndev);
   cl_device_id dev = NULL;
   size_t sz = 0;
   CHECK_OK(clGetProgramInfo(p, CL_PROGRAM_DEVICES, sizeof(dev), &dev, &sz));
   CHECK(dev == env->device && sz == sizeof(dev));
   /* Too small a param_value. */
   CHECK_ERR(clGetProgramInfo(p, CL_PROGRAM_DEVICES, 1, &dev, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clGetProgramInfo(p, CL_PROGRAM_NUM_DEVICES, 2, &ndev, NULL), CL_INVALID_VALUE);
   char small[4];
   CHECK_ERR(clGetProgramInfo(p, CL_PROGRAM_SOURCE, sizeof(small), small, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clGetProgramInfo(p, 0x7fff, sizeof(refs), &refs, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clGetProgramInfo(NULL, CL_PROGRAM_NUM_DEVICES, sizeof(ndev), &ndev, NULL),
             CL_INVALID_PROGRAM);

   /* Binary sizes before a build: nothing to return yet (0). */
   size_t bsize = 12345;
   CHECK_OK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(bsize), &bsize, &sz));
   CHECK(sz == sizeof(size_t));
   CHECK(bsize == 0, " binary size %zu before any build", bsize);

   /* Build info before a build. */
   CHECK(kk_build_status(p, env->device) == CL_BUILD_NONE);
   CHECK_ERR(clGetProgramBuildInfo(p, (cl_device_id)(uintptr_t)&refs, CL_PROGRAM_BUILD_STATUS,
                                   sizeof(refs), &refs, NULL),
             CL_INVALID_DEVICE);
   CHECK_ERR(clGetProgramBuildInfo(p, env->device, 0x7fff, sizeof(refs), &refs, NULL),
             CL_INVALID_VALUE);

   REQUIRE_OK(clBuildProgram(p, 1, &env->device, "-DUNUSED=1  -cl-mad-enable", NULL, NULL));
   CHECK(kk_build_status(p, env->device) == CL_BUILD_SUCCESS);
   char *opts = kk_build_options(p, env->device);
   CHECK(!strcmp(opts, "-DUNUSED=1  -cl-mad-enable"), " CL_PROGRAM_BUILD_OPTIONS '%s'", opts);
   free(opts);
   char *log = kk_build_log(p, env->device);
   CHECK(!strstr(log, "error"), " a clean build logs an error: %s", log);
   free(log);
   size_t logsize = 0;
   CHECK_OK(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &logsize));
   CHECK(logsize >= 1, " the log is a string, at least its NUL");

   CHECK_OK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(bsize), &bsize, NULL));
   CHECK(bsize > 16, " binary size %zu after a build", bsize);
   unsigned char *bin = malloc(bsize);
   REQUIRE(bin);
   unsigned char *bins[1] = {bin};
   CHECK_OK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bins), bins, &sz));
   CHECK(sz == sizeof(bins));
   CHECK(!memcmp(bin, "KILNBIN", 8), " binary starts with '%.8s'", (char *)bin);
   /* A NULL entry skips the device. */
   unsigned char *none[1] = {NULL};
   CHECK_OK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(none), none, NULL));
   CHECK_ERR(clGetProgramInfo(p, CL_PROGRAM_BINARIES, 1, bins, NULL), CL_INVALID_VALUE);
   free(bin);

   /* The source is kept after the build. */
   char *s = program_source(p, NULL);
   CHECK(!strcmp(s, src));
   free(s);
   CHECK_OK(clReleaseProgram(p));
}

/* While a kernel object exists the program cannot be rebuilt (§5.6.2);
 * once it is released, it can, and new options take effect. */
static void rebuild(const struct kt_env *env)
{
   const char *src = "__kernel void fill(__global int *o) { o[get_global_id(0)] = V; }";
   cl_program p = clCreateProgramWithSource(env->context, 1, &src, NULL, NULL);
   REQUIRE(p);
   REQUIRE_OK(clBuildProgram(p, 0, NULL, "-D V=11", NULL, NULL));
   cl_kernel k = kk_kernel(p, "fill");
   CHECK_ERR(clBuildProgram(p, 0, NULL, "-D V=12", NULL, NULL), CL_INVALID_OPERATION);
   /* The refused build changed nothing. */
   CHECK(kk_build_status(p, env->device) == CL_BUILD_SUCCESS);
   char *opts = kk_build_options(p, env->device);
   CHECK(!strcmp(opts, "-D V=11"), " options after a refused build '%s'", opts);
   free(opts);
   cl_int out[8];
   cl_mem m = kk_buffer_in(env, sizeof(out), NULL);
   KK_ARG(k, 0, m);
   size_t n = 8;
   KK_RUN(env, k, 1, NULL, &n, NULL);
   kk_read(env, m, sizeof(out), out);
   CHECK(out[7] == 11, " %d", out[7]);
   /* A retained kernel still blocks the build after one release. */
   CHECK_OK(clRetainKernel(k));
   CHECK_OK(clReleaseKernel(k));
   CHECK_ERR(clBuildProgram(p, 0, NULL, "-D V=12", NULL, NULL), CL_INVALID_OPERATION);
   CHECK_OK(clReleaseKernel(k));
   CHECK_OK(clBuildProgram(p, 0, NULL, "-D V=12", NULL, NULL));
   run_fill(env, p, "fill", out, 8);
   CHECK(out[0] == 12 && out[7] == 12, " after the rebuild: %d", out[0]);

   /* Kernels from clCreateKernelsInProgram block it too. */
   cl_kernel ks[1];
   cl_uint nk = 0;
   CHECK_OK(clCreateKernelsInProgram(p, 1, ks, &nk));
   CHECK(nk == 1);
   CHECK_ERR(clBuildProgram(p, 0, NULL, NULL, NULL, NULL), CL_INVALID_OPERATION);
   CHECK_OK(clReleaseKernel(ks[0]));

   /* A failed rebuild leaves no executable behind. */
   CHECK_ERR(clBuildProgram(p, 0, NULL, "-D V=", NULL, NULL), CL_BUILD_PROGRAM_FAILURE);
   CHECK(kk_build_status(p, env->device) == CL_BUILD_ERROR);
   cl_int err = 0;
   CHECK(!clCreateKernel(p, "fill", &err));
   CHECK_ERR(err, CL_INVALID_PROGRAM_EXECUTABLE);
   CHECK_OK(clReleaseMemObject(m));
   CHECK_OK(clReleaseProgram(p));
}

static void unload_compiler(const struct kt_env *env)
{
   const char *src = "__kernel void fill(__global int *o) { o[get_global_id(0)] = 77; }";
   cl_program p = kk_build(env, src, NULL);
   CHECK_OK(clUnloadCompiler());
   /* The built program is unaffected ... */
   cl_int out[4];
   run_fill(env, p, "fill", out, 4);
   CHECK(out[2] == 77);
   CHECK_OK(clReleaseProgram(p));
   /* ... and the compiler comes back when needed. */
   p = kk_build(env, "__kernel void fill(__global int *o) { o[get_global_id(0)] = 78; }", NULL);
   run_fill(env, p, "fill", out, 4);
   CHECK(out[3] == 78);
   CHECK_OK(clUnloadCompiler());
   CHECK_OK(clUnloadCompiler());
   CHECK_OK(clReleaseProgram(p));
}

/* Builds on several application threads at once (§A.2: clBuildProgram
 * is thread-safe on different programs), each then run and checked; and
 * two threads building the same program, where the loser may get
 * CL_INVALID_OPERATION but never a crash or a broken program. */
struct builder {
   const struct kt_env *env;
   int id;
   cl_program shared;
   cl_int result;
   cl_int shared_result;
};

static void *build_thread(void *arg)
{
   struct builder *b = arg;
   char src[512];
   snprintf(src, sizeof(src),
            "__constant int k%d = %d;\n"
            "int f%d(int x) { return x * %d + k%d; }\n"
            "__kernel void fill(__global int *o) { o[get_global_id(0)] = f%d(get_global_id(0)); }\n",
            b->id, b->id * 7, b->id, b->id + 2, b->id, b->id);
   for (int round = 0; round < 3; round++) {
      cl_program p;
      cl_int err = kk_try_build(b->env, src, round == 1 ? "-cl-opt-disable" : NULL, &p);
      if (err != CL_SUCCESS) {
         b->result = err;
         if (p)
            clReleaseProgram(p);
         return NULL;
      }
      cl_int out[32];
      run_fill(b->env, p, "fill", out, 32);
      for (int i = 0; i < 32; i++)
         if (out[i] != i * (b->id + 2) + b->id * 7)
            b->result = -1000 - i;
      clReleaseProgram(p);
   }
   b->shared_result = clBuildProgram(b->shared, 0, NULL, NULL, NULL, NULL);
   return NULL;
}

static void concurrent_builds(const struct kt_env *env)
{
   enum { T = 4 };
   const char *src = "__kernel void fill(__global int *o) { o[get_global_id(0)] = 31; }";
   cl_program shared = clCreateProgramWithSource(env->context, 1, &src, NULL, NULL);
   REQUIRE(shared);
   struct builder b[T];
   pthread_t th[T];
   for (int i = 0; i < T; i++) {
      b[i] = (struct builder){env, i + 1, shared, CL_SUCCESS, 12345};
      REQUIRE(!pthread_create(&th[i], NULL, build_thread, &b[i]));
   }
   int built = 0;
   for (int i = 0; i < T; i++) {
      pthread_join(th[i], NULL);
      CHECK(b[i].result == CL_SUCCESS, " concurrent build %d: %s", b[i].id,
            b[i].result <= -1000 ? "wrong results" : kt_err_name(b[i].result));
      CHECK(b[i].shared_result == CL_SUCCESS || b[i].shared_result == CL_INVALID_OPERATION,
            " building one program on %d threads: %s", T, kt_err_name(b[i].shared_result));
      built += b[i].shared_result == CL_SUCCESS;
   }
   CHECK(built >= 1, " no thread built the shared program");
   CHECK(kk_build_status(shared, env->device) == CL_BUILD_SUCCESS);
   cl_int out[8];
   run_fill(env, shared, "fill", out, 8);
   CHECK(out[7] == 31);
   CHECK_OK(clReleaseProgram(shared));
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   multiple_strings(&env);
   partial_lengths(&env);
   create_errors(&env);
   notify_callback(&env);
   build_failure(&env);
   long_log(&env);
   undefined_function(&env);
   program_info(&env);
   rebuild(&env);
   unload_compiler(&env);
   concurrent_builds(&env);
   kt_teardown(&env);
   return kt_result();
}
