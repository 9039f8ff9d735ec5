/* Image arguments.  What a kernel receives for an image is the device
 * address of its struct kiln_image_hw (include/kiln/image.h): the linear
 * descriptor that Kiln's image functions read (src/llvm/builtins/image.cl,
 * compiled for nvptx64), and, for the formats and types the texture units
 * handle exactly, the handles of a CUDA array that mirrors the linear
 * texels: texture objects for read_image* with a sampler, a surface
 * object for write_image*.  A resource keeps one descriptor per view that
 * launches used, written once (and again when handles are added) and
 * freed with it: since core destroys a resource only after every command
 * using it finished, nothing goes while a kernel may use it.
 *
 * Why a mirror and not the image's only storage: core treats an image as
 * linear bytes everywhere (rect copies, maps, fills, migration between
 * devices, images over buffers), and so does the software path, which
 * stays the fallback for every read the texture units cannot do exactly.
 * So the linear memory stays the truth between launches, and the array is
 * brought up to date on the launching stream when the resource changed
 * since (every recorded write bumps the resource's generation,
 * cuda_resource_written); a launch that writes the image through its
 * surface copies the array back to the linear memory behind it.  Copies
 * are device to device (cuMemcpy3DAsync), which costs a read-only image
 * nothing after its first launch. */
#include <stdlib.h>
#include <string.h>

#include "pipe/cuda/cuda_priv.h"
#include "pipe/pipe_image.h"
#include "util/alloc.h"
#include "util/log.h"

struct cuda_image_desc {
   /* The key: the linear descriptor and the image type. */
   struct kiln_image_desc desc;
   cl_mem_object_type type;
   /* What the device holds at address. */
   struct kiln_image_hw hw;
   CUdeviceptr address;
   bool uploaded; /* address holds hw */

   /* The CUDA array mirror: tried once; array NULL keeps the linear path. */
   bool tried;
   CUarray array;
   int array_format;
   unsigned channels;
   size_t layers_as_depth; /* the array's copy depth */
   bool layered_1d;
   bool integer;           /* READ_AS_INTEGER */
   bool texturing;         /* hw.tex filled */
   CUtexObject objs[KILN_IMAGE_HW_SAMPLERS]; /* the distinct objects in hw.tex */
   unsigned num_objs;
   /* The resource generation the array holds, and the event behind the
    * copy that brought it there (other streams wait for it). */
   uint64_t gen;
   CUevent ready;
   CUstream ready_stream;
   struct cuda_image_desc *next;
};

int cuda_images_mode_from_env(void)
{
   /* Linear by default: on an H200 the texture path still fails Kiln's
    * own image tests (linear filtering's 8-bit weights, and wrong texels
    * for normalized coordinates with CLK_ADDRESS_NONE; docs/cuda.md). */
   const char *e = getenv("KILN_CUDA_IMAGES");
   if (!e || !*e || !strcmp(e, "linear"))
      return CUDA_IMAGES_LINEAR;
   if (!strcmp(e, "texture"))
      return CUDA_IMAGES_TEXTURE;
   if (!strcmp(e, "nofilter"))
      return CUDA_IMAGES_NO_FILTER;
   kiln_log(KILN_LOG_WARN, "cuda: KILN_CUDA_IMAGES=%s is not texture, nofilter or linear: "
                           "linear",
            e);
   return CUDA_IMAGES_LINEAR;
}

/* The CUDA array format of an OpenCL channel type, and whether texture
 * reads return it as integers; 0 for types that stay linear. */
