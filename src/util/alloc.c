#include "util/alloc.h"

#include <stdlib.h>
#include <string.h>

void *kiln_malloc(size_t size)
{
   return malloc(size);
}

void *kiln_calloc(size_t count, size_t size)
{
   return calloc(count, size);
}

void *kiln_realloc(void *ptr, size_t size)
{
   return realloc(ptr, size ? size : 1);
}

char *kiln_strdup(const char *s)
{
   return strdup(s);
}

char *kiln_strndup(const char *s, size_t n)
{
   return strndup(s, n);
}

void *kiln_aligned_alloc(size_t alignment, size_t size)
{
   void *p = NULL;
   if (alignment < sizeof(void *))
      alignment = sizeof(void *);
   if (posix_memalign(&p, alignment, size ? size : 1))
      return NULL;
   return p;
}

void kiln_free(void *ptr)
{
   free(ptr);
}
