/* Batched banded solver benchmarks. Each call is timed by the library's event log, so on a GPU the
 * time comes from CUDA events around that call alone; the median of the repeats is reported. The
 * floor is the fewest bytes the call must move (GsBenchBandedFloorBytes) over the copy bandwidth
 * measured in the same run with buffers moving as many bytes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bandedbench.h"
#ifdef GS_BENCH_HAVE_CUSPARSE
#include "peer_cusparse.h"
#endif

const char *const GsBenchBandedModeNames[] = {"solve", "factor_solve", NULL};
const char *const GsBenchBandedLayoutNames[] = {"interleaved", "contiguous", NULL};
const char *const GsBenchBandedTypeNames[] = {"double", "float", NULL};

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double GsBenchBandedFloorBytes(const GsBenchBandedCase *c) {
  const double es = (double)GsDataTypeSize(c->dt), n = (double)c->n, batch = (double)c->batch;
  /* LU keeps 5 (penta) / 3 (tri) arrays, LDL^T 3 / 2; periodic ones h more (E^-1 F), which a
   * solve reads only where they are above rounding: not counted (bandedbench.h). */
  const int nfac = c->spd ? (c->bands == 5 ? 3 : 2) : (c->bands == 5 ? 5 : 3);
  const double rhs = 2.0 * n * batch * es; /* f read, x written */
  if (c->mode == GS_BENCH_BANDED_FACTOR_SOLVE)
    return rhs + (double)c->bands * (c->shared ? n : n * batch) * es;
  return rhs + (double)nfac * (c->shared ? n : n * batch) * es;
}

double GsBenchBandedResidualTol(GsDataType dt) {
  return dt == GS_FLOAT ? 1e-4 : 1e-8;
}

const char *GsBenchBandedPeerRoutine(const GsBenchBandedCase *c) {
  if (c->periodic || c->n < 3) return NULL;
  if (c->shared) return c->bands == 3 && c->layout == GS_BANDED_CONTIGUOUS ? "gtsv2_nopivot" : NULL;
  if (c->bands == 5) return c->layout == GS_BANDED_INTERLEAVED ? "gpsv_interleaved" : NULL;
  return c->layout == GS_BANDED_INTERLEAVED ? "gtsv_interleaved" : "gtsv2_strided";
}

void GsBenchBandedDescribe(const GsBenchBandedCase *c, char *buf, size_t len) {
  snprintf(buf, len, "%s %s n=%lld batch=%lld %s %s%s%s%s", c->bands == 5 ? "penta" : "tri",
           c->layout == GS_BANDED_CONTIGUOUS ? "contiguous" : "interleaved", (long long)c->n,
           (long long)c->batch, GsDataTypeName(c->dt),
           c->mode == GS_BENCH_BANDED_FACTOR_SOLVE ? "factor_solve" : "solve",
           c->shared ? " shared" : "", c->periodic ? " periodic" : "", c->spd ? " spd" : "");
  if (c->stiff > 0) {
    const size_t used = strlen(buf);
    if (used < len) snprintf(buf + used, len - used, " stiff=%g", c->stiff);
  }
}

/* A record of the case with everything but the measurement filled in. */
static int record_init(GsContext ctx, const GsBenchBandedCase *c, const char *op, const char *impl,
                       int repeats, GsBenchRecord *r) {
  const char *res;
  GsCall(GsGetResource(ctx, &res));
  memset(r, 0, sizeof *r);
  r->n = (long long)c->n;
  r->batch = (long long)c->batch;
  r->repeats = repeats;
  r->bands = c->bands;
  r->shared = c->shared != 0;
  r->periodic = c->periodic != 0;
  r->spd = c->spd != 0;
  r->residual = -1;
  snprintf(r->op, sizeof r->op, "%s", op);
  snprintf(r->dtype, sizeof r->dtype, "%s", GsDataTypeName(c->dt));
  snprintf(r->impl, sizeof r->impl, "%s", impl);
  snprintf(r->resource, sizeof r->resource, "%s", res);
  snprintf(r->group, sizeof r->group, "%s", c->group ? c->group : "");
  snprintf(r->layout, sizeof r->layout, "%s", GsBenchBandedLayoutNames[c->layout]);
  snprintf(r->mode, sizeof r->mode, "%s", GsBenchBandedModeNames[c->mode]);
  GsBenchBandedDescribe(c, r->config, sizeof r->config);
  return 0;
}

