/* Periodic hyperdiffusion, Crank-Nicolson, on the batched banded solvers (see hyperdiffusion.h).
 *
 * Every step solves for the change (delta form): in 1D A Delta = -2 sigma D4 C, in 2D the
 * predictor's change Delta_P and then the step's from
 *   (1 + s Dx4)(1 + s Dy4) Delta_P = -g dt (Dxx + Dyy)^2 C,
 *   (1 + s Dx4)(1 + s Dy4) Delta   = -g dt (Dxx + Dyy)^2 C - g dt Dxx Dyy Delta_P,
 * the same scheme in exact arithmetic (the s^2 terms of the two products cancel, and P = C +
 * Delta_P), then C += Delta. The right-hand sides are stencils of differences of C with weights
 * of order sigma, not sigma^2, and the factors' rounding, about sigma eps of what is solved for,
 * falls on the change instead of the field. Solved whole (the explicit half as a banded product
 * or, in 2D, a stencil of (1 - s Dx4)(1 - s Dy4)), float moved the mass by 2e-3 of itself over
 * 1000 steps at sigma 42.5 (1D), and double by 2e-10 at sigma 2e3 and 4e-7 at 2e7 (1D, 1000
 * steps; in delta form 3e-12 and 3e-8). A 1D step is three passes (stencil, solve, update), a
 * 2D step seven (the predictor's stencil and two sweeps, the corrector's stencil of C and Delta_P
 * and two sweeps, the update). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/apputil.h"
#include "hyperdiffusion.h"

#define GS_PI GS_APP_PI

struct GsHyperdiffusion_s {
  GsContext ctx;
  GsHyperdiffusionDesc d;
  GsInt ny, points; /* rows (1 in 1D); points per member */
  double sigma;
  GsBanded A, Ay; /* shared periodic penta: along x (contiguous, one system per row and member)
                   * and, in 2D, along y (interleaved: the columns in place) */
  GsVec lhs[5], lhsy[5]; /* (sigma, -4 sigma, 1 + 6 sigma, -4 sigma, sigma) */
  GsStencil pred, corr;  /* 2D: the predictor's and the corrector's right-hand sides */
  GsStencil d1;          /* 1D: the change's right-hand side */
  GsVec c, f, p; /* state, right-hand side; 2D: the predictor (all in the solver's precision) */
  double *host;  /* the state as doubles on the host (initial data, errors) */
  double t;
  GsInt steps;
};

int GsHyperdiffusionDestroy(GsHyperdiffusion *h) {
  if (!h || !*h) return 0;
  GsHyperdiffusion H = *h;
  GsBandedDestroy(&H->A);
  GsBandedDestroy(&H->Ay);
  GsStencilDestroy(&H->pred);
  GsStencilDestroy(&H->corr);
  GsStencilDestroy(&H->d1);
  for (int k = 0; k < 5; k++) {
    GsVecDestroy(&H->lhs[k]);
    GsVecDestroy(&H->lhsy[k]);
  }
  GsVec *v[] = {&H->c, &H->f, &H->p};
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
    GsVecDestroy(v[k]);
  free(H->host);
  free(H);
  *h = NULL;
  return 0;
}

/* The delta form's right-hand sides: 1D, -2 sigma D4 (grid rows: the members); 2D, the
 * predictor's -g dt (Dxx + Dyy)^2 on c and the corrector's the same plus -g dt Dxx Dyy on the
 * predictor's change. Every weight is a difference (sums 0). */
