/* CPU batched banded kernels: the shared per-system algorithms in an OpenMP loop over systems. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "../common/banded_algo.h"
#include "cpuimpl.h"

GS_BANDED_ALGOS(double, d, DBL_EPSILON)
GS_BANDED_ALGOS(float, f, FLT_EPSILON)
GS_BANDED_PART_ALGOS(double, d, DBL_EPSILON)
GS_BANDED_PART_ALGOS(float, f, FLT_EPSILON)
GS_BANDED_TILE_ALGOS(double, d)
GS_BANDED_TILE_ALGOS(float, f)
GS_BANDED_SCAN_ALGOS(double, d)
GS_BANDED_SCAN_ALGOS(float, f)

/* Systems swept together by the interleaved block kernels (factor, fused factor+solve, solve): at
 * most GS_CPU_SB, fewer where the batch would otherwise leave OpenMP threads without a block (a
 * batch of 1024 gave 4 blocks to 16 threads), down to one SIMD group of 8 systems. A floor of 32
 * left half of 16 threads idle at 256 systems; on the H200's 16-core host (gpusolve banded
 * -gs_backend /cpu -repeats 20, three rounds, floor 32 -> 16 -> 8, us): penta 256 x 4096 (batch
 * x n) 1792-1920 -> 1045-1325 -> 1173-1317, tri 256 x 4096 1436-1603 -> 789-1014 -> 774-1021,
 * penta 256 x 1024 485-517 -> 303-347 -> 301-307, tri 256 x 1024 435-482 -> 239-288 -> 214-263,
 * penta 128 x 4096 1564-1850 -> 1274-1584 -> 853-928, penta 384 x 1024 468-834 -> 390-588 ->
 * 401-439, factor_solve penta 256 x 4096 4549-5038 -> 2530-3484 -> 2572-2700, periodic penta
 * 256 x 1024 512-546 -> 337-359 -> 316-410; 512 x 1024 (blocks of 32 either way) 402-460 ->
 * 407-416 -> 416-448.
 * The ceiling was 256 systems (2 KB of each array a row, half a page). A block's rows are runs of
 * sb contiguous values 8 batch bytes apart, and longer runs stream better. On the 2-core
 * development machine (AMD EPYC, 2 OpenMP threads, ceilings 256 / 1024 / 2048 / 4096 with the
 * state on the stack, -repeats 10, three rounds, ms): penta 4096 x 1024 16.4-18.5 / 10.3-12.5 /
 * 10.4-11.9 / 9.9-11.9, shared penta 8.6-9.0 / 7.7-7.9 / 8.7-9.4 / 8.8-9.1, LDL^T 15.1-16.9 /
 * 11.6-12.7 / 12.3-13.5 / 12.7-13.5, penta 65536 x 1024 278-306 / 169-175 / 149-179 / 141-151:
 * 1024 is the ceiling (wider gains only on the largest batches, loses on the shared matrix and
 * LDL^T). Blocks between 256 and 1024 systems (batches that give each thread fewer than 1024)
 * lost there, so those keep blocks of at most 256 (GS_CPU_SB_MID): 1024 systems in blocks of 512
 * against 256, penta, 64 rows 0.24 against 0.15-0.16 ms, 256 rows 1.14 against 0.74-0.82, 1024
 * rows 5.6-5.7 against 4.8-5.1 (4096 rows 16.2-16.3 against 18.2-19.8, the exception). The build
 * before against this one (medians of three rounds, ms; banded-cpu-blocks-ab-amd-epyc.json):
 * penta 4096 x 1024 16.6 -> 11.5, tri 13.2 -> 9.3, periodic 18.2 -> 12.1, float 10.5 -> 6.1,
 * LDL^T 16.7 -> 12.7, shared 8.6 -> 7.5, factor_solve 33.5 -> 29.3, penta 65536 x 1024 276 ->
 * 168, tri 218 -> 143, shared 134 -> 117, penta 65536 x 64 10.6 -> 9.3; level at 256 x 8, 1024 x
 * 64 and 256 x 1024. A block's state (the recurrences' last values, its statuses) is a thread's
 * slice of the context's scratch (block_state), not the stack: about 100 bytes a system, 100 KB
 * a thread. */
#define GS_CPU_SB 1024
#define GS_CPU_SB_MID 256
/* Pieces of a batch each block of right-hand sides should be cut into, for every OpenMP thread
 * to get one. */
static GsInt pieces_wanted(GsInt nrhs) {
  GsInt threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  return (threads + nrhs - 1) / nrhs;
}
static GsInt block_systems(GsInt batch, GsInt nrhs) {
  const GsInt want = pieces_wanted(nrhs);
  GsInt sb = (batch + want - 1) / want;
  sb = (sb + 7) / 8 * 8; /* whole SIMD groups: 8 systems at least */
  return sb >= GS_CPU_SB ? GS_CPU_SB : sb > GS_CPU_SB_MID ? GS_CPU_SB_MID : sb;
}

/* The block kernels' state: GS_CPU_BLOCK_STATE bytes a system of a block, one slice of
 * GS_CPU_SB systems for each of the nt threads that sweep blocks, in the context's scratch (*per:
 * a slice's bytes, whole cache lines). */
#define GS_CPU_BLOCK_STATE (10 * sizeof(double) + 2 * sizeof(GsInt))
#define GS_CPU_CARVE_GAP 192
static int block_state(GsContext ctx, int *nt, char **state, size_t *per) {
  *nt = 1;
#ifdef _OPENMP
  *nt = omp_get_max_threads();
#endif
  *per = (GS_CPU_SB * GS_CPU_BLOCK_STATE + 13 * GS_CPU_CARVE_GAP + 63) / 64 * 64;
  void *p = NULL;
  GsCall(GsCpuScratch(ctx, (size_t)*nt * *per, &p));
  *state = (char *)p;
  return 0;
}
/* A slice's arrays, each of GS_CPU_SB entries, in turn from q (advanced past them), 192 bytes
 * apart: arrays a multiple of 4 KB apart had each row's loads of one wait on the stores to
 * another at the same address bits (penta factor_solve 4096 x 1024 on the development machine:
 * 108 ms against 28 with the gap, and 32-33 with 256-system arrays on the stack). */
#define GS_CPU_CARVE(T, name, q)                                                                   \
  T *name = (T *)(void *)(q);                                                                      \
  (q) += GS_CPU_SB * sizeof(T) + GS_CPU_CARVE_GAP
/* This thread's slice of the block state. */
static char *block_slice(char *state, size_t per) {
  int t = 0, n = 1;
  GsCpuThread(&t, &n);
  return state + (size_t)t * per;
}

static GsBandedShape shape_of(const GsBandedInfo *bi) {
  GsBandedShape sh = {bi->bands, bi->h, bi->periodic, bi->n, bi->m, bi->spd};
  return sh;
}

/* Where row 0 of system s is, and the distance between rows, in the right-hand-side layout. */
static void rhs_place(const GsBandedInfo *bi, GsInt s, GsInt *base, GsInt *step) {
  *base = bi->interleaved ? s : s * bi->stride;
  *step = bi->interleaved ? bi->batch : 1;
}

/* The same for matrix data (diagonals, factors): a shared matrix is one plain system. */
static void mat_place(const GsBandedInfo *bi, GsInt s, GsInt *base, GsInt *step) {
  if (bi->shared) {
    *base = 0;
    *step = 1;
  } else {
    rhs_place(bi, s, base, step);
  }
}

/* Each (system, block of right-hand sides) of a solve, OpenMP over them: rb, rs place system s's
 * right-hand side and solution, fb, fs its matrix (index mat); a system whose matrix could not be
 * factored gets NaN, else ONE (an expression giving its GsBandedStatus) solves it. A system is bad
 * if any of its right-hand sides is (status was cleared before). Uses bi, nrhs, fstatus, xv and
 * status from the enclosing function. */
#define GS_CPU_EACH_SYSTEM(S, ONE)                                                                 \
  {                                                                                                \
    const GsInt total_ = nrhs * bi->batch;                                                         \
    _Pragma("omp parallel for schedule(static)") for (GsInt t_ = 0; t_ < total_; t_++) {           \
      const GsInt s = t_ % bi->batch, mat = bi->shared ? 0 : s;                                    \
      GsInt rb, rs, fb, fs;                                                                        \
      rhs_place(bi, s, &rb, &rs);                                                                  \
      rb += t_ / bi->batch * bi->rhs_len;                                                          \
      mat_place(bi, s, &fb, &fs);                                                                  \
      int st_ = fstatus[mat];                                                                      \
      if (st_)                                                                                     \
        gs_banded_poison_##S(bi->n, xv, rb, rs);                                                   \
      else                                                                                         \
        st_ = (ONE);                                                                               \
      if (st_) {                                                                                   \
        _Pragma("omp atomic write") status[s] = st_;                                               \
      }                                                                                            \
    }                                                                                              \
  }

