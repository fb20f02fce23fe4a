/* Batched banded solvers: argument checks, factor storage, status, dispatch to the back end. */
#include <stdlib.h>
#include <string.h>

#include "../backends/common/banded_algo.h"
#include "../gsimpl.h"

/* Interleaved tri batches of 1009 to 1024 rows take 512-thread SCAN blocks from this many
 * systems on (GsBandedSetAlgorithm: measured faster at 65536, level at 16384). */
#define GS_SCAN_WIDE_MIN_BATCH 32768
/* Interleaved float pentadiagonal LU batches of 1009 to 1024 rows: from this many systems on
 * (past 1024 rows, any batch). */
#define GS_SCAN_WIDE_P_MIN_BATCH 4096
/* Interleaved double pentadiagonal LU batches of 1009 to 1024 rows, whose scans take 512
 * threads' systems in two halves: from this many systems on (configure: faster at 65536, level at
 * 16384, slower at 4096). */
#define GS_SCAN_HALVES_MIN_BATCH 16384
/* The same for periodic ones (1011 to 1026 rows: m = n - 2 of 1009 to 1024), from this many
 * systems on (configure: faster at 1024 systems and more). */
#define GS_SCAN_HALVES_PER_MIN_BATCH 1024
/* Tri scans in halves (scan_threads 1024): from this many chunks in the batch (batch x tile_p),
 * 128 blocks of 1024 threads' chunks, about one a SM. */
#define GS_SCAN_HALVES3_MIN_CHUNKS ((GsInt)1 << 17)
/* ... and in double at 128 chunks a system, from this many chunks (16384 systems). */
#define GS_SCAN_HALVES3_D128_MIN_CHUNKS ((GsInt)1 << 21)

struct GsBanded_s {
  GsContext ctx;
  GsBandedDesc desc;
  GsBandedInfo info;
  void *fac[GS_BANDED_MAX_FAC]; /* factor arrays (back-end memory) */
  void *corner;                 /* nmat * corner_len entries (periodic, or partitioned) */
  void *work;                   /* scratch of partitioned batches */
  int *fstatus;                 /* factor status per matrix */
  int *status;                  /* status per system of the last factor or solve */
  int factored;                 /* factors are valid for solving */
  int auto_algo;                /* the algorithm was chosen automatically */
  int view;                     /* -banded_view: GsBandedView after the first Factor(Solve) */
  GsBandedCheck check;          /* when bad systems are reported */
  int pending;                  /* deferred: calls since the last check */
  GsBandedSummary last;         /* of the last factor or solve */
  GsLogEvent ev_factor, ev_solve, ev_mult, ev_factor_solve;
};

static int tile_fits(const GsBandedInfo *bi);
static int configure(GsBanded A, GsBandedAlgorithm algo, int parts);
static int scan_fits(const GsBandedInfo *bi);

static const char *const status_text[] = {"ok", "zero or tiny pivot", "non-finite value"};

int GsBandedCreate(GsContext ctx, const GsBandedDesc *desc, GsBanded *A) {
  GsCheckHandle(NULL, ctx);
  GsCheckHandle(ctx, desc);
  GsCheckHandle(ctx, A);
  *A = NULL;
  const GsBandedDesc *d = desc;
  GsCheck(d->bands == 3 || d->bands == 5, ctx, GS_ERR_ARG_OUTOFRANGE,
          "bands = %d: only 3 (tridiagonal) and 5 (pentadiagonal) are supported", d->bands);
  GsCheck(d->n >= d->bands, ctx, GS_ERR_ARG_OUTOFRANGE,
          "n = %lld rows is too small for %d bands (need n >= %d)", (long long)d->n, d->bands,
          d->bands);
  GsCheck(d->batch >= 1, ctx, GS_ERR_ARG_OUTOFRANGE, "batch = %lld systems: need at least 1",
          (long long)d->batch);
  GsCheck(d->dt == GS_DOUBLE || d->dt == GS_FLOAT, ctx, GS_ERR_ARG_TYPE, "unknown data type %d",
          (int)d->dt);
  GsCheck(d->layout == GS_BANDED_INTERLEAVED || d->layout == GS_BANDED_CONTIGUOUS, ctx,
          GS_ERR_ARG_OUTOFRANGE, "unknown layout %d", (int)d->layout);
  GsInt stride = d->layout == GS_BANDED_CONTIGUOUS && d->stride ? d->stride : d->n;
  GsCheck(d->layout == GS_BANDED_CONTIGUOUS || d->stride == 0 || d->stride == d->n, ctx,
          GS_ERR_ARG_INCOMP, "stride = %lld is only meaningful for the contiguous layout",
          (long long)d->stride);
  GsCheck(stride >= d->n, ctx, GS_ERR_ARG_OUTOFRANGE,
          "contiguous stride %lld is smaller than n = %lld", (long long)stride, (long long)d->n);
  GsCheck(d->batch <= GS_INT_MAX / stride, ctx, GS_ERR_ARG_OUTOFRANGE,
          "batch %lld x stride %lld overflows the index range", (long long)d->batch,
          (long long)stride);
  GsCheck(ctx->ops->banded.factor && ctx->ops->banded.solve && ctx->ops->banded.mult, ctx,
          GS_ERR_UNSUPPORTED, "back end %s has no batched banded solver", ctx->resource);

  GsBanded B = calloc(1, sizeof *B);
  GsCheck(B != NULL, ctx, GS_ERR_MEMORY, "cannot allocate a banded object");
  B->ctx = ctx;
  B->desc = *d;
  B->desc.stride = stride;
  B->desc.shared = d->shared != 0;
  B->desc.periodic = d->periodic != 0;
  B->desc.spd = d->spd != 0;
  GsBandedInfo *bi = &B->info;
  bi->bands = d->bands;
  bi->h = d->bands / 2;
  bi->periodic = B->desc.periodic;
  bi->shared = B->desc.shared;
  bi->spd = B->desc.spd;
  bi->n = d->n;
  bi->m = bi->periodic ? d->n - bi->h : d->n;
  bi->batch = d->batch;
  bi->nmat = bi->shared ? 1 : d->batch;
  bi->interleaved = d->layout == GS_BANDED_INTERLEAVED;
  bi->stride = stride;
  bi->rhs_len = bi->interleaved ? d->n * d->batch : stride * d->batch;
  bi->dt = d->dt;
  B->last.first = -1;
  ctx->nobjects++;
  *A = B;

  /* -banded_algorithm and -banded_partitions pick the algorithm for benchmarking. They apply to
   * every batch of the context, so where a batch cannot follow them they are bent to fit:
   * automatic choice instead of an impossible algorithm, fewer partitions for short systems. */
  static const char *const algos[] = {"auto", "thread", "spike", "tile", "scan", NULL};
  static const char *const checks[] = {"each", "deferred", NULL};
  int algo = 0, algo_set = 0, check = 0;
  GsInt parts = 0;
  int ierr = GsOptionsGetEnum(ctx, "-banded_algorithm", algos, &algo, &algo_set);
  if (!ierr) ierr = GsOptionsGetEnum(ctx, "-banded_check", checks, &check, NULL);
  static const char *const stageds[] = {"off", "auto", "on", NULL};
  /* The GPU's execution strategies, each off|auto|on (GsBandedStaged values, auto by default). */
  struct {
    const char *name;
    int *mode;
  } const strategies[] = {
      {"-banded_staged", &bi->staged},         {"-banded_scan_pair", &bi->scan_pair},
      {"-banded_scan_wide", &bi->scan_wide},   {"-banded_scan_halves", &bi->scan_halves},
      {"-banded_tile_image", &bi->tile_image}, {"-banded_tile_tail", &bi->tile_tail},
      {"-banded_tile_next", &bi->tile_next}};
  for (size_t k = 0; k < sizeof strategies / sizeof strategies[0]; k++) {
    int mode = GS_BANDED_STAGED_AUTO;
    if (!ierr) ierr = GsOptionsGetEnum(ctx, strategies[k].name, stageds, &mode, NULL);
    *strategies[k].mode = mode;
  }
  static const char *const passes[] = {"auto", "one", "two", NULL};
  int tile_passes = GS_BANDED_TILE_PASSES_AUTO;
  if (!ierr) ierr = GsOptionsGetEnum(ctx, "-banded_tile_passes", passes, &tile_passes, NULL);
  bi->tile_passes = tile_passes;
  B->check = (GsBandedCheck)check;
  if (!ierr) ierr = GsOptionsGetBool(ctx, "-banded_view", &B->view, NULL);
  if (!ierr) ierr = GsMemAlloc(ctx, GS_BANDED_SUMMARY_BYTES, &bi->summary);
  if (!ierr && ctx->ops->host_alloc) {
    ierr = ctx->ops->host_alloc(ctx, GS_BANDED_SUMMARY_HOST_BYTES, &bi->summary_host);
    if (!ierr) memset(bi->summary_host, 0, GS_BANDED_SUMMARY_HOST_BYTES);
  }
  if (!ierr) ierr = GsOptionsGetInt(ctx, "-banded_partitions", &parts, NULL);
  if (!ierr && (parts < 0 || parts > 1 << 20))
    ierr = GsError(ctx, GS_ERR_OPTION, "-banded_partitions %lld: must be in [0, 2^20]",
                   (long long)parts);
  if (!ierr) {
    if (!algo_set)
      algo = parts == 1  ? GS_BANDED_ALGORITHM_THREAD
             : parts > 1 ? GS_BANDED_ALGORITHM_SPIKE
                         : GS_BANDED_ALGORITHM_AUTO;
    if (algo != GS_BANDED_ALGORITHM_SPIKE) parts = 0;
    if (algo == GS_BANDED_ALGORITHM_SPIKE && bi->m < 8 * bi->h)
      algo = GS_BANDED_ALGORITHM_AUTO, parts = 0;
    if (algo == GS_BANDED_ALGORITHM_TILE && !tile_fits(bi)) algo = GS_BANDED_ALGORITHM_AUTO;
    if (algo == GS_BANDED_ALGORITHM_SCAN && !scan_fits(bi)) algo = GS_BANDED_ALGORITHM_AUTO;
    if (parts > 1 && bi->m / parts < 4 * bi->h) parts = bi->m / (4 * bi->h);
    ierr = configure(B, (GsBandedAlgorithm)algo, (int)parts);
  }
  if (!ierr) ierr = GsMemAlloc(ctx, (size_t)bi->nmat * sizeof(int), (void **)&B->fstatus);
  if (!ierr) ierr = GsMemAlloc(ctx, (size_t)bi->batch * sizeof(int), (void **)&B->status);
  if (!ierr) ierr = GsLogEventRegister(ctx, "BandedFactor", &B->ev_factor);
  if (!ierr) ierr = GsLogEventRegister(ctx, "BandedSolve", &B->ev_solve);
  if (!ierr) ierr = GsLogEventRegister(ctx, "BandedMult", &B->ev_mult);
  if (!ierr) ierr = GsLogEventRegister(ctx, "BandedFactorSolve", &B->ev_factor_solve);
  if (ierr) {
    GsBandedDestroy(A);
    return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  }
  return 0;
}

