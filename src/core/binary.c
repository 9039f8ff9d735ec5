/* Program binaries: writing and strictly reading the container of
 * include/kiln/binary_format.h.  The reader trusts nothing: every length is
 * checked against what is left, so a truncated, foreign or hostile blob
 * gives CL_INVALID_BINARY and never a crash.
 *
 * KERNELS encoding: uint32 count, then per kernel: string name, uint32
 * num_args, uint32 args_size, uint64 reqd[3], uint64 hint[3], string
 * vec_type_hint, uint64 local_mem, uint64 private_mem; then per argument:
 * uint32 kind, size, offset, address qualifier, access qualifier, uint64
 * type qualifier, string type name, string name.  A string is uint32
 * length + bytes.
 */
#include "core/binary.h"

#include <stdlib.h>
#include <string.h>

#include <CL/cl.h>

#include "kiln/binary_format.h"
#include "kiln/kernel_info.h"
#include "util/alloc.h"

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
   uint64_t h = 0xcbf29ce484222325ull;
   for (size_t i = 0; i < n; i++) {
      h ^= p[i];
      h *= 0x100000001b3ull;
   }
   return h;
}

/* ---- writing ---- */

struct writer {
   unsigned char *out; /* NULL: only count */
   size_t pos;
};

static void put(struct writer *w, const void *p, size_t n)
{
   if (w->out && n)
      memcpy(w->out + w->pos, p, n);
   w->pos += n;
}

static void put32(struct writer *w, uint32_t v)
{
   unsigned char b[4] = {v, v >> 8, v >> 16, v >> 24};
   put(w, b, 4);
}

static void put64(struct writer *w, uint64_t v)
{
   put32(w, (uint32_t)v);
   put32(w, (uint32_t)(v >> 32));
}

static void put_string(struct writer *w, const char *s)
{
   size_t n = s ? strlen(s) : 0;
   put32(w, (uint32_t)n);
   put(w, s, n);
}

static void put_kernels(struct writer *w, const struct kiln_kernel_info *k, unsigned n)
{
   put32(w, n);
   for (unsigned i = 0; i < n; i++) {
      put_string(w, k[i].name);
      put32(w, k[i].num_args);
      put32(w, k[i].args_size);
      for (int d = 0; d < 3; d++)
         put64(w, k[i].reqd_work_group_size[d]);
      for (int d = 0; d < 3; d++)
         put64(w, k[i].work_group_size_hint[d]);
      put_string(w, k[i].vec_type_hint);
      put64(w, k[i].local_mem_size);
      put64(w, k[i].private_mem_size);
      for (uint32_t a = 0; a < k[i].num_args; a++) {
         const struct kiln_arg_info *arg = &k[i].args[a];
         put32(w, arg->kind);
         put32(w, arg->size);
         put32(w, arg->offset);
         put32(w, arg->address_qualifier);
         put32(w, arg->access_qualifier);
         put64(w, arg->type_qualifier);
         put_string(w, arg->type_name);
         put_string(w, arg->name);
      }
   }
}

static void pad8(struct writer *w)
{
   static const unsigned char zeros[8];
   put(w, zeros, (8 - w->pos % 8) % 8);
}

static void section(struct writer *w, uint32_t type, const void *data, size_t size)
{
   put32(w, type);
   put32(w, 0);
   put64(w, size);
   put(w, data, size);
   pad8(w);
}

static size_t write_all(struct writer *w, const struct kiln_binary_contents *c)
{
   put(w, KILN_BINARY_MAGIC, 8);
   put32(w, KILN_BINARY_VERSION);
   put32(w, (c->bitcode ? 7 : 6) + 1);
   section(w, KILN_SECTION_TARGET, c->target, strlen(c->target));
   section(w, KILN_SECTION_KILN_VERSION, KILN_VERSION, strlen(KILN_VERSION));
   section(w, KILN_SECTION_OPTIONS, c->options ? c->options : "",
           c->options ? strlen(c->options) : 0);
   section(w, KILN_SECTION_OBJECT, c->object, c->object_size);
   bool no_names = false, non_uniform = c->num_kernels > 0;
   for (unsigned i = 0; i < c->num_kernels; i++) {
      no_names |= c->kernels[i].no_arg_info;
      non_uniform &= c->kernels[i].non_uniform_work_groups;
   }
   /* type, flags, then (since __global variables) their total size. */
   unsigned char program[16];
   uint32_t type = c->binary_type ? c->binary_type : CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
   uint32_t flags = (no_names ? KILN_BINARY_NO_ARG_NAMES : 0) |
                    (non_uniform ? KILN_BINARY_NON_UNIFORM : 0);
   for (int b = 0; b < 4; b++) {
      program[b] = (unsigned char)(type >> (8 * b));
      program[4 + b] = (unsigned char)(flags >> (8 * b));
   }
   for (int b = 0; b < 8; b++)
      program[8 + b] = (unsigned char)(c->global_variable_size >> (8 * b));
   section(w, KILN_SECTION_PROGRAM, program, sizeof(program));
   /* Kernels: measure first, then write in place. */
   struct writer count = {NULL, 0};
   put_kernels(&count, c->kernels, c->num_kernels);
   put32(w, KILN_SECTION_KERNELS);
   put32(w, 0);
   put64(w, count.pos);
   put_kernels(w, c->kernels, c->num_kernels);
   pad8(w);
   if (c->bitcode)
      section(w, KILN_SECTION_BITCODE, c->bitcode, c->bitcode_size);
   uint64_t sum = w->out ? fnv1a(w->out, w->pos) : 0;
   put32(w, KILN_SECTION_CHECKSUM);
   put32(w, 0);
   put64(w, 8);
   put64(w, sum);
   return w->pos;
}

