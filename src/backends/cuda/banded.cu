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
/* Partitioned solves: few threads, each walking a long partition, so longer chunks (more loads in
 * flight per thread) and small blocks (spread over every SM); the arithmetic is the same. */
#define GS_PART_CHUNK 16
#define GS_PART_THREADS 64
GS_BANDED_ALGOS_K(double, dw, DBL_EPSILON, GS_PART_CHUNK)
GS_BANDED_ALGOS_K(float, fw, FLT_EPSILON, GS_PART_CHUNK)
GS_BANDED_PART_ALGOS_K(double, dw, DBL_EPSILON, GS_PART_CHUNK)
GS_BANDED_PART_ALGOS_K(float, fw, FLT_EPSILON, GS_PART_CHUNK)
/* The sweeps again with staging compiled in (suffix s), for the kernels that solve contiguous
 * right-hand sides of a shared matrix: other kernels keep the registers they had without it. */
GS_BANDED_ALGOS_KS(double, ds, DBL_EPSILON, GS_BANDED_CHUNK, 1)
GS_BANDED_ALGOS_KS(float, fs, FLT_EPSILON, GS_BANDED_CHUNK, 1)
GS_BANDED_ALGOS_KS(double, dws, DBL_EPSILON, GS_PART_CHUNK, 1)
GS_BANDED_ALGOS_KS(float, fws, FLT_EPSILON, GS_PART_CHUNK, 1)
GS_BANDED_TILE_ALGOS(double, d)
GS_BANDED_TILE_ALGOS(float, f)
GS_BANDED_SCAN_ALGOS(double, d)
GS_BANDED_SCAN_ALGOS(float, f)

#define GS_BANDED_THREADS 128
/* 4 resident blocks of 128 threads per SM (at most 128 registers a thread): 65536 systems, one
 * thread each, then fit the H200's 132 SMs in one wave (496 threads per SM). */
#define GS_BANDED_MIN_BLOCKS 4

/* Summary in device memory: bad systems and the smallest bad index (ULLONG_MAX when none); flag:
 * the device address of the object's GsBandedHostSummary::marked (NULL where it has none), set
 * by the clear kernel. */
typedef struct {
  unsigned long long nbad, first;
  unsigned int *flag;
} GsBandedDevSummary;

/* The object's words in pinned host memory (GsBandedInfo::summary_host, zeroed at creation).
 * marked: written 1 by the device whenever it marks a system bad, so that after a call the host
 * learns from one word of its own memory that nothing was marked, without a copy from the
 * device; clean: the device summary and status[] hold no marks (the host knows it from a read
 * that found none), so the next call need not clear them. A call that may mark takes clean away
 * before it runs; only a read after it, with marked still 0, gives it back. */
typedef struct {
  volatile unsigned int marked;
  int clean;
  int mapped; /* 1: dev is marked's device address; -1: none, so the host summary is not used
               * (every call clears and copies back); 0: not yet looked up */
  unsigned int *dev;
  /* -banded_tile_tail auto (GS_TILE_TAIL): 1 where the last Factor found the rows W reaches
   * few enough for the tail's own kernel (tile_tail_few), read back once a Factor */
  int tail_few;
} GsBandedHostSummary;

/* The object's host summary, or NULL where it has none or the device cannot write it. */
static GsBandedHostSummary *host_summary(const GsBandedInfo *bi) {
  GsBandedHostSummary *hs = (GsBandedHostSummary *)bi->summary_host;
  if (!hs || hs->mapped < 0) return NULL;
  if (!hs->mapped) {
    void *dp = NULL;
    if (cudaHostGetDevicePointer(&dp, (void *)&hs->marked, 0) == cudaSuccess && dp) {
      hs->dev = (unsigned int *)dp;
      hs->mapped = 1;
    } else {
      (void)cudaGetLastError(); /* not sticky: this call's failure only */
      hs->mapped = -1;
      return NULL;
    }
  }
  return hs;
}
static_assert(sizeof(GsBandedDevSummary) <= GS_BANDED_SUMMARY_BYTES, "device summary size");
static_assert(sizeof(GsBandedHostSummary) <= GS_BANDED_SUMMARY_HOST_BYTES, "host summary size");

typedef struct {
  GsBandedShape sh;
  GsInt batch, nmat, stride, rhs_len, nrhs;
  int interleaved, shared, corner_len, nfac, bands, parts;
  int tile_l, tile_p; /* TILE: rows per chunk, chunks per system */
  int scan_layout;    /* SCAN: factors in the scan's own layout (gs_scan_layout_len) */
  int scan_threads;   /* SCAN: threads a block */
  int tile_split;     /* TILE in two passes (the maps after the table) */
  const void *tile_img; /* one-pass TILE in double: the shared-memory image (gs_tile_image_len)
                         * to copy, or NULL: build it from the table */
  GsInt blk;          /* right-hand-side block of a partitioned solve */
  /* A solve's fused update (GsBandedSolveAXPBYPCZ, where the kernel does it): x becomes ua ux +
   * ub uy + uc (solution); ux NULL: none. */
  const void *ux, *uy;
  double ua, ub, uc;
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

/* A kernel's view of the batch shape: the batch's, with the band count and periodicity of the
 * kernel instance (compile-time constants once inlined). */
static __device__ __forceinline__ GsBandedShape gs_kshape(const GsBandedKArgs *a, int bands,
                                                          int periodic) {
  GsBandedShape sh = a->sh;
  sh.bands = bands;
  sh.h = bands / 2;
  sh.periodic = periodic;
  return sh;
}

/* Mark system s bad with code st (once) and update the summary. */
static __device__ __forceinline__ void gs_mark(int *status, GsInt s, int st,
                                               GsBandedDevSummary *sum) {
  if (atomicCAS(status + s, 0, st) == 0) {
    atomicAdd(&sum->nbad, 1ull);
    atomicMin(&sum->first, (unsigned long long)s);
    unsigned int *flag = sum->flag;
    if (flag) *(volatile unsigned int *)flag = 1u; /* a store to host memory, not an atomic */
  }
}

/* Let a warp stage its right-hand sides through shared memory (GS_BANDED_STAGE_WARPS) when its
 * 32 lanes all have work (t: the thread's index among total threads with work) and sweep 32
 * systems of contiguous rows a stride apart (rb: the lane's first row) with one shared matrix, so
 * that every lane takes the same path through the sweeps; else mark the warp as not staging. */
static __device__ __forceinline__ void gs_stage_setup(const GsBandedKArgs *a, GsInt t, GsInt total,
                                                      GsInt rb) {
  const int lane = (int)(threadIdx.x & 31);
  GsInt ls = 0;
  if (!a->interleaved && a->shared && t - lane + 32 <= total) { /* the same in every lane */
    const GsInt r0 = __shfl_sync(0xffffffffu, rb, 0);
    if (__all_sync(0xffffffffu, rb == r0 + (GsInt)lane * a->stride)) ls = a->stride;
  }
  if (lane == 0) gs_stage_smem[threadIdx.x >> 5] = ls;
  __syncwarp(__activemask());
}

/* The solve kernel, sweeping with the algorithms of suffix A; STG 1: staging contiguous
 * right-hand sides of a shared matrix (launched only for those). */
#define GS_CUDA_BANDED_SOLVE(T, S, A, NAME, BANDS, PER, STG)                                       \
  static __global__ void __launch_bounds__(GS_BANDED_THREADS, GS_BANDED_MIN_BLOCKS)                \
      gs_banded_##NAME##_k_##S##BANDS##PER(GsBandedKArgs a, GsPtrs Fp, const T *C,                 \
                                           const int *fstatus, const T *f, T *x, int *status,      \
                                           GsBandedDevSummary *sum) {                              \
    const GsInt t = (GsInt)blockIdx.x * blockDim.x + threadIdx.x;                                  \
    if (t >= a.batch * a.nrhs) return;                                                             \
    GsBandedShape sh = gs_kshape(&a, BANDS, PER);                                                  \
    const GsInt s = t % a.batch, blk = t / a.batch, mat = a.shared ? 0 : s;                        \
    const T *F[GS_BANDED_MAX_FAC];                                                                 \
    _Pragma("unroll") for (int k = 0; k < GS_BANDED_MAX_FAC; k++) F[k] = (const T *)Fp.p[k];       \
    GsInt rb, rs, fb, fs;                                                                          \
    gs_rhs_place(&a, s, &rb, &rs);                                                                 \
    rb += blk * a.rhs_len;                                                                         \
    gs_mat_place(&a, s, &fb, &fs);                                                                 \
    GS_IF(STG, gs_stage_setup(&a, t, a.batch *a.nrhs, rb);)                                        \
    int st = fstatus[mat];                                                                         \
    if (st)                                                                                        \
      gs_banded_poison_##S(sh.n, x, rb, rs);                                                       \
    else                                                                                           \
      st = gs_banded_solve_##A(&sh, F, C + mat * a.corner_len, fb, fs, f, x, rb, rs);              \
    if (st) gs_mark(status, s, st, sum);                                                           \
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
    GsBandedShape sh = gs_kshape(&a, BANDS, PER);                                                  \
    const T *D[5];                                                                                 \
    T *F[GS_BANDED_MAX_FAC];                                                                       \
    _Pragma("unroll") for (int k = 0; k < 5; k++) D[k] = (const T *)Dp.p[k];                       \
    _Pragma("unroll") for (int k = 0; k < GS_BANDED_MAX_FAC; k++) F[k] = (T *)Fp.p[k];             \
    GsInt base, step;                                                                              \
    gs_mat_place(&a, s, &base, &step);                                                             \
    fstatus[s] = gs_banded_factor_##S(&sh, D, F, C + s * a.corner_len, base, step);                \
  }                                                                                                \
  GS_CUDA_BANDED_SOLVE(T, S, S, solve, BANDS, PER, 0)                                              \
  GS_CUDA_BANDED_SOLVE(T, S, S##s, solve_st, BANDS, PER, 1)                                        \
  static __global__ void __launch_bounds__(GS_BANDED_THREADS, GS_BANDED_MIN_BLOCKS)                \
      gs_banded_fsolve_k_##S##BANDS##PER(GsBandedKArgs a, GsPtrs Dp, GsPtrs Fp, const T *f, T *x,  \
                                         int *status, GsBandedDevSummary *sum) {                   \
    const GsInt s = (GsInt)blockIdx.x * blockDim.x + threadIdx.x;                                  \
    if (PER || s >= a.batch) return; /* the fused sweep is for non-periodic systems */             \
    GsBandedShape sh = gs_kshape(&a, BANDS, 0);                                                    \
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
    GsBandedShape sh = gs_kshape(&a, BANDS, PER);                                                  \
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
  static const GsSolveK_##S gs_solve_st_k_##S[2][2] = {                                            \
      {gs_banded_solve_st_k_##S##30, gs_banded_solve_st_k_##S##31},                                \
      {gs_banded_solve_st_k_##S##50, gs_banded_solve_st_k_##S##51}};                               \
  static const GsMultK_##S gs_mult_k_##S[2][2] = {                                                 \
      {gs_banded_mult_k_##S##30, gs_banded_mult_k_##S##31},                                        \
      {gs_banded_mult_k_##S##50, gs_banded_mult_k_##S##51}};

GS_CUDA_BANDED_ALL(double, d)
GS_CUDA_BANDED_ALL(float, f)

/* Staged one-thread-per-system solves (THREAD, interleaved, a matrix per system, LU or LDL^T, not
 * periodic; the CUDA back end's choice where it applies, -banded_staged). One thread per system
 * still, but the sweeps' inputs come through shared memory: a warp's 32 systems at a time, the rows
 * of a chunk of GS_STG_ROWS rows loaded as one 2D tile per array by the tensor memory accelerator
 * (TMA), GS_STG_STAGES chunks in flight, so that one warp per SM keeps enough bytes moving. With
 * one or two warps per SM, the forward result g of the systems in flight (32 x n values a warp)
 * fits in L2 with room to spare, and the back substitution reads it from there: DRAM moves the
 * floor's 7 (penta) or 5 (tri) values per unknown instead of 9 or 7 (g written and read back;
 * LDL^T 5 or 4 instead of 7 or 6).
 * Streams are loaded and stored with an evict-first L2 policy, g stored evict-last. Same
 * arithmetic as gs_banded_lu_solve and gs_banded_back (LDL^T: gs_banded_ldl_solve, y = D^-1 z
 * stored as g, the multipliers of the rows below carried in registers), so the same bits as the
 * plain kernel. */
#define GS_STG_ROWS 32
#define GS_STG_STAGES 3
#define GS_STG_MAPS 7 /* f, x, then the factor arrays F[0..4] */

typedef struct {
  CUtensorMap m[GS_STG_MAPS];
} GsStgMaps;

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define GS_STG_SM90 1
static __device__ __forceinline__ unsigned gs_smem_addr(const void *p) {
  return (unsigned)__cvta_generic_to_shared(p);
}
static __device__ __forceinline__ unsigned long long gs_policy_first(void) {
  unsigned long long p;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
  return p;
}
static __device__ __forceinline__ unsigned long long gs_policy_last(void) {
  unsigned long long p;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
  return p;
}
static __device__ __forceinline__ void gs_stg_store_d(double *p, double v, unsigned long long pol) {
  asm volatile("st.global.L2::cache_hint.f64 [%0], %1, %2;" ::"l"(p), "d"(v), "l"(pol));
}
static __device__ __forceinline__ void gs_stg_store_f(float *p, float v, unsigned long long pol) {
  asm volatile("st.global.L2::cache_hint.f32 [%0], %1, %2;" ::"l"(p), "f"(v), "l"(pol));
}
static __device__ __forceinline__ void gs_mbar_init(unsigned long long *b) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(gs_smem_addr(b)) : "memory");
}
/* An mbarrier that completes a phase on count arrivals (gs_mbar_arrive). */
static __device__ __forceinline__ void gs_mbar_init_n(unsigned long long *b, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(gs_smem_addr(b)), "r"(count)
               : "memory");
}
static __device__ __forceinline__ void gs_mbar_arrive(unsigned long long *b) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(gs_smem_addr(b)) : "memory");
}
static __device__ __forceinline__ void gs_mbar_expect(unsigned long long *b, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(gs_smem_addr(b)),
               "r"(bytes)
               : "memory");
}
static __device__ __forceinline__ void gs_mbar_wait(unsigned long long *b, unsigned parity) {
  asm volatile("{\n .reg .pred p;\n GS_MBAR_WAIT:\n"
               " mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
               " @!p bra GS_MBAR_WAIT;\n}" ::"r"(gs_smem_addr(b)),
               "r"(parity)
               : "memory");
}
/* Tile of rows [row, row + GS_STG_ROWS) x systems [col, col + 32) of map m into dst. */
static __device__ __forceinline__ void gs_tma_tile(void *dst, const CUtensorMap *m, int col,
                                                   int row, unsigned long long *b,
                                                   unsigned long long pol) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               ".L2::cache_hint [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(gs_smem_addr(dst)),
               "l"((unsigned long long)m), "r"(col), "r"(row), "r"(gs_smem_addr(b)), "l"(pol)
               : "memory");
}
#endif

#if defined(GS_STG_SM90)
#define GS_IF_STG_SM90(...) __VA_ARGS__
#else
#define GS_IF_STG_SM90(...)
#endif
/* Inside the staged kernel: chunks 0 .. D-2 of a sweep issued ahead; then chunk c (sequence
 * number kk) of the forward sweep (f, F[0], F[1], penta F[2]) or of the back substitution (g in x,
 * then from map BM + 1: LU F[2] or F[3], penta F[4]; LDL^T F[0], penta F[1]), by lane 0. */
#define GS_STG_ISSUE_PROLOGUE(ISSUE)                                                               \
  for (int c_ = 0; c_ < D - 1; c_++)                                                               \
  ISSUE(c_, k + c_)
#define GS_STG_FWD_ISSUE(c, kk)                                                                    \
  if (lane == 0 && (c) < nc) {                                                                     \
    gs_stg_t *dst_ = sm + (size_t)((kk) % D) * NF * R * 32;                                        \
    unsigned long long *b_ = &bar[(kk) % D];                                                       \
    const int row_ = (c)*R;                                                                        \
    gs_mbar_expect(b_, (unsigned)(NF * R * 32 * sizeof(gs_stg_t)));                                \
    gs_tma_tile(dst_, &M.m[0], (int)s0, (int)(rowb + row_), b_, pf);                               \
    for (int a_ = 1; a_ < NF; a_++)                                                                \
      gs_tma_tile(dst_ + a_ * R * 32, &M.m[1 + a_], (int)s0, row_, b_, pf);                        \
  }
#define GS_STG_BACK_ISSUE(c, kk)                                                                   \
  if (lane == 0 && (c) < nc) {                                                                     \
    gs_stg_t *dst_ = sm + (size_t)((kk) % D) * NF * R * 32;                                        \
    unsigned long long *b_ = &bar[(kk) % D];                                                       \
    const int row_ = (int)n - ((c) + 1) * R;                                                       \
    gs_mbar_expect(b_, (unsigned)(NB * R * 32 * sizeof(gs_stg_t)));                                \
    gs_tma_tile(dst_, &M.m[1], (int)s0, (int)(rowb + row_), b_, pf);                               \
    for (int a_ = 1; a_ < NB; a_++)                                                                \
      gs_tma_tile(dst_ + a_ * R * 32, &M.m[BM + a_], (int)s0, row_, b_, pf);                       \
  }

/* Kernel for T, BANDS; one warp a block, groups of 32 systems of one right-hand-side block taken in
 * turn (q: group; blk = q / groups, systems s0 + lane). Shared memory: GS_STG_STAGES stages of
 * nf arrays x GS_STG_ROWS rows x 32 values; chunk k of the call's sequence (forward and back
 * chunks of every group, in order) goes to stage k % GS_STG_STAGES, whose barrier completes its
 * phase (k / GS_STG_STAGES) & 1 when the chunk has landed. Lane 0 issues the copies; the
 * __syncwarp before each issue orders the stage's earlier reads before its refill. */
#define GS_CUDA_BANDED_STAGED(T, S, BANDS, SPD)                                                    \
  static __global__ void __launch_bounds__(32) gs_banded_staged_k_##S##BANDS##SPD(                 \
      const __grid_constant__ GsStgMaps M, GsInt batch, GsInt n, GsInt nrhs, const int *fstatus,   \
      T *x, int *status, GsBandedDevSummary *sum) {                                                \
    GS_IF_STG_SM90(                                                                                \
        enum {R = GS_STG_ROWS, D = GS_STG_STAGES, NF = BANDS == 5 ? 4 : 3,                         \
              NB = BANDS == 5 ? 3 : 2,                                                             \
              BM = SPD          ? 1                                                                \
                   : BANDS == 5 ? 4                                                                \
                                : 3};                                                              \
        extern __shared__ __align__(128) unsigned char gs_stg_raw[];                               \
        typedef T gs_stg_t; /* for the issue macros */                                             \
        T *sm = (T *)gs_stg_raw; __shared__ unsigned long long bar[D];                             \
        const int lane = (int)threadIdx.x;                                                         \
        if (lane == 0) for (int d = 0; d < D; d++) gs_mbar_init(&bar[d]);                          \
        asm volatile("fence.mbarrier_init.release.cluster;" ::                                     \
                         : "memory");                                                              \
        __syncwarp(); const unsigned long long pf = gs_policy_first(), pl = gs_policy_last();      \
        const GsInt groups = (batch + 31) / 32;                                                    \
        const int nc = (int)((n + R - 1) / R), nfull = (int)(n / R);                               \
        unsigned k = 0; /* chunks consumed */                                                      \
        for (GsInt q = blockIdx.x; q < groups * nrhs; q += gridDim.x) {                            \
          const GsInt blk = q / groups, s0 = (q % groups) * 32, s = s0 + lane;                     \
          const GsInt rowb = blk * n; /* the block's first row in f and x */                       \
          const int ok = s < batch;                                                                \
          const int st = ok ? fstatus[s] : 0;                                                      \
          /* Forward: f, F[0], F[1] (, F[2]) by chunks of rows from the top. */                    \
          GS_STG_ISSUE_PROLOGUE(GS_STG_FWD_ISSUE);                                                 \
          T p2 = 0, p1 = 0;                                                                        \
          T *xr = x + (rowb * batch + s);                                                          \
          for (int c = 0; c < nc; c++, k++) {                                                      \
            __syncwarp();                                                                          \
            GS_STG_FWD_ISSUE(c + D - 1, k + D - 1);                                                \
            gs_mbar_wait(&bar[k % D], (k / D) & 1);                                                \
            const T *b = sm + (size_t)(k % D) * NF * R * 32 + lane;                                \
            T v0[R], v1[R], v2[R], v3[R], g[R];                                                    \
            _Pragma("unroll") for (int u = 0; u < R; u++) {                                        \
              v0[u] = b[u * 32];                                                                   \
              v1[u] = b[(R + u) * 32];                                                             \
              v2[u] = b[(2 * R + u) * 32];                                                         \
              v3[u] = BANDS == 5 ? b[(3 * R + u) * 32] : (T)0;                                     \
            }                                                                                      \
            _Pragma("unroll") for (int u = 0; u < R; u++) {                                        \
              if (SPD) { /* z = f - l1 z1 - l2 z2 carried, y = z / d stored */                     \
                const T z_ = BANDS == 5 ? v0[u] - v2[u] * p1 - v1[u] * p2 : v0[u] - v1[u] * p1;    \
                g[u] = z_ * (BANDS == 5 ? v3[u] : v2[u]);                                          \
                p2 = p1;                                                                           \
                p1 = z_;                                                                           \
              } else {                                                                             \
                if (BANDS == 5) {                                                                  \
                  g[u] = (v0[u] - v1[u] * p2 - v2[u] * p1) * v3[u];                                \
                  p2 = p1;                                                                         \
                } else {                                                                           \
                  g[u] = (v0[u] - v1[u] * p1) * v2[u];                                             \
                }                                                                                  \
                p1 = g[u];                                                                         \
              }                                                                                    \
            }                                                                                      \
            if (c < nfull) {                                                                       \
              if (ok) _Pragma("unroll") for (int u = 0; u < R; u++) {                              \
                  gs_stg_store_##S(xr, g[u], pl);                                                  \
                  xr += batch;                                                                     \
                }                                                                                  \
            } else {                                                                               \
              _Pragma("unroll") for (int u = 0; u < R; u++) {                                      \
                if (ok && c * R + u < n) gs_stg_store_##S(xr, g[u], pl);                           \
                xr += batch;                                                                       \
              }                                                                                    \
            }                                                                                      \
          }                                                                                        \
          /* g, stored by every lane, is read next by the TMA (the async proxy). */                \
          asm volatile("fence.proxy.async.global;" ::: "memory");                                  \
          __syncwarp();                                                                            \
          /* Back substitution: g (in x), gamma (, delta) by chunks of rows from the bottom. */    \
          GS_STG_ISSUE_PROLOGUE(GS_STG_BACK_ISSUE);                                                \
          T x1 = 0, x2 = 0;                                                                        \
          T l1n = 0, l2n1 = 0, l2n2 = 0; /* LDL^T: l1_{i+1}, l2_{i+1}, l2_{i+2} */                 \
          int finite = 1;                                                                          \
          xr = x + ((rowb + n - 1) * batch + s);                                                   \
          for (int c = 0; c < nc; c++, k++) {                                                      \
            __syncwarp();                                                                          \
            GS_STG_BACK_ISSUE(c + D - 1, k + D - 1);                                               \
            gs_mbar_wait(&bar[k % D], (k / D) & 1);                                                \
            const T *b = sm + (size_t)(k % D) * NF * R * 32 + lane;                                \
            const int r0 = (int)n - (c + 1) * R;                                                   \
            T vg[R], vc[R], vd[R], xv[R];                                                          \
            _Pragma("unroll") for (int u = 0; u < R; u++) {                                        \
              vg[u] = b[u * 32];                                                                   \
              vc[u] = b[(R + u) * 32];                                                             \
              vd[u] = BANDS == 5 ? b[(2 * R + u) * 32] : (T)0;                                     \
            }                                                                                      \
            _Pragma("unroll") for (int u = R - 1; u >= 0; u--) {                                   \
              if (SPD) {                                                                           \
                if (BANDS == 5) {                                                                  \
                  xv[u] = vg[u] - l1n * x1 - l2n2 * x2;                                            \
                  l2n2 = l2n1;                                                                     \
                  l2n1 = vc[u];                                                                    \
                  l1n = vd[u];                                                                     \
                } else {                                                                           \
                  xv[u] = vg[u] - l1n * x1;                                                        \
                  l1n = vc[u];                                                                     \
                }                                                                                  \
              } else {                                                                             \
                xv[u] = BANDS == 5 ? vg[u] - vc[u] * x1 - vd[u] * x2 : vg[u] - vc[u] * x1;         \
              }                                                                                    \
              x2 = x1;                                                                             \
              x1 = xv[u];                                                                          \
            }                                                                                      \
            if (c < nfull) {                                                                       \
              if (ok) _Pragma("unroll") for (int u = R - 1; u >= 0; u--) {                         \
                  gs_stg_store_##S(xr, xv[u], pf);                                                 \
                  finite &= isfinite((double)xv[u]) ? 1 : 0;                                       \
                  xr -= batch;                                                                     \
                }                                                                                  \
            } else {                                                                               \
              _Pragma("unroll") for (int u = R - 1; u >= 0; u--) {                                 \
                if (ok && r0 + u >= 0) {                                                           \
                  gs_stg_store_##S(xr, xv[u], pf);                                                 \
                  finite &= isfinite((double)xv[u]) ? 1 : 0;                                       \
                }                                                                                  \
                xr -= batch;                                                                       \
              }                                                                                    \
            }                                                                                      \
          }                                                                                        \
          if (ok && st) { /* its matrix could not be factored: NaN, as the plain kernel */         \
            gs_banded_poison_##S(n, x, rowb *batch + s, batch);                                    \
            gs_mark(status, s, st, sum);                                                           \
          } else if (ok && !finite) {                                                              \
            gs_mark(status, s, GS_BANDED_NOT_FINITE, sum);                                         \
          }                                                                                        \
          __syncwarp();                                                                            \
        })                                                                                         \
  }

GS_CUDA_BANDED_STAGED(double, d, 3, 0)
GS_CUDA_BANDED_STAGED(double, d, 5, 0)
GS_CUDA_BANDED_STAGED(float, f, 3, 0)
GS_CUDA_BANDED_STAGED(float, f, 5, 0)
GS_CUDA_BANDED_STAGED(double, d, 3, 1)
GS_CUDA_BANDED_STAGED(double, d, 5, 1)
GS_CUDA_BANDED_STAGED(float, f, 3, 1)
GS_CUDA_BANDED_STAGED(float, f, 5, 1)
typedef void (*GsStgK_d)(const GsStgMaps, GsInt, GsInt, GsInt, const int *, double *, int *,
                         GsBandedDevSummary *);
typedef void (*GsStgK_f)(const GsStgMaps, GsInt, GsInt, GsInt, const int *, float *, int *,
                         GsBandedDevSummary *);
/* [pentadiagonal][LDL^T] */
static const GsStgK_d gs_stg_k_d[2][2] = {{gs_banded_staged_k_d30, gs_banded_staged_k_d31},
                                          {gs_banded_staged_k_d50, gs_banded_staged_k_d51}};
static const GsStgK_f gs_stg_k_f[2][2] = {{gs_banded_staged_k_f30, gs_banded_staged_k_f31},
                                          {gs_banded_staged_k_f50, gs_banded_staged_k_f51}};

/* Partitioned (SPIKE) kernels. Threads of one partition index are consecutive systems, so the
 * interleaved layout stays coalesced: thread t = j * count + s. Periodic batches partition the
 * leading block E and fold the corner into the reduced solve and the correction (banded_algo.h). */
/* A partitioned factor kernel's view of matrix s: its shape, diagonals D, factors F, and where its
 * rows are (base, step). */
#define GS_PART_MATRIX(T, BANDS, s)                                                                \
  GsBandedShape sh = gs_kshape(&a, BANDS, a.sh.periodic);                                          \
  const T *D[5];                                                                                   \
  T *F[GS_BANDED_MAX_FAC];                                                                         \
  _Pragma("unroll") for (int k = 0; k < 5; k++) D[k] = (const T *)Dp.p[k];                         \
  _Pragma("unroll") for (int k = 0; k < GS_BANDED_MAX_FAC; k++) F[k] = (T *)Fp.p[k];               \
  GsInt base, step;                                                                                \
  gs_mat_place(&a, s, &base, &step)

/* The partial solves of a partitioned batch, sweeping with the algorithms of suffix A; STG 1:
 * staging contiguous right-hand sides of a shared matrix. */
#define GS_CUDA_BANDED_PSOLVE1(T, S, A, NAME, BANDS, STG)                                          \
  static __global__ void __launch_bounds__(GS_PART_THREADS, 1)                                     \
      gs_banded_##NAME##_k_##S##BANDS(GsBandedKArgs a, GsPtrs Fp, const int *fstatus, const T *f,  \
                                      T *x, int *status, GsBandedDevSummary *sum) {                \
    const GsInt t = (GsInt)blockIdx.x * blockDim.x + threadIdx.x;                                  \
    if (t >= a.batch * a.parts) return;                                                            \
    const GsInt s = t % a.batch;                                                                   \
    const int j = (int)(t / a.batch);                                                              \
    if (fstatus[a.shared ? 0 : s]) return;                                                         \
    GsBandedShape sh = gs_kshape(&a, BANDS, a.sh.periodic);                                        \
    const T *F[GS_BANDED_MAX_FAC];                                                                 \
    _Pragma("unroll") for (int k = 0; k < GS_BANDED_MAX_FAC; k++) F[k] = (const T *)Fp.p[k];       \
    GsInt rb, rs, fb, fs, r0, r1;                                                                  \
    gs_rhs_place(&a, s, &rb, &rs);                                                                 \
    rb += a.blk * a.rhs_len;                                                                       \
    gs_mat_place(&a, s, &fb, &fs);                                                                 \
    gs_part_range(sh.m, a.parts, j, &r0, &r1);                                                     \
    sh.m = r1 - r0;                                                                                \
    sh.periodic = 0;                                                                               \
    GS_IF(STG, gs_stage_setup(&a, t, a.batch *a.parts, rb);)                                       \
    /* Rows the correction skips are final here: check them now. */                                \
    if (!gs_banded_lu_solve_##A(&sh, F, fb + r0 * fs, fs, f, x, rb + r0 * rs, rs))                 \
      gs_mark(status, s, GS_BANDED_NOT_FINITE, sum);                                               \
  }

/* Warps of a block of the reduced solve (one block a system): up to 32 x 4 partitions a thread
 * each. */
#ifndef GS_PART_RED_WARPS
#define GS_PART_RED_WARPS 4
#endif
#ifndef GS_PART_RED_MIN_BLOCKS
#define GS_PART_RED_MIN_BLOCKS 4
#endif
/* The corrections after the reduced solve: chunks of GS_PCORR_K rows, GS_PCORR_U threads for each
 * end of a partition (the spikes decay over a few dozen rows: each thread a chunk or two, many
 * threads in flight), blocks of GS_PCORR_THREADS. */
#ifndef GS_PCORR_K
#define GS_PCORR_K 4
#endif
#ifndef GS_PCORR_U
#define GS_PCORR_U 4
#endif
#define GS_PCORR_THREADS 128
/* Their resident blocks per SM asked of the compiler (a register cap for tuning; 1: none). With
 * 8 (64 registers) chunks of 8 rows spilled 248 bytes in double penta, chunks of 4 164. */
#ifndef GS_PCORR_MIN_BLOCKS
#define GS_PCORR_MIN_BLOCKS 1
#endif
/* Inside gs_banded_psolve2w_k, after a warp's scan of the threads' maps (A, c): z = the state
 * entering this thread's partitions (forward, BACK 0: from partition 0 on; BACK 1: from the last
 * down), from the zero state through the whole maps of the warps before it (after it), kept in
 * shared memory, and the scanned map of the lane before it (after it). */
#define GS_PART_RED_ENTER(T, S, BANDS, BACK)                                                       \
  {                                                                                                \
    const int edge = (BACK) ? 31 : 0;                                                              \
    if (nw > 1) {                                                                                  \
      __syncthreads(); /* the previous pass's maps are read */                                     \
      if (lane == 31 - edge) {                                                                     \
        _Pragma("unroll") for (int e = 0; e < qq; e++) s_map[warp][e] = A[e];                      \
        _Pragma("unroll") for (int r = 0; r < q; r++) s_map[warp][qq + r] = c[r];                  \
      }                                                                                            \
      __syncthreads();                                                                             \
    }                                                                                              \
    _Pragma("unroll") for (int r = 0; r < q; r++) z[r] = 0;                                        \
    for (int k = (BACK) ? nw - 1 : 0; (BACK) ? k > warp : k < warp; k += (BACK) ? -1 : 1)          \
      gs_part_apply_##S##BANDS(s_map[k], s_map[k] + qq, z);                                        \
    T An[qq], cn[q]; /* the neighbour lane's scanned map */                                        \
    _Pragma("unroll") for (int e = 0; e < qq; e++) An[e] =                                         \
        (BACK) ? __shfl_down_sync(0xffffffffu, A[e], 1) : __shfl_up_sync(0xffffffffu, A[e], 1);    \
    _Pragma("unroll") for (int r = 0; r < q; r++) cn[r] =                                          \
        (BACK) ? __shfl_down_sync(0xffffffffu, c[r], 1) : __shfl_up_sync(0xffffffffu, c[r], 1);    \
    if (lane != edge) gs_part_apply_##S##BANDS(An, cn, z);                                         \
  }
/* Helpers of gs_banded_psolve2w_k (q = 2 h unknowns a partition end, blocks of C row-major):
 * partition j's forward map Z_j = A_j Z_{j-1} + c_j, A_j = -M_j^-1 L_j, c_j = M_j^-1 Y_j (Y_j:
 * the partial solution's first and last h rows); its backward map X_j = -G_j X_{j+1} + Z_j (Z_j
 * in X); the composition (A, c) <- (Aj A, Aj c + cj); a map applied, z <- Aj z + cj, and one
 * step (the same, stored); and the warp's inclusive scan of the lanes' maps, in lane order
 * (backward: from lane 31 down), each lane's map applied after those before it. */
#define GS_CUDA_PART_WARP_HELPERS(T, S, BANDS)                                                     \
  static __device__ __forceinline__ void gs_part_fmap_##S##BANDS(                                  \
      const GsBandedShape *sh, const T *Cs, int P, int j, const T *x, GsInt rb, GsInt rs, T *Aj,   \
      T *cj) {                                                                                     \
    enum { h = BANDS / 2, q = 2 * h, qq = q * q };                                                 \
    GsInt r0, r1;                                                                                  \
    gs_part_range(sh->m, P, j, &r0, &r1);                                                          \
    const T *Cj = Cs + (GsInt)j * 3 * qq;                                                          \
    T Y[q], Mi[qq], Lj[qq];                                                                        \
    _Pragma("unroll") for (int r = 0; r < h; r++) {                                                \
      Y[r] = x[rb + (r0 + r) * rs];                                                                \
      Y[h + r] = x[rb + (r1 - h + r) * rs];                                                        \
    }                                                                                              \
    _Pragma("unroll") for (int e = 0; e < qq; e++) {                                               \
      Mi[e] = Cj[e];                                                                               \
      Lj[e] = Cj[qq + e];                                                                          \
    }                                                                                              \
    _Pragma("unroll") for (int r = 0; r < q; r++) {                                                \
      T v = 0;                                                                                     \
      _Pragma("unroll") for (int e = 0; e < q; e++) v += Mi[r * q + e] * Y[e];                     \
      cj[r] = v;                                                                                   \
      _Pragma("unroll") for (int b = 0; b < q; b++) {                                              \
        T w = 0;                                                                                   \
        _Pragma("unroll") for (int e = 0; e < q; e++) w -= Mi[r * q + e] * Lj[e * q + b];          \
        Aj[r * q + b] = w;                                                                         \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
  static __device__ __forceinline__ void gs_part_bmap_##S##BANDS(const T *Cs, int j, const T *Zj,  \
                                                                 T *Aj, T *cj) {                   \
    enum { h = BANDS / 2, q = 2 * h, qq = q * q };                                                 \
    const T *Gj = Cs + (GsInt)j * 3 * qq + 2 * qq;                                                 \
    _Pragma("unroll") for (int e = 0; e < qq; e++) Aj[e] = -Gj[e];                                 \
    _Pragma("unroll") for (int r = 0; r < q; r++) cj[r] = Zj[r];                                   \
  }                                                                                                \
  static __device__ __forceinline__ void gs_part_compose_##S##BANDS(const T *Aj, const T *cj,      \
                                                                    T *A, T *c) {                  \
    enum { h = BANDS / 2, q = 2 * h, qq = q * q };                                                 \
    T An[qq], cn[q];                                                                               \
    _Pragma("unroll") for (int r = 0; r < q; r++) {                                                \
      T v = cj[r];                                                                                 \
      _Pragma("unroll") for (int e = 0; e < q; e++) v += Aj[r * q + e] * c[e];                     \
      cn[r] = v;                                                                                   \
      _Pragma("unroll") for (int b = 0; b < q; b++) {                                              \
        T w = 0;                                                                                   \
        _Pragma("unroll") for (int e = 0; e < q; e++) w += Aj[r * q + e] * A[e * q + b];           \
        An[r * q + b] = w;                                                                         \
      }                                                                                            \
    }                                                                                              \
    _Pragma("unroll") for (int e = 0; e < qq; e++) A[e] = An[e];                                   \
    _Pragma("unroll") for (int r = 0; r < q; r++) c[r] = cn[r];                                    \
  }                                                                                                \
  /* A map applied to a state: z <- Aj z + cj. */                                                  \
  static __device__ __forceinline__ void gs_part_apply_##S##BANDS(const T *Aj, const T *cj,        \
                                                                  T *z) {                          \
    enum { h = BANDS / 2, q = 2 * h };                                                             \
    T zn[q];                                                                                       \
    _Pragma("unroll") for (int r = 0; r < q; r++) {                                                \
      T v = cj[r];                                                                                 \
      _Pragma("unroll") for (int e = 0; e < q; e++) v += Aj[r * q + e] * z[e];                     \
      zn[r] = v;                                                                                   \
    }                                                                                              \
    _Pragma("unroll") for (int r = 0; r < q; r++) z[r] = zn[r];                                    \
  }                                                                                                \
  /* A partition's state from the one entering it, z <- Aj z + cj, also stored at Xj. */           \
  static __device__ __forceinline__ void gs_part_step_##S##BANDS(const T *Aj, const T *cj, T *z,   \
                                                                 T *Xj) {                          \
    enum { h = BANDS / 2, q = 2 * h };                                                             \
    gs_part_apply_##S##BANDS(Aj, cj, z);                                                           \
    _Pragma("unroll") for (int r = 0; r < q; r++) Xj[r] = z[r];                                    \
  }                                                                                                \
  static __device__ __forceinline__ void gs_part_scan_##S##BANDS(T *A, T *c, int lane,             \
                                                                 int backward) {                   \
    enum { h = BANDS / 2, q = 2 * h, qq = q * q };                                                 \
    for (int off = 1; off < 32; off <<= 1) {                                                       \
      T Ap[qq], cp[q];                                                                             \
      _Pragma("unroll") for (int e = 0; e < qq; e++) Ap[e] =                                       \
          backward ? __shfl_down_sync(0xffffffffu, A[e], off)                                      \
                   : __shfl_up_sync(0xffffffffu, A[e], off);                                       \
      _Pragma("unroll") for (int r = 0; r < q; r++) cp[r] =                                        \
          backward ? __shfl_down_sync(0xffffffffu, c[r], off)                                      \
                   : __shfl_up_sync(0xffffffffu, c[r], off);                                       \
      if (backward ? lane + off < 32 : lane >= off) { /* (A, c) <- (A Ap, A cp + c) */             \
        gs_part_compose_##S##BANDS(A, c, Ap, cp);                                                  \
        _Pragma("unroll") for (int e = 0; e < qq; e++) A[e] = Ap[e];                               \
        _Pragma("unroll") for (int r = 0; r < q; r++) c[r] = cp[r];                                \
      }                                                                                            \
    }                                                                                              \
  }

