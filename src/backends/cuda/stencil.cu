/* CUDA stencil kernel (see include/gpusolve/stencil.h).
 *
 * Floor: each distinct input read once and y written once, (inputs + 1) d bytes per point
 * (d = 8 double, 4 float): 24 bytes for a two-input Cahn-Hilliard right-hand side in double.
 *
 * A block of 32 x 4 threads owns a tile of 32 x 32 points; each thread 8 consecutive rows of one
 * column. For each source (an input, or a combination of inputs: GsStencilSetCombination) the
 * block stages the tile and its halo (the largest radii in use, wrapped periodically) in shared
 * memory, row by row with the threads of a warp along a row, each thread its own 8 rows and one
 * halo row, and with it the source raised to the first power above 1 its terms use (into a second
 * buffer; another power is raised from the staged values when its term comes, or for a
 * combination staged again from its inputs). The centre-only terms (on inputs of the first
 * source) are added to a thread's sums from the values it stages for its own rows, so they cost
 * no loads; a combination's terms apply their weights once for all of its inputs (a
 * Cahn-Hilliard SBDF2 right-hand side: 4096^2 on the H200 0.262 -> 0.225 ms against the same
 * terms on c and cprev apart, its step 0.980 -> 0.944 ms). A thread then
 * walks the term's weights column by column: it loads the column strip its 8 rows need (8 + 2 ry
 * values, only the rows the column's nonzero weights reach) into registers and applies every weight
 * of the column to it. Shared-memory loads per point and term are (8 + 2 ry) / 8 per column in use
 * (7.5 for a full 5 x 5, 3.5 for a 5-point cross) instead of one per weight (25 and 5): with a
 * weight per load the shared memory, not DRAM, bounded a Cahn-Hilliard right-hand side (60 weights
 * per point: ~0.24 ms at 4096^2 on an H200 against ~0.09 ms of DRAM traffic). Halos are re-read by
 * neighbouring tiles and mostly hit L2. Weights live in the kernel's parameter space
 * (GsStencilInfo's dense view, built once by the front end), with each column's row range: all
 * indices are compile-time, so the strips stay in registers. Each point sums a term's weights
 * column by column (dx, then dy, ascending), as GsStencilInfo lists them and the CPU kernel sums
 * them, with fused multiply-adds. */
#include "cudaimpl.h"

#define GS_ST_R GS_STENCIL_MAX_RADIUS
#define GS_ST_W GS_STENCIL_W /* weights per column */
#define GS_ST_TX 32          /* tile width = threads along x */
#define GS_ST_NY 4           /* threads along y */
/* Consecutive rows per thread: a constant of each kernel (gs_rpt_, GS_DEFINE_STENCIL's RPT). */
#define GS_ST_RPT gs_rpt_
#define GS_ST_TY (GS_ST_NY * GS_ST_RPT)    /* tile height */
#define GS_ST_SR (GS_ST_RPT + 2 * GS_ST_R) /* rows of a column strip */
#define GS_ST_PX (GS_ST_TX + 2 * GS_ST_R)  /* pitch of a staged tile */
#define GS_ST_PY (GS_ST_TY + 2 * GS_ST_R)
#define GS_ST_RROWS (GS_ST_RPT + 1) /* staged rows per thread: its own, one of the halo's */
#if 2 * GS_ST_R > GS_ST_NY
#error "one halo row per thread: 2 GS_STENCIL_MAX_RADIUS must not exceed GS_ST_NY"
#endif

typedef struct {
  const void *x[GS_STENCIL_MAX_INPUTS];
  void *y;
} GsStencilArrays;

/* Input j0 (and j0 + 1 if two) of a source, values x0 and x1 with coefficients c0 and c1, into
 * the sums u (the values) and v (their power pk, when pk > 1), started at j0 = 0 and in input
 * order, so that an input alone (coefficient 1) stages its own values and power exactly. */
#define GS_ST_COMBINE(T, j0, two, c0, c1, x0, x1, pk, u, v)                                        \
  {                                                                                                \
    const T a0_ = (x0), a1_ = (x1);                                                                \
    (u) = (j0) == 0 ? (c0)*a0_ : (u) + (c0)*a0_;                                                   \
    if (two) (u) += (c1)*a1_;                                                                      \
    if ((pk) > 1) {                                                                                \
      const T p0_ = (pk) == 2 ? a0_ * a0_ : a0_ * a0_ * a0_;                                       \
      const T p1_ = (pk) == 2 ? a1_ * a1_ : a1_ * a1_ * a1_;                                       \
      (v) = (j0) == 0 ? (c0)*p0_ : (v) + (c0)*p0_;                                                 \
      if (two) (v) += (c1)*p1_;                                                                    \
    }                                                                                              \
  }
/* Source `in` at flat index i: its value into u and, for pk > 1, its power pk into v. */
#define GS_ST_SOURCE(T, in, i, pk, u, v)                                                           \
  for (int j_ = 0; j_ < d.nsrc[in]; j_++) {                                                        \
    const T x_ = ((const T *)a.x[d.sidx[in][j_]])[i];                                              \
    GS_ST_COMBINE(T, j_, 0, (T)d.scoef[in][j_], (T)0, x_, (T)0, pk, u, v)                          \
  }
/* Halo cell e of a tile (the 2 rx columns left and right of its staged rows, row by row): its
 * staged row *r and staged column *q (0 .. cw + 2 rx - 1). No divisions but by 2 rx. */
static __device__ __forceinline__ void gs_st_halo_cell(int e, int rx, int cw, int *r, int *q) {
  const int row = rx == 2 ? e >> 2 : e >> 1, c = e - row * 2 * rx;
  *r = row;
  *q = c < rx ? c : cw + c;
}
/* Staged row of a thread's q-th row (q < GS_ST_RROWS = GS_ST_RPT + 1): its own GS_ST_RPT rows,
 * then one of the 2 ry halo rows; ok: that row exists and the column too. */
#define GS_ST_SROW(q)                                                                              \
  ((q) < GS_ST_RPT         ? ry + row0 + (q)                                                       \
   : (int)threadIdx.y < ry ? (int)threadIdx.y                                                      \
                           : ch + (int)threadIdx.y)
