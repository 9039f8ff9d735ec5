#include "core/program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/binary.h"
#include "core/context.h"
#include "core/device.h"
#include "core/device_version.h"
#include "core/program_cache.h"
#include "kiln/cl_version.h"
#include "kiln/kernel_info.h"
#include "llvm/compiler.h"
#include "util/check.h"
#include "util/log.h"
#include "util/alloc.h"

_Static_assert(sizeof(((struct kiln_program_build *)0)->cache_key) == KILN_FCACHE_KEY_SIZE,
               "the cache key of a build");

/* The driver's code for b as it stands (pipe_screen::program_code) becomes
 * b's object; the compile cache's entry follows. */
static void take_driver_code(cl_device_id dev, struct kiln_program_build *b, bool all)
{
   if (!b->loaded || !dev->screen->program_code)
      return;
   size_t size;
   void *code = dev->screen->program_code(dev->screen, b->loaded, all, &size);
   if (!code)
      return;
   kiln_free(b->object);
   b->object = code;
   b->object_size = size;
   struct kiln_fcache *cache = b->cache_keyed ? kiln_program_cache() : NULL;
   if (cache)
      kiln_program_cache_update(cache, b->cache_key, b);
}

void kiln_program_binary_complete(cl_program prog, unsigned i)
{
   take_driver_code(prog->devices[i], &prog->builds[i], true);
}

void kiln_program_build_clear(cl_device_id dev, struct kiln_program_build *b)
{
   /* Kernels compiled since the build are kept for the next process. */
   if (b->cache_keyed)
      take_driver_code(dev, b, false);
   if (b->loaded)
      dev->screen->program_destroy(dev->screen, b->loaded);
   kiln_free(b->log);
   kiln_free(b->options);
   kiln_free(b->object);
   for (unsigned i = 0; i < b->num_kernels; i++)
      kiln_kernel_info_free(&b->kernels[i]);
   kiln_free(b->kernels);
   kiln_free(b->by_name);
   kiln_free(b->target);
   kiln_free(b->bitcode);
   memset(b, 0, sizeof(*b));
   b->status = CL_BUILD_NONE;
}

static void program_destroy(struct kiln_object *obj)
{
   cl_program prog = (cl_program)obj;
   for (cl_uint i = 0; i < prog->num_devices && prog->builds; i++)
      kiln_program_build_clear(prog->devices[i], &prog->builds[i]);
   kiln_free(prog->builds);
   kiln_free(prog->devices);
   kiln_free(prog->source);
   kiln_free(prog->il);
   kiln_free(prog->spec);
   pthread_mutex_destroy(&prog->lock);
   kiln_object_unref(&prog->context->obj);
   kiln_object_free(prog);
}

cl_program kiln_program_alloc(cl_context ctx, cl_uint n, const cl_device_id *devices)
{
   cl_program prog = kiln_object_alloc(sizeof(*prog));
   if (!prog)
      return NULL;
   prog->context = ctx;
   kiln_object_ref(&ctx->obj);
   pthread_mutex_init(&prog->lock, NULL);
   prog->devices = kiln_malloc(n * sizeof(cl_device_id));
   prog->builds = kiln_calloc(n, sizeof(*prog->builds));
   if (!prog->devices || !prog->builds) {
      program_destroy(&prog->obj);
      return NULL;
   }
   prog->num_devices = n;
   memcpy(prog->devices, devices, n * sizeof(cl_device_id));
   for (cl_uint i = 0; i < n; i++)
      prog->builds[i].status = CL_BUILD_NONE;
   return prog;
}

cl_int kiln_program_create_source(cl_context ctx, char *source, size_t size, cl_program *out)
{
   cl_program prog = kiln_program_alloc(ctx, ctx->num_devices, ctx->devices);
   if (!prog) {
      kiln_free(source);
      return CL_OUT_OF_HOST_MEMORY;
   }
   prog->source = source;
   prog->source_size = size;
   if (!kiln_object_init(&prog->obj, KILN_TYPE_PROGRAM, program_destroy)) {
      program_destroy(&prog->obj);
      return CL_OUT_OF_HOST_MEMORY;
   }
   *out = prog;
   return CL_SUCCESS;
}

/* The id of the code dev runs (with or without bounds checks), to match
 * against binaries: CL_SUCCESS with *id, or with *id NULL for a device
 * Kiln has no compiler for (no binary matches it); CL_OUT_OF_HOST_MEMORY. */