/* Count bad entries of status[0..count) and find the first, in a fixed order. */
static void summarise(const int *status, GsInt count, GsBandedSummary *sum) {
  sum->nbad = 0;
  sum->first = -1;
  sum->code = 0;
  for (GsInt s = 0; s < count; s++) {
    if (!status[s]) continue;
    if (!sum->nbad) {
      sum->first = s;
      sum->code = status[s];
    }
    sum->nbad++;
  }
}

/* Typed views of the diagonal (bands) and factor (nfac) pointer tables, in a function with bi. */
#define GS_CPU_DIAGS(T, D, Dv)                                                                     \
  const T *D[5];                                                                                   \
  for (int k_ = 0; k_ < bi->bands; k_++)                                                           \
  D[k_] = (const T *)(Dv)[k_]
#define GS_CPU_FACTORS(T, F, Fv)                                                                   \
  T *F[GS_BANDED_MAX_FAC];                                                                         \
  for (int k_ = 0; k_ < bi->nfac; k_++)                                                            \
  F[k_] = (T *)(Fv)[k_]

#define GS_CPU_BANDED(T, S)                                                                        \
  static void factor_##S(const GsBandedInfo *bi, const void *const *Dv, void *const *Fv, void *Cv, \
                         int *fstatus) {                                                           \
    const GsBandedShape sh = shape_of(bi);                                                         \
    GS_CPU_DIAGS(T, D, Dv);                                                                        \
    GS_CPU_FACTORS(T, F, Fv);                                                                      \
    _Pragma("omp parallel for schedule(static)") for (GsInt s = 0; s < bi->nmat; s++) {            \
      GsInt base, step;                                                                            \
      mat_place(bi, s, &base, &step);                                                              \
      fstatus[s] = gs_banded_factor_##S(&sh, D, F, (T *)Cv + s * bi->corner_len, base, step);      \
    }                                                                                              \
  }                                                                                                \
  static void solve_##S(const GsBandedInfo *bi, const void *const *Fv, const void *Cv,             \
                        const int *fstatus, GsInt nrhs, const void *fv, void *xv, int *status) {   \
    const GsBandedShape sh = shape_of(bi);                                                         \
    GS_CPU_FACTORS(const T, F, Fv);                                                                \
    GS_CPU_EACH_SYSTEM(S, gs_banded_solve_##S(&sh, F, (const T *)Cv + mat * bi->corner_len, fb,    \
                                              fs, (const T *)fv, (T *)xv, rb, rs))                 \
  }                                                                                                \
  /* Partitioned (SPIKE) factorisation: partitions of every matrix, then each reduced system. */   \
  static void pfactor_##S(const GsBandedInfo *bi, const void *const *Dv, void *const *Fv,          \
                          void *Cv, int *fstatus, int *pstatus) {                                  \
    const GsBandedShape sh = shape_of(bi);                                                         \
    GS_CPU_DIAGS(T, D, Dv);                                                                        \
    GS_CPU_FACTORS(T, F, Fv);                                                                      \
    const GsInt total = bi->nmat * bi->parts;                                                      \
    _Pragma("omp parallel for schedule(static)") for (GsInt t = 0; t < total; t++) {               \
      const GsInt s = t / bi->parts;                                                               \
      GsInt base, step;                                                                            \
      mat_place(bi, s, &base, &step);                                                              \
      const int j = (int)(t % bi->parts);                                                          \
      T *ext = (T *)Cv + s * bi->corner_len + GS_BANDED_PART_EXT(bi->bands, bi->parts, j);         \
      pstatus[t] = gs_banded_part_factor_##S(&sh, D, F, base, step, bi->parts, j, ext);            \
    }                                                                                              \
    _Pragma("omp parallel for schedule(static)") for (GsInt s = 0; s < bi->nmat; s++) {            \
      int st = 0;                                                                                  \
      for (int j = 0; j < bi->parts && !st; j++)                                                   \
        st = pstatus[s * bi->parts + j];                                                           \
      if (!st) {                                                                                   \
        GsInt base, step;                                                                          \
        mat_place(bi, s, &base, &step);                                                            \
        st = gs_banded_part_reduce_factor_##S(&sh, (const T *const *)F, base, step, bi->parts,     \
                                              (T *)Cv + s * bi->corner_len);                       \
      }                                                                                            \
      fstatus[s] = st;                                                                             \
    }                                                                                              \
    if (!bi->periodic) return;                                                                     \
    /* Periodic: E^-1 F, S^-1 and the extents; work (now free of pstatus) is the scratch. */       \
    T *X = (T *)(void *)pstatus;                                                                   \
    const GsInt xl = GS_BANDED_PART_X(bi->bands, bi->parts, 0);                                    \
    _Pragma("omp parallel for schedule(static)") for (GsInt s = 0; s < bi->nmat; s++) {            \
      if (fstatus[s]) continue;                                                                    \
      GsInt base, step;                                                                            \
      mat_place(bi, s, &base, &step);                                                              \
      fstatus[s] = gs_banded_part_periodic_##S(&sh, D, F, base, step, bi->parts,                   \
                                               (T *)Cv + s * bi->corner_len, X + s * xl);          \
    }                                                                                              \
  }                                                                                                \
  /* Partitioned solve of one block: partial solves, reduced systems, corrections. */              \
  static void psolve_##S(const GsBandedInfo *bi, const void *const *Fv, const void *Cv,            \
                         const int *fstatus, GsInt blk, const void *fv, void *xv, int *status,     \
                         T *X) {                                                                   \
    const GsBandedShape sh = shape_of(bi);                                                         \
    GS_CPU_FACTORS(const T, F, Fv);                                                                \
    const int P = bi->parts;                                                                       \
    const GsInt total = bi->batch * P, xl = GS_BANDED_PART_X(bi->bands, P, bi->periodic);          \
    const T *f = (const T *)fv;                                                                    \
    T *x = (T *)xv;                                                                                \
    _Pragma("omp parallel for schedule(static)") for (GsInt t = 0; t < total; t++) {               \
      const GsInt s = t % bi->batch;                                                               \
      const int j = (int)(t / bi->batch);                                                          \
      GsInt rb, rs, fb, fs, r0, r1;                                                                \
      rhs_place(bi, s, &rb, &rs);                                                                  \
      rb += blk * bi->rhs_len;                                                                     \
      mat_place(bi, s, &fb, &fs);                                                                  \
      gs_part_range(bi->m, P, j, &r0, &r1);                                                        \
      GsBandedShape ps = sh;                                                                       \
      ps.m = r1 - r0;                                                                              \
      if (fstatus[bi->shared ? 0 : s]) continue;                                                   \
      /* Rows the correction skips are final here: check them now. */                              \
      if (!gs_banded_lu_solve_##S(&ps, F, fb + r0 * fs, fs, f, x, rb + r0 * rs, rs)) {             \
        _Pragma("omp atomic write") status[s] = GS_BANDED_NOT_FINITE;                              \
      }                                                                                            \
    }                                                                                              \
    _Pragma("omp parallel for schedule(static)") for (GsInt s = 0; s < bi->batch; s++) {           \
      const GsInt mat = bi->shared ? 0 : s;                                                        \
      GsInt rb, rs;                                                                                \
      rhs_place(bi, s, &rb, &rs);                                                                  \
      rb += blk * bi->rhs_len;                                                                     \
      if (fstatus[mat]) continue;                                                                  \
      gs_banded_part_reduce_solve_##S(&sh, (const T *)Cv + mat * bi->corner_len, P, f, x, rb, rs,  \
                                      X + s * xl);                                                 \
    }                                                                                              \
    _Pragma("omp parallel for schedule(static)") for (GsInt t = 0; t < total; t++) {               \
      const GsInt s = t % bi->batch;                                                               \
      const int j = (int)(t / bi->batch);                                                          \
      const GsInt mat = bi->shared ? 0 : s;                                                        \
      GsInt rb, rs, fb, fs;                                                                        \
      rhs_place(bi, s, &rb, &rs);                                                                  \
      rb += blk * bi->rhs_len;                                                                     \
      mat_place(bi, s, &fb, &fs);                                                                  \
      int st = fstatus[mat];                                                                       \
      if (st) { /* the last partition also has the last h rows of a periodic system */             \
        GsInt r0, r1;                                                                              \
        gs_part_range(bi->m, P, j, &r0, &r1);                                                      \
        if (j == P - 1) r1 = bi->n;                                                                \
        for (GsInt i = r0; i < r1; i++)                                                            \
          x[rb + i * rs] = (T)NAN;                                                                 \
      } else if (!gs_banded_part_correct_##S(&sh, F, fb, fs, P, j, X + s * xl,                     \
                                             (const T *)Cv + mat * bi->corner_len +                \
                                                 GS_BANDED_PART_EXT(bi->bands, P, j),              \
                                             x, rb, rs)) {                                         \
        st = GS_BANDED_NOT_FINITE;                                                                 \
      }                                                                                            \
      if (st) {                                                                                    \
        _Pragma("omp atomic write") status[s] = st;                                                \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
  static void factor_solve_##S(const GsBandedInfo *bi, const void *const *Dv, void *const *Fv,     \
                               const void *fv, void *xv, int *status) {                            \
    const GsBandedShape sh = shape_of(bi);                                                         \
    GS_CPU_DIAGS(T, D, Dv);                                                                        \
    GS_CPU_FACTORS(T, F, Fv);                                                                      \
    _Pragma("omp parallel for schedule(static)") for (GsInt s = 0; s < bi->batch; s++) {           \
      GsInt base, step;                                                                            \
      rhs_place(bi, s, &base, &step);                                                              \
      const int st =                                                                               \
          gs_banded_factor_solve_##S(&sh, D, F, base, step, (const T *)fv, (T *)xv, base, step);   \
      if (st || !bi->accumulate) status[s] = st; /* deferred checks keep earlier failures */       \
    }                                                                                              \
  }                                                                                                \
  static void mult_##S(const GsBandedInfo *bi, const void *const *Dv, GsInt nrhs, const void *xv,  \
                       void *yv) {                                                                 \
    const GsBandedShape sh = shape_of(bi);                                                         \
    GS_CPU_DIAGS(T, D, Dv);                                                                        \
    const GsInt total = nrhs * bi->batch;                                                          \
    _Pragma("omp parallel for schedule(static)") for (GsInt t = 0; t < total; t++) {               \
      const GsInt s = t % bi->batch, blk = t / bi->batch;                                          \
      GsInt rb, rs, db, ds;                                                                        \
      rhs_place(bi, s, &rb, &rs);                                                                  \
      rb += blk * bi->rhs_len;                                                                     \
      mat_place(bi, s, &db, &ds);                                                                  \
      gs_banded_mult_##S(&sh, D, db, ds, (const T *)xv, (T *)yv, rb, rs);                          \
    }                                                                                              \
  }

