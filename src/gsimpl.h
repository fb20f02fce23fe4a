/* Private definitions shared by the front end (src/interface) and the back ends (src/backends).
 * Included from C and from CUDA (.cu) files, so it keeps to the common subset. */
#ifndef GPUSOLVE_IMPL_H
#define GPUSOLVE_IMPL_H

#include <math.h>

#include <gpusolve.h>

#ifdef __cplusplus
#define GS_RESTRICT __restrict__
extern "C" {
#else
#define GS_RESTRICT restrict
#endif

#if defined(__GNUC__)
#define GS_INTERN __attribute__((visibility("hidden")))
#else
#define GS_INTERN
#endif

/* GS_IF(1, code) is code and GS_IF(0, code) is nothing. Kernel macros use it to leave out every
 * line that touches an input (or output) the kernel being stamped out does not have, so no instance
 * declares a variable it never uses or reads an array it was not given. */
#define GS_IF(flag, ...) GS_IF_(flag, __VA_ARGS__)
#define GS_IF_(flag, ...) GS_IF_##flag(__VA_ARGS__)
#define GS_IF_0(...)
#define GS_IF_1(...) __VA_ARGS__

/* ---- Back-end operation tables ------------------------------------------------------------- */

typedef enum { GS_PW_MULT = 0, GS_PW_DIVIDE = 1 } GsPointwiseOp;

/* Coefficients and results that stay in the back end's memory (a GsScalars), so that a chain of
 * operations needs no host round trip. A coefficient given here is num[0] / den[0], and the
 * operation does nothing at all (no update, no result written) unless den[0] > 0 for each one
 * given; results go to res[0], res[1], ... NULL members: the host value of that coefficient, the
 * host results. */
typedef struct {
  const double *anum, *aden; /* alpha */
  const double *bnum, *bden; /* beta (pw_mult_aypx) */
  double *res;
} GsDevScalars;

/* The order of every sum a reduction takes, the same on every back end and device, so that a
 * reduction gives the same bits on a CPU and on a GPU (and Krylov solvers the same iterations):
 * - The n entries form packs of GS_REDUCE_PACK(dt) consecutive entries (16 bytes: 2 doubles or 4
 *   floats; the last pack may be short), and pack b goes to lane b % GS_REDUCE_LANES.
 * - Each lane starts from 0.0 and adds the terms of its packs' entries (accumulated in double) in
 *   increasing entry order, one rounded addition each. No multiply-add is fused, on any back end.
 * - Block B (GS_REDUCE_THREADS consecutive lanes; the blocks that hold packs: nb =
 *   min(GS_REDUCE_BLOCKS, ceil(packs / GS_REDUCE_THREADS))) adds its lanes by GsReduceTree.
 * - The result is GsReduceTree over u_t = (0.0 + part_t) + part_{t + 256} (the second term where
 *   that block exists; u_t = 0.0 for t >= nb), t < GS_REDUCE_THREADS.
 * This is what a GPU does with one thread per lane and the last block folding the blocks' partials;
 * the CPU back end computes the same sums in the same order (src/backends/cpu/vec.c). A maximum
 * (the inf-norm) is exact in any order. */
#define GS_REDUCE_THREADS 256
#define GS_REDUCE_BLOCKS 512
#define GS_REDUCE_LANES ((GsInt)GS_REDUCE_THREADS * GS_REDUCE_BLOCKS)
#define GS_REDUCE_PACK(dt) ((dt) == GS_FLOAT ? 4 : 2)
/* GsReduceTree(v) over v[0..GS_REDUCE_THREADS): within each warp of 32 lanes, v[l] += v[l + off]
 * for off = 16, 8, 4, 2, 1 (l < off, a warp's shuffle-down tree); then over the 8 warps' sums w,
 * w[l] += w[l + off] for off = 4, 2, 1; the result is w[0]. */

/* Vector kernels. Arrays live in the back end's preferred memory space (GsBackendOps.mem) and are
 * n entries of type dt. Reductions accumulate in double, in the order above, and deliver their
 * result to host memory (or to GsDevScalars). */
typedef struct {
  int (*set)(GsContext ctx, GsDataType dt, GsInt n, void *x, double alpha);
  int (*scale)(GsContext ctx, GsDataType dt, GsInt n, void *x, double alpha);
  /* y = x with conversion from tx to ty (tx == ty is a plain copy). */
  int (*copy)(GsContext ctx, GsInt n, GsDataType tx, const void *x, GsDataType ty, void *y);
  /* y = alpha x + beta y; y must not be read when beta == 0. */
  int (*axpby)(GsContext ctx, GsDataType dt, GsInt n, double alpha, const void *x, double beta,
               void *y);
  /* z = alpha x + beta y + gamma z, left to right; z must not be read when gamma == 0 (z may
   * alias x or y). */
  int (*axpbypcz)(GsContext ctx, GsDataType dt, GsInt n, double alpha, const void *x, double beta,
                  const void *y, double gamma, void *z);
  /* y += alpha[k] x[k] for k = 0 .. nv - 1 in turn, each step rounded to dt as axpby(alpha[k],
   * x[k], 1, y) rounds it (x a host array of nv >= 1 pointers, none of them y). Optional: NULL
   * makes the front end call axpby nv times. */
  int (*maxpy)(GsContext ctx, GsDataType dt, GsInt n, int nv, const double *alpha,
               const void *const *x, void *y);
  int (*pointwise)(GsContext ctx, GsDataType dt, GsInt n, GsPointwiseOp op, void *w, const void *x,
                   const void *y);
  /* x = 1/x where x != 0. */
  int (*reciprocal)(GsContext ctx, GsDataType dt, GsInt n, void *x);
  int (*dot)(GsContext ctx, GsDataType dt, GsInt n, const void *x, const void *y, double *r);
  /* r[k] = x . y[k], k < nv (nv >= 1; y is a host array of pointers). */
  int (*mdot)(GsContext ctx, GsDataType dt, GsInt n, const void *x, int nv, const void *const *y,
              double *r);
  int (*norm)(GsContext ctx, GsDataType dt, GsInt n, const void *x, GsNormType type, double *r);
  /* y += alpha x; *nrm = ||y||_2 */
  int (*axpy_norm)(GsContext ctx, GsDataType dt, GsInt n, double alpha, const void *x, void *y,
                   double *nrm);
  /* *dot = x . y; *nrm2 = y . y */
  int (*dot_norm2)(GsContext ctx, GsDataType dt, GsInt n, const void *x, const void *y, double *dot,
                   double *nrm2);
  /* x[i] = lo + (hi - lo) * GsRandomUniform(seed, i) */
  int (*set_random)(GsContext ctx, GsDataType dt, GsInt n, void *x, uint64_t seed, double lo,
                    double hi);
  /* x += alpha p; r -= alpha q; then, over the new r, *rr = r . r and *rwr = sum r_i z_i with
   * z_i = w_i r_i rounded to dt (w NULL: *rwr = *rr). x and p are both NULL or both not: NULL
   * leaves out the x update, with r, *rr and *rwr the same bits as with it. x != r; p, q, w may be
   * x or r (each entry is read before it is written). rwr and rr are never NULL. With ds (NULL:
   * none): alpha from ds->anum / ds->aden, and the results to ds->res[0] (rr) and, with w,
   * ds->res[1] (rwr) instead of the host. */
  int (*axpy_pair)(GsContext ctx, GsDataType dt, GsInt n, void *x, void *r, double alpha,
                   const void *p, const void *q, const void *w, double *rwr, double *rr,
                   const GsDevScalars *ds);
  /* y = w .* x + beta y with w .* x rounded to dt first (w NULL: y = x + beta y) and, when z is
   * not NULL, z += alpha y with y on entry, rounded as axpby(alpha, y, 1, z) rounds it. Without z,
   * beta != 0 (the front end handles beta == 0 without reading y); with z, beta == 0 gives
   * y = w .* x (or x) without the beta term, y still read for z. w or x may be y; z is none of
   * y, w, x. With ds (NULL: none; only with z): alpha and beta from it, y always read and beta
   * applied as a multiply-add (a beta of 0 adds 0 y). */
  int (*pw_mult_aypx)(GsContext ctx, GsDataType dt, GsInt n, void *y, double beta, const void *w,
                      const void *x, void *z, double alpha, const GsDevScalars *ds);
} GsVecKernels;

/* -banded_staged: whether the CUDA back end may run a THREAD solve (interleaved, one LU or LDL^T
 * matrix per system, not periodic) through shared memory, its g kept in L2 (banded.cu): off; auto
 * where the forward results in flight fit in L2; on wherever the layout allows (tests). */
typedef enum {
  GS_BANDED_STAGED_OFF = 0,
  GS_BANDED_STAGED_AUTO = 1,
  GS_BANDED_STAGED_ON = 2
} GsBandedStaged;

/* -banded_tile_passes: how a GPU runs a TILE solve of more than 32 chunks (banded_algo.h): auto
 * (the default), in one pass on chip (one block holds a system), or in two passes over f. */
typedef enum {
  GS_BANDED_TILE_PASSES_AUTO = 0,
  GS_BANDED_TILE_PASSES_ONE = 1,
  GS_BANDED_TILE_PASSES_TWO = 2
} GsBandedTilePasses;

/* A batch of banded systems as the back ends see it (see include/gpusolve/banded.h). */
typedef struct {
  int bands, h, periodic, shared, spd;
  GsInt n, m;         /* rows; rows of the banded block (n - h when periodic) */
  GsInt batch, nmat;  /* systems; matrices (1 when shared) */
  int interleaved;    /* else contiguous */
  GsInt stride;       /* contiguous: distance between systems */
  GsInt rhs_len;      /* entries of one block of right-hand sides */
  int nfac;           /* factor arrays */
  int algo;           /* GsBandedAlgorithm in use (THREAD, SPIKE or TILE) */
  int parts;          /* partitions per system (SPIKE); 1 otherwise */
  int tile_l, tile_p; /* TILE: rows per chunk, chunks per system */
  int scan_layout;    /* GPU SCAN with a matrix per system: factors in the scan's own layout
                       * (gs_scan_layout_len), rearranged by the back end's Factor; GPU SPIKE
                       * whose partial solves are scans (gs_banded_part_scan): the LU arrays */
  int scan_threads;   /* GPU SCAN: threads a block */
  int tile_passes;    /* GsBandedTilePasses: -banded_tile_passes */
  int tile_split;     /* GPU TILE in two passes (banded_algo.h, GS_TILE2_L); the work after the
                       * table holds its maps and scratch (gs_tile2_work_len) */
  int staged;         /* GsBandedStaged: -banded_staged, how the GPU runs THREAD's solves */
  int scan_pair;      /* GsBandedStaged values: -banded_scan_pair, whether the GPU's SCAN blocks
                       * take two groups of systems (banded.cu, GS_SCAN_PAIR_OK) */
  int scan_wide;      /* GsBandedStaged values: -banded_scan_wide, whether the GPU's tridiagonal
                       * SCAN blocks of 16-row chunks have 512 threads (banded.c) */
  int scan_halves;    /* GsBandedStaged values: -banded_scan_halves, whether the GPU's tridiagonal
                       * SCAN blocks of 512 threads take 1024 threads' systems in two halves
                       * (banded.c) */
  int tile_image;     /* GsBandedStaged values: -banded_tile_image, whether the GPU's one-pass
                       * TILE solves in double copy their shared-memory image (gs_tile_image_len)
                       * instead of building it (auto and on: yes) */
  int tile_tail;      /* GsBandedStaged values: -banded_tile_tail, whether the GPU's one-pass
                       * periodic TILE solves of interleaved 32-row chunks leave the tail and
                       * the W correction to a kernel of their own (banded.cu, GS_TILE_TAIL) */
  int tile_next;      /* GsBandedStaged values: -banded_tile_next, whether the GPU's wide one-pass
                       * TILE solves copy the next group's f into shared memory while they solve
                       * the present one (banded.cu, GS_TILE_NEXT; auto and on: where it applies) */
  int deferred;       /* GS_BANDED_CHECK_DEFERRED: no summary back to the host after a call */
  int accumulate;     /* keep the per-system status and the summary of earlier calls */
  void *summary;      /* per-object summary in the back end's memory (GPU),
                       * GS_BANDED_SUMMARY_BYTES */
  void *summary_host; /* per-object words in host memory from host_alloc (pinned, zeroed), which
                       * the GPU back end's kernels may write: whether a call marked a system, so
                       * that a clean call needs no copy back (NULL without host_alloc),
                       * GS_BANDED_SUMMARY_HOST_BYTES */
  int corner_len;     /* per-matrix corner entries (periodic) */
  GsDataType dt;
} GsBandedInfo;

/* Sizes the front end allocates for GsBandedInfo's summary and summary_host. */
#define GS_BANDED_SUMMARY_BYTES 32
#define GS_BANDED_SUMMARY_HOST_BYTES 64

/* Outcome of a batched factor or solve: how many systems are bad, the first one and its code;
 * staged: the solve ran staged (CUDA back end, -banded_staged; the front end clears it). */
typedef struct {
  GsInt nbad, first;
  int code;
  int staged;
} GsBandedSummary;

/* The update a solve may store in place of its solution (GsBandedSolveAXPBYPCZ): z = alpha x +
 * beta y + gamma A^-1 f, x and y arrays of the back end laid out as z. */
typedef struct {
  const void *x, *y;
  double alpha, beta, gamma;
} GsBandedUpdate;

/* Banded kernels. D: bands diagonal arrays; F: nfac factor arrays (layout of the matrix data);
 * C: nmat * corner_len corner entries; fstatus[nmat]: factor status per matrix; status[batch]: per
 * system; work: scratch for partitioned batches (factor: nmat * parts ints; solve: batch * parts *
 * 2h values), or the TILE table (GS_BANDED_TILE_NTAB arrays of tile_p * tile_l rows; with
 * tile_split the maps and the solve's scratch after it) that factor fills and solve reads. All in
 * the back end's memory; the summary is delivered to the host, except in deferred mode
 * (bi->deferred), where status_read delivers it later. With bi->accumulate, a call keeps the
 * statuses of earlier calls (a system keeps its first failure). */
typedef struct {
  int (*factor)(GsContext ctx, const GsBandedInfo *bi, const void *const *D, void *const *F,
                void *C, int *fstatus, int *status, void *work, GsBandedSummary *sum);
  /* nrhs blocks of f into x (x may be f); systems whose matrix failed get NaN. */
  int (*solve)(GsContext ctx, const GsBandedInfo *bi, const void *const *F, const void *C,
               const int *fstatus, GsInt nrhs, const void *f, void *x, int *status, void *work,
               GsBandedSummary *sum);
  /* Optional (NULL: never): the solve of f into z storing u's combination instead of the
   * solution, where this batch's kernel can do it in its own pass (*done = 1), summed as
   * GsVecAXPBYPCZ sums it, so the same bits as solve then that vector operation; *done = 0 and
   * nothing queued where it cannot. Neither u->x nor u->y is z (z may be f). */
  int (*solve_update)(GsContext ctx, const GsBandedInfo *bi, const void *const *F, const void *C,
                      const int *fstatus, GsInt nrhs, const void *f, void *z,
                      const GsBandedUpdate *u, int *status, void *work, GsBandedSummary *sum,
                      int *done);
  int (*mult)(GsContext ctx, const GsBandedInfo *bi, const void *const *D, GsInt nrhs,
              const void *x, void *y);
  /* Refactor-each-call for per-system, non-periodic batches and one block: factor and solve in one
   * sweep, keeping only what the back substitution needs (F holds nfac arrays, partly used). */
  int (*factor_solve)(GsContext ctx, const GsBandedInfo *bi, const void *const *D, void *const *F,
                      const void *f, void *x, int *status, GsBandedSummary *sum);
  /* Wait for queued calls and deliver the summary of status[] (deferred mode). */
  int (*status_read)(GsContext ctx, const GsBandedInfo *bi, const int *status,
                     GsBandedSummary *sum);
  /* *staged: whether a THREAD solve of this batch would run staged (-banded_staged), given
   * vectors and factors aligned as the library allocates them; for the automatic choice of
   * algorithm. */
  int (*staged_auto)(GsContext ctx, const GsBandedInfo *bi, int *staged);
} GsBandedKernels;

/* A sparse matrix as the back ends see it, in the form of its SpMV kernel (arrays in the memory
 * where the kernel runs):
 * - GS_SPMV_CSR: rowptr (64-bit, host kernels) or rowptr32 (device kernels; the front end makes
 *   the copy when nnz fits), col, val; device kernels give each row `group` threads. Every kernel
 *   of every back end sums a row in the order `group` fixes (matimpl.h), except the device merge
 *   and hybrid kernels, whose rows cut between threads join in another order.
 * - GS_SPMV_SELL: SELL-C-sigma (ELL is the case C = m): positions p (rows sorted by length within
 *   windows of sigma rows) in slices of sell_c; slice s holds its entries column-major from
 *   sell_ptr[s], padded to its longest row with column -1 and value 0. sell_perm maps positions to
 *   rows (NULL: identity); sell_len gives each position's length (host kernels only).
 * - GS_SPMV_MERGE: CSR (rowptr 64-bit and, where nnz fits, rowptr32; col, val) split into equal
 * runs of rows + entries (merge path); device kernels find where each run starts in merge_start and
 * pass partial sums of rows cut by a run through merge_row / merge_val (merge_blocks entries each).
 * - GS_SPMV_HYBRID: SELL over sell_m positions (the rows of at most a threshold of entries,
 * sell_perm maps them to rows) and merge over the long rows, whose CSR is merge_m rows, merge_nnz
 * entries (rowptr, col, val) and whose row numbers are merge_rows. For GS_SPMV_MERGE, merge_m = m,
 *   merge_nnz = nnz and merge_rows is NULL. */
enum { GS_SPMV_CSR = 1, GS_SPMV_SELL = 2, GS_SPMV_MERGE = 3, GS_SPMV_HYBRID = 4 };
typedef struct {
  GsInt m, n, nnz;
  int kernel;
  const GsInt *rowptr;
  const int *rowptr32;
  const int *col;
  const double *val;
  int group;
  GsInt sell_c, nslices, sell_m;
  const GsInt *sell_ptr;
  const int *sell_len, *sell_perm, *sell_col;
  const double *sell_val;
  GsInt merge_m, merge_nnz;
  const int *merge_rows;
  GsInt merge_blocks;
  GsInt *merge_start; /* merge_blocks + 1: the row where each tile starts (merge_setup) */
  GsInt *merge_row;
  double *merge_val;
} GsMatInfo;

typedef struct {
  /* y = alpha A x + beta y (beta = 0: y is only written). When xy is not NULL (square matrices,
   * alpha = 1, beta = 0), also *xy = x . y, fused into the product where the kernel can (set
   * *fused = 1), else left to the caller (*fused = 0). With ds (NULL: none) and xy, a fused dot
   * goes to ds->res[0] in the back end's memory instead of *xy. */
  int (*spmv)(GsContext ctx, const GsMatInfo *A, double alpha, const double *x, double beta,
              double *y, double *xy, int *fused, const GsDevScalars *ds);
  /* Blocks (merge_blocks) the merge kernel uses for A; 0 where it needs no scratch. */
  GsInt (*merge_blocks)(const GsMatInfo *A);
  /* Fill A->merge_start once per matrix (NULL where the kernel needs nothing). */
  int (*merge_setup)(GsContext ctx, const GsMatInfo *A);
} GsMatKernels;

/* A stencil as the back ends see it (see include/gpusolve/stencil.h): nterms groups, each the
 * weights w[first[t] .. first[t + 1] - 1] at offsets (ox, oy) applied to source input[t] raised
 * to power[t], zero weights left out, in the order each point sums them (by ox, then oy). Source
 * s is sum_q scoef[s][q] x[sidx[s][q]]^power over its nsrc[s] >= 1 inputs, summed in that order:
 * input j itself (coefficient 1) for s = j < inputs, a combination's nonzero coefficients after
 * them. Terms before npoint are centre-only (their one weight pointw[t], the sum of a
 * conservative term), summed first; fold: each of them is on an input of the source of term
 * npoint, with power 1, at position q of that source: foldw[q] is its weight, so that a GPU tile
 * adds them as it stages that source. rx, ry: the largest offsets in use. The same
 * weights dense, for kernels that index them at compile time: k[t][(ox + R) W + oy + R] (W = 2 R +
 * 1, zero where the list has none), and per term and column ox the range [lo, hi] of oy + R
 * holding them (lo > hi: none). */
#define GS_STENCIL_W (2 * GS_STENCIL_MAX_RADIUS + 1)
#define GS_STENCIL_MAX_WEIGHTS (GS_STENCIL_MAX_TERMS * GS_STENCIL_W * GS_STENCIL_W)
#define GS_STENCIL_MAX_SOURCES (GS_STENCIL_MAX_INPUTS + GS_STENCIL_MAX_COMBINATIONS)
typedef struct {
  GsInt nx, ny, batch;
  int rx, ry;
  int nterms, npoint, fold;
  int wide;    /* 64-bit grid indices in GPU kernels even where a grid's nx ny fits 32 bits */
  GsInt tiles; /* tiles along y a GPU block takes in turn (0: the back end chooses) */
  int shapes;  /* a back end may run a kernel compiled for the stencil's shape (0: never) */
  signed char input[GS_STENCIL_MAX_TERMS], power[GS_STENCIL_MAX_TERMS];
  signed char nsrc[GS_STENCIL_MAX_SOURCES], sidx[GS_STENCIL_MAX_SOURCES][GS_STENCIL_MAX_INPUTS];
  double scoef[GS_STENCIL_MAX_SOURCES][GS_STENCIL_MAX_INPUTS];
  double pointw[GS_STENCIL_MAX_TERMS], foldw[GS_STENCIL_MAX_INPUTS];
  /* Conservative terms: y += total x_p^power + sum w (x_{p+k}^power - x_p^power), the centre weight
   * not in the list. */
  signed char conservative[GS_STENCIL_MAX_TERMS];
  double total[GS_STENCIL_MAX_TERMS];
  short first[GS_STENCIL_MAX_TERMS + 1];
  signed char ox[GS_STENCIL_MAX_WEIGHTS], oy[GS_STENCIL_MAX_WEIGHTS];
  double w[GS_STENCIL_MAX_WEIGHTS];
  signed char lo[GS_STENCIL_MAX_TERMS][GS_STENCIL_W], hi[GS_STENCIL_MAX_TERMS][GS_STENCIL_W];
  double k[GS_STENCIL_MAX_TERMS][GS_STENCIL_MAX_WEIGHTS / GS_STENCIL_MAX_TERMS];
} GsStencilInfo;

typedef struct {
  /* y = the stencil of x[0 ..] (arrays of nx ny batch entries of type dt; y is none of them);
   * *kernel (when kernel is not NULL): a static name of the kernel that ran. */
  int (*apply)(GsContext ctx, const GsStencilInfo *si, GsDataType dt, const void *const *x, void *y,
               const char **kernel);
} GsStencilKernels;

/* The CPU kernels, also the host fallbacks of back ends without their own. */
GS_INTERN int GsCpuStencilApply(GsContext ctx, const GsStencilInfo *si, GsDataType dt,
                                const void *const *x, void *y, const char **kernel);
GS_INTERN int GsCpuMatSpMV(GsContext ctx, const GsMatInfo *A, double alpha, const double *x,
                           double beta, double *y, double *xy, int *fused, const GsDevScalars *ds);

typedef struct GsBackendOps {
  const char *family; /* "/cpu", "/gpu/cuda" */
  int compiled;       /* 0 for a registration stub (src/backends/weak) */
  GsMemType mem;      /* where this back end computes */
  /* Number of devices visible (1 for the CPU); 0 and no error when none. */
  int (*device_count)(int *count);
  /* Set up ctx->bdata for device `device` (-1 when the resource named none). */
  int (*init)(GsContext ctx, int device);
  int (*destroy)(GsContext ctx);
  int (*device_info)(GsContext ctx, GsDeviceInfo *info);
  int (*synchronize)(GsContext ctx);
  /* Memory in the back end's space (mem). Back ends computing on the host leave these NULL. */
  int (*mem_alloc)(GsContext ctx, size_t bytes, void **p);
  int (*mem_free)(GsContext ctx, void *p);
  /* Host memory suited for transfers (pinned); NULL means malloc/free. */
  int (*host_alloc)(GsContext ctx, size_t bytes, void **p);
  int (*host_free)(GsContext ctx, void *p);
  /* Copy bytes between spaces; returns when dst is ready for the host to use. */
  int (*memcpy)(GsContext ctx, void *dst, GsMemType dmem, const void *src, GsMemType smem,
                size_t bytes);
  int (*copy_bandwidth)(GsContext ctx, size_t bytes, int repeats, double *gbytes_per_s);
  /* Queue a copy of bytes from src (back-end memory) to dst (host memory from host_alloc) behind
   * the work queued so far, and a mark after it (*mark: created on first use); read_wait waits
   * for the mark only, not for work queued later; mark_destroy frees it. NULL (back ends that
   * compute on the host): the front end copies at once. */
  int (*read_async)(GsContext ctx, void *dst, const void *src, size_t bytes, void **mark);
  int (*read_wait)(GsContext ctx, void *mark);
  int (*mark_destroy)(GsContext ctx, void *mark);
  /* Timers for the event log: begin/end mark the back end's queue around a piece of work. end
   * does not wait: it adds to *seconds the elapsed time of the pairs that have finished (on the
   * host, this one; on a device, those done so far); with count 0 the pair just ended is
   * dropped. timer_read waits for every pair still pending and adds the rest (NULL: nothing is
   * ever pending). A begin without an end is overwritten by the next begin. */
  int (*timer_create)(GsContext ctx, void **timer);
  int (*timer_destroy)(GsContext ctx, void *timer);
  int (*timer_begin)(GsContext ctx, void *timer);
  int (*timer_end)(GsContext ctx, void *timer, int count, double *seconds);
  int (*timer_read)(GsContext ctx, void *timer, double *seconds);
  GsVecKernels vec;
  GsBandedKernels banded; /* NULL entries: not implemented by this back end */
  GsMatKernels mat;       /* NULL entries: the front end runs the CPU kernel on host copies */
  GsStencilKernels stencil;
} GsBackendOps;

/* Each back end fills its table; stubs in src/backends/weak fill one with compiled = 0. */
GS_INTERN void GsBackendFillOps_Cpu(GsBackendOps *ops);
GS_INTERN void GsBackendFillOps_Cuda(GsBackendOps *ops);

/* ---- Context ------------------------------------------------------------------------------- */

#define GS_ERRMSG_LEN 4096

typedef struct {
  char *name;  /* with the leading '-' */
  char *value; /* NULL for a flag */
  int used;
} GsOption;

typedef struct {
  char *name;
  GsInt calls;
  double seconds, bytes, flops;
  void *timer;
  int active;
} GsLogEventRec;

/* Events the library itself logs. */
typedef struct {
  GsLogEvent vec_set, vec_copy, vec_scale, vec_axpy, vec_axpby, vec_waxpy, vec_axpbypcz,
      vec_pointwise, vec_reciprocal, vec_dot, vec_mdot, vec_norm, vec_axpy_norm, vec_dot_norm2,
      vec_axpy_pair, vec_pw_mult_aypx, vec_axpy_pw_mult_aypx, vec_random, vec_maxpy, mem_htod,
      mem_dtoh;
} GsBuiltinEvents;

struct GsContext_s {
  const GsBackendOps *ops; /* points at ops_table */
  GsBackendOps ops_table;
  char resource[64];
  int device;
  void *bdata; /* back-end state (streams, handles) */
  int deterministic;
  /* options */
  GsOption *options;
  int noptions, cap_options;
  /* event log */
  int log_on;
  GsLogEventRec *events;
  int nevents, cap_events;
  GsBuiltinEvents ev;
  /* error state */
  int errcode;
  char errmsg[GS_ERRMSG_LEN];
  /* live objects, to report leaks at GsDestroy */
  GsInt nobjects;
};

/* ---- Vector -------------------------------------------------------------------------------- */

enum { GS_VALID_HOST = 1, GS_VALID_DEVICE = 2 };
enum { GS_ACCESS_NONE = 0, GS_ACCESS_READ = 1, GS_ACCESS_WRITE = 2, GS_ACCESS_READWRITE = 3 };

struct GsScalars_s {
  GsContext ctx;
  int n;
  double *d;          /* n values in the compute space */
  double *h;          /* n values on the host (pinned where the back end has host_alloc) */
  int h_owned;        /* 1: malloc'd; 2: host_alloc'd */
  int rfirst, rcount; /* the read begun (rcount 0: none) */
  void *mark;
};

struct GsVec_s {
  GsContext ctx;
  GsInt n;
  GsDataType dt;
  size_t bytes;
  void *host, *dev;
  int host_owned, dev_owned; /* 1: malloc'd by us; 2: host_alloc'd (pinned) */
  int valid;                 /* GS_VALID_* bits */
  int access;                /* outstanding GetArray kind */
  GsMemType access_mem;
  void *access_ptr;
};

/* ---- Helpers ------------------------------------------------------------------------------- */

#ifdef __CUDACC__
#define GS_HOST_DEVICE __host__ __device__
#else
#define GS_HOST_DEVICE
#endif

/* A counter-based uniform random number in [0,1) from (seed, index): the same on every back end. */
GS_HOST_DEVICE static inline double GsRandomUniform(uint64_t seed, uint64_t i) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + (i + 1) * 0xD1B54A32D192ED03ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

/* v = lo + (hi - lo) u can round up to hi (in double, and more often once rounded to float): keep
 * the value in [lo, hi) of the element type. Both back ends call these, so they agree bit for bit.
 */
GS_HOST_DEVICE static inline double GsRandomClampDouble(double v, double lo, double hi) {
  return v < hi || !(lo < hi) ? v : nextafter(hi, lo);
}
GS_HOST_DEVICE static inline float GsRandomClampFloat(double v, double lo, double hi) {
  float f = (float)v;
  if (!(lo < hi) || (double)f < hi) return f;
  f = (float)hi;
  return (double)f < hi ? f : nextafterf(f, (float)lo);
}

/* Allocate zeroed host memory, raising GS_ERR_MEMORY on ctx (which may be NULL). */
GS_INTERN int GsMallocHost(GsContext ctx, size_t bytes, void **p);
/* Host memory this process can still take: the smaller of the kernel's MemAvailable and what the
 * cgroup (v2) limit leaves; a negative value when neither can be read. */
GS_INTERN double GsHostMemoryAvailable(void);
/* GS_ERR_MEMORY on ctx, naming `what`, when `bytes` of host memory are more than
 * GsHostMemoryAvailable(): a request that large would be granted by an overcommitting kernel and
 * then end the process when touched, instead of failing here with a message. */
GS_INTERN int GsHostMemoryCheck(GsContext ctx, double bytes, const char *what);
/* Memory in the back end's compute space (device memory on GPU back ends, host otherwise). */
GS_INTERN int GsMemAlloc(GsContext ctx, size_t bytes, void **p);
GS_INTERN void GsMemFree(GsContext ctx, void *p);
/* Copy bytes between the compute space and the host (direction by the memory types). */
GS_INTERN int GsMemCopy(GsContext ctx, void *dst, GsMemType dmem, const void *src, GsMemType smem,
                        size_t bytes);
/* A vector's array in the back end's compute space, made valid for reading (access has
 * GS_ACCESS_READ) and marked as the only valid copy when access has GS_ACCESS_WRITE. */
GS_INTERN int GsVecGetComputeArray(GsVec v, int access, void **p);
/* v (named `name` in messages) must be a vector of ctx holding dt values, for the object described
 * by `owner` ("the matrix", "the batch"); a named error otherwise. Its length into *n. */
GS_INTERN int GsVecCheckFor(GsContext ctx, GsVec v, const char *name, const char *owner,
                            GsDataType dt, GsInt *n);

/* s (named `name`) must be scalars of ctx with entries [first, first + count); a named error
 * otherwise. */
GS_INTERN int GsScalarsCheckFor(GsContext ctx, GsScalars s, const char *name, int first, int count);

/* Drop the error-trace target if it is ctx's buffer (before ctx is freed). */
GS_INTERN void GsErrorForgetContext(GsContext ctx);
/* Move ctx's last error to the thread's context-less slot (before ctx is freed). */
GS_INTERN void GsErrorAdopt(GsContext ctx);
/* Free the options and the event log (front end internals used by GsDestroy). */
GS_INTERN void GsOptionsFree(GsContext ctx);
GS_INTERN int GsLogRegisterBuiltins(GsContext ctx);
GS_INTERN void GsLogFree(GsContext ctx);
/* Close an event begun by an operation that then failed, counting nothing. */
GS_INTERN void GsLogEventCancel(GsContext ctx, GsLogEvent event);
/* Check that a handle is non-NULL and raise GS_ERR_ARG_NULL naming it otherwise. */
#define GsCheckHandle(ctx, h) GsCheck((h) != NULL, (ctx), GS_ERR_ARG_NULL, "%s is NULL", #h)

#ifdef __cplusplus
}
#endif
#endif