static void record_rate(GsBenchRecord *r, double bytes, double median, double mn, double copy) {
  r->bytes = bytes;
  r->median_s = median;
  r->min_s = mn;
  r->gbps = median > 0 ? bytes / median / 1e9 : 0;
  r->floor_gbps = copy;
  r->fraction = copy > 0 ? r->gbps / copy : 0;
}

typedef struct {
  GsBanded A;
  GsVec diag[5], f, x, r;
  const GsBenchBandedCase *c;
} Bench;

static int call_op(Bench *b) {
  if (b->c->mode == GS_BENCH_BANDED_FACTOR_SOLVE)
    return GsBandedFactorSolve(b->A, b->diag, b->f, b->x);
  return GsBandedSolve(b->A, b->f, b->x);
}

/* Time the operation through the event log. FactorSolve is either one fused event
 * (BandedFactorSolve) or, for periodic or shared batches, a factor event plus a solve event:
 * the time of every event the call counted is summed. fused: whether the fused event counted
 * (the sweep of one thread per system, whatever algorithm the object was configured with). */
static int time_op(GsContext ctx, Bench *b, int repeats, double *med, double *mn, int *fused) {
  const int fs = b->c->mode == GS_BENCH_BANDED_FACTOR_SOLVE;
  const int nev = fs ? 3 : 1;
  static const char *const names[3] = {"BandedSolve", "BandedFactor", "BandedFactorSolve"};
  GsLogEvent ev[3];
  for (int k = 0; k < nev; k++)
    GsCall(GsLogEventGetId(ctx, names[k], &ev[k]));
  double *t = malloc((size_t)repeats * sizeof *t);
  GsCheck(t != NULL, ctx, GS_ERR_MEMORY, "cannot allocate %d timings", repeats);
  int ierr = call_op(b); /* warm-up: first touch, module load, clocks */
  for (int r = 0; r < repeats && !ierr; r++) {
    GsInt c0[3] = {0}, c1[3] = {0};
    double s0[3] = {0}, s1[3] = {0};
    for (int k = 0; k < nev && !ierr; k++)
      ierr = GsLogEventGetInfo(ctx, ev[k], &c0[k], &s0[k], NULL, NULL);
    if (!ierr) ierr = call_op(b);
    for (int k = 0; k < nev && !ierr; k++)
      ierr = GsLogEventGetInfo(ctx, ev[k], &c1[k], &s1[k], NULL, NULL);
    t[r] = 0;
    GsInt counted = 0;
    if (fs && c1[2] != c0[2]) *fused = 1;
    for (int k = 0; k < nev && !ierr; k++) {
      if (c1[k] != c0[k] && c1[k] != c0[k] + 1)
        ierr = GsError(ctx, GS_ERR_INTERNAL, "event %s counted %lld calls for one", names[k],
                       (long long)(c1[k] - c0[k]));
      counted += c1[k] - c0[k];
      t[r] += s1[k] - s0[k];
    }
    if (!ierr && counted == 0)
      ierr = GsError(ctx, GS_ERR_INTERNAL, "no banded event counted the timed call");
  }
  if (!ierr) {
    qsort(t, (size_t)repeats, sizeof *t, cmp_double);
    *med = t[repeats / 2];
    *mn = t[0];
  }
  free(t);
  GsCall(ierr);
  return 0;
}

/* ||A x - f||_2 / ||f||_2 with the solution in b->x (b->r is overwritten). */
static int residual(Bench *b, double *res) {
  double rn, fn;
  GsCall(GsBandedCheckStatus(b->A)); /* deferred checks: every timed call's bad systems */
  GsCall(GsBandedMult(b->A, b->diag, b->x, b->r));
  GsCall(GsVecAXPY(b->r, -1.0, b->f));
  GsCall(GsVecNorm(b->r, GS_NORM_2, &rn));
  GsCall(GsVecNorm(b->f, GS_NORM_2, &fn));
  *res = fn > 0 ? rn / fn : rn;
  return 0;
}

#ifdef GS_BENCH_HAVE_CUSPARSE
/* The cuSPARSE routine on the same systems: it reads the diagonals and f from b's vectors on the
 * device and writes its solution into b->x, whose residual is then checked like ours. */
