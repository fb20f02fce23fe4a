/* Sparse benchmarks: SpMV against its floor and cuSPARSE, CG + Jacobi time per iteration. Times
 * come from the library's event log (CUDA events on a GPU), medians of the repeats. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sparsebench.h"
#ifdef GS_BENCH_HAVE_CUSPARSE
#include "peer_cusparse_spmv.h"
#endif

double GsBenchSpmvFloorBytes(GsInt m, GsInt nnz) {
  return 12.0 * (double)nnz + 20.0 * (double)m;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int record(GsContext ctx, GsBenchRecord *r, const char *op, const char *impl,
                  const char *config, GsInt n, int repeats, double bytes, double med, double mn,
                  double copy) {
  const char *res;
  GsCall(GsGetResource(ctx, &res));
  memset(r, 0, sizeof *r);
  snprintf(r->op, sizeof r->op, "%s", op);
  snprintf(r->dtype, sizeof r->dtype, "double");
  snprintf(r->impl, sizeof r->impl, "%s", impl);
  snprintf(r->resource, sizeof r->resource, "%s", res);
  snprintf(r->config, sizeof r->config, "%s", config);
  r->n = (long long)n;
  r->repeats = repeats;
  r->bytes = bytes;
  r->median_s = med;
  r->min_s = mn;
  r->gbps = med > 0 ? bytes / med / 1e9 : 0;
  r->floor_gbps = copy;
  r->fraction = copy > 0 ? r->gbps / copy : 0;
  r->residual = -1;
  return 0;
}

/* Largest |y - y_ref| / (|A| |x|)_i over rows, with y_ref the CPU kernel's sum in long double. */
static double spmv_error(GsMat A, const double *x, const double *y) {
  GsInt m;
  const GsInt *rp;
  const int *col;
  const double *val;
  GsMatGetSize(A, &m, NULL, NULL);
  GsMatGetCSR(A, &rp, &col, &val);
  double worst = 0;
  for (GsInt i = 0; i < m; i++) {
    long double s = 0, sa = 0;
    for (GsInt k = rp[i]; k < rp[i + 1]; k++) {
      s += (long double)val[k] * x[col[k]];
      sa += fabsl((long double)val[k] * x[col[k]]);
    }
    double e = (double)(fabsl((long double)y[i] - s) / (sa + 1e-300L));
    worst = e > worst || e != e ? e : worst;
  }
  return worst;
}

