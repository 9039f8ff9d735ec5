/* Fuzzes the clBuildProgram options parser (src/llvm/build_options.c).
 * The input is the options string itself (cut at its first NUL), parsed
 * for every device OpenCL C version and with reason buffers of several
 * sizes, each exactly allocated so that ASan sees a one-byte overrun. */
#include <ctype.h>
#include <string.h>

#include "fuzz.h"
#include "llvm/build_options.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
   (void)argc;
   (void)argv;
   return 0;
}

static bool is_ident_start(char c)
{
   return isalpha((unsigned char)c) || c == '_';
}

static void check_ok(const struct kiln_build_options *o, enum kiln_cl_std max_std)
{
   FUZZ_CHECK(o->cl_std == KILN_CL_STD_1_0 || o->cl_std == KILN_CL_STD_1_1 ||
                 o->cl_std == KILN_CL_STD_1_2 || o->cl_std == KILN_CL_STD_3_0,
              "cl_std %d", (int)o->cl_std);
   FUZZ_CHECK(o->cl_std <= max_std, "cl_std %d above the device's %d", (int)o->cl_std,
              (int)max_std);
   FUZZ_CHECK(!(o->flags & ~(unsigned)KILN_BUILD_FLAGS_ALL), "flags 0x%x", o->flags);
   FUZZ_CHECK(!o->num_defines || o->defines, "%zu defines, no array", o->num_defines);
   for (size_t i = 0; i < o->num_defines; i++) {
      const char *n = o->defines[i].name;
      FUZZ_CHECK(n && is_ident_start(n[0]), "define %zu: name '%s'", i, n ? n : "(null)");
      /* The name ends at '(' or its end: never a '=' nor a space in it. */
      size_t len = strcspn(n, "(");
      for (size_t k = 0; k < len; k++)
         FUZZ_CHECK(isalnum((unsigned char)n[k]) || n[k] == '_', "define %zu: name '%s'", i, n);
      if (n[len])
         FUZZ_CHECK(n[strlen(n) - 1] == ')', "define %zu: name '%s'", i, n);
   }
   FUZZ_CHECK(!o->num_include_dirs || o->include_dirs, "%zu dirs, no array",
              o->num_include_dirs);
   for (size_t i = 0; i < o->num_include_dirs; i++)
      FUZZ_CHECK(o->include_dirs[i] && o->include_dirs[i][0], "include dir %zu empty", i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   char *options = malloc(size + 1);
   if (!options)
      return 0;
   memcpy(options, data, size);
   options[size] = '\0';

   /* Every device version Kiln reports, OpenCL 3.0's (the CPU device) too. */
   static const enum kiln_cl_std stds[] = {KILN_CL_STD_1_0, KILN_CL_STD_1_1, KILN_CL_STD_1_2,
                                           KILN_CL_STD_3_0};
   static const size_t reason_sizes[] = {0, 1, 2, 17, KILN_BUILD_OPTIONS_REASON_SIZE};
   for (size_t s = 0; s < sizeof(stds) / sizeof(stds[0]); s++) {
      int first = -1;
      for (size_t r = 0; r < sizeof(reason_sizes) / sizeof(reason_sizes[0]); r++) {
         size_t rs = reason_sizes[r];
         char *reason = rs ? malloc(rs) : NULL;
         if (reason)
            memset(reason, 'X', rs);
         struct kiln_build_options o;
         enum kiln_build_options_status st =
            kiln_build_options_parse(options, stds[s], false, &o, reason, rs);
         FUZZ_CHECK(st == KILN_BUILD_OPTIONS_OK || st == KILN_BUILD_OPTIONS_INVALID ||
                       st == KILN_BUILD_OPTIONS_OUT_OF_MEMORY,
                    "status %d", (int)st);
         /* The reason buffer changes what is written, never the verdict. */
         if (first < 0)
            first = (int)st;
         FUZZ_CHECK((int)st == first, "status %d with a %zu-byte reason, %d before", (int)st,
                    rs, first);
         if (reason) {
            size_t len = strnlen(reason, rs);
            FUZZ_CHECK(len < rs, "reason not terminated within %zu bytes", rs);
            for (size_t k = 0; k < len; k++)
               FUZZ_CHECK(!iscntrl((unsigned char)reason[k]), "control byte in reason '%s'",
                          reason);
            if (st == KILN_BUILD_OPTIONS_OK)
               FUZZ_CHECK(len == 0, "OK with reason '%s'", reason);
            else if (st == KILN_BUILD_OPTIONS_INVALID && rs > 1)
               FUZZ_CHECK(len > 0, "invalid without a reason");
         }
         if (st == KILN_BUILD_OPTIONS_OK)
            check_ok(&o, stds[s]);
         kiln_build_options_fini(&o);
         FUZZ_CHECK(!o.defines && !o.num_defines && !o.include_dirs && !o.num_include_dirs,
                    "fini left data behind");
         kiln_build_options_fini(&o); /* twice: must be harmless */
         free(reason);
      }
      /* NULL and "" mean no options. */
      if (!size) {
         struct kiln_build_options o;
         FUZZ_CHECK(kiln_build_options_parse(NULL, stds[s], false, &o, NULL, 0) == KILN_BUILD_OPTIONS_OK,
                    "NULL options refused");
         /* Without -cl-std: the device's version, but 1.2 on a 3.0 device
          * (OpenCL 3.0 §5.8.6.5: CL3.0 only when asked for). */
         enum kiln_cl_std want = stds[s] > KILN_CL_STD_1_2 ? KILN_CL_STD_1_2 : stds[s];
         FUZZ_CHECK(o.cl_std == want && !o.flags, "NULL options: std %d flags 0x%x",
                    (int)o.cl_std, o.flags);
         kiln_build_options_fini(&o);
      }
   }
   free(options);
   return 0;
}
