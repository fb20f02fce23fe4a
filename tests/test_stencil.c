/* Periodic 2D stencils with pointwise powers (GsStencil), on the back end argv[1]:
 * - random stencils (1 to 3 inputs, up to two combinations of them, powers 1 to 3, radii 0 to 2,
 *   centre-only terms, terms repeated so they sum, full and tensor-product weights) on random
 *   grids (odd sizes, tiles cut at the edges, batches) against a long-double evaluation written
 *   here from the terms as given, double and float, with the error bounded by a few units of
 *   rounding times the sum of |weight x input^power|;
 * - a multistep right-hand side's shape (terms on 2 x0 - x1, centre terms on x0 and x1), the
 *   centre terms folded into the staging on a GPU or read apart where they cannot be;
 * - on a GPU back end, the same stencils on a CPU context: equal within that bound, the output
 *   poisoned with NaN first (every point written);
 * - the shapes a GPU compiles apart (Cahn-Hilliard and hyperdiffusion right-hand sides): the same
 *   bits as its general kernel, and the kernel that ran named;
 * - properties: the 5-point Laplacian of a Fourier mode is the mode times its symbol, and a
 *   zero-sum stencil keeps the total (mass) to rounding; no terms give zeros;
 * - GsStencilGetTerm returns the summed weights; a batch longer than a launch's grid dimension;
 * - the conservative form (GsStencilSetTermSum) keeps a zero-sum stencil's total at rounding;
 * - bad arguments are named errors. */
#include "harness.h"

static const char *resource = "/cpu";
typedef long double LD;

#define R GS_STENCIL_MAX_RADIUS
#define SIDE (2 * R + 1)

/* A term as the test gave it: centred weights [dy + R][dx + R]. */
typedef struct {
  int input, power;
  double k[SIDE * SIDE];
} Term;

#define NSRC (GS_STENCIL_MAX_INPUTS + GS_STENCIL_MAX_COMBINATIONS)
typedef struct {
  GsInt nx, ny, batch;
  int inputs, nterms, ncomb;
  Term t[16];
  /* Combinations: input inputs + c is sum_j coef[c][j] x_j^power. */
  double coef[GS_STENCIL_MAX_COMBINATIONS][GS_STENCIL_MAX_INPUTS];
  /* Conservative (input, power) pairs and their declared sums (GsStencilSetTermSum). */
  int cons[NSRC][4];
  double sum[NSRC][4];
} Spec;

static LD ipow(LD u, int p) {
  return p == 1 ? u : p == 2 ? u * u : u * u * u;
}

static GsInt wrapm(GsInt i, GsInt m) {
  return ((i % m) + m) % m;
}

/* Input `in` (or a combination) to the power p at flat index i, and the sum of the magnitudes of
 * its parts into *m. */
static LD source(const Spec *s, double *const *x, int in, int p, GsInt i, LD *m) {
  if (in < s->inputs) {
    const LD u = ipow(x[in][i], p);
    *m = fabsl(u);
    return u;
  }
  LD u = 0;
  *m = 0;
  for (int j = 0; j < s->inputs; j++) {
    const LD v = (LD)s->coef[in - s->inputs][j] * ipow(x[j][i], p);
    u += v;
    *m += fabsl(v);
  }
  return u;
}

/* Reference y and the magnitude bound mag (sum of |w u^p|, conservative pairs: |sum u_p^p| +
 * sum |w| (|u_{p+k}^p| + |u_p^p|); for a combination u, the sum of its parts' magnitudes) at
 * every point. Weights of terms with the same (input, power) are merged first (the library sums
 * them, then applies a conservative pair's declared sum in place of its centre weight). */
static void reference(const Spec *s, double *const *x, LD *y, LD *mag) {
  const GsInt nx = s->nx, ny = s->ny;
  LD k[NSRC][4][SIDE * SIDE];
  memset(k, 0, sizeof k);
  for (int t = 0; t < s->nterms; t++)
    for (int q = 0; q < SIDE * SIDE; q++)
      k[s->t[t].input][s->t[t].power][q] += s->t[t].k[q];
  for (GsInt b = 0; b < s->batch; b++)
    for (GsInt j = 0; j < ny; j++)
      for (GsInt i = 0; i < nx; i++) {
        LD sum = 0, m = 0;
        for (int in = 0; in < s->inputs + s->ncomb; in++)
          for (int p = 1; p <= 3; p++) {
            const GsInt o = b * nx * ny;
            LD mc = 0, mu = 0;
            const LD c = source(s, x, in, p, o + j * nx + i, &mc);
            const int cons = s->cons[in][p];
            if (cons) {
              sum += (LD)s->sum[in][p] * c;
              m += fabsl((LD)s->sum[in][p]) * mc;
            }
            for (int dy = -R; dy <= R; dy++)
              for (int dx = -R; dx <= R; dx++) {
                const LD w = k[in][p][(dy + R) * SIDE + dx + R];
                if (w == 0 || (cons && dx == 0 && dy == 0)) continue;
                const LD u =
                    source(s, x, in, p, o + wrapm(j + dy, ny) * nx + wrapm(i + dx, nx), &mu);
                sum += w * (cons ? u - c : u);
                m += fabsl(w) * (mu + (cons ? mc : 0));
              }
          }
        y[b * nx * ny + j * nx + i] = sum;
        mag[b * nx * ny + j * nx + i] = m;
      }
}