GS_CPU_BANDED(double, d)
GS_CPU_BANDED(float, f)

/* Tiled solves of a shared matrix (see banded_algo.h): the CPU runs the chunks of a system one
 * after the other and the scans as the GPU's lanes do them (Kogge-Stone, same composition order),
 * so the two back ends compute the same thing up to 32 chunks. Past that (long tiles, up to 128
 * chunks) the GPU scans warp by warp and reruns each chunk's recurrences from the true carries
 * instead of adding the stored responses: the same solution up to rounding. */
#define GS_CPU_TILE(T, S)                                                                          \
  static void tile_build_##S(const GsBandedInfo *bi, const void *const *Fv, T *tab) {              \
    const GsBandedShape sh = shape_of(bi);                                                         \
    GS_CPU_FACTORS(const T, F, Fv);                                                                \
    const GsInt np = (GsInt)bi->tile_p * bi->tile_l;                                               \
    for (GsInt i = 0; i < np; i++)                                                                 \
      gs_tile_row_##S(&sh, F, tab, np, i);                                                         \
    for (int k = 0; k < bi->tile_p; k++)                                                           \
      gs_tile_resp_##S(tab, np, bi->tile_l, k);                                                    \
  }                                                                                                \
  /* Inclusive scan of the chunks' affine maps, upwards (forward) or downwards (backward). */      \
  static void tile_scan_##S(int P, T(*M)[4], T(*b)[2], int backward) {                             \
    const int pp = gs_tile_pow2(P);                                                                \
    for (int off = 1; off < pp; off <<= 1) {                                                       \
      if (!backward)                                                                               \
        for (int k = P - 1; k >= off; k--)                                                         \
          gs_tile_compose_##S(M[k], b[k], M[k - off], b[k - off]);                                 \
      else                                                                                         \
        for (int k = 0; k + off < P; k++)                                                          \
          gs_tile_compose_##S(M[k], b[k], M[k + off], b[k + off]);                                 \
    }                                                                                              \
  }                                                                                                \
  static int tile_one_##S(const GsBandedShape *sh, const T *tab, int L, int P, const T *C,         \
                          const T *f, T *x, GsInt rb, GsInt rs) {                                  \
    const GsInt m = sh->m;                                                                         \
    const int np = P * L;                                                                          \
    const int h = sh->h;                                                                           \
    T v[GS_BANDED_TILE_MAX_ROWS], M[GS_BANDED_TILE_MAX_ROWS / 32][4],                              \
        b[GS_BANDED_TILE_MAX_ROWS / 32][2], c[GS_BANDED_TILE_MAX_ROWS / 32][2];                    \
    T z[2] = {0, 0};                                                                               \
    for (int r = 0; sh->periodic && r < h; r++)                                                    \
      z[r] = f[rb + (m + r) * rs];                                                                 \
    for (GsInt i = 0; i < np; i++)                                                                 \
      v[i] = i < m ? f[rb + i * rs] : (T)0;                                                        \
    for (int k = 0; k < P; k++) {                                                                  \
      T *vk = v + (GsInt)k * L;                                                                    \
      gs_tile_fwd_##S(tab, np, 1, k *L, L, vk);                                                    \
      gs_tile_map_##S(tab, np, 1, L, L, k, 0, M[k]);                                               \
      b[k][0] = vk[L - 2];                                                                         \
      b[k][1] = vk[L - 1];                                                                         \
    }                                                                                              \
    tile_scan_##S(P, M, b, 0);                                                                     \
    c[0][0] = c[0][1] = 0;                                                                         \
    for (int k = 0; k + 1 < P; k++) {                                                              \
      c[k + 1][0] = b[k][0];                                                                       \
      c[k + 1][1] = b[k][1];                                                                       \
    }                                                                                              \
    for (int k = 0; k < P; k++) {                                                                  \
      T *vk = v + (GsInt)k * L;                                                                    \
      gs_tile_add_##S(tab, np, 1, k *L, L, GS_TAB_U1, c[k], vk);                                   \
      gs_tile_back_##S(tab, np, 1, k *L, L, vk);                                                   \
      gs_tile_map_##S(tab, np, 1, L, L, k, 1, M[k]);                                               \
      b[k][0] = vk[0];                                                                             \
      b[k][1] = vk[1];                                                                             \
    }                                                                                              \
    tile_scan_##S(P, M, b, 1);                                                                     \
    c[P - 1][0] = c[P - 1][1] = 0;                                                                 \
    for (int k = 1; k < P; k++) {                                                                  \
      c[k - 1][0] = b[k][0];                                                                       \
      c[k - 1][1] = b[k][1];                                                                       \
    }                                                                                              \
    for (int k = 0; k < P; k++)                                                                    \
      gs_tile_add_##S(tab, np, 1, k *L, L, GS_TAB_R1, c[k], v + (GsInt)k * L);                     \
    int finite = 1;                                                                                \
    if (sh->periodic) {                                                                            \
      T ycor[4];                                                                                   \
      for (int r = 0; r < h; r++) {                                                                \
        ycor[r] = v[r];                                                                            \
        ycor[h + r] = v[m - h + r];                                                                \
      }                                                                                            \
      gs_banded_tail_##S(sh, C, ycor, z);                                                          \
      /* only the rows where W is above rounding (Factor's extents), as the GPU's kernels */       \
      GsInt phi, plo;                                                                              \
      gs_banded_w_rows_##S(sh, C, &phi, &plo);                                                     \
      for (GsInt i = 0; i < m; i++)                                                                \
        if (i < phi || i >= plo)                                                                   \
          v[i] -= tab[GS_TAB_W1 * np + i] * z[0] + tab[GS_TAB_W2 * np + i] * z[1];                 \
      for (int r = 0; r < h; r++) {                                                                \
        x[rb + (m + r) * rs] = z[r];                                                               \
        finite &= isfinite((double)z[r]) ? 1 : 0;                                                  \
      }                                                                                            \
    }                                                                                              \
    for (GsInt i = 0; i < m; i++) {                                                                \
      x[rb + i * rs] = v[i];                                                                       \
      finite &= isfinite((double)v[i]) ? 1 : 0;                                                    \
    }                                                                                              \
    return finite ? GS_BANDED_OK : GS_BANDED_NOT_FINITE;                                           \
  }                                                                                                \
  static void tile_solve_##S(const GsBandedInfo *bi, const T *tab, const void *Cv,                 \
                             const int *fstatus, GsInt nrhs, const void *fv, void *xv,             \
                             int *status) {                                                        \
    const GsBandedShape sh = shape_of(bi); /* a shared matrix: mat is 0 */                         \
    GS_CPU_EACH_SYSTEM(S, tile_one_##S(&sh, tab, bi->tile_l, bi->tile_p, (const T *)Cv,            \
                                       (const T *)fv, (T *)xv, rb, rs))                            \
  }

GS_CPU_TILE(double, d)
GS_CPU_TILE(float, f)

/* Chunked solves with each system's own LU (see banded_algo.h): the GPU's maps, carries and
 * recurrences, chunk after chunk. */
