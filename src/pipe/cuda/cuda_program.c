/* Programs as CUDA modules (PTX that the driver's JIT turns into code for
 * this GPU), kernels as CUDA functions, and launches that lay out the
 * kernel parameters as cuda_abi.h says. */
#include <stdio.h>
#include <string.h>

#include "kiln/kernel_info.h"
#include "pipe/cuda/cuda_abi.h"
#include "pipe/cuda/cuda_priv.h"
#include "util/alloc.h"
#include "util/log.h"

static char *message(const char *fmt, const char *what)
{
   size_t size = strlen(fmt) + strlen(what) + 1;
   char *m = kiln_malloc(size);
   if (m)
      snprintf(m, size, fmt, what);
   return m;
}

static void *program_create(struct pipe_screen *screen, const void *code, size_t size,
                            char **error)
{
   struct cuda_screen *s = cuda_screen(screen);
   *error = NULL;
   /* PTX is text that CUDA reads up to its NUL; the compiler's output
    * need not carry one. */
   char *image = kiln_malloc(size + 1);
   struct cuda_program *p = image ? kiln_calloc(1, sizeof(*p)) : NULL;
   if (!p) {
      kiln_free(image);
      return NULL;
   }
   memcpy(image, code, size);
   image[size] = '\0';
   char *log = NULL;
   cl_int err = cuda_ws_module_load(s->ws, image, &p->module, &log);
   kiln_free(image);
   if (err) {
      kiln_free(p);
      /* NULL only for lack of host memory, as the interface says. */
      *error = log ? log : err == CL_OUT_OF_HOST_MEMORY ? NULL : message("%s", "cuModuleLoadDataEx failed");
      return NULL;
   }
   err = cuda_printf_program_init(s, p);
   if (err) {
      cuda_ws_module_unload(s->ws, p->module);
      kiln_free(p);
      *error = err == CL_OUT_OF_HOST_MEMORY ? NULL
                                            : message("%s", "reading the printf table failed");
      return NULL;
   }
   pthread_mutex_init(&p->lock, NULL);
   return p;
}

static void program_destroy(struct pipe_screen *screen, void *program)
{
   struct cuda_screen *s = cuda_screen(screen);
   struct cuda_program *p = program;
   if (!p)
      return;
   for (struct cuda_kernel *k = p->kernels, *next; k; k = next) {
      next = k->next;
      kiln_free(k);
   }
   cuda_printf_program_fini(p);
   cuda_ws_module_unload(s->ws, p->module);
   pthread_mutex_destroy(&p->lock);
   kiln_free(p);
}

static void *get_kernel(struct pipe_screen *screen, void *program, const char *name,
                        char **error)
{
   struct cuda_screen *s = cuda_screen(screen);
   struct cuda_program *p = program;
   *error = NULL;
   struct cuda_kernel *k = kiln_calloc(1, sizeof(*k));
   if (!k)
      return NULL;
   cl_int err = cuda_ws_function(s->ws, p->module, name, &k->function);
   if (err) {
      kiln_free(k);
      *error = err == CL_OUT_OF_HOST_MEMORY ? NULL
               : err == CL_INVALID_KERNEL_NAME
                  ? message("no kernel %s in the CUDA module", name)
                  : message("cuModuleGetFunction failed for %s", name);
      return NULL;
   }
   k->static_shared =
      cuda_ws_function_attribute(s->ws, k->function, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, 0);
   k->max_threads = cuda_ws_function_attribute(s->ws, k->function,
                                               CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                                               (int)s->base.caps.max_work_group_size);
   k->local_bytes =
      cuda_ws_function_attribute(s->ws, k->function, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, 0);
   int dynamic = (int)s->shared_default - k->static_shared;
   atomic_init(&k->dynamic_optin, dynamic > 0 ? dynamic : 0);
   k->program = p;
   pthread_mutex_lock(&p->lock);
   k->next = p->kernels;
   p->kernels = k;
   pthread_mutex_unlock(&p->lock);
   return k;
}

/* What CUDA said of the compiled kernel when it was loaded: its thread
 * limit (registers decide it), local (private) and static shared memory.
 * They never change for a loaded function; core asks at every enqueue
 * (the work-group checks), where three cuFuncGetAttribute calls each
 * would add to every launch. */
static void get_kernel_info(struct pipe_screen *screen, void *kernel,
                            const struct kiln_kernel_info *meta, struct pipe_kernel_info *out)
{
   struct cuda_screen *s = cuda_screen(screen);
   struct cuda_kernel *k = kernel;
   (void)meta;
   out->max_work_group_size = k->max_threads > 0 ? (size_t)k->max_threads : 1;
   if (out->max_work_group_size > s->base.caps.max_work_group_size)
      out->max_work_group_size = s->base.caps.max_work_group_size;
   out->preferred_work_group_size_multiple = s->warp_size;
   out->private_mem_size = k->local_bytes > 0 ? (uint64_t)k->local_bytes : 0;
   out->static_local_mem_size = k->static_shared > 0 ? (uint64_t)k->static_shared : 0;
}

