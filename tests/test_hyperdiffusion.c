/* 1D hyperdiffusion (apps/hyperdiffusion) on every back end: the fitted orders in space and in time
 * against exact solutions, each mode decaying exactly as the scheme's factor says, the mean of each
 * member conserved (in double and in float), an ensemble member equal to the same run alone, 2D,
 * single precision against double (1D and 2D), and bad parameters.
 * Usage: test_hyperdiffusion <resource> [-seed S] */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "common/apputil.h"
#include "hyperdiffusion/hyperdiffusion.h"

static const char *resource = "/cpu";

/* On (0, 1) with g = 1: n x ny points (ny 0: 1D) in the given precision. */
static GsHyperdiffusion make_in(GsContext ctx, GsInt n, GsInt ny, GsInt ensemble, double dt,
                                GsDataType precision) {
  GsHyperdiffusionDesc d = {.n = n,
                            .ensemble = ensemble,
                            .length = 1.0,
                            .coeff = 1.0,
                            .dt = dt,
                            .ny = ny,
                            .precision = precision};
  GsHyperdiffusion h = NULL;
  CHECK_OK(GsHyperdiffusionCreate(ctx, &d, &h));
  return h;
}

static GsHyperdiffusion make(GsContext ctx, GsInt n, GsInt ensemble, double dt) {
  return make_in(ctx, n, 0, ensemble, dt, GS_DOUBLE);
}

/* The seed's problem: C(x, 0) = cos(4 pi x) (A = 1, phi = 0, n = 2) on (0, 1), T = 1e-4. */
static void test_orders(GsContext ctx) {
  const double T = 1e-4;
  /* Space: dt = 1e-7 makes the error in time (about 1e-7) negligible against the spatial one. */
  double hx[4], es[4];
  for (int j = 0; j < 4; j++) {
    const GsInt n = (GsInt)32 << j;
    GsHyperdiffusion h = make(ctx, n, 1, 1e-7);
    double e = NAN, et = NAN;
    if (h && !CHECK_OK(GsHyperdiffusionSetCosine(h, 0, 1.0, 2.0, 0.0)) &&
        !CHECK_OK(GsHyperdiffusionStep(h, (GsInt)llround(T / 1e-7))))
      CHECK_OK(GsHyperdiffusionCosineError(h, 0, 1.0, 2.0, 0.0, &e, &et));
    hx[j] = 1.0 / (double)n;
    es[j] = e;
    printf("space: n = %4lld  L2 error %.3e (in time alone %.1e)\n", (long long)n, e, et);
    CHECK(et < 1e-2 * e, "n = %lld: the error in time %g is not negligible against %g",
          (long long)n, et, e);
    GsHyperdiffusionDestroy(&h);
  }
  double order = NAN;
  if (!CHECK_OK(GsConvergenceOrder(ctx, 4, hx, es, &order)))
    CHECK(fabs(order - 2.0) <= 0.1, "spatial order %.3f, want 2.0 +- 0.1", order);
  printf("fitted order in space: %.3f\n", order);
  /* Time: n = 64, against the semi-discrete solution (no spatial error in it). */
  double ht[4], et4[4];
  for (int j = 0; j < 4; j++) {
    const double dt = 1e-5 / (double)(1 << j);
    GsHyperdiffusion h = make(ctx, 64, 1, dt);
    double et = NAN;
    if (h && !CHECK_OK(GsHyperdiffusionSetCosine(h, 0, 1.0, 2.0, 0.0)) &&
        !CHECK_OK(GsHyperdiffusionStep(h, (GsInt)llround(T / dt))))
      CHECK_OK(GsHyperdiffusionCosineError(h, 0, 1.0, 2.0, 0.0, NULL, &et));
    ht[j] = dt;
    et4[j] = et;
    printf("time: dt = %.3e  L2 error against the semi-discrete solution %.3e\n", dt, et);
    GsHyperdiffusionDestroy(&h);
  }
  if (!CHECK_OK(GsConvergenceOrder(ctx, 4, ht, et4, &order)))
    CHECK(fabs(order - 2.0) <= 0.1, "temporal order %.3f, want 2.0 +- 0.1", order);
  printf("fitted order in time: %.3f\n", order);
}