/* Build the stencil of spec s on ctx (terms alternately as full and as tensor weights). */
static int build(GsContext ctx, const Spec *s, GsDataType dt, HsRng *r, GsStencil *st) {
  GsStencilDesc d = {.nx = s->nx, .ny = s->ny, .batch = s->batch, .inputs = s->inputs, .dt = dt};
  if (CHECK_OK(GsStencilCreate(ctx, &d, st))) return 1;
  for (int c = 0; c < s->ncomb; c++)
    if (CHECK_OK(GsStencilSetCombination(*st, s->inputs + c, s->coef[c]))) return 1;
  for (int t = 0; t < s->nterms; t++) {
    const Term *tm = &s->t[t];
    /* The radii that hold the term's weights. */
    int rx = 0, ry = 0;
    for (int dy = -R; dy <= R; dy++)
      for (int dx = -R; dx <= R; dx++)
        if (tm->k[(dy + R) * SIDE + dx + R] != 0) {
          rx = abs(dx) > rx ? abs(dx) : rx;
          ry = abs(dy) > ry ? abs(dy) : ry;
        }
    double w[SIDE * SIDE];
    for (int dy = -ry; dy <= ry; dy++)
      for (int dx = -rx; dx <= rx; dx++)
        w[(dy + ry) * (2 * rx + 1) + dx + rx] = tm->k[(dy + R) * SIDE + dx + R];
    /* A scale that is a power of two keeps the given weights exact. */
    const double sc = hs_int(r, 0, 1) ? 2.0 : 1.0;
    for (int q = 0; q < (2 * rx + 1) * (2 * ry + 1); q++)
      w[q] /= sc;
    if (CHECK_OK(GsStencilAddTerm(*st, tm->input, tm->power, rx, ry, w, sc))) return 1;
  }
  for (int in = 0; in < s->inputs + s->ncomb; in++)
    for (int p = 1; p <= 3; p++)
      if (s->cons[in][p] && CHECK_OK(GsStencilSetTermSum(*st, in, p, s->sum[in][p]))) return 1;
  return 0;
}

/* A random spec: weights either full (random everywhere inside random radii) or a tensor product
 * (then stored full in the spec). */
static void random_spec(HsRng *r, Spec *s, int big) {
  static const GsInt sizes[] = {1, 2, 3, 5, 7, 31, 32, 33, 65, 100};
  memset(s, 0, sizeof *s);
  s->nx = big ? hs_int(r, 200, 300) : sizes[hs_int(r, 0, 9)];
  s->ny = big ? hs_int(r, 60, 130) : sizes[hs_int(r, 0, 9)];
  s->batch = hs_int(r, 1, 3);
  s->inputs = (int)hs_int(r, 1, 3);
  s->nterms = (int)hs_int(r, 1, 6);
  /* Half of the stencils combine their inputs, each coefficient 0 one time in four. */
  s->ncomb = hs_int(r, 0, 1) ? (int)hs_int(r, 1, GS_STENCIL_MAX_COMBINATIONS) : 0;
  for (int c = 0; c < s->ncomb; c++)
    for (int j = 0; j < s->inputs; j++)
      s->coef[c][j] = hs_int(r, 0, 3) ? hs_range(r, -2, 2) : 0.0;
  for (int t = 0; t < s->nterms; t++) {
    Term *tm = &s->t[t];
    tm->input = (int)hs_int(r, 0, s->inputs + s->ncomb - 1);
    tm->power = (int)hs_int(r, 1, 3);
    /* One term in four of the centre weight only. */
    const int centre = hs_int(r, 0, 3) == 0;
    int rx = centre ? 0 : (int)hs_int(r, 0, R), ry = centre ? 0 : (int)hs_int(r, 0, R);
    while (2 * rx + 1 > s->nx)
      rx--;
    while (2 * ry + 1 > s->ny)
      ry--;
    double kx[SIDE], ky[SIDE];
    for (int q = 0; q < SIDE; q++) {
      kx[q] = hs_range(r, -2, 2);
      ky[q] = hs_range(r, -2, 2);
    }
    const int tensor = (int)hs_int(r, 0, 1);
    for (int dy = -ry; dy <= ry; dy++)
      for (int dx = -rx; dx <= rx; dx++)
        tm->k[(dy + R) * SIDE + dx + R] = tensor ? kx[dx + rx] * ky[dy + ry] : hs_range(r, -2, 2);
  }
  /* A third of the pairs in use conservative, with a random declared sum (the centre weight is
   * then implied by it). */
  for (int t = 0; t < s->nterms; t++) {
    const int in = s->t[t].input, p = s->t[t].power;
    if (hs_int(r, 0, 2) == 0) {
      s->cons[in][p] = 1;
      s->sum[in][p] = hs_range(r, -1, 1);
    }
  }
}

/* Apply spec s (type dt) on ctx to inputs xv (host doubles, exactly representable in dt); the
 * result as doubles into y, and the kernel that ran into *kernel (when not NULL). */
static int apply_on(GsContext ctx, const Spec *s, GsDataType dt, double *const *xv, HsRng *r,
                    double *y, const char **kernel) {
  const GsInt n = s->nx * s->ny * s->batch;
  const size_t es = GsDataTypeSize(dt);
  GsStencil st = NULL;
  GsVec x[GS_STENCIL_MAX_INPUTS] = {NULL}, yv = NULL;
  void *buf = malloc((size_t)n * es);
  int bad = build(ctx, s, dt, r, &st) || !buf;
  for (int k = 0; k < s->inputs && !bad; k++) {
    bad |= CHECK_OK(GsVecCreate(ctx, n, dt, &x[k])) != 0;
    for (GsInt i = 0; i < n && !bad; i++)
      if (dt == GS_DOUBLE)
        ((double *)buf)[i] = xv[k][i];
      else
        ((float *)buf)[i] = (float)xv[k][i];
    if (!bad) bad |= CHECK_OK(GsVecSetValuesHost(x[k], buf)) != 0;
  }
  if (!bad) bad |= CHECK_OK(GsVecCreate(ctx, n, dt, &yv)) != 0;
  if (!bad) bad |= CHECK_OK(GsVecSet(yv, NAN)) != 0; /* poison: every point must be written */
  if (!bad) bad |= CHECK_OK(GsStencilApply(st, x, yv)) != 0;
  if (!bad && kernel) bad |= CHECK_OK(GsStencilGetKernel(st, kernel)) != 0;
  if (!bad) bad |= CHECK_OK(GsVecGetValuesHost(yv, buf)) != 0;
  for (GsInt i = 0; i < n && !bad; i++)
    y[i] = dt == GS_DOUBLE ? ((double *)buf)[i] : (double)((float *)buf)[i];
  for (int k = 0; k < GS_STENCIL_MAX_INPUTS; k++)
    GsVecDestroy(&x[k]);
  GsVecDestroy(&yv);
  GsStencilDestroy(&st);
  free(buf);
  return bad;
}

