/* 1D periodic Cahn-Hilliard, semi-implicit SBDF1 / SBDF2 (see cahnhilliard.h), on the public API:
 * f(C) = C^3 - C from vector products, dt D D2 f from a periodic tridiagonal product, the implicit
 * part from a periodic pentadiagonal batch with one shared matrix per scheme (factored once). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cahnhilliard.h"
#include "common/apputil.h"

struct GsCahnHilliard_s {
  GsContext ctx;
  GsCahnHilliardDesc d;
  GsBanded A1, A2;        /* SBDF1 and SBDF2 matrices (A2 only for order 2) */
  GsVec a1[5], a2[5];     /* their diagonals */
  GsBanded L;             /* periodic tridiagonal: dt D D2 */
  GsVec l[3];             /* its diagonals */
  GsVec c, cprev, f, fprev, g, rhs; /* n * ensemble each */
  double t;
  GsInt steps;
};

int GsCahnHilliardDestroy(GsCahnHilliard *ch) {
  if (!ch || !*ch) return 0;
  GsCahnHilliard h = *ch;
  GsBandedDestroy(&h->A1);
  GsBandedDestroy(&h->A2);
  GsBandedDestroy(&h->L);
  for (int k = 0; k < 5; k++) {
    GsVecDestroy(&h->a1[k]);
    GsVecDestroy(&h->a2[k]);
  }
  for (int k = 0; k < 3; k++)
    GsVecDestroy(&h->l[k]);
  GsVec *v[] = {&h->c, &h->cprev, &h->f, &h->fprev, &h->g, &h->rhs};
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
    GsVecDestroy(v[k]);
  free(h);
  *ch = NULL;
  return 0;
}

static int create(GsContext ctx, GsCahnHilliard h) {
  const GsCahnHilliardDesc *d = &h->d;
  const GsInt n = d->n, N = d->n * d->ensemble;
  const double dx = d->length / (double)n;
  const double s = d->D * d->gamma * d->dt / (dx * dx * dx * dx), q = d->D * d->dt / (dx * dx);
  const double a1[5] = {s, -4 * s, 1 + 6 * s, -4 * s, s};
  const double a2[5] = {s, -4 * s, 1.5 + 6 * s, -4 * s, s};
  const double l[3] = {q, -2 * q, q};
  GsCall(GsAppConstantBands(ctx, n, 5, a1, h->a1));
  GsCall(GsAppPeriodicBatch(ctx, 5, n, d->ensemble, &h->A1));
  GsCall(GsBandedFactor(h->A1, h->a1));
  if (d->order == 2) {
    GsCall(GsAppConstantBands(ctx, n, 5, a2, h->a2));
    GsCall(GsAppPeriodicBatch(ctx, 5, n, d->ensemble, &h->A2));
    GsCall(GsBandedFactor(h->A2, h->a2));
  }
  GsCall(GsAppConstantBands(ctx, n, 3, l, h->l));
  GsCall(GsAppPeriodicBatch(ctx, 3, n, d->ensemble, &h->L));
  GsVec *v[] = {&h->c, &h->cprev, &h->f, &h->fprev, &h->g, &h->rhs};
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
    GsCall(GsVecCreate(ctx, N, GS_DOUBLE, v[k]));
  GsCall(GsVecSet(h->c, 0.0));
  return 0;
}

int GsCahnHilliardCreate(GsContext ctx, const GsCahnHilliardDesc *desc, GsCahnHilliard *ch) {
  GsCheck(ctx != NULL, NULL, GS_ERR_ARG_NULL, "ctx is NULL");
  GsCheck(desc != NULL && ch != NULL, ctx, GS_ERR_ARG_NULL, "%s is NULL", desc ? "ch" : "desc");
  *ch = NULL;
  GsCall(GsAppCheckGrid(ctx, "Cahn-Hilliard", desc->n, desc->ensemble, desc->length, desc->dt));
  GsCheck(isfinite(desc->D) && desc->D > 0, ctx, GS_ERR_ARG_OUTOFRANGE,
          "Cahn-Hilliard: mobility D = %g must be positive", desc->D);
  GsCheck(isfinite(desc->gamma) && desc->gamma > 0, ctx, GS_ERR_ARG_OUTOFRANGE,
          "Cahn-Hilliard: gamma = %g must be positive", desc->gamma);
  GsCheck(desc->order == 1 || desc->order == 2, ctx, GS_ERR_ARG_OUTOFRANGE,
          "Cahn-Hilliard: order %d; 1 (SBDF1) or 2 (SBDF2)", desc->order);
  GsCahnHilliard h = calloc(1, sizeof *h);
  GsCheck(h != NULL, ctx, GS_ERR_MEMORY, "cannot allocate the Cahn-Hilliard solver");
  h->ctx = ctx;
  h->d = *desc;
  const int ierr = create(ctx, h);
  if (ierr) {
    GsCahnHilliardDestroy(&h);
    return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  }
  *ch = h;
  return 0;
}

int GsCahnHilliardSetState(GsCahnHilliard ch, GsVec c) {
  GsCheck(ch != NULL, NULL, GS_ERR_ARG_NULL, "ch is NULL");
  GsCall(GsAppSetState(ch->ctx, c, ch->c, ch->d.n, ch->d.ensemble, "Cahn-Hilliard"));
  ch->t = 0;
  ch->steps = 0;
  return 0;
}

int GsCahnHilliardGetState(GsCahnHilliard ch, GsVec c) {
  GsCheck(ch != NULL, NULL, GS_ERR_ARG_NULL, "ch is NULL");
  GsCall(GsAppCheckState(ch->ctx, c, ch->d.n, ch->d.ensemble, "Cahn-Hilliard"));
  GsCall(GsVecCopy(ch->c, c));
  return 0;
}

