/* Fuzzes image creation: clCreateImage2D, clCreateImage3D and
 * clCreateImage (1.2) with any flags, format, sizes, pitches and host
 * pointer, and clGetSupportedImageFormats with any flags, type and array
 * size.
 *
 * Input (little endian, missing bytes read as 0):
 *   u8  which: 0 Image2D, 1 Image3D, 2 clCreateImage 2D, 3 clCreateImage 3D,
 *       4 clGetSupportedImageFormats
 *   u64 flags; u32 channel order; u32 channel type (each taken as is when
 *       the low bit of `raw` is set, else an index into the valid values)
 *   u8  raw; u16 width, height, depth (sizes; bit 15 set: a huge value)
 *   u16 row pitch, slice pitch; u8 host (0: NULL, else a host buffer)
 *
 * Checks: the result is a handle exactly when errcode_ret is CL_SUCCESS;
 * errors are among those 5.2.4 lists; a request that the spec makes valid
 * (the format among the supported ones, sizes within the limits, pitches
 * by the rules, host pointer matching the flags) succeeds; a created
 * image reports the sizes and pitches it was given and reads back the
 * host data it was created from.  The host buffer has exactly the size the
 * spec requires, so ASan sees any read past it. */
#include "fuzz.h"

static cl_context ctx;
static cl_command_queue queue;
static cl_image_format formats[256];
static cl_uint num_formats;
/* Formats a read_write argument takes: all of them where the device has
 * read-write images (Kiln's CPU device), none elsewhere. */
static cl_uint num_rw_formats;
static size_t max2[2], max3[3];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
   (void)argc;
   (void)argv;
   cl_device_id dev = fuzz_device();
   ctx = fuzz_context(dev);
   cl_int err;
   queue = clCreateCommandQueue(ctx, dev, 0, &err);
   FUZZ_CHECK(queue, "clCreateCommandQueue: %d", err);
   err = clGetSupportedImageFormats(ctx, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 256, formats,
                                    &num_formats);
   FUZZ_CHECK(!err && num_formats && num_formats <= 256, "formats: %d, %u", err, num_formats);
   cl_uint max_rw = 0;
   clGetDeviceInfo(dev, CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS, sizeof(max_rw), &max_rw, NULL);
   num_rw_formats = max_rw ? num_formats : 0;
   clGetDeviceInfo(dev, CL_DEVICE_IMAGE2D_MAX_WIDTH, sizeof(size_t), &max2[0], NULL);
   clGetDeviceInfo(dev, CL_DEVICE_IMAGE2D_MAX_HEIGHT, sizeof(size_t), &max2[1], NULL);
   clGetDeviceInfo(dev, CL_DEVICE_IMAGE3D_MAX_WIDTH, sizeof(size_t), &max3[0], NULL);
   clGetDeviceInfo(dev, CL_DEVICE_IMAGE3D_MAX_HEIGHT, sizeof(size_t), &max3[1], NULL);
   clGetDeviceInfo(dev, CL_DEVICE_IMAGE3D_MAX_DEPTH, sizeof(size_t), &max3[2], NULL);
   return 0;
}

struct reader {
   const uint8_t *p;
   size_t left;
};

static uint64_t take(struct reader *r, unsigned bytes)
{
   uint64_t v = 0;
   for (unsigned i = 0; i < bytes && r->left; i++, r->p++, r->left--)
      v |= (uint64_t)*r->p << (8 * i);
   return v;
}

static size_t size_of(uint64_t v)
{
   return v & 0x8000 ? (size_t)1 << (20 + (v & 31)) : (size_t)(v & 0x7fff) % 70;
}

static bool supported(cl_image_format f)
{
   for (cl_uint i = 0; i < num_formats; i++)
      if (formats[i].image_channel_order == f.image_channel_order &&
          formats[i].image_channel_data_type == f.image_channel_data_type)
         return true;
   return false;
}

static size_t elem_size(cl_image_format f)
{
   size_t t;
   switch (f.image_channel_data_type) {
   case CL_SNORM_INT8: case CL_UNORM_INT8: case CL_SIGNED_INT8: case CL_UNSIGNED_INT8: t = 1; break;
   case CL_SIGNED_INT32: case CL_UNSIGNED_INT32: case CL_FLOAT: t = 4; break;
   case CL_UNORM_INT_101010: return 4;
   case CL_UNORM_SHORT_565: case CL_UNORM_SHORT_555: return 2;
   default: t = 2; break;
   }
   switch (f.image_channel_order) {
   case CL_RG: case CL_RA: return 2 * t;
   case CL_RGBA: case CL_BGRA: case CL_ARGB: return 4 * t;
   default: return t;
   }
}

