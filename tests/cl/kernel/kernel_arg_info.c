/* clGetKernelArgInfo (OpenCL 1.2 §5.7.3): address, access and type
 * qualifiers always; type and argument names only for programs compiled
 * with -cl-kernel-arg-info (through clBuildProgram or clCompileProgram),
 * CL_KERNEL_ARG_INFO_NOT_AVAILABLE otherwise, also after a binary round
 * trip; and every error case. */
#undef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120

#include "kk.h"

static const char *src =
   "typedef struct { int a; float b; } pair_t;\n"
   "__kernel void args(__global const int *restrict in, __global volatile float4 *out,\n"
   "                   __constant uchar *table, __local int *scratch, const uint n,\n"
   "                   pair_t pr, sampler_t s, __read_only image2d_t img,\n"
   "                   __write_only image2d_t dst)\n"
   "{ out[0] = (float4)(in[0] + table[0] + n + pr.a); scratch[0] = 0; }\n";

struct want {
   cl_kernel_arg_address_qualifier address;
   cl_kernel_arg_access_qualifier access;
   cl_kernel_arg_type_qualifier type;
   const char *type_name, *name;
};

static const struct want wants[] = {
   {CL_KERNEL_ARG_ADDRESS_GLOBAL, CL_KERNEL_ARG_ACCESS_NONE,
    CL_KERNEL_ARG_TYPE_CONST | CL_KERNEL_ARG_TYPE_RESTRICT, "int*", "in"},
   {CL_KERNEL_ARG_ADDRESS_GLOBAL, CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_TYPE_VOLATILE,
    "float4*", "out"},
   {CL_KERNEL_ARG_ADDRESS_CONSTANT, CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_TYPE_CONST,
    "uchar*", "table"},
   {CL_KERNEL_ARG_ADDRESS_LOCAL, CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_TYPE_NONE, "int*",
    "scratch"},
   {CL_KERNEL_ARG_ADDRESS_PRIVATE, CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_TYPE_NONE, "uint",
    "n"},
   {CL_KERNEL_ARG_ADDRESS_PRIVATE, CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_TYPE_NONE, "pair_t",
    "pr"},
   {CL_KERNEL_ARG_ADDRESS_PRIVATE, CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_TYPE_NONE,
    "sampler_t", "s"},
   {CL_KERNEL_ARG_ADDRESS_GLOBAL, CL_KERNEL_ARG_ACCESS_READ_ONLY, CL_KERNEL_ARG_TYPE_NONE,
    "image2d_t", "img"},
   {CL_KERNEL_ARG_ADDRESS_GLOBAL, CL_KERNEL_ARG_ACCESS_WRITE_ONLY, CL_KERNEL_ARG_TYPE_NONE,
    "image2d_t", "dst"},
};
#define NARGS (sizeof(wants) / sizeof(wants[0]))

static void check_kernel(cl_kernel k, bool names, const char *what)
{
   for (cl_uint i = 0; i < NARGS; i++) {
      const struct want *w = &wants[i];
      cl_kernel_arg_address_qualifier aq = 0;
      cl_kernel_arg_access_qualifier acc = 0;
      cl_kernel_arg_type_qualifier tq = 0xff;
      size_t sz = 0;
      CHECK_OK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(aq), &aq, &sz));
      CHECK(aq == w->address && sz == sizeof(aq), "%s: arg %u address %#x", what, i,
            (unsigned)aq);
      CHECK_OK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof(acc), &acc, NULL));
      CHECK(acc == w->access, "%s: arg %u access %#x", what, i, (unsigned)acc);
      CHECK_OK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof(tq), &tq, NULL));
      CHECK(tq == w->type, "%s: arg %u type qualifier %#llx, want %#llx", what, i,
            (unsigned long long)tq, (unsigned long long)w->type);
      char text[64] = "";
      if (names) {
         CHECK_OK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof(text), text, &sz));
         CHECK(!strcmp(text, w->type_name) && sz == strlen(text) + 1,
               "%s: arg %u type name '%s'", what, i, text);
         CHECK_OK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_NAME, 0, NULL, &sz));
         CHECK(sz == strlen(w->name) + 1, "%s: arg %u name size %zu", what, i, sz);
         CHECK_OK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_NAME, sizeof(text), text, NULL));
         CHECK(!strcmp(text, w->name), "%s: arg %u name '%s'", what, i, text);
         CHECK_ERR(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_NAME, 1, text, NULL), CL_INVALID_VALUE);
      } else {
         CHECK_ERR(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof(text), text, NULL),
                   CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
         CHECK_ERR(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_NAME, sizeof(text), text, NULL),
                   CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
      }
   }
}

