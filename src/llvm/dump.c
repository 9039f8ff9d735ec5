/* KILN_DUMP's files (dump.h). */
#include "llvm/dump.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/Core.h>

#include "llvm/compiler.h"
#include "llvm/metadata.h"
#include "util/alloc.h"
#include "util/sha256.h"

/* Longest kernel name put in a file name (names can be long; the hash and
 * the number keep shortened ones apart). */
#define NAME_MAX_KERNEL 64

static unsigned next_number(void)
{
   static atomic_uint builds;
   return atomic_fetch_add(&builds, 1);
}

static void write_file(const char *path, const void *data, size_t size)
{
   FILE *f = fopen(path, "wb");
   if (!f)
      return;
   fwrite(data, 1, size, f);
   fclose(f);
}

void kiln_llvm_dump_begin(struct kiln_llvm_dump *d, const char *source, size_t size)
{
   d->base[0] = 0;
   d->named = false;
   const char *dir = getenv("KILN_DUMP");
   if (!dir || !*dir)
      return;
   unsigned char sum[32];
   char hex[65];
   kiln_sha256(source ? source : "", source ? size : 0, sum);
   kiln_sha256_hex(sum, hex);
   int n = snprintf(d->base, sizeof(d->base), "%s/kiln-%ld-%u-%.8s", dir, (long)getpid(),
                    next_number(), hex);
   if (n < 0 || (size_t)n >= sizeof(d->base) - 80) { /* room for -<kernel>.<ext> */
      d->base[0] = 0;
      return;
   }
   kiln_llvm_dump_bytes(d, "cl", source ? source : "", source ? size : 0);
}

/* Appends text to buf[*len..] within cap; counts what it would need. */
static void add(char *buf, size_t cap, size_t *len, const char *text, size_t n)
{
   if (buf && *len + n <= cap)
      memcpy(buf + *len, text, n);
   *len += n;
}

static size_t link_source(char *buf, size_t cap, const struct kiln_bitcode *in, unsigned n)
{
   size_t len = 0;
   for (unsigned i = 0; i < n; i++) {
      unsigned char sum[32];
      char hex[65], line[256];
      kiln_sha256(in[i].data, in[i].size, sum);
      kiln_sha256_hex(sum, hex);
      int k = snprintf(line, sizeof(line),
                       "/* kiln: clLinkProgram input %u of %u (bitcode sha256 %.16s): %s */\n",
                       i + 1, n, hex,
                       in[i].source ? "its source follows"
                                    : "no source (a program from a binary, or a library)");
      add(buf, cap, &len, line, (size_t)k);
      if (in[i].source) {
         add(buf, cap, &len, in[i].source, in[i].source_size);
         if (in[i].source_size && in[i].source[in[i].source_size - 1] != '\n')
            add(buf, cap, &len, "\n", 1);
      }
   }
   return len;
}

void kiln_llvm_dump_begin_link(struct kiln_llvm_dump *d, const struct kiln_bitcode *inputs,
                               unsigned n)
{
   const char *dir = getenv("KILN_DUMP");
   if (!dir || !*dir) {
      d->base[0] = 0;
      d->named = false;
      return;
   }
   size_t size = link_source(NULL, 0, inputs, n);
   char *text = kiln_malloc(size ? size : 1);
   if (!text) { /* no memory for a dump: no dump */
      d->base[0] = 0;
      d->named = false;
      return;
   }
   link_source(text, size, inputs, n);
   kiln_llvm_dump_begin(d, text, size);
   kiln_free(text);
}

void kiln_llvm_dump_name(struct kiln_llvm_dump *d, LLVMModuleRef m)
{
   if (!d->base[0] || d->named)
      return;
   d->named = true;
   for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
      if (!LLVMGetFirstBasicBlock(fn) || !kiln_is_kernel(fn))
         continue;
      size_t len;
      const char *name = LLVMGetValueName2(fn, &len);
      char old[sizeof(d->base) + 8], now[sizeof(d->base) + 8];
      snprintf(old, sizeof(old), "%s.cl", d->base);
      size_t at = strlen(d->base);
      snprintf(d->base + at, sizeof(d->base) - at, "-%.*s", (int)(len < NAME_MAX_KERNEL ? len :
                                                                   NAME_MAX_KERNEL), name);
      snprintf(now, sizeof(now), "%s.cl", d->base);
      rename(old, now);
      return;
   }
}

void kiln_llvm_dump_bytes(const struct kiln_llvm_dump *d, const char *ext, const void *data,
                          size_t size)
{
   if (!d || !d->base[0])
      return;
   char path[sizeof(d->base) + 16];
   snprintf(path, sizeof(path), "%s.%s", d->base, ext);
   write_file(path, data, size);
}

void kiln_llvm_dump_module(const struct kiln_llvm_dump *d, const char *ext, LLVMModuleRef m)
{
   if (!d || !d->base[0])
      return;
   char path[sizeof(d->base) + 16], *msg = NULL;
   snprintf(path, sizeof(path), "%s.%s", d->base, ext);
   if (LLVMPrintModuleToFile(m, path, &msg))
      LLVMDisposeMessage(msg);
}