/* Spec s (type dt) on random inputs against the reference, and against the CPU back end when cpu
 * is set (ctx a GPU one); label names the case in failures. */
static void check_spec(GsContext ctx, GsContext cpu, const Spec *sp, GsDataType dt, HsRng *r,
                       const char *label) {
  const Spec s = *sp;
  const GsInt n = s.nx * s.ny * s.batch;
  double *x[GS_STENCIL_MAX_INPUTS] = {NULL};
  double *y = malloc((size_t)n * sizeof *y), *yc = malloc((size_t)n * sizeof *yc);
  LD *ref = malloc((size_t)n * sizeof *ref), *mag = malloc((size_t)n * sizeof *mag);
  for (int k = 0; k < s.inputs; k++) {
    x[k] = malloc((size_t)n * sizeof *x[k]);
    for (GsInt i = 0; i < n; i++)
      x[k][i] = dt == GS_DOUBLE ? hs_range(r, -1.5, 1.5) : (double)(float)hs_range(r, -1.5, 1.5);
  }
  reference(&s, x, ref, mag);
  HsRng r2 = *r, r3 = *r; /* the same scales on both contexts */
  const double eps = hs_type_eps(dt);
  /* Each product rounds once (w rounded to the type, u^p twice) and each sum once: a handful
   * of units times the sum of magnitudes (in float, the rounded weights dominate). */
  const double k = 8.0;
  if (!apply_on(ctx, &s, dt, x, &r2, y, NULL)) {
    double worst = 0;
    GsInt at = 0;
    for (GsInt i = 0; i < n; i++) {
      const double e = (double)(fabsl((LD)y[i] - ref[i]) / ((LD)k * eps * (mag[i] + 1e-300L)));
      if (!(e <= worst)) worst = e, at = i;
    }
    CHECK(worst <= 1,
          "%s (%s, %lld x %lld x %lld, %d terms, %d combinations): point %lld is %.17g, "
          "reference %.17Lg (%.2f of the bound)",
          label, dt == GS_DOUBLE ? "double" : "float", (long long)s.nx, (long long)s.ny,
          (long long)s.batch, s.nterms, s.ncomb, (long long)at, y[at], ref[at], worst);
  }
  if (cpu && !apply_on(cpu, &s, dt, x, &r3, yc, NULL)) {
    double worst = 0;
    for (GsInt i = 0; i < n; i++) {
      const double e = fabs(y[i] - yc[i]) / (2 * k * eps * (double)mag[i] + 1e-300);
      if (!(e <= worst)) worst = e;
    }
    CHECK(worst <= 1, "%s: device and CPU differ by %.2f of the bound", label, worst);
  }
  *r = r2;
  for (int q = 0; q < s.inputs; q++)
    free(x[q]);
  free(y);
  free(yc);
  free(ref);
  free(mag);
}

/* Random stencils against the reference, and against the CPU back end when ctx is a GPU one. */
static void test_random(GsContext ctx, GsContext cpu, uint64_t seed) {
  HsRng r = hs_rng(seed);
  for (int trial = 0; trial < 40; trial++) {
    const GsDataType dt = trial % 2 ? GS_FLOAT : GS_DOUBLE;
    Spec s;
    random_spec(&r, &s, trial % 10 == 9);
    char label[32];
    snprintf(label, sizeof label, "trial %d", trial);
    check_spec(ctx, cpu, &s, dt, &r, label);
  }
}

/* A multistep right-hand side's shape: weights on the combination 2 x0 - x1 at powers 1 (a 5 x 5
 * stencil, conservative with sum 0) and 3 (a 5-point cross), centre-only terms on x0 and x1 (which
 * a GPU tile adds while it stages the combination), on grids cut at the tiles' edges and a 1D
 * ensemble (ny rows of radius 0 along y); then centre-only terms it cannot add that way (on x2,
 * outside the combination, and on a combination). */
