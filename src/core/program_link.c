/* Separate compilation (OpenCL 1.2 §5.6.3): clCompileProgram turns a
 * program's source into a compiled object per device, clLinkProgram links
 * compiled objects and libraries into a new program, a library or an
 * executable.  The compiler side is src/llvm/build.c and link.c.
 * Both go through the compile cache (program_cache.c) as builds do: a
 * compile keyed by its source, options and headers (names and contents),
 * a link by its options and its inputs' bitcode (docs/cache.md). */
#include <stdio.h>
#include <string.h>

#include "core/context.h"
#include "core/device.h"
#include "core/program.h"
#include "core/program_cache.h"
#include "llvm/compiler.h"
#include "util/alloc.h"

static bool wanted(cl_device_id dev, cl_uint n, const cl_device_id *devices)
{
   bool yes = n == 0;
   for (cl_uint k = 0; k < n; k++)
      yes |= devices[k] == dev;
   return yes;
}

/* Starts fresh for a compile or link with these options; false when out
 * of memory. */
static bool fresh_start(struct kiln_program_build *fresh, const char *options)
{
   *fresh = (struct kiln_program_build){.status = CL_BUILD_IN_PROGRESS};
   fresh->options = kiln_strdup(options ? options : "");
   return fresh->options != NULL;
}

/* Ends fresh as the device's build: err says whether it is usable. */
static cl_int fresh_finish(cl_program prog, unsigned i, struct kiln_program_build *fresh,
                           cl_int err, cl_program_binary_type type)
{
   fresh->status = err ? CL_BUILD_ERROR : CL_BUILD_SUCCESS;
   fresh->binary_type = err ? CL_PROGRAM_BINARY_TYPE_NONE : type;
   if (!fresh->log)
      fresh->log = kiln_strdup("");
   kiln_program_build_replace(prog, i, fresh);
   return err;
}

