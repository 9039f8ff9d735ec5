/* src/winsys/amdgpu against a fake libdrm (fake_drm.c): discovery, device
 * info, buffer objects and their VA mappings, submission and fences, and
 * every kernel error becoming a CL error with nothing left behind. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fake_drm.h"
#include "winsys/amdgpu/amdgpu_gfx_id.h"
#include "winsys/amdgpu/amdgpu_winsys.h"

static int setup(void **state)
{
   (void)state;
   fake_drm_reset();
   return 0;
}

/* Every test ends with nothing held. */
static int teardown(void **state)
{
   (void)state;
   unsigned live = fake_drm_live();
   fake_drm_reset();
   assert_int_equal(live, 0);
   return 0;
}

static struct amdgpu_winsys *one_gpu(uint32_t family, uint32_t rev)
{
   fake_drm_add_gpu(family, rev, "AMD Radeon Test");
   struct amdgpu_winsys *ws = NULL;
   assert_int_equal(amdgpu_winsys_probe(fake_drm_table(), &ws, 1), 1);
   return ws;
}

static void test_probe_nothing(void **state)
{
   (void)state;
   struct amdgpu_winsys *ws[4];
   assert_int_equal(amdgpu_winsys_probe(fake_drm_table(), ws, 4), 0);
   assert_int_equal(amdgpu_winsys_probe(NULL, ws, 4), 0);
}

/* Other vendors, other DRM drivers and GPUs older than gfx9 are passed
 * over, their nodes closed again. */
static void test_probe_skips(void **state)
{
   (void)state;
   fake_drm_add_gpu(143, 0x28, NULL)->pci_vendor = 0x8086;
   fake_drm_add_gpu(143, 0x28, NULL)->driver = "radeon";
   fake_drm_add_gpu(130, 0x01, NULL); /* AMDGPU_FAMILY_VI: Tonga, GFX8 */
   fake_drm_add_gpu(143, 0x99, NULL); /* a Navi revision nobody knows */
   struct amdgpu_winsys *ws[4];
   assert_int_equal(amdgpu_winsys_probe(fake_drm_table(), ws, 4), 0);
   assert_int_equal(fake_drm_live(), 0);
   /* A failing device query skips the GPU too (alone, so that the
    * failure hits it). */
   fake_drm_reset();
   fake_drm_add_gpu(143, 0x28, NULL);
   fake.fail_query_info = -EIO;
   assert_int_equal(amdgpu_winsys_probe(fake_drm_table(), ws, 4), 0);
   fake.fail_ctx_create = -ENOMEM;
   assert_int_equal(amdgpu_winsys_probe(fake_drm_table(), ws, 4), 0);
   /* Then it works. */
   assert_int_equal(amdgpu_winsys_probe(fake_drm_table(), ws, 4), 1);
   assert_string_equal(amdgpu_winsys_info(ws[0])->gfx, "gfx1030");
   amdgpu_winsys_destroy(ws[0]);
}

