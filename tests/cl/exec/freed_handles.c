/* Handles whose object Kiln has destroyed (the application's last
 * reference gone, no internal one left), passed back to entry points.
 *
 * DESIGN.md asks that Kiln never crash on a freed handle.  Through the
 * ICD loader that is a stronger demand than validating handles in Kiln:
 * the loader reads the dispatch table through the handle itself before
 * Kiln is called, so the handle's memory must still hold a valid dispatch
 * pointer after destruction.  Each case runs in its own child process so
 * a crash is reported as a failure of that case, not of the whole test. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kt.h"

/* Each case builds its own objects (the child has no Kiln state from the
 * parent: nothing OpenCL runs before fork) and returns the error code of
 * the call under test. */
struct freed_case {
   const char *call;
   cl_int want;
   cl_int (*run)(struct kt_env *env);
};

static cl_mem freed_buffer(struct kt_env *env)
{
   cl_mem m = kt_buffer(env->context, 0, 64, NULL);
   REQUIRE_OK(clReleaseMemObject(m));
   return m;
}

static cl_event freed_event(struct kt_env *env)
{
   cl_event e = kt_user_event(env->context);
   REQUIRE_OK(clSetUserEventStatus(e, CL_COMPLETE));
   REQUIRE_OK(clReleaseEvent(e));
   return e;
}

static cl_command_queue freed_queue(struct kt_env *env)
{
   cl_command_queue q = kt_queue(env, env->context, 0);
   REQUIRE_OK(clReleaseCommandQueue(q));
   return q;
}

static cl_context freed_context(struct kt_env *env)
{
   cl_context c = kt_context(env);
   REQUIRE_OK(clReleaseContext(c));
   return c;
}

static cl_int mem_info(struct kt_env *env)
{
   size_t s;
   return clGetMemObjectInfo(freed_buffer(env), CL_MEM_SIZE, sizeof(s), &s, NULL);
}

static cl_int mem_release(struct kt_env *env)
{
   return clReleaseMemObject(freed_buffer(env));
}

static cl_int event_info(struct kt_env *env)
{
   cl_int st;
   return clGetEventInfo(freed_event(env), CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st,
                         NULL);
}

static cl_int event_wait(struct kt_env *env)
{
   cl_event e = freed_event(env);
   return clWaitForEvents(1, &e);
}

static cl_int event_release(struct kt_env *env)
{
   return clReleaseEvent(freed_event(env));
}

static cl_int queue_finish(struct kt_env *env)
{
   return clFinish(freed_queue(env));
}

static cl_int queue_release(struct kt_env *env)
{
   return clReleaseCommandQueue(freed_queue(env));
}

static cl_int context_buffer(struct kt_env *env)
{
   cl_int err = CL_SUCCESS;
   cl_mem m = clCreateBuffer(freed_context(env), 0, 64, NULL, &err);
   return m ? CL_SUCCESS : err;
}

static cl_int context_release(struct kt_env *env)
{
   return clReleaseContext(freed_context(env));
}

static const struct freed_case cases[] = {
   {"clGetMemObjectInfo(freed buffer)", CL_INVALID_MEM_OBJECT, mem_info},
   {"clReleaseMemObject(freed buffer)", CL_INVALID_MEM_OBJECT, mem_release},
   {"clGetEventInfo(freed event)", CL_INVALID_EVENT, event_info},
   {"clWaitForEvents(freed event)", CL_INVALID_EVENT, event_wait},
   {"clReleaseEvent(freed event)", CL_INVALID_EVENT, event_release},
   {"clFinish(freed queue)", CL_INVALID_COMMAND_QUEUE, queue_finish},
   {"clReleaseCommandQueue(freed queue)", CL_INVALID_COMMAND_QUEUE, queue_release},
   {"clCreateBuffer(freed context)", CL_INVALID_CONTEXT, context_buffer},
   {"clReleaseContext(freed context)", CL_INVALID_CONTEXT, context_release},
};

int main(void)
{
   int failed = 0;
   for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
      fflush(NULL);
      pid_t pid = fork();
      REQUIRE(pid >= 0);
      if (pid == 0) {
         struct kt_env env;
         kt_setup(&env, 0);
         cl_int got = cases[i].run(&env);
         if (got != cases[i].want) {
            fprintf(stderr, "FAIL %s returned %s, expected %s\n", cases[i].call,
                    kt_err_name(got), kt_err_name(cases[i].want));
            _exit(1);
         }
         _exit(0);
      }
      int status;
      REQUIRE(waitpid(pid, &status, 0) == pid);
      if (WIFSIGNALED(status)) {
         fprintf(stderr, "FAIL %s crashed (signal %d)\n", cases[i].call, WTERMSIG(status));
         failed++;
      } else if (WEXITSTATUS(status)) {
         failed++;
      } else {
         printf("ok   %s\n", cases[i].call);
      }
   }
   if (failed)
      fprintf(stderr, "%d case(s) failed\n", failed);
   return failed ? 1 : 0;
}
