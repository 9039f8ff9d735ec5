/* KILN_DUMP=<dir> (docs/dump.md): each build leaves its source, LLVM IR
 * before and after optimisation, the object the JIT loads and the build
 * log, also when the compile cache holds the program (a cached build has
 * no IR to give, so KILN_DUMP skips the lookup). */
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kk.h"

static const char *src = "__kernel void dumped_kernel(__global int *o)\n"
                         "{ o[get_global_id(0)] = 42; }\n";

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

/* Checks the files of the one build in dir; returns how many builds the
 * directory holds (files ending in .cl). */
static int check_dir(const char *dir)
{
   DIR *d = opendir(dir);
   REQUIRE(d);
   int builds = 0;
   char base[512] = "";
   for (struct dirent *e; (e = readdir(d));) {
      size_t n = strlen(e->d_name);
      if (n > 3 && !strcmp(e->d_name + n - 3, ".cl")) {
         builds++;
         snprintf(base, sizeof(base), "%s/%.*s", dir, (int)(n - 3), e->d_name);
      }
   }
   closedir(d);
   if (!builds)
      return 0;
   static const struct {
      const char *ext, *needle;
   } files[] = {
      {".cl", "dumped_kernel"},          {".ll", "define"},
      {".opt.ll", "__kiln_wg_dumped_kernel"}, {".o", "\x7f" "ELF"},
      {".log", NULL},
   };
   for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
      char path[600];
      snprintf(path, sizeof(path), "%s%s", base, files[i].ext);
      size_t size = 0;
      char *text = slurp(path, &size);
      CHECK(text != NULL, "%s is missing", path);
      if (text && files[i].needle)
         CHECK(memmem(text, size, files[i].needle, strlen(files[i].needle)) != NULL,
               "%s lacks '%s'", path, files[i].needle);
      if (text && i == 0)
         CHECK(size == strlen(src) && !memcmp(text, src, size), "%s is not the source", path);
      free(text);
   }
   return builds;
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
   /* Fill the cache without dumping, then build with KILN_DUMP. */
   cl_program p = NULL;
   unsetenv("KILN_DUMP");
   CHECK_OK(kk_try_build(&env, src, "", &p));
   clReleaseProgram(p);
   CHECK(check_dir(dump) == 0, "nothing dumped without KILN_DUMP");
   setenv("KILN_DUMP", dump, 1);
   CHECK_OK(kk_try_build(&env, src, "", &p));
   int builds = check_dir(dump);
   CHECK(builds == 1, "%d builds dumped, want 1", builds);
   /* And the program built while dumping runs. */
   cl_kernel k = kk_kernel(p, "dumped_kernel");
   int out[16] = {0};
   cl_mem m = kk_buffer_in(&env, sizeof(out), out);
   KK_ARG(k, 0, m);
   size_t global = 16;
   KK_RUN(&env, k, 1, NULL, &global, NULL);
   kk_read(&env, m, sizeof(out), out);
   for (int i = 0; i < 16; i++)
      CHECK(out[i] == 42, "out[%d] = %d", i, out[i]);
   clReleaseMemObject(m);
   clReleaseKernel(k);
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