#define GS_CPU_SCAN(T, S)                                                                          \
  static void scan_solve_##S(const GsBandedInfo *bi, const void *const *Fv, const void *Cv,        \
                             const int *fstatus, GsInt nrhs, const void *fv, void *xv,             \
                             int *status) {                                                        \
    const GsBandedShape sh = shape_of(bi);                                                         \
    GS_CPU_FACTORS(const T, F, Fv);                                                                \
    GS_CPU_EACH_SYSTEM(S,                                                                          \
                       gs_banded_scan_solve_##S(&sh, F, (const T *)Cv + mat * bi->corner_len, fb,  \
                                                fs, (const T *)fv, (T *)xv, rb, rs, bi->tile_l))   \
  }

GS_CPU_SCAN(double, d)
GS_CPU_SCAN(float, f)

/* One row i of a block's factorisation, in SIMD over its systems s0 .. s1 (row r = i batch):
 * the arithmetic of gs_banded_ldl_row / gs_banded_lu_row without their early returns. PENTA,
 * FUSED and EDGE (one of the first or last two rows) are constants, so each combination is a loop
 * of its own without branches. Statuses are not computed here: an int status or a test that
 * mixes int and T lanes keeps GCC from vectorising the loop for baseline x86-64. Instead bad[k]
 * (T) collects 0 for each good row and 1 or NaN for a pivot at or below twice the row's test
 * threshold (or T's smallest normal), a non-finite scale or, where gs_banded_*_row checks them,
 * non-finite factors. A system whose bad[k] is not 0 is then walked again by those row functions
 * (replay_status), which give the exact status; the margin only sends a few good systems there.
 * A failed system's later rows are computed from its bad values but never used (its factors are
 * not read, its solution is poisoned). */
#define GS_CPU_PIVOT_FLAG(T, EPS, piv, sc)                                                         \
  ((piv) > ((T)2 * (T)(EPS) * (sc) > GS_CPU_TMIN(T) ? (T)2 * (T)(EPS) * (sc) : GS_CPU_TMIN(T))     \
       ? (T)0                                                                                      \
       : (T)1)
/* |v| in v's own type (fabs would take a float through double) */
#define GS_CPU_FABS(v) _Generic((v), float : fabsf, default : fabs)(v)
#define GS_CPU_TMIN(T) (sizeof(T) == sizeof(float) ? (T)FLT_MIN : (T)DBL_MIN)
#define GS_CPU_LDL_ROWS(T, EPS, PENTA, EDGE)                                                       \
  _Pragma("omp simd") for (GsInt s = s0; s < s1; s++) {                                            \
    const GsInt k = s - s0, q = r + s;                                                             \
    const T la = Da[q], lb = Db[q], vc = Dc[q], va = (PENTA) && (!(EDGE) || ha) ? la : (T)0,       \
            vb = !(EDGE) || hb ? lb : (T)0;                                                        \
    /* d2, d1 pivots; g1 holds l1 of the row above */                                              \
    const T q2 = va / d2[k], l2 = (PENTA) && (!(EDGE) || i >= 2) ? q2 : (T)0;                      \
    const T q1 = (vb - l2 * d2[k] * g1[k]) / d1[k], l1 = !(EDGE) || i >= 1 ? q1 : (T)0;            \
    const T d = vc - l1 * l1 * d1[k] - l2 * l2 * d2[k];                                            \
    const T sc = GS_CPU_FABS(vc) + 2 * (GS_CPU_FABS(va) + GS_CPU_FABS(vb));                        \
    const T id = (T)1 / d;                                                                         \
    bad[k] += GS_CPU_PIVOT_FLAG(T, EPS, d, sc) + (sc - sc) + (l1 - l1) + (l2 - l2) + (id - id);    \
    if (PENTA) {                                                                                   \
      F0[q] = l2;                                                                                  \
      F1[q] = l1;                                                                                  \
      F2[q] = id;                                                                                  \
    } else {                                                                                       \
      F0[q] = l1;                                                                                  \
      F1[q] = id;                                                                                  \
    }                                                                                              \
    d2[k] = d1[k];                                                                                 \
    d1[k] = d;                                                                                     \
    g1[k] = l1;                                                                                    \
  }
#define GS_CPU_LU_ROWS(T, EPS, PENTA, FUSED, EDGE)                                                 \
  _Pragma("omp simd") for (GsInt s = s0; s < s1; s++) {                                            \
    const GsInt k = s - s0, q = r + s;                                                             \
    const T la = Da[q], lb = Db[q], vc = Dc[q], va = (PENTA) && (!(EDGE) || ha) ? la : (T)0,       \
            vb = !(EDGE) || hb ? lb : (T)0;                                                        \
    const T ld = Dd[q], le = De[q], vd = !(EDGE) || hd ? ld : (T)0,                                \
            ve = !(EDGE) || he ? le : (T)0;                                                        \
    /* tri: a = e = 0, beta = b */                                                                 \
    const T beta = PENTA ? vb - va * g2[k] : vb;                                                   \
    const T alpha = PENTA ? vc - va * d2[k] - beta * g1[k] : vc - vb * g1[k];                      \
    const T sc = PENTA ? GS_CPU_FABS(va) + GS_CPU_FABS(vb) + GS_CPU_FABS(vc) + GS_CPU_FABS(vd) +   \
                             GS_CPU_FABS(ve)                                                       \
                       : GS_CPU_FABS(vb) + GS_CPU_FABS(vc) + GS_CPU_FABS(vd);                      \
    const T ia = (T)1 / alpha;                                                                     \
    const T gam = PENTA ? (vd - beta * d1[k]) * ia : vd * ia;                                      \
    const T del = PENTA ? ve * ia : (T)0;                                                          \
    bad[k] += GS_CPU_PIVOT_FLAG(T, EPS, GS_CPU_FABS(alpha), sc) + (sc - sc) +                      \
              ((FUSED) ? (T)0 : (gam - gam) + (del - del) + (ia - ia));                            \
    if (FUSED) {                                                                                   \
      const T g = PENTA ? (f[q] - va * p2[k] - beta * p1[k]) * ia : (f[q] - vb * p1[k]) * ia;      \
      x[q] = g;                                                                                    \
      p2[k] = p1[k];                                                                               \
      p1[k] = g;                                                                                   \
    } else if (PENTA) {                                                                            \
      F0[q] = va;                                                                                  \
      F1[q] = beta;                                                                                \
      F2[q] = ia;                                                                                  \
    } else {                                                                                       \
      F0[q] = vb;                                                                                  \
      F1[q] = ia;                                                                                  \
    }                                                                                              \
    ((PENTA) ? F3 : F2)[q] = gam;                                                                  \
    if (PENTA) F4[q] = del;                                                                        \
    g2[k] = g1[k];                                                                                 \
    g1[k] = gam;                                                                                   \
    d2[k] = d1[k];                                                                                 \
    d1[k] = del;                                                                                   \
  }

/* The status of system s of an interleaved batch, from its rows in turn by gs_banded_ldl_row /
 * gs_banded_lu_row (the checks of gs_banded_ldl / gs_banded_lu / gs_banded_factor_solve): the
 * first failing row's status, or GS_BANDED_OK. */
#define GS_CPU_REPLAY(T, S)                                                                        \
  static int replay_status_##S(const GsBandedInfo *bi, const T *const *D, GsInt s, int fused) {    \
    const GsInt batch = bi->batch, m = bi->m;                                                      \
    const int penta = bi->bands == 5, spd = bi->spd;                                               \
    T g2 = 0, g1 = 0, d2 = 0, d1 = 0;                                                              \
    for (GsInt i = 0; i < m; i++) {                                                                \
      const GsInt q = i * batch + s;                                                               \
      T va = 0, vb = 0, vc, vd = 0, ve = 0;                                                        \
      if (penta) {                                                                                 \
        if (i >= 2) va = D[0][q];                                                                  \
        if (i >= 1) vb = D[1][q];                                                                  \
        vc = D[2][q];                                                                              \
        if (!spd && i + 1 < m) vd = D[3][q];                                                       \
        if (!spd && i + 2 < m) ve = D[4][q];                                                       \
      } else {                                                                                     \
        if (i >= 1) vb = D[0][q];                                                                  \
        vc = D[1][q];                                                                              \
        if (!spd && i + 1 < m) vd = D[2][q];                                                       \
      }                                                                                            \
      if (spd) { /* d2, d1 pivots; g1 holds l1 of the row above */                                 \
        T l2, l1, d, id;                                                                           \
        const int st = gs_banded_ldl_row_##S(i, va, vb, vc, d1, d2, g1, &l2, &l1, &d, &id);        \
        if (st) return st;                                                                         \
        d2 = d1;                                                                                   \
        d1 = d;                                                                                    \
        g1 = l1;                                                                                   \
      } else {                                                                                     \
        T beta, ia, gam, del;                                                                      \
        const int st = gs_banded_lu_row_##S(penta, va, vb, vc, vd, ve, g1, g2, d1, d2, !fused,     \
                                            &beta, &ia, &gam, &del);                               \
        if (st) return st;                                                                         \
        g2 = g1;                                                                                   \
        g1 = gam;                                                                                  \
        d2 = d1;                                                                                   \
        d1 = del;                                                                                  \
      }                                                                                            \
    }                                                                                              \
    return GS_BANDED_OK;                                                                           \
  }
