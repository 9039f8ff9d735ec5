#include "llvm/nvptx/nvptx_target.h"

#include <stdio.h>
#include <string.h>

#include "llvm/nvptx/nvptx_abi.h"

/* Maxwell (sm_50) on: what CUDA 12 and 13 drivers still load.  PTX ISA
 * 7.8 covers every processor up to sm_90 and is accepted by every CUDA 12
 * driver (12.0 reads up to 8.0); sm_90a's arch-specific features need 8.0.
 * An sm LLVM 19 does not know gets PTX for the newest one before it that
 * LLVM does know, which the driver JIT-compiles forward (PTX for sm_XY
 * runs on any sm_MN with MN >= XY): sm_88 gets sm_87's, Blackwell and
 * Thor (sm_100 on) sm_90's (sm_90a PTX runs on sm_90a alone). */
static const struct kiln_nvptx_target targets[] = {
   {"sm_50", "sm_50", KILN_NVPTX_PTX_VERSION},  {"sm_52", "sm_52", KILN_NVPTX_PTX_VERSION},
   {"sm_53", "sm_53", KILN_NVPTX_PTX_VERSION},  {"sm_60", "sm_60", KILN_NVPTX_PTX_VERSION},
   {"sm_61", "sm_61", KILN_NVPTX_PTX_VERSION},  {"sm_62", "sm_62", KILN_NVPTX_PTX_VERSION},
   {"sm_70", "sm_70", KILN_NVPTX_PTX_VERSION},  {"sm_72", "sm_72", KILN_NVPTX_PTX_VERSION},
   {"sm_75", "sm_75", KILN_NVPTX_PTX_VERSION},  {"sm_80", "sm_80", KILN_NVPTX_PTX_VERSION},
   {"sm_86", "sm_86", KILN_NVPTX_PTX_VERSION},  {"sm_87", "sm_87", KILN_NVPTX_PTX_VERSION},
   {"sm_88", "sm_87", KILN_NVPTX_PTX_VERSION},  {"sm_89", "sm_89", KILN_NVPTX_PTX_VERSION},
   {"sm_90", "sm_90", KILN_NVPTX_PTX_VERSION},
   {"sm_90a", "sm_90a", 80},                    {"sm_100", "sm_90", KILN_NVPTX_PTX_VERSION},
   {"sm_101", "sm_90", KILN_NVPTX_PTX_VERSION}, {"sm_103", "sm_90", KILN_NVPTX_PTX_VERSION},
   {"sm_110", "sm_90", KILN_NVPTX_PTX_VERSION}, {"sm_120", "sm_90", KILN_NVPTX_PTX_VERSION},
   {"sm_121", "sm_90", KILN_NVPTX_PTX_VERSION},
};

const struct kiln_nvptx_target *kiln_nvptx_target_find(const char *sm)
{
   for (size_t i = 0; sm && i < sizeof(targets) / sizeof(targets[0]); i++)
      if (!strcmp(targets[i].sm, sm))
         return &targets[i];
   return NULL;
}

const struct kiln_nvptx_target *kiln_nvptx_target_at(unsigned n)
{
   return n < sizeof(targets) / sizeof(targets[0]) ? &targets[n] : NULL;
}

void kiln_nvptx_sm_name(int major, int minor, char *buf, unsigned size)
{
   snprintf(buf, size, "sm_%d%d", major, minor);
}