static int array_format(cl_channel_type t, bool *integer)
{
   *integer = false;
   switch (t) {
   case CL_UNORM_INT8:
      return CU_AD_FORMAT_UNSIGNED_INT8;
   case CL_SNORM_INT8:
      return CU_AD_FORMAT_SIGNED_INT8;
   case CL_UNORM_INT16:
      return CU_AD_FORMAT_UNSIGNED_INT16;
   case CL_SNORM_INT16:
      return CU_AD_FORMAT_SIGNED_INT16;
   case CL_HALF_FLOAT:
      return CU_AD_FORMAT_HALF;
   case CL_FLOAT:
      return CU_AD_FORMAT_FLOAT;
   default:
      break;
   }
   *integer = true;
   switch (t) {
   case CL_UNSIGNED_INT8:
      return CU_AD_FORMAT_UNSIGNED_INT8;
   case CL_UNSIGNED_INT16:
      return CU_AD_FORMAT_UNSIGNED_INT16;
   case CL_UNSIGNED_INT32:
      return CU_AD_FORMAT_UNSIGNED_INT32;
   case CL_SIGNED_INT8:
      return CU_AD_FORMAT_SIGNED_INT8;
   case CL_SIGNED_INT16:
      return CU_AD_FORMAT_SIGNED_INT16;
   case CL_SIGNED_INT32:
      return CU_AD_FORMAT_SIGNED_INT32;
   default:
      return 0;
   }
}

static unsigned order_channels(cl_channel_order o)
{
   switch (o) {
   case CL_R:
      return 1;
   case CL_RG:
      return 2;
   case CL_RGBA:
      return 4;
   default:
      return 0; /* A, INTENSITY, LUMINANCE, RA, RGB, BGRA, ARGB...: linear */
   }
}

/* The CUDA array for d, or why there is none (the log says it). */
static const char *array_geometry(struct cuda_screen *s, struct cuda_image_desc *d,
                                  CUDA_ARRAY3D_DESCRIPTOR *a)
{
   const struct kiln_image_desc *k = &d->desc;
   bool integer;
   int format = array_format((cl_channel_type)k->channel_type, &integer);
   unsigned channels = order_channels((cl_channel_order)k->channel_order);
   if (!format)
      return "channel type";
   if (!channels)
      return "channel order";
   if (k->row_pitch > s->max_pitch)
      return "row pitch";
   memset(a, 0, sizeof(*a));
   a->Format = format;
   a->NumChannels = channels;
   a->Flags = CUDA_ARRAY3D_SURFACE_LDST;
   a->Width = (size_t)k->width;
   switch (d->type) {
   case CL_MEM_OBJECT_IMAGE1D:
      d->layers_as_depth = 1;
      break;
   case CL_MEM_OBJECT_IMAGE1D_ARRAY:
      /* Core keeps a layer per row; CUDA's layered 1D array has no
       * height. */
      a->Depth = (size_t)k->height;
      a->Flags |= CUDA_ARRAY3D_LAYERED;
      d->layered_1d = true;
      d->layers_as_depth = (size_t)k->height;
      break;
   case CL_MEM_OBJECT_IMAGE2D:
      a->Height = (size_t)k->height;
      d->layers_as_depth = 1;
      break;
   case CL_MEM_OBJECT_IMAGE2D_ARRAY:
   case CL_MEM_OBJECT_IMAGE3D:
      a->Height = (size_t)k->height;
      a->Depth = (size_t)k->depth;
      if (d->type == CL_MEM_OBJECT_IMAGE2D_ARRAY)
         a->Flags |= CUDA_ARRAY3D_LAYERED;
      d->layers_as_depth = (size_t)k->depth;
      if (!k->row_pitch || k->slice_pitch % k->row_pitch ||
          k->slice_pitch / k->row_pitch < (size_t)k->height)
         return "slice pitch";
      break;
   default:
      return "image type"; /* 1D image buffers share a buffer's memory */
   }
   d->array_format = format;
   d->channels = channels;
   d->integer = integer;
   return NULL;
}

