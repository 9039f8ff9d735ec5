/* Reading amdgcn-mesa-mesa3d code objects (src/llvm/compiler_amdgpu.c):
 * an ELF64 relocatable whose .text holds, per kernel, a 256-byte
 * amd_kernel_code_t followed by the kernel's instructions.  Everything the
 * dispatch needs (register values, user SGPR layout, LDS and scratch
 * sizes, the kernarg segment size) comes from there. */
#ifndef KILN_PIPE_AMDGPU_CODE_OBJECT_H
#define KILN_PIPE_AMDGPU_CODE_OBJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One kernel's descriptor, decoded. */
struct amdgpu_kernel_desc {
   char *name;
   uint64_t header_offset; /* of the amd_kernel_code_t in .text */
   uint64_t code_offset;   /* of the first instruction in .text (PGM_LO/HI) */
   uint64_t code_size;     /* bytes of instructions */
   uint32_t rsrc1, rsrc2, rsrc3; /* COMPUTE_PGM_RSRC*, RSRC2 without dynamic LDS */
   uint32_t code_properties;     /* AKC_PROP_* */
   uint32_t private_segment_size; /* scratch bytes per work-item */
   uint32_t group_segment_size;   /* static __local bytes */
   uint64_t kernarg_size;         /* explicit + implicit arguments */
   uint32_t kernarg_align;
   uint16_t sgpr_count, vgpr_count;
   bool wave32;
   unsigned user_sgpr_count; /* RSRC2.USER_SGPR: what USER_DATA must cover */
   /* First SGPR of each input the kernel asked for; -1 when not asked. */
   int sgpr_private_segment_buffer, sgpr_dispatch_ptr, sgpr_queue_ptr, sgpr_kernarg_ptr;
   int sgpr_dispatch_id, sgpr_flat_scratch_init, sgpr_private_segment_size;
};

/* The GPU's copy of the code object: every allocated section (.text
 * first, at 0, then .rodata* / .data / .bss) at its alignment. */
struct amdgpu_co_section {
   unsigned index;       /* ELF section index */
   uint64_t file_offset; /* 0 for .bss */
   uint64_t size;
   uint64_t image_offset;
   bool nobits;
};

struct amdgpu_code_object {
   uint64_t text_file_offset; /* where .text starts in the ELF */
   uint64_t text_size;
   unsigned num_relocations;  /* the loader applies them (amdgpu_code_object_load) */
   struct amdgpu_co_section *sections;
   unsigned num_sections;
   uint64_t image_size;       /* bytes amdgpu_code_object_load writes */
   struct amdgpu_kernel_desc *kernels;
   unsigned num_kernels;
};

enum amdgpu_code_object_status {
   AMDGPU_CODE_OBJECT_OK,
   AMDGPU_CODE_OBJECT_INVALID,       /* *error says why */
   AMDGPU_CODE_OBJECT_OUT_OF_MEMORY,
};

/* The processor a code object is read for: registers differ in meaning. */
struct amdgpu_isa {
   unsigned gfx_level; /* 9, 10, 11, 12 */
   /* gfx90a's unified VGPR file, whose RSRC3.ACCUM_OFFSET
    * amd_kernel_code_t has no field for (docs/amdgpu.md). */
   bool accum_offset;
};

/* Parses elf[0..size) and decodes every kernel for isa.  On INVALID,
 * error (of error_size bytes) holds a reason.  Trusts nothing in elf. */
enum amdgpu_code_object_status amdgpu_code_object_parse(const void *elf, size_t size,
                                                        const struct amdgpu_isa *isa,
                                                        struct amdgpu_code_object *out,
                                                        char *error, size_t error_size);

/* Lays the sections out in dst (image_size bytes, which the GPU sees at
 * base_va, 256-byte aligned) and applies the relocations (absolute and
 * PC-relative, 32 and 64 bits: what LLVM emits for program-scope
 * __constant data).  elf is the blob co was parsed from.  Kernel code
 * offsets are image offsets, as .text starts it. */
enum amdgpu_code_object_status amdgpu_code_object_load(const struct amdgpu_code_object *co,
                                                       const void *elf, size_t size,
                                                       uint64_t base_va, void *dst,
                                                       char *error, size_t error_size);

const struct amdgpu_kernel_desc *amdgpu_code_object_find(const struct amdgpu_code_object *co,
                                                         const char *name);

void amdgpu_code_object_fini(struct amdgpu_code_object *co);

#endif
