/* Device versus reference: every vector operation on the GPU back end (argv[1], "/gpu/cuda") and on
 * the CPU back end with identical fresh random inputs, double and float, sizes 1, 33, 4097,
 * 2^20 + 3, and with device arrays offset by one element (wrapped through GsVecCreateWithArray) so
 * kernels meet unaligned data. Outputs are poisoned with NaN first. Every vector result is the same
 * bits on both (the element-wise rounding and the reduction order of gsimpl.h), and so are sparse
 * products (the row order of matimpl.h; the merge and hybrid kernels within a tolerance) and Krylov
 * solves: the same iterations and residual history on Laplacians and on the test collection.
 * Banded solves are compared within tolerances. Also: device reductions give identical bits over
 * 5 repeats.
 *
 * Running it with argv[1] = "/cpu" compares the CPU back end with itself (a check of the test). */
#include "harness.h"

#ifndef GS_TEST_MATRIX_DIR
#define GS_TEST_MATRIX_DIR ""
#endif

static const char *resource = "/gpu/cuda";
static GsContext cctx, gctx; /* reference (CPU) and device contexts */
static GsMemType gmem = GS_MEM_DEVICE;

/* ---- Vectors on both back ends ------------------------------------------------------------- */

/* One operand: the CPU vector and the device vector, the latter possibly wrapping a device array
 * one element into a bigger vector's storage (which stays checked out meanwhile). */
typedef struct {
  GsDataType dt;
  GsInt n;
  GsVec c, g, big;
  void *bigp;
} Pair;

static int pair_create(Pair *p, GsDataType dt, GsInt n, int unaligned) {
  memset(p, 0, sizeof *p);
  p->dt = dt;
  p->n = n;
  if (CHECK_OK(GsVecCreate(cctx, n, dt, &p->c))) return 1;
  if (!unaligned) return CHECK_OK(GsVecCreate(gctx, n, dt, &p->g));
  if (CHECK_OK(GsVecCreate(gctx, n + 2, dt, &p->big))) return 1;
  CHECK_OK(GsVecSet(p->big, 1.0));
  if (CHECK_OK(GsVecGetArray(p->big, gmem, &p->bigp))) return 1;
  return CHECK_OK(
      GsVecCreateWithArray(gctx, n, dt, gmem, (char *)p->bigp + GsDataTypeSize(dt), &p->g));
}

static void pair_destroy(Pair *p) {
  GsVecDestroy(&p->c);
  GsVecDestroy(&p->g);
  if (p->big) {
    if (p->bigp) CHECK_OK(GsVecRestoreArray(p->big, &p->bigp));
    GsVecDestroy(&p->big);
  }
}

/* Set both copies from host doubles (exactly representable in the type). */
static void pair_set(Pair *p, const double *vals) {
  void *buf = hs_scratch((size_t)p->n * GsDataTypeSize(p->dt));
  for (GsInt i = 0; i < p->n; i++)
    if (p->dt == GS_DOUBLE)
      ((double *)buf)[i] = vals[i];
    else
      ((float *)buf)[i] = (float)vals[i];
  CHECK_OK(GsVecSetValuesHost(p->c, buf));
  CHECK_OK(GsVecSetValuesHost(p->g, buf));
}

static void read_vec(GsVec v, GsDataType dt, GsInt n, double *out) {
  void *buf = hs_scratch((size_t)n * GsDataTypeSize(dt));
  if (CHECK_OK(GsVecGetValuesHost(v, buf))) {
    for (GsInt i = 0; i < n; i++)
      out[i] = NAN;
    return;
  }
  for (GsInt i = 0; i < n; i++)
    out[i] = dt == GS_DOUBLE ? ((double *)buf)[i] : (double)((float *)buf)[i];
}

static void pair_poison(Pair *p) {
  CHECK_OK(GsVecSet(p->c, NAN));
  CHECK_OK(GsVecSet(p->g, NAN));
}

/* ---- Comparisons --------------------------------------------------------------------------- */

typedef struct {
  GsDataType dt;
  GsInt n;
  int unaligned;
  double *x, *y, *z; /* inputs */
  double *oc, *og;   /* outputs read back from CPU and device */
  Pair X, Y, W;
} Case;

/* Compare the two read-back outputs entry by entry: the same bits (gsimpl.h: both back ends round
 * every operation alike). */
static void cmp_elems(Case *c, const char *what) {
  GsInt bad = 0, wi = -1;
  for (GsInt i = 0; i < c->n; i++)
    if (memcmp(&c->og[i], &c->oc[i], sizeof(double))) {
      bad++;
      if (wi < 0) wi = i;
    }
  CHECK(bad == 0, "%s %s n=%lld%s: %lld entries differ; first [%lld]: device %.17g, cpu %.17g",
        what, GsDataTypeName(c->dt), (long long)c->n, c->unaligned ? " unaligned" : "",
        (long long)bad, (long long)wi, wi >= 0 ? c->og[wi] : 0.0, wi >= 0 ? c->oc[wi] : 0.0);
}

static void read_both(Case *c, Pair *p) {
  read_vec(p->c, p->dt, p->n, c->oc);
  read_vec(p->g, p->dt, p->n, c->og);
}

/* A reduction's result: the same bits on both back ends (the reduction order of gsimpl.h). */
static void cmp_red(Case *c, const char *what, double g, double r) {
  CHECK(!memcmp(&g, &r, sizeof g), "%s %s n=%lld%s: device %.17g, cpu %.17g (difference %.3g)",
        what, GsDataTypeName(c->dt), (long long)c->n, c->unaligned ? " unaligned" : "", g, r,
        g - r);
}

/* ---- The operations ------------------------------------------------------------------------ */

