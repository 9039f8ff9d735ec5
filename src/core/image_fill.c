#include "core/image_fill.h"

#include <stdint.h>
#include <string.h>

#include "core/device.h"
#include "core/event.h"
#include "core/mem.h"
#include "core/mem_sync.h"
#include "core/trace.h"
#include "pipe/pipe.h"
#include "util/alloc.h"

/* Round to nearest, ties to even, without depending on the thread's
 * floating-point rounding mode (the application owns it).  |v| is at most
 * 2^16 here, far inside a long. */
static long round_even(float v)
{
   double d = v;
   long i = (long)d; /* toward zero */
   double frac = d - (double)i;
   if (frac < 0)
      frac = -frac;
   long away = d < 0 ? i - 1 : i + 1;
   if (frac > 0.5 || (frac == 0.5 && (i & 1)))
      return away;
   return i;
}

/* [0, 1] -> [0, max]; NaN and below 0 -> 0. */
static uint32_t unorm(float v, uint32_t max)
{
   if (!(v > 0.0f))
      return 0;
   if (v >= 1.0f)
      return max;
   return (uint32_t)round_even(v * (float)max);
}

/* [-1, 1] -> [-max, max]; NaN -> 0. */
static int32_t snorm(float v, int32_t max)
{
   if (v != v)
      return 0;
   if (v <= -1.0f)
      return -max;
   if (v >= 1.0f)
      return max;
   return (int32_t)round_even(v * (float)max);
}

/* IEEE half, round to nearest even (what vstore_half_rte stores). */
static uint16_t to_half(float f)
{
   uint32_t x;
   memcpy(&x, &f, sizeof(x));
   uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
   uint32_t exp = (x >> 23) & 0xff, mant = x & 0x7fffff;
   if (exp == 0xff) /* infinity, or NaN kept quiet */
      return sign | 0x7c00 | (mant ? 0x200 | (mant >> 13) : 0);
   int e = (int)exp - 127 + 15;
   if (e >= 31)
      return sign | 0x7c00;
   uint32_t h, rem, halfway;
   if (e <= 0) { /* a half subnormal, or 0 */
      if (e < -10)
         return sign;
      mant |= 0x800000;
      unsigned shift = (unsigned)(14 - e);
      h = mant >> shift;
      rem = mant & ((1u << shift) - 1);
      halfway = 1u << (shift - 1);
   } else {
      h = ((uint32_t)e << 10) | (mant >> 13);
      rem = mant & 0x1fff;
      halfway = 0x1000;
   }
   if (rem > halfway || (rem == halfway && (h & 1)))
      h++; /* a carry into the exponent is the right result (up to infinity) */
   return sign | (uint16_t)h;
}

static int32_t clamp_i(int32_t v, int32_t lo, int32_t hi)
{
   return v < lo ? lo : v > hi ? hi : v;
}

/* Which colour components (0 R, 1 G, 2 B, 3 A) an order stores, in
 * memory order; 0 for orders without per-channel storage. */
static unsigned order_channels(cl_channel_order o, unsigned idx[4])
{
   switch (o) {
   case CL_R:
   case CL_Rx:
   case CL_INTENSITY: /* the colour's first component, as write_image */
   case CL_LUMINANCE:
      idx[0] = 0;
      return 1;
   case CL_A:
      idx[0] = 3;
      return 1;
   case CL_RG:
   case CL_RGx:
      idx[0] = 0, idx[1] = 1;
      return 2;
   case CL_RA:
      idx[0] = 0, idx[1] = 3;
      return 2;
   case CL_RGBA:
      idx[0] = 0, idx[1] = 1, idx[2] = 2, idx[3] = 3;
      return 4;
   case CL_BGRA:
      idx[0] = 2, idx[1] = 1, idx[2] = 0, idx[3] = 3;
      return 4;
   case CL_ARGB:
      idx[0] = 3, idx[1] = 0, idx[2] = 1, idx[3] = 2;
      return 4;
   default:
      return 0;
   }
}

/* One channel of a non-packed type at slot i of pixel; returns its size. */
static size_t store_channel(cl_channel_type t, const void *color, unsigned comp,
                            unsigned char *pixel, unsigned i)
{
   const float *f = color;
   const int32_t *s = color;
   const uint32_t *u = color;
   switch (t) {
   case CL_UNORM_INT8:
      pixel[i] = (uint8_t)unorm(f[comp], 255);
      return 1;
   case CL_SNORM_INT8:
      ((int8_t *)pixel)[i] = (int8_t)snorm(f[comp], 127);
      return 1;
   case CL_SIGNED_INT8:
      ((int8_t *)pixel)[i] = (int8_t)clamp_i(s[comp], INT8_MIN, INT8_MAX);
      return 1;
   case CL_UNSIGNED_INT8:
      pixel[i] = (uint8_t)(u[comp] > UINT8_MAX ? UINT8_MAX : u[comp]);
      return 1;
   case CL_UNORM_INT16: {
      uint16_t v = (uint16_t)unorm(f[comp], 65535);
      memcpy(pixel + 2 * i, &v, 2);
      return 2;
   }
   case CL_SNORM_INT16: {
      int16_t v = (int16_t)snorm(f[comp], 32767);
      memcpy(pixel + 2 * i, &v, 2);
      return 2;
   }
   case CL_SIGNED_INT16: {
      int16_t v = (int16_t)clamp_i(s[comp], INT16_MIN, INT16_MAX);
      memcpy(pixel + 2 * i, &v, 2);
      return 2;
   }
   case CL_UNSIGNED_INT16: {
      uint16_t v = (uint16_t)(u[comp] > UINT16_MAX ? UINT16_MAX : u[comp]);
      memcpy(pixel + 2 * i, &v, 2);
      return 2;
   }
   case CL_HALF_FLOAT: {
      uint16_t v = to_half(f[comp]);
      memcpy(pixel + 2 * i, &v, 2);
      return 2;
   }
   case CL_SIGNED_INT32:
   case CL_UNSIGNED_INT32:
   case CL_FLOAT: /* the colour's bits as they are */
      memcpy(pixel + 4 * i, u + comp, 4);
      return 4;
   default:
      return 0;
   }
}

