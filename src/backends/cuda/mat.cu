/* CUDA sparse matrix kernels (y = alpha A x + beta y).
 *
 * Floor (double, 32-bit indices): 12 bytes per stored entry (value and column) + 20 per row (x, y
 * and the row offset), over the measured copy bandwidth.
 *
 * - CSR, G threads per row: a group of G lanes (a power of two up to 32, chosen by the front end
 *   from the mean row length so that each lane gets a few entries) strides over its row and sums
 *   with shuffles; G = 1 is the scalar kernel.
 * - SELL-C-sigma (and ELL, one slice): one thread per row; slice entries are column-major, so a
 *   warp's loads of one column of a slice are contiguous. No row offsets are read.
 * - Merge path (Merrill & Garland's load balancing): the sequence of m row ends and nnz entries is
 *   cut into tiles of equal length, one per block; each thread then walks an equal share of its
 *   tile in shared memory. Rows cut by a thread boundary are joined by a segmented scan in the
 *   block, rows cut by a block boundary by a second, small kernel that adds the partial sums in
 *   block order (no atomics, so the result is reproducible). The cost is set by m + nnz alone,
 *   whatever the row lengths.
 *
 * CSR and SELL can also return x . y from the same pass (the dot of CG's p . Ap): the kernels then
 * stride over the rows with a fixed grid and finish with GsReduceFinish. x is read through the
 * read-only cache. */
#include <string.h>

#include "cudaimpl.h"

#define GS_SPMV_THREADS GS_CUDA_THREADS
/* SpMV kernels are latency bound on the gather of x: twice the blocks of the vector kernels. */
#define GS_SPMV_BLOCKS_PER_SM 8

typedef struct {
  double alpha, beta;
  const double *x;
  double *y;
  int dot; /* also x . y into result (partials, counter: the context's reduction buffers) */
  double *partials;
  unsigned int *counter;
  double *result;
} GsSpMVArgs;

static __device__ __forceinline__ double GsSpMVStore(const GsSpMVArgs *a, GsInt row, double s) {
  const double v = a->beta == 0 ? a->alpha * s : a->alpha * s + a->beta * a->y[row];
  a->y[row] = v;
  return v;
}

static __global__ void __launch_bounds__(GS_SPMV_THREADS, GS_SPMV_BLOCKS_PER_SM)
    gs_spmv_csr_k(GsInt m, const int *__restrict__ rp, const int *__restrict__ col,
                  const double *__restrict__ val, int G, GsSpMVArgs a) {
  const int lane = (int)(threadIdx.x & 31);
  const GsInt stride = (GsInt)gridDim.x * blockDim.x, total = m * G;
  double acc = 0;
  /* Whole warps go round the loop together, so that every lane takes part in the shuffles. */
  for (GsInt w = (GsInt)blockIdx.x * blockDim.x + threadIdx.x - lane; w < total; w += stride) {
    const GsInt t = w + lane, row = t / G;
    const int g = (int)(t % G);
    double s = 0;
    if (row < m) {
      const int b = rp[row], e = rp[row + 1];
      for (int k = b + g; k < e; k += G)
        s += val[k] * __ldg(a.x + col[k]);
    }
    for (int off = G / 2; off > 0; off >>= 1)
      s += __shfl_xor_sync(0xffffffffu, s, off, G);
    if (row < m && g == 0) {
      const double v = GsSpMVStore(&a, row, s);
      if (a.dot) acc += __ldg(a.x + row) * v;
    }
  }
  if (a.dot) GsReduceFinish(&acc, 1, 0, a.partials, a.counter, a.result);
}

static __global__ void __launch_bounds__(GS_SPMV_THREADS, GS_SPMV_BLOCKS_PER_SM)
    gs_spmv_sell_k(GsInt m, GsInt C, const GsInt *__restrict__ sp, const int *__restrict__ perm,
                   const int *__restrict__ col, const double *__restrict__ val, GsSpMVArgs a) {
  const GsInt stride = (GsInt)gridDim.x * blockDim.x;
  double acc = 0;
  for (GsInt p = (GsInt)blockIdx.x * blockDim.x + threadIdx.x; p < m; p += stride) {
    const GsInt s = p / C, base = sp[s] + (p - s * C);
    const int width = (int)((sp[s + 1] - sp[s]) / C);
    double sum = 0;
#pragma unroll 4
    for (int j = 0; j < width; j++) {
      const int c = col[base + (GsInt)j * C];
      const double v = val[base + (GsInt)j * C];
      if (c >= 0) sum += v * __ldg(a.x + c); /* padding has column -1 */
    }
    const GsInt row = perm ? perm[p] : p;
    const double v = GsSpMVStore(&a, row, sum);
    if (a.dot) acc += __ldg(a.x + row) * v;
  }
  if (a.dot) GsReduceFinish(&acc, 1, 0, a.partials, a.counter, a.result);
}

