#include "core/image_format.h"

static const cl_channel_order orders[] = {
   CL_R, CL_A, CL_RG, CL_RA, CL_RGB, CL_RGBA, CL_BGRA, CL_ARGB, CL_INTENSITY, CL_LUMINANCE,
};

static const cl_channel_type types[] = {
   CL_SNORM_INT8,       CL_SNORM_INT16,     CL_UNORM_INT8,     CL_UNORM_INT16,
   CL_UNORM_SHORT_565,  CL_UNORM_SHORT_555, CL_UNORM_INT_101010, CL_SIGNED_INT8,
   CL_SIGNED_INT16,     CL_SIGNED_INT32,    CL_UNSIGNED_INT8,  CL_UNSIGNED_INT16,
   CL_UNSIGNED_INT32,   CL_HALF_FLOAT,      CL_FLOAT,
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static bool is_packed(cl_channel_type t)
{
   return t == CL_UNORM_SHORT_565 || t == CL_UNORM_SHORT_555 || t == CL_UNORM_INT_101010;
}

static unsigned channels(cl_channel_order o)
{
   switch (o) {
   case CL_RG:
   case CL_RA:
      return 2;
   case CL_RGB:
      return 3;
   case CL_RGBA:
   case CL_BGRA:
   case CL_ARGB:
      return 4;
   default:
      return 1;
   }
}

static size_t type_size(cl_channel_type t)
{
   switch (t) {
   case CL_SNORM_INT8:
   case CL_UNORM_INT8:
   case CL_SIGNED_INT8:
   case CL_UNSIGNED_INT8:
      return 1;
   case CL_SIGNED_INT32:
   case CL_UNSIGNED_INT32:
   case CL_FLOAT:
      return 4;
   default:
      return 2;
   }
}

bool kiln_image_format_valid(const cl_image_format *fmt)
{
   if (!fmt)
      return false;
   bool order_known = false, type_known = false;
   for (size_t i = 0; i < COUNT(orders); i++)
      order_known |= orders[i] == fmt->image_channel_order;
   for (size_t i = 0; i < COUNT(types); i++)
      type_known |= types[i] == fmt->image_channel_data_type;
   if (!order_known || !type_known)
      return false;
   cl_channel_order o = fmt->image_channel_order;
   cl_channel_type t = fmt->image_channel_data_type;
   /* The packed types hold exactly RGB, and RGB exists only packed. */
   if ((o == CL_RGB) != is_packed(t))
      return false;
   switch (o) {
   case CL_INTENSITY:
   case CL_LUMINANCE:
      return t == CL_UNORM_INT8 || t == CL_UNORM_INT16 || t == CL_SNORM_INT8 ||
             t == CL_SNORM_INT16 || t == CL_HALF_FLOAT || t == CL_FLOAT;
   case CL_BGRA:
   case CL_ARGB:
      return t == CL_UNORM_INT8 || t == CL_SNORM_INT8 || t == CL_SIGNED_INT8 ||
             t == CL_UNSIGNED_INT8;
   default:
      return true;
   }
}

size_t kiln_image_format_size(const cl_image_format *fmt)
{
   cl_channel_type t = fmt->image_channel_data_type;
   if (t == CL_UNORM_SHORT_565 || t == CL_UNORM_SHORT_555)
      return 2;
   if (t == CL_UNORM_INT_101010)
      return 4;
   return channels(fmt->image_channel_order) * type_size(t);
}

bool kiln_image_format_supported(const cl_image_format *fmt)
{
   return kiln_image_format_valid(fmt);
}

cl_uint kiln_image_formats_list(cl_image_format *out, cl_uint max)
{
   cl_uint n = 0;
   for (size_t i = 0; i < COUNT(orders); i++)
      for (size_t j = 0; j < COUNT(types); j++) {
         cl_image_format f = {orders[i], types[j]};
         if (!kiln_image_format_supported(&f))
            continue;
         if (out && n < max)
            out[n] = f;
         n++;
      }
   return n;
}