static void ops_elementwise(Case *c, HsRng *rng) {
  GsInt n = c->n;
  double a = hs_range(rng, -3, 3), b = hs_range(rng, -3, 3);

  pair_poison(&c->W);
  CHECK_OK(GsVecSet(c->W.c, a));
  CHECK_OK(GsVecSet(c->W.g, a));
  read_both(c, &c->W);
  cmp_elems(c, "Set");

  pair_poison(&c->W);
  CHECK_OK(GsVecCopy(c->X.c, c->W.c));
  CHECK_OK(GsVecCopy(c->X.g, c->W.g));
  read_both(c, &c->W);
  cmp_elems(c, "Copy");

  /* Conversions both ways through a vector of the other type. */
  {
    GsDataType ot = c->dt == GS_DOUBLE ? GS_FLOAT : GS_DOUBLE;
    Pair O;
    if (!pair_create(&O, ot, n, c->unaligned)) {
      double *full = hs_malloc((size_t)n * sizeof *full);
      for (GsInt i = 0; i < n; i++)
        full[i] = c->x[i] * (1.0 + 0x1.123456789abcdp-20);
      Pair *D = c->dt == GS_DOUBLE ? &c->W : &O, *F = c->dt == GS_DOUBLE ? &O : &c->W;
      pair_set(D, full);
      pair_poison(F);
      CHECK_OK(GsVecCopy(D->c, F->c));
      CHECK_OK(GsVecCopy(D->g, F->g));
      read_vec(F->c, GS_FLOAT, n, c->oc);
      read_vec(F->g, GS_FLOAT, n, c->og);
      cmp_elems(c, "Copy double->float");
      pair_poison(D);
      CHECK_OK(GsVecCopy(F->c, D->c));
      CHECK_OK(GsVecCopy(F->g, D->g));
      read_vec(D->c, GS_DOUBLE, n, c->oc);
      read_vec(D->g, GS_DOUBLE, n, c->og);
      cmp_elems(c, "Copy float->double");
      free(full);
    }
    pair_destroy(&O);
  }

  pair_set(&c->W, c->x);
  CHECK_OK(GsVecScale(c->W.c, a));
  CHECK_OK(GsVecScale(c->W.g, a));
  read_both(c, &c->W);
  cmp_elems(c, "Scale");

  pair_set(&c->W, c->y);
  CHECK_OK(GsVecAXPY(c->W.c, a, c->X.c));
  CHECK_OK(GsVecAXPY(c->W.g, a, c->X.g));
  read_both(c, &c->W);
  cmp_elems(c, "AXPY");

  const double betas[3] = {b, 1.0, 0.0};
  const char *bn[3] = {"AXPBY", "AXPBY beta=1", "AXPBY beta=0 over NaN"};
  for (int k = 0; k < 3; k++) {
    if (betas[k] == 0.0)
      pair_poison(&c->W);
    else
      pair_set(&c->W, c->y);
    CHECK_OK(GsVecAXPBY(c->W.c, a, betas[k], c->X.c));
    CHECK_OK(GsVecAXPBY(c->W.g, a, betas[k], c->X.g));
    read_both(c, &c->W);
    cmp_elems(c, bn[k]);
  }

  for (int k = 0; k < 3; k++) {
    if (k == 0) {
      pair_poison(&c->W);
      CHECK_OK(GsVecWAXPY(c->W.c, a, c->X.c, c->Y.c));
      CHECK_OK(GsVecWAXPY(c->W.g, a, c->X.g, c->Y.g));
    } else if (k == 1) {
      pair_set(&c->W, c->x);
      CHECK_OK(GsVecWAXPY(c->W.c, a, c->W.c, c->Y.c));
      CHECK_OK(GsVecWAXPY(c->W.g, a, c->W.g, c->Y.g));
    } else {
      pair_set(&c->W, c->y);
      CHECK_OK(GsVecWAXPY(c->W.c, a, c->X.c, c->W.c));
      CHECK_OK(GsVecWAXPY(c->W.g, a, c->X.g, c->W.g));
    }
    read_both(c, &c->W);
    cmp_elems(c, k == 0 ? "WAXPY" : k == 1 ? "WAXPY w=x" : "WAXPY w=y");
  }

  /* AXPBYPCZ: general gamma, gamma = 0 over NaN, z aliasing x and y. */
  const double gammas[4] = {-0.75, 0.0, 1.25, -2.0};
  const char *pcz[4] = {"AXPBYPCZ", "AXPBYPCZ gamma=0 over NaN", "AXPBYPCZ z=x", "AXPBYPCZ z=y"};
  for (int k = 0; k < 4; k++) {
    const double *zin = k == 2 ? c->x : k == 3 ? c->y : c->z;
    if (k == 1)
      pair_poison(&c->W);
    else
      pair_set(&c->W, zin);
    CHECK_OK(
        GsVecAXPBYPCZ(c->W.c, a, b, gammas[k], k == 2 ? c->W.c : c->X.c, k == 3 ? c->W.c : c->Y.c));
    CHECK_OK(
        GsVecAXPBYPCZ(c->W.g, a, b, gammas[k], k == 2 ? c->W.g : c->X.g, k == 3 ? c->W.g : c->Y.g));
    read_both(c, &c->W);
    cmp_elems(c, pcz[k]);
  }

  pair_poison(&c->W);
  CHECK_OK(GsVecPointwiseMult(c->W.c, c->X.c, c->Y.c));
  CHECK_OK(GsVecPointwiseMult(c->W.g, c->X.g, c->Y.g));
  read_both(c, &c->W);
  cmp_elems(c, "PointwiseMult");

  pair_poison(&c->W);
  CHECK_OK(GsVecPointwiseDivide(c->W.c, c->X.c, c->Y.c));
  CHECK_OK(GsVecPointwiseDivide(c->W.g, c->X.g, c->Y.g));
  read_both(c, &c->W);
  cmp_elems(c, "PointwiseDivide");

  double *v = hs_malloc((size_t)n * sizeof *v);
  for (GsInt i = 0; i < n; i++)
    v[i] = i % 5 == 2 ? 0.0 : c->x[i];
  pair_set(&c->W, v);
  CHECK_OK(GsVecReciprocal(c->W.c));
  CHECK_OK(GsVecReciprocal(c->W.g));
  read_both(c, &c->W);
  cmp_elems(c, "Reciprocal");
  GsInt nonzero = 0;
  for (GsInt i = 0; i < n; i++)
    nonzero += v[i] == 0 && c->og[i] != 0;
  CHECK(nonzero == 0, "Reciprocal on the device: %lld zero entries did not stay zero",
        (long long)nonzero);
  free(v);
}

