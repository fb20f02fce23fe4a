/* 1D periodic hyperdiffusion, Crank-Nicolson, on the batched banded solvers (see
 * hyperdiffusion.h). A step is two passes over the state: F = B C (the explicit half, a banded
 * product) and C = A^-1 F (the shared periodic factors, solved in place of F's copy). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/apputil.h"
#include "hyperdiffusion.h"

#define GS_PI GS_APP_PI

struct GsHyperdiffusion_s {
  GsContext ctx;
  GsHyperdiffusionDesc d;
  double sigma;
  GsBanded A;   /* the batch: shared periodic penta, contiguous, one system per member */
  GsVec lhs[5]; /* (sigma, -4 sigma, 1 + 6 sigma, -4 sigma, sigma), n entries each */
  GsVec rhs[5]; /* (-sigma, 4 sigma, 1 - 6 sigma, 4 sigma, -sigma) */
  GsVec c, f;   /* state and right-hand side, n * ensemble */
  double t;
  GsInt steps;
};

int GsHyperdiffusionDestroy(GsHyperdiffusion *h) {
  if (!h || !*h) return 0;
  GsHyperdiffusion H = *h;
  GsBandedDestroy(&H->A);
  for (int k = 0; k < 5; k++) {
    GsVecDestroy(&H->lhs[k]);
    GsVecDestroy(&H->rhs[k]);
  }
  GsVecDestroy(&H->c);
  GsVecDestroy(&H->f);
  free(H);
  *h = NULL;
  return 0;
}

static int create(GsContext ctx, const GsHyperdiffusionDesc *desc, GsHyperdiffusion H) {
  const GsInt n = desc->n;
  const double dx = desc->length / (double)n;
  H->sigma = desc->coeff * desc->dt / (2 * dx * dx * dx * dx);
  const double s = H->sigma;
  const double lhs[5] = {s, -4 * s, 1 + 6 * s, -4 * s, s};
  const double rhs[5] = {-s, 4 * s, 1 - 6 * s, 4 * s, -s};
  GsCall(GsAppConstantBands(ctx, n, 5, lhs, H->lhs));
  GsCall(GsAppConstantBands(ctx, n, 5, rhs, H->rhs));
  GsCall(GsAppPeriodicBatch(ctx, 5, n, desc->ensemble, &H->A));
  GsCall(GsBandedFactor(H->A, H->lhs));
  GsCall(GsVecCreate(ctx, n * desc->ensemble, GS_DOUBLE, &H->c));
  GsCall(GsVecCreate(ctx, n * desc->ensemble, GS_DOUBLE, &H->f));
  GsCall(GsVecSet(H->c, 0.0));
  return 0;
}

int GsHyperdiffusionCreate(GsContext ctx, const GsHyperdiffusionDesc *desc, GsHyperdiffusion *h) {
  GsCheck(ctx != NULL, NULL, GS_ERR_ARG_NULL, "ctx is NULL");
  GsCheck(desc != NULL && h != NULL, ctx, GS_ERR_ARG_NULL, "%s is NULL", desc ? "h" : "desc");
  *h = NULL;
  GsCall(GsAppCheckGrid(ctx, "hyperdiffusion", desc->n, desc->ensemble, desc->length, desc->dt));
  GsCheck(isfinite(desc->coeff) && desc->coeff > 0, ctx, GS_ERR_ARG_OUTOFRANGE,
          "hyperdiffusion: coefficient gamma D = %g must be positive", desc->coeff);
  GsHyperdiffusion H = calloc(1, sizeof *H);
  GsCheck(H != NULL, ctx, GS_ERR_MEMORY, "cannot allocate the hyperdiffusion solver");
  H->ctx = ctx;
  H->d = *desc;
  const int ierr = create(ctx, desc, H);
  if (ierr) {
    GsHyperdiffusionDestroy(&H);
    return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  }
  *h = H;
  return 0;
}

int GsHyperdiffusionSetState(GsHyperdiffusion h, GsVec c) {
  GsCheck(h != NULL, NULL, GS_ERR_ARG_NULL, "h is NULL");
  GsCall(GsAppSetState(h->ctx, c, h->c, h->d.n, h->d.ensemble, "hyperdiffusion"));
  h->t = 0;
  h->steps = 0;
  return 0;
}

