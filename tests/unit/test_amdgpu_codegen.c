/* src/llvm's amdgcn pipeline and src/pipe/amdgpu's code object reader:
 * real kernels (tests/amdgpu/kernels) built for one processor of each
 * generation Kiln supports, and every descriptor field the dispatch will
 * program checked against what the kernel needs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <elf.h>

#include "kiln/kernel_info.h"
#include "llvm/amdgpu/amdgpu_target.h"
#include "llvm/compiler.h"
#include "pipe/amdgpu/amdgpu_caps.h"
#include "pipe/amdgpu/amdgpu_code_object.h"
#include "pipe/amdgpu/amdgpu_regs.h"
#include "util/alloc.h"

static const char *const gfx_targets[] = {"gfx900", "gfx90a", "gfx1030", "gfx1100"};
#define NUM_TARGETS (sizeof(gfx_targets) / sizeof(gfx_targets[0]))

struct built {
   const char *gfx;
   unsigned level;
   struct kiln_build_output out;
   struct amdgpu_code_object co;
   const struct amdgpu_kernel_desc *k;
   const struct kiln_kernel_info *info;
};

static char *load_kernel_source(const char *file, size_t *size)
{
   char path[1024];
   snprintf(path, sizeof(path), "%s/%s", KILN_TEST_KERNELS_DIR, file);
   FILE *f = fopen(path, "rb");
   assert_non_null(f);
   static char buf[16384];
   *size = fread(buf, 1, sizeof(buf) - 1, f);
   fclose(f);
   buf[*size] = 0;
   return buf;
}

/* The compiler's one entry point, for the amdgcn target's processor gfx. */
static enum kiln_build_status build_amdgpu(const char *src, size_t size, const char *options,
                                           struct kiln_compile_target *t, const char *gfx,
                                           struct kiln_build_output *out)
{
   t->ir = "amdgcn";
   t->processor = gfx;
   return kiln_llvm_build(src, size, options, t, out);
}

static char *amdgpu_target_id(const char *gfx)
{
   struct kiln_compile_target t = {.ir = "amdgcn", .processor = gfx, .opencl_version = 110};
   char *id = NULL;
   assert_int_equal(kiln_llvm_target_id(&t, &id), KILN_BUILD_OK);
   return id;
}

static bool accum(const char *gfx)
{
   return !strcmp(gfx, "gfx90a");
}

/* Builds file for gfx and finds kernel in the result. */
static void build(struct built *b, const char *gfx, const char *file, const char *kernel)
{
   memset(b, 0, sizeof(*b));
   b->gfx = gfx;
   b->level = kiln_amdgpu_target_find(gfx)->gfx_level;
   size_t size;
   const char *src = load_kernel_source(file, &size);
   struct kiln_compile_target t = {.opencl_version = 110, .cl_ext = AMDGPU_CLANG_EXTENSIONS};
   enum kiln_build_status st = build_amdgpu(src, size, "", &t, gfx, &b->out);
   if (st != KILN_BUILD_OK)
      fprintf(stderr, "%s for %s: %s\n", file, gfx, b->out.log);
   assert_int_equal(st, KILN_BUILD_OK);
   char *want = amdgpu_target_id(gfx);
   assert_string_equal(b->out.target_id, want);
   kiln_free(want);
   char error[256] = "";
   struct amdgpu_isa isa = {b->level, accum(gfx)};
   enum amdgpu_code_object_status cs = amdgpu_code_object_parse(
      b->out.object, b->out.object_size, &isa, &b->co, error, sizeof(error));
   if (cs)
      fprintf(stderr, "%s for %s: %s\n", file, gfx, error);
   assert_int_equal(cs, AMDGPU_CODE_OBJECT_OK);
   assert_int_equal(b->co.num_kernels, 1);
   b->k = amdgpu_code_object_find(&b->co, kernel);
   assert_non_null(b->k);
   assert_int_equal(b->out.num_kernels, 1);
   b->info = &b->out.kernels[0];
   assert_string_equal(b->info->name, kernel);
   /* mesa3d code objects are self-contained: nothing for a loader to
    * patch in these kernels. */
   assert_int_equal(b->co.num_relocations, 0);
}