#define GS_ST_SOK(q) (lx < cw && ((q) < GS_ST_RPT ? row0 + (q) < ch : (int)threadIdx.y < 2 * ry))
/* The same in a full tile whose rows and halo rows need no wrapping (FAST): only the halo row can
 * be absent. */
#define GS_ST_SOKF(q, FAST) ((FAST) ? ((q) < GS_ST_RPT || (int)threadIdx.y < 2 * ry) : GS_ST_SOK(q))
/* Staging rows q in [QA, QB) of the tile's own columns from one input (s0, c0) or two (TWO: and
 * s1, c1), all their loads in flight together, into shared memory with their power pk (0: none),
 * where a longer combination's later inputs add to it (FIRST: the source's first inputs, which
 * store without reading); the centre-only terms (weights f0, f1) added to the sums of the
 * thread's own rows, from the same values. Each block-uniform choice (the power, a fold weight
 * of zero) wraps a whole loop over the rows: inside the loops the compiler turned each into a
 * select per value (Nsight Compute on a Cahn-Hilliard right-hand side: 88 FSEL and 45 PLOP3 among
 * the staging's 422 instructions per warp and tile, the staging a quarter of the kernel's). The
 * arithmetic is GS_ST_COMBINE's, in the same order. */
#define GS_ST_STAGE_ROWS(T, QA, QB, TWO, FAST, FIRST)                                              \
  {                                                                                                \
    T r0[(QB) - (QA)], r1[(QB) - (QA)];                                                            \
    _Pragma("unroll") for (int q = (QA); q < (QB); q++) {                                          \
      GsStIdx gy = y0 + GS_ST_SROW(q) - ry;                                                        \
      if (!(FAST)) gy = gy < 0 ? gy + ny : gy >= ny ? gy - ny : gy;                                \
      const int ok = GS_ST_SOKF(q, FAST);                                                          \
      r0[q - (QA)] = ok ? s0[gy * nx + x0 + lx] : (T)0;                                            \
      r1[q - (QA)] = ok && (TWO) ? s1[gy * nx + x0 + lx] : (T)0;                                   \
    }                                                                                              \
    _Pragma("unroll") for (int q = (QA); q < (QB); q++) {                                          \
      if (GS_ST_SOKF(q, FAST)) {                                                                   \
        T *pu = &s_in[GS_ST_SROW(q) + GS_ST_R - ry][lx + GS_ST_R];                                 \
        T u = (FIRST) ? c0 * r0[q - (QA)] : *pu + c0 * r0[q - (QA)];                               \
        if (TWO) u += c1 * r1[q - (QA)];                                                           \
        *pu = u;                                                                                   \
      }                                                                                            \
    }                                                                                              \
    if (pk == 2) {                                                                                 \
      GS_ST_STAGE_POWER(T, QA, QB, TWO, FAST, FIRST, r0[q - (QA)] * r0[q - (QA)],                  \
                        r1[q - (QA)] * r1[q - (QA)])                                               \
    } else if (pk == 3) {                                                                          \
      GS_ST_STAGE_POWER(T, QA, QB, TWO, FAST, FIRST, r0[q - (QA)] * r0[q - (QA)] * r0[q - (QA)],   \
                        r1[q - (QA)] * r1[q - (QA)] * r1[q - (QA)])                                \
    }                                                                                              \
    if (f0 != (T)0) {                                                                              \
      _Pragma("unroll") for (int q = (QA); q < (QB) && q < GS_ST_RPT; q++)                         \
          acc[q < GS_ST_RPT ? q : 0] += f0 * r0[q - (QA)];                                         \
    }                                                                                              \
    if ((TWO) && f1 != (T)0) {                                                                     \
      _Pragma("unroll") for (int q = (QA); q < (QB) && q < GS_ST_RPT; q++)                         \
          acc[q < GS_ST_RPT ? q : 0] += f1 * r1[q - (QA)];                                         \
    }                                                                                              \
  }
/* The power of the staged rows (P0, P1: expressions of q, the two inputs' powers) into s_pw. */
#define GS_ST_STAGE_POWER(T, QA, QB, TWO, FAST, FIRST, P0, P1)                                     \
  _Pragma("unroll") for (int q = (QA); q < (QB); q++) {                                            \
    if (GS_ST_SOKF(q, FAST)) {                                                                     \
      T *pv = &s_pw[GS_ST_SROW(q) + GS_ST_R - ry][lx + GS_ST_R];                                   \
      T v = (FIRST) ? c0 * (P0) : *pv + c0 * (P0);                                                 \
      if (TWO) v += c1 * (P1);                                                                     \
      *pv = v;                                                                                     \
    }                                                                                              \
  }
/* A source's own columns staged: two inputs half the rows at a time (registers), one all at
 * once. */
#define GS_ST_STAGE_OWN(T, FAST, FIRST)                                                            \
  if (two) {                                                                                       \
    GS_ST_STAGE_ROWS(T, 0, (GS_ST_RROWS + 1) / 2, 1, FAST, FIRST)                                  \
    GS_ST_STAGE_ROWS(T, (GS_ST_RROWS + 1) / 2, GS_ST_RROWS, 1, FAST, FIRST)                        \
  } else {                                                                                         \
    GS_ST_STAGE_ROWS(T, 0, GS_ST_RROWS, 0, FAST, FIRST)                                            \
  }
/* A full tile's whole source when it has one or two inputs (every source but a three-input
 * combination's): the loads of all its rows and of the thread's halo cells (at most two: 2 rx hh
 * <= 144 cells) issued together, so that the tile waits for memory once, not three times (half
 * the rows, the other half, the halo), and then staged as GS_ST_STAGE_ROWS and the halo loop
 * stage them (the same arithmetic). Halo rows need no wrapping in a full tile; columns do.
 * Float only (GS_ST_ONE_GO): in double the 22 values in flight take 44 of the 80 registers and
 * the kernel spilled 204 / 368 bytes (16 / 32 without), 96 registers (5 blocks a SM) still 84 /
 * 144. H200, `gpusolve ch -bench 1 -bench_steps 30`, logged stencil ms, two rounds beside the
 * staging in halves: float 4096^2 0.1523 / 0.1526 -> 0.1245 / 0.1248; double 4096^2 0.1955 /
 * 0.1950 -> 0.2498 / 0.2516 (5 blocks a SM: 0.2158 / 0.2169), 1024^2 0.0202 / 0.0199 -> 0.0271
 * / 0.0271, the 1D ensemble 65536 x 1024 0.6219 / 0.6226 -> 0.8794 / 0.8824. */
