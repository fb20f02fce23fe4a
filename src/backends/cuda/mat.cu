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
 * Every kernel but merge and hybrid sums a row in the order of the matrix's group G (matimpl.h), as
 * the CPU back end does, and no multiply-add is fused (built --fmad=false): the products are the
 * CPU's bits. SELL without a row permutation also returns x . y from the same pass (the dot of CG's
 * p . Ap), one thread a lane of the reduction order (gsimpl.h) taking rows two by two; otherwise
 * the dot kernel follows the product. Either way the dot is GsVecDot's bits, left on the device
 * for GsDevScalars. x is read through the read-only cache, except by the merge kernel (see there).
 */
#include <string.h>

#include "cudaimpl.h"

#define GS_SPMV_THREADS GS_CUDA_THREADS
/* SpMV kernels are latency bound on the gather of x: twice the blocks of the vector kernels. */
#define GS_SPMV_BLOCKS_PER_SM 8

typedef struct {
  double alpha, beta;
  const double *x;
  double *y;
  int dot; /* SELL: also x . y into result (partials, counter: the context's reduction buffers) */
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
  /* Whole warps go round the loop together, so that every lane takes part in the shuffles. Lane g
   * of a row's group is the row's partial sum g of the order matimpl.h fixes, and the xor tree
   * adds them pairwise as it says. */
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
    if (row < m && g == 0) GsSpMVStore(&a, row, s);
  }
}

/* SELL rows in the order of group G (matimpl.h): NR rows (1 or 2, of one slice, so of one width)
 * whose entries start at cp[r], vp[r] with stride C; entry j goes to partial sum j % G, padding
 * (column -1) is skipped, and the partial sums are added pairwise. G is a constant in each kernel,
 * so the sums stay in registers; two rows keep two gathers of x in flight for each entry. */
