/* Programs the compiler cannot or must not get through end the build with
 * CL_BUILD_PROGRAM_FAILURE (or CL_OUT_OF_HOST_MEMORY) and a log that says
 * why, never the application (docs/design.md, "Compiler limits"):
 * nesting deeper than the compiler's stack, exponential macros, running
 * out of memory in Clang or LLVM (RLIMIT_AS), recursion, and includes of
 * files outside the program's sources, whose contents must not reach the
 * log.  Cases that crashed the process run in a child (kk_child). */
#include "kk.h"

#include <execinfo.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

/* A kernel whose statement is prefix, body repeated n times, then suffix. */
static char *generated(const char *head, const char *unit, unsigned n, const char *tail)
{
   size_t h = strlen(head), u = strlen(unit), t = strlen(tail);
   char *src = malloc(h + u * n + t + 1);
   REQUIRE(src);
   memcpy(src, head, h);
   for (unsigned i = 0; i < n; i++)
      memcpy(src + h + u * i, unit, u);
   memcpy(src + h + u * n, tail, t + 1);
   return src;
}

/* Builds src; the result must be one of the two allowed, and a failure's
 * log must hold needle.  Returns clBuildProgram's result. */
static cl_int build_expect(const struct kt_env *env, const char *what, const char *src,
                           const char *options, bool may_succeed, const char *needle)
{
   cl_program p = NULL;
   cl_int err = kk_try_build(env, src, options, &p);
   CHECK(err == CL_BUILD_PROGRAM_FAILURE || (may_succeed && err == CL_SUCCESS),
         "%s: clBuildProgram returned %s", what, kt_err_name(err));
   if (p && err == CL_BUILD_PROGRAM_FAILURE) {
      char *log = kk_build_log(p, env->device);
      CHECK(strstr(log, needle) != NULL, "%s: the log lacks '%s':\n%.2000s", what, needle, log);
      free(log);
   }
   if (p)
      clReleaseProgram(p);
   return err;
}

/* 5,000 nested unary operators: realistic enough to build; a million:
 * refused, with the reason. */
static int unary_case(bool huge)
{
   struct kt_env env;
   kt_setup(&env, 0);
   unsigned n = huge ? 1000000 : 5000;
   char *src = generated("__kernel void k(__global int *a, int b) { a[0] = ", "~", n, "b; }\n");
   cl_int err = build_expect(&env, huge ? "a million '~'" : "5,000 '~'", src, "", !huge,
                             "nests too deeply");
   if (!huge)
      CHECK(err == CL_SUCCESS, "5,000 nested '~' must build (%s)", kt_err_name(err));
   free(src);
   kt_teardown(&env);
   return kt_result();
}

/* Sums: a long one builds, one beyond the operator limit is refused. */
static int sum_case(bool huge)
{
   struct kt_env env;
   kt_setup(&env, 0);
   unsigned n = huge ? 1000000 : 10000;
   char *src = generated("__kernel void k(__global int *a, int b) { a[0] = b", " + b", n,
                         "; }\n");
   cl_int err = build_expect(&env, huge ? "a million terms" : "10,000 terms", src, "", !huge,
                             "operators");
   if (!huge)
      CHECK(err == CL_SUCCESS, "a sum of 10,000 terms must build (%s)", kt_err_name(err));
   free(src);
   /* Chains the parser takes by recursion, and subscripts taken in a loop. */
   src = generated("__kernel void k(__global int *a, int b) { a[0] = b", " = b", n, "; }\n");
   build_expect(&env, "assignments", src, "", !huge, huge ? "kiln:" : "");
   free(src);
   /* Clang takes time quadratic in an else-if chain's length: the long
    * one (about 40,000 before the stack limit) is left out. */
   if (!huge) {
      src = generated("__kernel void k(__global int *a, int b) { if (b) a[0] = 1;",
                      " else if (b) a[0] = 1;", 2000, " }\n");
      build_expect(&env, "else-if chain", src, "", true, "");
      free(src);
   }
   kt_teardown(&env);
   return kt_result();
}