static void unbuild(struct built *b)
{
   amdgpu_code_object_fini(&b->co);
   kiln_build_output_fini(&b->out);
}

/* What every kernel's descriptor must satisfy on its processor. */
static void check_common(const struct built *b)
{
   const struct amdgpu_kernel_desc *k = b->k;
   assert_int_equal(k->code_offset, k->header_offset + AKC_SIZE);
   assert_true(k->code_size >= 4);
   assert_true(k->code_offset + k->code_size <= b->co.text_size);
   /* The last instruction is s_endpgm on every generation: SOPP opcode 1
    * (gfx9/10: 0xBF810000; gfx11 renumbered SOPP: 0xBFB00000). */
   uint32_t last;
   const uint8_t *text = (const uint8_t *)b->out.object + b->co.text_file_offset;
   /* s_endpgm may be followed by s_code_end padding: search backwards. */
   bool found = false;
   for (uint64_t off = k->code_offset; off + 4 <= k->code_offset + k->code_size; off += 4) {
      memcpy(&last, text + off, 4);
      if (last == (b->level >= 11 ? 0xBFB00000u : 0xBF810000u))
         found = true;
   }
   assert_true(found);

   /* Wave size: LLVM's default, wave32 on RDNA, wave64 on GCN/CDNA. */
   assert_int_equal(k->wave32, b->level >= 10);

   /* VGPR granules: gfx9 wave64 allocates 4 at a time (gfx90a 8, its
    * unified file); RDNA wave32 8. */
   unsigned vg = b->level >= 10 ? 8 : accum(b->gfx) ? 8 : 4;
   unsigned vgprs = (RSRC1_VGPRS(k->rsrc1) + 1) * vg;
   assert_true(vgprs >= k->vgpr_count);
   assert_true(vgprs < k->vgpr_count + vg || k->vgpr_count == 0);
   if (b->level == 9) {
      /* SGPRs granules of 8 (RSRC1 counts VCC and the other extras). */
      assert_true((RSRC1_SGPRS(k->rsrc1) + 1) * 8 >= k->sgpr_count);
   } else {
      /* RDNA allocates every SGPR; the field must be 0 (the reader
       * clears what LLVM's mesa3d path writes there). */
      assert_int_equal(RSRC1_SGPRS(k->rsrc1), 0);
      assert_int_equal(RSRC1_MEM_ORDERED(k->rsrc1), 1);
   }
   assert_int_equal(RSRC1_IEEE_MODE(k->rsrc1), 1);
   assert_int_equal(RSRC1_DX10_CLAMP(k->rsrc1), 1);
   assert_int_equal(RSRC1_PRIV(k->rsrc1), 0);
   assert_int_equal(RSRC1_DEBUG_MODE(k->rsrc1), 0);

   /* User SGPRs: the kernarg pointer always (arguments), the dispatch
    * pointer because libclc reads the local and global sizes from the
    * dispatch packet.  Their positions follow the fixed order. */
   assert_true(k->code_properties & AKC_PROP_KERNARG_SEGMENT_PTR);
   assert_true(k->code_properties & AKC_PROP_IS_PTR64);
   assert_int_equal(k->sgpr_queue_ptr, -1);
   assert_int_equal(k->sgpr_dispatch_id, -1);
   int first = k->sgpr_private_segment_buffer >= 0 ? 4 : 0;
   if (k->sgpr_dispatch_ptr >= 0) {
      assert_int_equal(k->sgpr_dispatch_ptr, first);
      first += 2;
   }
   assert_int_equal(k->sgpr_kernarg_ptr, first);
   assert_true(k->user_sgpr_count >= (unsigned)first + 2);
   assert_true(k->user_sgpr_count <= 16);
   assert_int_equal(RSRC2_TGID_X_EN(k->rsrc2), 1);
   assert_int_equal(RSRC2_TRAP_PRESENT(k->rsrc2), 0);
   /* LDS in RSRC2 covers the static __local variables (the dispatch adds
    * __local arguments). */
   assert_true(RSRC2_LDS_SIZE(k->rsrc2) * RSRC2_LDS_GRANULE >= k->group_segment_size);
   assert_true(k->kernarg_align >= 4);

   /* The kernarg segment: the explicit arguments as the ABI lays them
    * out, then Kiln's four implicit u32s (work_dim, global offset x/y/z,
    * what libclc reads) at the next multiple of 4. */
   assert_true(b->info->num_args > 0);
   /* Core's argument buffer is the explicit part, byte for byte
    * (src/llvm/metadata.c lays it out for amdgcn). */
   assert_int_equal(k->kernarg_size, ((b->info->args_size + 3u) & ~3u) + 16);
   if (accum(b->gfx)) {
      unsigned quads = (k->vgpr_count + 3) / 4;
      assert_int_equal(k->rsrc3, RSRC3_GFX90A_ACCUM_OFFSET(quads - 1));
   } else {
      assert_int_equal(k->rsrc3, 0);
   }
}