int GsHyperdiffusionSetCosine(GsHyperdiffusion h, GsInt member, double amplitude, double k,
                              double phase) {
  GsCheck(h != NULL, NULL, GS_ERR_ARG_NULL, "h is NULL");
  GsCheck(member < h->d.ensemble, h->ctx, GS_ERR_ARG_OUTOFRANGE,
          "member %lld of an ensemble of %lld", (long long)member, (long long)h->d.ensemble);
  GsCheck(isfinite(amplitude) && isfinite(k) && isfinite(phase), h->ctx, GS_ERR_NOT_FINITE,
          "cosine initial data: amplitude %g, wave number %g, phase %g", amplitude, k, phase);
  const GsInt n = h->d.n, e0 = member < 0 ? 0 : member,
              e1 = member < 0 ? h->d.ensemble : member + 1;
  double *p = NULL;
  GsCall(GsVecGetArray(h->c, GS_MEM_HOST, (void **)&p));
  for (GsInt e = e0; e < e1; e++)
    for (GsInt i = 0; i < n; i++)
      p[e * n + i] = amplitude * cos(2 * GS_PI * k * (double)i / (double)n + phase);
  GsCall(GsVecRestoreArray(h->c, (void **)&p));
  h->t = 0;
  h->steps = 0;
  return 0;
}

int GsHyperdiffusionGetState(GsHyperdiffusion h, GsVec c) {
  GsCheck(h != NULL, NULL, GS_ERR_ARG_NULL, "h is NULL");
  GsCall(GsAppCheckState(h->ctx, c, h->d.n, h->d.ensemble, "hyperdiffusion"));
  GsCall(GsVecCopy(h->c, c));
  return 0;
}

int GsHyperdiffusionStep(GsHyperdiffusion h, GsInt steps) {
  GsCheck(h != NULL, NULL, GS_ERR_ARG_NULL, "h is NULL");
  GsCheck(steps >= 0, h->ctx, GS_ERR_ARG_OUTOFRANGE, "%lld steps", (long long)steps);
  for (GsInt s = 0; s < steps; s++) {
    GsCall(GsBandedMult(h->A, h->rhs, h->c, h->f));
    GsCall(GsBandedSolve(h->A, h->f, h->c));
    h->steps++;
    h->t = (double)h->steps * h->d.dt;
  }
  return 0;
}

int GsHyperdiffusionGetTime(GsHyperdiffusion h, double *t, GsInt *steps) {
  GsCheck(h != NULL, NULL, GS_ERR_ARG_NULL, "h is NULL");
  if (t) *t = h->t;
  if (steps) *steps = h->steps;
  return 0;
}

int GsHyperdiffusionModeFactor(GsHyperdiffusion h, double k, double *scheme, double *exact) {
  GsCheck(h != NULL, NULL, GS_ERR_ARG_NULL, "h is NULL");
  const double s4 = pow(sin(GS_PI * k / (double)h->d.n), 4) * 16;
  const double kw = 2 * GS_PI * k / h->d.length;
  if (scheme) *scheme = (1 - h->sigma * s4) / (1 + h->sigma * s4);
  if (exact) *exact = exp(-h->d.coeff * kw * kw * kw * kw * h->d.dt);
  return 0;
}

int GsHyperdiffusionCosineError(GsHyperdiffusion h, GsInt member, double amplitude, double k,
                                double phase, double *err_exact, double *err_time) {
  GsCheck(h != NULL, NULL, GS_ERR_ARG_NULL, "h is NULL");
  GsCheck(member >= 0 && member < h->d.ensemble, h->ctx, GS_ERR_ARG_OUTOFRANGE,
          "member %lld of an ensemble of %lld", (long long)member, (long long)h->d.ensemble);
  const GsInt n = h->d.n;
  const double dx = h->d.length / (double)n, kw = 2 * GS_PI * k / h->d.length;
  const double s4 = 16 * pow(sin(GS_PI * k / (double)n), 4);
  const double de = amplitude * exp(-h->d.coeff * kw * kw * kw * kw * h->t);
  const double dt = amplitude * exp(-h->d.coeff * s4 / (dx * dx * dx * dx) * h->t);
  const double *p = NULL;
  GsCall(GsVecGetArrayRead(h->c, GS_MEM_HOST, (const void **)&p));
  double se = 0, st = 0;
  for (GsInt i = 0; i < n; i++) {
    const double c = cos(2 * GS_PI * k * (double)i / (double)n + phase), v = p[member * n + i];
    se += (v - de * c) * (v - de * c);
    st += (v - dt * c) * (v - dt * c);
  }
  GsCall(GsVecRestoreArrayRead(h->c, (const void **)&p));
  if (err_exact) *err_exact = sqrt(dx * se);
  if (err_time) *err_time = sqrt(dx * st);
  return 0;
}