/* 2^40 tokens: stops at the token limit, in seconds. */
static int macro_case(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   char src[4096];
   /* Statements, so that no other limit is reached first. */
   int n = snprintf(src, sizeof(src), "#define A0 a[0]++;\n");
   for (int i = 1; i <= 40; i++)
      n += snprintf(src + n, sizeof(src) - (size_t)n, "#define A%d A%d A%d\n", i, i - 1,
                    i - 1);
   n += snprintf(src + n, sizeof(src) - (size_t)n,
                 "__kernel void k(__global int *a, int b) { A40 }\n");
   build_expect(&env, "2^40 tokens", src, "", false, "preprocessor tokens");
   char nested[4096];
   /* Macro arguments are expanded before substitution: the other road. */
   n = snprintf(nested, sizeof(nested), "#define D(x) x x\n__kernel void k(__global int *a) { ");
   for (int i = 0; i < 40; i++)
      n += snprintf(nested + n, sizeof(nested) - (size_t)n, "D(");
   n += snprintf(nested + n, sizeof(nested) - (size_t)n, "a[0]++;");
   for (int i = 0; i < 40; i++)
      n += snprintf(nested + n, sizeof(nested) - (size_t)n, ")");
   snprintf(nested + n, sizeof(nested) - (size_t)n, " }\n");
   build_expect(&env, "2^40 tokens in macro arguments", nested, "", false,
                "preprocessor tokens");
   kt_teardown(&env);
   return kt_result();
}

/* A crash in a capped build names where it happened: the shared object
 * and function of each frame, written without allocating (backtrace is
 * run once before the cap so that its unwinder is loaded). */
static void report_crash(int sig)
{
   static const char msg[] = "crashed; backtrace:\n";
   if (write(2, msg, sizeof(msg) - 1) < 0)
      _exit(128 + sig);
   void *frames[32];
   backtrace_symbols_fd(frames, backtrace(frames, 32), 2);
   signal(sig, SIG_DFL);
   raise(sig);
}

static void arm_crash_report(void)
{
   static char stack[1 << 16];
   stack_t ss = {.ss_sp = stack, .ss_size = sizeof(stack)};
   sigaltstack(&ss, NULL);
   void *warm[1];
   backtrace(warm, 1);
   struct sigaction sa = {.sa_handler = report_crash, .sa_flags = SA_ONSTACK | SA_RESETHAND};
   sigemptyset(&sa.sa_mask);
   sigaction(SIGSEGV, &sa, NULL);
   sigaction(SIGBUS, &sa, NULL);
   sigaction(SIGABRT, &sa, NULL);
}

/* Address space capped at what the process uses plus extra_mb: the build
 * succeeds, or fails with CL_OUT_OF_HOST_MEMORY or a build failure, and
 * this child exits normally either way. */
static int oom_case(unsigned extra_mb)
{
   struct kt_env env;
   kt_setup(&env, 0);
   /* Never from the compile cache: the compiler must run. */
   char src[256];
   snprintf(src, sizeof(src),
            "__kernel void k(__global int *a) { a[get_global_id(0)] = %u + %d; }\n", extra_mb,
            (int)getpid());
   long pages = 0;
   FILE *f = fopen("/proc/self/statm", "r");
   REQUIRE(f && fscanf(f, "%ld", &pages) == 1);
   fclose(f);
   rlim_t cap = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)extra_mb << 20);
   struct rlimit rl = {cap, cap};
   arm_crash_report();
   REQUIRE(setrlimit(RLIMIT_AS, &rl) == 0);
   const char *strings[] = {src};
   cl_int err;
   cl_program p = clCreateProgramWithSource(env.context, 1, strings, NULL, &err);
   if (p) {
      err = clBuildProgram(p, 1, &env.device, "", NULL, NULL);
      clReleaseProgram(p);
   }
   printf("capped at +%u MiB: %s\n", extra_mb, kt_err_name(err));
   CHECK(err == CL_SUCCESS || err == CL_OUT_OF_HOST_MEMORY || err == CL_BUILD_PROGRAM_FAILURE,
         "+%u MiB: clBuildProgram returned %s", extra_mb, kt_err_name(err));
   /* No kt_teardown: releasing may need memory the cap denies; exiting
    * normally is what is tested. */
   fflush(stdout);
   _exit(kt_result());
}

static int child(const char *name)
{
   if (!strcmp(name, "unary"))
      return unary_case(false);
   if (!strcmp(name, "unary-huge"))
      return unary_case(true);
   if (!strcmp(name, "sum"))
      return sum_case(false);
   if (!strcmp(name, "sum-huge"))
      return sum_case(true);
   if (!strcmp(name, "macro"))
      return macro_case();
   unsigned mb;
   if (sscanf(name, "oom-%u", &mb) == 1)
      return oom_case(mb);
   fprintf(stderr, "unknown case %s\n", name);
   return 1;
}

static void run_child(const char *name, int timeout_s)
{
   int rc = kk_child(name, timeout_s);
   CHECK(rc == 0, "case '%s' %s %d", name, rc > 128 ? "died of signal" : "exited with",
         rc > 128 ? rc - 128 : rc);
}