/* (Re)allocate the factor storage for the current partition count. */
static int alloc_factors(GsBanded A) {
  GsContext ctx = A->ctx;
  GsBandedInfo *bi = &A->info;
  for (int k = 0; k < GS_BANDED_MAX_FAC; k++) {
    GsMemFree(ctx, A->fac[k]);
    A->fac[k] = NULL;
  }
  GsMemFree(ctx, A->corner);
  GsMemFree(ctx, A->work);
  A->corner = A->work = NULL;
  if (bi->parts > 1) {
    bi->nfac = GS_BANDED_PART_NFAC(bi->bands, bi->spd, bi->periodic);
    bi->corner_len = bi->periodic ? GS_BANDED_PART_PERIODIC_LEN(bi->bands, bi->parts)
                                  : GS_BANDED_PART_CORNER_LEN(bi->bands, bi->parts);
  } else {
    bi->nfac = GS_BANDED_NFACTOR(bi->bands, bi->spd, bi->periodic);
    bi->corner_len = bi->periodic ? GS_BANDED_CORNER_LEN(bi->bands) : 0;
  }
  size_t es = GsDataTypeSize(bi->dt);
  GsInt diag_len = bi->shared ? bi->n : bi->rhs_len, fac_len = diag_len;
  if (bi->scan_layout) { /* the scan's own layout, padded to whole blocks */
    const GsInt sl = bi->parts > 1
                         ? gs_scan_layout_len(bi->batch * bi->parts, gs_banded_part_scan_p(bi),
                                              GS_BANDED_PART_SCAN_L, GS_BANDED_SCAN_THREADS)
                         : gs_scan_layout_len(bi->batch, bi->tile_p, bi->tile_l, bi->scan_threads);
    if (sl > fac_len) fac_len = sl;
  }
  for (int k = 0; k < bi->nfac; k++)
    GsCall(GsMemAlloc(ctx, (size_t)fac_len * es, &A->fac[k]));
  if (bi->corner_len)
    GsCall(GsMemAlloc(ctx, (size_t)bi->nmat * (size_t)bi->corner_len * es, &A->corner));
  if (bi->parts > 1) {
    size_t fw = (size_t)bi->nmat * (size_t)bi->parts * sizeof(int);
    /* Solve: the reduced unknowns per system; factor: the partition statuses, then (periodic)
     * the same scratch per matrix. */
    size_t sw =
        (size_t)bi->batch * (size_t)GS_BANDED_PART_X(bi->bands, bi->parts, bi->periodic) * es;
    if (sw < fw) sw = fw;
    /* a GPU's scan layout: one factor array in the matrix layout, to rearrange from */
    if (bi->scan_layout && sw < (size_t)diag_len * es) sw = (size_t)diag_len * es;
    GsCall(GsMemAlloc(ctx, sw, &A->work));
  } else if (bi->algo == GS_BANDED_ALGORITHM_TILE) {
    size_t len = (size_t)GS_BANDED_TILE_NTAB(bi->periodic) * (size_t)bi->tile_p * bi->tile_l;
    if (bi->tile_split) len += (size_t)gs_tile2_work_len(bi->periodic, bi->tile_p, bi->batch);
    /* a GPU's image of the set-up (the table's length is even: NTAB is) */
    if (GS_BANDED_TILE_HAS_IMAGE(bi) && ctx->ops->mem == GS_MEM_DEVICE)
      len += (size_t)gs_tile_image_len(bi->periodic, bi->tile_p, bi->tile_l);
    GsCall(GsMemAlloc(ctx, len * es, &A->work));
  } else if (bi->scan_layout) { /* one factor array in the matrix layout, to rearrange from */
    GsCall(GsMemAlloc(ctx, (size_t)diag_len * es, &A->work));
  }
  A->factored = 0;
  return 0;
}

/* Whether the TILE algorithm can serve a batch. */
static int tile_fits(const GsBandedInfo *bi) {
  return bi->shared && bi->m <= GS_BANDED_TILE_MAX_ROWS;
}

/* Rows per chunk of the SCAN algorithm: 8 for short systems, 16 past 256 rows (so at most 256
 * chunks a system). */
static int scan_rows(const GsBandedInfo *bi) {
  /* H200, double, interleaved, deferred checks, L = 8 / 16: penta 1024 x 1024 49.2 / 35.1 us,
   * 4096 x 1024 165 / 110 us, 1024 x 256 10.8 / 12.4 us, 1024 x 64 9.0 / 10.4 us; tri 4096 x 256
   * 20.4 / 16.9 us. */
  return bi->m > 256 ? 16 : 8;
}

/* Whether the SCAN algorithm can serve a batch. */
static int scan_fits(const GsBandedInfo *bi) {
  return bi->m <= GS_BANDED_SCAN_MAX_ROWS;
}

/* Whether the automatic choice on a GPU is the scan for a batch with a matrix per system: up to a
 * number of unknowns that depends on the bands and the rows, from H200 runs with the factors in
 * the scan's own layout (ca3f60a; double, deferred checks, scan / the other, us):
 * penta 16384 x 1024 326 / 393 (one thread per system), 32768 x 1024 645 / 595, 32768 x 512
 * 274 / 305, 65536 x 256 241 / 289; periodic 8192 x 1024 243 / 248 (SPIKE), 16384 x 1024 450 /
 * 415; 4096 x 2048 212 / 278 (SPIKE), 1024 x 4096 173 / 230, 2048 x 4096 310 / 272; LDL^T
 * 16384 x 1024 260 / 382;
 * tri 65536 x 1024 815 / 900, 32768 x 512 177 / 227, periodic 16384 x 1024 238 / 363;
 * 2048 x 2048 93 / 107 (SPIKE), 4096 x 2048 168 / 153, 512 x 4096 71 / 113, 1024 x 4096
 * 144 / 121.
 * Below 256 rows (8-row chunks) the bound measured before stays: fewer than 16384 systems
 * (penta 1024 x 64: scan 9.0 us, one thread 16.6).
 * Since the warp chains' maps spread over the banks (4acad11), the scan takes more (H200, deferred
 * checks, two rounds, scan / the other, medians, us): penta 65536 x 1024 1049.5 / 1106.6 (one
 * thread a system, staged; staged_beats_scan below), 65536 x 512 473.5 / 536.3, 131072 x 512
 * 936.0 / 1067.6; LDL^T 65536 x 1024 948.5 / 1116.9; periodic penta, n = 1026: 16384 systems
 * 373.3 / 413.9, 32768: 648.5 / 625.7 (so the bound stays there), 65536: 1440.7 / 1197.2; tri
 * periodic 65536 x 1024 820.2 / 921.3; tri 4096 x 2048 108.2 / 116.8 (SPIKE). Not past 2048
 * rows: penta 2048 x 4096 284.0 / 169.1 (SPIKE), tri 1024 x 4096 98.6 / 66.1. */