static int bench_peer(GsContext ctx, Bench *b, const char *routine, int repeats, double copy,
                      GsBenchReport *rep, FILE *log) {
  const GsBenchBandedCase *c = b->c;
  GsBenchPeerCusparseArgs a = {.routine = routine,
                               .single = c->dt == GS_FLOAT,
                               .n = (long long)c->n,
                               .batch = (long long)c->batch,
                               .repeats = repeats};
  GsBenchPeerCusparseTimes t;
  char err[512] = "";
  const void *pd[5] = {NULL, NULL, NULL, NULL, NULL}, *pf = NULL;
  void *px = NULL;
  int ierr = 0, failed = 0;
  GsCall(GsSynchronize(ctx)); /* the peer runs on the default stream, not the context's */
  for (int k = 0; k < c->bands && !ierr; k++)
    ierr = GsVecGetArrayRead(b->diag[k], GS_MEM_DEVICE, &pd[k]);
  if (!ierr) ierr = GsVecGetArrayRead(b->f, GS_MEM_DEVICE, &pf);
  if (!ierr) ierr = GsVecGetArrayWrite(b->x, GS_MEM_DEVICE, &px);
  if (!ierr) ierr = GsSynchronize(ctx); /* any copy the accesses queued has landed */
  if (!ierr) {
    for (int k = 0; k < c->bands; k++)
      a.diag[k] = pd[k];
    a.f = pf;
    a.x = px; /* the peer copies f into it before every call and leaves the solution there */
    failed = GsBenchPeerCusparse(&a, &t, err, sizeof err);
  }
  /* Give every array back, keeping the first error. */
  if (px) {
    int e2 = GsVecRestoreArrayWrite(b->x, &px);
    if (!ierr) ierr = e2;
  }
  if (pf) {
    int e2 = GsVecRestoreArrayRead(b->f, &pf);
    if (!ierr) ierr = e2;
  }
  for (int k = 0; k < c->bands; k++) {
    if (!pd[k]) continue;
    int e2 = GsVecRestoreArrayRead(b->diag[k], &pd[k]);
    if (!ierr) ierr = e2;
  }
  GsCall(ierr);
  if (failed) {
    fprintf(log ? log : stderr, "  cuSPARSE %s failed, skipped: %s\n", routine, err);
    return 0;
  }

  /* cuSPARSE refactors in every call: its floor is the factor_solve one. */
  GsBenchBandedCase fs = *c;
  fs.mode = GS_BENCH_BANDED_FACTOR_SOLVE;
  GsBenchRecord r;
  GsCall(record_init(ctx, &fs, routine, "cusparse", repeats, &r));
  record_rate(&r, GsBenchBandedFloorBytes(&fs), t.solve_median_s, t.solve_min_s, copy);
  GsCall(residual(b, &r.residual));
  GsCheck(GsBenchReportAdd(rep, &r) == 0, ctx, GS_ERR_MEMORY, "cannot grow the report");
  if (log)
    fprintf(log,
            "  cuSPARSE %s: %10.1f us  %8.1f GB/s  %5.1f%% of copy (factor + solve, floor %.0f "
            "B/unknown)  residual %.2e  (buffer %.1f MiB)\n",
            routine, 1e6 * r.median_s, r.gbps, 100 * r.fraction,
            r.bytes / ((double)c->n * (double)c->batch), r.residual,
            (double)t.buffer_bytes / (1 << 20));
  if (t.restore_median_s > 0) {
    /* The diagonals it overwrites, copied back before every call: read + written once. */
    GsBenchRecord q;
    char op[32];
    snprintf(op, sizeof op, "%.20s_restore", routine);
    GsCall(record_init(ctx, &fs, op, "cusparse", repeats, &q));
    snprintf(q.mode, sizeof q.mode, "restore");
    double diag_len = c->shared ? (double)c->n : (double)c->n * (double)c->batch;
    record_rate(&q, 2.0 * c->bands * diag_len * (double)GsDataTypeSize(c->dt), t.restore_median_s,
                t.restore_min_s, copy);
    GsCheck(GsBenchReportAdd(rep, &q) == 0, ctx, GS_ERR_MEMORY, "cannot grow the report");
    if (log)
      fprintf(
          log,
          "  cuSPARSE %s overwrites its diagonals: restoring them takes %.1f us more (%.1f GB/s); "
          "call + restore %.1f us\n",
          routine, 1e6 * q.median_s, q.gbps, 1e6 * (q.median_s + r.median_s));
  }
  return 0;
}
#endif

/* Create the vectors and fill them: random diagonally dominant matrices, random right-hand sides.
 */
