/* The target table and what every entry shares: resolving a device's
 * target, naming its code (target ids) and loading its builtins. */
#include "llvm/target_table.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "llvm/build_log.h"
#include "llvm/builtins.h"
#include "util/alloc.h"

#ifndef KILN_LIBCLC_DIR
#define KILN_LIBCLC_DIR "/usr/lib/clc"
#endif

/* One line per folder of src/llvm. */
static const struct kiln_llvm_target *const table[] = {
   &kiln_llvm_target_cpu,
   &kiln_llvm_target_amdgcn,
   &kiln_llvm_target_nvptx,
};

const struct kiln_llvm_target *kiln_llvm_target_find(const char *ir)
{
   for (size_t i = 0; ir && i < sizeof(table) / sizeof(table[0]); i++)
      if (!strcmp(table[i]->name, ir))
         return table[i];
   return NULL;
}

void kiln_llvm_machine_fini(struct kiln_llvm_machine *m)
{
   kiln_free(m->triple);
   kiln_free(m->cpu);
   kiln_free(m->features);
   kiln_free(m->libclc);
   kiln_free(m->codegen);
   memset(m, 0, sizeof(*m));
}

enum kiln_build_status kiln_llvm_machine_init(struct kiln_llvm_machine *m,
                                              const struct kiln_compile_target *t,
                                              struct kiln_build_log *log)
{
   memset(m, 0, sizeof(*m));
   const struct kiln_llvm_target *e = kiln_llvm_target_find(t->ir);
   if (!e) {
      kiln_build_log_append(log, "error: Kiln has no compiler for '%s' devices\n",
                            t->ir ? t->ir : "(none)");
      return KILN_BUILD_FAILED;
   }
   m->target = e;
   enum kiln_build_status st = e->resolve(t->processor ? t->processor : "", m, log);
   if (!st && (!m->triple || !m->cpu || !m->features ||
               (e->builtins == KILN_LLVM_BUILTINS_LIBCLC && !m->libclc)))
      st = KILN_BUILD_OUT_OF_MEMORY;
   if (st)
      kiln_llvm_machine_fini(m);
   return st;
}

/* Bounds checks are part of the target: checked code reads a bounds table
 * unchecked launches do not provide, and a binary built without checks
 * must not run unchecked in a process that asked for them. */
#define CHECK_SUFFIX ":check=bounds"

char *kiln_llvm_machine_id(const struct kiln_llvm_machine *m, bool bounds_check)
{
   const char *codegen = m->codegen ? m->codegen : "";
   size_t n = strlen(m->target->id_name) + strlen(m->triple) + strlen(m->cpu) +
              strlen(m->features) + strlen(codegen) + strlen(CHECK_SUFFIX) + 5;
   char *id = kiln_malloc(n);
   if (id)
      snprintf(id, n, "%s:%s:%s%s%s%s%s%s", m->target->id_name, m->triple, m->cpu,
               *m->features ? ":" : "", m->features, *codegen ? ":" : "", codegen,
               bounds_check && m->target->bounds_check ? CHECK_SUFFIX : "");
   return id;
}

enum kiln_build_status kiln_llvm_target_id(const struct kiln_compile_target *target, char **id)
{
   struct kiln_llvm_machine m;
   struct kiln_build_log log = {0};
   *id = NULL;
   enum kiln_build_status st = kiln_llvm_machine_init(&m, target, &log);
   kiln_free(log.text);
   if (st)
      return st;
   *id = kiln_llvm_machine_id(&m, target->bounds_check);
   kiln_llvm_machine_fini(&m);
   return *id ? KILN_BUILD_OK : KILN_BUILD_OUT_OF_MEMORY;
}

/* Reads a whole file; 0 on success, else an errno value. */
static int read_file(const char *path, void **data, size_t *size)
{
   FILE *f = fopen(path, "rb");
   if (!f)
      return errno ? errno : EIO;
   int err = 0;
   long len = -1;
   if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
      err = EIO;
   void *buf = err ? NULL : kiln_malloc(len ? (size_t)len : 1);
   if (!err && !buf)
      err = ENOMEM;
   if (!err && fread(buf, 1, (size_t)len, f) != (size_t)len)
      err = EIO;
   fclose(f);
   if (err) {
      kiln_free(buf);
      return err;
   }
   *data = buf;
   *size = (size_t)len;
   return 0;
}

static void libclc_path(const struct kiln_llvm_machine *m, char *path, size_t size)
{
   snprintf(path, size, "%s/%s", KILN_LIBCLC_DIR, m->libclc);
}

enum kiln_build_status kiln_llvm_machine_builtins(const struct kiln_llvm_machine *m,
                                                  const void **data, size_t *size,
                                                  bool *owned, struct kiln_build_log *log)
{
   if (m->target->builtins == KILN_LLVM_BUILTINS_KILN) {
      *data = kiln_builtins_bitcode(size);
      *owned = false;
      return KILN_BUILD_OK;
   }
   char path[4096];
   libclc_path(m, path, sizeof(path));
   void *buf = NULL;
   int err = read_file(path, &buf, size);
   if (err == ENOMEM)
      return KILN_BUILD_OUT_OF_MEMORY;
   if (err) {
      kiln_build_log_append(log, "error: cannot read libclc's %s: %s (install libclc-19)\n",
                            path, strerror(err));
      return KILN_BUILD_FAILED;
   }
   *data = buf;
   *owned = true;
   return KILN_BUILD_OK;
}

char *kiln_llvm_builtins_id(const struct kiln_compile_target *target)
{
   struct kiln_llvm_machine m;
   struct kiln_build_log log = {0};
   enum kiln_build_status st = kiln_llvm_machine_init(&m, target, &log);
   kiln_free(log.text);
   if (st)
      return NULL;
   /* Kiln's header (in the hash) is read by every target's builds. */
   const char *hash = kiln_builtins_hash();
   char *id;
   if (m.target->builtins == KILN_LLVM_BUILTINS_KILN) {
      id = kiln_strdup(hash);
   } else {
      /* Hashing a few MB of libclc per build would cost more than the
       * cache saves on small programs; a package update changes the size
       * or the time, a missing file fails the build before the cache. */
      char path[4096];
      libclc_path(&m, path, sizeof(path));
      struct stat s;
      bool there = !stat(path, &s);
      size_t n = strlen(hash) + strlen(path) + 64;
      id = kiln_malloc(n);
      if (id)
         snprintf(id, n, "%s libclc:%s:%lld:%lld.%09ld", hash, path,
                  there ? (long long)s.st_size : -1LL, there ? (long long)s.st_mtim.tv_sec : 0LL,
                  there ? (long)s.st_mtim.tv_nsec : 0L);
   }
   kiln_llvm_machine_fini(&m);
   return id;
}