static void ops_reductions(Case *c, HsRng *rng) {
  GsInt n = c->n;
  double rc = NAN, rg = NAN, rc2 = NAN, rg2 = NAN;

  CHECK_OK(GsVecDot(c->X.c, c->Y.c, &rc));
  CHECK_OK(GsVecDot(c->X.g, c->Y.g, &rg));
  cmp_red(c, "Dot", rg, rc);

  const GsNormType types[3] = {GS_NORM_1, GS_NORM_2, GS_NORM_INF};
  const char *nn[3] = {"Norm1", "Norm2", "NormInf"};
  for (int k = 0; k < 3; k++) {
    rc = rg = NAN;
    CHECK_OK(GsVecNorm(c->X.c, types[k], &rc));
    CHECK_OK(GsVecNorm(c->X.g, types[k], &rg));
    if (types[k] == GS_NORM_INF)
      CHECK(rg == rc, "NormInf %s n=%lld%s: device %.17g, cpu %.17g", GsDataTypeName(c->dt),
            (long long)n, c->unaligned ? " unaligned" : "", rg, rc);
    else
      cmp_red(c, nn[k], rg, rc);
  }

  double a = hs_range(rng, -3, 3);
  pair_set(&c->W, c->y);
  rc = rg = NAN;
  CHECK_OK(GsVecAXPYNorm(c->W.c, a, c->X.c, &rc));
  CHECK_OK(GsVecAXPYNorm(c->W.g, a, c->X.g, &rg));
  read_both(c, &c->W);
  cmp_elems(c, "AXPYNorm y");
  cmp_red(c, "AXPYNorm norm", rg, rc);

  rc = rg = rc2 = rg2 = NAN;
  CHECK_OK(GsVecDotNorm2(c->X.c, c->Y.c, &rc, &rc2));
  CHECK_OK(GsVecDotNorm2(c->X.g, c->Y.g, &rg, &rg2));
  cmp_red(c, "DotNorm2 dot", rg, rc);
  cmp_red(c, "DotNorm2 nrm2", rg2, rc2);

  /* MDot against nv distinct vectors (5 cycled when n is large). */
  int nd = n > 100000 ? 5 : 17;
  double *vals[17];
  Pair V[17];
  int ok = 1;
  for (int k = 0; k < nd; k++) {
    vals[k] = hs_malloc((size_t)n * sizeof(double));
    hs_fill_d(rng, n, vals[k], 0.5, 2.0);
    if (c->dt == GS_FLOAT)
      for (GsInt i = 0; i < n; i++)
        vals[k][i] = (float)vals[k][i];
    if (pair_create(&V[k], c->dt, n, c->unaligned))
      ok = 0;
    else
      pair_set(&V[k], vals[k]);
  }
  const int nvs[5] = {1, 3, 9, 17, 70};
  for (int t = 0; t < 5 && ok; t++) {
    int nv = nvs[t], map[70];
    GsVec yc[70], yg[70];
    double resc[70], resg[70];
    for (int k = 0; k < nv; k++) {
      map[k] = (5 * k + t) % nd;
      yc[k] = V[map[k]].c;
      yg[k] = V[map[k]].g;
      resc[k] = resg[k] = NAN;
    }
    CHECK_OK(GsVecMDot(c->X.c, nv, (const GsVec *)yc, resc));
    CHECK_OK(GsVecMDot(c->X.g, nv, (const GsVec *)yg, resg));
    for (int k = 0; k < nv; k++) {
      char what[32];
      snprintf(what, sizeof what, "MDot nv=%d [%d]", nv, k);
      cmp_red(c, what, resg[k], resc[k]);
    }
    /* MAXPY over the same vectors into W (the fused passes of both back ends: on the device up to
     * 8 terms by the kernel of their count, more by the one for any count, 64 terms a pass, so
     * nv = 70 takes two). */
    double alpha[70];
    for (int k = 0; k < nv; k++)
      alpha[k] = hs_range(rng, -2, 2);
    pair_set(&c->W, vals[map[0]]);
    CHECK_OK(GsVecScale(c->W.c, -0.75));
    CHECK_OK(GsVecScale(c->W.g, -0.75));
    CHECK_OK(GsVecMAXPY(c->W.c, nv, alpha, (const GsVec *)yc));
    CHECK_OK(GsVecMAXPY(c->W.g, nv, alpha, (const GsVec *)yg));
    read_both(c, &c->W);
    char what[32];
    snprintf(what, sizeof what, "MAXPY nv=%d", nv);
    cmp_elems(c, what);
  }
  for (int k = 0; k < nd; k++) {
    pair_destroy(&V[k]);
    free(vals[k]);
  }
}

/* Fresh values in [0.5, 2) with random signs, exactly representable in the case's type. */
static double *fresh_values(Case *c, HsRng *rng) {
  double *v = hs_malloc((size_t)c->n * sizeof *v);
  hs_fill_d(rng, c->n, v, 0.5, 2.0);
  if (c->dt == GS_FLOAT)
    for (GsInt i = 0; i < c->n; i++)
      v[i] = (float)v[i];
  return v;
}

/* The fused CG operations, with the weight vector w and without: AXPYPair's two updated vectors
 * and two reductions, PointwiseMultAYPX's result, all the same bits on both back ends. */