/* Modes k = 1..5 in five members, with phases: after m steps each is its initial cosine times the
 * scheme's factor to the m-th power (to rounding), i.e. the batch solves the intended systems. */
static void test_modes(GsContext ctx) {
  const GsInt n = 40, E = 5, m = 30;
  GsHyperdiffusion h = make(ctx, n, E, 2e-6);
  GsVec c = NULL;
  double *v = hs_malloc((size_t)(n * E) * sizeof *v);
  if (!h || CHECK_OK(GsVecCreate(ctx, n * E, GS_DOUBLE, &c))) goto done;
  for (GsInt e = 0; e < E; e++)
    CHECK_OK(GsHyperdiffusionSetCosine(h, e, 0.5 + (double)e, (double)(e + 1), 0.3 * (double)e));
  CHECK_OK(GsHyperdiffusionStep(h, m));
  CHECK_OK(GsHyperdiffusionGetState(h, c));
  CHECK_OK(GsVecGetValuesHost(c, v));
  double t = 0;
  GsInt steps = 0;
  CHECK_OK(GsHyperdiffusionGetTime(h, &t, &steps));
  CHECK(steps == m && fabs(t - (double)m * 2e-6) <= 1e-18, "time %g after %lld steps", t,
        (long long)steps);
  double prev_r = 1, prev_ex = 1;
  for (GsInt e = 0; e < E; e++) {
    double r = NAN, ex = NAN, worst = 0;
    CHECK_OK(GsHyperdiffusionModeFactor(h, (double)(e + 1), &r, &ex));
    /* Crank-Nicolson is A-stable: |factor| < 1, and higher modes decay faster (here both the
     * scheme's factor and the exact one). */
    CHECK(fabs(r) < 1 && ex < prev_ex && r < prev_r, "mode %lld: factor %.15g, exact %.15g",
          (long long)(e + 1), r, ex);
    prev_r = r;
    prev_ex = ex;
    const double amp = (0.5 + (double)e) * pow(r, (double)m);
    for (GsInt i = 0; i < n; i++) {
      const double want =
          amp * cos(2 * 3.14159265358979323846 * (double)(e + 1) * (double)i / (double)n +
                    0.3 * (double)e);
      const double d = fabs(v[e * n + i] - want);
      worst = d > worst ? d : worst;
    }
    CHECK(worst <= 1e-13 * (0.5 + (double)e), "mode %lld: off its decay by %g", (long long)(e + 1),
          worst);
  }
done:
  GsVecDestroy(&c);
  GsHyperdiffusionDestroy(&h);
  free(v);
}

/* Random data in 3 members, in double or float: each member's sum stays to rounding over 1000
 * steps; member 1 equals the same run alone (bit for bit on the CPU; to rounding on a GPU, whose
 * algorithm may differ with the batch size). */