/* A uniform number in [-1, 1) from (seed, i): splitmix64, the same on every machine. */
static double uniform11(uint64_t seed, uint64_t i) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + (i + 1) * 0xD1B54A32D192ED03ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return 2.0 * ((double)(z >> 11) * (1.0 / 9007199254740992.0)) - 1.0;
}

int GsCahnHilliardSetRandom(GsCahnHilliard ch, GsInt member, double mean, double amplitude,
                            uint64_t seed) {
  GsCheck(ch != NULL, NULL, GS_ERR_ARG_NULL, "ch is NULL");
  GsCheck(member < ch->d.ensemble, ch->ctx, GS_ERR_ARG_OUTOFRANGE,
          "member %lld of an ensemble of %lld", (long long)member, (long long)ch->d.ensemble);
  GsCheck(isfinite(mean) && isfinite(amplitude), ch->ctx, GS_ERR_NOT_FINITE,
          "random initial data: mean %g, amplitude %g", mean, amplitude);
  const GsInt n = ch->d.n, e0 = member < 0 ? 0 : member,
              e1 = member < 0 ? ch->d.ensemble : member + 1;
  double *p = NULL;
  GsCall(GsVecGetArray(ch->c, GS_MEM_HOST, (void **)&p));
  for (GsInt e = e0; e < e1; e++)
    for (GsInt i = 0; i < n; i++)
      p[e * n + i] = mean + amplitude * uniform11(seed + (uint64_t)e, (uint64_t)i);
  GsCall(GsVecRestoreArray(ch->c, (void **)&p));
  ch->t = 0;
  ch->steps = 0;
  return 0;
}

/* f = c^3 - c */
static int nonlinear(GsVec c, GsVec f) {
  GsCall(GsVecPointwiseMult(f, c, c));
  GsCall(GsVecPointwiseMult(f, f, c));
  GsCall(GsVecAXPY(f, -1.0, c));
  return 0;
}

static int step(GsCahnHilliard h) {
  GsCall(nonlinear(h->c, h->f));
  if (h->d.order == 1 || h->steps == 0) {
    /* rhs = c + dt D D2 f; c = A1^-1 rhs */
    GsCall(GsBandedMult(h->L, h->l, h->f, h->g));
    GsCall(GsVecWAXPY(h->rhs, 1.0, h->g, h->c));
    GsCall(GsVecCopy(h->c, h->cprev));
    GsCall(GsBandedSolve(h->A1, h->rhs, h->c));
  } else {
    /* rhs = 2 c - cprev / 2 + dt D D2 (2 f - fprev); c = A2^-1 rhs */
    GsCall(GsVecAXPBY(h->fprev, 2.0, -1.0, h->f));
    GsCall(GsBandedMult(h->L, h->l, h->fprev, h->g));
    GsCall(GsVecAXPBY(h->cprev, 2.0, -0.5, h->c));
    GsCall(GsVecWAXPY(h->rhs, 1.0, h->g, h->cprev));
    GsCall(GsVecCopy(h->c, h->cprev));
    GsCall(GsBandedSolve(h->A2, h->rhs, h->c));
  }
  /* f(c^n) is the next step's f(c^{n-1}). */
  GsVec t = h->fprev;
  h->fprev = h->f;
  h->f = t;
  h->steps++;
  h->t = (double)h->steps * h->d.dt;
  return 0;
}

int GsCahnHilliardStep(GsCahnHilliard ch, GsInt steps) {
  GsCheck(ch != NULL, NULL, GS_ERR_ARG_NULL, "ch is NULL");
  GsCheck(steps >= 0, ch->ctx, GS_ERR_ARG_OUTOFRANGE, "%lld steps", (long long)steps);
  for (GsInt s = 0; s < steps; s++)
    GsCall(step(ch));
  return 0;
}

int GsCahnHilliardGetTime(GsCahnHilliard ch, double *t, GsInt *steps) {
  GsCheck(ch != NULL, NULL, GS_ERR_ARG_NULL, "ch is NULL");
  if (t) *t = ch->t;
  if (steps) *steps = ch->steps;
  return 0;
}

int GsCahnHilliardDiagnostics(GsCahnHilliard ch, GsInt member, double *mass, double *energy,
                              double *cmin, double *cmax) {
  GsCheck(ch != NULL, NULL, GS_ERR_ARG_NULL, "ch is NULL");
  GsCheck(member >= 0 && member < ch->d.ensemble, ch->ctx, GS_ERR_ARG_OUTOFRANGE,
          "member %lld of an ensemble of %lld", (long long)member, (long long)ch->d.ensemble);
  const GsInt n = ch->d.n;
  const double dx = ch->d.length / (double)n;
  const double *p = NULL;
  GsCall(GsVecGetArrayRead(ch->c, GS_MEM_HOST, (const void **)&p));
  const double *c = p + member * n;
  long double m = 0, e = 0;
  double lo = c[0], hi = c[0];
  for (GsInt i = 0; i < n; i++) {
    const double w = c[i] * c[i] - 1, gr = (c[(i + 1) % n] - c[i]) / dx;
    m += c[i];
    e += 0.25 * w * w + 0.5 * ch->d.gamma * gr * gr;
    lo = c[i] < lo ? c[i] : lo;
    hi = c[i] > hi ? c[i] : hi;
  }
  GsCall(GsVecRestoreArrayRead(ch->c, (const void **)&p));
  if (mass) *mass = (double)(dx * m);
  if (energy) *energy = (double)(dx * e);
  if (cmin) *cmin = lo;
  if (cmax) *cmax = hi;
  return 0;
}