/* The linear texels of d (at dev) to its array, or back. */
static CUDA_MEMCPY3D array_copy(const struct cuda_image_desc *d, CUdeviceptr dev, bool to_array)
{
   const struct kiln_image_desc *k = &d->desc;
   CUDA_MEMCPY3D m;
   memset(&m, 0, sizeof(m));
   size_t pitch = k->row_pitch;
   /* Rows per slice on the linear side: a layer of a 1D array is one. */
   size_t height = d->layered_1d ? 1 : d->layers_as_depth > 1 ? k->slice_pitch / pitch
                                                             : (size_t)k->height;
   m.WidthInBytes = (size_t)k->width * (size_t)k->elem_size;
   m.Height = d->layered_1d ? 1 : (size_t)k->height;
   m.Depth = d->layers_as_depth;
   if (to_array) {
      m.srcMemoryType = CU_MEMORYTYPE_DEVICE;
      m.srcDevice = dev;
      m.srcPitch = pitch;
      m.srcHeight = height;
      m.dstMemoryType = CU_MEMORYTYPE_ARRAY;
      m.dstArray = d->array;
   } else {
      m.srcMemoryType = CU_MEMORYTYPE_ARRAY;
      m.srcArray = d->array;
      m.dstMemoryType = CU_MEMORYTYPE_DEVICE;
      m.dstDevice = dev;
      m.dstPitch = pitch;
      m.dstHeight = height;
   }
   return m;
}

static const char *type_name(cl_mem_object_type t)
{
   switch (t) {
   case CL_MEM_OBJECT_IMAGE1D:
      return "1D";
   case CL_MEM_OBJECT_IMAGE1D_ARRAY:
      return "1D array";
   case CL_MEM_OBJECT_IMAGE2D:
      return "2D";
   case CL_MEM_OBJECT_IMAGE2D_ARRAY:
      return "2D array";
   case CL_MEM_OBJECT_IMAGE3D:
      return "3D";
   default:
      return "1D buffer";
   }
}

/* First use of a view: its CUDA array, or the reason it stays linear. */
static void try_array(struct cuda_screen *s, struct cuda_resource *r, struct cuda_image_desc *d)
{
   d->tried = true;
   const struct kiln_image_desc *k = &d->desc;
   const char *why = NULL;
   CUDA_ARRAY3D_DESCRIPTOR a;
   if (s->images_mode == CUDA_IMAGES_LINEAR)
      why = "KILN_CUDA_IMAGES=linear";
   else if (!cuda_ws_has_images(s->ws))
      why = "libcuda has no texture objects";
   else if (r->host)
      why = "host memory"; /* the host writes it without the pipe */
   else
      why = array_geometry(s, d, &a);
   if (!why) {
      cl_int err = cuda_ws_array_create(s->ws, &a, &d->array);
      if (err) {
         /* Out of memory included: the linear texels exist already, and
          * the software path reads and writes them. */
         d->array = NULL;
         why = err == CL_MEM_OBJECT_ALLOCATION_FAILURE ? "cuArray3DCreate: out of memory"
                                                       : "cuArray3DCreate refused it";
      }
   }
   kiln_log(KILN_LOG_PIPE, "cuda: image %s %dx%dx%d order 0x%x type 0x%x: %s%s", type_name(d->type),
            k->width, k->height, k->depth, k->channel_order, k->channel_type,
            why ? "linear path: " : "texture path (CUDA array)", why ? why : "");
}

/* The texture object settings of a sampler with index i
 * (KILN_SAMPLER_INDEX); false for a combination that stays software. */
