/* CUDA stencil kernel (see include/gpusolve/stencil.h).
 *
 * Floor: each distinct input read once and y written once, (inputs + 1) d bytes per point
 * (d = 8 double, 4 float): 24 bytes for a two-input Cahn-Hilliard right-hand side in double.
 *
 * A block of 32 x 8 threads owns a tile of 32 x 32 points (4 rows per thread). For each input it
 * stages the tile and its halo (the largest radii in use, wrapped periodically) in shared memory;
 * for each power above 1 it raises the staged values once into a second buffer; then every thread
 * sums the weights over its 4 points from shared memory. Halos are re-read by neighbouring tiles
 * and mostly hit L2, so DRAM traffic stays near the floor. Weights live in the kernel's parameter
 * space (one broadcast read per warp). Each point sums terms and weights in GsStencilInfo's order,
 * as the CPU kernel does, with fused multiply-adds. */
#include "cudaimpl.h"

#define GS_ST_TX 32 /* tile width = threads along x */
#define GS_ST_TY 32 /* tile height */
#define GS_ST_NY 8  /* threads along y; each owns GS_ST_TY / GS_ST_NY rows */
#define GS_ST_RPT (GS_ST_TY / GS_ST_NY)
#define GS_ST_R GS_STENCIL_MAX_RADIUS
#define GS_ST_PX (GS_ST_TX + 2 * GS_ST_R) /* pitch of a staged tile */
#define GS_ST_PY (GS_ST_TY + 2 * GS_ST_R)

typedef struct {
  const void *x[GS_STENCIL_MAX_INPUTS];
  void *y;
} GsStencilArrays;

#define GS_DEFINE_STENCIL(T)                                                                       \
  static __global__ void __launch_bounds__(GS_ST_TX *GS_ST_NY, 6)                                  \
      gs_stencil_##T(const __grid_constant__ GsStencilInfo si,                                     \
                     const __grid_constant__ GsStencilArrays a, GsInt tiles_y) {                   \
    __shared__ T s_in[GS_ST_PY][GS_ST_PX];                                                         \
    __shared__ T s_pw[GS_ST_PY][GS_ST_PX];                                                         \
    const GsInt nx = si.nx, ny = si.ny;                                                            \
    const int rx = si.rx, ry = si.ry, lx = threadIdx.x, ly = threadIdx.y;                          \
    const int tid = ly * GS_ST_TX + lx;                                                            \
    const GsInt x0 = (GsInt)blockIdx.x * GS_ST_TX;                                                 \
    /* Columns and rows of the tile that exist (the last tiles may be cut). */                     \
    const int cw = (int)(nx - x0 < GS_ST_TX ? nx - x0 : GS_ST_TX);                                 \
    for (GsInt b = blockIdx.z; b < si.batch; b += gridDim.z)                                       \
      for (GsInt ty = blockIdx.y; ty < tiles_y; ty += gridDim.y) {                                 \
        const GsInt y0 = ty * GS_ST_TY, base = b * nx * ny;                                        \
        const int ch = (int)(ny - y0 < GS_ST_TY ? ny - y0 : GS_ST_TY);                             \
        const int hw = cw + 2 * rx, hh = ch + 2 * ry; /* staged cells */                           \
        T acc[GS_ST_RPT];                                                                          \
        _Pragma("unroll") for (int r = 0; r < GS_ST_RPT; r++) acc[r] = (T)0;                       \
        int staged = -1;                                                                           \
        for (int t = 0; t < si.nterms; t++) {                                                      \
          const int in = si.input[t], p = si.power[t];                                             \
          if (in != staged) {                                                                      \
            const T *src = (const T *)a.x[in] + base;                                              \
            __syncthreads(); /* the previous input's sums are done */                              \
            for (int c = tid; c < hw * hh; c += GS_ST_TX * GS_ST_NY) {                             \
              const int r = c / hw, q = c - r * hw;                                                \
              GsInt gy = y0 + r - ry, gx = x0 + q - rx;                                            \
              gy = gy < 0 ? gy + ny : gy >= ny ? gy - ny : gy;                                     \
              gx = gx < 0 ? gx + nx : gx >= nx ? gx - nx : gx;                                     \
              s_in[r + GS_ST_R - ry][q + GS_ST_R - rx] = src[gy * nx + gx];                        \
            }                                                                                      \
            staged = in;                                                                           \
            __syncthreads();                                                                       \
          }                                                                                        \
          T(*s)[GS_ST_PX] = s_in;                                                                  \
          if (p > 1) {                                                                             \
            __syncthreads(); /* the previous power's sums are done */                              \
            for (int c = tid; c < hw * hh; c += GS_ST_TX * GS_ST_NY) {                             \
              const int r = c / hw + GS_ST_R - ry, q = c % hw + GS_ST_R - rx;                      \
              const T u = s_in[r][q];                                                              \
              s_pw[r][q] = p == 2 ? u * u : u * u * u;                                             \
            }                                                                                      \
            __syncthreads();                                                                       \
            s = s_pw;                                                                              \
          }                                                                                        \
          for (int k = si.first[t]; k < si.first[t + 1]; k++) {                                    \
            const T w = (T)si.w[k];                                                                \
            const int ox = GS_ST_R + lx + si.ox[k], oy = GS_ST_R + ly + si.oy[k];                  \
            _Pragma("unroll") for (int r = 0; r < GS_ST_RPT; r++) acc[r] +=                        \
                w * s[oy + r * GS_ST_NY][ox];                                                      \
          }                                                                                        \
        }                                                                                          \
        T *y = (T *)a.y + base;                                                                    \
        _Pragma("unroll") for (int r = 0; r < GS_ST_RPT; r++) {                                    \
          const int row = ly + r * GS_ST_NY;                                                       \
          if (lx < cw && row < ch) y[(y0 + row) * nx + x0 + lx] = acc[r];                          \
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
