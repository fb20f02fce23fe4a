/* Vectors on one back end (argv[1]), double and float: every operation of vec.h against a host
 * reference computed in long double from the same inputs, for sizes 0, 1, 7, 1000, 100003, a random
 * size and one above 2^20; array access rules; wrapping user arrays; argument errors; allocation
 * failure; bitwise reproducible reductions.
 *
 * Tolerances. Element-wise results: |r - e| <= k eps_T S, with eps_T the machine epsilon of the
 * vector's type, S the sum of the magnitudes of the terms (|alpha x| + |beta y|, ...) and k a few
 * units. Reductions accumulate in double (vec.h), so: |r - e| <= 2 (n eps_d + eps_p) S with
 * S = sum of |terms| and eps_p = eps_f for float vectors (a product may be rounded to float before
 * it is accumulated), 0 for doubles. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include "harness.h"

#include <sys/mman.h>

static const char *resource = "/cpu";
static GsMemType pref_mem = GS_MEM_HOST;

typedef long double LD;

/* ---- Typed host buffers -------------------------------------------------------------------- */

/* The value x rounded to the vector's type. */
static double to_type(GsDataType dt, double x) {
  return dt == GS_DOUBLE ? x : (double)(float)x;
}

static void pack(GsDataType dt, GsInt n, const double *src, void *dst) {
  if (dt == GS_DOUBLE)
    memcpy(dst, src, (size_t)n * sizeof(double));
  else
    for (GsInt i = 0; i < n; i++)
      ((float *)dst)[i] = (float)src[i];
}
static void unpack(GsDataType dt, GsInt n, const void *src, double *dst) {
  if (dt == GS_DOUBLE)
    memcpy(dst, src, (size_t)n * sizeof(double));
  else
    for (GsInt i = 0; i < n; i++)
      dst[i] = ((const float *)src)[i];
}

/* Random host values exactly representable in dt, magnitude in [0.5, 2), random sign. */
static double *random_values(HsRng *r, GsDataType dt, GsInt n) {
  double *a = hs_malloc((size_t)n * sizeof *a);
  hs_fill_d(r, n, a, 0.5, 2.0);
  for (GsInt i = 0; i < n; i++)
    a[i] = to_type(dt, a[i]);
  return a;
}

static int set_values(GsVec v, GsDataType dt, GsInt n, const double *vals) {
  void *buf = hs_scratch((size_t)n * GsDataTypeSize(dt));
  pack(dt, n, vals, buf);
  return CHECK_OK(GsVecSetValuesHost(v, buf));
}
static int get_values(GsVec v, GsDataType dt, GsInt n, double *out) {
  void *buf = hs_scratch((size_t)n * GsDataTypeSize(dt));
  int rc = CHECK_OK(GsVecGetValuesHost(v, buf));
  if (rc)
    for (GsInt i = 0; i < n; i++)
      out[i] = NAN;
  else
    unpack(dt, n, buf, out);
  return rc;
}
static GsVec new_vec(GsContext ctx, GsDataType dt, GsInt n, const double *vals) {
  GsVec v = NULL;
  if (CHECK_OK(GsVecCreate(ctx, n, dt, &v))) return NULL;
  if (vals) set_values(v, dt, n, vals);
  return v;
}

/* ---- Comparison against a reference -------------------------------------------------------- */

/* Check got[i] against exact[i] within k eps S[i] (S NULL: S = |exact|; k = 0: exact equality).
 * One CHECK per call, reporting the worst entry. */
static void check_elems(const char *what, GsDataType dt, GsInt n, const double *got,
                        const LD *exact, const LD *scale, double k) {
  double eps = hs_type_eps(dt);
  GsInt bad = 0, worst_i = -1;
  double worst = 0;
  for (GsInt i = 0; i < n; i++) {
    LD e = exact[i], s = scale ? scale[i] : fabsl(e);
    LD err = fabsl((LD)got[i] - e), tol = (LD)k * eps * s;
    int ok = isfinite(got[i]) && (k == 0 ? (LD)got[i] == e : err <= tol);
    if (!ok) {
      bad++;
      double ratio = s > 0 ? (double)(err / (eps * s)) : INFINITY;
      if (worst_i < 0 || !(ratio <= worst)) {
        worst = ratio;
        worst_i = i;
      }
    }
  }
  CHECK(bad == 0,
        "%s %s n=%lld: %lld of %lld entries wrong; worst [%lld] = %.17g, expected %.17Lg "
        "(error %.3g eps*S, allowed %g)",
        what, dt == GS_DOUBLE ? "double" : "float", (long long)n, (long long)bad, (long long)n,
        (long long)worst_i, worst_i >= 0 ? got[worst_i] : 0.0, worst_i >= 0 ? exact[worst_i] : 0.0L,
        worst, k);
}

/* A reduction result r against exact e with S = sum |terms|. */
static void check_red(const char *what, GsDataType dt, GsInt n, double r, LD e, LD S) {
  LD eps_p = dt == GS_FLOAT ? FLT_EPSILON : 0;
  LD tol = 2 * ((LD)n * DBL_EPSILON + eps_p) * S;
  CHECK(isfinite(r) && fabsl((LD)r - e) <= tol,
        "%s %s n=%lld: got %.17g, expected %.17Lg (error %.3Lg, allowed %.3Lg)", what,
        dt == GS_DOUBLE ? "double" : "float", (long long)n, r, e, fabsl((LD)r - e), tol);
}

/* ---- The operations, one size and type ----------------------------------------------------- */

typedef struct {
  GsContext ctx;
  GsDataType dt;
  GsInt n;
  double *x, *y, *z; /* inputs, exactly representable in dt, never zero */
  GsVec X, Y, W;     /* X and Y hold x and y throughout; W is an output */
  double *out;       /* read-back buffer */
  LD *ex, *sc;       /* reference values and scales */
} Case;

static void poison(Case *c, GsVec v) {
  CHECK_OK(GsVecSet(v, NAN));
  (void)c;
}

static void op_set_copy_scale(Case *c, HsRng *r) {
  GsInt n = c->n;
  GsDataType dt = c->dt;
  /* Set: every entry becomes (T)alpha exactly. */
  double alpha = hs_range(r, -3, 3);
  poison(c, c->W);
  CHECK_OK(GsVecSet(c->W, alpha));
  get_values(c->W, dt, n, c->out);
  for (GsInt i = 0; i < n; i++)
    c->ex[i] = to_type(dt, alpha);
  check_elems("Set", dt, n, c->out, c->ex, NULL, 0);

  /* Copy, same type: exact. */
  poison(c, c->W);
  CHECK_OK(GsVecCopy(c->X, c->W));
  get_values(c->W, dt, n, c->out);
  for (GsInt i = 0; i < n; i++)
    c->ex[i] = c->x[i];
  check_elems("Copy", dt, n, c->out, c->ex, NULL, 0);

  /* Copy with conversion: double -> float rounds to nearest, float -> double is exact. The double
   * source has full mantissas so that rounding really happens. */
  double *full = hs_malloc((size_t)n * sizeof *full);
  for (GsInt i = 0; i < n; i++)
    full[i] = c->x[i] * (1.0 + 0x1.123456789abcdp-20);
  GsVec O = new_vec(c->ctx, dt == GS_DOUBLE ? GS_FLOAT : GS_DOUBLE, n, NULL);
  if (O) {
    GsVec D = dt == GS_DOUBLE ? c->W : O, F = dt == GS_DOUBLE ? O : c->W;
    set_values(D, GS_DOUBLE, n, full);
    CHECK_OK(GsVecSet(F, NAN));
    CHECK_OK(GsVecCopy(D, F));
    get_values(F, GS_FLOAT, n, c->out);
    for (GsInt i = 0; i < n; i++)
      c->ex[i] = (float)full[i];
    check_elems("Copy double->float", dt, n, c->out, c->ex, NULL, 0);
    CHECK_OK(GsVecSet(D, NAN));
    CHECK_OK(GsVecCopy(F, D));
    get_values(D, GS_DOUBLE, n, c->out);
    check_elems("Copy float->double", dt, n, c->out, c->ex, NULL, 0);
    CHECK_OK(GsVecDestroy(&O));
  }
  free(full);

  /* Scale */
  alpha = hs_range(r, -3, 3);
  set_values(c->W, dt, n, c->x);
  CHECK_OK(GsVecScale(c->W, alpha));
  get_values(c->W, dt, n, c->out);
  for (GsInt i = 0; i < n; i++) {
    c->ex[i] = (LD)alpha * c->x[i];
    c->sc[i] = fabsl(c->ex[i]);
  }
  check_elems("Scale", dt, n, c->out, c->ex, c->sc, 2);
  /* Scale by zero gives zeros (not NaN from poison-like garbage: inputs are finite). */
  CHECK_OK(GsVecScale(c->W, 0.0));
  get_values(c->W, dt, n, c->out);
  for (GsInt i = 0; i < n; i++)
    c->ex[i] = 0;
  check_elems("Scale by 0", dt, n, c->out, c->ex, NULL, 0);
}

static void op_axpy_family(Case *c, HsRng *r) {
  GsInt n = c->n;
  GsDataType dt = c->dt;
  double alpha = hs_range(r, -3, 3);

  /* AXPY: y += alpha x */
  set_values(c->W, dt, n, c->y);
  CHECK_OK(GsVecAXPY(c->W, alpha, c->X));
  get_values(c->W, dt, n, c->out);
  for (GsInt i = 0; i < n; i++) {
    c->ex[i] = (LD)c->y[i] + (LD)alpha * c->x[i];
    c->sc[i] = fabsl((LD)alpha * c->x[i]) + fabsl((LD)c->y[i]);
  }
  check_elems("AXPY", dt, n, c->out, c->ex, c->sc, 4);

  /* AXPY with x and y the same vector: y = (1 + alpha) y */
  set_values(c->W, dt, n, c->y);
  CHECK_OK(GsVecAXPY(c->W, alpha, c->W));
  get_values(c->W, dt, n, c->out);
  for (GsInt i = 0; i < n; i++) {
    c->ex[i] = (LD)c->y[i] + (LD)alpha * c->y[i];
    c->sc[i] = fabsl((LD)alpha * c->y[i]) + fabsl((LD)c->y[i]);
  }
  check_elems("AXPY aliased", dt, n, c->out, c->ex, c->sc, 4);

  /* AXPBY for a general beta, beta = 1 and beta = 0 (y holds NaN and must not be read). */
  const double betas[] = {hs_range(r, -3, 3), 1.0, 0.0};
  const char *names[] = {"AXPBY", "AXPBY beta=1", "AXPBY beta=0 over NaN"};
  for (int k = 0; k < 3; k++) {
    double beta = betas[k];
    if (beta == 0.0)
      poison(c, c->W);
    else
      set_values(c->W, dt, n, c->y);
    CHECK_OK(GsVecAXPBY(c->W, alpha, beta, c->X));
    get_values(c->W, dt, n, c->out);
    for (GsInt i = 0; i < n; i++) {
      LD ty = beta == 0.0 ? 0 : (LD)beta * c->y[i];
      c->ex[i] = (LD)alpha * c->x[i] + ty;
      c->sc[i] = fabsl((LD)alpha * c->x[i]) + fabsl(ty);
    }
    check_elems(names[k], dt, n, c->out, c->ex, c->sc, 4);
  }

  /* WAXPY: w = alpha x + y, into a poisoned w, then with w aliasing x and y. */
  for (int k = 0; k < 3; k++) {
    const double *xin = c->x;
    GsVec Xv = c->X, Yv = c->Y;
    if (k == 0) {
      poison(c, c->W);
      CHECK_OK(GsVecWAXPY(c->W, alpha, c->X, c->Y));
    } else if (k == 1) {
      set_values(c->W, dt, n, c->x);
      Xv = c->W;
      CHECK_OK(GsVecWAXPY(c->W, alpha, Xv, Yv));
    } else {
      set_values(c->W, dt, n, c->y);
      Yv = c->W;
      CHECK_OK(GsVecWAXPY(c->W, alpha, Xv, Yv));
    }
    get_values(c->W, dt, n, c->out);
    for (GsInt i = 0; i < n; i++) {
      c->ex[i] = (LD)alpha * xin[i] + c->y[i];
      c->sc[i] = fabsl((LD)alpha * xin[i]) + fabsl((LD)c->y[i]);
    }
    check_elems(k == 0   ? "WAXPY"
                : k == 1 ? "WAXPY w=x"
                         : "WAXPY w=y",
                dt, n, c->out, c->ex, c->sc, 4);
  }

  /* AXPBYPCZ: z = alpha x + beta y + gamma z; gamma = 0 over a poisoned z (not read); z aliasing
   * x, then y. */
  const double beta = hs_range(r, -3, 3), gammas[4] = {hs_range(r, -3, 3), 0.0, -1.5, 2.5};
  const char *pcz[4] = {"AXPBYPCZ", "AXPBYPCZ gamma=0 over NaN", "AXPBYPCZ z=x", "AXPBYPCZ z=y"};
  for (int k = 0; k < 4; k++) {
    const double g = gammas[k], *zin = k == 2 ? c->x : k == 3 ? c->y : c->z;
    if (k == 1)
      poison(c, c->W);
    else
      set_values(c->W, dt, n, zin);
    CHECK_OK(GsVecAXPBYPCZ(c->W, alpha, beta, g, k == 2 ? c->W : c->X, k == 3 ? c->W : c->Y));
    get_values(c->W, dt, n, c->out);
    for (GsInt i = 0; i < n; i++) {
      const LD tz = g == 0.0 ? 0 : (LD)g * zin[i];
      c->ex[i] = (LD)alpha * c->x[i] + (LD)beta * c->y[i] + tz;
      c->sc[i] = fabsl((LD)alpha * c->x[i]) + fabsl((LD)beta * c->y[i]) + fabsl(tz);
    }
    check_elems(pcz[k], dt, n, c->out, c->ex, c->sc, 6);
  }
}