static void test_mass_and_ensemble(GsContext ctx, HsRng *r, GsDataType pt, double dt) {
  const GsInt n = 96, E = 3;
  const double eps = pt == GS_FLOAT ? FLT_EPSILON : DBL_EPSILON;
  const char *type = pt == GS_FLOAT ? "float" : "double";
  GsHyperdiffusion h = make_in(ctx, n, 0, E, dt, pt), h1 = make_in(ctx, n, 0, 1, dt, pt);
  GsVec c = NULL, c1 = NULL;
  double *v0 = hs_malloc((size_t)(n * E) * sizeof *v0), *v = hs_malloc((size_t)(n * E) * sizeof *v);
  double *w = hs_malloc((size_t)n * sizeof *w);
  if (!h || !h1 || CHECK_OK(GsVecCreate(ctx, n * E, GS_DOUBLE, &c)) ||
      CHECK_OK(GsVecCreate(ctx, n, GS_DOUBLE, &c1)))
    goto done;
  hs_fill_d(r, n * E, v0, -1, 1);
  const double dx = 1.0 / (double)n, sigma = dt / (2 * dx * dx * dx * dx), vmax = 1.0;
  CHECK_OK(GsVecSetValuesHost(c, v0));
  CHECK_OK(GsVecSetValuesHost(c1, v0 + n));
  CHECK_OK(GsHyperdiffusionSetState(h, c));
  CHECK_OK(GsHyperdiffusionSetState(h1, c1));
  CHECK_OK(GsHyperdiffusionStep(h, 1000));
  CHECK_OK(GsHyperdiffusionStep(h1, 1000));
  CHECK_OK(GsHyperdiffusionGetState(h, c));
  CHECK_OK(GsHyperdiffusionGetState(h1, c1));
  CHECK_OK(GsVecGetValuesHost(c, v));
  CHECK_OK(GsVecGetValuesHost(c1, w));
  for (GsInt e = 0; e < E; e++) {
    long double m0 = 0, m1 = 0;
    for (GsInt i = 0; i < n; i++) {
      m0 += v0[e * n + i];
      m1 += v[e * n + i];
    }
    /* Every column of the matrix sums to 1 (exactly, as stored), so the sum is kept up to the
     * rounding of the step's terms, which are sigma times the values: about 10 roundings of vmax
     * (1 + 12 sigma) per step at random signs, and the rounding of the factors, about
     * (1 + 12 sigma) eps of what is solved for: the change (delta form), as large as the field
     * only in the first steps of random data. Up to a tenth of this bound was seen in 25 runs; it
     * is 10 times tighter than when steps solved for the new state. */
    const long double tol = 100.0L * (1 + 12 * sigma) * eps * (10 * vmax + fabsl(m0));
    CHECK(fabsl(m1 - m0) <= tol, "%s member %lld: mass %.17Lg -> %.17Lg (change %.2Lg > %.2Lg)",
          type, (long long)e, m0, m1, fabsl(m1 - m0), tol);
    printf("%s, sigma %.3g: member %lld mass %.9Lg -> %.9Lg after 1000 steps (change %.2Lg, "
           "bound %.2Lg)\n",
           type, sigma, (long long)e, m0, m1, fabsl(m1 - m0), tol);
  }
  const int cpu = !strncmp(resource, "/cpu", 4);
  GsInt diff = 0;
  double worst = 0;
  for (GsInt i = 0; i < n; i++) {
    diff += memcmp(&v[n + i], &w[i], sizeof w[i]) != 0;
    worst = fmax(worst, fabs(v[n + i] - w[i]));
  }
  if (cpu)
    CHECK(diff == 0, "%s member 1 differs from the same run alone in %lld points", type,
          (long long)diff);
  else /* in float, factors rounded differently may move the smooth modes by (1 + 12 sigma) eps
        * a step, as above */
    CHECK(worst <= (pt == GS_FLOAT ? 1000 * (1 + 12 * sigma) * eps * vmax : 1e-13),
          "%s member 1 differs from the same run alone by %g", type, worst);
done:
  GsVecDestroy(&c);
  GsVecDestroy(&c1);
  GsHyperdiffusionDestroy(&h);
  GsHyperdiffusionDestroy(&h1);
  free(v0);
  free(v);
  free(w);
}

static GsHyperdiffusion make2d(GsContext ctx, GsInt n, GsInt ny, double dt) {
  return make_in(ctx, n, ny, 1, dt, GS_DOUBLE);
}

/* 2D: the separable cos(2 pi x) cos(4 pi y) on (0, 1)^2 gives order 2 in space (dt small) and in
 * time (against the semi-discrete solution); a field constant along y is the 1D run to rounding;
 * strongly anisotropic stiff data (a fine x mode times a coarse y mode) decays at a large dt, where
 * extrapolating the mixed term would blow up; bad 2D arguments. */
