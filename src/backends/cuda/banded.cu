/* CUDA batched banded kernels: one thread per system (per matrix for the factorisation), running
 * the per-system algorithms shared with the CPU back end (src/backends/common/banded_algo.h).
 *
 * With the interleaved layout, row i of consecutive systems is consecutive in memory, so the
 * threads of a warp load 32 consecutive entries per row: coalesced. The contiguous layout works
 * with the same kernels but its loads are strided (one system per thread); a split of long
 * systems over several threads is the next step for that regime and for few long systems.
 *
 * Floors (double, per unknown): factored solve reads the factor arrays (5 penta, 3 tri; +h for
 * periodic) and f and writes x: 56 / 40 bytes; with a shared matrix only f and x: 16 bytes.
 *
 * Status: the status array is cleared before a solve; a thread whose system fails writes its code,
 * and the first thread to mark a system counts it and lowers the first-bad index with atomics, so
 * the host reads two integers to know whether anything failed. */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "../common/banded_algo.h"
#include "cudaimpl.h"

GS_BANDED_ALGOS(double, d, DBL_EPSILON)
GS_BANDED_ALGOS(float, f, FLT_EPSILON)
GS_BANDED_PART_ALGOS(double, d, DBL_EPSILON)
GS_BANDED_PART_ALGOS(float, f, FLT_EPSILON)

#define GS_BANDED_THREADS 128
/* 4 resident blocks of 128 threads per SM (at most 128 registers a thread): 65536 systems, one
 * thread each, then fit the H200's 132 SMs in one wave (496 threads per SM). */
#define GS_BANDED_MIN_BLOCKS 4

/* Summary in device memory: bad systems and the smallest bad index (ULLONG_MAX when none). */
typedef struct {
  unsigned long long nbad, first;
} GsBandedDevSummary;

typedef struct {
  GsBandedShape sh;
  GsInt batch, nmat, stride, rhs_len, nrhs;
  int interleaved, shared, corner_len, nfac, bands, parts;
  GsInt blk; /* right-hand-side block of a partitioned solve */
} GsBandedKArgs;

typedef struct {
  const void *p[GS_BANDED_MAX_FAC];
} GsPtrs;

static __device__ __forceinline__ void gs_rhs_place(const GsBandedKArgs *a, GsInt s, GsInt *base,
                                                    GsInt *step) {
  *base = a->interleaved ? s : s * a->stride;
  *step = a->interleaved ? a->batch : 1;
}

static __device__ __forceinline__ void gs_mat_place(const GsBandedKArgs *a, GsInt s, GsInt *base,
                                                    GsInt *step) {
  if (a->shared) {
    *base = 0;
    *step = 1;
  } else {
    gs_rhs_place(a, s, base, step);
  }
}

/* Mark system s bad with code st (once) and update the summary. */
static __device__ __forceinline__ void gs_mark(int *status, GsInt s, int st,
                                               GsBandedDevSummary *sum) {
  if (atomicCAS(status + s, 0, st) == 0) {
    atomicAdd(&sum->nbad, 1ull);
    atomicMin(&sum->first, (unsigned long long)s);
  }
}

/* Kernels for element type T, BANDS (3 or 5) and PER (periodic 0/1) known at compile time: after
 * inlining, every index into the diagonal and factor pointer arrays is a constant, so they live
 * in registers rather than local memory, and the periodic code vanishes from non-periodic
 * kernels. */