void cuda_program_init_screen(struct cuda_screen *s)
{
   s->base.program_create = program_create;
   s->base.program_destroy = program_destroy;
   s->base.get_kernel = get_kernel;
   s->base.get_kernel_info = get_kernel_info;
}

/* ---- launches ---- */

/* Writes what the kernel receives for each binding into args (the
 * driver's copy of the argument buffer); *dynamic_shared gets the
 * __local arguments' total, written[i] the image mirror binding i writes
 * (cuda_image_bind), NULL for the others. */
static int write_bindings(struct cuda_context *c, const struct pipe_grid_info *info,
                          unsigned char *args, size_t *dynamic_shared, void **written)
{
   const struct kiln_kernel_info *meta = info->info;
   size_t shared = 0;
   for (uint32_t i = 0; i < info->num_bindings; i++) {
      const struct pipe_binding *b = &info->bindings[i];
      written[i] = NULL;
      if (b->arg >= meta->num_args)
         return CL_OUT_OF_RESOURCES;
      const struct kiln_arg_info *a = &meta->args[b->arg];
      size_t need = b->kind == PIPE_BIND_GLOBAL || b->kind == PIPE_BIND_IMAGE ? sizeof(uint64_t)
                                                                           : sizeof(uint32_t);
      if (a->size < need || (size_t)a->offset + need > info->args_size)
         return CL_OUT_OF_RESOURCES;
      switch (b->kind) {
      case PIPE_BIND_GLOBAL: {
         uint64_t address = b->res ? cuda_resource(b->res)->ptr + b->offset : 0;
         memcpy(args + a->offset, &address, sizeof(address));
         break;
      }
      case PIPE_BIND_LOCAL: {
         shared = (shared + CUDA_ABI_LOCAL_ALIGN - 1) & ~(size_t)(CUDA_ABI_LOCAL_ALIGN - 1);
         if (shared > UINT32_MAX)
            return CL_OUT_OF_RESOURCES;
         uint32_t offset = (uint32_t)shared;
         memcpy(args + a->offset, &offset, sizeof(offset));
         shared += b->local_size;
         break;
      }
      case PIPE_BIND_SAMPLER:
         memcpy(args + a->offset, &b->sampler_bits, sizeof(uint32_t));
         break;
      case PIPE_BIND_IMAGE: {
         uint64_t address;
         bool write = a->access_qualifier == CL_KERNEL_ARG_ACCESS_WRITE_ONLY ||
                      a->access_qualifier == CL_KERNEL_ARG_ACCESS_READ_WRITE;
         cl_int err = cuda_image_bind(c, b->res, b->offset, b->image, write, &address,
                                      &written[i]);
         if (err)
            return err;
         memcpy(args + a->offset, &address, sizeof(address));
         break;
      }
      default:
         return CL_OUT_OF_RESOURCES;
      }
   }
   *dynamic_shared = shared;
   return CL_SUCCESS;
}

/* The grid in blocks, within the device's limits. */
static bool grid_of(const struct cuda_screen *s, const struct pipe_grid_info *info,
                    unsigned grid[3], unsigned block[3])
{
   for (unsigned d = 0; d < 3; d++) {
      uint64_t local = d < info->work_dim ? info->local_size[d] : 1;
      uint64_t global = d < info->work_dim ? info->global_size[d] : 1;
      if (!local || local > UINT32_MAX || global % local)
         return false;
      uint64_t groups = global / local;
      if (groups > s->max_grid[d])
         return false;
      grid[d] = (unsigned)groups;
      block[d] = (unsigned)local;
   }
   return true;
}

#define STACK_ARGS 1024
#define STACK_PARAMS 64