static void test_saxpy(void **state)
{
   (void)state;
   for (unsigned i = 0; i < NUM_TARGETS; i++) {
      struct built b;
      build(&b, gfx_targets[i], "saxpy.cl", "saxpy");
      check_common(&b);
      /* float a @0, x @8, y @16: 24 bytes, then 16 implicit. */
      assert_int_equal(b.k->kernarg_size, 24 + 16);
      assert_int_equal(b.info->num_args, 3);
      assert_int_equal(b.info->args[0].kind, KILN_ARG_VALUE);
      assert_int_equal(b.info->args[0].size, 4);
      assert_int_equal(b.info->args[1].kind, KILN_ARG_GLOBAL);
      assert_int_equal(b.info->args[2].kind, KILN_ARG_GLOBAL);
      /* One dimension, no LDS, no scratch. */
      assert_int_equal(RSRC2_TIDIG_COMP_CNT(b.k->rsrc2), 0);
      assert_int_equal(RSRC2_TGID_Y_EN(b.k->rsrc2), 0);
      assert_int_equal(RSRC2_TGID_Z_EN(b.k->rsrc2), 0);
      assert_int_equal(b.k->group_segment_size, 0);
      assert_int_equal(b.k->private_segment_size, 0);
      assert_int_equal(RSRC2_SCRATCH_EN(b.k->rsrc2), 0);
      unbuild(&b);
   }
}

static void test_sgemm_tiled(void **state)
{
   (void)state;
   for (unsigned i = 0; i < NUM_TARGETS; i++) {
      struct built b;
      build(&b, gfx_targets[i], "sgemm_tiled.cl", "sgemm_tiled");
      check_common(&b);
      /* int M, N, K @0..8, A @16, B @24, C @32: 40, then 16 implicit. */
      assert_int_equal(b.k->kernarg_size, 40 + 16);
      assert_int_equal(b.info->num_args, 6);
      assert_int_equal(b.info->reqd_work_group_size[0], 16);
      assert_int_equal(b.info->reqd_work_group_size[1], 16);
      assert_int_equal(b.info->reqd_work_group_size[2], 1);
      /* Two 16x16 float tiles of static LDS. */
      assert_int_equal(b.k->group_segment_size, 2 * 16 * 16 * 4);
      assert_int_equal(RSRC2_LDS_SIZE(b.k->rsrc2), 2048 / RSRC2_LDS_GRANULE);
      /* Two dimensions: work-item ids x and y, group ids x and y. */
      assert_int_equal(RSRC2_TIDIG_COMP_CNT(b.k->rsrc2), 1);
      assert_int_equal(RSRC2_TGID_Y_EN(b.k->rsrc2), 1);
      assert_int_equal(RSRC2_TGID_Z_EN(b.k->rsrc2), 0);
      assert_int_equal(b.k->private_segment_size, 0);
      unbuild(&b);
   }
}

