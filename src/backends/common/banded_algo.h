/* The per-system algorithms of the batched banded solvers, written once for the host and the
 * device: the CPU back end calls them in an OpenMP loop over systems, the CUDA back end from one
 * thread per system, so both back ends do the same arithmetic in the same order.
 *
 * Every array access is arr[base + i * step]: base/step place row i of one system in its layout
 * (interleaved: base = s, step = batch; contiguous: base = s * stride, step = 1; a shared matrix:
 * base = 0, step = 1). Matrix data (diagonals, factors) and right-hand sides have their own
 * base/step, so that a shared matrix serves every system.
 *
 * LU without pivoting (cuPentBatch's formulas). Pentadiagonal, rows a b c d e:
 *   beta_i  = b_i - a_i gamma_{i-2}
 *   alpha_i = c_i - a_i delta_{i-2} - beta_i gamma_{i-1}
 *   gamma_i = (d_i - beta_i delta_{i-1}) / alpha_i,   delta_i = e_i / alpha_i
 *   forward g_i = (f_i - a_i g_{i-2} - beta_i g_{i-1}) / alpha_i
 *   back    x_i = g_i - gamma_i x_{i+1} - delta_i x_{i+2}
 * stored as five factor arrays (a, beta, 1/alpha, gamma, delta). Tridiagonal (Thomas), rows a b c:
 *   alpha_i = b_i - a_i gamma_{i-1},  gamma_i = c_i / alpha_i,
 *   g_i = (f_i - a_i g_{i-1}) / alpha_i,  x_i = g_i - gamma_i x_{i+1}
 * stored as three (a, 1/alpha, gamma).
 *
 * Periodic systems of n rows and half-bandwidth h split as [E F; G H] with E the leading m = n - h
 * rows and columns (banded, not periodic). Factor computes the LU of E, W = E^-1 F (h columns of m
 * entries, kept in h more factor arrays), the last h rows' coefficients (G and H, by diagonal) and
 * S^-1 with S = H - G W (h x h). Solve: y = E^-1 f_1, z = S^-1 (f_2 - G y), y -= W z. */
#ifndef GPUSOLVE_BANDED_ALGO_H
#define GPUSOLVE_BANDED_ALGO_H

#include "../../gsimpl.h"

/* Every routine here: host and device, and allowed to go unused (a back end instantiates the
 * macros more than once, e.g. with another chunk length, and uses part of each). */
#if defined(__GNUC__) || defined(__clang__) || defined(__CUDACC__)
#define GS_BANDED_FN GS_HOST_DEVICE static inline __attribute__((unused))
#else
#define GS_BANDED_FN GS_HOST_DEVICE static inline
#endif
/* The one-row steps shared by the sweeps: always inlined in kernels (a call would cost the
 * sweeps their registers). */
#if defined(__CUDACC__)
#define GS_BANDED_ROW_FN GS_HOST_DEVICE static __forceinline__ __attribute__((unused))
#else
#define GS_BANDED_ROW_FN GS_BANDED_FN
#endif

/* Index i of a periodic system of n rows brought into [0, n), for i in (-n, 2n): the band's reach
 * past either end (a 64-bit remainder costs a GPU thread about a hundred instructions). */
GS_BANDED_FN GsInt gs_banded_wrap(GsInt i, GsInt n) {
  return i < 0 ? i + n : i >= n ? i - n : i;
}

/* Per-matrix corner data of a periodic system: the last h rows' coefficients by diagonal
 * (h x bands), then S^-1 (h x h), row-major, then phi and plo: W = E^-1 F only matters in rows
 * [0, phi) and [plo, m) (phi = -1: everywhere), so the solve corrects only those rows. */
#define GS_BANDED_CORNER_EXT(bands) (((bands) / 2) * (bands) + ((bands) / 2) * ((bands) / 2))
#define GS_BANDED_CORNER_LEN(bands) (GS_BANDED_CORNER_EXT(bands) + 2)

/* Most factor arrays a batch keeps: 5 for a penta LU plus 4 spikes and 2 periodic columns when
 * partitioned. Arrays of factor pointers are this long everywhere. */
#define GS_BANDED_MAX_FAC 11

/* Arrays of the block factorisation: LU 5 (penta) or 3 (tri); LDL^T (spd) 3 or 2. */
#define GS_BANDED_NLU(bands, spd) ((spd) ? ((bands) == 5 ? 3 : 2) : ((bands) == 5 ? 5 : 3))
/* Factor arrays: the block factorisation plus h arrays of W for periodic systems. */
#define GS_BANDED_NFACTOR(bands, spd, periodic)                                                    \
  (GS_BANDED_NLU(bands, spd) + ((periodic) ? (bands) / 2 : 0))

/* Everything a per-system routine needs to know; filled by the front end. */
typedef struct {
  int bands, h, periodic;
  GsInt n, m; /* rows; rows of the banded block (n - h when periodic, else n) */
  int spd;    /* LDL^T instead of LU */
} GsBandedShape;

/* Staging (GPU kernels that instantiate the sweeps with STAGE 1): when the 32 lanes of a warp
 * sweep 32 systems whose right-hand sides lie ls apart with contiguous rows, all in step (same
 * rows, no early exit), the sweeps load and store f and x through shared memory, a chunk of the
 * 32 systems at a time (gs_chunk_load / gs_chunk_store). The kernel's dynamic shared memory
 * holds ls for each of its (at most GS_BANDED_STAGE_WARPS) warps, 0 where a warp does not
 * stage, then each warp's buffer of 32 x (K + 1) values. */
#define GS_BANDED_STAGE_WARPS 4
#define GS_BANDED_STAGE_BYTES(K, es)                                                               \
  (GS_BANDED_STAGE_WARPS * (sizeof(GsInt) + 32 * ((size_t)(K) + 1) * (es)))
#if defined(__CUDACC__)
extern __shared__ GsInt gs_stage_smem[];
#endif

/* Rows are processed in chunks of GS_BANDED_CHUNK: all loads of a chunk are issued before any of
 * its arithmetic and stores. The recurrences themselves are sequential, but their inputs are not,
 * and without this each row would wait a full memory latency (the compiler may not move a load
 * of f above the store of x, which can be the same array). With one GPU thread per system this
 * is what turns a latency-bound sweep into a bandwidth-bound one. */
#define GS_BANDED_CHUNK 8
/* The algorithm macros below take the chunk length as KK (GS_BANDED_ALGOS_K); the plain names use
 * GS_BANDED_CHUNK. Partitioned GPU solves, with few threads each walking a long partition, use
 * longer chunks to keep more loads in flight. */
#define GS_BANDED_ALGOS(T, S, EPS) GS_BANDED_ALGOS_K(T, S, EPS, GS_BANDED_CHUNK)
#define GS_BANDED_PART_ALGOS(T, S, EPS) GS_BANDED_PART_ALGOS_K(T, S, EPS, GS_BANDED_CHUNK)
#if defined(__CUDA_ARCH__)
#define GS_UNROLL_ALL _Pragma("unroll")
#elif defined(__CUDACC__) /* host pass of a .cu file: the host compiler needs no hint */
#define GS_UNROLL_ALL
#elif defined(__GNUC__) && !defined(__clang__)
#define GS_UNROLL_ALL _Pragma("GCC unroll 8")
#else
#define GS_UNROLL_ALL
#endif

/* Code for the device pass of a CUDA compilation only. */
#if defined(__CUDA_ARCH__)
#define GS_IF_DEVICE(...) __VA_ARGS__
#else
#define GS_IF_DEVICE(...)
#endif

#define GS_BANDED_ALGOS_K(T, S, EPS, KK) GS_BANDED_ALGOS_KS(T, S, EPS, KK, 0)
/* STAGE 1: the sweeps can stage through shared memory (GS_BANDED_STAGE_WARPS); 0 leaves that
 * code out, so kernels that never stage keep their registers. */