static void test_combination(GsContext ctx, GsContext cpu, HsRng *r) {
  static const GsInt sizes[][2] = {{70, 45}, {32, 32}, {33, 100}, {257, 9}};
  for (int c = 0; c < 10; c++) {
    Spec s;
    memset(&s, 0, sizeof s);
    const int oned = c >= 8;
    s.nx = oned ? 129 : sizes[c % 4][0];
    s.ny = oned ? 77 : sizes[c % 4][1];
    s.batch = 1 + c % 2;
    s.inputs = c % 4 == 3 || c == 6 ? 3 : 2;
    s.ncomb = 1;
    s.coef[0][0] = 2;
    s.coef[0][1] = -1;
    for (int dy = -R; dy <= R; dy++)
      for (int dx = -R; dx <= R; dx++)
        if (!oned || dy == 0) s.t[0].k[(dy + R) * SIDE + dx + R] = hs_range(r, -2, 2);
    s.t[0].input = 2 + (s.inputs == 3);
    s.t[0].power = 1;
    s.t[1].input = s.t[0].input;
    s.t[1].power = 3;
    const int ring[5][2] = {{0, 0}, {1, 0}, {-1, 0}, {0, 1}, {0, -1}};
    for (int q = 0; q < (oned ? 3 : 5); q++)
      s.t[1].k[(ring[q][1] + R) * SIDE + ring[q][0] + R] = q ? 1.0 : -4.0;
    s.cons[s.t[0].input][1] = 1; /* sum 0 */
    s.cons[s.t[0].input][3] = 1;
    s.t[2].input = 0;
    s.t[2].power = 1;
    s.t[2].k[R * SIDE + R] = -2.0 / 3.0;
    s.t[3].input = 1;
    s.t[3].power = c % 2 ? 2 : 1;
    s.t[3].k[R * SIDE + R] = 2.0 / 3.0;
    s.nterms = 4;
    if (c == 6) { /* not foldable: a centre-only term on x2, which the combination leaves out */
      s.t[4].input = 2;
      s.t[4].power = 1;
      s.t[4].k[R * SIDE + R] = 0.5;
      s.nterms = 5;
    }
    if (c == 7) { /* not foldable: a centre-only term on the combination itself */
      s.t[4].input = s.t[0].input;
      s.t[4].power = 2;
      s.t[4].k[R * SIDE + R] = 0.25;
      s.nterms = 5;
    }
    if (s.inputs == 3) s.coef[0][2] = c == 6 ? 0.0 : 0.5;
    char label[40];
    snprintf(label, sizeof label, "combination case %d", c);
    check_spec(ctx, cpu, &s, c % 3 == 2 ? GS_FLOAT : GS_DOUBLE, r, label);
  }
}

/* The shapes a GPU back end compiles apart: the Cahn-Hilliard SBDF2 right-hand side (terms on 2 x0
 * - x1 at power 1 with the 12 weights of the crosses of radius 2 and the 3 x 3 block, and at power
 * 3 with the 5-point cross, both conservative, centre-only terms on x0 and x1), its SBDF1 one (the
 * same on one input, the power-1 term with a nonzero sum) and the 2D hyperdiffusion one (power 1
 * alone), double and float, on grids of full tiles, cut tiles, the smallest that radius 2 allows
 * and batches: against the reference and the CPU (check_spec), and on a GPU the same bits as its
 * general kernel (-stencil_shapes 0), with the kernels named (GsStencilGetKernel). A power-1 term
 * with one of the 12 weights zero is not the shape: the general kernel runs. */