static void ops_fused(Case *c, HsRng *rng) {
  GsInt n = c->n;
  double *x0 = fresh_values(c, rng), *r0 = fresh_values(c, rng), *w = fresh_values(c, rng);
  Pair Xo, Ro, Wp;
  int ok = !pair_create(&Xo, c->dt, n, c->unaligned);
  ok = !pair_create(&Ro, c->dt, n, c->unaligned) && ok;
  ok = !pair_create(&Wp, c->dt, n, c->unaligned) && ok;
  for (int hw = 0; hw < 2 && ok; hw++) {
    const char *tag = hw ? "" : " w=NULL";
    const double a = hs_range(rng, -3, 3), beta = hs_range(rng, -3, 3);
    double rwr_c = NAN, rr_c = NAN, rwr_g = NAN, rr_g = NAN;
    char what[64];
    pair_set(&Xo, x0);
    pair_set(&Ro, r0);
    pair_set(&Wp, w);
    CHECK_OK(GsVecAXPYPair(Xo.c, Ro.c, a, c->X.c, c->Y.c, hw ? Wp.c : NULL, &rwr_c, &rr_c));
    CHECK_OK(GsVecAXPYPair(Xo.g, Ro.g, a, c->X.g, c->Y.g, hw ? Wp.g : NULL, &rwr_g, &rr_g));
    read_both(c, &Xo);
    snprintf(what, sizeof what, "AXPYPair x%s", tag);
    cmp_elems(c, what);
    read_both(c, &Ro);
    snprintf(what, sizeof what, "AXPYPair r%s", tag);
    cmp_elems(c, what);
    snprintf(what, sizeof what, "AXPYPair rr%s", tag);
    cmp_red(c, what, rr_g, rr_c);
    snprintf(what, sizeof what, "AXPYPair rwr%s", tag);
    cmp_red(c, what, rwr_g, rwr_c);
    /* A repeat on the device gives the same bits (the reduction's order is fixed). */
    double again[2] = {NAN, NAN};
    pair_set(&Xo, x0);
    pair_set(&Ro, r0);
    CHECK_OK(GsVecAXPYPair(Xo.g, Ro.g, a, c->X.g, c->Y.g, hw ? Wp.g : NULL, &again[0], &again[1]));
    CHECK(!memcmp(&again[0], &rwr_g, sizeof rwr_g) && !memcmp(&again[1], &rr_g, sizeof rr_g),
          "AXPYPair%s %s n=%lld: a repeat on the device gave rwr %.17g, rr %.17g (first %.17g, "
          "%.17g)",
          tag, GsDataTypeName(c->dt), (long long)n, again[0], again[1], rwr_g, rr_g);
    /* Without x and p: r as above on both, and on each back end the bits of the call with them. */
    double nox_c[2] = {NAN, NAN}, nox_g[2] = {NAN, NAN};
    pair_set(&Ro, r0);
    CHECK_OK(GsVecAXPYPair(NULL, Ro.c, a, NULL, c->Y.c, hw ? Wp.c : NULL, &nox_c[0], &nox_c[1]));
    CHECK_OK(GsVecAXPYPair(NULL, Ro.g, a, NULL, c->Y.g, hw ? Wp.g : NULL, &nox_g[0], &nox_g[1]));
    read_both(c, &Ro);
    snprintf(what, sizeof what, "AXPYPair x=NULL r%s", tag);
    cmp_elems(c, what);
    CHECK(!memcmp(&nox_c[0], &rwr_c, sizeof rwr_c) && !memcmp(&nox_c[1], &rr_c, sizeof rr_c) &&
              !memcmp(&nox_g[0], &rwr_g, sizeof rwr_g) && !memcmp(&nox_g[1], &rr_g, sizeof rr_g),
          "AXPYPair x=NULL%s %s n=%lld%s: rwr, rr cpu %.17g, %.17g, device %.17g, %.17g; with x "
          "cpu %.17g, %.17g, device %.17g, %.17g",
          tag, GsDataTypeName(c->dt), (long long)n, c->unaligned ? " unaligned" : "", nox_c[0],
          nox_c[1], nox_g[0], nox_g[1], rwr_c, rr_c, rwr_g, rr_g);

    /* The *Scalars forms, alpha = a / 1 and beta = beta / 1 kept in a GsScalars on each side:
     * the results and vectors of the host-coefficient forms on each back end, and the vectors
     * as close across them. */
    {
      GsContext xc = NULL, xg = NULL;
      GsScalars Sc = NULL, Sg = NULL;
      const double sv[5] = {a, 1.0, beta, 1.0, 0.0};
      double gc[2] = {NAN, NAN}, gg[2] = {NAN, NAN};
      GsVecGetContext(Ro.c, &xc);
      GsVecGetContext(Ro.g, &xg);
      if (!CHECK_OK(GsScalarsCreate(xc, 6, &Sc)) && !CHECK_OK(GsScalarsCreate(xg, 6, &Sg)) &&
          !CHECK_OK(GsScalarsSet(Sc, 0, 5, sv)) && !CHECK_OK(GsScalarsSet(Sg, 0, 5, sv))) {
        const GsScalarRatio ac = {Sc, 0, 1}, ag = {Sg, 0, 1}, bc = {Sc, 2, 3}, bg = {Sg, 2, 3};
        pair_set(&Xo, x0);
        pair_set(&Ro, r0);
        CHECK_OK(GsVecAXPYPairScalars(Xo.c, Ro.c, ac, c->X.c, c->Y.c, hw ? Wp.c : NULL, Sc, 4));
        CHECK_OK(GsVecAXPYPairScalars(Xo.g, Ro.g, ag, c->X.g, c->Y.g, hw ? Wp.g : NULL, Sg, 4));
        CHECK_OK(GsScalarsGet(Sc, 4, 2, gc));
        CHECK_OK(GsScalarsGet(Sg, 4, 2, gg));
        CHECK(!memcmp(&gc[0], &rr_c, sizeof rr_c) && !memcmp(&gg[0], &rr_g, sizeof rr_g) &&
                  (!hw || (!memcmp(&gc[1], &rwr_c, sizeof rwr_c) &&
                           !memcmp(&gg[1], &rwr_g, sizeof rwr_g))),
              "AXPYPairScalars%s %s n=%lld: cpu %.17g, %.17g, device %.17g, %.17g; AXPYPair "
              "cpu %.17g, %.17g, device %.17g, %.17g",
              tag, GsDataTypeName(c->dt), (long long)n, gc[0], gc[1], gg[0], gg[1], rr_c, rwr_c,
              rr_g, rwr_g);
        read_both(c, &Ro);
        snprintf(what, sizeof what, "AXPYPairScalars r%s", tag);
        cmp_elems(c, what);
        CHECK_OK(GsVecAXPYPointwiseMultAYPXScalars(Xo.c, ac, Ro.c, bc, hw ? Wp.c : NULL, c->X.c));
        CHECK_OK(GsVecAXPYPointwiseMultAYPXScalars(Xo.g, ag, Ro.g, bg, hw ? Wp.g : NULL, c->X.g));
        read_both(c, &Xo);
        snprintf(what, sizeof what, "AXPYPointwiseMultAYPXScalars z%s", tag);
        cmp_elems(c, what);
        read_both(c, &Ro);
        snprintf(what, sizeof what, "AXPYPointwiseMultAYPXScalars y%s", tag);
        cmp_elems(c, what);
      }
      GsScalarsDestroy(&Sc);
      GsScalarsDestroy(&Sg);
    }

    /* y = w .* x + beta y, y starting as r0 */
    pair_set(&Ro, r0);
    CHECK_OK(GsVecPointwiseMultAYPX(Ro.c, beta, hw ? Wp.c : NULL, c->X.c));
    CHECK_OK(GsVecPointwiseMultAYPX(Ro.g, beta, hw ? Wp.g : NULL, c->X.g));
    read_both(c, &Ro);
    snprintf(what, sizeof what, "PointwiseMultAYPX%s", tag);
    cmp_elems(c, what);

    /* z += a y and y = w .* x + beta y, z starting as x0 and y as r0; beta and 0 (y still read). */
    for (int b0 = 0; b0 < 2; b0++) {
      const double bb = b0 ? 0.0 : beta;
      pair_set(&Xo, x0);
      pair_set(&Ro, r0);
      CHECK_OK(GsVecAXPYPointwiseMultAYPX(Xo.c, a, Ro.c, bb, hw ? Wp.c : NULL, c->X.c));
      CHECK_OK(GsVecAXPYPointwiseMultAYPX(Xo.g, a, Ro.g, bb, hw ? Wp.g : NULL, c->X.g));
      read_both(c, &Xo);
      snprintf(what, sizeof what, "AXPYPointwiseMultAYPX z%s beta=%g", tag, bb);
      cmp_elems(c, what);
      read_both(c, &Ro);
      snprintf(what, sizeof what, "AXPYPointwiseMultAYPX y%s beta=%g", tag, bb);
      cmp_elems(c, what);
    }
  }
  pair_destroy(&Xo);
  pair_destroy(&Ro);
  pair_destroy(&Wp);
  free(x0);
  free(r0);
  free(w);
}

/* SetRandom: the same counter-based stream on both back ends. */
static void ops_random(Case *c, HsRng *rng) {
  uint64_t seed = hs_next(rng);
  pair_poison(&c->W);
  CHECK_OK(GsVecSetRandom(c->W.c, seed, -1.0, 3.0));
  CHECK_OK(GsVecSetRandom(c->W.g, seed, -1.0, 3.0));
  read_both(c, &c->W);
  cmp_elems(c, "SetRandom");
}

/* Deterministic reductions on the device: 5 repeats, identical bits. */
static void ops_deterministic(Case *c) {
  CHECK_OK(GsSetDeterministic(gctx, 1));
  double d[5], n1[5], n2[5], dn[5][2], an[5];
  for (int k = 0; k < 5; k++) {
    CHECK_OK(GsVecDot(c->X.g, c->Y.g, &d[k]));
    CHECK_OK(GsVecNorm(c->X.g, GS_NORM_1, &n1[k]));
    CHECK_OK(GsVecNorm(c->Y.g, GS_NORM_2, &n2[k]));
    CHECK_OK(GsVecDotNorm2(c->X.g, c->Y.g, &dn[k][0], &dn[k][1]));
    CHECK_OK(GsVecCopy(c->Y.g, c->W.g));
    CHECK_OK(GsVecAXPYNorm(c->W.g, 0.75, c->X.g, &an[k]));
  }
  int same = 1;
  for (int k = 1; k < 5; k++)
    same = same && !memcmp(&d[k], &d[0], sizeof(double)) &&
           !memcmp(&n1[k], &n1[0], sizeof(double)) && !memcmp(&n2[k], &n2[0], sizeof(double)) &&
           !memcmp(dn[k], dn[0], sizeof dn[0]) && !memcmp(&an[k], &an[0], sizeof(double));
  CHECK(same,
        "deterministic device reductions differ over 5 repeats (%s n=%lld%s; dot %.17g / "
        "%.17g / %.17g / %.17g / %.17g)",
        GsDataTypeName(c->dt), (long long)c->n, c->unaligned ? " unaligned" : "", d[0], d[1], d[2],
        d[3], d[4]);
  GsVec ys[3] = {c->Y.g, c->X.g, c->Y.g};
  double m[5][3];
  for (int k = 0; k < 5; k++)
    CHECK_OK(GsVecMDot(c->X.g, 3, (const GsVec *)ys, m[k]));
  same = 1;
  for (int k = 1; k < 5; k++)
    same = same && !memcmp(m[k], m[0], sizeof m[0]);
  CHECK(same, "deterministic device MDot differs over 5 repeats (%s n=%lld)", GsDataTypeName(c->dt),
        (long long)c->n);
  CHECK_OK(GsSetDeterministic(gctx, 0));
}

