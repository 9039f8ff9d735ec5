/* The whole AMDGPU path against a fake libdrm: clGetDeviceIDs finds the
 * faked GPUs (one gfx9, one gfx11), then clCreateContext → build from
 * source → clSetKernelArg → clEnqueueNDRangeKernel → clFinish, and the
 * test checks what reached the "kernel": the BOs of the submission, their
 * VA mappings, the kernarg and dispatch packet bytes, and every register
 * the IB writes, decoded from its PM4.  Nothing runs the kernels (no
 * GPU), so results are not checked here.  The error paths (BO allocation,
 * submission, fence timeout, lost device) must end in CL errors with no
 * BO left behind.
 *
 * amdgpu_drm_load is wrapped at link time to hand out fake_drm.c. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <CL/cl.h>

#include "fake_drm.h"
#include "kiln/cl_version.h"
#include "pipe/amdgpu/amdgpu_pm4.h"
#include "pipe/amdgpu/amdgpu_regs.h"

struct amdgpu_drm *__wrap_amdgpu_drm_load(void);
void __wrap_amdgpu_drm_unload(struct amdgpu_drm *drm);

struct amdgpu_drm *__wrap_amdgpu_drm_load(void)
{
   return (struct amdgpu_drm *)fake_drm_table();
}

void __wrap_amdgpu_drm_unload(struct amdgpu_drm *drm)
{
   (void)drm;
}

/* ---- reading back an IB ---- */

struct decoded {
   uint32_t reg[0x1000]; /* SH registers by (address - 0xb000) / 4 */
   bool set[0x1000];
   unsigned acquire_mem, dispatches, partial_flushes;
   uint32_t acquire_body[8];
   uint32_t dispatch[4];
   bool bad;
};

static uint32_t reg(const struct decoded *d, uint32_t addr)
{
   unsigned i = (addr - SH_REG_BASE) / 4;
   assert_true(d->set[i]);
   return d->reg[i];
}

static bool has_reg(const struct decoded *d, uint32_t addr)
{
   return d->set[(addr - SH_REG_BASE) / 4];
}

static void decode(const struct fake_submit *s, struct decoded *d)
{
   memset(d, 0, sizeof(*d));
   for (uint32_t i = 0; i < s->ib_dwords;) {
      uint32_t h = s->ib[i];
      if (h == PM4_NOP_FILLER) {
         i++;
         continue;
      }
      assert_int_equal(PM4_PKT_TYPE(h), 3);
      assert_int_equal(h & 2, 2); /* SHADER_TYPE: compute */
      uint32_t n = PM4_PKT3_BODY(h);
      assert_true(i + 1 + n <= s->ib_dwords);
      const uint32_t *body = &s->ib[i + 1];
      switch (PM4_PKT3_OPCODE(h)) {
      case PM4_SET_SH_REG:
         for (uint32_t k = 1; k < n; k++) {
            assert_true(body[0] + k - 1 < 0x1000);
            d->reg[body[0] + k - 1] = body[k];
            d->set[body[0] + k - 1] = true;
         }
         break;
      case PM4_EVENT_WRITE:
         /* Launches are not waited for: each IB first waits for the
          * ring's earlier dispatches, before its caches are invalidated. */
         assert_int_equal(n, 1);
         assert_int_equal(body[0], EVENT_TYPE(EVENT_CS_PARTIAL_FLUSH) | EVENT_INDEX(4));
         assert_int_equal(d->acquire_mem + d->dispatches, 0);
         d->partial_flushes++;
         break;
      case PM4_ACQUIRE_MEM:
         /* Caches are invalidated before the dispatch, not after. */
         assert_int_equal(d->dispatches, 0);
         d->acquire_mem++;
         memcpy(d->acquire_body, body, n * 4 < sizeof(d->acquire_body) ? n * 4 : sizeof(d->acquire_body));
         break;
      case PM4_DISPATCH_DIRECT:
         assert_int_equal(n, 4);
         memcpy(d->dispatch, body, sizeof(d->dispatch));
         d->dispatches++;
         break;
      default:
         fail_msg("unexpected PM4 opcode 0x%x", PM4_PKT3_OPCODE(h));
      }
      i += 1 + n;
   }
   assert_int_equal(s->ib_dwords % 8, 0);
}

/* ---- the CL side ---- */

static cl_platform_id platform;
static cl_device_id gpus[2]; /* gfx900, gfx1100 */

static unsigned live_bos(void)
{
   unsigned n = 0;
   for (unsigned i = 0; i < FAKE_MAX_BOS; i++)
      n += fake.bos[i].live;
   return n;
}

static const char *kernels_src =
   "__kernel void saxpy(float a, __global const float *x, __global float *y)\n"
   "{ size_t i = get_global_id(0); y[i] = a * x[i] + y[i]; }\n"
   "__kernel void local_args(__global float *out, __local float *a, __local int *b)\n"
   "{ size_t l = get_local_id(0); a[l] = l; b[l] = 2 * l;\n"
   "  barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  out[get_global_id(0)] = a[(l + 1) % get_local_size(0)] + b[l]; }\n"
   "#define T 16\n"
   "__kernel void tiles(__global float *c)\n"
   "{ __local float t[T][T]; int x = get_local_id(0), y = get_local_id(1);\n"
   "  t[y][x] = get_global_id(0); barrier(CLK_LOCAL_MEM_FENCE);\n"
   "  c[get_global_id(1) * get_global_size(0) + get_global_id(0)] = t[x][y]; }\n"
   "__kernel void priv(__global const int *idx, __global int *out)\n"
   "{ int buf[256]; int i = get_global_id(0);\n"
   "  for (int k = 0; k < 256; k++) buf[k] = i * k + idx[k];\n"
   "  out[i] = buf[idx[i] & 255]; }\n";

struct env {
   cl_device_id dev;
   unsigned level;
   cl_context ctx;
   cl_command_queue q;
   cl_program prog;
};