GS_CPU_REPLAY(double, d)
GS_CPU_REPLAY(float, f)

/* The factorisation and the fused factor+solve walk one system at a time, and in the interleaved
 * layout that touches one entry per cache line of each array (13x slower than the block solve at
 * 4096 x 1024). These block versions sweep the rows of up to GS_CPU_SB consecutive systems
 * together, with each system doing the operations of gs_banded_lu / gs_banded_ldl /
 * gs_banded_factor_solve in the same order, in SIMD (GS_CPU_LU_ROWS, GS_CPU_LDL_ROWS); a flagged
 * system's status comes from replay_status. Interleaved, non-periodic, one thread per system, a
 * matrix per system. 2-core development machine, 2 threads, -repeats 10, medians of three
 * rounds, scalar rows with early exits -> SIMD rows (ms): factor_solve penta 4096 x 1024 33.1 ->
 * 21.5, tri 19.7 -> 13.8, float 27.5 -> 11.3, penta 256 x 1024 4.72 -> 3.05, 65536 x 64 28.0 ->
 * 16.9. */
/* One of the row loops above for row i, the edge (first or last two rows) form or the other. */
#define GS_CPU_BY_EDGE(ROWS, ...)                                                                  \
  if (edge) {                                                                                      \
    ROWS(__VA_ARGS__, 1)                                                                           \
  } else {                                                                                         \
    ROWS(__VA_ARGS__, 0)                                                                           \
  }
/* System s's status once its block's rows are factored: OK unless its flag was raised. */
#define GS_CPU_BLOCK_STATUS(S, s)                                                                  \
  (bad[(s)-s0] != 0 ? replay_status_##S(bi, D, (s), fused) : GS_BANDED_OK)
#define GS_CPU_BLOCK_FACTOR(T, S, EPS)                                                             \
  static void factor_block_##S(const GsBandedInfo *bi, const void *const *Dv, void *const *Fv,     \
                               int *fstatus, const T *f, T *x, int nt, char *state, size_t per) {  \
    const GsInt batch = bi->batch, m = bi->m;                                                      \
    const int penta = bi->bands == 5, spd = bi->spd, fused = f != NULL;                            \
    const GsInt sb = block_systems(batch, 1), nblocks = (batch + sb - 1) / sb;                     \
    GS_CPU_DIAGS(T, D, Dv);                                                                        \
    GS_CPU_FACTORS(T, F, Fv);                                                                      \
    /* The rows' diagonals, a missing one's array (tri: a, e; LDL^T: d, e) read at a valid place   \
     * (the main diagonal) and its value replaced by 0 where the row lacks it; the factors. */     \
    const T *Dc = D[penta ? 2 : 1], *Da = penta ? D[0] : Dc, *Db = D[penta ? 1 : 0];               \
    const T *Dd = spd ? Dc : D[penta ? 3 : 2], *De = !spd && penta ? D[4] : Dc;                    \
    T *F0 = F[0], *F1 = F[1], *F2 = bi->nfac > 2 ? F[2] : NULL;                                    \
    T *F3 = bi->nfac > 3 ? F[3] : NULL, *F4 = bi->nfac > 4 ? F[4] : NULL;                          \
    _Pragma("omp parallel for schedule(static) num_threads(nt)") for (GsInt blk = 0;               \
                                                                      blk < nblocks; blk++) {      \
      const GsInt s0 = blk * sb, s1 = s0 + sb < batch ? s0 + sb : batch;                           \
      /* Per system: the last two gammas/deltas (LU) or pivots and l1 (LDL^T), the last two g,     \
       * its failure flag (this thread's slice of the block state). */                             \
      char *q_ = block_slice(state, per);                                                          \
      GS_CPU_CARVE(T, g2, q_);                                                                     \
      GS_CPU_CARVE(T, g1, q_);                                                                     \
      GS_CPU_CARVE(T, d2, q_);                                                                     \
      GS_CPU_CARVE(T, d1, q_);                                                                     \
      GS_CPU_CARVE(T, p2, q_);                                                                     \
      GS_CPU_CARVE(T, p1, q_);                                                                     \
      GS_CPU_CARVE(T, bad, q_);                                                                    \
      GS_CPU_CARVE(T, nf, q_);                                                                     \
      for (GsInt k = 0; k < s1 - s0; k++) {                                                        \
        g2[k] = g1[k] = d2[k] = d1[k] = p2[k] = p1[k] = 0;                                         \
        bad[k] = 0;                                                                                \
      }                                                                                            \
      for (GsInt i = 0; i < m; i++) {                                                              \
        const GsInt r = i * batch;                                                                 \
        /* Which diagonals row i has (the same for every system of the block). */                  \
        const int ha = penta && i >= 2, hb = i >= 1, hd = !spd && i + 1 < m;                       \
        const int he = !spd && penta && i + 2 < m, edge = i < 2 || i + 2 >= m;                     \
        if (spd && penta) {                                                                        \
          GS_CPU_BY_EDGE(GS_CPU_LDL_ROWS, T, EPS, 1)                                               \
        } else if (spd) {                                                                          \
          GS_CPU_BY_EDGE(GS_CPU_LDL_ROWS, T, EPS, 0)                                               \
        } else if (penta && fused) {                                                               \
          GS_CPU_BY_EDGE(GS_CPU_LU_ROWS, T, EPS, 1, 1)                                             \
        } else if (penta) {                                                                        \
          GS_CPU_BY_EDGE(GS_CPU_LU_ROWS, T, EPS, 1, 0)                                             \
        } else if (fused) {                                                                        \
          GS_CPU_BY_EDGE(GS_CPU_LU_ROWS, T, EPS, 0, 1)                                             \
        } else {                                                                                   \
          GS_CPU_BY_EDGE(GS_CPU_LU_ROWS, T, EPS, 0, 0)                                             \
        }                                                                                          \
      }                                                                                            \
      if (!fused) {                                                                                \
        for (GsInt s = s0; s < s1; s++)                                                            \
          fstatus[s] = GS_CPU_BLOCK_STATUS(S, s);                                                  \
        continue;                                                                                  \
      }                                                                                            \
      /* Back substitution of the fused sweep (gs_banded_back), then the statuses. */              \
      for (GsInt s = s0; s < s1; s++) {                                                            \
        nf[s - s0] = 0;                                                                            \
        p1[s - s0] = p2[s - s0] = 0;                                                               \
      }                                                                                            \
      for (GsInt i = m - 1; i >= 0; i--) {                                                         \
        const GsInt r = i * batch;                                                                 \
        _Pragma("omp simd") for (GsInt s = s0; s < s1; s++) {                                      \
          const GsInt k = s - s0, q = r + s;                                                       \
          const T xi = penta ? x[q] - F[3][q] * p1[k] - F[4][q] * p2[k] : x[q] - F[2][q] * p1[k];  \
          x[q] = xi;                                                                               \
          nf[k] += xi - xi; /* NaN from inf or NaN */                                              \
          p2[k] = p1[k];                                                                           \
          p1[k] = xi;                                                                              \
        }                                                                                          \
      }                                                                                            \
      for (GsInt s = s0; s < s1; s++) {                                                            \
        int stt = GS_CPU_BLOCK_STATUS(S, s);                                                       \
        if (stt)                                                                                   \
          gs_banded_poison_##S(bi->n, x, s, batch);                                                \
        else if (nf[s - s0] != 0)                                                                  \
          stt = GS_BANDED_NOT_FINITE;                                                              \
        if (stt || !bi->accumulate) fstatus[s] = stt;                                              \
      }                                                                                            \
    }                                                                                              \
  }

GS_CPU_BLOCK_FACTOR(double, d, DBL_EPSILON)
GS_CPU_BLOCK_FACTOR(float, f, FLT_EPSILON)

static int k_factor(GsContext ctx, const GsBandedInfo *bi, const void *const *D, void *const *F,
                    void *C, int *fstatus, int *status, void *work, GsBandedSummary *sum) {
  if (bi->parts > 1) {
    if (bi->dt == GS_DOUBLE)
      pfactor_d(bi, D, F, C, fstatus, (int *)work);
    else
      pfactor_f(bi, D, F, C, fstatus, (int *)work);
  } else if (bi->interleaved && !bi->periodic && !bi->shared) {
    int nt = 1;
    char *state = NULL;
    size_t per = 0;
    GsCall(block_state(ctx, &nt, &state, &per));
    if (bi->dt == GS_DOUBLE)
      factor_block_d(bi, D, F, fstatus, NULL, NULL, nt, state, per);
    else
      factor_block_f(bi, D, F, fstatus, NULL, NULL, nt, state, per);
  } else if (bi->dt == GS_DOUBLE) {
    factor_d(bi, D, F, C, fstatus);
    if (bi->algo == GS_BANDED_ALGORITHM_TILE) tile_build_d(bi, (const void *const *)F, work);
  } else {
    factor_f(bi, D, F, C, fstatus);
    if (bi->algo == GS_BANDED_ALGORITHM_TILE) tile_build_f(bi, (const void *const *)F, work);
  }
  for (GsInt s = 0; s < bi->batch; s++) {
    const int st = fstatus[bi->shared ? 0 : s];
    if (st || !bi->accumulate) status[s] = st; /* deferred checks keep earlier failures */
  }
  summarise(status, bi->batch, sum);
  return 0;
}