static bool texture_desc(const struct cuda_screen *s, const struct cuda_image_desc *d, unsigned i,
                         CUDA_TEXTURE_DESC *t)
{
   bool linear = i >= 10, norm = i % 10 & 1;
   unsigned mode = i % 10 & KILN_SAMPLER_ADDRESS_MASK;
   if (linear && s->images_mode == CUDA_IMAGES_NO_FILTER)
      return false;
   memset(t, 0, sizeof(*t));
   int am;
   switch (mode) {
   case KILN_SAMPLER_ADDRESS_CLAMP:
      /* Border colour 0: the alpha of an order without alpha is 1, which
       * the image functions put in (as for every channel the order
       * lacks). */
      am = CU_TR_ADDRESS_MODE_BORDER;
      break;
   case KILN_SAMPLER_ADDRESS_REPEAT:
      am = norm ? CU_TR_ADDRESS_MODE_WRAP : CU_TR_ADDRESS_MODE_CLAMP;
      break;
   case KILN_SAMPLER_ADDRESS_MIRRORED_REPEAT:
      am = norm ? CU_TR_ADDRESS_MODE_MIRROR : CU_TR_ADDRESS_MODE_CLAMP;
      break;
   default:
      /* CLAMP_TO_EDGE; NONE, whose reads outside are undefined. */
      am = CU_TR_ADDRESS_MODE_CLAMP;
      break;
   }
   t->addressMode[0] = t->addressMode[1] = t->addressMode[2] = am;
   /* Integer reads never filter (LINEAR is undefined for them). */
   t->filterMode = linear && !d->integer ? CU_TR_FILTER_MODE_LINEAR : CU_TR_FILTER_MODE_POINT;
   t->flags = (norm ? CU_TRSF_NORMALIZED_COORDINATES : 0) |
              (d->integer ? CU_TRSF_READ_AS_INTEGER : 0);
   return true;
}

static void destroy_objects(struct cuda_screen *s, struct cuda_image_desc *d)
{
   for (unsigned i = 0; i < d->num_objs; i++)
      cuda_ws_tex_destroy(s->ws, d->objs[i]);
   d->num_objs = 0;
   memset(d->hw.tex, 0, sizeof(d->hw.tex));
   if (d->hw.surface)
      cuda_ws_surf_destroy(s->ws, d->hw.surface);
   d->hw.surface = 0;
}

/* Texture objects for every sampler (program-scope samplers included,
 * which the driver never sees): one per distinct CUDA setting, a dozen
 * at most.  On failure none is left (no kernel has seen them yet). */
static cl_int make_textures(struct cuda_screen *s, struct cuda_image_desc *d)
{
   CUDA_TEXTURE_DESC made[KILN_IMAGE_HW_SAMPLERS];
   for (unsigned i = 0; i < KILN_IMAGE_HW_SAMPLERS; i++) {
      CUDA_TEXTURE_DESC t;
      if (!texture_desc(s, d, i, &t))
         continue;
      unsigned j = 0;
      while (j < d->num_objs && memcmp(&made[j], &t, sizeof(t)))
         j++;
      if (j == d->num_objs) {
         cl_int err = cuda_ws_tex_create(s->ws, d->array, &t, &d->objs[j]);
         if (err) {
            for (unsigned k = 0; k < d->num_objs; k++)
               cuda_ws_tex_destroy(s->ws, d->objs[k]);
            d->num_objs = 0;
            memset(d->hw.tex, 0, sizeof(d->hw.tex));
            return err;
         }
         made[j] = t;
         d->num_objs++;
      }
      d->hw.tex[i] = d->objs[j];
   }
   d->texturing = true;
   return CL_SUCCESS;
}

/* The array holds the resource's current texels on c's stream. */
static cl_int sync_array(struct cuda_context *c, struct cuda_resource *r,
                         struct cuda_image_desc *d, CUdeviceptr data)
{
   struct cuda_screen *s = c->screen;
   uint64_t gen = atomic_load(&r->gen);
   if (d->gen == gen) {
      /* Brought up to date on another queue's stream: after that copy. */
      if (d->ready && d->ready_stream != c->stream)
         return cuda_ws_stream_wait(s->ws, c->stream, d->ready);
      return CL_SUCCESS;
   }
   CUDA_MEMCPY3D m = array_copy(d, data, true);
   cuda_context_begin_work(c);
   cl_int err = cuda_ws_copy_3d(s->ws, c->stream, &m);
   if (err)
      return err;
   d->gen = gen;
   if (!d->ready && cuda_screen_get_event(s, false, &d->ready))
      d->ready = NULL;
   d->ready_stream = NULL;
   if (d->ready && !cuda_ws_event_record(s->ws, d->ready, c->stream))
      d->ready_stream = c->stream;
   return CL_SUCCESS;
}