static void test_private_array(void **state)
{
   (void)state;
   for (unsigned i = 0; i < NUM_TARGETS; i++) {
      struct built b;
      build(&b, gfx_targets[i], "private_array.cl", "private_array");
      check_common(&b);
      assert_int_equal(b.k->kernarg_size, 16 + 16);
      /* 1 KiB of int per work-item in scratch, which the dispatch must
       * allocate and describe. */
      assert_true(b.k->private_segment_size >= 256 * 4);
      assert_int_equal(RSRC2_SCRATCH_EN(b.k->rsrc2), 1);
      if (b.level < 11) {
         /* GCN/RDNA2: scratch through the buffer resource in s[0:3]. */
         assert_int_equal(b.k->sgpr_private_segment_buffer, 0);
      } else {
         /* RDNA3: flat scratch, no buffer resource. */
         assert_int_equal(b.k->sgpr_private_segment_buffer, -1);
      }
      assert_int_equal(b.k->group_segment_size, 0);
      unbuild(&b);
   }
}

static void test_local_args(void **state)
{
   (void)state;
   for (unsigned i = 0; i < NUM_TARGETS; i++) {
      struct built b;
      build(&b, gfx_targets[i], "local_args.cl", "local_args");
      check_common(&b);
      /* in @0, out @8, two 32-bit LDS offsets @16 and @20. */
      assert_int_equal(b.k->kernarg_size, 24 + 16);
      assert_int_equal(b.info->args[2].kind, KILN_ARG_LOCAL);
      assert_int_equal(b.info->args[3].kind, KILN_ARG_LOCAL);
      /* __local arguments are sized at launch: no static LDS. */
      assert_int_equal(b.k->group_segment_size, 0);
      assert_int_equal(RSRC2_LDS_SIZE(b.k->rsrc2), 0);
      unbuild(&b);
   }
}

/* Program-scope __constant data: relocations the loader applies.  Each
 * ABS32_HI/LO pair, once loaded at a base that makes the high half
 * matter, must form the GPU address of one of the three tables, whose
 * bytes the image holds there. */
static void test_constant_relocations(void **state)
{
   (void)state;
   static const int table[8] = {3, 5, 7, 11, 13, 17, 19, 23};
   static const int table2[8] = {2, 4, 6, 8, 10, 12, 14, 16};
   static const float ftab[4] = {1.5f, 2.5f, 3.5f, 4.5f};
   /* 256-byte aligned, 256 bytes below 8 GiB: everything past the first
    * 256 bytes of the image has a high half of 2, not 1. */
   const uint64_t base = 0x1ffffff00ull;
   size_t size;
   const char *src = load_kernel_source("constant_table.cl", &size);
   for (unsigned t = 0; t < NUM_TARGETS; t++) {
      const char *gfx = gfx_targets[t];
      struct kiln_compile_target ct = {.opencl_version = 110, .cl_ext = AMDGPU_CLANG_EXTENSIONS};
      struct kiln_build_output out;
      assert_int_equal(build_amdgpu(src, size, "", &ct, gfx, &out), KILN_BUILD_OK);
      struct amdgpu_isa isa = {kiln_amdgpu_target_find(gfx)->gfx_level, accum(gfx)};
      struct amdgpu_code_object co;
      assert_int_equal(amdgpu_code_object_parse(out.object, out.object_size, &isa, &co, NULL, 0),
                       AMDGPU_CODE_OBJECT_OK);
      assert_true(co.num_relocations >= 2);
      assert_true(co.num_sections >= 2);
      assert_true(co.image_size > co.text_size);
      uint8_t *img = kiln_malloc(co.image_size);
      char err[256] = "";
      assert_int_equal(amdgpu_code_object_load(&co, out.object, out.object_size, base, img, err,
                                               sizeof(err)),
                       AMDGPU_CODE_OBJECT_OK);
      /* .text is the image's start, unchanged but for relocated fields. */
      const struct amdgpu_kernel_desc *k = amdgpu_code_object_find(&co, "constant_table");
      assert_non_null(k);
      assert_memory_equal(img + k->header_offset,
                          (const uint8_t *)out.object + co.text_file_offset + k->header_offset,
                          AKC_SIZE);
      /* Walk the relocations; pair each HI with the next LO of the same
       * symbol (LLVM emits them together). */
      const uint8_t *e = out.object;
      Elf64_Ehdr eh;
      memcpy(&eh, e, sizeof(eh));
      unsigned pairs = 0, found_mask = 0;
      for (unsigned i = 0; i < eh.e_shnum; i++) {
         Elf64_Shdr sh;
         memcpy(&sh, e + eh.e_shoff + i * sizeof(sh), sizeof(sh));
         if (sh.sh_type != SHT_REL)
            continue;
         Elf64_Rel rels[64];
         unsigned n = (unsigned)(sh.sh_size / sizeof(Elf64_Rel));
         assert_true(n <= 64);
         memcpy(rels, e + sh.sh_offset, n * sizeof(Elf64_Rel));
         for (unsigned r = 0; r < n; r++) {
            if (ELF64_R_TYPE(rels[r].r_info) != 2 /* ABS32_HI */)
               continue;
            for (unsigned q = 0; q < n; q++) {
               if (ELF64_R_TYPE(rels[q].r_info) != 1 ||
                   ELF64_R_SYM(rels[q].r_info) != ELF64_R_SYM(rels[r].r_info))
                  continue;
               uint32_t hi, lo, hi0, lo0;
               memcpy(&hi, img + rels[r].r_offset, 4);
               memcpy(&lo, img + rels[q].r_offset, 4);
               memcpy(&hi0, e + co.text_file_offset + rels[r].r_offset, 4);
               memcpy(&lo0, e + co.text_file_offset + rels[q].r_offset, 4);
               if (hi0 != lo0)
                  continue; /* another use of the section: another addend */
               uint64_t addr = (uint64_t)hi << 32 | lo;
               assert_true(addr >= base + co.text_size && addr < base + co.image_size);
               assert_int_equal(hi, 2);
               const uint8_t *data = img + (addr - base);
               found_mask |= !memcmp(data, table, sizeof(table)) ? 1
                             : !memcmp(data, table2, sizeof(table2)) ? 2
                             : !memcmp(data, ftab, sizeof(ftab))     ? 4
                                                                     : 8;
               pairs++;
               break;
            }
         }
      }
      assert_true(pairs >= 2);
      /* Every address formed is one of the tables' (8: something else). */
      assert_int_equal(found_mask & 8, 0);
      assert_true(found_mask & 4);
      kiln_free(img);
      amdgpu_code_object_fini(&co);
      kiln_build_output_fini(&out);
   }
}