/* The interleaved layout walked one system at a time touches one entry per cache line of each
 * array. For the common case (interleaved, not partitioned) the CPU instead sweeps the rows of a
 * block of GS_CPU_SB consecutive systems together: the inner loop over systems is contiguous and
 * vectorises, and each system still does the same operations in the same order as
 * gs_banded_solve (LU or LDL^T of the banded block; for periodic systems then the tail z and
 * y -= W z), so the results are those of the per-system code. */
#define GS_CPU_BLOCK_PERIODIC(T, S)                                                                \
  /* The periodic part of a block's solve: per system z = S^-1 (f_tail - G y) from the rows of y   \
   * the corner reads (f_tail in zt), then y -= W z over the block's rows, and the last h rows. */ \
  static void block_periodic_##S(const GsBandedInfo *bi, const void *const *Fv, const void *Cv,    \
                                 T *x, GsInt s0, GsInt s1, T *const zt[2], T *nf, char *q_) {      \
    const GsInt batch = bi->batch, m = bi->m, ms = bi->shared ? 0 : 1;                             \
    const GsInt mrow = bi->shared ? 1 : batch;                                                     \
    const int h = bi->h, nlu = GS_BANDED_NLU(bi->bands, bi->spd);                                  \
    const T *W0 = (const T *)Fv[nlu], *W1 = (const T *)Fv[h > 1 ? nlu + 1 : nlu];                  \
    const GsBandedShape sh = shape_of(bi);                                                         \
    /* z, and the rows where W matters, of each system (the rest of the thread's slice, q_) */     \
    GS_CPU_CARVE(T, z0, q_);                                                                       \
    GS_CPU_CARVE(T, z1, q_);                                                                       \
    GS_CPU_CARVE(GsInt, phi, q_);                                                                  \
    GS_CPU_CARVE(GsInt, plo, q_);                                                                  \
    GsInt top = 0, bottom = m;    /* rows every system skips */                                    \
    GsInt lo_phi = m, hi_plo = 0; /* rows every system corrects: [0, lo_phi), [hi_plo, m) */       \
    for (GsInt s = s0; s < s1; s++) {                                                              \
      T ycor[4], z[2] = {0, 0};                                                                    \
      for (int r = 0; r < h; r++) {                                                                \
        z[r] = zt[r][s - s0];                                                                      \
        ycor[r] = x[r * batch + s];                                                                \
        ycor[h + r] = x[(m - h + r) * batch + s];                                                  \
      }                                                                                            \
      const T *C = (const T *)Cv + (bi->shared ? 0 : s) * bi->corner_len;                          \
      gs_banded_tail_##S(&sh, C, ycor, z);                                                         \
      z0[s - s0] = z[0];                                                                           \
      z1[s - s0] = z[1];                                                                           \
      const GsInt k = s - s0;                                                                      \
      gs_banded_w_rows_##S(&sh, C, &phi[k], &plo[k]); /* where W matters, as the solve reads it */ \
      top = phi[k] > top ? phi[k] : top;                                                           \
      lo_phi = phi[k] < lo_phi ? phi[k] : lo_phi;                                                  \
      hi_plo = plo[k] > hi_plo ? plo[k] : hi_plo;                                                  \
      bottom = plo[k] < bottom ? plo[k] : bottom;                                                  \
    }                                                                                              \
    for (GsInt i = 0; i < m; i++) {                                                                \
      if (i == top && bottom > top) i = bottom; /* rows no system of the block corrects */         \
      if (i >= m) break;                                                                           \
      const GsInt r = i * batch, q = i * mrow;                                                     \
      if (i < lo_phi || i >= hi_plo) { /* rows every system of the block corrects: no mask */      \
        _Pragma("omp simd") for (GsInt s = s0; s < s1; s++) {                                      \
          const GsInt k = s - s0, qs = q + s * ms;                                                 \
          const T xi = x[r + s] - W0[qs] * z0[k] - (h > 1 ? W1[qs] * z1[k] : (T)0);                \
          x[r + s] = xi;                                                                           \
          nf[k] += xi - xi;                                                                        \
        }                                                                                          \
        continue;                                                                                  \
      }                                                                                            \
      _Pragma("omp simd") for (GsInt s = s0; s < s1; s++) {                                        \
        const GsInt k = s - s0, qs = q + s * ms;                                                   \
        if (i < phi[k] || i >= plo[k]) {                                                           \
          const T xi = x[r + s] - W0[qs] * z0[k] - (h > 1 ? W1[qs] * z1[k] : (T)0);                \
          x[r + s] = xi;                                                                           \
          nf[k] += xi - xi;                                                                        \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    for (GsInt s = s0; s < s1; s++)                                                                \
      for (int r = 0; r < h; r++) {                                                                \
        const T v = r ? z1[s - s0] : z0[s - s0];                                                   \
        x[(m + r) * batch + s] = v;                                                                \
        nf[s - s0] += v - v;                                                                       \
      }                                                                                            \
  }
GS_CPU_BLOCK_PERIODIC(double, d)
GS_CPU_BLOCK_PERIODIC(float, f)

/* Each block sweep checks its values as nf[k] += x - x: 0 while every x is finite, NaN for good
 * after an inf or a NaN. An int flag (ok &= x - x == 0) kept GCC from vectorising the back sweeps
 * for baseline x86-64 (a comparison's mask cannot become an int lane there): only the forward
 * sweeps ran in SIMD. 2-core development machine, 2 threads, medians of three rounds (ms): penta
 * 4096 x 1024 13.3 -> 12.8, LDL^T 16.7 -> 14.1, shared 8.55 -> 7.32, periodic 13.9 -> 12.3, shared
 * periodic stiff 512 x 512 (a Cahn-Hilliard y sweep) 0.702 -> 0.476, its float 0.333 -> 0.253.
 *
 * The block solve of matrices of their own (SH 0) or of one shared matrix (SH 1: one entry a row
 * for all systems, which the compiler then loads once a row, out of the loop over systems; the
 * stride was a runtime 0 or 1 before). 2-core development machine, 2 threads, 4096 x 1024,
 * medians of three rounds against 2d70d50 (ms): float shared penta 4.38 -> 3.54, double shared
 * penta 7.27 -> 7.18, tri 6.41 -> 6.36, periodic penta 7.40 -> 7.30 (the double ones move their
 * x twice through memory: a block's x leaves the cache between the sweeps); matrices of their
 * own level (five rounds: penta 11.8 -> 11.4, tri 9.3 -> 9.0, float 5.87 -> 5.87). */
#define GS_CPU_BLOCK_SOLVE(T, S, SH)                                                               \
  static void solve_block_##S##SH(const GsBandedInfo *bi, const void *const *Fv, const void *Cv,   \
                                  const int *fstatus, GsInt nrhs, const void *fv, void *xv,        \
                                  int *status, int nt, char *state, size_t per) {                  \
    const GsInt batch = bi->batch, m = bi->m;                                                      \
    const int penta = bi->bands == 5, spd = bi->spd;                                               \
    const GsInt ms = (SH) ? 0 : 1; /* a shared matrix: one entry per row for all systems */        \
    const GsInt mrow = (SH) ? 1 : batch;                                                           \
    /* LU: F0 a, F1 beta, F2 1/alpha, F3 gamma, F4 delta (tri: a, 1/alpha, gamma);                 \
     * LDL^T: F0 l2, F1 l1, F2 1/d (tri: l, 1/d). */                                               \
    const T *F0 = (const T *)Fv[0], *F1 = (const T *)Fv[1];                                        \
    const T *F2 = bi->nfac > 2 ? (const T *)Fv[2] : NULL;                                          \
    const T *Fg = spd ? NULL : (const T *)Fv[penta ? 3 : 2];                                       \
    const T *Fd = !spd && penta ? (const T *)Fv[4] : NULL;                                         \
    const GsInt sb = block_systems(batch, nrhs), nblocks = (batch + sb - 1) / sb;                  \
    _Pragma("omp parallel for schedule(static) num_threads(nt)") for (GsInt t = 0;                 \
                                                                      t < nrhs * nblocks; t++) {   \
      const GsInt blk = t / nblocks, s0 = (t % nblocks) * sb;                                      \
      const GsInt s1 = s0 + sb < batch ? s0 + sb : batch;                                          \
      const T *f = (const T *)fv + blk * bi->rhs_len;                                              \
      T *x = (T *)xv + blk * bi->rhs_len;                                                          \
      /* p1, p2: the last two values of the recurrence (g for LU, z for LDL^T, then x); for the    \
       * LDL^T back sweep m1, m2a, m2b keep l1_{i+1}, l2_{i+1}, l2_{i+2} of the rows below. */     \
      char *q_ = block_slice(state, per);                                                          \
      GS_CPU_CARVE(T, p1, q_);                                                                     \
      GS_CPU_CARVE(T, p2, q_);                                                                     \
      GS_CPU_CARVE(T, m1, q_);                                                                     \
      GS_CPU_CARVE(T, m2a, q_);                                                                    \
      GS_CPU_CARVE(T, m2b, q_);                                                                    \
      GS_CPU_CARVE(T, zt0, q_);                                                                    \
      GS_CPU_CARVE(T, zt1, q_);                                                                    \
      GS_CPU_CARVE(T, nf, q_);                                                                     \
      /* periodic: the last h entries of f, read before x (maybe f) changes */                     \
      T *const zt[2] = {zt0, zt1};                                                                 \
      for (GsInt s = s0; s < s1; s++) {                                                            \
        const GsInt k_ = s - s0;                                                                   \
        p1[k_] = p2[k_] = m1[k_] = m2a[k_] = m2b[k_] = 0;                                          \
        nf[k_] = 0;                                                                                \
        for (int r = 0; r < bi->h && bi->periodic; r++)                                            \
          zt[r][s - s0] = f[(m + r) * batch + s];                                                  \
      }                                                                                            \
      for (GsInt i = 0; i < m; i++) {                                                              \
        const GsInt r = i * batch, q = i * mrow;                                                   \
        if (spd && penta) {                                                                        \
          _Pragma("omp simd") for (GsInt s = s0; s < s1; s++) {                                    \
            const GsInt k = s - s0, qs = q + s * ms;                                               \
            const T z = f[r + s] - F1[qs] * p1[k] - F0[qs] * p2[k];                                \
            x[r + s] = z * F2[qs];                                                                 \
            p2[k] = p1[k];                                                                         \
            p1[k] = z;                                                                             \
          }                                                                                        \
        } else if (spd) {                                                                          \
          _Pragma("omp simd") for (GsInt s = s0; s < s1; s++) {                                    \
            const GsInt k = s - s0, qs = q + s * ms;                                               \
            const T z = f[r + s] - F0[qs] * p1[k];                                                 \
            x[r + s] = z * F1[qs];                                                                 \
            p1[k] = z;                                                                             \
          }                                                                                        \
        } else if (penta) {                                                                        \
          _Pragma("omp simd") for (GsInt s = s0; s < s1; s++) {                                    \
            const GsInt k = s - s0, qs = q + s * ms;                                               \
            const T g = (f[r + s] - F0[qs] * p2[k] - F1[qs] * p1[k]) * F2[qs];                     \
            x[r + s] = g;                                                                          \
            p2[k] = p1[k];                                                                         \
            p1[k] = g;                                                                             \
          }                                                                                        \
        } else {                                                                                   \
          _Pragma("omp simd") for (GsInt s = s0; s < s1; s++) {                                    \
            const GsInt k = s - s0, qs = q + s * ms;                                               \
            const T g = (f[r + s] - F0[qs] * p1[k]) * F1[qs];                                      \
            x[r + s] = g;                                                                          \
            p1[k] = g;                                                                             \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
      for (GsInt s = s0; s < s1; s++)                                                              \
        p1[s - s0] = p2[s - s0] = 0;                                                               \
      for (GsInt i = m - 1; i >= 0; i--) {                                                         \
        const GsInt r = i * batch, q = i * mrow;                                                   \
        if (spd) {                                                                                 \
          _Pragma("omp simd") for (GsInt s = s0; s < s1; s++) {                                    \
            const GsInt k = s - s0, qs = q + s * ms;                                               \
            const T xi =                                                                           \
                penta ? x[r + s] - m1[k] * p1[k] - m2b[k] * p2[k] : x[r + s] - m1[k] * p1[k];      \
            if (penta) {                                                                           \
              m2b[k] = m2a[k];                                                                     \
              m2a[k] = F0[qs];                                                                     \
              m1[k] = F1[qs];                                                                      \
            } else {                                                                               \
              m1[k] = F0[qs];                                                                      \
            }                                                                                      \
            x[r + s] = xi;                                                                         \
            nf[k] += xi - xi; /* NaN from inf or NaN */                                            \
            p2[k] = p1[k];                                                                         \
            p1[k] = xi;                                                                            \
          }                                                                                        \
        } else {                                                                                   \
          _Pragma("omp simd") for (GsInt s = s0; s < s1; s++) {                                    \
            const GsInt k = s - s0, qs = q + s * ms;                                               \
            const T xi =                                                                           \
                penta ? x[r + s] - Fg[qs] * p1[k] - Fd[qs] * p2[k] : x[r + s] - Fg[qs] * p1[k];    \
            x[r + s] = xi;                                                                         \
            nf[k] += xi - xi; /* NaN from inf or NaN */                                            \
            p2[k] = p1[k];                                                                         \
            p1[k] = xi;                                                                            \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
      if (bi->periodic) block_periodic_##S(bi, Fv, Cv, x, s0, s1, zt, nf, q_);                     \
      for (GsInt s = s0; s < s1; s++) {                                                            \
        int st = fstatus[bi->shared ? 0 : s];                                                      \
        if (st)                                                                                    \
          gs_banded_poison_##S(bi->n, x, s, batch);                                                \
        else if (nf[s - s0] != 0)                                                                  \
          st = GS_BANDED_NOT_FINITE;                                                               \
        if (st) {                                                                                  \
          _Pragma("omp atomic write") status[s] = st;                                              \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
  }

GS_CPU_BLOCK_SOLVE(double, d, 0)
GS_CPU_BLOCK_SOLVE(float, f, 0)
GS_CPU_BLOCK_SOLVE(double, d, 1)
GS_CPU_BLOCK_SOLVE(float, f, 1)

/* A shared matrix in the contiguous layout (the x sweeps of the ADI solvers, the 1D ensembles):
 * one system at a time, each row is a step of one recurrence and waits for the latency of the
 * step before. Up to GS_CPU_CGROUP systems go through their rows together instead, each row's
 * factor values read once for them, each system's rows read and written in place, with the
 * operations of solve_block (so the same bits as gs_banded_solve; test_layout_bits). A periodic
 * system then takes its tail and W's correction alone (gs_banded_periodic_fix). Fewer systems a
 * group where the batch would leave threads without one. 2-core development machine, 2 threads,
 * shared periodic penta, -repeats 10, two rounds (ms), one system at a time -> groups of 4:
 * 4096 x 1024 (batch x n) 12.6 -> 7.4-8.1, 65536 x 64 20.3 -> 15.0-15.3, 16384 x 256 14.2-15.0
 * -> 9.8-10.3, 8192 x 512 13.1-13.4 -> 8.3-8.4, 4096 x 1000 12.2-12.3 -> 7.0, 2048 x 2048 12.3
 * -> 7.0, 512 x 8192 12.1 -> 6.8, 7 x 1024 0.024-0.028 -> 0.016-0.017, 256 x 64 0.10-0.12 ->
 * 0.07. Groups of 2 / 3 / 4 / 6 / 8 at 4096 x 1024 (not periodic): 9.6 / 8.6 / 7.2-7.9 / 15.7 /
 * 23.8: from 6 systems 8 n bytes apart, the rows of f and x of a group fall on the same cache
 * sets and push each other out. */
#define GS_CPU_CGROUP 4
static GsInt cgroup_systems(GsInt batch, GsInt nrhs) {
  const GsInt want = pieces_wanted(nrhs);
  const GsInt g = (batch + want - 1) / want;
  return g > GS_CPU_CGROUP ? GS_CPU_CGROUP : g < 1 ? 1 : g;
}
#define GS_CPU_CGROUP_SOLVE(T, S)                                                                  \
  static void solve_cgroup_##S(const GsBandedInfo *bi, const void *const *Fv, const void *Cv,      \
                               const int *fstatus, GsInt nrhs, const void *fv, void *xv,           \
                               int *status) {                                                      \
    enum { G = GS_CPU_CGROUP };                                                                    \
    const GsInt batch = bi->batch, m = bi->m, st = bi->stride;                                     \
    const int penta = bi->bands == 5, spd = bi->spd;                                               \
    const GsBandedShape shp = shape_of(bi);                                                        \
    const T *F0 = (const T *)Fv[0], *F1 = (const T *)Fv[1];                                        \
    const T *F2 = bi->nfac > 2 ? (const T *)Fv[2] : NULL;                                          \
    const T *Fg = spd ? NULL : (const T *)Fv[penta ? 3 : 2];                                       \
    const T *Fd = !spd && penta ? (const T *)Fv[4] : NULL;                                         \
    const GsInt gz = cgroup_systems(batch, nrhs), ng = (batch + gz - 1) / gz;                      \
    _Pragma("omp parallel for schedule(static)") for (GsInt t = 0; t < nrhs * ng; t++) {           \
      const GsInt blk = t / ng, s0 = (t % ng) * gz;                                                \
      const int gs = (int)(s0 + gz < batch ? gz : batch - s0);                                     \
      const T *f = (const T *)fv + blk * bi->rhs_len + s0 * st;                                    \
      T *x = (T *)xv + blk * bi->rhs_len + s0 * st;                                                \
      T p1[G] = {0}, p2[G] = {0}, m1[G] = {0}, m2a[G] = {0}, m2b[G] = {0}, z[G][2] = {{0}};        \
      T nf[G];                                                                                     \
      for (int k = 0; k < G; k++) {                                                                \
        nf[k] = 0;                                                                                 \
        for (int r = 0; r < bi->h && bi->periodic && k < gs; r++)                                  \
          z[k][r] = f[k * st + m + r]; /* before x (maybe f) changes */                            \
      }                                                                                            \
      for (GsInt i = 0; i < m; i++) {                                                              \
        if (spd && penta) {                                                                        \
          const T c0 = F0[i], c1 = F1[i], c2 = F2[i];                                              \
          for (int k = 0; k < gs; k++) {                                                           \
            const T zz = f[k * st + i] - c1 * p1[k] - c0 * p2[k];                                  \
            x[k * st + i] = zz * c2;                                                               \
            p2[k] = p1[k];                                                                         \
            p1[k] = zz;                                                                            \
          }                                                                                        \
        } else if (spd) {                                                                          \
          const T c0 = F0[i], c1 = F1[i];                                                          \
          for (int k = 0; k < gs; k++) {                                                           \
            const T zz = f[k * st + i] - c0 * p1[k];                                               \
            x[k * st + i] = zz * c1;                                                               \
            p1[k] = zz;                                                                            \
          }                                                                                        \
        } else if (penta) {                                                                        \
          const T c0 = F0[i], c1 = F1[i], c2 = F2[i];                                              \
          for (int k = 0; k < gs; k++) {                                                           \
            const T g = (f[k * st + i] - c0 * p2[k] - c1 * p1[k]) * c2;                            \
            x[k * st + i] = g;                                                                     \
            p2[k] = p1[k];                                                                         \
            p1[k] = g;                                                                             \
          }                                                                                        \
        } else {                                                                                   \
          const T c0 = F0[i], c1 = F1[i];                                                          \
          for (int k = 0; k < gs; k++) {                                                           \
            const T g = (f[k * st + i] - c0 * p1[k]) * c1;                                         \
            x[k * st + i] = g;                                                                     \
            p1[k] = g;                                                                             \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
      for (int k = 0; k < G; k++)                                                                  \
        p1[k] = p2[k] = 0;                                                                         \
      for (GsInt i = m - 1; i >= 0; i--) {                                                         \
        if (spd) {                                                                                 \
          const T c0 = F0[i], c1 = penta ? F1[i] : c0;                                             \
          for (int k = 0; k < gs; k++) {                                                           \
            const T xi = penta ? x[k * st + i] - m1[k] * p1[k] - m2b[k] * p2[k]                    \
                               : x[k * st + i] - m1[k] * p1[k];                                    \
            if (penta) {                                                                           \
              m2b[k] = m2a[k];                                                                     \
              m2a[k] = c0;                                                                         \
              m1[k] = c1;                                                                          \
            } else {                                                                               \
              m1[k] = c0;                                                                          \
            }                                                                                      \
            x[k * st + i] = xi;                                                                    \
            nf[k] += xi - xi; /* NaN from inf or NaN */                                            \
            p2[k] = p1[k];                                                                         \
            p1[k] = xi;                                                                            \
          }                                                                                        \
        } else {                                                                                   \
          const T cg = Fg[i], cd = penta ? Fd[i] : cg;                                             \
          for (int k = 0; k < gs; k++) {                                                           \
            const T xi =                                                                           \
                penta ? x[k * st + i] - cg * p1[k] - cd * p2[k] : x[k * st + i] - cg * p1[k];      \
            x[k * st + i] = xi;                                                                    \
            nf[k] += xi - xi; /* NaN from inf or NaN */                                            \
            p2[k] = p1[k];                                                                         \
            p1[k] = xi;                                                                            \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
      for (int k = 0; k < gs; k++) {                                                               \
        const GsInt s = s0 + k;                                                                    \
        int stt = fstatus[0];                                                                      \
        if (stt) {                                                                                 \
          gs_banded_poison_##S(bi->n, x, k *st, 1);                                                \
        } else {                                                                                   \
          int finite = nf[k] == 0;                                                                 \
          if (bi->periodic)                                                                        \
            finite &= gs_banded_periodic_fix_##S(&shp, (const T *const *)Fv, (const T *)Cv, 0, 1,  \
                                                 x, k * st, 1, z[k]);                              \
          if (!finite) stt = GS_BANDED_NOT_FINITE;                                                 \
        }                                                                                          \
        if (stt) {                                                                                 \
          _Pragma("omp atomic write") status[s] = stt;                                             \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
  }

GS_CPU_CGROUP_SOLVE(double, d)
GS_CPU_CGROUP_SOLVE(float, f)

static int k_solve(GsContext ctx, const GsBandedInfo *bi, const void *const *F, const void *C,
                   const int *fstatus, GsInt nrhs, const void *f, void *x, int *status, void *work,
                   GsBandedSummary *sum) {
  if (!bi->accumulate) memset(status, 0, (size_t)bi->batch * sizeof *status);
  if (bi->algo == GS_BANDED_ALGORITHM_SCAN) {
    if (bi->dt == GS_DOUBLE)
      scan_solve_d(bi, F, C, fstatus, nrhs, f, x, status);
    else
      scan_solve_f(bi, F, C, fstatus, nrhs, f, x, status);
  } else if (bi->algo == GS_BANDED_ALGORITHM_TILE) {
    if (bi->dt == GS_DOUBLE)
      tile_solve_d(bi, (const double *)work, C, fstatus, nrhs, f, x, status);
    else
      tile_solve_f(bi, (const float *)work, C, fstatus, nrhs, f, x, status);
  } else if (bi->parts > 1) {
    for (GsInt blk = 0; blk < nrhs; blk++) {
      if (bi->dt == GS_DOUBLE)
        psolve_d(bi, F, C, fstatus, blk, f, x, status, (double *)work);
      else
        psolve_f(bi, F, C, fstatus, blk, f, x, status, (float *)work);
    }
  } else if (bi->interleaved) {
    int nt = 1;
    char *state = NULL;
    size_t per = 0;
    GsCall(block_state(ctx, &nt, &state, &per));
    if (bi->dt == GS_DOUBLE && bi->shared)
      solve_block_d1(bi, F, C, fstatus, nrhs, f, x, status, nt, state, per);
    else if (bi->dt == GS_DOUBLE)
      solve_block_d0(bi, F, C, fstatus, nrhs, f, x, status, nt, state, per);
    else if (bi->shared)
      solve_block_f1(bi, F, C, fstatus, nrhs, f, x, status, nt, state, per);
    else
      solve_block_f0(bi, F, C, fstatus, nrhs, f, x, status, nt, state, per);
  } else if (bi->shared && bi->dt == GS_DOUBLE) {
    solve_cgroup_d(bi, F, C, fstatus, nrhs, f, x, status);
  } else if (bi->shared) {
    solve_cgroup_f(bi, F, C, fstatus, nrhs, f, x, status);
  } else if (bi->dt == GS_DOUBLE) {
    solve_d(bi, F, C, fstatus, nrhs, f, x, status);
  } else {
    solve_f(bi, F, C, fstatus, nrhs, f, x, status);
  }
  summarise(status, bi->batch, sum);
  return 0;
}

static int k_mult(GsContext ctx, const GsBandedInfo *bi, const void *const *D, GsInt nrhs,
                  const void *x, void *y) {
  (void)ctx;
  if (bi->dt == GS_DOUBLE)
    mult_d(bi, D, nrhs, x, y);
  else
    mult_f(bi, D, nrhs, x, y);
  return 0;
}

static int k_factor_solve(GsContext ctx, const GsBandedInfo *bi, const void *const *D,
                          void *const *F, const void *f, void *x, int *status,
                          GsBandedSummary *sum) {
  if (bi->interleaved) {
    int nt = 1;
    char *state = NULL;
    size_t per = 0;
    GsCall(block_state(ctx, &nt, &state, &per));
    if (bi->dt == GS_DOUBLE)
      factor_block_d(bi, D, F, status, (const double *)f, (double *)x, nt, state, per);
    else
      factor_block_f(bi, D, F, status, (const float *)f, (float *)x, nt, state, per);
  } else if (bi->dt == GS_DOUBLE)
    factor_solve_d(bi, D, F, f, x, status);
  else
    factor_solve_f(bi, D, F, f, x, status);
  summarise(status, bi->batch, sum);
  return 0;
}

static int k_status_read(GsContext ctx, const GsBandedInfo *bi, const int *status,
                         GsBandedSummary *sum) {
  (void)ctx;
  summarise(status, bi->batch, sum);
  return 0;
}

void GsCpuFillBandedKernels(GsBandedKernels *k) {
  k->status_read = k_status_read;
  k->factor_solve = k_factor_solve;
  k->factor = k_factor;
  k->solve = k_solve;
  k->mult = k_mult;
}