#define GS_CUDA_BANDED(T, S, BANDS, PER)                                                           \
  static __global__ void __launch_bounds__(GS_BANDED_THREADS, GS_BANDED_MIN_BLOCKS)                \
      gs_banded_factor_k_##S##BANDS##PER(GsBandedKArgs a, GsPtrs Dp, GsPtrs Fp, T *C,              \
                                         int *fstatus) {                                           \
    const GsInt s = (GsInt)blockIdx.x * blockDim.x + threadIdx.x;                                  \
    if (s >= a.nmat) return;                                                                       \
    GsBandedShape sh = a.sh;                                                                       \
    sh.bands = BANDS;                                                                              \
    sh.h = BANDS / 2;                                                                              \
    sh.periodic = PER;                                                                             \
    const T *D[5];                                                                                 \
    T *F[GS_BANDED_MAX_FAC];                                                                       \
    _Pragma("unroll") for (int k = 0; k < 5; k++) D[k] = (const T *)Dp.p[k];                       \
    _Pragma("unroll") for (int k = 0; k < GS_BANDED_MAX_FAC; k++) F[k] = (T *)Fp.p[k];             \
    GsInt base, step;                                                                              \
    gs_mat_place(&a, s, &base, &step);                                                             \
    fstatus[s] = gs_banded_factor_##S(&sh, D, F, C + s * a.corner_len, base, step);                \
  }                                                                                                \
  static __global__ void __launch_bounds__(GS_BANDED_THREADS, GS_BANDED_MIN_BLOCKS)                \
      gs_banded_solve_k_##S##BANDS##PER(GsBandedKArgs a, GsPtrs Fp, const T *C,                    \
                                        const int *fstatus, const T *f, T *x, int *status,         \
                                        GsBandedDevSummary *sum) {                                 \
    const GsInt t = (GsInt)blockIdx.x * blockDim.x + threadIdx.x;                                  \
    if (t >= a.batch * a.nrhs) return;                                                             \
    GsBandedShape sh = a.sh;                                                                       \
    sh.bands = BANDS;                                                                              \
    sh.h = BANDS / 2;                                                                              \
    sh.periodic = PER;                                                                             \
    const GsInt s = t % a.batch, blk = t / a.batch, mat = a.shared ? 0 : s;                        \
    const T *F[GS_BANDED_MAX_FAC];                                                                 \
    _Pragma("unroll") for (int k = 0; k < GS_BANDED_MAX_FAC; k++) F[k] = (const T *)Fp.p[k];       \
    GsInt rb, rs, fb, fs;                                                                          \
    gs_rhs_place(&a, s, &rb, &rs);                                                                 \
    rb += blk * a.rhs_len;                                                                         \
    gs_mat_place(&a, s, &fb, &fs);                                                                 \
    int st = fstatus[mat];                                                                         \
    if (st)                                                                                        \
      gs_banded_poison_##S(sh.n, x, rb, rs);                                                       \
    else                                                                                           \
      st = gs_banded_solve_##S(&sh, F, C + mat * a.corner_len, fb, fs, f, x, rb, rs);              \
    if (st) gs_mark(status, s, st, sum);                                                           \
  }                                                                                                \
  static __global__ void __launch_bounds__(GS_BANDED_THREADS, GS_BANDED_MIN_BLOCKS)                \
      gs_banded_fsolve_k_##S##BANDS##PER(GsBandedKArgs a, GsPtrs Dp, GsPtrs Fp, const T *f, T *x,  \
                                         int *status, GsBandedDevSummary *sum) {                   \
    const GsInt s = (GsInt)blockIdx.x * blockDim.x + threadIdx.x;                                  \
    if (PER || s >= a.batch) return; /* the fused sweep is for non-periodic systems */             \
    GsBandedShape sh = a.sh;                                                                       \
    sh.bands = BANDS;                                                                              \
    sh.h = BANDS / 2;                                                                              \
    sh.periodic = 0;                                                                               \
    const T *D[5];                                                                                 \
    T *F[GS_BANDED_MAX_FAC];                                                                       \
    _Pragma("unroll") for (int k = 0; k < 5; k++) D[k] = (const T *)Dp.p[k];                       \
    _Pragma("unroll") for (int k = 0; k < GS_BANDED_MAX_FAC; k++) F[k] = (T *)Fp.p[k];             \
    GsInt rb, rs;                                                                                  \
    gs_rhs_place(&a, s, &rb, &rs);                                                                 \
    const int st = gs_banded_factor_solve_##S(&sh, D, F, rb, rs, f, x, rb, rs);                    \
    if (st) gs_mark(status, s, st, sum);                                                           \
  }                                                                                                \
  static __global__ void gs_banded_mult_k_##S##BANDS##PER(GsBandedKArgs a, GsPtrs Dp, const T *x,  \
                                                          T *y) {                                  \
    const GsInt t = (GsInt)blockIdx.x * blockDim.x + threadIdx.x;                                  \
    if (t >= a.batch * a.nrhs) return;                                                             \
    GsBandedShape sh = a.sh;                                                                       \
    sh.bands = BANDS;                                                                              \
    sh.h = BANDS / 2;                                                                              \
    sh.periodic = PER;                                                                             \
    const GsInt s = t % a.batch, blk = t / a.batch;                                                \
    const T *D[5];                                                                                 \
    _Pragma("unroll") for (int k = 0; k < 5; k++) D[k] = (const T *)Dp.p[k];                       \
    GsInt rb, rs, db, ds;                                                                          \
    gs_rhs_place(&a, s, &rb, &rs);                                                                 \
    rb += blk * a.rhs_len;                                                                         \
    gs_mat_place(&a, s, &db, &ds);                                                                 \
    gs_banded_mult_##S(&sh, D, db, ds, x, y, rb, rs);                                              \
  }

