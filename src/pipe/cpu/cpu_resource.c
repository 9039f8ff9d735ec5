/* Buffers of the CPU driver: host memory from the sw winsys, or the
 * application's own memory for CL_MEM_USE_HOST_PTR. */
#include <stdlib.h>

#include "pipe/cpu/cpu_screen.h"
#include "winsys/sw/sw_winsys.h"
#include "util/alloc.h"

struct cpu_resource {
   struct pipe_resource base;
   void *data;
   size_t capacity, alignment; /* of data, for sw_winsys_buffer_free */
};

static inline struct cpu_resource *cpu_resource(struct pipe_resource *res)
{
   return (struct cpu_resource *)res;
}

void *cpu_resource_data(struct pipe_resource *res)
{
   return cpu_resource(res)->data;
}

static struct pipe_resource *cpu_resource_create(struct pipe_screen *screen, size_t size)
{
   struct cpu_resource *r = kiln_calloc(1, sizeof(*r));
   if (!r)
      return NULL;
   /* Aligned for the widest OpenCL type (long16), which is also what
    * CL_DEVICE_MEM_BASE_ADDR_ALIGN promises. */
   r->alignment = screen->caps.mem_base_addr_align / 8;
   r->data = sw_winsys_buffer_alloc(size, r->alignment, &r->capacity);
   if (!r->data) {
      kiln_free(r);
      return NULL;
   }
   r->base.screen = screen;
   r->base.size = size;
   return &r->base;
}

static struct pipe_resource *cpu_resource_from_user_memory(struct pipe_screen *screen, void *ptr,
                                                           size_t size)
{
   struct cpu_resource *r = kiln_calloc(1, sizeof(*r));
   if (!r)
      return NULL;
   r->data = ptr;
   r->base.screen = screen;
   r->base.size = size;
   r->base.user_memory = true;
   return &r->base;
}

static void cpu_resource_destroy(struct pipe_screen *screen, struct pipe_resource *res)
{
   (void)screen;
   if (!res->user_memory)
      sw_winsys_buffer_free(cpu_resource(res)->data, cpu_resource(res)->capacity,
                            cpu_resource(res)->alignment);
   kiln_free(res);
}

static void *cpu_resource_host_pointer(struct pipe_screen *screen, struct pipe_resource *res)
{
   (void)screen;
   return cpu_resource(res)->data;
}

void cpu_screen_init_resource_functions(struct pipe_screen *screen)
{
   screen->resource_create = cpu_resource_create;
   screen->resource_from_user_memory = cpu_resource_from_user_memory;
   screen->resource_destroy = cpu_resource_destroy;
   screen->resource_host_pointer = cpu_resource_host_pointer;
}