static int scan_auto(const GsBandedInfo *bi) {
  if (bi->shared || !scan_fits(bi) || bi->m < 32) return 0;
  if (bi->m < 256) return bi->batch < 16384;
  GsInt most; /* unknowns */
  /* Interleaved tri batches of 1025 to 2048 rows up to 2^26 unknowns (before: 2^23). H200,
   * deferred checks, two rounds, the scan (512-thread blocks) against one thread a system (us):
   * 16384 x 2048 425.1 / 422.6 against 590.1 / 588.9, 32768 x 2048 864.4 / 865.1 against 903.8 /
   * 900.1; float 16384 x 2048 (in halves) 241.4 / 242.6 against 307.2 / 307.6 (staged). Past 2048
   * rows SPIKE (8 partitions) stays faster than the scan in halves: 1024 x 4096 66.2 / 66.3
   * against 75.4 / 75.4, 4096 x 4096 199.4 / 198.6 against 260.1 / 259.9, float 153.0 / 149.7
   * against 172.1 / 171.6 (float 1024 x 4096 level: 50.9 / 51.0 against 48.7 / 49.2). */
  if (bi->bands == 3)
    most = bi->m <= 1024   ? (GsInt)1 << 26
           : bi->m <= 2048 ? (bi->interleaved ? (GsInt)1 << 26 : (GsInt)1 << 23)
                           : (GsInt)1 << 21;
  else
    most = bi->m <= 256    ? (GsInt)1 << 24
           : bi->m <= 1024 ? (bi->periodic ? (GsInt)1 << 24 : (GsInt)1 << 26)
           : bi->m <= 2048 ? (GsInt)1 << 23
                           : (GsInt)1 << 22;
  /* Interleaved double LU batches of 2033 to 2048 rows, where the GPU's scan blocks pair their
   * groups of 2 systems (banded.cu, GS_SCAN_PAIR_AUTO_NS): up to 16384 systems. H200, 975092a,
   * deferred checks (us): 16384 x 2048 paired scan 679.6 / 679.7, plain scan 784.7 / 786.8, one
   * thread a system (the choice before) 790.2. (Since 68099fe those scans run in halves: 543.)
   * Periodic ones since their scans run in halves too (gs_banded_scan_hp_k_d), and periodic ones
   * of 1009 to 1024 rows (m = n - 2) like the others, up to 2^26 unknowns. H200, deferred checks,
   * two rounds, scan in halves against one thread a system (us): n = 1024, 65536 systems 1151.9
   * / 1153.8 against 1197.1 / 1206.4, 32768: 595.2 / 597.9 against 621.6 / 621.1; n = 2050,
   * 16384: 621.0 / 616.2 against 802.7 / 809.1. */
  const int dlu = bi->bands == 5 && !bi->spd && bi->dt == GS_DOUBLE && bi->interleaved;
  if (dlu && bi->m > 2032 && bi->m <= 2048) most = (GsInt)1 << 25;
  if (dlu && bi->periodic && bi->m > 1008 && bi->m <= 1024) most = (GsInt)1 << 26;
  return bi->batch <= most / bi->m;
}

/* Whether a GPU batch that neither the scan nor the usual SPIKE rule (fewer than 16384 systems,
 * 4 partitions or more) takes goes to SPIKE anyway instead of one thread a system: interleaved
 * systems of their own past 2048 rows, which one thread a system walks with too few warps in
 * flight however large the batch (the partitions then hold at most 512 rows: configure). H200,
 * 4dedf4b, deferred checks, medians of two rounds, one thread a system (the choice before) /
 * SPIKE with 8 partitions / the scan (us): tri n = 4096, 8192 systems 979.3 / 374.5 / 412.1,
 * 16384: 1187.0 / 730.1 / 820.0, 32768: 1797.6 / 1455.8 / 1700.6, 65536: 3610.6 / 2922.9 /
 * 3391.2; periodic 16384 x 4096 1403.7 / 752.9 / 994.5; 16384 x 3000 873.1 / 615.8 / 1030.3;
 * penta 16384 x 4096 1576.5 / 1126.3 / 1608.3, 65536 x 4096 4604.6 / 4501.4 / 6682.5. Through
 * the automatic choice (two rounds, one thread a system / auto): float tri 16384 x 4096 1063.3 /
 * 1058.7 -> 525.6 / 525.8, 16384 x 3000 776.7 / 775.4 -> 409.2 / 410.9 (6 partitions), periodic
 * penta 16384 x 4096 1602.3 / 1601.5 -> 1191.5 / 1196.1, tri 16384 x 2050 589.1 / 594.6 -> 466.2
 * / 462.6 (5), penta 8192 x 4096 1306.8 / 1303.3 -> 575.0 / 579.1, float 16384 x 4096 1180.2 /
 * 1188.1 -> 579.6 / 576.7. Contiguous batches keep one thread a system: tri 16384 x 4096 2407.6 /
 * 2347.4 against SPIKE's 2 partitions (the count without this rule) 3065.6 / 3067.4; 8 were not
 * measured. */
static int spike_long(const GsBandedInfo *bi) {
  return !bi->shared && bi->interleaved && bi->m > 2048;
}

/* *yes: whether a batch the scan would take runs faster as staged one-thread solves (the CUDA
 * back end's -banded_staged, where the forward results in flight fit in L2): pentadiagonal LU
 * batches of 4096 systems or more (about a warp per SM) of 513 to 1024 rows. H200, each call
 * checked, two rounds, scan against staged THREAD (us): double n = 520, 4096 systems 70.1 / 70.1
 * against 54.8 / 54.7, 16384: 186.8 / 185.6 against 160.3 / 159.9; n = 768, 4096: 86.6 / 89.8
 * against 69.2 / 75.0, 16384: 268.0 / 272.1 against 235.1 / 233.4; n = 1024, 4096: 105.3 / 103.7
 * against 89.1 / 86.7, 8192: 182.1 / 180.9 against 158.1 / 164.0, 16384: 341.5 / 345.4 against
 * 301.4 / 308.0; float n = 1024, 16384: 217.3 / 222.5 against 156.6 / 158.0. At 512 rows (the
 * scan's chunks number 32) the two are level: 16384 x 512 141.9 against 144.7. Tri batches stay
 * with the scan (16384 x 1024: 203.5 against 219.8), and so do LDL^T ones (staged since 7dad27b:
 * 4096 x 1024 91.1 / 91.0 against 82.7 / 85.2, but 16384 x 1024 276.6 / 277.9 against 297.6 /
 * 301.7).
 * Since 4acad11 (the scan's warp chains without bank conflicts) double batches of 8192 systems or
 * more of 993 to 1024 rows (63 or 64 chunks) go to the scan. H200, deferred checks, two rounds,
 * medians, scan against staged THREAD (us): n = 1024, 4096 systems 77.8 / 71.5, 8192: 135.2 /
 * 141.2, 16384: 269.6 / 287.9, 32768: 531.7 / 548.0, 65536: 1049.5 / 1106.6; but n = 960, 16384:
 * 271.8 / 268.1; n = 896: 250.8 / 246.3; n = 768: 244.0 / 218.6; n = 520: 167.4 / 148.1; float
 * n = 1024, 16384: 197.6 / 141.1, 65536: 793.7 / 546.7. (LDL^T 4096 x 1024: 72.8 / 69.9, left
 * with the scan.) */
static int staged_beats_scan(GsBanded A, int *yes) {
  const GsBandedInfo *bi = &A->info;
  *yes = 0;
  /* The rule's own bounds; the layout and kind of matrix staging needs, the back end checks. */
  if (bi->bands != 5 || bi->spd || bi->m <= 512 || bi->m > 1024 || bi->batch < 4096 ||
      !A->ctx->ops->banded.staged_auto)
    return 0;
  if (bi->dt == GS_DOUBLE && bi->m > 992 && bi->batch >= 8192) return 0;
  GsCall(A->ctx->ops->banded.staged_auto(A->ctx, bi, yes));
  return 0;
}

