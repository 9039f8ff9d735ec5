/* Runs fuzz inputs through the fuzz targets without libFuzzer, for the
 * normal (gcc) build and its sanitizer builds:
 *
 *    kiln_fuzz_replay TARGET FILE_OR_DIR...
 *
 * Every target's LLVMFuzzerInitialize/LLVMFuzzerTestOneInput is compiled
 * under a name of its own (meson.build), so one executable holds them all.
 * Exits 0 when every input ran; a failed check or a crash ends it. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define TARGET(name)                                                    \
   int kiln_fuzz_init_##name(int *argc, char ***argv);                  \
   int kiln_fuzz_one_##name(const uint8_t *data, size_t size);
TARGET(binary)
TARGET(build_options)
TARGET(set_kernel_arg)
TARGET(image_create)
#undef TARGET

static const struct {
   const char *name;
   int (*init)(int *argc, char ***argv);
   int (*one)(const uint8_t *data, size_t size);
} targets[] = {
#define TARGET(name) {#name, kiln_fuzz_init_##name, kiln_fuzz_one_##name},
   TARGET(binary) TARGET(build_options) TARGET(set_kernel_arg) TARGET(image_create)
#undef TARGET
};

static int (*one)(const uint8_t *data, size_t size);
static unsigned ran;

static int run_file(const char *path)
{
   FILE *f = fopen(path, "rb");
   if (!f) {
      perror(path);
      return 1;
   }
   size_t cap = 4096, n = 0;
   unsigned char *buf = malloc(cap);
   size_t got;
   while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
      n += got;
      if (n == cap) {
         unsigned char *grown = realloc(buf, cap *= 2);
         if (!grown)
            free(buf);
         buf = grown;
      }
   }
   fclose(f);
   if (!buf) {
      fprintf(stderr, "%s: out of memory\n", path);
      return 1;
   }
   /* An exact copy, as libFuzzer passes it: a read past the end is seen
    * by ASan. */
   unsigned char *exact = malloc(n ? n : 1);
   if (!exact) {
      free(buf);
      return 1;
   }
   memcpy(exact, buf, n);
   free(buf);
   fprintf(stderr, "replay: %s (%zu bytes)\n", path, n);
   one(exact, n);
   free(exact);
   ran++;
   return 0;
}

static int cmp(const void *a, const void *b)
{
   return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_path(const char *path)
{
   struct stat st;
   if (stat(path, &st)) {
      perror(path);
      return 1;
   }
   if (!S_ISDIR(st.st_mode))
      return run_file(path);
   DIR *d = opendir(path);
   if (!d) {
      perror(path);
      return 1;
   }
   char **names = NULL;
   size_t count = 0;
   struct dirent *e;
   while ((e = readdir(d))) {
      if (e->d_name[0] == '.')
         continue;
      char **grown = realloc(names, (count + 1) * sizeof(*names));
      if (!grown)
         break;
      names = grown;
      names[count] = malloc(strlen(path) + strlen(e->d_name) + 2);
      if (!names[count])
         break;
      sprintf(names[count], "%s/%s", path, e->d_name);
      count++;
   }
   closedir(d);
   qsort(names, count, sizeof(*names), cmp);
   int err = 0;
   for (size_t i = 0; i < count; i++) {
      err |= run_file(names[i]);
      free(names[i]);
   }
   free(names);
   return err;
}

int main(int argc, char **argv)
{
   if (argc < 3) {
      fprintf(stderr, "usage: %s TARGET FILE_OR_DIR...\n", argv[0]);
      return 2;
   }
   for (size_t t = 0; t < sizeof(targets) / sizeof(targets[0]); t++) {
      if (strcmp(argv[1], targets[t].name))
         continue;
      targets[t].init(&argc, &argv);
      one = targets[t].one;
      int err = 0;
      for (int i = 2; i < argc; i++)
         err |= run_path(argv[i]);
      printf("replay %s: %u inputs\n", argv[1], ran);
      return err || !ran;
   }
   fprintf(stderr, "unknown target %s\n", argv[1]);
   return 2;
}