static void op_pointwise(Case *c) {
  GsInt n = c->n;
  GsDataType dt = c->dt;
  poison(c, c->W);
  CHECK_OK(GsVecPointwiseMult(c->W, c->X, c->Y));
  get_values(c->W, dt, n, c->out);
  for (GsInt i = 0; i < n; i++)
    c->ex[i] = (LD)c->x[i] * c->y[i];
  check_elems("PointwiseMult", dt, n, c->out, c->ex, NULL, 1);

  poison(c, c->W);
  CHECK_OK(GsVecPointwiseDivide(c->W, c->X, c->Y));
  get_values(c->W, dt, n, c->out);
  for (GsInt i = 0; i < n; i++)
    c->ex[i] = (LD)c->x[i] / c->y[i];
  check_elems("PointwiseDivide", dt, n, c->out, c->ex, NULL, 2);

  /* w aliasing x */
  set_values(c->W, dt, n, c->x);
  CHECK_OK(GsVecPointwiseMult(c->W, c->W, c->Y));
  get_values(c->W, dt, n, c->out);
  for (GsInt i = 0; i < n; i++)
    c->ex[i] = (LD)c->x[i] * c->y[i];
  check_elems("PointwiseMult w=x", dt, n, c->out, c->ex, NULL, 1);

  /* Reciprocal, with some exact zeros that must stay zero. */
  double *v = hs_malloc((size_t)n * sizeof *v);
  for (GsInt i = 0; i < n; i++)
    v[i] = i % 5 == 2 ? 0.0 : c->x[i];
  set_values(c->W, dt, n, v);
  CHECK_OK(GsVecReciprocal(c->W));
  get_values(c->W, dt, n, c->out);
  for (GsInt i = 0; i < n; i++)
    c->ex[i] = v[i] == 0 ? 0 : 1 / (LD)v[i];
  check_elems("Reciprocal", dt, n, c->out, c->ex, NULL, 2);
  free(v);
}

static void op_reductions(Case *c, HsRng *r) {
  GsInt n = c->n;
  GsDataType dt = c->dt;
  double res = NAN;

  /* Dot */
  LD e = 0, S = 0;
  for (GsInt i = 0; i < n; i++) {
    e += (LD)c->x[i] * c->y[i];
    S += fabsl((LD)c->x[i] * c->y[i]);
  }
  CHECK_OK(GsVecDot(c->X, c->Y, &res));
  check_red("Dot", dt, n, res, e, S);
  CHECK_OK(GsVecDot(c->X, c->X, &res));
  e = 0;
  for (GsInt i = 0; i < n; i++)
    e += (LD)c->x[i] * c->x[i];
  check_red("Dot x.x", dt, n, res, e, e);

  /* Norms. A larger entry at the end makes the infinity norm see the tail. */
  double *v = hs_malloc((size_t)n * sizeof *v);
  memcpy(v, c->x, (size_t)n * sizeof *v);
  if (n > 1) v[n - 1] = to_type(dt, -2.75);
  set_values(c->W, dt, n, v);
  LD s1 = 0, s2 = 0, mx = 0;
  for (GsInt i = 0; i < n; i++) {
    s1 += fabsl((LD)v[i]);
    s2 += (LD)v[i] * v[i];
    if (fabsl((LD)v[i]) > mx) mx = fabsl((LD)v[i]);
  }
  CHECK_OK(GsVecNorm(c->W, GS_NORM_1, &res));
  check_red("Norm1", dt, n, res, s1, s1);
  CHECK_OK(GsVecNorm(c->W, GS_NORM_2, &res));
  check_red("Norm2", dt, n, res, sqrtl(s2), sqrtl(s2));
  res = NAN;
  CHECK_OK(GsVecNorm(c->W, GS_NORM_INF, &res));
  CHECK((LD)res == mx, "NormInf %s n=%lld: got %.17g, expected %.17Lg",
        dt == GS_DOUBLE ? "double" : "float", (long long)n, res, mx);
  free(v);

  /* AXPYNorm: y += alpha x and ||y||_2; the norm is that of the y it stored. */
  double alpha = hs_range(r, -3, 3);
  set_values(c->W, dt, n, c->y);
  res = NAN;
  CHECK_OK(GsVecAXPYNorm(c->W, alpha, c->X, &res));
  get_values(c->W, dt, n, c->out);
  LD stored = 0;
  for (GsInt i = 0; i < n; i++) {
    c->ex[i] = (LD)c->y[i] + (LD)alpha * c->x[i];
    c->sc[i] = fabsl((LD)alpha * c->x[i]) + fabsl((LD)c->y[i]);
    stored += (LD)c->out[i] * c->out[i];
  }
  check_elems("AXPYNorm y", dt, n, c->out, c->ex, c->sc, 4);
  check_red("AXPYNorm norm", dt, n, res, sqrtl(stored), sqrtl(stored));

  /* DotNorm2: x.y and y.y (not its square root). */
  double d = NAN, nn = NAN;
  CHECK_OK(GsVecDotNorm2(c->X, c->Y, &d, &nn));
  e = S = 0;
  LD yy = 0;
  for (GsInt i = 0; i < n; i++) {
    e += (LD)c->x[i] * c->y[i];
    S += fabsl((LD)c->x[i] * c->y[i]);
    yy += (LD)c->y[i] * c->y[i];
  }
  check_red("DotNorm2 dot", dt, n, d, e, S);
  check_red("DotNorm2 nrm2", dt, n, nn, yy, yy);
}

/* MDot with nv = 1, 3, 9, 17 against distinct vectors (cycled through fewer when n is large). */
static void op_mdot(Case *c, HsRng *r) {
  GsInt n = c->n;
  GsDataType dt = c->dt;
  int ndistinct = n > 200000 ? 5 : 17;
  double *vals[17];
  GsVec V[17], Ys[17];
  for (int k = 0; k < ndistinct; k++) {
    vals[k] = random_values(r, dt, n);
    V[k] = new_vec(c->ctx, dt, n, vals[k]);
  }
  const int nvs[] = {1, 3, 9, 17};
  for (int t = 0; t < 4; t++) {
    int nv = nvs[t];
    int ok = 1;
    int map[17];
    for (int k = 0; k < nv; k++) {
      map[k] = (k * 3 + t) % ndistinct;
      Ys[k] = V[map[k]];
      ok = ok && Ys[k];
    }
    if (!ok) break;
    double res[18];
    for (int k = 0; k < 18; k++)
      res[k] = NAN;
    CHECK_OK(GsVecMDot(c->X, nv, (const GsVec *)Ys, res));
    for (int k = 0; k < nv; k++) {
      LD e = 0, S = 0;
      const double *yk = vals[map[k]];
      for (GsInt i = 0; i < n; i++) {
        e += (LD)c->x[i] * yk[i];
        S += fabsl((LD)c->x[i] * yk[i]);
      }
      char what[32];
      snprintf(what, sizeof what, "MDot nv=%d [%d]", nv, k);
      check_red(what, dt, n, res[k], e, S);
    }
    CHECK(isnan(res[nv]), "MDot nv=%d wrote past the end of results", nv);
  }
  for (int k = 0; k < ndistinct; k++) {
    GsVecDestroy(&V[k]);
    free(vals[k]);
  }
}

/* The fused operation against the unfused sequence: the same bits on every back end (no back end
 * fuses a multiply-add, gsimpl.h). */
static void check_same(const char *what, GsDataType dt, GsInt n, const double *got,
                       const double *want) {
  GsInt bad = 0, first = -1;
  for (GsInt i = 0; i < n; i++)
    if (memcmp(&got[i], &want[i], sizeof got[i]) != 0) {
      bad++;
      if (first < 0) first = i;
    }
  CHECK(bad == 0,
        "%s %s n=%lld: %lld entries differ from the unfused operations; first [%lld] %.17g, "
        "unfused %.17g",
        what, dt == GS_DOUBLE ? "double" : "float", (long long)n, (long long)bad, (long long)first,
        first >= 0 ? got[first] : 0.0, first >= 0 ? want[first] : 0.0);
}

/* MAXPY with nv = 1, 4, 17 (past the front end's 16 pointers on the stack) against the long-double
 * reference and, bit for bit, against nv AXPY calls in turn on the same back end. */
static void op_maxpy(Case *c, HsRng *r) {
  GsInt n = c->n;
  GsDataType dt = c->dt;
  const int ndistinct = n > 200000 ? 5 : 17;
  double *vals[17], alpha[17], *seq = hs_malloc((size_t)(n ? n : 1) * sizeof *seq);
  GsVec V[17], Xs[17];
  for (int k = 0; k < ndistinct; k++) {
    vals[k] = random_values(r, dt, n);
    V[k] = new_vec(c->ctx, dt, n, vals[k]);
  }
  const int nvs[] = {1, 4, 17};
  for (int t = 0; t < 3; t++) {
    const int nv = nvs[t];
    int ok = 1, map[17];
    for (int k = 0; k < nv; k++) {
      map[k] = (k * 5 + t) % ndistinct;
      Xs[k] = V[map[k]];
      ok = ok && Xs[k];
      alpha[k] = hs_range(r, -3, 3);
    }
    if (!ok) break;
    set_values(c->W, dt, n, c->y);
    CHECK_OK(GsVecMAXPY(c->W, nv, alpha, (const GsVec *)Xs));
    get_values(c->W, dt, n, c->out);
    for (GsInt i = 0; i < n; i++) {
      c->ex[i] = c->y[i];
      c->sc[i] = fabsl((LD)c->y[i]);
      for (int k = 0; k < nv; k++) {
        c->ex[i] += (LD)alpha[k] * vals[map[k]][i];
        c->sc[i] += fabsl((LD)alpha[k] * vals[map[k]][i]);
      }
    }
    char what[32];
    snprintf(what, sizeof what, "MAXPY nv=%d", nv);
    check_elems(what, dt, n, c->out, c->ex, c->sc, 2 * nv + 2);
    set_values(c->W, dt, n, c->y);
    for (int k = 0; k < nv; k++)
      CHECK_OK(GsVecAXPY(c->W, alpha[k], Xs[k]));
    get_values(c->W, dt, n, seq);
    check_same(what, dt, n, c->out, seq);
  }
  for (int k = 0; k < ndistinct; k++) {
    GsVecDestroy(&V[k]);
    free(vals[k]);
  }
  free(seq);
}

/* AXPYPair: x += alpha p, r -= alpha q, rwr = r . (w .* r) and rr = r . r over the new r, with w
 * and without, with either result not wanted, and with p aliasing x; the vectors against the
 * long-double reference and, bit for bit, against AXPY, AXPY, PointwiseMult on the same back end;
 * the reductions against the reference over the r it stored. Without x and p (both NULL): r, rr
 * and rwr bit for bit those of the call with them. */