#define GS_SELL_ENTRY(r, g)                                                                        \
  do {                                                                                             \
    const int c_ = __ldcs(c##r);                                                                   \
    const double v_ = __ldcs(v##r);                                                                \
    c##r += C;                                                                                     \
    v##r += C;                                                                                     \
    if (c_ >= 0) s[r][g] += v_ * __ldg(x + c_);                                                    \
  } while (0)
/* About 4 entries of one row in flight a trip. */
#define GS_SELL_UNROLL_1 "unroll 4"
#define GS_SELL_UNROLL_2 "unroll 2"
#define GS_SELL_UNROLL_4 "unroll 1"
#define GS_SELL_UNROLL_8 "unroll 1"
#define GS_SELL_UNROLL_16 "unroll 1"
#define GS_SELL_UNROLL_32 "unroll 1"
#define GS_DEFINE_SELL_ROWS(G)                                                                     \
  static __device__ __forceinline__ void gs_sell_rows_g##G(                                        \
      int NR, const int *const *cp, const double *const *vp, GsInt C, int width,                   \
      const double *__restrict__ x, double *out) {                                                 \
    double s[2][G];                                                                                \
    _Pragma("unroll") for (int r = 0; r < 2; r++) _Pragma("unroll") for (int g = 0; g < (G); g++)  \
        s[r][g] = 0.0;                                                                             \
    const int *c0 = cp[0], *c1 = cp[1];                                                            \
    const double *v0 = vp[0], *v1 = vp[1];                                                         \
    int j = 0; /* a multiple of G, so entry j + g is partial sum g */                              \
    if (NR == 2) {                                                                                 \
      _Pragma("unroll 2") for (; j + (G) <= width; j += (G))                                       \
          _Pragma("unroll") for (int g = 0; g < (G); g++) {                                        \
        GS_SELL_ENTRY(0, g);                                                                       \
        GS_SELL_ENTRY(1, g);                                                                       \
      }                                                                                            \
      _Pragma("unroll") for (int g = 0; g < (G); g++) if (j + g < width) {                         \
        GS_SELL_ENTRY(0, g);                                                                       \
        GS_SELL_ENTRY(1, g);                                                                       \
      }                                                                                            \
    } else {                                                                                       \
      _Pragma(GS_SELL_UNROLL_##G) for (; j + (G) <= width; j += (G))                               \
          _Pragma("unroll") for (int g = 0; g < (G); g++) GS_SELL_ENTRY(0, g);                     \
      _Pragma("unroll") for (int g = 0; g < (G); g++) if (j + g < width) GS_SELL_ENTRY(0, g);      \
    }                                                                                              \
    _Pragma("unroll") for (int r = 0; r < 2; r++) {                                                \
      _Pragma("unroll") for (int off = (G) / 2; off > 0; off >>= 1)                                \
          _Pragma("unroll") for (int l = 0; l < off; l++) s[r][l] += s[r][l + off];                \
      out[r] = s[r][0];                                                                            \
    }                                                                                              \
  }

/* Position p's slice, width and first entry; C = 2^cshift (cshift >= 0) or any C (cshift < 0: ELL,
 * one slice of m rows), so that the common case divides by shifts. */
#define GS_SELL_LOCATE(p, w, cpo, vpo)                                                             \
  do {                                                                                             \
    const GsInt s_ = cshift >= 0 ? (p) >> cshift : (p) / C, b0_ = sp[s_], b1_ = sp[s_ + 1];        \
    (w) = (int)(cshift >= 0 ? (b1_ - b0_) >> cshift : (b1_ - b0_) / C);                            \
    (cpo) = col + b0_ + ((p)-s_ * C);                                                              \
    (vpo) = val + b0_ + ((p)-s_ * C);                                                              \
  } while (0)

/* SELL-C-sigma, one thread a position, and SELL with x . y (no permutation: positions are rows):
 * thread GS_TID is lane GS_TID of the reduction order (gsimpl.h) and takes the row pairs 2b,
 * 2b + 1 of its packs b, so that the dot is the one GsVecDot gives. Registers grow with G, so the
 * kernels for larger G ask for fewer blocks per SM. */
#define GS_SELL_MINB(G) ((G) <= 2 ? GS_SPMV_BLOCKS_PER_SM : (G) == 4 ? 6 : (G) == 8 ? 4 : 2)
#define GS_SELL_DOT_MINB(G) ((G) <= 4 ? 4 : (G) <= 8 ? 2 : 1)
#define GS_DEFINE_SELL(G)                                                                          \
  GS_DEFINE_SELL_ROWS(G)                                                                           \
  static __global__ void __launch_bounds__(GS_SPMV_THREADS, GS_SELL_MINB(G))                       \
      gs_spmv_sell_g##G##_k(GsInt m, GsInt C, int cshift, const GsInt *__restrict__ sp,            \
                            const int *__restrict__ perm, const int *__restrict__ col,             \
                            const double *__restrict__ val, GsSpMVArgs a) {                        \
    const GsInt stride = (GsInt)gridDim.x * blockDim.x;                                            \
    const double *__restrict__ x = a.x;                                                            \
    for (GsInt p = (GsInt)blockIdx.x * blockDim.x + threadIdx.x; p < m; p += stride) {             \
      const int *cp[2] = {NULL, NULL};                                                             \
      const double *vp[2] = {NULL, NULL};                                                          \
      int width;                                                                                   \
      GS_SELL_LOCATE(p, width, cp[0], vp[0]);                                                      \
      double out[2];                                                                               \
      gs_sell_rows_g##G(1, cp, vp, C, width, x, out);                                              \
      GsSpMVStore(&a, perm ? perm[p] : p, out[0]);                                                 \
    }                                                                                              \
  }                                                                                                \
  static __global__ void __launch_bounds__(GS_SPMV_THREADS, GS_SELL_DOT_MINB(G))                   \
      gs_spmv_sell_dot_g##G##_k(GsInt m, GsInt C, int cshift, const GsInt *__restrict__ sp,        \
                                const int *__restrict__ perm, const int *__restrict__ col,         \
                                const double *__restrict__ val, GsSpMVArgs a) {                    \
    (void)perm;                                                                                    \
    const double *__restrict__ x = a.x;                                                            \
    double acc[GS_CUDA_MAX_NV] = {0.0};                                                            \
    for (GsInt b = GS_TID_; b < (m + 1) / 2; b += GS_REDUCE_LANES) {                               \
      const GsInt r0 = 2 * b, r1 = r0 + 1;                                                         \
      const int *cp[2] = {NULL, NULL};                                                             \
      const double *vp[2] = {NULL, NULL};                                                          \
      int w0, w1 = -1;                                                                             \
      GS_SELL_LOCATE(r0, w0, cp[0], vp[0]);                                                        \
      if (r1 < m) GS_SELL_LOCATE(r1, w1, cp[1], vp[1]);                                            \
      double out[2];                                                                               \
      if (w1 == w0) {                                                                              \
        gs_sell_rows_g##G(2, cp, vp, C, w0, x, out);                                               \
      } else {                                                                                     \
        gs_sell_rows_g##G(1, cp, vp, C, w0, x, out);                                               \
        if (r1 < m) {                                                                              \
          double o1[2];                                                                            \
          gs_sell_rows_g##G(1, cp + 1, vp + 1, C, w1, x, o1);                                      \
          out[1] = o1[0];                                                                          \
        }                                                                                          \
      }                                                                                            \
      acc[0] += __ldg(x + r0) * GsSpMVStore(&a, r0, out[0]);                                       \
      if (r1 < m) acc[0] += __ldg(x + r1) * GsSpMVStore(&a, r1, out[1]);                           \
    }                                                                                              \
    GsReduceFinish(acc, 1, 0, a.partials, a.counter, a.result);                                    \
  }
