#include "core/image_geom.h"

#include "core/context.h"
#include "core/device.h"

bool kiln_context_has_images(cl_context ctx)
{
   for (cl_uint i = 0; i < ctx->num_devices; i++)
      if (ctx->devices[i]->caps->image_support)
         return true;
   return false;
}

bool kiln_context_has_read_write_images(cl_context ctx)
{
   for (cl_uint i = 0; i < ctx->num_devices; i++) {
      const struct pipe_caps *c = ctx->devices[i]->caps;
      if (c->image_support && c->max_read_write_image_args)
         return true;
   }
   return false;
}

void kiln_context_image_max(cl_context ctx, cl_mem_object_type type, size_t max[3])
{
   max[0] = max[1] = max[2] = 0;
   for (cl_uint i = 0; i < ctx->num_devices; i++) {
      const struct pipe_caps *c = ctx->devices[i]->caps;
      if (!c->image_support)
         continue;
      size_t m[3];
      switch (type) {
      case CL_MEM_OBJECT_IMAGE3D:
         m[0] = c->image3d_max_width, m[1] = c->image3d_max_height, m[2] = c->image3d_max_depth;
         break;
      case CL_MEM_OBJECT_IMAGE1D_BUFFER:
         m[0] = c->image_max_buffer_size, m[1] = m[2] = 1;
         break;
      case CL_MEM_OBJECT_IMAGE1D_ARRAY:
         m[0] = c->image2d_max_width, m[1] = c->image_max_array_size, m[2] = 1;
         break;
      case CL_MEM_OBJECT_IMAGE2D_ARRAY:
         m[0] = c->image2d_max_width, m[1] = c->image2d_max_height,
         m[2] = c->image_max_array_size;
         break;
      default: /* 1D, 2D */
         m[0] = c->image2d_max_width, m[1] = c->image2d_max_height, m[2] = 1;
         break;
      }
      for (int d = 0; d < 3; d++)
         if (m[d] > max[d])
            max[d] = m[d];
   }
}

void kiln_image_geom_init(struct kiln_image_geom *g, cl_mem_object_type type,
                          const size_t extent[3], size_t elem, size_t row_pitch,
                          size_t slice_pitch)
{
   *g = (struct kiln_image_geom){
      .type = type, .width = extent[0], .height = extent[1], .depth = extent[2]};
   bool array1d = type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
   bool layered = array1d || kiln_image_type_has_slices(type);
   size_t rp = row_pitch ? row_pitch : g->width * elem;
   size_t rows = array1d ? 1 : g->height;
   size_t sp = slice_pitch && layered ? slice_pitch : rp * rows;
   /* What clGetImageInfo reports: a 1D array's layer pitch is its slice
    * pitch; images without layers have none. */
   g->info_row_pitch = rp;
   g->info_slice_pitch = layered ? sp : 0;
   g->row_pitch = array1d ? sp : rp;
   g->slice_pitch = kiln_image_type_has_slices(type) ? sp : 0;
   if (array1d)
      g->array_size = g->height;
   else if (type == CL_MEM_OBJECT_IMAGE2D_ARRAY)
      g->array_size = g->depth;
}