static void op_axpy_pair(Case *c, HsRng *rng) {
  GsInt n = c->n;
  GsDataType dt = c->dt;
  const double alpha = hs_range(rng, -3, 3);
  double *x0 = random_values(rng, dt, n), *r0 = random_values(rng, dt, n);
  double *wv = random_values(rng, dt, n), *rout = hs_malloc((size_t)n * sizeof *rout);
  double *xu = hs_malloc((size_t)n * sizeof *xu), *ru = hs_malloc((size_t)n * sizeof *ru);
  GsVec Xv = new_vec(c->ctx, dt, n, NULL), Rv = new_vec(c->ctx, dt, n, NULL);
  GsVec Wv = new_vec(c->ctx, dt, n, wv), Z = new_vec(c->ctx, dt, n, NULL);
  if (!Xv || !Rv || !Wv || !Z) goto done;
  /* variant v: bit 0 = with w, bit 1 = rwr not wanted, bit 2 = rr not wanted; 8: p is x */
  for (int v = 0; v <= 8; v++) {
    const int hw = v == 8 || (v & 1), alias = v == 8;
    GsVec Pv = alias ? Xv : c->X, Wuse = hw ? Wv : NULL;
    const double *pin = alias ? x0 : c->x;
    double rwr = NAN, rr = NAN;
    set_values(Xv, dt, n, x0);
    set_values(Rv, dt, n, r0);
    CHECK_OK(
        GsVecAXPYPair(Xv, Rv, alpha, Pv, c->Y, Wuse, (v & 2) ? NULL : &rwr, (v & 4) ? NULL : &rr));
    get_values(Xv, dt, n, c->out);
    get_values(Rv, dt, n, rout);
    char what[64];
    for (GsInt i = 0; i < n; i++) {
      c->ex[i] = (LD)x0[i] + (LD)alpha * pin[i];
      c->sc[i] = fabsl((LD)alpha * pin[i]) + fabsl((LD)x0[i]);
    }
    snprintf(what, sizeof what, "AXPYPair x (variant %d)", v);
    check_elems(what, dt, n, c->out, c->ex, c->sc, 4);
    LD e_rr = 0, e_rwr = 0, s_rwr = 0;
    for (GsInt i = 0; i < n; i++) {
      c->ex[i] = (LD)r0[i] - (LD)alpha * c->y[i];
      c->sc[i] = fabsl((LD)alpha * c->y[i]) + fabsl((LD)r0[i]);
      const double z = hw ? to_type(dt, wv[i] * rout[i]) : rout[i]; /* w r as the type stores it */
      e_rr += (LD)rout[i] * rout[i];
      e_rwr += (LD)rout[i] * z;
      s_rwr += fabsl((LD)rout[i] * z);
    }
    snprintf(what, sizeof what, "AXPYPair r (variant %d)", v);
    check_elems(what, dt, n, rout, c->ex, c->sc, 4);
    if (v & 4) {
      CHECK(isnan(rr), "AXPYPair variant %d wrote rr, which was not asked for", v);
    } else {
      snprintf(what, sizeof what, "AXPYPair rr (variant %d)", v);
      check_red(what, dt, n, rr, e_rr, e_rr);
    }
    if (!(v & 2)) {
      snprintf(what, sizeof what, "AXPYPair rwr (variant %d)", v);
      check_red(what, dt, n, rwr, e_rwr, s_rwr);
      if (!hw && !(v & 4)) CHECK(rwr == rr, "AXPYPair without w: rwr %.17g != rr %.17g", rwr, rr);
    }
    /* The unfused sequence on this back end stores the same bits. */
    set_values(Xv, dt, n, x0);
    set_values(Rv, dt, n, r0);
    CHECK_OK(GsVecAXPY(Xv, alpha, Pv));
    CHECK_OK(GsVecAXPY(Rv, -alpha, c->Y));
    get_values(Xv, dt, n, xu);
    get_values(Rv, dt, n, ru);
    snprintf(what, sizeof what, "AXPYPair x (variant %d)", v);
    check_same(what, dt, n, c->out, xu);
    snprintf(what, sizeof what, "AXPYPair r (variant %d)", v);
    check_same(what, dt, n, rout, ru);
    if (hw && !(v & 2)) {
      double d = NAN;
      CHECK_OK(GsVecPointwiseMult(Z, Wv, Rv));
      CHECK_OK(GsVecDot(Rv, Z, &d));
      /* the same products summed in the same order (gsimpl.h): the same bits */
      CHECK(!memcmp(&d, &rwr, sizeof d), "AXPYPair %s n=%lld: rwr %.17g, PointwiseMult + Dot %.17g",
            dt == GS_DOUBLE ? "double" : "float", (long long)n, rwr, d);
    }
    if (alias) continue;
    /* x = p = NULL: only r and the reductions, the same bits. */
    double rwr0 = NAN, rr0 = NAN;
    set_values(Rv, dt, n, r0);
    CHECK_OK(GsVecAXPYPair(NULL, Rv, alpha, NULL, c->Y, Wuse, (v & 2) ? NULL : &rwr0,
                           (v & 4) ? NULL : &rr0));
    get_values(Rv, dt, n, ru);
    snprintf(what, sizeof what, "AXPYPair x=NULL r (variant %d)", v);
    check_same(what, dt, n, rout, ru);
    CHECK(!memcmp(&rr0, &rr, sizeof rr) && !memcmp(&rwr0, &rwr, sizeof rwr),
          "AXPYPair x=NULL (variant %d) %s n=%lld: rwr %.17g, rr %.17g; with x %.17g, %.17g", v,
          dt == GS_DOUBLE ? "double" : "float", (long long)n, rwr0, rr0, rwr, rr);
  }
  /* p, q and w were only read. */
  get_values(Wv, dt, n, c->out);
  CHECK(n == 0 || !memcmp(c->out, wv, (size_t)n * sizeof *wv), "AXPYPair changed w (n=%lld)",
        (long long)n);
done:
  GsVecDestroy(&Xv);
  GsVecDestroy(&Rv);
  GsVecDestroy(&Wv);
  GsVecDestroy(&Z);
  free(x0);
  free(r0);
  free(wv);
  free(rout);
  free(xu);
  free(ru);
}

/* PointwiseMultAYPX: y = w .* x + beta y for a general beta, beta = 1 and beta = 0 (y poisoned:
 * it must not be read), with w and without, and with y aliasing x; against the long-double
 * reference and, bit for bit, against PointwiseMult then AXPBY(y, 1, beta, z). */
static void op_pw_mult_aypx(Case *c, HsRng *rng) {
  GsInt n = c->n;
  GsDataType dt = c->dt;
  double *wv = random_values(rng, dt, n), *un = hs_malloc((size_t)n * sizeof *un);
  GsVec Wv = new_vec(c->ctx, dt, n, wv), Z = new_vec(c->ctx, dt, n, NULL),
        Y2 = new_vec(c->ctx, dt, n, NULL);
  if (!Wv || !Z || !Y2) goto done;
  const double betas[] = {hs_range(rng, -3, 3), 1.0, 0.0};
  for (int hw = 0; hw < 2; hw++) {
    for (int k = 0; k < 4; k++) {
      const int alias = k == 3; /* y is x */
      const double beta = alias ? betas[0] : betas[k];
      const double *xin = alias ? c->y : c->x;
      GsVec Wuse = hw ? Wv : NULL;
      if (beta == 0.0)
        poison(c, c->W);
      else
        set_values(c->W, dt, n, c->y);
      CHECK_OK(GsVecPointwiseMultAYPX(c->W, beta, Wuse, alias ? c->W : c->X));
      get_values(c->W, dt, n, c->out);
      for (GsInt i = 0; i < n; i++) {
        LD z = hw ? (LD)wv[i] * xin[i] : (LD)xin[i];
        LD ty = beta == 0.0 ? 0 : (LD)beta * c->y[i];
        c->ex[i] = z + ty;
        c->sc[i] = fabsl(z) + fabsl(ty);
      }
      char what[64];
      snprintf(what, sizeof what, "PointwiseMultAYPX%s beta=%g%s", hw ? "" : " w=NULL", beta,
               alias ? " y=x" : "");
      check_elems(what, dt, n, c->out, c->ex, c->sc, 4);
      /* The unfused sequence: z = w .* x (or x), y = 1 z + beta y. */
      if (beta == 0.0)
        poison(c, Y2);
      else
        set_values(Y2, dt, n, c->y);
      GsVec Xin = alias ? Y2 : c->X;
      if (hw)
        CHECK_OK(GsVecPointwiseMult(Z, Wv, Xin));
      else
        CHECK_OK(GsVecCopy(Xin, Z));
      CHECK_OK(GsVecAXPBY(Y2, 1.0, beta, Z));
      get_values(Y2, dt, n, un);
      check_same(what, dt, n, c->out, un);
    }
  }
done:
  GsVecDestroy(&Wv);
  GsVecDestroy(&Z);
  GsVecDestroy(&Y2);
  free(wv);
  free(un);
}

/* AXPYPointwiseMultAYPX: z += alpha y and y = w .* x + beta y (y on entry in both) for a general
 * beta, beta = 1 and beta = 0 (y is read for z even then), with w and without, and with x or w
 * aliasing y; z and y against the long-double reference and, bit for bit, against AXPY(z, alpha,
 * y) then PointwiseMultAYPX(y, beta, w, x) on the same back end. */
static void op_axpy_pw_mult_aypx(Case *c, HsRng *rng) {
  GsInt n = c->n;
  GsDataType dt = c->dt;
  const double alpha = hs_range(rng, -3, 3);
  double *wv = random_values(rng, dt, n), *z0 = random_values(rng, dt, n);
  double *zout = hs_malloc((size_t)n * sizeof *zout), *un = hs_malloc((size_t)n * sizeof *un);
  GsVec Wv = new_vec(c->ctx, dt, n, wv), Zv = new_vec(c->ctx, dt, n, NULL),
        Z2 = new_vec(c->ctx, dt, n, NULL), Y2 = new_vec(c->ctx, dt, n, NULL);
  if (!Wv || !Zv || !Z2 || !Y2) goto done;
  const double betas[] = {hs_range(rng, -3, 3), 1.0, 0.0};
  for (int hw = 0; hw < 2; hw++) {
    /* k < 3: betas[k]; k = 3: x is y; k = 4: w is y (with w only) */
    for (int k = 0; k < 4 + hw; k++) {
      const int xy = k == 3, wy = k == 4;
      const double beta = k < 3 ? betas[k] : betas[0];
      const double *xin = xy ? c->y : c->x, *win = wy ? c->y : wv;
      set_values(Zv, dt, n, z0);
      set_values(c->W, dt, n, c->y);
      CHECK_OK(GsVecAXPYPointwiseMultAYPX(Zv, alpha, c->W, beta, hw ? (wy ? c->W : Wv) : NULL,
                                          xy ? c->W : c->X));
      get_values(Zv, dt, n, zout);
      get_values(c->W, dt, n, c->out);
      char what[80];
      snprintf(what, sizeof what, "AXPYPointwiseMultAYPX%s beta=%g%s%s z", hw ? "" : " w=NULL",
               beta, xy ? " x=y" : "", wy ? " w=y" : "");
      for (GsInt i = 0; i < n; i++) {
        c->ex[i] = (LD)z0[i] + (LD)alpha * c->y[i];
        c->sc[i] = fabsl((LD)alpha * c->y[i]) + fabsl((LD)z0[i]);
      }
      check_elems(what, dt, n, zout, c->ex, c->sc, 4);
      what[strlen(what) - 1] = 'y';
      for (GsInt i = 0; i < n; i++) {
        LD m = hw ? (LD)win[i] * xin[i] : (LD)xin[i];
        LD ty = beta == 0.0 ? 0 : (LD)beta * c->y[i];
        c->ex[i] = m + ty;
        c->sc[i] = fabsl(m) + fabsl(ty);
      }
      check_elems(what, dt, n, c->out, c->ex, c->sc, 4);
      /* The unfused sequence on this back end stores the same bits. */
      set_values(Z2, dt, n, z0);
      set_values(Y2, dt, n, c->y);
      CHECK_OK(GsVecAXPY(Z2, alpha, Y2));
      CHECK_OK(GsVecPointwiseMultAYPX(Y2, beta, hw ? (wy ? Y2 : Wv) : NULL, xy ? Y2 : c->X));
      get_values(Y2, dt, n, un);
      check_same(what, dt, n, c->out, un);
      get_values(Z2, dt, n, un);
      what[strlen(what) - 1] = 'z';
      check_same(what, dt, n, zout, un);
    }
  }
  /* w was only read. */
  get_values(Wv, dt, n, c->out);
  CHECK(n == 0 || !memcmp(c->out, wv, (size_t)n * sizeof *wv),
        "AXPYPointwiseMultAYPX changed w (n=%lld)", (long long)n);
done:
  GsVecDestroy(&Wv);
  GsVecDestroy(&Zv);
  GsVecDestroy(&Z2);
  GsVecDestroy(&Y2);
  free(wv);
  free(z0);
  free(zout);
  free(un);
}