static void test_2d(GsContext ctx) {
  const double T = 1e-4;
  double hx[4], es[4], order = NAN;
  for (int j = 0; j < 4; j++) {
    const GsInt n = (GsInt)16 << j;
    GsHyperdiffusion h = make2d(ctx, n, n, 2e-7);
    double e = NAN, et = NAN;
    if (h && !CHECK_OK(GsHyperdiffusionSetCosine2D(h, 1.0, 1.0, 2.0)) &&
        !CHECK_OK(GsHyperdiffusionStep(h, (GsInt)llround(T / 2e-7))))
      CHECK_OK(GsHyperdiffusionCosineError2D(h, 1.0, 1.0, 2.0, &e, &et));
    hx[j] = 1.0 / (double)n;
    es[j] = e;
    printf("2D space: n = %3lld^2  L2 error %.3e (in time alone %.1e)\n", (long long)n, e, et);
    CHECK(et < 1e-2 * e, "2D n = %lld: the error in time %g is not negligible against %g",
          (long long)n, et, e);
    GsHyperdiffusionDestroy(&h);
  }
  if (!CHECK_OK(GsConvergenceOrder(ctx, 4, hx, es, &order)))
    CHECK(fabs(order - 2.0) <= 0.1, "2D spatial order %.3f, want 2.0 +- 0.1", order);
  printf("2D fitted order in space: %.3f\n", order);
  for (int j = 0; j < 4; j++) {
    const double dt = 1e-5 / (double)(1 << j);
    GsHyperdiffusion h = make2d(ctx, 32, 32, dt);
    double et = NAN;
    if (h && !CHECK_OK(GsHyperdiffusionSetCosine2D(h, 1.0, 1.0, 2.0)) &&
        !CHECK_OK(GsHyperdiffusionStep(h, (GsInt)llround(T / dt))))
      CHECK_OK(GsHyperdiffusionCosineError2D(h, 1.0, 1.0, 2.0, NULL, &et));
    hx[j] = dt;
    es[j] = et;
    printf("2D time: dt = %.3e  L2 error against the semi-discrete solution %.3e\n", dt, et);
    GsHyperdiffusionDestroy(&h);
  }
  if (!CHECK_OK(GsConvergenceOrder(ctx, 4, hx, es, &order)))
    CHECK(fabs(order - 2.0) <= 0.1, "2D temporal order %.3f, want 2.0 +- 0.1", order);
  printf("2D fitted order in time: %.3f\n", order);
  /* Anisotropic and stiff: cos(2 pi 15 x) cos(2 pi y) on 32^2, dt 1e-3 (s x-mode ~ 1e5). */
  GsHyperdiffusion ha = make2d(ctx, 32, 32, 1e-3);
  double ea = NAN;
  if (ha && !CHECK_OK(GsHyperdiffusionSetCosine2D(ha, 1.0, 15.0, 1.0)) &&
      !CHECK_OK(GsHyperdiffusionStep(ha, 200)))
    CHECK_OK(GsHyperdiffusionCosineError2D(ha, 0.0, 15.0, 1.0, &ea, NULL)); /* = its norm */
  CHECK(ea <= 0.5, "anisotropic stiff mode after 200 large steps: norm %g (grew)", ea);
  GsHyperdiffusionDestroy(&ha);
  /* y-constant: the 1D run. */
  GsHyperdiffusionDesc d1 = {.n = 40, .ensemble = 1, .length = 1.0, .coeff = 1.0, .dt = 1e-6};
  GsHyperdiffusion h1 = NULL, h2 = make2d(ctx, 40, 12, 1e-6);
  GsVec c1 = NULL, c2 = NULL;
  double w[40], v[40 * 12];
  if (h2 && !CHECK_OK(GsHyperdiffusionCreate(ctx, &d1, &h1)) &&
      !CHECK_OK(GsVecCreate(ctx, 40, GS_DOUBLE, &c1)) &&
      !CHECK_OK(GsVecCreate(ctx, 40 * 12, GS_DOUBLE, &c2)) &&
      !CHECK_OK(GsHyperdiffusionSetCosine(h1, 0, 1.0, 3.0, 0.4)) &&
      !CHECK_OK(GsHyperdiffusionGetState(h1, c1)) && !CHECK_OK(GsVecGetValuesHost(c1, w))) {
    for (int j = 0; j < 12; j++)
      memcpy(v + 40 * j, w, sizeof w);
    CHECK_OK(GsVecSetValuesHost(c2, v));
    CHECK_OK(GsHyperdiffusionSetState(h2, c2));
    CHECK_OK(GsHyperdiffusionStep(h1, 50));
    CHECK_OK(GsHyperdiffusionStep(h2, 50));
    CHECK_OK(GsHyperdiffusionGetState(h1, c1));
    CHECK_OK(GsHyperdiffusionGetState(h2, c2));
    CHECK_OK(GsVecGetValuesHost(c1, w));
    CHECK_OK(GsVecGetValuesHost(c2, v));
    double worst = 0;
    for (int j = 0; j < 12; j++)
      for (int i = 0; i < 40; i++)
        worst = fmax(worst, fabs(v[40 * j + i] - w[i]));
    CHECK(worst <= 1e-13, "a y-constant 2D field is off the 1D run by %g", worst);
    CHECK_ERR(GsHyperdiffusionSetCosine(h2, 0, 1, 1, 0), GS_ERR_WRONG_STATE);
    CHECK_ERR(GsHyperdiffusionSetCosine2D(h1, 1, 1, 1), GS_ERR_WRONG_STATE);
    CHECK_ERR(GsHyperdiffusionCosineError2D(h1, 1, 1, 1, NULL, NULL), GS_ERR_WRONG_STATE);
  }
  GsVecDestroy(&c1);
  GsVecDestroy(&c2);
  GsHyperdiffusionDestroy(&h1);
  GsHyperdiffusionDestroy(&h2);
  GsHyperdiffusionDesc bad = {
      .n = 16, .ensemble = 1, .length = 1.0, .coeff = 1.0, .dt = 1e-6, .ny = 4};
  CHECK_ERR(GsHyperdiffusionCreate(ctx, &bad, &h1), GS_ERR_ARG_OUTOFRANGE);
  CHECK_MSG(ctx, "ny = 4");
  bad.ny = 16;
  bad.ensemble = 2;
  CHECK_ERR(GsHyperdiffusionCreate(ctx, &bad, &h1), GS_ERR_ARG_INCOMP);
}

