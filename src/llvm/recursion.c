/* OpenCL C forbids recursion (OpenCL C 1.2 §6.9 k), yet Clang accepts it:
 * a recursive program used to build with an empty log, and one whose
 * kernel calls itself failed only when loaded, with "kernel 'k' is missing
 * from the device code" (the CPU's work-group wrapper cannot inline a
 * kernel into itself).  After linking, every cycle of the call graph
 * (Tarjan's strongly connected components) is a build error naming its
 * functions. */
#include "llvm/recursion.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "llvm/build_log.h"
#include "llvm/metadata.h"
#include "util/alloc.h"

/* The names a cycle's error lists before "...". */
#define MAX_NAMED 8

struct graph {
   LLVMValueRef *fns; /* defined functions, sorted by address */
   unsigned n;
   unsigned *edge_start; /* n + 1 offsets into edges */
   unsigned *edges;
   unsigned num_edges;
};

static int cmp_ptr(const void *a, const void *b)
{
   uintptr_t x = (uintptr_t) * (LLVMValueRef const *)a, y = (uintptr_t) * (LLVMValueRef const *)b;
   return x < y ? -1 : x > y;
}

static int index_of(const struct graph *g, LLVMValueRef fn)
{
   LLVMValueRef *at = bsearch(&fn, g->fns, g->n, sizeof(*g->fns), cmp_ptr);
   return at ? (int)(at - g->fns) : -1;
}

/* Calls visit(callee index) for each direct call of a defined function in f. */
static bool each_callee(const struct graph *g, LLVMValueRef f, unsigned *out, unsigned *count)
{
   for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb)) {
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
         if (!LLVMIsACallInst(i))
            continue;
         int c = index_of(g, LLVMGetCalledValue(i));
         if (c < 0)
            continue;
         if (out)
            out[*count] = (unsigned)c;
         (*count)++;
      }
   }
   return true;
}

static bool graph_build(struct graph *g, LLVMModuleRef m)
{
   memset(g, 0, sizeof(*g));
   for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
      if (LLVMGetFirstBasicBlock(f))
         g->n++;
   g->fns = kiln_calloc(g->n + 1, sizeof(*g->fns));
   g->edge_start = kiln_calloc(g->n + 1, sizeof(*g->edge_start));
   if (!g->fns || !g->edge_start)
      return false;
   unsigned k = 0;
   for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
      if (LLVMGetFirstBasicBlock(f))
         g->fns[k++] = f;
   qsort(g->fns, g->n, sizeof(*g->fns), cmp_ptr);
   for (unsigned i = 0; i < g->n; i++)
      each_callee(g, g->fns[i], NULL, &g->num_edges);
   g->edges = kiln_calloc(g->num_edges + 1, sizeof(*g->edges));
   if (!g->edges)
      return false;
   unsigned e = 0;
   for (unsigned i = 0; i < g->n; i++) {
      g->edge_start[i] = e;
      each_callee(g, g->fns[i], g->edges, &e);
   }
   g->edge_start[g->n] = e;
   return true;
}

static void graph_fini(struct graph *g)
{
   kiln_free(g->fns);
   kiln_free(g->edge_start);
   kiln_free(g->edges);
}

static const char *name_of(LLVMValueRef f)
{
   size_t len;
   const char *name = LLVMGetValueName2(f, &len);
   return name && *name ? name : "(unnamed)";
}

static bool calls_itself(const struct graph *g, unsigned v)
{
   for (unsigned e = g->edge_start[v]; e < g->edge_start[v + 1]; e++)
      if (g->edges[e] == v)
         return true;
   return false;
}

/* One component found: an error when it is a cycle. */
static bool report(const struct graph *g, const unsigned *members, unsigned n,
                   struct kiln_build_log *log)
{
   if (n == 1 && !calls_itself(g, members[0]))
      return true;
   if (n == 1) {
      LLVMValueRef f = g->fns[members[0]];
      kiln_build_log_append(log, "error: %s '%s' calls itself: OpenCL C does not allow "
                                 "recursion\n",
                            kiln_is_kernel(f) ? "kernel" : "function", name_of(f));
      return false;
   }
   kiln_build_log_append(log, "error: recursion: the functions");
   for (unsigned i = 0; i < n && i < MAX_NAMED; i++)
      kiln_build_log_append(log, "%s '%s'", i ? "," : "", name_of(g->fns[members[i]]));
   if (n > MAX_NAMED)
      kiln_build_log_append(log, " and %u more", n - MAX_NAMED);
   kiln_build_log_append(log, " call each other: OpenCL C does not allow recursion\n");
   return false;
}

enum kiln_build_status kiln_llvm_check_recursion(LLVMModuleRef m, struct kiln_build_log *log)
{
   struct graph g;
   enum kiln_build_status st = KILN_BUILD_OUT_OF_MEMORY;
   /* Tarjan's algorithm without recursion (the call graph of a generated
    * program may be deep): frames of (vertex, next edge). */
   unsigned *index = NULL, *low = NULL, *stack = NULL, *frame_v = NULL, *frame_e = NULL;
   bool *on_stack = NULL;
   if (!graph_build(&g, m))
      goto done;
   unsigned n = g.n;
   index = kiln_calloc(n + 1, sizeof(*index));
   low = kiln_calloc(n + 1, sizeof(*low));
   stack = kiln_calloc(n + 1, sizeof(*stack));
   frame_v = kiln_calloc(n + 1, sizeof(*frame_v));
   frame_e = kiln_calloc(n + 1, sizeof(*frame_e));
   on_stack = kiln_calloc(n + 1, sizeof(*on_stack));
   if (!index || !low || !stack || !frame_v || !frame_e || !on_stack)
      goto done;
   st = KILN_BUILD_OK;
   unsigned next = 1, sp = 0;
   for (unsigned root = 0; root < n; root++) {
      if (index[root])
         continue;
      unsigned fp = 0;
      frame_v[fp] = root;
      frame_e[fp++] = g.edge_start[root];
      index[root] = low[root] = next++;
      stack[sp++] = root;
      on_stack[root] = true;
      while (fp) {
         unsigned v = frame_v[fp - 1];
         if (frame_e[fp - 1] < g.edge_start[v + 1]) {
            unsigned w = g.edges[frame_e[fp - 1]++];
            if (!index[w]) {
               index[w] = low[w] = next++;
               stack[sp++] = w;
               on_stack[w] = true;
               frame_v[fp] = w;
               frame_e[fp++] = g.edge_start[w];
            } else if (on_stack[w] && index[w] < low[v]) {
               low[v] = index[w];
            }
            continue;
         }
         fp--;
         if (fp && low[v] < low[frame_v[fp - 1]])
            low[frame_v[fp - 1]] = low[v];
         if (low[v] != index[v])
            continue;
         unsigned first = sp;
         do {
            first--;
            on_stack[stack[first]] = false;
         } while (stack[first] != v);
         if (!report(&g, stack + first, sp - first, log))
            st = KILN_BUILD_FAILED;
         sp = first;
      }
   }
done:
   kiln_free(index);
   kiln_free(low);
   kiln_free(stack);
   kiln_free(frame_v);
   kiln_free(frame_e);
   kiln_free(on_stack);
   graph_fini(&g);
   return st;
}