#define GS_BANDED_ALGOS_KS(T, S, EPS, KK, STAGE)                                                   \
  /* The K entries of rows i0 + u (dir > 0) or i0 - u (dir < 0) of a right-hand side at base b,    \
   * step st into v (rows outside [0, m) as 0). Where the warp stages (contiguous rows, st == 1,   \
   * see GS_BANDED_STAGE_WARPS), it loads its 32 systems' chunks together, K consecutive rows at a \
   * time (one 32-byte sector per K / 4 lanes instead of one per lane), and hands them round       \
   * through shared memory. */                                                                     \
  /* The warp's staging place, when it stages: its buffer, its lane's row r of the chunk and       \
   * sub-group sub, that row's index i and the base b0 of the warp's first system. */              \
  GS_IF_DEVICE(GS_BANDED_ROW_FN int gs_stage_at_##S(GsInt b, GsInt i0, int dir, GsInt *ls,         \
                                                    T **buf, int *lane, int *r, int *sub,          \
                                                    GsInt *i, GsInt *b0) {                         \
    enum { K = KK };                                                                               \
    const int w = (int)(threadIdx.x >> 5);                                                         \
    *ls = gs_stage_smem[w];                                                                        \
    if (!(STAGE && 32 % K == 0 && *ls)) return 0;                                                  \
    *buf = (T *)(gs_stage_smem + GS_BANDED_STAGE_WARPS) + w * 32 * (K + 1);                        \
    *lane = (int)(threadIdx.x & 31);                                                               \
    *r = *lane % K;                                                                                \
    *sub = *lane / K;                                                                              \
    *i = dir > 0 ? i0 + *r : i0 - *r;                                                              \
    *b0 = b - (GsInt)*lane * *ls;                                                                  \
    return 1;                                                                                      \
  })                                                                                               \
  GS_BANDED_ROW_FN void gs_chunk_load_##S(const T *src, GsInt b, GsInt st, GsInt i0, int dir,      \
                                          GsInt m, T *v) {                                         \
    enum { K = KK };                                                                               \
    GS_IF_DEVICE(                                                                                  \
        GsInt ls, i, b0; T * buf; int lane, r, sub;                                                \
        if (gs_stage_at_##S(b, i0, dir, &ls, &buf, &lane, &r, &sub, &i, &b0)) {                    \
          const int in = i >= 0 && i < m;                                                          \
          GS_UNROLL_ALL for (int q = 0; q < K; q++) {                                              \
            const int sys = q * (32 / K) + sub;                                                    \
            buf[sys * (K + 1) + r] = in ? src[b0 + sys * ls + i] : (T)0;                           \
          }                                                                                        \
          __syncwarp();                                                                            \
          GS_UNROLL_ALL for (int u = 0; u < K; u++) v[u] = buf[lane * (K + 1) + u];                \
          __syncwarp();                                                                            \
          return;                                                                                  \
        })                                                                                         \
    GS_UNROLL_ALL for (int u = 0; u < K; u++) {                                                    \
      const GsInt i = dir > 0 ? i0 + u : i0 - u;                                                   \
      v[u] = i >= 0 && i < m ? src[b + i * st] : (T)0;                                             \
    }                                                                                              \
  }                                                                                                \
  /* Store v to those rows (the inverse of gs_chunk_load). */                                      \
  GS_BANDED_ROW_FN void gs_chunk_store_##S(T *dst, GsInt b, GsInt st, GsInt i0, int dir, GsInt m,  \
                                           const T *v) {                                           \
    enum { K = KK };                                                                               \
    GS_IF_DEVICE(                                                                                  \
        GsInt ls, i, b0; T * buf; int lane, r, sub;                                                \
        if (gs_stage_at_##S(b, i0, dir, &ls, &buf, &lane, &r, &sub, &i, &b0)) {                    \
          GS_UNROLL_ALL for (int u = 0; u < K; u++) buf[lane * (K + 1) + u] = v[u];                \
          __syncwarp();                                                                            \
          if (i >= 0 && i < m) GS_UNROLL_ALL for (int q = 0; q < K; q++) {                         \
              const int sys = q * (32 / K) + sub;                                                  \
              dst[b0 + sys * ls + i] = buf[sys * (K + 1) + r];                                     \
            }                                                                                      \
          __syncwarp();                                                                            \
          return;                                                                                  \
        })                                                                                         \
    GS_UNROLL_ALL for (int u = 0; u < K; u++) {                                                    \
      const GsInt i = dir > 0 ? i0 + u : i0 - u;                                                   \
      if (i >= 0 && i < m) dst[b + i * st] = v[u];                                                 \
    }                                                                                              \
  }                                                                                                \
                                                                                                   \
  /* Fill one system's solution with NaN (its matrix could not be factored). */                    \
  GS_BANDED_FN void gs_banded_poison_##S(GsInt n, T *x, GsInt rb, GsInt rs) {                      \
    for (GsInt i = 0; i < n; i++)                                                                  \
      x[rb + i * rs] = (T)NAN;                                                                     \
  }                                                                                                \
                                                                                                   \
  /* One row i of the LDL^T: l2 = a / d2, l1 = (b - l2 d2 l1p) / d1, d = c - l1^2 d1 - l2^2 d2     \
   * from the two pivots above (d1, d2) and the row above's l1 (l1p); 1/d into *id. Every LDL^T    \
   * sweep (per system here, by blocks of systems on the CPU) takes its rows from this. */         \
  GS_BANDED_ROW_FN int gs_banded_ldl_row_##S(GsInt i, T a, T b, T c, T d1, T d2, T l1p, T *l2o,    \
                                             T *l1o, T *dout, T *id) {                             \
    const T l2 = i >= 2 ? a / d2 : (T)0;                                                           \
    const T l1 = i >= 1 ? (b - l2 * d2 * l1p) / d1 : (T)0;                                         \
    const T d = c - l1 * l1 * d1 - l2 * l2 * d2;                                                   \
    *l2o = l2;                                                                                     \
    *l1o = l1;                                                                                     \
    *dout = d;                                                                                     \
    const double scale = fabs((double)c) + 2 * (fabs((double)a) + fabs((double)b));                \
    if (!(d > (T)((EPS)*scale)))                                                                   \
      return d == d && scale == scale ? GS_BANDED_ZERO_PIVOT : GS_BANDED_NOT_FINITE;               \
    *id = (T)1 / d;                                                                                \
    return isfinite((double)l1) && isfinite((double)l2) && isfinite((double)*id)                   \
               ? GS_BANDED_OK                                                                      \
               : GS_BANDED_NOT_FINITE;                                                             \
  }                                                                                                \
                                                                                                   \
  /* One row of the LU without pivoting: beta = b - a g2, alpha = c - a d2 - beta g1,              \
   * gamma = (d - beta d1) / alpha, delta = e / alpha, from the two rows above (g: gamma, d:       \
   * delta); with penta 0 (tri) the terms of a, e, g2, d1, d2 are left out: beta = b,              \
   * alpha = c - b g1, gamma = d / alpha. A pivot not clearly above the row's scale is             \
   * GS_BANDED_ZERO_PIVOT; with check, gamma, delta and 1/alpha must be finite too (the fused      \
   * factor+solve checks its solution instead). The LU sweeps take their rows from this (the GPU's \
   * fused factor+solve writes the same arithmetic out, see there). */                             \
  GS_BANDED_ROW_FN int gs_banded_lu_row_##S(int penta, T a, T b, T c, T d, T e, T g1, T g2, T d1,  \
                                            T d2, int check, T *beta, T *ia, T *gam, T *del) {     \
    *beta = penta ? b - a * g2 : b;                                                                \
    const T alpha = penta ? c - a * d2 - *beta * g1 : c - b * g1;                                  \
    const T scale = penta ? (T)(fabs((double)a) + fabs((double)b) + fabs((double)c) +              \
                                fabs((double)d) + fabs((double)e))                                 \
                          : (T)(fabs((double)b) + fabs((double)c) + fabs((double)d));              \
    if (!(fabs((double)alpha) > (double)(EPS) * (double)scale))                                    \
      return alpha == alpha && scale == scale ? GS_BANDED_ZERO_PIVOT : GS_BANDED_NOT_FINITE;       \
    *ia = (T)1 / alpha;                                                                            \
    *gam = penta ? (d - *beta * d1) * *ia : d * *ia;                                               \
    *del = penta ? e * *ia : (T)0;                                                                 \
    if (check && (!isfinite((double)*gam) || !isfinite((double)*del) || !isfinite((double)*ia)))   \
      return GS_BANDED_NOT_FINITE;                                                                 \
    return GS_BANDED_OK;                                                                           \
  }                                                                                                \
                                                                                                   \
  /* LDL^T of rows [0, m) of a symmetric positive definite block, reading only the lower diagonals \
   * and the main one (penta D[0..2], tri D[0..1]). Penta: l2_i = a_i / d_{i-2},                   \
   * l1_i = (b_i - l2_i d_{i-2} l1_{i-1}) / d_{i-1}, d_i = c_i - l1_i^2 d_{i-1} - l2_i^2 d_{i-2},  \
   * stored as F[0] = l2, F[1] = l1, F[2] = 1/d (tri: F[0] = l, F[1] = 1/d): 3 (2) arrays instead  \
   * of the LU's 5 (3). A pivot d_i that is not clearly positive is GS_BANDED_ZERO_PIVOT. */       \
  GS_BANDED_FN int gs_banded_ldl_##S(const GsBandedShape *sh, const T *const *D, T *const *F,      \
                                     GsInt base, GsInt step) {                                     \
    const GsInt m = sh->m;                                                                         \
    enum { K = KK };                                                                               \
    const int penta = sh->bands == 5;                                                              \
    T d2 = 0, d1 = 0, l1p = 0;                                                                     \
    for (GsInt i0 = 0; i0 < m; i0 += K) {                                                          \
      T va[K] = {0}, vb[K] = {0}, vc[K] = {0};                                                     \
      GS_UNROLL_ALL for (int u = 0; u < K; u++) {                                                  \
        const GsInt i = i0 + u, q = base + i * step;                                               \
        if (i < m) {                                                                               \
          if (penta) {                                                                             \
            va[u] = i >= 2 ? D[0][q] : (T)0;                                                       \
            vb[u] = i >= 1 ? D[1][q] : (T)0;                                                       \
            vc[u] = D[2][q];                                                                       \
          } else {                                                                                 \
            vb[u] = i >= 1 ? D[0][q] : (T)0;                                                       \
            vc[u] = D[1][q];                                                                       \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
      GS_UNROLL_ALL for (int u = 0; u < K; u++) {                                                  \
        const GsInt i = i0 + u, q = base + i * step;                                               \
        if (i < m) {                                                                               \
          T l2, l1, d, id;                                                                         \
          const int st =                                                                           \
              gs_banded_ldl_row_##S(i, va[u], vb[u], vc[u], d1, d2, l1p, &l2, &l1, &d, &id);       \
          if (st) return st;                                                                       \
          if (penta) {                                                                             \
            F[0][q] = l2;                                                                          \
            F[1][q] = l1;                                                                          \
            F[2][q] = id;                                                                          \
          } else {                                                                                 \
            F[0][q] = l1;                                                                          \
            F[1][q] = id;                                                                          \
          }                                                                                        \
          d2 = d1;                                                                                 \
          d1 = d;                                                                                  \
          l1p = l1;                                                                                \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    return GS_BANDED_OK;                                                                           \
  }                                                                                                \
                                                                                                   \
  /* Solve with the LDL^T factors over rows [0, m): L z = f, y = z / d (into x), L^T x = y.        \
   * Returns 1 when every x_i is finite. f and x may be the same array. */                         \
  GS_BANDED_FN int gs_banded_ldl_solve_##S(const GsBandedShape *sh, const T *const *F, GsInt fb,   \
                                           GsInt fs, const T *f, T *x, GsInt rb, GsInt rs) {       \
    const GsInt m = sh->m;                                                                         \
    enum { K = KK };                                                                               \
    const int penta = sh->bands == 5;                                                              \
    T z2 = 0, z1 = 0;                                                                              \
    for (GsInt i0 = 0; i0 < m; i0 += K) {                                                          \
      T vf[K] = {0}, v0[K] = {0}, v1[K] = {0}, v2[K] = {0};                                        \
      GS_UNROLL_ALL for (int u = 0; u < K; u++) {                                                  \
        const GsInt i = i0 + u, q = fb + i * fs;                                                   \
        if (i < m) {                                                                               \
          if (!STAGE) vf[u] = f[rb + i * rs];                                                      \
          v0[u] = F[0][q];                                                                         \
          v1[u] = F[1][q];                                                                         \
          if (penta) v2[u] = F[2][q];                                                              \
        }                                                                                          \
      }                                                                                            \
      if (STAGE) gs_chunk_load_##S(f, rb, rs, i0, 1, m, vf); /* after the factors' loads */        \
      GS_UNROLL_ALL for (int u = 0; u < K; u++) {                                                  \
        const GsInt i = i0 + u;                                                                    \
        if (i < m) {                                                                               \
          T z, y;                                                                                  \
          if (penta) {                                                                             \
            z = vf[u] - v1[u] * z1 - v0[u] * z2;                                                   \
            y = z * v2[u];                                                                         \
          } else {                                                                                 \
            z = vf[u] - v0[u] * z1;                                                                \
            y = z * v1[u];                                                                         \
          }                                                                                        \
          z2 = z1;                                                                                 \
          z1 = z;                                                                                  \
          if (STAGE)                                                                               \
            vf[u] = y;                                                                             \
          else                                                                                     \
            x[rb + i * rs] = y;                                                                    \
        }                                                                                          \
      }                                                                                            \
      if (STAGE) gs_chunk_store_##S(x, rb, rs, i0, 1, m, vf);                                      \
    }                                                                                              \
    /* x_i = y_i - l1_{i+1} x_{i+1} - l2_{i+2} x_{i+2}: the multipliers of the rows below, kept    \
     * from the iterations that loaded them. */                                                    \
    T x1 = 0, x2 = 0, l1n = 0, l2n1 = 0, l2n2 = 0;                                                 \
    int finite = 1;                                                                                \
    for (GsInt i0 = m - 1; i0 >= 0; i0 -= K) {                                                     \
      T vy[K] = {0}, v0[K] = {0}, v1[K] = {0};                                                     \
      GS_UNROLL_ALL for (int u = 0; u < K; u++) {                                                  \
        const GsInt i = i0 - u, q = fb + i * fs;                                                   \
        if (i >= 0) {                                                                              \
          if (!STAGE) vy[u] = x[rb + i * rs];                                                      \
          v0[u] = F[0][q];                                                                         \
          if (penta) v1[u] = F[1][q];                                                              \
        }                                                                                          \
      }                                                                                            \
      if (STAGE) gs_chunk_load_##S(x, rb, rs, i0, -1, m, vy);                                      \
      GS_UNROLL_ALL for (int u = 0; u < K; u++) {                                                  \
        const GsInt i = i0 - u;                                                                    \
        if (i >= 0) {                                                                              \
          T xi;                                                                                    \
          if (penta) {                                                                             \
            xi = vy[u] - l1n * x1 - l2n2 * x2;                                                     \
            l2n2 = l2n1;                                                                           \
            l2n1 = v0[u];                                                                          \
            l1n = v1[u];                                                                           \
          } else {                                                                                 \
            xi = vy[u] - l1n * x1;                                                                 \
            l1n = v0[u];                                                                           \
          }                                                                                        \
          if (STAGE)                                                                               \
            vy[u] = xi;                                                                            \
          else                                                                                     \
            x[rb + i * rs] = xi;                                                                   \
          finite &= isfinite((double)xi) ? 1 : 0;                                                  \
          x2 = x1;                                                                                 \
          x1 = xi;                                                                                 \
        }                                                                                          \
      }                                                                                            \
      if (STAGE) gs_chunk_store_##S(x, rb, rs, i0, -1, m, vy);                                     \
    }                                                                                              \
    return finite;                                                                                 \
  }                                                                                                \
                                                                                                   \
  /* LU of rows [0, m) of the banded block; returns a GsBandedStatus. Entries reaching outside     \
   * the block are taken as zero. */                                                               \
  GS_BANDED_FN int gs_banded_lu_##S(const GsBandedShape *sh, const T *const *D, T *const *F,       \
                                    GsInt base, GsInt step) {                                      \
    if (sh->spd) return gs_banded_ldl_##S(sh, D, F, base, step);                                   \
    const GsInt m = sh->m;                                                                         \
    enum { K = KK };                                                                               \
    if (sh->bands == 5) {                                                                          \
      T g2 = 0, g1 = 0, d2 = 0, d1 = 0;                                                            \
      for (GsInt i0 = 0; i0 < m; i0 += K) {                                                        \
        T va[K] = {0}, vb[K] = {0}, vc[K] = {0}, vd[K] = {0}, ve[K] = {0};                         \
        GS_UNROLL_ALL for (int u = 0; u < K; u++) {                                                \
          const GsInt i = i0 + u, q = base + i * step;                                             \
          if (i < m) {                                                                             \
            va[u] = i >= 2 ? D[0][q] : (T)0;                                                       \
            vb[u] = i >= 1 ? D[1][q] : (T)0;                                                       \
            vc[u] = D[2][q];                                                                       \
            vd[u] = i + 1 < m ? D[3][q] : (T)0;                                                    \
            ve[u] = i + 2 < m ? D[4][q] : (T)0;                                                    \
          }                                                                                        \
        }                                                                                          \
        GS_UNROLL_ALL for (int u = 0; u < K; u++) {                                                \
          const GsInt i = i0 + u, q = base + i * step;                                             \
          if (i < m) {                                                                             \
            const T ai = va[u];                                                                    \
            T beta, ia, gam, del;                                                                  \
            const int st = gs_banded_lu_row_##S(1, ai, vb[u], vc[u], vd[u], ve[u], g1, g2, d1, d2, \
                                                1, &beta, &ia, &gam, &del);                        \
            if (st) return st;                                                                     \
            F[0][q] = ai;                                                                          \
            F[1][q] = beta;                                                                        \
            F[2][q] = ia;                                                                          \
            F[3][q] = gam;                                                                         \
            F[4][q] = del;                                                                         \
            g2 = g1;                                                                               \
            g1 = gam;                                                                              \
            d2 = d1;                                                                               \
            d1 = del;                                                                              \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
    } else {                                                                                       \
      T g1 = 0;                                                                                    \
      for (GsInt i0 = 0; i0 < m; i0 += K) {                                                        \
        T va[K] = {0}, vb[K] = {0}, vc[K] = {0};                                                   \
        GS_UNROLL_ALL for (int u = 0; u < K; u++) {                                                \
          const GsInt i = i0 + u, q = base + i * step;                                             \
          if (i < m) {                                                                             \
            va[u] = i >= 1 ? D[0][q] : (T)0;                                                       \
            vb[u] = D[1][q];                                                                       \
            vc[u] = i + 1 < m ? D[2][q] : (T)0;                                                    \
          }                                                                                        \
        }                                                                                          \
        GS_UNROLL_ALL for (int u = 0; u < K; u++) {                                                \
          const GsInt i = i0 + u, q = base + i * step;                                             \
          if (i < m) {                                                                             \
            const T ai = va[u];                                                                    \
            T beta, ia, gam, del;                                                                  \
            const int st = gs_banded_lu_row_##S(0, (T)0, ai, vb[u], vc[u], (T)0, g1, (T)0, (T)0,   \
                                                (T)0, 1, &beta, &ia, &gam, &del);                  \
            if (st) return st;                                                                     \
            F[0][q] = ai;                                                                          \
            F[1][q] = ia;                                                                          \
            F[2][q] = gam;                                                                         \
            g1 = gam;                                                                              \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    return GS_BANDED_OK;                                                                           \
  }                                                                                                \
                                                                                                   \
  /* Back substitution over rows [0, m): x_i = g_i - gamma_i x_{i+1} - delta_i x_{i+2} (tri:       \
   * no delta term), g in x on entry. Returns 1 when every x_i is finite. */                       \
  GS_BANDED_FN int gs_banded_back_##S(const GsBandedShape *sh, const T *const *F, GsInt fb,        \
                                      GsInt fs, T *x, GsInt rb, GsInt rs) {                        \
    const GsInt m = sh->m;                                                                         \
    enum { K = KK };                                                                               \
    const int penta = sh->bands == 5;                                                              \
    T x1 = 0, x2 = 0;                                                                              \
    int finite = 1; /* checked on the values in registers: no extra pass over x */                 \
    for (GsInt i0 = m - 1; i0 >= 0; i0 -= K) {                                                     \
      T vg[K] = {0}, vc[K] = {0}, vd[K] = {0};                                                     \
      GS_UNROLL_ALL for (int u = 0; u < K; u++) {                                                  \
        const GsInt i = i0 - u;                                                                    \
        if (i >= 0) {                                                                              \
          const GsInt q = fb + i * fs;                                                             \
          if (!STAGE) vg[u] = x[rb + i * rs];                                                      \
          vc[u] = F[penta ? 3 : 2][q];                                                             \
          if (penta) vd[u] = F[4][q];                                                              \
        }                                                                                          \
      }                                                                                            \
      if (STAGE) gs_chunk_load_##S(x, rb, rs, i0, -1, m, vg); /* after the factors' loads */       \
      GS_UNROLL_ALL for (int u = 0; u < K; u++) {                                                  \
        const GsInt i = i0 - u;                                                                    \
        if (i >= 0) {                                                                              \
          const T xi = penta ? vg[u] - vc[u] * x1 - vd[u] * x2 : vg[u] - vc[u] * x1;               \
          if (STAGE)                                                                               \
            vg[u] = xi;                                                                            \
          else                                                                                     \
            x[rb + i * rs] = xi;                                                                   \
          finite &= isfinite((double)xi) ? 1 : 0;                                                  \
          x2 = x1;                                                                                 \
          x1 = xi;                                                                                 \
        }                                                                                          \
      }                                                                                            \
      if (STAGE) gs_chunk_store_##S(x, rb, rs, i0, -1, m, vg);                                     \
    }                                                                                              \
    return finite;                                                                                 \
  }                                                                                                \
                                                                                                   \
  /* Solve the banded block with its LU: x = E^-1 f over rows [0, m). f and x may be the same      \
   * array (with the same base/step): a chunk's loads all come before its stores. */               \
  GS_BANDED_FN int gs_banded_lu_solve_##S(const GsBandedShape *sh, const T *const *F, GsInt fb,    \
                                          GsInt fs, const T *f, T *x, GsInt rb, GsInt rs) {        \
    if (sh->spd) return gs_banded_ldl_solve_##S(sh, F, fb, fs, f, x, rb, rs);                      \
    const GsInt m = sh->m;                                                                         \
    enum { K = KK };                                                                               \
    const int penta = sh->bands == 5;                                                              \
    /* Forward: g_i = (f_i - a_i g_{i-2} - beta_i g_{i-1}) / alpha_i (tri: no beta term). */       \
    T p2 = 0, p1 = 0;                                                                              \
    for (GsInt i0 = 0; i0 < m; i0 += K) {                                                          \
      T vf[K] = {0}, v0[K] = {0}, v1[K] = {0}, v2[K] = {0};                                        \
      GS_UNROLL_ALL for (int u = 0; u < K; u++) {                                                  \
        const GsInt i = i0 + u;                                                                    \
        if (i < m) {                                                                               \
          const GsInt q = fb + i * fs;                                                             \
          if (!STAGE) vf[u] = f[rb + i * rs];                                                      \
          v0[u] = F[0][q];                                                                         \
          v1[u] = F[1][q];                                                                         \
          if (penta) v2[u] = F[2][q];                                                              \
        }                                                                                          \
      }                                                                                            \
      if (STAGE) gs_chunk_load_##S(f, rb, rs, i0, 1, m, vf); /* after the factors' loads */        \
      GS_UNROLL_ALL for (int u = 0; u < K; u++) {                                                  \
        const GsInt i = i0 + u;                                                                    \
        if (i < m) {                                                                               \
          T g;                                                                                     \
          if (penta) {                                                                             \
            g = (vf[u] - v0[u] * p2 - v1[u] * p1) * v2[u];                                         \
            p2 = p1;                                                                               \
          } else {                                                                                 \
            g = (vf[u] - v0[u] * p1) * v1[u];                                                      \
          }                                                                                        \
          p1 = g;                                                                                  \
          if (STAGE)                                                                               \
            vf[u] = g;                                                                             \
          else                                                                                     \
            x[rb + i * rs] = g;                                                                    \
        }                                                                                          \
      }                                                                                            \
      if (STAGE) gs_chunk_store_##S(x, rb, rs, i0, 1, m, vf);                                      \
    }                                                                                              \
    /* Back substitution. */                                                                       \
    return gs_banded_back_##S(sh, F, fb, fs, x, rb, rs);                                           \
  }                                                                                                \
                                                                                                   \
  /* Factor and solve one non-periodic system in one forward sweep (refactor-each-call mode):      \
   * the LU is formed on the fly and only gamma and delta (tri: gamma) are stored, into F[3], F[4] \
   * (tri: F[2]), for the back substitution; g goes to x. A bad pivot fills x with NaN. */         \
  GS_BANDED_FN int gs_banded_factor_solve_##S(const GsBandedShape *sh, const T *const *D,          \
                                              T *const *F, GsInt base, GsInt step, const T *f,     \
                                              T *x, GsInt rb, GsInt rs) {                          \
    const GsInt m = sh->m;                                                                         \
    enum { K = KK };                                                                               \
    const int penta = sh->bands == 5;                                                              \
    T g2 = 0, g1 = 0, d2 = 0, d1 = 0, p2 = 0, p1 = 0;                                              \
    int st = GS_BANDED_OK;                                                                         \
    for (GsInt i0 = 0; i0 < m && !st; i0 += K) {                                                   \
      T va[K] = {0}, vb[K] = {0}, vc[K] = {0}, vd[K] = {0}, ve[K] = {0}, vf[K] = {0};              \
      GS_UNROLL_ALL for (int u = 0; u < K; u++) {                                                  \
        const GsInt i = i0 + u, q = base + i * step;                                               \
        if (i < m) {                                                                               \
          vf[u] = f[rb + i * rs];                                                                  \
          if (penta) {                                                                             \
            va[u] = i >= 2 ? D[0][q] : (T)0;                                                       \
            vb[u] = i >= 1 ? D[1][q] : (T)0;                                                       \
            vc[u] = D[2][q];                                                                       \
            vd[u] = i + 1 < m ? D[3][q] : (T)0;                                                    \
            ve[u] = i + 2 < m ? D[4][q] : (T)0;                                                    \
          } else {                                                                                 \
            vb[u] = i >= 1 ? D[0][q] : (T)0;                                                       \
            vc[u] = D[1][q];                                                                       \
            vd[u] = i + 1 < m ? D[2][q] : (T)0;                                                    \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
      GS_UNROLL_ALL for (int u = 0; u < K; u++) {                                                  \
        const GsInt i = i0 + u, q = base + i * step;                                               \
        if (i < m && !st) {                                                                        \
          /* The row step of gs_banded_lu_row, penta form for tri too (a = e = 0), written out:    \
           * with the step's call, ptxas spills more in this kernel (80 bytes instead of 44 in     \
           * double) and the fused sweep loses 2.5 % on an H200 (65536 x 1024: 1.90 against        \
           * 1.86 ms). Its failures are the step's; it checks the solution, not the factors. */    \
          const T ai = va[u], bi = vb[u], ci = vc[u], di = vd[u], ei = ve[u];                      \
          const T beta = bi - ai * g2;                                                             \
          const T alpha = ci - ai * d2 - beta * g1;                                                \
          const T scale = (T)(fabs((double)ai) + fabs((double)bi) + fabs((double)ci) +             \
                              fabs((double)di) + fabs((double)ei));                                \
          if (!(fabs((double)alpha) > (double)(EPS) * (double)scale)) {                            \
            st = alpha == alpha && scale == scale ? GS_BANDED_ZERO_PIVOT : GS_BANDED_NOT_FINITE;   \
          } else {                                                                                 \
            const T ia = (T)1 / alpha;                                                             \
            const T gam = (di - beta * d1) * ia, del = ei * ia;                                    \
            const T g = (vf[u] - ai * p2 - beta * p1) * ia;                                        \
            if (penta) {                                                                           \
              F[3][q] = gam;                                                                       \
              F[4][q] = del;                                                                       \
            } else {                                                                               \
              F[2][q] = gam;                                                                       \
            }                                                                                      \
            x[rb + i * rs] = g;                                                                    \
            g2 = g1;                                                                               \
            g1 = gam;                                                                              \
            d2 = d1;                                                                               \
            d1 = del;                                                                              \
            p2 = p1;                                                                               \
            p1 = g;                                                                                \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    if (st) {                                                                                      \
      gs_banded_poison_##S(sh->n, x, rb, rs);                                                      \
      return st;                                                                                   \
    }                                                                                              \
    return gs_banded_back_##S(sh, (const T *const *)F, base, step, x, rb, rs)                      \
               ? GS_BANDED_OK                                                                      \
               : GS_BANDED_NOT_FINITE;                                                             \
  }                                                                                                \
                                                                                                   \
  /* The last h rows of a periodic matrix by diagonal, and S^-1 with S = H - G W, into C (W = E^-1 \
   * F in the h arrays W at the matrix data's base/step). Returns a GsBandedStatus. */             \
  GS_BANDED_FN int gs_banded_schur_##S(const GsBandedShape *sh, const T *const *D,                 \
                                       const T *const *W, T *C, GsInt base, GsInt step) {          \
    const int h = sh->h, nb = sh->bands;                                                           \
    const GsInt n = sh->n, m = sh->m;                                                              \
    /* The last h rows by diagonal, and S = H - G W. */                                            \
    T Sm[2][2] = {{0, 0}, {0, 0}};                                                                 \
    for (int r = 0; r < h; r++) {                                                                  \
      const GsInt row = m + r;                                                                     \
      for (int o = -h; o <= h; o++) {                                                              \
        const T v = D[o + h][base + row * step];                                                   \
        C[r * nb + (o + h)] = v;                                                                   \
        const GsInt col = gs_banded_wrap(row + o, n);                                              \
        for (int l = 0; l < h; l++) {                                                              \
          if (col >= m)                                                                            \
            Sm[r][l] += col == m + l ? v : (T)0;                                                   \
          else                                                                                     \
            Sm[r][l] -= v * W[l][base + col * step];                                               \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    T *Si = C + h * nb;                                                                            \
    if (h == 1) {                                                                                  \
      const T s = Sm[0][0];                                                                        \
      if (!(fabs((double)s) > (double)(EPS)*fabs((double)C[1])))                                   \
        return s == s ? GS_BANDED_ZERO_PIVOT : GS_BANDED_NOT_FINITE;                               \
      Si[0] = (T)1 / s;                                                                            \
    } else {                                                                                       \
      const T det = Sm[0][0] * Sm[1][1] - Sm[0][1] * Sm[1][0];                                     \
      const double big = fabs((double)Sm[0][0]) + fabs((double)Sm[1][1]) +                         \
                         fabs((double)Sm[0][1]) + fabs((double)Sm[1][0]);                          \
      if (!(fabs((double)det) > (double)(EPS)*big * big))                                          \
        return det == det && big == big ? GS_BANDED_ZERO_PIVOT : GS_BANDED_NOT_FINITE;             \
      const T id = (T)1 / det;                                                                     \
      Si[0] = Sm[1][1] * id;                                                                       \
      Si[1] = -Sm[0][1] * id;                                                                      \
      Si[2] = -Sm[1][0] * id;                                                                      \
      Si[3] = Sm[0][0] * id;                                                                       \
    }                                                                                              \
    for (int q = 0; q < h * h; q++)                                                                \
      if (!isfinite((double)Si[q])) return GS_BANDED_NOT_FINITE;                                   \
    return GS_BANDED_OK;                                                                           \
  }                                                                                                \
                                                                                                   \
  /* Where the h columns W of E^-1 F matter: W decays away from both ends, so rows [0, phi) and    \
   * [plo, m) hold every entry above EPS / 4 (which, times z, is below rounding). */               \
  GS_BANDED_FN void gs_banded_w_extents_##S(const GsBandedShape *sh, const T *const *W,            \
                                            GsInt base, GsInt step, GsInt *phi, GsInt *plo) {      \
    const double thr = 0.25 * (double)(EPS);                                                       \
    const GsInt m = sh->m;                                                                         \
    *phi = 0;                                                                                      \
    *plo = m;                                                                                      \
    for (GsInt i = 0; i < m; i++)                                                                  \
      for (int l = 0; l < sh->h; l++)                                                              \
        if (!(fabs((double)W[l][base + i * step]) <= thr)) {                                       \
          if (i < m / 2)                                                                           \
            *phi = i + 1;                                                                          \
          else if (*plo == m)                                                                      \
            *plo = i;                                                                              \
        }                                                                                          \
  }                                                                                                \
                                                                                                   \
  /* The rows [0, *phi) and [*plo, m) where W must be applied, from a periodic matrix's corner     \
   * data (all rows when Factor could not record them); *phi <= *plo. */                           \
  GS_BANDED_FN void gs_banded_w_rows_##S(const GsBandedShape *sh, const T *C, GsInt *phi,          \
                                         GsInt *plo) {                                             \
    const T *ext = C + GS_BANDED_CORNER_EXT(sh->bands);                                            \
    const GsInt m = sh->m, a = ext[0] < 0 ? m : (GsInt)ext[0], b = ext[0] < 0 ? m : (GsInt)ext[1]; \
    *phi = a;                                                                                      \
    *plo = b > a ? b : a;                                                                          \
  }                                                                                                \
                                                                                                   \
  /* Column j of a periodic matrix's F block (the rows of E that reach column m + j) into W. */    \
  GS_BANDED_FN void gs_banded_corner_col_##S(const GsBandedShape *sh, const T *const *D, T *W,     \
                                             GsInt base, GsInt step, int j) {                      \
    const GsInt n = sh->n, m = sh->m;                                                              \
    const int h = sh->h;                                                                           \
    for (GsInt i = 0; i < m; i++)                                                                  \
      W[base + i * step] = 0;                                                                      \
    for (GsInt i = 0; i < m; i++) {                                                                \
      if (i >= h && i < m - h) continue; /* only rows near the ends reach the last columns */      \
      for (int o = -h; o <= h; o++) {                                                              \
        const GsInt col = gs_banded_wrap(i + o, n);                                                \
        if (col == m + j) W[base + i * step] += D[o + h][base + i * step];                         \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
                                                                                                   \
  /* Factor one matrix (LU, and the periodic corner data into C). Returns a GsBandedStatus. */     \
  GS_BANDED_FN int gs_banded_factor_##S(const GsBandedShape *sh, const T *const *D, T *const *F,   \
                                        T *C, GsInt base, GsInt step) {                            \
    int st = gs_banded_lu_##S(sh, D, F, base, step);                                               \
    if (st || !sh->periodic) return st;                                                            \
    const int h = sh->h, nlu = GS_BANDED_NLU(sh->bands, sh->spd);                                  \
    /* W_j = E^-1 F_j: column j of F (rows of E reaching column m + j) solved in place. */         \
    for (int j = 0; j < h; j++) {                                                                  \
      gs_banded_corner_col_##S(sh, D, F[nlu + j], base, step, j);                                  \
      (void)gs_banded_lu_solve_##S(sh, (const T *const *)F, base, step, F[nlu + j], F[nlu + j],    \
                                   base, step);                                                    \
    }                                                                                              \
    st = gs_banded_schur_##S(sh, D, (const T *const *)F + nlu, C, base, step);                     \
    if (st) return st;                                                                             \
    GsInt phi, plo;                                                                                \
    gs_banded_w_extents_##S(sh, (const T *const *)F + nlu, base, step, &phi, &plo);                \
    T *ext = C + GS_BANDED_CORNER_EXT(sh->bands);                                                  \
    /* Row numbers are kept in T: beyond 2^24 rows a float would round them, so correct all. */    \
    const int exact = sizeof(T) >= 8 || sh->m <= (1 << 24);                                        \
    ext[0] = exact ? (T)phi : (T)-1;                                                               \
    ext[1] = exact ? (T)plo : (T)0;                                                                \
    return GS_BANDED_OK;                                                                           \
  }                                                                                                \
                                                                                                   \
  /* The carries into the last h rows of a periodic system: z = S^-1 (f_tail - G y), from the      \
   * block's first h and last h values y (ycor[0..h), ycor[h..2h)); f_tail in z on entry. */       \
  GS_BANDED_FN void gs_banded_tail_##S(const GsBandedShape *sh, const T *C, const T *ycor, T *z) { \
    const GsInt n = sh->n, m = sh->m;                                                              \
    const int h = sh->h, nb = sh->bands;                                                           \
    /* Loops over r and l run to 2 with h tested inside, so that on a GPU t and z stay in          \
     * registers (indexed by constants once unrolled) instead of local memory. */                  \
    T t[2] = {0, 0};                                                                               \
    GS_UNROLL_ALL for (int r = 0; r < 2; r++) {                                                    \
      if (r >= h) break;                                                                           \
      T s = z[r];                                                                                  \
      for (int o = -h; o <= h; o++) {                                                              \
        const GsInt col = gs_banded_wrap(m + r + o, n);                                            \
        if (col < h)                                                                               \
          s -= C[r * nb + (o + h)] * ycor[col];                                                    \
        else if (col < m)                                                                          \
          s -= C[r * nb + (o + h)] * ycor[h + (col - (m - h))];                                    \
      }                                                                                            \
      t[r] = s;                                                                                    \
    }                                                                                              \
    const T *Si = C + h * nb;                                                                      \
    GS_UNROLL_ALL for (int r = 0; r < 2; r++) {                                                    \
      if (r >= h) break;                                                                           \
      T s = 0;                                                                                     \
      GS_UNROLL_ALL for (int l = 0; l < 2; l++) {                                                  \
        if (l >= h) break;                                                                         \
        s += Si[r * h + l] * t[l];                                                                 \
      }                                                                                            \
      z[r] = s;                                                                                    \
    }                                                                                              \
  }                                                                                                \
                                                                                                   \
  /* A periodic system's correction once its block is solved into x (rows from rb, step rs): the   \
   * last h unknowns from the block's first and last h values and z (on entry the last h entries   \
   * of f; gs_banded_tail), y -= W z over the rows where W matters ([0, phi) and [plo, m), loads   \
   * of a chunk of K rows first), and the h unknowns stored; *finite becomes 0 if a value it       \
   * writes is inf or NaN. */                                                                      \
  GS_BANDED_FN int gs_banded_periodic_fix_##S(const GsBandedShape *sh, const T *const *F,          \
                                              const T *C, GsInt fb, GsInt fs, T *x, GsInt rb,      \
                                              GsInt rs, T *z) {                                    \
    const GsInt m = sh->m;                                                                         \
    const int h = sh->h, nlu = GS_BANDED_NLU(sh->bands, sh->spd);                                  \
    int finite = 1;                                                                                \
    T ycor[4];                                                                                     \
    for (int r = 0; r < h; r++) {                                                                  \
      ycor[r] = x[rb + r * rs];                                                                    \
      ycor[h + r] = x[rb + (m - h + r) * rs];                                                      \
    }                                                                                              \
    gs_banded_tail_##S(sh, C, ycor, z);                                                            \
    enum { K = KK };                                                                               \
    GsInt phi, plo;                                                                                \
    gs_banded_w_rows_##S(sh, C, &phi, &plo);                                                       \
    for (GsInt i0 = 0; i0 < m; i0 += K) {                                                          \
      if (i0 >= phi && i0 + K <= plo) { /* a chunk in the middle: skip to the last one */          \
        i0 = (plo - i0) / K * K + i0 - K;                                                          \
        continue;                                                                                  \
      }                                                                                            \
      T vx[K] = {0}, w0[K] = {0}, w1[K] = {0};                                                     \
      GS_UNROLL_ALL for (int u = 0; u < K; u++) {                                                  \
        const GsInt i = i0 + u;                                                                    \
        if (i < m && (i < phi || i >= plo)) {                                                      \
          vx[u] = x[rb + i * rs];                                                                  \
          w0[u] = F[nlu][fb + i * fs];                                                             \
          if (h > 1) w1[u] = F[nlu + 1][fb + i * fs];                                              \
        }                                                                                          \
      }                                                                                            \
      GS_UNROLL_ALL for (int u = 0; u < K; u++) {                                                  \
        const GsInt i = i0 + u;                                                                    \
        if (i < m && (i < phi || i >= plo)) {                                                      \
          const T xi = vx[u] - w0[u] * z[0] - (h > 1 ? w1[u] * z[1] : (T)0);                       \
          x[rb + i * rs] = xi;                                                                     \
          finite &= isfinite((double)xi) ? 1 : 0;                                                  \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    for (int r = 0; r < h; r++) {                                                                  \
      x[rb + (m + r) * rs] = z[r];                                                                 \
      finite &= isfinite((double)z[r]) ? 1 : 0;                                                    \
    }                                                                                              \
    return finite;                                                                                 \
  }                                                                                                \
                                                                                                   \
  /* Solve one system with its factors; returns GS_BANDED_NOT_FINITE if the solution has an inf or \
   * NaN entry. f and x may be the same array. */                                                  \
  GS_BANDED_FN int gs_banded_solve_##S(const GsBandedShape *sh, const T *const *F, const T *C,     \
                                       GsInt fb, GsInt fs, const T *f, T *x, GsInt rb, GsInt rs) { \
    const GsInt m = sh->m;                                                                         \
    const int h = sh->h;                                                                           \
    T z[2] = {0, 0};                                                                               \
    if (sh->periodic) { /* read the last h entries of f before x (maybe f) is written */           \
      for (int r = 0; r < h; r++)                                                                  \
        z[r] = f[rb + (m + r) * rs];                                                               \
    }                                                                                              \
    int finite = gs_banded_lu_solve_##S(sh, F, fb, fs, f, x, rb, rs);                              \
    if (sh->periodic) finite &= gs_banded_periodic_fix_##S(sh, F, C, fb, fs, x, rb, rs, z);        \
    return finite ? GS_BANDED_OK : GS_BANDED_NOT_FINITE;                                           \
  }                                                                                                \
                                                                                                   \
  /* y = A x for one system (x and y distinct). */                                                 \
  GS_BANDED_FN void gs_banded_mult_##S(const GsBandedShape *sh, const T *const *D, GsInt db,       \
                                       GsInt ds, const T *x, T *y, GsInt rb, GsInt rs) {           \
    const GsInt n = sh->n;                                                                         \
    const int h = sh->h;                                                                           \
    for (GsInt i = 0; i < n; i++) {                                                                \
      T s = 0;                                                                                     \
      for (int o = -h; o <= h; o++) {                                                              \
        GsInt col = i + o;                                                                         \
        if (col < 0 || col >= n) {                                                                 \
          if (!sh->periodic) continue;                                                             \
          col = gs_banded_wrap(col, n);                                                            \
        }                                                                                          \
        s += D[o + h][db + i * ds] * x[rb + col * rs];                                             \
      }                                                                                            \
      y[rb + i * rs] = s;                                                                          \
    }                                                                                              \
  }

/* ---- Partitioned solves (SPIKE), for few long systems --------------------------------------- */
/* A system's banded block (all n rows, or the leading m = n - h of a periodic system) is cut into P
 * partitions of about m/P rows (rows [r0, r1) of partition j, r0 = m j / P), so that P threads
 * share one system. With A_j the diagonal block of partition j
 * and B_j, C_j its couplings to the first h unknowns of partition j+1 and the last h of j-1:
 *   x_j = y_j - V_j T_{j+1} - W_j U_{j-1},   y_j = A_j^-1 f_j,  V_j = A_j^-1 B_j,  W_j = A_j^-1
 * C_j, where T_j / U_j are the first / last h unknowns of partition j. Taking the first and last h
 * rows of that identity gives a block-tridiagonal system in X_j = (T_j, U_j) (blocks of q = 2h):
 *   L_j X_{j-1} + X_j + R_j X_{j+1} = Y_j,
 * solved by block Thomas (M_j = I - L_j G_{j-1}, G_j = M_j^-1 R_j) by one thread per system (a
 * GPU scans its two recurrences across the partitions with a warp: gs_banded_psolve2w_k).
 * Factor keeps each A_j's LU in the usual factor arrays (rows of partition j), the spikes V, W in
 * 2h more, and per partition M_j^-1, L_j and G_j (3 q x q blocks) in the matrix's corner data.
 * A periodic system is [E F; G H] as above: E is solved by partitions; Factor also keeps E^-1 F
 * (h more arrays, computed by the same partitioned solve) and, after the partitions' data, the
 * periodic corner data (GS_BANDED_CORNER_LEN). The solve's reduced system gives y = E^-1 f_1 at
 * rows 0..h-1 and m-h..m-1, which is all z = S^-1 (f_2 - G y) needs, so the correction pass
 * subtracts (E^-1 F) z with the spikes and writes z into the last h rows: no pass more. */
#define GS_BANDED_PART_Q(bands) (2 * ((bands) / 2))
/* Per partition: 3 q x q blocks, then (at the end of the matrix's corner data) 2 values per
 * partition: the rows [0, whi) and [vlo, L) where its spikes W and V are not negligible. */
#define GS_BANDED_PART_CORNER_LEN(bands, parts)                                                    \
  ((parts)*3 * GS_BANDED_PART_Q(bands) * GS_BANDED_PART_Q(bands) + 2 * (parts))
/* Periodic: the corner data of the matrix (GS_BANDED_CORNER_LEN) after the partitions' data. */
#define GS_BANDED_PART_PERIODIC_LEN(bands, parts)                                                  \
  (GS_BANDED_PART_CORNER_LEN(bands, parts) + GS_BANDED_CORNER_LEN(bands))
/* Factor arrays of a partitioned batch: LU, 2h spikes, and h columns of E^-1 F when periodic. */
#define GS_BANDED_PART_NFAC(bands, spd, periodic)                                                  \
  (GS_BANDED_NLU(bands, spd) + 2 * ((bands) / 2) + ((periodic) ? (bands) / 2 : 0))
/* Scratch of a partitioned solve per system: the reduced unknowns, and z when periodic. */
#define GS_BANDED_PART_X(bands, parts, periodic)                                                   \
  ((parts)*GS_BANDED_PART_Q(bands) + ((periodic) ? (bands) / 2 : 0))
#define GS_BANDED_PART_EXT(bands, parts, j)                                                        \
  ((parts)*3 * GS_BANDED_PART_Q(bands) * GS_BANDED_PART_Q(bands) + 2 * (j))

GS_BANDED_FN void gs_part_range(GsInt n, int parts, int j, GsInt *r0, GsInt *r1) {
  *r0 = n * j / parts;
  *r1 = n * (j + 1) / parts;
}

/* Rows [i0, i0 + K) (those below re) of partition j's correction, y in x: x -= the row's
 * correction (gs_banded_part_row_fix) with the V spikes where UV holds and the W spikes where UW
 * does (expressions in the row i), finite cleared where a result is not. Each row's correction is
 * summed as its loads arrive: one value per row in flight, not one per factor array (which made
 * the periodic double penta kernel spill); all loads come before the stores. Used inside
 * gs_banded_part_correct and the GPU's correction kernel, with their h, per, Z, Tn, Up, z, x, rb,
 * rs, fb, fs. */
#define GS_BANDED_PART_FIX_CHUNK(T, S, K, UV, UW)                                                  \
  {                                                                                                \
    T vx_[K], cr_[K];                                                                              \
    GS_UNROLL_ALL for (int e_ = 0; e_ < (K); e_++) {                                               \
      const GsInt i = i0 + e_;                                                                     \
      vx_[e_] = cr_[e_] = 0;                                                                       \
      if (i < re) {                                                                                \
        vx_[e_] = x[rb + i * rs];                                                                  \
        cr_[e_] = gs_banded_part_row_fix_##S(h, per, UV, UW, Z, fb + i * fs, Tn, Up, z);           \
      }                                                                                            \
    }                                                                                              \
    GS_UNROLL_ALL for (int e_ = 0; e_ < (K); e_++) {                                               \
      const GsInt i = i0 + e_;                                                                     \
      if (i < re) {                                                                                \
        const T xi_ = vx_[e_] - cr_[e_];                                                           \
        x[rb + i * rs] = xi_;                                                                      \
        finite &= isfinite((double)xi_) ? 1 : 0;                                                   \
      }                                                                                            \
    }                                                                                              \
  }
#define GS_BANDED_PART_ALGOS_K(T, S, EPS, KK)                                                      \
  /* Invert the q x q matrix M (q <= 4) into Mi by Gauss-Jordan with partial pivoting; returns 0   \
   * if a pivot is zero or tiny against the matrix. */                                             \
  GS_BANDED_FN int gs_small_inv_##S(int q, T M[4][4], T Mi[4][4]) {                                \
    double big = 0;                                                                                \
    for (int a = 0; a < q; a++)                                                                    \
      for (int b = 0; b < q; b++) {                                                                \
        Mi[a][b] = a == b ? (T)1 : (T)0;                                                           \
        big = fabs((double)M[a][b]) > big ? fabs((double)M[a][b]) : big;                           \
      }                                                                                            \
    for (int c = 0; c < q; c++) {                                                                  \
      int p = c;                                                                                   \
      for (int a = c + 1; a < q; a++)                                                              \
        if (fabs((double)M[a][c]) > fabs((double)M[p][c])) p = a;                                  \
      if (!(fabs((double)M[p][c]) > (double)(EPS)*big)) return 0;                                  \
      for (int b = 0; b < q; b++) {                                                                \
        T t = M[c][b];                                                                             \
        M[c][b] = M[p][b];                                                                         \
        M[p][b] = t;                                                                               \
        t = Mi[c][b];                                                                              \
        Mi[c][b] = Mi[p][b];                                                                       \
        Mi[p][b] = t;                                                                              \
      }                                                                                            \
      const T ip = (T)1 / M[c][c];                                                                 \
      for (int b = 0; b < q; b++) {                                                                \
        M[c][b] *= ip;                                                                             \
        Mi[c][b] *= ip;                                                                            \
      }                                                                                            \
      for (int a = 0; a < q; a++) {                                                                \
        if (a == c) continue;                                                                      \
        const T fct = M[a][c];                                                                     \
        for (int b = 0; b < q; b++) {                                                              \
          M[a][b] -= fct * M[c][b];                                                                \
          Mi[a][b] -= fct * Mi[c][b];                                                              \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    return 1;                                                                                      \
  }                                                                                                \
                                                                                                   \
  /* Factor partition j of one matrix: the LU of A_j and the spikes V_k (F[nlu+k]) and W_k         \
   * (F[nlu+h+k]) over its rows. Returns a GsBandedStatus. */                                      \
  /* Factor partition j and compute its spikes; ext gets where they matter (see the corner data):  \
   * entries below EPS / 4 multiply interface values into corrections below rounding, so the       \
   * correction pass skips rows where every spike entry is that small (decay away from the ends).  \
   */                                                                                              \
  GS_BANDED_FN int gs_banded_part_factor_##S(const GsBandedShape *sh, const T *const *D,           \
                                             T *const *F, GsInt base, GsInt step, int parts,       \
                                             int j, T *ext) {                                      \
    GsInt r0, r1;                                                                                  \
    gs_part_range(sh->m, parts, j, &r0, &r1);                                                      \
    GsBandedShape ps = *sh;                                                                        \
    ps.m = r1 - r0;                                                                                \
    ps.periodic = 0;                                                                               \
    const GsInt pb = base + r0 * step, L = r1 - r0;                                                \
    const int h = sh->h, nlu = GS_BANDED_NLU(sh->bands, sh->spd);                                  \
    const int st = gs_banded_lu_##S(&ps, D, F, pb, step);                                          \
    if (st) return st;                                                                             \
    for (int k = 0; k < 2 * h; k++) {                                                              \
      T *Z = F[nlu + k];                                                                           \
      for (GsInt r = 0; r < L; r++)                                                                \
        Z[pb + r * step] = 0;                                                                      \
      if (k < h && j + 1 < parts) { /* V_k: rows reaching column r1 + k of the next partition */   \
        for (int o = 1; o <= h; o++) {                                                             \
          const GsInt r = L + k - o;                                                               \
          if (r >= 0 && r < L) Z[pb + r * step] = D[o + h][pb + r * step];                         \
        }                                                                                          \
      } else if (k >= h && j > 0) { /* W_k: rows reaching column r0 - h + (k - h) */               \
        for (int o = -h; o <= -1; o++) {                                                           \
          const GsInt r = (k - h) - h - o;                                                         \
          if (r >= 0 && r < L) Z[pb + r * step] = D[o + h][pb + r * step];                         \
        }                                                                                          \
      }                                                                                            \
      (void)gs_banded_lu_solve_##S(&ps, (const T *const *)F, pb, step, Z, Z, pb, step);            \
    }                                                                                              \
    const double thr = 0.25 * (double)(EPS);                                                       \
    GsInt whi = 0, vlo = L;                                                                        \
    for (GsInt r = 0; r < L && j + 1 < parts && vlo == L; r++)                                     \
      for (int k = 0; k < h; k++)                                                                  \
        if (!(fabs((double)F[nlu + k][pb + r * step]) <= thr)) vlo = r;                            \
    for (GsInt r = L - 1; r >= 0 && j > 0 && whi == 0; r--)                                        \
      for (int k = h; k < 2 * h; k++)                                                              \
        if (!(fabs((double)F[nlu + k][pb + r * step]) <= thr)) whi = r + 1;                        \
    ext[0] = (T)whi;                                                                               \
    ext[1] = (T)vlo;                                                                               \
    return GS_BANDED_OK;                                                                           \
  }                                                                                                \
                                                                                                   \
  /* The reduced block-tridiagonal system of one matrix from its spikes: M_j^-1, L_j, G_j into C.  \
   * Returns a GsBandedStatus. */                                                                  \
  GS_BANDED_FN int gs_banded_part_reduce_factor_##S(const GsBandedShape *sh, const T *const *F,    \
                                                    GsInt base, GsInt step, int parts, T *C) {     \
    const int h = sh->h, q = 2 * h, nlu = GS_BANDED_NLU(sh->bands, sh->spd), qq = q * q;           \
    T G[4][4] = {{0}};                                                                             \
    for (int j = 0; j < parts; j++) {                                                              \
      GsInt r0, r1;                                                                                \
      gs_part_range(sh->m, parts, j, &r0, &r1);                                                    \
      T Lj[4][4] = {{0}}, Rj[4][4] = {{0}}, M[4][4], Mi[4][4];                                     \
      for (int a = 0; a < h; a++) {                                                                \
        const GsInt top = base + (r0 + a) * step, bot = base + (r1 - h + a) * step;                \
        for (int k = 0; k < h; k++) {                                                              \
          if (j + 1 < parts) {                                                                     \
            Rj[a][k] = F[nlu + k][top];                                                            \
            Rj[h + a][k] = F[nlu + k][bot];                                                        \
          }                                                                                        \
          if (j > 0) {                                                                             \
            Lj[a][h + k] = F[nlu + h + k][top];                                                    \
            Lj[h + a][h + k] = F[nlu + h + k][bot];                                                \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
      for (int a = 0; a < q; a++)                                                                  \
        for (int b = 0; b < q; b++) {                                                              \
          T s = a == b ? (T)1 : (T)0;                                                              \
          for (int c = 0; c < q; c++)                                                              \
            s -= Lj[a][c] * G[c][b];                                                               \
          M[a][b] = s;                                                                             \
        }                                                                                          \
      if (!gs_small_inv_##S(q, M, Mi)) return GS_BANDED_ZERO_PIVOT;                                \
      T *Cj = C + (GsInt)j * 3 * qq;                                                               \
      for (int a = 0; a < q; a++)                                                                  \
        for (int b = 0; b < q; b++) {                                                              \
          T s = 0;                                                                                 \
          for (int c = 0; c < q; c++)                                                              \
            s += Mi[a][c] * Rj[c][b];                                                              \
          G[a][b] = s;                                                                             \
          Cj[a * q + b] = Mi[a][b];                                                                \
          Cj[qq + a * q + b] = Lj[a][b];                                                           \
          Cj[2 * qq + a * q + b] = s;                                                              \
          if (!isfinite((double)s) || !isfinite((double)Mi[a][b])) return GS_BANDED_NOT_FINITE;    \
        }                                                                                          \
    }                                                                                              \
    return GS_BANDED_OK;                                                                           \
  }                                                                                                \
                                                                                                   \
  /* A periodic system's z = S^-1 (f_2 - G y) into X[parts * q ..], from the reduced solution X    \
   * (y at rows 0..h-1 is T_0, at m-h..m-1 U_{P-1}) and f's last h rows. */                        \
  GS_BANDED_FN void gs_banded_part_reduce_tail_##S(const GsBandedShape *sh, const T *C, int parts, \
                                                   const T *f, GsInt rb, GsInt rs, T *X) {         \
    const int h = sh->h, q = 2 * h;                                                                \
    T ycor[4], z[2] = {0, 0};                                                                      \
    for (int r = 0; r < h; r++) {                                                                  \
      ycor[r] = X[r];                                                                              \
      ycor[h + r] = X[(parts - 1) * q + h + r];                                                    \
      z[r] = f[rb + (sh->m + r) * rs];                                                             \
    }                                                                                              \
    gs_banded_tail_##S(sh, C + GS_BANDED_PART_CORNER_LEN(sh->bands, parts), ycor, z);              \
    for (int r = 0; r < h; r++)                                                                    \
      X[parts * q + r] = z[r];                                                                     \
  }                                                                                                \
                                                                                                   \
  /* Solve the reduced system of one system: Y from the partial solutions y in x, X (parts * q)    \
   * out; periodic systems also z = S^-1 (f_2 - G y) into X[parts * q ..] (f: the right-hand side, \
   * whose last h rows no partial solve has written). */                                           \
  GS_BANDED_FN void gs_banded_part_reduce_solve_##S(const GsBandedShape *sh, const T *C,           \
                                                    int parts, const T *f, const T *x, GsInt rb,   \
                                                    GsInt rs, T *X) {                              \
    const int h = sh->h, q = 2 * h, qq = q * q;                                                    \
    T hp[4] = {0, 0, 0, 0};                                                                        \
    for (int j = 0; j < parts; j++) {                                                              \
      GsInt r0, r1;                                                                                \
      gs_part_range(sh->m, parts, j, &r0, &r1);                                                    \
      const T *Cj = C + (GsInt)j * 3 * qq;                                                         \
      T Y[4];                                                                                      \
      for (int a = 0; a < h; a++) {                                                                \
        Y[a] = x[rb + (r0 + a) * rs];                                                              \
        Y[h + a] = x[rb + (r1 - h + a) * rs];                                                      \
      }                                                                                            \
      for (int a = 0; a < q; a++)                                                                  \
        for (int c = 0; c < q; c++)                                                                \
          Y[a] -= Cj[qq + a * q + c] * hp[c];                                                      \
      for (int a = 0; a < q; a++) {                                                                \
        T s = 0;                                                                                   \
        for (int c = 0; c < q; c++)                                                                \
          s += Cj[a * q + c] * Y[c];                                                               \
        X[j * q + a] = s;                                                                          \
      }                                                                                            \
      for (int a = 0; a < q; a++)                                                                  \
        hp[a] = X[j * q + a];                                                                      \
    }                                                                                              \
    for (int j = parts - 2; j >= 0; j--) {                                                         \
      const T *Gj = C + (GsInt)j * 3 * qq + 2 * qq;                                                \
      T t[4];                                                                                      \
      for (int a = 0; a < q; a++) {                                                                \
        T s = X[j * q + a];                                                                        \
        for (int c = 0; c < q; c++)                                                                \
          s -= Gj[a * q + c] * X[(j + 1) * q + c];                                                 \
        t[a] = s;                                                                                  \
      }                                                                                            \
      for (int a = 0; a < q; a++)                                                                  \
        X[j * q + a] = t[a];                                                                       \
    }                                                                                              \
    if (sh->periodic) gs_banded_part_reduce_tail_##S(sh, C, parts, f, rb, rs, X);                  \
  }                                                                                                \
                                                                                                   \
  /* What partition j's correction needs: the interface values T_{j+1} (Tn), U_{j-1} (Up) and,     \
   * periodic, z; the rows [r0, whi) where its W spikes matter and [vlo, r1) where its V spikes or \
   * (periodic) E^-1 F do, from the factorisation's extents. */                                    \
  GS_BANDED_ROW_FN void gs_banded_part_iface_##S(const GsBandedShape *sh, int parts, int j,        \
                                                 const T *X, const T *ext, T *Tn, T *Up, T *z,     \
                                                 GsInt *r0, GsInt *r1, GsInt *whi, GsInt *vlo) {   \
    const int h = sh->h, q = 2 * h;                                                                \
    for (int k = 0; k < 2; k++)                                                                    \
      Tn[k] = Up[k] = z[k] = 0;                                                                    \
    for (int k = 0; k < h; k++) {                                                                  \
      if (j + 1 < parts) Tn[k] = X[(j + 1) * q + k];                                               \
      if (j > 0) Up[k] = X[(j - 1) * q + h + k];                                                   \
      if (sh->periodic) z[k] = X[parts * q + k];                                                   \
    }                                                                                              \
    gs_part_range(sh->m, parts, j, r0, r1);                                                        \
    *whi = *r0 + (GsInt)ext[0];                                                                    \
    *vlo = *r0 + (GsInt)ext[1];                                                                    \
  }                                                                                                \
                                                                                                   \
  /* Row qf's correction: V T_{j+1} where the V spikes matter (uv: rows >= vlo), W U_{j-1} where   \
   * the W spikes do (uw: rows < whi) and (E^-1 F) z when periodic (per), from the arrays Z = V_0, \
   * V_1, W_0, W_1, (E^-1 F)_0, (E^-1 F)_1. Only the arrays that matter at the row are read: the   \
   * others' entries there are below rounding (that is what the extents mean). */                  \
  GS_BANDED_ROW_FN T gs_banded_part_row_fix_##S(int h, int per, int uv, int uw, const T *const *Z, \
                                                GsInt qf, const T *Tn, const T *Up, const T *z) {  \
    T c = 0;                                                                                       \
    if (uv) {                                                                                      \
      c += Z[0][qf] * Tn[0];                                                                       \
      if (h > 1) c += Z[1][qf] * Tn[1];                                                            \
    }                                                                                              \
    if (uw) {                                                                                      \
      c += Z[2][qf] * Up[0];                                                                       \
      if (h > 1) c += Z[3][qf] * Up[1];                                                            \
    }                                                                                              \
    if (per) {                                                                                     \
      c += Z[4][qf] * z[0];                                                                        \
      if (h > 1) c += Z[5][qf] * z[1];                                                             \
    }                                                                                              \
    return c;                                                                                      \
  }                                                                                                \
                                                                                                   \
  /* x_j = y_j - V_j T_{j+1} - W_j U_{j-1} (- (E^-1 F) z when periodic) over the rows of partition \
   * j where a spike or a periodic column matters (y in x; ext from the factorisation), and the    \
   * last h rows = z for the last partition of a periodic system; returns 1 if all finite. */      \
  GS_BANDED_FN int gs_banded_part_correct_##S(const GsBandedShape *sh, const T *const *F,          \
                                              GsInt fb, GsInt fs, int parts, int j, const T *X,    \
                                              const T *ext, T *x, GsInt rb, GsInt rs) {            \
    const int h = sh->h, nlu = GS_BANDED_NLU(sh->bands, sh->spd), per = sh->periodic;              \
    const T *Z[6];                                                                                 \
    for (int k = 0; k < 6; k++)                                                                    \
      Z[k] = F[nlu];                                                                               \
    for (int k = 0; k < h; k++) {                                                                  \
      Z[k] = F[nlu + k];                                                                           \
      Z[2 + k] = F[nlu + h + k];                                                                   \
      if (per) Z[4 + k] = F[nlu + 2 * h + k];                                                      \
    }                                                                                              \
    T Tn[2], Up[2], z[2];                                                                          \
    GsInt r0, r1, whi, vlo;                                                                        \
    gs_banded_part_iface_##S(sh, parts, j, X, ext, Tn, Up, z, &r0, &r1, &whi, &vlo);               \
    const GsInt vs = vlo > whi ? vlo : whi;                                                        \
    int finite = 1;                                                                                \
    enum { K = KK };                                                                               \
    for (int part = 0; part < 2; part++) { /* rows [r0, whi), then [max(vlo, whi), r1) */          \
      const GsInt ra = part ? vs : r0, re = part ? r1 : whi;                                       \
      for (GsInt i0 = ra; i0 < re; i0 += K) {                                                      \
        GS_BANDED_PART_FIX_CHUNK(T, S, K, i >= vlo, i < whi)                                       \
      }                                                                                            \
    }                                                                                              \
    if (per && j == parts - 1)                                                                     \
      for (int r = 0; r < h; r++) {                                                                \
        x[rb + (sh->m + r) * rs] = z[r];                                                           \
        finite &= isfinite((double)z[r]) ? 1 : 0;                                                  \
      }                                                                                            \
    return finite;                                                                                 \
  }                                                                                                \
                                                                                                   \
  /* The whole partitioned solve of E v = v (in place) by one thread: partial solves, reduced      \
   * system, corrections (sh->periodic 0: E only). X: scratch of parts * q values. */              \
  GS_BANDED_FN void gs_banded_part_serial_solve_##S(const GsBandedShape *sh, const T *const *F,    \
                                                    const T *C, GsInt fb, GsInt fs, int parts,     \
                                                    T *v, GsInt vb, GsInt vs, T *X) {              \
    for (int j = 0; j < parts; j++) {                                                              \
      GsInt r0, r1;                                                                                \
      gs_part_range(sh->m, parts, j, &r0, &r1);                                                    \
      GsBandedShape ps = *sh;                                                                      \
      ps.m = r1 - r0;                                                                              \
      (void)gs_banded_lu_solve_##S(&ps, F, fb + r0 * fs, fs, v, v, vb + r0 * vs, vs);              \
    }                                                                                              \
    gs_banded_part_reduce_solve_##S(sh, C, parts, v, v, vb, vs, X);                                \
    for (int j = 0; j < parts; j++)                                                                \
      (void)gs_banded_part_correct_##S(sh, F, fb, fs, parts, j, X,                                 \
                                       C + GS_BANDED_PART_EXT(sh->bands, parts, j), v, vb, vs);    \
  }                                                                                                \
                                                                                                   \
  /* The periodic part of a partitioned factorisation of one matrix, after the partitions and the  \
   * reduced system: E^-1 F into its h factor arrays, the corner data and S^-1, and the rows where \
   * E^-1 F matters merged into each partition's extents. X: scratch of parts * q values. Returns  \
   * a GsBandedStatus. */                                                                          \
  GS_BANDED_FN int gs_banded_part_periodic_##S(const GsBandedShape *sh, const T *const *D,         \
                                               T *const *F, GsInt base, GsInt step, int parts,     \
                                               T *C, T *X) {                                       \
    const int h = sh->h, nlu = GS_BANDED_NLU(sh->bands, sh->spd), np = nlu + 2 * h;                \
    const GsInt m = sh->m;                                                                         \
    GsBandedShape es = *sh;                                                                        \
    es.periodic = 0;                                                                               \
    for (int l = 0; l < h; l++) {                                                                  \
      gs_banded_corner_col_##S(sh, D, F[np + l], base, step, l);                                   \
      gs_banded_part_serial_solve_##S(&es, (const T *const *)F, C, base, step, parts, F[np + l],   \
                                      base, step, X);                                              \
    }                                                                                              \
    const int st =                                                                                 \
        gs_banded_schur_##S(sh, D, (const T *const *)F + np,                                       \
                            C + GS_BANDED_PART_CORNER_LEN(sh->bands, parts), base, step);          \
    if (st) return st;                                                                             \
    /* E^-1 F decays away from both ends: rows [0, phi) and [plo, m) hold what matters. */         \
    GsInt phi, plo;                                                                                \
    gs_banded_w_extents_##S(sh, (const T *const *)F + np, base, step, &phi, &plo);                 \
    for (int j = 0; j < parts; j++) {                                                              \
      GsInt r0, r1;                                                                                \
      gs_part_range(m, parts, j, &r0, &r1);                                                        \
      T *ext = C + GS_BANDED_PART_EXT(sh->bands, parts, j);                                        \
      const GsInt L = r1 - r0, a = phi - r0, b = plo - r0;                                         \
      const GsInt whi = (GsInt)ext[0], vlo = (GsInt)ext[1];                                        \
      const GsInt wa = a < 0 ? 0 : a > L ? L : a, vb = b < 0 ? 0 : b > L ? L : b;                  \
      ext[0] = (T)(whi > wa ? whi : wa);                                                           \
      ext[1] = (T)(vlo < vb ? vlo : vb);                                                           \
    }                                                                                              \
    return GS_BANDED_OK;                                                                           \
  }

/* ---- Tiled solves of a shared matrix ---------------------------------------------------------
 * With one matrix for the whole batch, the per-system solve only has to read f and write x (16
 * bytes per unknown in double), but a sweep by one thread keeps the forward result g in memory
 * between its two passes (32 bytes). Here the m rows of the banded block are cut into P chunks of L
 * rows (P = ceil(m / L) <= 32) and a system's chunks go to P threads, each holding its L values in
 * registers from the load of f to the store of x:
 *   1. each chunk runs the forward recurrence from zero carries: g0;
 *   2. the true forward result is g = g0 + U1 c1 + U2 c2, where c = (g_{r0-2}, g_{r0-1}) are the
 *      carries into the chunk and U1, U2 the chunk's responses to unit carries; the carries out of
 *      consecutive chunks obey c_k = M_k c_{k-1} + t_k (M_k: U's last two rows, t_k: g0's), an
 *      affine recurrence solved by a parallel (Kogge-Stone) scan over the chunks;
 *   3. the back substitution likewise: x = x0 + R1 d1 + R2 d2 with d = (x_{r0+L}, x_{r0+L+1}),
 *      scanned from the last chunk down.
 * L, P, U and R (and W of a periodic matrix) depend only on the matrix, so Factor stores them once
 * in a table of GS_BANDED_TILE_NTAB arrays of P * L rows (rows past m: a no-op identity). The
 * factors go into the table in the LU form whatever the factorisation (an LDL^T's L D and L^T are
 * an LU), so the tiled solve is one code. Tridiagonal systems are the pentadiagonal recurrences
 * with a = delta = 0. Periodic systems solve the block E this way, then y -= W z on chip. */
#define GS_BANDED_TILE_MAX_ROWS 4096
/* Up to 1024 rows (P <= 32 chunks) a system's chunks sit in one GPU warp's lanes; longer blocks
 * (P <= 128 chunks of 32 rows) scan across warps and keep only the sweep's factors in shared
 * memory, running each chunk's recurrences twice instead of adding stored responses. */
#define GS_BANDED_TILE_NTAB(periodic) ((periodic) ? 12 : 10)
/* Arrays a chunk sweep reads (all but W): a GPU keeps them row by row in shared memory, pairs on
 * 16-byte boundaries. */
#define GS_BANDED_TILE_NSWEEP 10
/* Values of the GPU's scan matrices (two directions, up to 5 Kogge-Stone steps, 2 x 2, 32 lanes),
 * kept after the sweep arrays in shared memory. */
#define GS_BANDED_TILE_SCANW (2 * 5 * 4 * 32)
/* A GPU's image of what its short tiled kernels (P <= 32 chunks, one pass) set up in shared memory
 * from the table before their first group: the sweep arrays row by row (chunk k's rows from
 * k (L + 1), GS_BANDED_TILE_NSWEEP values a row), the scans' matrices, and (periodic) W's two
 * columns in row pairs. Factor writes it after the table (at an even offset), so that a solve
 * copies it into shared memory with asynchronous copies instead of computing it again. Its
 * values, rounded up to an even count. */
GS_BANDED_FN GsInt gs_tile_image_len(int periodic, int P, int L) {
  const GsInt len = (GsInt)GS_BANDED_TILE_NSWEEP * P * (L + 1) + GS_BANDED_TILE_SCANW +
                    (periodic ? 2 * (GsInt)P * (L + 1) : 0);
  return (len + 1) / 2 * 2;
}
/* Whether a tiled batch has that image: one pass, at most 32 chunks. */
#define GS_BANDED_TILE_HAS_IMAGE(bi) (!(bi)->tile_split && (bi)->tile_p <= 32)
enum {
  GS_TAB_A,  /* a / alpha: the lower factor's second sub-diagonal over its diagonal */
  GS_TAB_B,  /* beta / alpha (so the forward step g = f / alpha - a' g_{i-2} - beta' g_{i-1} has a
              * single multiply-add on its dependence chain) */
  GS_TAB_IA, /* 1 / alpha */
  GS_TAB_PAD,
  GS_TAB_G,  /* gamma */
  GS_TAB_D,  /* delta */
  GS_TAB_U1, /* forward response to g_{r0-2} = 1 */
  GS_TAB_U2, /* forward response to g_{r0-1} = 1 */
  GS_TAB_R1, /* backward response to x_{r0+L} = 1 */
  GS_TAB_R2, /* backward response to x_{r0+L+1} = 1 */
  GS_TAB_W1, /* periodic: W = E^-1 F, by column */
  GS_TAB_W2
};

/* TILE in two passes (GPU, long systems: -banded_tile_passes): the chunks (GS_TILE2_L rows each)
 * of a system do not share a block. Pass 1 runs each chunk's sweeps from zero carries and keeps
 * four values per chunk (its forward end pair and its backward start pair); the chunks' affine
 * maps then carry those, forward and backward, into the true carries of every chunk (and,
 * periodic, the last h unknowns: on the GPU, serial walks a lane per system for large batches, a
 * warp per system scanning over its lanes for small ones); pass 2 reads f again and runs each
 * chunk's sweeps from its true carries. In the forward sweep's terms, with cin_k = (g_{r0-2},
 * g_{r0-1}) and cout_k = (x_{r0+L}, x_{r0+L+1}) of chunk k at row r0, and g0, x0 its sweeps from
 * zero carries (x0 from g0):
 *   cin_{k+1} = (g0_{L-2}, g0_{L-1}) + Mf_k cin_k                 (Mf: U's last two rows)
 *   cout_{k-1} = (x0_0, x0_1) + Mx_k cin_k + Mb_k cout_k          (Mb: R's first two rows)
 * where Mx is the back substitution of the responses U (its first two rows). Factor keeps Mf, Mb
 * and Mx (GS_TILE2_MAP values a chunk) after the table and, for a periodic matrix, the end map:
 * the true g at the block's last two rows m - 2, m - 1 from the last chunk's own values and its
 * cin (U's rows there; g_{m-2} = cin's second value where row m - 1 starts the chunk), then gamma
 * at m - 2. A solve moves f twice and x once (24 bytes per unknown in double, plus 4 values per
 * chunk), in exchange for coalesced rows of 32 systems at once and no block-wide barriers. */
#define GS_TILE2_L 32
#define GS_TILE2_MAP 12
#define GS_TILE2_END 8
/* The GPU's carries run one warp per system, lane l taking Q = ceil(P / 32) consecutive chunks;
 * value u of chunk k = l Q + q's map sits at (u Q + q) 32 + l, so that a warp's loads of one value
 * are 32 consecutive entries. The end map follows the 12 Q 32 entries. */
GS_BANDED_FN int gs_tile2_q(int P) {
  return (P + 31) / 32;
}
GS_BANDED_FN GsInt gs_tile2_mi(int u, int k, int Q) {
  return ((GsInt)u * Q + k % Q) * 32 + k / Q;
}
/* Values after the table that a two-pass solve uses: the maps, then per right-hand-side block
 * 4 values per chunk and system and (periodic) 2 per system. */
GS_BANDED_FN GsInt gs_tile2_maps_len(int P) {
  return (GsInt)GS_TILE2_MAP * 32 * gs_tile2_q(P) + GS_TILE2_END;
}
GS_BANDED_FN GsInt gs_tile2_work_len(int periodic, int P, GsInt batch) {
  return gs_tile2_maps_len(P) + 4 * (GsInt)P * batch + (periodic ? 2 * batch : 0);
}

/* Rows per chunk for a block of m rows: chunks no shorter than needed for P <= 32. */
GS_BANDED_FN int gs_tile_rows(GsInt m) {
  return m <= 256 ? 8 : m <= 512 ? 16 : 32;
}
GS_BANDED_FN int gs_tile_pow2(int p) {
  int q = 1;
  while (q < p)
    q <<= 1;
  return q;
}

#define GS_BANDED_TILE_ALGOS(T, S)                                                                 \
  /* Row i of the table's factor arrays from the kept factors of the shared matrix (base 0, step   \
   * 1): LU as is; LDL^T as L D (a_i = l2_i d_{i-2}, beta_i = l1_i d_{i-1}, alpha_i = d_i) and L^T \
   * (gamma_i = l1_{i+1}, delta_i = l2_{i+2}). Rows i >= m pass values through unchanged. */       \
  GS_BANDED_FN void gs_tile_row_##S(const GsBandedShape *sh, const T *const *F, T *tab, GsInt np,  \
                                    GsInt i) {                                                     \
    const GsInt m = sh->m;                                                                         \
    const int penta = sh->bands == 5, nlu = GS_BANDED_NLU(sh->bands, sh->spd);                     \
    T va = 0, vb = 0, via = 1, vg = 0, vd = 0;                                                     \
    if (i < m) {                                                                                   \
      if (!sh->spd) {                                                                              \
        va = penta ? F[0][i] : (T)0;                                                               \
        vb = F[penta ? 1 : 0][i];                                                                  \
        via = F[penta ? 2 : 1][i];                                                                 \
        vg = F[penta ? 3 : 2][i];                                                                  \
        vd = penta ? F[4][i] : (T)0;                                                               \
      } else {                                                                                     \
        const int l1 = penta ? 1 : 0, id = penta ? 2 : 1;                                          \
        via = F[id][i];                                                                            \
        if (i >= 1) vb = F[l1][i] / F[id][i - 1];                                                  \
        if (i + 1 < m) vg = F[l1][i + 1];                                                          \
        if (penta && i >= 2) va = F[0][i] / F[id][i - 2];                                          \
        if (penta && i + 2 < m) vd = F[0][i + 2];                                                  \
      }                                                                                            \
    }                                                                                              \
    tab[GS_TAB_A * np + i] = va * via;                                                             \
    tab[GS_TAB_B * np + i] = vb * via;                                                             \
    tab[GS_TAB_IA * np + i] = via;                                                                 \
    tab[GS_TAB_PAD * np + i] = 0;                                                                  \
    tab[GS_TAB_G * np + i] = vg;                                                                   \
    tab[GS_TAB_D * np + i] = vd;                                                                   \
    if (sh->periodic) {                                                                            \
      tab[GS_TAB_W1 * np + i] = i < m ? F[nlu][i] : (T)0;                                          \
      tab[GS_TAB_W2 * np + i] = i < m && sh->h > 1 ? F[nlu + 1][i] : (T)0;                         \
    }                                                                                              \
  }                                                                                                \
                                                                                                   \
  /* The responses U1, U2, R1, R2 of chunk k (rows [k L, k L + L)), after its factor rows. */      \
  GS_BANDED_FN void gs_tile_resp_##S(T *tab, GsInt np, int L, int k) {                             \
    const GsInt r0 = (GsInt)k * L;                                                                 \
    for (int c = 0; c < 2; c++) {                                                                  \
      T p2 = c == 0 ? (T)1 : (T)0, p1 = c == 0 ? (T)0 : (T)1;                                      \
      for (int j = 0; j < L; j++) {                                                                \
        const GsInt i = r0 + j;                                                                    \
        const T u = -tab[GS_TAB_A * np + i] * p2 - tab[GS_TAB_B * np + i] * p1;                    \
        tab[(GS_TAB_U1 + c) * np + i] = u;                                                         \
        p2 = p1;                                                                                   \
        p1 = u;                                                                                    \
      }                                                                                            \
      T q1 = c == 0 ? (T)1 : (T)0, q2 = c == 0 ? (T)0 : (T)1;                                      \
      for (int j = L - 1; j >= 0; j--) {                                                           \
        const GsInt i = r0 + j;                                                                    \
        const T r = -tab[GS_TAB_G * np + i] * q1 - tab[GS_TAB_D * np + i] * q2;                    \
        tab[(GS_TAB_R1 + c) * np + i] = r;                                                         \
        q2 = q1;                                                                                   \
        q1 = r;                                                                                    \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
                                                                                                   \
  /* Chunk pieces on the L values v of rows [r0, r0 + L); entry (array, row i) of the table is     \
   * tab[array * as + i * rs] (array-major: as = rows, rs = 1; row-major: as = 1, rs = columns).   \
   * Forward from zero carries. */                                                                 \
  GS_BANDED_FN void gs_tile_fwd_##S(const T *tab, int as, int rs, int r0, int L, T *v) {           \
    T p2 = 0, p1 = 0;                                                                              \
    GS_UNROLL_ALL for (int j = 0; j < L; j++) {                                                    \
      const T *e = tab + (r0 + j) * rs;                                                            \
      const T g = v[j] * e[GS_TAB_IA * as] - e[GS_TAB_A * as] * p2 - e[GS_TAB_B * as] * p1;        \
      v[j] = g;                                                                                    \
      p2 = p1;                                                                                     \
      p1 = g;                                                                                      \
    }                                                                                              \
  }                                                                                                \
  /* v += X1 c[0] + X2 c[1] for the response pair starting at table array `first`. */              \
  GS_BANDED_FN void gs_tile_add_##S(const T *tab, int as, int rs, int r0, int L, int first,        \
                                    const T *c, T *v) {                                            \
    GS_UNROLL_ALL for (int j = 0; j < L; j++) {                                                    \
      const T *e = tab + (r0 + j) * rs;                                                            \
      v[j] += e[first * as] * c[0] + e[(first + 1) * as] * c[1];                                   \
    }                                                                                              \
  }                                                                                                \
  /* Back substitution from zero carries. */                                                       \
  GS_BANDED_FN void gs_tile_back_##S(const T *tab, int as, int rs, int r0, int L, T *v) {          \
    T q1 = 0, q2 = 0;                                                                              \
    GS_UNROLL_ALL for (int j = L - 1; j >= 0; j--) {                                               \
      const T *e = tab + (r0 + j) * rs;                                                            \
      const T x = v[j] - e[GS_TAB_G * as] * q1 - e[GS_TAB_D * as] * q2;                            \
      v[j] = x;                                                                                    \
      q2 = q1;                                                                                     \
      q1 = x;                                                                                      \
    }                                                                                              \
  }                                                                                                \
  /* The affine map of chunk k: forward (M = U's last two rows) or backward (R's first two); the   \
   * chunk's rows start at k * pitch (pitch >= L: the GPU pads its copy of the table). */          \
  GS_BANDED_FN void gs_tile_map_##S(const T *tab, int as, int rs, int pitch, int L, int k,         \
                                    int backward, T *M) {                                          \
    const int first = backward ? GS_TAB_R1 : GS_TAB_U1;                                            \
    const T *e = tab + (k * pitch + (backward ? 0 : L - 2)) * rs;                                  \
    M[0] = e[first * as];                                                                          \
    M[1] = e[(first + 1) * as];                                                                    \
    M[2] = e[first * as + rs];                                                                     \
    M[3] = e[(first + 1) * as + rs];                                                               \
  }                                                                                                \
  /* The two halves of a composition: b <- M bp + b (the carries), M <- M Mp (the matrices). */    \
  GS_BANDED_FN void gs_tile_apply_##S(const T *M, T *b, const T *bp) {                             \
    const T b0 = M[0] * bp[0] + M[1] * bp[1] + b[0], b1 = M[2] * bp[0] + M[3] * bp[1] + b[1];      \
    b[0] = b0;                                                                                     \
    b[1] = b1;                                                                                     \
  }                                                                                                \
  GS_BANDED_FN void gs_tile_mmul_##S(T *M, const T *Mp) {                                          \
    const T m0 = M[0] * Mp[0] + M[1] * Mp[2], m1 = M[0] * Mp[1] + M[1] * Mp[3];                    \
    const T m2 = M[2] * Mp[0] + M[3] * Mp[2], m3 = M[2] * Mp[1] + M[3] * Mp[3];                    \
    M[0] = m0;                                                                                     \
    M[1] = m1;                                                                                     \
    M[2] = m2;                                                                                     \
    M[3] = m3;                                                                                     \
  }                                                                                                \
  /* (M, b) <- (M, b) after (Mp, bp): the composition of an earlier map with this one. */          \
  GS_BANDED_FN void gs_tile_compose_##S(T *M, T *b, const T *Mp, const T *bp) {                    \
    const T Mo[4] = {M[0], M[1], M[2], M[3]};                                                      \
    gs_tile_mmul_##S(M, Mp);                                                                       \
    gs_tile_apply_##S(Mo, b, bp);                                                                  \
  }                                                                                                \
  /* A two-pass solve's maps of chunk k of P (GS_TILE2_MAP values: Mf, Mb, Mx, each row-major,     \
   * into mp at gs_tile2_mi) from the table with its responses (array-major, np rows an array). */ \
  GS_BANDED_FN void gs_tile2_map_##S(const T *tab, GsInt np, int L, int k, int P, T *mp) {         \
    const int Q = gs_tile2_q(P);                                                                   \
    T v[GS_TILE2_MAP];                                                                             \
    gs_tile_map_##S(tab, (int)np, 1, L, L, k, 0, v);                                               \
    gs_tile_map_##S(tab, (int)np, 1, L, L, k, 1, v + 4);                                           \
    const GsInt r0 = (GsInt)k * L;                                                                 \
    for (int c = 0; c < 2; c++) { /* back substitution of U_c from zero carries */                 \
      T q1 = 0, q2 = 0;                                                                            \
      for (int j = L - 1; j >= 0; j--) {                                                           \
        const GsInt i = r0 + j;                                                                    \
        const T r = tab[(GS_TAB_U1 + c) * np + i] - tab[GS_TAB_G * np + i] * q1 -                  \
                    tab[GS_TAB_D * np + i] * q2;                                                   \
        q2 = q1;                                                                                   \
        q1 = r;                                                                                    \
      }                                                                                            \
      v[8 + c] = q1;     /* x_{r0} */                                                              \
      v[8 + 2 + c] = q2; /* x_{r0+1} */                                                            \
    }                                                                                              \
    for (int u = 0; u < GS_TILE2_MAP; u++)                                                         \
      mp[gs_tile2_mi(u, k, Q)] = v[u];                                                             \
  }                                                                                                \
  /* The end map of a periodic block of m rows in P chunks (GS_TILE2_END values at ep): rows       \
   * (g_{m-2}, g_{m-1}) of cin of the last chunk, then gamma_{m-2}. */                             \
  GS_BANDED_FN void gs_tile2_end_##S(const T *tab, GsInt np, int L, int P, GsInt m, T *ep) {       \
    const GsInt j1 = m - 1 - (GsInt)(P - 1) * L;                                                   \
    for (int q = 0; q < GS_TILE2_END; q++)                                                         \
      ep[q] = 0;                                                                                   \
    if (j1 >= 1) {                                                                                 \
      ep[0] = tab[GS_TAB_U1 * np + m - 2];                                                         \
      ep[1] = tab[GS_TAB_U2 * np + m - 2];                                                         \
    } else                                                                                         \
      ep[1] = 1; /* g_{m-2} is the carry g_{r0-1} itself */                                        \
    ep[2] = tab[GS_TAB_U1 * np + m - 1];                                                           \
    ep[3] = tab[GS_TAB_U2 * np + m - 1];                                                           \
    ep[4] = m >= 2 ? tab[GS_TAB_G * np + m - 2] : (T)0;                                            \
  }