#define GS_CUDA_BANDED_PART(T, S, BANDS)                                                           \
  static __global__ void __launch_bounds__(GS_PART_THREADS, 1)                                     \
      gs_banded_pfactor1_k_##S##BANDS(GsBandedKArgs a, GsPtrs Dp, GsPtrs Fp, T *C, int *pstatus) { \
    const GsInt t = (GsInt)blockIdx.x * blockDim.x + threadIdx.x;                                  \
    if (t >= a.nmat * a.parts) return;                                                             \
    const GsInt s = t % a.nmat;                                                                    \
    const int j = (int)(t / a.nmat);                                                               \
    GS_PART_MATRIX(T, BANDS, s);                                                                   \
    T *ext = C + s * a.corner_len + GS_BANDED_PART_EXT(BANDS, a.parts, j);                         \
    pstatus[s * a.parts + j] = gs_banded_part_factor_##S(&sh, D, F, base, step, a.parts, j, ext);  \
  }                                                                                                \
  static __global__ void gs_banded_pfactor2_k_##S##BANDS(GsBandedKArgs a, GsPtrs Fp, T *C,         \
                                                         const int *pstatus, int *fstatus) {       \
    const GsInt s = (GsInt)blockIdx.x * blockDim.x + threadIdx.x;                                  \
    if (s >= a.nmat) return;                                                                       \
    GsBandedShape sh = gs_kshape(&a, BANDS, a.sh.periodic);                                        \
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
  /* Periodic: E^-1 F, S^-1 and the extents of each matrix (work: the scratch, after pstatus). */  \
  static __global__ void gs_banded_pfactor3_k_##S##BANDS(GsBandedKArgs a, GsPtrs Dp, GsPtrs Fp,    \
                                                         T *C, T *X, int *fstatus) {               \
    const GsInt s = (GsInt)blockIdx.x * blockDim.x + threadIdx.x;                                  \
    if (s >= a.nmat || fstatus[s]) return;                                                         \
    GS_PART_MATRIX(T, BANDS, s);                                                                   \
    fstatus[s] = gs_banded_part_periodic_##S(&sh, D, F, base, step, a.parts, C + s * a.corner_len, \
                                             X + s * GS_BANDED_PART_X(BANDS, a.parts, 0));         \
  }                                                                                                \
  GS_CUDA_BANDED_PSOLVE1(T, S, S, psolve1, BANDS, 0)                                               \
  GS_CUDA_BANDED_PSOLVE1(T, S, S##s, psolve1_st, BANDS, 1)                                         \
  /* The reduced system of one system by one block of NW = min(GS_PART_RED_WARPS, ceil(P / 32))    \
   * warps: thread t takes partitions [t Q, t Q + Q) (Q = ceil(P / (32 NW))). Block Thomas is two  \
   * affine recurrences over the partitions, forward Z_j = A_j Z_{j-1} + c_j (A_j = -M_j^-1 L_j,   \
   * c_j = M_j^-1 Y_j) and backward X_j = -G_j X_{j+1} + Z_j: each thread composes its partitions' \
   * maps, a Kogge-Stone scan with shuffles composes a warp's lanes (backward: from lane 31 down), \
   * the warps' whole maps carry the state from warp to warp through shared memory, and each       \
   * thread runs its partitions from the state entering them; with Q = 1 (up to 32 NW partitions)  \
   * a thread keeps its maps in registers between the passes instead of loading them again. Where  \
   * one warp took every partition of a system (4 a lane at 128 partitions), each lane loaded and  \
   * composed its partitions in turn, twice: H200, penta 1024 x 65536 with 128 partitions, Nsight  \
   * Compute, 73 us. */                                                                            \
  static __global__ void __launch_bounds__(32 * GS_PART_RED_WARPS, GS_PART_RED_MIN_BLOCKS)         \
      gs_banded_psolve2w_k_##S##BANDS(GsBandedKArgs a, const T *C, const int *fstatus, const T *f, \
                                      const T *x, T *X) {                                          \
    enum { h = BANDS / 2, q = 2 * h, qq = q * q };                                                 \
    __shared__ T s_map[GS_PART_RED_WARPS][qq + q];                                                 \
    const GsInt s = blockIdx.x;                                                                    \
    const int tid = (int)threadIdx.x, lane = tid & 31, warp = tid >> 5;                            \
    const int nw = (int)(blockDim.x >> 5);                                                         \
    const GsInt mat = a.shared ? 0 : s;                                                            \
    if (fstatus[mat]) return; /* the whole block */                                                \
    const GsBandedShape sh = gs_kshape(&a, BANDS, a.sh.periodic);                                  \
    GsInt rb, rs;                                                                                  \
    gs_rhs_place(&a, s, &rb, &rs);                                                                 \
    rb += a.blk * a.rhs_len;                                                                       \
    const T *Cs = C + mat * a.corner_len;                                                          \
    T *Xs = X + s * GS_BANDED_PART_X(BANDS, a.parts, sh.periodic);                                 \
    const int P = a.parts, Q = (P + (int)blockDim.x - 1) / (int)blockDim.x;                        \
    const int j0 = tid * Q < P ? tid * Q : P, j1 = j0 + Q < P ? j0 + Q : P;                        \
    T A[qq], c[q], Aj[qq], cj[q], z[q];                                                            \
    _Pragma("unroll") for (int e = 0; e < qq; e++) A[e] = e % (q + 1) == 0 ? (T)1 : (T)0;          \
    _Pragma("unroll") for (int r = 0; r < q; r++) c[r] = 0;                                        \
    for (int j = j0; j < j1; j++) { /* forward: (A, c) <- (A_j A, A_j c + c_j) */                  \
      gs_part_fmap_##S##BANDS(&sh, Cs, P, j, x, rb, rs, Aj, cj);                                   \
      gs_part_compose_##S##BANDS(Aj, cj, A, c);                                                    \
    }                                                                                              \
    gs_part_scan_##S##BANDS(A, c, lane, 0);                                                        \
    GS_PART_RED_ENTER(T, S, BANDS, 0)                                                              \
    for (int j = j0; j < j1; j++) { /* Z_j from the state entering the thread's partitions */      \
      if (Q > 1) gs_part_fmap_##S##BANDS(&sh, Cs, P, j, x, rb, rs, Aj, cj);                        \
      gs_part_step_##S##BANDS(Aj, cj, z, Xs + j * q);                                              \
    }                                                                                              \
    T Zl[q]; /* with Q = 1: the thread's Z_j, for its backward map */                              \
    _Pragma("unroll") for (int r = 0; r < q; r++) Zl[r] = z[r];                                    \
    _Pragma("unroll") for (int e = 0; e < qq; e++) A[e] = e % (q + 1) == 0 ? (T)1 : (T)0;          \
    _Pragma("unroll") for (int r = 0; r < q; r++) c[r] = 0;                                        \
    for (int j = j1 - 1; j >= j0; j--) { /* backward: (A, c) <- (-G_j A, -G_j c + Z_j) */          \
      if (Q > 1)                                                                                   \
        gs_part_bmap_##S##BANDS(Cs, j, Xs + j * q, Aj, cj);                                        \
      else                                                                                         \
        gs_part_bmap_##S##BANDS(Cs, j, Zl, Aj, cj);                                                \
      gs_part_compose_##S##BANDS(Aj, cj, A, c);                                                    \
    }                                                                                              \
    gs_part_scan_##S##BANDS(A, c, lane, 1);                                                        \
    GS_PART_RED_ENTER(T, S, BANDS, 1)                                                              \
    for (int j = j1 - 1; j >= j0; j--) {                                                           \
      if (Q > 1) gs_part_bmap_##S##BANDS(Cs, j, Xs + j * q, Aj, cj);                               \
      gs_part_step_##S##BANDS(Aj, cj, z, Xs + j * q);                                              \
    }                                                                                              \
    if (sh.periodic) {                                                                             \
      __syncthreads(); /* every thread's X written */                                              \
      if (tid == 0) gs_banded_part_reduce_tail_##S(&sh, Cs, P, f, rb, rs, Xs);                     \
    }                                                                                              \
  }                                                                                                \
  /* The corrections: GS_PCORR_U threads for each end (side 0: the rows [r0, whi) from the top,    \
   * side 1: [max(vlo, whi), r1)) of each partition j of each system s, systems fastest (coalesced \
   * interleaved rows), thread u taking the side's chunks u, u + U, ... of GS_PCORR_K rows. */     \
  static __global__ void __launch_bounds__(GS_PCORR_THREADS, GS_PCORR_MIN_BLOCKS)                  \
      gs_banded_psolve3_k_##S##BANDS(GsBandedKArgs a, GsPtrs Fp, const T *C, const int *fstatus,   \
                                     const T *X, T *x, int *status, GsBandedDevSummary *sum) {     \
    enum { h = BANDS / 2, K = GS_PCORR_K, U = GS_PCORR_U };                                        \
    const GsInt t = (GsInt)blockIdx.x * blockDim.x + threadIdx.x;                                  \
    if (t >= a.batch * a.parts * 2 * U) return;                                                    \
    const GsInt s = t % a.batch, w = t / a.batch;                                                  \
    const int u = (int)(w % U), side = (int)((w / U) & 1), j = (int)(w / (2 * U));                 \
    const GsBandedShape sh = gs_kshape(&a, BANDS, a.sh.periodic);                                  \
    GsInt rb, rs, fb, fs;                                                                          \
    gs_rhs_place(&a, s, &rb, &rs);                                                                 \
    rb += a.blk * a.rhs_len;                                                                       \
    gs_mat_place(&a, s, &fb, &fs);                                                                 \
    int st = fstatus[a.shared ? 0 : s];                                                            \
    if (st) { /* one thread fills the partition (and a periodic system's last rows) with NaN */    \
      if (side == 0 && u == 0) {                                                                   \
        GsInt r0, r1;                                                                              \
        gs_part_range(sh.m, a.parts, j, &r0, &r1);                                                 \
        if (j == a.parts - 1) r1 = sh.n;                                                           \
        for (GsInt i = r0; i < r1; i++)                                                            \
          x[rb + i * rs] = (T)NAN;                                                                 \
        gs_mark(status, s, st, sum);                                                               \
      }                                                                                            \
      return;                                                                                      \
    }                                                                                              \
    /* the spike arrays (and E^-1 F), by constant indices: no local copy of the pointers */        \
    const T *Z[6];                                                                                 \
    _Pragma("unroll") for (int k = 0; k < 6; k++) {                                                \
      const int e = k < 2 ? k : k < 4 ? h + k - 2 : 2 * h + k - 4; /* past nlu */                  \
      const int ok = (k & 1) < h;                                                                  \
      Z[k] = (const T *)(!ok      ? Fp.p[0]                                                        \
                         : sh.spd ? Fp.p[GS_BANDED_NLU(BANDS, 1) + e]                              \
                                  : Fp.p[GS_BANDED_NLU(BANDS, 0) + e]);                            \
    }                                                                                              \
    T Tn[2], Up[2], z[2];                                                                          \
    GsInt r0, r1, whi, vlo;                                                                        \
    gs_banded_part_iface_##S(                                                                      \
        &sh, a.parts, j, X + s * GS_BANDED_PART_X(BANDS, a.parts, sh.periodic),                    \
        C + (a.shared ? 0 : s) * a.corner_len + GS_BANDED_PART_EXT(BANDS, a.parts, j), Tn, Up, z,  \
        &r0, &r1, &whi, &vlo);                                                                     \
    const GsInt ra = side ? (vlo > whi ? vlo : whi) : r0, re = side ? r1 : whi;                    \
    int finite = 1;                                                                                \
    const int per = sh.periodic;                                                                   \
    for (GsInt i0 = ra + (GsInt)u * K; i0 < re; i0 += (GsInt)U * K) {                              \
      /* Side 0's rows all need W (they are below whi), side 1's V and not W; V also matters on    \
       * side 0 from vlo on (a short partition): chunks that straddle vlo go row by row. */        \
      if (side)                                                                                    \
        GS_BANDED_PART_FIX_CHUNK(T, S, K, 1, 0)                                                    \
      else if (i0 + K <= vlo)                                                                      \
        GS_BANDED_PART_FIX_CHUNK(T, S, K, 0, 1)                                                    \
      else if (i0 >= vlo)                                                                          \
        GS_BANDED_PART_FIX_CHUNK(T, S, K, 1, 1)                                                    \
      else                                                                                         \
        for (GsInt i = i0; i < i0 + K && i < re; i++) {                                            \
          const T xi = x[rb + i * rs] -                                                            \
                       gs_banded_part_row_fix_##S(h, per, i >= vlo, 1, Z, fb + i * fs, Tn, Up, z); \
          x[rb + i * rs] = xi;                                                                     \
          finite &= isfinite((double)xi) ? 1 : 0;                                                  \
        }                                                                                          \
    }                                                                                              \
    if (sh.periodic && j == a.parts - 1 && side == 1 && u == 0)                                    \
      _Pragma("unroll") for (int r = 0; r < h; r++) {                                              \
        x[rb + (sh.m + r) * rs] = z[r];                                                            \
        finite &= isfinite((double)z[r]) ? 1 : 0;                                                  \
      }                                                                                            \
    if (!finite) gs_mark(status, s, GS_BANDED_NOT_FINITE, sum);                                    \
  }

GS_CUDA_PART_WARP_HELPERS(double, dw, 3)
GS_CUDA_PART_WARP_HELPERS(double, dw, 5)
GS_CUDA_PART_WARP_HELPERS(float, fw, 3)
GS_CUDA_PART_WARP_HELPERS(float, fw, 5)
GS_CUDA_BANDED_PART(double, dw, 3)
GS_CUDA_BANDED_PART(double, dw, 5)
GS_CUDA_BANDED_PART(float, fw, 3)
GS_CUDA_BANDED_PART(float, fw, 5)