static cl_int compile_one(cl_program prog, unsigned i, const char *options,
                          const struct kiln_header *headers, unsigned num_headers)
{
   cl_device_id dev = prog->devices[i];
   struct kiln_program_build fresh;
   if (!fresh_start(&fresh, options)) {
      kiln_free(fresh.options);
      return CL_OUT_OF_HOST_MEMORY;
   }
   if (!kiln_program_device_compiles(dev)) {
      fresh.log = kiln_strdup("error: this device has no OpenCL C compiler\n");
      return fresh_finish(prog, i, &fresh, CL_COMPILER_NOT_AVAILABLE, 0);
   }
   struct kiln_compile_target target;
   kiln_program_compile_target(dev, &target);
   struct kiln_fcache *cache = kiln_program_cache();
   unsigned char key[KILN_FCACHE_KEY_SIZE];
   /* IL: headers do not apply (3.0, 5.8.5); specialization constants do. */
   char *spec;
   if (kiln_program_spec_arg(prog, &spec)) {
      kiln_free(fresh.options);
      return CL_OUT_OF_HOST_MEMORY;
   }
   if (cache && !(prog->il ? kiln_program_cache_il_key(prog->il, prog->il_size, spec, options,
                                                        true, &target, key)
                           : kiln_program_cache_compile_key(prog->source, prog->source_size,
                                                            options, headers, num_headers,
                                                            &target, key)))
      cache = NULL;
   fresh.binary_type = CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT;
   if (cache && kiln_program_cache_fetch(dev, cache, key, &target, &fresh)) {
      kiln_free(spec);
      return fresh_finish(prog, i, &fresh, CL_SUCCESS, CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
   }
   struct kiln_build_output out;
   enum kiln_build_status st =
      prog->il ? kiln_llvm_compile_il(prog->il, prog->il_size, spec, options, &target, &out)
               : kiln_llvm_compile(prog->source, prog->source_size, options, headers,
                                   num_headers, &target, &out);
   kiln_free(spec);
   fresh.log = out.log;
   out.log = NULL;
   cl_int err = st == KILN_BUILD_OK                 ? CL_SUCCESS
                : st == KILN_BUILD_INVALID_OPTIONS  ? CL_INVALID_COMPILER_OPTIONS
                : st == KILN_BUILD_OUT_OF_MEMORY    ? CL_OUT_OF_HOST_MEMORY
                                                    : CL_COMPILE_PROGRAM_FAILURE;
   if (!err) {
      fresh.bitcode = out.bitcode;
      fresh.bitcode_size = out.bitcode_size;
      fresh.target = out.target_id;
      out.bitcode = NULL;
      out.target_id = NULL;
      if (cache) /* with the files it read through -I, as a build's entry */
         kiln_program_cache_store(cache, key, &fresh, out.deps, out.num_deps);
   }
   kiln_build_output_fini(&out);
   return fresh_finish(prog, i, &fresh, err, CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
}

cl_int kiln_program_compile(cl_program prog, cl_uint n, const cl_device_id *devices,
                            const char *options, cl_uint num_headers, const cl_program *headers,
                            const char **names)
{
   pthread_mutex_lock(&prog->lock);
   if (prog->num_kernel_objects || prog->building) {
      pthread_mutex_unlock(&prog->lock);
      return CL_INVALID_OPERATION;
   }
   prog->building = true;
   pthread_mutex_unlock(&prog->lock);

   /* A header program's source never changes once created. */
   struct kiln_header *h = kiln_calloc(num_headers ? num_headers : 1, sizeof(*h));
   cl_int result = h ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
   for (cl_uint k = 0; h && k < num_headers; k++)
      h[k] = (struct kiln_header){names[k], headers[k]->source, headers[k]->source_size};
   for (cl_uint i = 0; h && i < prog->num_devices; i++) {
      if (!wanted(prog->devices[i], n, devices))
         continue;
      cl_int err = compile_one(prog, i, options, h, num_headers);
      if (err == CL_INVALID_COMPILER_OPTIONS || (err && !result))
         result = err;
   }
   kiln_free(h);

   pthread_mutex_lock(&prog->lock);
   prog->building = false;
   pthread_mutex_unlock(&prog->lock);
   return result;
}

/* Links inputs for device i of prog (a new program, or one whose build i
 * is a compiled object or library). */
static cl_int link_device(cl_program prog, unsigned i, const char *options, bool library,
                          const struct kiln_bitcode *inputs, unsigned num_inputs)
{
   cl_device_id dev = prog->devices[i];
   struct kiln_program_build fresh;
   if (!fresh_start(&fresh, options)) {
      kiln_free(fresh.options);
      return CL_OUT_OF_HOST_MEMORY;
   }
   if (!kiln_program_device_compiles(dev)) {
      fresh.log = kiln_strdup("error: this device has no OpenCL C linker\n");
      return fresh_finish(prog, i, &fresh, CL_LINKER_NOT_AVAILABLE, 0);
   }
   struct kiln_compile_target target;
   kiln_program_compile_target(dev, &target);
   cl_program_binary_type type =
      library ? CL_PROGRAM_BINARY_TYPE_LIBRARY : CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
   struct kiln_fcache *cache = kiln_program_cache();
   unsigned char key[KILN_FCACHE_KEY_SIZE];
   if (cache && !kiln_program_cache_link_key(inputs, num_inputs, options, &target, key))
      cache = NULL;
   fresh.binary_type = type;
   if (cache && kiln_program_cache_fetch(dev, cache, key, &target, &fresh))
      return fresh_finish(prog, i, &fresh, CL_SUCCESS, type);
   struct kiln_build_output out;
   enum kiln_build_status st =
      kiln_llvm_link(inputs, num_inputs, options, &target, &out);
   fresh.log = out.log;
   out.log = NULL;
   cl_int err = st == KILN_BUILD_OK                ? CL_SUCCESS
                : st == KILN_BUILD_INVALID_OPTIONS ? CL_INVALID_LINKER_OPTIONS
                : st == KILN_BUILD_OUT_OF_MEMORY   ? CL_OUT_OF_HOST_MEMORY
                                                   : CL_LINK_PROGRAM_FAILURE;
   if (!err) {
      fresh.bitcode = out.bitcode;
      fresh.bitcode_size = out.bitcode_size;
      fresh.target = out.target_id;
      fresh.object = out.object;
      fresh.object_size = out.object_size;
      fresh.kernels = out.kernels;
      fresh.num_kernels = out.num_kernels;
      fresh.global_variable_size = out.global_variable_size;
      memset(&out, 0, sizeof(out));
      if (!library) {
         err = kiln_program_build_load(dev, &fresh);
         if (err == CL_BUILD_PROGRAM_FAILURE)
            err = CL_LINK_PROGRAM_FAILURE;
      }
      if (!err && cache)
         kiln_program_cache_store(cache, key, &fresh, NULL, 0);
   }
   kiln_build_output_fini(&out);
   return fresh_finish(prog, i, &fresh, err, type);
}

static bool is_linkable(const struct kiln_program_build *b)
{
   return (b->binary_type == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT ||
           b->binary_type == CL_PROGRAM_BINARY_TYPE_LIBRARY) &&
          b->bitcode && b->bitcode_size;
}

/* Copies of the inputs' code for dev (their owners may rebuild them on
 * another thread meanwhile): *count of them, 0 when none has code for
 * dev.  CL_INVALID_OPERATION when a build of an input is running or only
 * some inputs have code for dev (§5.6.3.3's rule). */
static cl_int gather(cl_device_id dev, cl_uint num_inputs, const cl_program *inputs,
                     struct kiln_bitcode *out, unsigned *count)
{
   cl_int err = CL_SUCCESS;
   *count = 0;
   for (cl_uint k = 0; k < num_inputs && !err; k++) {
      cl_program p = inputs[k];
      pthread_mutex_lock(&p->lock);
      int at = kiln_program_device_index(p, dev);
      const struct kiln_program_build *b = at >= 0 ? &p->builds[at] : NULL;
      if (p->building) {
         err = CL_INVALID_OPERATION;
      } else if (b && is_linkable(b)) {
         void *copy = kiln_malloc(b->bitcode_size);
         if (copy) {
            memcpy(copy, b->bitcode, b->bitcode_size);
            /* The source (never changed once created) only names what
             * KILN_DUMP's .cl of the link shows. */
            out[(*count)++] = (struct kiln_bitcode){.data = copy, .size = b->bitcode_size,
                                                    .source = p->source,
                                                    .source_size = p->source_size};
         } else {
            err = CL_OUT_OF_HOST_MEMORY;
         }
      }
      pthread_mutex_unlock(&p->lock);
   }
   if (!err && *count && *count != num_inputs)
      err = CL_INVALID_OPERATION;
   return err;
}

static void release_inputs(struct kiln_bitcode *in, unsigned n)
{
   for (unsigned k = 0; k < n; k++)
      kiln_free((void *)in[k].data);
}

cl_int kiln_program_link(cl_context ctx, cl_uint n, const cl_device_id *devices,
                         const char *options, cl_uint num_inputs, const cl_program *inputs,
                         cl_program *out)
{
   if (!n) {
      n = ctx->num_devices;
      devices = ctx->devices;
   }
   bool library = false;
   if (kiln_llvm_check_link_options(options, &library, NULL) == KILN_BUILD_INVALID_OPTIONS)
      return CL_INVALID_LINKER_OPTIONS;
   struct kiln_bitcode *in = kiln_calloc((size_t)n * num_inputs, sizeof(*in));
   unsigned *counts = kiln_calloc(n, sizeof(*counts));
   cl_int err = in && counts ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
   unsigned devices_with_code = 0;
   for (cl_uint d = 0; d < n && !err; d++) {
      err = gather(devices[d], num_inputs, inputs, in + (size_t)d * num_inputs, &counts[d]);
      devices_with_code += counts[d] > 0;
   }
   if (!err && !devices_with_code)
      err = CL_INVALID_OPERATION; /* nothing compiled to link */
   cl_program prog = NULL;
   if (!err) {
      prog = kiln_program_new(ctx, n, devices);
      if (!prog)
         err = CL_OUT_OF_HOST_MEMORY;
   }
   cl_int result = CL_SUCCESS;
   for (cl_uint d = 0; d < n && !err; d++) {
      if (!counts[d])
         continue;
      cl_int e = link_device(prog, d, options, library, in + (size_t)d * num_inputs, counts[d]);
      if (e && (!result || e == CL_OUT_OF_HOST_MEMORY))
         result = e;
   }
   for (cl_uint d = 0; in && counts && d < n; d++)
      release_inputs(in + (size_t)d * num_inputs, counts[d]);
   kiln_free(in);
   kiln_free(counts);
   if (err)
      return err;
   *out = prog;
   return result;
}

cl_int kiln_program_link_one(cl_program prog, unsigned i)
{
   struct kiln_program_build *b = &prog->builds[i];
   if (!is_linkable(b))
      return CL_INVALID_BINARY;
   /* prog->building keeps b in place: no copy needed. */
   struct kiln_bitcode in = {.data = b->bitcode, .size = b->bitcode_size};
   cl_int err = link_device(prog, i, NULL, false, &in, 1);
   return err == CL_LINK_PROGRAM_FAILURE ? CL_BUILD_PROGRAM_FAILURE : err;
}
