/* Command submission on compute rings (amdgpu contexts) and their fences. */
#include "winsys/amdgpu/amdgpu_winsys_priv.h"

#include <string.h>

#include "util/alloc.h"
#include "util/log.h"

/* A context the kernel reset (GPU hang, VRAM lost) runs nothing again. */
static void check_reset(struct amdgpu_winsys *ws, struct amdgpu_ws_ring *ring)
{
   uint64_t flags = 0;
   if (!ws->drm->amdgpu_cs_query_reset_state2(ring->ctx, &flags) &&
       (flags & AMDGPU_CTX_QUERY2_FLAGS_RESET)) {
      if (!atomic_exchange(&ws->lost, true))
         kiln_log(KILN_LOG_WARN, "amdgpu: %s was reset; its work is lost", ws->info.name);
   }
}

static void mark_lost(struct amdgpu_winsys *ws, int r)
{
   if (!atomic_exchange(&ws->lost, true))
      kiln_log(KILN_LOG_WARN, "amdgpu: %s is lost (%d); its work is lost", ws->info.name, r);
}

cl_int amdgpu_ws_ring_create(struct amdgpu_winsys *ws, struct amdgpu_ws_ring **out)
{
   if (amdgpu_winsys_lost(ws))
      return CL_OUT_OF_RESOURCES;
   struct amdgpu_ws_ring *ring = kiln_calloc(1, sizeof(*ring));
   if (!ring)
      return CL_OUT_OF_HOST_MEMORY;
   int r = ws->drm->amdgpu_cs_ctx_create(ws->dev, &ring->ctx);
   if (r) {
      kiln_log(KILN_LOG_PIPE, "amdgpu: amdgpu_cs_ctx_create failed (%d)", r);
      kiln_free(ring);
      return r == -ENOMEM ? CL_OUT_OF_HOST_MEMORY : CL_OUT_OF_RESOURCES;
   }
   pthread_mutex_init(&ring->submit_lock, NULL);
   *out = ring;
   return CL_SUCCESS;
}

void amdgpu_ws_ring_destroy(struct amdgpu_winsys *ws, struct amdgpu_ws_ring *ring)
{
   if (!ring)
      return;
   ws->drm->amdgpu_cs_ctx_free(ring->ctx);
   pthread_mutex_destroy(&ring->submit_lock);
   kiln_free(ring);
}

cl_int amdgpu_ws_ring_submit(struct amdgpu_winsys *ws, struct amdgpu_ws_ring *ring,
                             struct amdgpu_ws_bo *ib, uint32_t ib_dwords,
                             struct amdgpu_ws_bo *const *bos, unsigned num_bos, uint64_t *seq)
{
   const struct amdgpu_drm *drm = ws->drm;
   if (amdgpu_winsys_lost(ws))
      return CL_OUT_OF_RESOURCES;
   if (!ib_dwords || (uint64_t)ib_dwords * 4 > ib->size)
      return CL_INVALID_VALUE;
   /* The IB's own BO must be resident too. */
   amdgpu_bo_handle *handles = kiln_malloc((num_bos + 1) * sizeof(*handles));
   if (!handles)
      return CL_OUT_OF_HOST_MEMORY;
   handles[0] = ib->handle;
   for (unsigned i = 0; i < num_bos; i++)
      handles[i + 1] = bos[i]->handle;
   amdgpu_bo_list_handle list = NULL;
   int r = drm->amdgpu_bo_list_create(ws->dev, num_bos + 1, handles, NULL, &list);
   kiln_free(handles);
   if (r) {
      kiln_log(KILN_LOG_PIPE, "amdgpu: amdgpu_bo_list_create failed (%d)", r);
      return CL_OUT_OF_RESOURCES;
   }
   struct amdgpu_cs_ib_info ibi;
   memset(&ibi, 0, sizeof(ibi));
   ibi.ib_mc_address = ib->va;
   ibi.size = ib_dwords;
   struct amdgpu_cs_request req;
   memset(&req, 0, sizeof(req));
   req.ip_type = AMDGPU_HW_IP_COMPUTE;
   req.resources = list;
   req.number_of_ibs = 1;
   req.ibs = &ibi;
   pthread_mutex_lock(&ring->submit_lock);
   r = drm->amdgpu_cs_submit(ring->ctx, 0, &req, 1);
   pthread_mutex_unlock(&ring->submit_lock);
   drm->amdgpu_bo_list_destroy(list);
   if (r) {
      kiln_log(KILN_LOG_PIPE, "amdgpu: amdgpu_cs_submit failed (%d)", r);
      if (amdgpu_ws_is_lost_error(r))
         mark_lost(ws, r);
      else
         check_reset(ws, ring);
      return CL_OUT_OF_RESOURCES;
   }
   *seq = req.seq_no;
   return CL_SUCCESS;
}

cl_int amdgpu_ws_ring_wait(struct amdgpu_winsys *ws, struct amdgpu_ws_ring *ring, uint64_t seq,
                           uint64_t timeout_ns, bool *timed_out)
{
   *timed_out = false;
   struct amdgpu_cs_fence f;
   memset(&f, 0, sizeof(f));
   f.context = ring->ctx;
   f.ip_type = AMDGPU_HW_IP_COMPUTE;
   f.fence = seq;
   uint32_t expired = 0;
   int r = ws->drm->amdgpu_cs_query_fence_status(&f, timeout_ns, 0, &expired);
   if (r) {
      kiln_log(KILN_LOG_PIPE, "amdgpu: fence %llu: query failed (%d)", (unsigned long long)seq,
               r);
      if (amdgpu_ws_is_lost_error(r))
         mark_lost(ws, r);
      else
         check_reset(ws, ring);
      return CL_OUT_OF_RESOURCES;
   }
   if (expired) {
      /* A reset also signals fences: the work did not really end. */
      check_reset(ws, ring);
      return amdgpu_winsys_lost(ws) ? CL_OUT_OF_RESOURCES : CL_SUCCESS;
   }
   *timed_out = true;
   check_reset(ws, ring);
   if (timeout_ns)
      kiln_log(KILN_LOG_PIPE, "amdgpu: fence %llu: not signalled after %llu ns",
               (unsigned long long)seq, (unsigned long long)timeout_ns);
   return CL_OUT_OF_RESOURCES;
}

cl_int amdgpu_ws_submit(struct amdgpu_winsys *ws, struct amdgpu_ws_bo *ib, uint32_t ib_dwords,
                        struct amdgpu_ws_bo *const *bos, unsigned num_bos, uint64_t *seq)
{
   return amdgpu_ws_ring_submit(ws, &ws->ring, ib, ib_dwords, bos, num_bos, seq);
}

cl_int amdgpu_ws_fence_wait(struct amdgpu_winsys *ws, uint64_t seq, uint64_t timeout_ns,
                            bool *timed_out)
{
   return amdgpu_ws_ring_wait(ws, &ws->ring, seq, timeout_ns, timed_out);
}