static void run_case(GsDataType dt, GsInt n, int unaligned, HsRng *rng) {
  Case c;
  memset(&c, 0, sizeof c);
  c.dt = dt;
  c.n = n;
  c.unaligned = unaligned;
  c.x = hs_malloc((size_t)n * sizeof(double));
  c.y = hs_malloc((size_t)n * sizeof(double));
  c.z = hs_malloc((size_t)n * sizeof(double));
  hs_fill_d(rng, n, c.x, 0.5, 2.0);
  hs_fill_d(rng, n, c.y, 0.5, 2.0);
  hs_fill_d(rng, n, c.z, 0.5, 2.0);
  if (dt == GS_FLOAT)
    for (GsInt i = 0; i < n; i++) {
      c.x[i] = (float)c.x[i];
      c.y[i] = (float)c.y[i];
      c.z[i] = (float)c.z[i];
    }
  c.oc = hs_malloc((size_t)n * sizeof(double));
  c.og = hs_malloc((size_t)n * sizeof(double));
  long failed = hs.failed;
  if (!pair_create(&c.X, dt, n, unaligned) && !pair_create(&c.Y, dt, n, unaligned) &&
      !pair_create(&c.W, dt, n, unaligned)) {
    pair_set(&c.X, c.x);
    pair_set(&c.Y, c.y);
    ops_elementwise(&c, rng);
    ops_reductions(&c, rng);
    ops_fused(&c, rng);
    ops_random(&c, rng);
    ops_deterministic(&c);
  }
  if (hs.failed > failed)
    printf("  (failures above: %s n=%lld%s)\n", GsDataTypeName(dt), (long long)n,
           unaligned ? " unaligned" : "");
  pair_destroy(&c.X);
  pair_destroy(&c.Y);
  pair_destroy(&c.W);
  free(c.x);
  free(c.y);
  free(c.z);
  free(c.oc);
  free(c.og);
}

/* Batched banded solves and products: the same random diagonally dominant batch on both back
 * ends, solutions and products compared entrywise (both run the same per-system algorithm, so
 * they differ only by rounding, e.g. fused multiply-adds on the device). Outputs are poisoned. */
static void banded_case(int bands, GsInt n, GsInt batch, GsDataType dt, GsBandedLayout layout,
                        int shared, int periodic, GsBandedAlgorithm algo, HsRng *rng) {
  GsBandedDesc d = {bands,  n,        batch, dt, layout, layout == GS_BANDED_CONTIGUOUS ? n + 3 : 0,
                    shared, periodic, 0};
  GsBanded Ac = NULL, Ag = NULL;
  if (CHECK_OK(GsBandedCreate(cctx, &d, &Ac)) || CHECK_OK(GsBandedCreate(gctx, &d, &Ag)) ||
      CHECK_OK(GsBandedSetAlgorithm(Ac, algo)) || CHECK_OK(GsBandedSetAlgorithm(Ag, algo))) {
    GsBandedDestroy(&Ac);
    GsBandedDestroy(&Ag);
    return;
  }
  GsInt dlen = 0, rlen = 0;
  CHECK_OK(GsBandedGetSizes(Ac, &dlen, &rlen));
  const GsInt nrhs = 2, flen = nrhs * rlen;
  GsVec Dc[5] = {0}, Dg[5] = {0}, fc = NULL, fg = NULL, xc = NULL, xg = NULL, yc = NULL, yg = NULL;
  double *h = hs_malloc((size_t)(dlen > flen ? dlen : flen) * sizeof *h);
  void *buf = hs_scratch((size_t)(dlen > flen ? dlen : flen) * sizeof(double));
  int ok = 1;
  for (int k = 0; k < bands && ok; k++) {
    ok = !CHECK_OK(GsVecCreate(cctx, dlen, dt, &Dc[k])) &&
         !CHECK_OK(GsVecCreate(gctx, dlen, dt, &Dg[k]));
    if (!ok) break;
    for (GsInt i = 0; i < dlen; i++)
      h[i] = k == bands / 2 ? (double)bands + hs_uniform(rng) : hs_range(rng, -1, 1);
    for (GsInt i = 0; i < dlen; i++) {
      if (dt == GS_DOUBLE)
        ((double *)buf)[i] = h[i];
      else
        ((float *)buf)[i] = (float)h[i];
    }
    CHECK_OK(GsVecSetValuesHost(Dc[k], buf));
    CHECK_OK(GsVecSetValuesHost(Dg[k], buf));
  }
  if (ok)
    ok = !CHECK_OK(GsVecCreate(cctx, flen, dt, &fc)) &&
         !CHECK_OK(GsVecCreate(gctx, flen, dt, &fg)) &&
         !CHECK_OK(GsVecCreate(cctx, flen, dt, &xc)) &&
         !CHECK_OK(GsVecCreate(gctx, flen, dt, &xg)) &&
         !CHECK_OK(GsVecCreate(cctx, flen, dt, &yc)) && !CHECK_OK(GsVecCreate(gctx, flen, dt, &yg));
  if (ok) {
    uint64_t seed = hs_next(rng);
    CHECK_OK(GsVecSetRandom(fc, seed, -1, 1));
    CHECK_OK(GsVecSetRandom(fg, seed, -1, 1));
    CHECK_OK(GsVecSet(xc, NAN));
    CHECK_OK(GsVecSet(xg, NAN));
    CHECK_OK(GsVecSet(yc, 0));
    CHECK_OK(GsVecSet(yg, 0));
    CHECK_OK(GsBandedFactor(Ac, Dc));
    CHECK_OK(GsBandedFactor(Ag, Dg));
    CHECK_OK(GsBandedSolve(Ac, fc, xc));
    CHECK_OK(GsBandedSolve(Ag, fg, xg));
    CHECK_OK(GsBandedMult(Ac, Dc, xc, yc));
    CHECK_OK(GsBandedMult(Ag, Dg, xg, yg));
    double *a = hs_malloc((size_t)flen * sizeof *a), *b = hs_malloc((size_t)flen * sizeof *b);
    const double tol = dt == GS_DOUBLE ? 1e-12 : 2e-5;
    for (int pass = 0; pass < 2; pass++) {
      GsVec vc = pass ? yc : xc, vg = pass ? yg : xg;
      read_vec(vc, dt, flen, a);
      read_vec(vg, dt, flen, b);
      GsInt bad = 0, first = -1;
      double worst = 0;
      for (GsInt i = 0; i < flen; i++) {
        if (layout == GS_BANDED_CONTIGUOUS && (i % rlen) % (n + 3) >= n) continue; /* gaps */
        double e = fabs(a[i] - b[i]) / (1 + fabs(a[i]));
        if (!(e <= tol)) {
          if (!bad) first = i;
          bad++;
        }
        if (e > worst || e != e) worst = e;
      }
      CHECK(bad == 0,
            "banded %s (%s) bands %d n %lld batch %lld %s %s%s%s: %lld entries differ (first "
            "%lld, worst %.3g)",
            pass ? "mult" : "solve", GsBandedAlgorithmName(algo), bands, (long long)n,
            (long long)batch, GsDataTypeName(dt),
            layout == GS_BANDED_CONTIGUOUS ? "contiguous" : "interleaved", shared ? " shared" : "",
            periodic ? " periodic" : "", (long long)bad, (long long)first, worst);
    }
    free(a);
    free(b);
  }
  free(h);
  for (int k = 0; k < 5; k++) {
    GsVecDestroy(&Dc[k]);
    GsVecDestroy(&Dg[k]);
  }
  GsVecDestroy(&fc);
  GsVecDestroy(&fg);
  GsVecDestroy(&xc);
  GsVecDestroy(&xg);
  GsVecDestroy(&yc);
  GsVecDestroy(&yg);
  CHECK_OK(GsBandedDestroy(&Ac));
  CHECK_OK(GsBandedDestroy(&Ag));
}