static void op_random(Case *c, HsRng *r) {
  GsInt n = c->n;
  GsDataType dt = c->dt;
  const double lo = -1.0, hi = 3.0;
  uint64_t seed = hs_next(r);
  poison(c, c->W);
  CHECK_OK(GsVecSetRandom(c->W, seed, lo, hi));
  get_values(c->W, dt, n, c->out);
  double *first = hs_malloc((size_t)n * sizeof *first);
  memcpy(first, c->out, (size_t)n * sizeof *first);
  GsInt outside = 0, bad_i = -1;
  LD sum = 0;
  for (GsInt i = 0; i < n; i++) {
    if (!(first[i] >= lo && first[i] < hi)) {
      outside++;
      bad_i = i;
    }
    sum += first[i];
  }
  CHECK(outside == 0,
        "SetRandom %s n=%lld seed %llu: %lld values outside [%g, %g), e.g. [%lld] = "
        "%.17g",
        dt == GS_DOUBLE ? "double" : "float", (long long)n, (unsigned long long)seed,
        (long long)outside, lo, hi, (long long)bad_i, bad_i >= 0 ? first[bad_i] : 0.0);
  if (n >= 1000) {
    /* Mean of n uniforms: standard deviation (hi - lo) / sqrt(12 n); allow 6 of them. */
    double mean = (double)(sum / n), sd = (hi - lo) / sqrt(12.0 * (double)n);
    CHECK(fabs(mean - 0.5 * (lo + hi)) <= 6 * sd, "SetRandom n=%lld: mean %g, expected %g +- %g",
          (long long)n, mean, 0.5 * (lo + hi), 6 * sd);
  }
  if (n >= 2) {
    GsInt distinct = 0;
    for (GsInt i = 1; i < n; i++)
      distinct += first[i] != first[0];
    CHECK(distinct > 0, "SetRandom n=%lld: all values equal %.17g", (long long)n, first[0]);
  }
  /* Same seed, same values (bitwise); another seed, other values. */
  poison(c, c->W);
  CHECK_OK(GsVecSetRandom(c->W, seed, lo, hi));
  get_values(c->W, dt, n, c->out);
  CHECK(n == 0 || !memcmp(first, c->out, (size_t)n * sizeof *first),
        "SetRandom n=%lld: the same seed gave different values", (long long)n);
  if (n >= 2) {
    CHECK_OK(GsVecSetRandom(c->W, seed + 1, lo, hi));
    get_values(c->W, dt, n, c->out);
    GsInt same = 0;
    for (GsInt i = 0; i < n; i++)
      same += c->out[i] == first[i];
    CHECK(same < n, "SetRandom n=%lld: seeds %llu and %llu gave the same values", (long long)n,
          (unsigned long long)seed, (unsigned long long)seed + 1);
  }
  free(first);
}

static void op_scalars(Case *c, HsRng *rng);

static void run_case(GsContext ctx, GsDataType dt, GsInt n, HsRng *r) {
  Case c = {.ctx = ctx, .dt = dt, .n = n};
  c.x = random_values(r, dt, n);
  c.y = random_values(r, dt, n);
  c.z = random_values(r, dt, n);
  c.out = hs_malloc((size_t)n * sizeof *c.out);
  c.ex = hs_malloc((size_t)n * sizeof *c.ex);
  c.sc = hs_malloc((size_t)n * sizeof *c.sc);
  c.X = new_vec(ctx, dt, n, c.x);
  c.Y = new_vec(ctx, dt, n, c.y);
  c.W = new_vec(ctx, dt, n, NULL);
  long failed_before = hs.failed;
  if (c.X && c.Y && c.W) {
    op_set_copy_scale(&c, r);
    op_axpy_family(&c, r);
    op_pointwise(&c);
    op_reductions(&c, r);
    op_mdot(&c, r);
    op_maxpy(&c, r);
    op_axpy_pair(&c, r);
    op_pw_mult_aypx(&c, r);
    op_axpy_pw_mult_aypx(&c, r);
    op_scalars(&c, r);
    op_random(&c, r);
    /* The inputs were only read. */
    get_values(c.X, dt, n, c.out);
    CHECK(n == 0 || !memcmp(c.out, c.x, (size_t)n * sizeof *c.out),
          "x changed by operations that only read it (n=%lld)", (long long)n);
    get_values(c.Y, dt, n, c.out);
    CHECK(n == 0 || !memcmp(c.out, c.y, (size_t)n * sizeof *c.out),
          "y changed by operations that only read it (n=%lld)", (long long)n);
  }
  if (hs.failed > failed_before)
    printf("  (failures above: %s n=%lld)\n", dt == GS_DOUBLE ? "double" : "float", (long long)n);
  GsVecDestroy(&c.X);
  GsVecDestroy(&c.Y);
  GsVecDestroy(&c.W);
  free(c.x);
  free(c.y);
  free(c.z);
  free(c.out);
  free(c.ex);
  free(c.sc);
}

/* The *Scalars forms of the fused CG updates: with the coefficients in a GsScalars they store the
 * bits of the host-coefficient forms for the same alpha and beta, and their results are the bits
 * those give (with w and without); a denominator that is 0, negative or NaN leaves every vector
 * and result untouched. */
static void op_scalars(Case *c, HsRng *rng) {
  GsInt n = c->n;
  GsDataType dt = c->dt;
  double *x0 = random_values(rng, dt, n), *r0 = random_values(rng, dt, n);
  double *wv = random_values(rng, dt, n), *a1 = hs_malloc((size_t)n * sizeof *a1);
  double *a2 = hs_malloc((size_t)n * sizeof *a2), *b1 = hs_malloc((size_t)n * sizeof *b1);
  double *b2 = hs_malloc((size_t)n * sizeof *b2);
  GsVec X1 = new_vec(c->ctx, dt, n, NULL), R1 = new_vec(c->ctx, dt, n, NULL);
  GsVec X2 = new_vec(c->ctx, dt, n, NULL), R2 = new_vec(c->ctx, dt, n, NULL);
  GsVec Wv = new_vec(c->ctx, dt, n, wv);
  GsScalars S = NULL;
  if (CHECK_OK(GsScalarsCreate(c->ctx, 8, &S)) || !X1 || !R1 || !X2 || !R2 || !Wv) goto done;
  const char *tn = dt == GS_DOUBLE ? "double" : "float";
  for (int hw = 0; hw < 2; hw++) {
    GsVec W = hw ? Wv : NULL;
    /* slots: 0, 1 alpha's num and den; 2, 3 beta's; 4, 5 results */
    double sv[6] = {hs_range(rng, -3, 3),
                    hs_range(rng, 0.5, 2),
                    hs_range(rng, -2, 2),
                    hs_range(rng, 0.5, 2),
                    -7,
                    -7};
    const double alpha = sv[0] / sv[1], beta = sv[2] / sv[3];
    CHECK_OK(GsScalarsSet(S, 0, 6, sv));
    const GsScalarRatio ra = {S, 0, 1}, rb = {S, 2, 3};
    double rwr = NAN, rr = NAN, got[2] = {NAN, NAN};
    set_values(X1, dt, n, x0);
    set_values(R1, dt, n, r0);
    set_values(X2, dt, n, x0);
    set_values(R2, dt, n, r0);
    CHECK_OK(GsVecAXPYPair(X1, R1, alpha, c->X, c->Y, W, &rwr, &rr));
    CHECK_OK(GsVecAXPYPairScalars(X2, R2, ra, c->X, c->Y, W, S, 4));
    CHECK_OK(GsScalarsGet(S, 4, 2, got));
    CHECK(!memcmp(&got[0], &rr, sizeof rr), "AXPYPairScalars %s n=%lld w=%d: rr %.17g, host %.17g",
          tn, (long long)n, hw, got[0], rr);
    CHECK(hw ? !memcmp(&got[1], &rwr, sizeof rwr) : got[1] == -7,
          "AXPYPairScalars %s n=%lld w=%d: s[5] %.17g (rwr %.17g; without w untouched)", tn,
          (long long)n, hw, got[1], rwr);
    get_values(X1, dt, n, a1);
    get_values(X2, dt, n, a2);
    get_values(R1, dt, n, b1);
    get_values(R2, dt, n, b2);
    CHECK(n == 0 ||
              (!memcmp(a1, a2, (size_t)n * sizeof *a1) && !memcmp(b1, b2, (size_t)n * sizeof *b1)),
          "AXPYPairScalars %s n=%lld w=%d: x or r differ from GsVecAXPYPair's", tn, (long long)n,
          hw);
    /* z += alpha y, y = w .* x + beta y: y is R*, z is X*; beta as set and 0 */
    for (int b0 = 0; b0 < 2; b0++) {
      const double bb = b0 ? 0.0 : beta, zero = 0;
      if (b0) CHECK_OK(GsScalarsSet(S, 2, 1, &zero));
      CHECK_OK(GsVecAXPYPointwiseMultAYPX(X1, alpha, R1, bb, W, c->X));
      CHECK_OK(GsVecAXPYPointwiseMultAYPXScalars(X2, ra, R2, rb, W, c->X));
      get_values(X1, dt, n, a1);
      get_values(X2, dt, n, a2);
      get_values(R1, dt, n, b1);
      get_values(R2, dt, n, b2);
      CHECK(n == 0 || (!memcmp(a1, a2, (size_t)n * sizeof *a1) &&
                       !memcmp(b1, b2, (size_t)n * sizeof *b1)),
            "AXPYPointwiseMultAYPXScalars %s n=%lld w=%d beta=%g: z or y differ from the host "
            "form's",
            tn, (long long)n, hw, bb);
    }
    /* Steps not to take: nothing changes, no result is written. */
    const double dens[3] = {0.0, -1.0, NAN};
    for (int d = 0; d < 3; d++) {
      const double res[2] = {-7, -7};
      CHECK_OK(GsScalarsSet(S, 4, 2, res));
      CHECK_OK(GsScalarsSet(S, 1, 1, &dens[d]));
      CHECK_OK(GsVecAXPYPairScalars(X2, R2, ra, c->X, c->Y, W, S, 4));
      CHECK_OK(GsVecAXPYPointwiseMultAYPXScalars(X2, ra, R2, rb, W, c->X));
      CHECK_OK(GsScalarsSet(S, 1, 1, &sv[1]));
      CHECK_OK(GsScalarsSet(S, 3, 1, &dens[d]));
      CHECK_OK(GsVecAXPYPointwiseMultAYPXScalars(X2, ra, R2, rb, W, c->X));
      CHECK_OK(GsScalarsSet(S, 3, 1, &sv[3]));
      CHECK_OK(GsScalarsGet(S, 4, 2, got));
      get_values(X2, dt, n, a1);
      get_values(R2, dt, n, b1);
      CHECK(got[0] == -7 && got[1] == -7 &&
                (n == 0 || (!memcmp(a1, a2, (size_t)n * sizeof *a1) &&
                            !memcmp(b1, b2, (size_t)n * sizeof *b1))),
            "Scalars forms %s n=%lld w=%d with denominator %g: something was written", tn,
            (long long)n, hw, dens[d]);
    }
  }
done:
  GsScalarsDestroy(&S);
  GsVecDestroy(&X1);
  GsVecDestroy(&R1);
  GsVecDestroy(&X2);
  GsVecDestroy(&R2);
  GsVecDestroy(&Wv);
  free(x0);
  free(r0);
  free(wv);
  free(a1);
  free(a2);
  free(b1);
  free(b2);
}

/* GsScalars itself: set, get, a read that sees the values of its Begin while later work changes
 * them, and every misuse a named error. */