/* A run from cos(2 pi kx x) (2D: times cos(2 pi ky y)) in precision pt: its errors against the
 * exact and the semi-discrete solutions after `steps` steps, and its state as doubles in v. */
static void cosine_run(GsContext ctx, GsInt n, GsInt ny, double dt, GsInt steps, double kx,
                       double ky, GsDataType pt, double *v, double *e, double *et) {
  GsHyperdiffusion h = make_in(ctx, n, ny, 1, dt, pt);
  GsVec c = NULL;
  const GsInt N = n * (ny > 1 ? ny : 1);
  *e = *et = NAN;
  if (h &&
      !CHECK_OK(ny > 1 ? GsHyperdiffusionSetCosine2D(h, 1.0, kx, ky)
                       : GsHyperdiffusionSetCosine(h, 0, 1.0, kx, 0.0)) &&
      !CHECK_OK(GsHyperdiffusionStep(h, steps)) &&
      !CHECK_OK(ny > 1 ? GsHyperdiffusionCosineError2D(h, 1.0, kx, ky, e, et)
                       : GsHyperdiffusionCosineError(h, 0, 1.0, kx, 0.0, e, et)) &&
      !CHECK_OK(GsVecCreate(ctx, N, GS_DOUBLE, &c)) && !CHECK_OK(GsHyperdiffusionGetState(h, c)))
    CHECK_OK(GsVecGetValuesHost(c, v));
  GsVecDestroy(&c);
  GsHyperdiffusionDestroy(&h);
}

