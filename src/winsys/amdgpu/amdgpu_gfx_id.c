/* Family numbers are those of the kernel's amdgpu_drm.h (the newer ones
 * are defined here: libdrm 2.4.114's header stops at Yellow Carp).  Each
 * family's chips are told apart by ranges of the external revision, the
 * first revision of each chip being where its range starts. */
#include "winsys/amdgpu/amdgpu_gfx_id.h"

#include <stddef.h>

enum {
   FAMILY_AI = 141,        /* Vega 10/12/20, Arcturus, Aldebaran */
   FAMILY_RV = 142,        /* Raven, Raven2, Renoir */
   FAMILY_NV = 143,        /* Navi 1x, Navi 2x */
   FAMILY_VGH = 144,       /* Van Gogh */
   FAMILY_GC_11_0_0 = 145, /* Navi 31/32/33 */
   FAMILY_YC = 146,        /* Yellow Carp (Rembrandt) */
   FAMILY_GC_11_0_1 = 148, /* Phoenix */
   FAMILY_GC_10_3_6 = 149, /* Raphael */
   FAMILY_GC_11_5_0 = 150, /* Strix Point */
   FAMILY_GC_10_3_7 = 151, /* Mendocino */
};

struct range {
   uint32_t family, first_rev, end_rev; /* [first_rev, end_rev) */
   struct amdgpu_gfx_id id;
};

static const struct range ranges[] = {
   {FAMILY_AI, 0x01, 0x14, {"gfx900", "Vega 10", 9, false}},
   {FAMILY_AI, 0x14, 0x28, {"gfx904", "Vega 12", 9, false}},
   {FAMILY_AI, 0x28, 0x32, {"gfx906", "Vega 20", 9, false}},
   {FAMILY_AI, 0x32, 0x3c, {"gfx908", "Arcturus", 9, false}},
   {FAMILY_AI, 0x3c, 0x46, {"gfx90a", "Aldebaran", 9, true}},
   {FAMILY_RV, 0x01, 0x81, {"gfx902", "Raven", 9, false}},
   {FAMILY_RV, 0x81, 0x91, {"gfx909", "Raven2", 9, false}},
   {FAMILY_RV, 0x91, 0x100, {"gfx90c", "Renoir", 9, false}},
   {FAMILY_NV, 0x01, 0x0a, {"gfx1010", "Navi 10", 10, false}},
   {FAMILY_NV, 0x0a, 0x14, {"gfx1011", "Navi 12", 10, false}},
   {FAMILY_NV, 0x14, 0x28, {"gfx1012", "Navi 14", 10, false}},
   {FAMILY_NV, 0x28, 0x32, {"gfx1030", "Navi 21", 10, false}},
   {FAMILY_NV, 0x32, 0x3c, {"gfx1031", "Navi 22", 10, false}},
   {FAMILY_NV, 0x3c, 0x46, {"gfx1032", "Navi 23", 10, false}},
   {FAMILY_NV, 0x46, 0x50, {"gfx1034", "Navi 24", 10, false}},
   {FAMILY_VGH, 0x01, 0x100, {"gfx1033", "Van Gogh", 10, false}},
   {FAMILY_YC, 0x01, 0x100, {"gfx1035", "Rembrandt", 10, false}},
   {FAMILY_GC_10_3_6, 0x01, 0x100, {"gfx1036", "Raphael", 10, false}},
   /* GC 10.3.7 runs gfx1036 code; LLVM 19 has no name of its own for it. */
   {FAMILY_GC_10_3_7, 0x01, 0x100, {"gfx1036", "Mendocino", 10, false}},
   {FAMILY_GC_11_0_0, 0x01, 0x10, {"gfx1100", "Navi 31", 11, false}},
   {FAMILY_GC_11_0_0, 0x10, 0x20, {"gfx1102", "Navi 33", 11, false}},
   {FAMILY_GC_11_0_0, 0x20, 0x100, {"gfx1101", "Navi 32", 11, false}},
   {FAMILY_GC_11_0_1, 0x01, 0x100, {"gfx1103", "Phoenix", 11, false}},
   {FAMILY_GC_11_5_0, 0x01, 0x100, {"gfx1150", "Strix Point", 11, false}},
};

const struct amdgpu_gfx_id *amdgpu_gfx_id_lookup(uint32_t family, uint32_t external_rev)
{
   for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
      if (ranges[i].family == family && external_rev >= ranges[i].first_rev &&
          external_rev < ranges[i].end_rev)
         return &ranges[i].id;
   return NULL;
}
