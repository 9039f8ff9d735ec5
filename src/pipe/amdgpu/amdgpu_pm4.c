#include "pipe/amdgpu/amdgpu_pm4.h"

void pm4_emit(struct pm4_buf *b, uint32_t v)
{
   if (b->n < b->cap)
      b->dw[b->n++] = v;
   else
      b->overflow = true;
}

void pm4_set_sh_regs(struct pm4_buf *b, uint32_t reg, const uint32_t *values, unsigned count)
{
   pm4_emit(b, PM4_PKT3(PM4_SET_SH_REG, count + 1));
   pm4_emit(b, (reg - SH_REG_BASE) >> 2);
   for (unsigned i = 0; i < count; i++)
      pm4_emit(b, values[i]);
}

void pm4_set_sh_reg(struct pm4_buf *b, uint32_t reg, uint32_t value)
{
   pm4_set_sh_regs(b, reg, &value, 1);
}

void pm4_pad(struct pm4_buf *b)
{
   while (b->n % 8 && !b->overflow)
      pm4_emit(b, PM4_NOP_FILLER);
}