/* Set the algorithm (parts: SPIKE's partition count, 0 for automatic) and size the factors. */
static int configure(GsBanded A, GsBandedAlgorithm algo, int parts) {
  GsContext ctx = A->ctx;
  GsBandedInfo *bi = &A->info;
  A->auto_algo = algo == GS_BANDED_ALGORITHM_AUTO;
  const GsInt min_rows = 4 * bi->h; /* a partition holds its first and last h rows apart */
  const int gpu = ctx->ops->mem == GS_MEM_DEVICE;
  /* Partitions for few systems on a GPU: enough for about 16K threads (each keeps 16 rows of loads
   * in flight), none shorter than 64 rows (tri) or 128 (penta). Measured on the H200 with deferred
   * checks, double: tri 1024 x 1024: P = 8 67 us, 16 64 us, 32 84 us; penta 1024 x 1024: 4 124 us,
   * 8 105 us, 16 133 us; penta 1024 x 65536: 8 3.23 ms, 16 2.23 ms, 32 2.41 ms, 64 2.40 ms. */
  GsInt want = (16384 + bi->batch - 1) / bi->batch, most = bi->m / (bi->bands == 3 ? 64 : 128);
  /* Batches of 2049 to 4096 systems take 8 (shared periodic penta 4096 x 4096, the ADI sweeps of
   * a 4096^2 grid: interleaved 0.290 ms with 4, 0.241 with 8; contiguous 1.013 / 0.806 ms). */
  if (want >= 4 && want < 8) want = 8;
  const int auto_parts = (int)(want < most ? want : most);
  if (algo == GS_BANDED_ALGORITHM_AUTO) {
    /* Tile beats one thread per system for a shared matrix unless the batch is large and the
     * systems short (H200, penta, double: 65536 x 1024 tile 0.51 ms, thread 0.59; 65536 x 256
     * tile 0.19, thread 0.15; 1024 x 1024 tile 0.035, thread 0.19). Up to 4096 rows it also
     * beats SPIKE, whose cost depends on the matrix: its correction pass skips the rows where the
     * spikes have decayed below rounding, which for a diagonally dominant matrix is nearly all of
     * them but for the stiff ADI factors of Cahn-Hilliard none (H200, 4096^2 double, Nsight
     * Compute: correction 45 us on the benchmark's random rows, 315-387 us on Cahn-Hilliard's;
     * the step's two sweeps 1.155 ms with SPIKE(8), 0.758 with TILE). */
    if (gpu && tile_fits(bi) && (bi->batch < 16384 || bi->m > 384)) algo = GS_BANDED_ALGORITHM_TILE;
    /* The chunked scan beats SPIKE and one thread per system for small batches (penta 1024 x
     * 1024: scan 36 / SPIKE 127 / one thread 263 us, tri 20 / 67 / 178 us, before ca3f60a) and,
     * since its factors have their own layout (ca3f60a), for large ones up to a number of unknowns
     * (scan_auto, with the figures). */
    else if (gpu && scan_auto(bi)) {
      int staged = 0;
      GsCall(staged_beats_scan(A, &staged));
      algo = staged ? GS_BANDED_ALGORITHM_THREAD : GS_BANDED_ALGORITHM_SCAN;
    } else if (gpu && ((bi->batch < 16384 && auto_parts >= 4) || spike_long(bi))) {
      algo = GS_BANDED_ALGORITHM_SPIKE, parts = auto_parts;
      /* Batches of their own matrices past 2048 rows: tri in ceil(m / 512) partitions, penta in
       * at least that many (more where the usual count is larger), so that no partition exceeds
       * 512 rows and the GPU runs every partial solve as a chunked scan (part_scan in the CUDA
       * back end). H200, deferred checks (us): tri 1024 x 4096, 16 partitions 94.7, 8: 85.8
       * (one thread per partition, 16: 121.1); 1024 x 65536, 128: 1015, 256: 1208 (one thread a
       * partition, 16: 1165, 64: 1055); with the warp's reduced solve (b770ad3) 1024 x 65536,
       * 128: 799, 256: 791, and 1024 x 4096, 8: 78; penta 1024 x 65536, 16: 1446, 128: 1391;
       * periodic 16: 1458, 128: 1436; periodic tri 16: 1162, 128: 848; contiguous penta 16:
       * 4465, 128: 2095; contiguous tri 16: 5236, 128: 1246. From 2049 rows, so that every
       * partition gets the scan. */
      if (!bi->shared && bi->m > 2048) {
        const int p512 = (int)((bi->m + 511) / 512);
        parts = bi->bands == 3 || p512 > parts ? p512 : parts;
      }
    } else
      algo = GS_BANDED_ALGORITHM_THREAD;
  }
  switch (algo) {
  case GS_BANDED_ALGORITHM_THREAD:
    parts = 1;
    break;
  case GS_BANDED_ALGORITHM_SPIKE:
    if (parts == 0) parts = auto_parts >= 2 ? auto_parts : 2;
    GsCheck(parts >= 2 && bi->m / parts >= min_rows, ctx, GS_ERR_ARG_OUTOFRANGE,
            "partitions = %d leaves fewer than %lld rows per partition (%s%lld)", parts,
            (long long)min_rows, bi->periodic ? "periodic: n - h = " : "n = ", (long long)bi->m);
    break;
  case GS_BANDED_ALGORITHM_TILE:
    GsCheck(
        bi->shared, ctx, GS_ERR_UNSUPPORTED,
        "the tile algorithm is for a matrix shared by the batch; this batch has one per system");
    GsCheck(bi->m <= GS_BANDED_TILE_MAX_ROWS, ctx, GS_ERR_UNSUPPORTED,
            "the tile algorithm takes at most %d rows%s; n = %lld", GS_BANDED_TILE_MAX_ROWS,
            bi->periodic ? " (plus h for a periodic matrix)" : "", (long long)bi->n);
    parts = 1;
    break;
  case GS_BANDED_ALGORITHM_SCAN:
    GsCheck(scan_fits(bi), ctx, GS_ERR_UNSUPPORTED,
            "the scan algorithm takes at most %d rows%s; n = %lld", GS_BANDED_SCAN_MAX_ROWS,
            bi->periodic ? " (plus h for a periodic matrix)" : "", (long long)bi->n);
    parts = 1;
    break;
  default:
    return GsError(ctx, GS_ERR_ARG_OUTOFRANGE, "unknown banded algorithm %d", (int)algo);
  }
  bi->algo = (int)algo;
  bi->parts = parts;
  bi->tile_l = algo == GS_BANDED_ALGORITHM_TILE   ? gs_tile_rows(bi->m)
               : algo == GS_BANDED_ALGORITHM_SCAN ? scan_rows(bi)
                                                  : 0;
  bi->tile_p = bi->tile_l ? (int)((bi->m + bi->tile_l - 1) / bi->tile_l) : 0;
  /* A GPU's TILE solves of more than 32 chunks run in two passes over f (banded_algo.h,
   * GS_TILE2_L) unless -banded_tile_passes one; -banded_tile_passes two takes them for any
   * length. So do contiguous batches of 4096 systems or more of 993 to 1024 rows (32 chunks of
   * 32), whose one-pass kernel loads each thread's own rows where the two passes stage 32
   * systems' rows through shared memory: H200, de452f9, deferred checks, one pass -> two (us):
   * periodic stiff 1024 x 4096 / 16384 / 65536 systems 70.2 -> 66.9, 226.3 -> 191.8, 774.3 ->
   * 682.5, not periodic 61.6 -> 53.6, 200.3 -> 163.2, 712.2 -> 576.0; at 512 rows level or worse
   * (periodic 4096 systems 37.6 -> 44.4), so those keep one pass. */
  const int contig_long = !bi->interleaved && bi->batch >= 4096 && bi->m > 992;
  bi->tile_split =
      gpu && algo == GS_BANDED_ALGORITHM_TILE &&
      (bi->tile_passes == GS_BANDED_TILE_PASSES_TWO ||
       (bi->tile_passes == GS_BANDED_TILE_PASSES_AUTO && (bi->tile_p > 32 || contig_long)));
  if (bi->tile_split) {
    bi->tile_l = GS_TILE2_L;
    bi->tile_p = (int)((bi->m + GS_TILE2_L - 1) / GS_TILE2_L);
  }
  bi->scan_layout = gpu && !bi->shared &&
                    (algo == GS_BANDED_ALGORITHM_SCAN ||
                     (algo == GS_BANDED_ALGORITHM_SPIKE && gs_banded_part_scan(bi)));
  /* Tri systems of over 64 chunks (past 1024 rows) in 512-thread blocks: twice the systems a
   * block, so each row of f and x is twice as wide (16 bytes at 2048 rows, 8 at 4096 with 256
   * threads). H200, deferred checks, 256 -> 512 threads, two rounds (us): tri 2048 x 2048 95.7 /
   * 93.9 -> 70.3 / 70.4, 512 x 4096 72.5 / 69.9 -> 57.5 / 57.4. The pentadiagonal LU kernels need
   * 168 registers a thread, too many for 512.
   * At 1009 to 1024 rows (64 chunks: 4 systems a block, pieces of 32 bytes) only for large
   * interleaved batches, where the L2's requests bound the solve: a row of f or x is a request of
   * its own, and 512 threads halve them. H200 at 1867402, deferred checks, two rounds, 256 -> 512
   * threads (us): 65536 x 1024 773.9 / 775.1 -> 694.2 / 698.9 (each call checked 798.8 / 798.8
   * -> 722.9 / 716.0), periodic 760.5 / 762.1 -> 742.2 / 740.8, float 778.5 / 784.2 -> 524.4 /
   * 520.1; Nsight Compute at 65536 x 1024: L2 requests 82.5M -> 56.5M, L2 throughput 93 -> 90 %,
   * DRAM 72.6 -> 81.2 %, 769.5 -> 688.0 us. Level or slower below: 16384 x 1024 190.5 / 190.9 ->
   * 190.7 / 190.1, periodic 198.5 / 198.0 -> 203.6 / 203.9, 4096 x 1024 56.2 / 58.1 -> 60.9 /
   * 61.0, 1024 x 1024 18.1 / 17.7 -> 16.5 / 17.6. (An earlier measurement, before the scans' warp
   * chains lost their bank conflicts at 4acad11, had 65536 x 1024 812.4 / 815.2 -> 801.5 / 809.3
   * and 16384 x 1024 203.9 -> 218.8.) -banded_scan_wide on takes 512 threads for every tri scan
   * of 16-row chunks, off never.
   * Float pentadiagonal LU scans take 512 threads as well (118 registers a thread; double needs
   * 166 and more, banded.cu) for interleaved batches past 1024 rows, and of 1009 to 1024 rows
   * from 4096 systems on. H200, deferred checks, scan forced, 256 -> 512 threads, two rounds
   * (us): 65536 x 1024 785.9 / 782.1 -> 575.9 / 574.9, 16384 x 1024 196.8 / 197.7 -> 155.1 /
   * 155.6, 4096 x 1024 51.5 / 51.3 -> 48.8 / 49.2, 16384 x 2048 506.9 / 505.4 -> 393.8 / 404.1,
   * periodic 65536 x 1024 850.5 / 854.9 -> 660.7 / 659.7; a later call: 2048 x 2048 75.2 / 75.2
   * -> 62.0 / 60.9, 1024 x 4096 115.6 / 114.2 -> 82.8 / 81.7, periodic 16384 x 1024 214.6 / 213.8
   * -> 181.5 / 186.0, 4096 x 1024 61.7 / 62.3 -> 54.4 / 55.7, 4096 x 2048 154.6 / 151.3 -> 122.1 /
   * 120.3; but slower at 32 chunks (131072 x 512 491.8 / 491.6 -> 528.3 / 528.1) and contiguous
   * (16384 x 1024 141.9 / 139.5 -> 165.2 / 164.5, 4096 x 2048 80.1 / 80.9 -> 93.8 / 93.3). Where
   * the automatic choice takes another algorithm, that stays faster: the staged one-thread solves
   * of float LU at 1024 rows (staged_beats_scan: 550.6 / 553.5 us at 65536, 140.4 / 140.5 at
   * 16384), one thread a system for periodic 65536 x 1024 (606.8 / 604.2 against 660.4 / 664.3),
   * 16384 x 2048 (355.8 / 357.9 against 399.8 / 401.3) and 4096 x 4096 (166.4 / 165.4 against
   * 283.3 / 286.8)
   * Double pentadiagonal LU scans (a matrix per system, not periodic) of 64, 128 and 256 chunks
   * take a 512-thread block's systems in a 256-thread block, in two halves (banded.cu,
   * gs_banded_scan_h_k_d; 168 and more registers a thread leave no room for 512 threads), for
   * interleaved batches past 1024 rows, and of 1009 to 1024 rows from 16384 systems on. H200,
   * deferred checks, scan forced, 256 threads -> halves, two rounds (us): 65536 x 1024 1051.2 /
   * 1056.0 -> 989.5 / 990.0 (each call checked 1066.9 / 1063.4 -> 1007.5 / 1006.3), 16384 x 1024
   * 268.6 / 270.5 -> 266.3 / 268.1, 16384 x 2048 674.6 / 673.3 -> 544.5 / 543.3 (the paired
   * groups, the automatic choice there before, took 680), 2048 x 2048 99.0 / 99.2 -> 82.0 / 82.8,
   * 1024 x 4096 157.4 / 158.7 -> 106.0 / 106.1, 4096 x 4096 540.7 / 538.3 -> 365.7 / 366.6; level
   * at 1024 x 1024 (28.2 / 26.3 -> 26.8 / 26.6); slower at 4096 x 1024 (80.1 / 78.1 -> 82.1 /
   * 80.9) and contiguous (16384 x 1024 289.5 / 289.2 -> 315.6 / 318.7).
   * Periodic ones as well (gs_banded_scan_hp_k_d), from 1024 systems at 1009 to 1024 rows of E
   * (n = m + 2). H200, deferred checks, scan forced, 256 threads -> halves (us; the halves in the
   * build before their correction read the second half back, 2-3 % slower than now): 65536 x 1024
   * 1348.2 -> 1151.9 / 1153.8, 16384 x 1024 356.8 / 353.5 -> 319.3 / 316.1, 4096 x 1024 93.1 /
   * 93.1 -> 89.8 / 90.2, 4096 x 2050 202.0 / 203.3 -> 169.9 / 166.6, 1024 x 4098 160.2 / 159.1 ->
   * 112.0 / 110.2; the committed build: 65536 x 1024 1339.9 -> 1099.4 / 1088.0, 1024 x 1024 32.4 /
   * 33.0 -> 29.0 / 30.6. */
  const GsInt wide_min = bi->bands == 3        ? GS_SCAN_WIDE_MIN_BATCH
                         : bi->dt == GS_DOUBLE ? (bi->periodic ? GS_SCAN_HALVES_PER_MIN_BATCH
                                                               : GS_SCAN_HALVES_MIN_BATCH)
                                               : GS_SCAN_WIDE_P_MIN_BATCH;
  const int wide_auto =
      (bi->bands == 3 || bi->interleaved) &&
      (bi->tile_p > 64 || (bi->tile_p == 64 && bi->interleaved && bi->batch >= wide_min));
  /* Double pentadiagonal LU scans with a matrix per system, periodic or not, of 64, 128 or 256
   * chunks take a 512-thread block's systems in 256 threads, in two halves (banded.cu,
   * gs_banded_scan_h_k_d, gs_banded_scan_hp_k_d): in the interleaved layout each row of f and x is
   * a piece of twice the systems (64 bytes at 1024 rows). */
  const int halves = bi->bands == 5 && bi->dt == GS_DOUBLE && !bi->spd && !bi->shared &&
                     (bi->tile_p == 64 || bi->tile_p == 128 || bi->tile_p == 256);
  bi->scan_threads = algo == GS_BANDED_ALGORITHM_SCAN && bi->tile_l == 16 &&
                             (bi->bands == 3 || (bi->dt == GS_FLOAT && !bi->spd) || halves) &&
                             (bi->scan_wide == GS_BANDED_STAGED_ON ||
                              (bi->scan_wide == GS_BANDED_STAGED_AUTO && wide_auto))
                         ? 2 * GS_BANDED_SCAN_THREADS
                         : GS_BANDED_SCAN_THREADS;
  /* Tri LU scans of 64, 128 or 256 chunks in 512-thread blocks take the systems of 1024 threads in
   * two halves of rows (banded.cu, gs_banded_scan_h3_k): in the interleaved layout each row of f
   * and x is a piece of twice the systems (128 bytes at 1024 rows in double). Taken (auto) in
   * float, and in double at 256 chunks (4081 to 4096 rows) and at 128 when not periodic from
   * GS_SCAN_HALVES3_D128_MIN_CHUNKS (below), for interleaved batches of GS_SCAN_HALVES3_MIN_CHUNKS
   * chunks or more. H200, deferred checks, two rounds, -banded_scan_halves off -> on (us): float
   * 65536 x 1024 518.5 / 517.0 -> 475.2 / 473.9, 32768 x 1024 273.3 / 274.2 -> 246.6 / 245.6,
   * periodic 65536 x 1024 588.4 / 590.4 -> 512.9 / 510.5, 16384 x 2048 374.2 / 376.4 -> 243.0 /
   * 243.1, 2048 x 2048 56.8 / 55.5 -> 40.8 / 39.6, 4096 x 4096 282.3 / 280.4 -> 172.4 / 172.5, 512
   * x 4096 41.2 / 41.3 -> 26.8 / 27.4; double 512 x 4096 53.7 / 53.1 -> 43.9 / 44.0, periodic 55.5
   * / 55.6 -> 48.4 / 47.7, 1024 x 4096 99.3 / 98.8 -> 76.0 / 76.4, 4096 x 4096 337.2 / 335.3 ->
   * 263.1 / 264.1; slower: double 256 x 4096 (64 blocks) 26.3 / 26.6 -> 29.2 / 29.5, 16384 x 2048
   * 422.4 / 424.7 -> 470.0 / 472.2, 65536 x 1024 702.5 / 703.4 -> 905.9 / 904.3, periodic 742.3 /
   * 745.5 -> 963.7 / 957.0. Since the tri chains carry one value (5fff0d9) double halves spill 12
   * bytes instead of 196 and win at 128 chunks (2033 to 2048 rows) from 16384 systems, not periodic
   * (the periodic kernel still spills 88). Medians of two rounds, 512 threads -> halves (us): 32768
   * x 2048 813.2 -> 732.8, 16384 x 2048 394.9 -> 379.5; level or slower below and when periodic:
   * 1024 x 2048 35.1 -> 35.1, 4096 x 2048 102.5 -> 108.1, periodic 16384 x 2048 419.8 -> 468.1;
   * 65536 x 1024 (64 chunks) 690.8 -> 739.5. Through the automatic choice, in another call: 16384 x
   * 2048 392.6 -> 372.3, 4096 x 2048 100.2 -> 100.8 (not taken there). -banded_scan_halves on takes
   * them wherever the kernel applies, off never. */
  const int halves3 = bi->bands == 3 && !bi->spd && !bi->shared &&
                      bi->scan_threads == 2 * GS_BANDED_SCAN_THREADS &&
                      (bi->tile_p == 64 || bi->tile_p == 128 || bi->tile_p == 256);
  const GsInt chunks = bi->batch * bi->tile_p;
  const int halves3_auto =
      bi->interleaved && chunks >= GS_SCAN_HALVES3_MIN_CHUNKS &&
      (bi->dt == GS_FLOAT || bi->tile_p == 256 ||
       (bi->tile_p == 128 && !bi->periodic && chunks >= GS_SCAN_HALVES3_D128_MIN_CHUNKS));
  if (halves3 && (bi->scan_halves == GS_BANDED_STAGED_ON ||
                  (bi->scan_halves == GS_BANDED_STAGED_AUTO && halves3_auto)))
    bi->scan_threads = 4 * GS_BANDED_SCAN_THREADS;
  GsCall(alloc_factors(A));
  return 0;
}