static cl_int target_id_checked(cl_device_id dev, bool bounds_check, char **id)
{
   *id = NULL;
   if (!kiln_program_device_compiles(dev))
      return CL_SUCCESS;
   struct kiln_compile_target t;
   kiln_program_compile_target(dev, &t);
   t.bounds_check = bounds_check;
   return kiln_llvm_target_id(&t, id) == KILN_BUILD_OUT_OF_MEMORY ? CL_OUT_OF_HOST_MEMORY
                                                                  : CL_SUCCESS;
}

static cl_int device_target_id(cl_device_id dev, char **id)
{
   return target_id_checked(dev, kiln_check_bounds(), id);
}

/* A binary refused only because KILN_CHECK=bounds differs between the
 * process that built it and this one deserves a word: the application
 * may not fall back to building from source. */
static void explain_check_mismatch(cl_device_id dev, const char *target)
{
   bool checks = kiln_check_bounds();
   char *other;
   target_id_checked(dev, !checks, &other);
   if (other && !strcmp(other, target))
      kiln_log(KILN_LOG_WARN,
               checks ? "KILN_CHECK=bounds: a program binary built without bounds checks is "
                        "refused (CL_INVALID_BINARY); build the program from source"
                      : "a program binary built with KILN_CHECK=bounds is refused "
                        "(CL_INVALID_BINARY) without it");
   kiln_free(other);
}

/* Every kernel the program describes must be in its code (a binary can
 * claim kernels its object lacks): CL_BUILD_PROGRAM_FAILURE, with *error
 * saying which where there is memory for it, or CL_OUT_OF_HOST_MEMORY. */
static cl_int kernels_present(cl_device_id dev, struct kiln_program_build *b, char **error)
{
   for (unsigned i = 0; i < b->num_kernels; i++) {
      char *e = NULL;
      if (!dev->screen->get_kernel(dev->screen, b->loaded, b->kernels[i].name, &e)) {
         if (!e)
            return CL_OUT_OF_HOST_MEMORY;
         size_t n = strlen(b->kernels[i].name) + 64;
         *error = kiln_malloc(n);
         if (*error)
            snprintf(*error, n, "kernel '%s' is missing from the device code",
                     b->kernels[i].name);
         kiln_free(e);
         return CL_BUILD_PROGRAM_FAILURE;
      }
   }
   return CL_SUCCESS;
}

/* Appends a line to a build's log (nothing when out of memory: the build
 * fails all the same). */
static void log_add(struct kiln_program_build *b, const char *line)
{
   size_t n = strlen(b->log ? b->log : "") + strlen(line) + 2;
   char *log = kiln_malloc(n);
   if (!log)
      return;
   snprintf(log, n, "%s%s\n", b->log ? b->log : "", line);
   kiln_free(b->log);
   b->log = log;
}

/* Limits of the device a kernel cannot run within, whatever the launch:
 * a build error naming the kernel and the limit, rather than a launch that
 * fails later with nothing but CL_OUT_OF_RESOURCES. */
static cl_int check_limits(cl_device_id dev, struct kiln_program_build *b)
{
   cl_int err = CL_SUCCESS;
   for (unsigned i = 0; i < b->num_kernels; i++) {
      const struct kiln_kernel_info *k = &b->kernels[i];
      char line[512];
      if (k->local_mem_size > dev->caps->local_mem_size) {
         snprintf(line, sizeof(line),
                  "error: kernel '%s' declares %llu bytes of __local variables; the device "
                  "has %llu (CL_DEVICE_LOCAL_MEM_SIZE)",
                  k->name, (unsigned long long)k->local_mem_size,
                  (unsigned long long)dev->caps->local_mem_size);
         log_add(b, line);
         err = CL_BUILD_PROGRAM_FAILURE;
      }
      uint64_t wg = (uint64_t)k->reqd_work_group_size[0] * k->reqd_work_group_size[1] *
                    k->reqd_work_group_size[2];
      bool too_wide = false;
      for (int d = 0; d < 3; d++)
         too_wide |= k->reqd_work_group_size[d] > dev->caps->max_work_item_sizes[d];
      if (wg > dev->caps->max_work_group_size || too_wide) {
         snprintf(line, sizeof(line),
                  "error: kernel '%s' has reqd_work_group_size(%llu, %llu, %llu); the device "
                  "runs at most %zu work-items per group, (%zu, %zu, %zu) per dimension",
                  k->name, (unsigned long long)k->reqd_work_group_size[0],
                  (unsigned long long)k->reqd_work_group_size[1],
                  (unsigned long long)k->reqd_work_group_size[2], dev->caps->max_work_group_size,
                  dev->caps->max_work_item_sizes[0], dev->caps->max_work_item_sizes[1],
                  dev->caps->max_work_item_sizes[2]);
         log_add(b, line);
         err = CL_BUILD_PROGRAM_FAILURE;
      }
   }
   return err;
}

