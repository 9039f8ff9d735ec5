/* Image arguments: what a kernel receives for an image is the device
 * address of its struct kiln_image_desc (include/kiln/image.h), which
 * Kiln's image functions read (src/llvm/builtins/image.cl, compiled for
 * nvptx64).  A resource keeps the descriptors of the views launches used,
 * written once and freed with it: a launch costs no copy, and since core
 * destroys a resource only after every command using it finished, no
 * descriptor goes while a kernel may read it. */
#include <string.h>

#include "pipe/cuda/cuda_priv.h"
#include "pipe/pipe_image.h"
#include "util/alloc.h"

struct cuda_image_desc {
   struct kiln_image_desc desc;
   CUdeviceptr address;
   struct cuda_image_desc *next;
};

cl_int cuda_image_descriptor(struct cuda_screen *s, struct pipe_resource *res, size_t offset,
                             const struct pipe_image_view *view, uint64_t *address)
{
   struct cuda_resource *r = cuda_resource(res);
   struct kiln_image_desc want = pipe_image_desc(view, r->ptr + offset);
   pthread_mutex_lock(&r->lock);
   for (struct cuda_image_desc *d = r->images; d; d = d->next)
      if (!memcmp(&d->desc, &want, sizeof(want))) {
         *address = d->address;
         pthread_mutex_unlock(&r->lock);
         return CL_SUCCESS;
      }
   /* First use of this view: its descriptor is on the device before any
    * launch can name it, whichever queue launches. */
   struct cuda_image_desc *d = kiln_calloc(1, sizeof(*d));
   cl_int err = d ? cuda_ws_mem_alloc(s->ws, sizeof(want), &d->address) : CL_OUT_OF_HOST_MEMORY;
   if (!err) {
      err = cuda_screen_write_now(s, d->address, &want, sizeof(want));
      if (err)
         cuda_ws_mem_free(s->ws, d->address);
   }
   if (err) {
      kiln_free(d);
      pthread_mutex_unlock(&r->lock);
      return err;
   }
   d->desc = want;
   d->next = r->images;
   r->images = d;
   *address = d->address;
   pthread_mutex_unlock(&r->lock);
   return CL_SUCCESS;
}

void cuda_image_free_descriptors(struct cuda_screen *s, struct cuda_resource *r)
{
   while (r->images) {
      struct cuda_image_desc *d = r->images;
      r->images = d->next;
      cuda_ws_mem_free(s->ws, d->address);
      kiln_free(d);
   }
}
