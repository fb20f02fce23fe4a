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
 * - Hybrid: SELL over the rows up to a threshold length (sorted by length, so that a slice's rows
 *   are alike) and the merge kernel over the few longer rows, writing through their row numbers.
 * - Merge path (Merrill & Garland's load balancing): the sequence of m row ends and nnz entries is
 *   cut into tiles of equal length, one per block; each thread then walks an equal share of its
 *   tile in shared memory once, storing the rows it holds whole. Rows cut by a thread boundary
 *   are joined by a segmented scan in the block, rows cut by a block boundary by a second, small
 * kernel that adds the partial sums in block order (no atomics, so the result is reproducible). The
 * cost is set by m + nnz alone, whatever the row lengths.
 *
 * The matrix is read once per product, so SELL and merge load it with the evict-first hint
 * (__ldcs): it streams through L2 without pushing out x, which is gathered many times (H200,
 * 7-point 256^3 with SELL: 84.7 -> 92.5% of copy; power law 2^22 with merge: 670 -> 580 us).
 *
 * CSR and SELL can also return x . y from the same pass (the dot of CG's p . Ap): the kernels then
 * stride over the rows with a fixed grid and finish with GsReduceFinish. x is read through the
 * read-only cache, except by the merge kernel (see there). */
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
                  const double *__restrict__ val, int gshift, GsSpMVArgs a) {
  const int lane = (int)(threadIdx.x & 31), G = 1 << gshift, g = lane & (G - 1);
  const GsInt stride = (GsInt)gridDim.x * blockDim.x, total = m << gshift;
  double acc = 0;
  /* Whole warps go round the loop together, so that every lane takes part in the shuffles. */
  for (GsInt w = (GsInt)blockIdx.x * blockDim.x + threadIdx.x - lane; w < total; w += stride) {
    const GsInt row = (w + lane) >> gshift;
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

/* SELL-C-sigma with C = 2^cshift (cshift >= 0), or any C (cshift < 0: ELL, one slice of m rows),
 * so that the common case divides by shifts. */
static __global__ void __launch_bounds__(GS_SPMV_THREADS, GS_SPMV_BLOCKS_PER_SM)
    gs_spmv_sell_k(GsInt m, GsInt C, int cshift, const GsInt *__restrict__ sp,
                   const int *__restrict__ perm, const int *__restrict__ col,
                   const double *__restrict__ val, GsSpMVArgs a) {
  const GsInt stride = (GsInt)gridDim.x * blockDim.x;
  double acc = 0;
  for (GsInt p = (GsInt)blockIdx.x * blockDim.x + threadIdx.x; p < m; p += stride) {
    const GsInt s = cshift >= 0 ? p >> cshift : p / C, b0 = sp[s], b1 = sp[s + 1];
    const int width = (int)(cshift >= 0 ? (b1 - b0) >> cshift : (b1 - b0) / C);
    const int *cp = col + b0 + (p - s * C);
    const double *vp = val + b0 + (p - s * C);
    double sum = 0;
#pragma unroll 4
    for (int j = 0; j < width; j++) {
      const int c = __ldcs(cp);
      const double v = __ldcs(vp);
      cp += C;
      vp += C;
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

/* Merge items (row ends or entries) per thread. Smaller tiles keep more of them in flight across
 * the blocks of an SM: H200, power law 2^22, x gathered through L1: 7 items 571 us, 9 574, 15 602;
 * through L2 only (__ldcg): 7 540, 6 474, 5 470, 4 471, 3 474, 2 548 (cuSPARSE 464). */
#define GS_MERGE_IPT 5
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

/* The row at which each tile starts (start[nb] = the end), once per matrix. */
static __global__ void __launch_bounds__(GS_SPMV_THREADS)
    gs_spmv_merge_setup_k(GsInt m, GsInt nnz, const GsInt *__restrict__ rp, GsInt nb,
                          GsInt *__restrict__ start) {
  const GsInt b = (GsInt)blockIdx.x * blockDim.x + threadIdx.x, total = m + nnz;
  if (b > nb) return;
  const GsInt d = b * GS_MERGE_TILE < total ? b * GS_MERGE_TILE : total;
  start[b] = GsMergeSearch64(rp + 1, m, nnz, d);
}

static __global__ void __launch_bounds__(GS_SPMV_THREADS)
    gs_spmv_merge_k(GsInt m, GsInt nnz, const GsInt *__restrict__ rp, const int *__restrict__ rp32,
                    const int *__restrict__ col, const double *__restrict__ val,
                    const int *__restrict__ rows, const GsInt *__restrict__ start, GsSpMVArgs a,
                    GsInt *__restrict__ carry_row, double *__restrict__ carry_val) {
  __shared__ int s_end[GS_MERGE_TILE];     /* ends of the tile's rows, relative to j0 */
  __shared__ double s_prod[GS_MERGE_TILE]; /* val * x of the tile's entries */
  __shared__ int s_wfirst[GS_CUDA_WARPS], s_wlast[GS_CUDA_WARPS];
  __shared__ double s_wpart[GS_CUDA_WARPS], s_wfull[GS_CUDA_WARPS];
  const int t = (int)threadIdx.x, lane = t & 31, warp = t >> 5;
  const GsInt total = m + nnz, d0 = (GsInt)blockIdx.x * GS_MERGE_TILE;
  const GsInt d1 = d0 + GS_MERGE_TILE < total ? d0 + GS_MERGE_TILE : total;
  const GsInt i0 = start[blockIdx.x], i1 = start[blockIdx.x + 1], j0 = d0 - i0;
  const int nr = (int)(i1 - i0), nz = (int)(d1 - i1 - j0);
  /* All loads of the tile in flight at once: offsets, columns and values, then the gathers of
   * x (a loop over k would wait for each gather in turn), which go to L2 without a line in L1:
   * the rows' columns are anywhere, L1 hits are rare, and the matrix's 32-bit row ends where
   * they fit (rp32). */
  {
    int c[GS_MERGE_IPT];
    double v[GS_MERGE_IPT];
#pragma unroll
    for (int u = 0; u < GS_MERGE_IPT; u++) {
      const int k = t + u * GS_SPMV_THREADS;
      if (k < nr) s_end[k] = (int)((rp32 ? (GsInt)rp32[i0 + k + 1] : rp[i0 + k + 1]) - j0);
      c[u] = k < nz ? __ldcs(col + j0 + k) : -1;
      v[u] = k < nz ? __ldcs(val + j0 + k) : 0.0;
    }
#pragma unroll
    for (int u = 0; u < GS_MERGE_IPT; u++)
      if (c[u] >= 0) s_prod[t + u * GS_SPMV_THREADS] = v[u] * __ldcg(a.x + c[u]);
  }
  __syncthreads();
  /* This thread's share of the tile: items [l0, l1), starting at row i, entry j. */
  const int l0 = t * GS_MERGE_IPT < nr + nz ? t * GS_MERGE_IPT : nr + nz;
  const int l1 = l0 + GS_MERGE_IPT < nr + nz ? l0 + GS_MERGE_IPT : nr + nz;
  const int i_start = (int)GsMergeSearch32(s_end, nr, nz, l0), j_start = l0 - i_start;
  /* One walk: rows that start and end in this share are stored at once; the first row's part
   * (it may have begun in an earlier thread) waits for the scan below. */
  int i = i_start, j = j_start;
  double v = 0, first = 0;
  for (int l = l0; l < l1; l++) {
    if (i < nr && s_end[i] <= j) {
      if (i == i_start)
        first = v;
      else
        GsSpMVStore(&a, rows ? rows[i0 + i] : i0 + i, v);
      v = 0;
      i++;
    } else {
      v += s_prod[j++];
    }
  }
  /* Inclusive segmented scan of the partial sums over the threads, keyed by the row in progress
   * at each thread's end (keys never decrease, so a row's threads are contiguous): in the warp
   * with shuffles, then across warps for the lanes whose row began in an earlier warp. */
  const int key = i;
  for (int off = 1; off < 32; off <<= 1) {
    const double ov = __shfl_up_sync(0xffffffffu, v, off);
    const int ok = __shfl_up_sync(0xffffffffu, key, off);
    if (lane >= off && ok == key) v += ov;
  }
  if (lane == 0) s_wfirst[warp] = key;
  if (lane == 31) {
    s_wlast[warp] = key;
    s_wpart[warp] = v;
  }
  __syncthreads();
  if (key == s_wfirst[warp])
    for (int w = warp - 1; w >= 0 && s_wlast[w] == key; w--) {
      v += s_wpart[w];
      if (s_wfirst[w] != key) break;
    }
  if (lane == 31) s_wfull[warp] = v;
  __syncthreads();
  /* The first row gets what the earlier threads carry into it (the row the previous thread
   * ended in), when it ends in this share. */
  const double prev = __shfl_up_sync(0xffffffffu, v, 1);
  if (i > i_start)
    GsSpMVStore(&a, rows ? rows[i0 + i_start] : i0 + i_start,
                (lane > 0   ? prev
                 : warp > 0 ? s_wfull[warp - 1]
                            : 0.0) +
                    first);
  /* The row in progress at the tile's end carries on in the next blocks. */
  if (t == GS_SPMV_THREADS - 1) {
    carry_row[blockIdx.x] = i1;
    carry_val[blockIdx.x] = v;
  }
}

/* Add the carries to their rows: the first block of each run of blocks that carry the same row sums
 * the run in block order. */
static __global__ void __launch_bounds__(GS_SPMV_THREADS)
    gs_spmv_merge_fix_k(GsInt m, GsInt nb, const GsInt *__restrict__ carry_row,
                        const double *__restrict__ carry_val, const int *__restrict__ rows,
                        double alpha, double *y) {
  const GsInt b = (GsInt)blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= nb) return;
  const GsInt row = carry_row[b];
  if (row >= m || (b > 0 && carry_row[b - 1] == row)) return;
  double s = 0;
  for (GsInt k = b; k < nb && carry_row[k] == row; k++)
    s += carry_val[k];
  y[rows ? rows[row] : row] += alpha * s;
}

/* ---- Host side ---------------------------------------------------------------------------------
 */

/* Blocks of the merge kernel over the merge_m rows and merge_nnz entries it covers. */
static GsInt k_merge_blocks(const GsMatInfo *A) {
  return (A->merge_m + A->merge_nnz + GS_MERGE_TILE - 1) / GS_MERGE_TILE;
}

static unsigned int spmv_grid(const GsCudaContext *cc, GsInt threads) {
  const GsInt cap = (GsInt)cc->sm_count * GS_SPMV_BLOCKS_PER_SM;
  GsInt b = (threads + GS_SPMV_THREADS - 1) / GS_SPMV_THREADS;
  if (b > cap) b = cap;
  return b < 1 ? 1u : (unsigned int)b;
}

static int k_spmv(GsContext ctx, const GsMatInfo *A, double alpha, const double *x, double beta,
                  double *y, double *xy, int *fused, const GsDevScalars *ds) {
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
  a.dot = xy != NULL && (A->kernel == GS_SPMV_CSR || A->kernel == GS_SPMV_SELL);
  a.partials = cc->partials;
  a.counter = cc->counter;
  /* the dot straight to the caller's scalars, or to the context's results for the host */
  a.result = a.dot && ds && ds->res ? ds->res : cc->results;
  if (A->kernel == GS_SPMV_SELL || A->kernel == GS_SPMV_HYBRID) {
    int cshift = 0;
    while (((GsInt)1 << cshift) < A->sell_c)
      cshift++;
    if (((GsInt)1 << cshift) != A->sell_c) cshift = -1;
    if (A->sell_m > 0) {
      gs_spmv_sell_k<<<spmv_grid(cc, A->sell_m), GS_SPMV_THREADS, 0, cc->stream>>>(
          A->sell_m, A->sell_c, cshift, A->sell_ptr, A->sell_perm, A->sell_col, A->sell_val, a);
      GsCheckLaunchCuda(ctx, "gs_spmv_sell_k");
    }
  }
  if ((A->kernel == GS_SPMV_MERGE || A->kernel == GS_SPMV_HYBRID) && A->merge_m > 0) {
    const GsInt nb = k_merge_blocks(A);
    GsCheck(nb <= A->merge_blocks && nb <= 0x7fffffff, ctx, GS_ERR_INTERNAL,
            "merge SpMV: %lld blocks, scratch for %lld", (long long)nb, (long long)A->merge_blocks);
    gs_spmv_merge_k<<<(unsigned int)nb, GS_SPMV_THREADS, 0, cc->stream>>>(
        A->merge_m, A->merge_nnz, A->rowptr, A->rowptr32, A->col, A->val, A->merge_rows,
        A->merge_start, a, A->merge_row, A->merge_val);
    GsCheckLaunchCuda(ctx, "gs_spmv_merge_k");
    gs_spmv_merge_fix_k<<<(unsigned int)((nb + GS_SPMV_THREADS - 1) / GS_SPMV_THREADS),
                          GS_SPMV_THREADS, 0, cc->stream>>>(A->merge_m, nb, A->merge_row,
                                                            A->merge_val, A->merge_rows, alpha, y);
    GsCheckLaunchCuda(ctx, "gs_spmv_merge_fix_k");
  }
  if (A->kernel == GS_SPMV_CSR) {
    int gshift = 0; /* the group is a power of two up to 32 (the front end checks) */
    while ((1 << gshift) < A->group && gshift < 5)
      gshift++;
    gs_spmv_csr_k<<<spmv_grid(cc, A->m << gshift), GS_SPMV_THREADS, 0, cc->stream>>>(
        A->m, A->rowptr32, A->col, A->val, gshift, a);
    GsCheckLaunchCuda(ctx, "gs_spmv_csr_k");
  }
  if (a.dot) {
    if (a.result == cc->results) GsCall(GsFetchResults(ctx, cc, 1, xy));
    *fused = 1;
  }
  return 0;
}

static int k_merge_setup(GsContext ctx, const GsMatInfo *A) {
  GsCudaContext *cc = NULL;
  GsCall(GsCudaBegin(ctx, &cc));
  const GsInt nb = k_merge_blocks(A);
  gs_spmv_merge_setup_k<<<(unsigned int)((nb + GS_SPMV_THREADS) / GS_SPMV_THREADS), GS_SPMV_THREADS,
                          0, cc->stream>>>(A->merge_m, A->merge_nnz, A->rowptr, nb, A->merge_start);
  GsCheckLaunchCuda(ctx, "gs_spmv_merge_setup_k");
  return 0;
}

extern "C" void GsCudaFillMatKernels(GsMatKernels *k) {
  k->spmv = k_spmv;
  k->merge_blocks = k_merge_blocks;
  k->merge_setup = k_merge_setup;
}