/* Loads device code into the driver; on failure the log says why. */
cl_int kiln_program_build_load(cl_device_id dev, struct kiln_program_build *b)
{
   char *error = NULL;
   cl_int err = check_limits(dev, b);
   if (err)
      return err;
   b->loaded = dev->screen->program_create(dev->screen, b->object, b->object_size, &error);
   if (!b->loaded)
      err = error ? CL_BUILD_PROGRAM_FAILURE : CL_OUT_OF_HOST_MEMORY;
   else
      err = kernels_present(dev, b, &error);
   if (!err)
      return CL_SUCCESS;
   if (b->loaded) {
      dev->screen->program_destroy(dev->screen, b->loaded);
      b->loaded = NULL;
   }
   if (err == CL_OUT_OF_HOST_MEMORY) {
      kiln_log(KILN_LOG_COMPILE, "loading device code failed: out of host memory");
      return err;
   }
   kiln_log(KILN_LOG_COMPILE, "loading device code failed: %s", error ? error : "?");
   size_t n = strlen(b->log ? b->log : "") + strlen(error ? error : "") + 64;
   char *log = kiln_malloc(n);
   if (log) {
      snprintf(log, n, "%serror: the device could not load the program: %s\n",
               b->log ? b->log : "", error ? error : "unknown reason");
      kiln_free(b->log);
      b->log = log;
   }
   kiln_free(error);
   return CL_BUILD_PROGRAM_FAILURE;
}

cl_int kiln_program_create_binary(cl_context ctx, cl_uint n, const cl_device_id *devices,
                                  const unsigned char **binaries, const size_t *lengths,
                                  cl_int *status, cl_program *out)
{
   cl_program prog = kiln_program_alloc(ctx, n, devices);
   if (!prog)
      return CL_OUT_OF_HOST_MEMORY;
   cl_int result = CL_SUCCESS;
   for (cl_uint i = 0; i < n; i++) {
      struct kiln_program_build *b = &prog->builds[i];
      struct kiln_binary_contents c;
      cl_int st = CL_INVALID_BINARY;
      char *want;
      cl_int id_err = device_target_id(devices[i], &want);
      enum kiln_binary_status read = kiln_binary_read(binaries[i], lengths[i], &c);
      if (read == KILN_BINARY_OUT_OF_MEMORY || id_err) {
         st = CL_OUT_OF_HOST_MEMORY;
      } else if (read == KILN_BINARY_OK) {
         if (want && !strcmp(want, c.target)) {
            b->object = c.object;
            b->object_size = c.object_size;
            b->kernels = c.kernels;
            b->num_kernels = c.num_kernels;
            b->options = c.options;
            b->target = c.target;
            b->bitcode = c.bitcode;
            b->bitcode_size = c.bitcode_size;
            b->binary_type = c.binary_type;
            b->global_variable_size = c.global_variable_size;
            memset(&c, 0, sizeof(c));
            b->log = kiln_strdup("");
            /* 1.1: a program from binaries still needs clBuildProgram;
             * the code is loaded then. */
            st = b->log ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
         } else {
            kiln_log(KILN_LOG_COMPILE, "binary for '%s' offered to a device running '%s'",
                     c.target, want ? want : "?");
            explain_check_mismatch(devices[i], c.target);
         }
      }
      kiln_binary_contents_fini(&c);
      kiln_free(want);
      if (status)
         status[i] = st;
      if (st && !result)
         result = st;
   }
   if (result) {
      program_destroy(&prog->obj);
      return result;
   }
   if (!kiln_object_init(&prog->obj, KILN_TYPE_PROGRAM, program_destroy)) {
      program_destroy(&prog->obj);
      return CL_OUT_OF_HOST_MEMORY;
   }
   *out = prog;
   return CL_SUCCESS;
}

