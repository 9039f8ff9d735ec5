/* KILN_DUMP=<dir> (docs/dump.md): every clBuildProgram, clCompileProgram
 * and clLinkProgram leaves its source and build log, and builds and links
 * their LLVM IR before and after optimisation and the object the JIT
 * loads, also when the compile cache holds the program (a cached result
 * has no IR to give, so KILN_DUMP skips the lookup).  Files are named
 * kiln-<pid>-<n>-<hash>[-<kernel>].<ext>: the hash is that of the .cl, the
 * kernel the program's first, so the programs of one application can be
 * told apart. */
#include <ctype.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kk.h"

static const char *src = "__kernel void dumped_kernel(__global int *o)\n"
                         "{ o[get_global_id(0)] = 42; }\n";
/* For clCompileProgram + clLinkProgram: a kernel and a helper without. */
static const char *main_src = "int helper(int i);\n"
                              "__kernel void first_kernel(__global int *o)\n"
                              "{ int i = get_global_id(0); o[i] = helper(i); }\n"
                              "__kernel void second_kernel(__global int *o) { o[0] = 0; }\n";
static const char *helper_src = "int helper(int i) { return 3 * i; }";

static char *slurp(const char *path, size_t *size)
{
   FILE *f = fopen(path, "rb");
   if (!f)
      return NULL;
   char *buf = calloc(1, 1 << 22);
   *size = fread(buf, 1, (1 << 22) - 1, f);
   fclose(f);
   return buf;
}

/* The first 8 hex digits of the file's SHA-256, by sha256sum. */
static bool file_hash(const char *path, char out[9])
{
   char cmd[700];
   snprintf(cmd, sizeof(cmd), "sha256sum '%s'", path);
   FILE *p = popen(cmd, "r");
   if (!p)
      return false;
   char line[128] = "";
   bool ok = fgets(line, sizeof(line), p) != NULL;
   pclose(p);
   memcpy(out, line, 8);
   out[8] = 0;
   return ok && strlen(line) > 8;
}

struct dumped {
   char base[512];   /* dir/kiln-... without extension */
   char hash[9];
   char kernel[128]; /* "" when the name has none */
   char *text;       /* the .cl */
   size_t size;
};

/* Reads "kiln-<pid>-<n>-<8 hex>[-<kernel>].cl" into d; false otherwise. */
static bool parse_name(const char *dir, const char *name, struct dumped *d)
{
   size_t n = strlen(name);
   if (n < 4 || strcmp(name + n - 3, ".cl") || strncmp(name, "kiln-", 5))
      return false;
   const char *p = name + 5;
   for (int field = 0; field < 2; field++) {
      if (!isdigit((unsigned char)*p))
         return false;
      while (isdigit((unsigned char)*p))
         p++;
      if (*p++ != '-')
         return false;
   }
   for (int i = 0; i < 8; i++)
      if (!isxdigit((unsigned char)p[i]))
         return false;
   memcpy(d->hash, p, 8);
   d->hash[8] = 0;
   p += 8;
   d->kernel[0] = 0;
   const char *end = name + n - 3;
   if (*p == '-')
      snprintf(d->kernel, sizeof(d->kernel), "%.*s", (int)(end - p - 1), p + 1);
   else if (p != end)
      return false;
   snprintf(d->base, sizeof(d->base), "%s/%.*s", dir, (int)(n - 3), name);
   return true;
}

/* Every .cl in dir, checked for its name, hash and log. */
static int list_dir(const char *dir, struct dumped *out, int max)
{
   DIR *d = opendir(dir);
   REQUIRE(d);
   int n = 0;
   for (struct dirent *e; (e = readdir(d));) {
      size_t len = strlen(e->d_name);
      if (len < 3 || strcmp(e->d_name + len - 3, ".cl"))
         continue;
      REQUIRE(n < max);
      struct dumped *x = &out[n];
      if (!parse_name(dir, e->d_name, x)) {
         KT_FAIL("%s: not kiln-<pid>-<n>-<hash>[-<kernel>].cl", e->d_name);
         continue;
      }
      char path[600], sum[9];
      snprintf(path, sizeof(path), "%s.cl", x->base);
      x->text = slurp(path, &x->size);
      REQUIRE(x->text);
      CHECK(file_hash(path, sum) && !strcmp(sum, x->hash), "%s: hash %s, the file's is %s",
            path, x->hash, sum);
      snprintf(path, sizeof(path), "%s.log", x->base);
      CHECK(access(path, R_OK) == 0, "%s: the build log is missing", path);
      n++;
   }
   closedir(d);
   return n;
}

/* The IR, optimised IR and device code of a build or link: on a CPU the
 * optimised IR holds the kernel's work-group function and the code is an
 * ELF object; a GPU's is its kernel, and an object (AMD) or PTX (NVIDIA). */
static void check_code(const struct dumped *x, const char *kernel, bool cpu)
{
   char wg[128];
   snprintf(wg, sizeof(wg), "%s%s", cpu ? "__kiln_wg_" : "", kernel);
   char path[600];
   snprintf(path, sizeof(path), "%s.o", x->base);
   bool ptx = !cpu && access(path, R_OK) != 0;
   const struct {
      const char *ext, *needle;
   } files[] = {
      {".ll", "define"},
      {".opt.ll", wg},
      {ptx ? ".ptx" : ".o", ptx ? ".entry" : "\x7f" "ELF"},
   };
   for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
      snprintf(path, sizeof(path), "%s%s", x->base, files[i].ext);
      size_t size = 0;
      char *text = slurp(path, &size);
      CHECK(text != NULL, "%s is missing", path);
      const char *needle = files[i].needle;
      if (text)
         CHECK(memmem(text, size, needle, strlen(needle)) != NULL, "%s lacks '%s'", path,
               needle);
      free(text);
   }
}

