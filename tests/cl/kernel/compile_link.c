/* Separate compilation (OpenCL 1.2 §5.6.3: clCompileProgram,
 * clLinkProgram): headers given in memory, two objects linked, a library
 * then an executable, link failures and their logs, binaries of every type
 * round-tripped, link options, callbacks, the compile cache, and every
 * error case of the two entry points, clCreateProgramWithBuiltInKernels and
 * clUnloadPlatformCompiler, checked against the spec's codes. */
#undef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120

#include "kk.h"

#include <pthread.h>

#define N 32

/* Uses a helper another object defines, and macros from three headers:
 * one at the top, one it includes, one in a subdirectory that includes a
 * neighbour by a path relative to itself. */
static const char *main_src =
   "#include \"defs.h\"\n"
   "#include \"sub/more.h\"\n"
   "int helper(int x);\n"
   "__kernel void scale(__global int *o) { int i = get_global_id(0); "
   "o[i] = helper(i) * SCALE + OFFSET + EXTRA; }\n"
   "__kernel __attribute__((reqd_work_group_size(4, 1, 1))) "
   "void twice(__global const int *restrict in, __global int *o, int k) "
   "{ int i = get_global_id(0); o[i] = 2 * in[i] + k; }\n";
static const char *defs_h = "#define SCALE 3\n#include \"inner.h\"\n";
static const char *inner_h = "#define OFFSET 100\n";
static const char *more_h = "#include \"more2.h\"\n";
static const char *more2_h = "#define EXTRA (EXTRA_BASE + 1)\n#define EXTRA_BASE 9\n";
static const char *helper_src = "int helper(int x) { return x * x; }\n";
static const char *other_kernel_src =
   "__kernel void other(__global int *o) { o[get_global_id(0)] = 7; }\n";

static int want_scale(int i)
{
   return i * i * 3 + 100 + 10;
}

static cl_program source_program(const struct kt_env *env, const char *src)
{
   cl_int err;
   cl_program p = clCreateProgramWithSource(env->context, 1, &src, NULL, &err);
   REQUIRE(p && err == CL_SUCCESS, "clCreateProgramWithSource: %s", kt_err_name(err));
   return p;
}

static cl_program headers[4];
static const char *header_names[4] = {"defs.h", "inner.h", "sub/more.h", "sub/more2.h"};

static void make_headers(const struct kt_env *env)
{
   const char *text[4] = {defs_h, inner_h, more_h, more2_h};
   for (int i = 0; i < 4; i++)
      headers[i] = source_program(env, text[i]);
}

static cl_program compiled(const struct kt_env *env, const char *src, const char *options)
{
   cl_program p = source_program(env, src);
   cl_int err = clCompileProgram(p, 1, &env->device, options, 4, headers, header_names, NULL,
                                 NULL);
   if (err != CL_SUCCESS) {
      char *log = kk_build_log(p, env->device);
      KT_DIE("clCompileProgram: %s\n%s", kt_err_name(err), log);
   }
   return p;
}

static cl_program_binary_type binary_type(cl_program p, cl_device_id dev)
{
   cl_program_binary_type t = 0xdead;
   REQUIRE_OK(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BINARY_TYPE, sizeof(t), &t, NULL));
   return t;
}

static cl_program link_ok(const struct kt_env *env, const char *options, cl_uint n,
                          const cl_program *in)
{
   cl_int err;
   cl_program p = clLinkProgram(env->context, 1, &env->device, options, n, in, NULL, NULL, &err);
   if (err != CL_SUCCESS) {
      char *log = p ? kk_build_log(p, env->device) : strdup("(no program)");
      KT_DIE("clLinkProgram: %s\n%s", kt_err_name(err), log);
   }
   REQUIRE(p);
   return p;
}

/* Runs scale() of an executable and checks every element. */
static void run_scale(const struct kt_env *env, cl_program exe, const char *what)
{
   cl_kernel k = kk_kernel(exe, "scale");
   cl_mem m = kk_buffer_in(env, N * sizeof(cl_int), NULL);
   KK_ARG(k, 0, m);
   size_t n = N;
   KK_RUN(env, k, 1, NULL, &n, NULL);
   cl_int out[N];
   kk_read(env, m, sizeof(out), out);
   for (int i = 0; i < N; i++)
      CHECK(out[i] == want_scale(i), "%s: scale[%d] = %d, want %d", what, i, out[i],
            want_scale(i));
   clReleaseMemObject(m);
   clReleaseKernel(k);
}