static void test_probe_info(void **state)
{
   (void)state;
   fake_drm_add_gpu(141, 0x01, "Radeon RX Vega 64");
   fake_drm_add_gpu(141, 0x3c, "AMD Instinct MI210");
   fake_drm_add_gpu(143, 0x28, "AMD Radeon RX 6800 XT");
   struct fake_gpu *g = fake_drm_add_gpu(145, 0x01, NULL);
   g->num_cu = 96;
   g->max_engine_clock_khz = 2300000;
   struct amdgpu_winsys *ws[8];
   /* max is respected. */
   assert_int_equal(amdgpu_winsys_probe(fake_drm_table(), ws, 2), 2);
   amdgpu_winsys_destroy(ws[0]);
   amdgpu_winsys_destroy(ws[1]);
   assert_int_equal(fake_drm_live(), 0);

   assert_int_equal(amdgpu_winsys_probe(fake_drm_table(), ws, 8), 4);
   static const struct {
      const char *gfx, *name;
      unsigned level;
      bool accum;
   } want[] = {
      {"gfx900", "Radeon RX Vega 64", 9, false},
      {"gfx90a", "AMD Instinct MI210", 9, true},
      {"gfx1030", "AMD Radeon RX 6800 XT", 10, false},
      {"gfx1100", "AMD Radeon (Navi 31)", 11, false},
   };
   for (unsigned i = 0; i < 4; i++) {
      const struct amdgpu_ws_info *info = amdgpu_winsys_info(ws[i]);
      assert_string_equal(info->gfx, want[i].gfx);
      assert_string_equal(info->name, want[i].name);
      assert_int_equal(info->gfx_level, want[i].level);
      assert_int_equal(info->accum_offset, want[i].accum);
      assert_int_equal(info->vram_size, 16ull << 30);
      assert_int_equal(info->vram_visible_size, 256ull << 20);
      assert_int_equal(info->gtt_size, 8ull << 30);
      assert_false(amdgpu_winsys_lost(ws[i]));
   }
   assert_int_equal(amdgpu_winsys_info(ws[3])->num_cu, 96);
   assert_int_equal(amdgpu_winsys_info(ws[3])->max_clock_mhz, 2300);
   assert_int_equal(amdgpu_winsys_info(ws[0])->num_se, 4);
   for (unsigned i = 0; i < 4; i++)
      amdgpu_winsys_destroy(ws[i]);
}

static void test_gfx_ids(void **state)
{
   (void)state;
   static const struct {
      uint32_t family, rev;
      const char *gfx;
   } ids[] = {
      {141, 0x01, "gfx900"},  {141, 0x14, "gfx904"},  {141, 0x28, "gfx906"},
      {141, 0x32, "gfx908"},  {141, 0x3c, "gfx90a"},  {142, 0x01, "gfx902"},
      {142, 0x81, "gfx909"},  {142, 0x91, "gfx90c"},  {143, 0x01, "gfx1010"},
      {143, 0x0a, "gfx1011"}, {143, 0x14, "gfx1012"}, {143, 0x28, "gfx1030"},
      {143, 0x32, "gfx1031"}, {143, 0x3c, "gfx1032"}, {143, 0x46, "gfx1034"},
      {144, 0x01, "gfx1033"}, {146, 0x01, "gfx1035"}, {149, 0x01, "gfx1036"},
      {151, 0x01, "gfx1036"}, {145, 0x01, "gfx1100"}, {145, 0x10, "gfx1102"},
      {145, 0x20, "gfx1101"}, {148, 0x01, "gfx1103"}, {150, 0x01, "gfx1150"},
   };
   for (unsigned i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
      const struct amdgpu_gfx_id *id = amdgpu_gfx_id_lookup(ids[i].family, ids[i].rev);
      assert_non_null(id);
      assert_string_equal(id->gfx, ids[i].gfx);
   }
   assert_null(amdgpu_gfx_id_lookup(130, 0x01)); /* GFX8 */
   assert_null(amdgpu_gfx_id_lookup(141, 0x00));
   assert_null(amdgpu_gfx_id_lookup(143, 0x50));
}

static void test_bo_vram(void **state)
{
   (void)state;
   struct amdgpu_winsys *ws = one_gpu(143, 0x28);
   struct amdgpu_ws_bo *bo = NULL;
   assert_int_equal(amdgpu_ws_bo_create(ws, 5000, 256, AMDGPU_WS_VRAM, false, &bo), CL_SUCCESS);
   /* Pages: 5000 bytes take two. */
   assert_int_equal(bo->size, 8192);
   int i = fake_drm_bo_index(bo->handle);
   assert_true(i >= 0);
   assert_int_equal(fake.bos[i].req.alloc_size, 8192);
   assert_int_equal(fake.bos[i].req.phys_alignment, 4096);
   assert_int_equal(fake.bos[i].req.preferred_heap, AMDGPU_GEM_DOMAIN_VRAM);
   assert_int_equal(fake.bos[i].req.flags, AMDGPU_GEM_CREATE_NO_CPU_ACCESS);
   /* Mapped in the GPU's address space at the VA range it got. */
   assert_int_not_equal(bo->va, 0);
   assert_int_equal(fake.bos[i].va, bo->va);
   assert_int_equal(bo->va % 4096, 0);
   void *cpu = NULL;
   assert_int_equal(amdgpu_ws_bo_map(ws, bo, &cpu), CL_MAP_FAILURE);
   assert_int_equal(fake.bos[i].cpu_maps, 0);
   amdgpu_ws_bo_destroy(ws, bo);
   assert_false(fake.bos[i].live);
   assert_int_equal(fake.bos[i].va, 0);
   amdgpu_winsys_destroy(ws);
}