/* ---- Chunked solves with each system's own LU (SCAN) -----------------------------------------
 * For few systems of their own matrices (the batch too small to fill a GPU with one thread per
 * system): a system's m rows are cut into P = ceil(m / L) chunks of L rows, one GPU thread each,
 * and both sweeps of the LU solve run as affine recurrences over the chunks. Forward, with
 * f' = f / alpha, c1 = -beta / alpha, c2 = -a / alpha (tri: c1 = -l / alpha, c2 = 0):
 *   g_i = f'_i + c1_i g_{i-1} + c2_i g_{i-2};
 * backward, with c1 = -gamma, c2 = -delta (tri: c2 = 0):
 *   x_i = g_i + c1_i x_{i+1} + c2_i x_{i+2}.
 * Each chunk maps the state entering it (the last two values before it, nearest first) to the
 * state leaving it: out = M in + b, M from the responses to unit states, b from a zero state
 * (gs_scan_map). The states entering the chunks follow by carrying the maps over the chunks in
 * order (gs_scan_carry), then each chunk runs its recurrence from its true state (gs_scan_apply).
 * Unlike SPIKE nothing is stored at factorisation (the factors are the plain LU's) and unlike
 * TILE the matrix is each system's own; the price is about three times the arithmetic of one
 * sweep, on values a thread keeps in registers. Rows past m are zeros: a zero state leaving the
 * last chunk backwards, nothing read or written. LDL^T factors run the same recurrences (L z = f,
 * y = z / d, L^T x = y); a periodic system solves its block E this way, then the tail and
 * y -= W z as gs_banded_solve does. */