static void banded_cases(HsRng *rng) {
  const GsInt sizes[][2] = {{5, 1}, {7, 33}, {64, 300}, {1000, 129}};
  for (int b = 3; b <= 5; b += 2)
    for (int t = 0; t < 2; t++)
      for (int per = 0; per < 2; per++)
        for (int sh = 0; sh < 2; sh++)
          for (int lay = 0; lay < 2; lay++)
            for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
              banded_case(b, sizes[k][0], sizes[k][1], t ? GS_FLOAT : GS_DOUBLE,
                          lay ? GS_BANDED_CONTIGUOUS : GS_BANDED_INTERLEAVED, sh, per,
                          GS_BANDED_ALGORITHM_AUTO, rng);
  /* The chunked scan on both (the GPU's kernel against the CPU's loop over the same chunks):
   * chunks of 8 rows up to 2048 rows, of 16 beyond; periodic or not. */
  const GsInt scan_sizes[][2] = {{5, 3}, {64, 300}, {1000, 129}, {3001, 7}};
  for (int b = 3; b <= 5; b += 2)
    for (int t = 0; t < 2; t++)
      for (int lay = 0; lay < 2; lay++)
        for (int per = 0; per < 2; per++)
          for (size_t k = 0; k < sizeof scan_sizes / sizeof scan_sizes[0]; k++)
            banded_case(b, scan_sizes[k][0] + per * (b / 2 + 1), scan_sizes[k][1],
                        t ? GS_FLOAT : GS_DOUBLE,
                        lay ? GS_BANDED_CONTIGUOUS : GS_BANDED_INTERLEAVED, (int)(k % 2), per,
                        GS_BANDED_ALGORITHM_SCAN, rng);
  /* Double pentadiagonal LU scans of 128 chunks (2048 rows, interleaved): a 512-thread block's
   * systems in two halves of 256 threads (gs_banded_scan_h_k_d, gs_banded_scan_hp_k_d). */
  for (int per = 0; per < 2; per++)
    banded_case(5, 2048 + 2 * per, 9, GS_DOUBLE, GS_BANDED_INTERLEAVED, 0, per,
                GS_BANDED_ALGORITHM_SCAN, rng);
  /* The tiled solve's wide blocks (a shared matrix, interleaved, 16384 systems or more of 513 to
   * 1024 rows: 32-row chunks, 16 systems a block). */
  for (int b = 3; b <= 5; b += 2)
    for (int t = 0; t < 2; t++)
      for (int per = 0; per < 2; per++)
        banded_case(b, 600 + per * (b / 2), 16384, t ? GS_FLOAT : GS_DOUBLE, GS_BANDED_INTERLEAVED,
                    1, per, GS_BANDED_ALGORITHM_TILE, rng);
}

/* Sparse: the same random matrix's product on both back ends (poisoned output, fresh random x),
 * and CG / BiCGStab / GMRES + Jacobi iteration counts on both within 1 %. */
/* Largest |b_i - a_i| / (|alpha| (|A| |x|)_i + |beta y0_i|) over rows: the error of a product
 * relative to the size of its terms (rounding differences between kernels, which may sum in
 * other orders or fuse multiply-adds, stay near the unit roundoff; cancellation does not inflate
 * it). */
static double spmv_scaled_err(GsMat A, double alpha, const double *x, double beta, const double *y0,
                              const double *a, const double *b) {
  GsInt m;
  const GsInt *rp;
  const int *col;
  const double *val;
  GsMatGetSize(A, &m, NULL, NULL);
  GsMatGetCSR(A, &rp, &col, &val);
  double worst = 0;
  for (GsInt i = 0; i < m; i++) {
    double s = 0;
    for (GsInt k = rp[i]; k < rp[i + 1]; k++)
      s += fabs(val[k] * x[col[k]]);
    const double e =
        fabs(b[i] - a[i]) / (fabs(alpha) * s + (beta != 0 ? fabs(beta * y0[i]) : 0) + 1e-300);
    worst = e > worst || e != e ? e : worst;
  }
  return worst;
}

/* The same Krylov solve (b = A 1, x0 = 0, rtol) of A[0] on the CPU and A[1] on the device: the same
 * number of iterations and the same residual history, bit for bit (the reduction order and the row
 * order of gsimpl.h and matimpl.h). */
