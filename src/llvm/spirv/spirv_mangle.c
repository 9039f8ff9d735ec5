/* SPIR builtin names to Kiln's (spirv_mangle.h).  A small parser of the
 * Itanium manglings OpenCL builtins use (_Z <name> <parameter types>;
 * builtin, vector, pointer, qualified and named types; substitutions),
 * which rewrites the address-space qualifiers and writes the name again
 * with the substitutions recounted as clang counts them: every qualified
 * type and every type that is not a builtin is a candidate, added after
 * the types inside it. */
#include "llvm/spirv/spirv_mangle.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define MAX_NODES 64
#define MAX_TEXT 64
#define MAX_NAME 512

enum kind { BUILTIN, VECTOR, POINTER, QUAL, NAMED };

struct node {
   enum kind kind;
   char text[MAX_TEXT]; /* BUILTIN: its code; QUAL: the qualifiers; NAMED:
                         * "<len><name>"; VECTOR: "Dv<n>_" */
   int child;
};

struct parser {
   const char *p;
   struct node nodes[MAX_NODES];
   int num_nodes;
   int subs[MAX_NODES]; /* the SPIR name's substitution candidates */
   int num_subs;
   int params[MAX_NODES];
   int num_params;
   bool changed;
};

static int new_node(struct parser *ps, enum kind kind, const char *text, size_t len, int child)
{
   if (ps->num_nodes == MAX_NODES || len >= MAX_TEXT)
      return -1;
   struct node *n = &ps->nodes[ps->num_nodes];
   n->kind = kind;
   memcpy(n->text, text, len);
   n->text[len] = 0;
   n->child = child;
   return ps->num_nodes++;
}

static int add_sub(struct parser *ps, int node)
{
   if (node < 0 || ps->num_subs == MAX_NODES)
      return -1;
   ps->subs[ps->num_subs++] = node;
   return node;
}

/* <len><identifier>: its length in *len (0: none there). */
static size_t source_name(const char *p, size_t *len)
{
   size_t n = 0, digits = 0;
   while (p[digits] >= '0' && p[digits] <= '9' && digits < 4)
      n = n * 10 + (size_t)(p[digits++] - '0');
   if (!digits || !n || strnlen(p + digits, n) < n)
      return *len = 0;
   *len = digits + n;
   return n;
}

static int parse_type(struct parser *ps);

/* Qualifiers (vendor U<name> first, then r V K) and the type they qualify. */
static int parse_qualified(struct parser *ps)
{
   const char *start = ps->p;
   while (*ps->p == 'U') {
      size_t len;
      if (!source_name(ps->p + 1, &len))
         return -1;
      ps->p += 1 + len;
   }
   while (*ps->p == 'r' || *ps->p == 'V' || *ps->p == 'K')
      ps->p++;
   size_t qlen = (size_t)(ps->p - start);
   int child = parse_type(ps);
   if (child < 0)
      return -1;
   return add_sub(ps, new_node(ps, QUAL, start, qlen, child));
}

static int parse_type(struct parser *ps)
{
   const char *p = ps->p;
   static const char builtins[] = "vwbcahstijlmxynofdegz";
   if (*p && strchr(builtins, *p)) {
      ps->p++;
      return new_node(ps, BUILTIN, p, 1, -1);
   }
   switch (*p) {
   case 'D':
      if (p[1] == 'h') {
         ps->p += 2;
         return new_node(ps, BUILTIN, p, 2, -1);
      }
      if (p[1] == 'v') {
         const char *q = p + 2;
         while (*q >= '0' && *q <= '9')
            q++;
         if (q == p + 2 || *q != '_')
            return -1;
         ps->p = q + 1;
         int child = parse_type(ps);
         if (child < 0)
            return -1;
         return add_sub(ps, new_node(ps, VECTOR, p, (size_t)(q + 1 - p), child));
      }
      return -1;
   case 'P': {
      ps->p++;
      int child = parse_type(ps);
      if (child < 0)
         return -1;
      return add_sub(ps, new_node(ps, POINTER, "P", 1, child));
   }
   case 'U':
   case 'r':
   case 'V':
   case 'K':
      return parse_qualified(ps);
   case 'S': {
      /* S_ is the first candidate, S<base 36>_ the one after it. */
      const char *q = p + 1;
      int id = 0;
      if (*q != '_') {
         int n = 0;
         for (; (*q >= '0' && *q <= '9') || (*q >= 'A' && *q <= 'Z'); q++)
            n = n * 36 + (*q <= '9' ? *q - '0' : *q - 'A' + 10);
         if (*q != '_' || q == p + 1)
            return -1;
         id = n + 1;
      }
      if (id >= ps->num_subs)
         return -1;
      ps->p = q + 1;
      return ps->subs[id];
   }
   default: {
      size_t len;
      if (!source_name(p, &len))
         return -1;
      ps->p += len;
      return add_sub(ps, new_node(ps, NAMED, p, len, -1));
   }
   }
}

/* SPIR's spelling of an address space in quals, as Kiln's; "" when it has
 * none (private). */
static const struct {
   const char *spir, *kiln;
} spaces[] = {
   {"U3AS1", "U8CLglobal"},
   {"U3AS2", "U10CLconstant"},
   {"U3AS3", "U7CLlocal"},
   {"U3AS4", "U9CLgeneric"},
};

