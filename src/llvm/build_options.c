#include "llvm/build_options.h"
#include "util/alloc.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Options that take no argument, exactly as OpenCL 1.1 §5.6.3 spells them. */
static const struct {
   const char *name;
   unsigned flag;
} flag_options[] = {
   {"-cl-opt-disable", KILN_BUILD_OPT_DISABLE},
   {"-cl-single-precision-constant", KILN_BUILD_SINGLE_PRECISION_CONSTANT},
   {"-cl-denorms-are-zero", KILN_BUILD_DENORMS_ARE_ZERO},
   {"-cl-strict-aliasing", KILN_BUILD_STRICT_ALIASING},
   {"-cl-mad-enable", KILN_BUILD_MAD_ENABLE},
   {"-cl-no-signed-zeros", KILN_BUILD_NO_SIGNED_ZEROS},
   {"-cl-unsafe-math-optimizations", KILN_BUILD_UNSAFE_MATH},
   {"-cl-finite-math-only", KILN_BUILD_FINITE_MATH_ONLY},
   {"-cl-fast-relaxed-math", KILN_BUILD_FAST_RELAXED_MATH},
   {"-w", KILN_BUILD_NO_WARNINGS},
   {"-Werror", KILN_BUILD_WERROR},
   {"-cl-kernel-arg-info", KILN_BUILD_KERNEL_ARG_INFO},
};

static const struct {
   const char *name;
   enum kiln_cl_std std;
} cl_std_values[] = {
   {"CL1.0", KILN_CL_STD_1_0},
   {"CL1.1", KILN_CL_STD_1_1},
   {"CL1.2", KILN_CL_STD_1_2},
   /* Only where the device has all of OpenCL C 2.0 (parser.c20):
    * a 3.0 device need not compile it. */
   {"CL2.0", KILN_CL_STD_2_0},
   {"CL3.0", KILN_CL_STD_3_0},
};

struct parser {
   const char *cursor;
   struct kiln_build_options *out;
   enum kiln_cl_std max_std;
   bool c20;
   char *reason;
   size_t reason_size;
};

static enum kiln_build_options_status
fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static enum kiln_build_options_status
fail(struct parser *p, const char *fmt, ...)
{
   if (p->reason && p->reason_size) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(p->reason, p->reason_size, fmt, ap);
      va_end(ap);
      /* The reason is one line of the build log, whatever the user typed
       * inside quotes. */
      for (char *c = p->reason; *c; c++) {
         if (iscntrl((unsigned char)*c))
            *c = ' ';
      }
   }
   return KILN_BUILD_OPTIONS_INVALID;
}