static unsigned char *get_binary(cl_program p, size_t *size)
{
   size_t sz = 0;
   REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(sz), &sz, NULL));
   REQUIRE(sz > 0, "binary size 0");
   unsigned char *bin = malloc(sz);
   REQUIRE(bin);
   unsigned char *bins[1] = {bin};
   REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bins), bins, NULL));
   *size = sz;
   return bin;
}

static cl_program from_binary(const struct kt_env *env, cl_program p)
{
   size_t size;
   unsigned char *bin = get_binary(p, &size);
   const unsigned char *bins[1] = {bin};
   cl_int status = 1, err;
   cl_program q = clCreateProgramWithBinary(env->context, 1, &env->device, &size, bins,
                                            &status, &err);
   free(bin);
   REQUIRE(q && err == CL_SUCCESS && status == CL_SUCCESS,
           "clCreateProgramWithBinary: %s / %s", kt_err_name(err), kt_err_name(status));
   return q;
}

/* Two objects linked; program and build info of each stage. */
static void two_objects(const struct kt_env *env)
{
   cl_program src = source_program(env, main_src);
   CHECK(binary_type(src, env->device) == CL_PROGRAM_BINARY_TYPE_NONE, "source: type NONE");
   size_t num = 99;
   CHECK_ERR(clGetProgramInfo(src, CL_PROGRAM_NUM_KERNELS, sizeof(num), &num, NULL),
             CL_INVALID_PROGRAM_EXECUTABLE);
   CHECK_ERR(clGetProgramInfo(src, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &num),
             CL_INVALID_PROGRAM_EXECUTABLE);
   clReleaseProgram(src);

   cl_program a = compiled(env, main_src, "-DUNUSED=1");
   cl_program b = compiled(env, helper_src, NULL);
   CHECK(binary_type(a, env->device) == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT,
         "compiled: type COMPILED_OBJECT");
   CHECK(kk_build_status(a, env->device) == CL_BUILD_SUCCESS, "compiled: CL_BUILD_SUCCESS");
   char *opts = kk_build_options(a, env->device);
   CHECK(!strcmp(opts, "-DUNUSED=1"), "compile options kept: '%s'", opts);
   free(opts);
   /* A compiled object is no executable. */
   CHECK_ERR(clGetProgramInfo(a, CL_PROGRAM_NUM_KERNELS, sizeof(num), &num, NULL),
             CL_INVALID_PROGRAM_EXECUTABLE);
   cl_int err;
   CHECK(!clCreateKernel(a, "scale", &err) && err == CL_INVALID_PROGRAM_EXECUTABLE,
         "clCreateKernel on a compiled object: %s", kt_err_name(err));

   cl_program in[2] = {a, b};
   cl_program exe = link_ok(env, NULL, 2, in);
   CHECK(binary_type(exe, env->device) == CL_PROGRAM_BINARY_TYPE_EXECUTABLE,
         "linked: type EXECUTABLE");
   CHECK(kk_build_status(exe, env->device) == CL_BUILD_SUCCESS, "linked: CL_BUILD_SUCCESS");
   CHECK_OK(clGetProgramInfo(exe, CL_PROGRAM_NUM_KERNELS, sizeof(num), &num, NULL));
   CHECK(num == 2, "CL_PROGRAM_NUM_KERNELS %zu", num);
   char names[64] = "";
   size_t len = 0;
   CHECK_OK(clGetProgramInfo(exe, CL_PROGRAM_KERNEL_NAMES, sizeof(names), names, &len));
   CHECK(!strcmp(names, "scale;twice") && len == strlen(names) + 1,
         "CL_PROGRAM_KERNEL_NAMES '%s' (%zu)", names, len);
   CHECK_ERR(clGetProgramInfo(exe, CL_PROGRAM_KERNEL_NAMES, 3, names, NULL), CL_INVALID_VALUE);
   cl_uint ndev = 0;
   CHECK_OK(clGetProgramInfo(exe, CL_PROGRAM_NUM_DEVICES, sizeof(ndev), &ndev, NULL));
   CHECK(ndev == 1, "linked program has %u devices", ndev);
   run_scale(env, exe, "two objects");

   /* Kernel queries 1.2 adds. */
   cl_kernel t = kk_kernel(exe, "twice");
   char attrs[128] = "?";
   CHECK_OK(clGetKernelInfo(t, CL_KERNEL_ATTRIBUTES, sizeof(attrs), attrs, NULL));
   CHECK(!strcmp(attrs, "reqd_work_group_size(4,1,1)"), "CL_KERNEL_ATTRIBUTES '%s'", attrs);
   cl_kernel s = kk_kernel(exe, "scale");
   CHECK_OK(clGetKernelInfo(s, CL_KERNEL_ATTRIBUTES, sizeof(attrs), attrs, NULL));
   CHECK(!strcmp(attrs, ""), "CL_KERNEL_ATTRIBUTES of scale '%s'", attrs);
   size_t gws[3];
   CHECK_ERR(clGetKernelWorkGroupInfo(t, env->device, CL_KERNEL_GLOBAL_WORK_SIZE, sizeof(gws),
                                      gws, NULL),
             CL_INVALID_VALUE);
   clReleaseKernel(s);
   clReleaseKernel(t);

   /* Relinking the same objects gives a second, independent program; the
    * inputs stay usable and unchanged. */
   cl_program exe2 = link_ok(env, "-cl-fast-relaxed-math -cl-denorms-are-zero", 2, in);
   run_scale(env, exe2, "relinked with link options");
   CHECK(binary_type(a, env->device) == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT,
         "input still a compiled object");
   /* A kernel of the executable does not stop its inputs being recompiled. */
   cl_kernel hold = kk_kernel(exe2, "scale");
   CHECK_OK(clCompileProgram(b, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL));
   clReleaseKernel(hold);
   clReleaseProgram(exe2);
   clReleaseProgram(exe);
   clReleaseProgram(a);
   clReleaseProgram(b);
}