static int stencils_delta(GsContext ctx, GsHyperdiffusion H, const double l[3]) {
  const double gdt = H->d.coeff * H->d.dt, q = l[0];
  const double d4[5] = {q * q, -4 * q * q, 6 * q * q, -4 * q * q, q * q}, one[1] = {1};
  GsStencilDesc sd = {.nx = H->d.n,
                      .ny = H->ny > 1 ? H->ny : H->d.ensemble,
                      .batch = 1,
                      .inputs = 1,
                      .dt = H->d.precision};
  if (H->ny <= 1) { /* -2 sigma D4 = -g dt q^2 (1, -4, 6, -4, 1) */
    GsCall(GsStencilCreate(ctx, &sd, &H->d1));
    GsCall(GsStencilAddTensorTerm(H->d1, 0, 1, 2, d4, 0, NULL, -gdt));
    GsCall(GsStencilSetTermSum(H->d1, 0, 1, 0.0));
    return 0;
  }
  for (int k = 0; k < 2; k++) {
    GsStencil *st = k ? &H->corr : &H->pred;
    sd.inputs = 1 + k;
    GsCall(GsStencilCreate(ctx, &sd, st));
    GsCall(GsStencilAddTensorTerm(*st, 0, 1, 2, d4, 0, NULL, -gdt));
    GsCall(GsStencilAddTensorTerm(*st, 0, 1, 0, one, 2, d4, -gdt));
    GsCall(GsStencilAddTensorTerm(*st, 0, 1, 1, l, 1, l, -2 * gdt));
    GsCall(GsStencilSetTermSum(*st, 0, 1, 0.0));
    if (k) {
      GsCall(GsStencilAddTensorTerm(*st, 1, 1, 1, l, 1, l, -gdt));
      GsCall(GsStencilSetTermSum(*st, 1, 1, 0.0));
    }
  }
  return 0;
}

static int create(GsContext ctx, const GsHyperdiffusionDesc *desc, GsHyperdiffusion H) {
  const GsInt n = desc->n, N = H->points * desc->ensemble;
  const double dx = desc->length / (double)n, q = 1 / (dx * dx);
  H->sigma = desc->coeff * desc->dt / (2 * dx * dx * dx * dx);
  const double s = H->sigma;
  const double lhs0[5] = {s, -4 * s, 1 + 6 * s, -4 * s, s};
  double lhs[5]; /* rows summing to 1 exactly in the solver's precision: mass kept */
  GsAppExactRowSum(5, lhs0, 1.0, desc->precision, lhs);
  const double l[3] = {q, -2 * q, q};
  const GsDataType pt = desc->precision;
  GsCall(GsAppConstantBands(ctx, n, 5, lhs, pt, H->lhs));
  GsCall(GsAppPeriodicBatch(ctx, 5, n, H->ny * desc->ensemble, pt, &H->A));
  GsCall(GsAppFactorDeferred(H->A, H->lhs));
  if (H->ny > 1) {
    GsCall(GsAppConstantBands(ctx, H->ny, 5, lhs, pt, H->lhsy));
    GsCall(GsAppPeriodicColumns(ctx, 5, H->ny, n, pt, &H->Ay));
    GsCall(GsAppFactorDeferred(H->Ay, H->lhsy));
    GsCall(GsVecCreate(ctx, N, pt, &H->p));
  }
  GsCall(stencils_delta(ctx, H, l));
  GsCall(GsVecCreate(ctx, N, pt, &H->c));
  GsCall(GsVecCreate(ctx, N, pt, &H->f));
  GsCall(GsVecSet(H->c, 0.0));
  H->host = malloc((size_t)N * sizeof *H->host);
  GsCheck(H->host != NULL, ctx, GS_ERR_MEMORY, "cannot allocate %lld values", (long long)N);
  return 0;
}