int GsBandedSetAlgorithm(GsBanded A, GsBandedAlgorithm algo) {
  GsCheckHandle(NULL, A);
  GsCall(configure(A, algo, 0));
  return 0;
}

int GsBandedGetAlgorithm(GsBanded A, GsBandedAlgorithm *algo) {
  GsCheckHandle(NULL, A);
  GsCheckHandle(A->ctx, algo);
  *algo = (GsBandedAlgorithm)A->info.algo;
  return 0;
}

int GsBandedGetStaged(GsBanded A, int *staged) {
  GsCheckHandle(NULL, A);
  GsCheckHandle(A->ctx, staged);
  *staged = A->last.staged;
  return 0;
}

const char *GsBandedAlgorithmName(GsBandedAlgorithm algo) {
  switch (algo) {
  case GS_BANDED_ALGORITHM_AUTO:
    return "auto";
  case GS_BANDED_ALGORITHM_THREAD:
    return "thread";
  case GS_BANDED_ALGORITHM_SPIKE:
    return "spike";
  case GS_BANDED_ALGORITHM_TILE:
    return "tile";
  case GS_BANDED_ALGORITHM_SCAN:
    return "scan";
  }
  return "unknown";
}

int GsBandedSetPartitions(GsBanded A, int parts) {
  GsCheckHandle(NULL, A);
  GsCheck(parts >= 0, A->ctx, GS_ERR_ARG_OUTOFRANGE, "partitions = %d: must be >= 0 (0: automatic)",
          parts);
  GsBandedAlgorithm algo = parts == 0   ? GS_BANDED_ALGORITHM_AUTO
                           : parts == 1 ? GS_BANDED_ALGORITHM_THREAD
                                        : GS_BANDED_ALGORITHM_SPIKE;
  GsCall(configure(A, algo, parts));
  return 0;
}