int kiln_program_device_index(cl_program prog, cl_device_id dev)
{
   for (cl_uint i = 0; i < prog->num_devices; i++)
      if (prog->devices[i] == dev)
         return (int)i;
   return -1;
}

bool kiln_program_device_compiles(cl_device_id dev)
{
   return dev->caps->ir[0] != 0;
}

void kiln_program_compile_target(cl_device_id dev, struct kiln_compile_target *t)
{
   *t = (struct kiln_compile_target){
      .ir = dev->caps->ir,
      .processor = dev->caps->ir_target,
      .opencl_version = (int)kiln_device_cl_version(dev),
      .opencl_c_20 = kiln_device_c20(dev),
      .image_support = dev->caps->image_support,
      .cl_ext = dev->clang_ext,
      .bounds_check = kiln_check_bounds(),
      .max_global_variable_size = dev->caps->max_global_variable_size,
   };
}

bool kiln_program_cache_fetch(cl_device_id dev, struct kiln_fcache *cache,
                              const unsigned char *key, const struct kiln_compile_target *target,
                              struct kiln_program_build *b)
{
   /* KILN_DUMP wants the intermediate files only a real build makes. */
   cl_program_binary_type type = b->binary_type;
   if (kiln_llvm_dumping() || !kiln_program_cache_load(cache, key, target, type, b))
      return false;
   if (type != CL_PROGRAM_BINARY_TYPE_EXECUTABLE || !kiln_program_build_load(dev, b))
      return true;
   kiln_log(KILN_LOG_COMPILE, "cache: the cached code did not load; rebuilding");
   kiln_fcache_remove(cache, key);
   char *opts = b->options;
   b->options = NULL;
   kiln_program_build_clear(dev, b);
   b->options = opts;
   b->status = CL_BUILD_IN_PROGRESS;
   b->binary_type = type;
   return false;
}