/* gfx12 has no libclc file; it links gfx1100's (amdgpu_target.c). */
static void test_libclc_fallback(void **state)
{
   (void)state;
   const struct kiln_amdgpu_target *t = kiln_amdgpu_target_find("gfx1200");
   assert_non_null(t);
   assert_string_equal(t->libclc, "gfx1100");
   assert_null(kiln_amdgpu_target_find("gfx800"));
   size_t size;
   const char *src = load_kernel_source("saxpy.cl", &size);
   struct kiln_compile_target ct = {.opencl_version = 110, .cl_ext = AMDGPU_CLANG_EXTENSIONS};
   struct kiln_build_output out;
   struct amdgpu_isa isa12 = {12, false};
   assert_int_equal(build_amdgpu(src, size, "", &ct, "gfx1200", &out), KILN_BUILD_OK);
   struct amdgpu_code_object co;
   assert_int_equal(amdgpu_code_object_parse(out.object, out.object_size, &isa12, &co, NULL, 0),
                    AMDGPU_CODE_OBJECT_OK);
   assert_non_null(amdgpu_code_object_find(&co, "saxpy"));
   amdgpu_code_object_fini(&co);
   kiln_build_output_fini(&out);
}

static void test_build_errors(void **state)
{
   (void)state;
   struct kiln_compile_target t = {.opencl_version = 110, .cl_ext = AMDGPU_CLANG_EXTENSIONS};
   struct kiln_build_output out;
   const char *bad = "__kernel void k(__global int *p) { p[0] = undefined_thing; }";
   assert_int_equal(build_amdgpu(bad, strlen(bad), "", &t, "gfx1030", &out),
                    KILN_BUILD_FAILED);
   assert_non_null(strstr(out.log, "undefined_thing"));
   kiln_build_output_fini(&out);
   /* A call to nothing libclc defines is a build error, not a code
    * object with an unresolved symbol. */
   const char *undef = "int nowhere(int); __kernel void k(__global int *p) { p[0] = nowhere(p[1]); }";
   assert_int_equal(build_amdgpu(undef, strlen(undef), "", &t, "gfx900", &out),
                    KILN_BUILD_FAILED);
   assert_non_null(strstr(out.log, "nowhere"));
   kiln_build_output_fini(&out);
   const char *ok = "__kernel void k(__global int *p) { p[0] = 1; }";
   assert_int_equal(build_amdgpu(ok, strlen(ok), "", &t, "gfx9999", &out),
                    KILN_BUILD_FAILED);
   assert_non_null(strstr(out.log, "gfx9999"));
   kiln_build_output_fini(&out);
   assert_int_equal(build_amdgpu(ok, strlen(ok), "-cl-no-such-option", &t, "gfx900",
                                           &out),
                    KILN_BUILD_INVALID_OPTIONS);
   kiln_build_output_fini(&out);
   t.bounds_check = true;
   assert_int_equal(build_amdgpu(ok, strlen(ok), "", &t, "gfx900", &out),
                    KILN_BUILD_FAILED);
   kiln_build_output_fini(&out);
}