/* A library of the helper, then an executable with it. */
static void library(const struct kt_env *env)
{
   cl_program a = compiled(env, main_src, NULL);
   cl_program b = compiled(env, helper_src, NULL);
   cl_program lib = link_ok(env, "-create-library", 1, &b);
   CHECK(binary_type(lib, env->device) == CL_PROGRAM_BINARY_TYPE_LIBRARY, "type LIBRARY");
   size_t num;
   CHECK_ERR(clGetProgramInfo(lib, CL_PROGRAM_NUM_KERNELS, sizeof(num), &num, NULL),
             CL_INVALID_PROGRAM_EXECUTABLE);
   cl_program lib2 = link_ok(env, "-create-library -enable-link-options", 1, &lib);
   CHECK(binary_type(lib2, env->device) == CL_PROGRAM_BINARY_TYPE_LIBRARY,
         "library of a library");
   cl_program in[2] = {a, lib};
   cl_program exe = link_ok(env, NULL, 2, in);
   run_scale(env, exe, "object + library");
   cl_program in2[2] = {lib2, a};
   cl_program exe2 = link_ok(env, "-cl-unsafe-math-optimizations", 2, in2);
   run_scale(env, exe2, "library (link options enabled) + object");

   /* Binaries of each type, back through clCreateProgramWithBinary. */
   cl_program a_bin = from_binary(env, a);
   cl_program lib_bin = from_binary(env, lib);
   CHECK(binary_type(a_bin, env->device) == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT,
         "object binary: type %#x", (unsigned)binary_type(a_bin, env->device));
   CHECK(binary_type(lib_bin, env->device) == CL_PROGRAM_BINARY_TYPE_LIBRARY,
         "library binary: type LIBRARY");
   cl_program in3[2] = {a_bin, lib_bin};
   cl_program exe3 = link_ok(env, NULL, 2, in3);
   run_scale(env, exe3, "object and library from binaries");
   cl_program exe_bin = from_binary(env, exe3);
   CHECK(binary_type(exe_bin, env->device) == CL_PROGRAM_BINARY_TYPE_EXECUTABLE,
         "executable binary: type EXECUTABLE");
   CHECK_OK(clBuildProgram(exe_bin, 0, NULL, NULL, NULL, NULL));
   run_scale(env, exe_bin, "executable from a linked program's binary");
   /* clCompileProgram needs source. */
   CHECK_ERR(clCompileProgram(a_bin, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL),
             CL_INVALID_OPERATION);

   cl_program all[] = {a, b, lib, lib2, exe, exe2, a_bin, lib_bin, exe3, exe_bin};
   for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
      clReleaseProgram(all[i]);
}