static cl_int build_one(cl_program prog, unsigned i, const char *options)
{
   cl_device_id dev = prog->devices[i];
   struct kiln_program_build *b = &prog->builds[i];
   bool from_binary = !prog->source && !prog->il;
   if (from_binary && b->binary_type != CL_PROGRAM_BINARY_TYPE_EXECUTABLE)
      /* A compiled object or library from a binary: 1.2 lets it be built,
       * which is linking it alone. */
      return kiln_program_link_one(prog, i);
   if (from_binary) {
      /* From a binary: (re)load the code we were given. */
      if (b->loaded) {
         dev->screen->program_destroy(dev->screen, b->loaded);
         b->loaded = NULL;
      }
      cl_int err = kiln_program_build_load(dev, b);
      b->status = err ? CL_BUILD_ERROR : CL_BUILD_SUCCESS;
      return err;
   }

   struct kiln_program_build fresh = {.status = CL_BUILD_IN_PROGRESS,
                                      .binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE};
   fresh.options = kiln_strdup(options ? options : "");
   if (!fresh.options)
      return CL_OUT_OF_HOST_MEMORY;
   if (!kiln_program_device_compiles(dev)) {
      fresh.log = kiln_strdup("error: this device has no OpenCL C compiler\n");
      fresh.status = CL_BUILD_ERROR;
      fresh.binary_type = CL_PROGRAM_BINARY_TYPE_NONE;
      pthread_mutex_lock(&prog->lock);
      struct kiln_program_build old = *b;
      *b = fresh;
      pthread_mutex_unlock(&prog->lock);
      kiln_program_build_clear(dev, &old);
      return CL_COMPILER_NOT_AVAILABLE;
   }
   struct kiln_compile_target target;
   kiln_program_compile_target(dev, &target);
   /* The compile cache: a hit loads the stored code as a binary would be;
    * code that fails to load is rebuilt, never reported as the build's
    * failure.  KILN_DUMP skips the lookup (and still stores). */
   struct kiln_fcache *cache = kiln_program_cache();
   unsigned char key[KILN_FCACHE_KEY_SIZE];
   /* IL: the specialization constants set now are part of what is built. */
   char *spec;
   if (kiln_program_spec_arg(prog, &spec)) {
      kiln_free(fresh.options);
      return CL_OUT_OF_HOST_MEMORY;
   }
   if (cache && !(prog->il ? kiln_program_cache_il_key(prog->il, prog->il_size, spec, options,
                                                        false, &target, key)
                           : kiln_program_cache_key(prog->source, prog->source_size, options,
                                                    &target, key)))
      cache = NULL;
   if (cache && kiln_program_cache_fetch(dev, cache, key, &target, &fresh)) {
      fresh.status = CL_BUILD_SUCCESS;
      fresh.cache_keyed = true;
      memcpy(fresh.cache_key, key, sizeof(fresh.cache_key));
      pthread_mutex_lock(&prog->lock);
      struct kiln_program_build old = *b;
      *b = fresh;
      pthread_mutex_unlock(&prog->lock);
      kiln_program_build_clear(dev, &old);
      kiln_free(spec);
      return CL_SUCCESS;
   }
   struct kiln_build_output out;
   enum kiln_build_status st =
      prog->il ? kiln_llvm_build_il(prog->il, prog->il_size, spec, options, &target, &out)
               : kiln_llvm_build(prog->source, prog->source_size, options, &target, &out);
   kiln_free(spec);
   fresh.log = out.log;
   out.log = NULL;
   cl_int err = CL_SUCCESS;
   if (st == KILN_BUILD_OK && target.bounds_check)
      kiln_log(KILN_LOG_COMPILE,
               "KILN_CHECK=bounds: %u accesses checked, %u of them by searching the launch's "
               "buffers", out.bounds_checked, out.bounds_searched);
   if (st == KILN_BUILD_OK) {
      fresh.object = out.object;
      fresh.object_size = out.object_size;
      fresh.kernels = out.kernels;
      fresh.num_kernels = out.num_kernels;
      fresh.global_variable_size = out.global_variable_size;
      fresh.target = out.target_id;
      fresh.bitcode = out.bitcode;
      fresh.bitcode_size = out.bitcode_size;
      struct kiln_build_dep *deps = out.deps;
      unsigned num_deps = out.num_deps;
      memset(&out, 0, sizeof(out));
      err = kiln_program_build_load(dev, &fresh);
      if (!err && cache) {
         kiln_program_cache_store(cache, key, &fresh, deps, num_deps);
         fresh.cache_keyed = true;
         memcpy(fresh.cache_key, key, sizeof(fresh.cache_key));
      }
      kiln_build_deps_free(deps, num_deps);
   } else {
      err = st == KILN_BUILD_INVALID_OPTIONS ? CL_INVALID_BUILD_OPTIONS
            : st == KILN_BUILD_OUT_OF_MEMORY ? CL_OUT_OF_HOST_MEMORY
                                             : CL_BUILD_PROGRAM_FAILURE;
   }
   kiln_build_output_fini(&out);
   fresh.status = err ? CL_BUILD_ERROR : CL_BUILD_SUCCESS;
   fresh.binary_type = err ? CL_PROGRAM_BINARY_TYPE_NONE : CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
   if (!fresh.log)
      fresh.log = kiln_strdup("");
   pthread_mutex_lock(&prog->lock);
   struct kiln_program_build old = *b;
   *b = fresh;
   pthread_mutex_unlock(&prog->lock);
   kiln_program_build_clear(dev, &old);
   return err;
}

cl_int kiln_program_build(cl_program prog, cl_uint n, const cl_device_id *devices,
                          const char *options)
{
   pthread_mutex_lock(&prog->lock);
   if (prog->num_kernel_objects || prog->building) {
      pthread_mutex_unlock(&prog->lock);
      return CL_INVALID_OPERATION;
   }
   prog->building = true;
   pthread_mutex_unlock(&prog->lock);

   cl_int result = CL_SUCCESS;
   for (cl_uint i = 0; i < prog->num_devices; i++) {
      /* Sub-devices run their root device's code, so a build for one of
       * them is a build for every device of the program that shares the
       * root (device_partition of the CTS builds for the parent, then
       * runs on the sub-devices); the cache makes the extra builds cheap. */
      bool wanted = n == 0;
      for (cl_uint k = 0; k < n; k++)
         wanted |= kiln_device_root(devices[k]) == kiln_device_root(prog->devices[i]);
      if (!wanted)
         continue;
      cl_int err = build_one(prog, i, options);
      /* Options errors outrank build failures; the first error wins
       * otherwise. */
      if (err == CL_INVALID_BUILD_OPTIONS || (err && !result))
         result = err;
   }

   pthread_mutex_lock(&prog->lock);
   prog->building = false;
   pthread_mutex_unlock(&prog->lock);
   return result;
}