/* printf (OpenCL C 1.2) has no run-time on the GPU yet: the build fails
 * and says so, rather than leaving an unresolved call.  Skipped while the
 * compiler accepts OpenCL C 1.1 only. */
static void test_printf_refused(void **state)
{
   (void)state;
   struct kiln_compile_target t = {.opencl_version = 120, .cl_ext = AMDGPU_CLANG_EXTENSIONS};
   struct kiln_build_output out;
   const char *src = "__kernel void k(__global int *p) { p[0] = printf(\"%d\\n\", p[1]); }";
   enum kiln_build_status st =
      build_amdgpu(src, strlen(src), "-cl-std=CL1.2", &t, "gfx1030", &out);
   if (st == KILN_BUILD_INVALID_OPTIONS) {
      kiln_build_output_fini(&out);
      skip();
   }
   assert_int_equal(st, KILN_BUILD_FAILED);
   assert_non_null(strstr(out.log, "printf is not supported on this device"));
   kiln_build_output_fini(&out);
}

/* The reader refuses what is not a well-formed amdgcn code object. */
static void test_parse_rejects(void **state)
{
   (void)state;
   size_t size;
   const char *src = load_kernel_source("saxpy.cl", &size);
   struct kiln_compile_target t = {.opencl_version = 110, .cl_ext = AMDGPU_CLANG_EXTENSIONS};
   struct kiln_build_output out;
   assert_int_equal(build_amdgpu(src, size, "", &t, "gfx1030", &out), KILN_BUILD_OK);
   struct amdgpu_code_object co;
   struct amdgpu_isa isa = {10, false};
   char err[256];
   /* Every truncation. */
   for (size_t n = 0; n < out.object_size; n += 7)
      assert_int_equal(amdgpu_code_object_parse(out.object, n, &isa, &co, err, sizeof(err)),
                       AMDGPU_CODE_OBJECT_INVALID);
   unsigned char *copy = kiln_malloc(out.object_size);
   assert_non_null(copy);
   /* Another machine. */
   memcpy(copy, out.object, out.object_size);
   copy[18] = 62; /* EM_X86_64 */
   assert_int_equal(amdgpu_code_object_parse(copy, out.object_size, &isa, &co, err, sizeof(err)),
                    AMDGPU_CODE_OBJECT_INVALID);
   assert_non_null(strstr(err, "AMDGPU"));
   /* A corrupted amd_kernel_code_t version. */
   assert_int_equal(amdgpu_code_object_parse(out.object, out.object_size, &isa, &co, err,
                                             sizeof(err)),
                    AMDGPU_CODE_OBJECT_OK);
   uint64_t hdr = co.text_file_offset + co.kernels[0].header_offset;
   amdgpu_code_object_fini(&co);
   memcpy(copy, out.object, out.object_size);
   copy[hdr] = 7;
   assert_int_equal(amdgpu_code_object_parse(copy, out.object_size, &isa, &co, err, sizeof(err)),
                    AMDGPU_CODE_OBJECT_INVALID);
   /* An entry offset that is not 256-byte aligned. */
   memcpy(copy, out.object, out.object_size);
   copy[hdr + AKC_ENTRY_BYTE_OFFSET] = 0x04;
   assert_int_equal(amdgpu_code_object_parse(copy, out.object_size, &isa, &co, err, sizeof(err)),
                    AMDGPU_CODE_OBJECT_INVALID);
   kiln_free(copy);
   kiln_build_output_fini(&out);
}