int GsBenchSpmv(GsContext ctx, GsMat A, const char *name, int repeats, int peers,
                GsBenchReport *rep, FILE *log) {
  (void)peers; /* only a build with cuSPARSE has a peer */
  GsInt m, n, nnz, lo, hi;
  double mean;
  GsCall(GsMatGetSize(A, &m, &n, &nnz));
  GsCall(GsMatGetRowStats(A, &lo, &hi, &mean, NULL));
  const double bytes = GsBenchSpmvFloorBytes(m, nnz);
  double copy = 0, half = bytes / 2, cap = 2.0 * (1 << 30);
  GsCall(GsMeasureCopyBandwidth(ctx,
                                (size_t)(half < 4096  ? 4096
                                         : half > cap ? cap
                                                      : half),
                                repeats > 5 ? repeats : 5, &copy));
  GsCall(GsLogEnable(ctx, 1));
  GsVec x = NULL, y = NULL;
  double *hx = malloc((size_t)(n ? n : 1) * sizeof *hx),
         *hy = malloc((size_t)(m ? m : 1) * sizeof *hy);
  double *t = malloc((size_t)repeats * sizeof *t);
  int ierr = !hx || !hy || !t ? GsError(ctx, GS_ERR_MEMORY, "cannot allocate benchmark arrays") : 0;
  if (!ierr) ierr = GsVecCreate(ctx, n, GS_DOUBLE, &x);
  if (!ierr) ierr = GsVecCreate(ctx, m, GS_DOUBLE, &y);
  if (!ierr) ierr = GsVecSetRandom(x, 42, -1, 1);
  if (!ierr) ierr = GsMatMult(A, 1.0, x, 0.0, y); /* warm-up (and upload on a GPU) */
  GsLogEvent ev;
  if (!ierr) ierr = GsLogEventGetId(ctx, "MatMult", &ev);
  for (int r = 0; r < repeats && !ierr; r++) {
    GsInt c0 = 0, c1 = 0;
    double s0 = 0, s1 = 0;
    ierr = GsLogEventGetInfo(ctx, ev, &c0, &s0, NULL, NULL);
    if (!ierr) ierr = GsMatMult(A, 1.0, x, 0.0, y);
    if (!ierr) ierr = GsLogEventGetInfo(ctx, ev, &c1, &s1, NULL, NULL);
    t[r] = s1 - s0;
  }
  char config[128];
  const char *kname = "";
  if (!ierr) ierr = GsMatGetSpMVKernel(A, &kname);
  snprintf(config, sizeof config, "%s n=%lld nnz=%lld rows %lld..%lld kernel=%s", name,
           (long long)m, (long long)nnz, (long long)lo, (long long)hi, kname);
  GsBenchRecord rec;
  if (!ierr) {
    qsort(t, (size_t)repeats, sizeof *t, cmp_d);
    ierr = record(ctx, &rec, "spmv", "gpusolve", config, m, repeats, bytes, t[repeats / 2], t[0],
                  copy);
  }
  if (!ierr) ierr = GsVecGetValuesHost(x, hx);
  if (!ierr) ierr = GsVecGetValuesHost(y, hy);
  if (!ierr) {
    rec.residual = spmv_error(A, hx, hy);
    ierr = GsBenchReportAdd(rep, &rec) ? GsError(ctx, GS_ERR_MEMORY, "cannot grow the report") : 0;
    if (log)
      fprintf(log,
              "%s\n  gpusolve:  %10.1f us  %8.1f GB/s  %5.1f%% of copy %.1f GB/s (floor %.2f MB)  "
              "error %.1e\n",
              config, 1e6 * rec.median_s, rec.gbps, 100 * rec.fraction, copy, bytes / 1e6,
              rec.residual);
  }
#ifdef GS_BENCH_HAVE_CUSPARSE
  GsMemType mem;
  if (!ierr) ierr = GsGetPreferredMemType(ctx, &mem);
  if (!ierr && mem == GS_MEM_DEVICE && peers) {
    const GsInt *rp;
    const int *col;
    const double *val;
    GsMatGetCSR(A, &rp, &col, &val);
    GsBenchPeerSpmvArgs pa = {m, n, nnz, rp, col, val, hx, hy, repeats};
    double med = 0, mn = 0;
    char err[512] = "";
    if (GsBenchPeerCusparseSpmv(&pa, &med, &mn, err, sizeof err)) {
      if (log) fprintf(log, "  cuSPARSE SpMV failed: %s\n", err);
    } else {
      GsBenchRecord pr;
      char pconfig[128];
      snprintf(pconfig, sizeof pconfig, "%s n=%lld nnz=%lld rows %lld..%lld CSR_ALG1", name,
               (long long)m, (long long)nnz, (long long)lo, (long long)hi);
      ierr = record(ctx, &pr, "spmv", "cusparse", pconfig, m, repeats, bytes, med, mn, copy);
      if (!ierr) {
        pr.residual = spmv_error(A, hx, hy);
        ierr =
            GsBenchReportAdd(rep, &pr) ? GsError(ctx, GS_ERR_MEMORY, "cannot grow the report") : 0;
      }
      if (log && !ierr)
        fprintf(log, "  cuSPARSE:  %10.1f us  %8.1f GB/s  %5.1f%% of copy  (gpusolve %.2fx)\n",
                1e6 * med, pr.gbps, 100 * pr.fraction, med / rec.median_s);
    }
  }
#endif
  GsVecDestroy(&x);
  GsVecDestroy(&y);
  free(hx);
  free(hy);
  free(t);
  GsCall(ierr);
  return 0;
}