size_t kiln_binary_write(const struct kiln_binary_contents *c, unsigned char *out)
{
   struct writer w = {out, 0};
   return write_all(&w, c);
}

/* ---- reading ---- */

struct reader {
   const unsigned char *p;
   size_t left;
   bool bad;
   bool *oom; /* set when an allocation failed (shared by sub-readers) */
};

static bool take(struct reader *r, void *out, size_t n)
{
   if (r->bad || n > r->left) {
      r->bad = true;
      return false;
   }
   if (out)
      memcpy(out, r->p, n);
   r->p += n;
   r->left -= n;
   return true;
}

static uint32_t get32(struct reader *r)
{
   unsigned char b[4] = {0};
   take(r, b, 4);
   return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint64_t get64(struct reader *r)
{
   uint64_t lo = get32(r);
   return lo | (uint64_t)get32(r) << 32;
}

static char *get_string(struct reader *r)
{
   uint32_t n = get32(r);
   if (r->bad || n > r->left) {
      r->bad = true;
      return NULL;
   }
   char *s = kiln_malloc((size_t)n + 1);
   if (!s) {
      r->bad = *r->oom = true;
      return NULL;
   }
   take(r, s, n);
   s[n] = 0;
   return s;
}

/* lds32: the binary is for a GPU whose __local slots hold 32-bit offsets
 * (AMD: LDS pointers; NVIDIA: dynamic shared memory offsets;
 * src/llvm/metadata.c). */
static bool get_kernels(struct reader *r, struct kiln_kernel_info **out, unsigned *count,
                        bool lds32)
{
   uint32_t n = get32(r);
   /* Each kernel takes at least 80 bytes: a count beyond that is a lie. */
   if (r->bad || n > r->left / 80 + 1)
      return false;
   struct kiln_kernel_info *k = kiln_calloc(n ? n : 1, sizeof(*k));
   if (!k) {
      *r->oom = true;
      return false;
   }
   unsigned i;
   for (i = 0; i < n && !r->bad; i++) {
      k[i].name = get_string(r);
      k[i].num_args = get32(r);
      k[i].args_size = get32(r);
      for (int d = 0; d < 3; d++)
         k[i].reqd_work_group_size[d] = get64(r);
      for (int d = 0; d < 3; d++)
         k[i].work_group_size_hint[d] = get64(r);
      k[i].vec_type_hint = get_string(r);
      /* A required work-group size is all zeros (none) or all positive. */
      bool any = false, all = true;
      for (int d = 0; d < 3; d++) {
         any |= k[i].reqd_work_group_size[d] != 0;
         all &= k[i].reqd_work_group_size[d] != 0;
      }
      if (any && !all)
         r->bad = true;
      k[i].local_mem_size = get64(r);
      k[i].private_mem_size = get64(r);
      if (r->bad || k[i].num_args > r->left / 36)
         break;
      k[i].args = kiln_calloc(k[i].num_args ? k[i].num_args : 1, sizeof(*k[i].args));
      if (!k[i].args) {
         *r->oom = true;
         break;
      }
      for (uint32_t a = 0; a < k[i].num_args && !r->bad; a++) {
         struct kiln_arg_info *arg = &k[i].args[a];
         arg->kind = (enum kiln_arg_kind)get32(r);
         arg->size = get32(r);
         arg->offset = get32(r);
         arg->address_qualifier = get32(r);
         arg->access_qualifier = get32(r);
         arg->type_qualifier = get64(r);
         arg->type_name = get_string(r);
         arg->name = get_string(r);
         /* Arguments must fit the buffer the kernel reads, and pointer
          * slots hold 8 bytes (Kiln writes addresses and offsets there),
          * but __local ones 4 on AMD GPUs. */
         bool lds_slot = lds32 && arg->kind == KILN_ARG_LOCAL && arg->size == 4;
         if (arg->kind > KILN_ARG_KIND_LAST || (uint64_t)arg->offset + arg->size > k[i].args_size ||
             (arg->kind != KILN_ARG_VALUE && arg->kind != KILN_ARG_SAMPLER && arg->size != 8 &&
              !lds_slot))
            r->bad = true;
      }
   }
   if (i < n || r->bad || r->left) {
      for (unsigned j = 0; j < n; j++)
         kiln_kernel_info_free(&k[j]);
      kiln_free(k);
      return false;
   }
   *out = k;
   *count = n;
   return true;
}

void kiln_binary_contents_fini(struct kiln_binary_contents *c)
{
   kiln_free(c->target);
   kiln_free(c->options);
   kiln_free(c->object);
   kiln_free(c->bitcode);
   for (unsigned i = 0; i < c->num_kernels; i++)
      kiln_kernel_info_free(&c->kernels[i]);
   kiln_free(c->kernels);
   memset(c, 0, sizeof(*c));
}

static void *copy_bytes(const unsigned char *p, size_t n)
{
   void *out = kiln_malloc(n ? n : 1);
   if (out && n)
      memcpy(out, p, n);
   return out;
}

enum kiln_binary_status kiln_binary_read(const unsigned char *data, size_t size,
                                         struct kiln_binary_contents *c)
{
   memset(c, 0, sizeof(*c));
   bool oom = false;
   struct reader r = {data, size, false, &oom};
   char magic[8];
   if (!data || !take(&r, magic, 8) || memcmp(magic, KILN_BINARY_MAGIC, 8))
      return KILN_BINARY_INVALID;
   if (get32(&r) != KILN_BINARY_VERSION)
      return KILN_BINARY_INVALID;
   uint32_t n = get32(&r);
   bool have_kernels = false, have_sum = false;
   uint32_t program_flags = 0;
   for (uint32_t s = 0; s < n && !r.bad; s++) {
      size_t header_at = size - r.left;
      uint32_t type = get32(&r);
      get32(&r);
      uint64_t len = get64(&r);
      if (r.bad || len > r.left) {
         r.bad = true;
         break;
      }
      struct reader sec = {r.p, (size_t)len, false, &oom};
      take(&r, NULL, (size_t)len);
      take(&r, NULL, (8 - (size_t)len % 8) % 8);
      char **str = type == KILN_SECTION_TARGET ? &c->target
                   : type == KILN_SECTION_OPTIONS ? &c->options
                                                  : NULL;
      if (str) {
         kiln_free(*str);
         *str = kiln_malloc((size_t)len + 1);
         if (!*str) {
            r.bad = oom = true;
            break;
         }
         memcpy(*str, sec.p, (size_t)len);
         (*str)[len] = 0;
      } else if (type == KILN_SECTION_OBJECT && !c->object) {
         c->object = copy_bytes(sec.p, (size_t)len);
         c->object_size = (size_t)len;
         if (!c->object)
            r.bad = oom = true;
      } else if (type == KILN_SECTION_BITCODE && !c->bitcode) {
         c->bitcode = copy_bytes(sec.p, (size_t)len);
         c->bitcode_size = (size_t)len;
         if (!c->bitcode)
            r.bad = oom = true;
      } else if (type == KILN_SECTION_PROGRAM && (len == 8 || len == 16)) {
         c->binary_type = get32(&sec);
         program_flags = get32(&sec);
         if (len == 16)
            c->global_variable_size = get64(&sec);
      } else if (type == KILN_SECTION_CHECKSUM && len == 8) {
         struct reader sum = {sec.p, 8, false, &oom};
         /* Checked before the sections are trusted any further. */
         have_sum = get64(&sum) == fnv1a(data, header_at) && s + 1 == n;
         r.bad |= !have_sum;
      } else if (type == KILN_SECTION_KERNELS && !have_kernels) {
         have_kernels = get_kernels(&sec, &c->kernels, &c->num_kernels,
                                    c->target && (!strncmp(c->target, "amdgpu:", 7) ||
                                                  !strncmp(c->target, "nvptx:", 6)));
         r.bad |= !have_kernels;
      }
      /* Other sections (KILN_VERSION, newer ones) are skipped. */
   }
   if (!c->binary_type)
      c->binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
   bool executable = c->binary_type == CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
   bool code = executable ? c->object && c->object_size : c->bitcode && c->bitcode_size;
   if (c->binary_type != CL_PROGRAM_BINARY_TYPE_EXECUTABLE &&
       c->binary_type != CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT &&
       c->binary_type != CL_PROGRAM_BINARY_TYPE_LIBRARY)
      r.bad = true;
   if (r.bad || !have_sum || !c->target || !code || !have_kernels) {
      kiln_binary_contents_fini(c);
      return oom ? KILN_BINARY_OUT_OF_MEMORY : KILN_BINARY_INVALID;
   }
   for (unsigned i = 0; i < c->num_kernels; i++) {
      c->kernels[i].no_arg_info = program_flags & KILN_BINARY_NO_ARG_NAMES;
      c->kernels[i].non_uniform_work_groups = program_flags & KILN_BINARY_NON_UNIFORM;
   }
   return KILN_BINARY_OK;
}