/* Single precision against double from the same cosine, 1D (n = 64, sigma = 0.84, 1000 steps) and
 * 2D (32^2, sigma = 0.10, 500 steps). The matrices' entries and factors rounded to floats change
 * a step's Fourier factors by at most about W FLT_EPSILON, W the absolute row sum of the step's
 * operators (1 + 12 sigma in 1D; (1 + 12 sigma)^2 + 64 sigma in 2D, the mixed term's
 * 2 g dt |Dxx Dyy| = 64 sigma included). Float solves for each step's change (delta form), so
 * that rounding falls on the changes, whose sizes over all the steps of a decaying mode (factors
 * in (0, 1)) add up to at most the amplitude: W FLT_EPSILON in all, doubled for the stencils'
 * rounding; storing the state rounds it by half a unit a step at random signs, sqrt(m)
 * FLT_EPSILON over m steps. So the L2 difference is within (2 W + sqrt(m)) FLT_EPSILON of the
 * amplitude 1 (solved whole, 1D float was 1e-5 from double here, 1.6 times that bound). At these
 * sizes the spatial error is far above that rounding, so the float run's error against the exact
 * solution is the double run's within 10% (and differs from it by no more than the two states
 * do). */
static void test_float(GsContext ctx) {
  struct {
    GsInt n, ny, steps;
    double dt, kx, ky;
  } cases[2] = {{64, 0, 1000, 1e-7, 2, 0}, {32, 32, 500, 2e-7, 1, 2}};
  for (int c = 0; c < 2; c++) {
    const GsInt n = cases[c].n, ny = cases[c].ny, N = n * (ny > 1 ? ny : 1), m = cases[c].steps;
    const double dx = 1.0 / (double)n, sigma = cases[c].dt / (2 * dx * dx * dx * dx);
    const double W = ny > 1 ? (1 + 12 * sigma) * (1 + 12 * sigma) + 64 * sigma : 1 + 12 * sigma;
    const double bound = (2 * W + sqrt((double)m)) * FLT_EPSILON;
    double *vd = hs_malloc((size_t)N * sizeof *vd), *vf = hs_malloc((size_t)N * sizeof *vf);
    double ed, etd, ef, etf;
    cosine_run(ctx, n, ny, cases[c].dt, m, cases[c].kx, cases[c].ky, GS_DOUBLE, vd, &ed, &etd);
    cosine_run(ctx, n, ny, cases[c].dt, m, cases[c].kx, cases[c].ky, GS_FLOAT, vf, &ef, &etf);
    long double ss = 0;
    for (GsInt i = 0; i < N; i++)
      ss += (long double)(vf[i] - vd[i]) * (vf[i] - vd[i]);
    const double diff = sqrt((double)ss / (double)N); /* the L2 norm on the unit interval/square */
    const char *dim = ny > 1 ? "2D" : "1D";
    printf("float %s n = %lld, sigma %.3g, %lld steps: L2 difference from double %.3e (bound "
           "%.2e); error against the exact solution %.4e (double %.4e, ratio %.4f), against the "
           "semi-discrete one %.2e (double %.2e)\n",
           dim, (long long)n, sigma, (long long)m, diff, bound, ef, ed, ef / ed, etf, etd);
    CHECK(diff <= bound, "float %s: L2 difference from double %g > %g", dim, diff, bound);
    CHECK(diff <= 0.1 * ed && fabs(ef - ed) <= diff * (1 + 1e-9) + 1e-15,
          "float %s: difference %g from double against its error %g (float %g)", dim, diff, ed, ef);
    CHECK(fabs(ef / ed - 1) <= 0.1, "float %s: error %g against the double run's %g", dim, ef, ed);
    free(vd);
    free(vf);
  }
  GsHyperdiffusionDesc bad = {
      .n = 16, .ensemble = 1, .length = 1.0, .coeff = 1.0, .dt = 1e-6, .precision = (GsDataType)7};
  GsHyperdiffusion h = NULL;
  CHECK_ERR(GsHyperdiffusionCreate(ctx, &bad, &h), GS_ERR_ARG_TYPE);
  CHECK_MSG(ctx, "hyperdiffusion: precision 7; GS_DOUBLE or GS_FLOAT");
  CHECK(h == NULL, "a bad precision left a handle");
  /* Float where sigma eps > 1e-2 (here sigma = 2^16 dt / 2 = 98304, 1D and 2D): refused,
   * naming the largest dt that fits; just below it, created. */
  for (int twod = 0; twod < 2; twod++) {
    GsHyperdiffusionDesc big = {.n = 16,
                                .ny = twod ? 16 : 0,
                                .ensemble = 1,
                                .length = 1.0,
                                .coeff = 1.0,
                                .dt = 3.0,
                                .precision = GS_FLOAT};
    CHECK_ERR(GsHyperdiffusionCreate(ctx, &big, &h), GS_ERR_ARG_OUTOFRANGE);
    CHECK_MSG(ctx, "hyperdiffusion in float: sigma = g dt / (2 dx^4) = 9.83e+04");
    CHECK_MSG(ctx, "or dt <= 2.56");
    CHECK(h == NULL, "a refused float solver left a handle");
    big.dt = 2.55;
    CHECK_OK(GsHyperdiffusionCreate(ctx, &big, &h));
    GsHyperdiffusionDestroy(&h);
  }
}