#define GS_BANDED_SCAN_MAX_L 16
#define GS_BANDED_SCAN_MAX_ROWS 4096
/* Threads of a GPU scan block (each owns one chunk of one system): NT = 256, or 512 where
 * GsBandedInfo.scan_threads says so. */
#define GS_BANDED_SCAN_THREADS 256
/* Entries of one factor array in the GPU scan's own layout (batches with a matrix per system):
 * block g of the solve (ns = NT / P systems) keeps its rows at g * L * NT, row j of chunk k of its
 * system sl at j * NT + k * ns + sl, the index of the thread that loads it: a warp's loads of one
 * row are 32 consecutive entries. */
GS_BANDED_FN GsInt gs_scan_layout_len(GsInt batch, int P, int L, int NT) {
  const GsInt ns = NT / P;
  return (batch + ns - 1) / ns * (GsInt)L * NT;
}

/* Rows of a chunk of a GPU's partial solves by scans (below). */
#define GS_BANDED_PART_SCAN_L 16
/* Rows of a partitioned batch's longest partition. */
GS_BANDED_FN GsInt gs_banded_part_rows(const GsBandedInfo *bi) {
  return (bi->m + bi->parts - 1) / bi->parts;
}
/* Whether a GPU's partitioned (SPIKE) solve runs its partial solves y_j = A_j^-1 f_j as chunked
 * scans (each partition a system of its own, its LU the partition's factor rows, kept by Factor in
 * the scan's layout: GsBandedInfo.scan_layout) instead of one thread per partition. The scan keeps
 * the forward result in registers (56 bytes per unknown instead of 72) and, with at most 512 rows
 * a partition, holds 8 or more systems a block, so rows of f and x move in 64- or 128-byte pieces
 * (interleaved), or a thread's 16 rows in 16-byte loads (contiguous, where one thread a partition
 * walks rows a stride apart from its neighbours'). H200, deferred checks, one thread per
 * partition -> scan, same partitions, before the warp's reduced solve (us): tri 1024 x 65536 with
 * 128 partitions 1190 -> 1015, 256: 1450 -> 1208, 512: 2075 -> 1864; penta 1024 x 65536 with 128
 * (512 rows) 2079 -> 1982 and LDL^T 2085 -> 2018, but with 256 (256 rows) 2881 -> 3056 and 512
 * 4496 -> 5002 (LDL^T 2941 -> 2756, 4645 -> 4426); penta 2048 x 4096 with 8 partitions: 250
 * against the automatic (one thread a partition) 275. After it, 128 partitions: periodic penta
 * 1024 x 65536 1514 -> 1436, periodic tri 1050 -> 848; contiguous penta 3539 -> 2095, tri 2944 ->
 * 1246, tri 64 x 65536 387 -> 112. Not for a shared matrix (penta 1024 x 16384, 32 partitions: 241
 * -> 273). */
