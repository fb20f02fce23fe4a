/* CUDA stencil kernel (see include/gpusolve/stencil.h).
 *
 * Floor: each distinct input read once and y written once, (inputs + 1) d bytes per point
 * (d = 8 double, 4 float): 24 bytes for a two-input Cahn-Hilliard right-hand side in double.
 *
 * A block of 32 x 4 threads owns a tile of 32 x 32 points; each thread 8 consecutive rows of one
 * column. For each input the block stages the tile and its halo (the largest radii in use,
 * wrapped periodically) in shared memory, row by row with the threads of a warp along a row, and
 * with it the input raised to the first power above 1 its terms use (into a second buffer; another
 * power of the same input is raised from the staged values when its term comes). A thread then
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
#define GS_ST_W GS_STENCIL_W               /* weights per column */
#define GS_ST_TX 32                        /* tile width = threads along x */
#define GS_ST_NY 4                         /* threads along y */
#define GS_ST_RPT 8                        /* consecutive rows per thread */
#define GS_ST_TY (GS_ST_NY * GS_ST_RPT)    /* tile height */
#define GS_ST_SR (GS_ST_RPT + 2 * GS_ST_R) /* rows of a column strip */
#define GS_ST_PX (GS_ST_TX + 2 * GS_ST_R)  /* pitch of a staged tile */
#define GS_ST_PY (GS_ST_TY + 2 * GS_ST_R)
#define GS_ST_RROWS ((GS_ST_PY + GS_ST_NY - 1) / GS_ST_NY) /* staged rows per thread */
/* Resident blocks per SM the kernel is compiled for (a register cap: 6 gives 80 registers). */
#ifndef GS_ST_MIN_BLOCKS
#define GS_ST_MIN_BLOCKS 6
#endif

typedef struct {
  const void *x[GS_STENCIL_MAX_INPUTS];
  void *y;
} GsStencilArrays;