static bool holds(const struct dumped *x, const char *s)
{
   return memmem(x->text, x->size, s, strlen(s)) != NULL;
}

static bool is(const struct dumped *x, const char *s)
{
   return x->size == strlen(s) && !memcmp(x->text, s, x->size);
}

/* Compiles main and helper, links them: three programs. */
static cl_program compile_link(const struct kt_env *env)
{
   cl_int err;
   cl_program a = clCreateProgramWithSource(env->context, 1, &main_src, NULL, &err);
   REQUIRE_OK(err);
   cl_program b = clCreateProgramWithSource(env->context, 1, &helper_src, NULL, &err);
   REQUIRE_OK(err);
   CHECK_OK(clCompileProgram(a, 1, &env->device, "", 0, NULL, NULL, NULL, NULL));
   CHECK_OK(clCompileProgram(b, 1, &env->device, "", 0, NULL, NULL, NULL, NULL));
   cl_program in[2] = {a, b};
   cl_program exe = clLinkProgram(env->context, 1, &env->device, "", 2, in, NULL, NULL, &err);
   REQUIRE_OK(err);
   clReleaseProgram(a);
   clReleaseProgram(b);
   return exe;
}

static void run_check(const struct kt_env *env, cl_program p, const char *name, int factor)
{
   cl_kernel k = kk_kernel(p, name);
   int out[16] = {0};
   cl_mem m = kk_buffer_in(env, sizeof(out), out);
   KK_ARG(k, 0, m);
   size_t global = 16;
   KK_RUN(env, k, 1, NULL, &global, NULL);
   kk_read(env, m, sizeof(out), out);
   for (int i = 0; i < 16; i++)
      CHECK(out[i] == (factor ? factor * i : 42), "%s: out[%d] = %d", name, i, out[i]);
   clReleaseMemObject(m);
   clReleaseKernel(k);
}

int main(void)
{
   char root[] = "/tmp/kiln-test-dump-XXXXXX";
   REQUIRE(mkdtemp(root));
   char dump[600], cache[600];
   snprintf(dump, sizeof(dump), "%s/dump", root);
   snprintf(cache, sizeof(cache), "%s/cache", root);
   REQUIRE(mkdir(dump, 0700) == 0);
   /* Set before Kiln reads them (KILN_CACHE once, KILN_DUMP per build). */
   setenv("KILN_CACHE", "1", 1);
   setenv("KILN_CACHE_DIR", cache, 1);
   struct kt_env env;
   kt_setup(&env, 0);
   cl_device_type type = 0;
   CHECK_OK(clGetDeviceInfo(env.device, CL_DEVICE_TYPE, sizeof(type), &type, NULL));
   bool cpu = type & CL_DEVICE_TYPE_CPU;
   /* Fill the cache without dumping, then build with KILN_DUMP. */
   cl_program p = NULL;
   unsetenv("KILN_DUMP");
   CHECK_OK(kk_try_build(&env, src, "", &p));
   clReleaseProgram(p);
   p = compile_link(&env);
   clReleaseProgram(p);
   struct dumped d[8] = {0};
   CHECK(list_dir(dump, d, 8) == 0, "nothing dumped without KILN_DUMP");
   setenv("KILN_DUMP", dump, 1);
   CHECK_OK(kk_try_build(&env, src, "", &p));
   cl_program linked = compile_link(&env);
   int n = list_dir(dump, d, 8);
   CHECK(n == 4, "%d programs dumped, want 4 (a build, two compiles, a link)", n);
   const struct dumped *build = NULL, *compiled_main = NULL, *compiled_helper = NULL,
                       *link = NULL;
   for (int i = 0; i < n; i++) {
      if (is(&d[i], src))
         build = &d[i];
      else if (is(&d[i], main_src))
         compiled_main = &d[i];
      else if (is(&d[i], helper_src))
         compiled_helper = &d[i];
      else if (holds(&d[i], "clLinkProgram input 1 of 2") && holds(&d[i], main_src) &&
               holds(&d[i], helper_src))
         link = &d[i];
   }
   CHECK(build && compiled_main && compiled_helper && link,
         "the build, both compiles and the link each left their source");
   if (build) {
      CHECK(!strcmp(build->kernel, "dumped_kernel"), "build named '%s'", build->kernel);
      check_code(build, "dumped_kernel", cpu);
   }
   if (compiled_main)
      CHECK(!strcmp(compiled_main->kernel, "first_kernel"), "compile named '%s'",
            compiled_main->kernel);
   if (compiled_helper)
      CHECK(!compiled_helper->kernel[0], "a program without kernels is named '%s'",
            compiled_helper->kernel);
   if (link) {
      CHECK(!strcmp(link->kernel, "first_kernel"), "link named '%s'", link->kernel);
      check_code(link, "first_kernel", cpu);
   }
   /* Different programs, different hashes. */
   for (int i = 0; i < n; i++)
      for (int j = i + 1; j < n; j++)
         CHECK(strcmp(d[i].hash, d[j].hash), "%s and %s share a hash", d[i].base, d[j].base);
   /* And the programs built while dumping run. */
   run_check(&env, p, "dumped_kernel", 0);
   run_check(&env, linked, "first_kernel", 3);
   for (int i = 0; i < n; i++)
      free(d[i].text);
   clReleaseProgram(linked);
   clReleaseProgram(p);
   kt_teardown(&env);
   if (!kt_result()) {
      char cmd[700];
      snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
      if (system(cmd))
         return 1;
   }
   return kt_result();
}