static int setup(GsContext ctx, Bench *b) {
  const GsBenchBandedCase *c = b->c;
  GsInt diag_len, rhs_len;
  GsCall(GsBandedGetSizes(b->A, &diag_len, &rhs_len));
  const int main_diag = c->bands / 2;
  for (int k = 0; k < c->bands; k++) {
    GsCall(GsVecCreate(ctx, diag_len, c->dt, &b->diag[k]));
    if (c->stiff > 0) { /* (a, -4a, 1 + 6a, -4a, a) or (-a, 1 + 2a, -a) */
      const double a = c->stiff, penta[5] = {a, -4 * a, 1 + 6 * a, -4 * a, a},
                   tri[3] = {-a, 1 + 2 * a, -a};
      GsCall(GsVecSet(b->diag[k], c->bands == 5 ? penta[k] : tri[k]));
    } else if (c->spd) { /* hyperdiffusion-type rows, sigma = 1: (1, -4, 7, -4, 1) or (-1, 3, -1) */
      static const double penta[5] = {1, -4, 7, -4, 1}, tri[3] = {-1, 3, -1};
      GsCall(GsVecSet(b->diag[k], c->bands == 5 ? penta[k] : tri[k]));
    } else if (k == main_diag) /* |main| >= bands > sum of |off-diagonals|: a margin of 1+ */
      GsCall(GsVecSetRandom(b->diag[k], 100 + (uint64_t)k, c->bands, c->bands + 1));
    else
      GsCall(GsVecSetRandom(b->diag[k], 100 + (uint64_t)k, -1, 1));
  }
  GsCall(GsVecCreate(ctx, rhs_len, c->dt, &b->f));
  GsCall(GsVecCreate(ctx, rhs_len, c->dt, &b->x));
  GsCall(GsVecCreate(ctx, rhs_len, c->dt, &b->r));
  GsCall(GsVecSetRandom(b->f, 7, -1, 1));
  GsCall(GsVecSet(b->x, 0));
  return 0;
}

static int bench_case(GsContext ctx, Bench *b, int repeats, GsBenchReport *rep, FILE *log) {
  const GsBenchBandedCase *c = b->c;
  GsBandedDesc d = {.bands = c->bands,
                    .n = c->n,
                    .batch = c->batch,
                    .dt = c->dt,
                    .layout = c->layout,
                    .stride = 0,
                    .shared = c->shared,
                    .periodic = c->periodic,
                    .spd = c->spd};
  char desc[128];
  GsBenchBandedDescribe(c, desc, sizeof desc);
  /* First, so that a back end without the solver fails before anything is measured. */
  GsCall(GsBandedCreate(ctx, &d, &b->A));

  const double floor_bytes = GsBenchBandedFloorBytes(c);
  double copy = 0, cap = 2.0 * (1 << 30), half = floor_bytes / 2;
  size_t buf = (size_t)(half < 4096 ? 4096 : half > cap ? cap : half);
  GsCall(GsMeasureCopyBandwidth(ctx, buf, repeats > 5 ? repeats : 5, &copy));
  GsCall(GsLogEnable(ctx, 1));
  GsCall(setup(ctx, b));
  if (c->mode == GS_BENCH_BANDED_SOLVE) GsCall(GsBandedFactor(b->A, b->diag));

  GsBenchRecord r;
  double med = 0, mn = 0;
  int fused = 0;
  GsCall(time_op(ctx, b, repeats, &med, &mn, &fused));
  GsCall(record_init(
      ctx, c, c->mode == GS_BENCH_BANDED_FACTOR_SOLVE ? "banded_factor_solve" : "banded_solve",
      "gpusolve", repeats, &r));
  record_rate(&r, floor_bytes, med, mn, copy);
  /* Which algorithm ran (thread, spike with P partitions, tile, scan; thread staged or not). */
  int parts = 1;
  GsBandedAlgorithm algo = GS_BANDED_ALGORITHM_AUTO;
  GsCall(GsBandedGetPartitions(b->A, &parts));
  GsCall(GsBandedGetAlgorithm(b->A, &algo));
  if (fused) { /* a refactor-each-call ran the fused sweep (thread, or scan chosen automatically) */
    algo = GS_BANDED_ALGORITHM_THREAD;
    parts = 1;
  }
  size_t used = strlen(r.config);
  snprintf(r.config + used, sizeof r.config - used, " algo=%s", GsBandedAlgorithmName(algo));
  used = strlen(r.config);
  if (parts > 1) snprintf(r.config + used, sizeof r.config - used, " parts=%d", parts);
  int passes = 0;
  GsCall(GsBandedGetTilePasses(b->A, &passes));
  used = strlen(r.config);
  if (passes == 2) snprintf(r.config + used, sizeof r.config - used, " passes=2");
  int staged = 0; /* of the last timed call: a solve through shared memory (GsBandedGetStaged) */
  GsCall(GsBandedGetStaged(b->A, &staged));
  used = strlen(r.config);
  if (staged) snprintf(r.config + used, sizeof r.config - used, " staged");
  GsBandedCheck check = GS_BANDED_CHECK_EACH;
  GsCall(GsBandedGetCheck(b->A, &check));
  used = strlen(r.config);
  if (check == GS_BANDED_CHECK_DEFERRED)
    snprintf(r.config + used, sizeof r.config - used, " check=deferred");
  GsCall(residual(b, &r.residual));
  GsCheck(GsBenchReportAdd(rep, &r) == 0, ctx, GS_ERR_MEMORY, "cannot grow the report");
  if (log)
    fprintf(log,
            "%s (%s)\n  gpusolve:  %10.1f us  %8.1f GB/s  %5.1f%% of copy %.1f GB/s (floor %.0f "
            "B/unknown)  residual %.2e\n",
            r.config, r.resource, 1e6 * med, r.gbps, 100 * r.fraction, copy,
            floor_bytes / ((double)c->n * (double)c->batch), r.residual);
  /* Stiff rows: the residual of a backward-stable solve grows with ||A|| ||x|| / ||f||, up to
   * 1 + 16 a (penta) or 1 + 4 a (tri), whose smallest eigenvalue is 1 (periodic). */
  const double grow = c->stiff > 0 ? 1 + (c->bands == 5 ? 16 : 4) * c->stiff : 1;
  const double tol = GsBenchBandedResidualTol(c->dt) * grow;
  GsCheck(r.residual < tol, ctx, GS_ERR_INTERNAL, "%s: relative residual %.3e is above %.0e", desc,
          r.residual, tol);

  GsMemType mem;
  GsCall(GsGetPreferredMemType(ctx, &mem));
  const char *routine = GsBenchBandedPeerRoutine(c);
  if (c->peers && mem == GS_MEM_DEVICE && routine) {
#ifdef GS_BENCH_HAVE_CUSPARSE
    GsCall(bench_peer(ctx, b, routine, repeats, copy, rep, log));
#else
    if (log) fprintf(log, "  (cuSPARSE peer %s not compiled in)\n", routine);
#endif
  } else if (c->peers && mem == GS_MEM_DEVICE && log) {
    fprintf(log, "  (no cuSPARSE routine solves this case: none is periodic, none shares a penta-"
                 "diagonal matrix, none takes contiguous penta systems)\n");
  }
  return 0;
}