/* Tables of the partitioned kernels, indexed [bands == 5]. */
#define GS_CUDA_PART_TABLES(T, S)                                                                  \
  typedef void (*GsPF1_##S)(GsBandedKArgs, GsPtrs, GsPtrs, T *, int *);                            \
  typedef void (*GsPF2_##S)(GsBandedKArgs, GsPtrs, T *, const int *, int *);                       \
  typedef void (*GsPS1_##S)(GsBandedKArgs, GsPtrs, const int *, const T *, T *, int *,             \
                            GsBandedDevSummary *);                                                 \
  typedef void (*GsPF3_##S)(GsBandedKArgs, GsPtrs, GsPtrs, T *, T *, int *);                       \
  typedef void (*GsPS2_##S)(GsBandedKArgs, const T *, const int *, const T *, const T *, T *);     \
  typedef void (*GsPS3_##S)(GsBandedKArgs, GsPtrs, const T *, const int *, const T *, T *, int *,  \
                            GsBandedDevSummary *);                                                 \
  static const GsPF1_##S gs_pf1_##S[2] = {gs_banded_pfactor1_k_##S##3,                             \
                                          gs_banded_pfactor1_k_##S##5};                            \
  static const GsPF2_##S gs_pf2_##S[2] = {gs_banded_pfactor2_k_##S##3,                             \
                                          gs_banded_pfactor2_k_##S##5};                            \
  static const GsPF3_##S gs_pf3_##S[2] = {gs_banded_pfactor3_k_##S##3,                             \
                                          gs_banded_pfactor3_k_##S##5};                            \
  static const GsPS1_##S gs_ps1_##S[2] = {gs_banded_psolve1_k_##S##3, gs_banded_psolve1_k_##S##5}; \
  static const GsPS1_##S gs_ps1st_##S[2] = {gs_banded_psolve1_st_k_##S##3,                         \
                                            gs_banded_psolve1_st_k_##S##5};                        \
  static const GsPS2_##S gs_ps2w_##S[2] = {gs_banded_psolve2w_k_##S##3,                            \
                                           gs_banded_psolve2w_k_##S##5};                           \
  static const GsPS3_##S gs_ps3_##S[2] = {gs_banded_psolve3_k_##S##3, gs_banded_psolve3_k_##S##5};

GS_CUDA_PART_TABLES(double, dw)
GS_CUDA_PART_TABLES(float, fw)

/* Tiled solves of a shared matrix (banded_algo.h). A block of GS_TILE_THREADS threads (or
 * GS_TILE_WIDE_THREADS for large interleaved batches of 32-row chunks, below) takes
 * groups of ns = GS_TILE_THREADS / pp systems (pp: the chunk count P rounded up to a power of
 * two); thread t = k * ns + s owns chunk k of system s, so that the threads of a warp hold the same
 * rows of consecutive systems (coalesced in the interleaved layout). Its L values stay in
 * registers from the load of f to the store of x. The blocks are persistent (as many as fit):
 * each copies the table once into shared memory, chunk k's rows at k * (L + 1) so that the chunks
 * a warp reads at once fall in different banks (read through L1, those loads were the
 * bottleneck), then loops over groups of systems. The scans run with one warp lane per chunk:
 * segments of pp lanes, one system each, Kogge-Stone with shuffles. Floor: 16 bytes per unknown
 * in double. The kernel is bound by latency more than by memory: Nsight Compute at 65536 x 1024
 * (wide blocks, before the scans' matrices were kept, GS_TILE_SCAN_MATS) saw 1.74 warp
 * instructions per unknown, issue slots 28 % busy, 13 cycles between a warp's instructions
 * (fixed-latency waits 22 %, the store queue full 20 %, shared-memory and shuffle results 15 %,
 * the loads of f 13 % of the stall samples), DRAM 42 % busy: the block's 16 warps go through the
 * same phases between the same barriers, so little of one phase's latency hides behind another.
 * Hence the indexing is kept 32-bit, full chunks skip the row guards and finiteness is one
 * multiply-add per value. */
/* A thread's chunk of L rows at p, L a multiple of 16 / sizeof(T): in a contiguous layout (rs 1)
 * the rows are adjacent, and element loads would bring each 32-byte sector in once per element
 * it holds (4 doubles, 8 floats), from L2 once the block's chunks outgrow L1; 16-byte loads and
 * stores, where the chunk is aligned, need a quarter (double) or an eighth (float) of those
 * requests. f may be x (solves in place), so the loads are not read-only loads. */
/* clang-format off: it would write (uintptr_t)(p)&15 */
#define GS_TILE_LOAD(T, L, p, rs, v)                                                               \
  if ((rs) == 1 && ((uintptr_t)(p)&15) == 0) {                                                     \
    _Pragma("unroll") for (int j_ = 0; j_ < (L) * (int)sizeof(T) / 16; j_++) {                     \
      const uint4 u_ = ((const uint4 *)(p))[j_];                                                   \
      memcpy(&(v)[j_ * (16 / (int)sizeof(T))], &u_, 16);                                           \
    }                                                                                              \
  } else {                                                                                         \
    _Pragma("unroll") for (int j_ = 0; j_ < (L); j_++)(v)[j_] = (p)[j_ * (rs)];                    \
  }
#define GS_TILE_STORE(T, L, p, rs, v)                                                              \
  if ((rs) == 1 && ((uintptr_t)(p)&15) == 0) {                                                     \
    _Pragma("unroll") for (int j_ = 0; j_ < (L) * (int)sizeof(T) / 16; j_++) {                     \
      uint4 u_;                                                                                    \
      memcpy(&u_, &(v)[j_ * (16 / (int)sizeof(T))], 16);                                           \
      ((uint4 *)(p))[j_] = u_;                                                                     \
    }                                                                                              \
  } else {                                                                                         \
    _Pragma("unroll") for (int j_ = 0; j_ < (L); j_++)(p)[j_ * (rs)] = (v)[j_];                    \
  }
/* clang-format on */
/* full: no row of the chunk is past the block, or (tl) the chunk ends exactly at a periodic
 * system's row n, holding all of its last h rows m .. n - 1 (a power of two n: m = n - 2), so that
 * it loads and stores whole rows, the tail's values set in registers, instead of one row at a time
 * with tests: that held its warp, and at the barriers the whole block, longer than the others
 * (shared periodic penta 65536 x 1024 on the H200: 518 -> 498 us a call). */
#define GS_TILE_FULL(L, PER)                                                                       \
  const int tin = (PER) && (m / (L) + 1) * (L) == (int)sh.n;                                       \
  const int tl = tin && k == m / (L);                                                              \
  const int full = r0 + (L) <= m || tl;
/* A tiled solve's chunk of a right-hand side into v (and, for a periodic system, its last h
 * values into z). */
#define GS_TILE_LOAD_CHUNK(T, L, PER, STG)                                                         \
  gs_rhs_place(&a, s, &rb, &rs);                                                                   \
  rb += blk * a.rhs_len;                                                                           \
  if ((PER) && (PER) != 3 && k == 0) /* read before x (maybe f) is written: stores after a sync */ \
    _Pragma("unroll") for (int r = 0; r < 2; r++) if (r < h) z[r] = f[rb + (m + r) * rs];          \
  const T *fp = f + rb + r0 * rs;                                                                  \
  if (full) {                                                                                      \
    if (!(STG)) GS_TILE_LOAD(T, L, fp, rs, v) /* else staged already (GS_TILE_STAGED) */           \
    if (PER && tl) { /* rows m .. n - 1: the chunk's last h (constant indices: no spills) */       \
      v[L - 1] = 0;                                                                                \
      if (h > 1) v[L - 2] = 0;                                                                     \
    }                                                                                              \
  } else {                                                                                         \
    _Pragma("unroll") for (int j = 0; j < L; j++) v[j] = r0 + j < m ? fp[j * rs] : (T)0;           \
  }

/* The scans of a tiled solve over a system's P chunks (one warp lane each, segments of pp lanes)
 * compose affine maps (M_k, b_k): M_k from the shared matrix alone, b_k the chunk's own values.
 * At Kogge-Stone step i (offset o = 2^i) lane kk takes b <- W_i b' + b, where b' comes from lane
 * kk - o (kk + o backward) and W_i is the product of the M over the lane's window so far, the
 * same for every system. So W_i are computed once per block: one warp per direction runs the
 * matrix half of the scan (the same products as a full scan would) and keeps W_i in sw
 * ([step][entry][lane], zero where the lane takes nothing at that step); each group's scan then
 * shuffles and combines only b. On the H200 the full scan (six values shuffled a step, through
 * up/down branches) was a quarter of the tiled kernel's instructions and stall samples. */
#define GS_TILE_SCAN_MATS(T, S, L, backward, W)                                                    \
  {                                                                                                \
    T M[4] = {1, 0, 0, 1};                                                                         \
    if (kk < P) gs_tile_map_##S(tab, 1, NW, L + 1, L, kk, backward, M);                            \
    GS_TILE_SCAN_MATS_KS(T, S, M, backward, kk, pp, P, W)                                          \
  }
/* Its Kogge-Stone half from the lane's map M (lane kk of segments of pp lanes, P of them live):
 * W_i into W, M consumed. */
#define GS_TILE_SCAN_MATS_KS(T, S, M, backward, kk, pp, P, W)                                      \
  for (int i_ = 0, o_ = 1; o_ < (pp); i_++, o_ <<= 1) {                                            \
    const int take = (backward) ? (kk) + o_ < (P) : (kk) >= o_;                                    \
    const int src = ((backward) ? (kk) + o_ : (kk)-o_) & ((pp)-1);                                 \
    T Mp[4];                                                                                       \
    _Pragma("unroll") for (int q = 0; q < 4; q++) {                                                \
      Mp[q] = __shfl_sync(0xffffffffu, (M)[q], src, (pp));                                         \
      (W)[i_][q][lane] = take ? (M)[q] : (T)0;                                                     \
    }                                                                                              \
    if (take) gs_tile_mmul_##S(M, Mp);                                                             \
  }
/* b (this lane's carry pair) <- the scan's result, with W from GS_TILE_SCAN_MATS. */
#define GS_TILE_SCAN_CARRIES(T, S, W, backward, kk, pp, P, b)                                      \
  for (int i_ = 0, o_ = 1; o_ < (pp); i_++, o_ <<= 1) {                                            \
    const int src = ((backward) ? (kk) + o_ : (kk)-o_) & ((pp)-1);                                 \
    const T p0 = __shfl_sync(0xffffffffu, (b)[0], src, (pp));                                      \
    const T p1 = __shfl_sync(0xffffffffu, (b)[1], src, (pp));                                      \
    if ((backward) ? (kk) + o_ < (P) : (kk) >= o_) {                                               \
      const T Wl_[4] = {(W)[i_][0][lane], (W)[i_][1][lane], (W)[i_][2][lane], (W)[i_][3][lane]};   \
      const T bp_[2] = {p0, p1};                                                                   \
      gs_tile_apply_##S(Wl_, b, bp_);                                                              \
    }                                                                                              \
  }
/* The whole scan, matrices and carries, where the matrices have no room in shared memory. */
#define GS_TILE_SCAN_FULL(T, S, backward, kk, pp, P, M, b)                                         \
  for (int o_ = 1; o_ < (pp); o_ <<= 1) {                                                          \
    const int src = ((backward) ? (kk) + o_ : (kk)-o_) & ((pp)-1);                                 \
    T Mp[4], bp[2];                                                                                \
    _Pragma("unroll") for (int q = 0; q < 4; q++) Mp[q] =                                          \
        __shfl_sync(0xffffffffu, (M)[q], src, (pp));                                               \
    _Pragma("unroll") for (int q = 0; q < 2; q++) bp[q] =                                          \
        __shfl_sync(0xffffffffu, (b)[q], src, (pp));                                               \
    if ((backward) ? (kk) + o_ < (P) : (kk) >= o_) gs_tile_compose_##S(M, b, Mp, bp);              \
  }
/* A tiled solve whose shared matrix could not be factored: every solution is NaN, every system
 * marked with the factorisation's status. */
#define GS_TILE_FAILED_FACTOR(S)                                                                   \
  if (fst) { /* the shared matrix could not be factored: every solution is NaN */                  \
    for (GsInt grp = blockIdx.x; grp < total; grp += gridDim.x) {                                  \
      const GsInt s = (grp % groups) * ns + sl;                                                    \
      if (s < a.batch && k == 0) {                                                                 \
        GsInt rb, rs;                                                                              \
        gs_rhs_place(&a, s, &rb, &rs);                                                             \
        gs_banded_poison_##S(sh.n, x, rb + grp / groups * a.rhs_len, rs);                          \
        gs_mark(status, s, fst, sum);                                                              \
      }                                                                                            \
    }                                                                                              \
    return;                                                                                        \
  }

/* A periodic system's first h and last h block values from this thread's chunk of L values v
 * (rows r0 ..) into e (2 h entries), for the tail of the tiled and scan kernels. */
#define GS_PER_ENDS(L, e, v)                                                                       \
  _Pragma("unroll") for (int j_ = 0; j_ < (L); j_++) {                                             \
    const int i_ = r0 + j_;                                                                        \
    if (i_ < h) (e)[i_] = (v)[j_];                                                                 \
    if (i_ >= m - h && i_ < m) (e)[h + (i_ - (m - h))] = (v)[j_];                                  \
  }
/* A periodic system's last h unknowns zv (f's last h values on entry) from those values e and the
 * corner data C, NaN where FST (a failed factorisation); stored into x where STORE, their
 * finiteness added to chk where CHK. */
#define GS_PER_TAIL_SOLVE(T, S, C, e, zv, FST, STORE, CHK)                                         \
  gs_banded_tail_##S(&sh, C, e, zv);                                                               \
  _Pragma("unroll") for (int r = 0; r < 2; r++) if (r < h) {                                       \
    if (FST) (zv)[r] = (T)NAN;                                                                     \
    if (STORE) x[rb + (GsInt)(m + r) * rs] = (zv)[r];                                              \
    if (CHK) chk += (zv)[r] * (T)0;                                                                \
  }
/* Then, after a barrier, the system's first thread: its last h unknowns z, stored into x (where
 * STORE) and into zd (2 entries, for y -= W z). */
#define GS_PER_TAIL(T, S, C, e, FST, zd, STORE)                                                    \
  if (on && k == 0) {                                                                              \
    GS_PER_TAIL_SOLVE(T, S, C, e, z, FST, STORE, 1)                                                \
    (zd)[0] = z[0];                                                                                \
    (zd)[1] = h > 1 ? z[1] : (T)0;                                                                 \
  }
/* The end of a tiled solve's group, shared by the short and long kernels: for a periodic system
 * the last h unknowns from the block's end values and y -= W z on the chunks W reaches, then the
 * store of the chunk and the check for values that are not finite. BAR: a barrier after them,
 * where the end values (yc, zt) share memory with the carries that the next group writes first;
 * elsewhere every shared value a group reads was read before its last barrier. */
#define GS_TILE_FINISH(T, S, L, PER, BAR, WSM, WT, STG, STORE)                                     \
  T chk = 0; /* stays 0 unless a value is inf or NaN (v * 0 is NaN then) */                        \
  if (PER) { /* the last h unknowns from the block's end values, then y -= W z */                  \
    if (on) GS_PER_ENDS(L, yc[sl], v)                                                              \
    __syncthreads();                                                                               \
    GS_PER_TAIL(T, S, cs, yc[sl], 0, zt[sl], !tin) /* a failed factorisation returned before */    \
    __syncthreads();                                                                               \
    /* Only chunks that reach the rows where W is above rounding (Factor's extents). */            \
    GsInt phi, plo;                                                                                \
    gs_banded_w_rows_##S(&sh, cs, &phi, &plo);                                                     \
    if (on && (r0 < phi || r0 + L > plo)) {                                                        \
      const T z0 = zt[sl][0], z1 = zt[sl][1];                                                      \
      if (WSM) { /* W's rows in shared memory: pairs, chunk k's from k * (L + 1) */                \
        const T *w_ = (WT) + 2 * k * (L + 1);                                                      \
        _Pragma("unroll") for (int j = 0; j < L; j++) v[j] -= w_[2 * j] * z0 + w_[2 * j + 1] * z1; \
      } else {                                                                                     \
        _Pragma("unroll") for (int j = 0; j < L; j++) v[j] -=                                      \
            gtab[GS_TAB_W1 * np + r0 + j] * z0 + gtab[GS_TAB_W2 * np + r0 + j] * z1;               \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
  if (STG) { /* the warp's chunks staged through shared memory (GS_TILE_STAGED) */                 \
    if (PER && tl)                                                                                 \
      _Pragma("unroll") for (int j = 0; j < L; j++) if (r0 + j >= m) v[j] =                        \
          r0 + j == m ? zt[sl][0] : zt[sl][1];                                                     \
    _Pragma("unroll") for (int j = 0; j < L; j++) chk += v[j] * (T)0;                              \
    STORE                                                                                          \
    if (chk != 0 || chk != chk) gs_mark(status, s, GS_BANDED_NOT_FINITE, sum);                     \
  } else if (on) {                                                                                 \
    T *xp = x + rb + r0 * rs;                                                                      \
    if (full) {                                                                                    \
      if (PER && tl) /* the tail's rows: its unknowns (!tin: the tail did not store them) */       \
        _Pragma("unroll") for (int j = 0; j < L; j++) if (r0 + j >= m) v[j] =                      \
            r0 + j == m ? zt[sl][0] : zt[sl][1];                                                   \
      GS_TILE_STORE(T, L, xp, rs, v)                                                               \
      _Pragma("unroll") for (int j = 0; j < L; j++) chk += v[j] * (T)0;                            \
    } else {                                                                                       \
      _Pragma("unroll") for (int j = 0; j < L; j++) if (r0 + j < m) {                              \
        xp[j * rs] = v[j];                                                                         \
        chk += v[j] * (T)0;                                                                        \
      }                                                                                            \
    }                                                                                              \
    if (chk != 0 || chk != chk) gs_mark(status, s, GS_BANDED_NOT_FINITE, sum);                     \
  }                                                                                                \
  if (BAR) __syncthreads(); /* the next group reuses the carry buffers */
/* The table gtab (np rows an array) into shared memory (tab, NW columns a row, chunk k's rows from
 * k * (L + 1)): for each row i of the np, its NCOL columns, column c_ from table array SRC (an
 * expression in c_), all loads of a row in flight together. Indexing by row keeps divisions out (L
 * is a compile-time power of two): by flat entry, a division by np per entry made the copy cost as
 * many instructions as a small batch's whole solve. */
#define GS_TILE_COPY(T, tab, gtab, np, NCOL, NT, L, NW, SRC)                                       \
  for (int i_ = (int)threadIdx.x; i_ < (np); i_ += (NT)) {                                         \
    T v_[NCOL];                                                                                    \
    _Pragma("unroll") for (int c_ = 0; c_ < (NCOL); c_++) v_[c_] = (gtab)[(SRC) * (np) + i_];      \
    T *d_ = (tab) + ((i_ / (L)) * ((L) + 1) + i_ % (L)) * (NW);                                    \
    _Pragma("unroll") for (int c_ = 0; c_ < (NCOL); c_++) d_[c_] = v_[c_];                         \
  }
/* GS_TILE_STAGED: a contiguous batch's warp whose chunks are all full (ns <= 32 systems a group,
 * so cps = 32 / ns consecutive chunks of each of the ns systems: span = cps L adjacent rows a
 * system) loads and stores them through shared memory: load q of lane l moves value u = 32 q + l
 * of the warp's rows taken system by system (runs of span adjacent rows, 256 contiguous bytes or
 * more in double where L >= 16), into u + u / L of the warp's buffer (a pad after each chunk); then
 * lane t takes its chunk's L values, slot (t % ns) cps + (t % 32) / ns, from there (rows L + 1
 * values apart: no bank conflicts). Unstaged, each of a warp's 16-byte loads touches 32 chunks
 * L rows apart, and the L1 cannot hold their lines until the next loads use the rest. The buffer
 * (66 KB a block in double at L = 32) leaves one block a SM at 1024 rows. H200, deferred checks,
 * three rounds, unstaged -> staged (us): shared contiguous 1024 x 1024 penta stiff (a = 1e5, a
 * Cahn-Hilliard x sweep) 23.2 -> 17.4, periodic 26.1 -> 21.3, tri 24.4 -> 18.3, 1000 rows 23.4
 * -> 18.7; 2048 x 1024 periodic 37.5 -> 31.2 (two rounds); 8192 x 1024 91.8 -> 92.2, float 1024
 * x 1024 periodic 17.4 -> 17.5 (unchanged within noise). Keeping the scans' matrices in shared
 * memory as well (GS_TILE_SCAN_MATS) moved these by -4 % to +2 %, and was left out. */
/* The warp's span sp_ (a power of two) and its shift, the place of its first system's first
 * row (b_), and lane t's slot in the buffer. */
#define GS_TILE_STAGED_PLACE(L)                                                                    \
  const int sp_ = (32 / ns) * (L), sh_ = __ffs(sp_) - 1;                                           \
  const GsInt b_ = g0 * ns * a.stride + blk * a.rhs_len + (GsInt)(((t & ~31) / ns) * (L));         \
  const int slot_ = ((t % ns) * (32 / ns) + (t & 31) / ns) * ((L) + 1);
#define GS_TILE_STAGED_ADDR(q)                                                                     \
  (b_ + (GsInt)((32 * (q) + (t & 31)) >> sh_) * a.stride + ((32 * (q) + (t & 31)) & (sp_ - 1)))
#define GS_TILE_STAGED_LOAD(T, L)                                                                  \
  {                                                                                                \
    GS_TILE_STAGED_PLACE(L)                                                                        \
    _Pragma("unroll") for (int q = 0; q < (L); q++) v[q] = f[GS_TILE_STAGED_ADDR(q)];              \
    _Pragma("unroll") for (int q = 0; q < (L); q++) {                                              \
      const int u_ = 32 * q + (t & 31);                                                            \
      sbuf[u_ + u_ / (L)] = v[q];                                                                  \
    }                                                                                              \
    __syncwarp();                                                                                  \
    _Pragma("unroll") for (int j = 0; j < (L); j++) v[j] = sbuf[slot_ + j];                        \
    __syncwarp();                                                                                  \
  }
#define GS_TILE_STAGED_STORE(T, L)                                                                 \
  {                                                                                                \
    GS_TILE_STAGED_PLACE(L)                                                                        \
    _Pragma("unroll") for (int j = 0; j < (L); j++) sbuf[slot_ + j] = v[j];                        \
    __syncwarp();                                                                                  \
    _Pragma("unroll") for (int q = 0; q < (L); q++) {                                              \
      const int u_ = 32 * q + (t & 31);                                                            \
      x[GS_TILE_STAGED_ADDR(q)] = sbuf[u_ + u_ / (L)];                                             \
    }                                                                                              \
    __syncwarp();                                                                                  \
  }
#define GS_TILE_THREADS 256
/* Resident blocks per SM the kernels are compiled for (registers). */
#define GS_TILE_MIN_BLOCKS(L) ((L) == 8 ? 3 : 2)
/* Wide blocks for large interleaved batches of 32-row chunks: 512 threads, one block per SM (the
 * same 128 registers and 16 warps as two blocks of 256), so that a group holds 16 systems and each
 * row of a chunk is read and written as 128 contiguous bytes instead of 64. The H200's memory
 * serves scattered pieces at about 45 G pieces per second, whatever their size up to 64 bytes: a
 * kernel that only moves data in the tiled solve's pattern (65536 systems x 1024 rows, double,
 * pieces of ns x 8 bytes at a 512 KB row stride) ran at 2.67 TB/s with 64-byte pieces, 1.45 with
 * 32, 0.73 with 16, and 3.35-3.45 with 128 or 256, against 3.9 TB/s for a plain copy. Measured
 * with the solve (deferred checks, two rounds, 256 -> 512 threads): penta 65536 x 1024 474.0 /
 * 474.7 -> 431.0 / 426.7 us, periodic 544.8 / 546.6 -> 502.5 / 493.7, tri 478.9 / 473.4 ->
 * 425.8 / 431.0, float 295.9 / 297.6 -> 264.3 / 264.4, 16384 x 1024 127.1 / 127.3 -> 124.0 /
 * 125.9; but 1024 x 1024 16.4 / 16.5 -> 18.6 / 18.7 and contiguous 65536 x 1024 730.7 / 726.9
 * -> 923.5 / 921.2 (there each thread's rows are contiguous already), and with 16- or 8-row
 * chunks 65536 x 512 263.7 / 261.8 -> 287.1 / 283.9, 65536 x 256 178.7 / 176.4 -> 227.3 /
 * 227.7: one block per SM no longer overlaps one block's loads with the other's sweeps. */
#define GS_TILE_WIDE_THREADS 512
/* GS_TILE_WSM: a periodic system's y -= W z reads W's rows (the chunks where W is above
 * rounding: a few at each end for a diagonally dominant matrix, nearly all for a stiff ADI one)
 * at the end of each group, while the rest of the block waits at the next group's first barrier.
 * The periodic kernels with PER 2 keep them in shared memory after the table (two values a row,
 * 17 KB at 1024 rows in double), chosen where that keeps as many blocks a SM as the batch fills.
 * H200, deferred checks, two rounds, W from L2 -> shared memory (us): shared periodic penta
 * 1024 x 1024 stiff (a = 1e5, a Cahn-Hilliard sweep) 19.4 -> 18.6, contiguous 27.4 -> 27.2,
 * 16384 x 512 82.4 -> 78.8, float 65536 x 1024 (wide) 306.7 -> 297.5; but double wide blocks
 * went 464.5 -> 480.2 (penta), 448.1 -> 466.2 (tri), where the kernel spills 92 bytes instead
 * of 48 at its 128 registers, so these keep W in L2 (and have no PER 2 kernel). In a build
 * not kept (each thread solving the tail itself), leaving the correction out altogether (a
 * timing experiment, not a solve) gave 479 -> 436 us there, against 378 not periodic: what the
 * correction costs there is the registers it holds more than where W comes from. */
#define GS_TILE_WIDE_MIN_BATCH 16384
/* GS_TILE_TAIL (-banded_tile_tail): a periodic system's tail in a kernel of its own. The fused
 * periodic kernels (PER 1, 2) gather each system's end values, wait at a barrier, solve the tail's
 * h x h system in one thread and apply y -= W z to the chunks W reaches, all inside the group: in
 * the wide blocks, registers the kernel does not have and a block-wide wait per group. PER 3
 * solves the banded block E only (rows 0 .. m - 1, the plain kernel's work; rows m .. n - 1 keep
 * f's values), and gs_banded_tile_tail_k then takes, for each system, its end values y and f's
 * last h values, solves the tail z, stores it and applies y -= W z on the rows [0, phi) and
 * [plo, m) where W is above rounding (Factor's extents), GS_TILE_TAIL_PARTS threads a system,
 * each with a share of those rows (every thread solves the tail: 3 h values more to read, from
 * L2). That moves the rows W reaches twice, so the automatic choice takes it where they are few
 * (GS_TILE_TAIL_AUTO_FRAC of the rows): W of a diagonally dominant matrix decays within tens of
 * rows (27 at each end for the benchmark's penta rows), that of a stiff ADI matrix (a = 1e5)
 * reaches every row. H200, deferred checks, 65536 x 1024 shared, two rounds against the build
 * before (the fused kernel, whose rows m .. n - 1 were then zeroed by a guarded loop, 52 bytes of
 * spills in the wide double kernel; 4 now) (us): penta periodic 480.7 / 476.3 -> 428.8 / 426.7
 * against the plain solve's 384.3 / 381.9 (1.12x; the fused kernel now 448.7 / 452.9, 1.18x), tri
 * 470.1 / 460.9 -> 422.0 / 419.4 against 379.5 / 377.5 (1.11x; fused 434.0 / 432.0), float penta
 * 311.8 -> 267.0 against 250.8 (1.06x; fused 305.6); 16384 x 1024 139.2 -> 131.6 against 115.6
 * (fused 132.9); but stiff rows (W on every row) 463.0 fused against 690.3 with the tail's
 * kernel, and 1024 x 1024 17.6 against 21.1, which auto leaves fused. Eight parts a system with
 * each thread's first run of rows loaded before the tail's solve measured 429.7-434.3 us penta
 * in another call (plain 375.7-382.0): not better. */
/* What GS_TILE_FINISH does of a periodic PER: PER 3 stores as a plain solve does. */
#define GS_TILE_PFIN(PER) ((PER) == 3 ? 0 : (PER))
#define GS_TILE_TAIL_PARTS 4
#define GS_TILE_TAIL_RUN 4
#define GS_TILE_TAIL_THREADS (32 * GS_TILE_TAIL_PARTS)
/* auto: the rows W reaches at most m / GS_TILE_TAIL_AUTO_FRAC */
#define GS_TILE_TAIL_AUTO_FRAC 8
extern __shared__ double2 gs_tile_dyn[]; /* the table, padded (size given at launch) */
#define GS_TILE_SCANW GS_BANDED_TILE_SCANW /* values of the scans' matrices, after the table */
/* Dynamic shared memory of a tiled solve: the padded table. */
static size_t gs_tile_smem(int L, int P, size_t es, int scanw, int wsm, int stage) {
  return ((size_t)(GS_BANDED_TILE_NSWEEP + (wsm ? 2 : 0)) * (size_t)P * (size_t)(L + 1) +
          (scanw ? GS_TILE_SCANW : 0) + (stage ? (size_t)GS_TILE_THREADS * (size_t)(L + 1) : 0)) *
         es;
}
/* Two values of type T from global to shared memory without holding the thread (cp.async: 16
 * bytes in double, 8 in float), and the wait for all of a thread's copies. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define GS_CP_ASYNC_PAIR(dst, src)                                                                 \
  {                                                                                                \
    (dst)[0] = (src)[0];                                                                           \
    (dst)[1] = (src)[1];                                                                           \
  }
#define GS_CP_ASYNC_WAIT()
#else
#define GS_CP_ASYNC_PAIR(dst, src)                                                                 \
  asm volatile(                                                                                    \
      "cp.async.ca.shared.global [%0], [%1], %2;" ::"r"((unsigned)__cvta_generic_to_shared(dst)),  \
      "l"(src), "n"(2 * (int)sizeof(*(src)))                                                       \
      : "memory");
#define GS_CP_ASYNC_WAIT() asm volatile("cp.async.wait_all;" ::: "memory");
#endif
/* 16 bytes from global to shared memory past L1 (cp.async.cg takes 16 bytes only). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define GS_CP_ASYNC_16_CG(dst, src)                                                                \
  asm volatile(                                                                                    \
      "cp.async.cg.shared.global [%0], [%1], 16;" ::"r"((unsigned)__cvta_generic_to_shared(dst)),  \
      "l"(src)                                                                                     \
      : "memory");
#else
#define GS_CP_ASYNC_16_CG(dst, src)                                                                \
  *(double2 *)(void *)(dst) = *(const double2 *)(const void *)(src);
#endif
/* The shared-memory image (gs_tile_image_len, written by Factor after the table) into tab with
 * asynchronous 16-byte copies, the wait left to the first group (after its loads of f are issued):
 * the sweep arrays and, with SW, the scans' matrices; with PER 2, W's rows after them. A one-pass
 * tiled solve's block had copied the table row by row, waited, and computed the scans' matrices
 * before it loaded any f: with one or two groups a block (1024 x 1024, the Cahn-Hilliard 1024^2
 * sweeps) that set-up is a large part of the kernel. Double only (the launch gives float NULL). */
#define GS_TILE_IMAGE_COPY(T, L, SW, PER, NT_)                                                          \
  {                                                                                                \
    const char *is_ = (const char *)img;                                                           \
    char *id_ = (char *)tab;                                                                       \
    const int o_ = NW * P * ((L) + 1) * (int)sizeof(T); /* the sweep arrays' bytes */              \
    const int n1_ = (o_ + ((SW) ? GS_TILE_SCANW * (int)sizeof(T) : 0)) / 16;                       \
    for (int u_ = t; u_ < n1_; u_ += (NT_))                                                        \
      GS_CP_ASYNC_16_CG(id_ + 16 * u_, is_ + 16 * u_)                                              \
    if ((PER) == 2) {                                                                              \
      const char *ws_ = is_ + o_ + GS_TILE_SCANW * (int)sizeof(T);                                 \
      char *wd_ = id_ + o_ + ((SW) ? GS_TILE_SCANW * (int)sizeof(T) : 0);                          \
      const int n2_ = 2 * P * ((L) + 1) * (int)sizeof(T) / 16;                                     \
      for (int u_ = t; u_ < n2_; u_ += (NT_))                                                      \
        GS_CP_ASYNC_16_CG(wd_ + 16 * u_, ws_ + 16 * u_)                                            \
    }                                                                                              \
  }
/* Factor's image for the one-pass tiled solves of L-row chunks (double): what GS_CUDA_BANDED_TILE_NT
 * sets up in shared memory before its first group, built the same way by one block, then written
 * out after the table (zeros where nothing is set up: the chunks' pad rows, unused scan steps). */
#define GS_CUDA_BANDED_TILE_IMAGE(L)                                                               \
  static __global__ void __launch_bounds__(GS_TILE_THREADS)                                        \
      gs_banded_tile_image_k_##L(GsBandedKArgs a, const double *__restrict__ gtab, double *img) {  \
    typedef double T;                                                                              \
    enum { NW = GS_BANDED_TILE_NSWEEP, NTT = GS_TILE_THREADS };                                    \
    const int P = a.tile_p, pp = gs_tile_pow2(P), np = P * (L), per = a.sh.periodic;               \
    const int t = threadIdx.x, lane = t % 32, kk = lane % pp;                                      \
    const int len = (int)gs_tile_image_len(per, P, L);                                             \
    T *tab = (T *)gs_tile_dyn;                                                                     \
    for (int i = t; i < len; i += NTT)                                                             \
      tab[i] = 0;                                                                                  \
    __syncthreads();                                                                               \
    GS_TILE_COPY(T, tab, gtab, np, NW, NTT, L, NW, c_)                                             \
    __syncthreads();                                                                               \
    T(*sw)[5][4][32] = (T(*)[5][4][32])(tab + NW * P * ((L) + 1));                                 \
    if (t < 64) GS_TILE_SCAN_MATS(T, d, L, t / 32, sw[t / 32])                                     \
    if (per) {                                                                                     \
      T *w_ = tab + NW * P * ((L) + 1) + GS_TILE_SCANW;                                            \
      GS_TILE_COPY(T, w_, gtab, np, 2, NTT, L, 2, GS_TAB_W1 + c_)                                  \
    }                                                                                              \
    __syncthreads();                                                                               \
    for (int i = t; i < len; i += NTT)                                                             \
      img[i] = tab[i];                                                                             \
  }
#define GS_CUDA_BANDED_TILE(T, S, L, PER)                                                          \
  GS_CUDA_BANDED_TILE_NT(T, S, L, PER, GS_TILE_THREADS, GS_TILE_MIN_BLOCKS(L), , 1, 0, 0)          \
  GS_CUDA_BANDED_TILE_NT(T, S, L, PER, GS_TILE_THREADS, GS_TILE_MIN_BLOCKS(L), c, 1, 1, 0)
/* GS_TILE_NEXT (-banded_tile_next; NX 1): the wide kernels (one block a SM, 16 warps going
 * through each group's loads, sweeps, scans and stores in step) had nothing of their own in
 * flight between one group's loads and the next: with the loads of f left out (a timing probe,
 * not a solve) the shared penta solve at 65536 x 1024 took 356 against 456 us. With NX the
 * tensor memory accelerator copies the next group's f, rows [0, GS_TILEX_ROWS) of its 16 systems
 * (boxes of GS_TILEX_BOX rows), into shared memory after the table and the scans' matrices as
 * soon as every warp has its chunks of the present group in registers (GS_TILE_NX_FREE), so
 * those chunks start from shared memory and the copies overlap the sweeps, scans and stores. In
 * double the table leaves room for 768 rows (96 KB); the chunks below load from global memory as
 * before. H200, deferred checks, medians of three rounds, off -> on (us): 65536 x 1024 377.2 ->
 * 364.7, 262144 x 1024 1412.0 -> 1398.0, 16384 x 1024 114.0 -> 104.8; where every row fits,
 * 65536 x 600 267.4 -> 213.4, float 65536 x 1024 249.0 -> 207.3; the block E of periodic solves
 * (PER 3) 429.8 -> 403.5, tri 415.0 -> 390.5 (with the tail's kernel;
 * banded-tile-next-ab-nvidia-h200.json). Issued after the barrier that follows the forward sweep
 * instead (the copies then overlap no sweep of f), 65536 x 1024 took 378.3, 262144 x 1024 1459.5,
 * float 216.6 us.
 * 17 to 32 chunks: ns = 16 systems a group, compile-time. The same arithmetic as the wide kernel,
 * so the same bits. Tried for the room to hold every row in double, all slower: the table's six
 * sweep columns on chip and each chunk's recurrences run twice instead of adding the responses U
 * and R (as the long kernel does; 140 bytes of spills, 381.5 -> 426.9 us), U and R read from the
 * table in global memory (379.1 -> 468.2 us), and the scans' matrices read from Factor's image in
 * global memory (the full 128 KB of f fits beside the table then: 379.6 -> 419.0 us, 262144 x
 * 1024 1425.7 -> 1597.8; the scans wait on those loads at every step). */
#define GS_TILEX_BOX 256
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define GS_IF_TILE_NX(...) __VA_ARGS__
#define GS_TILE_NX_K(S, V) gs_banded_tile_k_##S##V
#else
#define GS_IF_TILE_NX(...)
#define GS_TILE_NX_K(S, V) NULL
#endif
#define GS_TILEX_ROWS(es) ((es) == 8 ? 768 : 1024)
#define GS_TILE_NX_PARAM_0
#define GS_TILE_NX_PARAM_1 const __grid_constant__ CUtensorMap fm,
/* fb: the group's f, row-major (ns values a row), 128-byte aligned after the scans' matrices (an
 * expression, not a variable: a register fewer held through the group; 32-row chunks) */
#define GS_TILE_NX_FB(T)                                                                           \
  (tab + NW * P * 33 + GS_TILE_SCANW +                                                             \
   ((128 - gs_smem_addr(tab + NW * P * 33 + GS_TILE_SCANW) % 128) % 128) / sizeof(T))
#define GS_TILE_NX_SETUP_0(T, L)
#define GS_TILE_NX_WAIT_0()
#define GS_TILE_NX_FREE_0(T)
#define GS_TILE_NX_LOAD_0(T, L, PER, stg) GS_TILE_LOAD_CHUNK(T, L, PER, stg)
/* The statements inside GS_IF_STG_SM90 as written: */
/* clang-format off */
/* The first group's copies issued. */
#define GS_TILE_NX_SETUP_1(T, L)                                                                   \
  GS_IF_STG_SM90(                                                                                  \
    __shared__ unsigned long long fbar, ebar; /* f arrived; every warp's reads of it done */       \
    __shared__ int snx[2]; /* the next group's column and row in f */                              \
    enum { NXR = GS_TILEX_ROWS(sizeof(T)) };                                                       \
    const int nbox = (np < NXR ? np + GS_TILEX_BOX - 1 : NXR) / GS_TILEX_BOX;                      \
    if (t == 0) {                                                                                  \
      gs_mbar_init(&fbar);                                                                         \
      gs_mbar_init_n(&ebar, blockDim.x / 32);                                                      \
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");                           \
      GS_TILE_NX_COPY(T, (int)(blockIdx.x % groups * ns), (int)(blockIdx.x / groups * sh.n))       \
    }                                                                                              \
  )
/* The copies of f's rows for the group at column col (its first system) and row row (its
 * right-hand-side block's first) into fb. */
#define GS_TILE_NX_COPY(T, col, row)                                                               \
  {                                                                                                \
    gs_mbar_expect(&fbar, (unsigned)(nbox * GS_TILEX_BOX * ns * (int)sizeof(T)));                  \
    for (int b_ = 0; b_ < nbox; b_++)                                                              \
      gs_tma_tile(GS_TILE_NX_FB(T) + b_ * GS_TILEX_BOX * ns, &fm, (col),                           \
                  (row) + b_ * GS_TILEX_BOX, &fbar, gs_policy_first());                            \
  }
/* At the top of a group (nothing held yet): the wait for its f; thread 0 keeps the next group's
 * coordinates in snx, so that the issue below, while the group's values are held, computes
 * nothing (64-bit divisions there spilled the double kernel's registers). */
#define GS_TILE_NX_WAIT_1()                                                                        \
  GS_IF_STG_SM90(                                                                                  \
    if (t == 0) {                                                                                  \
      const GsInt nx_ = grp + gridDim.x;                                                           \
      snx[0] = (int)(nx_ % groups * ns);                                                           \
      snx[1] = (int)(nx_ / groups * sh.n);                                                         \
    }                                                                                              \
    gs_mbar_wait(&fbar, (unsigned)((grp - blockIdx.x) / gridDim.x) & 1);                           \
  )
/* Once each warp has its chunks of the group's f in registers it arrives on ebar; thread 0 waits
 * for every warp's arrival there and issues the next group's copies, which so overlap the forward
 * sweep too. The other warps go on to their sweeps. */
#define GS_TILE_NX_FREE_1(T)                                                                       \
  GS_IF_STG_SM90(                                                                                  \
    __syncwarp();                                                                                  \
    if (lane == 0) gs_mbar_arrive(&ebar);                                                          \
    if (t == 0 && grp + gridDim.x < total) {                                                       \
      gs_mbar_wait(&ebar, (unsigned)((grp - blockIdx.x) / gridDim.x) & 1);                         \
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");                                 \
      GS_TILE_NX_COPY(T, snx[0], snx[1])                                                           \
    }                                                                                              \
  )
#define GS_TILE_NX_LOAD_1(T, L, PER, stg)                                                          \
  GS_IF_STG_SM90(                                                                                  \
    if (r0 < NXR) {                                                                                \
      gs_rhs_place(&a, s, &rb, &rs);                                                               \
      rb += blk * a.rhs_len;                                                                       \
      const T *q_ = GS_TILE_NX_FB(T) + r0 * ns + sl;                                               \
      if (full) {                                                                                  \
        _Pragma("unroll") for (int j = 0; j < L; j++) v[j] = q_[j * ns];                           \
        if ((PER) && tl) { /* rows m .. n - 1: the chunk's last h */                               \
          v[L - 1] = 0;                                                                            \
          if (h > 1) v[L - 2] = 0;                                                                 \
        }                                                                                          \
      } else {                                                                                     \
        _Pragma("unroll") for (int j = 0; j < L; j++) v[j] = r0 + j < m ? q_[j * ns] : (T)0;       \
      }                                                                                            \
    } else {                                                                                       \
      GS_TILE_LOAD_CHUNK(T, L, PER, 0)                                                             \
    }                                                                                              \
  )
/* clang-format on */
/* The dynamic shared memory NX adds: the rows of f and the alignment. */
static size_t gs_tilex_smem(int P, size_t es) {
  const size_t np = (size_t)P * 32, cap = GS_TILEX_ROWS(es);
  const size_t rows = np < cap ? (np + GS_TILEX_BOX - 1) / GS_TILEX_BOX * GS_TILEX_BOX : cap;
  return rows * (GS_TILE_WIDE_THREADS / 32) * es + 128;
}
/* SW: the scans' matrices in shared memory (GS_TILE_SCAN_MATS), after the table. */
#define GS_CUDA_BANDED_TILE_NT(T, S, L, PER, NTT, MINB, V, SW, CST, NX)                            \
  static __global__ void __launch_bounds__(NTT, MINB) gs_banded_tile_k_##S##L##PER##V(             \
      GsBandedKArgs a, GS_TILE_NX_PARAM_##NX const T *__restrict__ gtab, const T *__restrict__ C,  \
      const int *__restrict__ fstatus, const T *f, T *x, int *status, GsBandedDevSummary *sum) {   \
    GS_PDL_ENTER(); /* launched by GS_LAUNCH */                                                    \
    /* cl: carries out of each chunk; ci: carries into each chunk (scanned); then the periodic     \
     * step's y end rows (yc) and last h unknowns (zt), after them or (short systems) in place. */ \
    __shared__ T buf[6 * NTT];                                                                     \
    T(*cl)[2] = (T(*)[2])buf, (*ci)[2] = (T(*)[2])(buf + 2 * NTT);                                 \
    GsBandedShape sh = a.sh;                                                                       \
    sh.periodic = (PER) != 0;                                                                      \
    const int P = a.tile_p, pp = (NX) ? 32 : gs_tile_pow2(P), ns = NTT / pp, h = sh.h;             \
    /* The end values past the carries where they fit (all but 1- or 2-chunk systems), so that     \
     * the next group need not wait for this one's last readers of them (GS_TILE_FINISH). */       \
    const int yoff = 6 * ns <= 2 * NTT ? 4 * NTT : 0;                                              \
    T(*yc)[4] = (T(*)[4])(buf + yoff), (*zt)[2] = (T(*)[2])(buf + yoff + 4 * ns);                  \
    const int np = P * L, m = (int)sh.m;                                                           \
    const int t = threadIdx.x, sl = t % ns, k = t / ns;                                            \
    const int r0 = k * L, q0 = k * (L + 1); /* chunk start: rows, table */                         \
    GS_TILE_FULL(L, PER)                                                                           \
    const int fst = fstatus[0];                                                                    \
    const GsInt groups = (a.batch + ns - 1) / ns, total = groups * a.nrhs;                         \
    GS_TILE_FAILED_FACTOR(S)                                                                       \
    /* The sweep's arrays row by row (NW columns), chunk k's rows from k * (L + 1). */             \
    enum { NW = GS_BANDED_TILE_NSWEEP };                                                           \
    T *tab = (T *)gs_tile_dyn;                                                                     \
    GS_TILE_NX_SETUP_##NX(T, L);                                                                   \
    const T *img = (const T *)a.tile_img;                                                          \
    int pend = img != NULL; /* the image's copies not yet waited for */                            \
    if (img) {                                                                                     \
      GS_TILE_IMAGE_COPY(T, L, SW, PER, NTT)                                                       \
    } else {                                                                                       \
      GS_TILE_COPY(T, tab, gtab, np, NW, NTT, L, NW, c_)                                           \
    }                                                                                              \
    /* Periodic: the corner data too, read by every group's tail (a global load each time). */     \
    __shared__ T cs[GS_BANDED_CORNER_LEN(5)];                                                      \
    if (GS_TILE_PFIN(PER) && t < GS_BANDED_CORNER_LEN(sh.bands)) cs[t] = C[t];                     \
    __syncthreads();                                                                               \
    const int lane = t % 32, kk = lane % pp, ss = (t / 32) * (32 / pp) + lane / pp;                \
    /* The scans' matrices depend on the matrix only: where the launch gave them room, warp 0      \
     * (forward) and 1 (backward) run them once (GS_TILE_SCAN_MATS), so that each group's scans    \
     * move and combine carries only. */                                                           \
    T(*sw)[5][4][32] = (T(*)[5][4][32])(tab + NW * P * (L + 1));                                   \
    if (SW && !img) {                                                                              \
      if (t < 64) GS_TILE_SCAN_MATS(T, S, L, t / 32, sw[t / 32])                                   \
      __syncthreads();                                                                             \
    }                                                                                              \
    /* PER 2: periodic with W's two columns after them, row pairs (GS_TILE_WSM). */                \
    if ((PER) == 2 && !img) {                                                                      \
      T *w_ = tab + NW * P * (L + 1) + (SW ? GS_TILE_SCANW : 0);                                   \
      GS_TILE_COPY(T, w_, gtab, np, 2, NTT, L, 2, GS_TAB_W1 + c_)                                  \
      __syncthreads();                                                                             \
    }                                                                                              \
    for (GsInt grp = blockIdx.x; grp < total; grp += gridDim.x) {                                  \
      const GsInt g0 = grp % groups, blk = grp / groups, s = g0 * ns + sl;                         \
      const int on = s < a.batch && k < P;                                                         \
      GsInt rb = 0, rs = 0;                                                                        \
      T v[L], z[2] = {0, 0};                                                                       \
      const int stg = (CST) && ns <= 32 && __all_sync(0xffffffffu, on && full);                    \
      T *const sbuf = (T *)gs_tile_dyn + NW * P * (L + 1) + (SW ? GS_TILE_SCANW : 0) +             \
                      ((PER) == 2 ? 2 * P * (L + 1) : 0) + (t / 32) * 32 * (L + 1);                \
      if (stg) GS_TILE_STAGED_LOAD(T, L)                                                           \
      GS_TILE_NX_WAIT_##NX();                                                                      \
      if (on) {                                                                                    \
        GS_TILE_NX_LOAD_##NX(T, L, PER, stg)                                                       \
      }                                                                                            \
      GS_TILE_NX_FREE_##NX(T);                                                                     \
      if (pend) { /* the image in shared memory, while the first group's f arrives */              \
        GS_CP_ASYNC_WAIT()                                                                         \
        __syncthreads();                                                                           \
        pend = 0;                                                                                  \
      }                                                                                            \
      if (on) {                                                                                    \
        gs_tile_fwd_##S(tab, 1, NW, q0, L, v);                                                     \
        cl[t][0] = v[L - 2];                                                                       \
        cl[t][1] = v[L - 1];                                                                       \
      }                                                                                            \
      __syncthreads();                                                                             \
      for (int backward = 0; backward < 2; backward++) {                                           \
        T b[2] = {0, 0};                                                                           \
        const int live = kk < P && g0 * ns + ss < a.batch;                                         \
        if (live) {                                                                                \
          b[0] = cl[kk * ns + ss][0];                                                              \
          b[1] = cl[kk * ns + ss][1];                                                              \
        }                                                                                          \
        if (SW) {                                                                                  \
          GS_TILE_SCAN_CARRIES(T, S, sw[backward], backward, kk, pp, P, b)                         \
        } else {                                                                                   \
          T M[4] = {1, 0, 0, 1};                                                                   \
          if (live) gs_tile_map_##S(tab, 1, NW, L + 1, L, kk, backward, M);                        \
          GS_TILE_SCAN_FULL(T, S, backward, kk, pp, P, M, b)                                       \
        }                                                                                          \
        if (live) {                                                                                \
          const int to = backward ? kk - 1 : kk + 1, edge = backward ? P - 1 : 0;                  \
          if (to >= 0 && to < P) {                                                                 \
            ci[to * ns + ss][0] = b[0];                                                            \
            ci[to * ns + ss][1] = b[1];                                                            \
          }                                                                                        \
          if (kk == edge) ci[kk * ns + ss][0] = ci[kk * ns + ss][1] = 0;                           \
        }                                                                                          \
        __syncthreads();                                                                           \
        if (on) {                                                                                  \
          gs_tile_add_##S(tab, 1, NW, q0, L, backward ? GS_TAB_R1 : GS_TAB_U1, ci[t], v);          \
          if (!backward) {                                                                         \
            gs_tile_back_##S(tab, 1, NW, q0, L, v);                                                \
            cl[t][0] = v[0];                                                                       \
            cl[t][1] = v[1];                                                                       \
          }                                                                                        \
        }                                                                                          \
        __syncthreads();                                                                           \
      }                                                                                            \
      if ((PER) == 3 && on && tl) { /* rows m .. n - 1, the chunk's last h: f's (GS_TILE_TAIL) */  \
        v[L - 1] = f[rb + (GsInt)(r0 + L - 1) * rs];                                               \
        if (h > 1) v[L - 2] = f[rb + (GsInt)(r0 + L - 2) * rs];                                    \
      }                                                                                            \
      GS_TILE_FINISH(T, S, L, GS_TILE_PFIN(PER), GS_TILE_PFIN(PER) && !yoff, (PER) == 2,           \
                     tab + NW * P * (L + 1) + (SW ? GS_TILE_SCANW : 0), stg,                       \
                     GS_TILE_STAGED_STORE(T, L))                                                   \
    }                                                                                              \
  }

/* Long tiles (1024 < m <= GS_BANDED_TILE_MAX_ROWS, more than 32 chunks): P <= 128 chunks of 32
 * rows, more than a warp's lanes. A block of GS_TILEL_THREADS threads holds ns = threads / pp
 * systems (pp = pow2(P): 64 or 128), thread t = k * ns + s owning chunk k of system s as in the
 * short kernel, its 32 values in registers from the load of f to the store of x. Shared memory
 * keeps per row only what the sweeps read (a', b', 1/alpha, gamma, delta and a pad: chunk k's rows
 * from k * 33), which at 4096 rows in double is 203 KB of the 227 KB a block may have; the
 * chunks' affine maps come from the table in global memory (L2) when the scans need them. Without
 * the responses U and R on chip, each chunk runs a recurrence twice: from zero carries for its end
 * values only (v untouched), then, after the scan, from the true carries, overwriting v (the same
 * instruction count as adding stored responses). The scans run one warp per 32 chunks of a
 * system (lane = chunk): Kogge-Stone with shuffles inside the warp, then each warp starts from the
 * composed totals of the system's warps before it (after it, going backward), read from shared
 * memory in order. */
#define GS_TILEL_THREADS 512
#define GS_TILEL_NW 6
#define GS_TILEL_L 32
static size_t gs_tilel_smem(int P, size_t es) {
  return (size_t)GS_TILEL_NW * (size_t)P * (GS_TILEL_L + 1) * es;
}
#define GS_CUDA_BANDED_TILEL(T, S, PER)                                                            \
  static __global__ void __launch_bounds__(GS_TILEL_THREADS, 1) gs_banded_tilel_k_##S##PER(        \
      GsBandedKArgs a, const T *__restrict__ gtab, const T *__restrict__ C,                        \
      const int *__restrict__ fstatus, const T *f, T *x, int *status, GsBandedDevSummary *sum) {   \
    GS_PDL_ENTER(); /* launched by GS_LAUNCH */                                                    \
    enum { L = GS_TILEL_L, NW = GS_TILEL_NW, NT = GS_TILEL_THREADS };                              \
    __shared__ T cl[NT][2], ci[NT][2]; /* carries out of / into each chunk */                      \
    __shared__ T wt[NT / 32][6];       /* each warp's scan total: M, then b */                     \
    __shared__ T yc[NT / 64][4], zt[NT / 64][2];                                                   \
    __shared__ T cs[GS_BANDED_CORNER_LEN(5)];                                                      \
    GsBandedShape sh = a.sh;                                                                       \
    sh.periodic = PER;                                                                             \
    const int P = a.tile_p, pp = gs_tile_pow2(P), ns = NT / pp, h = sh.h;                          \
    const int np = P * L, m = (int)sh.m;                                                           \
    const int t = threadIdx.x, sl = t % ns, k = t / ns;                                            \
    const int r0 = k * L, q0 = k * (L + 1);                                                        \
    GS_TILE_FULL(L, PER)                                                                           \
    const int fst = fstatus[0];                                                                    \
    const GsInt groups = (a.batch + ns - 1) / ns, total = groups * a.nrhs;                         \
    GS_TILE_FAILED_FACTOR(S)                                                                       \
    /* Columns a', b', 1/alpha, gamma, delta of the table (arrays 0, 1, 2, 4, 5), row by row. */   \
    T *tab = (T *)gs_tile_dyn;                                                                     \
    GS_TILE_COPY(T, tab, gtab, np, 5, NT, L, NW, c_ < 3 ? c_ : c_ + 1)                             \
    if (GS_TILE_PFIN(PER) && t < GS_BANDED_CORNER_LEN(sh.bands)) cs[t] = C[t];                     \
    __syncthreads();                                                                               \
    /* The scans: warp w takes chunks wi * 32 + lane of system ss. */                              \
    const int lane = t % 32, w = t / 32, wpp = pp / 32, ss = w / wpp, wi = w % wpp;                \
    const int kk = wi * 32 + lane;                                                                 \
    for (GsInt grp = blockIdx.x; grp < total; grp += gridDim.x) {                                  \
      const GsInt g0 = grp % groups, blk = grp / groups, s = g0 * ns + sl;                         \
      const int on = s < a.batch && k < P;                                                         \
      GsInt rb = 0, rs = 0;                                                                        \
      T v[L], z[2] = {0, 0};                                                                       \
      if (on) {                                                                                    \
        GS_TILE_LOAD_CHUNK(T, L, PER, 0)                                                           \
        /* Forward from zero carries: the chunk's last two values only. */                         \
        T p2 = 0, p1 = 0;                                                                          \
        _Pragma("unroll") for (int j = 0; j < L; j++) {                                            \
          const T *e = tab + (q0 + j) * NW;                                                        \
          const T g = v[j] * e[2] - e[0] * p2 - e[1] * p1;                                         \
          p2 = p1;                                                                                 \
          p1 = g;                                                                                  \
        }                                                                                          \
        cl[t][0] = p2;                                                                             \
        cl[t][1] = p1;                                                                             \
      }                                                                                            \
      __syncthreads();                                                                             \
      for (int backward = 0; backward < 2; backward++) {                                           \
        T M[4] = {1, 0, 0, 1}, b[2] = {0, 0};                                                      \
        const int live = kk < P && g0 * ns + ss < a.batch;                                         \
        if (live) {                                                                                \
          gs_tile_map_##S(gtab, np, 1, L, L, kk, backward, M);                                     \
          b[0] = cl[kk * ns + ss][0];                                                              \
          b[1] = cl[kk * ns + ss][1];                                                              \
        }                                                                                          \
        GS_TILE_SCAN_FULL(T, S, backward, lane, 32, 32, M, b)                                      \
        if (lane == (backward ? 0 : 31)) {                                                         \
          _Pragma("unroll") for (int q = 0; q < 4; q++) wt[w][q] = M[q];                           \
          wt[w][4] = b[0];                                                                         \
          wt[w][5] = b[1];                                                                         \
        }                                                                                          \
        __syncthreads();                                                                           \
        /* The carry into this warp's chunks: the system's earlier warps' totals, in order. */     \
        T c0 = 0, c1 = 0;                                                                          \
        for (int q = backward ? wpp - 1 : 0; backward ? q > wi : q < wi; q += backward ? -1 : 1) { \
          const T *u = wt[ss * wpp + q];                                                           \
          const T n0 = u[0] * c0 + u[1] * c1 + u[4], n1 = u[2] * c0 + u[3] * c1 + u[5];            \
          c0 = n0;                                                                                 \
          c1 = n1;                                                                                 \
        }                                                                                          \
        if (live) {                                                                                \
          const T o0 = M[0] * c0 + M[1] * c1 + b[0], o1 = M[2] * c0 + M[3] * c1 + b[1];            \
          const int to = backward ? kk - 1 : kk + 1, edge = backward ? P - 1 : 0;                  \
          if (to >= 0 && to < P) {                                                                 \
            ci[to * ns + ss][0] = o0;                                                              \
            ci[to * ns + ss][1] = o1;                                                              \
          }                                                                                        \
          if (kk == edge) ci[kk * ns + ss][0] = ci[kk * ns + ss][1] = 0;                           \
        }                                                                                          \
        __syncthreads();                                                                           \
        if (on && !backward) {                                                                     \
          /* Forward again from the true carries, then backward from zero carries for the chunk's  \
           * first two values only. */                                                             \
          T p2 = ci[t][0], p1 = ci[t][1];                                                          \
          _Pragma("unroll") for (int j = 0; j < L; j++) {                                          \
            const T *e = tab + (q0 + j) * NW;                                                      \
            const T g = v[j] * e[2] - e[0] * p2 - e[1] * p1;                                       \
            v[j] = g;                                                                              \
            p2 = p1;                                                                               \
            p1 = g;                                                                                \
          }                                                                                        \
          T q1 = 0, q2 = 0;                                                                        \
          _Pragma("unroll") for (int j = L - 1; j >= 0; j--) {                                     \
            const T *e = tab + (q0 + j) * NW;                                                      \
            const T xx = v[j] - e[3] * q1 - e[4] * q2;                                             \
            q2 = q1;                                                                               \
            q1 = xx;                                                                               \
          }                                                                                        \
          cl[t][0] = q1;                                                                           \
          cl[t][1] = q2;                                                                           \
        } else if (on) { /* backward from the true carries (x_{r0+L}, x_{r0+L+1}) */               \
          T q1 = ci[t][0], q2 = ci[t][1];                                                          \
          _Pragma("unroll") for (int j = L - 1; j >= 0; j--) {                                     \
            const T *e = tab + (q0 + j) * NW;                                                      \
            const T xx = v[j] - e[3] * q1 - e[4] * q2;                                             \
            v[j] = xx;                                                                             \
            q2 = q1;                                                                               \
            q1 = xx;                                                                               \
          }                                                                                        \
        }                                                                                          \
        __syncthreads();                                                                           \
      }                                                                                            \
      GS_TILE_FINISH(T, S, L, PER, 0, 0, (const T *)0, 0, )                                        \
    }                                                                                              \
  }

/* W2: the wide kernel with W in shared memory (GS_TILE_WSM) exists; else its entry is PER 1's. */
#define GS_CUDA_BANDED_TILE_ALL(T, S, W2)                                                          \
  GS_CUDA_BANDED_TILE(T, S, 8, 0)                                                                  \
  GS_CUDA_BANDED_TILE(T, S, 8, 1)                                                                  \
  GS_CUDA_BANDED_TILE(T, S, 8, 2)                                                                  \
  GS_CUDA_BANDED_TILE(T, S, 16, 0)                                                                 \
  GS_CUDA_BANDED_TILE(T, S, 16, 1)                                                                 \
  GS_CUDA_BANDED_TILE(T, S, 16, 2)                                                                 \
  GS_CUDA_BANDED_TILE_NT(T, S, 32, 0, GS_TILE_THREADS, GS_TILE_MIN_BLOCKS(32), , 1, 0, 0)          \
  GS_CUDA_BANDED_TILE_NT(T, S, 32, 1, GS_TILE_THREADS, GS_TILE_MIN_BLOCKS(32), , 1, 0, 0)          \
  GS_CUDA_BANDED_TILE_NT(T, S, 32, 2, GS_TILE_THREADS, GS_TILE_MIN_BLOCKS(32), , 1, 0, 0)          \
  GS_CUDA_BANDED_TILE_NT(T, S, 32, 0, GS_TILE_WIDE_THREADS, 1, w, 1, 0, 0)                         \
  GS_CUDA_BANDED_TILE_NT(T, S, 32, 1, GS_TILE_WIDE_THREADS, 1, w, 1, 0, 0)                         \
  GS_CUDA_BANDED_TILE_WIDE2(T, S, W2)                                                              \
  GS_CUDA_BANDED_TILE_NT(T, S, 32, 3, GS_TILE_THREADS, GS_TILE_MIN_BLOCKS(32), , 1, 0, 0)          \
  GS_CUDA_BANDED_TILE_NT(T, S, 32, 3, GS_TILE_WIDE_THREADS, 1, w, 1, 0, 0)                         \
  GS_IF_TILE_NX(GS_CUDA_BANDED_TILE_NT(T, S, 32, 0, GS_TILE_WIDE_THREADS, 1, wx, 1, 0, 1)          \
                    GS_CUDA_BANDED_TILE_NT(T, S, 32, 3, GS_TILE_WIDE_THREADS, 1, wx, 1, 0, 1))     \
  GS_CUDA_BANDED_TILE_NT(T, S, 32, 0, GS_TILE_THREADS, GS_TILE_MIN_BLOCKS(32), c, 0, 1, 0)         \
  GS_CUDA_BANDED_TILE_NT(T, S, 32, 1, GS_TILE_THREADS, GS_TILE_MIN_BLOCKS(32), c, 0, 1, 0)         \
  GS_CUDA_BANDED_TILE_NT(T, S, 32, 2, GS_TILE_THREADS, GS_TILE_MIN_BLOCKS(32), c, 0, 1, 0)         \
  typedef void (*GsTileK_##S)(GsBandedKArgs, const T *, const T *, const int *, const T *, T *,    \
                              int *, GsBandedDevSummary *);                                        \
  /* [log2(L / 8)][periodic: 0 no, 1 W from the table in global memory, 2 in shared memory] */     \
  static const GsTileK_##S gs_tile_k_##S[3][3] = {                                                 \
      {gs_banded_tile_k_##S##80, gs_banded_tile_k_##S##81, gs_banded_tile_k_##S##82},              \
      {gs_banded_tile_k_##S##160, gs_banded_tile_k_##S##161, gs_banded_tile_k_##S##162},           \
      {gs_banded_tile_k_##S##320, gs_banded_tile_k_##S##321, gs_banded_tile_k_##S##322}};          \
  /* [periodic, as above]: 32-row chunks in wide blocks; contiguous without the scans' matrices */ \
  static const GsTileK_##S gs_tile_kw_##S[3] = {                                                   \
      gs_banded_tile_k_##S##320w, gs_banded_tile_k_##S##321w, GS_TILE_WIDE2_K(S, W2)};             \
  /* [PER 3]: wide blocks with the next group's f copied ahead (GS_TILE_NEXT) */                   \
  typedef void (*GsTileXK_##S)(GsBandedKArgs, const CUtensorMap, const T *, const T *,             \
                               const int *, const T *, T *, int *, GsBandedDevSummary *);          \
  static const GsTileXK_##S gs_tile_kx_##S[2] = {GS_TILE_NX_K(S, 320wx), GS_TILE_NX_K(S, 323wx)};  \
  /* [wide]: periodic interleaved 32-row chunks, the block E only (GS_TILE_TAIL) */                \
  static const GsTileK_##S gs_tile_kt_##S[2] = {gs_banded_tile_k_##S##323,                         \
                                                gs_banded_tile_k_##S##323w};                       \
  static const GsTileK_##S gs_tile_kc_##S[3] = {                                                   \
      gs_banded_tile_k_##S##320c, gs_banded_tile_k_##S##321c, gs_banded_tile_k_##S##322c};         \
  /* [log2(L / 8)][periodic]: contiguous batches of 8- and 16-row chunks (GS_TILE_STAGED) */       \
  static const GsTileK_##S gs_tile_ks_##S[2][3] = {                                                \
      {gs_banded_tile_k_##S##80c, gs_banded_tile_k_##S##81c, gs_banded_tile_k_##S##82c},           \
      {gs_banded_tile_k_##S##160c, gs_banded_tile_k_##S##161c, gs_banded_tile_k_##S##162c}};       \
  GS_CUDA_BANDED_TILEL(T, S, 0)                                                                    \
  GS_CUDA_BANDED_TILEL(T, S, 1)                                                                    \
  static const GsTileK_##S gs_tilel_k_##S[2] = {gs_banded_tilel_k_##S##0,                          \
                                                gs_banded_tilel_k_##S##1};                         \
  /* The table from the shared matrix's factors: rows in parallel, then chunks (one block). */     \
  static __global__ void gs_banded_tile_build_k_##S(GsBandedKArgs a, GsPtrs Fp, T *tab) {          \
    const T *F[GS_BANDED_MAX_FAC];                                                                 \
    _Pragma("unroll") for (int q = 0; q < GS_BANDED_MAX_FAC; q++) F[q] = (const T *)Fp.p[q];       \
    const GsInt np = (GsInt)a.tile_p * a.tile_l;                                                   \
    for (GsInt i = threadIdx.x; i < np; i += blockDim.x)                                           \
      gs_tile_row_##S(&a.sh, F, tab, np, i);                                                       \
    __syncthreads();                                                                               \
    for (int k = threadIdx.x; k < a.tile_p; k += blockDim.x)                                       \
      gs_tile_resp_##S(tab, np, a.tile_l, k);                                                      \
    if (!a.tile_split) return;                                                                     \
    __syncthreads();                                                                               \
    T *mp = tab + GS_BANDED_TILE_NTAB(a.sh.periodic) * np;                                         \
    for (int k = threadIdx.x; k < a.tile_p; k += blockDim.x)                                       \
      gs_tile2_map_##S(tab, np, a.tile_l, k, a.tile_p, mp);                                        \
    if (a.sh.periodic && threadIdx.x == 0)                                                         \
      gs_tile2_end_##S(tab, np, a.tile_l, a.tile_p, a.sh.m,                                        \
                       mp + (GsInt)GS_TILE2_MAP * 32 * gs_tile2_q(a.tile_p));                      \
  }

#define GS_CUDA_BANDED_TILE_WIDE2(T, S, W2) GS_CUDA_BANDED_TILE_WIDE2_##W2(T, S)
#define GS_CUDA_BANDED_TILE_WIDE2_0(T, S)
#define GS_CUDA_BANDED_TILE_WIDE2_1(T, S)                                                          \
  GS_CUDA_BANDED_TILE_NT(T, S, 32, 2, GS_TILE_WIDE_THREADS, 1, w, 1, 0, 0)
#define GS_TILE_WIDE2_K(S, W2) GS_TILE_WIDE2_K_##W2(S)
#define GS_TILE_WIDE2_K_0(S) gs_banded_tile_k_##S##321w
#define GS_TILE_WIDE2_K_1(S) gs_banded_tile_k_##S##322w
GS_CUDA_BANDED_TILE_ALL(double, d, 0)
GS_CUDA_BANDED_TILE_ALL(float, f, 1)

/* The tail of a periodic one-pass tiled solve after PER 3 (GS_TILE_TAIL): a block takes 32
 * consecutive systems of right-hand-side block blk, warp p (of GS_TILE_TAIL_PARTS) share p of the
 * rows W reaches, lane l system l, so that a warp moves each row of 32 systems as 256 contiguous
 * bytes in the interleaved layout. x holds y = E^-1 f on rows 0 .. m - 1; f's last h values
 * are read from f (where the solve is in place they are x's, which warp 0 overwrites with z
 * only after the block's barrier). A thread's rows go in runs of GS_TILE_TAIL_RUN, loads first.
 * Values that are not finite mark their system. */
#define GS_CUDA_BANDED_TILE_TAIL(T, S)                                                             \
  static __global__ void __launch_bounds__(GS_TILE_TAIL_THREADS) gs_banded_tile_tail_k_##S(        \
      GsBandedKArgs a, const T *__restrict__ gtab, const T *__restrict__ C,                        \
      const int *__restrict__ fstatus, const T *f, T *x, int *status, GsBandedDevSummary *sum) {   \
    enum { R = GS_TILE_TAIL_RUN };                                                                 \
    GS_PDL_ENTER(); /* launched by GS_LAUNCH */                                                    \
    const GsInt sb = (a.batch + 31) / 32, blk = blockIdx.x / sb;                                   \
    const GsInt s = (blockIdx.x % sb) * 32 + threadIdx.x % 32;                                     \
    const int part = (int)(threadIdx.x / 32), on = s < a.batch && !fstatus[0];                     \
    const GsBandedShape sh = a.sh;                                                                 \
    const int h = sh.h;                                                                            \
    const GsInt m = sh.m, np = (GsInt)a.tile_p * a.tile_l;                                         \
    GsInt rb = 0, rs = 0;                                                                          \
    T e[4] = {0, 0, 0, 0}, z[2] = {0, 0};                                                          \
    if (on) {                                                                                      \
      gs_rhs_place(&a, s, &rb, &rs);                                                               \
      rb += blk * a.rhs_len;                                                                       \
      _Pragma("unroll") for (int r = 0; r < 2; r++) if (r < h) {                                   \
        e[r] = x[rb + r * rs];                                                                     \
        e[h + r] = x[rb + (m - h + r) * rs];                                                       \
        z[r] = f[rb + (m + r) * rs];                                                               \
      }                                                                                            \
      gs_banded_tail_##S(&sh, C, e, z);                                                            \
    }                                                                                              \
    __syncthreads(); /* every warp has read f's tail and the end values */                         \
    if (!on) return;                                                                               \
    T chk = 0; /* stays 0 unless a value is inf or NaN (v * 0 is NaN then) */                      \
    if (part == 0) _Pragma("unroll") for (int r = 0; r < 2; r++) if (r < h) {                      \
        x[rb + (m + r) * rs] = z[r];                                                               \
        chk += z[r] * (T)0;                                                                        \
      }                                                                                            \
    const T z0 = z[0], z1 = h > 1 ? z[1] : (T)0;                                                   \
    GsInt phi, plo;                                                                                \
    gs_banded_w_rows_##S(&sh, C, &phi, &plo);                                                      \
    const GsInt cnt = phi + (m - plo), q0 = cnt * part / GS_TILE_TAIL_PARTS,                       \
                q1 = cnt * (part + 1) / GS_TILE_TAIL_PARTS;                                        \
    for (GsInt q = q0; q < q1; q += R) { /* a run's loads in flight together, then its stores */   \
      GsInt rr[R];                                                                                 \
      T yv[R];                                                                                     \
      _Pragma("unroll") for (int u = 0; u < R; u++) {                                              \
        rr[u] = q + u < phi ? q + u : plo + (q + u - phi);                                         \
        yv[u] = q + u < q1 ? x[rb + rr[u] * rs] : (T)0;                                            \
      }                                                                                            \
      _Pragma("unroll") for (int u = 0; u < R; u++) if (q + u < q1) {                              \
        const T w_ = gtab[GS_TAB_W1 * np + rr[u]] * z0 + gtab[GS_TAB_W2 * np + rr[u]] * z1;        \
        const T y = yv[u] - w_;                                                                    \
        x[rb + rr[u] * rs] = y;                                                                    \
        chk += y * (T)0;                                                                           \
      }                                                                                            \
    }                                                                                              \
    if (chk != 0 || chk != chk) gs_mark(status, s, GS_BANDED_NOT_FINITE, sum);                     \
  }
GS_CUDA_BANDED_TILE_TAIL(double, d)
GS_CUDA_BANDED_TILE_TAIL(float, f)
GS_CUDA_BANDED_TILE_IMAGE(8)
GS_CUDA_BANDED_TILE_IMAGE(16)
GS_CUDA_BANDED_TILE_IMAGE(32)

/* TILE in two passes (banded_algo.h, GS_TILE2_L): thread i = k * batch + s runs chunk k of system
 * s, so that a warp holds the same chunk of 32 consecutive systems: in the interleaved layout each
 * row of f and x moves as 256 contiguous bytes (the one-pass kernels move 32 per row at 4096
 * rows), in the contiguous layout each thread's 32 rows as 16-byte loads, and every lane reads the
 * same table row (one broadcast load). Nothing is shared between the threads of a block, so
 * there are no barriers; the price is f read twice and 4 values per chunk written and read
 * back. Pass 2's blocks run in reverse order, so that it first reads the rows pass 1 read last,
 * while they are still in L2. */
#define GS_TILE2_THREADS 128
/* Chunks of a system in a two-pass solve: P <= 32 GS_TILE2_Q (GS_BANDED_TILE_MAX_ROWS rows). */
#define GS_TILE2_Q 4
static_assert(GS_TILE2_L == 32, "a warp stages a chunk's table rows one row a lane");
static_assert(GS_BANDED_TILE_MAX_ROWS <= 32 * GS_TILE2_Q * GS_TILE2_L,
              "a two-pass solve's maps hold at most 32 GS_TILE2_Q chunks a system");
/* The carries' kernel: a warp takes GS_TILE2_SEG consecutive chunks of 32 systems, a block the
 * P chunks of those systems (ceil(P / GS_TILE2_SEG) warps, at most GS_TILE2_SCAN_THREADS). */
#define GS_TILE2_SEG 8
#define GS_TILE2_SCAN_THREADS (32 * GS_TILE2_Q * 32 / GS_TILE2_SEG)
/* Batches below this many systems run their carries with a warp per system instead
 * (GS_CUDA_BANDED_TILE2_SCANW, GS_TILE2_SCANW_THREADS a block): the serial walks' block holds
 * only 32 systems, so that fewer systems leave SMs idle and each warp's walks are the kernel's
 * time. H200, deferred checks, two rounds, periodic stiff penta, n = 4096, warp per system ->
 * walks (us): 256 systems 32.5 / 28.5 -> 34.7 / 33.1, 512 36.7 / 35.1 -> 41.5 / 39.7, 1024 54.3
 * / 55.1 -> 59.1 / 57.3, 2048 87.3 / 86.1 -> 85.5 / 84.7, 4096 154.6 -> 143.0. */
#ifndef GS_TILE2_LANES_MIN_BATCH
#define GS_TILE2_LANES_MIN_BATCH 2048
#endif
#define GS_TILE2_SCANW_THREADS 256
/* Dynamic shared memory of the carries' kernel (a warp's maps and pairs, GS_TILE2_SCAN_SMEM), at
 * most at P = 32 GS_TILE2_Q chunks: 140 KB in double. */
#define GS_TILE2_SCAN_SMEM(P, es)                                                                  \
  (((size_t)GS_TILE2_MAP * (size_t)(P) + GS_TILE2_END + (size_t)(P)*32 * 4) * (size_t)(es))
/* Value u of the map of chunk k0 + q (lane's q-th chunk) in the small batches' carries kernel
 * (GS_CUDA_BANDED_TILE2_SCANW). */
#define GS_T2MQ(u, q) ml[((u)*Q + (q)) * 32]
/* (x0, x1) <- M (x0, x1) + (e0, e1), M the map values u0 .. u0 + 3 of the lane's q-th chunk. */
#define GS_T2AFF(T, u0, q, x0, x1, e0, e1)                                                         \
  {                                                                                                \
    const T n0_ = GS_T2MQ(u0, q) * (x0) + GS_T2MQ((u0) + 1, q) * (x1) + (e0);                      \
    const T n1_ = GS_T2MQ((u0) + 2, q) * (x0) + GS_T2MQ((u0) + 3, q) * (x1) + (e1);                \
    x0 = n0_;                                                                                      \
    x1 = n1_;                                                                                      \
  }
/* Thread i's system s and chunk k (on: i is a chunk and the factorisation did not fail), its rows'
 * place (rb, rs) and its chunk of f in v. Contiguous batches (CONTIG) whose warp holds 32 full
 * chunks k of consecutive systems stage them through shared memory (wb, 32 x 33 values a warp):
 * lane l loads row l of each system in turn, 32 rows of 8 or 4 bytes a load, where loading a
 * thread's own 32 adjacent rows would take a 32-byte sector from L1 per 16-byte piece. */
#define GS_TILE2_LOAD(T, S, L, CONTIG)                                                             \
  const int lane = (int)(threadIdx.x % 32), P = a.tile_p;                                          \
  const int on = i < (GsInt)P * a.batch && !fstatus[0];                                            \
  const GsInt s = on ? i % a.batch : 0;                                                            \
  const int k = on ? (int)(i / a.batch) : 0, r0 = k * (L), m = (int)a.sh.m, np = P * (L);          \
  GsInt rb, rs;                                                                                    \
  gs_rhs_place(&a, s, &rb, &rs);                                                                   \
  rb += a.blk * a.rhs_len;                                                                         \
  const int kl0 = __shfl_sync(0xffffffffu, k, 0); /* every lane, before any test */                \
  const int stg = (CONTIG) && __all_sync(0xffffffffu, on && r0 + (L) <= m && k == kl0);            \
  T *wb = gs_tile2_buf_##S + (threadIdx.x / 32) * 32 * ((L) + 1);                                  \
  const GsInt rb0 = __shfl_sync(0xffffffffu, rb, 0);                                               \
  T v[L];                                                                                          \
  if (stg) {                                                                                       \
    _Pragma("unroll") for (int q = 0; q < 32; q++) v[q] =                                          \
        f[rb0 + (GsInt)q * a.stride + r0 + lane];                                                  \
    _Pragma("unroll") for (int q = 0; q < 32; q++) wb[q * ((L) + 1) + lane] = v[q];                \
    __syncwarp();                                                                                  \
    _Pragma("unroll") for (int j = 0; j < (L); j++) v[j] = wb[lane * ((L) + 1) + j];               \
    __syncwarp();                                                                                  \
  } else if (on) {                                                                                 \
    const T *fp = f + rb + (GsInt)r0 * rs;                                                         \
    if (r0 + (L) <= m) {                                                                           \
      GS_TILE_LOAD(T, L, fp, rs, v)                                                                \
    } else {                                                                                       \
      _Pragma("unroll") for (int j = 0; j < (L); j++) v[j] = r0 + j < m ? fp[j * rs] : (T)0;       \
    }                                                                                              \
  }                                                                                                \
  /* The chunk's rows of the five sweep arrays. Where the warp's lanes all run one chunk k (a      \
   * batch of 32 systems or more, but for warps across a chunk boundary), the warp stages them     \
   * in shared memory (row `lane` of each by lane `lane`: five coalesced loads) and every lane     \
   * then reads the same word (a broadcast); else each lane reads the table in global memory.      \
   * From global memory the sweeps' loads of them, at the L1's latency and an L2 round trip for a  \
   * miss, held each warp up between the rows of its recurrences. */                               \
  const int tsh = __all_sync(0xffffffffu, on && k == kl0);                                         \
  const T *ta, *tb, *ti, *tg, *td;                                                                 \
  if (tsh) {                                                                                       \
    T *tw = gs_tile2_tab_##S + (threadIdx.x / 32) * 5 * (L);                                       \
    const T *tr = gtab + r0 + lane;                                                                \
    tw[lane] = tr[GS_TAB_A * np];                                                                  \
    tw[(L) + lane] = tr[GS_TAB_B * np];                                                            \
    tw[2 * (L) + lane] = tr[GS_TAB_IA * np];                                                       \
    tw[3 * (L) + lane] = tr[GS_TAB_G * np];                                                        \
    tw[4 * (L) + lane] = tr[GS_TAB_D * np];                                                        \
    __syncwarp();                                                                                  \
    ta = tw;                                                                                       \
    tb = tw + (L);                                                                                 \
    ti = tw + 2 * (L);                                                                             \
    tg = tw + 3 * (L);                                                                             \
    td = tw + 4 * (L);                                                                             \
  } else {                                                                                         \
    ta = gtab + GS_TAB_A * np + r0;                                                                \
    tb = gtab + GS_TAB_B * np + r0;                                                                \
    ti = gtab + GS_TAB_IA * np + r0;                                                               \
    tg = gtab + GS_TAB_G * np + r0;                                                                \
    td = gtab + GS_TAB_D * np + r0;                                                                \
  }
/* Threads a block of the passes and the registers they are held to (4 blocks a SM). */
#define GS_TILE2_MIN_BLOCKS 4
/* The passes' thread of block b: its chunk index i = k batch + s (chunk k of system s; the
 * carries' pairs sm[4 i ..] are in this order). Plainly i = b GS_TILE2_THREADS + thread, so a
 * block's warps take consecutive systems of one chunk: in an interleaved batch its rows are runs
 * of 128 systems, 1 KB in double, but in a contiguous one each system's 32-row chunk is a run of
 * 256 bytes. Where a contiguous batch is whole groups of 32 systems of at most 32 chunks (1024
 * rows), a block's warps take consecutive chunks of the same 32 systems instead: 1 KB runs, the
 * same i for each chunk, the same bits. H200, deferred checks, two rounds, us, plain -> runs:
 * periodic stiff penta 65536 x 1024 (the 1D Cahn-Hilliard ensemble's shape) 607.4 / 602.2 ->
 * 587.7 / 590.1, that ensemble's step 1.394 -> 1.365 ms; but at 4096 rows (128 chunks) the
 * runs were slower: periodic stiff penta 4096 x 4096 159.7 / 162.4 -> 163.9 / 163.3, tri 147.7
 * / 150.5 -> 155.6 / 155.1, the Cahn-Hilliard 4096^2 step 0.494 -> 0.497 ms (2048 rows: 59.8 /
 * 62.2 -> 61.2 / 58.9), so they keep the plain order. */
static __device__ __forceinline__ GsInt gs_tile2_index(GsInt b, int contig, GsInt batch, int p) {
  enum { W = GS_TILE2_THREADS / 32 };
  if (contig && p <= 32 && p % W == 0 && batch % 32 == 0) {
    const GsInt groups = batch / 32, kb = b / groups, sg = b - kb * groups;
    return (kb * W + (GsInt)(threadIdx.x / 32)) * batch + sg * 32 + (GsInt)(threadIdx.x % 32);
  }
  return b * GS_TILE2_THREADS + (GsInt)threadIdx.x;
}
#define GS_CUDA_BANDED_TILE2(T, S, PER, CONTIG)                                                    \
  /* Pass 1: each chunk's forward end pair and backward start pair from zero carries into sm       \
   * (4 values at 4 i); a periodic system's last chunk keeps g0 at rows m - 2, m - 1 instead of    \
   * its forward end pair (no chunk follows it). */                                                \
  static __global__ void __launch_bounds__(GS_TILE2_THREADS, GS_TILE2_MIN_BLOCKS)                  \
      gs_banded_tile2a_k_##S##PER##CONTIG(GsBandedKArgs a, const T *__restrict__ gtab,             \
                                          const int *__restrict__ fstatus, const T *f,             \
                                          T *__restrict__ sm) {                                    \
    GS_PDL_ENTER(); /* launched by GS_LAUNCH */                                                    \
    enum { L = GS_TILE2_L };                                                                       \
    const GsInt i = gs_tile2_index(blockIdx.x, CONTIG, a.batch, a.tile_p);                         \
    GS_TILE2_LOAD(T, S, L, CONTIG)                                                                 \
    if (!on) return;                                                                               \
    T p2 = 0, p1 = 0;                                                                              \
    _Pragma("unroll") for (int j = 0; j < L; j++) {                                                \
      const T g = v[j] * ti[j] - ta[j] * p2 - tb[j] * p1;                                          \
      v[j] = g;                                                                                    \
      p2 = p1;                                                                                     \
      p1 = g;                                                                                      \
    }                                                                                              \
    if (PER && k == P - 1) {                                                                       \
      const int j1 = m - 1 - r0;                                                                   \
      p2 = p1 = 0;                                                                                 \
      _Pragma("unroll") for (int j = 0; j < L; j++) {                                              \
        if (j == j1 - 1) p2 = v[j];                                                                \
        if (j == j1) p1 = v[j];                                                                    \
      }                                                                                            \
    }                                                                                              \
    T q1 = 0, q2 = 0;                                                                              \
    _Pragma("unroll") for (int j = L - 1; j >= 0; j--) {                                           \
      const T xx = v[j] - tg[j] * q1 - td[j] * q2;                                                 \
      q2 = q1;                                                                                     \
      q1 = xx;                                                                                     \
    }                                                                                              \
    const T o[4] = {p2, p1, q1, q2};                                                               \
    GS_TILE_STORE(T, 4, sm + 4 * i, 1, o)                                                          \
  }
/* z = alpha u + beta w + gamma z, each product and sum rounded on its own, in GsVecAXPBYPCZ's
 * order (vec.cu, built without contraction; this file is not), so that a fused update gives the
 * bits of the solve followed by that vector operation. */
static __device__ __forceinline__ double gs_axpbypcz_d(double al, double u, double be, double w,
                                                       double ga, double z) {
  return __dadd_rn(__dadd_rn(__dmul_rn(al, u), __dmul_rn(be, w)), __dmul_rn(ga, z));
}
static __device__ __forceinline__ float gs_axpbypcz_f(float al, float u, float be, float w,
                                                      float ga, float z) {
  return __fadd_rn(__fadd_rn(__fmul_rn(al, u), __fmul_rn(be, w)), __fmul_rn(ga, z));
}
/* v[j] (j < L = 32, rows j < cnt) becomes the update's combination with u and w at p0 + j ps,
 * their loads GS_TILE2_UPD_GROUP rows at a time in flight (8, 16 and 32 measured the same). */
#define GS_TILE2_UPD_GROUP 8
#define GS_TILE2_UPD(T, S, p0, ps, cnt, v)                                                         \
  {                                                                                                \
    const T *__restrict__ up_ = (const T *)a.ux + (p0);                                            \
    const T *__restrict__ wp_ = (const T *)a.uy + (p0);                                            \
    const T al_ = (T)a.ua, be_ = (T)a.ub, ga_ = (T)a.uc;                                           \
    _Pragma("unroll") for (int j0_ = 0; j0_ < 32; j0_ += GS_TILE2_UPD_GROUP) {                     \
      T u_[GS_TILE2_UPD_GROUP], w_[GS_TILE2_UPD_GROUP];                                            \
      _Pragma("unroll") for (int j_ = 0; j_ < GS_TILE2_UPD_GROUP; j_++) {                          \
        const int ok_ = j0_ + j_ < (cnt);                                                          \
        u_[j_] = ok_ ? up_[(GsInt)(j0_ + j_) * (ps)] : (T)0;                                       \
        w_[j_] = ok_ ? wp_[(GsInt)(j0_ + j_) * (ps)] : (T)0;                                       \
      }                                                                                            \
      _Pragma("unroll") for (int j_ = 0; j_ < GS_TILE2_UPD_GROUP; j_++) v[j0_ + j_] =              \
          gs_axpbypcz_##S(al_, u_[j_], be_, w_[j_], ga_, v[j0_ + j_]);                             \
    }                                                                                              \
  }
/* Pass 2: each chunk's sweeps from its true carries, y -= W z where W reaches, the store; with
 * UPD the store of alpha u + beta w + gamma (solution) (a.ux, a.uy; a.ua, a.ub, a.uc) instead,
 * summed as GsVecAXPBYPCZ sums it (GsBandedSolveAXPBYPCZ). */
#define GS_CUDA_BANDED_TILE2B(T, S, PER, CONTIG, UPD, SUF)                                         \
  static __global__ void __launch_bounds__(GS_TILE2_THREADS, GS_TILE2_MIN_BLOCKS)                  \
      gs_banded_tile2b_k_##S##PER##CONTIG##SUF(                                                    \
          GsBandedKArgs a, const T *__restrict__ gtab, const T *__restrict__ C,                    \
          const int *__restrict__ fstatus, const T *f, T *x, const T *__restrict__ sm,             \
          int *status, GsBandedDevSummary *sum) {                                                  \
    GS_PDL_ENTER(); /* launched by GS_LAUNCH */                                                    \
    enum { L = GS_TILE2_L };                                                                       \
    const GsInt i = gs_tile2_index(gridDim.x - 1 - blockIdx.x, CONTIG, a.batch, a.tile_p);         \
    GS_TILE2_LOAD(T, S, L, CONTIG)                                                                 \
    T chk = 0;                                                                                     \
    if (on) {                                                                                      \
      T c[4];                                                                                      \
      GS_TILE_LOAD(T, 4, sm + 4 * i, 1, c)                                                         \
      T p2 = c[0], p1 = c[1];                                                                      \
      _Pragma("unroll") for (int j = 0; j < L; j++) {                                              \
        const T g = v[j] * ti[j] - ta[j] * p2 - tb[j] * p1;                                        \
        v[j] = g;                                                                                  \
        p2 = p1;                                                                                   \
        p1 = g;                                                                                    \
      }                                                                                            \
      T q1 = c[2], q2 = c[3];                                                                      \
      _Pragma("unroll") for (int j = L - 1; j >= 0; j--) {                                         \
        const T xx = v[j] - tg[j] * q1 - td[j] * q2;                                               \
        v[j] = xx;                                                                                 \
        q2 = q1;                                                                                   \
        q1 = xx;                                                                                   \
      }                                                                                            \
      if (PER) {                                                                                   \
        GsBandedShape sh = a.sh;                                                                   \
        GsInt phi, plo;                                                                            \
        gs_banded_w_rows_##S(&sh, C, &phi, &plo);                                                  \
        if (r0 < phi || r0 + L > plo) {                                                            \
          const T *zb = sm + 4 * (GsInt)P * a.batch + 2 * s;                                       \
          const T z0 = zb[0], z1 = zb[1];                                                          \
          const T *w1 = gtab + GS_TAB_W1 * np + r0, *w2 = gtab + GS_TAB_W2 * np + r0;              \
          _Pragma("unroll") for (int j = 0; j < L; j++) v[j] -= w1[j] * z0 + w2[j] * z1;           \
        }                                                                                          \
      }                                                                                            \
      _Pragma("unroll") for (int j = 0; j < L; j++) chk += v[j] * (T)0;                            \
    }                                                                                              \
    if (stg) {                                                                                     \
      _Pragma("unroll") for (int j = 0; j < L; j++) wb[lane * (L + 1) + j] = v[j];                 \
      __syncwarp();                                                                                \
      _Pragma("unroll") for (int q = 0; q < 32; q++) v[q] = wb[q * (L + 1) + lane];                \
      if (UPD) GS_TILE2_UPD(T, S, rb0 + r0 + lane, a.stride, 32, v)                                \
      _Pragma("unroll") for (int q = 0; q < 32; q++) x[rb0 + (GsInt)q * a.stride + r0 + lane] =    \
          v[q];                                                                                    \
    } else if (on) {                                                                               \
      T *xp = x + rb + (GsInt)r0 * rs;                                                             \
      if (UPD) GS_TILE2_UPD(T, S, rb + (GsInt)r0 * rs, rs, m - r0, v)                              \
      if (r0 + L <= m) {                                                                           \
        GS_TILE_STORE(T, L, xp, rs, v)                                                             \
      } else {                                                                                     \
        _Pragma("unroll") for (int j = 0; j < L; j++) if (r0 + j < m) xp[j * rs] = v[j];           \
      }                                                                                            \
    }                                                                                              \
    if (on && (chk != 0 || chk != chk)) gs_mark(status, s, GS_BANDED_NOT_FINITE, sum);             \
  }
/* The carries kernels' periodic tail: system s's last h unknowns from its block end values (y0,
 * y1 the first two, yl1, yl2 the last two), stored into x (the fused update's rows too: pass 2
 * stores the others) and after the pairs in sm (2 a system), a value not finite marked. */
#define GS_TILE2_TAIL(T, S, y0, y1, yl1, yl2)                                                      \
  {                                                                                                \
    T ye[4] = {(y0), h > 1 ? (y1) : (yl1), (yl2), (yl1)}, z[2] = {0, 0};                           \
    _Pragma("unroll") for (int r = 0; r < 2; r++) if (r < h) z[r] = f[rb + (m + r) * rs];          \
    T chk = 0;                                                                                     \
    GS_PER_TAIL_SOLVE(T, S, C, ye, z, 0, 1, 1)                                                     \
    if (a.ux) _Pragma("unroll") for (int r = 0; r < 2; r++) if (r < h) {                           \
        const GsInt ir = rb + (m + r) * rs;                                                        \
        x[ir] = gs_axpbypcz_##S((T)a.ua, ((const T *)a.ux)[ir], (T)a.ub, ((const T *)a.uy)[ir],    \
                                (T)a.uc, z[r]);                                                    \
      }                                                                                            \
    T *zb = sm + 4 * (GsInt)P * B + 2 * s;                                                         \
    zb[0] = z[0];                                                                                  \
    zb[1] = h > 1 ? z[1] : (T)0;                                                                   \
    if (chk != 0 || chk != chk) gs_mark(status, s, GS_BANDED_NOT_FINITE, sum);                     \
  }
/* The serial walks' pieces (GS_CUDA_BANDED_TILE2_SCAN), on the table's composition helpers: c <-
 * M c + o (a chunk's or a segment's map applied to a carry); a segment's walk from a zero carry,
 * also composing its maps into Ms; the segments (smat[j], sb[j][lane]) from j0 by dj up to j1
 * folded onto c; a warp's segment result into shared memory. */
#define GS_CUDA_TILE2_WALK_FNS(T, S)                                                               \
  static __device__ __forceinline__ void gs_t2_step_##S(const T *M, T o0, T o1, T *c) {            \
    T bk[2] = {o0, o1};                                                                            \
    gs_tile_apply_##S(M, bk, c);                                                                   \
    c[0] = bk[0];                                                                                  \
    c[1] = bk[1];                                                                                  \
  }                                                                                                \
  static __device__ __forceinline__ void gs_t2_seg_##S(const T *M, T o0, T o1, T *Ms, T *b) {      \
    gs_t2_step_##S(M, o0, o1, b);                                                                  \
    T Mk[4] = {M[0], M[1], M[2], M[3]};                                                            \
    gs_tile_mmul_##S(Mk, Ms);                                                                      \
    _Pragma("unroll") for (int u = 0; u < 4; u++) Ms[u] = Mk[u];                                   \
  }                                                                                                \
  static __device__ __forceinline__ void gs_t2_fold_##S(const T(*smat)[4], const T(*sb)[32][2],    \
                                                        int lane, int j0, int j1, int dj, T *c) {  \
    for (int j = j0; j != j1; j += dj)                                                             \
      gs_t2_step_##S(smat[j], sb[j][lane][0], sb[j][lane][1], c);                                  \
  }                                                                                                \
  static __device__ __forceinline__ void gs_t2_put_##S(T(*sb)[2], T *smat, int lane, const T *b,   \
                                                       const T *Ms) {                              \
    sb[lane][0] = b[0];                                                                            \
    sb[lane][1] = b[1];                                                                            \
    if (lane == 0) /* not Ms[lane]: an indexed array lives in local memory */                      \
      _Pragma("unroll") for (int u = 0; u < 4; u++) smat[u] = Ms[u];                               \
  }
GS_CUDA_TILE2_WALK_FNS(double, d)
GS_CUDA_TILE2_WALK_FNS(float, f)
#define GS_CUDA_BANDED_TILE2_SCAN(T, S, PER)                                                       \
  /* The carries of 32 consecutive systems (lane l: system s0 + l) in a block of G warps, warp g   \
   * taking chunks [g SEG, g SEG + SEG) (SEG = GS_TILE2_SEG). Forward, cin_{k+1} = Mf_k cin_k +    \
   * e_k (e_k: the chunk's forward end pair): each warp runs its chunks from a zero carry into its \
   * segment's offset and (every lane alike) the product of its maps; then warp g folds the        \
   * segments before it into its true carry in and runs its chunks again from there, keeping each  \
   * cin_k in registers. Backward the same from the last chunk down, with cout_{k-1} = Mb_k cout_k \
   * + e'_k + Mx_k cin_k (e'_k: the backward start pair), each chunk's (cin_k, cout_k) stored into \
   * sm as it is known. Everything a block reads (the maps, chunk k's 12 values at 12 k, then the  \
   * end map; the pairs, [chunk][forward / backward][lane][2]) comes into shared memory first by   \
   * asynchronous copies (GS_TILE2_SCAN_SMEM). A periodic system's block end values then give its  \
   * last h unknowns (warp 0), stored into x and after the pairs in sm (2 a system). A failed      \
   * factorisation: every solution NaN, every system marked. The serial walks replace a warp per   \
   * system scanning its chunks' maps over the lanes (Kogge-Stone with shuffles): about 1,700      \
   * instructions a system at 28 cycles apiece, a fifth of a 4096-row sweep. */                    \
  static __global__ void __launch_bounds__(GS_TILE2_SCAN_THREADS)                                  \
      gs_banded_tile2s_k_##S##PER(GsBandedKArgs a, const T *__restrict__ gtab,                     \
                                  const T *__restrict__ C, const int *__restrict__ fstatus,        \
                                  const T *f, T *x, T *sm, int *status, GsBandedDevSummary *sum) { \
    GS_PDL_ENTER(); /* launched by GS_LAUNCH */                                                    \
    enum { SEG = GS_TILE2_SEG, GM = GS_TILE2_SCAN_THREADS / 32 };                                  \
    /* Each warp's segment offsets (forward, backward), their maps' products, the end rows. */     \
    __shared__ T sbf[GM][32][2], sbb[GM][32][2], smf[GM][4], smb[GM][4], syl[32][2];               \
    const int lane = (int)threadIdx.x % 32, g = (int)threadIdx.x / 32, G = (int)blockDim.x / 32;   \
    const GsInt s = (GsInt)blockIdx.x * 32 + lane;                                                 \
    GsBandedShape sh = a.sh;                                                                       \
    sh.periodic = PER;                                                                             \
    const int P = a.tile_p, h = sh.h, Q = gs_tile2_q(P);                                           \
    const GsInt np = (GsInt)P * GS_TILE2_L, m = sh.m, B = a.batch;                                 \
    const int live = s < B, k0 = g * SEG, k1 = min(P, k0 + SEG);                                   \
    GsInt rb = 0, rs = 0;                                                                          \
    if (live) {                                                                                    \
      gs_rhs_place(&a, s, &rb, &rs);                                                               \
      rb += a.blk * a.rhs_len;                                                                     \
    }                                                                                              \
    const int fst = fstatus[0];                                                                    \
    if (fst) { /* the whole block */                                                               \
      if (live && g == 0) {                                                                        \
        gs_banded_poison_##S(sh.n, x, rb, rs);                                                     \
        gs_mark(status, s, fst, sum);                                                              \
      }                                                                                            \
      return;                                                                                      \
    }                                                                                              \
    const T *mp = gtab + GS_BANDED_TILE_NTAB(PER) * np;                                            \
    T *tm = (T *)gs_tile_dyn, *te = tm + GS_TILE2_MAP * P + GS_TILE2_END;                          \
    /* The pairs: two copies of 2 values a lane and chunk (16 bytes in double, 8 in float). */     \
    const int al = ((uintptr_t)sm & 15) == 0;                                                      \
    for (int k = k0; k < k1; k++) {                                                                \
      const T *gp = sm + 4 * ((GsInt)k * B + s);                                                   \
      T *d0 = te + ((2 * k) * 32 + lane) * 2, *d1 = te + ((2 * k + 1) * 32 + lane) * 2;            \
      if (!live) {                                                                                 \
        d0[0] = d0[1] = d1[0] = d1[1] = 0;                                                         \
      } else if (al) {                                                                             \
        GS_CP_ASYNC_PAIR(d0, gp)                                                                   \
        GS_CP_ASYNC_PAIR(d1, gp + 2)                                                               \
      } else {                                                                                     \
        d0[0] = gp[0];                                                                             \
        d0[1] = gp[1];                                                                             \
        d1[0] = gp[2];                                                                             \
        d1[1] = gp[3];                                                                             \
      }                                                                                            \
    }                                                                                              \
    /* The maps, from the two-pass layout (gs_tile2_mi) into chunk order. */                       \
    for (int t = (int)threadIdx.x; t < GS_TILE2_MAP * 32 * Q; t += (int)blockDim.x) {              \
      const int uq = t / 32, q = uq % Q, k = (t % 32) * Q + q;                                     \
      if (k < P) tm[GS_TILE2_MAP * k + uq / Q] = mp[t];                                            \
    }                                                                                              \
    if ((int)threadIdx.x < GS_TILE2_END)                                                           \
      tm[GS_TILE2_MAP * P + threadIdx.x] = mp[GS_TILE2_MAP * 32 * Q + threadIdx.x];                \
    GS_CP_ASYNC_WAIT()                                                                             \
    __syncthreads();                                                                               \
    /* Forward: the segment from a zero carry (no map past the last chunk). Each walk is unrolled  \
     * over the segment's SEG chunks, so that its shared-memory loads are off its chain. */        \
    const int kf = min(k1, P - 1);                                                                 \
    {                                                                                              \
      T b[2] = {0, 0}, Ms[4] = {1, 0, 0, 1};                                                       \
      _Pragma("unroll") for (int q = 0; q < SEG; q++) if (k0 + q < kf) {                           \
        const int k = k0 + q;                                                                      \
        const T *ep = te + ((2 * k) * 32 + lane) * 2;                                              \
        gs_t2_seg_##S(tm + GS_TILE2_MAP * k, ep[0], ep[1], Ms, b);                                 \
      }                                                                                            \
      gs_t2_put_##S(sbf[g], smf[g], lane, b, Ms);                                                  \
    }                                                                                              \
    __syncthreads();                                                                               \
    /* The carry into the segment, then its chunks again from it (cin kept in registers); a        \
     * periodic system's last chunk gives g at rows m - 2, m - 1 (the end map). */                 \
    T c[2] = {0, 0}, ci[SEG][2], oo[SEG][2];                                                       \
    gs_t2_fold_##S(smf, sbf, lane, 0, g, 1, c);                                                    \
    _Pragma("unroll") for (int q = 0; q < SEG; q++) {                                              \
      const int k = k0 + q;                                                                        \
      const T *ep = te + ((2 * k) * 32 + lane) * 2;                                                \
      ci[q][0] = c[0];                                                                             \
      ci[q][1] = c[1];                                                                             \
      if (k < kf) {                                                                                \
        gs_t2_step_##S(tm + GS_TILE2_MAP * k, ep[0], ep[1], c);                                    \
      } else if (PER && k == P - 1) { /* (g_{m-2}, g_{m-1}) by the end map, then y's rows */       \
        const T *E = tm + GS_TILE2_MAP * P;                                                        \
        gs_t2_step_##S(E, ep[0], ep[1], c);                                                        \
        syl[lane][0] = c[1];                                                                       \
        syl[lane][1] = c[0] - E[4] * c[1];                                                         \
      }                                                                                            \
    }                                                                                              \
    /* Backward: offsets e'_k + Mx_k cin_k (kept), maps Mb_k, the segment from a zero carry. */    \
    {                                                                                              \
      T b[2] = {0, 0}, Ms[4] = {1, 0, 0, 1};                                                       \
      _Pragma("unroll") for (int q = SEG - 1; q >= 0; q--) if (k0 + q < k1) {                      \
        const int k = k0 + q;                                                                      \
        const T *eq = te + ((2 * k + 1) * 32 + lane) * 2, *M = tm + GS_TILE2_MAP * k;              \
        oo[q][0] = eq[0] + M[8] * ci[q][0] + M[9] * ci[q][1];                                      \
        oo[q][1] = eq[1] + M[10] * ci[q][0] + M[11] * ci[q][1];                                    \
        gs_t2_seg_##S(M + 4, oo[q][0], oo[q][1], Ms, b);                                           \
      }                                                                                            \
      gs_t2_put_##S(sbb[g], smb[g], lane, b, Ms);                                                  \
    }                                                                                              \
    __syncthreads();                                                                               \
    T d[2] = {0, 0};                                                                               \
    gs_t2_fold_##S(smb, sbb, lane, G - 1, g, -1, d);                                               \
    _Pragma("unroll") for (int q = SEG - 1; q >= 0; q--) if (k0 + q < k1) {                        \
      const int k = k0 + q;                                                                        \
      if (live) {                                                                                  \
        const T o[4] = {ci[q][0], ci[q][1], d[0], d[1]};                                           \
        GS_TILE_STORE(T, 4, sm + 4 * ((GsInt)k * B + s), 1, o)                                     \
      }                                                                                            \
      gs_t2_step_##S(tm + GS_TILE2_MAP * k + 4, oo[q][0], oo[q][1], d);                            \
    }                                                                                              \
    if (PER && live && g == 0) { /* d: the block's first two values */                             \
      GS_TILE2_TAIL(T, S, d[0], d[1], syl[lane][0], syl[lane][1])                                  \
    }                                                                                              \
  }
GS_CUDA_BANDED_TILE2_SCAN(double, d, 0)
GS_CUDA_BANDED_TILE2_SCAN(double, d, 1)
GS_CUDA_BANDED_TILE2_SCAN(float, f, 0)
GS_CUDA_BANDED_TILE2_SCAN(float, f, 1)
#define GS_CUDA_BANDED_TILE2_SCANW(T, S, PER)                                                      \
  /* The carries: one warp per system, lane l taking chunks [l Q, l Q + Q) (Q = ceil(P / 32), at   \
   * most GS_TILE2_Q): each lane composes its chunks' affine maps, the lanes scan them             \
   * (Kogge-Stone with shuffles), then each lane runs its chunks from the carry into its first;    \
   * forward (cin_k replaces the forward pair in sm), then backward (cout_k replaces the backward  \
   * pair, the map of chunk k being Mb_k with offset (x0_0, x0_1) + Mx_k cin_k). The scans'        \
   * matrices depend on the matrix only: warps 0 and 1 of a block run them once (forward,          \
   * backward; as GS_TILE_SCAN_MATS) and each system's scans combine only its offsets. A periodic  \
   * system's block end values then give its last h unknowns, stored into x and after the pairs    \
   * in sm (2 a system). A failed factorisation: every solution NaN, every system marked. */       \
  static __global__ void __launch_bounds__(GS_TILE2_SCANW_THREADS)                                 \
      gs_banded_tile2w_k_##S##PER(GsBandedKArgs a, const T *__restrict__ gtab,                     \
                                  const T *__restrict__ C, const int *__restrict__ fstatus,        \
                                  const T *f, T *x, T *sm, int *status, GsBandedDevSummary *sum) { \
    GS_PDL_ENTER(); /* launched by GS_LAUNCH */                                                    \
    enum { QM = GS_TILE2_Q };                                                                      \
    __shared__ T sw[2][5][4][32];                                                                  \
    const GsInt s = ((GsInt)blockIdx.x * blockDim.x + threadIdx.x) / 32;                           \
    const int lane = (int)(threadIdx.x % 32), w = (int)(threadIdx.x / 32);                         \
    GsBandedShape sh = a.sh;                                                                       \
    sh.periodic = PER;                                                                             \
    const int P = a.tile_p, h = sh.h, Q = gs_tile2_q(P), nl = (P + Q - 1) / Q;                     \
    const GsInt np = (GsInt)P * GS_TILE2_L, m = sh.m, B = a.batch;                                 \
    const T *mp = gtab + GS_BANDED_TILE_NTAB(PER) * np;                                            \
    /* The maps into shared memory (each lane's chains read them: an L1 miss there costs an L2     \
     * round trip); value u of chunk k0 + q at GS_T2MQ. */                                         \
    __shared__ T smap[GS_TILE2_MAP * 32 * GS_TILE2_Q];                                             \
    for (int t = (int)threadIdx.x; t < GS_TILE2_MAP * 32 * Q; t += (int)blockDim.x)                \
      smap[t] = mp[t];                                                                             \
    __syncthreads();                                                                               \
    const T *ml = smap + lane;                                                                     \
    const int k0 = lane * Q;                                                                       \
    if (w < 2) { /* the lane's window product, then Kogge-Stone over the lanes, as matrices */     \
      T M[4] = {1, 0, 0, 1};                                                                       \
      _Pragma("unroll") for (int qq = 0; qq < QM; qq++) {                                          \
        const int q = w ? QM - 1 - qq : qq, k = k0 + q;                                            \
        if (q < Q && (w ? k < P : k + 1 < P)) {                                                    \
          T Mo[4] = {GS_T2MQ(4 * w, q), GS_T2MQ(4 * w + 1, q), GS_T2MQ(4 * w + 2, q),              \
                     GS_T2MQ(4 * w + 3, q)};                                                       \
          gs_tile_mmul_##S(Mo, M);                                                                 \
          _Pragma("unroll") for (int u = 0; u < 4; u++) M[u] = Mo[u];                              \
        }                                                                                          \
      }                                                                                            \
      GS_TILE_SCAN_MATS_KS(T, S, M, w, lane, 32, nl, sw[w])                                        \
    }                                                                                              \
    __syncthreads();                                                                               \
    if (s >= a.batch) return; /* the whole warp */                                                 \
    GsInt rb, rs;                                                                                  \
    gs_rhs_place(&a, s, &rb, &rs);                                                                 \
    rb += a.blk * a.rhs_len;                                                                       \
    const int fst = fstatus[0];                                                                    \
    if (fst) {                                                                                     \
      if (lane == 0) {                                                                             \
        gs_banded_poison_##S(sh.n, x, rb, rs);                                                     \
        gs_mark(status, s, fst, sum);                                                              \
      }                                                                                            \
      return;                                                                                      \
    }                                                                                              \
    T e[QM][4], cin[QM][2];                                                                        \
    _Pragma("unroll") for (int q = 0; q < QM; q++) {                                               \
      e[q][0] = e[q][1] = e[q][2] = e[q][3] = cin[q][0] = cin[q][1] = 0;                           \
      if (q < Q && k0 + q < P) GS_TILE_LOAD(T, 4, sm + 4 * ((GsInt)(k0 + q) * B + s), 1, e[q])     \
    }                                                                                              \
    /* Forward: the lane's offset, the scan, the carry into the lane from the lane before (zero    \
     * into chunk 0), then each chunk's cin. */                                                    \
    T b[2] = {0, 0};                                                                               \
    _Pragma("unroll") for (int q = 0; q < QM; q++) if (q < Q && k0 + q + 1 < P){                   \
        GS_T2AFF(T, 0, q, b[0], b[1], e[q][0], e[q][1])} GS_TILE_SCAN_CARRIES(T, S, sw[0], 0,      \
                                                                              lane, 32, nl, b)     \
        T c0 = __shfl_up_sync(0xffffffffu, b[0], 1),                                               \
          c1 = __shfl_up_sync(0xffffffffu, b[1], 1);                                               \
    if (lane == 0) c0 = c1 = 0;                                                                    \
    T yl1 = 0, yl2 = 0;                                                                            \
    _Pragma("unroll") for (int q = 0; q < QM; q++) if (q < Q && k0 + q < P) {                      \
      cin[q][0] = c0;                                                                              \
      cin[q][1] = c1;                                                                              \
      if (k0 + q + 1 < P) {                                                                        \
        GS_T2AFF(T, 0, q, c0, c1, e[q][0], e[q][1])                                                \
      } else if (PER) {                                                                            \
        const T *E = mp + (GsInt)GS_TILE2_MAP * 32 * Q;                                            \
        const T g2 = E[0] * c0 + E[1] * c1 + e[q][0], g1 = E[2] * c0 + E[3] * c1 + e[q][1];        \
        yl1 = g1;                                                                                  \
        yl2 = g2 - E[4] * g1;                                                                      \
      }                                                                                            \
    }                                                                                              \
    /* Backward: offsets (x0_0, x0_1) + Mx_k cin_k, maps Mb_k, from the lane's last chunk down. */ \
    b[0] = b[1] = 0;                                                                               \
    _Pragma("unroll") for (int q = QM - 1; q >= 0; q--) if (q < Q && k0 + q < P) {                 \
      e[q][2] += GS_T2MQ(8, q) * cin[q][0] + GS_T2MQ(9, q) * cin[q][1];                            \
      e[q][3] += GS_T2MQ(10, q) * cin[q][0] + GS_T2MQ(11, q) * cin[q][1];                          \
      GS_T2AFF(T, 4, q, b[0], b[1], e[q][2], e[q][3])                                              \
    }                                                                                              \
    GS_TILE_SCAN_CARRIES(T, S, sw[1], 1, lane, 32, nl, b)                                          \
    T d0 = __shfl_down_sync(0xffffffffu, b[0], 1), d1 = __shfl_down_sync(0xffffffffu, b[1], 1);    \
    if (lane + 1 >= nl) d0 = d1 = 0;                                                               \
    const T y0 = __shfl_sync(0xffffffffu, b[0], 0), y1 = __shfl_sync(0xffffffffu, b[1], 0);        \
    _Pragma("unroll") for (int q = QM - 1; q >= 0; q--) if (q < Q && k0 + q < P) {                 \
      const T o[4] = {cin[q][0], cin[q][1], d0, d1};                                               \
      GS_TILE_STORE(T, 4, sm + 4 * ((GsInt)(k0 + q) * B + s), 1, o)                                \
      GS_T2AFF(T, 4, q, d0, d1, e[q][2], e[q][3])                                                  \
    }                                                                                              \
    if (PER) {                                                                                     \
      const int ll = (P - 1) / Q; /* the lane with the last chunk */                               \
      yl1 = __shfl_sync(0xffffffffu, yl1, ll);                                                     \
      yl2 = __shfl_sync(0xffffffffu, yl2, ll);                                                     \
      if (lane == 0) {                                                                             \
        GS_TILE2_TAIL(T, S, y0, y1, yl1, yl2)                                                      \
      }                                                                                            \
    }                                                                                              \
  }
GS_CUDA_BANDED_TILE2_SCANW(double, d, 0)
GS_CUDA_BANDED_TILE2_SCANW(double, d, 1)
GS_CUDA_BANDED_TILE2_SCANW(float, f, 0)
GS_CUDA_BANDED_TILE2_SCANW(float, f, 1)
/* The passes' table rows (static, a warp's 5 x 32 values each). */
static __shared__ double gs_tile2_tab_d[GS_TILE2_THREADS / 32 * 5 * GS_TILE2_L];
static __shared__ float gs_tile2_tab_f[GS_TILE2_THREADS / 32 * 5 * GS_TILE2_L];
/* The contiguous kernels' staging buffers (static, a warp's 32 x 33 values each). */
static __shared__ double gs_tile2_buf_d[GS_TILE2_THREADS / 32 * 32 * (GS_TILE2_L + 1)];
static __shared__ float gs_tile2_buf_f[GS_TILE2_THREADS / 32 * 32 * (GS_TILE2_L + 1)];
GS_CUDA_BANDED_TILE2(double, d, 0, 0)
GS_CUDA_BANDED_TILE2B(double, d, 0, 0, 0, )
GS_CUDA_BANDED_TILE2B(double, d, 0, 0, 1, u)
GS_CUDA_BANDED_TILE2(double, d, 1, 0)
GS_CUDA_BANDED_TILE2B(double, d, 1, 0, 0, )
GS_CUDA_BANDED_TILE2B(double, d, 1, 0, 1, u)
GS_CUDA_BANDED_TILE2(double, d, 0, 1)
GS_CUDA_BANDED_TILE2B(double, d, 0, 1, 0, )
GS_CUDA_BANDED_TILE2B(double, d, 0, 1, 1, u)
GS_CUDA_BANDED_TILE2(double, d, 1, 1)
GS_CUDA_BANDED_TILE2B(double, d, 1, 1, 0, )
GS_CUDA_BANDED_TILE2B(double, d, 1, 1, 1, u)
GS_CUDA_BANDED_TILE2(float, f, 0, 0)
GS_CUDA_BANDED_TILE2B(float, f, 0, 0, 0, )
GS_CUDA_BANDED_TILE2B(float, f, 0, 0, 1, u)
GS_CUDA_BANDED_TILE2(float, f, 1, 0)
GS_CUDA_BANDED_TILE2B(float, f, 1, 0, 0, )
GS_CUDA_BANDED_TILE2B(float, f, 1, 0, 1, u)
GS_CUDA_BANDED_TILE2(float, f, 0, 1)
GS_CUDA_BANDED_TILE2B(float, f, 0, 1, 0, )
GS_CUDA_BANDED_TILE2B(float, f, 0, 1, 1, u)
GS_CUDA_BANDED_TILE2(float, f, 1, 1)
GS_CUDA_BANDED_TILE2B(float, f, 1, 1, 0, )
GS_CUDA_BANDED_TILE2B(float, f, 1, 1, 1, u)
typedef void (*GsTile2A_d)(GsBandedKArgs, const double *, const int *, const double *, double *);
typedef void (*GsTile2A_f)(GsBandedKArgs, const float *, const int *, const float *, float *);
typedef void (*GsTile2S_d)(GsBandedKArgs, const double *, const double *, const int *,
                           const double *, double *, double *, int *, GsBandedDevSummary *);
typedef void (*GsTile2S_f)(GsBandedKArgs, const float *, const float *, const int *, const float *,
                           float *, float *, int *, GsBandedDevSummary *);
typedef void (*GsTile2B_d)(GsBandedKArgs, const double *, const double *, const int *,
                           const double *, double *, const double *, int *, GsBandedDevSummary *);
typedef void (*GsTile2B_f)(GsBandedKArgs, const float *, const float *, const int *, const float *,
                           float *, const float *, int *, GsBandedDevSummary *);
/* [periodic][contiguous] (the carries do not depend on the layout: [periodic]) */
static const GsTile2A_d gs_tile2a_d[2][2] = {{gs_banded_tile2a_k_d00, gs_banded_tile2a_k_d01},
                                             {gs_banded_tile2a_k_d10, gs_banded_tile2a_k_d11}};
static const GsTile2A_f gs_tile2a_f[2][2] = {{gs_banded_tile2a_k_f00, gs_banded_tile2a_k_f01},
                                             {gs_banded_tile2a_k_f10, gs_banded_tile2a_k_f11}};
static const GsTile2S_d gs_tile2s_d[2] = {gs_banded_tile2s_k_d0, gs_banded_tile2s_k_d1};
static const GsTile2S_f gs_tile2s_f[2] = {gs_banded_tile2s_k_f0, gs_banded_tile2s_k_f1};
static const GsTile2S_d gs_tile2w_d[2] = {gs_banded_tile2w_k_d0, gs_banded_tile2w_k_d1};
static const GsTile2S_f gs_tile2w_f[2] = {gs_banded_tile2w_k_f0, gs_banded_tile2w_k_f1};
/* [periodic][contiguous][update] */
static const GsTile2B_d gs_tile2b_d[2][2][2] = {
    {{gs_banded_tile2b_k_d00, gs_banded_tile2b_k_d00u},
     {gs_banded_tile2b_k_d01, gs_banded_tile2b_k_d01u}},
    {{gs_banded_tile2b_k_d10, gs_banded_tile2b_k_d10u},
     {gs_banded_tile2b_k_d11, gs_banded_tile2b_k_d11u}}};
static const GsTile2B_f gs_tile2b_f[2][2][2] = {
    {{gs_banded_tile2b_k_f00, gs_banded_tile2b_k_f00u},
     {gs_banded_tile2b_k_f01, gs_banded_tile2b_k_f01u}},
    {{gs_banded_tile2b_k_f10, gs_banded_tile2b_k_f10u},
     {gs_banded_tile2b_k_f11, gs_banded_tile2b_k_f11u}}};

/* Chunked solves with each system's own LU (SCAN, banded_algo.h): thread t = k * ns + s of a
 * block owns chunk k (L rows) of system s, so that in the interleaved layout the threads of a warp
 * load the same rows of consecutive systems. A chunk's coefficients and values stay in registers
 * through its map and its recurrence; the maps go through shared memory to one thread per system,
 * which carries them over the system's chunks in order (P <= 256 steps of a 2 x 2 product, about
 * what a scan across warps would cost for 64 chunks, and the same order as the CPU's); the states
 * entering the chunks come back the same way. Floor: that of the factored solve (56 / 40 bytes
 * per unknown in double), with every value read and written once. A block of 256 threads holds
 * only ns = 256 / P systems (4 at 64 chunks), so in the interleaved layout each row of a chunk is
 * a 32-byte piece, which the GPU's memory serves at a quarter of its rate (GS_TILE_WIDE_THREADS).
 * The factor arrays are the library's own: for a batch with a matrix per system, Factor rearranges
 * them into the scan's layout (gs_scan_layout_len), where a warp's loads of a row are 32
 * consecutive entries; only f and x keep the caller's layout. Tri systems of more than 64 chunks
 * run in 512-thread blocks (GsBandedInfo.scan_threads: twice the systems a block, for f and x);
 * so do float pentadiagonal LU ones, and double ones take 512 threads' systems in two halves of a
 * 256-thread block (gs_banded_scan_h_k_d).
 * H200, deferred checks, matrix layout
 * -> scan layout, two rounds (us): penta 1024 x 1024 37.2 / 38.0 -> 31.7 / 31.8, 16384 x 1024
 * 580.9 / 578.5 -> 331.3 / 330.1, 65536 x 1024 2607 / 2601 -> 1274 / 1276, 1024 x 4096 259.8 /
 * 258.0 -> 176.6 / 175.8; tri 16384 x 1024 280.6 / 279.7 -> 206.3 / 204.7. */
#define GS_SCAN_THREADS GS_BANDED_SCAN_THREADS
/* Rows [r0, r0 + L) of p (base b, step st) into v, rows from m on as 0; full: r0 + L <= m, where
 * a contiguous layout's aligned chunk goes in 16-byte loads. */
#define GS_SCAN_LOAD(T, L, p, b, st, r0, full, m, v)                                               \
  if (full) {                                                                                      \
    const T *q_ = (p) + (b) + (GsInt)(r0) * (st);                                                  \
    GS_TILE_LOAD(T, L, q_, st, v)                                                                  \
  } else {                                                                                         \
    _Pragma("unroll") for (int j_ = 0; j_ < (L); j_++)(v)[j_] =                                    \
        (r0) + j_ < (m) ? (p)[(b) + (GsInt)((r0) + j_) * (st)] : (T)0;                             \
  }
/* Rows r0 + SH .. r0 + SH + L - 1 of factor array p into v (rows from m on as 0). Row jj < L of
 * the thread's chunk is at fbase + jj * frs, row jj - L of the next chunk at fbase + fkn + (jj - L)
 * * frs: in the matrix layout fkn = L * frs, in the scan's own layout (a.scan_layout) the next
 * chunk is the thread ns further on. SH is a constant, so each row's address is fixed at compile
 * time. */
#define GS_SCAN_FLOAD(T, L, p, SH, v)                                                              \
  if ((SH) == 0 ? full : full2) {                                                                  \
    if ((SH) == 0) {                                                                               \
      const T *q_ = (p) + fbase;                                                                   \
      GS_TILE_LOAD(T, L, q_, frs, v)                                                               \
    } else {                                                                                       \
      _Pragma("unroll") for (int j_ = 0; j_ < (L); j_++)(v)[j_] =                                  \
          (p)[j_ + (SH) < (L) ? fbase + (GsInt)(j_ + (SH)) * frs                                   \
                              : fbase + fkn + (GsInt)(j_ + (SH) - (L)) * frs];                     \
    }                                                                                              \
  } else {                                                                                         \
    _Pragma("unroll") for (int j_ = 0; j_ < (L); j_++)(v)[j_] =                                    \
        r0 + j_ + (SH) < m ? (p)[j_ + (SH) < (L) ? fbase + (GsInt)(j_ + (SH)) * frs                \
                                                 : fbase + fkn + (GsInt)(j_ + (SH) - (L)) * frs]   \
                           : (T)0;                                                                 \
  }
/* A periodic scan's W rows into c1, c2 for a chunk that needs them (wch), where WHEN holds. */
#define GS_SCAN_W_LOAD(T, L, BANDS, WHEN)                                                          \
  if ((WHEN) && wch) {                                                                             \
    /* W's arrays by selects: F indexed with the batch's spd would go to local memory. */          \
    const T *w1 = spd ? F[GS_BANDED_NLU(BANDS, 1)] : F[GS_BANDED_NLU(BANDS, 0)];                   \
    const T *w2 = spd ? F[GS_BANDED_NLU(BANDS, 1) + 1] : F[GS_BANDED_NLU(BANDS, 0) + 1];           \
    GS_SCAN_FLOAD(T, L, w1, 0, c1)                                                                 \
    if (h > 1) {                                                                                   \
      GS_SCAN_FLOAD(T, L, w2, 0, c2)                                                               \
    }                                                                                              \
  }
/* Resident blocks the kernels are compiled for: as many as their registers allow without spills
 * (ptxas, sm_90: the double pentadiagonal kernel with 16-row chunks needs 168 registers), except
 * the LDL^T-only double pentadiagonal 16-row kernels (SPDK 1), compiled for two blocks (128
 * registers, 172 / 188 bytes spilled). On the H200 (deferred checks) these took LDL^T 1024 x 1024
 * from 32-34 to 26-27 us, periodic from 43 to 32 us, 4096 x 1024 from 112 to 99 us. The LU
 * kernels compiled for two blocks as well (436 bytes spilled) were no faster at 256 to 4096
 * systems and slower at 8192 (209 -> 226 us), so LU keeps one block; tri kernels compiled for
 * three blocks (80 registers, 928 bytes spilled) were 1.5x slower. */
#define GS_SCAN_MIN_BLOCKS(T, BANDS, L, SPDK)                                                      \
  (sizeof(T) == 8 && (BANDS) == 5 ? ((L) == 16 ? ((SPDK) == 1 ? 2 : 1) : 2) : (L) == 16 ? 2 : 3)
/* Percent of the SM's unified memory kept as shared memory for the scans: room for the blocks
 * above (12 KB each in double) where the default carve-out gave 16 KB, one block. */
#define GS_SCAN_CARVEOUT 25
/* The pentadiagonal partial solves of partitioned batches (PART), and the other non-periodic
 * pentadiagonal scan kernels of one block a SM, load the back substitution's two factor arrays
 * (LU: the U rows; LDL^T: l1 and l2 a row and two rows down) with the forward sweep's, before the
 * first chain: a block's loads had waited until the forward chain (one thread a system carrying
 * its chunks' maps in turn) and sweep were done, with nothing else in flight on an SM that holds
 * one block (32 values a thread more: 166 -> 224 registers in double, float 114 -> 128, no
 * spills).
 * H200, deferred checks, two rounds each. The partitioned partial solves (PART): penta 1024 x
 * 65536 1206.8 / 1206.8 -> 1071.1 / 1070.6 us, periodic 1247.8 / 1237.3 -> 1103.2 / 1105.5, LDL^T
 * 1185.5 / 1185.7 -> 1159.3 / 1183.8, float 576.6 / 576.4 -> 543.5 / 542.1, 256 x 65536 321.7 /
 * 322.2 -> 294.5 / 295.4, 2048 x 4096 (SPIKE forced) 186.5 / 181.4 -> 174.1 / 168.6. The others,
 * non-periodic: penta 1024 x 1024 30.3 / 30.8 -> 28.3 / 28.3, 512 x 16384 143.5 / 143.7 -> 129.4 /
 * 129.9, 1024 x 4096 89.6 / 90.7 -> 89.5 / 86.8, contiguous 1024 x 1024 34.4 / 34.5 -> 34.0 /
 * 32.5; but periodic 1024 x 4096 113.6 / 113.1 -> 119.1 / 120.5 (1024 x 1024 level), so not
 * there. Tri kernels run two blocks a SM, with no registers to spare. Tried and dropped after
 * 5fff0d9: the tri 512-thread kernel (one block a SM) loading its U rows early too (56 bytes of
 * spills), medians of two rounds (us): 65536 x 1024 675.4 -> 703.2, LDL^T 662.3 -> 722.0. */
#define GS_SCAN_BACK_EARLY(PART, MB, PER) (penta && ((PART) || (!(PER) && (MB) == 1 && !WIDE)))
/* The smap entry of chunk kk of system sl in a scan block (GS_CUDA_BANDED_SCAN_NT): groups of sq
 * consecutive chunks, sst entries apart. */
static __device__ __forceinline__ int gs_scan_sidx(int kk, int sq, int sst, int ns, int sl) {
  return (kk / sq) * sst + (kk % sq) * ns + sl;
}
/* The states entering the chunks of the block's systems (in a kernel of chunk length L): up to 32
 * chunks a system, one thread each carries them in order; more (ns <= 7 systems a block), warp w
 * takes system w's chain across its lanes (gs_scan_chain_host's order). */
#define GS_SCAN_CHAIN(S, L, backward)                                                              \
  if ((L) == 16 && P > 32) { /* (8-row chunks: at most 256 rows, 32 chunks) */                     \
    const int w_ = t / 32;                                                                         \
    if (w_ < ns && grp * ns + w_ < vb)                                                             \
      gs_scan_chain_warp_##S(smap, P, ns, sst, w_, backward, penta);                               \
  } else if (on && k == 0) {                                                                       \
    gs_scan_chain_##S(smap, P, ns, sl, backward);                                                  \
  }
/* SPDK: -1 for LU or LDL^T as the batch says (V g), 1 for LDL^T only (V s). */
#define GS_CUDA_BANDED_SCAN(T, S, BANDS, L, PER, SPDK, V)                                          \
  GS_CUDA_BANDED_SCAN_NT(T, S, BANDS, L, PER, SPDK, V, GS_SCAN_THREADS,                            \
                         GS_SCAN_MIN_BLOCKS(T, BANDS, L, SPDK), 0, 0)
/* y -= W z on the rows of this thread's chunk that W reaches (W's rows in c1, c2). */
#define GS_SCAN_W_APPLY(T, L, Z0, Z1)                                                              \
  {                                                                                                \
    const T z0_ = (Z0), z1_ = (Z1);                                                                \
    _Pragma("unroll") for (int j = 0; j < (L); j++) {                                              \
      const int i = r0 + j;                                                                        \
      if (i < m && (i < phi || i >= plo))                                                          \
        ft[j] = ft[j] - c1[j] * z0_ - (h > 1 ? c2[j] * z1_ : (T)0);                                \
    }                                                                                              \
  }
/* Paired groups (PAIR): in the interleaved layout a scan block's rows of f and x are pieces of ns
 * values (32 bytes for 4 systems in double), each a request of its own to the L2. A probe that
 * only moved a solve's bytes in the
 * scan's pattern (5 factor arrays in the scan layout, f and x in pieces of ns systems; H200,
 * 65536 x 1024, no arithmetic) took 1.067 ms with pieces of 4 systems against 0.929 ms with 8 and
 * 0.923 with 16 (tri: 0.848, 0.678, 0.658), and f and x alone 0.648 ms against 0.410 / 0.320 /
 * 0.301 for 4 / 8 / 16 / 32 systems; Nsight Compute had the scan kernel's L2 91 % busy and its
 * DRAM 74 %. A PAIR block solves two groups of ns systems in turn: it copies f of both into
 * shared memory first, rows of 2 ns values (64 bytes) at a time (cp.async), and stores x of both
 * from there at the end. The chunks sit GS_SCAN_PAIR_PAD values apart in sfx, so that the 8
 * chunks of a warp fall on distinct banks in pairs (two wavefronts, the least for 8-byte loads).
 * Only for blocks whose threads are all on (P ns = NT) over whole pairs of groups, with the rows'
 * pairs of values aligned (pair_ok at the launch). Measured faster only for blocks of 2 systems
 * (GS_SCAN_PAIR_AUTO_NS). */
#define GS_SCAN_PAIR_PAD 4
/* -banded_scan_pair auto: groups of at most this many systems (pieces of 16 bytes in double,
 * 32 when paired). H200, deferred checks, two rounds, plain -> paired (us): penta 2048 rows (128
 * chunks, 2 systems a block) 1024 systems 60.0 / 59.4 -> 55.5 / 55.6, 4096: 197.4 / 198.1 ->
 * 184.2 / 185.2, 16384: 786.4 / 787.3 -> 680.0 / 678.3, 32768: 1658.1 / 1658.6 -> 1331.7 /
 * 1332.6; but 1024 rows (4 systems a block, pieces of 32 -> 64 bytes) 65536 systems 1049.7 /
 * 1058.5 -> 1138.1 / 1134.5, tri 775.3 / 776.3 -> 980.2 / 980.0, 16384: 270.3 -> 300.6, 4096:
 * 77.6 -> 86.2, 1024: 27.9 -> 28.8; 512 rows (8 systems, 64 -> 128 bytes) 131072 systems 936.4
 * -> 1095.5, tri 681.2 -> 1026.3. Nsight Compute on 65536 x 1024: the L2's requests went 54.5M
 * -> 46.1M and its throughput 91 % -> 81 %, but DRAM 74 % -> 69 %, while the paired kernel
 * issued more instructions (SM throughput 19.6 % -> 31.4 %) with 242 registers against 224. */
#define GS_SCAN_PAIR_AUTO_NS 2
#define GS_SCAN_PAIR_SMEM(P, ns, L, es)                                                            \
  ((size_t)2 * (size_t)(P) * ((size_t)(L) * (size_t)(ns) + GS_SCAN_PAIR_PAD) * (size_t)(es))
/* Rows 0 .. sh.m - 1 of the block's 2 ns systems (from g, rows rs_ apart) into sfx_ (OUT 0,
 * cp.async; GS_SCAN_PAIR_WAIT before use) or from sfx_ back to g (OUT 1, after a barrier): a
 * row's 2 ns values as ns pairs of 16 bytes (PAIR kernels are double only), one a thread. */
#define GS_SCAN_PAIR_COPY(T, OUT, rs_, g, sfx_, L_, NT_)                                           \
  {                                                                                                \
    const int items_ = (int)sh.m * ns;                                                             \
    for (int e_ = t; e_ < items_; e_ += (NT_)) {                                                   \
      const int r_ = e_ / ns, q_ = e_ - r_ * ns, hh_ = 2 * q_ / ns, sl_ = 2 * q_ - hh_ * ns;       \
      T *sp_ = (sfx_) + (hh_ * P + r_ / (L_)) * cpt + (r_ % (L_)) * ns + sl_;                      \
      if (OUT) {                                                                                   \
        T *gp_ = (T *)(g) + (GsInt)r_ * (rs_) + 2 * q_;                                            \
        *(double2 *)(void *)gp_ = *(const double2 *)(const void *)sp_;                             \
      } else {                                                                                     \
        const T *gp_ = (const T *)(g) + (GsInt)r_ * (rs_) + 2 * q_;                                \
        GS_CP_ASYNC_16_CG(sp_, gp_)                                                                \
      }                                                                                            \
    }                                                                                              \
  }
/* Every copy of the block's f done and visible (every thread of a PAIR block is on). */
#define GS_SCAN_PAIR_WAIT()                                                                        \
  {                                                                                                \
    GS_CP_ASYNC_WAIT()                                                                             \
    __syncthreads();                                                                               \
  }
#define GS_CUDA_BANDED_SCAN_NT(T, S, BANDS, L, PER, SPDK, V, NT, MB, PART, PAIR)                   \
  static __global__ void __launch_bounds__(NT, MB) gs_banded_scan_k_##S##BANDS##L##PER##V(         \
      GsBandedKArgs a, GsPtrs Fp, const T *__restrict__ C, const int *__restrict__ fstatus,        \
      const T *f, T *x, int *status, GsBandedDevSummary *sum) {                                    \
    enum { penta = BANDS == 5, WIDE = (NT) > GS_SCAN_THREADS };                                    \
    static_assert(!(PAIR) || sizeof(T) == 8, "paired scan kernels are double only");               \
    /* A chunk's map, then the state entering it: chunk kk of system sl at entry (kk / sq) * sst + \
     * (kk % sq) * ns + sl. Where a warp carries a system's chain (16-row chunks, P > 32), lane j  \
     * takes chunks j sq .. j sq + sq - 1, and groups of sq chunks sit an odd number sst of        \
     * entries apart, so that the lanes' loads spread over the banks (sq ns apart, 8 entries at    \
     * 64 chunks, put every lane on one bank); else sq = 1, sst = ns: entry t. Bound:              \
     * ceil(P / sq) (sq ns + 2) <= NT + NT / 16 + 66. H200, deferred checks, two rounds, one bank  \
     * -> spread (us): tri 65536 x 1024 825.6 / 820.4 -> 781.5 / 781.5, 1024 x 1024 18.7 / 20.0 -> \
     * 17.0 / 17.5, 2048 x 2048 70.3 / 69.5 -> 63.2 / 62.9; penta 1024 x 1024 29.6 / 29.2 -> 28.6  \
     * / 27.6, periodic 38.4 / 36.2 -> 35.6 / 35.5, LDL^T 22.7 / 22.8 -> 20.7 / 21.9; penta 16384  \
     * x 1024 304.4 / 304.4 -> 270.7 / 271.3, 65536 x 1024 1170.5 / 1170.4 -> 1047.0 / 1052.1,     \
     * periodic 4096 x 1024 117.2 / 115.5 -> 106.4 / 108.3, 512 x 4096 90.0 / 93.8 -> 84.4 / 84.3. \
     */                                                                                            \
    __shared__ T smap[NT + ((L) == 16 && !(PART) ? (NT) / 16 + 72 : 0)][6];                        \
    /* periodic: a system's y ends, then z (16-row chunks: over 256 rows, so ns <= NT / 16) */     \
    __shared__ T syz[PER ? ((L) == 16 ? (NT) / 16 : (NT)) : 1][6];                                 \
    /* periodic, 16-row chunks: each system's corner data, read into shared memory while the       \
     * forward sweep runs, so that the tail's thread (and the rows W reaches) find it on chip      \
     * instead of waiting for global memory between the tail's two barriers */                     \
    enum { SCOR = PER && (L) == 16 };                                                              \
    __shared__ T scor[SCOR ? (NT) / 16 : 1][GS_BANDED_CORNER_LEN(BANDS)];                          \
    const T *F[GS_BANDED_MAX_FAC];                                                                 \
    _Pragma("unroll") for (int q = 0; q < GS_BANDED_MAX_FAC; q++) F[q] = (const T *)Fp.p[q];       \
    const GsBandedShape sh = gs_kshape(&a, BANDS, PER);                                            \
    const int P = a.tile_p, ns = (NT) / P, h = sh.h;                                               \
    const int spd = (SPDK) < 0 ? sh.spd : (SPDK);                                                  \
    const int t = threadIdx.x, sl = t % ns, k = t / ns, r0 = k * L;                                \
    const int sq = (L) == 16 && !(PART) && P > 32 ? (P + 31) / 32 : 1;                             \
    const int sst = sq > 1 ? (sq * ns + 1) | 1 : ns,                                               \
              me = sq > 1 ? gs_scan_sidx(k, sq, sst, ns, sl) : t;                                  \
    const GsInt vb = PART ? a.batch * a.parts : a.batch;                                           \
    /* PAIR: the block solves groups 2 pg and 2 pg + 1 in turn (the launch: groups even) */        \
    const GsInt groups = (vb + ns - 1) / ns, pgroups = (PAIR) ? groups / 2 : groups;               \
    const GsInt blk = PART ? a.blk : blockIdx.x / pgroups;                                         \
    T *const sfx = (T *)gs_tile_dyn; /* PAIR: f, then x, of both groups (GS_SCAN_PAIR_SMEM) */     \
    const int cpt = L * ns + GS_SCAN_PAIR_PAD; /* PAIR: a chunk's entries in sfx */                \
    if (PAIR)                                                                                      \
      GS_SCAN_PAIR_COPY(T, 0, a.batch,                                                             \
                        f + blk * a.rhs_len + (GsInt)(blockIdx.x % pgroups) * 2 * ns, sfx, L, NT)  \
    for (int hh = 0; hh < ((PAIR) ? 2 : 1); hh++) {                                                \
      const GsInt grp =                                                                            \
          (PAIR) ? 2 * (GsInt)(blockIdx.x % pgroups) + hh : (GsInt)(blockIdx.x % pgroups);         \
      const GsInt sv = grp * ns + sl;                                                              \
      const GsInt s = PART ? sv % a.batch : sv;                                                    \
      GsInt pr0 = 0, pr1 = sh.m;                                                                   \
      if (PART) gs_part_range(sh.m, a.parts, (int)(sv / a.batch), &pr0, &pr1);                     \
      const int m = (int)(pr1 - pr0);                                                              \
      const int on = sv < vb && k < P;                                                             \
      /* The whole-chunk paths only where every chunk of the warp is whole (full; full2: two rows  \
       * more, for the loads shifted down): a warp that holds a partial chunk runs the row-tested  \
       * path in all its lanes, where it ran both paths one after the other (Nsight Compute,       \
       * penta 1024 x 1022: 8 % more instructions than at 1024 rows, 21.2 -> 24.4 us). H200,       \
       * deferred checks, two rounds, per lane -> per warp (us): penta 1024 x 1022 29.6 / 29.1 ->  \
       * 26.8 / 27.3, periodic 1024 x 1024 (m = 1022) 34.4 / 34.3 -> 31.3 / 32.7, 4096 x 1024      \
       * 106.3 / 105.7 -> 95.0 / 93.6, LDL^T 27.5 / 26.8 -> 26.8 / 26.0; but where every chunk is  \
       * whole 65536 x 1024 1048.6 / 1047.3 -> 1057.7 / 1058.4, tri 769.3 / 765.2 -> 775.6 /       \
       * 774.6 (the code moved). */                                                                \
      const int full = __all_sync(0xffffffffu, !on || r0 + L <= m);                                \
      const int full2 = __all_sync(0xffffffffu, !on || r0 + L + 2 <= m);                           \
      GsInt rb = 0, rs = 0, fbase = 0, frs = 0, fkn = 0;                                           \
      int fst = 0;                                                                                 \
      T c1[L], c2[L], ft[L], z[2] = {0, 0};                                                        \
      T pb1[L], pb2[L]; /* GS_SCAN_BACK_EARLY: the backward sweep's factors */                     \
      const T *Cm = C + (a.shared ? 0 : s) * a.corner_len;                                         \
      /* SCOR: thread t < ns CORNER_LEN copies entry t % len of system t / len's corner data */    \
      enum { CLEN = GS_BANDED_CORNER_LEN(BANDS) };                                                 \
      const int cq = t / CLEN, cr = t % CLEN;                                                      \
      const GsInt cs_ = grp * ns + cq;                                                             \
      const int cget = SCOR && cq < ns && cs_ < vb;                                                \
      const T cval =                                                                               \
          cget ? C[(a.shared ? 0 : (PART ? cs_ % a.batch : cs_)) * a.corner_len + cr] : (T)0;      \
      if (on) {                                                                                    \
        gs_rhs_place(&a, s, &rb, &rs);                                                             \
        rb += blk * a.rhs_len + pr0 * rs;                                                          \
        if (a.scan_layout) { /* this block's rows from g L NT, this thread's column t */           \
          fbase = grp * (L * (NT)) + t;                                                            \
          frs = NT;                                                                                \
          fkn = ns;                                                                                \
        } else {                                                                                   \
          GsInt fb, fs;                                                                            \
          gs_mat_place(&a, s, &fb, &fs);                                                           \
          fbase = fb + (GsInt)(r0 + pr0) * fs;                                                     \
          frs = fs;                                                                                \
          fkn = (GsInt)L * fs;                                                                     \
        }                                                                                          \
        fst = fstatus[a.shared ? 0 : s];                                                           \
        if (PER && k == 0) /* read before x (maybe f) is written: stores come after syncs */       \
          _Pragma("unroll") for (int r = 0; r < 2; r++) if (r < h) z[r] =                          \
              f[rb + (GsInt)(m + r) * rs];                                                         \
        if (penta) {                                                                               \
          GS_SCAN_FLOAD(T, L, F[0], 0, c2)                                                         \
        } else {                                                                                   \
          _Pragma("unroll") for (int j = 0; j < L; j++) c2[j] = 0;                                 \
        }                                                                                          \
        GS_SCAN_FLOAD(T, L, F[penta ? 1 : 0], 0, c1)                                               \
        T ia[L];                                                                                   \
        if (PAIR && !spd) { /* in flight while the copies of f complete */                         \
          GS_SCAN_FLOAD(T, L, F[penta ? 2 : 1], 0, ia)                                             \
        }                                                                                          \
        if (PAIR) {                                                                                \
          if (hh == 0) GS_SCAN_PAIR_WAIT();                                                        \
          const T *sp_ = sfx + (hh * P + k) * cpt + sl;                                            \
          _Pragma("unroll") for (int j = 0; j < L; j++) ft[j] = r0 + j < m ? sp_[j * ns] : (T)0;   \
        } else {                                                                                   \
          GS_SCAN_LOAD(T, L, f, rb, rs, r0, full, m, ft)                                           \
        }                                                                                          \
        if (spd) { /* L z = f: c1 = -l1, c2 = -l2 */                                               \
          _Pragma("unroll") for (int j = 0; j < L; j++) {                                          \
            c1[j] = -c1[j];                                                                        \
            c2[j] = -c2[j];                                                                        \
          }                                                                                        \
        } else {                                                                                   \
          if (!(PAIR)) GS_SCAN_FLOAD(T, L, F[penta ? 2 : 1], 0, ia)                                \
          gs_scan_prep_##S(penta, L, c1, c2, ia, ft);                                              \
        }                                                                                          \
        gs_scan_map_##S(penta, L, c1, c2, ft, 0, smap[me], smap[me] + 4);                          \
        if (GS_SCAN_BACK_EARLY(PART, MB, PER)) {                                                   \
          if (spd) {                                                                               \
            GS_SCAN_FLOAD(T, L, F[1], 1, pb1)                                                      \
            GS_SCAN_FLOAD(T, L, F[0], 2, pb2)                                                      \
          } else {                                                                                 \
            GS_SCAN_FLOAD(T, L, F[3], 0, pb1)                                                      \
            GS_SCAN_FLOAD(T, L, F[4], 0, pb2)                                                      \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
      if (cget) scor[SCOR ? cq : 0][cr] = cval;                                                    \
      __syncthreads();                                                                             \
      GS_SCAN_CHAIN(S, L, 0) /* the states entering the chunks */                                  \
      __syncthreads();                                                                             \
      if (on) {                                                                                    \
        gs_scan_apply_##S(penta, L, c1, c2, ft, 0, smap[me]);                                      \
        if (spd) { /* y = z / d, then L^T x = y: -l1 of the row below, -l2 of two below */         \
          GS_SCAN_FLOAD(T, L, F[penta ? 2 : 1], 0, c1)                                             \
          _Pragma("unroll") for (int j = 0; j < L; j++) ft[j] *= c1[j];                            \
        }                                                                                          \
        if (GS_SCAN_BACK_EARLY(PART, MB, PER)) { /* loaded with the forward sweep's */             \
          _Pragma("unroll") for (int j = 0; j < L; j++) {                                          \
            c1[j] = pb1[j];                                                                        \
            c2[j] = pb2[j];                                                                        \
          }                                                                                        \
        } else if (spd) {                                                                          \
          GS_SCAN_FLOAD(T, L, F[penta ? 1 : 0], 1, c1)                                             \
          if (penta) GS_SCAN_FLOAD(T, L, F[0], 2, c2)                                              \
        } else {                                                                                   \
          GS_SCAN_FLOAD(T, L, F[penta ? 3 : 2], 0, c1)                                             \
          if (penta) GS_SCAN_FLOAD(T, L, F[4], 0, c2)                                              \
        }                                                                                          \
        _Pragma("unroll") for (int j = 0; j < L; j++) {                                            \
          c1[j] = -c1[j];                                                                          \
          c2[j] = penta ? -c2[j] : (T)0;                                                           \
        }                                                                                          \
      }                                                                                            \
      __syncthreads(); /* every state read before the backward maps overwrite them */              \
      if (on) gs_scan_map_##S(penta, L, c1, c2, ft, 1, smap[me], smap[me] + 4);                    \
      __syncthreads();                                                                             \
      GS_SCAN_CHAIN(S, L, 1) /* backward: from the last chunk down */                              \
      __syncthreads();                                                                             \
      T chk = 0; /* stays 0 unless a value is inf or NaN */                                        \
      if (on) gs_scan_apply_##S(penta, L, c1, c2, ft, 1, smap[me]);                                \
      if (PER) { /* the last h unknowns from the block's end values, then y -= W z */              \
        /* W's rows for the chunks that reach where W matters, loaded before the tail's barriers   \
         * so that they arrive while the tail is solved (into c1, c2: the sweeps are done with     \
         * them); after them in the LDL^T-only kernels, which spill more registers the other way.  \
         * H200, deferred checks: periodic penta 4096 x 1024 127.4 / 128.0 -> 122.7 / 123.6 us,    \
         * 1024 x 1024 40.0 / 38.7 -> 38.0 / 37.9, tri unchanged. With 16-row chunks W's extents   \
         * and the tail's corner data come from shared memory (staged during the forward sweep),   \
         * and the tail needs one barrier instead of two (below): 1024 x 1024 38.2 / 38.6 -> 37.9  \
         * / 37.1, 4096 x 1024 124.6 / 124.8 -> 113.8 / 114.0, tri 1024 x 1024 22.7 / 22.6 -> 20.0 \
         * / 20.5.                                                                                 \
         */                                                                                        \
        GsInt phi = 0, plo = m;                                                                    \
        const T *Cd = SCOR ? scor[SCOR ? sl : 0] : Cm; /* the corner data, on chip where staged */ \
        if (on) gs_banded_w_rows_##S(&sh, Cd, &phi, &plo);                                         \
        const int wch = on && (r0 < phi || r0 + L > plo);                                          \
        GS_SCAN_W_LOAD(T, L, BANDS, (SPDK) != 1)                                                   \
        /* f's last h values, for the threads that solve the tail (but in LDL^T-only kernels) */   \
        if ((SPDK) != 1 && on && k == 0) {                                                         \
          syz[sl][4] = z[0];                                                                       \
          syz[sl][5] = z[1];                                                                       \
        }                                                                                          \
        if (on) GS_PER_ENDS(L, syz[sl], ft)                                                        \
        __syncthreads();                                                                           \
        if ((SPDK) == 1) {                                                                         \
          /* One thread solves the tail, the others wait (solving it in each thread that needs it  \
           * spilled 420 bytes in the double kernel and was slower: 27.4 -> 29.2 us at 1024^2). */ \
          GS_PER_TAIL(T, S, Cd, syz[sl], fst, syz[sl] + 4, 1)                                      \
          __syncthreads();                                                                         \
          GS_SCAN_W_LOAD(T, L, BANDS, 1)                                                           \
          if (wch) GS_SCAN_W_APPLY(T, L, syz[sl][4], syz[sl][5])                                   \
        }                                                                                          \
        /* Otherwise each thread that needs the last h unknowns (the system's first, which stores  \
         * them, and those W reaches) solves for them itself, a few dozen operations on shared     \
         * memory, instead of waiting at a second barrier for one thread to solve them. */         \
        if ((SPDK) != 1 && on && (wch || k == 0)) {                                                \
          T zz[2] = {syz[sl][4], syz[sl][5]};                                                      \
          GS_PER_TAIL_SOLVE(T, S, Cd, syz[sl], zz, fst, k == 0, k == 0)                            \
          if (wch) GS_SCAN_W_APPLY(T, L, zz[0], h > 1 ? zz[1] : (T)0)                              \
        }                                                                                          \
      }                                                                                            \
      if (on) {                                                                                    \
        _Pragma("unroll") for (int j = 0; j < L; j++) {                                            \
          if (fst) ft[j] = (T)NAN;                                                                 \
          chk += r0 + j < m ? ft[j] * (T)0 : (T)0;                                                 \
        }                                                                                          \
        if (PAIR) {                                                                                \
          T *sp_ = sfx + (hh * P + k) * cpt + sl;                                                  \
          _Pragma("unroll") for (int j = 0; j < L; j++) if (r0 + j < m) sp_[j * ns] = ft[j];       \
        } else {                                                                                   \
          T *xp = x + rb + (GsInt)r0 * rs;                                                         \
          if (full) {                                                                              \
            GS_TILE_STORE(T, L, xp, rs, ft)                                                        \
          } else {                                                                                 \
            _Pragma("unroll") for (int j = 0; j < L; j++) if (r0 + j < m) xp[(GsInt)j * rs] =      \
                ft[j];                                                                             \
          }                                                                                        \
        }                                                                                          \
        if (fst)                                                                                   \
          gs_mark(status, s, fst, sum);                                                            \
        else if (chk != 0 || chk != chk)                                                           \
          gs_mark(status, s, GS_BANDED_NOT_FINITE, sum);                                           \
      }                                                                                            \
      if (PAIR) __syncthreads(); /* the block's maps free for the next group, or x complete */     \
    }                            /* hh */                                                          \
    if (PAIR)                                                                                      \
      GS_SCAN_PAIR_COPY(T, 1, a.batch,                                                             \
                        x + blk * a.rhs_len + (GsInt)(blockIdx.x % pgroups) * 2 * ns, sfx, L, NT)  \
  }
#define GS_CUDA_BANDED_SCAN_ALL(T, S)                                                              \
  /* gs_scan_chain_lanes for tridiagonal chunks. Their maps carry one value (M[0], b[0]: the state \
   * entering a chunk is the value before it; M[1] and M[3] are 0, and the second value, M[2] and  \
   * b[1], feeds nothing), so a composition holds two values instead of six and a scan step        \
   * shuffles two instead of six. Each chunk's map gets the state entering it in e[0] (e[1] is     \
   * left as it was: the tri recurrence never reads it). A twin of the 2 x 2 loops below rather    \
   * than branches inside them: a merged version compiled to the same floating-point operations    \
   * but moved the tri kernels' register allocation (the double halves kernel's spills 12 -> 16    \
   * bytes, its periodic one's 88 -> 60), which was not measured. */                               \
  static __device__ __forceinline__ void gs_scan_chain_lanes1_##S(                                 \
      T(*smap)[6], T(*comp)[6], int P, int ns, int sst, int sl, int backward, int lo, int save,    \
      int whole, int lane, int Q, int mine) {                                                      \
    T A = 1, B = 0;                                                                                \
    if (lane < lo) {                                                                               \
      A = comp[lane][0];                                                                           \
      B = comp[lane][4];                                                                           \
    } else if (mine) {                                                                             \
      for (int u = 0; u < Q; u++) {                                                                \
        const int i = lane * Q + u;                                                                \
        if (!whole && i >= P) break;                                                               \
        const T *e = smap[gs_scan_sidx(backward ? P - 1 - i : i, Q, sst, ns, sl)];                 \
        const T M = e[0];                                                                          \
        B = M * B + e[4];                                                                          \
        A = M * A;                                                                                 \
      }                                                                                            \
      if (save) {                                                                                  \
        comp[lane][0] = A;                                                                         \
        comp[lane][4] = B;                                                                         \
      }                                                                                            \
    }                                                                                              \
    for (int off = 1; off < 32; off <<= 1) {                                                       \
      const T Ap = __shfl_up_sync(0xffffffffu, A, off), Bp = __shfl_up_sync(0xffffffffu, B, off);  \
      if (lane >= off) {                                                                           \
        B = A * Bp + B;                                                                            \
        A = A * Ap;                                                                                \
      }                                                                                            \
    }                                                                                              \
    T c = __shfl_up_sync(0xffffffffu, B, 1);                                                       \
    if (lane == 0) c = 0;                                                                          \
    __syncwarp(); /* every lane's maps read before any state overwrites them */                    \
    if (mine)                                                                                      \
      for (int u = 0; u < Q; u++) {                                                                \
        const int i = lane * Q + u;                                                                \
        if (!whole && i >= P) break;                                                               \
        T *e = smap[gs_scan_sidx(backward ? P - 1 - i : i, Q, sst, ns, sl)];                       \
        const T M = e[0], b = e[4];                                                                \
        e[0] = c;                                                                                  \
        c = M * c + b;                                                                             \
      }                                                                                            \
  }                                                                                                \
  /* System sl's chain of P > 32 chunks over the calling warp's lanes: lane j composes the maps of \
   * Q = ceil(P / 32) consecutive chunks, a Kogge-Stone scan with shuffles composes the lanes',    \
   * and each lane carries the state entering its first chunk through its chunks. Only lanes lo    \
   * to hi - 1 read their maps and carry the states (a chain in two halves, gs_banded_scan_h_k):   \
   * lanes below lo take their compositions from comp, and with save those lanes store theirs      \
   * there; the scan over the 32 lanes is the same either way. whole: P a multiple of 32, the      \
   * loops without the test for a lane's last chunk, as the halves' own chain had them before it   \
   * shared this function (H200, deferred, that chain against this function's loops with the test, \
   * medians of three rounds: 16384 x 2048 546.7 against 569.7 us, 1024 x 4096 108.5 against       \
   * 115.4, 65536 x 1024 988.4 against 983.6; the build with whole was not measured). */           \
  static __device__ __forceinline__ void gs_scan_chain_lanes_##S(                                  \
      T(*smap)[6], T(*comp)[6], int P, int ns, int sst, int sl, int backward, int lo, int hi,      \
      int save, int whole, int penta) {                                                            \
    const int lane = (int)(threadIdx.x & 31), Q = whole ? P / 32 : (P + 31) / 32;                  \
    const int mine = lane >= lo && lane < hi;                                                      \
    if (!penta) {                                                                                  \
      gs_scan_chain_lanes1_##S(smap, comp, P, ns, sst, sl, backward, lo, save, whole, lane, Q,     \
                               mine);                                                              \
      return;                                                                                      \
    }                                                                                              \
    T A[4] = {1, 0, 0, 1}, B[2] = {0, 0};                                                          \
    if (lane < lo) {                                                                               \
      _Pragma("unroll") for (int r = 0; r < 4; r++) A[r] = comp[lane][r];                          \
      B[0] = comp[lane][4];                                                                        \
      B[1] = comp[lane][5];                                                                        \
    } else if (mine) {                                                                             \
      for (int u = 0; u < Q; u++) {                                                                \
        const int i = lane * Q + u;                                                                \
        if (!whole && i >= P) break;                                                               \
        const int kk = backward ? P - 1 - i : i;                                                   \
        const T *e = smap[gs_scan_sidx(kk, Q, sst, ns, sl)];                                       \
        T M[4] = {e[0], e[1], e[2], e[3]}, b[2] = {e[4], e[5]};                                    \
        gs_tile_compose_##S(M, b, A, B);                                                           \
        _Pragma("unroll") for (int r = 0; r < 4; r++) A[r] = M[r];                                 \
        B[0] = b[0];                                                                               \
        B[1] = b[1];                                                                               \
      }                                                                                            \
      if (save) {                                                                                  \
        _Pragma("unroll") for (int r = 0; r < 4; r++) comp[lane][r] = A[r];                        \
        comp[lane][4] = B[0];                                                                      \
        comp[lane][5] = B[1];                                                                      \
      }                                                                                            \
    }                                                                                              \
    for (int off = 1; off < 32; off <<= 1) {                                                       \
      T Ap[4], Bp[2];                                                                              \
      _Pragma("unroll") for (int q = 0; q < 4; q++) Ap[q] =                                        \
          __shfl_up_sync(0xffffffffu, A[q], off);                                                  \
      _Pragma("unroll") for (int q = 0; q < 2; q++) Bp[q] =                                        \
          __shfl_up_sync(0xffffffffu, B[q], off);                                                  \
      if (lane >= off) gs_tile_compose_##S(A, B, Ap, Bp);                                          \
    }                                                                                              \
    T c[2] = {__shfl_up_sync(0xffffffffu, B[0], 1), __shfl_up_sync(0xffffffffu, B[1], 1)};         \
    if (lane == 0) c[0] = c[1] = 0;                                                                \
    __syncwarp(); /* every lane's maps read before any state overwrites them */                    \
    if (mine)                                                                                      \
      for (int u = 0; u < Q; u++) {                                                                \
        const int i = lane * Q + u;                                                                \
        if (!whole && i >= P) break;                                                               \
        const int kk = backward ? P - 1 - i : i;                                                   \
        gs_scan_step_##S(smap[gs_scan_sidx(kk, Q, sst, ns, sl)], c);                               \
      }                                                                                            \
  }                                                                                                \
  static __device__ __forceinline__ void gs_scan_chain_warp_##S(                                   \
      T(*smap)[6], int P, int ns, int sst, int sl, int backward, int penta) {                      \
    gs_scan_chain_lanes_##S(smap, smap, P, ns, sst, sl, backward, 0, 32, 0, 0, penta);             \
  }                                                                                                \
  /* Carry the maps of system sl's P chunks (smap[chunk * ns + sl]: M row-major, then b) over the  \
   * chunks in order (backward: from the last), leaving in each the state entering it. */          \
  static __device__ __forceinline__ void gs_scan_chain_##S(T(*smap)[6], int P, int ns, int sl,     \
                                                           int backward) {                         \
    T c[2] = {0, 0};                                                                               \
    for (int i = 0; i < P; i++) {                                                                  \
      gs_scan_step_##S(smap[(backward ? P - 1 - i : i) * ns + sl], c);                             \
    }                                                                                              \
  }                                                                                                \
  GS_CUDA_BANDED_SCAN(T, S, 3, 8, 0, -1, g)                                                        \
  GS_CUDA_BANDED_SCAN(T, S, 5, 8, 0, -1, g)                                                        \
  GS_CUDA_BANDED_SCAN(T, S, 3, 16, 0, -1, g)                                                       \
  GS_CUDA_BANDED_SCAN(T, S, 5, 16, 0, -1, g)                                                       \
  GS_CUDA_BANDED_SCAN(T, S, 3, 8, 1, -1, g)                                                        \
  GS_CUDA_BANDED_SCAN(T, S, 5, 8, 1, -1, g)                                                        \
  GS_CUDA_BANDED_SCAN(T, S, 3, 16, 1, -1, g)                                                       \
  GS_CUDA_BANDED_SCAN(T, S, 5, 16, 1, -1, g)                                                       \
  GS_CUDA_BANDED_SCAN(T, S, 5, 16, 0, 1, s)                                                        \
  GS_CUDA_BANDED_SCAN(T, S, 5, 16, 1, 1, s)                                                        \
  GS_CUDA_BANDED_SCAN_NT(T, S, 3, 16, 0, -1, w, 2 * GS_SCAN_THREADS, 1, 0, 0)                      \
  GS_CUDA_BANDED_SCAN_NT(T, S, 3, 16, 1, -1, w, 2 * GS_SCAN_THREADS, 1, 0, 0)                      \
  GS_CUDA_BANDED_SCAN_NT(T, S, 3, 16, 0, -1, p, GS_SCAN_THREADS, GS_SCAN_MIN_BLOCKS(T, 3, 16, -1), \
                         1, 0)                                                                     \
  GS_CUDA_BANDED_SCAN_NT(T, S, 5, 16, 0, -1, p, GS_SCAN_THREADS, GS_SCAN_MIN_BLOCKS(T, 5, 16, -1), \
                         1, 0)                                                                     \
  typedef void (*GsScanK_##S)(GsBandedKArgs, GsPtrs, const T *, const int *, const T *, T *,       \
                              int *, GsBandedDevSummary *);                                        \
  /* [L == 16][bands == 5][periodic]; then the LDL^T-only pentadiagonal 16-row ones [periodic] */  \
  static const GsScanK_##S gs_scan_k_##S[2][2][2] = {                                              \
      {{gs_banded_scan_k_##S##380g, gs_banded_scan_k_##S##381g},                                   \
       {gs_banded_scan_k_##S##580g, gs_banded_scan_k_##S##581g}},                                  \
      {{gs_banded_scan_k_##S##3160g, gs_banded_scan_k_##S##3161g},                                 \
       {gs_banded_scan_k_##S##5160g, gs_banded_scan_k_##S##5161g}}};                               \
  static const GsScanK_##S gs_scan_spd_k_##S[2] = {gs_banded_scan_k_##S##5160s,                    \
                                                   gs_banded_scan_k_##S##5161s};                   \
  /* [periodic]: tri 16-row chunks in 512-thread blocks */                                         \
  static const GsScanK_##S gs_scan_w_k_##S[2] = {gs_banded_scan_k_##S##3160w,                      \
                                                 gs_banded_scan_k_##S##3161w};                     \
  /* [bands == 5]: a partitioned (SPIKE) batch's partial solves, each partition a system */        \
  static const GsScanK_##S gs_scan_p_k_##S[2] = {gs_banded_scan_k_##S##3160p,                      \
                                                 gs_banded_scan_k_##S##5160p};
GS_CUDA_BANDED_SCAN_ALL(double, d)
GS_CUDA_BANDED_SCAN_ALL(float, f)
/* Float pentadiagonal LU scans of 16-row chunks in 512-thread blocks (GsBandedInfo.scan_threads;
 * 118 registers, 114 periodic, none spilled; the backward factors loaded after the forward
 * chain), [periodic].
 * Not in double: 1024 rows there need 166 registers a thread without the early loads of
 * GS_SCAN_BACK_EARLY (224 with them); double takes the systems of 512 threads in two halves of
 * 256 instead (gs_banded_scan_h_k_d, below). H200 (us), deferred checks, 65536 x 1024, 256 -> 512
 * threads: the double kernel compiled for 512 threads (420 bytes spilled) 1054.7 / 1053.3 ->
 * 1306.1 / 1300.7; with a and U copied into shared memory (cp.async) instead of held in
 * registers, no spills, 196 KB of shared memory a block, 1050.8 / 1057.0 -> 1306.3 / 1305.2. */
GS_CUDA_BANDED_SCAN_NT(float, f, 5, 16, 0, 0, W, 2 * GS_SCAN_THREADS, 1, 0, 0)
GS_CUDA_BANDED_SCAN_NT(float, f, 5, 16, 1, 0, W, 2 * GS_SCAN_THREADS, 1, 0, 0)
static const GsScanK_f gs_scan_wp_k_f[2] = {gs_banded_scan_k_f5160W, gs_banded_scan_k_f5161W};
/* Double pentadiagonal LU scans of 512 threads' chunks in 256-thread blocks, in two halves
 * (GsBandedInfo.scan_threads 512 in double; gs_banded_scan_h_k_d): a block solves the ns = 512 / P
 * systems of a 512-thread scan block (P = 64, 128 or 256 chunks of 16 rows, so each row of f and
 * x is a piece of 8, 4 or 2 systems: 64 bytes at 1024 rows where the 256-thread kernel has 32),
 * each thread chunk k of the first half (k < P / 2) and chunk k + P / 2 of the second, one half at
 * a time, so that a thread holds the registers of one chunk, as in the 256-thread kernel:
 *   1. the first half's forward sweep: maps, chain, recurrence; g kept in shared memory (32 KB);
 *   2. the second half's forward sweep, its U rows loaded with it; then its backward sweep
 *      (the first half's U rows loaded meanwhile), x stored;
 *   3. the first half's backward sweep from g, x stored.
 * The chains are those of the 512-thread scan block, in the same order (gs_scan_chain_host's): a
 * warp's lanes 0-15 carry the chunks of the half swept first (forward the first half, backward
 * the second), and the half swept second reuses their compositions, kept in shared memory, so
 * the scan over the 32 lanes is the same and every value the same bits as the 256-thread
 * kernel's. The factor arrays are in the scan's layout of 512 threads (gs_scan_layout_len). */
#define GS_SCAN_H_NT GS_SCAN_THREADS
#define GS_SCAN_H_NTV (2 * GS_SCAN_THREADS)
/* Tri (double and float) scans in halves: a 512-thread block takes the systems of 1024 threads
 * (GsBandedInfo.scan_threads 1024; gs_banded_scan_h3_k): 16 systems a block at 1024 rows, rows of
 * f and x in pieces of 128 bytes in double where the 512-thread kernel's are 64. A thread has 128
 * registers: float fits (90, periodic 109, no spills); double spilled 196 bytes (periodic 364)
 * around the warp chains, which run while a thread holds its chunk's coefficients and values.
 * Since the tri chains carry one value (gs_scan_chain_lanes1) and the first half's values wait
 * in sg through its chains, it spills 12 (periodic 88). Tri loads the backward rows after
 * the forward sweep (B's) and after the backward chain (A's), not with the forward rows as penta
 * does, and notes non-finite values in a flag: with those the plain double kernel's spills went
 * from 264 to 164 bytes (the order's speed against penta's was not measured; a barrier before the
 * second half's loads changed nothing). H200, deferred checks, two rounds, 512 threads -> halves
 * (us): float 65536 x 1024 518.5 / 517.0 -> 475.2 / 473.9, periodic 588.4 / 590.4 -> 512.9 / 510.5,
 * 16384 x 2048 374.2 / 376.4 -> 243.0 / 243.1, 4096 x 4096 282.3 / 280.4 -> 172.4 / 172.5, 512 x
 * 4096 41.2 / 41.3 -> 26.8 / 27.4; double 512 x 4096 53.7 / 53.1 -> 43.9 / 44.0, 1024 x 4096 99.3
 * / 98.8 -> 76.0 / 76.4; but double 65536 x 1024 702.5 / 703.4 -> 905.9 / 904.3 and 16384 x 2048
 * 422.4 / 424.7 -> 470.0 / 472.2 (the spills), 256 x 4096 26.3 / 26.6 -> 29.2 / 29.5 (64
 * blocks). With the one-value chains and maps (medians of two rounds, the build before -> after,
 * us): double halves 65536 x 1024 905.6 -> 739.5, 16384 x 2048 472.8 -> 379.5, 32768 x 2048
 * 920.1 -> 732.8, periodic 16384 x 2048 522.8 -> 468.1; the 512-thread kernel, where the tri
 * chains changed alike, 65536 x 1024 702.5 -> 690.8 (696.5 -> 687.0 in another call), 16384 x
 * 2048 424.0 -> 394.9, 32768 x 2048 863.1 -> 813.2. */
#define GS_SCAN_H3_NT (2 * GS_SCAN_THREADS)
#define GS_SCAN_H3_NTV (4 * GS_SCAN_THREADS)
/* Rows [r0, r0 + 16) of factor array p in the scan's layout of NTV threads (base fb, row j at fb
 * + j NTV), rows from m on as 0. */
#define GS_SCAN_H_FLOAD(T, p, fb, r0, full, v)                                                     \
  if (full) {                                                                                      \
    const T *q_ = (p) + (fb);                                                                      \
    GS_TILE_LOAD(T, L, q_, NTV, v)                                                                 \
  } else {                                                                                         \
    _Pragma("unroll") for (int j_ = 0; j_ < L; j_++)(v)[j_] =                                      \
        (r0) + j_ < m ? (p)[(fb) + (GsInt)j_ * NTV] : (T)0;                                        \
  }
/* A half's x (in ft) stored at rows [r0, r0 + 16) (NaN for a system whose factorisation failed),
 * a non-finite value noted in nfin (a flag: a T sum kept from the second half's store to the
 * end held two registers more through the first half's chain). */
#define GS_SCAN_H_STORE(T, r0, full)                                                               \
  {                                                                                                \
    T chk_ = 0;                                                                                    \
    _Pragma("unroll") for (int j = 0; j < L; j++) {                                                \
      if (fst) ft[j] = (T)NAN;                                                                     \
      chk_ += (r0) + j < m ? ft[j] * (T)0 : (T)0;                                                  \
    }                                                                                              \
    nfin |= chk_ != 0 || chk_ != chk_;                                                             \
    T *xp = x + rb + (GsInt)(r0)*rs;                                                               \
    if (full) {                                                                                    \
      GS_TILE_STORE(T, L, xp, rs, ft)                                                              \
    } else {                                                                                       \
      _Pragma("unroll") for (int j = 0; j < L; j++) if ((r0) + j < m) xp[(GsInt)j * rs] = ft[j];   \
    }                                                                                              \
  }
/* A half's forward coefficients and f' (rows r0.., factor base fb) and its chunk's map into
 * smap[me]. */
#define GS_SCAN_H_FWD(T, S, fb, r0, full, me)                                                      \
  {                                                                                                \
    T ia[L];                                                                                       \
    if (penta) {                                                                                   \
      GS_SCAN_H_FLOAD(T, F[0], fb, r0, full, c2)                                                   \
    } else {                                                                                       \
      _Pragma("unroll") for (int j = 0; j < L; j++) c2[j] = 0;                                     \
    }                                                                                              \
    GS_SCAN_H_FLOAD(T, F[penta ? 1 : 0], fb, r0, full, c1)                                         \
    GS_SCAN_LOAD(T, L, f, rb, rs, r0, full, m, ft)                                                 \
    GS_SCAN_H_FLOAD(T, F[penta ? 2 : 1], fb, r0, full, ia)                                         \
    gs_scan_prep_##S(penta, L, c1, c2, ia, ft);                                                    \
    gs_scan_map_##S(penta, L, c1, c2, ft, 0, smap[me], smap[me] + 4);                              \
  }
/* A half's backward factor rows (LU's U: penta two arrays, tri one) into u1, u2. */
#define GS_SCAN_H_BLOAD(T, fb, r0, full, u1, u2)                                                   \
  GS_SCAN_H_FLOAD(T, F[penta ? 3 : 2], fb, r0, full, u1)                                           \
  if (penta) {                                                                                     \
    GS_SCAN_H_FLOAD(T, F[4], fb, r0, full, u2)                                                     \
  }
/* A periodic half's W rows (penta two columns, tri one) into u1, u2. */
#define GS_SCAN_H_WLOAD(T, fb, r0, full, u1, u2)                                                   \
  GS_SCAN_H_FLOAD(T, F[PERIODIC ? NLU : 0], fb, r0, full, u1)                                      \
  if (penta) {                                                                                     \
    GS_SCAN_H_FLOAD(T, F[PERIODIC ? NLU + 1 : 0], fb, r0, full, u2)                                \
  }
/* The block's maps in, the chains of a half (backward, second: gs_scan_chain_half), states out. */
#define GS_SCAN_H_CHAIN(S, backward, second)                                                       \
  __syncthreads();                                                                                 \
  if (chain) gs_scan_chain_half_##S(smap, scomp[w_], P, ns, sst, w_, backward, second, penta);     \
  __syncthreads();
/* Entries of a halves kernel's chunk maps (as GS_CUDA_BANDED_SCAN_NT's, for NTV threads). */
#define GS_SCAN_H_NMAP(NTV) ((NTV) + (NTV) / 16 + 72)
/* The dynamic shared memory of gs_banded_scan_h_k (NT threads a block): the first half's g (16
 * rows a thread), then the chunk maps (6 values each; past the 48 KB of static shared memory at
 * 1024 threads' chunks). */
#define GS_SCAN_H_SMEM(NT, es) (((size_t)16 * (NT) + (size_t)6 * GS_SCAN_H_NMAP(2 * (NT))) * (es))
/* The periodic kernel's extra parameter (the corner data) and, in the other, a null stand-in. */
#define GS_SCAN_H_CPARAM_0(T)
#define GS_SCAN_H_CPARAM_1(T) const T *__restrict__ C,
#define GS_SCAN_H_CNULL_0(T) const T *const C = NULL
#define GS_SCAN_H_CNULL_1(T)
/* A periodic system's y at rows < h and >= m - h of a half's chunk (rows r0_.., in ft) into e. */
#define GS_SCAN_H_ENDS(r0_, e)                                                                     \
  {                                                                                                \
    const int r0 = (r0_);                                                                          \
    GS_PER_ENDS(L, e, ft)                                                                          \
  }
/* The kernel for PER 0 (gs_banded_scan_h_k) and 1 (gs_banded_scan_hp_k: periodic systems, their
 * corner data C). A periodic system's block E is solved as above (m = n - h rows); then, as in
 * GS_CUDA_BANDED_SCAN_NT, its last h unknowns z come from y's first and last h values and y -= W z
 * on the chunks where W is above rounding (Factor's extents): the first half's before its store,
 * the second half's (stored at step 2, before z is known) read back from x, corrected and stored
 * again. So a periodic solve moves the plain solve's bytes, and W's and x's rows only where W
 * matters (for diagonally dominant rows a chunk or two at each end). H200, deferred checks, two
 * rounds, the second half's chunks that W reaches kept in shared memory until z is known (and W's
 * rows loaded at the start of the first half's backward sweep) -> read back (us): 65536 x 1024
 * 1128.4 / 1132.7 -> 1093.8 / 1100.3 (W's rows loaded early and read back: 1185.8 / 1183.1),
 * 16384 x 2050 602.8 / 605.7 -> 588.7 / 590.7; but with stiff rows (a = 1e5: W above rounding in
 * every row, the whole second half read back) 16384 x 1024 349.5 / 343.5 -> 358.8 / 357.0.
 * Without W's loads and the correction (a timing experiment, not a solve) 65536 x 1024 took
 * 1006.8 / 1011.4 against 985 not periodic. */
#define GS_CUDA_BANDED_SCAN_HALVES_K(T, S, BANDS, PER, NT_, NM)                                    \
  static __global__ void __launch_bounds__(NT_, 1) gs_banded_scan_##NM##_k_##S(                    \
      GsBandedKArgs a, GsPtrs Fp, GS_SCAN_H_CPARAM_##PER(T) const int *__restrict__ fstatus,       \
      const T *f, T *x, int *status, GsBandedDevSummary *sum) {                                    \
    enum {                                                                                         \
      L = 16,                                                                                      \
      NT = NT_,                                                                                    \
      NTV = 2 * NT_,                                                                               \
      penta = (BANDS) == 5,                                                                        \
      PERIODIC = (PER),                                                                            \
      CLEN = GS_BANDED_CORNER_LEN(BANDS),                                                          \
      NLU = GS_BANDED_NLU(BANDS, 0),                                                               \
      NF = NLU + ((PER) ? (penta ? 2 : 1) : 0)                                                     \
    };                                                                                             \
    /* the first half's g, then the chunk maps (GS_SCAN_H_SMEM) */                                 \
    T(*const sg)[NT] = (T(*)[NT])gs_tile_dyn;                                                      \
    T(*const smap)[6] = (T(*)[6])(sg + 16);                                                        \
    __shared__ T scomp[NTV / 64][16][6]; /* lanes 0-15's compositions, a system each */            \
    /* periodic: each system's y ends and f's last h values, and its corner data */                \
    __shared__ T syz[(PER) ? NTV / 64 : 1][6];                                                     \
    __shared__ T scor[(PER) ? NTV / 64 : 1][CLEN];                                                 \
    GS_SCAN_H_CNULL_##PER(T);                                                                      \
    const T *F[NF];                                                                                \
    _Pragma("unroll") for (int q = 0; q < NF; q++) F[q] = (const T *)Fp.p[q];                      \
    const GsBandedShape sh = gs_kshape(&a, BANDS, PER);                                            \
    const int P = a.tile_p, ns = NTV / P, m = (int)a.sh.m, Q = P / 32, h = sh.h;                   \
    const int tid = (int)threadIdx.x, sl = tid % ns, sst = (Q * ns + 1) | 1;                       \
    const GsInt groups = (a.batch + ns - 1) / ns;                                                  \
    const GsInt blk = blockIdx.x / groups, grp = blockIdx.x % groups, s = grp * ns + sl;           \
    const int on = s < a.batch, w_ = tid / 32;                                                     \
    const int chain = w_ < ns && grp * ns + w_ < a.batch;                                          \
    const int kA = tid / ns, kB = kA + P / 2, rA = kA * L, rB = kB * L;                            \
    const int meA = gs_scan_sidx(kA, Q, sst, ns, sl), meB = gs_scan_sidx(kB, Q, sst, ns, sl);      \
    const int fullA = __all_sync(0xffffffffu, !on || rA + L <= m);                                 \
    const int fullB = __all_sync(0xffffffffu, !on || rB + L <= m);                                 \
    const GsInt fbA = grp * (L * NTV) + tid, fbB = fbA + NT;                                       \
    GsInt rb = 0, rs = 0;                                                                          \
    int fst = 0;                                                                                   \
    T zf[2] = {0, 0}; /* periodic, chunk 0's thread: f's last h values */                          \
    if (on) {                                                                                      \
      gs_rhs_place(&a, s, &rb, &rs);                                                               \
      rb += blk * a.rhs_len;                                                                       \
      fst = fstatus[s];                                                                            \
      if ((PER) && kA == 0) /* read before x (maybe f) is written */                               \
        _Pragma("unroll") for (int r = 0; r < 2; r++) if (r < h) zf[r] =                           \
            f[rb + (GsInt)(m + r) * rs];                                                           \
    }                                                                                              \
    /* periodic: thread t < ns CLEN copies entry t % CLEN of system t / CLEN's corner data */      \
    const int cget = (PER) && tid < ns * CLEN && grp * ns + tid / CLEN < a.batch;                  \
    const T cval = cget ? C[(grp * ns + tid / CLEN) * a.corner_len + tid % CLEN] : (T)0;           \
    T c1[L], c2[L], ft[L], pb1[L], pb2[L], chk = 0; /* chk: the tail's */                          \
    int nfin = 0;                                                                                  \
    /* 1. the first half, forward */                                                               \
    if (on) {                                                                                      \
      GS_SCAN_H_FWD(T, S, fbA, rA, fullA, meA)                                                     \
      if (!penta) /* tri: f' kept in sg through the chain, not in registers */                     \
        _Pragma("unroll") for (int j = 0; j < L; j++) sg[j][tid] = ft[j];                          \
    }                                                                                              \
    if (cget) scor[(PER) ? tid / CLEN : 0][tid % CLEN] = cval;                                     \
    GS_SCAN_H_CHAIN(S, 0, 0)                                                                       \
    if (on) {                                                                                      \
      if (!penta) _Pragma("unroll") for (int j = 0; j < L; j++) ft[j] = sg[j][tid];                \
      gs_scan_apply_##S(penta, L, c1, c2, ft, 0, smap[meA]);                                       \
      _Pragma("unroll") for (int j = 0; j < L; j++) sg[j][tid] = ft[j];                            \
    }                                                                                              \
    /* periodic: the rows where W matters, and whether this thread's chunks reach them */          \
    GsInt phi = 0, plo = m;                                                                        \
    if ((PER) && on) gs_banded_w_rows_##S(&sh, scor[(PER) ? sl : 0], &phi, &plo);                  \
    const int wA = (PER) && on && (rA < phi || rA + L > plo);                                      \
    const int wB = (PER) && on && (rB < phi || rB + L > plo);                                      \
    /* 2. the second half, forward then backward */                                                \
    if (on) {                                                                                      \
      GS_SCAN_H_FWD(T, S, fbB, rB, fullB, meB)                                                     \
      if (penta) {                                                                                 \
        GS_SCAN_H_BLOAD(T, fbB, rB, fullB, pb1, pb2)                                               \
      }                                                                                            \
    }                                                                                              \
    GS_SCAN_H_CHAIN(S, 0, 1)                                                                       \
    if (on) {                                                                                      \
      gs_scan_apply_##S(penta, L, c1, c2, ft, 0, smap[meB]);                                       \
      if (!penta) { /* tri: after the sweep (fewer registers held; GS_SCAN_H3_NT) */               \
        GS_SCAN_H_BLOAD(T, fbB, rB, fullB, pb1, pb2)                                               \
      }                                                                                            \
      _Pragma("unroll") for (int j = 0; j < L; j++) {                                              \
        c1[j] = -pb1[j];                                                                           \
        c2[j] = penta ? -pb2[j] : (T)0;                                                            \
      }                                                                                            \
      if (penta) { /* the first half's, in flight meanwhile */                                     \
        GS_SCAN_H_BLOAD(T, fbA, rA, fullA, pb1, pb2)                                               \
      }                                                                                            \
      gs_scan_map_##S(penta, L, c1, c2, ft, 1, smap[meB], smap[meB] + 4);                          \
    }                                                                                              \
    GS_SCAN_H_CHAIN(S, 1, 0)                                                                       \
    if (on) {                                                                                      \
      if (!penta) { /* tri: after the chain, not held through it (GS_SCAN_H3_NT) */                \
        GS_SCAN_H_BLOAD(T, fbA, rA, fullA, pb1, pb2)                                               \
      }                                                                                            \
      gs_scan_apply_##S(penta, L, c1, c2, ft, 1, smap[meB]);                                       \
      if (PER) GS_SCAN_H_ENDS(rB, syz[(PER) ? sl : 0])                                             \
      GS_SCAN_H_STORE(T, rB, fullB)                                                                \
    }                                                                                              \
    /* 3. the first half, backward */                                                              \
    if (on) {                                                                                      \
      _Pragma("unroll") for (int j = 0; j < L; j++) {                                              \
        ft[j] = sg[j][tid];                                                                        \
        c1[j] = -pb1[j];                                                                           \
        c2[j] = penta ? -pb2[j] : (T)0;                                                            \
      }                                                                                            \
      gs_scan_map_##S(penta, L, c1, c2, ft, 1, smap[meA], smap[meA] + 4);                          \
    }                                                                                              \
    GS_SCAN_H_CHAIN(S, 1, 1)                                                                       \
    if (on) {                                                                                      \
      if (!penta) /* tri: g read again, not held through the chain */                              \
        _Pragma("unroll") for (int j = 0; j < L; j++) ft[j] = sg[j][tid];                          \
      gs_scan_apply_##S(penta, L, c1, c2, ft, 1, smap[meA]);                                       \
      if (PER) {                                                                                   \
        GS_SCAN_H_ENDS(rA, syz[(PER) ? sl : 0])                                                    \
        if (kA == 0) {                                                                             \
          syz[(PER) ? sl : 0][4] = zf[0];                                                          \
          syz[(PER) ? sl : 0][5] = zf[1];                                                          \
        }                                                                                          \
        /* W's rows of a chunk that needs them (A's where both do), in flight during the tail */   \
        if (wA) {                                                                                  \
          GS_SCAN_H_WLOAD(T, fbA, rA, fullA, pb1, pb2)                                             \
        } else if (wB) {                                                                           \
          GS_SCAN_H_WLOAD(T, fbB, rB, fullB, pb1, pb2)                                             \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    if (PER) __syncthreads(); /* the systems' end values and f's last values in syz */             \
    if (on) {                                                                                      \
      T zz[2] = {0, 0};                                                                            \
      if ((PER) && (wA || wB || kA == 0)) {                                                        \
        zz[0] = syz[(PER) ? sl : 0][4];                                                            \
        zz[1] = syz[(PER) ? sl : 0][5];                                                            \
        GS_PER_TAIL_SOLVE(T, S, scor[(PER) ? sl : 0], syz[(PER) ? sl : 0], zz, fst, kA == 0,       \
                          kA == 0)                                                                 \
        if (wA) {                                                                                  \
          _Pragma("unroll") for (int j = 0; j < L; j++) {                                          \
            c1[j] = pb1[j];                                                                        \
            c2[j] = penta ? pb2[j] : (T)0;                                                         \
          }                                                                                        \
          const int r0 = rA;                                                                       \
          GS_SCAN_W_APPLY(T, L, zz[0], h > 1 ? zz[1] : (T)0)                                       \
        }                                                                                          \
      }                                                                                            \
      GS_SCAN_H_STORE(T, rA, fullA)                                                                \
      if (wB) { /* the second half's chunk again: y from x; W's rows now where A's took pb */      \
        if (wA) {                                                                                  \
          GS_SCAN_H_WLOAD(T, fbB, rB, fullB, c1, c2)                                               \
        } else {                                                                                   \
          _Pragma("unroll") for (int j = 0; j < L; j++) {                                          \
            c1[j] = pb1[j];                                                                        \
            c2[j] = penta ? pb2[j] : (T)0;                                                         \
          }                                                                                        \
        }                                                                                          \
        GS_SCAN_LOAD(T, L, x, rb, rs, rB, fullB, m, ft)                                            \
        const int r0 = rB;                                                                         \
        GS_SCAN_W_APPLY(T, L, zz[0], h > 1 ? zz[1] : (T)0)                                         \
        GS_SCAN_H_STORE(T, rB, fullB)                                                              \
      }                                                                                            \
      if (fst)                                                                                     \
        gs_mark(status, s, fst, sum);                                                              \
      else if (nfin || chk != 0 || chk != chk)                                                     \
        gs_mark(status, s, GS_BANDED_NOT_FINITE, sum);                                             \
    }                                                                                              \
  }
#define GS_CUDA_BANDED_SCAN_HALVES(T, S)                                                           \
  /* A system's chain in one of the two halves (second: the half swept second), by its warp:       \
   * lanes 0-15 carry the chunks of the half swept first and keep their compositions in comp,      \
   * lanes 16-31 those of the second (gs_scan_chain_lanes_##S). */                                 \
  static __device__ __forceinline__ void gs_scan_chain_half_##S(                                   \
      T(*smap)[6], T(*comp)[6], int P, int ns, int sst, int sl, int backward, int second,          \
      int penta) {                                                                                 \
    gs_scan_chain_lanes_##S(smap, comp, P, ns, sst, sl, backward, second ? 16 : 0,                 \
                            second ? 32 : 16, !second, 1, penta);                                  \
  }                                                                                                \
  GS_CUDA_BANDED_SCAN_HALVES_K(T, S, 3, 0, GS_SCAN_H3_NT, h3)                                      \
  GS_CUDA_BANDED_SCAN_HALVES_K(T, S, 3, 1, GS_SCAN_H3_NT, hp3)
GS_CUDA_BANDED_SCAN_HALVES(double, d)
GS_CUDA_BANDED_SCAN_HALVES(float, f)
/* Double pentadiagonal LU in halves of 256 threads ([periodic]). */
GS_CUDA_BANDED_SCAN_HALVES_K(double, d, 5, 0, GS_SCAN_H_NT, h)
GS_CUDA_BANDED_SCAN_HALVES_K(double, d, 5, 1, GS_SCAN_H_NT, hp)
/* PAIR kernels (GS_SCAN_PAIR_OK): double, 16-row chunks, not periodic, LU or LDL^T as the batch
 * says; [bands == 5] */
GS_CUDA_BANDED_SCAN_NT(double, d, 3, 16, 0, -1, q, GS_SCAN_THREADS,
                       GS_SCAN_MIN_BLOCKS(double, 3, 16, -1), 0, 1)
GS_CUDA_BANDED_SCAN_NT(double, d, 5, 16, 0, -1, q, GS_SCAN_THREADS,
                       GS_SCAN_MIN_BLOCKS(double, 5, 16, -1), 0, 1)
static const GsScanK_d gs_scan_pair_k_d[2] = {gs_banded_scan_k_d3160q, gs_banded_scan_k_d5160q};

/* A factor array from the matrix layout (src) into the scan's own (dst, gs_scan_layout_len):
 * the scan's block of ns systems reads each row of its chunks as NT consecutive entries where the
 * interleaved layout gives ns (32 bytes for 64 chunks of 16 rows in 256 threads, a quarter of what
 * the GPU's memory serves at full rate; see GS_TILE_WIDE_THREADS). Read in the matrix layout's
 * order. */
#define GS_CUDA_SCAN_RELAYOUT(T, S)                                                                \
  static __global__ void gs_banded_scan_relayout_k_##S(GsBandedKArgs a, const T *src, T *dst) {    \
    const int L = a.tile_l, NT = a.scan_threads, ns = NT / a.tile_p;                               \
    const GsInt total = a.sh.m * a.batch;                                                          \
    for (GsInt q = blockIdx.x * (GsInt)blockDim.x + threadIdx.x; q < total;                        \
         q += (GsInt)gridDim.x * blockDim.x) {                                                     \
      const GsInt i = a.interleaved ? q / a.batch : q % a.sh.m;                                    \
      const GsInt s = a.interleaved ? q % a.batch : q / a.sh.m;                                    \
      GsInt b, st;                                                                                 \
      gs_mat_place(&a, s, &b, &st);                                                                \
      const GsInt g = s / ns;                                                                      \
      const int sl = (int)(s % ns), k = (int)(i / L), j = (int)(i % L);                            \
      dst[(g * L + j) * NT + k * ns + sl] = src[b + i * st];                                       \
    }                                                                                              \
  }
GS_CUDA_SCAN_RELAYOUT(double, d)
GS_CUDA_SCAN_RELAYOUT(float, f)
/* The same for the LU of a partitioned batch whose partial solves are scans: partition j of system
 * s is the scan's system j batch + s, of rows i - r0(j). */
#define GS_CUDA_PART_RELAYOUT(T, S)                                                                \
  static __global__ void gs_banded_part_relayout_k_##S(GsBandedKArgs a, const T *src, T *dst) {    \
    const int L = GS_BANDED_PART_SCAN_L, NT = GS_SCAN_THREADS, ns = NT / a.tile_p;                 \
    const GsInt m = a.sh.m, total = m * a.batch;                                                   \
    for (GsInt q = blockIdx.x * (GsInt)blockDim.x + threadIdx.x; q < total;                        \
         q += (GsInt)gridDim.x * blockDim.x) {                                                     \
      const GsInt i = a.interleaved ? q / a.batch : q % m;                                         \
      const GsInt s = a.interleaved ? q % a.batch : q / m;                                         \
      GsInt b, st, r0, r1;                                                                         \
      gs_mat_place(&a, s, &b, &st);                                                                \
      const int j = (int)(((i + 1) * a.parts - 1) / m); /* the last j with r0(j) <= i */           \
      gs_part_range(m, a.parts, j, &r0, &r1);                                                      \
      const GsInt sv = (GsInt)j * a.batch + s, g = sv / ns, ii = i - r0;                           \
      const int sl = (int)(sv % ns), k = (int)(ii / L), jj = (int)(ii % L);                        \
      dst[(g * L + jj) * NT + k * ns + sl] = src[b + i * st];                                      \
    }                                                                                              \
  }
GS_CUDA_PART_RELAYOUT(double, d)
GS_CUDA_PART_RELAYOUT(float, f)

/* Spread the factor status over the systems (a shared matrix's status applies to all) and count
 * the bad ones (status was cleared before, unless earlier failures are kept). */
static __global__ void gs_banded_expand_k(const int *fstatus, int shared, GsInt batch, int *status,
                                          GsBandedDevSummary *sum) {
  const GsInt s = (GsInt)blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= batch) return;
  const int st = fstatus[shared ? 0 : s];
  if (st) gs_mark(status, s, st, sum);
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
  a.tile_l = bi->tile_l;
  a.tile_p = bi->tile_p;
  a.tile_split = bi->tile_split;
  a.scan_layout = bi->scan_layout;
  a.scan_threads = bi->scan_threads;
  return a;
}

static unsigned int blocks_for(GsInt threads) {
  return (unsigned int)((threads + GS_BANDED_THREADS - 1) / GS_BANDED_THREADS);
}
static unsigned int part_blocks(GsInt threads) {
  return (unsigned int)((threads + GS_PART_THREADS - 1) / GS_PART_THREADS);
}

/* Clear the summary (and status[0..batch) when status is not NULL) in one launch; flag: the
 * device address of the host's marked word (or NULL). */
static __global__ void gs_banded_clear_k(GsBandedDevSummary *sum, int *status, GsInt batch,
                                         unsigned int *flag) {
  const GsInt i = (GsInt)blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) {
    sum->nbad = 0;
    sum->first = ~0ull;
    sum->flag = flag;
  }
  if (status && i < batch) status[i] = 0;
}

/* The batch's own summary in device memory (it outlives the call in deferred mode); cleared with
 * status in one launch, unless the call accumulates onto earlier ones (deferred checks) or the
 * host knows both clean (GsBandedHostSummary): then the call queues nothing before its kernels. */
static int summary_reset(GsContext ctx, GsCudaContext *cc, const GsBandedInfo *bi,
                         GsBandedDevSummary **dsum, int *status) {
  *dsum = (GsBandedDevSummary *)bi->summary;
  if (bi->accumulate) return 0;
  GsBandedHostSummary *hs = host_summary(bi);
  if (hs && hs->clean) {
    hs->clean = 0; /* until a read after this call finds nothing marked */
    return 0;
  }
  unsigned int *flag = NULL;
  if (hs) {
    /* A mark of a kernel still in flight from a call that failed before its read may land
     * before or after this: the clear below (stream-ordered after it) drops the mark itself,
     * and a stray 1 here only sends the next read the long way. */
    hs->marked = 0;
    flag = hs->dev;
  }
  const GsInt n = status ? bi->batch : 1;
  gs_banded_clear_k<<<blocks_for(n), GS_BANDED_THREADS, 0, cc->stream>>>(*dsum, status, bi->batch,
                                                                         flag);
  GsCheckLaunchCuda(ctx, "gs_banded_clear_k");
  return 0;
}

/* Bring the summary to the host; with bad systems also the first one's code. In deferred mode
 * (unless forced) nothing is read and the call does not wait. Where the host's marked word says
 * that no system was marked since the summary was cleared, the call only waits for the device:
 * no copy back, and the next call need not clear. */
static int summary_read(GsContext ctx, GsCudaContext *cc, const GsBandedInfo *bi,
                        const GsBandedDevSummary *dsum, const int *status, GsBandedSummary *sum,
                        int force) {
  sum->nbad = 0;
  sum->first = -1;
  sum->code = 0;
  if (bi->deferred && !force) return 0;
  GsBandedHostSummary *hs = host_summary(bi);
  if (hs) {
    GsCallCuda(ctx, cudaStreamSynchronize(cc->stream));
    if (!hs->marked) {
      hs->clean = 1;
      return 0;
    }
  }
  GsBandedDevSummary *h = (GsBandedDevSummary *)cc->results_host;
  GsCallCuda(ctx, cudaMemcpyAsync(h, dsum, sizeof *h, cudaMemcpyDeviceToHost, cc->stream));
  GsCallCuda(ctx, cudaStreamSynchronize(cc->stream));
  sum->nbad = (GsInt)h->nbad;
  sum->first = h->nbad ? (GsInt)h->first : -1;
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

/* Whether a batch's one-pass periodic TILE solve can leave its tail to a kernel of its own
 * (GS_TILE_TAIL: interleaved 32-row chunks, 32 chunks at most, not in two passes). */
static int tile_tail_shape(const GsBandedInfo *bi) {
  return bi->algo == GS_BANDED_ALGORITHM_TILE && bi->periodic && !bi->tile_split &&
         bi->tile_p <= 32 && bi->tile_l == 32 && bi->interleaved;
}
/* -banded_tile_tail auto: whether the rows W reaches, from Factor's extents (phi, plo as stored,
 * gs_banded_w_rows; a negative or non-finite phi: not recorded), are few enough. */
static int tile_tail_few(const GsBandedInfo *bi, double phi, double plo) {
  if (!(phi >= 0 && phi <= (double)bi->m && plo >= phi && plo <= (double)bi->m)) return 0;
  return (phi + ((double)bi->m - plo)) * GS_TILE_TAIL_AUTO_FRAC <= (double)bi->m;
}
/* Whether -banded_tile_tail auto may take GS_TILE_TAIL for this batch: where the wide blocks run
 * (GS_TILE_WIDE_MIN_BATCH), if Factor finds W's rows few. */
static int tile_tail_auto(const GsBandedInfo *bi) {
  return bi->tile_tail == GS_BANDED_STAGED_AUTO && tile_tail_shape(bi) &&
         bi->batch >= GS_TILE_WIDE_MIN_BATCH;
}
/* Whether this solve takes GS_TILE_TAIL: on wherever the shape allows; auto as above. */
static int tile_tail_use(const GsBandedInfo *bi) {
  if (bi->tile_tail == GS_BANDED_STAGED_ON) return tile_tail_shape(bi);
  const GsBandedHostSummary *hs = (const GsBandedHostSummary *)bi->summary_host;
  return tile_tail_auto(bi) && hs && hs->tail_few;
}

static int k_factor(GsContext ctx, const GsBandedInfo *bi, const void *const *D, void *const *F,
                    void *C, int *fstatus, int *status, void *work, GsBandedSummary *sum) {
  GsCudaContext *cc = NULL;
  GsCall(GsCudaBegin(ctx, &cc));
  GsBandedKArgs a = kargs(bi, 1);
  GsPtrs Dp = ptrs(D, bi->bands), Fp = ptrs((const void *const *)F, bi->nfac);
  const int b5 = bi->bands == 5, per = bi->periodic;
  if (bi->parts > 1) {
    const unsigned int nb1 = part_blocks(bi->nmat * bi->parts), nb2 = part_blocks(bi->nmat);
    if (bi->dt == GS_DOUBLE) {
      gs_pf1_dw[b5]<<<nb1, GS_PART_THREADS, 0, cc->stream>>>(a, Dp, Fp, (double *)C, (int *)work);
      gs_pf2_dw[b5]<<<nb2, GS_PART_THREADS, 0, cc->stream>>>(a, Fp, (double *)C, (const int *)work,
                                                             fstatus);
      if (per)
        gs_pf3_dw[b5]<<<nb2, GS_PART_THREADS, 0, cc->stream>>>(a, Dp, Fp, (double *)C,
                                                               (double *)work, fstatus);
    } else {
      gs_pf1_fw[b5]<<<nb1, GS_PART_THREADS, 0, cc->stream>>>(a, Dp, Fp, (float *)C, (int *)work);
      gs_pf2_fw[b5]<<<nb2, GS_PART_THREADS, 0, cc->stream>>>(a, Fp, (float *)C, (const int *)work,
                                                             fstatus);
      if (per)
        gs_pf3_fw[b5]<<<nb2, GS_PART_THREADS, 0, cc->stream>>>(a, Dp, Fp, (float *)C, (float *)work,
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
  if (bi->scan_layout) { /* each factor array into the scan's own layout, through work */
    const GsInt total = bi->m * bi->batch;
    const unsigned int nb = blocks_for(total < ((GsInt)1 << 22) ? total : ((GsInt)1 << 22));
    /* partitioned: the LU arrays only (the spikes and E^-1 F stay where the corrections read
     * them), after every kernel above that solves with them */
    const int part = bi->parts > 1;
    GsBandedKArgs ap = a;
    ap.tile_p = gs_banded_part_scan_p(bi);
    for (int q = 0; q < (part ? GS_BANDED_NLU(bi->bands, bi->spd) : bi->nfac); q++) {
      GsCallCuda(ctx, cudaMemcpyAsync(work, F[q], (size_t)bi->rhs_len * GsDataTypeSize(bi->dt),
                                      cudaMemcpyDeviceToDevice, cc->stream));
      if (part && bi->dt == GS_DOUBLE)
        gs_banded_part_relayout_k_d<<<nb, GS_BANDED_THREADS, 0, cc->stream>>>(
            ap, (const double *)work, (double *)F[q]);
      else if (part)
        gs_banded_part_relayout_k_f<<<nb, GS_BANDED_THREADS, 0, cc->stream>>>(
            ap, (const float *)work, (float *)F[q]);
      else if (bi->dt == GS_DOUBLE)
        gs_banded_scan_relayout_k_d<<<nb, GS_BANDED_THREADS, 0, cc->stream>>>(
            a, (const double *)work, (double *)F[q]);
      else
        gs_banded_scan_relayout_k_f<<<nb, GS_BANDED_THREADS, 0, cc->stream>>>(
            a, (const float *)work, (float *)F[q]);
      GsCheckLaunchCuda(ctx, "gs_banded_scan_relayout_k");
    }
  }
  if (bi->algo == GS_BANDED_ALGORITHM_TILE) {
    if (bi->dt == GS_DOUBLE)
      gs_banded_tile_build_k_d<<<1, 256, 0, cc->stream>>>(a, Fp, (double *)work);
    else
      gs_banded_tile_build_k_f<<<1, 256, 0, cc->stream>>>(a, Fp, (float *)work);
    GsCheckLaunchCuda(ctx, "gs_banded_tile_build_k");
    if (GS_BANDED_TILE_HAS_IMAGE(bi) && bi->dt == GS_DOUBLE) { /* GS_TILE_IMAGE_COPY's image */
      const int L = bi->tile_l;
      const void *kern = L == 8    ? (const void *)gs_banded_tile_image_k_8
                         : L == 16 ? (const void *)gs_banded_tile_image_k_16
                                   : (const void *)gs_banded_tile_image_k_32;
      const size_t bytes =
          (size_t)gs_tile_image_len(bi->periodic, bi->tile_p, L) * sizeof(double);
      GsCallCuda(ctx,
                 cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
      double *img = (double *)work + (size_t)GS_BANDED_TILE_NTAB(bi->periodic) * (size_t)bi->tile_p *
                                         (size_t)bi->tile_l;
      if (L == 8)
        gs_banded_tile_image_k_8<<<1, GS_TILE_THREADS, bytes, cc->stream>>>(a, (double *)work, img);
      else if (L == 16)
        gs_banded_tile_image_k_16<<<1, GS_TILE_THREADS, bytes, cc->stream>>>(a, (double *)work,
                                                                              img);
      else
        gs_banded_tile_image_k_32<<<1, GS_TILE_THREADS, bytes, cc->stream>>>(a, (double *)work,
                                                                              img);
      GsCheckLaunchCuda(ctx, "gs_banded_tile_image_k");
    }
  }
  GsBandedHostSummary *hs = (GsBandedHostSummary *)bi->summary_host;
  if (hs) hs->tail_few = 0;
  if (hs && tile_tail_auto(bi)) { /* W's extents (gs_banded_w_rows), as the host sees them */
    const size_t es = GsDataTypeSize(bi->dt);
    const char *ext = (const char *)C + (size_t)GS_BANDED_CORNER_EXT(bi->bands) * es;
    double e2[2] = {-1, 0};
    float f2[2] = {-1, 0};
    GsCallCuda(ctx, cudaMemcpyAsync(es == 8 ? (void *)e2 : (void *)f2, ext, 2 * es,
                                    cudaMemcpyDeviceToHost, cc->stream));
    GsCallCuda(ctx, cudaStreamSynchronize(cc->stream));
    if (es != 8) e2[0] = f2[0], e2[1] = f2[1];
    hs->tail_few = tile_tail_few(bi, e2[0], e2[1]);
  }
  GsBandedDevSummary *dsum = NULL;
  GsCall(summary_reset(ctx, cc, bi, &dsum, status));
  gs_banded_expand_k<<<blocks_for(bi->batch), GS_BANDED_THREADS, 0, cc->stream>>>(
      fstatus, bi->shared, bi->batch, status, dsum);
  GsCheckLaunchCuda(ctx, "gs_banded_expand_k");
  GsCall(summary_read(ctx, cc, bi, dsum, status, sum, 0));
  return 0;
}

/* Staged solves (GS_CUDA_BANDED_STAGED): the driver's tensor map encoder, looked up at init. */
typedef CUresult (*GsTmaEncode)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *,
                                const cuuint64_t *, const cuuint64_t *, const cuuint32_t *,
                                const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,
                                CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

/* Warps per SM of a staged solve: as many (at most 2, for shared memory) as keep the forward
 * results of the systems in flight (32 x n values a warp) within 60 % of L2. 0: not even one. */
static int staged_warps(const GsCudaContext *cc, const GsBandedInfo *bi) {
  const double wave = 32.0 * (double)bi->n * (double)GsDataTypeSize(bi->dt) * (double)cc->sm_count;
  const int w = (int)(0.6 * (double)cc->l2_bytes / wave);
  return w > 2 ? 2 : w;
}

/* Rows a system needs for -banded_staged auto (staged_shape). */
#define GS_STG_AUTO_ROWS 64
/* Whether a THREAD solve of this batch runs staged, its arrays aligned: -banded_staged auto (the
 * default) where the g of one warp per SM fits in L2 and the systems have GS_STG_AUTO_ROWS rows
 * or more, on where it applies at all; the layout, matrices and row alignment the TMA needs.
 * Short systems run plain: a staged block's two warps a SM leave the GPU nearly idle where each
 * thread has a few rows. H200, each call checked (the banded sweep, 9c7d456 staged against 6f7c55c
 * plain, us): penta n = 8, 65536 systems 48.8 against 24.9, 262144: 129.8 against 54.6; tri 40.8
 * against 29.5, 118.8 against 46.0; but n = 64 staged is faster: penta 262144 292.4 against 313.1,
 * tri 222.8 against 243.7. */
static int staged_shape(const GsCudaContext *cc, const GsBandedInfo *bi, GsInt nrhs) {
  const size_t es = GsDataTypeSize(bi->dt);
  if (bi->staged == GS_BANDED_STAGED_OFF || !bi->interleaved || bi->shared || bi->periodic ||
      cc->cc_major < 9)
    return 0;
  if (((size_t)bi->batch * es) % 16 || bi->batch > INT32_MAX - 32 ||
      bi->n * nrhs > INT32_MAX - 2 * GS_STG_ROWS)
    return 0;
  if (bi->staged == GS_BANDED_STAGED_AUTO && (bi->n < GS_STG_AUTO_ROWS || staged_warps(cc, bi) < 1))
    return 0;
  return cc->tma_encode != NULL;
}
/* Whether this solve runs staged: a THREAD batch of staged_shape whose arrays are 16-byte
 * aligned. */
static int staged_fits(const GsCudaContext *cc, const GsBandedInfo *bi, GsInt nrhs,
                       const void *const *F, const void *f, const void *x) {
  if (bi->algo != GS_BANDED_ALGORITHM_THREAD || !staged_shape(cc, bi, nrhs)) return 0;
  if ((uintptr_t)f % 16 || (uintptr_t)x % 16) return 0;
  for (int k = 0; k < bi->nfac; k++)
    if ((uintptr_t)F[k] % 16) return 0;
  return 1;
}
static int k_staged_auto(GsContext ctx, const GsBandedInfo *bi, int *staged) {
  GsCudaContext *cc = NULL;
  GsCall(GsCudaBegin(ctx, &cc));
  *staged = staged_shape(cc, bi, 1);
  return 0;
}

/* Map of a cols x rows row-major array of 4- or 8-byte values at p, boxes of bc x br, from the
 * context's cache or encoded into it; 0 where the driver refuses it. */
static int tma_map(GsCudaContext *cc, CUtensorMap *m, const void *p, GsInt cols, GsInt rows,
                   int dbl, int bc, int br) {
  const int es = dbl ? 8 : 4;
  for (int i = 0; i < cc->tma_used; i++)
    if (cc->tma[i].ptr == p && cc->tma[i].cols == cols && cc->tma[i].rows == rows &&
        cc->tma[i].es == es && cc->tma[i].bc == bc && cc->tma[i].br == br) {
      *m = cc->tma[i].map;
      return 1;
    }
  const cuuint64_t dim[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
  const cuuint64_t stride[1] = {(cuuint64_t)cols * (cuuint64_t)es};
  const cuuint32_t box[2] = {(cuuint32_t)bc, (cuuint32_t)br}, estr[2] = {1, 1};
  if (((GsTmaEncode)cc->tma_encode)(
          m, dbl ? CU_TENSOR_MAP_DATA_TYPE_FLOAT64 : CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void *)p,
          dim, stride, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
          bc * es >= 256 ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B : CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
          CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS)
    return 0;
  const int i = cc->tma_next;
  cc->tma[i].ptr = p;
  cc->tma[i].cols = cols;
  cc->tma[i].rows = rows;
  cc->tma[i].es = es;
  cc->tma[i].bc = bc;
  cc->tma[i].br = br;
  cc->tma[i].map = *m;
  cc->tma_next = (i + 1) % GS_CUDA_TMA_CACHE;
  if (cc->tma_used < GS_CUDA_TMA_CACHE) cc->tma_used++;
  return 1;
}
/* The staged solves' maps: tiles of 32 systems x GS_STG_ROWS rows. */
static int staged_map(GsCudaContext *cc, CUtensorMap *m, const void *p, GsInt cols, GsInt rows,
                      int dbl) {
  return tma_map(cc, m, p, cols, rows, dbl, 32, GS_STG_ROWS);
}

/* Launch a staged solve; 0 (nothing launched) where a map cannot be made. */
static int staged_launch(GsContext ctx, GsCudaContext *cc, const GsBandedInfo *bi, GsInt nrhs,
                         const void *const *F, const int *fstatus, const void *f, void *x,
                         int *status, GsBandedDevSummary *dsum, int *launched) {
  const int dbl = bi->dt == GS_DOUBLE, b5 = bi->bands == 5;
  GsStgMaps M;
  memset(&M, 0, sizeof M);
  int ok = staged_map(cc, &M.m[0], f, bi->batch, bi->n * nrhs, dbl) &&
           staged_map(cc, &M.m[1], x, bi->batch, bi->n * nrhs, dbl);
  for (int k = 0; ok && k < bi->nfac; k++)
    ok = staged_map(cc, &M.m[2 + k], F[k], bi->batch, bi->n, dbl);
  *launched = 0;
  if (!ok) return 0;
  int w = staged_warps(cc, bi);
  if (w < 1) w = 1;
  const GsInt groups = (bi->batch + 31) / 32 * nrhs;
  const GsInt most = (GsInt)cc->sm_count * w;
  const unsigned int nb = (unsigned int)(groups < most ? groups : most);
  const size_t smem =
      (size_t)GS_STG_STAGES * (b5 ? 4 : 3) * GS_STG_ROWS * 32 * GsDataTypeSize(bi->dt);
  const int spd = bi->spd != 0;
  const GsStgK_d kd = gs_stg_k_d[b5][spd];
  const GsStgK_f kf = gs_stg_k_f[b5][spd];
  const void *kern = dbl ? (const void *)kd : (const void *)kf;
  if (!cc->staged_attr[!dbl][b5][spd]) {
    GsCallCuda(ctx,
               cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    cc->staged_attr[!dbl][b5][spd] = 1;
  }
  if (dbl)
    kd<<<nb, 32, smem, cc->stream>>>(M, bi->batch, bi->n, nrhs, fstatus, (double *)x, status, dsum);
  else
    kf<<<nb, 32, smem, cc->stream>>>(M, bi->batch, bi->n, nrhs, fstatus, (float *)x, status, dsum);
  GsCheckLaunchCuda(ctx, "gs_banded_staged_k");
  *launched = 1;
  return 0;
}

/* A two-pass tiled solve of one block of right-hand sides: pass 1, the carries, pass 2. */
#define GS_TILE2_LAUNCH(T, S)                                                                      \
  {                                                                                                \
    const T *tab = (const T *)work;                                                                \
    T *sm = (T *)work + off;                                                                       \
    GS_LAUNCH(cc, GS_PDL_TILE2A, gs_tile2a_##S[per][ct], dim3((unsigned int)nb),                   \
              dim3(GS_TILE2_THREADS), 0, a, tab, fstatus, (const T *)f, sm);                       \
    if (bi->batch < GS_TILE2_LANES_MIN_BATCH) { /* a warp per system */                            \
      GS_LAUNCH(cc, GS_PDL_TILE2S, gs_tile2w_##S[per],                                             \
                dim3((unsigned int)((bi->batch * 32 + GS_TILE2_SCANW_THREADS - 1) /                \
                                    GS_TILE2_SCANW_THREADS)),                                      \
                dim3(GS_TILE2_SCANW_THREADS), 0, a, tab, (const T *)C, fstatus, (const T *)f,      \
                (T *)x, sm, status, dsum);                                                         \
    } else {                          /* a block per 32 systems, serial walks */                   \
      if (!cc->tile2s_attr[d][per]) { /* the largest table: P = 32 GS_TILE2_Q */                   \
        GsCallCuda(ctx, cudaFuncSetAttribute(                                                      \
                            gs_tile2s_##S[per], cudaFuncAttributeMaxDynamicSharedMemorySize,       \
                            (int)GS_TILE2_SCAN_SMEM(32 * GS_TILE2_Q, sizeof(T))));                 \
        cc->tile2s_attr[d][per] = 1;                                                               \
      }                                                                                            \
      GS_LAUNCH(cc, GS_PDL_TILE2S, gs_tile2s_##S[per], dim3(nbs),                                  \
                dim3(32 * ((bi->tile_p + GS_TILE2_SEG - 1) / GS_TILE2_SEG)),                       \
                GS_TILE2_SCAN_SMEM(bi->tile_p, sizeof(T)), a, tab, (const T *)C, fstatus,          \
                (const T *)f, (T *)x, sm, status, dsum);                                           \
    }                                                                                              \
    GS_LAUNCH(cc, GS_PDL_TILE2B, gs_tile2b_##S[per][ct][upd], dim3((unsigned int)nb),              \
              dim3(GS_TILE2_THREADS), 0, a, tab, (const T *)C, fstatus, (const T *)f, (T *)x, sm,  \
              status, dsum);                                                                       \
  }
/* GS_TILE_NEXT: a wide one-pass tiled solve (non-periodic, or the block E with PER 3) by the NX
 * kernels (gs_banded_tile_k_*wx), the next group's f copied ahead by the TMA: -banded_tile_next on
 * or auto (measured level or faster in every case: GS_TILE_NEXT); *launched = 0 (nothing
 * launched) where the option leaves it to the wide kernel, where the TMA cannot view f (16-byte
 * rows and base, one right-hand-side block after another, rows within its 32-bit coordinates) or
 * the kernel lacks its shared memory.
 * work_items: the caller's groups of 16 systems times the right-hand-side blocks. */
static int tile_next_launch(GsContext ctx, GsCudaContext *cc, const GsBandedInfo *bi, GsInt nrhs,
                            GsInt work_items, int tail, const GsBandedKArgs *a, const void *work,
                            const void *C, const int *fstatus, const void *f, void *x, int *status,
                            GsBandedDevSummary *dsum, int *launched) {
  const size_t es = GsDataTypeSize(bi->dt);
  const int dbl = bi->dt == GS_DOUBLE, d = !dbl;
  *launched = 0;
  if (bi->tile_next == GS_BANDED_STAGED_OFF || cc->cc_major < 9 || !cc->tma_encode ||
      bi->tile_l != 32 || bi->tile_p <= 16 || ((size_t)bi->batch * es) % 16 || (uintptr_t)f % 16 ||
      bi->rhs_len != bi->n * bi->batch || bi->batch > INT32_MAX - 32 ||
      bi->n * nrhs > INT32_MAX - GS_TILEX_BOX)
    return 0;
  const size_t smem = gs_tile_smem(32, bi->tile_p, es, 1, 0, 0) + gs_tilex_smem(bi->tile_p, es);
  const void *kx = dbl ? (const void *)gs_tile_kx_d[tail] : (const void *)gs_tile_kx_f[tail];
  if (cc->tilex_smem[d][tail] != smem) { /* first solve of this kernel and size */
    int n = 0;
    if (cudaFuncSetAttribute(kx, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem) !=
            cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kx, GS_TILE_WIDE_THREADS, smem) !=
            cudaSuccess ||
        n < 1) {
      (void)cudaGetLastError(); /* the device lacks the room: the plain wide kernel */
      return 0;
    }
    cc->tilex_smem[d][tail] = smem;
  }
  CUtensorMap fm;
  if (!tma_map(cc, &fm, f, bi->batch, bi->n * nrhs, dbl, GS_TILE_WIDE_THREADS / 32, GS_TILEX_BOX))
    return 0;
  const GsInt most = cc->sm_count; /* one block a SM */
  const unsigned int nb = (unsigned int)(work_items < most ? work_items : most);
  if (dbl)
    GS_LAUNCH(cc, GS_PDL_TILE, gs_tile_kx_d[tail], dim3(nb), dim3(GS_TILE_WIDE_THREADS), smem, *a,
              fm, (const double *)work, (const double *)C, fstatus, (const double *)f, (double *)x,
              status, dsum);
  else
    GS_LAUNCH(cc, GS_PDL_TILE, gs_tile_kx_f[tail], dim3(nb), dim3(GS_TILE_WIDE_THREADS), smem, *a,
              fm, (const float *)work, (const float *)C, fstatus, (const float *)f, (float *)x,
              status, dsum);
  GsCheckLaunchCuda(ctx, "gs_banded_tile_k (next)");
  *launched = 1;
  return 0;
}

/* The solve; with u (not NULL) only where the two-pass tiled kernels run (*done = 1), which store
 * the update's combination instead of the solution. */
static int k_solve_any(GsContext ctx, const GsBandedInfo *bi, const void *const *F, const void *C,
                       const int *fstatus, GsInt nrhs, const void *f, void *x,
                       const GsBandedUpdate *u, int *status, void *work, GsBandedSummary *sum,
                       int *done) {
  if (done) *done = 0;
  if (u && !(bi->algo == GS_BANDED_ALGORITHM_TILE && bi->tile_split)) return 0;
  GsCudaContext *cc = NULL;
  GsCall(GsCudaBegin(ctx, &cc));
  GsBandedKArgs a = kargs(bi, nrhs);
  const int upd = u != NULL;
  if (u) {
    a.ux = u->x;
    a.uy = u->y;
    a.ua = u->alpha;
    a.ub = u->beta;
    a.uc = u->gamma;
    *done = 1;
  }
  GsPtrs Fp = ptrs(F, bi->nfac);
  GsBandedDevSummary *dsum = NULL;
  GsCall(summary_reset(ctx, cc, bi, &dsum, status));
  if (bi->algo == GS_BANDED_ALGORITHM_TILE && bi->tile_split) { /* in two passes */
    const int per = bi->periodic, d = bi->dt != GS_DOUBLE, ct = !bi->interleaved;
    const GsInt nt = (GsInt)bi->tile_p * bi->batch;
    const GsInt nb = (nt + GS_TILE2_THREADS - 1) / GS_TILE2_THREADS;
    GsCheck(nb <= 0x7fffffff, ctx, GS_ERR_UNSUPPORTED, "tiled solve: %lld blocks", (long long)nb);
    const unsigned int nbs = (unsigned int)((bi->batch + 31) / 32); /* a warp: 32 systems */
    const GsInt off =
        (GsInt)GS_BANDED_TILE_NTAB(per) * bi->tile_p * bi->tile_l + gs_tile2_maps_len(bi->tile_p);
    for (GsInt blk = 0; blk < nrhs; blk++) {
      a.blk = blk;
      if (!d)
        GS_TILE2_LAUNCH(double, d)
      else
        GS_TILE2_LAUNCH(float, f)
      GsCheckLaunchCuda(ctx, "gs_banded_tile2_k");
    }
    GsCall(summary_read(ctx, cc, bi, dsum, status, sum, 0));
    return 0;
  }
  if (bi->algo == GS_BANDED_ALGORITHM_TILE) {
    /* Up to 32 chunks: the short kernels (one warp's lanes per system); more: the long one. */
    const int lng = bi->tile_p > 32, per = bi->periodic;
    const int wide = !lng && bi->tile_l == 32 && bi->interleaved &&
                     bi->batch >= GS_TILE_WIDE_MIN_BATCH; /* see GS_TILE_WIDE_THREADS */
    /* The scans' matrices go into shared memory (GS_TILE_SCAN_MATS) except for contiguous
     * 32-row chunks, whose blocks hold the staging buffer (GS_TILE_STAGED) instead. */
    const int noscanw = !lng && !wide && bi->tile_l == 32 && !bi->interleaved;
    /* Contiguous batches stage their chunks' rows (GS_TILE_STAGED) in the short kernels. */
    const int stage = !lng && !bi->interleaved, l816 = bi->tile_l == 8 ? 0 : 1;
    const int li = noscanw            ? 5
                   : wide             ? 4
                   : lng              ? 3
                   : stage            ? 6 + l816
                   : bi->tile_l == 8  ? 0
                   : bi->tile_l == 16 ? 1
                                      : 2;
    const int threads = lng ? GS_TILEL_THREADS : wide ? GS_TILE_WIDE_THREADS : GS_TILE_THREADS;
    const GsInt ns = threads / gs_tile_pow2(bi->tile_p);
    const GsInt work_items = (bi->batch + ns - 1) / ns * nrhs;
    const size_t es = GsDataTypeSize(bi->dt);
    const int d = bi->dt != GS_DOUBLE;
    /* The kernel for each periodic index q (0 not periodic, 1 W from global memory, 2 W in
     * shared memory: GS_TILE_WSM), its dynamic shared memory, and the blocks a SM that fit with
     * it (the attribute set and the occupancy asked on the first solve of that kernel and size). */
    GsTileK_d kd[4] = {NULL, NULL, NULL, NULL};
    GsTileK_f kf[4] = {NULL, NULL, NULL, NULL};
    size_t sz[4] = {0, 0, 0, 0};
    int fit[4] = {0, 0, 0, 0};
    /* 3: the block E only, the tail in a kernel of its own (GS_TILE_TAIL) */
    const int tail = tile_tail_use(bi);
    const int wsm_ok = per && !lng && !(wide && !d) && !tail; /* GS_TILE_WSM */
    /* The set-up copied from Factor's image (GS_TILE_IMAGE_COPY) unless -banded_tile_image off. */
    if (!lng && GS_BANDED_TILE_HAS_IMAGE(bi) && bi->dt == GS_DOUBLE &&
        bi->tile_image != GS_BANDED_STAGED_OFF)
      a.tile_img = (const double *)work +
                   (size_t)GS_BANDED_TILE_NTAB(per) * (size_t)bi->tile_p * (size_t)bi->tile_l;
    /* The wide kernel with the next group's f copied ahead (GS_TILE_NEXT) where it applies. */
    int next = 0;
    if (wide && (!per || tail))
      GsCall(tile_next_launch(ctx, cc, bi, nrhs, work_items, tail, &a, work, C, fstatus, f, x,
                              status, dsum, &next));
    for (int q = tail ? 3 : per; !next && q <= (tail ? 3 : wsm_ok ? 2 : per); q++) {
      sz[q] = lng ? gs_tilel_smem(bi->tile_p, es)
                  : gs_tile_smem(bi->tile_l, bi->tile_p, es, !noscanw, q == 2, stage);
      kd[q] = lng       ? gs_tilel_k_d[per]
              : q == 3  ? gs_tile_kt_d[wide]
              : wide    ? gs_tile_kw_d[q]
              : noscanw ? gs_tile_kc_d[q]
              : stage   ? gs_tile_ks_d[l816][q]
                        : gs_tile_k_d[li][q];
      kf[q] = lng       ? gs_tilel_k_f[per]
              : q == 3  ? gs_tile_kt_f[wide]
              : wide    ? gs_tile_kw_f[q]
              : noscanw ? gs_tile_kc_f[q]
              : stage   ? gs_tile_ks_f[l816][q]
                        : gs_tile_k_f[li][q];
      const void *kq = d ? (const void *)kf[q] : (const void *)kd[q];
      if (cc->tile_smem[d][li][q] != sz[q]) { /* first solve of this kernel and size */
        int n = 1;
        GsCallCuda(
            ctx, cudaFuncSetAttribute(kq, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sz[q]));
        GsCallCuda(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kq, threads, sz[q]));
        cc->tile_smem[d][li][q] = sz[q];
        cc->tile_per_sm[d][li][q] = n;
      }
      fit[q] = cc->tile_per_sm[d][li][q];
    }
    if (!next) {
      /* W in shared memory where that leaves as many blocks a SM as the batch fills, but for the
       * double wide kernels (GS_TILE_WSM). */
      const GsInt want = (work_items + cc->sm_count - 1) / cc->sm_count;
      const int q = tail                                                                   ? 3
                    : wsm_ok && fit[2] >= 1 && ((GsInt)fit[2] >= want || fit[2] >= fit[1]) ? 2
                                                                                           : per;
      const int per_sm = fit[q];
      const size_t smem = sz[q];
      /* Persistent blocks: as many as fit at once, each looping over groups of systems. */
      const GsInt most = (GsInt)(per_sm > 0 ? per_sm : 1) * cc->sm_count;
      const unsigned int nb = (unsigned int)(work_items < most ? work_items : most);
      if (bi->dt == GS_DOUBLE)
        GS_LAUNCH(cc, GS_PDL_TILE, kd[q], dim3(nb), dim3((unsigned int)threads), smem, a,
                  (const double *)work, (const double *)C, fstatus, (const double *)f, (double *)x,
                  status, dsum);
      else
        GS_LAUNCH(cc, GS_PDL_TILE, kf[q], dim3(nb), dim3((unsigned int)threads), smem, a,
                  (const float *)work, (const float *)C, fstatus, (const float *)f, (float *)x,
                  status, dsum);
      GsCheckLaunchCuda(ctx, "gs_banded_tile_k");
    }
    if (tail) {
      const GsInt tb = (bi->batch + 31) / 32 * nrhs;
      GsCheck(tb <= 0x7fffffff, ctx, GS_ERR_UNSUPPORTED, "tiled solve's tail: %lld blocks",
              (long long)tb);
      if (bi->dt == GS_DOUBLE)
        GS_LAUNCH(cc, GS_PDL_TILE, gs_banded_tile_tail_k_d, dim3((unsigned int)tb),
                  dim3(GS_TILE_TAIL_THREADS), 0, a, (const double *)work, (const double *)C,
                  fstatus, (const double *)f, (double *)x, status, dsum);
      else
        GS_LAUNCH(cc, GS_PDL_TILE, gs_banded_tile_tail_k_f, dim3((unsigned int)tb),
                  dim3(GS_TILE_TAIL_THREADS), 0, a, (const float *)work, (const float *)C, fstatus,
                  (const float *)f, (float *)x, status, dsum);
      GsCheckLaunchCuda(ctx, "gs_banded_tile_tail_k");
    }
    GsCall(summary_read(ctx, cc, bi, dsum, status, sum, 0));
    if (next) sum->staged = 1;
    return 0;
  }
  if (bi->algo == GS_BANDED_ALGORITHM_SCAN) {
    const int nt = bi->scan_threads, ns = nt / bi->tile_p, l16 = bi->tile_l == 16;
    const int b5 = bi->bands == 5, per = bi->periodic;
    const GsInt nb = (bi->batch + ns - 1) / ns * nrhs;
    GsCheck(nb <= 0x7fffffff, ctx, GS_ERR_UNSUPPORTED, "scan solve: %lld blocks", (long long)nb);
    const int d = bi->dt != GS_DOUBLE, sp = l16 && b5 && bi->spd; /* LDL^T-only kernels */
    /* 16-row chunks: tri, or float penta LU (GsBandedInfo.scan_threads) */
    const int wide = nt > GS_SCAN_THREADS;
    /* double penta LU: a 512-thread block's systems in two halves (gs_banded_scan_h_k_d); tri: a
     * 1024-thread block's in a block of 512 (gs_banded_scan_h3_k) */
    const int halves3 = !b5 && nt == GS_SCAN_H3_NTV;
    const int halves = (wide && b5 && bi->dt == GS_DOUBLE) || halves3;
    GsCheck(!wide || !b5 || (!bi->spd && (bi->dt == GS_FLOAT || l16)), ctx, GS_ERR_UNSUPPORTED,
            "scan solve: no pentadiagonal %s%s kernel of %d threads", per ? "periodic " : "",
            bi->spd ? "LDL^T" : "double", nt);
    GsCheck(!halves || ((halves3 || nt == GS_SCAN_H_NTV) && ns * bi->tile_p == nt &&
                        bi->tile_p >= 64 && l16 && !bi->spd && bi->scan_layout),
            ctx, GS_ERR_UNSUPPORTED,
            "scan solve: %s scans in halves need %d threads of whole 16-row chunks, 64 or more a "
            "system, LU, in the scan's layout (%d threads, %d chunks)",
            b5 ? "double pentadiagonal" : "tridiagonal", b5 ? GS_SCAN_H_NTV : GS_SCAN_H3_NTV, nt,
            bi->tile_p);
    GsScanK_d kd = sp     ? gs_scan_spd_k_d[per]
                   : wide ? gs_scan_w_k_d[per]
                          : gs_scan_k_d[l16][b5][per];
    GsScanK_f kf = sp     ? gs_scan_spd_k_f[per]
                   : wide ? (b5 ? gs_scan_wp_k_f[per] : gs_scan_w_k_f[per])
                          : gs_scan_k_f[l16][b5][per];
    /* Paired groups (GS_SCAN_PAIR_SMEM's comment): where the batch's whole pairs of groups fill
     * every thread of the blocks, a group's systems are even (a 16-byte pair of values never
     * straddles the two groups) and the rows' pairs of values are 16-byte aligned; auto: groups
     * of at most GS_SCAN_PAIR_AUTO_NS systems. */
    const int pair_ok = !d && !per && !sp && !wide && l16 && bi->interleaved && ns % 2 == 0 &&
                        ns * bi->tile_p == nt && bi->batch % (2 * ns) == 0 &&
                        (uintptr_t)f % 16 == 0 && (uintptr_t)x % 16 == 0;
    const int pair =
        pair_ok && (bi->scan_pair == GS_BANDED_STAGED_ON ||
                    (bi->scan_pair == GS_BANDED_STAGED_AUTO && ns <= GS_SCAN_PAIR_AUTO_NS));
    if (pair) {
      const size_t smem = GS_SCAN_PAIR_SMEM(bi->tile_p, ns, 16, sizeof(double));
      if ((size_t)cc->scan_pair_attr[b5] != smem) { /* first solve of this kernel and size */
        const void *kern = (const void *)gs_scan_pair_k_d[b5];
        cudaFuncAttributes fa;
        GsCallCuda(ctx, cudaFuncGetAttributes(&fa, kern));
        GsCallCuda(ctx, cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             (int)smem));
        /* Shared memory for the blocks the registers allow (GS_SCAN_MIN_BLOCKS), no more: the
         * rest stays L1, where the loads in flight land. */
        const int per_sm = GS_SCAN_MIN_BLOCKS(double, b5 ? 5 : 3, 16, -1);
        const size_t need = (size_t)per_sm * (smem + fa.sharedSizeBytes + 1024);
        int most = 0;
        GsCallCuda(ctx, cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerMultiprocessor,
                                               cc->device));
        const int pct = most > 0 ? (int)((100 * need + (size_t)most - 1) / (size_t)most) : 100;
        GsCallCuda(ctx, cudaFuncSetAttribute(kern, cudaFuncAttributePreferredSharedMemoryCarveout,
                                             pct < 100 ? pct : 100));
        cc->scan_pair_attr[b5] = (int)smem;
      }
      gs_scan_pair_k_d[b5]<<<(unsigned int)(nb / 2), (unsigned int)nt, smem, cc->stream>>>(
          a, Fp, (const double *)C, fstatus, (const double *)f, (double *)x, status, dsum);
    } else if (halves) {
      const int hnt = halves3 ? GS_SCAN_H3_NT : GS_SCAN_H_NT;
      const size_t smem = GS_SCAN_H_SMEM(hnt, GsDataTypeSize(bi->dt));
      /* [kind: penta double, tri double, tri float][periodic] */
      static const void *const hk[3][2] = {
          {(const void *)gs_banded_scan_h_k_d, (const void *)gs_banded_scan_hp_k_d},
          {(const void *)gs_banded_scan_h3_k_d, (const void *)gs_banded_scan_hp3_k_d},
          {(const void *)gs_banded_scan_h3_k_f, (const void *)gs_banded_scan_hp3_k_f}};
      const int hkind = halves3 ? (d ? 2 : 1) : 0;
      const void *kern = hk[hkind][per];
      if (!cc->scan_halves_attr[hkind][per]) { /* first solve: room for g and the maps, no more */
        cudaFuncAttributes fa;
        GsCallCuda(ctx, cudaFuncGetAttributes(&fa, kern));
        GsCallCuda(ctx, cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             (int)smem));
        int most = 0;
        GsCallCuda(ctx, cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerMultiprocessor,
                                               cc->device));
        const size_t need = smem + fa.sharedSizeBytes + 1024;
        const int pct = most > 0 ? (int)((100 * need + (size_t)most - 1) / (size_t)most) : 100;
        GsCallCuda(ctx, cudaFuncSetAttribute(kern, cudaFuncAttributePreferredSharedMemoryCarveout,
                                             pct < 100 ? pct : 100));
        cc->scan_halves_attr[hkind][per] = 1;
      }
      const unsigned int ub = (unsigned int)nb, ut = (unsigned int)hnt;
      if (hkind == 0 && per)
        gs_banded_scan_hp_k_d<<<ub, ut, smem, cc->stream>>>(
            a, Fp, (const double *)C, fstatus, (const double *)f, (double *)x, status, dsum);
      else if (hkind == 0)
        gs_banded_scan_h_k_d<<<ub, ut, smem, cc->stream>>>(a, Fp, fstatus, (const double *)f,
                                                           (double *)x, status, dsum);
      else if (hkind == 1 && per)
        gs_banded_scan_hp3_k_d<<<ub, ut, smem, cc->stream>>>(
            a, Fp, (const double *)C, fstatus, (const double *)f, (double *)x, status, dsum);
      else if (hkind == 1)
        gs_banded_scan_h3_k_d<<<ub, ut, smem, cc->stream>>>(a, Fp, fstatus, (const double *)f,
                                                            (double *)x, status, dsum);
      else if (per)
        gs_banded_scan_hp3_k_f<<<ub, ut, smem, cc->stream>>>(
            a, Fp, (const float *)C, fstatus, (const float *)f, (float *)x, status, dsum);
      else
        gs_banded_scan_h3_k_f<<<ub, ut, smem, cc->stream>>>(a, Fp, fstatus, (const float *)f,
                                                            (float *)x, status, dsum);
    } else {
      if (!cc->scan_carveout[d][l16][b5][per][sp ? 1 : wide ? 2 : 0]) {
        const void *kern = d ? (const void *)kf : (const void *)kd;
        GsCallCuda(ctx, cudaFuncSetAttribute(kern, cudaFuncAttributePreferredSharedMemoryCarveout,
                                             GS_SCAN_CARVEOUT));
        cc->scan_carveout[d][l16][b5][per][sp ? 1 : wide ? 2 : 0] = 1;
      }
      if (bi->dt == GS_DOUBLE)
        kd<<<(unsigned int)nb, (unsigned int)nt, 0, cc->stream>>>(
            a, Fp, (const double *)C, fstatus, (const double *)f, (double *)x, status, dsum);
      else
        kf<<<(unsigned int)nb, (unsigned int)nt, 0, cc->stream>>>(
            a, Fp, (const float *)C, fstatus, (const float *)f, (float *)x, status, dsum);
    }
    GsCheckLaunchCuda(ctx, "gs_banded_scan_k");
    GsCall(summary_read(ctx, cc, bi, dsum, status, sum, 0));
    sum->staged = pair; /* f and x through shared memory */
    return 0;
  }
  /* Contiguous right-hand sides of a shared matrix: the kernels that stage them. */
  const int st = !bi->interleaved && bi->shared;
  const size_t es = GsDataTypeSize(bi->dt);
  const size_t sm_part = st ? GS_BANDED_STAGE_BYTES(GS_PART_CHUNK, es) : 0,
               sm_thread = st ? GS_BANDED_STAGE_BYTES(GS_BANDED_CHUNK, es) : 0;
  if (bi->parts > 1) { /* partial solves, reduced systems, corrections; block by block */
    const unsigned int nbt = part_blocks(bi->batch * bi->parts);
    const int b5 = bi->bands == 5;
    const int d = bi->dt != GS_DOUBLE, pscan = gs_banded_part_scan(bi);
    GsBandedKArgs ap = a; /* the scan's view: each partition a system of up to 32 chunks */
    ap.tile_l = GS_BANDED_PART_SCAN_L;
    ap.tile_p = gs_banded_part_scan_p(bi);
    ap.scan_layout = bi->scan_layout; /* the partitions' LU in the scan's layout (Factor) */
    const GsInt pns = pscan ? GS_SCAN_THREADS / ap.tile_p : 1; /* (tile_p <= 32 when pscan) */
    const GsInt pnbl = (bi->batch * bi->parts + pns - 1) / pns;
    GsCheck(!pscan || pnbl <= 0x7fffffff, ctx, GS_ERR_UNSUPPORTED,
            "partitioned solve: %lld blocks of partial solves", (long long)pnbl);
    const unsigned int pnb = (unsigned int)pnbl;
    if (pscan && !cc->part_scan_carveout[d][b5]) { /* as the scan's (GS_SCAN_CARVEOUT) */
      const void *kern = d ? (const void *)gs_scan_p_k_f[b5] : (const void *)gs_scan_p_k_d[b5];
      GsCallCuda(ctx, cudaFuncSetAttribute(kern, cudaFuncAttributePreferredSharedMemoryCarveout,
                                           GS_SCAN_CARVEOUT));
      cc->part_scan_carveout[d][b5] = 1;
    }
    const int rw = (int)((bi->parts + 31) / 32);
    const unsigned int nrt = 32u * (unsigned int)(rw < GS_PART_RED_WARPS ? rw : GS_PART_RED_WARPS);
    GsCheck(bi->batch <= 0x7fffffff, ctx, GS_ERR_UNSUPPORTED,
            "partitioned solve: %lld systems for one launch", (long long)bi->batch);
    const unsigned int nbw = (unsigned int)bi->batch;
    const GsInt ncorr = bi->batch * bi->parts * 2 * GS_PCORR_U;
    GsCheck((ncorr + GS_PCORR_THREADS - 1) / GS_PCORR_THREADS <= 0x7fffffff, ctx,
            GS_ERR_UNSUPPORTED, "partitioned solve: %lld threads of corrections", (long long)ncorr);
    const unsigned int nbc = (unsigned int)((ncorr + GS_PCORR_THREADS - 1) / GS_PCORR_THREADS);
    for (GsInt blk = 0; blk < nrhs; blk++) {
      a.blk = blk;
      ap.blk = blk;
      if (pscan && !d)
        gs_scan_p_k_d[b5]<<<pnb, GS_SCAN_THREADS, 0, cc->stream>>>(
            ap, Fp, (const double *)C, fstatus, (const double *)f, (double *)x, status, dsum);
      else if (pscan)
        gs_scan_p_k_f[b5]<<<pnb, GS_SCAN_THREADS, 0, cc->stream>>>(
            ap, Fp, (const float *)C, fstatus, (const float *)f, (float *)x, status, dsum);
      if (bi->dt == GS_DOUBLE) {
        if (!pscan)
          (st ? gs_ps1st_dw : gs_ps1_dw)[b5]<<<nbt, GS_PART_THREADS, sm_part, cc->stream>>>(
              a, Fp, fstatus, (const double *)f, (double *)x, status, dsum);
        gs_ps2w_dw[b5]<<<nbw, nrt, 0, cc->stream>>>(
            a, (const double *)C, fstatus, (const double *)f, (const double *)x, (double *)work);
        gs_ps3_dw[b5]<<<nbc, GS_PCORR_THREADS, 0, cc->stream>>>(
            a, Fp, (const double *)C, fstatus, (const double *)work, (double *)x, status, dsum);
      } else {
        if (!pscan)
          (st ? gs_ps1st_fw : gs_ps1_fw)[b5]<<<nbt, GS_PART_THREADS, sm_part, cc->stream>>>(
              a, Fp, fstatus, (const float *)f, (float *)x, status, dsum);
        gs_ps2w_fw[b5]<<<nbw, nrt, 0, cc->stream>>>(a, (const float *)C, fstatus, (const float *)f,
                                                    (const float *)x, (float *)work);
        gs_ps3_fw[b5]<<<nbc, GS_PCORR_THREADS, 0, cc->stream>>>(
            a, Fp, (const float *)C, fstatus, (const float *)work, (float *)x, status, dsum);
      }
      GsCheckLaunchCuda(ctx, "gs_banded_psolve_k");
    }
    GsCall(summary_read(ctx, cc, bi, dsum, status, sum, 0));
    return 0;
  }
  if (staged_fits(cc, bi, nrhs, F, f, x)) {
    int launched = 0;
    GsCall(staged_launch(ctx, cc, bi, nrhs, F, fstatus, f, x, status, dsum, &launched));
    if (launched) {
      GsCall(summary_read(ctx, cc, bi, dsum, status, sum, 0));
      sum->staged = 1;
      return 0;
    }
  }
  const unsigned int nb = blocks_for(bi->batch * nrhs);
  const int b5 = bi->bands == 5, per = bi->periodic;
  if (bi->dt == GS_DOUBLE)
    (st ? gs_solve_st_k_d
        : gs_solve_k_d)[b5][per]<<<nb, GS_BANDED_THREADS, sm_thread, cc->stream>>>(
        a, Fp, (const double *)C, fstatus, (const double *)f, (double *)x, status, dsum);
  else
    (st ? gs_solve_st_k_f
        : gs_solve_k_f)[b5][per]<<<nb, GS_BANDED_THREADS, sm_thread, cc->stream>>>(
        a, Fp, (const float *)C, fstatus, (const float *)f, (float *)x, status, dsum);
  GsCheckLaunchCuda(ctx, "gs_banded_solve_k");
  GsCall(summary_read(ctx, cc, bi, dsum, status, sum, 0));
  return 0;
}

static int k_solve(GsContext ctx, const GsBandedInfo *bi, const void *const *F, const void *C,
                   const int *fstatus, GsInt nrhs, const void *f, void *x, int *status, void *work,
                   GsBandedSummary *sum) {
  return k_solve_any(ctx, bi, F, C, fstatus, nrhs, f, x, NULL, status, work, sum, NULL);
}

static int k_solve_update(GsContext ctx, const GsBandedInfo *bi, const void *const *F,
                          const void *C, const int *fstatus, GsInt nrhs, const void *f, void *z,
                          const GsBandedUpdate *u, int *status, void *work, GsBandedSummary *sum,
                          int *done) {
  return k_solve_any(ctx, bi, F, C, fstatus, nrhs, f, z, u, status, work, sum, done);
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
  GsCall(summary_reset(ctx, cc, bi, &dsum, status));
  const int b5 = bi->bands == 5;
  if (bi->dt == GS_DOUBLE)
    gs_fsolve_k_d[b5][0]<<<blocks_for(bi->batch), GS_BANDED_THREADS, 0, cc->stream>>>(
        a, Dp, Fp, (const double *)f, (double *)x, status, dsum);
  else
    gs_fsolve_k_f[b5][0]<<<blocks_for(bi->batch), GS_BANDED_THREADS, 0, cc->stream>>>(
        a, Dp, Fp, (const float *)f, (float *)x, status, dsum);
  GsCheckLaunchCuda(ctx, "gs_banded_fsolve_k");
  GsCall(summary_read(ctx, cc, bi, dsum, status, sum, 0));
  return 0;
}

static int k_status_read(GsContext ctx, const GsBandedInfo *bi, const int *status,
                         GsBandedSummary *sum) {
  GsCudaContext *cc = NULL;
  GsCall(GsCudaBegin(ctx, &cc));
  GsCall(summary_read(ctx, cc, bi, (const GsBandedDevSummary *)bi->summary, status, sum, 1));
  return 0;
}

extern "C" void GsCudaFillBandedKernels(GsBandedKernels *k) {
  k->status_read = k_status_read;
  k->factor_solve = k_factor_solve;
  k->factor = k_factor;
  k->solve = k_solve;
  k->solve_update = k_solve_update;
  k->mult = k_mult;
  k->staged_auto = k_staged_auto;
}
