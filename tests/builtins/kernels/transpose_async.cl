/* Tiled transpose staged through local memory with async copies. */
kernel void transpose(global const float *in, global float *out, uint w, uint h, local float *tile)
{
   size_t gx = get_group_id(0), gy = get_group_id(1);
   size_t tw = get_local_size(0);
   event_t e = 0;
   for (size_t r = 0; r < tw; r++)
      e = async_work_group_copy(tile + r * tw, in + (gy * tw + r) * w + gx * tw, tw, e);
   wait_group_events(1, &e);
   size_t x = get_local_id(0), y = get_local_id(1);
   out[(gx * tw + y) * h + gy * tw + x] = tile[x * tw + y];
   barrier(CLK_GLOBAL_MEM_FENCE);
   event_t e2 = async_work_group_strided_copy(tile, in + gx, tw, w, 0);
   wait_group_events(1, &e2);
   prefetch(in + w, 64);
   mem_fence(CLK_LOCAL_MEM_FENCE);
}