static int callbacks;
static cl_program callback_program;

static void CL_CALLBACK notify(cl_program p, void *user_data)
{
   callbacks += *(int *)user_data;
   callback_program = p;
}

/* Failed links: a program with a log, status CL_BUILD_ERROR, type NONE. */
static void link_failures(const struct kt_env *env)
{
   cl_program a = compiled(env, main_src, NULL);
   cl_program b = compiled(env, helper_src, NULL);
   cl_program b2 = compiled(env, helper_src, NULL);

   int one = 1;
   callbacks = 0;
   cl_int err = CL_SUCCESS;
   cl_program bad = clLinkProgram(env->context, 1, &env->device, NULL, 1, &a, notify, &one, &err);
   CHECK(err == CL_LINK_PROGRAM_FAILURE, "unresolved helper: %s", kt_err_name(err));
   CHECK(bad != NULL, "a failed link returns a program");
   CHECK(callbacks == 1 && callback_program == bad, "callback %d times", callbacks);
   if (bad) {
      char *log = kk_build_log(bad, env->device);
      CHECK(strstr(log, "unresolved") && strstr(log, "helper"), "log names the symbol: %s", log);
      free(log);
      CHECK(kk_build_status(bad, env->device) == CL_BUILD_ERROR, "failed link: CL_BUILD_ERROR");
      CHECK(binary_type(bad, env->device) == CL_PROGRAM_BINARY_TYPE_NONE, "failed link: NONE");
      CHECK(!clCreateKernel(bad, "scale", &err) && err == CL_INVALID_PROGRAM_EXECUTABLE,
            "kernel of a failed link: %s", kt_err_name(err));
      clReleaseProgram(bad);
   }

   cl_program dup[3] = {a, b, b2};
   bad = clLinkProgram(env->context, 1, &env->device, NULL, 3, dup, NULL, NULL, &err);
   CHECK(err == CL_LINK_PROGRAM_FAILURE && bad, "helper twice: %s", kt_err_name(err));
   if (bad) {
      char *log = kk_build_log(bad, env->device);
      CHECK(strstr(log, "helper") != NULL, "log names the duplicate: %s", log);
      free(log);
      clReleaseProgram(bad);
   }
   /* The same kernel in two objects. */
   cl_program k1 = compiled(env, other_kernel_src, NULL);
   cl_program k2 = compiled(env, other_kernel_src, NULL);
   cl_program dupk[2] = {k1, k2};
   bad = clLinkProgram(env->context, 1, &env->device, NULL, 2, dupk, NULL, NULL, &err);
   CHECK(err == CL_LINK_PROGRAM_FAILURE && bad, "kernel twice: %s", kt_err_name(err));
   if (bad) {
      char *log = kk_build_log(bad, env->device);
      CHECK(strstr(log, "other") != NULL, "log names the kernel: %s", log);
      free(log);
      clReleaseProgram(bad);
   }
   /* A library may leave symbols unresolved: they are resolved later. */
   cl_program lib = link_ok(env, "-create-library", 1, &a);
   cl_program in[2] = {lib, b};
   cl_program exe = link_ok(env, NULL, 2, in);
   run_scale(env, exe, "unresolved library completed by an object");

   /* Callbacks of successful compiles and links, with the program. */
   int ten = 10;
   callbacks = 0;
   CHECK_OK(clCompileProgram(b2, 1, &env->device, NULL, 0, NULL, NULL, notify, &ten));
   CHECK(callbacks == 10 && callback_program == b2, "compile callback");
   cl_program in2[2] = {a, b2};
   cl_program exe2 = clLinkProgram(env->context, 0, NULL, NULL, 2, in2, notify, &ten, &err);
   CHECK(err == CL_SUCCESS && exe2 && callbacks == 20 && callback_program == exe2,
         "link callback: %s, %d", kt_err_name(err), callbacks);
   clReleaseProgram(exe2);

   cl_program all[] = {a, b, b2, k1, k2, lib, exe};
   for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
      clReleaseProgram(all[i]);
}

