/* The pipe loader's one driver table (src/pipe/pipe_loader.c) against
 * KILN_DEVICES: names it does not know are "unknown", names of drivers
 * that meson's -Ddrivers left out are "not built", and drivers this build
 * has are neither.  Built with the library's KILN_DRIVER_<NAME> flags, so
 * it knows which drivers that is. */
#include "kiln_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipe/pipe.h"
#include "pipe/pipe_loader.h"
#include "util/log.h"

/* Runs the loader with KILN_DEVICES=list, its log going to a file; returns
 * that log (the caller frees it).  Asks for no screens: max is 0, so no
 * driver creates one whatever it finds. */
static char *probe_log(const char *list)
{
   char path[] = "/tmp/kiln-test-loader-XXXXXX";
   int fd = mkstemp(path);
   assert_true(fd >= 0);
   close(fd);
   setenv("KILN_LOG", path, 1);
   setenv("KILN_DEVICES", list, 1);
   kiln_log_reset();
   struct pipe_screen *screens[1];
   assert_int_equal(pipe_loader_probe(screens, 0), 0);
   unsetenv("KILN_LOG");
   kiln_log_reset();

   FILE *f = fopen(path, "r");
   assert_non_null(f);
   static char buf[4096];
   size_t n = fread(buf, 1, sizeof(buf) - 1, f);
   buf[n] = 0;
   fclose(f);
   unlink(path);
   char *copy = strdup(buf);
   assert_non_null(copy);
   return copy;
}

static void unknown_driver(void **state)
{
   (void)state;
   char *log = probe_log("nosuchdriver");
   assert_non_null(strstr(log, "unknown driver 'nosuchdriver'"));
   assert_null(strstr(log, "not built"));
   free(log);
}

/* Each driver of the table: built ones are accepted silently, the
 * others are named as not built (never as unknown). */
static void known_drivers(void **state)
{
   (void)state;
   static const struct {
      const char *name;
      bool built;
   } table[] = {
#if KILN_DRIVER_CPU
      {"cpu", true},
#else
      {"cpu", false},
#endif
#if KILN_DRIVER_AMDGPU
      {"amdgpu", true},
#else
      {"amdgpu", false},
#endif
#if KILN_DRIVER_CUDA
      {"cuda", true},
#else
      {"cuda", false},
#endif
   };
   for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
      char *log = probe_log(table[i].name);
      assert_null(strstr(log, "unknown driver"));
      char want[64];
      snprintf(want, sizeof(want), "driver '%s' not built", table[i].name);
      if (table[i].built)
         assert_null(strstr(log, "not built"));
      else
         assert_non_null(strstr(log, want));
      free(log);
   }
}

/* "all" and "none" are words of KILN_DEVICES, not drivers. */
static void keywords(void **state)
{
   (void)state;
   char *log = probe_log("none");
   assert_string_equal(log, "");
   free(log);
   log = probe_log("all");
   assert_null(strstr(log, "unknown driver"));
   free(log);
}

#if KILN_DRIVER_CPU
/* KILN_CPU_DISCRETE_DEVICES: that many discrete test devices, each a
 * screen of its own; out of range, one and a warning; never more than
 * the caller has room for. */
static unsigned discrete_screens(const char *count, unsigned max, char **log)
{
   char path[] = "/tmp/kiln-test-loader-XXXXXX";
   int fd = mkstemp(path);
   assert_true(fd >= 0);
   close(fd);
   setenv("KILN_LOG", path, 1);
   setenv("KILN_DEVICES", "cpu-discrete", 1);
   if (count)
      setenv("KILN_CPU_DISCRETE_DEVICES", count, 1);
   else
      unsetenv("KILN_CPU_DISCRETE_DEVICES");
   kiln_log_reset();
   struct pipe_screen *screens[4] = {NULL};
   unsigned n = pipe_loader_probe(screens, max);
   for (unsigned i = 0; i < n; i++) {
      assert_non_null(screens[i]);
      assert_string_equal(screens[i]->driver_name, "cpu-discrete");
      for (unsigned j = 0; j < i; j++)
         assert_ptr_not_equal(screens[i], screens[j]);
   }
   for (unsigned i = 0; i < n; i++)
      screens[i]->destroy(screens[i]);
   unsetenv("KILN_LOG");
   unsetenv("KILN_CPU_DISCRETE_DEVICES");
   kiln_log_reset();
   FILE *f = fopen(path, "r");
   assert_non_null(f);
   static char buf[4096];
   size_t len = fread(buf, 1, sizeof(buf) - 1, f);
   buf[len] = 0;
   fclose(f);
   unlink(path);
   *log = strdup(buf);
   assert_non_null(*log);
   return n;
}

static void discrete_count(void **state)
{
   (void)state;
   static const struct {
      const char *count;
      unsigned max, screens;
      bool warns;
   } cases[] = {
      {NULL, 4, 1, false}, {"1", 4, 1, false}, {"2", 4, 2, false}, {"4", 4, 4, false},
      {"2", 1, 1, false},  {"0", 4, 1, true},  {"5", 4, 1, true},  {"x", 4, 1, true},
   };
   for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
      char *log = NULL;
      assert_int_equal(discrete_screens(cases[i].count, cases[i].max, &log), cases[i].screens);
      assert_int_equal(strstr(log, "KILN_CPU_DISCRETE_DEVICES") != NULL, cases[i].warns);
      free(log);
   }
}
#endif

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(unknown_driver),
      cmocka_unit_test(known_drivers),
      cmocka_unit_test(keywords),
#if KILN_DRIVER_CPU
      cmocka_unit_test(discrete_count),
#endif
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