static void krylov_same(const char *what, GsMat A[2], GsKspType type, GsPcType pc, double rtol) {
  const char *names[] = {"cg", "bicgstab", "gmres"};
  GsInt its[2] = {-1, -2};
  double *hist[2] = {NULL, NULL};
  GsConvergedReason reason[2] = {GS_CONVERGED_ITERATING, GS_CONVERGED_ITERATING};
  for (int side = 0; side < 2; side++) {
    GsContext ctx = side ? gctx : cctx;
    GsInt n;
    GsVec one = NULL, b = NULL, x = NULL;
    GsKsp k = NULL;
    GsMatGetSize(A[side], &n, NULL, NULL);
    if (!CHECK_OK(GsVecCreate(ctx, n, GS_DOUBLE, &one)) && !CHECK_OK(GsVecSet(one, 1.0)) &&
        !CHECK_OK(GsVecDuplicate(one, &b)) && !CHECK_OK(GsVecDuplicate(one, &x)) &&
        !CHECK_OK(GsMatMult(A[side], 1.0, one, 0.0, b)) && !CHECK_OK(GsKspCreate(ctx, &k))) {
      CHECK_OK(GsKspSetOperator(k, A[side]));
      CHECK_OK(GsKspSetType(k, type));
      CHECK_OK(GsKspSetPcType(k, pc));
      CHECK_OK(GsKspSetTolerances(k, rtol, 0, 1e5, 20000));
      if (!CHECK_OK(GsKspSolve(k, b, x))) {
        const double *h;
        GsInt nh = 0;
        CHECK_OK(GsKspGetIterationNumber(k, &its[side]));
        CHECK_OK(GsKspGetConvergedReason(k, &reason[side]));
        CHECK_OK(GsKspGetResidualHistory(k, &h, &nh));
        hist[side] = hs_malloc((size_t)(nh + 1) * sizeof(double));
        memcpy(hist[side], h, (size_t)nh * sizeof(double));
      }
    }
    GsKspDestroy(&k);
    GsVecDestroy(&one);
    GsVecDestroy(&b);
    GsVecDestroy(&x);
  }
  GsInt first = -1; /* the first iteration whose residual norms differ */
  if (hist[0] && hist[1])
    for (GsInt i = 0; i <= (its[0] < its[1] ? its[0] : its[1]) && first < 0; i++)
      if (memcmp(&hist[0][i], &hist[1][i], sizeof(double))) first = i;
  CHECK(reason[0] == GS_CONVERGED_RTOL && reason[1] == reason[0] && its[0] == its[1] && first < 0,
        "%s %s: %lld iterations on the CPU (%s), %lld on the GPU (%s); residual norms differ "
        "from iteration %lld (%.17g, %.17g)",
        what, names[type], (long long)its[0], GsConvergedReasonName(reason[0]), (long long)its[1],
        GsConvergedReasonName(reason[1]), (long long)first, first >= 0 ? hist[0][first] : 0.0,
        first >= 0 ? hist[1][first] : 0.0);
  if (reason[1] == reason[0] && its[0] == its[1] && first < 0)
    printf("%-32s %-8s: %5lld iterations on both back ends, the same residual history\n", what,
           names[type], (long long)its[0]);
  free(hist[0]);
  free(hist[1]);
}

/* The collection's solves of test_ksp (b = A 1, x0 = 0, Jacobi, rtol 1e-8) on both back ends. */
static void krylov_collection(void) {
  static const struct {
    const char *file;
    GsKspType type;
  } cases[] = {
      {"494_bus.mtx", GS_KSP_CG},        {"1138_bus.mtx", GS_KSP_CG},
      {"bcsstk03.mtx", GS_KSP_CG},       {"gr_30_30.mtx", GS_KSP_CG},
      {"ani4.mtx", GS_KSP_CG},           {"bcsstk13.mtx", GS_KSP_CG},
      {"sherman5.mtx", GS_KSP_BICGSTAB}, {"hor131.mtx", GS_KSP_BICGSTAB},
      {"orsirr_1.mtx", GS_KSP_BICGSTAB}, {"sherman5.mtx", GS_KSP_GMRES},
      {"orsirr_1.mtx", GS_KSP_GMRES},    {"hor131.mtx", GS_KSP_GMRES},
      {"gr_30_30.mtx", GS_KSP_GMRES},
  };
  const char *dir = hs_matrix_dir(GS_TEST_MATRIX_DIR);
  char path[1024];
  if (!dir) {
    printf("SKIP test_equiv Krylov collection: no test matrices (set GS_TEST_MATRIX_DIR)\n");
    return;
  }
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    GsMat A[2] = {NULL, NULL};
    snprintf(path, sizeof path, "%s/%s", dir, cases[c].file);
    if (!CHECK_OK(GsMatLoadMatrixMarket(cctx, path, &A[0])) &&
        !CHECK_OK(GsMatLoadMatrixMarket(gctx, path, &A[1])))
      krylov_same(cases[c].file, A, cases[c].type, GS_PC_JACOBI, 1e-8);
    GsMatDestroy(&A[0]);
    GsMatDestroy(&A[1]);
  }
}

/* Whether a device SpMV kernel sums each row in the order of the matrix's group (every kernel
 * but merge and hybrid, whose rows cut between threads join in another order): its products are
 * then the CPU's bits. */
static int row_order(const char *kname) {
  return strncmp(kname, "merge", 5) != 0 && strncmp(kname, "hybrid", 6) != 0;
}

