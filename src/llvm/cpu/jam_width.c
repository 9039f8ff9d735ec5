/* KILN_JAM_WIDTH (see jam_width.h).  The width changes the code the
 * work-group pass writes; cpu_target.c puts a width other than 8 in the
 * target id, which also names the CPU, so the compile cache and program
 * binaries keep code of different widths apart. */
#include "llvm/cpu/jam_width.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static unsigned width = KILN_JAM_WIDTH_MIN;
static const char *bad; /* a value that is neither 8 nor 16 */

unsigned kiln_jam_width_for_cpu(const char *cpu)
{
   /* "znver4", "znver5", ...: "znver" and a generation of 4 or more. */
   if (cpu && !strncmp(cpu, "znver", 5)) {
      char *end;
      unsigned long gen = strtoul(cpu + 5, &end, 10);
      if (end != cpu + 5 && !*end && gen >= 4)
         return KILN_JAM_WIDTH_MAX;
   }
   return KILN_JAM_WIDTH_MIN;
}

static void read_env(void)
{
   const char *e = getenv("KILN_JAM_WIDTH");
   if (e && *e) {
      if (!strcmp(e, "8") || !strcmp(e, "16")) {
         width = (unsigned)atoi(e);
         return;
      }
      bad = e;
   }
   char *cpu = LLVMGetHostCPUName();
   width = kiln_jam_width_for_cpu(cpu);
   LLVMDisposeMessage(cpu);
}

unsigned kiln_jam_width(const char **invalid)
{
   pthread_once(&once, read_env);
   if (invalid)
      *invalid = bad;
   return width;
}
