/* Pipe memory objects (OpenCL 3.0 §5.3, __opencl_c_pipes): a buffer that
 * holds the pipe's header, its slot marks and its packets
 * (include/kiln/pipe_layout.h), which the device's pipe builtins work on.
 * Core only lays it out and writes the header of an empty pipe; the
 * buffer then migrates between devices like any other. */
#include <stdint.h>
#include <string.h>

#include "core/context.h"
#include "core/mem.h"
#include "core/pipe_sync.h"
#include "kiln/pipe_layout.h"
#include "util/alloc.h"

size_t kiln_mem_pipe_size(cl_uint packet_size, cl_uint max_packets)
{
   uint64_t data = (uint64_t)packet_size * max_packets; /* < 2^64: both are 32-bit */
   uint64_t total = KILN_PIPE_DATA_OFFSET(max_packets) + data;
   if (total < data || total > SIZE_MAX)
      return 0;
   return (size_t)total;
}

cl_int kiln_mem_create_pipe(cl_context ctx, cl_mem_flags flags, cl_uint packet_size,
                            cl_uint max_packets, cl_mem *out)
{
   size_t size = kiln_mem_pipe_size(packet_size, max_packets);
   if (!size)
      return CL_INVALID_BUFFER_SIZE;
   /* The header and both mark arrays must start out zero (no packet
    * reserved, no slot marked); the packets need no value. */
   size_t init = (size_t)KILN_PIPE_DATA_OFFSET(max_packets);
   struct kiln_pipe_header *h = kiln_calloc(1, init);
   if (!h)
      return CL_OUT_OF_HOST_MEMORY;
   h->packet_size = packet_size;
   h->max_packets = max_packets;

   cl_mem mem = NULL;
   cl_int err = kiln_mem_create_buffer(ctx, flags, size, NULL, &mem);
   if (!err)
      err = kiln_device_write_sync(ctx->devices[0], mem->store[0].res, 0, init, h);
   kiln_free(h);
   if (err) {
      if (mem)
         kiln_object_release(&mem->obj);
      return err;
   }
   mem->type = CL_MEM_OBJECT_PIPE;
   mem->pipe.packet_size = packet_size;
   mem->pipe.max_packets = max_packets;
   *out = mem;
   return CL_SUCCESS;
}