#define GS_DEFINE_STENCIL(T)                                                                       \
  static __global__ void __launch_bounds__(GS_ST_TX *GS_ST_NY, GS_ST_MIN_BLOCKS)                   \
      gs_stencil_##T(const __grid_constant__ GsStencilInfo d,                                      \
                     const __grid_constant__ GsStencilArrays a, GsInt tiles_y) {                   \
    __shared__ T s_in[GS_ST_PY][GS_ST_PX];                                                         \
    __shared__ T s_pw[GS_ST_PY][GS_ST_PX];                                                         \
    const GsInt nx = d.nx, ny = d.ny;                                                              \
    const int rx = d.rx, ry = d.ry, lx = threadIdx.x, row0 = threadIdx.y * GS_ST_RPT;              \
    const int tid = threadIdx.y * GS_ST_TX + lx;                                                   \
    const GsInt x0 = (GsInt)blockIdx.x * GS_ST_TX;                                                 \
    /* Columns and rows of the tile that exist (the last tiles may be cut). */                     \
    const int cw = (int)(nx - x0 < GS_ST_TX ? nx - x0 : GS_ST_TX);                                 \
    for (GsInt b = blockIdx.z; b < d.batch; b += gridDim.z)                                        \
      for (GsInt ty = blockIdx.y; ty < tiles_y; ty += gridDim.y) {                                 \
        const GsInt y0 = ty * GS_ST_TY, base = b * nx * ny;                                        \
        const int ch = (int)(ny - y0 < GS_ST_TY ? ny - y0 : GS_ST_TY);                             \
        const int hw = cw + 2 * rx, hh = ch + 2 * ry; /* staged cells */                           \
        T acc[GS_ST_RPT];                                                                          \
        _Pragma("unroll") for (int r = 0; r < GS_ST_RPT; r++) acc[r] = (T)0;                       \
        int staged = -1, powered = 0; /* the input in s_in; the power in s_pw (0: none) */         \
        for (int t = 0; t < d.nterms; t++) {                                                       \
          const int in = d.input[t], p = d.power[t];                                               \
          if (in != staged) {                                                                      \
            /* The first power above 1 this input is raised to, staged with it. */                 \
            int pk = 0;                                                                            \
            for (int u = t; u < d.nterms && !pk; u++)                                              \
              if (d.input[u] == in && d.power[u] > 1) pk = d.power[u];                             \
            const T *src = (const T *)a.x[in] + base;                                              \
            __syncthreads(); /* the previous input's sums are done */                              \
            /* The tile's own columns row by row, the warp along a row (coalesced); then the       \
             * 2 rx halo columns of every row, one value per thread. No divisions but by 2 rx. */  \
            /* All of a thread's rows are loaded before any is stored, so that its loads are in    \
             * flight together (one at a time, the staging was bound by latency). */               \
            T rows[GS_ST_RROWS];                                                                   \
            _Pragma("unroll") for (int q = 0; q < GS_ST_RROWS; q++) {                              \
              const int r = threadIdx.y + q * GS_ST_NY;                                            \
              GsInt gy = y0 + r - ry;                                                              \
              gy = gy < 0 ? gy + ny : gy >= ny ? gy - ny : gy;                                     \
              rows[q] = r < hh && lx < cw ? src[gy * nx + x0 + lx] : (T)0;                         \
            }                                                                                      \
            _Pragma("unroll") for (int q = 0; q < GS_ST_RROWS; q++) {                              \
              const int r = threadIdx.y + q * GS_ST_NY;                                            \
              if (r < hh && lx < cw) {                                                             \
                const T u = rows[q];                                                               \
                s_in[r + GS_ST_R - ry][lx + GS_ST_R] = u;                                          \
                if (pk) s_pw[r + GS_ST_R - ry][lx + GS_ST_R] = pk == 2 ? u * u : u * u * u;        \
              }                                                                                    \
            }                                                                                      \
            for (int e = tid; e < 2 * rx * hh; e += GS_ST_TX * GS_ST_NY) {                         \
              const int r = rx == 2 ? e >> 2 : e >> 1, c = e - r * 2 * rx;                         \
              const int q = c < rx ? c : cw + c; /* staged column, 0 .. hw - 1 */                  \
              GsInt gy = y0 + r - ry, gx = x0 + q - rx;                                            \
              gy = gy < 0 ? gy + ny : gy >= ny ? gy - ny : gy;                                     \
              gx = gx < 0 ? gx + nx : gx >= nx ? gx - nx : gx;                                     \
              const T u = src[gy * nx + gx];                                                       \
              s_in[r + GS_ST_R - ry][q + GS_ST_R - rx] = u;                                        \
              if (pk) s_pw[r + GS_ST_R - ry][q + GS_ST_R - rx] = pk == 2 ? u * u : u * u * u;      \
            }                                                                                      \
            staged = in;                                                                           \
            powered = pk;                                                                          \
            __syncthreads();                                                                       \
          }                                                                                        \
          T(*s)[GS_ST_PX] = s_in;                                                                  \
          if (p > 1) {                                                                             \
            if (p != powered) { /* a second power of the same input */                             \
              __syncthreads();  /* the previous power's sums are done */                           \
              for (int r = threadIdx.y; r < hh; r += GS_ST_NY)                                     \
                for (int q = lx; q < hw; q += GS_ST_TX) {                                          \
                  const int sr = r + GS_ST_R - ry, sq = q + GS_ST_R - rx;                          \
                  const T u = s_in[sr][sq];                                                        \
                  s_pw[sr][sq] = p == 2 ? u * u : u * u * u;                                       \
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
        T *y = (T *)a.y + base;                                                                    \
        _Pragma("unroll") for (int r = 0; r < GS_ST_RPT; r++) {                                    \
          if (lx < cw && row0 + r < ch) y[(y0 + row0 + r) * nx + x0 + lx] = acc[r];                \
        }                                                                                          \
        __syncthreads(); /* the staged tile is free for the next one */                            \
      }                                                                                            \
  }
GS_DEFINE_STENCIL(double)
GS_DEFINE_STENCIL(float)

static int cuda_stencil_apply(GsContext ctx, const GsStencilInfo *si, GsDataType dt,
                              const void *const *x, void *y) {
  GsCudaContext *cc = NULL;
  GsCall(GsCudaBegin(ctx, &cc));
  if (si->nx * si->ny * si->batch == 0) return 0;
  GsStencilArrays a;
  for (int k = 0; k < GS_STENCIL_MAX_INPUTS; k++)
    a.x[k] = x[k];
  a.y = y;
  const GsInt tiles_x = (si->nx + GS_ST_TX - 1) / GS_ST_TX;
  const GsInt tiles_y = (si->ny + GS_ST_TY - 1) / GS_ST_TY;
  GsCheck(tiles_x <= 0x7fffffff, ctx, GS_ERR_ARG_OUTOFRANGE,
          "stencil grid of %lld points along x is too wide for one launch", (long long)si->nx);
  const dim3 grid((unsigned)tiles_x, (unsigned)(tiles_y < 65535 ? tiles_y : 65535),
                  (unsigned)(si->batch < 65535 ? si->batch : 65535));
  const dim3 block(GS_ST_TX, GS_ST_NY);
  if (dt == GS_DOUBLE)
    gs_stencil_double<<<grid, block, 0, cc->stream>>>(*si, a, tiles_y);
  else
    gs_stencil_float<<<grid, block, 0, cc->stream>>>(*si, a, tiles_y);
  GsCheckLaunchCuda(ctx, "gs_stencil");
  return 0;
}

extern "C" void GsCudaFillStencilKernels(GsStencilKernels *k) {
  k->apply = cuda_stencil_apply;
}