static void test_shapes(GsContext ctx, GsContext cpu, HsRng *r) {
  static const GsInt sizes[][3] = {{64, 64, 1}, {70, 45, 1}, {33, 100, 2},
                                   {5, 5, 1},   {32, 16, 3}, {128, 96, 1}};
  const int gpu = cpu != NULL;
  /* 64-bit indices forced (the test_stencil_wide run): the shapes are compiled for 32-bit ones,
   * so the general kernel's wide form runs throughout. */
  int wide = 0;
  CHECK_OK(GsOptionsGetBool(ctx, "-stencil_wide_index", &wide, NULL));
  const char *general = wide ? "tile-wide" : "tile";
  for (int c = 0; c < 24; c++) {
    const int kind = c % 3, holed = c >= 18; /* 0 SBDF2, 1 SBDF1, 2 hyperdiffusion */
    const GsDataType dt = (c / 3) % 2 ? GS_FLOAT : GS_DOUBLE;
    Spec s;
    memset(&s, 0, sizeof s);
    s.nx = sizes[c % 6][0];
    s.ny = sizes[c % 6][1];
    s.batch = sizes[c % 6][2];
    s.inputs = kind == 0 ? 2 : 1;
    const int src = kind == 0 ? 2 : 0;
    if (kind == 0) {
      s.ncomb = 1;
      s.coef[0][0] = 2;
      s.coef[0][1] = -1;
    }
    Term *t1 = &s.t[s.nterms++];
    t1->input = src;
    t1->power = 1;
    for (int dy = -R; dy <= R; dy++)
      for (int dx = -R; dx <= R; dx++)
        if (dx == 0 || dy == 0 || (abs(dx) <= 1 && abs(dy) <= 1))
          t1->k[(dy + R) * SIDE + dx + R] = (hs_int(r, 0, 1) ? 1 : -1) * hs_range(r, 0.25, 2);
    if (holed) t1->k[(1 + R) * SIDE + 1 + R] = 0; /* 11 of the 12 */
    s.cons[src][1] = 1;
    s.sum[src][1] = kind == 1 ? hs_range(r, -1, 1) : 0.0;
    if (kind != 2) {
      Term *t3 = &s.t[s.nterms++];
      t3->input = src;
      t3->power = 3;
      const int ring[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
      for (int q = 0; q < 4; q++)
        t3->k[(ring[q][1] + R) * SIDE + ring[q][0] + R] = hs_range(r, 0.5, 1.5);
      s.cons[src][3] = 1;
    }
    if (kind == 0) { /* the states' centre terms, folded into the staging */
      for (int j = 0; j < 2; j++) {
        Term *tc = &s.t[s.nterms++];
        tc->input = j;
        tc->power = 1;
        tc->k[R * SIDE + R] = j ? 2.0 / 3.0 : -2.0 / 3.0;
      }
    }
    char label[48];
    snprintf(label, sizeof label, "shape case %d", c);
    check_spec(ctx, cpu, &s, dt, r, label);
    /* The kernel that ran, and on a GPU the general kernel's bits. */
    const GsInt n = s.nx * s.ny * s.batch;
    double *x[GS_STENCIL_MAX_INPUTS] = {NULL};
    double *y1 = malloc((size_t)n * sizeof *y1), *y0 = malloc((size_t)n * sizeof *y0);
    for (int k = 0; k < s.inputs; k++) {
      x[k] = malloc((size_t)n * sizeof *x[k]);
      for (GsInt i = 0; i < n; i++)
        x[k][i] = dt == GS_DOUBLE ? hs_range(r, -1.5, 1.5) : (double)(float)hs_range(r, -1.5, 1.5);
    }
    HsRng ra = *r, rb = *r;
    const char *k1 = NULL, *k0 = NULL;
    const int ok1 = !apply_on(ctx, &s, dt, x, &ra, y1, &k1);
    const char *want = !gpu            ? "rows"
                       : holed || wide ? general
                       : kind == 2     ? "shape-12"
                                       : "shape-12+4";
    CHECK(ok1 && k1 && strcmp(k1, want) == 0, "%s (%s, %lld x %lld): kernel %s, expected %s", label,
          dt == GS_DOUBLE ? "double" : "float", (long long)s.nx, (long long)s.ny,
          k1 ? k1 : "(none)", want);
    if (gpu && !CHECK_OK(GsOptionsSetValue(ctx, "-stencil_shapes", "0"))) {
      const int ok0 = !apply_on(ctx, &s, dt, x, &rb, y0, &k0);
      CHECK(ok0 && k0 && strcmp(k0, general) == 0,
            "%s with -stencil_shapes 0: kernel %s, expected %s", label, k0 ? k0 : "(none)",
            general);
      GsInt at = -1;
      for (GsInt i = 0; i < n && ok0 && ok1 && at < 0; i++)
        if (memcmp(&y1[i], &y0[i], sizeof y1[i]) != 0) at = i;
      CHECK(at < 0, "%s (%s): point %lld is %.17g, the general kernel's %.17g", label,
            dt == GS_DOUBLE ? "double" : "float", (long long)at, at >= 0 ? y1[at] : 0.0,
            at >= 0 ? y0[at] : 0.0);
      CHECK_OK(GsOptionsSetValue(ctx, "-stencil_shapes", "1"));
    }
    *r = ra;
    for (int k = 0; k < s.inputs; k++)
      free(x[k]);
    free(y1);
    free(y0);
  }
}

/* The 5-point Laplacian (1, -2, 1) / h^2 along each axis of cos(2 pi (kx i / nx + ky j / ny)) is
 * the mode times -(4 / h^2)(sin^2(pi kx / nx) + sin^2(pi ky / ny)); its total is zero. The cube of
 * a mode through power 3 equals the cube of the values. */
static void test_properties(GsContext ctx) {
  const GsInt nx = 48, ny = 40;
  const double h = 0.1, l[3] = {1 / (h * h), -2 / (h * h), 1 / (h * h)}, pi = acos(-1.0);
  const int kx = 3, ky = 2;
  GsStencilDesc d = {.nx = nx, .ny = ny, .batch = 1, .inputs = 1, .dt = GS_DOUBLE};
  GsStencil st = NULL, cube = NULL;
  GsVec x = NULL, y = NULL;
  if (CHECK_OK(GsStencilCreate(ctx, &d, &st)) || CHECK_OK(GsStencilCreate(ctx, &d, &cube)))
    goto out;
  CHECK_OK(GsStencilAddTensorTerm(st, 0, 1, 1, l, 0, NULL, 1.0));
  CHECK_OK(GsStencilAddTensorTerm(st, 0, 1, 1, l, 0, NULL, 0.0)); /* adds nothing */
  const double one = 1.0;
  CHECK_OK(GsStencilAddTensorTerm(st, 0, 1, 0, &one, 1, l, 1.0));
  CHECK_OK(GsStencilAddTerm(cube, 0, 3, 0, 0, &one, 1.0));
  CHECK_OK(GsVecCreate(ctx, nx * ny, GS_DOUBLE, &x));
  CHECK_OK(GsVecCreate(ctx, nx * ny, GS_DOUBLE, &y));
  double *hx = malloc((size_t)(nx * ny) * sizeof *hx), *hy = malloc((size_t)(nx * ny) * sizeof *hy);
  for (GsInt j = 0; j < ny; j++)
    for (GsInt i = 0; i < nx; i++)
      hx[j * nx + i] = cos(2 * pi * ((double)(kx * i) / nx + (double)(ky * j) / ny));
  CHECK_OK(GsVecSetValuesHost(x, hx));
  CHECK_OK(GsStencilApply(st, (GsVec[]){x}, y));
  CHECK_OK(GsVecGetValuesHost(y, hy));
  const double sym = -4 / (h * h) * (pow(sin(pi * kx / nx), 2) + pow(sin(pi * ky / ny), 2));
  double worst = 0, total = 0;
  for (GsInt i = 0; i < nx * ny; i++) {
    worst = fmax(worst, fabs(hy[i] - sym * hx[i]));
    total += hy[i];
  }
  CHECK(worst <= 64 * DBL_EPSILON * 8 / (h * h), "Laplacian of a mode: off by %g", worst);
  CHECK(fabs(total) <= 1e-10, "Laplacian of a mode sums to %g, not 0", total);
  CHECK_OK(GsStencilApply(cube, (GsVec[]){x}, y));
  CHECK_OK(GsVecGetValuesHost(y, hy));
  worst = 0;
  for (GsInt i = 0; i < nx * ny; i++)
    worst = fmax(worst, fabs(hy[i] - hx[i] * hx[i] * hx[i]));
  CHECK(worst <= 2 * DBL_EPSILON, "power 3: off by %g", worst);
  /* GetTerm: the two Laplacian halves summed into one 3 x 3 cross. */
  int rx = 0, ry = 0;
  double w[SIDE * SIDE];
  CHECK_OK(GsStencilGetTerm(st, 0, 1, &rx, &ry, w));
  CHECK(rx == 1 && ry == 1 && w[4] == 2 * l[1] && w[1] == l[0] && w[3] == l[0] && w[0] == 0,
        "GetTerm: radii %d %d, centre %g", rx, ry, w[4]);
  CHECK_OK(GsStencilGetTerm(st, 0, 2, &rx, &ry, w));
  CHECK(rx == -1 && ry == -1, "GetTerm of a missing term: radii %d %d", rx, ry);
  /* No terms: zeros. */
  GsStencilDestroy(&st);
  CHECK_OK(GsStencilCreate(ctx, &d, &st));
  CHECK_OK(GsVecSet(y, 7.0));
  CHECK_OK(GsStencilApply(st, (GsVec[]){x}, y));
  double nrm = 1;
  CHECK_OK(GsVecNorm(y, GS_NORM_INF, &nrm));
  CHECK(nrm == 0, "a stencil without terms gives %g, not 0", nrm);
  free(hx);
  free(hy);
out:
  GsVecDestroy(&x);
  GsVecDestroy(&y);
  GsStencilDestroy(&st);
  GsStencilDestroy(&cube);
}

/* Conservative form: a zero-sum 5 x 5 stencil of large weights (a splitting term's shape,
 * m (x) m with m = a (1, -4, 6, -4, 1), a = 700) on a field of large mean. Stored in plain form its
 * rounded weights no longer sum to zero and the total of y is off by (sum of weights) x (total of
 * x); declared conservative (sum 0), the total of y is rounding that does not scale with the mean.
 * Plain and conservative agree pointwise within the weights' rounding. */
static void test_conservative(GsContext ctx) {
  const GsInt nx = 64, ny = 48, n = nx * ny;
  const double a = 700, m[5] = {a, -4 * a, 6 * a, -4 * a, a};
  GsStencilDesc d = {.nx = nx, .ny = ny, .batch = 1, .inputs = 1, .dt = GS_DOUBLE};
  GsStencil plain = NULL, cons = NULL;
  GsVec x = NULL, yp = NULL, yc = NULL;
  double *hx = malloc((size_t)n * sizeof *hx), *hp = malloc((size_t)n * sizeof *hp),
         *hc = malloc((size_t)n * sizeof *hc);
  HsRng r = hs_rng(77);
  for (GsInt k = 0; k < n; k++)
    hx[k] = 1000 + hs_range(&r, -1, 1);
  if (CHECK_OK(GsStencilCreate(ctx, &d, &plain)) || CHECK_OK(GsStencilCreate(ctx, &d, &cons)))
    goto out;
  /* A third of the stencil in one term, two thirds in another: the merged weights are rounded. */
  CHECK_OK(GsStencilAddTensorTerm(plain, 0, 1, 2, m, 2, m, 1.0 / 3.0));
  CHECK_OK(GsStencilAddTensorTerm(plain, 0, 1, 2, m, 2, m, 2.0 / 3.0));
  CHECK_OK(GsStencilAddTensorTerm(cons, 0, 1, 2, m, 2, m, 1.0 / 3.0));
  CHECK_OK(GsStencilAddTensorTerm(cons, 0, 1, 2, m, 2, m, 2.0 / 3.0));
  CHECK_OK(GsStencilSetTermSum(cons, 0, 1, 0.0));
  CHECK_OK(GsVecCreate(ctx, n, GS_DOUBLE, &x));
  CHECK_OK(GsVecCreate(ctx, n, GS_DOUBLE, &yp));
  CHECK_OK(GsVecCreate(ctx, n, GS_DOUBLE, &yc));
  CHECK_OK(GsVecSetValuesHost(x, hx));
  CHECK_OK(GsStencilApply(plain, (GsVec[]){x}, yp));
  CHECK_OK(GsStencilApply(cons, (GsVec[]){x}, yc));
  CHECK_OK(GsVecGetValuesHost(yp, hp));
  CHECK_OK(GsVecGetValuesHost(yc, hc));
  int rx = 0, ry = 0;
  double w[25];
  LD wsum = 0, sp = 0, sc = 0;
  CHECK_OK(GsStencilGetTerm(plain, 0, 1, &rx, &ry, w));
  for (int q = 0; q < 25; q++)
    wsum += w[q];
  double worst = 0;
  for (GsInt k = 0; k < n; k++) {
    sp += hp[k];
    sc += hc[k];
    worst = fmax(worst, fabs(hp[k] - hc[k]));
  }
  /* |w| sums to 256 a^2 ~ 1.3e8: pointwise the forms differ by the rounding of ~1e11-sized sums. */
  const double wabs = 256 * a * a;
  CHECK(worst <= 64 * DBL_EPSILON * wabs * 1001, "plain and conservative differ by %g", worst);
  /* Conservative: each point's error is a few roundings of sums of |w| |x_{p+k} - x_p| <= 2 |w|
   * (the differences of neighbours near 1000 are exact), random in sign, so the total stays near
   * sqrt(n) of them. Plain: the total is (sum of the stored weights) (sum of x), here ~6e-3, which
   * this bound must exclude, or the check would not tell the forms apart. */
  const double bound = 4 * DBL_EPSILON * wabs * 2 * sqrt((double)n);
  CHECK(fabsl(sc) <= bound,
        "conservative: total %Lg (bound %g); plain: %Lg with weights summing to %Lg", sc, bound, sp,
        wsum);
  CHECK(fabsl(sp) > bound, "plain: total %Lg within the conservative bound %g: the test is blind",
        sp, bound);
  printf("conservative form: total of y %.3Lg, plain %.3Lg (its weights sum to %.3Lg)\n", sc, sp,
         wsum);
  /* Errors: a declaration names a term that fits; the sum must be finite. */
  CHECK_ERR(GsStencilSetTermSum(cons, 1 + GS_STENCIL_MAX_COMBINATIONS, 1, 0.0),
            GS_ERR_ARG_OUTOFRANGE);
  CHECK_ERR(GsStencilSetTermSum(cons, 1, 1, 0.0), GS_ERR_ARG_INCOMP); /* undefined combination */
  CHECK_ERR(GsStencilSetTermSum(cons, 0, 1, NAN), GS_ERR_NOT_FINITE);
  CHECK_ERR(GsStencilSetTermSum(NULL, 0, 1, 0.0), GS_ERR_ARG_NULL);
out:
  free(hx);
  free(hp);
  free(hc);
  GsVecDestroy(&x);
  GsVecDestroy(&yp);
  GsVecDestroy(&yc);
  GsStencilDestroy(&plain);
  GsStencilDestroy(&cons);
}

/* More grids than one launch dimension holds (65535): 70000 grids of 1 x 3, y = x(j-1) + 2 x^2. */
static void test_long_batch(GsContext ctx) {
  const GsInt batch = 70000, n = 3 * batch;
  GsStencilDesc d = {.nx = 1, .ny = 3, .batch = batch, .inputs = 1, .dt = GS_DOUBLE};
  GsStencil st = NULL;
  GsVec x = NULL, y = NULL;
  const double k[3] = {1, 0, 0}, two = 2;
  double *hx = malloc((size_t)n * sizeof *hx), *hy = malloc((size_t)n * sizeof *hy);
  if (CHECK_OK(GsStencilCreate(ctx, &d, &st))) goto out;
  CHECK_OK(GsStencilAddTerm(st, 0, 1, 0, 1, k, 1.0));
  CHECK_OK(GsStencilAddTerm(st, 0, 2, 0, 0, &two, 1.0));
  CHECK_OK(GsVecCreate(ctx, n, GS_DOUBLE, &x));
  CHECK_OK(GsVecCreate(ctx, n, GS_DOUBLE, &y));
  for (GsInt i = 0; i < n; i++)
    hx[i] = (double)(i % 1000);
  CHECK_OK(GsVecSetValuesHost(x, hx));
  CHECK_OK(GsVecSet(y, NAN));
  CHECK_OK(GsStencilApply(st, (GsVec[]){x}, y));
  CHECK_OK(GsVecGetValuesHost(y, hy));
  GsInt bad = 0, first = -1;
  for (GsInt b = 0; b < batch; b++)
    for (GsInt j = 0; j < 3; j++) {
      const GsInt i = 3 * b + j;
      const double want = hx[3 * b + (j + 2) % 3] + 2 * hx[i] * hx[i];
      if (hy[i] != want && bad++ == 0) first = i;
    }
  CHECK(bad == 0, "long batch: %lld wrong points, first %lld", (long long)bad, (long long)first);
out:
  free(hx);
  free(hy);
  GsVecDestroy(&x);
  GsVecDestroy(&y);
  GsStencilDestroy(&st);
}

static void test_errors(GsContext ctx) {
  GsStencil st = NULL;
  GsStencilDesc d = {.nx = 8, .ny = 4, .batch = 2, .inputs = 2, .dt = GS_DOUBLE};
  const double w[25] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  CHECK_ERR(GsStencilCreate(NULL, &d, &st), GS_ERR_ARG_NULL);
  CHECK_ERR(GsStencilCreate(ctx, NULL, &st), GS_ERR_ARG_NULL);
  GsStencilDesc b = d;
  b.nx = 0;
  CHECK_ERR(GsStencilCreate(ctx, &b, &st), GS_ERR_ARG_OUTOFRANGE);
  CHECK_MSG(ctx, "nx = 0");
  b = d;
  b.inputs = 5;
  CHECK_ERR(GsStencilCreate(ctx, &b, &st), GS_ERR_ARG_OUTOFRANGE);
  CHECK_MSG(ctx, "5 inputs");
  b = d;
  b.dt = (GsDataType)9;
  CHECK_ERR(GsStencilCreate(ctx, &b, &st), GS_ERR_ARG_TYPE);
  b = d;
  b.nx = (GsInt)1 << 40;
  b.ny = (GsInt)1 << 30;
  CHECK_ERR(GsStencilCreate(ctx, &b, &st), GS_ERR_ARG_OUTOFRANGE);
  CHECK_MSG(ctx, "overflows");
  /* A bad tuning option is named when a stencil reads it (the value in use is put back). */
  GsInt keep = 0;
  char kv[32];
  CHECK_OK(GsOptionsGetInt(ctx, "-stencil_tiles_per_block", &keep, NULL));
  CHECK_OK(GsOptionsSetValue(ctx, "-stencil_tiles_per_block", "-2"));
  CHECK_ERR(GsStencilCreate(ctx, &d, &st), GS_ERR_ARG_OUTOFRANGE);
  CHECK_MSG(ctx, "-stencil_tiles_per_block -2");
  CHECK(st == NULL, "a failed create left a stencil");
  snprintf(kv, sizeof kv, "%lld", (long long)keep);
  CHECK_OK(GsOptionsSetValue(ctx, "-stencil_tiles_per_block", kv));
  if (CHECK_OK(GsStencilCreate(ctx, &d, &st))) return;
  const char *kname = NULL;
  CHECK_OK(GsStencilGetKernel(st, &kname));
  CHECK(kname && strcmp(kname, "none") == 0, "kernel before any apply: %s", kname ? kname : "NULL");
  CHECK_ERR(GsStencilGetKernel(NULL, &kname), GS_ERR_ARG_NULL);
  CHECK_ERR(GsStencilGetKernel(st, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsStencilAddTerm(st, 4, 1, 1, 1, w, 1.0), GS_ERR_ARG_OUTOFRANGE);
  CHECK_MSG(ctx, "input 4: the stencil has inputs 0 to 1 and combinations 2 to 3");
  /* Combinations: defined before use, past the inputs, finite coefficients. */
  CHECK_ERR(GsStencilAddTerm(st, 2, 1, 1, 1, w, 1.0), GS_ERR_ARG_INCOMP);
  CHECK_MSG(ctx, "input 2, a combination that is not defined");
  const double cf[2] = {2, -1}, cnan[2] = {1, NAN};
  CHECK_ERR(GsStencilSetCombination(st, 1, cf), GS_ERR_ARG_OUTOFRANGE);
  CHECK_MSG(ctx, "combinations are inputs 2 to 3");
  CHECK_ERR(GsStencilSetCombination(st, 4, cf), GS_ERR_ARG_OUTOFRANGE);
  CHECK_ERR(GsStencilSetCombination(st, 2, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsStencilSetCombination(st, 2, cnan), GS_ERR_NOT_FINITE);
  CHECK_MSG(ctx, "coefficient 1 is nan");
  CHECK_ERR(GsStencilSetCombination(NULL, 2, cf), GS_ERR_ARG_NULL);
  CHECK_ERR(GsStencilAddTerm(st, 2, 1, 1, 1, w, 1.0), GS_ERR_ARG_INCOMP); /* still undefined */
  CHECK_ERR(GsStencilAddTerm(st, 0, 4, 1, 1, w, 1.0), GS_ERR_ARG_OUTOFRANGE);
  CHECK_MSG(ctx, "power 4");
  CHECK_ERR(GsStencilAddTerm(st, 0, 1, 3, 0, w, 1.0), GS_ERR_ARG_OUTOFRANGE);
  CHECK_MSG(ctx, "radii 3 (x)");
  CHECK_ERR(GsStencilAddTerm(st, 0, 1, 0, 2, w, 1.0), GS_ERR_ARG_OUTOFRANGE);
  CHECK_MSG(ctx, "does not fit a periodic grid of 8 x 4");
  CHECK_ERR(GsStencilAddTerm(st, 0, 1, 1, 1, NULL, 1.0), GS_ERR_ARG_NULL);
  CHECK_ERR(GsStencilAddTerm(st, 0, 1, 1, 1, w, NAN), GS_ERR_NOT_FINITE);
  CHECK_MSG(ctx, "offset (-1, -1)");
  CHECK_ERR(GsStencilAddTensorTerm(st, 0, 1, 1, w, 1, NULL, 1.0), GS_ERR_ARG_INCOMP);
  CHECK_ERR(GsStencilAddTerm(NULL, 0, 1, 1, 1, w, 1.0), GS_ERR_ARG_NULL);
  /* Nine (input, power) pairs are one too many (2 inputs x 3 powers = 6 fit; a third input
   * stencil is needed to pass eight). */
  GsStencilDesc d4 = d;
  d4.inputs = 4;
  GsStencil s4 = NULL;
  if (!CHECK_OK(GsStencilCreate(ctx, &d4, &s4))) {
    int rc = 0;
    for (int k = 0; k < 9 && !rc; k++)
      rc = GsStencilAddTerm(s4, k / 3, k % 3 + 1, 0, 0, w, 1.0);
    CHECK(rc == GS_ERR_ARG_OUTOFRANGE, "a ninth term returned %d", rc);
    CHECK_MSG(ctx, "at most 8");
    GsStencilDestroy(&s4);
  }
  /* Apply: lengths, types, aliasing. */
  GsVec x0 = NULL, x1 = NULL, shortv = NULL, fv = NULL;
  CHECK_OK(GsVecCreate(ctx, 64, GS_DOUBLE, &x0));
  CHECK_OK(GsVecCreate(ctx, 64, GS_DOUBLE, &x1));
  CHECK_OK(GsVecCreate(ctx, 63, GS_DOUBLE, &shortv));
  CHECK_OK(GsVecCreate(ctx, 64, GS_FLOAT, &fv));
  CHECK_OK(GsStencilAddTerm(st, 1, 1, 1, 1, w, 1.0));
  CHECK_ERR(GsStencilApply(st, NULL, x1), GS_ERR_ARG_NULL);
  CHECK_ERR(GsStencilApply(st, (GsVec[]){x0, shortv}, x1), GS_ERR_ARG_SIZE);
  CHECK_MSG(ctx, "x[1] has 63 entries");
  CHECK_ERR(GsStencilApply(st, (GsVec[]){x0, x0}, shortv), GS_ERR_ARG_SIZE);
  CHECK_ERR(GsStencilApply(st, (GsVec[]){fv, x0}, x1), GS_ERR_ARG_TYPE);
  CHECK_ERR(GsStencilApply(st, (GsVec[]){x0, x1}, x1), GS_ERR_ARG_INCOMP);
  CHECK_MSG(ctx, "also input x[1]");
  CHECK_ERR(GsStencilApply(st, (GsVec[]){x0, NULL}, x1), GS_ERR_ARG_NULL);
  CHECK_OK(GsStencilApply(st, (GsVec[]){x0, x0}, x1)); /* an input may repeat */
  GsVecDestroy(&x0);
  GsVecDestroy(&x1);
  GsVecDestroy(&shortv);
  GsVecDestroy(&fv);
  GsStencilDestroy(&st);
  CHECK(st == NULL && GsStencilDestroy(&st) == 0 && GsStencilDestroy(NULL) == 0, "destroy twice");
}

int main(int argc, char **argv) {
  if (argc > 1 && argv[1][0] == '/') resource = argv[1];
  hs_begin("test_stencil", resource, argc, argv);
  GsContext ctx = NULL, cpu = NULL;
  int rc = hs_init_backend(resource, &ctx);
  if (rc == 77) return 77;
  if (rc) return hs_finish();
  if (strcmp(resource, "/cpu") != 0 && !CHECK_OK(GsInit("/cpu", &cpu))) hs_watch(cpu);
  HsRng r = hs_rng(21);
  test_random(ctx, cpu, hs_next(&r));
  test_combination(ctx, cpu, &r);
  test_shapes(ctx, cpu, &r);
  test_properties(ctx);
  test_conservative(ctx);
  test_long_batch(ctx);
  test_errors(ctx);
  if (cpu) {
    hs_unwatch(cpu);
    CHECK_OK(GsDestroy(&cpu));
  }
  hs_unwatch(ctx);
  CHECK_OK(GsDestroy(&ctx));
  return hs_finish();
}
