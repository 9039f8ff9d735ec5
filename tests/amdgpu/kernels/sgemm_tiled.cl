/* C = A*B (row-major, M x K times K x N) in 16x16 tiles staged through
 * static __local arrays, with barriers between loading and using a tile. */
#define TILE 16
__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1)))
void sgemm_tiled(int M, int N, int K, __global const float *A, __global const float *B,
                 __global float *C)
{
   __local float As[TILE][TILE];
   __local float Bs[TILE][TILE];
   int tx = get_local_id(0), ty = get_local_id(1);
   int col = get_global_id(0), row = get_global_id(1);
   float acc = 0.0f;
   for (int t = 0; t < (K + TILE - 1) / TILE; t++) {
      int ac = t * TILE + tx, br = t * TILE + ty;
      As[ty][tx] = row < M && ac < K ? A[row * K + ac] : 0.0f;
      Bs[ty][tx] = br < K && col < N ? B[br * N + col] : 0.0f;
      barrier(CLK_LOCAL_MEM_FENCE);
      for (int k = 0; k < TILE; k++)
         acc += As[ty][k] * Bs[k][tx];
      barrier(CLK_LOCAL_MEM_FENCE);
   }
   if (row < M && col < N)
      C[row * N + col] = acc;
}
