/* clCreateProgramWithSource/Binary/BuiltInKernels, clRetain/ReleaseProgram,
 * clBuildProgram, clCompileProgram, clLinkProgram, clUnload(Platform)Compiler,
 * clGetProgramInfo, clGetProgramBuildInfo. */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/icd.h"
#include "core/context.h"
#include "core/device.h"
#include "core/program.h"
#include "kiln/kernel_info.h"
#include "llvm/compiler.h"
#include "util/alloc.h"

CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithSource(cl_context context, cl_uint count,
                                                              const char **strings,
                                                              const size_t *lengths,
                                                              cl_int *errcode_ret)
{
   cl_context ctx = kiln_context_from(context);
   if (!ctx)
      API_FAIL_RET(errcode_ret, CL_INVALID_CONTEXT, "%p is not a context", (void *)context);
   if (!count || !strings)
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "count %u, strings %p", count, (void *)strings);
   size_t total = 0;
   for (cl_uint i = 0; i < count; i++) {
      if (!strings[i])
         API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "strings[%u] is NULL", i);
      total += lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
   }
   /* The pieces are concatenated, as if one string. */
   char *source = kiln_malloc(total + 1);
   if (!source)
      API_FAIL_RET(errcode_ret, CL_OUT_OF_HOST_MEMORY, "source of %zu bytes", total);
   size_t pos = 0;
   for (cl_uint i = 0; i < count; i++) {
      size_t n = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
      memcpy(source + pos, strings[i], n);
      pos += n;
   }
   source[pos] = 0;
   cl_program prog = NULL;
   cl_int err = kiln_program_create_source(ctx, source, pos, &prog);
   if (err)
      API_FAIL_RET(errcode_ret, err, "out of host memory");
   kiln_set_error(errcode_ret, CL_SUCCESS);
   return prog;
}

CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithBinary(
   cl_context context, cl_uint num_devices, const cl_device_id *device_list,
   const size_t *lengths, const unsigned char **binaries, cl_int *binary_status,
   cl_int *errcode_ret)
{
   cl_context ctx = kiln_context_from(context);
   if (!ctx)
      API_FAIL_RET(errcode_ret, CL_INVALID_CONTEXT, "%p is not a context", (void *)context);
   if (!device_list || !num_devices)
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "device_list %p, num_devices %u",
                   (void *)device_list, num_devices);
   for (cl_uint i = 0; i < num_devices; i++) {
      cl_device_id dev = kiln_device_from(device_list[i]);
      if (!dev || !kiln_context_has_device(ctx, dev))
         API_FAIL_RET(errcode_ret, CL_INVALID_DEVICE, "device_list[%u] is not in the context", i);
   }
   if (!lengths || !binaries)
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "lengths %p, binaries %p", (void *)lengths,
                   (void *)binaries);
   for (cl_uint i = 0; i < num_devices; i++)
      if (!lengths[i] || !binaries[i]) {
         if (binary_status)
            for (cl_uint k = 0; k < num_devices; k++)
               binary_status[k] = k == i ? CL_INVALID_VALUE : CL_SUCCESS;
         API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "binary %u is empty", i);
      }
   cl_program prog = NULL;
   cl_int err = kiln_program_create_binary(ctx, num_devices, device_list, binaries, lengths,
                                           binary_status, &prog);
   if (err)
      API_FAIL_RET(errcode_ret, err, "a binary was rejected (KILN_DEBUG=compile says why)");
   kiln_set_error(errcode_ret, CL_SUCCESS);
   return prog;
}

