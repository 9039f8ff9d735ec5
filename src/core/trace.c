/* The trace file stays valid JSON after every event: each write replaces
 * the closing "]}" with ",<event>" and puts the closing back, so a process
 * that crashes, or exits without releasing anything, still leaves a file
 * the viewers open.  Events are "X" (complete) events, one per command,
 * on one row per queue; times are the command's profiling timestamps
 * (CLOCK_MONOTONIC), in microseconds. */
#include "core/trace.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/context.h"
#include "core/device.h"
#include "core/event.h"
#include "core/kernel.h"
#include "core/mem.h"
#include "kiln/kernel_info.h"
#include "core/object.h"
#include "core/program.h"
#include "core/queue.h"
#include "util/log.h"

atomic_bool kiln_trace_on;

static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *trace_file;
static pid_t trace_pid; /* a forked child must not write into the parent's file */
/* KILN_TRACE=1: the file name Kiln chose, said on stderr at exit (the
 * application did not name it).  Empty when the application did. */
static char default_path[64];
static const char tail[] = "\n]}\n";

/* Queues get rows in the order they first complete a command. */
#define MAX_ROWS 256
static const void *rows[MAX_ROWS];
static unsigned num_rows;

static double us(cl_ulong ns)
{
   return (double)ns / 1000.0;
}

static cl_ulong now_ns(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (cl_ulong)ts.tv_sec * 1000000000ull + (cl_ulong)ts.tv_nsec;
}

/* Appends one event (a JSON object) keeping the file whole.  Caller holds
 * trace_lock. */
static void append(const char *event)
{
   fseek(trace_file, -(long)(sizeof(tail) - 1), SEEK_END);
   fprintf(trace_file, ",\n%s%s", event, tail);
   fflush(trace_file);
}

/* JSON string contents: quotes, backslashes and control characters
 * escaped. */
static void escape(char *out, size_t size, const char *s)
{
   size_t o = 0;
   for (; s && *s && o + 7 < size; s++) {
      unsigned char c = (unsigned char)*s;
      if (c == '"' || c == '\\') {
         out[o++] = '\\';
         out[o++] = (char)c;
      } else if (c < 0x20) {
         o += (size_t)snprintf(out + o, size - o, "\\u%04x", c);
      } else {
         out[o++] = (char)c;
      }
   }
   out[o] = 0;
}

static void write_leaks(void);

static void trace_exit(void)
{
   if (!kiln_trace_enabled() || getpid() != trace_pid)
      return;
   write_leaks();
   pthread_mutex_lock(&trace_lock);
   atomic_store(&kiln_trace_on, false);
   fclose(trace_file);
   trace_file = NULL;
   pthread_mutex_unlock(&trace_lock);
   if (default_path[0])
      fprintf(stderr, "kiln: KILN_TRACE: trace written to %s\n", default_path);
}

void kiln_trace_init(void)
{
   const char *path = getenv("KILN_TRACE");
   if (!path || !*path || !strcmp(path, "0"))
      return;
   /* "1" means on: a file of this process's own in the current directory
    * (a file called "1" is still ./1). */
   if (!strcmp(path, "1")) {
      snprintf(default_path, sizeof(default_path), "kiln-trace-%ld.json", (long)getpid());
      path = default_path;
   }
   trace_file = fopen(path, "w");
   if (!trace_file) {
      kiln_log(KILN_LOG_WARN, "KILN_TRACE: cannot open %s; no trace", path);
      default_path[0] = 0;
      return;
   }
   trace_pid = getpid();
   char exe[512] = "";
   ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
   exe[n > 0 ? n : 0] = 0;
   const char *base = strrchr(exe, '/');
   char name[600];
   escape(name, sizeof(name), base ? base + 1 : exe);
   fprintf(trace_file,
           "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"driver\":\"Kiln " KILN_VERSION
           "\",\"clock\":\"CLOCK_MONOTONIC\"},\"traceEvents\":[\n"
           "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%ld,\"tid\":0,"
           "\"args\":{\"name\":\"%s (Kiln)\"}}%s",
           (long)trace_pid, name, tail);
   fflush(trace_file);
   atomic_store(&kiln_trace_on, true);
   atexit(trace_exit);
   kiln_log(KILN_LOG_QUEUE, "KILN_TRACE: writing %s", path);
}