/* ---- Merge path --------------------------------------------------------------------------------
 */

#define GS_MERGE_IPT 7 /* merge items (row ends or entries) per thread */
#define GS_MERGE_TILE (GS_SPMV_THREADS * GS_MERGE_IPT)

/* Rows whose end comes among the first d items of the merge of the row ends re[0..m) with the
 * entry indices 0, 1, ...: a row end goes first when all the row's entries are in (re[i] <= j).
 * Stamped out for 64-bit ends (global row offsets) and 32-bit ones (a tile's, in shared memory). */
#define GS_DEFINE_MERGE_SEARCH(NAME, T)                                                            \
  static __device__ __forceinline__ GsInt NAME(const T *re, GsInt m, GsInt nnz, GsInt d) {         \
    GsInt lo = d > nnz ? d - nnz : 0, hi = d < m ? d : m;                                          \
    while (lo < hi) {                                                                              \
      const GsInt mid = (lo + hi) >> 1;                                                            \
      if ((GsInt)re[mid] <= d - mid - 1)                                                           \
        lo = mid + 1;                                                                              \
      else                                                                                         \
        hi = mid;                                                                                  \
    }                                                                                              \
    return lo;                                                                                     \
  }
GS_DEFINE_MERGE_SEARCH(GsMergeSearch64, GsInt)
GS_DEFINE_MERGE_SEARCH(GsMergeSearch32, int)

static __global__ void __launch_bounds__(GS_SPMV_THREADS)
    gs_spmv_merge_k(GsInt m, GsInt nnz, const GsInt *__restrict__ rp, const int *__restrict__ col,
                    const double *__restrict__ val, GsSpMVArgs a, GsInt *__restrict__ carry_row,
                    double *__restrict__ carry_val) {
  __shared__ GsInt s_bound[2];
  __shared__ int s_end[GS_MERGE_TILE];      /* ends of the tile's rows, relative to j0 */
  __shared__ double s_prod[GS_MERGE_TILE];  /* val * x of the tile's entries */
  __shared__ int s_key[GS_SPMV_THREADS];    /* row in progress at each thread's end */
  __shared__ double s_sum[GS_SPMV_THREADS]; /* its partial sum, then the segmented scan */
  const int t = (int)threadIdx.x;
  const GsInt total = m + nnz, d0 = (GsInt)blockIdx.x * GS_MERGE_TILE;
  const GsInt d1 = d0 + GS_MERGE_TILE < total ? d0 + GS_MERGE_TILE : total;
  if (t < 2) s_bound[t] = GsMergeSearch64(rp + 1, m, nnz, t ? d1 : d0);
  __syncthreads();
  const GsInt i0 = s_bound[0], j0 = d0 - i0;
  const int nr = (int)(s_bound[1] - i0), nz = (int)(d1 - s_bound[1] - j0);
  for (int k = t; k < nr; k += GS_SPMV_THREADS)
    s_end[k] = (int)(rp[i0 + k + 1] - j0);
  for (int k = t; k < nz; k += GS_SPMV_THREADS)
    s_prod[k] = val[j0 + k] * __ldg(a.x + col[j0 + k]);
  __syncthreads();
  /* This thread's share of the tile: items [l0, l1), starting at row i, entry j. */
  const int l0 = t * GS_MERGE_IPT < nr + nz ? t * GS_MERGE_IPT : nr + nz;
  const int l1 = l0 + GS_MERGE_IPT < nr + nz ? l0 + GS_MERGE_IPT : nr + nz;
  const int i_start = (int)GsMergeSearch32(s_end, nr, nz, l0), j_start = l0 - i_start;
  int i = i_start, j = j_start;
  double sum = 0;
  for (int l = l0; l < l1; l++) {
    if (i < nr && s_end[i] <= j) {
      sum = 0;
      i++;
    } else {
      sum += s_prod[j++];
    }
  }
  s_key[t] = i;
  s_sum[t] = sum;
  __syncthreads();
  /* Inclusive segmented scan: s_sum[t] becomes the sum over the run of threads up to t that end in
   * the same row (keys never decrease, so such threads are contiguous). */
  for (int off = 1; off < GS_SPMV_THREADS; off <<= 1) {
    const double add = t >= off && s_key[t - off] == s_key[t] ? s_sum[t - off] : 0.0;
    __syncthreads();
    s_sum[t] += add;
    __syncthreads();
  }
  /* Walk again, starting from what the earlier threads of the block carry into the first row. */
  sum = t > 0 && s_key[t - 1] == i_start ? s_sum[t - 1] : 0.0;
  i = i_start;
  j = j_start;
  for (int l = l0; l < l1; l++) {
    if (i < nr && s_end[i] <= j) {
      GsSpMVStore(&a, i0 + i, sum);
      sum = 0;
      i++;
    } else {
      sum += s_prod[j++];
    }
  }
  /* The row in progress at the tile's end carries on in the next blocks. */
  if (t == GS_SPMV_THREADS - 1) {
    carry_row[blockIdx.x] = i0 + nr;
    carry_val[blockIdx.x] = s_sum[t];
  }
}