int GsBenchCg(GsContext ctx, GsMat A, const char *name, GsBenchReport *rep, FILE *log) {
  GsInt n;
  GsCall(GsMatGetSize(A, &n, NULL, NULL));
  GsCall(GsLogEnable(ctx, 1));
  GsVec one = NULL, b = NULL, x = NULL;
  GsKsp ksp = NULL;
  int ierr = GsVecCreate(ctx, n, GS_DOUBLE, &one);
  if (!ierr) ierr = GsVecSet(one, 1.0);
  if (!ierr) ierr = GsVecDuplicate(one, &b);
  if (!ierr) ierr = GsVecDuplicate(one, &x);
  if (!ierr) ierr = GsMatMult(A, 1.0, one, 0.0, b); /* also uploads A before the timing */
  if (!ierr) ierr = GsKspCreate(ctx, &ksp);
  if (!ierr) ierr = GsKspSetOperator(ksp, A);
  if (!ierr) ierr = GsKspSetType(ksp, GS_KSP_CG);
  if (!ierr) ierr = GsKspSetPcType(ksp, GS_PC_JACOBI);
  if (!ierr) ierr = GsKspSetTolerances(ksp, 1e-8, 0, 1e5, 20000);
  /* A first solve sets up (work vectors, the Jacobi diagonal), the second is timed by the wall
   * clock between two synchronizations, with the event log off: the log times every operation
   * with a device event it waits for, which would put the host back between the passes that the
   * solver keeps apart from it. On a GPU a third solve with the log on gives the KSPSolve event's
   * time, what -log_view shows. */
  GsInt its = 0;
  double s0 = 0, s1 = 0, logged = 0;
  GsMemType mem = GS_MEM_HOST;
  if (!ierr) ierr = GsGetPreferredMemType(ctx, &mem);
  if (!ierr) ierr = GsLogEnable(ctx, 0);
  if (!ierr) ierr = GsKspSolve(ksp, b, x);
  if (!ierr) ierr = GsSynchronize(ctx);
  s0 = GsWallTime();
  if (!ierr) ierr = GsKspSolve(ksp, b, x);
  if (!ierr) ierr = GsSynchronize(ctx);
  s1 = GsWallTime();
  if (!ierr) ierr = GsLogEnable(ctx, 1);
  if (!ierr) ierr = GsKspGetIterationNumber(ksp, &its);
  if (!ierr && mem == GS_MEM_DEVICE && its > 0) {
    GsLogEvent ev;
    GsInt c0 = 0, c1 = 0;
    double t0 = 0, t1 = 0;
    ierr = GsLogEventGetId(ctx, "KSPSolve", &ev);
    if (!ierr) ierr = GsLogEventGetInfo(ctx, ev, &c0, &t0, NULL, NULL);
    if (!ierr) ierr = GsKspSolve(ksp, b, x);
    if (!ierr) ierr = GsLogEventGetInfo(ctx, ev, &c1, &t1, NULL, NULL);
    logged = (t1 - t0) / (double)its;
  }
  GsConvergedReason reason = GS_CONVERGED_ITERATING;
  if (!ierr) ierr = GsKspGetConvergedReason(ksp, &reason);
  if (!ierr) {
    char config[128];
    snprintf(config, sizeof config, "%s cg+jacobi rtol=1e-8 its=%lld %s", name, (long long)its,
             GsConvergedReasonName(reason));
    const double per = its ? (s1 - s0) / (double)its : 0;
    GsBenchRecord r;
    ierr = record(ctx, &r, "cg_iteration", "gpusolve", config, n, 1, 0, per, per, 0);
    if (!ierr)
      ierr = GsBenchReportAdd(rep, &r) ? GsError(ctx, GS_ERR_MEMORY, "cannot grow the report") : 0;
    if (log && !ierr) {
      fprintf(log, "%s\n  gpusolve:  %lld iterations, %.3f ms per iteration (%s)", config,
              (long long)its, 1e3 * per, GsConvergedReasonName(reason));
      if (logged > 0) fprintf(log, "; %.3f ms with the event log on", 1e3 * logged);
      fprintf(log, "\n");
    }
  }
  GsKspDestroy(&ksp);
  GsVecDestroy(&one);
  GsVecDestroy(&b);
  GsVecDestroy(&x);
  GsCall(ierr);
  return 0;
}