static const char *command_name(cl_command_type t)
{
   switch (t) {
   case CL_COMMAND_NDRANGE_KERNEL: return "NDRangeKernel";
   case CL_COMMAND_TASK: return "Task";
   case CL_COMMAND_NATIVE_KERNEL: return "NativeKernel";
   case CL_COMMAND_READ_BUFFER: return "ReadBuffer";
   case CL_COMMAND_WRITE_BUFFER: return "WriteBuffer";
   case CL_COMMAND_COPY_BUFFER: return "CopyBuffer";
   case CL_COMMAND_READ_BUFFER_RECT: return "ReadBufferRect";
   case CL_COMMAND_WRITE_BUFFER_RECT: return "WriteBufferRect";
   case CL_COMMAND_COPY_BUFFER_RECT: return "CopyBufferRect";
   case CL_COMMAND_MAP_BUFFER: return "MapBuffer";
   case CL_COMMAND_UNMAP_MEM_OBJECT: return "UnmapMemObject";
   case CL_COMMAND_MARKER: return "Marker";
   case CL_COMMAND_BARRIER: return "Barrier";
   case CL_COMMAND_FILL_BUFFER: return "FillBuffer";
   case CL_COMMAND_READ_IMAGE: return "ReadImage";
   case CL_COMMAND_WRITE_IMAGE: return "WriteImage";
   case CL_COMMAND_COPY_IMAGE: return "CopyImage";
   case CL_COMMAND_MAP_IMAGE: return "MapImage";
   case CL_COMMAND_MIGRATE_MEM_OBJECTS: return "MigrateMemObjects";
   case CL_COMMAND_SVM_FREE: return "SVMFree";
   case CL_COMMAND_SVM_MEMCPY: return "SVMMemcpy";
   case CL_COMMAND_SVM_MEMFILL: return "SVMMemFill";
   case CL_COMMAND_SVM_MAP: return "SVMMap";
   case CL_COMMAND_SVM_UNMAP: return "SVMUnmap";
   case CL_COMMAND_SVM_MIGRATE_MEM: return "SVMMigrateMem";
   default: return "Command";
   }
}

/* The row of a queue; its name is written the first time.  Caller holds
 * trace_lock. */
