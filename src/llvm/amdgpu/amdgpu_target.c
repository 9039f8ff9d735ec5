#include "llvm/amdgpu/amdgpu_target.h"

#include <string.h>

/* GCN5/CDNA (gfx9), RDNA1/2 (gfx10.1/10.3) and RDNA3 (gfx11): every
 * processor Debian's libclc-19 ships mesa3d bitcode for.  gfx12 has none;
 * its functions get gfx1100's library, which is plain IR whose target
 * attributes -mlink-builtin-bitcode replaces with the program's, and which
 * uses no gfx11-only intrinsic (docs/amdgpu.md). */
static const struct kiln_amdgpu_target targets[] = {
   {"gfx900", 9, "gfx900"},    {"gfx902", 9, "gfx902"},    {"gfx904", 9, "gfx904"},
   {"gfx906", 9, "gfx906"},    {"gfx908", 9, "gfx908"},    {"gfx909", 9, "gfx909"},
   {"gfx90a", 9, "gfx90a"},    {"gfx90c", 9, "gfx90c"},    {"gfx940", 9, "gfx940"},
   {"gfx941", 9, "gfx941"},    {"gfx942", 9, "gfx942"},    {"gfx1010", 10, "gfx1010"},
   {"gfx1011", 10, "gfx1011"}, {"gfx1012", 10, "gfx1012"}, {"gfx1013", 10, "gfx1013"},
   {"gfx1030", 10, "gfx1030"}, {"gfx1031", 10, "gfx1031"}, {"gfx1032", 10, "gfx1032"},
   {"gfx1033", 10, "gfx1033"}, {"gfx1034", 10, "gfx1034"}, {"gfx1035", 10, "gfx1035"},
   {"gfx1036", 10, "gfx1036"}, {"gfx1100", 11, "gfx1100"}, {"gfx1101", 11, "gfx1101"},
   {"gfx1102", 11, "gfx1102"}, {"gfx1103", 11, "gfx1103"}, {"gfx1150", 11, "gfx1150"},
   {"gfx1151", 11, "gfx1151"}, {"gfx1152", 11, "gfx1152"}, {"gfx1200", 12, "gfx1100"},
   {"gfx1201", 12, "gfx1100"},
};

const struct kiln_amdgpu_target *kiln_amdgpu_target_find(const char *gfx)
{
   for (size_t i = 0; gfx && i < sizeof(targets) / sizeof(targets[0]); i++)
      if (!strcmp(targets[i].gfx, gfx))
         return &targets[i];
   return NULL;
}

const struct kiln_amdgpu_target *kiln_amdgpu_target_at(unsigned n)
{
   return n < sizeof(targets) / sizeof(targets[0]) ? &targets[n] : NULL;
}
