/* Build logs are never empty when a build fails: Clang's diagnostics with
 * file:line:col, or Kiln's own reason when the failure is not Clang's
 * (a missing builtin, a device limit, a bad option, a missing header). */
#include "kk.h"

static void expect_failure(const struct kt_env *env, const char *what, const char *src,
                           const char *options, cl_int want, const char *const *needles)
{
   cl_program p = NULL;
   cl_int err = kk_try_build(env, src, options, &p);
   CHECK(err == want, "%s: clBuildProgram returned %s, want %s", what, kt_err_name(err),
         kt_err_name(want));
   if (!p)
      return;
   char *log = kk_build_log(p, env->device);
   CHECK(strlen(log) > 0, "%s: the build log is empty", what);
   for (; *needles; needles++)
      CHECK(strstr(log, *needles) != NULL, "%s: the log lacks '%s':\n%s", what, *needles, log);
   CHECK(kk_build_status(p, env->device) == CL_BUILD_ERROR, "%s: status is not CL_BUILD_ERROR",
         what);
   free(log);
   clReleaseProgram(p);
}

int main(void)
{
   struct kt_env env;
   kt_setup(&env, 0);

   expect_failure(&env, "syntax error",
                  "__kernel void k(__global int *o)\n{\n   o[0] = 1\n}\n", "",
                  CL_BUILD_PROGRAM_FAILURE,
                  (const char *const[]){"input.cl:3:12: error: expected ';'", NULL});
   expect_failure(&env, "undeclared identifier",
                  "__kernel void k(__global int *o)\n{\n   o[0] = nope;\n}\n", "",
                  CL_BUILD_PROGRAM_FAILURE,
                  (const char *const[]){"input.cl:3:11: error: use of undeclared identifier "
                                        "'nope'",
                                        NULL});
   expect_failure(&env, "missing header",
                  "#include \"missing_header.h\"\n__kernel void k(__global int *o) { }\n", "",
                  CL_BUILD_PROGRAM_FAILURE,
                  (const char *const[]){"input.cl:1:10: fatal error: 'missing_header.h' file "
                                        "not found",
                                        NULL});
   expect_failure(&env, "-Werror",
                  "#warning this warning is an error\n__kernel void k(__global int *o) { }\n",
                  "-Werror", CL_BUILD_PROGRAM_FAILURE,
                  (const char *const[]){"input.cl:1:2: error: this warning is an error", NULL});
   /* Not Clang's: a function that does not exist in Kiln's builtins. */
   expect_failure(&env, "missing function",
                  "int not_defined_anywhere(int x);\n"
                  "__kernel void k(__global int *o) { o[0] = not_defined_anywhere(1); }\n",
                  "", CL_BUILD_PROGRAM_FAILURE,
                  (const char *const[]){"undefined function 'not_defined_anywhere'", NULL});
   expect_failure(&env, "bad option", "__kernel void k(__global int *o) { }\n",
                  "-cl-no-such-option", CL_INVALID_BUILD_OPTIONS,
                  (const char *const[]){"invalid build options", "-cl-no-such-option", NULL});
   /* Device limits, named with the kernel. */
   cl_ulong local = kt_device_ulong(env.device, CL_DEVICE_LOCAL_MEM_SIZE);
   char src[512];
   snprintf(src, sizeof(src),
            "__kernel void big_local(__global int *o)\n"
            "{\n   __local int t[%llu];\n   t[get_local_id(0)] = 1;\n"
            "   barrier(CLK_LOCAL_MEM_FENCE);\n   o[0] = t[3];\n}\n",
            (unsigned long long)(local / sizeof(int) + 1024));
   expect_failure(&env, "too much __local", src, "", CL_BUILD_PROGRAM_FAILURE,
                  (const char *const[]){"kernel 'big_local'", "CL_DEVICE_LOCAL_MEM_SIZE", NULL});
   size_t max_wg = 0;
   CHECK_OK(clGetDeviceInfo(env.device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(max_wg), &max_wg,
                            NULL));
   snprintf(src, sizeof(src),
            "__kernel __attribute__((reqd_work_group_size(%zu, 2, 1)))\n"
            "void too_wide(__global int *o) { o[get_global_id(0)] = 1; }\n",
            max_wg);
   expect_failure(&env, "reqd_work_group_size", src, "", CL_BUILD_PROGRAM_FAILURE,
                  (const char *const[]){"kernel 'too_wide'", "reqd_work_group_size", NULL});

   /* A clean build's log may be empty, and stays a valid string. */
   cl_program p = NULL;
   CHECK_OK(kk_try_build(&env, "__kernel void k(__global int *o) { o[0] = 1; }\n", "", &p));
   if (p) {
      char *log = kk_build_log(p, env.device);
      CHECK(log != NULL);
      free(log);
      clReleaseProgram(p);
   }
   kt_teardown(&env);
   return kt_result();
}
