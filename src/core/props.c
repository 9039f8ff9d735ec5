#include "core/props.h"

#include <string.h>

#include "util/alloc.h"

size_t kiln_props_count(const cl_properties *src)
{
   if (!src)
      return 0;
   size_t n = 0;
   while (src[n])
      n += 2;
   return n + 1;
}

cl_int kiln_props_copy(struct kiln_props *p, const cl_properties *src)
{
   p->list = NULL;
   p->count = kiln_props_count(src);
   if (!p->count)
      return CL_SUCCESS;
   p->list = kiln_malloc(p->count * sizeof(*p->list));
   if (!p->list) {
      p->count = 0;
      return CL_OUT_OF_HOST_MEMORY;
   }
   memcpy(p->list, src, p->count * sizeof(*p->list));
   return CL_SUCCESS;
}

void kiln_props_fini(struct kiln_props *p)
{
   kiln_free(p->list);
   p->list = NULL;
   p->count = 0;
}