static void compile_failures(const struct kt_env *env)
{
   cl_program p = source_program(env, "__kernel void f(__global int *o) { o[0] = nope; }\n");
   CHECK_ERR(clCompileProgram(p, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL),
             CL_COMPILE_PROGRAM_FAILURE);
   char *log = kk_build_log(p, env->device);
   CHECK(strstr(log, "nope") != NULL, "compile log names the error: %s", log);
   free(log);
   CHECK(kk_build_status(p, env->device) == CL_BUILD_ERROR, "failed compile: CL_BUILD_ERROR");
   CHECK(binary_type(p, env->device) == CL_PROGRAM_BINARY_TYPE_NONE, "failed compile: NONE");
   /* A missing header is a compile failure too. */
   cl_program q = source_program(env, "#include \"absent.h\"\n");
   CHECK_ERR(clCompileProgram(q, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL),
             CL_COMPILE_PROGRAM_FAILURE);
   log = kk_build_log(q, env->device);
   CHECK(strstr(log, "absent.h") != NULL, "log names the header: %s", log);
   free(log);
   /* Nothing compiled to link: CL_INVALID_OPERATION. */
   cl_int err;
   CHECK(!clLinkProgram(env->context, 0, NULL, NULL, 1, &q, NULL, NULL, &err) &&
            err == CL_INVALID_OPERATION,
         "linking a failed compile: %s", kt_err_name(err));
   clReleaseProgram(p);
   clReleaseProgram(q);
}

