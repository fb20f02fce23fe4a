/* Pieces the applications share (see apputil.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "apputil.h"

int GsAppConstantBands(GsContext ctx, GsInt n, int bands, const double v[], GsDataType dt,
                       GsVec out[]) {
  for (int k = 0; k < bands; k++) {
    GsCall(GsVecCreate(ctx, n, dt, &out[k]));
    GsCall(GsVecSet(out[k], v[k]));
  }
  return 0;
}

void GsAppExactRowSum(int bands, const double v[], double sum, GsDataType dt, double out[]) {
  const int p = dt == GS_FLOAT ? 24 : 53, mid = bands / 2;
  double bound = fabs(sum); /* bounds every partial sum and the diagonal */
  for (int k = 0; k < bands; k++)
    if (k != mid) bound += fabs(v[k]);
  bound *= 1 + 16 * ldexp(1, -p); /* room for the rounding below */
  int e = 0;
  frexp(bound, &e);                 /* bound < 2^e */
  const double g = ldexp(1, e - p); /* multiples of g below 2^e are exact in dt */
  const int on_grid = isfinite(bound) && bound > 0 && nearbyint(sum / g) * g == sum;
  double diag = sum;
  for (int k = 0; k < bands; k++) {
    if (k == mid) continue;
    out[k] = on_grid ? nearbyint(v[k] / g) * g : dt == GS_FLOAT ? (double)(float)v[k] : v[k];
    diag -= out[k]; /* exact: multiples of g below 2^e */
  }
  out[mid] = on_grid ? diag : dt == GS_FLOAT ? (double)(float)v[mid] : v[mid];
}

static int periodic_batch(GsContext ctx, int bands, GsInt n, GsInt batch, GsBandedLayout layout,
                          int shared, GsDataType dt, GsBanded *A) {
  GsBandedDesc bd;
  memset(&bd, 0, sizeof bd);
  bd.bands = bands;
  bd.n = n;
  bd.batch = batch;
  bd.dt = dt;
  bd.layout = layout;
  bd.shared = shared;
  bd.periodic = 1;
  GsCall(GsBandedCreate(ctx, &bd, A));
  return 0;
}

int GsAppPeriodicBatch(GsContext ctx, int bands, GsInt n, GsInt ensemble, GsDataType dt,
                       GsBanded *A) {
  GsCall(periodic_batch(ctx, bands, n, ensemble, GS_BANDED_CONTIGUOUS, 1, dt, A));
  return 0;
}

int GsAppPeriodicMemberBatch(GsContext ctx, int bands, GsInt n, GsInt ensemble, GsDataType dt,
                             GsBanded *A) {
  GsCall(periodic_batch(ctx, bands, n, ensemble, GS_BANDED_CONTIGUOUS, 0, dt, A));
  return 0;
}

int GsAppPeriodicColumns(GsContext ctx, int bands, GsInt n, GsInt batch, GsDataType dt,
                         GsBanded *A) {
  GsCall(periodic_batch(ctx, bands, n, batch, GS_BANDED_INTERLEAVED, 1, dt, A));
  return 0;
}

int GsAppCheckGrid(GsContext ctx, const char *what, GsInt n, GsInt ny, GsInt ensemble,
                   double length, double dt, GsDataType precision, GsInt *rows) {
  GsCheck(n >= 5, ctx, GS_ERR_ARG_OUTOFRANGE,
          "%s: n = %lld grid points; the pentadiagonal stencil needs at least 5", what,
          (long long)n);
  GsCheck(ensemble >= 1, ctx, GS_ERR_ARG_OUTOFRANGE, "%s: ensemble of %lld members; at least 1",
          what, (long long)ensemble);
  GsCheck(n <= ((GsInt)1 << 40) / ensemble, ctx, GS_ERR_ARG_OUTOFRANGE,
          "%s: %lld x %lld grid points is too many", what, (long long)ensemble, (long long)n);
  GsCheck(isfinite(length) && length > 0, ctx, GS_ERR_ARG_OUTOFRANGE,
          "%s: domain length L = %g must be positive", what, length);
  GsCheck(isfinite(dt) && dt > 0, ctx, GS_ERR_ARG_OUTOFRANGE,
          "%s: time step dt = %g must be positive", what, dt);
  GsCheck(precision == GS_DOUBLE || precision == GS_FLOAT, ctx, GS_ERR_ARG_TYPE,
          "%s: precision %d; GS_DOUBLE or GS_FLOAT", what, (int)precision);
  const GsInt r = ny > 1 ? ny : 1;
  GsCheck(ny >= 0 && (r == 1 || r >= 5), ctx, GS_ERR_ARG_OUTOFRANGE,
          "%s: ny = %lld rows; 0 or 1 (1D) or at least 5 (2D)", what, (long long)ny);
  GsCheck(r == 1 || ensemble == 1, ctx, GS_ERR_ARG_INCOMP,
          "%s: a 2D run is one member (ensemble %lld)", what, (long long)ensemble);
  GsCheck(r <= ((GsInt)1 << 40) / n, ctx, GS_ERR_ARG_OUTOFRANGE,
          "%s: %lld x %lld grid points is too many", what, (long long)n, (long long)r);
  *rows = r;
  return 0;
}