static void env_open(struct env *e, unsigned which)
{
   cl_int err;
   e->dev = gpus[which];
   e->level = which ? 11 : 9;
   e->ctx = clCreateContext(NULL, 1, &e->dev, NULL, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   e->q = clCreateCommandQueue(e->ctx, e->dev, 0, &err);
   assert_int_equal(err, CL_SUCCESS);
   e->prog = clCreateProgramWithSource(e->ctx, 1, &kernels_src, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   err = clBuildProgram(e->prog, 1, &e->dev, "", NULL, NULL);
   if (err) {
      char log[8192] = "";
      clGetProgramBuildInfo(e->prog, e->dev, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL);
      fprintf(stderr, "%s\n", log);
   }
   assert_int_equal(err, CL_SUCCESS);
}

static void env_close(struct env *e)
{
   clReleaseProgram(e->prog);
   clReleaseCommandQueue(e->q);
   clReleaseContext(e->ctx);
}

/* The live BO the fake holds at va, and that va is where the BO starts. */
static int bo_at(uint64_t va)
{
   for (int i = 0; i < FAKE_MAX_BOS; i++)
      if (fake.bos[i].live && fake.bos[i].va == va)
         return i;
   return -1;
}

static bool submitted(const struct fake_submit *s, int bo)
{
   for (unsigned i = 0; i < s->num_bos; i++)
      if (s->bos[i] == bo)
         return true;
   return false;
}

static uint64_t u64_at(const uint8_t *p)
{
   uint64_t v;
   memcpy(&v, p, 8);
   return v;
}

static uint32_t u32_at(const uint8_t *p)
{
   uint32_t v;
   memcpy(&v, p, 4);
   return v;
}

/* Set by the scratch test: check_dispatch leaves TMPRING and the scratch
 * buffer resource to it. */
static bool scratch_kernel;

/* Checks the registers every dispatch of kernel k must write. */
static void check_dispatch(const struct env *e, const struct fake_submit *s,
                           const struct decoded *d, const uint32_t local[3],
                           const uint32_t groups[3], uint32_t lds, uint64_t *kernarg_va,
                           uint64_t *dispatch_va)
{
   assert_int_equal(s->ip_type, AMDGPU_HW_IP_COMPUTE);
   assert_int_equal(d->dispatches, 1);
   assert_int_equal(d->acquire_mem, 1);
   assert_int_equal(d->partial_flushes, 1);
   if (e->level >= 10) {
      /* gfx10+: the actions are in GCR_CNTL, the 7th dword. */
      assert_int_equal(d->acquire_body[0], 0);
      assert_int_equal(d->acquire_body[6], GCR_GLI_INV_ALL | GCR_GLK_INV | GCR_GLV_INV |
                                                 GCR_GL1_INV | GCR_GL2_INV | GCR_GL2_WB);
   } else {
      assert_int_equal(d->acquire_body[0], COHER_SH_ICACHE_ACTION_ENA |
                                                 COHER_SH_KCACHE_ACTION_ENA | COHER_TC_ACTION_ENA |
                                                 COHER_TC_WB_ACTION_ENA | COHER_TCL1_ACTION_ENA);
   }
   for (int i = 0; i < 3; i++) {
      assert_int_equal(reg(d, R_COMPUTE_START_X + 4 * i), 0);
      assert_int_equal(reg(d, R_COMPUTE_NUM_THREAD_X + 4 * i), local[i]);
      assert_int_equal(d->dispatch[i], groups[i]);
   }
   uint32_t init = d->dispatch[3];
   assert_true(init & DISPATCH_COMPUTE_SHADER_EN);
   assert_true(init & DISPATCH_FORCE_START_AT_000);
   /* Wave32 on RDNA, as the code object says. */
   assert_int_equal(!!(init & DISPATCH_CS_W32_EN), e->level >= 10);

   /* The program: PGM_LO/HI hold a 256-byte aligned address in a BO of
    * the submission, right after the kernel's amd_kernel_code_t. */
   uint64_t pgm = ((uint64_t)reg(d, R_COMPUTE_PGM_HI) << 40) | ((uint64_t)reg(d, R_COMPUTE_PGM_LO) << 8);
   const uint8_t *hdr = fake_submit_va_to_cpu(s, pgm - AKC_SIZE, AKC_SIZE);
   assert_non_null(hdr);
   assert_int_equal(u32_at(hdr + AKC_VERSION_MAJOR), 1);
   assert_int_equal(u64_at(hdr + AKC_ENTRY_BYTE_OFFSET), AKC_SIZE);
   uint32_t rsrc1 = u32_at(hdr + AKC_PGM_RSRC1), rsrc2 = u32_at(hdr + AKC_PGM_RSRC2);
   if (e->level >= 10)
      rsrc1 &= ~AMDGPU_FIELD(0xf, 6, 4);
   assert_int_equal(reg(d, R_COMPUTE_PGM_RSRC1), rsrc1);
   /* RSRC2 as compiled, with LDS_SIZE covering static + __local args. */
   uint32_t r2 = reg(d, R_COMPUTE_PGM_RSRC2);
   assert_int_equal(r2 & ~RSRC2_LDS_SIZE_MASK, rsrc2 & ~RSRC2_LDS_SIZE_MASK);
   assert_int_equal(RSRC2_LDS_SIZE(r2), (lds + 511) / 512);
   assert_int_equal(has_reg(d, R_COMPUTE_PGM_RSRC3), e->level >= 10);
   if (e->level >= 10)
      assert_int_equal(reg(d, R_COMPUTE_PGM_RSRC3), 0);
   assert_int_equal(has_reg(d, R_COMPUTE_USER_ACCUM_0), e->level >= 11);
   if (!scratch_kernel) {
      assert_int_equal(reg(d, R_COMPUTE_TMPRING_SIZE), 0);
      assert_false(has_reg(d, R_COMPUTE_DISPATCH_SCRATCH_BASE_LO));
   }
   assert_int_equal(reg(d, R_COMPUTE_RESOURCE_LIMITS), 0);
   assert_int_equal(reg(d, R_COMPUTE_STATIC_THREAD_MGMT_SE0), 0xffffffff);
   assert_int_equal(reg(d, R_COMPUTE_STATIC_THREAD_MGMT_SE3), 0xffffffff);

   /* User SGPRs, in the layout the descriptor asks for: gfx9 s[0:3]
    * scratch buffer (0: none), s[4:5] dispatch packet, s[6:7] kernarg;
    * gfx11 s[0:1] dispatch packet, s[2:3] kernarg. */
   unsigned nuser = RSRC2_USER_SGPR(r2);
   for (unsigned i = 0; i < nuser; i++)
      assert_true(has_reg(d, R_COMPUTE_USER_DATA_0 + 4 * i));
   assert_false(has_reg(d, R_COMPUTE_USER_DATA_0 + 4 * nuser));
   unsigned dp = e->level >= 11 ? 0 : 4;
   if (e->level < 11 && !scratch_kernel)
      for (unsigned i = 0; i < 4; i++)
         assert_int_equal(reg(d, R_COMPUTE_USER_DATA_0 + 4 * i), 0);
   *dispatch_va = reg(d, R_COMPUTE_USER_DATA_0 + 4 * dp) |
                  (uint64_t)reg(d, R_COMPUTE_USER_DATA_0 + 4 * (dp + 1)) << 32;
   *kernarg_va = reg(d, R_COMPUTE_USER_DATA_0 + 4 * (dp + 2)) |
                 (uint64_t)reg(d, R_COMPUTE_USER_DATA_0 + 4 * (dp + 3)) << 32;
   for (unsigned i = dp + 4; i < nuser && !scratch_kernel; i++)
      assert_int_equal(reg(d, R_COMPUTE_USER_DATA_0 + 4 * i), 0);

   /* The dispatch packet: sizes libclc reads. */
   const uint8_t *pkt = fake_submit_va_to_cpu(s, *dispatch_va, 64);
   assert_non_null(pkt);
   for (int i = 0; i < 3; i++) {
      uint16_t wg;
      memcpy(&wg, pkt + 4 + 2 * i, 2);
      assert_int_equal(wg, local[i]);
      assert_int_equal(u32_at(pkt + 12 + 4 * i), local[i] * groups[i]);
   }
   assert_int_equal(u32_at(pkt + 28), lds);
   assert_int_equal(u64_at(pkt + 32), pgm);
   assert_int_equal(u64_at(pkt + 40), *kernarg_va);
}

/* The BOs of a submission: IB, kernarg (with the dispatch packet), code,
 * and exactly the buffers given. */
static void check_bos(const struct fake_submit *s, uint64_t kernarg_va, uint64_t dispatch_va,
                      uint64_t code_va, const uint64_t *buffers, unsigned nbuf)
{
   assert_int_equal(s->num_bos, 3 + nbuf);
   /* The IB is the list's first. */
   assert_int_equal(s->bo_va[0], s->ib_va);
   /* Kernarg and dispatch packet share one GTT BO; all are GTT. */
   int kb = -1, cb = -1;
   for (unsigned i = 0; i < s->num_bos; i++) {
      const struct fake_bo *b = &fake.bos[s->bos[i]];
      assert_int_equal(b->req.preferred_heap, AMDGPU_GEM_DOMAIN_GTT);
      if (s->bo_va[i] == dispatch_va)
         kb = s->bos[i];
      if (code_va >= s->bo_va[i] && code_va < s->bo_va[i] + s->bo_size[i])
         cb = s->bos[i];
   }
   assert_true(kb >= 0 && cb >= 0 && kb != cb);
   assert_int_equal(kernarg_va, dispatch_va + 64);
   for (unsigned k = 0; k < nbuf; k++) {
      int b = bo_at(buffers[k]);
      assert_true(b >= 0);
      assert_true(submitted(s, b));
   }
}

static cl_mem buffer(const struct env *e, size_t size, uint64_t *va)
{
   cl_int err;
   unsigned before = live_bos();
   cl_mem m = clCreateBuffer(e->ctx, CL_MEM_READ_WRITE, size, NULL, &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_int_equal(live_bos(), before + 1);
   /* The newest BO is the buffer's: find it by elimination. */
   uint64_t newest = 0;
   for (int i = 0; i < FAKE_MAX_BOS; i++)
      if (fake.bos[i].live && fake.bos[i].va > newest)
         newest = fake.bos[i].va;
   *va = newest;
   /* A buffer is a GTT BO mapped for the CPU, of at least its size. */
   int b = bo_at(newest);
   assert_true(fake.bos[b].req.alloc_size >= size);
   assert_int_equal(fake.bos[b].cpu_maps, 1);
   return m;
}

static void run_saxpy(unsigned which)
{
   struct env e;
   env_open(&e, which);
   unsigned base_bos = live_bos(); /* the program's code */
   assert_int_equal(base_bos, 1);
   uint64_t xva, yva;
   cl_mem x = buffer(&e, 4096, &xva), y = buffer(&e, 4096, &yva);
   /* Host writes reach the BOs (GTT, mapped). */
   float host[1024];
   for (int i = 0; i < 1024; i++)
      host[i] = (float)i;
   assert_int_equal(clEnqueueWriteBuffer(e.q, x, CL_TRUE, 0, sizeof(host), host, 0, NULL, NULL),
                    CL_SUCCESS);
   assert_int_equal(((float *)fake_drm_va_to_cpu(xva, 4096))[77], 77.0f);

   cl_int err;
   cl_kernel k = clCreateKernel(e.prog, "saxpy", &err);
   assert_int_equal(err, CL_SUCCESS);
   cl_float a = 2.5f;
   assert_int_equal(clSetKernelArg(k, 0, sizeof(a), &a), CL_SUCCESS);
   assert_int_equal(clSetKernelArg(k, 1, sizeof(x), &x), CL_SUCCESS);
   assert_int_equal(clSetKernelArg(k, 2, sizeof(y), &y), CL_SUCCESS);
   size_t global = 1024, local = 64, offset = 32;
   unsigned submits = fake.num_submits;
   assert_int_equal(clEnqueueNDRangeKernel(e.q, k, 1, &offset, &global, &local, 0, NULL, NULL),
                    CL_SUCCESS);
   assert_int_equal(clFinish(e.q), CL_SUCCESS);
   assert_int_equal(fake.num_submits, submits + 1);
   const struct fake_submit *s = &fake.submits[submits];
   struct decoded *d = calloc(1, sizeof(*d));
   decode(s, d);
   const uint32_t lsz[3] = {64, 1, 1}, groups[3] = {16, 1, 1};
   uint64_t kva, dva;
   check_dispatch(&e, s, d, lsz, groups, 0, &kva, &dva);
   uint64_t pgm = ((uint64_t)reg(d, R_COMPUTE_PGM_HI) << 40) | ((uint64_t)reg(d, R_COMPUTE_PGM_LO) << 8);
   const uint64_t bufs[2] = {xva, yva};
   check_bos(s, kva, dva, pgm, bufs, 2);
   /* The kernarg segment, byte by byte: a, x, y, then work_dim and the
    * global offsets. */
   const uint8_t *ka = fake_submit_va_to_cpu(s, kva, 40);
   assert_non_null(ka);
   float got_a;
   memcpy(&got_a, ka, 4);
   assert_true(got_a == 2.5f);
   assert_int_equal(u64_at(ka + 8), xva);
   assert_int_equal(u64_at(ka + 16), yva);
   assert_int_equal(u32_at(ka + 24), 1);
   assert_int_equal(u32_at(ka + 28), 32);
   assert_int_equal(u32_at(ka + 32), 0);
   assert_int_equal(u32_at(ka + 36), 0);
   free(d);
   /* The launch's own BOs (IB, kernarg) are gone after the fence. */
   assert_int_equal(live_bos(), base_bos + 2);
   clReleaseKernel(k);
   clReleaseMemObject(x);
   clReleaseMemObject(y);
   env_close(&e);
   assert_int_equal(live_bos(), 0);
}

static void test_saxpy_gfx9(void **state)
{
   (void)state;
   run_saxpy(0);
}

static void test_saxpy_gfx11(void **state)
{
   (void)state;
   run_saxpy(1);
}

/* The dispatch packet's grid size and the implicit global offsets are
 * 32-bit: larger grids are refused at enqueue, nothing is submitted, and
 * the largest that fits goes out unwrapped. */
static void test_grid_limits(void **state)
{
   (void)state;
   struct env e;
   env_open(&e, 1);
   uint64_t xva, yva;
   cl_mem x = buffer(&e, 4096, &xva), y = buffer(&e, 4096, &yva);
   cl_int err;
   cl_kernel k = clCreateKernel(e.prog, "saxpy", &err);
   assert_int_equal(err, CL_SUCCESS);
   cl_float a = 1.0f;
   assert_int_equal(clSetKernelArg(k, 0, sizeof(a), &a), CL_SUCCESS);
   assert_int_equal(clSetKernelArg(k, 1, sizeof(x), &x), CL_SUCCESS);
   assert_int_equal(clSetKernelArg(k, 2, sizeof(y), &y), CL_SUCCESS);
   unsigned submits = fake.num_submits;
   size_t big = (size_t)1 << 32, local = 64;
   assert_int_equal(clEnqueueNDRangeKernel(e.q, k, 1, NULL, &big, &local, 0, NULL, NULL),
                    CL_INVALID_GLOBAL_WORK_SIZE);
   assert_int_equal(clEnqueueNDRangeKernel(e.q, k, 1, NULL, &big, NULL, 0, NULL, NULL),
                    CL_INVALID_GLOBAL_WORK_SIZE);
   size_t g2[2] = {64, big};
   assert_int_equal(clEnqueueNDRangeKernel(e.q, k, 2, NULL, g2, NULL, 0, NULL, NULL),
                    CL_INVALID_GLOBAL_WORK_SIZE);
   size_t global = 1024, offset = big;
   assert_int_equal(clEnqueueNDRangeKernel(e.q, k, 1, &offset, &global, &local, 0, NULL, NULL),
                    CL_INVALID_GLOBAL_OFFSET);
   assert_int_equal(clFinish(e.q), CL_SUCCESS);
   assert_int_equal(fake.num_submits, submits);
   /* The largest multiple of 64 below 2^32, at offset 2^32 - 1. */
   global = big - 64;
   offset = big - 1;
   assert_int_equal(clEnqueueNDRangeKernel(e.q, k, 1, &offset, &global, &local, 0, NULL, NULL),
                    CL_SUCCESS);
   assert_int_equal(clFinish(e.q), CL_SUCCESS);
   assert_int_equal(fake.num_submits, submits + 1);
   struct decoded *d = calloc(1, sizeof(*d));
   const struct fake_submit *s = &fake.submits[submits];
   decode(s, d);
   const uint32_t lsz[3] = {64, 1, 1}, groups[3] = {(uint32_t)(global / 64), 1, 1};
   uint64_t kva, dva;
   check_dispatch(&e, s, d, lsz, groups, 0, &kva, &dva);
   /* check_dispatch saw the packet's grid size: 64 x groups. */
   const uint8_t *ka = fake_submit_va_to_cpu(s, kva, 40);
   assert_non_null(ka);
   assert_int_equal(u32_at(ka + 28), (uint32_t)offset);
   free(d);
   clReleaseKernel(k);
   clReleaseMemObject(x);
   clReleaseMemObject(y);
   env_close(&e);
}

/* __local arguments land after the static LDS, and RSRC2 covers them. */
static void run_local(unsigned which)
{
   struct env e;
   env_open(&e, which);
   uint64_t ova;
   cl_mem out = buffer(&e, 4096, &ova);
   cl_int err;
   cl_kernel k = clCreateKernel(e.prog, "local_args", &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_int_equal(clSetKernelArg(k, 0, sizeof(out), &out), CL_SUCCESS);
   assert_int_equal(clSetKernelArg(k, 1, 1000, NULL), CL_SUCCESS);
   assert_int_equal(clSetKernelArg(k, 2, 256, NULL), CL_SUCCESS);
   size_t global = 256, local = 128;
   unsigned submits = fake.num_submits;
   assert_int_equal(clEnqueueNDRangeKernel(e.q, k, 1, NULL, &global, &local, 0, NULL, NULL),
                    CL_SUCCESS);
   assert_int_equal(clFinish(e.q), CL_SUCCESS);
   assert_int_equal(fake.num_submits, submits + 1);
   struct decoded *d = calloc(1, sizeof(*d));
   const struct fake_submit *s = &fake.submits[submits];
   decode(s, d);
   const uint32_t lsz[3] = {128, 1, 1}, groups[3] = {2, 1, 1};
   uint64_t kva, dva;
   /* 1000 bytes rounded to 128, then 256: 1280 bytes of LDS. */
   check_dispatch(&e, s, d, lsz, groups, 1024 + 256, &kva, &dva);
   const uint8_t *ka = fake_submit_va_to_cpu(s, kva, 32);
   assert_int_equal(u64_at(ka), ova);
   assert_int_equal(u32_at(ka + 8), 0);    /* a: LDS offset 0 */
   assert_int_equal(u32_at(ka + 12), 1024); /* b */
   assert_int_equal(u32_at(ka + 16), 1);    /* work_dim */
   free(d);
   clReleaseKernel(k);
   clReleaseMemObject(out);
   env_close(&e);
   assert_int_equal(live_bos(), 0);
}

static void test_local_gfx9(void **state)
{
   (void)state;
   run_local(0);
}

static void test_local_gfx11(void **state)
{
   (void)state;
   run_local(1);
}

/* Two dimensions with static LDS. */
static void test_tiles_2d(void **state)
{
   (void)state;
   for (unsigned which = 0; which < 2; which++) {
      struct env e;
      env_open(&e, which);
      uint64_t cva;
      cl_mem c = buffer(&e, 64 * 32 * 4, &cva);
      cl_int err;
      cl_kernel k = clCreateKernel(e.prog, "tiles", &err);
      assert_int_equal(err, CL_SUCCESS);
      assert_int_equal(clSetKernelArg(k, 0, sizeof(c), &c), CL_SUCCESS);
      size_t global[2] = {64, 32}, local[2] = {16, 16};
      unsigned submits = fake.num_submits;
      assert_int_equal(clEnqueueNDRangeKernel(e.q, k, 2, NULL, global, local, 0, NULL, NULL),
                       CL_SUCCESS);
      assert_int_equal(clFinish(e.q), CL_SUCCESS);
      struct decoded *d = calloc(1, sizeof(*d));
      const struct fake_submit *s = &fake.submits[submits];
      decode(s, d);
      const uint32_t lsz[3] = {16, 16, 1}, groups[3] = {4, 2, 1};
      uint64_t kva, dva;
      check_dispatch(&e, s, d, lsz, groups, 16 * 16 * 4, &kva, &dva);
      uint32_t r2 = reg(d, R_COMPUTE_PGM_RSRC2);
      assert_int_equal(RSRC2_TGID_Y_EN(r2), 1);
      assert_int_equal(RSRC2_TIDIG_COMP_CNT(r2), 1);
      assert_int_equal(u32_at(fake_submit_va_to_cpu(s, kva + 8, 4)), 2); /* work_dim */
      free(d);
      clReleaseKernel(k);
      clReleaseMemObject(c);
      env_close(&e);
   }
   assert_int_equal(live_bos(), 0);
}

/* Private memory in scratch: a VRAM BO sized for 32 waves per CU,
 * COMPUTE_TMPRING_SIZE, and the buffer resource in s[0:3] (gfx9) or the
 * flat scratch base registers (gfx11). */
static void test_scratch(void **state)
{
   (void)state;
   for (unsigned which = 0; which < 2; which++) {
      struct env e;
      env_open(&e, which);
      uint64_t iva, ova;
      cl_mem idx = buffer(&e, 4096, &iva), out = buffer(&e, 4096, &ova);
      cl_int err;
      cl_kernel k = clCreateKernel(e.prog, "priv", &err);
      assert_int_equal(err, CL_SUCCESS);
      clSetKernelArg(k, 0, sizeof(idx), &idx);
      clSetKernelArg(k, 1, sizeof(out), &out);
      size_t global = 128, local = 64;
      for (int run = 0; run < 2; run++) {
         unsigned submits = fake.num_submits;
         assert_int_equal(clEnqueueNDRangeKernel(e.q, k, 1, NULL, &global, &local, 0, NULL, NULL),
                          CL_SUCCESS);
         assert_int_equal(clFinish(e.q), CL_SUCCESS);
         assert_int_equal(fake.num_submits, submits + 1);
         const struct fake_submit *s = &fake.submits[submits];
         struct decoded *d = calloc(1, sizeof(*d));
         decode(s, d);
         const uint32_t lsz[3] = {64, 1, 1}, groups[3] = {2, 1, 1};
         uint64_t kva, dva;
         scratch_kernel = true;
         check_dispatch(&e, s, d, lsz, groups, 0, &kva, &dva);
         scratch_kernel = false;
         uint32_t r2 = reg(d, R_COMPUTE_PGM_RSRC2);
         assert_int_equal(RSRC2_SCRATCH_EN(r2), 1);
         /* Bytes per lane from the descriptor, times the wave size, in
          * granules of 1 KiB (gfx9) or 256 bytes (gfx11). */
         uint64_t pgm = ((uint64_t)reg(d, R_COMPUTE_PGM_HI) << 40) |
                        ((uint64_t)reg(d, R_COMPUTE_PGM_LO) << 8);
         uint32_t lane = u32_at(fake_submit_va_to_cpu(s, pgm - AKC_SIZE, AKC_SIZE) +
                                AKC_PRIVATE_SEGMENT_SIZE);
         assert_true(lane >= 1024);
         uint32_t granule = e.level >= 11 ? 256 : 1024, lanes = e.level >= 10 ? 32 : 64;
         uint32_t per_wave = (lane * lanes + granule - 1) / granule * granule;
         uint32_t tmpring = reg(d, R_COMPUTE_TMPRING_SIZE);
         assert_int_equal(tmpring & 0xfff, 40 * 32);
         assert_int_equal(TMPRING_WAVESIZE_GET(tmpring), per_wave / granule);
         /* The scratch BO: VRAM the CPU never maps, in the submission. */
         int sb = -1;
         for (unsigned i = 0; i < s->num_bos; i++)
            if (fake.bos[s->bos[i]].req.preferred_heap == AMDGPU_GEM_DOMAIN_VRAM)
               sb = (int)i;
         assert_true(sb >= 0);
         const struct fake_bo *bo = &fake.bos[s->bos[sb]];
         assert_int_equal(bo->req.flags, AMDGPU_GEM_CREATE_NO_CPU_ACCESS);
         assert_true(s->bo_size[sb] >= (uint64_t)40 * 32 * per_wave);
         uint64_t va = s->bo_va[sb];
         if (e.level >= 11) {
            assert_int_equal(reg(d, R_COMPUTE_DISPATCH_SCRATCH_BASE_LO), (uint32_t)(va >> 8));
            assert_int_equal(reg(d, R_COMPUTE_DISPATCH_SCRATCH_BASE_HI), (uint32_t)(va >> 40));
         } else {
            assert_false(has_reg(d, R_COMPUTE_DISPATCH_SCRATCH_BASE_LO));
            assert_int_equal(reg(d, R_COMPUTE_USER_DATA_0), (uint32_t)va);
            assert_int_equal(reg(d, R_COMPUTE_USER_DATA_0 + 4),
                             (uint32_t)(va >> 32) | BUF_WORD1_SWIZZLE_ENABLE);
            assert_int_equal(reg(d, R_COMPUTE_USER_DATA_0 + 8), 0xffffffffu);
            assert_int_equal(reg(d, R_COMPUTE_USER_DATA_0 + 12),
                             BUF_WORD3_DST_SEL_XYZW | BUF_WORD3_INDEX_STRIDE(3) |
                                BUF_WORD3_ADD_TID_ENABLE | BUF_WORD3_GFX9_NUM_FORMAT_FLOAT |
                                BUF_WORD3_GFX9_DATA_FORMAT_32 | BUF_WORD3_GFX9_ELEMENT_SIZE_4);
            /* s[8:9]: flat scratch init, the same base (the kernel adds
             * its wave's offset); nothing after it. */
            assert_int_equal(RSRC2_USER_SGPR(r2), 10);
            assert_int_equal(reg(d, R_COMPUTE_USER_DATA_0 + 32), (uint32_t)va);
            assert_int_equal(reg(d, R_COMPUTE_USER_DATA_0 + 36), (uint32_t)(va >> 32));
         }
         free(d);
      }
      /* The scratch BO went with its launch. */
      assert_int_equal(live_bos(), 1 + 2);
      clReleaseKernel(k);
      clReleaseMemObject(idx);
      clReleaseMemObject(out);
      env_close(&e);
      assert_int_equal(live_bos(), 0);
   }
}

static cl_int event_status(cl_event ev)
{
   cl_int st = 1;
   assert_int_equal(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL),
                    CL_SUCCESS);
   return st;
}

/* Runs saxpy once with a failure armed; returns the event's status.
 * held: BOs of the launch still held afterwards (a launch whose fence
 * never signalled keeps its IB and kernarg until the ring moves on). */
static cl_int saxpy_failing_held(struct env *e, cl_kernel k, int held)
{
   size_t global = 64;
   cl_event ev;
   unsigned before = live_bos();
   assert_int_equal(clEnqueueNDRangeKernel(e->q, k, 1, NULL, &global, NULL, 0, NULL, &ev),
                    CL_SUCCESS);
   clFinish(e->q);
   cl_int st = event_status(ev);
   clReleaseEvent(ev);
   /* Nothing of the failed launch is left. */
   assert_int_equal(live_bos(), (unsigned)((int)before + held));
   for (int i = 0; i < FAKE_MAX_BOS; i++)
      assert_int_equal(fake.bos[i].live ? 0 : fake.bos[i].cpu_maps, 0);
   assert_int_equal(fake.bo_lists, 0);
   return st;
}

static cl_int saxpy_failing(struct env *e, cl_kernel k)
{
   return saxpy_failing_held(e, k, 0);
}

static void test_errors(void **state)
{
   (void)state;
   struct env e;
   env_open(&e, 0);
   cl_int err;
   /* A buffer the GPU has no memory for. */
   fake.fail_bo_alloc = -ENOMEM;
   unsigned before = live_bos();
   cl_mem bad = clCreateBuffer(e.ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
   assert_null(bad);
   assert_int_equal(err, CL_MEM_OBJECT_ALLOCATION_FAILURE);
   assert_int_equal(live_bos(), before);

   uint64_t xva, yva;
   cl_mem x = buffer(&e, 4096, &xva), y = buffer(&e, 4096, &yva);
   cl_kernel k = clCreateKernel(e.prog, "saxpy", &err);
   cl_float a = 1.0f;
   clSetKernelArg(k, 0, sizeof(a), &a);
   clSetKernelArg(k, 1, sizeof(x), &x);
   clSetKernelArg(k, 2, sizeof(y), &y);

   /* The kernarg BO cannot be allocated. */
   fake.fail_bo_alloc = -ENOMEM;
   assert_int_equal(saxpy_failing(&e, k), CL_MEM_OBJECT_ALLOCATION_FAILURE);
   /* A BO's GPU mapping fails. */
   fake.fail_va_op = -EINVAL;
   assert_int_equal(saxpy_failing(&e, k), CL_OUT_OF_RESOURCES);
   /* The submission is refused. */
   unsigned submits = fake.num_submits;
   fake.fail_submit = -ENOMEM;
   assert_int_equal(saxpy_failing(&e, k), CL_OUT_OF_RESOURCES);
   assert_int_equal(fake.num_submits, submits);
   /* The fence never signals: the launch fails after the timeout. */
   fake.fence_never_signals = true;
   unsigned held_before = live_bos();
   assert_int_equal(saxpy_failing_held(&e, k, 2), CL_OUT_OF_RESOURCES);
   fake.fence_never_signals = false;
   /* And then it works again, and the hung launch's BOs go with it. */
   assert_int_equal(saxpy_failing_held(&e, k, -2), CL_COMPLETE);
   assert_int_equal(live_bos(), held_before);
   /* No VRAM for a kernel's scratch. */
   cl_kernel p = clCreateKernel(e.prog, "priv", &err);
   assert_int_equal(err, CL_SUCCESS);
   clSetKernelArg(p, 0, sizeof(x), &x);
   clSetKernelArg(p, 1, sizeof(y), &y);
   submits = fake.num_submits;
   fake.fail_bo_alloc = -ENOMEM;
   assert_int_equal(saxpy_failing(&e, p), CL_MEM_OBJECT_ALLOCATION_FAILURE);
   assert_int_equal(fake.num_submits, submits);
   /* A lost device: this launch and every later one fail. */
   fake.fail_submit = -ECANCELED;
   assert_int_equal(saxpy_failing(&e, k), CL_OUT_OF_RESOURCES);
   submits = fake.num_submits;
   assert_int_equal(saxpy_failing(&e, k), CL_OUT_OF_RESOURCES);
   assert_int_equal(fake.num_submits, submits);
   clReleaseKernel(k);
   clReleaseKernel(p);
   clReleaseMemObject(x);
   clReleaseMemObject(y);
   env_close(&e);
   assert_int_equal(live_bos(), 0);
}

/* A program binary of one GPU (what kiln-compile writes, here taken from
 * clGetProgramInfo) loads on a device of that processor and runs there;
 * the other GPU refuses it. */
static void test_binary_round_trip(void **state)
{
   (void)state;
   struct env e;
   env_open(&e, 1);
   size_t size = 0;
   assert_int_equal(clGetProgramInfo(e.prog, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, NULL),
                    CL_SUCCESS);
   unsigned char *bin = malloc(size);
   assert_int_equal(clGetProgramInfo(e.prog, CL_PROGRAM_BINARIES, sizeof(bin), &bin, NULL),
                    CL_SUCCESS);
   /* The target id names the processor. */
   assert_non_null(memmem(bin, size, "amdgpu:amdgcn-mesa-mesa3d:gfx1100", 33));
   const unsigned char *bins[1] = {bin};
   cl_int err, st;
   cl_program p = clCreateProgramWithBinary(e.ctx, 1, &e.dev, &size, bins, &st, &err);
   assert_int_equal(err, CL_SUCCESS);
   assert_int_equal(clBuildProgram(p, 1, &e.dev, NULL, NULL, NULL), CL_SUCCESS);
   uint64_t ova;
   cl_mem out = buffer(&e, 4096, &ova);
   cl_kernel k = clCreateKernel(p, "local_args", &err);
   assert_int_equal(err, CL_SUCCESS);
   clSetKernelArg(k, 0, sizeof(out), &out);
   clSetKernelArg(k, 1, 64, NULL);
   clSetKernelArg(k, 2, 64, NULL);
   size_t global = 64;
   unsigned submits = fake.num_submits;
   assert_int_equal(clEnqueueNDRangeKernel(e.q, k, 1, NULL, &global, &global, 0, NULL, NULL),
                    CL_SUCCESS);
   assert_int_equal(clFinish(e.q), CL_SUCCESS);
   assert_int_equal(fake.num_submits, submits + 1);
   clReleaseKernel(k);
   clReleaseMemObject(out);
   clReleaseProgram(p);
   env_close(&e);

   /* gfx900 is another target. */
   env_open(&e, 0);
   p = clCreateProgramWithBinary(e.ctx, 1, &e.dev, &size, bins, &st, &err);
   assert_null(p);
   assert_int_equal(err, CL_INVALID_BINARY);
   assert_int_equal(st, CL_INVALID_BINARY);
   env_close(&e);
   free(bin);
   assert_int_equal(live_bos(), 0);
}

/* Program-scope __constant data builds and runs: the loader relocates
 * the code for the BO's address, and the table sits in the same BO. */
static void test_constant_program(void **state)
{
   (void)state;
   static const char *src =
      "__constant int table[8] = {3, 5, 7, 11, 13, 17, 19, 23};\n"
      "__kernel void k(__global int *o) { o[get_global_id(0)] = table[get_global_id(0) & 7]; }\n";
   cl_int err;
   for (unsigned which = 0; which < 2; which++) {
      cl_context ctx = clCreateContext(NULL, 1, &gpus[which], NULL, NULL, &err);
      cl_command_queue q = clCreateCommandQueue(ctx, gpus[which], 0, &err);
      cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
      assert_int_equal(clBuildProgram(p, 1, &gpus[which], NULL, NULL, NULL), CL_SUCCESS);
      cl_mem o = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 256, NULL, &err);
      cl_kernel k = clCreateKernel(p, "k", &err);
      assert_int_equal(err, CL_SUCCESS);
      clSetKernelArg(k, 0, sizeof(o), &o);
      size_t global = 64;
      unsigned submits = fake.num_submits;
      assert_int_equal(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL),
                       CL_SUCCESS);
      assert_int_equal(clFinish(q), CL_SUCCESS);
      assert_int_equal(fake.num_submits, submits + 1);
      /* The table is in a BO of the submission. */
      const struct fake_submit *s = &fake.submits[submits];
      static const int table[8] = {3, 5, 7, 11, 13, 17, 19, 23};
      bool found = false;
      for (unsigned i = 0; i < s->num_bos && !found; i++)
         for (uint64_t off = 0; off + sizeof(table) <= s->bo_size[i] && !found; off += 4)
            found = !memcmp((const char *)s->bo_copy[i] + off, table, sizeof(table));
      assert_true(found);
      clReleaseKernel(k);
      clReleaseMemObject(o);
      clReleaseProgram(p);
      clReleaseCommandQueue(q);
      clReleaseContext(ctx);
   }
   assert_int_equal(live_bos(), 0);
}

/* The device as clGetDeviceInfo shows it. */
static void test_device_info(void **state)
{
   (void)state;
   char name[128], ver[64];
   cl_device_type type;
   cl_uint cus;
   assert_int_equal(clGetDeviceInfo(gpus[1], CL_DEVICE_NAME, sizeof(name), name, NULL),
                    CL_SUCCESS);
   assert_string_equal(name, "AMD Radeon (Navi 31)");
   assert_int_equal(clGetDeviceInfo(gpus[0], CL_DEVICE_NAME, sizeof(name), name, NULL),
                    CL_SUCCESS);
   assert_string_equal(name, "Radeon RX Vega 64");
   assert_int_equal(clGetDeviceInfo(gpus[0], CL_DEVICE_TYPE, sizeof(type), &type, NULL),
                    CL_SUCCESS);
   assert_int_equal(type, CL_DEVICE_TYPE_GPU);
   assert_int_equal(clGetDeviceInfo(gpus[0], CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(cus), &cus, NULL),
                    CL_SUCCESS);
   assert_int_equal(cus, 40);
   assert_int_equal(clGetDeviceInfo(gpus[0], CL_DEVICE_VERSION, sizeof(ver), ver, NULL),
                    CL_SUCCESS);
   /* The AMD device stays 1.2 until validated as 3.0 on hardware. */
   assert_non_null(strstr(ver, "OpenCL 1.2 "));
}

/* OpenCL 1.2: the GPU driver cannot place work on chosen compute units,
 * so the device offers no partition and refuses every scheme. */
static void test_no_sub_devices(void **state)
{
   (void)state;
   cl_device_partition_property props[4] = {1, 1, 1, 1};
   size_t size = 0;
   assert_int_equal(clGetDeviceInfo(gpus[0], CL_DEVICE_PARTITION_PROPERTIES, sizeof(props), props,
                                    &size),
                    CL_SUCCESS);
   assert_int_equal(size, sizeof(props[0]));
   assert_int_equal(props[0], 0);
   cl_uint max = 1;
   assert_int_equal(clGetDeviceInfo(gpus[0], CL_DEVICE_PARTITION_MAX_SUB_DEVICES, sizeof(max),
                                    &max, NULL),
                    CL_SUCCESS);
   assert_int_equal(max, 0);
   cl_device_affinity_domain dom = 1;
   assert_int_equal(clGetDeviceInfo(gpus[0], CL_DEVICE_PARTITION_AFFINITY_DOMAIN, sizeof(dom),
                                    &dom, NULL),
                    CL_SUCCESS);
   assert_int_equal(dom, 0);
   const cl_device_partition_property eq[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
   const cl_device_partition_property counts[] = {CL_DEVICE_PARTITION_BY_COUNTS, 1,
                                                  CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
   const cl_device_partition_property aff[] = {CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
                                               CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE, 0};
   cl_uint n = 77;
   assert_int_equal(clCreateSubDevices(gpus[0], eq, 0, NULL, &n), CL_INVALID_VALUE);
   assert_int_equal(clCreateSubDevices(gpus[0], counts, 0, NULL, &n), CL_INVALID_VALUE);
   assert_int_equal(clCreateSubDevices(gpus[0], aff, 0, NULL, &n), CL_INVALID_VALUE);
   assert_int_equal(n, 77);
   /* A root device: retain and release succeed and count nothing. */
   assert_int_equal(clRetainDevice(gpus[0]), CL_SUCCESS);
   assert_int_equal(clReleaseDevice(gpus[0]), CL_SUCCESS);
   cl_device_id parent = (cl_device_id)1;
   assert_int_equal(clGetDeviceInfo(gpus[0], CL_DEVICE_PARENT_DEVICE, sizeof(parent), &parent,
                                    NULL),
                    CL_SUCCESS);
   assert_null(parent);
}

int main(void)
{
   /* KILN_DEVICES=amdgpu (meson.build): the faked GPUs alone. */
   fake_drm_reset();
   fake_drm_add_gpu(141, 0x01, "Radeon RX Vega 64"); /* gfx900 */
   fake_drm_add_gpu(145, 0x01, NULL);                /* gfx1100 */
   cl_uint n = 0;
   if (clGetPlatformIDs(1, &platform, NULL) ||
       clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 2, gpus, &n) || n != 2) {
      fprintf(stderr, "the faked AMD GPUs are not devices (%u)\n", n);
      return 1;
   }
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_device_info), cmocka_unit_test(test_saxpy_gfx9),
      cmocka_unit_test(test_saxpy_gfx11), cmocka_unit_test(test_local_gfx9),
      cmocka_unit_test(test_local_gfx11), cmocka_unit_test(test_tiles_2d),
      cmocka_unit_test(test_binary_round_trip), cmocka_unit_test(test_constant_program),
      cmocka_unit_test(test_scratch),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_no_sub_devices),
      cmocka_unit_test(test_grid_limits),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