static bool flags_valid(cl_mem_flags f)
{
   const cl_mem_flags access = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
   const cl_mem_flags host_access =
      CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS; /* 1.2 */
   if (f & ~(access | host_access | CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR |
             CL_MEM_COPY_HOST_PTR))
      return false;
   cl_mem_flags a = f & access, h = f & host_access;
   if ((a & (a - 1)) || (h & (h - 1)))
      return false;
   return !((f & CL_MEM_USE_HOST_PTR) && (f & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)));
}

static void formats_query(struct reader *r)
{
   cl_mem_flags flags = take(r, 8);
   cl_mem_object_type type = (cl_mem_object_type)take(r, 4);
   cl_uint n = (cl_uint)take(r, 1);
   bool with_array = take(r, 1) & 1;
   cl_image_format *out = with_array ? malloc((n ? n : 1) * sizeof(*out)) : NULL;
   cl_uint got = 12345;
   cl_int err = clGetSupportedImageFormats(ctx, flags, type, n, out, &got);
   /* 3.0 lets this query (only) ask for formats a kernel may read and
    * write through one image: none, on devices without read-write images. */
   bool read_write = flags & CL_MEM_KERNEL_READ_AND_WRITE;
   bool valid = flags_valid(flags & ~(cl_mem_flags)CL_MEM_KERNEL_READ_AND_WRITE) &&
                (type == CL_MEM_OBJECT_IMAGE2D || type == CL_MEM_OBJECT_IMAGE3D ||
                 type == CL_MEM_OBJECT_IMAGE1D || type == CL_MEM_OBJECT_IMAGE1D_BUFFER ||
                 type == CL_MEM_OBJECT_IMAGE1D_ARRAY || type == CL_MEM_OBJECT_IMAGE2D_ARRAY) &&
                !(with_array && !n);
   FUZZ_CHECK(valid ? err == CL_SUCCESS : err == CL_INVALID_VALUE,
              "clGetSupportedImageFormats(0x%llx, 0x%x, %u, %p): %d",
              (unsigned long long)flags, type, n, (void *)out, err);
   if (!err)
      FUZZ_CHECK(got == (read_write ? num_rw_formats : num_formats), "%u formats, %u before%s",
                 got, read_write ? num_rw_formats : num_formats, read_write ? " (read-write)" : "");
   free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   struct reader r = {data, size};
   unsigned which = (unsigned)take(&r, 1) % 5;
   if (which == 4) {
      formats_query(&r);
      return 0;
   }
   bool three_d = which & 1, desc_api = which >= 2;
   cl_mem_flags flags = take(&r, 8);
   uint32_t order = (uint32_t)take(&r, 4), type = (uint32_t)take(&r, 4);
   bool raw = take(&r, 1) & 1;
   cl_image_format fmt = raw ? (cl_image_format){order, type}
                             : formats[order % num_formats];
   if (!raw && (type & 1)) /* a valid order with another valid type */
      fmt.image_channel_data_type = formats[type % num_formats].image_channel_data_type;
   size_t w = size_of(take(&r, 2)), h = size_of(take(&r, 2)), d = size_of(take(&r, 2));
   size_t rp = (size_t)take(&r, 2) % 600, sp = (size_t)take(&r, 2) % 20000;
   bool host = take(&r, 1) & 1;
   if (!three_d)
      d = 1;

   /* What the spec says of this request. */
   bool fmt_ok = supported(fmt);
   size_t elem = fmt_ok ? elem_size(fmt) : 1;
   const size_t *max = three_d ? max3 : max2;
   /* clCreateImage3D (1.1) wants depth > 1; a 1.2 descriptor allows 1. */
   bool size_ok = w >= 1 && h >= 1 && w <= max[0] && h <= max[1] &&
                  (three_d ? d >= (desc_api ? 1u : 2u) && d <= max3[2] : true);
   size_t erp = rp, esp = sp;
   if (!host) {
      size_ok &= !rp && (!three_d || !sp);
   } else if (size_ok) {
      erp = rp ? rp : w * elem;
      size_ok &= erp >= w * elem && erp % elem == 0;
      if (three_d) {
         esp = sp ? sp : erp * h;
         size_ok &= esp >= erp * h && esp % erp == 0;
      }
   }
   bool wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
   bool valid = flags_valid(flags) && fmt_ok && size_ok && wants_ptr == host;
   /* Valid requests are small (sizes below 70) unless a size is huge. */
   size_t need = 1;
   if (host && size_ok && w < 70 && h < 70 && d < 70)
      need = three_d ? esp * d : erp * h;
   /* Handing Kiln a host buffer smaller than the image, or asking for
    * gigabytes, would test the machine rather than Kiln. */
   bool small = w < 70 && h < 70 && d < 70;
   if (flags_valid(flags) && fmt_ok && size_ok && !small && (host || w * h * d > (1u << 22)))
      return 0;
   uint8_t *buf = host ? malloc(need) : NULL;
   if (buf)
      for (size_t i = 0; i < need; i++)
         buf[i] = (uint8_t)(i * 13 + 5);

   cl_int err = 12345;
   cl_mem m;
   if (desc_api) {
      cl_image_desc desc = {three_d ? CL_MEM_OBJECT_IMAGE3D : CL_MEM_OBJECT_IMAGE2D, w, h, d,
                            0, rp, three_d ? sp : 0, 0, 0, {NULL}};
      m = clCreateImage(ctx, flags, &fmt, &desc, buf, &err);
   } else {
      m = three_d ? clCreateImage3D(ctx, flags, &fmt, w, h, d, rp, sp, buf, &err)
                  : clCreateImage2D(ctx, flags, &fmt, w, h, rp, buf, &err);
   }
   FUZZ_CHECK((m != NULL) == (err == CL_SUCCESS), "handle %p with %d", (void *)m, err);
   FUZZ_CHECK(err == CL_SUCCESS || err == CL_INVALID_VALUE ||
                 err == CL_INVALID_IMAGE_FORMAT_DESCRIPTOR || err == CL_INVALID_IMAGE_SIZE ||
                 err == CL_INVALID_HOST_PTR || err == CL_IMAGE_FORMAT_NOT_SUPPORTED ||
                 err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_HOST_MEMORY ||
                 (desc_api && err == CL_INVALID_IMAGE_DESCRIPTOR),
              "error %d", err);
   if (valid && w < 70 && h < 70 && d < 70)
      FUZZ_CHECK(err == CL_SUCCESS,
                 "valid request refused: %d (flags 0x%llx order 0x%x type 0x%x %zux%zux%zu "
                 "pitches %zu %zu host %d)",
                 err, (unsigned long long)flags, fmt.image_channel_order,
                 fmt.image_channel_data_type, w, h, d, rp, sp, host);
   if (m) {
      size_t v = 0;
      clGetImageInfo(m, CL_IMAGE_ELEMENT_SIZE, sizeof(v), &v, NULL);
      FUZZ_CHECK(v == elem_size(fmt), "element size %zu", v);
      clGetImageInfo(m, CL_IMAGE_WIDTH, sizeof(v), &v, NULL);
      FUZZ_CHECK(v == w, "width %zu of %zu", v, w);
      clGetImageInfo(m, CL_IMAGE_DEPTH, sizeof(v), &v, NULL);
      FUZZ_CHECK(v == (three_d ? d : 0), "depth %zu of %zu", v, d);
      clGetImageInfo(m, CL_IMAGE_ROW_PITCH, sizeof(v), &v, NULL);
      FUZZ_CHECK(v >= w * elem_size(fmt), "row pitch %zu", v);
      if (flags & CL_MEM_USE_HOST_PTR)
         FUZZ_CHECK(v == erp, "row pitch %zu, given %zu", v, erp);
      if (buf && w < 70 && h < 70 && d < 70) {
         /* The image holds the host rows it was made from. */
         size_t row = w * elem_size(fmt);
         uint8_t *out = malloc(row * h * d);
         size_t origin[3] = {0, 0, 0}, region[3] = {w, h, d};
         err = clEnqueueReadImage(queue, m, CL_TRUE, origin, region, 0, 0, out, 0, NULL, NULL);
         /* 1.2: a host that may not read gets CL_INVALID_OPERATION. */
         bool readable = !(flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS));
         FUZZ_CHECK(err == (readable ? CL_SUCCESS : CL_INVALID_OPERATION), "read: %d", err);
         for (size_t z = 0; readable && z < d; z++)
            for (size_t y = 0; y < h; y++)
               FUZZ_CHECK(!memcmp(out + (z * h + y) * row,
                                  buf + z * (three_d ? esp : 0) + y * erp, row),
                          "row %zu of slice %zu differs from the host data", y, z);
         free(out);
      }
      clReleaseMemObject(m);
   }
   free(buf);
   return 0;
}