int GsBandedGetPartitions(GsBanded A, int *parts) {
  GsCheckHandle(NULL, A);
  GsCheckHandle(A->ctx, parts);
  *parts = A->info.parts;
  return 0;
}

int GsBandedSetTilePasses(GsBanded A, int passes) {
  GsCheckHandle(NULL, A);
  GsCheck(passes >= 0 && passes <= 2, A->ctx, GS_ERR_ARG_OUTOFRANGE,
          "tile passes = %d: must be 0 (automatic), 1 or 2", passes);
  A->info.tile_passes = passes == 1   ? GS_BANDED_TILE_PASSES_ONE
                        : passes == 2 ? GS_BANDED_TILE_PASSES_TWO
                                      : GS_BANDED_TILE_PASSES_AUTO;
  GsCall(configure(A, A->auto_algo ? GS_BANDED_ALGORITHM_AUTO : (GsBandedAlgorithm)A->info.algo,
                   A->info.algo == GS_BANDED_ALGORITHM_SPIKE ? A->info.parts : 0));
  return 0;
}

int GsBandedGetScanThreads(GsBanded A, int *threads) {
  GsCheckHandle(NULL, A);
  GsCheckHandle(A->ctx, threads);
  const int gpu = A->ctx->ops->mem == GS_MEM_DEVICE;
  *threads = gpu && A->info.algo == GS_BANDED_ALGORITHM_SCAN ? A->info.scan_threads : 0;
  return 0;
}

int GsBandedGetTilePasses(GsBanded A, int *passes) {
  GsCheckHandle(NULL, A);
  GsCheckHandle(A->ctx, passes);
  *passes = A->info.algo != GS_BANDED_ALGORITHM_TILE ? 0 : A->info.tile_split ? 2 : 1;
  return 0;
}

int GsBandedDestroy(GsBanded *A) {
  if (!A || !*A) return 0;
  GsBanded B = *A;
  for (int k = 0; k < GS_BANDED_MAX_FAC; k++)
    GsMemFree(B->ctx, B->fac[k]);
  GsMemFree(B->ctx, B->corner);
  GsMemFree(B->ctx, B->work);
  GsMemFree(B->ctx, B->fstatus);
  GsMemFree(B->ctx, B->status);
  GsMemFree(B->ctx, B->info.summary);
  if (B->info.summary_host) (void)B->ctx->ops->host_free(B->ctx, B->info.summary_host);
  B->ctx->nobjects--;
  free(B);
  *A = NULL;
  return 0;
}

int GsBandedGetDesc(GsBanded A, GsBandedDesc *desc) {
  GsCheckHandle(NULL, A);
  GsCheckHandle(A->ctx, desc);
  *desc = A->desc;
  return 0;
}

int GsBandedGetSizes(GsBanded A, GsInt *diag_len, GsInt *rhs_len) {
  GsCheckHandle(NULL, A);
  if (diag_len) *diag_len = A->info.shared ? A->info.n : A->info.rhs_len;
  if (rhs_len) *rhs_len = A->info.rhs_len;
  return 0;
}

/* Check one vector against the batch: context, type, and a length of `len` (times a positive
 * count when count is not NULL). */
static int check_vec(GsBanded A, GsVec v, const char *name, GsInt len, GsInt *count) {
  GsContext ctx = A->ctx;
  GsInt n;
  GsCall(GsVecCheckFor(ctx, v, name, "the batch", A->info.dt, &n));
  if (count) {
    GsCheck(n > 0 && n % len == 0, ctx, GS_ERR_ARG_SIZE,
            "%s has %lld entries: not a positive multiple of the %lld entries of one block of "
            "right-hand sides (n = %lld, batch = %lld, %s layout)",
            name, (long long)n, (long long)len, (long long)A->info.n, (long long)A->info.batch,
            A->info.interleaved ? "interleaved" : "contiguous");
    *count = n / len;
  } else {
    GsCheck(n == len, ctx, GS_ERR_ARG_SIZE, "%s has %lld entries, expected %lld (n = %lld%s%s)",
            name, (long long)n, (long long)len, (long long)A->info.n,
            A->info.shared ? ", shared matrix" : "",
            A->info.shared ? "" : " times the batch, in the layout");
  }
  return 0;
}

/* Pointers to the diagonals, checked. */
static int get_diags(GsBanded A, const GsVec diag[], void **D) {
  GsCheck(diag != NULL, A->ctx, GS_ERR_ARG_NULL, "array of diagonals is NULL");
  GsInt len = A->info.shared ? A->info.n : A->info.rhs_len;
  for (int k = 0; k < A->info.bands; k++) {
    char name[32];
    snprintf(name, sizeof name, "diagonal %d", k);
    GsCall(check_vec(A, diag[k], name, len, NULL));
  }
  for (int k = 0; k < A->info.bands; k++)
    GsCall(GsVecGetComputeArray(diag[k], GS_ACCESS_READ, &D[k]));
  return 0;
}

/* Turn a summary into the call's result: 0, or an error naming the first bad system. */
static int report(GsBanded A, const char *what) {
  const GsBandedSummary *s = &A->last;
  if (!s->nbad) return 0;
  int code = s->code == GS_BANDED_ZERO_PIVOT ? GS_ERR_ZERO_PIVOT : GS_ERR_NOT_FINITE;
  int c = s->code >= 0 && s->code <= 2 ? s->code : 0;
  return GsError(A->ctx, code,
                 "%s: %lld of %lld systems failed; the first is system %lld (%s)%s; the other "
                 "systems were solved (GsBandedGetSystemStatus lists them all)",
                 what, (long long)s->nbad, (long long)A->info.batch, (long long)s->first,
                 status_text[c],
                 A->info.shared && s->code == GS_BANDED_ZERO_PIVOT ? " in the shared matrix" : "");
}

/* Before a call: whether it keeps the statuses of earlier ones (deferred checks). */
static void begin_call(GsBanded A) {
  A->last.staged = 0;
  A->info.deferred = A->check == GS_BANDED_CHECK_DEFERRED;
  A->info.accumulate = A->info.deferred && A->pending;
}

/* After a call: report its bad systems now, or leave them for GsBandedCheckStatus. */
static int end_call(GsBanded A, const char *what) {
  if (A->info.deferred) {
    A->pending = 1;
    return 0;
  }
  return report(A, what);
}

int GsBandedSetCheck(GsBanded A, GsBandedCheck mode) {
  GsCheckHandle(NULL, A);
  GsCheck(mode == GS_BANDED_CHECK_EACH || mode == GS_BANDED_CHECK_DEFERRED, A->ctx,
          GS_ERR_ARG_OUTOFRANGE, "unknown check mode %d (GS_BANDED_CHECK_EACH or _DEFERRED)",
          (int)mode);
  GsCheck(!A->pending, A->ctx, GS_ERR_WRONG_STATE,
          "calls made in deferred mode have not been checked: call GsBandedCheckStatus before "
          "changing the mode");
  A->check = mode;
  return 0;
}

