/* What a pipe memory object holds on the CPU device: the contract between
 * core, which lays it out and writes its header at clCreatePipe
 * (src/core/mem_pipe.c), and the builtins library, whose read_pipe,
 * write_pipe, reserve and commit functions work on it
 * (src/llvm/builtins/pipe.cl).  This header is included by both C and
 * OpenCL C.
 *
 * Layout, from the start of the buffer:
 *   struct kiln_pipe_header
 *   max_packets bytes: "written" marks, one per slot
 *   max_packets bytes: "read" marks, one per slot
 *   padding to KILN_PIPE_DATA_ALIGN
 *   max_packets packets of packet_size bytes (the slots)
 *
 * Packets are numbered from 0 for the pipe's lifetime; packet i lives in
 * slot i % max_packets.  The four counters say how far each side got:
 *   read_committed <= read_reserved <= write_committed <= write_reserved
 * and write_reserved - read_committed <= max_packets (a slot is reused
 * only once its packet has been read and the read committed).  A writer
 * reserves [write_reserved, +n), fills the slots, then commits: its slots
 * are marked written, and write_committed moves past every written slot
 * that follows it, so commits may arrive in any order and readers see
 * only whole, committed packets.  Readers do the same on their side.
 *
 * The counters and marks are changed only under `lock` (a spin lock: the
 * sections are a few instructions long); packet bytes are copied outside
 * it, between a reservation and its commit, which the lock's
 * acquire/release order against the other side. */
#ifndef KILN_PIPE_LAYOUT_H
#define KILN_PIPE_LAYOUT_H

#ifdef __OPENCL_C_VERSION__
typedef ulong kiln_pipe_u64;
typedef uint kiln_pipe_u32;
#else
#include <stdint.h>
typedef uint64_t kiln_pipe_u64;
typedef uint32_t kiln_pipe_u32;
#endif

struct kiln_pipe_header {
   kiln_pipe_u32 packet_size; /* bytes */
   kiln_pipe_u32 max_packets;
   kiln_pipe_u32 lock;        /* 0 free, 1 held */
   kiln_pipe_u32 pad;
   kiln_pipe_u64 write_reserved;
   kiln_pipe_u64 write_committed;
   kiln_pipe_u64 read_reserved;
   kiln_pipe_u64 read_committed;
};

/* The strictest alignment of an OpenCL C type (long16, double16). */
#define KILN_PIPE_DATA_ALIGN 128

/* Offset of slot 0 in a pipe of max_packets packets. */
#define KILN_PIPE_DATA_OFFSET(max_packets)                                                   \
   (((kiln_pipe_u64)sizeof(struct kiln_pipe_header) + 2 * (kiln_pipe_u64)(max_packets) +   \
     KILN_PIPE_DATA_ALIGN - 1) /                                                           \
    KILN_PIPE_DATA_ALIGN * KILN_PIPE_DATA_ALIGN)

/* A reservation id (reserve_id_t, a pointer-sized value to the kernel):
 * the count of packets in the high 32 bits, the first packet's slot in
 * the low ones.  A count is at least 1, so a valid id is never
 * KILN_PIPE_NO_RESERVATION, which is Clang's CLK_NULL_RESERVE_ID
 * (all ones). */
#define KILN_PIPE_NO_RESERVATION (~(kiln_pipe_u64)0)

#endif