static unsigned row_of(cl_command_queue q)
{
   for (unsigned i = 0; i < num_rows; i++)
      if (rows[i] == q)
         return i + 1;
   if (num_rows == MAX_ROWS)
      return MAX_ROWS + 1; /* "other queues" */
   rows[num_rows++] = q;
   char dev[300], event[600];
   escape(dev, sizeof(dev), q->device->caps->name);
   snprintf(event, sizeof(event),
            "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%ld,\"tid\":%u,"
            "\"args\":{\"name\":\"queue %u (%p%s) on %s\"}}",
            (long)trace_pid, num_rows, num_rows, (void *)q,
            (atomic_load(&q->properties) & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
               ? ", out of order"
               : "",
            dev);
   append(event);
   return num_rows;
}

void kiln_trace_command(cl_event ev, cl_int status)
{
   if (getpid() != trace_pid)
      return;
   struct kiln_trace_info info = {0};
   if (ev->ops && ev->ops->describe && ev->payload)
      ev->ops->describe(ev, &info);
   const char *what = command_name(ev->type);
   char kernel[300] = "";
   escape(kernel, sizeof(kernel), info.kernel);
   char sizes[300] = "";
   if (info.work_dim) {
      int n = snprintf(sizes, sizeof(sizes), ",\"work_dim\":%u,\"global\":[", info.work_dim);
      for (unsigned d = 0; d < info.work_dim && d < 3; d++)
         n += snprintf(sizes + n, sizeof(sizes) - (size_t)n, "%s%" PRIu64, d ? "," : "",
                       info.global[d]);
      n += snprintf(sizes + n, sizeof(sizes) - (size_t)n, "],\"local\":");
      if (info.local[0]) {
         n += snprintf(sizes + n, sizeof(sizes) - (size_t)n, "[");
         for (unsigned d = 0; d < info.work_dim && d < 3; d++)
            n += snprintf(sizes + n, sizeof(sizes) - (size_t)n, "%s%" PRIu64, d ? "," : "",
                          info.local[d]);
         snprintf(sizes + n, sizeof(sizes) - (size_t)n, "]");
      } else {
         snprintf(sizes + n, sizeof(sizes) - (size_t)n, "null");
      }
   }
   const cl_ulong *t = ev->times;
   char dev[300];
   escape(dev, sizeof(dev), ev->queue->device->caps->name);
   char event[2048];
   pthread_mutex_lock(&trace_lock);
   if (!trace_file) {
      pthread_mutex_unlock(&trace_lock);
      return;
   }
   unsigned row = row_of(ev->queue);
   snprintf(event, sizeof(event),
            "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,"
            "\"pid\":%ld,\"tid\":%u,\"args\":{\"command\":\"%s\",\"kernel\":%s%s%s,"
            "\"device\":\"%s\",\"queue\":\"%p\",\"event\":\"%p\",\"status\":%d,"
            "\"queued_us\":%.3f,\"submit_us\":%.3f,\"start_us\":%.3f,\"end_us\":%.3f,"
            "\"bytes\":%" PRIu64 "%s}}",
            info.kernel ? kernel : what, info.kernel ? "kernel" : "command", us(t[KILN_PROF_START]),
            us(t[KILN_PROF_END] - t[KILN_PROF_START]), (long)trace_pid, row, what,
            info.kernel ? "\"" : "null", info.kernel ? kernel : "", info.kernel ? "\"" : "",
            dev, (void *)ev->queue, (void *)ev, status, us(t[KILN_PROF_QUEUED]),
            us(t[KILN_PROF_SUBMIT]), us(t[KILN_PROF_START]), us(t[KILN_PROF_END]), info.bytes,
            sizes);
   append(event);
   pthread_mutex_unlock(&trace_lock);
}

static const char *type_name(enum kiln_type t)
{
   switch (t) {
   case KILN_TYPE_CONTEXT: return "cl_context";
   case KILN_TYPE_QUEUE: return "cl_command_queue";
   case KILN_TYPE_MEM: return "cl_mem";
   case KILN_TYPE_PROGRAM: return "cl_program";
   case KILN_TYPE_KERNEL: return "cl_kernel";
   case KILN_TYPE_EVENT: return "cl_event";
   case KILN_TYPE_SAMPLER: return "cl_sampler";
   default: return NULL; /* the platform and devices live forever */
   }
}

struct leaks {
   unsigned count;
   cl_ulong ts;
};

/* Called under the registry's lock, for each live handle. */
static void leak(struct kiln_object *obj, void *data)
{
   struct leaks *l = data;
   const char *type = type_name(obj->type);
   if (!type)
      return;
   char detail[400] = "";
   if (obj->type == KILN_TYPE_MEM) {
      snprintf(detail, sizeof(detail), ",\"size\":%zu", ((cl_mem)obj)->size);
   } else if (obj->type == KILN_TYPE_KERNEL) {
      char name[300];
      escape(name, sizeof(name), ((cl_kernel)obj)->info->name);
      snprintf(detail, sizeof(detail), ",\"kernel\":\"%s\"", name);
   }
   char event[800];
   snprintf(event, sizeof(event),
            "{\"name\":\"leaked %s\",\"cat\":\"leak\",\"ph\":\"i\",\"s\":\"g\",\"ts\":%.3f,"
            "\"pid\":%ld,\"tid\":0,\"args\":{\"type\":\"%s\",\"handle\":\"%p\",\"refcount\":%u%s}}",
            type, us(l->ts), (long)trace_pid, type, (void *)obj, kiln_object_refcount(obj),
            detail);
   append(event);
   kiln_log(KILN_LOG_WARN, "KILN_TRACE: leaked %s %p (reference count %u)", type, (void *)obj,
            kiln_object_refcount(obj));
   l->count++;
}

static void write_leaks(void)
{
   struct leaks l = {0, now_ns()};
   pthread_mutex_lock(&trace_lock);
   if (trace_file)
      kiln_object_foreach_live(leak, &l);
   char event[300];
   snprintf(event, sizeof(event),
            "{\"name\":\"exit\",\"cat\":\"leak\",\"ph\":\"i\",\"s\":\"g\",\"ts\":%.3f,"
            "\"pid\":%ld,\"tid\":0,\"args\":{\"leaked_objects\":%u}}",
            us(l.ts), (long)trace_pid, l.count);
   if (trace_file)
      append(event);
   pthread_mutex_unlock(&trace_lock);
}
