/* Pieces the applications share (gsapps, built on the public API; the tests and the command line
 * use GsConvergenceOrder too). */
#ifndef GPUSOLVE_APPS_APPUTIL_H
#define GPUSOLVE_APPS_APPUTIL_H

#include <gpusolve.h>

#define GS_APP_PI 3.14159265358979323846

/* `bands` vectors of n entries of type dt holding the constants v[0..bands-1] (a shared banded
 * matrix). */
int GsAppConstantBands(GsContext ctx, GsInt n, int bands, const double v[], GsDataType dt,
                       GsVec out[]);
/* The coefficients v[0..bands-1] of a constant-coefficient row, its middle one the diagonal,
 * moved so that in type dt the row sums to `sum` exactly: the others are rounded onto the grid
 * of the largest ulp the row needs (a few units of dt's rounding), the diagonal is `sum` minus
 * them, and every out[k] is exact in dt. A periodic matrix whose rows sum to 1 keeps the mean of
 * what it solves for; rounded independently, 1 + 6a and -4a would leave a row sum off by about
 * a eps, a systematic drift of the mass by that much per step (a = s / dx^4, large on fine grids).
 * Where sum itself is not on that grid (|v| beyond 2^(p-1) units, p the precision's bits) the
 * values are only rounded. */
void GsAppExactRowSum(int bands, const double v[], double sum, GsDataType dt, double out[]);
/* A batch of `ensemble` periodic systems of n rows sharing one matrix, contiguous layout, type
 * dt. */
int GsAppPeriodicBatch(GsContext ctx, int bands, GsInt n, GsInt ensemble, GsDataType dt,
                       GsBanded *A);
/* A batch of `ensemble` periodic systems of n rows, one matrix each (diagonals of n * ensemble
 * entries, system e's at e * n), contiguous layout. */
int GsAppPeriodicMemberBatch(GsContext ctx, int bands, GsInt n, GsInt ensemble, GsDataType dt,
                             GsBanded *A);
/* The same in the interleaved layout: system s's row i at i * batch + s, i.e. the columns of a
 * row-major n x batch grid (a sweep along its slow axis without transposing). */
int GsAppPeriodicColumns(GsContext ctx, int bands, GsInt n, GsInt batch, GsDataType dt,
                         GsBanded *A);
/* Factor A (its errors reported now), then switch it to deferred status checks: a time-stepping
 * loop's solves then queue without waiting for their status (GsAppCheckBatches reports them). */
int GsAppFactorDeferred(GsBanded A, const GsVec diag[]);
/* GsBandedCheckStatus on each of the n batches (NULL entries skipped); the first error, after
 * checking them all (each starts a new period). */
int GsAppCheckBatches(int n, GsBanded const b[]);
/* All entries of v (double or float) as doubles on the host, and back. */
int GsAppGetHost(GsVec v, double *vals);
int GsAppSetHost(GsVec v, const double *vals);
/* A new vector of n entries of type dt holding vals. */
int GsAppVecFromHost(GsContext ctx, GsInt n, const double *vals, GsDataType dt, GsVec *out);
/* The parameters every periodic application has: n >= 5 points (the pentadiagonal stencil), ny
 * 0 or 1 (1D) or >= 5 rows (2D, then one member), an ensemble of >= 1 members, at most 2^40 grid
 * points, a positive finite length and time step, precision GS_DOUBLE or GS_FLOAT; named errors
 * (prefixed with `what`) otherwise. *rows: the rows of a member (1 in 1D). */
int GsAppCheckGrid(GsContext ctx, const char *what, GsInt n, GsInt ny, GsInt ensemble,
                   double length, double dt, GsDataType precision, GsInt *rows);
/* c must be a vector of ctx (double or float) with n * ensemble entries; `what` names the solver.
 */
int GsAppCheckState(GsContext ctx, GsVec c, GsInt n, GsInt ensemble, const char *what);
/* Copy c into state after checking it as above and that every entry is finite (the error names
 * the member and the grid point). */
int GsAppSetState(GsContext ctx, GsVec c, GsVec state, GsInt n, GsInt ensemble, const char *what);

/* Least-squares slope of log(err) against log(h) over m >= 2 points: the observed order of
 * convergence when h is the step (grid spacing or time step). Non-positive errors or steps are
 * GS_ERR_ARG_OUTOFRANGE (ctx may be NULL). */
int GsConvergenceOrder(GsContext ctx, int m, const double h[], const double err[], double *order);

#endif