#define GS_ST_ONE_GO(T) (sizeof(T) < sizeof(double))
#define GS_ST_STAGE_FAST(T, TWO)                                                                   \
  {                                                                                                \
    const int nh = 2 * rx * hh;                                                                    \
    T h0[2], h1[2];                                                                                \
    _Pragma("unroll") for (int k = 0; k < 2; k++) {                                                \
      const int e = tid + k * GS_ST_TX * GS_ST_NY;                                                 \
      h0[k] = h1[k] = (T)0;                                                                        \
      if (e < nh) {                                                                                \
        int r, q;                                                                                  \
        gs_st_halo_cell(e, rx, cw, &r, &q);                                                        \
        GsStIdx gx = x0 + q - rx;                                                                  \
        gx = gx < 0 ? gx + nx : gx >= nx ? gx - nx : gx;                                           \
        const GsStIdx i = (y0 + r - ry) * nx + gx;                                                 \
        h0[k] = s0[i];                                                                             \
        if (TWO) h1[k] = s1[i];                                                                    \
      }                                                                                            \
    }                                                                                              \
    GS_ST_STAGE_ROWS(T, 0, GS_ST_RROWS, TWO, 1, 1)                                                 \
    _Pragma("unroll") for (int k = 0; k < 2; k++) {                                                \
      const int e = tid + k * GS_ST_TX * GS_ST_NY;                                                 \
      if (e < nh) {                                                                                \
        int r, q;                                                                                  \
        gs_st_halo_cell(e, rx, cw, &r, &q);                                                        \
        const int sr = r + GS_ST_R - ry, sq = q + GS_ST_R - rx;                                    \
        T u = c0 * h0[k];                                                                          \
        if (TWO) u += c1 * h1[k];                                                                  \
        s_in[sr][sq] = u;                                                                          \
        if (pk) {                                                                                  \
          const T p0 = pk == 2 ? h0[k] * h0[k] : h0[k] * h0[k] * h0[k];                            \
          T v = c0 * p0;                                                                           \
          if (TWO) v += c1 * (pk == 2 ? h1[k] * h1[k] : h1[k] * h1[k] * h1[k]);                    \
          s_pw[sr][sq] = v;                                                                        \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
  }
/* Halo cell e of a tile: its staged row r and column q, and its grid offset i (index type I)
 * with both axes wrapped. */
#define GS_ST_HALO_AT(I, e, r, q, i)                                                               \
  int r, q;                                                                                        \
  gs_st_halo_cell(e, rx, cw, &r, &q);                                                              \
  I i;                                                                                             \
  {                                                                                                \
    I gy_ = y0 + r - ry, gx_ = x0 + q - rx;                                                        \
    gy_ = gy_ < 0 ? gy_ + ny : gy_ >= ny ? gy_ - ny : gy_;                                         \
    gx_ = gx_ < 0 ? gx_ + nx : gx_ >= nx ? gx_ - nx : gx_;                                         \
    i = gy_ * nx + gx_;                                                                            \
  }
/* GS_ST_STAGE_FAST for a source of `two` inputs or one. */
#define GS_ST_STAGE_FAST_ANY(T)                                                                    \
  if (two) {                                                                                       \
    GS_ST_STAGE_FAST(T, 1)                                                                         \
  } else {                                                                                         \
    GS_ST_STAGE_FAST(T, 0)                                                                         \
  }
/* A thread's sums acc[] into its rows of y (a full tile without tests). */
#define GS_ST_STORE(T)                                                                             \
  {                                                                                                \
    T *y = (T *)a.y + base;                                                                        \
    if (fast) {                                                                                    \
      T *yp = y + (y0 + row0) * nx + x0 + lx;                                                      \
      _Pragma("unroll") for (int r = 0; r < GS_ST_RPT; r++) yp[r * nx] = acc[r];                   \
    } else {                                                                                       \
      _Pragma("unroll") for (int r = 0; r < GS_ST_RPT; r++) {                                      \
        if (lx < cw && row0 + r < ch) y[(y0 + row0 + r) * nx + x0 + lx] = acc[r];                  \
      }                                                                                            \
    }                                                                                              \
  }
/* The kernel for values of type T with grid indices of type I (int where a grid's nx ny fits:
 * 64-bit index arithmetic costs a GPU two to three instructions for one), RPT rows per thread,
 * compiled for MINB resident blocks per SM (a register cap: 6 gives 80 registers, 8 gives 64). */
#define GS_DEFINE_STENCIL(T, I, SUF, RPT, MINB)                                                    \
  static __global__ void __launch_bounds__(GS_ST_TX *GS_ST_NY, MINB)                               \
      gs_stencil_##T##SUF(const __grid_constant__ GsStencilInfo d,                                 \
                          const __grid_constant__ GsStencilArrays a, GsInt tiles_y) {              \
    GS_PDL_ENTER(); /* launched by GS_LAUNCH */                                                    \
    enum { gs_rpt_ = RPT };                                                                        \
    typedef I GsStIdx;                                                                             \
    __shared__ T s_in[GS_ST_PY][GS_ST_PX];                                                         \
    __shared__ T s_pw[GS_ST_PY][GS_ST_PX];                                                         \
    const GsStIdx nx = (GsStIdx)d.nx, ny = (GsStIdx)d.ny;                                          \
    const int rx = d.rx, ry = d.ry, lx = threadIdx.x, row0 = threadIdx.y * GS_ST_RPT;              \
    const int tid = threadIdx.y * GS_ST_TX + lx;                                                   \
    const GsStIdx x0 = (GsStIdx)blockIdx.x * GS_ST_TX;                                             \
    /* Columns and rows of the tile that exist (the last tiles may be cut). */                     \
    const int cw = (int)(nx - x0 < GS_ST_TX ? nx - x0 : GS_ST_TX);                                 \
    for (GsInt b = blockIdx.z; b < d.batch; b += gridDim.z)                                        \
      for (GsInt ty = blockIdx.y; ty < tiles_y; ty += gridDim.y) {                                 \
        const GsStIdx y0 = (GsStIdx)(ty * GS_ST_TY);                                               \
        const GsInt base = b * d.nx * d.ny;                                                        \
        const int ch = (int)(ny - y0 < GS_ST_TY ? ny - y0 : GS_ST_TY);                             \
        const int hw = cw + 2 * rx, hh = ch + 2 * ry; /* staged cells */                           \
        /* A full tile whose rows and halo rows lie inside the grid: staged and stored without     \
         * wrapping or tests (all but the first and last rows of tiles of a large grid; the        \
         * staging's instructions were ~100 of ~240 a point for a Cahn-Hilliard right-hand side).  \
         */                                                                                        \
        const int fast = cw == GS_ST_TX && ch == GS_ST_TY && y0 >= (GsStIdx)ry &&                  \
                         y0 + (GsStIdx)(GS_ST_TY + ry) <= ny;                                      \
        T acc[GS_ST_RPT];                                                                          \
        _Pragma("unroll") for (int r = 0; r < GS_ST_RPT; r++) acc[r] = (T)0;                       \
        if (!d.fold) /* centre-only terms not added by the staging: from global memory */          \
          for (int t = 0; t < d.npoint; t++) {                                                     \
            const int in = d.input[t], p = d.power[t];                                             \
            const T w = (T)d.pointw[t];                                                            \
            _Pragma("unroll") for (int r = 0; r < GS_ST_RPT; r++) {                                \
              if (lx < cw && row0 + r < ch) {                                                      \
                T u = 0, v = 0;                                                                    \
                GS_ST_SOURCE(T, in, base + (y0 + row0 + r) * nx + x0 + lx, p, u, v)                \
                acc[r] += w * (p > 1 ? v : u);                                                     \
              }                                                                                    \
            }                                                                                      \
          }                                                                                        \
        int staged = -1, powered = 0; /* the source in s_in; the power in s_pw (0: none) */        \
        for (int t = d.npoint; t < d.nterms; t++) {                                                \
          const int in = d.input[t], p = d.power[t];                                               \
          if (in != staged) {                                                                      \
            /* The first power above 1 this source is raised to, staged with it. */                \
            int pk = 0;                                                                            \
            for (int u = t; u < d.nterms && !pk; u++)                                              \
              if (d.input[u] == in && d.power[u] > 1) pk = d.power[u];                             \
            const int fold = d.fold && t == d.npoint; /* the centre-only terms with it */          \
            __syncthreads();                          /* the previous source's sums are done */    \
            /* The tile's own columns row by row, the warp along a row (coalesced); then the       \
             * 2 rx halo columns of every row, one value per thread. No divisions but by 2 rx.     \
             * All of a thread's rows are loaded before any is stored, so that its loads are in    \
             * flight together (one at a time, the staging was bound by latency), two inputs of a  \
             * combination at a time; the combination sums its inputs in order. */                 \
            const int nsrc = d.nsrc[in];                                                           \
            if (GS_ST_ONE_GO(T) && fast && nsrc <= 2) {                                            \
              const int two = nsrc == 2;                                                           \
              const T *s0 = (const T *)a.x[d.sidx[in][0]] + base;                                  \
              const T *s1 = (const T *)a.x[d.sidx[in][two]] + base;                                \
              const T c0 = (T)d.scoef[in][0], c1 = two ? (T)d.scoef[in][1] : (T)0;                 \
              const T f0 = fold ? (T)d.foldw[0] : (T)0;                                            \
              const T f1 = fold && two ? (T)d.foldw[1] : (T)0;                                     \
              GS_ST_STAGE_FAST_ANY(T)                                                              \
            } else {                                                                               \
              for (int j0 = 0; j0 < nsrc; j0 += 2) {                                               \
                const int two = j0 + 1 < nsrc;                                                     \
                const T *s0 = (const T *)a.x[d.sidx[in][j0]] + base;                               \
                const T *s1 = (const T *)a.x[d.sidx[in][two ? j0 + 1 : j0]] + base;                \
                const T c0 = (T)d.scoef[in][j0], c1 = two ? (T)d.scoef[in][j0 + 1] : (T)0;         \
                /* the centre-only terms' weights on the two inputs, when they go with them */     \
                const T f0 = fold ? (T)d.foldw[j0] : (T)0;                                         \
                const T f1 = fold && two ? (T)d.foldw[j0 + 1] : (T)0;                              \
                if (fast && j0 == 0) { /* the case that matters, compiled apart */                 \
                  GS_ST_STAGE_OWN(T, 1, 1)                                                         \
                } else {                                                                           \
                  GS_ST_STAGE_OWN(T, 0, j0 == 0)                                                   \
                }                                                                                  \
              }                                                                                    \
              for (int e = tid; e < 2 * rx * hh; e += GS_ST_TX * GS_ST_NY) {                       \
                GS_ST_HALO_AT(GsStIdx, e, r, q, hi)                                                \
                T u = 0, v = 0;                                                                    \
                GS_ST_SOURCE(T, in, base + hi, pk, u, v)                                           \
                s_in[r + GS_ST_R - ry][q + GS_ST_R - rx] = u;                                      \
                if (pk) s_pw[r + GS_ST_R - ry][q + GS_ST_R - rx] = v;                              \
              }                                                                                    \
            }                                                                                      \
            staged = in;                                                                           \
            powered = pk;                                                                          \
            __syncthreads();                                                                       \
          }                                                                                        \
          T(*s)[GS_ST_PX] = s_in;                                                                  \
          if (p > 1) {                                                                             \
            if (p != powered) { /* a second power of the same source */                            \
              __syncthreads();  /* the previous power's sums are done */                           \
              const int plain = d.nsrc[in] == 1 && d.scoef[in][0] == 1;                            \
              for (int r = threadIdx.y; r < hh; r += GS_ST_NY)                                     \
                for (int q = lx; q < hw; q += GS_ST_TX) {                                          \
                  const int sr = r + GS_ST_R - ry, sq = q + GS_ST_R - rx;                          \
                  if (plain) { /* raised from the staged input */                                  \
                    const T u = s_in[sr][sq];                                                      \
                    s_pw[sr][sq] = p == 2 ? u * u : u * u * u;                                     \
                  } else { /* a combination of powers: from the inputs again */                    \
                    GsStIdx gy = y0 + r - ry, gx = x0 + q - rx;                                    \
                    gy = gy < 0 ? gy + ny : gy >= ny ? gy - ny : gy;                               \
                    gx = gx < 0 ? gx + nx : gx >= nx ? gx - nx : gx;                               \
                    T u = 0, v = 0;                                                                \
                    GS_ST_SOURCE(T, in, base + gy * nx + gx, p, u, v)                              \
                    s_pw[sr][sq] = v;                                                              \
                  }                                                                                \
                }                                                                                  \
              powered = p;                                                                         \
              __syncthreads();                                                                     \
            }                                                                                      \
            s = s_pw;                                                                              \
          }                                                                                        \
          /* Conservative form: the total times the centre values, then differences from them      \
           * (ctr is 0 otherwise, which leaves the products as they are). */                       \
          T ctr[GS_ST_RPT];                                                                        \
          _Pragma("unroll") for (int r = 0; r < GS_ST_RPT; r++) ctr[r] =                           \
              d.conservative[t] ? s[row0 + r + GS_ST_R][lx + GS_ST_R] : (T)0;                      \
          if (d.conservative[t]) {                                                                 \
            const T tot = (T)d.total[t];                                                           \
            _Pragma("unroll") for (int r = 0; r < GS_ST_RPT; r++) acc[r] += tot * ctr[r];          \
          }                                                                                        \
          _Pragma("unroll") for (int cx = 0; cx < GS_ST_W; cx++) {                                 \
            const int lo = d.lo[t][cx], hi = d.hi[t][cx];                                          \
            if (lo > hi) continue; /* the same for the whole block */                              \
            if (ry == 0) {         /* rows apart (a 1D ensemble): one weight per column */         \
              const T w = (T)d.k[t][cx * GS_ST_W + GS_ST_R];                                       \
              _Pragma("unroll") for (int r = 0; r < GS_ST_RPT; r++) acc[r] +=                      \
                  w * (s[row0 + r + GS_ST_R][lx + cx] - ctr[r]);                                   \
              continue;                                                                            \
            }                                                                                      \
            T strip[GS_ST_SR];                                                                     \
            /* All of the strip: rows outside the weights' range are never multiplied (their       \
             * weights are zero and skipped), and a per-row range test cost more than the loads.   \
             */                                                                                    \
            _Pragma("unroll") for (int e = 0; e < GS_ST_SR; e++) strip[e] = s[row0 + e][lx + cx];  \
            _Pragma("unroll") for (int cy = 0; cy < GS_ST_W; cy++) {                               \
              const T w = (T)d.k[t][cx * GS_ST_W + cy];                                            \
              if (w != (T)0) {                                                                     \
                _Pragma("unroll") for (int r = 0; r < GS_ST_RPT; r++) acc[r] +=                    \
                    w * (strip[r + cy] - ctr[r]);                                                  \
              }                                                                                    \
            }                                                                                      \
          }                                                                                        \
        }                                                                                          \
        GS_ST_STORE(T)                                                                             \
        __syncthreads(); /* the staged tile is free for the next one */                            \
      }                                                                                            \
  }
/* Tiles of 32 x 16 (4 rows a thread, 8 blocks a SM) for double grids with vertical reach, 32 x 32
 * (8 rows, 6 blocks) for the rest: see cuda_stencil_apply. */
GS_DEFINE_STENCIL(double, int, _r4, 4, 8)
GS_DEFINE_STENCIL(double, GsInt, _r4_l, 4, 8)
GS_DEFINE_STENCIL(double, int, , 8, 6)
GS_DEFINE_STENCIL(float, int, , 8, 6)
GS_DEFINE_STENCIL(double, GsInt, _l, 8, 6)
GS_DEFINE_STENCIL(float, GsInt, _l, 8, 6)

/* ---- Kernels compiled for a shape ---------------------------------------------------------- *
 * The general kernel reads each term's weights, column ranges and flags at run time: per tile
 * and thread it tests every one of a term's 25 weights for zero, loads whole column strips
 * whatever rows a column's weights reach, and walks the term list (which source is staged, which
 * power). A shape kernel has the common shapes' weights fixed at compile time: one staged source
 * of one or two inputs (an input, or a combination such as 2 c - cprev), the centre-only terms
 * folded into its staging, a term of power 1 with the nonzero weights of mask M1 and optionally
 * one of power 3 with those of M3 (bit cx W + cy: the weight at dx = cx - R, dy = cy - R). Only
 * the weights in the masks are applied, only the strip rows they reach are loaded, and the halo
 * is sized at compile time. The host takes it where the stencil's nonzero weights are exactly
 * those of a compiled shape, so that it applies the same weights in the same order with the same
 * operations as the general kernel: the same bits (test_stencil compares them). */
#define GS_ST_MBIT(cx, cy) (1u << ((cx)*GS_ST_W + (cy)))
/* The 2D Cahn-Hilliard and hyperdiffusion right-hand sides' power-1 term in conservative form:
 * the crosses of radius 2 along each axis (the splitting's fourth differences, a Laplacian) and
 * the 3 x 3 block (the ADI cross term), the centre left out: 12 weights. */
#define GS_ST_M12                                                                                  \
  (GS_ST_MBIT(0, 2) | GS_ST_MBIT(1, 2) | GS_ST_MBIT(3, 2) | GS_ST_MBIT(4, 2) | GS_ST_MBIT(2, 0) |  \
   GS_ST_MBIT(2, 1) | GS_ST_MBIT(2, 3) | GS_ST_MBIT(2, 4) | GS_ST_MBIT(1, 1) | GS_ST_MBIT(1, 3) |  \
   GS_ST_MBIT(3, 1) | GS_ST_MBIT(3, 3))
/* The Laplacian of the cubic, conservative: the 5-point cross without its centre. */
#define GS_ST_M4 (GS_ST_MBIT(1, 2) | GS_ST_MBIT(3, 2) | GS_ST_MBIT(2, 1) | GS_ST_MBIT(2, 3))

typedef struct {
  const void *x0, *x1; /* the source's inputs (x1 = x0 for one) */
  void *y;
  int nx, ny; /* a grid's nx ny fits 32 bits */
  GsInt batch, tiles_y;
  int two;          /* the source has two inputs */
  int cons1, cons3; /* the terms are conservative */
  /* Coefficients and weights rounded to each type (the general kernel's (T) of the doubles). */
  double c0, c1, f0, f1, tot1, tot3, w1[GS_ST_W * GS_ST_W], w3[GS_ST_W * GS_ST_W];
  float c0f, c1f, f0f, f1f, tot1f, tot3f, w1f[GS_ST_W * GS_ST_W], w3f[GS_ST_W * GS_ST_W];
} GsStShapeArgs;
#define GS_ST_SA(T, name) (sizeof(T) == sizeof(double) ? (T)a.name : (T)a.name##f)
#define GS_ST_SAI(T, name, i) (sizeof(T) == sizeof(double) ? (T)a.name[i] : (T)a.name##f[i])

/* Does mask M hold a weight of column cx that reaches strip row e of a thread's RPT rows? */
static __device__ __forceinline__ int gs_st_strip_row(unsigned m, int cx, int e, int rpt) {
  int use = 0;
  for (int cy = 0; cy < GS_ST_W; cy++)
    if (((m >> (cx * GS_ST_W + cy)) & 1u) && e - cy >= 0 && e - cy < rpt) use = 1;
  return use;
}
/* A term of mask M on the staged values s (the general kernel's loop with its tests resolved):
 * conservative (CONS), the total times the centre values, then w (value - centre) column by
 * column (dx, then dy, ascending). */
#define GS_ST_SHAPE_TERM(T, s, M, CONS, TOT, W)                                                    \
  {                                                                                                \
    T ctr[GS_ST_RPT];                                                                              \
    _Pragma("unroll") for (int r = 0; r < GS_ST_RPT; r++) ctr[r] =                                 \
        (CONS) ? s[row0 + r + GS_ST_R][lx + GS_ST_R] : (T)0;                                       \
    if (CONS) {                                                                                    \
      const T tot = GS_ST_SA(T, TOT);                                                              \
      _Pragma("unroll") for (int r = 0; r < GS_ST_RPT; r++) acc[r] += tot * ctr[r];                \
    }                                                                                              \
    _Pragma("unroll") for (int cx = 0; cx < GS_ST_W; cx++) {                                       \
      if (!(((M) >> (cx * GS_ST_W)) & ((1u << GS_ST_W) - 1u))) continue;                           \
      T strip[GS_ST_SR];                                                                           \
      _Pragma("unroll") for (int e = 0; e < GS_ST_SR; e++) strip[e] =                              \
          gs_st_strip_row((M), cx, e, GS_ST_RPT) ? s[row0 + e][lx + cx] : (T)0;                    \
      _Pragma("unroll") for (int cy = 0; cy < GS_ST_W; cy++) {                                     \
        if (((M) >> (cx * GS_ST_W + cy)) & 1u) {                                                   \
          const T w = GS_ST_SAI(T, W, cx * GS_ST_W + cy);                                          \
          _Pragma("unroll") for (int r = 0; r < GS_ST_RPT; r++) acc[r] +=                          \
              w * (strip[r + cy] - ctr[r]);                                                        \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
  }
/* The kernel for values of type T, RPT rows per thread, MINB blocks per SM, masks M1 and M3 (0:
 * no power-3 term), radii RX and RY (those the masks reach). Staging as the general kernel's
 * (its macros, with the source's power and radii constant), a full tile's rows and halo in one go
 * in double too: the general kernel's double tiles wait for memory three times (its rows in two
 * halves, then the halo), which its registers forced; here 4 rows a thread leave 12 values in
 * flight without spills (H200, Cahn-Hilliard 4096^2, logged stencil 0.122 -> 0.117 ms, the step
 * 0.503 -> 0.499 ms; 2048^2 0.155 -> 0.154; 1024^2 0.0431 -> 0.0435, two rounds each). */
#define GS_DEFINE_STENCIL_SHAPE(T, SUF, RPT, MINB, M1, M3, RX, RY)                                 \
  static __global__ void __launch_bounds__(GS_ST_TX *GS_ST_NY, MINB)                               \
      gs_stencil_shape_##T##SUF(const __grid_constant__ GsStShapeArgs a) {                         \
    GS_PDL_ENTER();                                                                                \
    enum { gs_rpt_ = RPT };                                                                        \
    typedef int GsStIdx;                                                                           \
    __shared__ T s_in[GS_ST_PY][GS_ST_PX];                                                         \
    __shared__ T s_pw[GS_ST_PY][GS_ST_PX];                                                         \
    const int nx = a.nx, ny = a.ny;                                                                \
    const int rx = RX, ry = RY, pk = (M3) ? 3 : 0, two = a.two;                                    \
    const int lx = threadIdx.x, row0 = threadIdx.y * GS_ST_RPT;                                    \
    const int tid = threadIdx.y * GS_ST_TX + lx;                                                   \
    const int x0 = (int)blockIdx.x * GS_ST_TX;                                                     \
    const int cw = nx - x0 < GS_ST_TX ? nx - x0 : GS_ST_TX;                                        \
    const T c0 = GS_ST_SA(T, c0), c1 = GS_ST_SA(T, c1);                                            \
    const T f0 = GS_ST_SA(T, f0), f1 = GS_ST_SA(T, f1);                                            \
    for (GsInt b = blockIdx.z; b < a.batch; b += gridDim.z)                                        \
      for (GsInt ty = blockIdx.y; ty < a.tiles_y; ty += gridDim.y) {                               \
        const int y0 = (int)(ty * GS_ST_TY);                                                       \
        const GsInt base = b * (GsInt)nx * ny;                                                     \
        const int ch = ny - y0 < GS_ST_TY ? ny - y0 : GS_ST_TY;                                    \
        const int hh = ch + 2 * ry;                                                                \
        const int fast = cw == GS_ST_TX && ch == GS_ST_TY && y0 >= ry && y0 + GS_ST_TY + ry <= ny; \
        const T *s0 = (const T *)a.x0 + base;                                                      \
        const T *s1 = (const T *)a.x1 + base;                                                      \
        T acc[GS_ST_RPT];                                                                          \
        _Pragma("unroll") for (int r = 0; r < GS_ST_RPT; r++) acc[r] = (T)0;                       \
        if (fast) { /* in one go in double too (its 12 values in flight fit at 4 rows) */          \
          GS_ST_STAGE_FAST_ANY(T)                                                                  \
        } else {                                                                                   \
          GS_ST_STAGE_OWN(T, 0, 1)                                                                 \
          for (int e = tid; e < 2 * rx * hh; e += GS_ST_TX * GS_ST_NY) {                           \
            GS_ST_HALO_AT(int, e, r, q, hi)                                                        \
            T u = 0, v = 0;                                                                        \
            GS_ST_COMBINE(T, 0, two, c0, c1, s0[hi], two ? s1[hi] : (T)0, pk, u, v)                \
            s_in[r + GS_ST_R - ry][q + GS_ST_R - rx] = u;                                          \
            if (pk) s_pw[r + GS_ST_R - ry][q + GS_ST_R - rx] = v;                                  \
          }                                                                                        \
        }                                                                                          \
        __syncthreads();                                                                           \
        GS_ST_SHAPE_TERM(T, s_in, (M1), a.cons1, tot1, w1)                                         \
        if (M3) GS_ST_SHAPE_TERM(T, s_pw, (M3), a.cons3, tot3, w3)                                 \
        GS_ST_STORE(T)                                                                             \
        __syncthreads(); /* the staged tile is free for the next one */                            \
      }                                                                                            \
  }
/* Cahn-Hilliard (power 1 and the cubic) and hyperdiffusion (power 1) right-hand sides, in the
 * general kernel's tiles for each type (double 32 x 16 at 8 blocks a SM, float 32 x 32 at 6). */
GS_DEFINE_STENCIL_SHAPE(double, _12_4, 4, 8, GS_ST_M12, GS_ST_M4, 2, 2)
GS_DEFINE_STENCIL_SHAPE(double, _12, 4, 8, GS_ST_M12, 0u, 2, 2)
GS_DEFINE_STENCIL_SHAPE(float, _12_4, 8, 6, GS_ST_M12, GS_ST_M4, 2, 2)
GS_DEFINE_STENCIL_SHAPE(float, _12, 8, 6, GS_ST_M12, 0u, 2, 2)

/* Whether a shape kernel computes si: then its power-3 mask (0: none) into *m3 and its
 * arguments (x: the inputs). */
static int stencil_shape(const GsStencilInfo *si, const void *const *x, void *y, unsigned *m3,
                         GsStShapeArgs *a) {
  const int t0 = si->npoint, nt = si->nterms - si->npoint;
  if (!si->shapes || si->wide || nt < 1 || nt > 2 || si->rx != 2 || si->ry != 2) return 0;
  if (si->nx * si->ny > (GsInt)INT_MAX) return 0;
  if (!si->fold) return 0; /* centre-only terms the staging cannot add (none: fold is set) */
  const int in = si->input[t0];
  if (si->nsrc[in] > 2 || si->power[t0] != 1) return 0;
  if (nt == 2 && (si->input[t0 + 1] != in || si->power[t0 + 1] != 3)) return 0;
  unsigned m[2] = {0, 0};
  for (int t = 0; t < nt; t++)
    for (int q = 0; q < GS_ST_W * GS_ST_W; q++)
      if (si->k[t0 + t][q] != 0) m[t] |= 1u << q;
  if (m[0] != GS_ST_M12 || (m[1] != GS_ST_M4 && m[1] != 0)) return 0; /* the compiled shapes */
  *m3 = m[1];
  memset(a, 0, sizeof *a);
  a->x0 = x[si->sidx[in][0]];
  a->x1 = x[si->sidx[in][si->nsrc[in] - 1]];
  a->y = y;
  a->nx = (int)si->nx;
  a->ny = (int)si->ny;
  a->batch = si->batch;
  a->two = si->nsrc[in] == 2;
  a->cons1 = si->conservative[t0];
  a->cons3 = nt == 2 ? si->conservative[t0 + 1] : 0;
  a->c0 = si->scoef[in][0];
  a->c1 = a->two ? si->scoef[in][1] : 0.0;
  a->f0 = si->foldw[0];
  a->f1 = a->two ? si->foldw[1] : 0.0;
  a->tot1 = si->total[t0];
  a->tot3 = nt == 2 ? si->total[t0 + 1] : 0.0;
  for (int q = 0; q < GS_ST_W * GS_ST_W; q++) {
    a->w1[q] = si->k[t0][q];
    a->w3[q] = nt == 2 ? si->k[t0 + 1][q] : 0.0;
    a->w1f[q] = (float)a->w1[q];
    a->w3f[q] = (float)a->w3[q];
  }
  a->c0f = (float)a->c0;
  a->c1f = (float)a->c1;
  a->f0f = (float)a->f0;
  a->f1f = (float)a->f1;
  a->tot1f = (float)a->tot1;
  a->tot3f = (float)a->tot3;
  return 1;
}

static int cuda_stencil_apply(GsContext ctx, const GsStencilInfo *si, GsDataType dt,
                              const void *const *x, void *y, const char **kernel) {
  GsCudaContext *cc = NULL;
  GsCall(GsCudaBegin(ctx, &cc));
  if (si->nx * si->ny * si->batch == 0) return 0;
  GsStencilArrays a;
  for (int k = 0; k < GS_STENCIL_MAX_INPUTS; k++)
    a.x[k] = x[k];
  a.y = y;
  /* Double grids with vertical reach (the 2D right-hand sides) take tiles of 32 x 16, 4 rows a
   * thread, compiled for 8 blocks a SM (64 registers, no spills: twice the warps of a 32 x 32
   * tile's 6 blocks of 80 registers, and half the work per block, so that the last wave idles
   * less); the rest keep 32 x 32. H200, `gpusolve ch -bench 1 -bench_steps 30`, two rounds each,
   * ms per step (logged stencil ms), 32 x 32 at 6 blocks -> 32 x 16 at 8: 1024^2 0.054 / 0.054 ->
   * 0.050 / 0.050 (0.0202 / 0.0205 -> 0.0176 / 0.0178), 2048^2 0.177 / 0.178 -> 0.175 / 0.176,
   * 4096^2 0.581 / 0.581 -> 0.575 / 0.574 (0.1993 / 0.1997 -> 0.1931 / 0.1930); but float 4096^2
   * 0.325 / 0.327 -> 0.365 / 0.364 (its one-go staging, GS_ST_ONE_GO, gains most from the long
   * tiles) and the 1D ensemble 65536 x 1024 1.408 / 1.407 -> 1.421 / 1.421. 32 x 16 at 6 blocks
   * (80 registers) was between: 1024^2 0.052 / 0.053, 4096^2 0.608 / 0.608. */
  const int short_tiles = dt == GS_DOUBLE && si->ry > 0;
  const int rpt = short_tiles ? 4 : 8, minb = short_tiles ? 8 : 6, ty = GS_ST_NY * rpt;
  const GsInt tiles_x = (si->nx + GS_ST_TX - 1) / GS_ST_TX;
  const GsInt tiles_y = (si->ny + ty - 1) / ty;
  GsCheck(tiles_x <= 0x7fffffff, ctx, GS_ERR_ARG_OUTOFRANGE,
          "stencil grid of %lld points along x is too wide for one launch", (long long)si->nx);
  /* Tiles along y a block takes in turn: one, unless the grid has tiles for 64 waves of blocks or
   * more; then four, which spreads a block's start (its indices, the weights' bounds) over them
   * and still leaves 16 waves, so that the last one idles little of the GPU. H200, `gpusolve ch
   * -bench 1 -bench_steps 30`, logged stencil ms, four against one each: the 1D ensemble 65536 x
   * 1024 (65536 tiles, 83 waves) 0.6214 / 0.6233 -> 0.5821 / 0.5822; 4096^2 (16384 tiles, 21
   * waves) 0.1952 / 0.1945 -> 0.2021 / 0.2024, 1024^2 0.0198 / 0.0197 -> 0.0275 / 0.0275.
   * -stencil_tiles_per_block N sets it (the tests run the loop over tiles that way). */
  const GsInt resident = (GsInt)minb * cc->sm_count;
  GsInt per = si->tiles > 0 ? si->tiles : tiles_x * tiles_y >= 64 * resident ? 4 : 1;
  if (per > tiles_y) per = tiles_y; /* (a huge option value would overflow the division below) */
  const GsInt gy = (tiles_y + per - 1) / per;
  const dim3 grid((unsigned)tiles_x, (unsigned)(gy < 65535 ? gy : 65535),
                  (unsigned)(si->batch < 65535 ? si->batch : 65535));
  const dim3 block(GS_ST_TX, GS_ST_NY);
  /* 32-bit indices where a grid's fit (-stencil_wide_index 1 tests the others on small grids) */
  const int narrow = si->nx * si->ny <= (GsInt)INT_MAX && !si->wide;
  if (kernel) *kernel = narrow ? "tile" : "tile-wide";
  /* A shape compiled apart (the same bits, fewer instructions). */
  unsigned m3 = 0;
  GsStShapeArgs sa;
  if (stencil_shape(si, x, y, &m3, &sa)) {
    sa.tiles_y = tiles_y;
    if (dt == GS_DOUBLE && m3)
      GS_LAUNCH(cc, GS_PDL_STENCIL, gs_stencil_shape_double_12_4, grid, block, 0, sa);
    else if (dt == GS_DOUBLE)
      GS_LAUNCH(cc, GS_PDL_STENCIL, gs_stencil_shape_double_12, grid, block, 0, sa);
    else if (m3)
      GS_LAUNCH(cc, GS_PDL_STENCIL, gs_stencil_shape_float_12_4, grid, block, 0, sa);
    else
      GS_LAUNCH(cc, GS_PDL_STENCIL, gs_stencil_shape_float_12, grid, block, 0, sa);
    GsCheckLaunchCuda(ctx, "gs_stencil_shape");
    if (kernel) *kernel = m3 ? "shape-12+4" : "shape-12";
    return 0;
  }
  if (short_tiles && narrow)
    GS_LAUNCH(cc, GS_PDL_STENCIL, gs_stencil_double_r4, grid, block, 0, *si, a, tiles_y);
  else if (short_tiles)
    GS_LAUNCH(cc, GS_PDL_STENCIL, gs_stencil_double_r4_l, grid, block, 0, *si, a, tiles_y);
  else if (dt == GS_DOUBLE && narrow)
    GS_LAUNCH(cc, GS_PDL_STENCIL, gs_stencil_double, grid, block, 0, *si, a, tiles_y);
  else if (dt == GS_DOUBLE)
    GS_LAUNCH(cc, GS_PDL_STENCIL, gs_stencil_double_l, grid, block, 0, *si, a, tiles_y);
  else if (narrow)
    GS_LAUNCH(cc, GS_PDL_STENCIL, gs_stencil_float, grid, block, 0, *si, a, tiles_y);
  else
    GS_LAUNCH(cc, GS_PDL_STENCIL, gs_stencil_float_l, grid, block, 0, *si, a, tiles_y);
  GsCheckLaunchCuda(ctx, "gs_stencil");
  return 0;
}

extern "C" void GsCudaFillStencilKernels(GsStencilKernels *k) {
  k->apply = cuda_stencil_apply;
}