int GsHyperdiffusionCreate(GsContext ctx, const GsHyperdiffusionDesc *desc, GsHyperdiffusion *h) {
  GsCheck(ctx != NULL, NULL, GS_ERR_ARG_NULL, "ctx is NULL");
  GsCheck(desc != NULL && h != NULL, ctx, GS_ERR_ARG_NULL, "%s is NULL", desc ? "h" : "desc");
  *h = NULL;
  GsInt ny = 1;
  GsCall(GsAppCheckGrid(ctx, "hyperdiffusion", desc->n, desc->ny, desc->ensemble, desc->length,
                        desc->dt, desc->precision, &ny));
  GsCheck(isfinite(desc->coeff) && desc->coeff > 0, ctx, GS_ERR_ARG_OUTOFRANGE,
          "hyperdiffusion: coefficient gamma D = %g must be positive", desc->coeff);
  /* Float, in delta form (above), on a cosine over 4 steps (L 0.5, g 1.2, n 38 and 128 in 2D,
   * 38 and 1024 in 1D): its error against the semi-discrete solution matched double's up to
   * sigma eps = 2.4e-2 (n 38) and stayed within 5e-5 of it at 3e-2 and 0.13 (n 128, 1D n 1024);
   * from 0.3 (2D) and 1.3 (1D) it grew to 1e3 and 8 times the amplitude. Solved whole it had
   * been 0.06-0.3 of the amplitude from 3e-4 and grew from 3e-2. Above 1e-2 float is refused
   * rather than left to return that. */
  if (desc->precision == GS_FLOAT && isfinite(desc->length) && desc->length > 0 && desc->n > 0) {
    const double dx = desc->length / (double)desc->n;
    const double sigma = desc->coeff * desc->dt / (2 * dx * dx * dx * dx);
    GsCheck(sigma * FLT_EPSILON <= 1e-2, ctx, GS_ERR_ARG_OUTOFRANGE,
            "hyperdiffusion in float: sigma = g dt / (2 dx^4) = %.3g rounds each step by sigma "
            "times the float epsilon = %.2g, above 1e-2 (the result would be wrong, or grow); use "
            "double, or dt <= %.3g",
            sigma, sigma * FLT_EPSILON, desc->dt * 1e-2 / (sigma * FLT_EPSILON));
  }
  GsHyperdiffusion H = calloc(1, sizeof *H);
  GsCheck(H != NULL, ctx, GS_ERR_MEMORY, "cannot allocate the hyperdiffusion solver");
  H->ctx = ctx;
  H->d = *desc;
  H->ny = ny;
  H->points = desc->n * ny;
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
  GsCall(GsAppSetState(h->ctx, c, h->c, h->points, h->d.ensemble, "hyperdiffusion"));
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
  GsCheck(h->ny == 1, h->ctx, GS_ERR_WRONG_STATE,
          "GsHyperdiffusionSetCosine is 1D; use GsHyperdiffusionSetCosine2D");
  const GsInt n = h->d.n, e0 = member < 0 ? 0 : member,
              e1 = member < 0 ? h->d.ensemble : member + 1;
  double *p = h->host;
  if (member >= 0) GsCall(GsAppGetHost(h->c, p)); /* the other members stay */
  for (GsInt e = e0; e < e1; e++)
    for (GsInt i = 0; i < n; i++)
      p[e * n + i] = amplitude * cos(2 * GS_PI * k * (double)i / (double)n + phase);
  GsCall(GsAppSetHost(h->c, p));
  h->t = 0;
  h->steps = 0;
  return 0;
}

int GsHyperdiffusionGetState(GsHyperdiffusion h, GsVec c) {
  GsCheck(h != NULL, NULL, GS_ERR_ARG_NULL, "h is NULL");
  GsCall(GsAppCheckState(h->ctx, c, h->points, h->d.ensemble, "hyperdiffusion"));
  GsCall(GsVecCopy(h->c, c));
  return 0;
}

/* x = ((1 + s Dx4)(1 + s Dy4))^-1 f: along the rows, then the columns in place (f is overwritten).
 */
static int adi_solve(GsHyperdiffusion h, GsVec f, GsVec x) {
  GsCall(GsBandedSolve(h->A, f, f));
  GsCall(GsBandedSolve(h->Ay, f, x));
  return 0;
}

/* 2D in delta form (above, and hyperdiffusion.h for the scheme): p is the predictor's change. */
static int step2d(GsHyperdiffusion h) {
  GsCall(GsStencilApply(h->pred, (GsVec[]){h->c}, h->f));
  GsCall(adi_solve(h, h->f, h->p));
  GsCall(GsStencilApply(h->corr, (GsVec[]){h->c, h->p}, h->f));
  GsCall(adi_solve(h, h->f, h->f));
  GsCall(GsVecAXPY(h->c, 1.0, h->f));
  return 0;
}