static cl_program from_binary(const struct kt_env *env, cl_program p)
{
   size_t size = 0;
   REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, NULL));
   unsigned char *bin = malloc(size);
   REQUIRE(bin);
   unsigned char *bins[1] = {bin};
   REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bins), bins, NULL));
   cl_int err;
   const unsigned char *cbins[1] = {bin};
   cl_program q = clCreateProgramWithBinary(env->context, 1, &env->device, &size, cbins, NULL,
                                            &err);
   free(bin);
   REQUIRE(q && err == CL_SUCCESS, "clCreateProgramWithBinary: %s", kt_err_name(err));
   REQUIRE_OK(clBuildProgram(q, 0, NULL, NULL, NULL, NULL));
   return q;
}

static void built(const struct kt_env *env, const char *options, bool names)
{
   cl_program p = kk_build(env, src, options);
   cl_kernel k = kk_kernel(p, "args");
   check_kernel(k, names, options ? options : "build without options");
   cl_program q = from_binary(env, p);
   cl_kernel kq = kk_kernel(q, "args");
   check_kernel(kq, names, "binary round trip");
   clReleaseKernel(kq);
   clReleaseProgram(q);
   clReleaseKernel(k);
   clReleaseProgram(p);
}

static void compiled(const struct kt_env *env, const char *options, bool names)
{
   cl_int err;
   cl_program p = clCreateProgramWithSource(env->context, 1, &src, NULL, &err);
   REQUIRE(p);
   REQUIRE_OK(clCompileProgram(p, 0, NULL, options, 0, NULL, NULL, NULL, NULL));
   cl_program exe = clLinkProgram(env->context, 0, NULL, NULL, 1, &p, NULL, NULL, &err);
   REQUIRE(exe && err == CL_SUCCESS, "clLinkProgram: %s", kt_err_name(err));
   cl_kernel k = kk_kernel(exe, "args");
   check_kernel(k, names, options ? options : "compile without options");
   clReleaseKernel(k);
   clReleaseProgram(exe);
   clReleaseProgram(p);
}

static void errors(const struct kt_env *env)
{
   cl_program p = kk_build(env, src, "-cl-kernel-arg-info");
   cl_kernel k = kk_kernel(p, "args");
   cl_uint v;
   CHECK_ERR(clGetKernelArgInfo(NULL, 0, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(v), &v, NULL),
             CL_INVALID_KERNEL);
   CHECK_ERR(clGetKernelArgInfo((cl_kernel)p, 0, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(v), &v,
                                NULL),
             CL_INVALID_KERNEL);
   CHECK_ERR(clGetKernelArgInfo(k, NARGS, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(v), &v, NULL),
             CL_INVALID_ARG_INDEX);
   CHECK_ERR(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_ADDRESS_QUALIFIER, 2, &v, NULL),
             CL_INVALID_VALUE);
   CHECK_ERR(clGetKernelArgInfo(k, 0, 0x1234, sizeof(v), &v, NULL), CL_INVALID_VALUE);
   clReleaseKernel(k);
   clReleaseProgram(p);
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);
   built(&env, "-cl-kernel-arg-info", true);
   built(&env, NULL, false);
   built(&env, "-cl-mad-enable", false);
   compiled(&env, "-cl-kernel-arg-info", true);
   compiled(&env, NULL, false);
   errors(&env);
   kt_teardown(&env);
   return kt_result();
}