/* qsort has no context argument: the kernels being sorted, per thread. */
static _Thread_local const struct kiln_kernel_info *sorting;

static int by_name_order(const void *a, const void *b)
{
   return strcmp(sorting[*(const unsigned *)a].name, sorting[*(const unsigned *)b].name);
}

/* Binary search of b's kernels by name (a linear scan per clCreateKernel
 * made creating every kernel of a big program quadratic); the linear
 * scan when out of memory for the index.  prog->lock held. */
static const struct kiln_kernel_info *find_in(struct kiln_program_build *b, const char *name)
{
   if (!b->by_name && b->num_kernels > 8 &&
       (b->by_name = kiln_malloc(b->num_kernels * sizeof(*b->by_name)))) {
      for (unsigned k = 0; k < b->num_kernels; k++)
         b->by_name[k] = k;
      sorting = b->kernels;
      qsort(b->by_name, b->num_kernels, sizeof(*b->by_name), by_name_order);
      sorting = NULL;
   }
   if (!b->by_name) {
      for (unsigned k = 0; k < b->num_kernels; k++)
         if (!strcmp(b->kernels[k].name, name))
            return &b->kernels[k];
      return NULL;
   }
   size_t lo = 0, hi = b->num_kernels;
   while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      int c = strcmp(name, b->kernels[b->by_name[mid]].name);
      if (!c)
         return &b->kernels[b->by_name[mid]];
      if (c < 0)
         hi = mid;
      else
         lo = mid + 1;
   }
   return NULL;
}

const struct kiln_kernel_info *kiln_program_find_kernel(cl_program prog, const char *name)
{
   const struct kiln_kernel_info *found = NULL;
   pthread_mutex_lock(&prog->lock);
   for (cl_uint i = 0; i < prog->num_devices; i++) {
      struct kiln_program_build *b = &prog->builds[i];
      if (kiln_program_build_executable(b)) {
         found = find_in(b, name);
         break;
      }
   }
   pthread_mutex_unlock(&prog->lock);
   return found;
}

bool kiln_program_has_executable(cl_program prog)
{
   for (cl_uint i = 0; i < prog->num_devices; i++)
      if (kiln_program_build_executable(&prog->builds[i]))
         return true;
   return false;
}

size_t kiln_program_build_write(const struct kiln_program_build *b, unsigned char *out)
{
   struct kiln_binary_contents c = {
      .target = b->target,
      .options = b->options,
      .object = b->object,
      .object_size = b->object_size,
      .bitcode = b->bitcode,
      .bitcode_size = b->bitcode_size,
      .kernels = b->kernels,
      .num_kernels = b->num_kernels,
      .binary_type = b->binary_type,
      .global_variable_size = b->global_variable_size,
   };
   return kiln_binary_write(&c, out);
}

size_t kiln_program_binary(cl_program prog, unsigned i, unsigned char *out)
{
   const struct kiln_program_build *b = &prog->builds[i];
   bool bitcode_only = b->binary_type == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT ||
                       b->binary_type == CL_PROGRAM_BINARY_TYPE_LIBRARY;
   if (b->object || (bitcode_only && b->bitcode && b->target))
      return kiln_program_build_write(b, out);
   return 0;
}

void kiln_program_build_replace(cl_program prog, unsigned i, struct kiln_program_build *fresh)
{
   pthread_mutex_lock(&prog->lock);
   struct kiln_program_build old = prog->builds[i];
   prog->builds[i] = *fresh;
   pthread_mutex_unlock(&prog->lock);
   kiln_program_build_clear(prog->devices[i], &old);
   memset(fresh, 0, sizeof(*fresh));
}

cl_program kiln_program_new(cl_context ctx, cl_uint n, const cl_device_id *devices)
{
   cl_program prog = kiln_program_alloc(ctx, n, devices);
   if (!prog)
      return NULL;
   if (!kiln_object_init(&prog->obj, KILN_TYPE_PROGRAM, program_destroy)) {
      program_destroy(&prog->obj);
      return NULL;
   }
   return prog;
}