static void test_bo_gtt_map(void **state)
{
   (void)state;
   struct amdgpu_winsys *ws = one_gpu(145, 0x01);
   struct amdgpu_ws_bo *a = NULL, *b = NULL;
   assert_int_equal(amdgpu_ws_bo_create(ws, 4096, 0, AMDGPU_WS_GTT, true, &a), CL_SUCCESS);
   assert_int_equal(amdgpu_ws_bo_create(ws, 1 << 20, 65536, AMDGPU_WS_VRAM, true, &b),
                    CL_SUCCESS);
   int ia = fake_drm_bo_index(a->handle), ib = fake_drm_bo_index(b->handle);
   assert_int_equal(fake.bos[ia].req.preferred_heap, AMDGPU_GEM_DOMAIN_GTT);
   assert_int_equal(fake.bos[ib].req.flags, AMDGPU_GEM_CREATE_CPU_ACCESS_REQUIRED);
   assert_int_equal(fake.bos[ib].req.phys_alignment, 65536);
   assert_int_equal(b->va % 65536, 0);
   /* Distinct, non-overlapping VA ranges. */
   assert_true(a->va + a->size <= b->va || b->va + b->size <= a->va);
   uint32_t *p = NULL, *again = NULL;
   assert_int_equal(amdgpu_ws_bo_map(ws, a, (void **)&p), CL_SUCCESS);
   assert_int_equal(amdgpu_ws_bo_map(ws, a, (void **)&again), CL_SUCCESS);
   assert_ptr_equal(p, again);
   assert_int_equal(fake.bos[ia].cpu_maps, 1);
   p[3] = 0xdeadbeef;
   /* The same memory the GPU sees at va + 12. */
   assert_int_equal(*(uint32_t *)fake_drm_va_to_cpu(a->va + 12, 4), 0xdeadbeef);
   /* A failing map leaves the BO usable and unmapped. */
   fake.fail_cpu_map = -ENOMEM;
   void *q;
   assert_int_equal(amdgpu_ws_bo_map(ws, b, &q), CL_MAP_FAILURE);
   assert_int_equal(fake.bos[ib].cpu_maps, 0);
   amdgpu_ws_bo_destroy(ws, a);
   amdgpu_ws_bo_destroy(ws, b);
   amdgpu_ws_bo_destroy(ws, NULL);
   amdgpu_winsys_destroy(ws);
}

/* Each step of making a BO can fail; the earlier steps are undone. */
static void test_bo_errors(void **state)
{
   (void)state;
   struct amdgpu_winsys *ws = one_gpu(141, 0x01);
   struct amdgpu_ws_bo *bo = NULL;
   fake.fail_bo_alloc = -ENOMEM;
   assert_int_equal(amdgpu_ws_bo_create(ws, 4096, 0, AMDGPU_WS_VRAM, false, &bo),
                    CL_MEM_OBJECT_ALLOCATION_FAILURE);
   fake.fail_bo_alloc = -EINVAL;
   assert_int_equal(amdgpu_ws_bo_create(ws, 4096, 0, AMDGPU_WS_VRAM, false, &bo),
                    CL_OUT_OF_RESOURCES);
   fake.fail_va_alloc = -ENOMEM;
   assert_int_equal(amdgpu_ws_bo_create(ws, 4096, 0, AMDGPU_WS_GTT, true, &bo),
                    CL_MEM_OBJECT_ALLOCATION_FAILURE);
   fake.fail_va_op = -EINVAL;
   assert_int_equal(amdgpu_ws_bo_create(ws, 4096, 0, AMDGPU_WS_GTT, true, &bo),
                    CL_OUT_OF_RESOURCES);
   assert_null(bo);
   assert_int_equal(amdgpu_ws_bo_create(ws, 0, 0, AMDGPU_WS_GTT, true, &bo),
                    CL_INVALID_BUFFER_SIZE);
   /* Nothing of the failed attempts is live (teardown checks all). */
   unsigned live = 0;
   for (unsigned i = 0; i < FAKE_MAX_BOS; i++)
      live += fake.bos[i].live + fake.vas[i].live;
   assert_int_equal(live, 0);
   amdgpu_winsys_destroy(ws);
}