int GsBandedGetCheck(GsBanded A, GsBandedCheck *mode) {
  GsCheckHandle(NULL, A);
  GsCheckHandle(A->ctx, mode);
  *mode = A->check;
  return 0;
}

/* Deferred mode: wait for the calls since the last check and fetch their summary. */
static int read_pending(GsBanded A) {
  GsCheck(A->ctx->ops->banded.status_read, A->ctx, GS_ERR_UNSUPPORTED,
          "back end %s cannot defer banded status checks", A->ctx->resource);
  GsCall(A->ctx->ops->banded.status_read(A->ctx, &A->info, A->status, &A->last));
  return 0;
}

int GsBandedCheckStatus(GsBanded A) {
  GsCheckHandle(NULL, A);
  if (A->check != GS_BANDED_CHECK_DEFERRED) {
    GsCall(report(A, "GsBandedCheckStatus (the last call)"));
    return 0;
  }
  if (!A->pending) return 0;
  GsCall(read_pending(A));
  A->pending = 0; /* the next call starts a new period */
  GsCall(report(A, "GsBandedCheckStatus (calls since the last check)"));
  return 0;
}

int GsBandedView(GsBanded A, FILE *f) {
  GsCheckHandle(NULL, A);
  if (!f) f = stdout;
  const GsBandedDesc *d = &A->desc;
  const GsBandedInfo *bi = &A->info;
  fprintf(f, "Banded batch: %lld %s systems of %lld rows, %s\n", (long long)d->batch,
          d->bands == 5 ? "pentadiagonal" : "tridiagonal", (long long)d->n, GsDataTypeName(d->dt));
  if (bi->interleaved)
    fprintf(f, "  layout: interleaved (row i of system s at i * %lld + s)\n", (long long)d->batch);
  else
    fprintf(f, "  layout: contiguous (row i of system s at s * %lld + i)\n", (long long)d->stride);
  fprintf(f, "  matrix: %s, %s\n", d->shared ? "one shared by the batch" : "one per system",
          d->spd ? "LDL^T (symmetric positive definite)" : "LU without pivoting");
  if (d->periodic)
    fprintf(f, "  periodic: yes (the last %d unknown%s of each system eliminated)\n", bi->h,
            bi->h > 1 ? "s" : "");
  else
    fprintf(f, "  periodic: no\n");
  int threads = 0, passes = 0;
  GsCall(GsBandedGetScanThreads(A, &threads));
  GsCall(GsBandedGetTilePasses(A, &passes));
  fprintf(f, "  algorithm: %s (%s)", GsBandedAlgorithmName((GsBandedAlgorithm)bi->algo),
          A->auto_algo ? "chosen automatically" : "asked for");
  if (bi->algo == GS_BANDED_ALGORITHM_SPIKE) fprintf(f, ", %d partitions", bi->parts);
  if (threads) fprintf(f, ", %d threads a block", threads);
  if (passes) fprintf(f, ", %d pass%s", passes, passes > 1 ? "es" : "");
  fprintf(f, "\n  checks: %s\n",
          A->check == GS_BANDED_CHECK_DEFERRED ? "deferred (GsBandedCheckStatus reports them)"
                                               : "each call");
  fprintf(f, "  back end: %s\n  factored: %s\n", A->ctx->resource, A->factored ? "yes" : "no");
  if (A->check == GS_BANDED_CHECK_EACH && A->last.nbad)
    fprintf(f, "  last call: %lld bad system%s, the first %lld (%s)\n", (long long)A->last.nbad,
            A->last.nbad > 1 ? "s" : "", (long long)A->last.first,
            A->last.code >= 0 && A->last.code <= 2 ? status_text[A->last.code] : "?");
  else if (A->check == GS_BANDED_CHECK_EACH && A->factored)
    fprintf(f, "  last call: every system good\n");
  return 0;
}

/* -banded_view: the view once, after the first Factor or FactorSolve (whatever it found). */
static void view_once(GsBanded A) {
  if (!A->view) return;
  A->view = 0;
  (void)GsBandedView(A, stdout);
}

int GsBandedFactor(GsBanded A, const GsVec diag[]) {
  GsCheckHandle(NULL, A);
  GsContext ctx = A->ctx;
  void *D[5];
  GsCall(get_diags(A, diag, D));
  A->factored = 0;
  begin_call(A);
  GsCall(GsLogEventBegin(ctx, A->ev_factor));
  int ierr = ctx->ops->banded.factor(ctx, &A->info, (const void *const *)D, A->fac, A->corner,
                                     A->fstatus, A->status, A->work, &A->last);
  size_t es = GsDataTypeSize(A->info.dt);
  double per = (double)(A->info.shared ? A->info.n : A->info.rhs_len) * (double)es;
  if (ierr) {
    GsLogEventCancel(ctx, A->ev_factor);
    return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  }
  GsCall(GsLogEventEnd(ctx, A->ev_factor, per * (A->info.bands + A->info.nfac), 0));
  A->factored = 1;
  ierr = end_call(A, "GsBandedFactor");
  view_once(A);
  if (ierr) return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  return 0;
}

/* The arrays of f (read) and x (written; may be f) where the back end computes. */
static int rhs_arrays(GsBanded A, GsVec f, GsVec x, void **pf, void **px) {
  if (x != f) {
    GsCall(GsVecGetComputeArray(f, GS_ACCESS_READ, pf));
    /* Contiguous layouts with stride > n leave x's gap entries alone: keep them valid. */
    GsCall(GsVecGetComputeArray(
        x, A->info.stride > A->info.n ? GS_ACCESS_READWRITE : GS_ACCESS_WRITE, px));
  } else {
    GsCall(GsVecGetComputeArray(x, GS_ACCESS_READWRITE, px));
    *pf = *px;
  }
  return 0;
}

/* Bytes a solve of nf blocks moves for the event log: the factors once, `words` values per
 * unknown and block (f and x: 2; with an update's x and y: 4). */
static double solve_bytes(const GsBanded A, GsInt nf, int words) {
  const double es = (double)GsDataTypeSize(A->info.dt);
  const double fac = (double)(A->info.shared ? A->info.n : A->info.rhs_len) * es * A->info.nfac;
  return fac + words * (double)A->info.n * (double)A->info.batch * es * (double)nf;
}

static int solve(GsBanded A, GsVec f, GsVec x) {
  GsContext ctx = A->ctx;
  GsInt nf = 0, nx = 0;
  GsCall(check_vec(A, f, "right-hand side f", A->info.rhs_len, &nf));
  GsCall(check_vec(A, x, "solution x", A->info.rhs_len, &nx));
  GsCheck(nf == nx, ctx, GS_ERR_ARG_SIZE, "f holds %lld blocks of right-hand sides but x %lld",
          (long long)nf, (long long)nx);
  void *pf = NULL, *px = NULL;
  GsCall(rhs_arrays(A, f, x, &pf, &px));
  begin_call(A);
  GsCall(GsLogEventBegin(ctx, A->ev_solve));
  int ierr = ctx->ops->banded.solve(ctx, &A->info, (const void *const *)A->fac, A->corner,
                                    A->fstatus, nf, pf, px, A->status, A->work, &A->last);
  if (ierr) {
    GsLogEventCancel(ctx, A->ev_solve);
    return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  }
  GsCall(GsLogEventEnd(ctx, A->ev_solve, solve_bytes(A, nf, 2), 0));
  GsCall(end_call(A, "GsBandedSolve"));
  return 0;
}

int GsBandedSolve(GsBanded A, GsVec f, GsVec x) {
  GsCheckHandle(NULL, A);
  GsCheck(A->factored, A->ctx, GS_ERR_WRONG_STATE,
          "GsBandedSolve before a successful GsBandedFactor (or after one that failed to run)");
  GsCall(solve(A, f, x));
  return 0;
}

/* The solve storing z = alpha x + beta y + gamma A^-1 f in its own pass, where the back end's
 * kernel for this batch does (*done = 1); *done = 0 and nothing done where it does not, or where
 * x or y is not the size of z (the separate vector operation then says so). */