CL_API_ENTRY cl_int CL_API_CALL clRetainProgram(cl_program program)
{
   cl_program p = kiln_program_from(program);
   if (!p)
      return API_FAIL(CL_INVALID_PROGRAM, "%p is not a program", (void *)program);
   kiln_object_retain(&p->obj);
   return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseProgram(cl_program program)
{
   cl_program p = kiln_program_from(program);
   if (!p)
      return API_FAIL(CL_INVALID_PROGRAM, "%p is not a program", (void *)program);
   kiln_object_release(&p->obj);
   return CL_SUCCESS;
}

/* Checks build or compile options; when invalid, Kiln's reason goes to
 * the build log of each device asked for. */
static enum kiln_build_status check_options(cl_program p, cl_uint num_devices,
                                            const cl_device_id *device_list,
                                            const char *options)
{
   char *log = NULL;
   enum kiln_build_status checked = kiln_llvm_check_options(options, &log);
   if (checked != KILN_BUILD_INVALID_OPTIONS) {
      kiln_free(log);
      return checked;
   }
   for (cl_uint i = 0; i < p->num_devices; i++) {
      bool wanted = !num_devices;
      for (cl_uint k = 0; k < num_devices; k++)
         wanted |= device_list[k] == p->devices[i];
      if (!wanted)
         continue;
      char *copy = log ? kiln_strdup(log) : NULL;
      pthread_mutex_lock(&p->lock);
      if (copy) {
         kiln_free(p->builds[i].log);
         p->builds[i].log = copy;
      }
      p->builds[i].status = CL_BUILD_ERROR;
      pthread_mutex_unlock(&p->lock);
   }
   kiln_free(log);
   return checked;
}

CL_API_ENTRY cl_int CL_API_CALL clBuildProgram(
   cl_program program, cl_uint num_devices, const cl_device_id *device_list, const char *options,
   void(CL_CALLBACK *pfn_notify)(cl_program, void *), void *user_data)
{
   cl_program p = kiln_program_from(program);
   if (!p)
      return API_FAIL(CL_INVALID_PROGRAM, "%p is not a program", (void *)program);
   if ((!device_list && num_devices) || (device_list && !num_devices))
      return API_FAIL(CL_INVALID_VALUE, "device_list %p, num_devices %u", (void *)device_list,
                      num_devices);
   if (!pfn_notify && user_data)
      return API_FAIL(CL_INVALID_VALUE, "user_data without pfn_notify");
   for (cl_uint i = 0; i < num_devices; i++)
      if (kiln_program_device_index(p, device_list[i]) < 0)
         return API_FAIL(CL_INVALID_DEVICE, "device_list[%u] is not a device of the program", i);
   enum kiln_build_status checked = check_options(p, num_devices, device_list, options);
   if (checked == KILN_BUILD_OUT_OF_MEMORY)
      return API_FAIL(CL_OUT_OF_HOST_MEMORY, "no memory to parse the options");
   if (checked != KILN_BUILD_OK)
      return API_FAIL(CL_INVALID_BUILD_OPTIONS, "options \"%s\"", options);
   cl_int err = kiln_program_build(p, num_devices, device_list, options);
   /* The build is synchronous: the callback runs before we return. */
   if (pfn_notify && err != CL_INVALID_OPERATION)
      pfn_notify(p, user_data);
   if (err)
      return API_FAIL(err, "the build failed (see CL_PROGRAM_BUILD_LOG)");
   return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clCompileProgram(
   cl_program program, cl_uint num_devices, const cl_device_id *device_list, const char *options,
   cl_uint num_input_headers, const cl_program *input_headers, const char **header_include_names,
   void(CL_CALLBACK *pfn_notify)(cl_program, void *), void *user_data)
{
   cl_program p = kiln_program_from(program);
   if (!p)
      return API_FAIL(CL_INVALID_PROGRAM, "%p is not a program", (void *)program);
   if ((!device_list && num_devices) || (device_list && !num_devices))
      return API_FAIL(CL_INVALID_VALUE, "device_list %p, num_devices %u", (void *)device_list,
                      num_devices);
   if (!num_input_headers != !input_headers || !num_input_headers != !header_include_names)
      return API_FAIL(CL_INVALID_VALUE, "num_input_headers %u, input_headers %p, "
                      "header_include_names %p", num_input_headers, (void *)input_headers,
                      (void *)header_include_names);
   for (cl_uint k = 0; k < num_input_headers; k++) {
      /* A header is a program made from source, named by a relative path. */
      cl_program h = kiln_program_from(input_headers[k]);
      const char *name = header_include_names[k];
      if (!h || !h->source || !name || !*name || name[0] == '/')
         return API_FAIL(CL_INVALID_VALUE, "input header %u: %s", k,
                         !h ? "not a program" : !h->source ? "a program without source"
                                                           : "no relative include name");
   }
   if (!pfn_notify && user_data)
      return API_FAIL(CL_INVALID_VALUE, "user_data without pfn_notify");
   for (cl_uint i = 0; i < num_devices; i++)
      if (kiln_program_device_index(p, device_list[i]) < 0)
         return API_FAIL(CL_INVALID_DEVICE, "device_list[%u] is not a device of the program", i);
   enum kiln_build_status checked = check_options(p, num_devices, device_list, options);
   if (checked == KILN_BUILD_OUT_OF_MEMORY)
      return API_FAIL(CL_OUT_OF_HOST_MEMORY, "no memory to parse the options");
   if (checked != KILN_BUILD_OK)
      return API_FAIL(CL_INVALID_COMPILER_OPTIONS, "options \"%s\"", options);
   if (!p->source && !p->il)
      return API_FAIL(CL_INVALID_OPERATION, "the program was not created from source or IL");
   cl_int err = kiln_program_compile(p, num_devices, device_list, options, num_input_headers,
                                     input_headers, header_include_names);
   /* Synchronous: the callback runs before we return. */
   if (pfn_notify && err != CL_INVALID_OPERATION)
      pfn_notify(p, user_data);
   if (err)
      return API_FAIL(err, "the compile failed (see CL_PROGRAM_BUILD_LOG)");
   return CL_SUCCESS;
}

CL_API_ENTRY cl_program CL_API_CALL clLinkProgram(
   cl_context context, cl_uint num_devices, const cl_device_id *device_list, const char *options,
   cl_uint num_input_programs, const cl_program *input_programs,
   void(CL_CALLBACK *pfn_notify)(cl_program, void *), void *user_data, cl_int *errcode_ret)
{
   cl_context ctx = kiln_context_from(context);
   if (!ctx)
      API_FAIL_RET(errcode_ret, CL_INVALID_CONTEXT, "%p is not a context", (void *)context);
   if ((!device_list && num_devices) || (device_list && !num_devices))
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "device_list %p, num_devices %u",
                   (void *)device_list, num_devices);
   if (!num_input_programs || !input_programs)
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "num_input_programs %u, input_programs %p",
                   num_input_programs, (void *)input_programs);
   for (cl_uint k = 0; k < num_input_programs; k++) {
      cl_program in = kiln_program_from(input_programs[k]);
      if (!in || in->context != ctx)
         API_FAIL_RET(errcode_ret, CL_INVALID_PROGRAM, "input_programs[%u] is not a program "
                      "of the context", k);
   }
   if (!pfn_notify && user_data)
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "user_data without pfn_notify");
   for (cl_uint i = 0; i < num_devices; i++) {
      cl_device_id dev = kiln_device_from(device_list[i]);
      if (!dev || !kiln_context_has_device(ctx, dev))
         API_FAIL_RET(errcode_ret, CL_INVALID_DEVICE, "device_list[%u] is not in the context",
                      i);
   }
   enum kiln_build_status checked = kiln_llvm_check_link_options(options, NULL, NULL);
   if (checked == KILN_BUILD_OUT_OF_MEMORY)
      API_FAIL_RET(errcode_ret, CL_OUT_OF_HOST_MEMORY, "no memory to parse the options");
   if (checked != KILN_BUILD_OK)
      API_FAIL_RET(errcode_ret, CL_INVALID_LINKER_OPTIONS, "options \"%s\"", options);
   cl_program prog = NULL;
   cl_int err = kiln_program_link(ctx, num_devices, device_list, options, num_input_programs,
                                  input_programs, &prog);
   if (!prog)
      API_FAIL_RET(errcode_ret, err, "the link could not begin");
   /* The link has run: a failed one still gives a program whose log says
    * why (§5.6.3.3), and the callback sees it. */
   if (pfn_notify)
      pfn_notify(prog, user_data);
   if (err)
      API_FAIL(err, "the link failed (see CL_PROGRAM_BUILD_LOG)");
   kiln_set_error(errcode_ret, err);
   return prog;
}

CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithBuiltInKernels(
   cl_context context, cl_uint num_devices, const cl_device_id *device_list,
   const char *kernel_names, cl_int *errcode_ret)
{
   cl_context ctx = kiln_context_from(context);
   if (!ctx)
      API_FAIL_RET(errcode_ret, CL_INVALID_CONTEXT, "%p is not a context", (void *)context);
   if (!num_devices || !device_list || !kernel_names)
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "num_devices %u, device_list %p, "
                   "kernel_names %p", num_devices, (void *)device_list, (void *)kernel_names);
   for (cl_uint i = 0; i < num_devices; i++) {
      cl_device_id dev = kiln_device_from(device_list[i]);
      if (!dev || !kiln_context_has_device(ctx, dev))
         API_FAIL_RET(errcode_ret, CL_INVALID_DEVICE, "device_list[%u] is not in the context",
                      i);
   }
   /* No Kiln device offers built-in kernels (CL_DEVICE_BUILT_IN_KERNELS is
    * ""), so every name is unknown to every device. */
   API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "no device has the built-in kernels \"%s\"",
                kernel_names);
}

/* The hint has nothing to free: every build creates and destroys its own
 * Clang instance and LLVM context, and the builtins are data in the
 * library.  LLVM's process-wide registries stay, as releasing them while
 * another thread builds (or any later build) would break it. */