/* An IB of PM4 with the buffers it uses. */
struct job {
   struct amdgpu_ws_bo *ib, *a, *b;
};

static void job_make(struct amdgpu_winsys *ws, struct job *j)
{
   assert_int_equal(amdgpu_ws_bo_create(ws, 4096, 0, AMDGPU_WS_GTT, true, &j->ib), CL_SUCCESS);
   assert_int_equal(amdgpu_ws_bo_create(ws, 4096, 0, AMDGPU_WS_VRAM, false, &j->a), CL_SUCCESS);
   assert_int_equal(amdgpu_ws_bo_create(ws, 4096, 0, AMDGPU_WS_VRAM, false, &j->b), CL_SUCCESS);
   uint32_t *p;
   assert_int_equal(amdgpu_ws_bo_map(ws, j->ib, (void **)&p), CL_SUCCESS);
   for (unsigned i = 0; i < 8; i++)
      p[i] = 0xffff1000u; /* type-3 NOPs */
}

static void job_free(struct amdgpu_winsys *ws, struct job *j)
{
   amdgpu_ws_bo_destroy(ws, j->ib);
   amdgpu_ws_bo_destroy(ws, j->a);
   amdgpu_ws_bo_destroy(ws, j->b);
}

static void test_submit(void **state)
{
   (void)state;
   struct amdgpu_winsys *ws = one_gpu(143, 0x28);
   struct job j;
   job_make(ws, &j);
   struct amdgpu_ws_bo *bos[] = {j.a, j.b};
   uint64_t seq = 0;
   assert_int_equal(amdgpu_ws_submit(ws, j.ib, 8, bos, 2, &seq), CL_SUCCESS);
   assert_int_equal(fake.num_submits, 1);
   const struct fake_submit *s = &fake.submits[0];
   assert_int_equal(s->ip_type, AMDGPU_HW_IP_COMPUTE);
   assert_int_equal(s->ring, 0);
   assert_int_equal(s->ib_va, j.ib->va);
   assert_int_equal(s->ib_dwords, 8);
   assert_int_equal(s->ib[7], 0xffff1000u);
   /* Exactly the IB and the two buffers are resident. */
   assert_int_equal(s->num_bos, 3);
   assert_int_equal(s->bos[0], fake_drm_bo_index(j.ib->handle));
   assert_int_equal(s->bos[1], fake_drm_bo_index(j.a->handle));
   assert_int_equal(s->bos[2], fake_drm_bo_index(j.b->handle));
   assert_int_equal(seq, s->seq);
   assert_int_equal(fake.bo_lists, 0);
   bool timed_out = true;
   assert_int_equal(amdgpu_ws_fence_wait(ws, seq, 1000000000ull, &timed_out), CL_SUCCESS);
   assert_false(timed_out);
   /* An IB bigger than its BO is refused before the kernel sees it. */
   assert_int_equal(amdgpu_ws_submit(ws, j.ib, 1025, bos, 2, &seq), CL_INVALID_VALUE);
   assert_int_equal(fake.num_submits, 1);
   job_free(ws, &j);
   amdgpu_winsys_destroy(ws);
}