int GsHyperdiffusionStep(GsHyperdiffusion h, GsInt steps) {
  GsCheck(h != NULL, NULL, GS_ERR_ARG_NULL, "h is NULL");
  GsCheck(steps >= 0, h->ctx, GS_ERR_ARG_OUTOFRANGE, "%lld steps", (long long)steps);
  for (GsInt s = 0; s < steps; s++) {
    if (h->ny > 1) {
      GsCall(step2d(h));
    } else {
      GsCall(GsStencilApply(h->d1, (GsVec[]){h->c}, h->f));
      GsCall(GsBandedSolve(h->A, h->f, h->f));
      GsCall(GsVecAXPY(h->c, 1.0, h->f));
    }
    h->steps++;
    h->t = (double)h->steps * h->d.dt;
  }
  /* The solves ran with deferred status checks: one wait for the device per call, here. */
  GsBanded const b[2] = {h->A, h->Ay};
  GsCall(GsAppCheckBatches(2, b));
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
  const double *p = h->host;
  GsCall(GsAppGetHost(h->c, h->host));
  double se = 0, st = 0;
  for (GsInt i = 0; i < n; i++) {
    const double c = cos(2 * GS_PI * k * (double)i / (double)n + phase), v = p[member * n + i];
    se += (v - de * c) * (v - de * c);
    st += (v - dt * c) * (v - dt * c);
  }
  if (err_exact) *err_exact = sqrt(dx * se);
  if (err_time) *err_time = sqrt(dx * st);
  return 0;
}

int GsHyperdiffusionSetCosine2D(GsHyperdiffusion h, double amplitude, double kx, double ky) {
  GsCheck(h != NULL, NULL, GS_ERR_ARG_NULL, "h is NULL");
  GsCheck(h->ny > 1, h->ctx, GS_ERR_WRONG_STATE, "GsHyperdiffusionSetCosine2D needs a 2D run");
  GsCheck(isfinite(amplitude) && isfinite(kx) && isfinite(ky), h->ctx, GS_ERR_NOT_FINITE,
          "cosine initial data: amplitude %g, wave numbers %g, %g", amplitude, kx, ky);
  const GsInt n = h->d.n;
  double *p = h->host;
  for (GsInt j = 0; j < h->ny; j++)
    for (GsInt i = 0; i < n; i++)
      p[j * n + i] = amplitude * cos(2 * GS_PI * kx * (double)i / (double)n) *
                     cos(2 * GS_PI * ky * (double)j / (double)n);
  GsCall(GsAppSetHost(h->c, p));
  h->t = 0;
  h->steps = 0;
  return 0;
}

int GsHyperdiffusionCosineError2D(GsHyperdiffusion h, double amplitude, double kx, double ky,
                                  double *err_exact, double *err_time) {
  GsCheck(h != NULL, NULL, GS_ERR_ARG_NULL, "h is NULL");
  GsCheck(h->ny > 1, h->ctx, GS_ERR_WRONG_STATE, "GsHyperdiffusionCosineError2D needs a 2D run");
  const GsInt n = h->d.n;
  const double dx = h->d.length / (double)n, g = h->d.coeff;
  const double ex = 2 * GS_PI * kx / h->d.length, ey = 2 * GS_PI * ky / h->d.length;
  const double sx = 2 * sin(GS_PI * kx / (double)n) / dx, sy = 2 * sin(GS_PI * ky / (double)n) / dx;
  const double le = ex * ex + ey * ey, ls = sx * sx + sy * sy;
  const double de = amplitude * exp(-g * le * le * h->t), ds = amplitude * exp(-g * ls * ls * h->t);
  const double *p = h->host;
  GsCall(GsAppGetHost(h->c, h->host));
  double se = 0, st = 0;
  for (GsInt j = 0; j < h->ny; j++)
    for (GsInt i = 0; i < n; i++) {
      const double c = cos(2 * GS_PI * kx * (double)i / (double)n) *
                       cos(2 * GS_PI * ky * (double)j / (double)n),
                   v = p[j * n + i];
      se += (v - de * c) * (v - de * c);
      st += (v - ds * c) * (v - ds * c);
    }
  if (err_exact) *err_exact = sqrt(dx * dx * se);
  if (err_time) *err_time = sqrt(dx * dx * st);
  return 0;
}