CL_API_ENTRY cl_int CL_API_CALL clUnloadCompiler(void)
{
   return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clUnloadPlatformCompiler(cl_platform_id platform)
{
   if (!platform || platform != kiln_api_platform())
      return API_FAIL(CL_INVALID_PLATFORM, "%p is not Kiln's platform", (void *)platform);
   return clUnloadCompiler();
}

/* "a;b;c": the kernels of b, in the order the program defines them. */
/* The application's kernels: those Clang made of enqueued blocks are the
 * device's (kiln_is_block_kernel_name). */
static size_t visible_kernels(const struct kiln_program_build *b)
{
   size_t n = 0;
   for (unsigned k = 0; k < b->num_kernels; k++)
      n += !kiln_is_block_kernel_name(b->kernels[k].name);
   return n;
}

static cl_int kernel_names(const struct kiln_program_build *b, size_t param_value_size,
                           void *param_value, size_t *param_value_size_ret)
{
   size_t n = 1;
   for (unsigned k = 0; k < b->num_kernels; k++)
      n += strlen(b->kernels[k].name) + 1;
   char *names = kiln_malloc(n);
   if (!names)
      return API_FAIL(CL_OUT_OF_HOST_MEMORY, "kernel names of %zu bytes", n);
   names[0] = 0;
   bool first = true;
   for (unsigned k = 0; k < b->num_kernels; k++) {
      if (kiln_is_block_kernel_name(b->kernels[k].name))
         continue;
      if (!first)
         strcat(names, ";");
      first = false;
      strcat(names, b->kernels[k].name);
   }
   cl_int err = kiln_info(names, strlen(names) + 1, param_value_size, param_value,
                          param_value_size_ret);
   kiln_free(names);
   return err;
}

/* Under the program's lock: a build on another thread replaces what these
 * read. */
static cl_int program_info(cl_program p, cl_program_info param_name, size_t param_value_size,
                           void *param_value, size_t *param_value_size_ret)
{
   switch (param_name) {
   case CL_PROGRAM_REFERENCE_COUNT:
      INFO_VALUE(cl_uint, kiln_object_refcount(&p->obj));
   case CL_PROGRAM_CONTEXT:
      INFO_VALUE(cl_context, p->context);
   case CL_PROGRAM_NUM_DEVICES:
      INFO_VALUE(cl_uint, p->num_devices);
   case CL_PROGRAM_DEVICES:
      INFO_ARRAY(p->devices, p->num_devices);
   case CL_PROGRAM_SOURCE:
      INFO_STRING(p->source ? p->source : "");
   case CL_PROGRAM_BINARY_SIZES: {
      size_t sizes[16];
      cl_uint n = p->num_devices < 16 ? p->num_devices : 16;
      for (cl_uint i = 0; i < n; i++) {
         kiln_program_binary_complete(p, i);
         sizes[i] = kiln_program_binary(p, i, NULL);
      }
      INFO_ARRAY(sizes, n);
   }
   case CL_PROGRAM_NUM_KERNELS:
   case CL_PROGRAM_KERNEL_NAMES: {
      const struct kiln_program_build *b = NULL;
      for (cl_uint i = 0; i < p->num_devices && !b; i++)
         if (kiln_program_build_executable(&p->builds[i]))
            b = &p->builds[i];
      if (!b)
         return API_FAIL(CL_INVALID_PROGRAM_EXECUTABLE, "no device has an executable");
      if (param_name == CL_PROGRAM_NUM_KERNELS)
         INFO_VALUE(size_t, visible_kernels(b));
      return kernel_names(b, param_value_size, param_value, param_value_size_ret);
   }
   case CL_PROGRAM_BINARIES: {
      /* param_value is an array of pointers the application allocated;
       * a NULL entry skips that device. */
      size_t need = p->num_devices * sizeof(unsigned char *);
      if (param_value) {
         if (param_value_size < need)
            return API_FAIL(CL_INVALID_VALUE, "param_value_size %zu < %zu", param_value_size, need);
         unsigned char **out = param_value;
         for (cl_uint i = 0; i < p->num_devices; i++)
            if (out[i]) {
               /* Nothing more to compile when the sizes were asked first. */
               kiln_program_binary_complete(p, i);
               kiln_program_binary(p, i, out[i]);
            }
      }
      if (param_value_size_ret)
         *param_value_size_ret = need;
      return CL_SUCCESS;
   }
   /* OpenCL 2.1 and 3.0: the IL it was created from (none for the
    * others: size 0).  No device has program-scope global constructors
    * (api/absent.c). */
   case CL_PROGRAM_IL:
      INFO_ARRAY((const unsigned char *)p->il, p->il ? p->il_size : 0);
   case CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT:
   case CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT:
      INFO_VALUE(cl_bool, CL_FALSE);
   default:
      return API_FAIL(CL_INVALID_VALUE, "unknown param_name 0x%x", param_name);
   }
}

CL_API_ENTRY cl_int CL_API_CALL clGetProgramInfo(cl_program program, cl_program_info param_name,
                                                 size_t param_value_size, void *param_value,
                                                 size_t *param_value_size_ret)
{
   cl_program p = kiln_program_from(program);
   if (!p)
      return API_FAIL_HANDLE(param_name >= CL_PROGRAM_REFERENCE_COUNT &&
                                param_name <= CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT,
                             param_name, CL_INVALID_PROGRAM, program, "a program");
   pthread_mutex_lock(&p->lock);
   cl_int err = program_info(p, param_name, param_value_size, param_value, param_value_size_ret);
   pthread_mutex_unlock(&p->lock);
   return err;
}

static cl_int build_info(const struct kiln_program_build *b, cl_program_build_info param_name,
                         size_t param_value_size, void *param_value,
                         size_t *param_value_size_ret)
{
   switch (param_name) {
   case CL_PROGRAM_BUILD_STATUS:
      INFO_VALUE(cl_build_status, b->status);
   case CL_PROGRAM_BUILD_OPTIONS:
      INFO_STRING(b->options ? b->options : "");
   case CL_PROGRAM_BUILD_LOG:
      INFO_STRING(b->log ? b->log : "");
   case CL_PROGRAM_BINARY_TYPE:
      /* A failed build or link leaves NONE; a program from an executable
       * binary is one before clBuildProgram too (§5.6.6 of 1.2). */
      INFO_VALUE(cl_program_binary_type, b->binary_type);
   case CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE:
      INFO_VALUE(size_t, (size_t)b->global_variable_size);
   default:
      return API_FAIL(CL_INVALID_VALUE, "unknown param_name 0x%x", param_name);
   }
}

CL_API_ENTRY cl_int CL_API_CALL clGetProgramBuildInfo(cl_program program, cl_device_id device,
                                                      cl_program_build_info param_name,
                                                      size_t param_value_size, void *param_value,
                                                      size_t *param_value_size_ret)
{
   cl_program p = kiln_program_from(program);
   /* CL_INVALID_DEVICE, listed first, needs a valid program to judge. */
   if (!p)
      return API_FAIL_HANDLE(param_name >= CL_PROGRAM_BUILD_STATUS &&
                                param_name <= CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE,
                             param_name, CL_INVALID_PROGRAM, program, "a program");
   int i = kiln_device_from(device) ? kiln_program_device_index(p, device) : -1;
   if (i < 0)
      return API_FAIL(CL_INVALID_DEVICE, "%p is not a device of the program", (void *)device);
   pthread_mutex_lock(&p->lock);
   cl_int err = build_info(&p->builds[i], param_name, param_value_size, param_value,
                           param_value_size_ret);
   pthread_mutex_unlock(&p->lock);
   return err;
}