int cuda_launch_grid(struct pipe_context *ctx, const struct pipe_grid_info *info)
{
   struct cuda_context *c = cuda_context(ctx);
   struct cuda_screen *s = c->screen;
   struct cuda_kernel *k = info->kernel;
   const struct kiln_kernel_info *meta = info->info;
   /* KILN_CHECK=bounds instruments CPU code only: the table stays empty. */
   unsigned grid[3], block[3];
   if (!grid_of(s, info, grid, block)) {
      kiln_log(KILN_LOG_PIPE, "cuda: NDRange %llux%llux%llu / %llux%llux%llu exceeds the grid",
               (unsigned long long)info->global_size[0], (unsigned long long)info->global_size[1],
               (unsigned long long)info->global_size[2], (unsigned long long)info->local_size[0],
               (unsigned long long)info->local_size[1], (unsigned long long)info->local_size[2]);
      return CL_OUT_OF_RESOURCES;
   }
   if (!grid[0] || !grid[1] || !grid[2])
      return CL_SUCCESS; /* an empty NDRange runs nothing */

   unsigned char stack_args[STACK_ARGS];
   void *stack_params[STACK_PARAMS + CUDA_ABI_NUM_HIDDEN + 1];
   void *stack_written[STACK_PARAMS];
   bool prints = k->program && k->program->printf_table;
   size_t num_params = (size_t)meta->num_args + CUDA_ABI_NUM_HIDDEN + prints;
   bool heap = info->args_size > STACK_ARGS || meta->num_args > STACK_PARAMS;
   unsigned char *args = heap ? kiln_malloc(info->args_size ? info->args_size : 1) : stack_args;
   void **params = heap ? kiln_malloc(num_params * sizeof(void *)) : stack_params;
   /* Bindings are arguments: no more of them than arguments. */
   void **written = heap ? kiln_calloc(meta->num_args + 1, sizeof(void *)) : stack_written;
   int err = CL_OUT_OF_HOST_MEMORY;
   if (!args || !params || !written)
      goto out;
   if (info->num_bindings > meta->num_args) {
      err = CL_OUT_OF_RESOURCES;
      goto out;
   }
   if (info->args_size)
      memcpy(args, info->args, info->args_size);
   size_t dynamic = 0;
   err = write_bindings(c, info, args, &dynamic, written);
   if (err)
      goto out;
   for (uint32_t i = 0; i < meta->num_args; i++) {
      if ((size_t)meta->args[i].offset + meta->args[i].size > info->args_size) {
         err = CL_OUT_OF_RESOURCES;
         goto out;
      }
      params[i] = args + meta->args[i].offset;
   }
   struct cuda_abi_hidden hidden;
   memset(&hidden, 0, sizeof(hidden));
   for (unsigned d = 0; d < 3 && d < info->work_dim; d++)
      hidden.global_offset[d] = info->global_offset[d];
   hidden.work_dim = info->work_dim;
   params[meta->num_args + 0] = &hidden.global_offset[0];
   params[meta->num_args + 1] = &hidden.global_offset[1];
   params[meta->num_args + 2] = &hidden.global_offset[2];
   params[meta->num_args + 3] = &hidden.work_dim;
   if (prints)
      params[meta->num_args + CUDA_ABI_HIDDEN_PRINTF_BUFFER] = &hidden.printf_buffer;

   /* __local arguments are dynamic shared memory, on top of the kernel's
    * static shared memory; beyond the default 48 KiB the kernel must opt
    * in to more. */
   if (dynamic + (size_t)k->static_shared > s->shared_optin) {
      kiln_log(KILN_LOG_PIPE, "cuda: %zu bytes of __local arguments + %d static exceed %u",
               dynamic, k->static_shared, s->shared_optin);
      err = CL_OUT_OF_RESOURCES;
      goto out;
   }
   if ((int)dynamic > atomic_load(&k->dynamic_optin)) {
      /* Once, to the most the kernel can have: a limit that only grows,
       * so launches from other threads never see it lowered. */
      int most = (int)s->shared_optin - k->static_shared;
      err = cuda_ws_function_set_attribute(s->ws, k->function,
                                           CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, most);
      if (err)
         goto out;
      atomic_store(&k->dynamic_optin, most);
   }
   cuda_context_begin_work(c);
   struct cuda_printf_job *job = NULL;
   if (prints) {
      err = cuda_printf_job_create(c, k->program, &job, &hidden.printf_buffer);
      if (err)
         goto out;
   }
   err = cuda_ws_launch(s->ws, c->stream, k->function, grid, block, (unsigned)dynamic, params);
   if (job)
      cuda_printf_job_push(c, job, !err);
   if (!err) {
      /* What the kernel may have written: buffers (whose image mirrors,
       * if an image shares one, are then stale) and images written
       * through their arrays, which go back to linear memory. */
      for (uint32_t i = 0; i < info->num_bindings; i++) {
         const struct pipe_binding *b = &info->bindings[i];
         if (b->kind == PIPE_BIND_GLOBAL && b->res)
            cuda_resource_written(b->res);
         if (written[i])
            cuda_context_error(c, cuda_image_written(c, b->res, written[i]));
         else if (b->kind == PIPE_BIND_IMAGE && b->res &&
                  meta->args[b->arg].access_qualifier != CL_KERNEL_ARG_ACCESS_READ_ONLY)
            cuda_resource_written(b->res); /* written in place, linear */
      }
   }
out:
   if (heap) {
      kiln_free(args);
      kiln_free(params);
      kiln_free(written);
   }
   return err;
}
