/* Pieces the applications share (see apputil.h). */
#include <math.h>
#include <string.h>

#include "apputil.h"

int GsAppConstantBands(GsContext ctx, GsInt n, int bands, const double v[], GsVec out[]) {
  for (int k = 0; k < bands; k++) {
    GsCall(GsVecCreate(ctx, n, GS_DOUBLE, &out[k]));
    GsCall(GsVecSet(out[k], v[k]));
  }
  return 0;
}

static int periodic_batch(GsContext ctx, int bands, GsInt n, GsInt batch, GsBandedLayout layout,
                          int shared, GsBanded *A) {
  GsBandedDesc bd;
  memset(&bd, 0, sizeof bd);
  bd.bands = bands;
  bd.n = n;
  bd.batch = batch;
  bd.dt = GS_DOUBLE;
  bd.layout = layout;
  bd.shared = shared;
  bd.periodic = 1;
  GsCall(GsBandedCreate(ctx, &bd, A));
  return 0;
}

int GsAppPeriodicBatch(GsContext ctx, int bands, GsInt n, GsInt ensemble, GsBanded *A) {
  GsCall(periodic_batch(ctx, bands, n, ensemble, GS_BANDED_CONTIGUOUS, 1, A));
  return 0;
}

int GsAppPeriodicMemberBatch(GsContext ctx, int bands, GsInt n, GsInt ensemble, GsBanded *A) {
  GsCall(periodic_batch(ctx, bands, n, ensemble, GS_BANDED_CONTIGUOUS, 0, A));
  return 0;
}

int GsAppPeriodicColumns(GsContext ctx, int bands, GsInt n, GsInt batch, GsBanded *A) {
  GsCall(periodic_batch(ctx, bands, n, batch, GS_BANDED_INTERLEAVED, 1, A));
  return 0;
}

int GsAppCheckGrid(GsContext ctx, const char *what, GsInt n, GsInt ensemble, double length,
                   double dt) {
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
  GsCheck(dt == GS_DOUBLE, ctx, GS_ERR_ARG_TYPE, "%s: the state vector must hold doubles", what);
  GsCheck(len == n * ensemble, ctx, GS_ERR_ARG_SIZE,
          "%s: the state vector has %lld entries; %lld members x %lld points need %lld", what,
          (long long)len, (long long)ensemble, (long long)n, (long long)(n * ensemble));
  return 0;
}

int GsAppSetState(GsContext ctx, GsVec c, GsVec state, GsInt n, GsInt ensemble, const char *what) {
  GsCall(GsAppCheckState(ctx, c, n, ensemble, what));
  const double *p = NULL;
  GsCall(GsVecGetArrayRead(c, GS_MEM_HOST, (const void **)&p));
  GsInt bad = -1;
  for (GsInt i = 0; i < n * ensemble && bad < 0; i++)
    if (!isfinite(p[i])) bad = i;
  GsCall(GsVecRestoreArrayRead(c, (const void **)&p));
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