GS_BANDED_FN int gs_banded_part_scan(const GsBandedInfo *bi) {
  const GsInt rows = gs_banded_part_rows(bi);
  return bi->parts > 1 && !bi->shared && rows <= 32 * GS_BANDED_PART_SCAN_L &&
         (bi->bands == 3 || rows > 256);
}
/* Chunks a partition of such a solve takes (the scan's P). */
GS_BANDED_FN int gs_banded_part_scan_p(const GsBandedInfo *bi) {
  return (int)((gs_banded_part_rows(bi) + GS_BANDED_PART_SCAN_L - 1) / GS_BANDED_PART_SCAN_L);
}

#define GS_BANDED_SCAN_ALGOS(T, S)                                                                 \
  /* Chunk values from factor or right-hand-side rows [r0, r0 + L) at base b, step st (rows past   \
   * m as 0). */                                                                                   \
  GS_BANDED_FN void gs_scan_load_##S(const T *p, GsInt b, GsInt st, GsInt r0, int L, GsInt m,      \
                                     T *v) {                                                       \
    for (int j = 0; j < L; j++)                                                                    \
      v[j] = r0 + j < m ? p[b + (r0 + j) * st] : (T)0;                                             \
  }                                                                                                \
  /* Forward coefficients in place: a -> c2, beta (tri: l) -> c1, f -> f', with ia = 1 / alpha.    \
   */                                                                                              \
  GS_BANDED_ROW_FN void gs_scan_prep_##S(int penta, int L, T *c1, T *c2, const T *ia, T *ft) {     \
    GS_UNROLL_ALL for (int j = 0; j < L; j++) {                                                    \
      ft[j] = ft[j] * ia[j];                                                                       \
      c1[j] = -c1[j] * ia[j];                                                                      \
      c2[j] = penta ? -c2[j] * ia[j] : (T)0;                                                       \
    }                                                                                              \
  }                                                                                                \
  /* The chunk's map (M row-major, b) over its L rows, in order j = 0.. (rev: j = L - 1..). */     \
  GS_BANDED_ROW_FN void gs_scan_map_##S(int penta, int L, const T *c1, const T *c2, const T *ft,   \
                                        int rev, T *M, T *b) {                                     \
    T p1 = 0, p2 = 0, u1 = 1, u2 = 0, w1 = 0, w2 = 1;                                              \
    GS_UNROLL_ALL for (int q = 0; q < L; q++) {                                                    \
      const int j = rev ? L - 1 - q : q;                                                           \
      /* tri: c2 is 0 and its terms are left out, two of the four multiply-adds a row */           \
      const T p = penta ? ft[j] + c1[j] * p1 + c2[j] * p2 : ft[j] + c1[j] * p1;                    \
      const T u = penta ? c1[j] * u1 + c2[j] * u2 : c1[j] * u1;                                    \
      p2 = p1;                                                                                     \
      p1 = p;                                                                                      \
      u2 = u1;                                                                                     \
      u1 = u;                                                                                      \
      if (penta) {                                                                                 \
        const T w = c1[j] * w1 + c2[j] * w2;                                                       \
        w2 = w1;                                                                                   \
        w1 = w;                                                                                    \
      }                                                                                            \
    }                                                                                              \
    M[0] = u1;                                                                                     \
    M[1] = penta ? w1 : (T)0;                                                                      \
    M[2] = u2;                                                                                     \
    M[3] = penta ? w2 : (T)0;                                                                      \
    b[0] = p1;                                                                                     \
    b[1] = p2;                                                                                     \
  }                                                                                                \
  /* The state leaving a chunk from the state c entering it, into c. */                            \
  GS_BANDED_ROW_FN void gs_scan_carry_##S(const T *M, const T *b, T *c) {                          \
    const T c0 = M[0] * c[0] + M[1] * c[1] + b[0];                                                 \
    const T c1 = M[2] * c[0] + M[3] * c[1] + b[1];                                                 \
    c[0] = c0;                                                                                     \
    c[1] = c1;                                                                                     \
  }                                                                                                \
  /* One step of a chain: the state c entering the chunk of map e (M row-major, then b) goes into  \
   * e[0..1], and c becomes the state leaving it. */                                               \
  GS_BANDED_ROW_FN void gs_scan_step_##S(T *e, T *c) {                                             \
    const T M[4] = {e[0], e[1], e[2], e[3]}, b[2] = {e[4], e[5]};                                  \
    e[0] = c[0];                                                                                   \
    e[1] = c[1];                                                                                   \
    gs_scan_carry_##S(M, b, c);                                                                    \
  }                                                                                                \
  /* The chunk's recurrence from the state c entering it, its values into ft. */                   \
  GS_BANDED_ROW_FN void gs_scan_apply_##S(int penta, int L, const T *c1, const T *c2, T *ft,       \
                                          int rev, const T *c) {                                   \
    T p1 = c[0], p2 = c[1];                                                                        \
    GS_UNROLL_ALL for (int q = 0; q < L; q++) {                                                    \
      const int j = rev ? L - 1 - q : q;                                                           \
      const T p = penta ? ft[j] + c1[j] * p1 + c2[j] * p2 : ft[j] + c1[j] * p1;                    \
      ft[j] = p;                                                                                   \
      p2 = p1;                                                                                     \
      p1 = p;                                                                                      \
    }                                                                                              \
  }                                                                                                \
  /* The states entering a system's P chunks from their maps (map[q]: M row-major, then b, chunk   \
   * q; backward: carried from the last chunk down), left in map[q][0..1]. Up to 32 chunks, one    \
   * after the other; longer chains go over a GPU warp's 32 lanes, done here in the same order:    \
   * lane j composes the maps of Q = ceil(P / 32) consecutive chunks (in carrying order), the      \
   * lanes' compositions are scanned (Kogge-Stone, 5 steps), and each lane carries the state       \
   * entering its first chunk through its chunks. */                                               \
  GS_BANDED_FN void gs_scan_chain_host_##S(T(*map)[6], int P, int backward) {                      \
    T c[2] = {0, 0};                                                                               \
    if (P <= 32) {                                                                                 \
      for (int i = 0; i < P; i++) {                                                                \
        gs_scan_step_##S(map[backward ? P - 1 - i : i], c);                                        \
      }                                                                                            \
      return;                                                                                      \
    }                                                                                              \
    const int Q = (P + 31) / 32;                                                                   \
    T A[32][4], B[32][2];                                                                          \
    for (int j = 0; j < 32; j++) {                                                                 \
      A[j][0] = A[j][3] = 1;                                                                       \
      A[j][1] = A[j][2] = B[j][0] = B[j][1] = 0;                                                   \
      for (int u = 0; u < Q; u++) {                                                                \
        const int i = j * Q + u;                                                                   \
        if (i >= P) break;                                                                         \
        const T *e = map[backward ? P - 1 - i : i];                                                \
        T M[4] = {e[0], e[1], e[2], e[3]}, b[2] = {e[4], e[5]};                                    \
        gs_tile_compose_##S(M, b, A[j], B[j]);                                                     \
        for (int r = 0; r < 4; r++)                                                                \
          A[j][r] = M[r];                                                                          \
        B[j][0] = b[0];                                                                            \
        B[j][1] = b[1];                                                                            \
      }                                                                                            \
    }                                                                                              \
    for (int off = 1; off < 32; off <<= 1)                                                         \
      for (int j = 31; j >= off; j--)                                                              \
        gs_tile_compose_##S(A[j], B[j], A[j - off], B[j - off]);                                   \
    for (int j = 0; j < 32; j++) {                                                                 \
      c[0] = j > 0 ? B[j - 1][0] : (T)0;                                                           \
      c[1] = j > 0 ? B[j - 1][1] : (T)0;                                                           \
      for (int u = 0; u < Q; u++) {                                                                \
        const int i = j * Q + u;                                                                   \
        if (i >= P) break;                                                                         \
        gs_scan_step_##S(map[backward ? P - 1 - i : i], c);                                        \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
  /* A chunk's forward coefficients and f' (rows [r0, r0 + L)) from the factors F and f. LU:       \
   * c1 = -beta / alpha (tri: -l / alpha), c2 = -a / alpha, f' = f / alpha. LDL^T (forward sweep   \
   * L z = f): c1 = -l1, c2 = -l2 (tri: -l, 0), f' = f. */                                         \
  GS_BANDED_FN void gs_scan_fwd_load_##S(const GsBandedShape *sh, const T *const *F, GsInt fb,     \
                                         GsInt fs, const T *f, GsInt rb, GsInt rs, GsInt r0,       \
                                         int L, T *c1, T *c2, T *ft) {                             \
    const int penta = sh->bands == 5;                                                              \
    gs_scan_load_##S(f, rb, rs, r0, L, sh->m, ft);                                                 \
    if (sh->spd) {                                                                                 \
      gs_scan_load_##S(F[penta ? 1 : 0], fb, fs, r0, L, sh->m, c1);                                \
      if (penta) gs_scan_load_##S(F[0], fb, fs, r0, L, sh->m, c2);                                 \
      for (int j = 0; j < L; j++) {                                                                \
        c1[j] = -c1[j];                                                                            \
        c2[j] = penta ? -c2[j] : (T)0;                                                             \
      }                                                                                            \
      return;                                                                                      \
    }                                                                                              \
    T ia[GS_BANDED_SCAN_MAX_L];                                                                    \
    if (penta) gs_scan_load_##S(F[0], fb, fs, r0, L, sh->m, c2);                                   \
    gs_scan_load_##S(F[penta ? 1 : 0], fb, fs, r0, L, sh->m, c1);                                  \
    gs_scan_load_##S(F[penta ? 2 : 1], fb, fs, r0, L, sh->m, ia);                                  \
    gs_scan_prep_##S(penta, L, c1, c2, ia, ft);                                                    \
  }                                                                                                \
  /* A chunk's backward coefficients (rows [r0, r0 + L)). LU: -gamma, -delta. LDL^T (L^T x = y):   \
   * -l1 of the row below and -l2 of the row two below (rows past m: 0). */                        \
  GS_BANDED_FN void gs_scan_back_load_##S(const GsBandedShape *sh, const T *const *F, GsInt fb,    \
                                          GsInt fs, GsInt r0, int L, T *c1, T *c2) {               \
    const int penta = sh->bands == 5;                                                              \
    if (sh->spd) {                                                                                 \
      gs_scan_load_##S(F[penta ? 1 : 0], fb, fs, r0 + 1, L, sh->m, c1);                            \
      if (penta) gs_scan_load_##S(F[0], fb, fs, r0 + 2, L, sh->m, c2);                             \
    } else {                                                                                       \
      gs_scan_load_##S(F[penta ? 3 : 2], fb, fs, r0, L, sh->m, c1);                                \
      if (penta) gs_scan_load_##S(F[4], fb, fs, r0, L, sh->m, c2);                                 \
    }                                                                                              \
    for (int j = 0; j < L; j++) {                                                                  \
      c1[j] = -c1[j];                                                                              \
      c2[j] = penta ? -c2[j] : (T)0;                                                               \
    }                                                                                              \
  }                                                                                                \
  /* LDL^T between the sweeps: y = z / d on the chunk's values (rows [r0, r0 + L)). */             \
  GS_BANDED_FN void gs_scan_diag_##S(const GsBandedShape *sh, const T *const *F, GsInt fb,         \
                                     GsInt fs, GsInt r0, int L, T *ft) {                           \
    T id[GS_BANDED_SCAN_MAX_L];                                                                    \
    gs_scan_load_##S(F[sh->bands == 5 ? 2 : 1], fb, fs, r0, L, sh->m, id);                         \
    for (int j = 0; j < L; j++)                                                                    \
      ft[j] *= id[j];                                                                              \
  }                                                                                                \
  /* One system by chunks of L rows, one chunk after the other (the CPU's order of the GPU's       \
   * threads: the same maps, carries and recurrences), then, for a periodic system, the block's    \
   * correction as in gs_banded_solve. Returns a GsBandedStatus. f may be x. */                    \
  GS_BANDED_FN int gs_banded_scan_solve_##S(const GsBandedShape *sh, const T *const *F,            \
                                            const T *C, GsInt fb, GsInt fs, const T *f, T *x,      \
                                            GsInt rb, GsInt rs, int L) {                           \
    const GsInt m = sh->m;                                                                         \
    const int penta = sh->bands == 5, P = (int)((m + L - 1) / L), h = sh->h;                       \
    T c1[GS_BANDED_SCAN_MAX_L], c2[GS_BANDED_SCAN_MAX_L], ft[GS_BANDED_SCAN_MAX_L];                \
    T map[GS_BANDED_SCAN_MAX_ROWS / 8][6], z[2] = {0, 0};                                          \
    for (int r = 0; sh->periodic && r < h; r++) /* before x (maybe f) is written */                \
      z[r] = f[rb + (m + r) * rs];                                                                 \
    for (int k = 0; k < P; k++) {                                                                  \
      gs_scan_fwd_load_##S(sh, F, fb, fs, f, rb, rs, (GsInt)k *L, L, c1, c2, ft);                  \
      gs_scan_map_##S(penta, L, c1, c2, ft, 0, map[k], map[k] + 4);                                \
    }                                                                                              \
    gs_scan_chain_host_##S(map, P, 0);                                                             \
    /* g (LDL^T: y = z / d) into x chunk by chunk, each chunk's f read before its x is written. */ \
    for (int k = P - 1; k >= 0; k--) {                                                             \
      const GsInt r0 = (GsInt)k * L;                                                               \
      gs_scan_fwd_load_##S(sh, F, fb, fs, f, rb, rs, r0, L, c1, c2, ft);                           \
      gs_scan_apply_##S(penta, L, c1, c2, ft, 0, map[k]);                                          \
      if (sh->spd) gs_scan_diag_##S(sh, F, fb, fs, r0, L, ft);                                     \
      for (int j = 0; j < L && r0 + j < m; j++)                                                    \
        x[rb + (r0 + j) * rs] = ft[j];                                                             \
    }                                                                                              \
    for (int k = P - 1; k >= 0; k--) {                                                             \
      const GsInt r0 = (GsInt)k * L;                                                               \
      gs_scan_back_load_##S(sh, F, fb, fs, r0, L, c1, c2);                                         \
      gs_scan_load_##S(x, rb, rs, r0, L, m, ft);                                                   \
      gs_scan_map_##S(penta, L, c1, c2, ft, 1, map[k], map[k] + 4);                                \
    }                                                                                              \
    gs_scan_chain_host_##S(map, P, 1);                                                             \
    int finite = 1;                                                                                \
    for (int k = 0; k < P; k++) {                                                                  \
      const GsInt r0 = (GsInt)k * L;                                                               \
      gs_scan_back_load_##S(sh, F, fb, fs, r0, L, c1, c2);                                         \
      gs_scan_load_##S(x, rb, rs, r0, L, m, ft);                                                   \
      gs_scan_apply_##S(penta, L, c1, c2, ft, 1, map[k]);                                          \
      for (int j = 0; j < L && r0 + j < m; j++) {                                                  \
        x[rb + (r0 + j) * rs] = ft[j];                                                             \
        finite &= isfinite((double)ft[j]) ? 1 : 0;                                                 \
      }                                                                                            \
    }                                                                                              \
    if (sh->periodic) finite &= gs_banded_periodic_fix_##S(sh, F, C, fb, fs, x, rb, rs, z);        \
    return finite ? GS_BANDED_OK : GS_BANDED_NOT_FINITE;                                           \
  }

#endif