/* Add the carries to their rows: the first block of each run of blocks that carry the same row sums
 * the run in block order. */
static __global__ void __launch_bounds__(GS_SPMV_THREADS)
    gs_spmv_merge_fix_k(GsInt m, GsInt nb, const GsInt *__restrict__ carry_row,
                        const double *__restrict__ carry_val, double alpha, double *y) {
  const GsInt b = (GsInt)blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= nb) return;
  const GsInt row = carry_row[b];
  if (row >= m || (b > 0 && carry_row[b - 1] == row)) return;
  double s = 0;
  for (GsInt k = b; k < nb && carry_row[k] == row; k++)
    s += carry_val[k];
  y[row] += alpha * s;
}

/* ---- Host side ---------------------------------------------------------------------------------
 */

static GsInt k_merge_blocks(const GsMatInfo *A) {
  return (A->m + A->nnz + GS_MERGE_TILE - 1) / GS_MERGE_TILE;
}

static unsigned int spmv_grid(const GsCudaContext *cc, GsInt threads) {
  const GsInt cap = (GsInt)cc->sm_count * GS_SPMV_BLOCKS_PER_SM;
  GsInt b = (threads + GS_SPMV_THREADS - 1) / GS_SPMV_THREADS;
  if (b > cap) b = cap;
  return b < 1 ? 1u : (unsigned int)b;
}

static int k_spmv(GsContext ctx, const GsMatInfo *A, double alpha, const double *x, double beta,
                  double *y, double *xy, int *fused) {
  GsCudaContext *cc = NULL;
  GsCall(GsCudaBegin(ctx, &cc));
  if (fused) *fused = 0;
  if (A->m == 0) return 0;
  GsSpMVArgs a;
  memset(&a, 0, sizeof a);
  a.alpha = alpha;
  a.beta = beta;
  a.x = x;
  a.y = y;
  /* The partials hold GS_CUDA_MAX_NV values per vector-kernel block: room for one value from each
   * of the SpMV kernels' blocks (GS_SPMV_BLOCKS_PER_SM <= GS_CUDA_MAX_NV * GS_CUDA_BLOCKS_PER_SM).
   */
  a.dot = xy != NULL && A->kernel != GS_SPMV_MERGE;
  a.partials = cc->partials;
  a.counter = cc->counter;
  a.result = cc->results;
  if (A->kernel == GS_SPMV_SELL) {
    gs_spmv_sell_k<<<spmv_grid(cc, A->m), GS_SPMV_THREADS, 0, cc->stream>>>(
        A->m, A->sell_c, A->sell_ptr, A->sell_perm, A->sell_col, A->sell_val, a);
    GsCheckLaunchCuda(ctx, "gs_spmv_sell_k");
  } else if (A->kernel == GS_SPMV_MERGE) {
    const GsInt nb = k_merge_blocks(A);
    GsCheck(nb <= A->merge_blocks && nb <= 0x7fffffff, ctx, GS_ERR_INTERNAL,
            "merge SpMV: %lld blocks, scratch for %lld", (long long)nb, (long long)A->merge_blocks);
    gs_spmv_merge_k<<<(unsigned int)nb, GS_SPMV_THREADS, 0, cc->stream>>>(
        A->m, A->nnz, A->rowptr, A->col, A->val, a, A->merge_row, A->merge_val);
    GsCheckLaunchCuda(ctx, "gs_spmv_merge_k");
    gs_spmv_merge_fix_k<<<(unsigned int)((nb + GS_SPMV_THREADS - 1) / GS_SPMV_THREADS),
                          GS_SPMV_THREADS, 0, cc->stream>>>(A->m, nb, A->merge_row, A->merge_val,
                                                            alpha, y);
    GsCheckLaunchCuda(ctx, "gs_spmv_merge_fix_k");
  } else {
    const int G = A->group >= 1 && A->group <= 32 ? A->group : 1;
    gs_spmv_csr_k<<<spmv_grid(cc, A->m * G), GS_SPMV_THREADS, 0, cc->stream>>>(
        A->m, A->rowptr32, A->col, A->val, G, a);
    GsCheckLaunchCuda(ctx, "gs_spmv_csr_k");
  }
  if (a.dot) {
    GsCall(GsFetchResults(ctx, cc, 1, xy));
    *fused = 1;
  }
  return 0;
}

extern "C" void GsCudaFillMatKernels(GsMatKernels *k) {
  k->spmv = k_spmv;
  k->merge_blocks = k_merge_blocks;
}