static void compile_errors(const struct kt_env *env)
{
   cl_program p = source_program(env, helper_src);
   cl_device_id dev = env->device, bogus = (cl_device_id)env->context;
   const char *name = "defs.h";
   CHECK_ERR(clCompileProgram(NULL, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL),
             CL_INVALID_PROGRAM);
   CHECK_ERR(clCompileProgram((cl_program)env->context, 0, NULL, NULL, 0, NULL, NULL, NULL,
                              NULL),
             CL_INVALID_PROGRAM);
   CHECK_ERR(clCompileProgram(p, 1, NULL, NULL, 0, NULL, NULL, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clCompileProgram(p, 0, &dev, NULL, 0, NULL, NULL, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clCompileProgram(p, 0, NULL, NULL, 1, NULL, &name, NULL, NULL), CL_INVALID_VALUE);
   CHECK_ERR(clCompileProgram(p, 0, NULL, NULL, 1, headers, NULL, NULL, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clCompileProgram(p, 0, NULL, NULL, 0, headers, &name, NULL, NULL),
             CL_INVALID_VALUE);
   const char *null_name = NULL;
   CHECK_ERR(clCompileProgram(p, 0, NULL, NULL, 1, headers, &null_name, NULL, NULL),
             CL_INVALID_VALUE);
   cl_program not_program = (cl_program)env->queue;
   CHECK_ERR(clCompileProgram(p, 0, NULL, NULL, 1, &not_program, &name, NULL, NULL),
             CL_INVALID_VALUE);
   int x;
   CHECK_ERR(clCompileProgram(p, 0, NULL, NULL, 0, NULL, NULL, NULL, &x), CL_INVALID_VALUE);
   CHECK_ERR(clCompileProgram(p, 1, &bogus, NULL, 0, NULL, NULL, NULL, NULL), CL_INVALID_DEVICE);
   CHECK_ERR(clCompileProgram(p, 0, NULL, "-cl-no-such-option", 0, NULL, NULL, NULL, NULL),
             CL_INVALID_COMPILER_OPTIONS);
   char *log = kk_build_log(p, dev);
   CHECK(strstr(log, "-cl-no-such-option") != NULL, "options log: %s", log);
   free(log);
   /* Link options are not compile options. */
   CHECK_ERR(clCompileProgram(p, 0, NULL, "-create-library", 0, NULL, NULL, NULL, NULL),
             CL_INVALID_COMPILER_OPTIONS);
   /* Kernels attached: compiling would replace their code. */
   cl_program k = kk_build(env, other_kernel_src, NULL);
   cl_kernel kern = kk_kernel(k, "other");
   CHECK_ERR(clCompileProgram(k, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL), CL_INVALID_OPERATION);
   clReleaseKernel(kern);
   CHECK_OK(clCompileProgram(k, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL));
   CHECK(binary_type(k, dev) == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT,
         "compile after build: COMPILED_OBJECT");
   clReleaseProgram(k);
   clReleaseProgram(p);
}

static void link_errors(const struct kt_env *env)
{
   cl_program obj = compiled(env, helper_src, NULL);
   cl_program src = source_program(env, helper_src);
   cl_device_id dev = env->device, bogus = (cl_device_id)env->context;
   cl_int err;
#define LINK_FAILS(want, ...)                                                                     \
   do {                                                                                          \
      err = CL_SUCCESS;                                                                          \
      cl_program r_ = clLinkProgram(__VA_ARGS__, &err);                                          \
      CHECK(!r_ && err == (want), "clLinkProgram(%s): %s, want %s", #__VA_ARGS__,                \
            kt_err_name(err), kt_err_name(want));                                                \
   } while (0)
   LINK_FAILS(CL_INVALID_CONTEXT, NULL, 0, NULL, NULL, 1, &obj, NULL, NULL);
   LINK_FAILS(CL_INVALID_CONTEXT, (cl_context)env->queue, 0, NULL, NULL, 1, &obj, NULL, NULL);
   LINK_FAILS(CL_INVALID_VALUE, env->context, 1, NULL, NULL, 1, &obj, NULL, NULL);
   LINK_FAILS(CL_INVALID_VALUE, env->context, 0, &dev, NULL, 1, &obj, NULL, NULL);
   LINK_FAILS(CL_INVALID_VALUE, env->context, 0, NULL, NULL, 0, &obj, NULL, NULL);
   LINK_FAILS(CL_INVALID_VALUE, env->context, 0, NULL, NULL, 1, NULL, NULL, NULL);
   LINK_FAILS(CL_INVALID_VALUE, env->context, 0, NULL, NULL, 0, NULL, NULL, NULL);
   cl_program not_program = (cl_program)env->queue;
   LINK_FAILS(CL_INVALID_PROGRAM, env->context, 0, NULL, NULL, 1, &not_program, NULL, NULL);
   int x;
   LINK_FAILS(CL_INVALID_VALUE, env->context, 0, NULL, NULL, 1, &obj, NULL, &x);
   LINK_FAILS(CL_INVALID_DEVICE, env->context, 1, &bogus, NULL, 1, &obj, NULL, NULL);
   LINK_FAILS(CL_INVALID_LINKER_OPTIONS, env->context, 0, NULL, "-cl-opt-disable", 1, &obj, NULL,
              NULL);
   LINK_FAILS(CL_INVALID_LINKER_OPTIONS, env->context, 0, NULL, "-enable-link-options", 1, &obj,
              NULL, NULL);
   LINK_FAILS(CL_INVALID_LINKER_OPTIONS, env->context, 0, NULL, "-DX=1", 1, &obj, NULL, NULL);
   /* A program never compiled has nothing to link; a mix of compiled and
    * uncompiled inputs breaks §5.6.3.3's rule. */
   LINK_FAILS(CL_INVALID_OPERATION, env->context, 0, NULL, NULL, 1, &src, NULL, NULL);
   cl_program mix[2] = {obj, src};
   LINK_FAILS(CL_INVALID_OPERATION, env->context, 0, NULL, NULL, 2, mix, NULL, NULL);
   /* An executable is not a link input. */
   cl_program exe = kk_build(env, other_kernel_src, NULL);
   LINK_FAILS(CL_INVALID_OPERATION, env->context, 0, NULL, NULL, 1, &exe, NULL, NULL);
   /* A program of another context. */
   cl_context other = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
   REQUIRE(other);
   LINK_FAILS(CL_INVALID_PROGRAM, other, 0, NULL, NULL, 1, &obj, NULL, NULL);
   clReleaseContext(other);
#undef LINK_FAILS
   clReleaseProgram(exe);
   clReleaseProgram(src);
   clReleaseProgram(obj);
}

static void builtin_kernels(const struct kt_env *env)
{
   cl_device_id dev = env->device, bogus = (cl_device_id)env->context;
   cl_int err;
#define BIK_FAILS(want, ...)                                                                      \
   do {                                                                                          \
      err = CL_SUCCESS;                                                                          \
      cl_program r_ = clCreateProgramWithBuiltInKernels(__VA_ARGS__, &err);                      \
      CHECK(!r_ && err == (want), "clCreateProgramWithBuiltInKernels(%s): %s", #__VA_ARGS__,      \
            kt_err_name(err));                                                                   \
   } while (0)
   BIK_FAILS(CL_INVALID_CONTEXT, NULL, 1, &dev, "k");
   BIK_FAILS(CL_INVALID_VALUE, env->context, 0, &dev, "k");
   BIK_FAILS(CL_INVALID_VALUE, env->context, 1, NULL, "k");
   BIK_FAILS(CL_INVALID_VALUE, env->context, 1, &dev, NULL);
   BIK_FAILS(CL_INVALID_DEVICE, env->context, 1, &bogus, "k");
   /* Kiln offers none: every name is unknown. */
   BIK_FAILS(CL_INVALID_VALUE, env->context, 1, &dev, "k");
#undef BIK_FAILS
}

static void unload(const struct kt_env *env)
{
   /* (NULL never reaches Kiln: the ICD loader answers for it.) */
   CHECK_ERR(clUnloadPlatformCompiler((cl_platform_id)env->context), CL_INVALID_PLATFORM);
   CHECK_OK(clUnloadPlatformCompiler(env->platform));
   /* Builds, compiles and links work after the hint. */
   cl_program a = compiled(env, main_src, NULL);
   cl_program b = compiled(env, helper_src, NULL);
   cl_program in[2] = {a, b};
   cl_program exe = link_ok(env, NULL, 2, in);
   run_scale(env, exe, "after clUnloadPlatformCompiler");
   clReleaseProgram(exe);
   clReleaseProgram(a);
   clReleaseProgram(b);
}

/* A program built (and so cached) is then compiled from the same source
 * and options: the result must be a compiled object, not the cached
 * executable; and a build after a compile is an executable. */
static void cache_interplay(const struct kt_env *env)
{
   const char *src = "__kernel void cached(__global int *o) { o[get_global_id(0)] = 5; }\n";
   for (int round = 0; round < 2; round++) {
      cl_program p = kk_build(env, src, "-DROUND");
      CHECK(binary_type(p, env->device) == CL_PROGRAM_BINARY_TYPE_EXECUTABLE, "built");
      CHECK_OK(clCompileProgram(p, 0, NULL, "-DROUND", 0, NULL, NULL, NULL, NULL));
      CHECK(binary_type(p, env->device) == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT,
            "round %d: compile after a (cached) build", round);
      size_t num;
      CHECK_ERR(clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof(num), &num, NULL),
                CL_INVALID_PROGRAM_EXECUTABLE);
      CHECK_OK(clBuildProgram(p, 0, NULL, "-DROUND", NULL, NULL));
      CHECK(binary_type(p, env->device) == CL_PROGRAM_BINARY_TYPE_EXECUTABLE,
            "round %d: build after compile", round);
      CHECK_OK(clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof(num), &num, NULL));
      CHECK(num == 1, "%zu kernels", num);
      clReleaseProgram(p);
   }
   /* The same source with different headers compiles to different code:
    * the header's contents are in a compile's cache key. */
   const char *use = "#include \"v.h\"\n__kernel void v(__global int *o) { o[0] = V; }\n";
   for (int value = 1; value <= 2; value++) {
      char text[32];
      snprintf(text, sizeof(text), "#define V %d\n", value);
      const char *t = text;
      cl_int err;
      cl_program h = clCreateProgramWithSource(env->context, 1, &t, NULL, &err);
      cl_program p = source_program(env, use);
      const char *hn = "v.h";
      REQUIRE_OK(clCompileProgram(p, 0, NULL, NULL, 1, &h, &hn, NULL, NULL));
      cl_program exe = link_ok(env, NULL, 1, &p);
      cl_kernel k = kk_kernel(exe, "v");
      cl_mem m = kk_buffer_in(env, sizeof(cl_int), NULL);
      KK_ARG(k, 0, m);
      size_t one = 1;
      KK_RUN(env, k, 1, NULL, &one, NULL);
      cl_int got = 0;
      kk_read(env, m, sizeof(got), &got);
      CHECK(got == value, "header value %d, got %d", value, got);
      clReleaseMemObject(m);
      clReleaseKernel(k);
      clReleaseProgram(exe);
      clReleaseProgram(p);
      clReleaseProgram(h);
   }
}

/* A program from a compiled object's binary may be built (1.2 allows
 * building a program created from a binary): that links it alone. */
static void build_object_binary(const struct kt_env *env)
{
   cl_program obj = compiled(env, other_kernel_src, NULL);
   cl_program q = from_binary(env, obj);
   CHECK_OK(clBuildProgram(q, 0, NULL, NULL, NULL, NULL));
   CHECK(binary_type(q, env->device) == CL_PROGRAM_BINARY_TYPE_EXECUTABLE, "built object");
   cl_kernel k = kk_kernel(q, "other");
   clReleaseKernel(k);
   clReleaseProgram(q);
   clReleaseProgram(obj);
}

/* Links of the same inputs on several threads at once, while another
 * thread recompiles a third program: each link gets its own program and
 * correct code (Appendix A.2: all of these calls are thread-safe). */
struct link_job {
   const struct kt_env *env;
   cl_program in[2];
   cl_program out;
   cl_int err;
};

static void *link_thread(void *arg)
{
   struct link_job *j = arg;
   j->out = clLinkProgram(j->env->context, 0, NULL, NULL, 2, j->in, NULL, NULL, &j->err);
   return NULL;
}

static void *compile_thread(void *arg)
{
   struct link_job *j = arg;
   for (int i = 0; i < 3 && !j->err; i++)
      j->err = clCompileProgram(j->in[0], 0, NULL, NULL, 4, headers, header_names, NULL, NULL);
   return NULL;
}

static void concurrent(const struct kt_env *env)
{
   cl_program a = compiled(env, main_src, NULL);
   cl_program b = compiled(env, helper_src, NULL);
   cl_program c = source_program(env, main_src);
   enum { THREADS = 4 };
   struct link_job jobs[THREADS + 1];
   pthread_t t[THREADS + 1];
   for (int i = 0; i <= THREADS; i++) {
      jobs[i] = (struct link_job){env, {i < THREADS ? a : c, b}, NULL, CL_SUCCESS};
      REQUIRE(!pthread_create(&t[i], NULL, i < THREADS ? link_thread : compile_thread,
                              &jobs[i]));
   }
   for (int i = 0; i <= THREADS; i++)
      pthread_join(t[i], NULL);
   CHECK(jobs[THREADS].err == CL_SUCCESS, "concurrent compile: %s",
         kt_err_name(jobs[THREADS].err));
   for (int i = 0; i < THREADS; i++) {
      CHECK(jobs[i].err == CL_SUCCESS && jobs[i].out, "concurrent link %d: %s", i,
            kt_err_name(jobs[i].err));
      if (!jobs[i].out)
         continue;
      for (int k = 0; k < i; k++)
         CHECK(jobs[i].out != jobs[k].out, "links %d and %d gave one program", i, k);
      run_scale(env, jobs[i].out, "concurrent link");
      clReleaseProgram(jobs[i].out);
   }
   clReleaseProgram(a);
   clReleaseProgram(b);
   clReleaseProgram(c);
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   make_headers(&env);
   two_objects(&env);
   library(&env);
   link_failures(&env);
   compile_failures(&env);
   compile_errors(&env);
   link_errors(&env);
   builtin_kernels(&env);
   unload(&env);
   cache_interplay(&env);
   build_object_binary(&env);
   concurrent(&env);
   for (int i = 0; i < 4; i++)
      clReleaseProgram(headers[i]);
   kt_teardown(&env);
   return kt_result();
}