#define GS_TID_ ((GsInt)blockIdx.x * blockDim.x + threadIdx.x)
GS_DEFINE_SELL(1)
GS_DEFINE_SELL(2)
GS_DEFINE_SELL(4)
GS_DEFINE_SELL(8)
GS_DEFINE_SELL(16)
GS_DEFINE_SELL(32)
typedef void (*GsSellKernel)(GsInt, GsInt, int, const GsInt *, const int *, const int *,
                             const double *, GsSpMVArgs);
/* [dot][log2 G] */
static const GsSellKernel gs_spmv_sell_t[2][6] = {
    {gs_spmv_sell_g1_k, gs_spmv_sell_g2_k, gs_spmv_sell_g4_k, gs_spmv_sell_g8_k, gs_spmv_sell_g16_k,
     gs_spmv_sell_g32_k},
    {gs_spmv_sell_dot_g1_k, gs_spmv_sell_dot_g2_k, gs_spmv_sell_dot_g4_k, gs_spmv_sell_dot_g8_k,
     gs_spmv_sell_dot_g16_k, gs_spmv_sell_dot_g32_k}};

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
  GS_PDL_ENTER(); /* launched by GS_LAUNCH */
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
  GS_PDL_ENTER(); /* launched by GS_LAUNCH */
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
  /* x . y from the SELL pass itself when positions are rows (no permutation), else by the dot
   * kernel after the product; either way in the reduction order, as GsVecDot gives it. */
  const int want = xy != NULL;
  a.dot = want && A->kernel == GS_SPMV_SELL && A->sell_perm == NULL;
  a.partials = cc->partials;
  a.counter = cc->counter;
  /* the dot straight to the caller's scalars, or to the context's results for the host */
  double *result = want && ds && ds->res ? ds->res : cc->results;
  a.result = result;
  int gshift = 0; /* the group is a power of two up to 32 (the front end checks) */
  while ((1 << gshift) < A->group && gshift < 5)
    gshift++;
  if (A->kernel == GS_SPMV_SELL || A->kernel == GS_SPMV_HYBRID) {
    int cshift = 0;
    while (((GsInt)1 << cshift) < A->sell_c)
      cshift++;
    if (((GsInt)1 << cshift) != A->sell_c) cshift = -1;
    if (A->sell_m > 0) {
      const unsigned int grid =
          a.dot ? GsReduceGrid(A->sell_m, GS_DOUBLE) : spmv_grid(cc, A->sell_m);
      gs_spmv_sell_t[a.dot][gshift]<<<grid, GS_SPMV_THREADS, 0, cc->stream>>>(
          A->sell_m, A->sell_c, cshift, A->sell_ptr, A->sell_perm, A->sell_col, A->sell_val, a);
      GsCheckLaunchCuda(ctx, a.dot ? "gs_spmv_sell_dot_k" : "gs_spmv_sell_k");
    }
  }
  if ((A->kernel == GS_SPMV_MERGE || A->kernel == GS_SPMV_HYBRID) && A->merge_m > 0) {
    const GsInt nb = k_merge_blocks(A);
    GsCheck(nb <= A->merge_blocks && nb <= 0x7fffffff, ctx, GS_ERR_INTERNAL,
            "merge SpMV: %lld blocks, scratch for %lld", (long long)nb, (long long)A->merge_blocks);
    GS_LAUNCH(cc, GS_PDL_MERGE, gs_spmv_merge_k, dim3((unsigned int)nb), dim3(GS_SPMV_THREADS), 0,
              A->merge_m, A->merge_nnz, A->rowptr, A->rowptr32, A->col, A->val, A->merge_rows,
              A->merge_start, a, A->merge_row, A->merge_val);
    GsCheckLaunchCuda(ctx, "gs_spmv_merge_k");
    GS_LAUNCH(cc, GS_PDL_MERGE, gs_spmv_merge_fix_k,
              dim3((unsigned int)((nb + GS_SPMV_THREADS - 1) / GS_SPMV_THREADS)),
              dim3(GS_SPMV_THREADS), 0, A->merge_m, nb, A->merge_row, A->merge_val, A->merge_rows,
              alpha, y);
    GsCheckLaunchCuda(ctx, "gs_spmv_merge_fix_k");
  }
  if (A->kernel == GS_SPMV_CSR) {
    gs_spmv_csr_k<<<spmv_grid(cc, A->m << gshift), GS_SPMV_THREADS, 0, cc->stream>>>(
        A->m, A->rowptr32, A->col, A->val, gshift, a);
    GsCheckLaunchCuda(ctx, "gs_spmv_csr_k");
  }
  if (want) {
    if (!a.dot) GsCall(GsCudaDotToDevice(ctx, cc, A->m, x, y, result));
    if (result == cc->results) GsCall(GsFetchResults(ctx, cc, 1, xy));
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