static void sparse_cases(HsRng *rng) {
  const GsInt m = 5000, n = 4000;
  GsInt cap = m * 40 + n, nz = 0;
  GsInt *ri = hs_malloc((size_t)cap * sizeof *ri), *ci = hs_malloc((size_t)cap * sizeof *ci);
  double *v = hs_malloc((size_t)cap * sizeof *v);
  /* Empty rows, longer rows, and one full row that spans several merge tiles. */
  for (GsInt i = 0; i < m; i++) {
    const GsInt len = i == 2500 ? n : i % 97 == 0 ? 0 : hs_int(rng, 1, i % 13 == 0 ? 39 : 9);
    for (GsInt k = 0; k < len; k++) {
      ri[nz] = i;
      ci[nz] = len == n ? k : hs_int(rng, 0, n - 1);
      v[nz++] = hs_range(rng, -1, 1);
    }
  }
  GsMat Ac = NULL, Ag = NULL;
  GsVec xc = NULL, xg = NULL, yc = NULL, yg = NULL;
  double *hx = hs_malloc((size_t)n * sizeof *hx), *a = hs_malloc((size_t)m * sizeof *a),
         *b = hs_malloc((size_t)m * sizeof *b), *y0 = hs_malloc((size_t)m * sizeof *y0);
  if (!CHECK_OK(GsMatCreateFromTriplets(cctx, m, n, nz, ri, ci, v, &Ac)) &&
      !CHECK_OK(GsMatCreateFromTriplets(gctx, m, n, nz, ri, ci, v, &Ag)) &&
      !CHECK_OK(GsVecCreate(cctx, n, GS_DOUBLE, &xc)) &&
      !CHECK_OK(GsVecCreate(gctx, n, GS_DOUBLE, &xg)) &&
      !CHECK_OK(GsVecCreate(cctx, m, GS_DOUBLE, &yc)) &&
      !CHECK_OK(GsVecCreate(gctx, m, GS_DOUBLE, &yg))) {
    /* Every device form against the CPU's CSR kernel, with beta = 0 (y NaN) and beta != 0. */
    static const GsMatSpMVType types[] = {GS_MAT_SPMV_AUTO,  GS_MAT_SPMV_CSR,  GS_MAT_SPMV_ELL,
                                          GS_MAT_SPMV_SELL,  GS_MAT_SPMV_SELL, GS_MAT_SPMV_MERGE,
                                          GS_MAT_SPMV_HYBRID};
    for (int f = 0; f < 7; f++) {
      const char *kname = "";
      CHECK_OK(GsMatSetSpMVType(Ag, types[f], 32, f == 4 ? 64 : 1));
      for (int pass = 0; pass < 2; pass++) {
        const double beta = pass ? -0.5 : 0;
        hs_fill_d(rng, n, hx, -1, 1);
        CHECK_OK(GsVecSetValuesHost(xc, hx));
        CHECK_OK(GsVecSetValuesHost(xg, hx));
        if (pass) {
          hs_fill_d(rng, m, y0, -1, 1);
          CHECK_OK(GsVecSetValuesHost(yc, y0));
          CHECK_OK(GsVecSetValuesHost(yg, y0));
        } else {
          CHECK_OK(GsVecSet(yg, NAN));
        }
        CHECK_OK(GsMatMult(Ac, 1.5, xc, beta, yc));
        CHECK_OK(GsMatMult(Ag, 1.5, xg, beta, yg));
        CHECK_OK(GsVecGetValuesHost(yc, a));
        CHECK_OK(GsVecGetValuesHost(yg, b));
        CHECK_OK(GsMatGetSpMVKernel(Ag, &kname));
        if (row_order(kname)) {
          CHECK(!memcmp(a, b, (size_t)m * sizeof *a), "SpMV %s, beta %g: GPU and CPU bits differ",
                kname, beta);
        } else {
          const double err = spmv_scaled_err(Ac, 1.5, hx, beta, y0, a, b);
          CHECK(err <= 1e-14, "SpMV %s, beta %g: GPU and CPU differ by %g", kname, beta, err);
        }
      }
    }
  }
  /* y = A x and x . y in one pass, on a square skewed matrix, for every form. */
  GsMatDestroy(&Ac);
  GsMatDestroy(&Ag);
  GsVecDestroy(&xc);
  GsVecDestroy(&xg);
  GsVecDestroy(&yc);
  GsVecDestroy(&yg);
  const uint64_t seed = hs_next(rng);
  if (!CHECK_OK(GsMatCreatePowerLaw(cctx, 30000, 8, 1.5, seed, &Ac)) &&
      !CHECK_OK(GsMatCreatePowerLaw(gctx, 30000, 8, 1.5, seed, &Ag)) &&
      !CHECK_OK(GsVecCreate(cctx, 30000, GS_DOUBLE, &xc)) &&
      !CHECK_OK(GsVecCreate(gctx, 30000, GS_DOUBLE, &xg)) &&
      !CHECK_OK(GsVecCreate(cctx, 30000, GS_DOUBLE, &yc)) &&
      !CHECK_OK(GsVecCreate(gctx, 30000, GS_DOUBLE, &yg))) {
    static const GsMatSpMVType types[] = {GS_MAT_SPMV_CSR, GS_MAT_SPMV_SELL, GS_MAT_SPMV_MERGE,
                                          GS_MAT_SPMV_HYBRID};
    double *hy = hs_malloc(30000 * sizeof *hy), *hg = hs_malloc(30000 * sizeof *hg),
           *hx2 = hs_malloc(30000 * sizeof *hx2);
    for (int f = 0; f < 4; f++) {
      double dc = 0, dg = 0;
      const char *kname = "";
      CHECK_OK(GsMatSetSpMVType(Ag, types[f], 32, 1));
      CHECK_OK(GsVecSetRandom(xc, seed + (uint64_t)f, -1, 1));
      CHECK_OK(GsVecSetRandom(xg, seed + (uint64_t)f, -1, 1));
      CHECK_OK(GsMatMultDot(Ac, xc, yc, &dc));
      CHECK_OK(GsMatMultDot(Ag, xg, yg, &dg));
      CHECK_OK(GsVecGetValuesHost(yc, hy));
      CHECK_OK(GsVecGetValuesHost(yg, hg));
      CHECK_OK(GsVecGetValuesHost(xc, hx2));
      CHECK_OK(GsMatGetSpMVKernel(Ag, &kname));
      if (row_order(kname)) {
        CHECK(!memcmp(hy, hg, 30000 * sizeof *hy) && !memcmp(&dg, &dc, sizeof dg),
              "MultDot %s: x . Ax %.17g on the GPU, %.17g on the CPU (y the same bits: %d)", kname,
              dg, dc, !memcmp(hy, hg, 30000 * sizeof *hy));
      } else {
        const double err = spmv_scaled_err(Ac, 1, hx2, 0, NULL, hy, hg);
        CHECK(err <= 1e-14, "MultDot %s: y differs by %g", kname, err);
        CHECK(fabs(dg - dc) <= 1e-13 * fabs(dc),
              "MultDot %s: x . Ax %.17g on the GPU, %.17g on the CPU", kname, dg, dc);
      }
    }
    free(hy);
    free(hg);
    free(hx2);
  }
  GsVecDestroy(&xc);
  GsVecDestroy(&xg);
  GsVecDestroy(&yc);
  GsVecDestroy(&yg);
  GsMatDestroy(&Ac);
  GsMatDestroy(&Ag);
  /* Krylov solves on Laplacians (27-point and 7-point, unpreconditioned). */
  for (int t = 0; t < 3; t++) {
    static const struct {
      GsKspType type;
      int points;
    } lap[3] = {{GS_KSP_CG, 27}, {GS_KSP_BICGSTAB, 7}, {GS_KSP_GMRES, 7}};
    GsMat L[2] = {NULL, NULL};
    if (!CHECK_OK(GsMatCreateLaplacian(cctx, 20, 18, 16, lap[t].points, &L[0])) &&
        !CHECK_OK(GsMatCreateLaplacian(gctx, 20, 18, 16, lap[t].points, &L[1]))) {
      char what[64];
      snprintf(what, sizeof what, "%d-point Laplacian 20 x 18 x 16", lap[t].points);
      krylov_same(what, L, lap[t].type, GS_PC_NONE, 1e-10);
    }
    GsMatDestroy(&L[0]);
    GsMatDestroy(&L[1]);
  }
  free(ri);
  free(ci);
  free(v);
  free(hx);
  free(a);
  free(y0);
  free(b);
}

int main(int argc, char **argv) {
  if (argc > 1 && argv[1][0] == '/') resource = argv[1];
  hs_begin("test_equiv", resource, argc, argv);
  int rc = hs_init_backend(resource, &gctx);
  if (rc == 77) return 77;
  if (rc) return hs_finish();
  if (CHECK_OK(GsInit("/cpu", &cctx))) {
    GsDestroy(&gctx);
    return hs_finish();
  }
  hs_watch(cctx);
  CHECK_OK(GsGetPreferredMemType(gctx, &gmem));
  GsDeviceInfo info;
  if (!CHECK_OK(GsGetDeviceInfo(gctx, &info))) printf("device: %s\n", info.name);

  HsRng rng = hs_rng(2);
  const GsInt sizes[] = {1, 33, 4097, (1 << 20) + 3};
  for (int t = 0; t < 2; t++) {
    GsDataType dt = t ? GS_FLOAT : GS_DOUBLE;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
      run_case(dt, sizes[k], 0, &rng);
    run_case(dt, 4097, 1, &rng);
    run_case(dt, (1 << 20) + 3, 1, &rng);
  }
  banded_cases(&rng);
  sparse_cases(&rng);
  krylov_collection();
  hs_unwatch(cctx);
  hs_unwatch(gctx);
  CHECK_OK(GsDestroy(&cctx));
  CHECK_OK(GsDestroy(&gctx));
  return hs_finish();
}