static void test_errors(GsContext ctx) {
  GsHyperdiffusion h = NULL;
  GsHyperdiffusionDesc d = {.n = 4, .ensemble = 1, .length = 1.0, .coeff = 1.0, .dt = 1e-6};
  CHECK_ERR(GsHyperdiffusionCreate(ctx, &d, &h), GS_ERR_ARG_OUTOFRANGE);
  CHECK_MSG(ctx, "n = 4");
  d.n = 16;
  d.dt = 0;
  CHECK_ERR(GsHyperdiffusionCreate(ctx, &d, &h), GS_ERR_ARG_OUTOFRANGE);
  CHECK_MSG(ctx, "dt = 0");
  d.dt = NAN;
  CHECK_ERR(GsHyperdiffusionCreate(ctx, &d, &h), GS_ERR_ARG_OUTOFRANGE);
  d.dt = 1e-6;
  d.ensemble = 0;
  CHECK_ERR(GsHyperdiffusionCreate(ctx, &d, &h), GS_ERR_ARG_OUTOFRANGE);
  d.ensemble = 2;
  d.length = -1;
  CHECK_ERR(GsHyperdiffusionCreate(ctx, &d, &h), GS_ERR_ARG_OUTOFRANGE);
  d.length = 1;
  d.coeff = 0;
  CHECK_ERR(GsHyperdiffusionCreate(ctx, &d, &h), GS_ERR_ARG_OUTOFRANGE);
  d.coeff = 1;
  CHECK_ERR(GsHyperdiffusionCreate(ctx, NULL, &h), GS_ERR_ARG_NULL);
  CHECK(h == NULL, "a failed create left a handle");
  if (CHECK_OK(GsHyperdiffusionCreate(ctx, &d, &h))) return;
  GsVec c = NULL, f = NULL, s = NULL;
  if (!CHECK_OK(GsVecCreate(ctx, 32, GS_DOUBLE, &c)) && !CHECK_OK(GsVecSet(c, 0.25))) {
    double *p = NULL;
    CHECK_OK(GsVecGetArray(c, GS_MEM_HOST, (void **)&p));
    p[16 + 3] = NAN; /* member 1, point 3 */
    CHECK_OK(GsVecRestoreArray(c, (void **)&p));
    CHECK_ERR(GsHyperdiffusionSetState(h, c), GS_ERR_NOT_FINITE);
    CHECK_MSG(ctx, "member 1 at grid point 3");
  }
  if (!CHECK_OK(GsVecCreate(ctx, 31, GS_DOUBLE, &s))) {
    CHECK_ERR(GsHyperdiffusionSetState(h, s), GS_ERR_ARG_SIZE);
    CHECK_ERR(GsHyperdiffusionGetState(h, s), GS_ERR_ARG_SIZE);
  }
  /* A float state is converted (in and out). */
  if (!CHECK_OK(GsVecCreate(ctx, 32, GS_FLOAT, &f)) && !CHECK_OK(GsVecSet(f, 0.375)) &&
      !CHECK_OK(GsHyperdiffusionSetState(h, f)) && !CHECK_OK(GsVecSet(f, 0)) &&
      !CHECK_OK(GsHyperdiffusionGetState(h, f))) {
    float back[32];
    CHECK_OK(GsVecGetValuesHost(f, back));
    CHECK(back[0] == 0.375f && back[31] == 0.375f, "float state round trip: %g", (double)back[0]);
  }
  CHECK_ERR(GsHyperdiffusionSetState(h, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsHyperdiffusionSetCosine(h, 2, 1, 1, 0), GS_ERR_ARG_OUTOFRANGE);
  CHECK_ERR(GsHyperdiffusionSetCosine(h, 0, INFINITY, 1, 0), GS_ERR_NOT_FINITE);
  CHECK_ERR(GsHyperdiffusionStep(h, -1), GS_ERR_ARG_OUTOFRANGE);
  CHECK_ERR(GsHyperdiffusionCosineError(h, 5, 1, 1, 0, NULL, NULL), GS_ERR_ARG_OUTOFRANGE);
  double o = 0, hh[2] = {1, 1}, ee[2] = {1, 2};
  CHECK_ERR(GsConvergenceOrder(ctx, 2, hh, ee, &o), GS_ERR_ARG_OUTOFRANGE);
  hh[1] = 0.5;
  ee[1] = 0;
  CHECK_ERR(GsConvergenceOrder(ctx, 2, hh, ee, &o), GS_ERR_ARG_OUTOFRANGE);
  CHECK_ERR(GsConvergenceOrder(ctx, 1, hh, ee, &o), GS_ERR_ARG_OUTOFRANGE);
  CHECK_ERR(GsHyperdiffusionStep(NULL, 1), GS_ERR_ARG_NULL);
  GsVecDestroy(&c);
  GsVecDestroy(&f);
  GsVecDestroy(&s);
  GsHyperdiffusionDestroy(&h);
  CHECK(h == NULL && GsHyperdiffusionDestroy(&h) == 0, "destroy twice");
}

int main(int argc, char **argv) {
  if (argc > 1 && argv[1][0] == '/') resource = argv[1];
  hs_begin("test_hyperdiffusion", resource, argc, argv);
  GsContext ctx = NULL;
  int rc = hs_init_backend(resource, &ctx);
  if (rc == 77) return 77;
  if (rc) return hs_finish();
  HsRng r = hs_rng(11);
  test_orders(ctx);
  test_modes(ctx);
  test_mass_and_ensemble(ctx, &r, GS_DOUBLE, 1e-6);
  test_mass_and_ensemble(ctx, &r, GS_FLOAT, 1e-6);
  test_mass_and_ensemble(ctx, &r, GS_FLOAT, 2e-8);
  test_2d(ctx);
  test_float(ctx);
  test_errors(ctx);
  hs_unwatch(ctx);
  CHECK_OK(GsDestroy(&ctx));
  return hs_finish();
}