static bool is_space(char c)
{
   return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Splits off the next word the way a POSIX shell would for double quotes
 * only: "..." groups spaces and is removed, and a backslash escapes '"' or
 * '\' (outside quotes also a space). Single quotes are ordinary characters,
 * because -D C='x' is how users define a character literal. Returns OK with
 * *word NULL at the end of the string. */
static enum kiln_build_options_status next_word(struct parser *p, char **word)
{
   const char *s = p->cursor;
   *word = NULL;
   while (is_space(*s))
      s++;
   if (!*s) {
      p->cursor = s;
      return KILN_BUILD_OPTIONS_OK;
   }

   /* Unquoting only shrinks a word, so the rest of the string bounds it. */
   char *buf = kiln_malloc(strlen(s) + 1);
   if (!buf)
      return KILN_BUILD_OPTIONS_OUT_OF_MEMORY;
   size_t n = 0;
   bool quoted = false;
   const char *start = s;
   for (; *s && (quoted || !is_space(*s)); s++) {
      if (*s == '"') {
         quoted = !quoted;
      } else if (*s == '\\' && (s[1] == '"' || s[1] == '\\' ||
                                (!quoted && s[1] && is_space(s[1])))) {
         buf[n++] = *++s;
      } else {
         buf[n++] = *s;
      }
   }
   if (quoted) {
      kiln_free(buf);
      return fail(p, "unterminated double quote in build option '%.64s'", start);
   }
   buf[n] = '\0';
   p->cursor = s;
   *word = buf;
   return KILN_BUILD_OPTIONS_OK;
}

static const char *skip_identifier(const char *s)
{
   if (!(isalpha((unsigned char)*s) || *s == '_'))
      return NULL;
   while (isalnum((unsigned char)*s) || *s == '_')
      s++;
   return s;
}

/* A function-like macro's parameter list: (), (a), (a, b), (a, ...). */
static const char *skip_parameters(const char *s)
{
   s++; /* '(' */
   while (*s == ' ')
      s++;
   if (*s == ')')
      return s + 1;
   for (;;) {
      if (strncmp(s, "...", 3) == 0) {
         s += 3;
      } else {
         s = skip_identifier(s);
         if (!s)
            return NULL;
      }
      while (*s == ' ')
         s++;
      if (*s == ')')
         return s + 1;
      if (*s != ',')
         return NULL;
      s++;
      while (*s == ' ')
         s++;
   }
}

static enum kiln_build_options_status add_define(struct parser *p, const char *arg)
{
   const char *end = skip_identifier(arg);
   if (end && *end == '(')
      end = skip_parameters(end);
   if (!end || (*end != '\0' && *end != '='))
      return fail(p, "-D '%.64s': a macro name must be an identifier", arg);

   struct kiln_build_options *o = p->out;
   struct kiln_define *grown =
      kiln_realloc(o->defines, (o->num_defines + 1) * sizeof(*o->defines));
   if (!grown)
      return KILN_BUILD_OPTIONS_OUT_OF_MEMORY;
   o->defines = grown;

   struct kiln_define d = {kiln_strndup(arg, (size_t)(end - arg)), NULL};
   if (*end == '=')
      d.value = kiln_strdup(end + 1);
   if (!d.name || (*end == '=' && !d.value)) {
      kiln_free(d.name);
      kiln_free(d.value);
      return KILN_BUILD_OPTIONS_OUT_OF_MEMORY;
   }
   o->defines[o->num_defines++] = d;
   return KILN_BUILD_OPTIONS_OK;
}

static enum kiln_build_options_status add_include_dir(struct parser *p, const char *arg)
{
   if (!*arg)
      return fail(p, "-I needs a directory, got an empty one");

   struct kiln_build_options *o = p->out;
   char **grown = kiln_realloc(o->include_dirs,
                          (o->num_include_dirs + 1) * sizeof(*o->include_dirs));
   if (!grown)
      return KILN_BUILD_OPTIONS_OUT_OF_MEMORY;
   o->include_dirs = grown;
   char *dir = kiln_strdup(arg);
   if (!dir)
      return KILN_BUILD_OPTIONS_OUT_OF_MEMORY;
   o->include_dirs[o->num_include_dirs++] = dir;
   return KILN_BUILD_OPTIONS_OK;
}

static enum kiln_build_options_status set_cl_std(struct parser *p, const char *value)
{
   for (size_t i = 0; i < sizeof(cl_std_values) / sizeof(cl_std_values[0]); i++) {
      if (strcmp(value, cl_std_values[i].name) != 0)
         continue;
      /* §5.6.3.5: asking for a newer OpenCL C than the device has fails. */
      if (cl_std_values[i].std > p->max_std)
         return fail(p, "-cl-std=%s: the device compiles OpenCL C %d.%d at most",
                     value, p->max_std / 100, p->max_std % 100 / 10);
      if (cl_std_values[i].std == KILN_CL_STD_2_0 && !p->c20)
         return fail(p, "-cl-std=CL2.0: the device does not have all of OpenCL C 2.0 "
                        "(CL_DEVICE_OPENCL_C_ALL_VERSIONS)");
      p->out->cl_std = cl_std_values[i].std;
      return KILN_BUILD_OPTIONS_OK;
   }
   return fail(p, "-cl-std=%.32s: unknown OpenCL C version (CL1.0, CL1.1, CL1.2, CL2.0 or CL3.0 expected)",
               value);
}

/* -D and -I take their argument glued (-DX) or as the next word (-D X). */
static enum kiln_build_options_status
take_argument(struct parser *p, const char *word, char **owned, const char **arg)
{
   *owned = NULL;
   *arg = word + 2;
   if (**arg)
      return KILN_BUILD_OPTIONS_OK;
   enum kiln_build_options_status st = next_word(p, owned);
   if (st != KILN_BUILD_OPTIONS_OK)
      return st;
   if (!*owned)
      return fail(p, "%.2s at the end of the options needs %s", word,
                  word[1] == 'D' ? "a macro name" : "a directory");
   *arg = *owned;
   return KILN_BUILD_OPTIONS_OK;
}

static enum kiln_build_options_status parse_word(struct parser *p, const char *word)
{
   if (strncmp(word, "-D", 2) == 0 || strncmp(word, "-I", 2) == 0) {
      char *owned;
      const char *arg;
      enum kiln_build_options_status st = take_argument(p, word, &owned, &arg);
      if (st == KILN_BUILD_OPTIONS_OK)
         st = word[1] == 'D' ? add_define(p, arg) : add_include_dir(p, arg);
      kiln_free(owned);
      return st;
   }
   if (strncmp(word, "-cl-std=", 8) == 0)
      return set_cl_std(p, word + 8);
   /* Two promises a 1.2 device does not know: 2.0's that every
    * work-group is whole (kernels then keep 1.x's uniform launches), and
    * 2.1's that sub-groups need no independent forward progress (no
    * effect: Kiln has no sub-groups). */
   if (!strcmp(word, "-cl-uniform-work-group-size") && p->max_std >= KILN_CL_STD_3_0) {
      p->out->flags |= KILN_BUILD_UNIFORM_WORK_GROUPS;
      return KILN_BUILD_OPTIONS_OK;
   }
   if (!strcmp(word, "-cl-no-subgroup-ifp") && p->max_std >= KILN_CL_STD_3_0)
      return KILN_BUILD_OPTIONS_OK;
   for (size_t i = 0; i < sizeof(flag_options) / sizeof(flag_options[0]); i++) {
      if (strcmp(word, flag_options[i].name) == 0) {
         p->out->flags |= flag_options[i].flag;
         return KILN_BUILD_OPTIONS_OK;
      }
   }
   return fail(p, "unknown build option '%.64s'", word);
}

enum kiln_build_options_status
kiln_build_options_parse(const char *options, enum kiln_cl_std max_std, bool c20,
                         struct kiln_build_options *out,
                         char *reason, size_t reason_size)
{
   memset(out, 0, sizeof(*out));
   /* §5.6.3.5: without -cl-std the device's OpenCL C version applies;
    * 3.0 (5.8.6.5) makes that the newest OpenCL C 1.x, so a 3.0 device
    * compiles unmarked programs as 1.2. */
   out->cl_std = max_std > KILN_CL_STD_1_2 ? KILN_CL_STD_1_2 : max_std;
   if (reason && reason_size)
      reason[0] = '\0';

   struct parser p = {options ? options : "", out, max_std, c20, reason, reason_size};
   for (;;) {
      char *word;
      enum kiln_build_options_status st = next_word(&p, &word);
      if (st != KILN_BUILD_OPTIONS_OK)
         return st;
      if (!word)
         return KILN_BUILD_OPTIONS_OK;
      st = parse_word(&p, word);
      kiln_free(word);
      if (st != KILN_BUILD_OPTIONS_OK)
         return st;
   }
}

void kiln_build_options_fini(struct kiln_build_options *opts)
{
   for (size_t i = 0; i < opts->num_defines; i++) {
      kiln_free(opts->defines[i].name);
      kiln_free(opts->defines[i].value);
   }
   kiln_free(opts->defines);
   for (size_t i = 0; i < opts->num_include_dirs; i++)
      kiln_free(opts->include_dirs[i]);
   kiln_free(opts->include_dirs);
   memset(opts, 0, sizeof(*opts));
}

/* The build flags §5.6.5.2 lets clLinkProgram take. */
static const unsigned link_math_flags =
   KILN_BUILD_DENORMS_ARE_ZERO | KILN_BUILD_NO_SIGNED_ZEROS | KILN_BUILD_UNSAFE_MATH |
   KILN_BUILD_FINITE_MATH_ONLY | KILN_BUILD_FAST_RELAXED_MATH;

enum kiln_build_options_status
kiln_link_options_parse(const char *options, struct kiln_link_options *out, char *reason,
                        size_t reason_size)
{
   memset(out, 0, sizeof(*out));
   if (reason && reason_size)
      reason[0] = '\0';
   struct kiln_build_options unused = {0};
   struct parser p = {options ? options : "", &unused, KILN_CL_STD_1_2, false, reason, reason_size};
   for (;;) {
      char *word;
      enum kiln_build_options_status st = next_word(&p, &word);
      if (st != KILN_BUILD_OPTIONS_OK)
         return st;
      if (!word)
         break;
      if (!strcmp(word, "-create-library")) {
         out->link |= KILN_LINK_CREATE_LIBRARY;
      } else if (!strcmp(word, "-enable-link-options")) {
         out->link |= KILN_LINK_ENABLE_LINK_OPTIONS;
      } else {
         unsigned flag = 0;
         for (size_t i = 0; i < sizeof(flag_options) / sizeof(flag_options[0]); i++)
            if (!strcmp(word, flag_options[i].name))
               flag = flag_options[i].flag;
         if (!(flag & link_math_flags))
            st = fail(&p, "'%.64s' is not a link option (OpenCL 1.2 section 5.6.5)", word);
         out->flags |= flag;
      }
      kiln_free(word);
      if (st != KILN_BUILD_OPTIONS_OK)
         return st;
   }
   if ((out->link & KILN_LINK_ENABLE_LINK_OPTIONS) && !(out->link & KILN_LINK_CREATE_LIBRARY))
      return fail(&p, "-enable-link-options is only valid with -create-library");
   return KILN_BUILD_OPTIONS_OK;
}