int GsBenchBanded(GsContext ctx, const GsBenchBandedCase *c, int repeats, GsBenchReport *rep,
                  FILE *log) {
  GsCheck(c != NULL && rep != NULL, ctx, GS_ERR_ARG_NULL, "case or report is NULL");
  GsCheck(repeats > 0, ctx, GS_ERR_ARG_OUTOFRANGE, "repeats = %d must be > 0", repeats);
  GsCheck(c->mode == GS_BENCH_BANDED_SOLVE || c->mode == GS_BENCH_BANDED_FACTOR_SOLVE, ctx,
          GS_ERR_ARG_OUTOFRANGE, "unknown mode %d", (int)c->mode);
  GsCheck(c->layout == GS_BANDED_INTERLEAVED || c->layout == GS_BANDED_CONTIGUOUS, ctx,
          GS_ERR_ARG_OUTOFRANGE, "unknown layout %d", (int)c->layout);
  GsCheck(c->dt == GS_DOUBLE || c->dt == GS_FLOAT, ctx, GS_ERR_ARG_TYPE, "unknown data type %d",
          (int)c->dt);
  Bench b = {.c = c};
  int ierr = bench_case(ctx, &b, repeats, rep, log);
  for (int k = 0; k < 5; k++)
    GsVecDestroy(&b.diag[k]);
  GsVecDestroy(&b.f);
  GsVecDestroy(&b.x);
  GsVecDestroy(&b.r);
  GsBandedDestroy(&b.A);
  GsCall(ierr);
  return 0;
}

void GsBenchBandedPrintTable(const GsBenchReport *rep, FILE *f) {
  fprintf(f, "%-26s %-9s %-58s %12s %9s %9s %9s %10s\n", "op", "impl", "case", "median (us)",
          "GB/s", "floor", "of floor", "residual");
  for (int i = 0; i < rep->nrec; i++) {
    const GsBenchRecord *r = &rep->rec[i];
    char res[32] = "-";
    if (r->residual >= 0) snprintf(res, sizeof res, "%.2e", r->residual);
    fprintf(f, "%-26s %-9s %-58s %12.1f %9.1f %9.1f %8.1f%% %10s\n", r->op, r->impl, r->config,
            1e6 * r->median_s, r->gbps, r->floor_gbps, 100 * r->fraction, res);
  }
}