static void recursion(const struct kt_env *env)
{
   build_expect(env, "direct recursion",
                "int fact(int n) { return n < 2 ? 1 : n * fact(n - 1); }\n"
                "__kernel void k(__global int *a) { a[0] = fact(a[1]); }\n",
                "", false, "function 'fact' calls itself");
   build_expect(env, "mutual recursion",
                "int odd(int n);\n"
                "int even(int n) { return n == 0 ? 1 : odd(n - 1); }\n"
                "int odd(int n) { return n == 0 ? 0 : even(n - 1); }\n"
                "__kernel void k(__global int *a) { a[0] = even(a[1]); }\n",
                "", false, "call each other");
   cl_program p = NULL;
   cl_int err = kk_try_build(env,
                             "__kernel void k(__global int *a)\n"
                             "{ if (a[0] > 0) { a[0]--; k(a); } }\n",
                             "", &p);
   CHECK(err == CL_BUILD_PROGRAM_FAILURE, "a kernel calling itself: %s", kt_err_name(err));
   if (p) {
      char *log = kk_build_log(p, env->device);
      CHECK(strstr(log, "kernel 'k' calls itself") && !strstr(log, "missing"),
            "a kernel calling itself: log\n%s", log);
      free(log);
      clReleaseProgram(p);
   }
   /* Recursion the optimiser could remove is an error all the same, and a
    * call graph without a cycle still builds. */
   build_expect(env, "no recursion",
                "int g(int n) { return n + 1; }\nint f(int n) { return g(n) + g(n + 1); }\n"
                "__kernel void k(__global int *a) { a[0] = f(a[1]); }\n",
                "", true, "");
}

/* A file outside the program's sources and -I directories: its lines
 * never reach the log.  The same file under -I is quoted as usual. */
static void foreign_include(const struct kt_env *env)
{
   char dir[] = "/tmp/kiln-build-limits-XXXXXX";
   REQUIRE(mkdtemp(dir));
   char path[256];
   snprintf(path, sizeof(path), "%s/secret.txt", dir);
   FILE *f = fopen(path, "w");
   REQUIRE(f);
   fputs("root:SECRET-HASH-abc123:19000:0:99999:7:::\n", f);
   fclose(f);
   char src[512];
   snprintf(src, sizeof(src),
            "#include \"%s\"\n__kernel void k(__global int *a) { a[0] = 1; }\n", path);
   cl_program p = NULL;
   cl_int err = kk_try_build(env, src, "", &p);
   CHECK(err == CL_BUILD_PROGRAM_FAILURE, "foreign include: %s", kt_err_name(err));
   if (p) {
      char *log = kk_build_log(p, env->device);
      CHECK(!strstr(log, "SECRET") && !strstr(log, "root"),
            "the log quotes the included file:\n%s", log);
      CHECK(strstr(log, "secret.txt") && strstr(log, "input.cl:1"),
            "the log does not name the file and the include:\n%s", log);
      free(log);
      clReleaseProgram(p);
   }
   /* Under -I: the program's own header, quoted. */
   char options[300];
   snprintf(options, sizeof(options), "-I %s", dir);
   p = NULL;
   err = kk_try_build(env,
                      "#include \"secret.txt\"\n__kernel void k(__global int *a) { a[0] = 1; }\n",
                      options, &p);
   CHECK(err == CL_BUILD_PROGRAM_FAILURE, "include under -I: %s", kt_err_name(err));
   if (p) {
      char *log = kk_build_log(p, env->device);
      CHECK(strstr(log, "SECRET-HASH"), "a header under -I is not quoted:\n%s", log);
      free(log);
      clReleaseProgram(p);
   }
   unlink(path);
   rmdir(dir);
}

int main(int argc, char **argv)
{
   KK_CHILD_MAIN(argc, argv, child);
   /* Every build here must reach the compiler. */
   setenv("KILN_CACHE", "0", 1);

   struct kt_env env;
   kt_setup(&env, 0);
   recursion(&env);
   foreign_include(&env);
   kt_teardown(&env);

   run_child("unary", 120);
   run_child("unary-huge", 120);
   run_child("sum", 120);
   run_child("sum-huge", 120);
   run_child("macro", 120);
#if defined(__SANITIZE_ADDRESS__)
   printf("RLIMIT_AS cases skipped: AddressSanitizer reserves terabytes of address space\n");
#else
   /* From nothing to spare (no compiler thread) to enough for the build. */
   static const unsigned caps[] = {0, 16, 64, 200, 260, 270, 280, 290, 300, 320, 350, 380, 400, 600, 2000};
   for (unsigned i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
      char name[32];
      snprintf(name, sizeof(name), "oom-%u", caps[i]);
      run_child(name, 120);
   }
#endif
   return kt_result();
}
