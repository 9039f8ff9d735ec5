/* kiln-compile's program binaries through clCreateProgramWithBinary: the
 * one built for "cpu" runs saxpy on the CPU device with the right results;
 * one built for an AMD GPU is refused there with CL_INVALID_BINARY, as the
 * target ids differ.  argv: the cpu binary, the gfx1030 binary. */
#include "kk.h"

#include <stdlib.h>

static unsigned char *slurp(const char *path, size_t *size)
{
   FILE *f = fopen(path, "rb");
   REQUIRE(f, "cannot open %s", path);
   fseek(f, 0, SEEK_END);
   long n = ftell(f);
   fseek(f, 0, SEEK_SET);
   unsigned char *b = malloc(n > 0 ? (size_t)n : 1);
   REQUIRE(b && n > 0 && fread(b, 1, (size_t)n, f) == (size_t)n, "cannot read %s", path);
   fclose(f);
   *size = (size_t)n;
   return b;
}

int main(int argc, char **argv)
{
   if (argc != 3) {
      fprintf(stderr, "usage: %s CPU_BINARY GFX_BINARY\n", argv[0]);
      return 2;
   }
   struct kt_env env;
   kt_setup(&env, 0);

   size_t size;
   unsigned char *bin = slurp(argv[1], &size);
   const unsigned char *bins[1] = {bin};
   cl_int status = 1, err = 1;
   cl_program p = clCreateProgramWithBinary(env.context, 1, &env.device, &size, bins, &status,
                                            &err);
   cl_device_type type = 0;
   CHECK_OK(clGetDeviceInfo(env.device, CL_DEVICE_TYPE, sizeof(type), &type, NULL));
   if (!(type & CL_DEVICE_TYPE_CPU)) {
      /* A GPU (KILN_DEVICES=cuda): the CPU binary is another target's. */
      CHECK(!p && err == CL_INVALID_BINARY && status == CL_INVALID_BINARY,
            "cpu binary on a GPU: %s / %s", kt_err_name(err), kt_err_name(status));
      kt_teardown(&env);
      if (kt_result())
         return kt_result();
      printf("the binaries are for the CPU and an AMD GPU: skipped on this device\n");
      return 77;
   }
   REQUIRE(p && err == CL_SUCCESS && status == CL_SUCCESS, "cpu binary: %s / %s",
           kt_err_name(err), kt_err_name(status));
   REQUIRE_OK(clBuildProgram(p, 1, &env.device, NULL, NULL, NULL));
   cl_kernel k = kk_kernel(p, "saxpy");
   enum { N = 1000 };
   float x[N], y[N], out[N];
   for (int i = 0; i < N; i++) {
      x[i] = (float)i;
      y[i] = 0.5f * (float)i + 1.0f;
   }
   cl_mem mx = kk_buffer_in(&env, sizeof(x), x), my = kk_buffer_in(&env, sizeof(y), y);
   cl_float a = 3.0f;
   KK_ARG(k, 0, a);
   KK_ARG(k, 1, mx);
   KK_ARG(k, 2, my);
   size_t n = N;
   KK_RUN(&env, k, 1, NULL, &n, NULL);
   kk_read(&env, my, sizeof(out), out);
   for (int i = 0; i < N; i++)
      CHECK(out[i] == 3.0f * x[i] + y[i], "saxpy[%d] = %g, want %g", i, out[i],
            3.0f * x[i] + y[i]);
   clReleaseMemObject(mx);
   clReleaseMemObject(my);
   clReleaseKernel(k);
   clReleaseProgram(p);
   free(bin);

   /* A GPU's binary on the CPU device. */
   bin = slurp(argv[2], &size);
   bins[0] = bin;
   status = 1;
   p = clCreateProgramWithBinary(env.context, 1, &env.device, &size, bins, &status, &err);
   CHECK(!p && err == CL_INVALID_BINARY && status == CL_INVALID_BINARY,
         "gfx1030 binary on the CPU: %s / %s", kt_err_name(err), kt_err_name(status));
   free(bin);
   kt_teardown(&env);
   return kt_result();
}