size_t kiln_image_fill_pixel(const cl_image_format *fmt, const void *fill_color,
                             unsigned char pixel[KILN_IMAGE_MAX_PIXEL])
{
   const float *f = fill_color;
   memset(pixel, 0, KILN_IMAGE_MAX_PIXEL);
   switch (fmt->image_channel_data_type) {
   case CL_UNORM_SHORT_565: {
      uint16_t v = (uint16_t)(unorm(f[0], 31) << 11 | unorm(f[1], 63) << 5 | unorm(f[2], 31));
      memcpy(pixel, &v, 2);
      return 2;
   }
   case CL_UNORM_SHORT_555: {
      uint16_t v = (uint16_t)(unorm(f[0], 31) << 10 | unorm(f[1], 31) << 5 | unorm(f[2], 31));
      memcpy(pixel, &v, 2);
      return 2;
   }
   case CL_UNORM_INT_101010: {
      uint32_t v = unorm(f[0], 1023) << 20 | unorm(f[1], 1023) << 10 | unorm(f[2], 1023);
      memcpy(pixel, &v, 4);
      return 4;
   }
   }
   unsigned idx[4];
   unsigned n = order_channels(fmt->image_channel_order, idx);
   size_t size = 0;
   for (unsigned i = 0; i < n; i++) {
      size_t c = store_channel(fmt->image_channel_data_type, fill_color, idx[i], pixel, i);
      if (!c)
         return 0;
      size += c;
   }
   return size;
}

unsigned char *kiln_image_fill_row(const unsigned char *pixel, size_t pixel_size, size_t count)
{
   unsigned char *row = kiln_malloc(pixel_size * count);
   if (!row)
      return NULL;
   for (size_t i = 0; i < count; i++)
      memcpy(row + i * pixel_size, pixel, pixel_size);
   return row;
}

void kiln_image_fill_run(struct pipe_context *p, struct pipe_resource *res, size_t base,
                         const struct kiln_rect *r, const size_t bytes_region[3],
                         const unsigned char *row)
{
   for (size_t z = 0; z < bytes_region[2]; z++)
      for (size_t y = 0; y < bytes_region[1]; y++)
         p->buffer_write(p, res,
                         base + r->origin[0] + (r->origin[1] + y) * r->row_pitch +
                            (r->origin[2] + z) * r->slice_pitch,
                         bytes_region[0], row);
}

/* ---- clEnqueueFillImage's command ---- */

struct fill_cmd {
   cl_mem img; /* held until the command completes */
   struct kiln_rect r;
   size_t bytes[3];
   unsigned char *row;
};

static cl_int fill_run(cl_event ev)
{
   struct fill_cmd *c = ev->payload;
   struct pipe_resource *res;
   size_t base;
   cl_int err = kiln_mem_acquire(c->img, ev->queue->device, ev->queue->pipe, KILN_ACCESS_WRITE,
                                 &res, &base);
   if (!err)
      kiln_image_fill_run(ev->queue->pipe, res, base, &c->r, c->bytes, c->row);
   return err;
}

static void fill_cleanup(cl_event ev)
{
   struct fill_cmd *c = ev->payload;
   if (!c)
      return;
   kiln_object_unref(&c->img->obj);
   kiln_free(c->row);
   kiln_free(c);
   ev->payload = NULL;
}

static void fill_describe(cl_event ev, struct kiln_trace_info *info)
{
   const size_t *b = ((struct fill_cmd *)ev->payload)->bytes;
   info->bytes = (uint64_t)b[0] * b[1] * b[2];
}

static const struct kiln_command_ops fill_ops = {fill_run, fill_cleanup, fill_describe};

cl_int kiln_enqueue_fill_image(cl_command_queue q, cl_mem img, const unsigned char *pixel,
                               size_t pixel_size, const struct kiln_rect *r,
                               const size_t bytes_region[3], struct kiln_wait_list wait,
                               cl_event *ev)
{
   struct fill_cmd *c = kiln_malloc(sizeof(*c));
   if (!c)
      return CL_OUT_OF_HOST_MEMORY;
   c->row = kiln_image_fill_row(pixel, pixel_size, bytes_region[0] / pixel_size);
   if (!c->row) {
      kiln_free(c);
      return CL_OUT_OF_HOST_MEMORY;
   }
   c->img = img;
   kiln_object_ref(&img->obj);
   c->r = *r;
   memcpy(c->bytes, bytes_region, sizeof(c->bytes));
   /* On failure fill_cleanup has released c. */
   return kiln_enqueue_command(q, CL_COMMAND_FILL_IMAGE, &fill_ops, c, KILN_ORDER_COMMAND, wait,
                               ev);
}