/* Tables of kernel instances, indexed [bands == 5][periodic]. */
#define GS_CUDA_BANDED_ALL(T, S)                                                                   \
  GS_CUDA_BANDED(T, S, 3, 0)                                                                       \
  GS_CUDA_BANDED(T, S, 3, 1)                                                                       \
  GS_CUDA_BANDED(T, S, 5, 0)                                                                       \
  GS_CUDA_BANDED(T, S, 5, 1)                                                                       \
  typedef void (*GsFactorK_##S)(GsBandedKArgs, GsPtrs, GsPtrs, T *, int *);                        \
  typedef void (*GsSolveK_##S)(GsBandedKArgs, GsPtrs, const T *, const int *, const T *, T *,      \
                               int *, GsBandedDevSummary *);                                       \
  typedef void (*GsMultK_##S)(GsBandedKArgs, GsPtrs, const T *, T *);                              \
  typedef void (*GsFSolveK_##S)(GsBandedKArgs, GsPtrs, GsPtrs, const T *, T *, int *,              \
                                GsBandedDevSummary *);                                             \
  /* [bands == 5][periodic]: the periodic instances return at once (never launched). */            \
  static const GsFSolveK_##S gs_fsolve_k_##S[2][2] = {                                             \
      {gs_banded_fsolve_k_##S##30, gs_banded_fsolve_k_##S##31},                                    \
      {gs_banded_fsolve_k_##S##50, gs_banded_fsolve_k_##S##51}};                                   \
  static const GsFactorK_##S gs_factor_k_##S[2][2] = {                                             \
      {gs_banded_factor_k_##S##30, gs_banded_factor_k_##S##31},                                    \
      {gs_banded_factor_k_##S##50, gs_banded_factor_k_##S##51}};                                   \
  static const GsSolveK_##S gs_solve_k_##S[2][2] = {                                               \
      {gs_banded_solve_k_##S##30, gs_banded_solve_k_##S##31},                                      \
      {gs_banded_solve_k_##S##50, gs_banded_solve_k_##S##51}};                                     \
  static const GsMultK_##S gs_mult_k_##S[2][2] = {                                                 \
      {gs_banded_mult_k_##S##30, gs_banded_mult_k_##S##31},                                        \
      {gs_banded_mult_k_##S##50, gs_banded_mult_k_##S##51}};

GS_CUDA_BANDED_ALL(double, d)
GS_CUDA_BANDED_ALL(float, f)

/* Partitioned (SPIKE) kernels, non-periodic only. Threads of one partition index are consecutive
 * systems, so the interleaved layout stays coalesced: thread t = j * count + s. */
#define GS_CUDA_BANDED_PART(T, S, BANDS)                                                           \
  static __global__ void __launch_bounds__(GS_BANDED_THREADS, GS_BANDED_MIN_BLOCKS)                \
      gs_banded_pfactor1_k_##S##BANDS(GsBandedKArgs a, GsPtrs Dp, GsPtrs Fp, int *pstatus) {       \
    const GsInt t = (GsInt)blockIdx.x * blockDim.x + threadIdx.x;                                  \
    if (t >= a.nmat * a.parts) return;                                                             \
    const GsInt s = t % a.nmat;                                                                    \
    const int j = (int)(t / a.nmat);                                                               \
    GsBandedShape sh = a.sh;                                                                       \
    sh.bands = BANDS;                                                                              \
    sh.h = BANDS / 2;                                                                              \
    sh.periodic = 0;                                                                               \
    const T *D[5];                                                                                 \
    T *F[GS_BANDED_MAX_FAC];                                                                       \
    _Pragma("unroll") for (int k = 0; k < 5; k++) D[k] = (const T *)Dp.p[k];                       \
    _Pragma("unroll") for (int k = 0; k < GS_BANDED_MAX_FAC; k++) F[k] = (T *)Fp.p[k];             \
    GsInt base, step;                                                                              \
    gs_mat_place(&a, s, &base, &step);                                                             \
    pstatus[s * a.parts + j] = gs_banded_part_factor_##S(&sh, D, F, base, step, a.parts, j);       \
  }                                                                                                \
  static __global__ void gs_banded_pfactor2_k_##S##BANDS(GsBandedKArgs a, GsPtrs Fp, T *C,         \
                                                         const int *pstatus, int *fstatus) {       \
    const GsInt s = (GsInt)blockIdx.x * blockDim.x + threadIdx.x;                                  \
    if (s >= a.nmat) return;                                                                       \
    GsBandedShape sh = a.sh;                                                                       \
    sh.bands = BANDS;                                                                              \
    sh.h = BANDS / 2;                                                                              \
    sh.periodic = 0;                                                                               \
    const T *F[GS_BANDED_MAX_FAC];                                                                 \
    _Pragma("unroll") for (int k = 0; k < GS_BANDED_MAX_FAC; k++) F[k] = (const T *)Fp.p[k];       \
    int st = 0;                                                                                    \
    for (int j = 0; j < a.parts && !st; j++)                                                       \
      st = pstatus[s * a.parts + j];                                                               \
    if (!st) {                                                                                     \
      GsInt base, step;                                                                            \
      gs_mat_place(&a, s, &base, &step);                                                           \
      st = gs_banded_part_reduce_factor_##S(&sh, F, base, step, a.parts, C + s * a.corner_len);    \
    }                                                                                              \
    fstatus[s] = st;                                                                               \
  }                                                                                                \
  static __global__ void __launch_bounds__(GS_BANDED_THREADS, GS_BANDED_MIN_BLOCKS)                \
      gs_banded_psolve1_k_##S##BANDS(GsBandedKArgs a, GsPtrs Fp, const int *fstatus, const T *f,   \
                                     T *x) {                                                       \
    const GsInt t = (GsInt)blockIdx.x * blockDim.x + threadIdx.x;                                  \
    if (t >= a.batch * a.parts) return;                                                            \
    const GsInt s = t % a.batch;                                                                   \
    const int j = (int)(t / a.batch);                                                              \
    if (fstatus[a.shared ? 0 : s]) return;                                                         \
    GsBandedShape sh = a.sh;                                                                       \
    sh.bands = BANDS;                                                                              \
    sh.h = BANDS / 2;                                                                              \
    sh.periodic = 0;                                                                               \
    const T *F[GS_BANDED_MAX_FAC];                                                                 \
    _Pragma("unroll") for (int k = 0; k < GS_BANDED_MAX_FAC; k++) F[k] = (const T *)Fp.p[k];       \
    GsInt rb, rs, fb, fs, r0, r1;                                                                  \
    gs_rhs_place(&a, s, &rb, &rs);                                                                 \
    rb += a.blk * a.rhs_len;                                                                       \
    gs_mat_place(&a, s, &fb, &fs);                                                                 \
    gs_part_range(sh.n, a.parts, j, &r0, &r1);                                                     \
    sh.m = r1 - r0;                                                                                \
    (void)gs_banded_lu_solve_##S(&sh, F, fb + r0 * fs, fs, f, x, rb + r0 * rs, rs);                \
  }                                                                                                \
  static __global__ void gs_banded_psolve2_k_##S##BANDS(GsBandedKArgs a, const T *C,               \
                                                        const int *fstatus, const T *x, T *X) {    \
    const GsInt s = (GsInt)blockIdx.x * blockDim.x + threadIdx.x;                                  \
    if (s >= a.batch) return;                                                                      \
    const GsInt mat = a.shared ? 0 : s;                                                            \
    if (fstatus[mat]) return;                                                                      \
    GsBandedShape sh = a.sh;                                                                       \
    sh.bands = BANDS;                                                                              \
    sh.h = BANDS / 2;                                                                              \
    sh.periodic = 0;                                                                               \
    GsInt rb, rs;                                                                                  \
    gs_rhs_place(&a, s, &rb, &rs);                                                                 \
    rb += a.blk * a.rhs_len;                                                                       \
    gs_banded_part_reduce_solve_##S(&sh, C + mat * a.corner_len, a.parts, x, rb, rs,               \
                                    X + s * a.parts * (BANDS / 2) * 2);                            \
  }                                                                                                \
  static __global__ void __launch_bounds__(GS_BANDED_THREADS, GS_BANDED_MIN_BLOCKS)                \
      gs_banded_psolve3_k_##S##BANDS(GsBandedKArgs a, GsPtrs Fp, const int *fstatus, const T *X,   \
                                     T *x, int *status, GsBandedDevSummary *sum) {                 \
    const GsInt t = (GsInt)blockIdx.x * blockDim.x + threadIdx.x;                                  \
    if (t >= a.batch * a.parts) return;                                                            \
    const GsInt s = t % a.batch;                                                                   \
    const int j = (int)(t / a.batch);                                                              \
    GsBandedShape sh = a.sh;                                                                       \
    sh.bands = BANDS;                                                                              \
    sh.h = BANDS / 2;                                                                              \
    sh.periodic = 0;                                                                               \
    const T *F[GS_BANDED_MAX_FAC];                                                                 \
    _Pragma("unroll") for (int k = 0; k < GS_BANDED_MAX_FAC; k++) F[k] = (const T *)Fp.p[k];       \
    GsInt rb, rs, fb, fs;                                                                          \
    gs_rhs_place(&a, s, &rb, &rs);                                                                 \
    rb += a.blk * a.rhs_len;                                                                       \
    gs_mat_place(&a, s, &fb, &fs);                                                                 \
    int st = fstatus[a.shared ? 0 : s];                                                            \
    if (st) {                                                                                      \
      GsInt r0, r1;                                                                                \
      gs_part_range(sh.n, a.parts, j, &r0, &r1);                                                   \
      for (GsInt i = r0; i < r1; i++)                                                              \
        x[rb + i * rs] = (T)NAN;                                                                   \
    } else if (!gs_banded_part_correct_##S(&sh, F, fb, fs, a.parts, j,                             \
                                           X + s * a.parts * (BANDS / 2) * 2, x, rb, rs)) {        \
      st = GS_BANDED_NOT_FINITE;                                                                   \
    }                                                                                              \
    if (st) gs_mark(status, s, st, sum);                                                           \
  }

GS_CUDA_BANDED_PART(double, d, 3)
GS_CUDA_BANDED_PART(double, d, 5)
GS_CUDA_BANDED_PART(float, f, 3)
GS_CUDA_BANDED_PART(float, f, 5)

/* Tables of the partitioned kernels, indexed [bands == 5]. */
#define GS_CUDA_PART_TABLES(T, S)                                                                  \
  typedef void (*GsPF1_##S)(GsBandedKArgs, GsPtrs, GsPtrs, int *);                                 \
  typedef void (*GsPF2_##S)(GsBandedKArgs, GsPtrs, T *, const int *, int *);                       \
  typedef void (*GsPS1_##S)(GsBandedKArgs, GsPtrs, const int *, const T *, T *);                   \
  typedef void (*GsPS2_##S)(GsBandedKArgs, const T *, const int *, const T *, T *);                \
  typedef void (*GsPS3_##S)(GsBandedKArgs, GsPtrs, const int *, const T *, T *, int *,             \
                            GsBandedDevSummary *);                                                 \
  static const GsPF1_##S gs_pf1_##S[2] = {gs_banded_pfactor1_k_##S##3,                             \
                                          gs_banded_pfactor1_k_##S##5};                            \
  static const GsPF2_##S gs_pf2_##S[2] = {gs_banded_pfactor2_k_##S##3,                             \
                                          gs_banded_pfactor2_k_##S##5};                            \
  static const GsPS1_##S gs_ps1_##S[2] = {gs_banded_psolve1_k_##S##3, gs_banded_psolve1_k_##S##5}; \
  static const GsPS2_##S gs_ps2_##S[2] = {gs_banded_psolve2_k_##S##3, gs_banded_psolve2_k_##S##5}; \
  static const GsPS3_##S gs_ps3_##S[2] = {gs_banded_psolve3_k_##S##3, gs_banded_psolve3_k_##S##5};

GS_CUDA_PART_TABLES(double, d)
GS_CUDA_PART_TABLES(float, f)

/* Spread the factor status over the systems (a shared matrix's status applies to all) and count
 * the bad ones. */
static __global__ void gs_banded_expand_k(const int *fstatus, int shared, GsInt batch, int *status,
                                          GsBandedDevSummary *sum) {
  const GsInt s = (GsInt)blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= batch) return;
  const int st = fstatus[shared ? 0 : s];
  status[s] = st;
  if (st) {
    atomicAdd(&sum->nbad, 1ull);
    atomicMin(&sum->first, (unsigned long long)s);
  }
}

static GsBandedKArgs kargs(const GsBandedInfo *bi, GsInt nrhs) {
  GsBandedKArgs a;
  memset(&a, 0, sizeof a);
  a.sh.bands = bi->bands;
  a.sh.h = bi->h;
  a.sh.periodic = bi->periodic;
  a.sh.n = bi->n;
  a.sh.m = bi->m;
  a.sh.spd = bi->spd;
  a.batch = bi->batch;
  a.nmat = bi->nmat;
  a.stride = bi->stride;
  a.rhs_len = bi->rhs_len;
  a.nrhs = nrhs;
  a.interleaved = bi->interleaved;
  a.shared = bi->shared;
  a.corner_len = bi->corner_len;
  a.nfac = bi->nfac;
  a.bands = bi->bands;
  a.parts = bi->parts;
  return a;
}

static unsigned int blocks_for(GsInt threads) {
  return (unsigned int)((threads + GS_BANDED_THREADS - 1) / GS_BANDED_THREADS);
}

/* The summary lives in the context's reduction scratch (the stream orders its uses). */
static int summary_reset(GsContext ctx, GsCudaContext *cc, GsBandedDevSummary **dsum) {
  *dsum = (GsBandedDevSummary *)cc->results;
  GsCallCuda(ctx, cudaMemsetAsync(&(*dsum)->nbad, 0, sizeof(unsigned long long), cc->stream));
  GsCallCuda(ctx, cudaMemsetAsync(&(*dsum)->first, 0xff, sizeof(unsigned long long), cc->stream));
  return 0;
}

/* Bring the summary to the host; with bad systems also the first one's code. */
static int summary_read(GsContext ctx, GsCudaContext *cc, const GsBandedDevSummary *dsum,
                        const int *status, GsBandedSummary *sum) {
  GsBandedDevSummary *h = (GsBandedDevSummary *)cc->results_host;
  GsCallCuda(ctx, cudaMemcpyAsync(h, dsum, sizeof *h, cudaMemcpyDeviceToHost, cc->stream));
  GsCallCuda(ctx, cudaStreamSynchronize(cc->stream));
  sum->nbad = (GsInt)h->nbad;
  sum->first = h->nbad ? (GsInt)h->first : -1;
  sum->code = 0;
  if (h->nbad) {
    int code = 0;
    GsCallCuda(ctx, cudaMemcpy(&code, status + h->first, sizeof code, cudaMemcpyDeviceToHost));
    sum->code = code;
  }
  return 0;
}

static GsPtrs ptrs(const void *const *p, int n) {
  GsPtrs r;
  memset(&r, 0, sizeof r);
  for (int k = 0; k < n; k++)
    r.p[k] = p[k];
  return r;
}

static int k_factor(GsContext ctx, const GsBandedInfo *bi, const void *const *D, void *const *F,
                    void *C, int *fstatus, int *status, void *work, GsBandedSummary *sum) {
  GsCudaContext *cc = NULL;
  GsCall(GsCudaBegin(ctx, &cc));
  GsBandedKArgs a = kargs(bi, 1);
  GsPtrs Dp = ptrs(D, bi->bands), Fp = ptrs((const void *const *)F, bi->nfac);
  const int b5 = bi->bands == 5, per = bi->periodic;
  if (bi->parts > 1) {
    const unsigned int nb1 = blocks_for(bi->nmat * bi->parts), nb2 = blocks_for(bi->nmat);
    if (bi->dt == GS_DOUBLE) {
      gs_pf1_d[b5]<<<nb1, GS_BANDED_THREADS, 0, cc->stream>>>(a, Dp, Fp, (int *)work);
      gs_pf2_d[b5]<<<nb2, GS_BANDED_THREADS, 0, cc->stream>>>(a, Fp, (double *)C, (const int *)work,
                                                              fstatus);
    } else {
      gs_pf1_f[b5]<<<nb1, GS_BANDED_THREADS, 0, cc->stream>>>(a, Dp, Fp, (int *)work);
      gs_pf2_f[b5]<<<nb2, GS_BANDED_THREADS, 0, cc->stream>>>(a, Fp, (float *)C, (const int *)work,
                                                              fstatus);
    }
    GsCheckLaunchCuda(ctx, "gs_banded_pfactor_k");
  } else if (bi->dt == GS_DOUBLE)
    gs_factor_k_d[b5][per]<<<blocks_for(bi->nmat), GS_BANDED_THREADS, 0, cc->stream>>>(
        a, Dp, Fp, (double *)C, fstatus);
  else
    gs_factor_k_f[b5][per]<<<blocks_for(bi->nmat), GS_BANDED_THREADS, 0, cc->stream>>>(
        a, Dp, Fp, (float *)C, fstatus);
  GsCheckLaunchCuda(ctx, "gs_banded_factor_k");
  GsBandedDevSummary *dsum = NULL;
  GsCall(summary_reset(ctx, cc, &dsum));
  gs_banded_expand_k<<<blocks_for(bi->batch), GS_BANDED_THREADS, 0, cc->stream>>>(
      fstatus, bi->shared, bi->batch, status, dsum);
  GsCheckLaunchCuda(ctx, "gs_banded_expand_k");
  GsCall(summary_read(ctx, cc, dsum, status, sum));
  return 0;
}

static int k_solve(GsContext ctx, const GsBandedInfo *bi, const void *const *F, const void *C,
                   const int *fstatus, GsInt nrhs, const void *f, void *x, int *status, void *work,
                   GsBandedSummary *sum) {
  GsCudaContext *cc = NULL;
  GsCall(GsCudaBegin(ctx, &cc));
  GsBandedKArgs a = kargs(bi, nrhs);
  GsPtrs Fp = ptrs(F, bi->nfac);
  GsBandedDevSummary *dsum = NULL;
  GsCall(summary_reset(ctx, cc, &dsum));
  GsCallCuda(ctx, cudaMemsetAsync(status, 0, (size_t)bi->batch * sizeof(int), cc->stream));
  if (bi->parts > 1) { /* partial solves, reduced systems, corrections; block by block */
    const unsigned int nbt = blocks_for(bi->batch * bi->parts), nbs = blocks_for(bi->batch);
    const int b5 = bi->bands == 5;
    for (GsInt blk = 0; blk < nrhs; blk++) {
      a.blk = blk;
      if (bi->dt == GS_DOUBLE) {
        gs_ps1_d[b5]<<<nbt, GS_BANDED_THREADS, 0, cc->stream>>>(a, Fp, fstatus, (const double *)f,
                                                                (double *)x);
        gs_ps2_d[b5]<<<nbs, GS_BANDED_THREADS, 0, cc->stream>>>(a, (const double *)C, fstatus,
                                                                (const double *)x, (double *)work);
        gs_ps3_d[b5]<<<nbt, GS_BANDED_THREADS, 0, cc->stream>>>(
            a, Fp, fstatus, (const double *)work, (double *)x, status, dsum);
      } else {
        gs_ps1_f[b5]<<<nbt, GS_BANDED_THREADS, 0, cc->stream>>>(a, Fp, fstatus, (const float *)f,
                                                                (float *)x);
        gs_ps2_f[b5]<<<nbs, GS_BANDED_THREADS, 0, cc->stream>>>(a, (const float *)C, fstatus,
                                                                (const float *)x, (float *)work);
        gs_ps3_f[b5]<<<nbt, GS_BANDED_THREADS, 0, cc->stream>>>(a, Fp, fstatus, (const float *)work,
                                                                (float *)x, status, dsum);
      }
      GsCheckLaunchCuda(ctx, "gs_banded_psolve_k");
    }
    GsCall(summary_read(ctx, cc, dsum, status, sum));
    return 0;
  }
  const unsigned int nb = blocks_for(bi->batch * nrhs);
  const int b5 = bi->bands == 5, per = bi->periodic;
  if (bi->dt == GS_DOUBLE)
    gs_solve_k_d[b5][per]<<<nb, GS_BANDED_THREADS, 0, cc->stream>>>(
        a, Fp, (const double *)C, fstatus, (const double *)f, (double *)x, status, dsum);
  else
    gs_solve_k_f[b5][per]<<<nb, GS_BANDED_THREADS, 0, cc->stream>>>(
        a, Fp, (const float *)C, fstatus, (const float *)f, (float *)x, status, dsum);
  GsCheckLaunchCuda(ctx, "gs_banded_solve_k");
  GsCall(summary_read(ctx, cc, dsum, status, sum));
  return 0;
}

static int k_mult(GsContext ctx, const GsBandedInfo *bi, const void *const *D, GsInt nrhs,
                  const void *x, void *y) {
  GsCudaContext *cc = NULL;
  GsCall(GsCudaBegin(ctx, &cc));
  GsBandedKArgs a = kargs(bi, nrhs);
  GsPtrs Dp = ptrs(D, bi->bands);
  const unsigned int nb = blocks_for(bi->batch * nrhs);
  const int b5 = bi->bands == 5, per = bi->periodic;
  if (bi->dt == GS_DOUBLE)
    gs_mult_k_d[b5][per]<<<nb, GS_BANDED_THREADS, 0, cc->stream>>>(a, Dp, (const double *)x,
                                                                   (double *)y);
  else
    gs_mult_k_f[b5][per]<<<nb, GS_BANDED_THREADS, 0, cc->stream>>>(a, Dp, (const float *)x,
                                                                   (float *)y);
  GsCheckLaunchCuda(ctx, "gs_banded_mult_k");
  return 0;
}

static int k_factor_solve(GsContext ctx, const GsBandedInfo *bi, const void *const *D,
                          void *const *F, const void *f, void *x, int *status,
                          GsBandedSummary *sum) {
  GsCudaContext *cc = NULL;
  GsCall(GsCudaBegin(ctx, &cc));
  GsBandedKArgs a = kargs(bi, 1);
  GsPtrs Dp = ptrs(D, bi->bands), Fp = ptrs((const void *const *)F, bi->nfac);
  GsBandedDevSummary *dsum = NULL;
  GsCall(summary_reset(ctx, cc, &dsum));
  GsCallCuda(ctx, cudaMemsetAsync(status, 0, (size_t)bi->batch * sizeof(int), cc->stream));
  const int b5 = bi->bands == 5;
  if (bi->dt == GS_DOUBLE)
    gs_fsolve_k_d[b5][0]<<<blocks_for(bi->batch), GS_BANDED_THREADS, 0, cc->stream>>>(
        a, Dp, Fp, (const double *)f, (double *)x, status, dsum);
  else
    gs_fsolve_k_f[b5][0]<<<blocks_for(bi->batch), GS_BANDED_THREADS, 0, cc->stream>>>(
        a, Dp, Fp, (const float *)f, (float *)x, status, dsum);
  GsCheckLaunchCuda(ctx, "gs_banded_fsolve_k");
  GsCall(summary_read(ctx, cc, dsum, status, sum));
  return 0;
}

extern "C" void GsCudaFillBandedKernels(GsBandedKernels *k) {
  k->factor_solve = k_factor_solve;
  k->factor = k_factor;
  k->solve = k_solve;
  k->mult = k_mult;
}