/* Separate compilation for a GPU: two compiled objects (bitcode with
 * libclc linked in), a library, and executables linked from them, through
 * the same code generation as a build. */
static void test_compile_link(void **state)
{
   (void)state;
   struct kiln_compile_target t = {.ir = "amdgcn", .processor = "gfx1030",
                                   .opencl_version = 110, .cl_ext = AMDGPU_CLANG_EXTENSIONS};
   const char *kern = "int helper(int x);\n"
                      "__kernel void k(__global float *p) { int i = get_global_id(0); "
                      "p[i] = sqrt((float)helper(i)); }";
   const char *help = "int helper(int x) { return x * 3; }";
   struct kiln_build_output a, b, lib, exe;
   assert_int_equal(kiln_llvm_compile(kern, strlen(kern), NULL, NULL, 0, &t, &a),
                    KILN_BUILD_OK);
   assert_int_equal(kiln_llvm_compile(help, strlen(help), "-cl-kernel-arg-info", NULL, 0, &t, &b),
                    KILN_BUILD_OK);
   assert_non_null(a.bitcode);
   assert_null(a.object);
   assert_int_equal(a.num_kernels, 0);
   assert_string_equal(a.target_id, "amdgpu:amdgcn-mesa-mesa3d:gfx1030");
   struct kiln_bitcode in[2] = {{.data = a.bitcode, .size = a.bitcode_size},
                                {.data = b.bitcode, .size = b.bitcode_size}};
   assert_int_equal(kiln_llvm_link(in, 2, NULL, &t, &exe), KILN_BUILD_OK);
   assert_non_null(exe.object);
   assert_int_equal(exe.num_kernels, 1);
   assert_string_equal(exe.kernels[0].name, "k");
   /* Compiled without -cl-kernel-arg-info: names hidden from the API. */
   assert_true(exe.kernels[0].no_arg_info);
   kiln_build_output_fini(&exe);
   assert_int_equal(kiln_llvm_link(&in[1], 1, "-create-library", &t, &lib),
                    KILN_BUILD_OK);
   assert_non_null(lib.bitcode);
   assert_null(lib.object);
   struct kiln_bitcode in2[2] = {{.data = a.bitcode, .size = a.bitcode_size},
                                 {.data = lib.bitcode, .size = lib.bitcode_size}};
   assert_int_equal(kiln_llvm_link(in2, 2, "-cl-fast-relaxed-math", &t, &exe),
                    KILN_BUILD_OK);
   assert_int_equal(exe.num_kernels, 1);
   kiln_build_output_fini(&exe);
   /* The kernel alone: helper is unresolved. */
   assert_int_equal(kiln_llvm_link(in, 1, NULL, &t, &exe), KILN_BUILD_FAILED);
   assert_non_null(strstr(exe.log, "unresolved symbol 'helper'"));
   kiln_build_output_fini(&exe);
   assert_int_equal(kiln_llvm_link(in, 1, "-cl-opt-disable", &t, &exe),
                    KILN_BUILD_INVALID_OPTIONS);
   kiln_build_output_fini(&exe);
   kiln_build_output_fini(&lib);
   kiln_build_output_fini(&a);
   kiln_build_output_fini(&b);
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_saxpy),           cmocka_unit_test(test_sgemm_tiled),
      cmocka_unit_test(test_private_array),   cmocka_unit_test(test_local_args),
      cmocka_unit_test(test_libclc_fallback), cmocka_unit_test(test_build_errors),
      cmocka_unit_test(test_constant_relocations),
      cmocka_unit_test(test_parse_rejects),
      cmocka_unit_test(test_compile_link),
      cmocka_unit_test(test_printf_refused),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