/* Rewrites the pointee qualifiers of every pointer. */
static bool rewrite(struct parser *ps)
{
   int n = ps->num_nodes; /* nodes added here need no visit */
   for (int i = 0; i < n; i++) {
      struct node *ptr = &ps->nodes[i];
      if (ptr->kind != POINTER)
         continue;
      struct node *pointee = &ps->nodes[ptr->child];
      if (pointee->kind != QUAL) {
         /* Unqualified: private memory. */
         int q = new_node(ps, QUAL, "U9CLprivate", 11, ptr->child);
         if (q < 0)
            return false;
         ps->nodes[i].child = q;
         ps->changed = true;
         continue;
      }
      if (strstr(pointee->text, "CL"))
         continue; /* already rewritten (a pointee shared through S_) */
      char out[MAX_TEXT];
      const char *as = NULL, *kiln = "U9CLprivate";
      for (size_t s = 0; s < sizeof(spaces) / sizeof(spaces[0]) && !as; s++)
         if ((as = strstr(pointee->text, spaces[s].spir)))
            kiln = spaces[s].kiln;
      if (as && (as[5] >= '0' && as[5] <= '9'))
         return false; /* U3AS10 and the like: not OpenCL's */
      if (!as && strstr(pointee->text, "U3AS"))
         return false;
      size_t before = as ? (size_t)(as - pointee->text) : 0;
      const char *after = as ? as + 5 : pointee->text;
      if ((size_t)snprintf(out, sizeof(out), "%.*s%s%s", (int)before, pointee->text, kiln,
                           after) >= sizeof(out))
         return false;
      strcpy(pointee->text, out);
      ps->changed = true;
   }
   return true;
}

struct writer {
   char *out;
   size_t size, len;
   char subs[MAX_NODES][MAX_NAME]; /* Kiln's candidates, expanded */
   int num_subs;
   bool overflow;
};

static void put(struct writer *w, const char *s)
{
   size_t n = strlen(s);
   if (w->len + n >= w->size) {
      w->overflow = true;
      return;
   }
   memcpy(w->out + w->len, s, n + 1);
   w->len += n;
}

/* The type written in full, without substitutions. */
static bool expand(const struct parser *ps, int i, char *buf, size_t size)
{
   const struct node *n = &ps->nodes[i];
   size_t len = strlen(n->text);
   if (len >= size)
      return false;
   memcpy(buf, n->text, len + 1);
   return n->child < 0 || expand(ps, n->child, buf + len, size - len);
}

static void emit(const struct parser *ps, struct writer *w, int i)
{
   const struct node *n = &ps->nodes[i];
   if (n->kind == BUILTIN) {
      put(w, n->text);
      return;
   }
   char key[MAX_NAME];
   if (!expand(ps, i, key, sizeof(key))) {
      w->overflow = true;
      return;
   }
   for (int s = 0; s < w->num_subs; s++)
      if (!strcmp(w->subs[s], key)) {
         char ref[16];
         if (s == 0)
            snprintf(ref, sizeof(ref), "S_");
         else {
            /* base 36, upper case */
            char digits[8];
            int d = 0, v = s - 1;
            do {
               int r = v % 36;
               digits[d++] = (char)(r < 10 ? '0' + r : 'A' + r - 10);
               v /= 36;
            } while (v);
            int k = 0;
            ref[k++] = 'S';
            while (d)
               ref[k++] = digits[--d];
            ref[k++] = '_';
            ref[k] = 0;
         }
         put(w, ref);
         return;
      }
   put(w, n->text);
   if (n->child >= 0)
      emit(ps, w, n->child);
   if (w->num_subs < MAX_NODES)
      strcpy(w->subs[w->num_subs++], key);
}

enum kiln_spirv_mangle_status kiln_spirv_remangle(const char *name, char *out, size_t size)
{
   if (strncmp(name, "_Z", 2))
      return KILN_SPIRV_MANGLE_UNKNOWN;
   struct parser parser = {0}, *ps = &parser;
   size_t len;
   if (!source_name(name + 2, &len))
      return KILN_SPIRV_MANGLE_UNKNOWN;
   ps->p = name + 2 + len;
   while (*ps->p) {
      int t = parse_type(ps);
      if (t < 0 || ps->num_params == MAX_NODES)
         return KILN_SPIRV_MANGLE_UNKNOWN;
      ps->params[ps->num_params++] = t;
   }
   if (!ps->num_params || !rewrite(ps))
      return KILN_SPIRV_MANGLE_UNKNOWN;
   if (!ps->changed)
      return KILN_SPIRV_MANGLE_SAME;
   struct writer writer = {0}, *w = &writer;
   w->out = out;
   w->size = size;
   if (!size)
      return KILN_SPIRV_MANGLE_UNKNOWN;
   out[0] = 0;
   put(w, "_Z");
   char ident[MAX_NAME];
   if (len >= sizeof(ident))
      return KILN_SPIRV_MANGLE_UNKNOWN;
   memcpy(ident, name + 2, len);
   ident[len] = 0;
   put(w, ident);
   for (int i = 0; i < ps->num_params; i++)
      emit(ps, w, ps->params[i]);
   return w->overflow ? KILN_SPIRV_MANGLE_UNKNOWN : KILN_SPIRV_MANGLE_RENAMED;
}