static struct cuda_image_desc *find_or_add(struct cuda_screen *s, struct cuda_resource *r,
                                           const struct kiln_image_desc *want,
                                           cl_mem_object_type type, cl_int *err)
{
   for (struct cuda_image_desc *d = r->images; d; d = d->next)
      if (d->type == type && !memcmp(&d->desc, want, sizeof(*want)))
         return d;
   struct cuda_image_desc *d = kiln_calloc(1, sizeof(*d));
   *err = d ? cuda_ws_mem_alloc(s->ws, sizeof(d->hw), &d->address) : CL_OUT_OF_HOST_MEMORY;
   if (*err) {
      kiln_free(d);
      return NULL;
   }
   d->desc = *want;
   d->type = type;
   d->hw.desc = *want;
   d->next = r->images;
   r->images = d;
   return d;
}

cl_int cuda_image_bind(struct cuda_context *c, struct pipe_resource *res, size_t offset,
                       const struct pipe_image_view *view, bool write, uint64_t *address,
                       void **written)
{
   struct cuda_screen *s = c->screen;
   struct cuda_resource *r = cuda_resource(res);
   struct kiln_image_desc want = pipe_image_desc(view, r->ptr + offset);
   *written = NULL;
   pthread_mutex_lock(&r->lock);
   cl_int err = CL_SUCCESS;
   struct cuda_image_desc *d = find_or_add(s, r, &want, view->type, &err);
   if (!d)
      goto out;
   if (!d->tried)
      try_array(s, r, d);
   bool changed = !d->uploaded;
   if (d->array) {
      /* Handles are only ever added: a kernel of another queue may use
       * the ones there. */
      if (!write && !d->texturing) {
         cl_int e = make_textures(s, d);
         changed |= !e;
         if (e) /* this launch reads in software; the next tries again */
            kiln_log(KILN_LOG_PIPE, "cuda: no texture objects (error %d): linear reads", e);
      }
      if (write && !d->hw.surface) {
         CUsurfObject surf = 0;
         cl_int e = cuda_ws_surf_create(s->ws, d->array, &surf);
         d->hw.surface = e ? 0 : surf;
         changed |= !e;
         if (e)
            kiln_log(KILN_LOG_PIPE, "cuda: no surface object (error %d): linear writes", e);
      }
   }
   /* Before any launch can name it, whichever queue launches. */
   if (changed) {
      err = cuda_screen_write_now(s, d->address, &d->hw, sizeof(d->hw));
      d->uploaded = !err;
   }
   if (!err && d->array && (write ? d->hw.surface != 0 : d->num_objs != 0)) {
      err = sync_array(c, r, d, want.data);
      if (!err && write)
         *written = d;
   }
   if (!err)
      *address = d->address;
out:
   pthread_mutex_unlock(&r->lock);
   return err;
}

cl_int cuda_image_written(struct cuda_context *c, struct pipe_resource *res, void *written)
{
   struct cuda_screen *s = c->screen;
   struct cuda_resource *r = cuda_resource(res);
   struct cuda_image_desc *d = written;
   pthread_mutex_lock(&r->lock);
   /* The kernel wrote the array: its texels go back to the linear memory,
    * which every other view of the resource then lags behind. */
   CUDA_MEMCPY3D m = array_copy(d, d->desc.data, false);
   cl_int err = cuda_ws_copy_3d(s->ws, c->stream, &m);
   d->gen = atomic_fetch_add(&r->gen, 1) + 1;
   if (!err && d->ready && !cuda_ws_event_record(s->ws, d->ready, c->stream))
      d->ready_stream = c->stream;
   pthread_mutex_unlock(&r->lock);
   return err;
}

void cuda_image_free_descriptors(struct cuda_screen *s, struct cuda_resource *r)
{
   while (r->images) {
      struct cuda_image_desc *d = r->images;
      r->images = d->next;
      destroy_objects(s, d);
      if (d->array)
         cuda_ws_array_destroy(s->ws, d->array);
      if (d->ready)
         cuda_screen_put_event(s, false, d->ready);
      cuda_ws_mem_free(s->ws, d->address);
      kiln_free(d);
   }
}