static int solve_update(GsBanded A, GsVec f, double alpha, double beta, double gamma, GsVec x,
                        GsVec y, GsVec z, int *done) {
  GsContext ctx = A->ctx;
  *done = 0;
  GsInt nf = 0, nz = 0, nx = 0, ny = 0;
  GsCall(check_vec(A, f, "right-hand side f", A->info.rhs_len, &nf));
  GsCall(check_vec(A, z, "solution z", A->info.rhs_len, &nz));
  GsCheck(nf == nz, ctx, GS_ERR_ARG_SIZE, "f holds %lld blocks of right-hand sides but z %lld",
          (long long)nf, (long long)nz);
  GsCall(GsVecCheckFor(ctx, x, "x", "the batch", A->info.dt, &nx));
  GsCall(GsVecCheckFor(ctx, y, "y", "the batch", A->info.dt, &ny));
  if (nx != nz * A->info.rhs_len || ny != nx) return 0; /* the vector operation names the sizes */
  GsBandedUpdate u = {.alpha = alpha, .beta = beta, .gamma = gamma};
  GsCall(GsVecGetComputeArray(x, GS_ACCESS_READ, (void **)&u.x));
  GsCall(GsVecGetComputeArray(y, GS_ACCESS_READ, (void **)&u.y));
  void *pf = NULL, *pz = NULL;
  GsCall(rhs_arrays(A, f, z, &pf, &pz));
  begin_call(A);
  GsCall(GsLogEventBegin(ctx, A->ev_solve));
  int ierr =
      ctx->ops->banded.solve_update(ctx, &A->info, (const void *const *)A->fac, A->corner,
                                    A->fstatus, nf, pf, pz, &u, A->status, A->work, &A->last, done);
  if (ierr || !*done) {
    GsLogEventCancel(ctx, A->ev_solve);
    if (ierr) return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
    return 0;
  }
  GsCall(GsLogEventEnd(ctx, A->ev_solve, solve_bytes(A, nf, 4), 0));
  GsCall(end_call(A, "GsBandedSolveAXPBYPCZ"));
  return 0;
}

int GsBandedSolveAXPBYPCZ(GsBanded A, GsVec f, double alpha, double beta, double gamma, GsVec x,
                          GsVec y, GsVec z) {
  GsCheckHandle(NULL, A);
  GsContext ctx = A->ctx;
  GsCheck(A->factored, ctx, GS_ERR_WRONG_STATE,
          "GsBandedSolveAXPBYPCZ before a successful GsBandedFactor (or after one that failed to "
          "run)");
  GsCheck(f && x && y && z, ctx, GS_ERR_ARG_NULL, "GsBandedSolveAXPBYPCZ: %s is NULL",
          !f   ? "f"
          : !x ? "x"
          : !y ? "y"
               : "z");
  GsCheck(x != z && y != z, ctx, GS_ERR_ARG_INCOMP,
          "GsBandedSolveAXPBYPCZ: z is also %s, which the solve would overwrite before it is read "
          "(z may be f)",
          x == z ? "x" : "y");
  GsCheck(A->info.interleaved || A->info.stride == A->info.n, ctx, GS_ERR_UNSUPPORTED,
          "GsBandedSolveAXPBYPCZ: a contiguous layout with stride %lld > n = %lld has gaps "
          "between the systems, which the combination would reach",
          (long long)A->info.stride, (long long)A->info.n);
  if (ctx->ops->banded.solve_update) {
    int done = 0;
    GsCall(solve_update(A, f, alpha, beta, gamma, x, y, z, &done));
    if (done) return 0;
  }
  GsCall(solve(A, f, z));
  GsCall(GsVecAXPBYPCZ(z, alpha, beta, gamma, x, y));
  return 0;
}

/* Refactor-each-call in one sweep, for per-system, non-periodic batches with one block. */
static int factor_solve_fused(GsBanded A, const GsVec diag[], GsVec f, GsVec x) {
  GsContext ctx = A->ctx;
  void *D[5];
  GsCall(get_diags(A, diag, D));
  void *pf = NULL, *px = NULL;
  GsCall(rhs_arrays(A, f, x, &pf, &px));
  A->factored = 0; /* only part of the factors is kept */
  begin_call(A);
  GsCall(GsLogEventBegin(ctx, A->ev_factor_solve));
  int ierr = ctx->ops->banded.factor_solve(ctx, &A->info, (const void *const *)D, A->fac, pf, px,
                                           A->status, &A->last);
  if (ierr) {
    GsLogEventCancel(ctx, A->ev_factor_solve);
    return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  }
  size_t es = GsDataTypeSize(A->info.dt);
  double per = (double)A->info.n * (double)A->info.batch * (double)es;
  GsCall(GsLogEventEnd(ctx, A->ev_factor_solve, per * (A->info.bands + 2), 0));
  ierr = end_call(A, "GsBandedFactorSolve");
  view_once(A);
  if (ierr) return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  return 0;
}

/* Whether a refactor-each-call takes the fused sweep (one thread per system, nothing stored):
 * for that algorithm, and wherever the automatic choice took the scan, whose Factor is a sweep
 * of one thread per system too (storing all five factor arrays, then rearranging them) before
 * the scan's solve. H200, double, each call checked, two rounds, the scan's factor and solve
 * against the fused sweep (us): penta 1024 x 1024 462.8 / 469.2 against 419.4 / 414.0, 4096 x
 * 1024 738.3 / 752.2 against 464.6 / 471.7, 8192 x 1024 1023 / 1044 against 514 / 522, 16384 x
 * 256 503.1 / 513.7 against 161.5 / 161.5; tri 16384 x 1024 1222.1 / 1214.4 against 478.8 /
 * 476.6 (before, only batches of 16384 or more took it: tri 65536 x 1024 fused 1.19 ms, the
 * scan's solve alone 0.83). */
static int fused_factor_solve(const GsBanded A) {
  const GsBandedInfo *bi = &A->info;
  return A->ctx->ops->banded.factor_solve && !bi->periodic && !bi->shared && !bi->spd &&
         (bi->algo == GS_BANDED_ALGORITHM_THREAD ||
          (A->auto_algo && bi->algo == GS_BANDED_ALGORITHM_SCAN));
}

int GsBandedFactorSolve(GsBanded A, const GsVec diag[], GsVec f, GsVec x) {
  GsCheckHandle(NULL, A);
  if (fused_factor_solve(A)) {
    GsInt nf = 0, nx = 0;
    GsCall(check_vec(A, f, "right-hand side f", A->info.rhs_len, &nf));
    GsCall(check_vec(A, x, "solution x", A->info.rhs_len, &nx));
    GsCheck(nf == nx, A->ctx, GS_ERR_ARG_SIZE, "f holds %lld blocks of right-hand sides but x %lld",
            (long long)nf, (long long)nx);
    if (nf == 1) {
      GsCall(factor_solve_fused(A, diag, f, x));
      return 0;
    }
  }
  /* A bad system in the factorisation is reported by the solve, which also solves the rest. */
  int ierr = GsBandedFactor(A, diag);
  if (ierr && ierr != GS_ERR_ZERO_PIVOT && ierr != GS_ERR_NOT_FINITE)
    return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  GsClearError(A->ctx);
  GsCall(solve(A, f, x));
  return 0;
}

int GsBandedMult(GsBanded A, const GsVec diag[], GsVec x, GsVec y) {
  GsCheckHandle(NULL, A);
  GsContext ctx = A->ctx;
  void *D[5];
  GsCall(get_diags(A, diag, D));
  GsInt nx = 0, ny = 0;
  GsCall(check_vec(A, x, "x", A->info.rhs_len, &nx));
  GsCall(check_vec(A, y, "y", A->info.rhs_len, &ny));
  GsCheck(nx == ny, ctx, GS_ERR_ARG_SIZE, "x holds %lld blocks but y %lld", (long long)nx,
          (long long)ny);
  GsCheck(x != y, ctx, GS_ERR_ARG_INCOMP, "x and y must be different vectors");
  void *px = NULL, *py = NULL;
  GsCall(GsVecGetComputeArray(x, GS_ACCESS_READ, &px));
  GsCall(GsVecGetComputeArray(y, A->info.stride > A->info.n ? GS_ACCESS_READWRITE : GS_ACCESS_WRITE,
                              &py));
  GsCall(GsLogEventBegin(ctx, A->ev_mult));
  int ierr = ctx->ops->banded.mult(ctx, &A->info, (const void *const *)D, nx, px, py);
  if (ierr) {
    GsLogEventCancel(ctx, A->ev_mult);
    return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  }
  size_t es = GsDataTypeSize(A->info.dt);
  double bytes =
      (double)(A->info.shared ? A->info.n : A->info.rhs_len) * (double)es * A->info.bands +
      2.0 * (double)A->info.n * (double)A->info.batch * (double)es * (double)nx;
  GsCall(GsLogEventEnd(ctx, A->ev_mult, bytes,
                       2.0 * A->info.bands * A->info.n * A->info.batch * (double)nx));
  return 0;
}

int GsBandedGetStatus(GsBanded A, GsInt *nbad, GsInt *first_bad, GsBandedStatus *first_code) {
  GsCheckHandle(NULL, A);
  if (A->check == GS_BANDED_CHECK_DEFERRED && A->pending) GsCall(read_pending(A));
  if (nbad) *nbad = A->last.nbad;
  if (first_bad) *first_bad = A->last.nbad ? A->last.first : -1;
  if (first_code) *first_code = (GsBandedStatus)(A->last.nbad ? A->last.code : GS_BANDED_OK);
  return 0;
}

int GsBandedGetSystemStatus(GsBanded A, int status[]) {
  GsCheckHandle(NULL, A);
  GsCheck(status != NULL, A->ctx, GS_ERR_ARG_NULL, "status array is NULL");
  GsMemType mem = A->ctx->ops->mem;
  GsCall(
      GsMemCopy(A->ctx, status, GS_MEM_HOST, A->status, mem, (size_t)A->info.batch * sizeof(int)));
  return 0;
}