static void test_scalars(GsContext ctx) {
  GsScalars S = NULL, T = NULL;
  CHECK_ERR(GsScalarsCreate(ctx, 0, &S), GS_ERR_ARG_OUTOFRANGE);
  CHECK(S == NULL, "a failed GsScalarsCreate left a handle");
  CHECK_ERR(GsScalarsCreate(ctx, 3, NULL), GS_ERR_ARG_NULL);
  if (CHECK_OK(GsScalarsCreate(ctx, 4, &S))) return;
  int n = 0;
  CHECK_OK(GsScalarsGetSize(S, &n));
  CHECK(n == 4, "GsScalarsGetSize: %d, not 4", n);
  double v[4] = {NAN, NAN, NAN, NAN};
  CHECK_OK(GsScalarsGet(S, 0, 4, v));
  CHECK(v[0] == 0 && v[1] == 0 && v[2] == 0 && v[3] == 0, "new scalars are not all 0");
  const double in[2] = {1.5, -2.25};
  CHECK_OK(GsScalarsSet(S, 2, 2, in));
  CHECK_OK(GsScalarsGet(S, 1, 3, v));
  CHECK(v[0] == 0 && v[1] == 1.5 && v[2] == -2.25, "GsScalarsSet/Get: %g %g %g", v[0], v[1], v[2]);
  /* The read gives the values at its Begin; an update queued after it does not reach it. */
  GsVec a = NULL, b = NULL;
  CHECK_OK(GsVecCreate(ctx, 1000, GS_DOUBLE, &a));
  CHECK_OK(GsVecDuplicate(a, &b));
  CHECK_OK(GsVecSet(a, 1.0));
  CHECK_OK(GsVecSet(b, 2.0));
  const double ratio[2] = {3.0, 1.0};
  CHECK_OK(GsScalarsSet(S, 0, 2, ratio));
  CHECK_OK(GsScalarsReadBegin(S, 2, 2));
  CHECK_ERR(GsScalarsReadBegin(S, 0, 1), GS_ERR_WRONG_STATE);
  CHECK_MSG(ctx, "still open");
  const GsScalarRatio r3 = {S, 0, 1};
  CHECK_OK(GsVecAXPYPairScalars(NULL, a, r3, NULL, b, NULL, S, 2)); /* a = 1 - 6, s[2] = 25000 */
  double w[2] = {NAN, NAN};
  CHECK_OK(GsScalarsReadEnd(S, w));
  CHECK(w[0] == 1.5 && w[1] == -2.25, "GsScalarsReadEnd: %g %g, not the values at its Begin", w[0],
        w[1]);
  CHECK_OK(GsScalarsGet(S, 2, 1, w));
  CHECK(w[0] == 25000.0, "AXPYPairScalars result %g, not 25000", w[0]);
  CHECK_ERR(GsScalarsReadEnd(S, w), GS_ERR_WRONG_STATE);
  CHECK_MSG(ctx, "no read begun");
  /* Ranges, NULLs, other contexts. */
  CHECK_ERR(GsScalarsSet(S, 3, 2, in), GS_ERR_ARG_OUTOFRANGE);
  CHECK_MSG(ctx, "outside the 4 scalars");
  CHECK_ERR(GsScalarsGet(S, -1, 1, v), GS_ERR_ARG_OUTOFRANGE);
  CHECK_ERR(GsScalarsReadBegin(S, 0, 0), GS_ERR_ARG_OUTOFRANGE);
  CHECK_ERR(GsScalarsGet(S, 0, 1, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsScalarsGet(NULL, 0, 1, v), GS_ERR_ARG_NULL);
  const GsScalarRatio bad = {S, 0, 4}, none = {NULL, 0, 1};
  CHECK_ERR(GsVecAXPYPairScalars(NULL, a, bad, NULL, b, NULL, S, 2), GS_ERR_ARG_OUTOFRANGE);
  CHECK_MSG(ctx, "of alpha");
  CHECK_ERR(GsVecAXPYPairScalars(NULL, a, none, NULL, b, NULL, S, 2), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecAXPYPairScalars(NULL, a, r3, NULL, b, b, S, 3), GS_ERR_ARG_OUTOFRANGE);
  CHECK_MSG(ctx, "for the results");
  CHECK_ERR(GsVecAXPYPointwiseMultAYPXScalars(b, r3, a, bad, NULL, a), GS_ERR_ARG_OUTOFRANGE);
  CHECK_MSG(ctx, "of beta");
  GsContext other = NULL;
  if (!CHECK_OK(GsInit("/cpu", &other)) && !CHECK_OK(GsScalarsCreate(other, 2, &T))) {
    const GsScalarRatio foreign = {T, 0, 1};
    CHECK_ERR(GsVecAXPYPairScalars(NULL, a, foreign, NULL, b, NULL, S, 2), GS_ERR_ARG_INCOMP);
    CHECK_MSG(ctx, "another context");
  }
  GsScalarsDestroy(&T);
  GsDestroy(&other);
  /* A read left open is safe to destroy. */
  CHECK_OK(GsScalarsReadBegin(S, 0, 2));
  CHECK_OK(GsScalarsDestroy(&S));
  CHECK(S == NULL, "GsScalarsDestroy left the handle");
  CHECK_OK(GsScalarsDestroy(&S));
  GsVecDestroy(&a);
  GsVecDestroy(&b);
}

/* ---- Array access -------------------------------------------------------------------------- */

static GsInt event_calls(GsContext ctx, const char *name) {
  GsLogEvent ev = -1;
  GsInt calls = -1;
  CHECK_OK(GsLogEventRegister(ctx, name, &ev));
  CHECK_OK(GsLogEventGetInfo(ctx, ev, &calls, NULL, NULL, NULL));
  return calls;
}

static void test_access(GsContext ctx, HsRng *r) {
  const GsInt n = 4099;
  double *x = random_values(r, GS_DOUBLE, n);
  GsVec v = new_vec(ctx, GS_DOUBLE, n, x), w = new_vec(ctx, GS_DOUBLE, n, x);
  if (!v || !w) goto done;
  LD e = 0;
  for (GsInt i = 0; i < n; i++)
    e += (LD)x[i] * x[i];
  double res = 0;

  /* Data movement is counted by the log: the host/device copies of one vector move only when
   * the valid copy is elsewhere. On a host back end nothing ever moves. */
  CHECK_OK(GsLogEnable(ctx, 1));
  GsInt h0 = event_calls(ctx, "MemCopyHtoD"), d0 = event_calls(ctx, "MemCopyDtoH");
  CHECK_OK(GsVecScale(v, 2.0)); /* v was set on the host: moves to the device once */
  CHECK_OK(GsVecScale(v, 0.5));
  GsInt h1 = event_calls(ctx, "MemCopyHtoD");
  CHECK(h1 - h0 == (pref_mem == GS_MEM_DEVICE ? 1 : 0),
        "two operations after a host write copied host->device %lld times", (long long)(h1 - h0));
  const void *ro = NULL;
  CHECK_OK(GsVecGetArrayRead(v, GS_MEM_HOST, &ro));
  CHECK(ro != NULL, "GetArrayRead gave NULL");
  if (ro) CHECK(((const double *)ro)[n - 1] == x[n - 1], "GetArrayRead sees stale data");
  CHECK_OK(GsVecRestoreArrayRead(v, &ro));
  CHECK(ro == NULL, "RestoreArrayRead did not clear the pointer");
  GsInt d1 = event_calls(ctx, "MemCopyDtoH");
  CHECK(d1 - d0 == (pref_mem == GS_MEM_DEVICE ? 1 : 0),
        "a host read copied device->host %lld "
        "times",
        (long long)(d1 - d0));
  /* Read access invalidates nothing: the next operation needs no copy. */
  CHECK_OK(GsVecDot(v, v, &res));
  CHECK(event_calls(ctx, "MemCopyHtoD") == h1, "an operation after GetArrayRead copied data");
  check_red("Dot after GetArrayRead", GS_DOUBLE, n, res, e, e);
  /* Read-write access on the host makes the host the only valid copy. */
  void *rw = NULL;
  CHECK_OK(GsVecGetArray(v, GS_MEM_HOST, &rw));
  if (rw) ((double *)rw)[0] = 3.0 * x[0];
  CHECK_OK(GsVecRestoreArray(v, &rw));
  CHECK(rw == NULL, "RestoreArray did not clear the pointer");
  CHECK_OK(GsVecDot(v, v, &res));
  CHECK(event_calls(ctx, "MemCopyHtoD") - h1 == (pref_mem == GS_MEM_DEVICE ? 1 : 0),
        "an operation after a host write did not copy exactly once");
  LD e2 = e - (LD)x[0] * x[0] + 9.0L * x[0] * x[0];
  check_red("Dot after host GetArray write", GS_DOUBLE, n, res, e2, e2);
  CHECK_OK(GsLogEnable(ctx, 0));

  /* Write-only access on the host, then an operation sees every new value. */
  void *wo = NULL;
  CHECK_OK(GsVecGetArrayWrite(v, GS_MEM_HOST, &wo));
  if (wo)
    for (GsInt i = 0; i < n; i++)
      ((double *)wo)[i] = 1.0 + (double)i;
  CHECK_OK(GsVecRestoreArrayWrite(v, &wo));
  CHECK_OK(GsVecNorm(v, GS_NORM_1, &res));
  CHECK(res == (double)n * (double)(n + 1) / 2, "Norm1 after a host write: %.17g, expected %.17g",
        res, (double)n * (double)(n + 1) / 2);

  /* Device access: only on back ends that have device memory. */
  const void *dp = NULL;
  if (pref_mem == GS_MEM_DEVICE) {
    CHECK_OK(GsVecGetArrayRead(v, GS_MEM_DEVICE, &dp));
    CHECK(dp != NULL, "device pointer is NULL");
    CHECK_OK(GsVecRestoreArrayRead(v, &dp));
  } else {
    void *p = NULL;
    CHECK_ERR(GsVecGetArrayRead(v, GS_MEM_DEVICE, &dp), GS_ERR_MEMTYPE);
    CHECK_MSG(ctx, "GS_MEM_HOST");
    CHECK_ERR(GsVecGetArray(v, GS_MEM_DEVICE, &p), GS_ERR_MEMTYPE);
    CHECK_ERR(GsVecGetArrayWrite(v, GS_MEM_DEVICE, &p), GS_ERR_MEMTYPE);
    double arr[4] = {1, 2, 3, 4};
    GsVec dv = NULL;
    CHECK_ERR(GsVecCreateWithArray(ctx, 4, GS_DOUBLE, GS_MEM_DEVICE, arr, &dv), GS_ERR_MEMTYPE);
    CHECK(dv == NULL, "a refused CreateWithArray returned a vector");
    /* the failures left nothing checked out */
    CHECK_OK(GsVecScale(v, 1.0));
  }

  /* Misuse: double get, restore without get, wrong pointer, wrong variant, operations and
   * destroy while checked out. */
  void *p = NULL, *q = NULL;
  CHECK_ERR(GsVecRestoreArray(v, &p), GS_ERR_WRONG_STATE);
  CHECK_OK(GsVecGetArray(v, GS_MEM_HOST, &p));
  CHECK_ERR(GsVecGetArray(v, GS_MEM_HOST, &q), GS_ERR_WRONG_STATE);
  CHECK_ERR(GsVecGetArrayRead(v, GS_MEM_HOST, (const void **)&q), GS_ERR_WRONG_STATE);
  CHECK_ERR(GsVecScale(v, 2.0), GS_ERR_WRONG_STATE);
  CHECK_MSG(ctx, "restore");
  CHECK_ERR(GsVecDot(w, v, &res), GS_ERR_WRONG_STATE);
  CHECK_ERR(GsVecAXPY(w, 1.0, v), GS_ERR_WRONG_STATE);
  GsVec ys[2] = {w, v};
  double rs[2];
  CHECK_ERR(GsVecMDot(w, 2, (const GsVec *)ys, rs), GS_ERR_WRONG_STATE);
  GsVec xs[1] = {v};
  const double one[1] = {1.0};
  CHECK_ERR(GsVecMAXPY(w, 1, one, (const GsVec *)xs), GS_ERR_WRONG_STATE);
  CHECK_MSG(ctx, "x[0] has an array checked out");
  xs[0] = w;
  CHECK_ERR(GsVecMAXPY(v, 1, one, (const GsVec *)xs), GS_ERR_WRONG_STATE);
  CHECK_ERR(GsVecSetValuesHost(v, x), GS_ERR_WRONG_STATE);
  CHECK_ERR(GsVecDestroy(&v), GS_ERR_WRONG_STATE);
  CHECK(v != NULL, "a refused GsVecDestroy cleared the handle");
  if (!v) goto done;
  double other[1];
  void *wrong = other;
  CHECK_ERR(GsVecRestoreArray(v, &wrong), GS_ERR_ARG_INCOMP);
  CHECK_ERR(GsVecRestoreArrayRead(v, (const void **)&p), GS_ERR_WRONG_STATE);
  CHECK_ERR(GsVecRestoreArrayWrite(v, &p), GS_ERR_WRONG_STATE);
  CHECK_ERR(GsVecRestoreArray(v, NULL), GS_ERR_ARG_NULL);
  CHECK_OK(GsVecRestoreArray(v, &p));
  CHECK_ERR(GsVecRestoreArray(v, &p), GS_ERR_WRONG_STATE);
  CHECK_ERR(GsVecGetArray(v, GS_MEM_HOST, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecGetArray(v, (GsMemType)7, &p), GS_ERR_ARG_OUTOFRANGE);
  CHECK_ERR(GsVecGetArray(NULL, GS_MEM_HOST, &p), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecRestoreArray(NULL, &p), GS_ERR_ARG_NULL);
  /* Back to normal. */
  CHECK_OK(GsVecScale(v, 1.0));
done:
  GsVecDestroy(&v);
  GsVecDestroy(&w);
  free(x);
}

/* Wrapping a user array: no copy, changes visible both ways. */
static void test_wrap(GsContext ctx) {
  enum { N = 37 };
  double arr[N];
  for (int i = 0; i < N; i++)
    arr[i] = 1.0 + i;
  GsVec v = NULL;
  if (CHECK_OK(GsVecCreateWithArray(ctx, N, GS_DOUBLE, GS_MEM_HOST, arr, &v))) return;
  arr[3] = 42.0; /* changed after wrapping */
  const void *p = NULL;
  CHECK_OK(GsVecGetArrayRead(v, GS_MEM_HOST, &p));
  CHECK(p == (const void *)arr, "GetArrayRead(HOST) of a wrapped array returned %p, not %p", p,
        (void *)arr);
  if (p) CHECK(((const double *)p)[3] == 42.0, "change to the user array not visible");
  CHECK_OK(GsVecRestoreArrayRead(v, &p));
  double nrm = 0;
  CHECK_OK(GsVecNorm(v, GS_NORM_INF, &nrm));
  CHECK(nrm == 42.0, "NormInf of the wrapped array is %g, expected 42", nrm);
  /* Results land in the user's array once the host copy is brought up to date. */
  CHECK_OK(GsVecScale(v, 2.0));
  CHECK_OK(GsVecGetArrayRead(v, GS_MEM_HOST, &p));
  CHECK_OK(GsVecRestoreArrayRead(v, &p));
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += arr[i] != 2.0 * (i == 3 ? 42.0 : 1.0 + i);
  CHECK(bad == 0, "the user array does not hold the scaled values (%d wrong)", bad);
  double vals[N];
  CHECK_OK(GsVecGetValuesHost(v, vals));
  CHECK(vals[0] == 2.0 && vals[N - 1] == 2.0 * N, "GetValuesHost: %g %g", vals[0], vals[N - 1]);
  /* Destroying the vector does not free the user's (stack) array: ASan would report it. */
  CHECK_OK(GsVecDestroy(&v));
  CHECK(arr[0] == 2.0, "the user array changed on destroy");

  /* Zero-length with no array is fine; a NULL array with entries is not. */
  CHECK_OK(GsVecCreateWithArray(ctx, 0, GS_FLOAT, GS_MEM_HOST, NULL, &v));
  GsVecDestroy(&v);
  CHECK_ERR(GsVecCreateWithArray(ctx, 5, GS_FLOAT, GS_MEM_HOST, NULL, &v), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecCreateWithArray(ctx, -5, GS_FLOAT, GS_MEM_HOST, arr, &v), GS_ERR_ARG_OUTOFRANGE);
  CHECK_ERR(GsVecCreateWithArray(ctx, 5, GS_FLOAT, (GsMemType)9, arr, &v), GS_ERR_ARG_OUTOFRANGE);
  CHECK_ERR(GsVecCreateWithArray(NULL, 5, GS_FLOAT, GS_MEM_HOST, arr, &v), GS_ERR_ARG_NULL);
  CHECK(v == NULL, "failed CreateWithArray left a vector");
  GsVecDestroy(&v);
}

/* Copies large enough to store past the caches on the CPU (32 MiB of destination and more):
 * double and float, a length whose last chunk is not a whole number of 16-byte stores, and a
 * wrapped destination 8 bytes off a 16-byte boundary (plain copies there). Bit for bit. */
static void test_copy_large(GsContext ctx, HsRng *r) {
  static const struct {
    GsDataType dt;
    GsInt n;
    int offset; /* entries the wrapped destination starts past an aligned array; -1: not wrapped */
  } cases[] = {{GS_DOUBLE, ((GsInt)1 << 22) + 3, -1},
               {GS_FLOAT, ((GsInt)1 << 23) + 1, -1},
               {GS_DOUBLE, ((GsInt)1 << 22) + 8, 1}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    const GsDataType dt = cases[k].dt;
    const GsInt n = cases[k].n;
    const size_t es = dt == GS_DOUBLE ? sizeof(double) : sizeof(float);
    unsigned char *want = hs_malloc((size_t)n * es), *got = hs_malloc((size_t)n * es);
    double *user = cases[k].offset >= 0 ? hs_malloc(((size_t)n + 2) * sizeof *user) : NULL;
    GsVec x = NULL, y = NULL;
    if (!CHECK_OK(GsVecCreate(ctx, n, dt, &x)) &&
        !CHECK_OK(user ? GsVecCreateWithArray(ctx, n, dt, GS_MEM_HOST, user + cases[k].offset, &y)
                       : GsVecCreate(ctx, n, dt, &y)) &&
        !CHECK_OK(GsVecSetRandom(x, hs_next(r), -1, 1)) && !CHECK_OK(GsVecSet(y, NAN)) &&
        !CHECK_OK(GsVecCopy(x, y)) && !CHECK_OK(GsVecGetValuesHost(x, want)) &&
        !CHECK_OK(GsVecGetValuesHost(y, got))) {
      GsInt bad = 0;
      for (GsInt i = 0; i < n; i++)
        bad += memcmp(want + i * es, got + i * es, es) != 0;
      CHECK(bad == 0, "Copy of %lld %s entries%s: %lld differ", (long long)n,
            dt == GS_DOUBLE ? "double" : "float", user ? " into an unaligned wrapped array" : "",
            (long long)bad);
    }
    GsVecDestroy(&x);
    GsVecDestroy(&y);
    free(want);
    free(got);
    free(user);
  }
}

static void test_duplicate_and_queries(GsContext ctx) {
  GsVec x = NULL, d = NULL;
  if (CHECK_OK(GsVecCreate(ctx, 513, GS_FLOAT, &x))) return;
  CHECK_OK(GsVecSet(x, 1.5));
  if (!CHECK_OK(GsVecDuplicate(x, &d))) {
    GsInt n = 0;
    GsDataType dt = GS_DOUBLE;
    GsContext c2 = NULL;
    CHECK_OK(GsVecGetSize(d, &n));
    CHECK_OK(GsVecGetDataType(d, &dt));
    CHECK_OK(GsVecGetContext(d, &c2));
    CHECK(n == 513 && dt == GS_FLOAT && c2 == ctx, "duplicate: n %lld type %d ctx %s", (long long)n,
          (int)dt, c2 == ctx ? "same" : "different");
    CHECK(d != x, "duplicate is the same object");
    CHECK_OK(GsVecSet(d, -4.0));
    double nx = 0, nd = 0;
    CHECK_OK(GsVecNorm(x, GS_NORM_INF, &nx));
    CHECK_OK(GsVecNorm(d, GS_NORM_INF, &nd));
    CHECK(nx == 1.5 && nd == 4.0, "duplicate shares storage: |x| %g |d| %g", nx, nd);
    CHECK_OK(GsVecDestroy(&d));
  }
  GsInt n = 0;
  GsDataType dt;
  GsContext c2;
  CHECK_ERR(GsVecGetSize(NULL, &n), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecGetSize(x, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecGetDataType(NULL, &dt), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecGetDataType(x, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecGetContext(NULL, &c2), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecGetContext(x, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecDuplicate(NULL, &d), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecDuplicate(x, NULL), GS_ERR_ARG_NULL);
  CHECK_OK(GsVecDestroy(&x));
  CHECK(x == NULL, "GsVecDestroy did not clear the handle");
  CHECK_OK(GsVecDestroy(&x));
  CHECK_OK(GsVecDestroy(NULL));
}

/* ---- Argument errors ----------------------------------------------------------------------- */

static void test_errors(GsContext ctx) {
  GsVec a = NULL, a2 = NULL, b = NULL, f = NULL, o = NULL, nul = NULL;
  GsContext ctx2 = NULL;
  CHECK_OK(GsVecCreate(ctx, 1234, GS_DOUBLE, &a));
  CHECK_OK(GsVecCreate(ctx, 1234, GS_DOUBLE, &a2));
  CHECK_OK(GsVecCreate(ctx, 5678, GS_DOUBLE, &b));
  CHECK_OK(GsVecCreate(ctx, 1234, GS_FLOAT, &f));
  if (!CHECK_OK(GsInit(resource, &ctx2))) {
    hs_watch(ctx2);
    CHECK_OK(GsVecCreate(ctx2, 1234, GS_DOUBLE, &o));
  }
  if (!a || !a2 || !b || !f || !o) goto done;
  CHECK_OK(GsVecSet(a, 1.0));
  CHECK_OK(GsVecSet(a2, 1.0));
  CHECK_OK(GsVecSet(b, 1.0));
  CHECK_OK(GsVecSet(f, 1.0));
  CHECK_OK(GsVecSet(o, 1.0));
  double r = 0, r2 = 0, rs[3];

  /* NULL vectors and result pointers. */
  GsClearError(NULL);
  CHECK_ERR(GsVecAXPY(nul, 1.0, a), GS_ERR_ARG_NULL);
  CHECK_MSG(NULL, "NULL");
  CHECK_ERR(GsVecAXPY(a, 1.0, nul), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecSet(nul, 1.0), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecCopy(a, nul), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecWAXPY(nul, 1.0, a, a), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecAXPBYPCZ(nul, 1.0, 1.0, 1.0, a, a), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecAXPBYPCZ(a, 1.0, 1.0, 1.0, a, nul), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecPointwiseMult(a, nul, a), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecReciprocal(nul), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecDot(a, a, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecNorm(a, GS_NORM_2, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecAXPYNorm(a, 1.0, a2, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecDotNorm2(a, a, &r, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecDotNorm2(a, a, NULL, &r2), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecMDot(a, 2, NULL, rs), GS_ERR_ARG_NULL);
  GsVec ys[3] = {a, nul, a};
  CHECK_ERR(GsVecMDot(a, 3, (const GsVec *)ys, rs), GS_ERR_ARG_NULL);
  ys[1] = a;
  CHECK_ERR(GsVecMDot(a, 3, (const GsVec *)ys, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecMDot(a, -1, (const GsVec *)ys, rs), GS_ERR_ARG_OUTOFRANGE);
  rs[0] = 7.0;
  CHECK_OK(GsVecMDot(a, 0, (const GsVec *)ys, rs));
  CHECK(rs[0] == 7.0, "MDot with nv = 0 wrote a result");
  /* MAXPY: y = a2 (all ones) += 1 a + 2 a + 3 a, or the errors. */
  const double al[3] = {1, 2, 3};
  CHECK_ERR(GsVecMAXPY(a2, 2, al, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecMAXPY(a2, 3, NULL, (const GsVec *)ys), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecMAXPY(nul, 3, al, (const GsVec *)ys), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecMAXPY(a2, -1, al, (const GsVec *)ys), GS_ERR_ARG_OUTOFRANGE);
  CHECK_ERR(GsVecMAXPY(a, 3, al, (const GsVec *)ys), GS_ERR_ARG_INCOMP);
  CHECK_MSG(ctx, "x[0] is y itself");
  CHECK_OK(GsVecMAXPY(a2, 0, NULL, NULL));
  ys[1] = nul;
  CHECK_ERR(GsVecMAXPY(a2, 3, al, (const GsVec *)ys), GS_ERR_ARG_NULL);
  CHECK_MSG(ctx, "x[1] is NULL");
  ys[1] = a;
  {
    double av = 0, yv = 0;
    CHECK_OK(GsVecSet(a, 0.5));
    CHECK_OK(GsVecMAXPY(a2, 3, al, (const GsVec *)ys));
    CHECK_OK(GsVecNorm(a2, GS_NORM_INF, &yv));
    CHECK_OK(GsVecNorm(a, GS_NORM_INF, &av));
    CHECK(yv == 4.0 && av == 0.5, "MAXPY: 1 + (1 + 2 + 3) 0.5 gave %g (x %g)", yv, av);
    CHECK_OK(GsVecSet(a2, 1.0));
    CHECK_OK(GsVecSet(a, 1.0));
  }
  CHECK_ERR(GsVecSetValuesHost(a, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecGetValuesHost(a, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecNorm(a, (GsNormType)5, &r), GS_ERR_ARG_OUTOFRANGE);
  CHECK_ERR(GsVecSetRandom(a, 1, 2.0, 1.0), GS_ERR_ARG_OUTOFRANGE);

  /* Size mismatch: GS_ERR_ARG_SIZE naming both sizes. */
  GsClearError(ctx);
  CHECK_ERR(GsVecAXPY(a, 1.0, b), GS_ERR_ARG_SIZE);
  CHECK_MSG(ctx, "1234");
  CHECK_MSG(ctx, "5678");
  GsClearError(ctx);
  CHECK_ERR(GsVecCopy(a, b), GS_ERR_ARG_SIZE);
  CHECK_MSG(ctx, "1234");
  CHECK_MSG(ctx, "5678");
  CHECK_ERR(GsVecAXPBY(b, 1.0, 1.0, a), GS_ERR_ARG_SIZE);
  CHECK_ERR(GsVecWAXPY(b, 1.0, a, a), GS_ERR_ARG_SIZE);
  CHECK_ERR(GsVecWAXPY(a, 1.0, a, b), GS_ERR_ARG_SIZE);
  CHECK_ERR(GsVecAXPBYPCZ(b, 1.0, 1.0, 1.0, a, a), GS_ERR_ARG_SIZE);
  CHECK_ERR(GsVecAXPBYPCZ(a, 1.0, 1.0, 0.0, a, b), GS_ERR_ARG_SIZE);
  CHECK_ERR(GsVecPointwiseMult(a, b, a), GS_ERR_ARG_SIZE);
  CHECK_ERR(GsVecPointwiseDivide(b, a, a), GS_ERR_ARG_SIZE);
  CHECK_ERR(GsVecDot(a, b, &r), GS_ERR_ARG_SIZE);
  CHECK_ERR(GsVecDotNorm2(a, b, &r, &r2), GS_ERR_ARG_SIZE);
  ys[1] = b;
  GsClearError(ctx);
  CHECK_ERR(GsVecMDot(a, 3, (const GsVec *)ys, rs), GS_ERR_ARG_SIZE);
  CHECK_MSG(ctx, "1234");
  CHECK_MSG(ctx, "5678");
  GsClearError(ctx);
  CHECK_ERR(GsVecMAXPY(a2, 3, al, (const GsVec *)ys), GS_ERR_ARG_SIZE);
  CHECK_MSG(ctx, "x[1] has 5678 entries but y has 1234");

  /* Type mismatch: GS_ERR_ARG_TYPE (Copy converts instead). */
  CHECK_ERR(GsVecAXPY(a, 1.0, f), GS_ERR_ARG_TYPE);
  CHECK_MSG(ctx, "float");
  CHECK_MSG(ctx, "double");
  CHECK_ERR(GsVecAXPBY(f, 1.0, 0.0, a), GS_ERR_ARG_TYPE);
  CHECK_ERR(GsVecWAXPY(f, 1.0, a, a), GS_ERR_ARG_TYPE);
  CHECK_ERR(GsVecAXPBYPCZ(f, 1.0, 1.0, 1.0, a, a), GS_ERR_ARG_TYPE);
  CHECK_ERR(GsVecPointwiseDivide(a, a, f), GS_ERR_ARG_TYPE);
  CHECK_ERR(GsVecDot(f, a, &r), GS_ERR_ARG_TYPE);
  CHECK_ERR(GsVecAXPYNorm(f, 1.0, a, &r), GS_ERR_ARG_TYPE);
  CHECK_ERR(GsVecDotNorm2(a, f, &r, &r2), GS_ERR_ARG_TYPE);
  ys[1] = f;
  CHECK_ERR(GsVecMDot(a, 3, (const GsVec *)ys, rs), GS_ERR_ARG_TYPE);
  CHECK_ERR(GsVecMAXPY(a2, 3, al, (const GsVec *)ys), GS_ERR_ARG_TYPE);
  CHECK_OK(GsVecCopy(a, f));

  /* Vectors of different contexts: GS_ERR_ARG_INCOMP. */
  CHECK_ERR(GsVecAXPY(a, 1.0, o), GS_ERR_ARG_INCOMP);
  CHECK_ERR(GsVecCopy(o, a), GS_ERR_ARG_INCOMP);
  CHECK_ERR(GsVecDot(o, a, &r), GS_ERR_ARG_INCOMP);
  CHECK_ERR(GsVecWAXPY(a, 1.0, o, o), GS_ERR_ARG_INCOMP);
  ys[1] = o;
  CHECK_ERR(GsVecMDot(a, 3, (const GsVec *)ys, rs), GS_ERR_ARG_INCOMP);
  CHECK_ERR(GsVecMAXPY(a2, 3, al, (const GsVec *)ys), GS_ERR_ARG_INCOMP);
  CHECK_MSG(ctx, "x[1] belongs to a different context");

  /* The fused CG operations: NULL handles (w may be NULL), sizes, types, contexts, x == r. */
  CHECK_ERR(GsVecAXPYPair(nul, a, 1.0, a, a, NULL, &r, &r2), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecAXPYPair(a, nul, 1.0, a, a, NULL, &r, &r2), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecAXPYPair(a, a2, 1.0, nul, a, a, &r, &r2), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecAXPYPair(a, a2, 1.0, a, nul, a, &r, &r2), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecPointwiseMultAYPX(nul, 1.0, a, a), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecPointwiseMultAYPX(a, 1.0, a, nul), GS_ERR_ARG_NULL);
  GsClearError(ctx);
  CHECK_ERR(GsVecAXPYPair(a, a, 1.0, a2, a2, NULL, &r, &r2), GS_ERR_ARG_INCOMP);
  CHECK_MSG(ctx, "different vectors");
  GsClearError(ctx);
  CHECK_ERR(GsVecAXPYPair(a, a2, 1.0, a, b, NULL, &r, &r2), GS_ERR_ARG_SIZE);
  CHECK_MSG(ctx, "5678");
  CHECK_ERR(GsVecAXPYPair(b, a2, 1.0, a, a, NULL, &r, &r2), GS_ERR_ARG_SIZE);
  CHECK_ERR(GsVecAXPYPair(a, a2, 1.0, a, a, b, &r, &r2), GS_ERR_ARG_SIZE);
  CHECK_ERR(GsVecAXPYPair(a, a2, 1.0, f, a, NULL, &r, &r2), GS_ERR_ARG_TYPE);
  CHECK_ERR(GsVecAXPYPair(a, a2, 1.0, a, a, f, &r, &r2), GS_ERR_ARG_TYPE);
  CHECK_ERR(GsVecAXPYPair(a, f, 1.0, a, a, NULL, &r, &r2), GS_ERR_ARG_TYPE);
  CHECK_ERR(GsVecAXPYPair(a, a2, 1.0, a, o, NULL, &r, &r2), GS_ERR_ARG_INCOMP);
  CHECK_ERR(GsVecAXPYPair(a, a2, 1.0, a, a, o, &r, &r2), GS_ERR_ARG_INCOMP);
  /* x and p NULL together or not at all; without them r, q and w are still checked. */
  GsClearError(ctx);
  CHECK_ERR(GsVecAXPYPair(NULL, a2, 1.0, a, a, NULL, &r, &r2), GS_ERR_ARG_NULL);
  CHECK_MSG(ctx, "x is NULL but p is not");
  GsClearError(ctx);
  CHECK_ERR(GsVecAXPYPair(a, a2, 1.0, NULL, a, NULL, &r, &r2), GS_ERR_ARG_NULL);
  CHECK_MSG(ctx, "p is NULL but x is not");
  CHECK_ERR(GsVecAXPYPair(NULL, nul, 1.0, NULL, a, NULL, &r, &r2), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecAXPYPair(NULL, a2, 1.0, NULL, nul, NULL, &r, &r2), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecAXPYPair(NULL, a2, 1.0, NULL, b, NULL, &r, &r2), GS_ERR_ARG_SIZE);
  CHECK_ERR(GsVecAXPYPair(NULL, a2, 1.0, NULL, a, b, &r, &r2), GS_ERR_ARG_SIZE);
  CHECK_ERR(GsVecAXPYPair(NULL, f, 1.0, NULL, a, NULL, &r, &r2), GS_ERR_ARG_TYPE);
  CHECK_ERR(GsVecAXPYPair(NULL, a2, 1.0, NULL, a, f, &r, &r2), GS_ERR_ARG_TYPE);
  CHECK_ERR(GsVecAXPYPair(NULL, a2, 1.0, NULL, o, NULL, &r, &r2), GS_ERR_ARG_INCOMP);
  CHECK_ERR(GsVecAXPYPair(NULL, a2, 1.0, NULL, a, o, &r, &r2), GS_ERR_ARG_INCOMP);
  CHECK_ERR(GsVecPointwiseMultAYPX(a, 1.0, b, a), GS_ERR_ARG_SIZE);
  CHECK_ERR(GsVecPointwiseMultAYPX(b, 1.0, NULL, a), GS_ERR_ARG_SIZE);
  CHECK_ERR(GsVecPointwiseMultAYPX(a, 1.0, f, a), GS_ERR_ARG_TYPE);
  CHECK_ERR(GsVecPointwiseMultAYPX(f, 0.0, NULL, a), GS_ERR_ARG_TYPE);
  CHECK_ERR(GsVecPointwiseMultAYPX(a, 1.0, o, a), GS_ERR_ARG_INCOMP);
  CHECK_ERR(GsVecPointwiseMultAYPX(o, 1.0, NULL, a), GS_ERR_ARG_INCOMP);
  CHECK_ERR(GsVecAXPYPointwiseMultAYPX(nul, 1.0, a, 1.0, a2, a2), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecAXPYPointwiseMultAYPX(a, 1.0, nul, 1.0, a2, a2), GS_ERR_ARG_NULL);
  CHECK_ERR(GsVecAXPYPointwiseMultAYPX(a, 1.0, a2, 1.0, a2, nul), GS_ERR_ARG_NULL);
  GsClearError(ctx);
  CHECK_ERR(GsVecAXPYPointwiseMultAYPX(b, 1.0, a2, 1.0, NULL, a2), GS_ERR_ARG_SIZE);
  CHECK_MSG(ctx, "5678");
  CHECK_ERR(GsVecAXPYPointwiseMultAYPX(a, 1.0, b, 1.0, NULL, a2), GS_ERR_ARG_SIZE);
  CHECK_ERR(GsVecAXPYPointwiseMultAYPX(a, 1.0, a2, 0.0, NULL, b), GS_ERR_ARG_SIZE);
  CHECK_ERR(GsVecAXPYPointwiseMultAYPX(a, 1.0, a2, 1.0, b, a2), GS_ERR_ARG_SIZE);
  CHECK_ERR(GsVecAXPYPointwiseMultAYPX(f, 1.0, a2, 1.0, NULL, a2), GS_ERR_ARG_TYPE);
  CHECK_ERR(GsVecAXPYPointwiseMultAYPX(a, 1.0, f, 1.0, NULL, a2), GS_ERR_ARG_TYPE);
  CHECK_ERR(GsVecAXPYPointwiseMultAYPX(a, 1.0, a2, 1.0, f, a2), GS_ERR_ARG_TYPE);
  CHECK_ERR(GsVecAXPYPointwiseMultAYPX(a, 1.0, a2, 1.0, NULL, f), GS_ERR_ARG_TYPE);
  CHECK_ERR(GsVecAXPYPointwiseMultAYPX(o, 1.0, a2, 1.0, NULL, a2), GS_ERR_ARG_INCOMP);
  CHECK_ERR(GsVecAXPYPointwiseMultAYPX(a, 1.0, a2, 1.0, o, a2), GS_ERR_ARG_INCOMP);
  CHECK_ERR(GsVecAXPYPointwiseMultAYPX(a, 1.0, a2, 1.0, NULL, o), GS_ERR_ARG_INCOMP);
  /* z may be none of y, w, x. */
  GsClearError(ctx);
  CHECK_ERR(GsVecAXPYPointwiseMultAYPX(a, 1.0, a, 1.0, NULL, a2), GS_ERR_ARG_INCOMP);
  CHECK_MSG(ctx, "different vector");
  CHECK_ERR(GsVecAXPYPointwiseMultAYPX(a, 1.0, a2, 1.0, a, a2), GS_ERR_ARG_INCOMP);
  CHECK_ERR(GsVecAXPYPointwiseMultAYPX(a, 1.0, a2, 1.0, NULL, a), GS_ERR_ARG_INCOMP);
  CHECK_ERR(GsVecAXPYPointwiseMultAYPX(a, 1.0, a2, 0.0, a2, a), GS_ERR_ARG_INCOMP);
  /* After the refusals the vectors are as they were (all ones). w is x: its values on entry. */
  CHECK_OK(GsVecAXPYPair(a, a2, 0.5, a, a2, a, &r, &r2));
  CHECK(r == 1234 * 0.25 && r2 == 1234 * 0.25, "AXPYPair on ones: rwr %g, rr %g, expected %g", r,
        r2, 1234 * 0.25);
  CHECK_OK(GsVecSet(a, 1.0));
  CHECK_OK(GsVecSet(a2, 1.0));
  /* Without x: r = a2 - 0.5 a2 (q is r) and w = a = 2, which is only read. */
  CHECK_OK(GsVecSet(a, 2.0));
  CHECK_OK(GsVecAXPYPair(NULL, a2, 0.5, NULL, a2, a, &r, &r2));
  CHECK(r == 1234 * 0.5 && r2 == 1234 * 0.25, "AXPYPair x=NULL: rwr %g, rr %g, expected %g, %g", r,
        r2, 1234 * 0.5, 1234 * 0.25);
  CHECK_OK(GsVecNorm(a, GS_NORM_1, &r));
  CHECK(r == 2 * 1234, "AXPYPair x=NULL changed w: |w|_1 = %g", r);
  CHECK_OK(GsVecSet(a, 1.0));
  /* z = a += 0.5 a2 and a2 = a2 .* a2 + 0 a2 (w and x are y), over ones. */
  CHECK_OK(GsVecSet(a2, 1.0));
  CHECK_OK(GsVecAXPYPointwiseMultAYPX(a, 0.5, a2, 0.0, a2, a2));
  CHECK_OK(GsVecNorm(a, GS_NORM_1, &r));
  CHECK_OK(GsVecNorm(a2, GS_NORM_1, &r2));
  CHECK(r == 1234 * 1.5 && r2 == 1234, "AXPYPointwiseMultAYPX on ones: |z|_1 %g, |y|_1 %g", r, r2);
  CHECK_OK(GsVecSet(a, 1.0));
  CHECK_OK(GsVecSet(a2, 1.0));

  /* Lengths and types that cannot be. */
  GsVec v = (GsVec)&r;
  CHECK_ERR(GsVecCreate(ctx, -1, GS_DOUBLE, &v), GS_ERR_ARG_OUTOFRANGE);
  CHECK(v == NULL, "failed create left a vector");
  CHECK_ERR(GsVecCreate(ctx, 10, (GsDataType)3, &v), GS_ERR_ARG_OUTOFRANGE);
  const GsInt huge[] = {GS_INT_MAX, (GsInt)1 << 62, ((GsInt)1 << 61) + 1};
  for (int k = 0; k < 3; k++) {
    GsClearError(ctx);
    CHECK_ERR(GsVecCreate(ctx, huge[k], GS_DOUBLE, &v), GS_ERR_ARG_OUTOFRANGE);
    CHECK(v == NULL, "failed create left a vector");
  }
  CHECK_ERR(GsVecCreate(ctx, (GsInt)1 << 62, GS_FLOAT, &v), GS_ERR_ARG_OUTOFRANGE);
  /* 2^50 doubles (8 PiB) is a valid size that no machine has: GS_ERR_MEMORY, and the context
   * still works afterwards. */
  GsClearError(ctx);
  v = NULL;
  int rc = GsVecCreate(ctx, (GsInt)1 << 50, GS_DOUBLE, &v);
  if (pref_mem == GS_MEM_HOST)
    CHECK(rc == GS_ERR_MEMORY, "2^50 doubles: %d (%s), expected GS_ERR_MEMORY", rc,
          GsErrorName(rc));
  else
    CHECK(rc != 0, "2^50 doubles on the device succeeded");
  CHECK(v == NULL, "a failed allocation left a vector");
  if (v) GsVecDestroy(&v);
  if (rc)
    CHECK(strstr(GsGetErrorMessage(ctx), GsErrorName(rc)) != NULL,
          "message of the allocation failure:\n%s", GsGetErrorMessage(ctx));
  CHECK_OK(GsVecDot(a, a, &r));
  CHECK(r == 1234.0, "dot after a failed allocation: %g", r);
done:
  GsVecDestroy(&a);
  GsVecDestroy(&a2);
  GsVecDestroy(&b);
  GsVecDestroy(&f);
  GsVecDestroy(&o);
  if (ctx2) {
    hs_unwatch(ctx2);
    CHECK_OK(GsDestroy(&ctx2));
  }
}

/* With deterministic reductions, the same input gives the same bits every time. */
static void test_deterministic(GsContext ctx, HsRng *r) {
  CHECK_OK(GsSetDeterministic(ctx, 1));
  const GsInt n = (1 << 20) + 17;
  for (int t = 0; t < 2; t++) {
    GsDataType dt = t ? GS_FLOAT : GS_DOUBLE;
    double *x = random_values(r, dt, n), *y = random_values(r, dt, n);
    GsVec X = new_vec(ctx, dt, n, x), Y = new_vec(ctx, dt, n, y);
    if (X && Y) {
      double d[5], n2[5], n1[5], dn[5][2], md[5][2];
      GsVec ys[2] = {Y, X};
      for (int k = 0; k < 5; k++) {
        CHECK_OK(GsVecDot(X, Y, &d[k]));
        CHECK_OK(GsVecNorm(X, GS_NORM_2, &n2[k]));
        CHECK_OK(GsVecNorm(Y, GS_NORM_1, &n1[k]));
        CHECK_OK(GsVecDotNorm2(X, Y, &dn[k][0], &dn[k][1]));
        CHECK_OK(GsVecMDot(X, 2, (const GsVec *)ys, md[k]));
      }
      int same = 1;
      for (int k = 1; k < 5; k++)
        same = same && !memcmp(&d[k], &d[0], sizeof d[0]) &&
               !memcmp(&n2[k], &n2[0], sizeof n2[0]) && !memcmp(&n1[k], &n1[0], sizeof n1[0]) &&
               !memcmp(dn[k], dn[0], sizeof dn[0]) && !memcmp(md[k], md[0], sizeof md[0]);
      CHECK(same, "%s: deterministic reductions differ between repeats (dot %.17g vs %.17g)",
            t ? "float" : "double", d[0], d[4]);
    }
    GsVecDestroy(&X);
    GsVecDestroy(&Y);
    free(x);
    free(y);
  }
  CHECK_OK(GsSetDeterministic(ctx, 0));

  /* The -deterministic option does the same from the command line, and is consumed by GsInit. */
  char *argv[] = {"prog", "-deterministic", NULL};
  GsContext c2 = NULL;
  if (CHECK_OK(GsInitWithArgs(2, argv, resource, &c2))) return;
  hs_watch(c2);
  int left = -1;
  CHECK_OK(GsOptionsLeft(c2, NULL, &left));
  CHECK(left == 0, "-deterministic was not read by GsInit (%d options left)", left);
  double *x = random_values(r, GS_DOUBLE, n);
  GsVec X = new_vec(c2, GS_DOUBLE, n, x);
  if (X) {
    double d[5];
    for (int k = 0; k < 5; k++)
      CHECK_OK(GsVecDot(X, X, &d[k]));
    int same = 1;
    for (int k = 1; k < 5; k++)
      same = same && !memcmp(&d[k], &d[0], sizeof d[0]);
    CHECK(same, "-deterministic: dot differs between repeats (%.17g, %.17g)", d[0], d[4]);
  }
  GsVecDestroy(&X);
  free(x);
  hs_unwatch(c2);
  CHECK_OK(GsDestroy(&c2));
}

/* SetRandom promises [lo, hi) in the vector's type, also where rounding to float would reach hi:
 * between 2^24 and 2^24 + 2 the only float in [lo, hi) is 2^24. */
static void test_random_range(GsContext ctx) {
  const double lo = 16777216.0, hi = 16777218.0;
  const GsInt n = 1000;
  GsVec v = new_vec(ctx, GS_FLOAT, n, NULL);
  double *out = hs_malloc((size_t)n * sizeof *out);
  if (v) {
    CHECK_OK(GsVecSetRandom(v, 12345, lo, hi));
    get_values(v, GS_FLOAT, n, out);
    GsInt outside = 0;
    for (GsInt i = 0; i < n; i++)
      outside += !(out[i] >= lo && out[i] < hi);
    CHECK(outside == 0,
          "SetRandom float in [2^24, 2^24+2): %lld of %lld values outside the "
          "range (equal to hi after rounding to float)",
          (long long)outside, (long long)n);
  }
  GsVecDestroy(&v);
  free(out);
}

/* An operation that fails half-way (here: the device copy of a vector cannot be allocated) must
 * leave the library usable, with logging on too: later operations of the same kind succeed. Only
 * device back ends allocate during an operation, so only they are checked. The 8 TiB host array is
 * address space reserved without memory behind it; nothing touches it. */
static void test_failure_unwinds(GsContext ctx) {
  if (pref_mem != GS_MEM_DEVICE) return;
  const GsInt n = (GsInt)1 << 40;
  const size_t bytes = (size_t)n * sizeof(double);
  void *p =
      mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    printf("note: cannot reserve %zu bytes of address space; failure-unwinding check not run\n",
           bytes);
    return;
  }
  CHECK_OK(GsLogEnable(ctx, 1));
  GsVec big = NULL, s = NULL;
  int rc = GsVecCreateWithArray(ctx, n, GS_DOUBLE, GS_MEM_HOST, p, &big);
  if (rc == 0) {
    rc = GsVecSet(big, 1.0);
    CHECK(rc != 0, "VecSet on 2^40 doubles succeeded on the device");
    rc = GsVecScale(big, 2.0);
    CHECK(rc != 0, "VecScale on 2^40 doubles succeeded on the device");
    CHECK_OK(GsVecDestroy(&big));
  }
  if (!CHECK_OK(GsVecCreate(ctx, 10, GS_DOUBLE, &s))) {
    double nrm = 0;
    CHECK_OK(GsVecSet(s, 2.0));
    CHECK_OK(GsVecScale(s, 1.5));
    CHECK_OK(GsVecNorm(s, GS_NORM_1, &nrm));
    CHECK(nrm == 30.0, "after a failed operation: Norm1 %g, expected 30", nrm);
    CHECK_OK(GsVecDestroy(&s));
  }
  CHECK_OK(GsLogEnable(ctx, 0));
  munmap(p, bytes);
}

/* The 2-norm of double vectors whose squares leave the double range: entries near 1e200 (the sum
 * of squares overflows) and 1e-200 (it underflows) must still give the norm to a few ulps, through
 * GsVecNorm and GsVecAXPYNorm; inf, NaN and zero vectors keep their meaning. */
static void test_norm_range(GsContext ctx, HsRng *r) {
  static const double scales[] = {1e200, 1e-200, 1e300, 1e-300};
  const GsInt sizes[] = {1000, 100003};
  for (int si = 0; si < 4; si++) {
    for (int ni = 0; ni < 2; ni++) {
      GsInt n = sizes[ni];
      double *h = hs_malloc((size_t)n * sizeof *h);
      LD ss = 0;
      for (GsInt i = 0; i < n; i++) {
        h[i] = hs_range(r, 0.5, 2.0) * (hs_uniform(r) < 0.5 ? -1 : 1) * scales[si];
        ss += (LD)h[i] * (LD)h[i];
      }
      double want = (double)sqrtl(ss);
      GsVec x = NULL, y = NULL;
      double got = 0, got2 = 0;
      if (!CHECK_OK(GsVecCreate(ctx, n, GS_DOUBLE, &x)) &&
          !CHECK_OK(GsVecCreate(ctx, n, GS_DOUBLE, &y))) {
        CHECK_OK(GsVecSetValuesHost(x, h));
        CHECK_OK(GsVecNorm(x, GS_NORM_2, &got));
        CHECK(fabs(got - want) <= 8 * DBL_EPSILON * want,
              "2-norm of %lld entries near %g: got %.17g, want %.17g", (long long)n, scales[si],
              got, want);
        CHECK_OK(GsVecSet(y, 0.0));
        CHECK_OK(GsVecAXPYNorm(y, 1.0, x, &got2));
        CHECK(fabs(got2 - want) <= 8 * DBL_EPSILON * want,
              "AXPYNorm of %lld entries near %g: got %.17g, want %.17g", (long long)n, scales[si],
              got2, want);
        if (si == 0 && ni == 0) { /* special values on the rescaled path */
          h[7] = INFINITY;
          CHECK_OK(GsVecSetValuesHost(x, h));
          CHECK_OK(GsVecNorm(x, GS_NORM_2, &got));
          CHECK(isinf(got), "2-norm with an inf entry gave %g", got);
          h[7] = NAN;
          CHECK_OK(GsVecSetValuesHost(x, h));
          CHECK_OK(GsVecNorm(x, GS_NORM_2, &got));
          CHECK(isnan(got), "2-norm with a NaN entry gave %g", got);
          CHECK_OK(GsVecSet(x, 0.0));
          CHECK_OK(GsVecNorm(x, GS_NORM_2, &got));
          CHECK(got == 0, "2-norm of a zero vector gave %g", got);
        }
      }
      GsVecDestroy(&x);
      GsVecDestroy(&y);
      free(h);
    }
  }
}

int main(int argc, char **argv) {
  if (argc > 1 && argv[1][0] == '/') resource = argv[1];
  hs_begin("test_vec", resource, argc, argv);
  GsContext ctx = NULL;
  int rc = hs_init_backend(resource, &ctx);
  if (rc == 77) return 77;
  if (rc) return hs_finish();
  CHECK_OK(GsGetPreferredMemType(ctx, &pref_mem));

  HsRng r = hs_rng(1);
  GsInt sizes[] = {0, 1, 7, 1000, 100003, 0, (1 << 20) + 7};
  sizes[5] = hs_int(&r, 2, 50000);
  for (int t = 0; t < 2; t++)
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
      run_case(ctx, t ? GS_FLOAT : GS_DOUBLE, sizes[k], &r);
  test_access(ctx, &r);
  test_wrap(ctx);
  test_copy_large(ctx, &r);
  test_duplicate_and_queries(ctx);
  test_errors(ctx);
  test_deterministic(ctx, &r);
  test_random_range(ctx);
  test_failure_unwinds(ctx);
  test_norm_range(ctx, &r);
  test_scalars(ctx);

  hs_unwatch(ctx);
  CHECK_OK(GsDestroy(&ctx));
  return hs_finish();
}