int GsAppCheckState(GsContext ctx, GsVec c, GsInt n, GsInt ensemble, const char *what) {
  GsCheck(c != NULL, ctx, GS_ERR_ARG_NULL, "%s: the state vector is NULL", what);
  GsContext vctx;
  GsInt len;
  GsDataType dt;
  GsCall(GsVecGetContext(c, &vctx));
  GsCall(GsVecGetSize(c, &len));
  GsCall(GsVecGetDataType(c, &dt));
  GsCheck(vctx == ctx, ctx, GS_ERR_ARG_INCOMP, "%s: the state vector belongs to another context",
          what);
  GsCheck(dt == GS_DOUBLE || dt == GS_FLOAT, ctx, GS_ERR_ARG_TYPE,
          "%s: the state vector holds neither doubles nor floats", what);
  GsCheck(len == n * ensemble, ctx, GS_ERR_ARG_SIZE,
          "%s: the state vector has %lld entries; %lld members x %lld points need %lld", what,
          (long long)len, (long long)ensemble, (long long)n, (long long)(n * ensemble));
  return 0;
}

int GsAppSetState(GsContext ctx, GsVec c, GsVec state, GsInt n, GsInt ensemble, const char *what) {
  GsCall(GsAppCheckState(ctx, c, n, ensemble, what));
  const GsInt total = n * ensemble;
  double *p = malloc((size_t)(total > 0 ? total : 1) * sizeof *p);
  GsCheck(p != NULL, ctx, GS_ERR_MEMORY, "%s: cannot allocate %lld values", what,
          (long long)(n * ensemble));
  const int ierr = GsAppGetHost(c, p);
  GsInt bad = -1;
  for (GsInt i = 0; !ierr && i < n * ensemble && bad < 0; i++)
    if (!isfinite(p[i])) bad = i;
  free(p);
  GsCall(ierr);
  GsCheck(bad < 0, ctx, GS_ERR_NOT_FINITE,
          "%s: initial value of member %lld at grid point %lld is not finite", what,
          (long long)(bad / n), (long long)(bad % n));
  GsCall(GsVecCopy(c, state));
  return 0;
}

int GsConvergenceOrder(GsContext ctx, int m, const double h[], const double err[], double *order) {
  GsCheck(m >= 2 && h && err && order, ctx, GS_ERR_ARG_OUTOFRANGE,
          "a convergence order needs at least 2 points (got %d)", m);
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int i = 0; i < m; i++) {
    GsCheck(h[i] > 0 && err[i] > 0, ctx, GS_ERR_ARG_OUTOFRANGE,
            "convergence point %d: step %g and error %g must be positive", i, h[i], err[i]);
    const double x = log(h[i]), y = log(err[i]);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  const double den = m * sxx - sx * sx;
  GsCheck(den > 0, ctx, GS_ERR_ARG_OUTOFRANGE, "convergence points: the steps are all equal");
  *order = (m * sxy - sx * sy) / den;
  return 0;
}

int GsAppGetHost(GsVec v, double *vals) {
  GsInt n;
  GsDataType dt;
  GsCall(GsVecGetSize(v, &n));
  GsCall(GsVecGetDataType(v, &dt));
  if (dt == GS_DOUBLE) {
    GsCall(GsVecGetValuesHost(v, vals));
    return 0;
  }
  const float *p = NULL;
  GsCall(GsVecGetArrayRead(v, GS_MEM_HOST, (const void **)&p));
  for (GsInt i = 0; i < n; i++)
    vals[i] = p[i];
  GsCall(GsVecRestoreArrayRead(v, (const void **)&p));
  return 0;
}

int GsAppSetHost(GsVec v, const double *vals) {
  GsInt n;
  GsDataType dt;
  GsCall(GsVecGetSize(v, &n));
  GsCall(GsVecGetDataType(v, &dt));
  if (dt == GS_DOUBLE) {
    GsCall(GsVecSetValuesHost(v, vals));
    return 0;
  }
  float *p = NULL;
  GsCall(GsVecGetArrayWrite(v, GS_MEM_HOST, (void **)&p));
  for (GsInt i = 0; i < n; i++)
    p[i] = (float)vals[i];
  GsCall(GsVecRestoreArrayWrite(v, (void **)&p));
  return 0;
}

int GsAppVecFromHost(GsContext ctx, GsInt n, const double *vals, GsDataType dt, GsVec *out) {
  GsCall(GsVecCreate(ctx, n, dt, out));
  GsCall(GsAppSetHost(*out, vals));
  return 0;
}

int GsAppFactorDeferred(GsBanded A, const GsVec diag[]) {
  GsCall(GsBandedFactor(A, diag));
  GsCall(GsBandedCheckStatus(A)); /* also settles a Factor made deferred by -banded_check */
  GsCall(GsBandedSetCheck(A, GS_BANDED_CHECK_DEFERRED));
  return 0;
}

int GsAppCheckBatches(int n, GsBanded const b[]) {
  int first = 0;
  for (int k = 0; k < n; k++) {
    const int ierr = b[k] ? GsBandedCheckStatus(b[k]) : 0;
    if (ierr && !first) first = ierr;
  }
  return first;
}