static void test_submit_errors(void **state)
{
   (void)state;
   struct amdgpu_winsys *ws = one_gpu(145, 0x01);
   struct job j;
   job_make(ws, &j);
   struct amdgpu_ws_bo *bos[] = {j.a, j.b};
   uint64_t seq = 0;
   fake.fail_bo_list = -ENOMEM;
   assert_int_equal(amdgpu_ws_submit(ws, j.ib, 8, bos, 2, &seq), CL_OUT_OF_RESOURCES);
   /* The kernel refusing a submission (out of memory making BOs
    * resident) fails it alone. */
   fake.fail_submit = -ENOMEM;
   assert_int_equal(amdgpu_ws_submit(ws, j.ib, 8, bos, 2, &seq), CL_OUT_OF_RESOURCES);
   assert_false(amdgpu_winsys_lost(ws));
   assert_int_equal(fake.bo_lists, 0);
   assert_int_equal(amdgpu_ws_submit(ws, j.ib, 8, bos, 2, &seq), CL_SUCCESS);
   /* A cancelled context (GPU reset) loses the device: nothing more is
    * sent to the kernel, and new BOs are refused. */
   fake.fail_submit = -ECANCELED;
   assert_int_equal(amdgpu_ws_submit(ws, j.ib, 8, bos, 2, &seq), CL_OUT_OF_RESOURCES);
   assert_true(amdgpu_winsys_lost(ws));
   unsigned before = fake.num_submits;
   assert_int_equal(amdgpu_ws_submit(ws, j.ib, 8, bos, 2, &seq), CL_OUT_OF_RESOURCES);
   assert_int_equal(fake.num_submits, before);
   struct amdgpu_ws_bo *bo = NULL;
   assert_int_equal(amdgpu_ws_bo_create(ws, 4096, 0, AMDGPU_WS_GTT, true, &bo),
                    CL_OUT_OF_RESOURCES);
   job_free(ws, &j);
   amdgpu_winsys_destroy(ws);
}

static void test_fence_errors(void **state)
{
   (void)state;
   struct amdgpu_winsys *ws = one_gpu(141, 0x3c);
   struct job j;
   job_make(ws, &j);
   uint64_t seq = 0;
   assert_int_equal(amdgpu_ws_submit(ws, j.ib, 8, NULL, 0, &seq), CL_SUCCESS);
   assert_int_equal(fake.submits[0].num_bos, 1);
   bool timed_out = false;
   /* A kernel that does not end in time. */
   fake.fence_never_signals = true;
   assert_int_equal(amdgpu_ws_fence_wait(ws, seq, 1000, &timed_out), CL_OUT_OF_RESOURCES);
   assert_true(timed_out);
   assert_false(amdgpu_winsys_lost(ws));
   /* The query itself failing. */
   fake.fence_never_signals = false;
   fake.fail_fence = -EINVAL;
   assert_int_equal(amdgpu_ws_fence_wait(ws, seq, 1000, &timed_out), CL_OUT_OF_RESOURCES);
   assert_false(timed_out);
   assert_false(amdgpu_winsys_lost(ws));
   assert_int_equal(amdgpu_ws_fence_wait(ws, seq, 1000, &timed_out), CL_SUCCESS);
   /* A reset signals the fence, but the work did not run. */
   fake.reset = true;
   assert_int_equal(amdgpu_ws_fence_wait(ws, seq, 1000, &timed_out), CL_OUT_OF_RESOURCES);
   assert_true(amdgpu_winsys_lost(ws));
   job_free(ws, &j);
   amdgpu_winsys_destroy(ws);
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_probe_nothing, setup, teardown),
      cmocka_unit_test_setup_teardown(test_probe_skips, setup, teardown),
      cmocka_unit_test_setup_teardown(test_probe_info, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gfx_ids, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bo_vram, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bo_gtt_map, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bo_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_submit, setup, teardown),
      cmocka_unit_test_setup_teardown(test_submit_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fence_errors, setup, teardown),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
