/* Batched banded solvers (banded.h) on one back end (argv[1]): tridiagonal and pentadiagonal,
 * double and float.
 *
 * 1. Solves: random strictly diagonally dominant matrices and SPD hyperdiffusion matrices, in every
 *    combination of layout (interleaved, contiguous with stride n and with stride > n), shared or
 *    per-system matrix, periodic or not, and mode (Factor then two Solves, FactorSolve, Solve in
 *    place, three blocks of right-hand sides), for n from the minimum to 1000 and batches of 1 to
 *    512. Every system's relative residual ||A x - f||_inf / ||f||_inf is computed on the host in
 *    long double from the diagonals, with the layout, the periodic wrap and the ignored entries.
 *    Ignored entries (outside a non-periodic matrix) and the gaps of contiguous layouts hold NaN,
 *    so reading them shows; the gaps of x hold a sentinel that Solve must leave alone.
 * 2. Small systems (n <= 12), periodic and not, against a dense Gaussian elimination with partial
 *    pivoting in long double, entrywise.
 * 3. GsBandedMult against the host product, entrywise.
 * 4. Bad systems: a zero pivot, a tiny pivot, a NaN in a matrix or in a right-hand side (also in a
 *    later block), a singular shared matrix: per-system status, error codes and messages, NaN
 *    solutions for bad matrices and good solutions for every other system.
 * 5. Argument errors, queries, object lifetime.
 * 6. The event log counts BandedFactor / BandedSolve / BandedMult calls.
 *
 * Tolerances. LU without pivoting of a diagonally dominant or SPD matrix is backward stable with
 * a backward error of a few eps per row that depends on the bandwidth, not on n (each row of the
 * factors has at most bands/2 + 1 entries, plus bands/2 columns of the periodic border), so
 *   ||A x - f||_inf / ||f||_inf <= c u, u = 2 bands eps kappa,  kappa = ||A||_inf ||A^-1||_inf,
 * which is tighter than c n eps kappa once n > 2 bands (the measured residuals are a few eps for
 * every n, up to ~0.15 u at n = bands). kappa is bounded per matrix: diagonally dominant rows give
 * ||A^-1||_inf <= 1 / min_i (|a_ii| - sum_j |a_ij|) (the tridiagonal hyperdiffusion rows -s, 1+2s,
 * -s too); the pentadiagonal hyperdiffusion matrix I + sigma T (T Toeplitz or circulant with the
 * symbol (2 - 2 cos t)^2 >= 0, so eigenvalues >= 1) is not diagonally dominant and is given
 * ||A^-1||_inf <= 2 (computed: <= 1.14 for sigma in [0.15, 15], n <= 200, periodic or not). The
 * same bound c u is used for the entrywise error against the dense solve (forward error <= kappa
 * times the backward error). */
#include <float.h>

#include "harness.h"

typedef long double LD;

static const char *resource = "/cpu";

/* Tolerance constant c in c u, u = 2 bands eps kappa. */
#define TOL_C 1.0
/* Value in the gaps of x / y (contiguous layouts with stride > n): must survive Solve and Mult. */
#define SENTINEL (-4242.5)

/* Worst residual seen, in units of u, per type (printed at the end). */
static double worst_ratio[2], worst_dense[2];

/* ---- Typed host buffers -------------------------------------------------------------------- */

static double to_type(GsDataType dt, double v) {
  return dt == GS_DOUBLE ? v : (double)(float)v;
}

static int same(double a, double b) {
  return (isnan(a) && isnan(b)) || a == b;
}

static int set_vec(GsVec v, GsDataType dt, GsInt n, const double *vals) {
  void *buf = hs_scratch((size_t)(n > 0 ? n : 1) * GsDataTypeSize(dt));
  if (dt == GS_DOUBLE)
    memcpy(buf, vals, (size_t)n * sizeof(double));
  else
    for (GsInt i = 0; i < n; i++)
      ((float *)buf)[i] = (float)vals[i];
  return CHECK_OK(GsVecSetValuesHost(v, buf));
}

static int get_vec(GsVec v, GsDataType dt, GsInt n, double *out) {
  void *buf = hs_scratch((size_t)(n > 0 ? n : 1) * GsDataTypeSize(dt));
  int rc = CHECK_OK(GsVecGetValuesHost(v, buf));
  for (GsInt i = 0; i < n; i++)
    out[i] = rc ? NAN : dt == GS_DOUBLE ? ((double *)buf)[i] : (double)((float *)buf)[i];
  return rc;
}

static GsVec new_vec(GsContext ctx, GsDataType dt, GsInt n, const double *vals) {
  GsVec v = NULL;
  if (CHECK_OK(GsVecCreate(ctx, n, dt, &v))) return NULL;
  if (vals) set_vec(v, dt, n, vals);
  return v;
}

static void destroy_vecs(int k, GsVec *v) {
  for (int i = 0; i < k; i++)
    CHECK_OK(GsVecDestroy(&v[i]));
}

/* The diagonals, f, x and the object of one solve, destroyed. */
static void release_solve(GsVec *Dv, GsVec *F, GsVec *X, GsBanded *A) {
  destroy_vecs(5, Dv);
  GsVecDestroy(F);
  GsVecDestroy(X);
  CHECK_OK(GsBandedDestroy(A));
}

/* ---- A batch on the host: sizes, layout, diagonals ----------------------------------------- */

typedef struct {
  GsBandedDesc d; /* as given to GsBandedCreate */
  int h;
  GsInt stride; /* effective distance between systems (contiguous) */
  GsInt rl, dl; /* entries of one block of right-hand sides; of one diagonal */
  GsInt nmat;
  double *D[5]; /* diagonals as the vectors hold them (values exact in d.dt) */
  double kappa; /* bound on ||A||_inf ||A^-1||_inf over the batch's matrices */
} Batch;

static void batch_init(Batch *b, const GsBandedDesc *d) {
  memset(b, 0, sizeof *b);
  b->d = *d;
  b->h = d->bands / 2;
  int contig = d->layout == GS_BANDED_CONTIGUOUS;
  b->stride = contig && d->stride ? d->stride : d->n;
  b->rl = contig ? b->stride * d->batch : d->n * d->batch;
  b->dl = d->shared ? d->n : b->rl;
  b->nmat = d->shared ? 1 : d->batch;
  for (int k = 0; k < d->bands; k++)
    b->D[k] = hs_malloc((size_t)b->dl * sizeof(double));
}

static void batch_free(Batch *b) {
  for (int k = 0; k < 5; k++) {
    free(b->D[k]);
    b->D[k] = NULL;
  }
}

/* Entry i of system s in a right-hand side block; in the matrix data. */
static GsInt ridx(const Batch *b, GsInt s, GsInt i) {
  return b->d.layout == GS_BANDED_INTERLEAVED ? i * b->d.batch + s : s * b->stride + i;
}
static GsInt midx(const Batch *b, GsInt s, GsInt i) {
  return b->d.shared ? i : ridx(b, s, i);
}
/* Whether position k of a right-hand-side vector is a gap (contiguous, stride > n). */
static int is_gap(const Batch *b, GsInt k) {
  if (b->d.layout == GS_BANDED_INTERLEAVED) return 0;
  return (k % b->rl) % b->stride >= b->d.n;
}
/* Whether offset o of row i is a matrix entry (periodic: always; columns wrap). */
static int in_matrix(const Batch *b, GsInt i, int o) {
  return b->d.periodic || (i + o >= 0 && i + o < b->d.n);
}
static GsInt col_of(const Batch *b, GsInt i, int o) {
  return ((i + o) % b->d.n + b->d.n) % b->d.n;
}

static const char *layout_name(const Batch *b) {
  if (b->d.layout == GS_BANDED_INTERLEAVED) return "interleaved";
  return b->stride > b->d.n ? "contiguous(stride>n)" : "contiguous(stride=n)";
}

enum { KIND_DD, KIND_SPD_SMALL, KIND_SPD_LARGE, NKIND };
static const char *const kind_name[] = {"diag-dominant", "hyperdiffusion(0.3)",
                                        "hyperdiffusion(10)"};

enum { MODE_TWICE, MODE_FACTORSOLVE, MODE_INPLACE, MODE_NRHS, NMODE };
static const char *const mode_name[] = {"Factor+Solve x2", "FactorSolve", "Solve in place",
                                        "3 rhs blocks"};

/* The nominal sigma of KIND_SPD_LARGE matrices (test_scan_wide raises it for periodic systems
 * whose E^-1 F reaches further in). */
static double large_sig = 10.0;

static void describe(const Batch *b, int kind, const char *mode, char *buf, size_t len) {
  char kn[64];
  if (kind == KIND_SPD_LARGE)
    snprintf(kn, sizeof kn, "hyperdiffusion(%g)", large_sig);
  else
    snprintf(kn, sizeof kn, "%s", kind >= 0 ? kind_name[kind] : "");
  snprintf(buf, len, "%s %s %s %s%s n=%lld batch=%lld %s [%s]", b->d.bands == 5 ? "penta" : "tri",
           b->d.dt == GS_DOUBLE ? "double" : "float", layout_name(b),
           b->d.shared ? "shared" : "per-system", b->d.periodic ? " periodic" : "",
           (long long)b->d.n, (long long)b->d.batch, kn, mode);
}

/* Hyperdiffusion row coefficient at offset o != 0. */
static double spd_coef(int bands, int o, double sig) {
  if (bands == 3) return -sig;
  return (o == 1 || o == -1) ? -4 * sig : sig;
}

/* Fill the diagonals: every entry NaN first (gaps and ignored entries stay NaN), then the matrix
 * entries. Diagonally dominant: off-diagonals uniform in [-1, 1], main diagonal sum |off| plus
 * uniform [1, 2] with a random sign. Hyperdiffusion: sigma (per system, varied around the nominal
 * value unless shared). Sets b->kappa. */
static void fill_matrix(Batch *b, int kind, HsRng *r) {
  const GsInt n = b->d.n;
  const int h = b->h, bands = b->d.bands;
  const GsDataType dt = b->d.dt;
  for (int k = 0; k < bands; k++)
    for (GsInt q = 0; q < b->dl; q++)
      b->D[k][q] = NAN;
  double kappa = 0;
  for (GsInt m = 0; m < b->nmat; m++) {
    double sig = kind == KIND_SPD_SMALL ? 0.3 : large_sig;
    if (!b->d.shared) sig *= hs_range(r, 0.5, 1.5);
    double norm = 0, marg = INFINITY;
    for (GsInt i = 0; i < n; i++) {
      const GsInt q = midx(b, m, i);
      double off = 0;
      for (int o = -h; o <= h; o++) {
        if (o == 0 || !in_matrix(b, i, o)) continue;
        double v = to_type(dt, kind == KIND_DD ? hs_range(r, -1, 1) : spd_coef(bands, o, sig));
        b->D[o + h][q] = v;
        off += fabs(v);
      }
      double c;
      if (kind == KIND_DD)
        c = to_type(dt, (off + hs_range(r, 1, 2)) * ((hs_next(r) & 1) ? -1 : 1));
      else
        c = to_type(dt, 1 + (bands == 5 ? 6 : 2) * sig);
      b->D[h][q] = c;
      norm = fmax(norm, off + fabs(c));
      marg = fmin(marg, fabs(c) - off);
    }
    double km = marg > 0.5 ? norm / marg : 2 * norm;
    kappa = fmax(kappa, km);
  }
  b->kappa = kappa;
}

/* Right-hand sides: nrhs blocks, rows uniform in [-1, 1], gaps `gap`. */
static double *make_rhs(const Batch *b, GsInt nrhs, double gap, HsRng *r) {
  GsInt len = b->rl * nrhs;
  double *f = hs_malloc((size_t)len * sizeof *f);
  for (GsInt k = 0; k < len; k++)
    f[k] = is_gap(b, k) ? gap : to_type(b->d.dt, hs_range(r, -1, 1));
  return f;
}

/* Initial x: NaN in the rows, SENTINEL in the gaps. */
static double *make_x0(const Batch *b, GsInt nrhs) {
  GsInt len = b->rl * nrhs;
  double *x = hs_malloc((size_t)len * sizeof *x);
  for (GsInt k = 0; k < len; k++)
    x[k] = is_gap(b, k) ? SENTINEL : NAN;
  return x;
}

/* Poison a solution vector: NaN everywhere (GsVecSet), then the sentinel in the gaps. */
static void poison_x(const Batch *b, GsVec X, const double *x0, GsInt nrhs) {
  CHECK_OK(GsVecSet(X, NAN));
  if (b->stride > b->d.n && b->d.layout == GS_BANDED_CONTIGUOUS)
    set_vec(X, b->d.dt, b->rl * nrhs, x0);
}

/* (A x)_i of system s in block blk, in long double, and the sum of |terms|. */
static LD ref_row(const Batch *b, GsInt s, GsInt blk, GsInt i, const double *x, LD *sabs) {
  LD sum = 0, sa = 0;
  const GsInt q = midx(b, s, i), off = blk * b->rl;
  for (int o = -b->h; o <= b->h; o++) {
    if (!in_matrix(b, i, o)) continue;
    LD t = (LD)b->D[o + b->h][q] * (LD)x[off + ridx(b, s, col_of(b, i, o))];
    sum += t;
    sa += fabsl(t);
  }
  if (sabs) *sabs = sa;
  return sum;
}

/* Relative residual ||A x - f||_inf / ||f||_inf of system s, block blk (inf if not finite). */
static double rel_residual(const Batch *b, GsInt s, GsInt blk, const double *f, const double *x) {
  LD rmax = 0, fmax_ = 0;
  for (GsInt i = 0; i < b->d.n; i++) {
    GsInt k = blk * b->rl + ridx(b, s, i);
    LD rr = fabsl(ref_row(b, s, blk, i, x, NULL) - (LD)f[k]);
    if (!isfinite((double)x[k]) || isnan((double)rr)) return INFINITY;
    if (rr > rmax) rmax = rr;
    if (fabsl((LD)f[k]) > fmax_) fmax_ = fabsl((LD)f[k]);
  }
  return fmax_ > 0 ? (double)(rmax / fmax_) : (double)rmax;
}

/* Check every system's residual (systems with skip[s] set excepted), and that x's gaps equal
 * those of gapref. */
/* A factor on check_solution's bound, for cases whose matrices the bound does not describe well
 * (test_scan_wide's stiff periodic rows). */
static double tol_scale = 1.0;

static void check_solution(const Batch *b, const char *what, const double *f, const double *x,
                           GsInt nrhs, const char *skip, const double *gapref) {
  const double eps = hs_type_eps(b->d.dt), unit = 2.0 * b->d.bands * eps * b->kappa;
  const double tol = TOL_C * tol_scale * unit;
  GsInt bad = 0, wsys = -1, wblk = -1;
  double worst = 0;
  for (GsInt blk = 0; blk < nrhs; blk++)
    for (GsInt s = 0; s < b->d.batch; s++) {
      if (skip && skip[s]) continue;
      double rel = rel_residual(b, s, blk, f, x);
      if (!(rel <= tol)) bad++;
      if (wsys < 0 || !(rel <= worst)) {
        worst = rel;
        wsys = s;
        wblk = blk;
      }
    }
  int ti = b->d.dt == GS_DOUBLE ? 0 : 1;
  if (worst / unit > worst_ratio[ti] || isnan(worst)) worst_ratio[ti] = worst / unit;
  CHECK(bad == 0,
        "%s: %lld of %lld system solves have a relative residual above %.3g; worst: system %lld "
        "block %lld: %.3g (kappa bound %.3g)",
        what, (long long)bad, (long long)(b->d.batch * nrhs), tol, (long long)wsys, (long long)wblk,
        worst, b->kappa);
  if (b->d.layout == GS_BANDED_CONTIGUOUS && b->stride > b->d.n) {
    GsInt gbad = 0, first = -1;
    for (GsInt k = 0; k < b->rl * nrhs; k++)
      if (is_gap(b, k) && !same(x[k], gapref[k])) {
        if (first < 0) first = k;
        gbad++;
      }
    CHECK(gbad == 0, "%s: %lld gap entries of x changed; first [%lld] = %g, was %g", what,
          (long long)gbad, (long long)first, first >= 0 ? x[first] : 0.0,
          first >= 0 ? gapref[first] : 0.0);
  }
}

/* GsBandedGetStatus says all systems are good, and so does GsBandedGetSystemStatus. */
static void check_all_good(GsBanded A, const Batch *b, const char *what) {
  GsInt nbad = -1, first = -2;
  GsBandedStatus code = (GsBandedStatus)-1;
  CHECK_OK(GsBandedGetStatus(A, &nbad, &first, &code));
  CHECK(nbad == 0 && first == -1 && code == GS_BANDED_OK,
        "%s: status nbad=%lld first=%lld code=%d, expected 0, -1, OK", what, (long long)nbad,
        (long long)first, (int)code);
  int *st = hs_malloc((size_t)b->d.batch * sizeof *st);
  for (GsInt s = 0; s < b->d.batch; s++)
    st[s] = -1;
  CHECK_OK(GsBandedGetSystemStatus(A, st));
  GsInt nb = 0;
  for (GsInt s = 0; s < b->d.batch; s++)
    nb += st[s] != GS_BANDED_OK;
  CHECK(nb == 0, "%s: %lld systems have a bad per-system status", what, (long long)nb);
  free(st);
}

/* ---- 1. Residuals -------------------------------------------------------------------------- */

/* Partitions every run_case batch is given (0: the algorithm the options choose). */
static int force_parts = 0;

static void run_case(GsContext ctx, const GsBandedDesc *d, int kind, int mode, HsRng *r) {
  Batch b;
  batch_init(&b, d);
  char what[256];
  describe(&b, kind, mode_name[mode], what, sizeof what);
  const GsDataType dt = d->dt;
  GsBanded A = NULL;
  GsVec Dv[5] = {NULL, NULL, NULL, NULL, NULL}, F = NULL, X = NULL;
  double *f = NULL, *f2 = NULL, *x0 = NULL, *x = NULL, *chk = NULL;
  if (CHECK_OK(GsBandedCreate(ctx, d, &A))) goto done;
  if (force_parts && CHECK_OK(GsBandedSetPartitions(A, force_parts))) goto done;
  GsInt dl = -1, rl = -1;
  CHECK_OK(GsBandedGetSizes(A, &dl, &rl));
  CHECK(dl == b.dl && rl == b.rl, "%s: GetSizes gave %lld, %lld; expected %lld, %lld", what,
        (long long)dl, (long long)rl, (long long)b.dl, (long long)b.rl);
  fill_matrix(&b, kind, r);
  for (int k = 0; k < d->bands; k++)
    if (!(Dv[k] = new_vec(ctx, dt, b.dl, b.D[k]))) goto done;

  const GsInt nrhs = mode == MODE_NRHS ? 3 : 1, len = b.rl * nrhs;
  const int inplace = mode == MODE_INPLACE;
  f = make_rhs(&b, nrhs, inplace ? SENTINEL : NAN, r);
  x0 = make_x0(&b, nrhs);
  x = hs_malloc((size_t)len * sizeof *x);
  if (!(F = new_vec(ctx, dt, len, f))) goto done;
  if (!inplace) {
    if (!(X = new_vec(ctx, dt, len, NULL))) goto done;
    poison_x(&b, X, x0, nrhs);
  }

  switch (mode) {
  case MODE_TWICE: {
    CHECK_OK(GsBandedFactor(A, Dv));
    check_all_good(A, &b, what);
    /* The diagonals are not modified. */
    chk = hs_malloc((size_t)b.dl * sizeof *chk);
    for (int k = 0; k < d->bands; k++) {
      get_vec(Dv[k], dt, b.dl, chk);
      GsInt nd = 0;
      for (GsInt q = 0; q < b.dl; q++)
        nd += !same(chk[q], b.D[k][q]);
      CHECK(nd == 0, "%s: Factor changed %lld entries of diagonal %d", what, (long long)nd, k);
    }
    CHECK_OK(GsBandedSolve(A, F, X));
    get_vec(X, dt, len, x);
    check_solution(&b, what, f, x, nrhs, NULL, x0);
    check_all_good(A, &b, what);
    /* A second right-hand side with the kept factors; the diagonals are gone (NaN) meanwhile. */
    for (int k = 0; k < d->bands; k++)
      CHECK_OK(GsVecSet(Dv[k], NAN));
    f2 = make_rhs(&b, nrhs, NAN, r);
    set_vec(F, dt, len, f2);
    poison_x(&b, X, x0, nrhs);
    CHECK_OK(GsBandedSolve(A, F, X));
    get_vec(X, dt, len, x);
    check_solution(&b, what, f2, x, nrhs, NULL, x0);
    check_all_good(A, &b, what);
    break;
  }
  case MODE_FACTORSOLVE:
    CHECK_OK(GsBandedFactorSolve(A, Dv, F, X));
    get_vec(X, dt, len, x);
    check_solution(&b, what, f, x, nrhs, NULL, x0);
    check_all_good(A, &b, what);
    break;
  case MODE_INPLACE:
    CHECK_OK(GsBandedFactor(A, Dv));
    CHECK_OK(GsBandedSolve(A, F, F));
    get_vec(F, dt, len, x);
    check_solution(&b, what, f, x, nrhs, NULL, f);
    check_all_good(A, &b, what);
    break;
  case MODE_NRHS:
    if (d->n % 2) {
      CHECK_OK(GsBandedFactorSolve(A, Dv, F, X));
    } else {
      CHECK_OK(GsBandedFactor(A, Dv));
      CHECK_OK(GsBandedSolve(A, F, X));
    }
    get_vec(X, dt, len, x);
    check_solution(&b, what, f, x, nrhs, NULL, x0);
    check_all_good(A, &b, what);
    break;
  }

done:
  destroy_vecs(5, Dv);
  GsVecDestroy(&F);
  GsVecDestroy(&X);
  CHECK_OK(GsBandedDestroy(&A));
  free(f);
  free(f2);
  free(x0);
  free(x);
  free(chk);
  batch_free(&b);
}

static void test_residuals(GsContext ctx, HsRng *r) {
  static const GsInt batches[4] = {1, 3, 37, 512};
  long cases = 0;
  for (int bands = 3; bands <= 5; bands += 2)
    for (int t = 0; t < 2; t++) {
      const GsDataType dt = t ? GS_FLOAT : GS_DOUBLE;
      const GsInt ns[5] = {bands, bands + 1, 7, 64, 1000};
      int combo = 0;
      for (int lay = 0; lay < 3; lay++)
        for (int shared = 0; shared < 2; shared++)
          for (int periodic = 0; periodic < 2; periodic++)
            for (int mode = 0; mode < NMODE; mode++, combo++)
              for (int ni = 0; ni < 5; ni++) {
                GsInt n = ns[ni], batch = batches[(combo + ni) % 4];
                if (n * batch > 40000) batch = 37;
                GsBandedDesc d = {bands,
                                  n,
                                  batch,
                                  dt,
                                  lay ? GS_BANDED_CONTIGUOUS : GS_BANDED_INTERLEAVED,
                                  lay == 2   ? n + 1 + (combo + ni) % 3
                                  : lay == 1 ? (ni % 2 ? n : 0)
                                             : 0,
                                  shared,
                                  periodic,
                                  0};
                /* Half of the symmetric positive definite cases take the LDL^T path. */
                const int kind = (combo + ni) % NKIND;
                d.spd = kind != KIND_DD && ((combo + ni) / NKIND) % 2 == 0;
                run_case(ctx, &d, kind, mode, r);
                cases++;
              }
      /* The largest size: n = 1000 and 512 systems. */
      GsBandedDesc big1 = {bands, 1000, 512, dt, GS_BANDED_INTERLEAVED, 0, 0, 0, 0};
      run_case(ctx, &big1, KIND_DD, MODE_TWICE, r);
      GsBandedDesc big2 = {bands, 1000, 512, dt, GS_BANDED_CONTIGUOUS, 1003, 0, 1, 0};
      run_case(ctx, &big2, KIND_SPD_LARGE, MODE_NRHS, r);
      GsBandedDesc big3 = {bands, 999, 512, dt, GS_BANDED_INTERLEAVED, 0, 1, 1, 0};
      run_case(ctx, &big3, KIND_SPD_SMALL, MODE_INPLACE, r);
      /* LDL^T at the same size, plain and periodic (the GPU's scan has LDL^T-only kernels). */
      GsBandedDesc big4 = {bands, 1000, 512, dt, GS_BANDED_INTERLEAVED, 0, 0, 0, 1};
      run_case(ctx, &big4, KIND_SPD_LARGE, MODE_TWICE, r);
      GsBandedDesc big5 = {bands, 1000, 512, dt, GS_BANDED_INTERLEAVED, 0, 0, 1, 1};
      run_case(ctx, &big5, KIND_SPD_SMALL, MODE_NRHS, r);
      cases += 5;
    }
  /* 16384 systems of 260 rows: on a GPU the automatic choice is the scan, whose factors Factor
   * rearranges, and a refactor-each-call takes the fused sweep instead. */
  for (int bands = 3; bands <= 5; bands += 2) {
    GsBandedDesc big6 = {bands, 260, 16384, GS_DOUBLE, GS_BANDED_INTERLEAVED, 0, 0, 0, 0};
    run_case(ctx, &big6, KIND_DD, MODE_FACTORSOLVE, r);
    run_case(ctx, &big6, KIND_DD, MODE_TWICE, r);
    cases += 2;
  }
  printf("residuals: %ld cases; worst residual %.3g (double), %.3g (float) x 2 bands eps kappa\n",
         cases, worst_ratio[0], worst_ratio[1]);
}

/* ---- 2. Small systems against a dense solve ------------------------------------------------ */

/* Solve the n x n system M y = rhs (row-major M, both overwritten) by Gaussian elimination with
 * partial pivoting; the solution is left in rhs. Returns 0, or 1 if M is singular. */
static int dense_solve(int n, LD *M, LD *rhs) {
  for (int k = 0; k < n; k++) {
    int p = k;
    for (int i = k + 1; i < n; i++)
      if (fabsl(M[i * n + k]) > fabsl(M[p * n + k])) p = i;
    if (M[p * n + k] == 0) return 1;
    if (p != k) {
      for (int j = 0; j < n; j++) {
        LD t = M[k * n + j];
        M[k * n + j] = M[p * n + j];
        M[p * n + j] = t;
      }
      LD t = rhs[k];
      rhs[k] = rhs[p];
      rhs[p] = t;
    }
    for (int i = k + 1; i < n; i++) {
      LD l = M[i * n + k] / M[k * n + k];
      if (l == 0) continue;
      for (int j = k; j < n; j++)
        M[i * n + j] -= l * M[k * n + j];
      rhs[i] -= l * rhs[k];
    }
  }
  for (int i = n - 1; i >= 0; i--) {
    LD s = rhs[i];
    for (int j = i + 1; j < n; j++)
      s -= M[i * n + j] * rhs[j];
    rhs[i] = s / M[i * n + i];
  }
  return 0;
}

static void test_dense(GsContext ctx, HsRng *r) {
  int idx = 0;
  for (int bands = 3; bands <= 5; bands += 2)
    for (int t = 0; t < 2; t++)
      for (int periodic = 1; periodic >= 0; periodic--)
        for (int n = bands; n <= 12; n++, idx++) {
          const GsDataType dt = t ? GS_FLOAT : GS_DOUBLE;
          int lay = idx % 3;
          GsBandedDesc d = {bands,
                            n,
                            4,
                            dt,
                            lay ? GS_BANDED_CONTIGUOUS : GS_BANDED_INTERLEAVED,
                            lay == 2 ? n + 2 : 0,
                            (idx / 3) % 2,
                            periodic,
                            0};
          int kind = idx % NKIND;
          Batch b;
          batch_init(&b, &d);
          char what[256];
          describe(&b, kind, "dense reference", what, sizeof what);
          GsBanded A = NULL;
          GsVec Dv[5] = {NULL, NULL, NULL, NULL, NULL}, F = NULL, X = NULL;
          double *f = NULL, *x0 = NULL, *x = NULL;
          if (CHECK_OK(GsBandedCreate(ctx, &d, &A))) goto next;
          fill_matrix(&b, kind, r);
          for (int k = 0; k < bands; k++)
            if (!(Dv[k] = new_vec(ctx, dt, b.dl, b.D[k]))) goto next;
          f = make_rhs(&b, 1, NAN, r);
          x0 = make_x0(&b, 1);
          x = hs_malloc((size_t)b.rl * sizeof *x);
          if (!(F = new_vec(ctx, dt, b.rl, f)) || !(X = new_vec(ctx, dt, b.rl, NULL))) goto next;
          poison_x(&b, X, x0, 1);
          if (idx % 2) {
            CHECK_OK(GsBandedFactorSolve(A, Dv, F, X));
          } else {
            CHECK_OK(GsBandedFactor(A, Dv));
            CHECK_OK(GsBandedSolve(A, F, X));
          }
          get_vec(X, dt, b.rl, x);
          check_solution(&b, what, f, x, 1, NULL, x0);
          {
            const double tol = TOL_C * 2.0 * bands * hs_type_eps(dt) * b.kappa;
            LD M[144], y[12];
            for (GsInt s = 0; s < d.batch; s++) {
              memset(M, 0, sizeof M);
              for (int i = 0; i < n; i++) {
                for (int o = -b.h; o <= b.h; o++)
                  if (in_matrix(&b, i, o))
                    M[i * n + col_of(&b, i, o)] += (LD)b.D[o + b.h][midx(&b, s, i)];
                y[i] = f[ridx(&b, s, i)];
              }
              if (!CHECK(dense_solve(n, M, y) == 0, "%s: dense matrix %lld is singular", what,
                         (long long)s))
                continue;
              LD emax = 0, ymax = 0;
              for (int i = 0; i < n; i++) {
                LD e = fabsl((LD)x[ridx(&b, s, i)] - y[i]);
                if (!(e <= emax)) emax = e;
                if (fabsl(y[i]) > ymax) ymax = fabsl(y[i]);
              }
              double rel = (double)(emax / ymax);
              if (!(rel / (tol / TOL_C) <= worst_dense[t])) worst_dense[t] = rel / (tol / TOL_C);
              CHECK(rel <= tol,
                    "%s: system %lld differs from the dense solve by %.3g (allowed %.3g)", what,
                    (long long)s, rel, tol);
            }
          }
        next:
          destroy_vecs(5, Dv);
          GsVecDestroy(&F);
          GsVecDestroy(&X);
          CHECK_OK(GsBandedDestroy(&A));
          free(f);
          free(x0);
          free(x);
          batch_free(&b);
        }
}

/* ---- 3. Mult ------------------------------------------------------------------------------- */

static void test_mult(GsContext ctx, HsRng *r) {
  static const GsInt batches[3] = {1, 3, 37};
  int idx = 0;
  for (int bands = 3; bands <= 5; bands += 2)
    for (int t = 0; t < 2; t++)
      for (int lay = 0; lay < 3; lay++)
        for (int shared = 0; shared < 2; shared++)
          for (int periodic = 0; periodic < 2; periodic++, idx++) {
            const GsDataType dt = t ? GS_FLOAT : GS_DOUBLE;
            const GsInt ns[5] = {bands, bands + 1, 7, 64, 1000};
            GsInt n = ns[idx % 5], batch = batches[idx % 3], nrhs = 1 + idx % 3;
            GsBandedDesc d = {bands,
                              n,
                              batch,
                              dt,
                              lay ? GS_BANDED_CONTIGUOUS : GS_BANDED_INTERLEAVED,
                              lay == 2 ? n + 3 : 0,
                              shared,
                              periodic,
                              0};
            Batch b;
            batch_init(&b, &d);
            char what[256];
            describe(&b, idx % NKIND, "Mult", what, sizeof what);
            GsBanded A = NULL;
            GsVec Dv[5] = {NULL, NULL, NULL, NULL, NULL}, Xv = NULL, Yv = NULL;
            const GsInt len = b.rl * nrhs;
            double *xs = NULL, *y0 = NULL, *y = NULL;
            if (CHECK_OK(GsBandedCreate(ctx, &d, &A))) goto next;
            fill_matrix(&b, idx % NKIND, r);
            for (int k = 0; k < bands; k++)
              if (!(Dv[k] = new_vec(ctx, dt, b.dl, b.D[k]))) goto next;
            xs = make_rhs(&b, nrhs, NAN, r); /* x's gaps are NaN: Mult must not read them */
            y0 = make_x0(&b, nrhs);
            y = hs_malloc((size_t)len * sizeof *y);
            if (!(Xv = new_vec(ctx, dt, len, xs)) || !(Yv = new_vec(ctx, dt, len, NULL))) goto next;
            poison_x(&b, Yv, y0, nrhs);
            CHECK_OK(GsBandedMult(A, Dv, Xv, Yv));
            get_vec(Yv, dt, len, y);
            {
              const double eps = hs_type_eps(dt);
              GsInt bad = 0, worst_k = -1;
              double worst = 0;
              for (GsInt blk = 0; blk < nrhs; blk++)
                for (GsInt s = 0; s < batch; s++)
                  for (GsInt i = 0; i < n; i++) {
                    LD sa = 0, e = ref_row(&b, s, blk, i, xs, &sa);
                    GsInt k = blk * b.rl + ridx(&b, s, i);
                    LD err = fabsl((LD)y[k] - e);
                    double ratio = sa > 0 ? (double)(err / (eps * sa)) : (double)err;
                    if (!(ratio <= 2 * bands)) {
                      bad++;
                      if (worst_k < 0 || !(ratio <= worst)) {
                        worst = ratio;
                        worst_k = k;
                      }
                    }
                  }
              CHECK(bad == 0,
                    "%s nrhs=%lld: %lld of %lld entries of y wrong; worst [%lld] = %g (error %.3g "
                    "eps S)",
                    what, (long long)nrhs, (long long)bad, (long long)(n * batch * nrhs),
                    (long long)worst_k, worst_k >= 0 ? y[worst_k] : 0.0, worst);
              GsInt gbad = 0;
              for (GsInt k = 0; k < len; k++)
                gbad += is_gap(&b, k) && !same(y[k], SENTINEL);
              CHECK(gbad == 0, "%s: Mult changed %lld gap entries of y", what, (long long)gbad);
              /* x is not modified. */
              get_vec(Xv, dt, len, y);
              GsInt xbad = 0;
              for (GsInt k = 0; k < len; k++)
                xbad += !same(y[k], xs[k]);
              CHECK(xbad == 0, "%s: Mult changed %lld entries of x", what, (long long)xbad);
            }
          next:
            destroy_vecs(5, Dv);
            GsVecDestroy(&Xv);
            GsVecDestroy(&Yv);
            CHECK_OK(GsBandedDestroy(&A));
            free(xs);
            free(y0);
            free(y);
            batch_free(&b);
          }
}

/* ---- 4. Bad systems ------------------------------------------------------------------------ */

/* Status summary and per-system codes against expectations: want[s] per system. */
static void check_status(GsBanded A, const char *what, GsInt batch, const int *want) {
  GsInt nb = 0, first = -1;
  for (GsInt s = 0; s < batch; s++)
    if (want[s]) {
      if (first < 0) first = s;
      nb++;
    }
  GsInt nbad = -1, fb = -2;
  GsBandedStatus code = (GsBandedStatus)-1;
  CHECK_OK(GsBandedGetStatus(A, &nbad, &fb, &code));
  CHECK(nbad == nb && fb == first && (int)code == (first >= 0 ? want[first] : GS_BANDED_OK),
        "%s: GetStatus gave nbad=%lld first=%lld code=%d; expected %lld, %lld, %d", what,
        (long long)nbad, (long long)fb, (int)code, (long long)nb, (long long)first,
        first >= 0 ? want[first] : 0);
  int *st = hs_malloc((size_t)batch * sizeof *st);
  for (GsInt s = 0; s < batch; s++)
    st[s] = -1;
  CHECK_OK(GsBandedGetSystemStatus(A, st));
  GsInt wrong = 0, fw = -1;
  for (GsInt s = 0; s < batch; s++)
    if (st[s] != want[s]) {
      if (fw < 0) fw = s;
      wrong++;
    }
  CHECK(wrong == 0, "%s: %lld per-system statuses wrong; first: system %lld is %d, expected %d",
        what, (long long)wrong, (long long)fw, fw >= 0 ? st[fw] : 0, fw >= 0 ? want[fw] : 0);
  free(st);
}

/* Systems of x (block blk) that must be all NaN. */
static void check_nan_system(const Batch *b, const char *what, const double *x, GsInt s,
                             GsInt nrhs) {
  GsInt fin = 0;
  for (GsInt blk = 0; blk < nrhs; blk++)
    for (GsInt i = 0; i < b->d.n; i++)
      fin += !isnan(x[blk * b->rl + ridx(b, s, i)]);
  CHECK(fin == 0, "%s: the solution of bad system %lld has %lld non-NaN entries", what,
        (long long)s, (long long)fin);
}

/* Zero row i of the matrix of system s (its in-matrix entries). */
static void zero_row(Batch *b, GsInt s, GsInt i) {
  for (int o = -b->h; o <= b->h; o++)
    if (in_matrix(b, i, o)) b->D[o + b->h][midx(b, s, i)] = 0;
}

/* A batch of 37 per-system matrices with system 5 singular (row 0 zero: the first pivot is 0) and a
 * NaN in system 20's right-hand side, through Factor + Solve or FactorSolve. */
static GsInt bad_n = 64; /* rows of bad_batch's systems */
static void bad_batch(GsContext ctx, int bands, GsDataType dt, int lay, int periodic, int via_fs,
                      HsRng *r) {
  const GsInt n = bad_n, batch = 37;
  GsBandedDesc d = {bands,
                    n,
                    batch,
                    dt,
                    lay ? GS_BANDED_CONTIGUOUS : GS_BANDED_INTERLEAVED,
                    lay == 2 ? n + 4 : 0,
                    0,
                    periodic,
                    0};
  Batch b;
  batch_init(&b, &d);
  char what[256];
  describe(&b, KIND_DD, via_fs ? "bad systems, FactorSolve" : "bad systems, Factor+Solve", what,
           sizeof what);
  GsBanded A = NULL;
  GsVec Dv[5] = {NULL, NULL, NULL, NULL, NULL}, F = NULL, X = NULL;
  double *f = NULL, *x0 = NULL, *x = NULL;
  int want[37];
  char skip[37];
  if (CHECK_OK(GsBandedCreate(ctx, &d, &A))) goto done;
  if (force_parts && CHECK_OK(GsBandedSetPartitions(A, force_parts))) goto done;
  fill_matrix(&b, KIND_DD, r);
  zero_row(&b, 5, 0);
  for (int k = 0; k < bands; k++)
    if (!(Dv[k] = new_vec(ctx, dt, b.dl, b.D[k]))) goto done;
  f = make_rhs(&b, 1, NAN, r);
  f[ridx(&b, 20, n / 2)] = NAN;
  x0 = make_x0(&b, 1);
  x = hs_malloc((size_t)b.rl * sizeof *x);
  if (!(F = new_vec(ctx, dt, b.rl, f)) || !(X = new_vec(ctx, dt, b.rl, NULL))) goto done;
  poison_x(&b, X, x0, 1);
  memset(want, 0, sizeof want);
  memset(skip, 0, sizeof skip);
  if (!via_fs) {
    CHECK_ERR(GsBandedFactor(A, Dv), GS_ERR_ZERO_PIVOT);
    CHECK_MSG(ctx, "system 5 ");
    CHECK_MSG(ctx, "1 of 37");
    want[5] = GS_BANDED_ZERO_PIVOT;
    check_status(A, what, batch, want);
    CHECK_ERR(GsBandedSolve(A, F, X), GS_ERR_ZERO_PIVOT);
  } else {
    CHECK_ERR(GsBandedFactorSolve(A, Dv, F, X), GS_ERR_ZERO_PIVOT);
  }
  CHECK_MSG(ctx, "system 5 ");
  CHECK_MSG(ctx, "2 of 37");
  want[5] = GS_BANDED_ZERO_PIVOT;
  want[20] = GS_BANDED_NOT_FINITE;
  check_status(A, what, batch, want);
  get_vec(X, dt, b.rl, x);
  check_nan_system(&b, what, x, 5, 1);
  skip[5] = skip[20] = 1;
  check_solution(&b, what, f, x, 1, skip, x0);

done:
  destroy_vecs(5, Dv);
  GsVecDestroy(&F);
  GsVecDestroy(&X);
  CHECK_OK(GsBandedDestroy(&A));
  free(f);
  free(x0);
  free(x);
  batch_free(&b);
}

/* Other bad batches: a singular shared matrix, a NaN in a matrix, a tiny pivot, a NaN only in a
 * right-hand side (then a good solve clears the status), and NaNs in later blocks of several
 * right-hand sides. */
static void bad_more(GsContext ctx, int bands, GsDataType dt, int periodic, HsRng *r) {
  char what[256];
  /* Singular shared matrix: every system is bad. */
  {
    const GsInt n = 16, batch = 37;
    GsBandedDesc d = {bands, n, batch, dt, GS_BANDED_CONTIGUOUS, n + 1, 1, periodic, 0};
    Batch b;
    batch_init(&b, &d);
    describe(&b, KIND_DD, "singular shared matrix", what, sizeof what);
    GsBanded A = NULL;
    GsVec Dv[5] = {NULL, NULL, NULL, NULL, NULL}, F = NULL, X = NULL;
    double *f = NULL, *x0 = NULL, *x = NULL;
    int want[37];
    if (CHECK_OK(GsBandedCreate(ctx, &d, &A))) goto done1;
    fill_matrix(&b, KIND_DD, r);
    zero_row(&b, 0, 0);
    for (int k = 0; k < bands; k++)
      if (!(Dv[k] = new_vec(ctx, dt, b.dl, b.D[k]))) goto done1;
    f = make_rhs(&b, 1, NAN, r);
    x0 = make_x0(&b, 1);
    x = hs_malloc((size_t)b.rl * sizeof *x);
    if (!(F = new_vec(ctx, dt, b.rl, f)) || !(X = new_vec(ctx, dt, b.rl, NULL))) goto done1;
    poison_x(&b, X, x0, 1);
    for (int s = 0; s < 37; s++)
      want[s] = GS_BANDED_ZERO_PIVOT;
    CHECK_ERR(GsBandedFactor(A, Dv), GS_ERR_ZERO_PIVOT);
    CHECK_MSG(ctx, "37 of 37");
    check_status(A, what, batch, want);
    CHECK_ERR(GsBandedSolve(A, F, X), GS_ERR_ZERO_PIVOT);
    CHECK_MSG(ctx, "37 of 37");
    check_status(A, what, batch, want);
    get_vec(X, dt, b.rl, x);
    for (GsInt s = 0; s < batch; s++)
      check_nan_system(&b, what, x, s, 1);
    char all[37];
    memset(all, 1, sizeof all);
    check_solution(&b, what, f, x, 1, all, x0); /* only the gaps of x are checked */
  done1:
    destroy_vecs(5, Dv);
    GsVecDestroy(&F);
    GsVecDestroy(&X);
    CHECK_OK(GsBandedDestroy(&A));
    free(f);
    free(x0);
    free(x);
    batch_free(&b);
  }
  /* A NaN in system 9's matrix, a tiny pivot in system 11's, then a NaN only in the right-hand side
   * of system 20, then all good again. */
  {
    const GsInt n = 40, batch = 37;
    GsBandedDesc d = {bands, n, batch, dt, GS_BANDED_INTERLEAVED, 0, 0, periodic, 0};
    Batch b;
    batch_init(&b, &d);
    describe(&b, KIND_DD, "non-finite matrix / tiny pivot / non-finite rhs", what, sizeof what);
    GsBanded A = NULL;
    GsVec Dv[5] = {NULL, NULL, NULL, NULL, NULL}, F = NULL, X = NULL;
    double *f = NULL, *x0 = NULL, *x = NULL, save9, save11, save11d;
    int want[37];
    char skip[37];
    if (CHECK_OK(GsBandedCreate(ctx, &d, &A))) goto done2;
    fill_matrix(&b, KIND_DD, r);
    save9 = b.D[b.h][midx(&b, 9, 3)];
    save11 = b.D[b.h][midx(&b, 11, 0)];
    save11d = b.D[b.h + 1][midx(&b, 11, 0)];
    b.D[b.h][midx(&b, 9, 3)] = NAN;
    /* tiny against its row: the pivot test scales by the row's entries, and a random
     * super-diagonal entry near 0 (1e-5 with one seed) would let 1e-20 pass */
    b.D[b.h][midx(&b, 11, 0)] = 1e-20;
    b.D[b.h + 1][midx(&b, 11, 0)] = 1.0;
    for (int k = 0; k < bands; k++)
      if (!(Dv[k] = new_vec(ctx, dt, b.dl, b.D[k]))) goto done2;
    f = make_rhs(&b, 1, NAN, r);
    x0 = make_x0(&b, 1);
    x = hs_malloc((size_t)b.rl * sizeof *x);
    if (!(F = new_vec(ctx, dt, b.rl, f)) || !(X = new_vec(ctx, dt, b.rl, NULL))) goto done2;
    poison_x(&b, X, x0, 1);
    memset(want, 0, sizeof want);
    memset(skip, 0, sizeof skip);
    want[9] = GS_BANDED_NOT_FINITE;
    want[11] = GS_BANDED_ZERO_PIVOT;
    CHECK_ERR(GsBandedFactor(A, Dv), GS_ERR_NOT_FINITE);
    CHECK_MSG(ctx, "system 9 ");
    CHECK_MSG(ctx, "2 of 37");
    check_status(A, what, batch, want);
    CHECK_ERR(GsBandedSolve(A, F, X), GS_ERR_NOT_FINITE);
    check_status(A, what, batch, want);
    get_vec(X, dt, b.rl, x);
    check_nan_system(&b, what, x, 9, 1);
    check_nan_system(&b, what, x, 11, 1);
    skip[9] = skip[11] = 1;
    check_solution(&b, what, f, x, 1, skip, x0);

    /* Repaired matrices; a NaN only in system 20's right-hand side. */
    b.D[b.h][midx(&b, 9, 3)] = save9;
    b.D[b.h][midx(&b, 11, 0)] = save11;
    b.D[b.h + 1][midx(&b, 11, 0)] = save11d;
    set_vec(Dv[b.h], dt, b.dl, b.D[b.h]);
    set_vec(Dv[b.h + 1], dt, b.dl, b.D[b.h + 1]);
    CHECK_OK(GsBandedFactor(A, Dv));
    check_all_good(A, &b, what);
    f[ridx(&b, 20, 0)] = NAN;
    set_vec(F, dt, b.rl, f);
    poison_x(&b, X, x0, 1);
    CHECK_ERR(GsBandedSolve(A, F, X), GS_ERR_NOT_FINITE);
    CHECK_MSG(ctx, "system 20 ");
    CHECK_MSG(ctx, "1 of 37");
    memset(want, 0, sizeof want);
    want[20] = GS_BANDED_NOT_FINITE;
    check_status(A, what, batch, want);
    get_vec(X, dt, b.rl, x);
    memset(skip, 0, sizeof skip);
    skip[20] = 1;
    check_solution(&b, what, f, x, 1, skip, x0);
    /* The status is that of the last call: a good solve clears it. */
    f[ridx(&b, 20, 0)] = 0.5;
    set_vec(F, dt, b.rl, f);
    CHECK_OK(GsBandedSolve(A, F, X));
    check_all_good(A, &b, what);
    get_vec(X, dt, b.rl, x);
    check_solution(&b, what, f, x, 1, NULL, x0);
  done2:
    destroy_vecs(5, Dv);
    GsVecDestroy(&F);
    GsVecDestroy(&X);
    CHECK_OK(GsBandedDestroy(&A));
    free(f);
    free(x0);
    free(x);
    batch_free(&b);
  }
}

/* Three blocks of right-hand sides over 512 systems with NaNs in blocks 1 and 2 only: a system is
 * bad when any of its right-hand sides is, whatever order the blocks are processed in. */
static void bad_later_blocks(GsContext ctx, GsDataType dt, HsRng *r) {
  const GsInt n = 200, batch = 512, nrhs = 3;
  GsBandedDesc d = {5, n, batch, dt, GS_BANDED_CONTIGUOUS, 0, 0, 0, 0};
  Batch b;
  batch_init(&b, &d);
  char what[256];
  describe(&b, KIND_DD, "NaN in later rhs blocks", what, sizeof what);
  GsBanded A = NULL;
  GsVec Dv[5] = {NULL, NULL, NULL, NULL, NULL}, F = NULL, X = NULL;
  double *f = NULL, *x0 = NULL, *x = NULL;
  int *want = hs_malloc((size_t)batch * sizeof *want);
  char *skip = hs_malloc((size_t)batch);
  static const GsInt bad1[] = {1, 170, 260, 300, 345, 400, 450, 500, 511};
  static const GsInt bad2[] = {3, 100, 200, 333};
  if (CHECK_OK(GsBandedCreate(ctx, &d, &A))) goto done;
  fill_matrix(&b, KIND_DD, r);
  for (int k = 0; k < 5; k++)
    if (!(Dv[k] = new_vec(ctx, dt, b.dl, b.D[k]))) goto done;
  f = make_rhs(&b, nrhs, NAN, r);
  memset(want, 0, (size_t)batch * sizeof *want);
  memset(skip, 0, (size_t)batch);
  for (size_t j = 0; j < sizeof bad1 / sizeof bad1[0]; j++) {
    f[1 * b.rl + ridx(&b, bad1[j], n - 1)] = NAN;
    want[bad1[j]] = GS_BANDED_NOT_FINITE;
    skip[bad1[j]] = 1;
  }
  for (size_t j = 0; j < sizeof bad2 / sizeof bad2[0]; j++) {
    f[2 * b.rl + ridx(&b, bad2[j], 7)] = INFINITY;
    want[bad2[j]] = GS_BANDED_NOT_FINITE;
    skip[bad2[j]] = 1;
  }
  x0 = make_x0(&b, nrhs);
  x = hs_malloc((size_t)(b.rl * nrhs) * sizeof *x);
  if (!(F = new_vec(ctx, dt, b.rl * nrhs, f)) || !(X = new_vec(ctx, dt, b.rl * nrhs, NULL)))
    goto done;
  CHECK_OK(GsBandedFactor(A, Dv));
  for (int rep = 0; rep < 3; rep++) {
    poison_x(&b, X, x0, nrhs);
    CHECK_ERR(GsBandedSolve(A, F, X), GS_ERR_NOT_FINITE);
    CHECK_MSG(ctx, "13 of 512");
    check_status(A, what, batch, want);
    get_vec(X, dt, b.rl * nrhs, x);
    check_solution(&b, what, f, x, nrhs, skip, x0);
  }
done:
  release_solve(Dv, &F, &X, &A);
  free(f);
  free(x0);
  free(x);
  free(want);
  free(skip);
  batch_free(&b);
}

static void test_bad(GsContext ctx, HsRng *r) {
  int idx = 0;
  for (int bands = 3; bands <= 5; bands += 2)
    for (int t = 0; t < 2; t++)
      for (int periodic = 0; periodic < 2; periodic++) {
        const GsDataType dt = t ? GS_FLOAT : GS_DOUBLE;
        for (int via_fs = 0; via_fs < 2; via_fs++, idx++)
          bad_batch(ctx, bands, dt, idx % 3, periodic, via_fs, r);
        bad_more(ctx, bands, dt, periodic, r);
      }
  bad_later_blocks(ctx, GS_DOUBLE, r);
  bad_later_blocks(ctx, GS_FLOAT, r);
  /* Partitioned solves whose partial solves a GPU runs as chunked scans (two partitions of 300
   * rows; interleaved, contiguous with a stride, periodic): the bad systems are still named and
   * their neighbours solved. */
  force_parts = 2;
  bad_n = 600;
  for (int bands = 3; bands <= 5; bands += 2)
    for (int via_fs = 0; via_fs < 2; via_fs++)
      for (int periodic = 0; periodic < 2; periodic++)
        bad_batch(ctx, bands, via_fs ? GS_FLOAT : GS_DOUBLE, via_fs ? 2 : 0, periodic, via_fs, r);
  force_parts = 0;
  bad_n = 64;
}

/* ---- 5. Argument errors, queries, lifetime ------------------------------------------------- */

static void check_create_err(GsContext ctx, GsBandedDesc d, int code, const char *why) {
  GsBanded A = (GsBanded)&d; /* any non-NULL value: a failed create must leave NULL */
  int rc = CHECK_ERR(GsBandedCreate(ctx, &d, &A), code);
  CHECK(A == NULL, "%s: a failed GsBandedCreate left a non-NULL object", why);
  if (!rc) GsBandedDestroy(&A);
}

static void test_errors(GsContext ctx, HsRng *r) {
  const GsBandedDesc good = {5, 8, 4, GS_DOUBLE, GS_BANDED_CONTIGUOUS, 0, 0, 0, 0};
  GsBandedDesc d;

  /* Create */
  d = good, d.bands = 4;
  check_create_err(ctx, d, GS_ERR_ARG_OUTOFRANGE, "bands 4");
  CHECK_MSG(ctx, "bands = 4");
  d = good, d.bands = 7;
  check_create_err(ctx, d, GS_ERR_ARG_OUTOFRANGE, "bands 7");
  d = good, d.bands = 0;
  check_create_err(ctx, d, GS_ERR_ARG_OUTOFRANGE, "bands 0");
  d = good, d.n = 4;
  check_create_err(ctx, d, GS_ERR_ARG_OUTOFRANGE, "penta n 4");
  d = good, d.bands = 3, d.n = 2;
  check_create_err(ctx, d, GS_ERR_ARG_OUTOFRANGE, "tri n 2");
  d = good, d.bands = 3, d.n = 2, d.periodic = 1;
  check_create_err(ctx, d, GS_ERR_ARG_OUTOFRANGE, "periodic tri n 2");
  d = good, d.n = 0;
  check_create_err(ctx, d, GS_ERR_ARG_OUTOFRANGE, "n 0");
  d = good, d.batch = 0;
  check_create_err(ctx, d, GS_ERR_ARG_OUTOFRANGE, "batch 0");
  d = good, d.batch = -3;
  check_create_err(ctx, d, GS_ERR_ARG_OUTOFRANGE, "batch -3");
  d = good, d.stride = 7;
  check_create_err(ctx, d, GS_ERR_ARG_OUTOFRANGE, "contiguous stride < n");
  d = good, d.stride = -1;
  check_create_err(ctx, d, GS_ERR_ARG_OUTOFRANGE, "contiguous stride -1");
  d = good, d.layout = GS_BANDED_INTERLEAVED, d.stride = 9;
  check_create_err(ctx, d, GS_ERR_ARG_INCOMP, "stride with interleaved");
  d = good, d.layout = (GsBandedLayout)7;
  check_create_err(ctx, d, GS_ERR_ARG_OUTOFRANGE, "layout 7");
  d = good, d.dt = (GsDataType)9;
  check_create_err(ctx, d, GS_ERR_ARG_TYPE, "data type 9");
  d = good, d.batch = GS_INT_MAX / 4;
  check_create_err(ctx, d, GS_ERR_ARG_OUTOFRANGE, "batch x n overflows");
  d = good, d.layout = GS_BANDED_INTERLEAVED, d.batch = GS_INT_MAX / 4;
  check_create_err(ctx, d, GS_ERR_ARG_OUTOFRANGE, "interleaved batch x n overflows");
  GsBanded A = NULL;
  CHECK_ERR(GsBandedCreate(NULL, &good, &A), GS_ERR_ARG_NULL);
  CHECK_ERR(GsBandedCreate(ctx, NULL, &A), GS_ERR_ARG_NULL);
  CHECK_ERR(GsBandedCreate(ctx, &good, NULL), GS_ERR_ARG_NULL);

  /* Queries */
  GsBandedDesc got;
  GsInt dl = -1, rl = -1;
  struct {
    GsBandedLayout layout;
    GsInt stride;
    int shared;
    GsInt want_stride, want_dl, want_rl;
  } q[] = {{GS_BANDED_CONTIGUOUS, 0, 0, 8, 32, 32},   {GS_BANDED_CONTIGUOUS, 8, 0, 8, 32, 32},
           {GS_BANDED_CONTIGUOUS, 11, 0, 11, 44, 44}, {GS_BANDED_CONTIGUOUS, 11, 1, 11, 8, 44},
           {GS_BANDED_INTERLEAVED, 0, 0, 8, 32, 32},  {GS_BANDED_INTERLEAVED, 0, 1, 8, 8, 32}};
  for (size_t k = 0; k < sizeof q / sizeof q[0]; k++) {
    d = good, d.layout = q[k].layout, d.stride = q[k].stride, d.shared = q[k].shared;
    d.periodic = (int)(k % 2);
    if (CHECK_OK(GsBandedCreate(ctx, &d, &A))) continue;
    memset(&got, 0xff, sizeof got);
    CHECK_OK(GsBandedGetDesc(A, &got));
    CHECK(got.bands == 5 && got.n == 8 && got.batch == 4 && got.dt == GS_DOUBLE &&
              got.layout == q[k].layout && got.stride == q[k].want_stride &&
              got.shared == q[k].shared && got.periodic == d.periodic,
          "GetDesc case %zu: bands %d n %lld batch %lld dt %d layout %d stride %lld shared %d "
          "periodic %d",
          k, got.bands, (long long)got.n, (long long)got.batch, (int)got.dt, (int)got.layout,
          (long long)got.stride, got.shared, got.periodic);
    CHECK_OK(GsBandedGetSizes(A, &dl, &rl));
    CHECK(dl == q[k].want_dl && rl == q[k].want_rl,
          "GetSizes case %zu: %lld, %lld; expected %lld, %lld", k, (long long)dl, (long long)rl,
          (long long)q[k].want_dl, (long long)q[k].want_rl);
    dl = -1;
    CHECK_OK(GsBandedGetSizes(A, &dl, NULL));
    CHECK(dl == q[k].want_dl, "GetSizes with rhs_len NULL");
    CHECK_OK(GsBandedGetSizes(A, NULL, NULL));
    CHECK_OK(GsBandedDestroy(&A));
    CHECK(A == NULL, "GsBandedDestroy did not clear the handle");
  }
  /* Flags are normalised to 0/1. */
  d = good, d.shared = 5, d.periodic = -2;
  if (!CHECK_OK(GsBandedCreate(ctx, &d, &A))) {
    CHECK_OK(GsBandedGetDesc(A, &got));
    CHECK(got.shared == 1 && got.periodic == 1, "GetDesc: flags %d %d, expected 1 1", got.shared,
          got.periodic);
    CHECK_OK(GsBandedGetSizes(A, &dl, &rl));
    CHECK(dl == 8 && rl == 32, "GetSizes of a shared batch: %lld %lld", (long long)dl,
          (long long)rl);
    CHECK_OK(GsBandedDestroy(&A));
  }
  CHECK_ERR(GsBandedGetDesc(NULL, &got), GS_ERR_ARG_NULL);
  CHECK_ERR(GsBandedGetSizes(NULL, &dl, &rl), GS_ERR_ARG_NULL);

  /* Destroy: NULL and twice */
  CHECK_OK(GsBandedDestroy(NULL));
  A = NULL;
  CHECK_OK(GsBandedDestroy(&A));

  /* Calls on a batch: penta double contiguous n 8, batch 4. */
  Batch b;
  batch_init(&b, &good);
  GsVec Dv[5] = {NULL, NULL, NULL, NULL, NULL}, Dflt = NULL, Dshort = NULL;
  GsVec F = NULL, X = NULL, F2 = NULL, Fodd = NULL, F0 = NULL, Fflt = NULL, Fother = NULL,
        Dother = NULL;
  GsContext ctx2 = NULL;
  double *f = NULL;
  if (CHECK_OK(GsBandedCreate(ctx, &good, &A))) goto done;
  CHECK_OK(GsBandedGetDesc(A, &got));
  CHECK(got.stride == 8, "GetDesc: stride %lld, expected n = 8", (long long)got.stride);
  CHECK_ERR(GsBandedGetDesc(A, NULL), GS_ERR_ARG_NULL);
  fill_matrix(&b, KIND_DD, r);
  for (int k = 0; k < 5; k++)
    if (!(Dv[k] = new_vec(ctx, GS_DOUBLE, 32, b.D[k]))) goto done;
  f = make_rhs(&b, 2, NAN, r);
  F = new_vec(ctx, GS_DOUBLE, 32, f);
  X = new_vec(ctx, GS_DOUBLE, 32, NULL);
  F2 = new_vec(ctx, GS_DOUBLE, 64, f);
  Fodd = new_vec(ctx, GS_DOUBLE, 33, NULL);
  F0 = new_vec(ctx, GS_DOUBLE, 0, NULL);
  Fflt = new_vec(ctx, GS_FLOAT, 32, NULL);
  Dshort = new_vec(ctx, GS_DOUBLE, 31, NULL);
  Dflt = new_vec(ctx, GS_FLOAT, 32, NULL);
  if (!F || !X || !F2 || !Fodd || !F0 || !Fflt || !Dshort || !Dflt) goto done;
  CHECK_OK(GsVecSet(Fodd, 1.0));
  CHECK_OK(GsVecSet(Fflt, 1.0));
  CHECK_OK(GsVecSet(Dshort, 1.0));
  CHECK_OK(GsVecSet(Dflt, 1.0));
  CHECK_OK(GsVecSet(X, 0.0));

  /* Solve before Factor; also after a Factor that failed its argument checks. */
  CHECK_ERR(GsBandedSolve(A, F, X), GS_ERR_WRONG_STATE);
  GsVec Dmix[5] = {Dv[0], Dv[1], Dshort, Dv[3], Dv[4]};
  CHECK_ERR(GsBandedFactor(A, Dmix), GS_ERR_ARG_SIZE);
  CHECK_MSG(ctx, "expected 32");
  CHECK_ERR(GsBandedSolve(A, F, X), GS_ERR_WRONG_STATE);

  /* Diagonals */
  CHECK_ERR(GsBandedFactor(NULL, Dv), GS_ERR_ARG_NULL);
  CHECK_ERR(GsBandedFactor(A, NULL), GS_ERR_ARG_NULL);
  GsVec Dnull[5] = {Dv[0], Dv[1], Dv[2], NULL, Dv[4]};
  CHECK_ERR(GsBandedFactor(A, Dnull), GS_ERR_ARG_NULL);
  Dmix[2] = Dflt;
  CHECK_ERR(GsBandedFactor(A, Dmix), GS_ERR_ARG_TYPE);
  Dmix[2] = F2;
  CHECK_ERR(GsBandedFactor(A, Dmix), GS_ERR_ARG_SIZE);
  CHECK_MSG(ctx, "expected 32");
  /* A vector of another context. */
  if (!CHECK_OK(GsInit(resource, &ctx2))) {
    hs_watch(ctx2);
    Dother = new_vec(ctx2, GS_DOUBLE, 32, b.D[2]);
    Fother = new_vec(ctx2, GS_DOUBLE, 32, f);
    if (Dother) {
      Dmix[2] = Dother;
      CHECK_ERR(GsBandedFactor(A, Dmix), GS_ERR_ARG_INCOMP);
      CHECK_ERR(GsBandedMult(A, Dmix, F, X), GS_ERR_ARG_INCOMP);
      CHECK_ERR(GsBandedFactorSolve(A, Dmix, F, X), GS_ERR_ARG_INCOMP);
    }
  }
  /* Diagonals of a shared batch have n entries: the per-system length is wrong. */
  {
    GsBandedDesc ds = good;
    ds.shared = 1;
    GsBanded As = NULL;
    if (!CHECK_OK(GsBandedCreate(ctx, &ds, &As))) {
      CHECK_ERR(GsBandedFactor(As, Dv), GS_ERR_ARG_SIZE);
      CHECK_MSG(ctx, "expected 8");
      CHECK_OK(GsBandedDestroy(&As));
    }
  }

  /* Right-hand sides */
  CHECK_OK(GsBandedFactor(A, Dv));
  CHECK_ERR(GsBandedSolve(NULL, F, X), GS_ERR_ARG_NULL);
  CHECK_ERR(GsBandedSolve(A, NULL, X), GS_ERR_ARG_NULL);
  CHECK_ERR(GsBandedSolve(A, F, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsBandedSolve(A, Fodd, X), GS_ERR_ARG_SIZE);
  CHECK_MSG(ctx, "32");
  CHECK_ERR(GsBandedSolve(A, F, Fodd), GS_ERR_ARG_SIZE);
  CHECK_ERR(GsBandedSolve(A, F0, F0), GS_ERR_ARG_SIZE);
  CHECK_ERR(GsBandedSolve(A, F2, X), GS_ERR_ARG_SIZE);
  CHECK_ERR(GsBandedSolve(A, F, F2), GS_ERR_ARG_SIZE);
  CHECK_ERR(GsBandedSolve(A, Fflt, X), GS_ERR_ARG_TYPE);
  CHECK_ERR(GsBandedSolve(A, F, Fflt), GS_ERR_ARG_TYPE);
  if (Fother) {
    CHECK_ERR(GsBandedSolve(A, Fother, X), GS_ERR_ARG_INCOMP);
    CHECK_ERR(GsBandedSolve(A, F, Fother), GS_ERR_ARG_INCOMP);
  }
  CHECK_ERR(GsBandedFactorSolve(NULL, Dv, F, X), GS_ERR_ARG_NULL);
  CHECK_ERR(GsBandedFactorSolve(A, NULL, F, X), GS_ERR_ARG_NULL);
  CHECK_ERR(GsBandedFactorSolve(A, Dv, Fodd, X), GS_ERR_ARG_SIZE);
  CHECK_ERR(GsBandedFactorSolve(A, Dv, F2, X), GS_ERR_ARG_SIZE);
  /* After all that the factors still solve. */
  CHECK_OK(GsBandedSolve(A, F, X));
  {
    double x[32];
    get_vec(X, GS_DOUBLE, 32, x);
    check_solution(&b, "solve after argument errors", f, x, 1, NULL, NULL);
  }

  /* Mult */
  CHECK_ERR(GsBandedMult(NULL, Dv, F, X), GS_ERR_ARG_NULL);
  CHECK_ERR(GsBandedMult(A, NULL, F, X), GS_ERR_ARG_NULL);
  CHECK_ERR(GsBandedMult(A, Dnull, F, X), GS_ERR_ARG_NULL);
  CHECK_ERR(GsBandedMult(A, Dv, NULL, X), GS_ERR_ARG_NULL);
  CHECK_ERR(GsBandedMult(A, Dv, F, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsBandedMult(A, Dv, X, X), GS_ERR_ARG_INCOMP);
  CHECK_ERR(GsBandedMult(A, Dv, F, F2), GS_ERR_ARG_SIZE);
  CHECK_ERR(GsBandedMult(A, Dv, Fodd, Fodd), GS_ERR_ARG_SIZE);
  CHECK_ERR(GsBandedMult(A, Dv, F, Fflt), GS_ERR_ARG_TYPE);

  /* Status queries */
  CHECK_ERR(GsBandedGetStatus(NULL, NULL, NULL, NULL), GS_ERR_ARG_NULL);
  CHECK_OK(GsBandedGetStatus(A, NULL, NULL, NULL));
  CHECK_ERR(GsBandedGetSystemStatus(NULL, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsBandedGetSystemStatus(A, NULL), GS_ERR_ARG_NULL);

  /* The context cannot go while the batch lives. */
  {
    GsContext keep = ctx;
    CHECK_ERR(GsDestroy(&keep), GS_ERR_WRONG_STATE);
    CHECK(keep == ctx, "a refused GsDestroy cleared the context handle");
  }

done:
  destroy_vecs(5, Dv);
  GsVecDestroy(&Dflt);
  GsVecDestroy(&Dshort);
  GsVecDestroy(&F);
  GsVecDestroy(&X);
  GsVecDestroy(&F2);
  GsVecDestroy(&Fodd);
  GsVecDestroy(&F0);
  GsVecDestroy(&Fflt);
  GsVecDestroy(&Fother);
  GsVecDestroy(&Dother);
  if (ctx2) {
    hs_unwatch(ctx2);
    CHECK_OK(GsDestroy(&ctx2));
  }
  CHECK_OK(GsBandedDestroy(&A));
  CHECK_OK(GsBandedDestroy(&A)); /* twice */
  CHECK(A == NULL, "GsBandedDestroy did not clear the handle");
  free(f);
  batch_free(&b);
}

/* ---- 6. Event log -------------------------------------------------------------------------- */

static void event_info(GsContext ctx, const char *name, GsInt *calls, double *bytes,
                       double *flops) {
  GsLogEvent ev = -1;
  *calls = -1;
  *bytes = *flops = -1;
  if (CHECK_OK(GsLogEventGetId(ctx, name, &ev))) return;
  CHECK_OK(GsLogEventGetInfo(ctx, ev, calls, NULL, bytes, flops));
}

/* GsBandedView of a batch before and after factoring, of a shared periodic SPD contiguous batch
 * with an algorithm asked for, and of a batch with a zero pivot; -banded_view prints it once,
 * after the first Factor. */
static char *view_text(GsBanded A) {
  FILE *f = tmpfile();
  if (!f) return NULL;
  CHECK_OK(GsBandedView(A, f));
  char *s = hs_read_all(f);
  fclose(f);
  return s;
}
static void test_view(GsContext ctx, HsRng *r) {
  GsBandedDesc d = {5, 12, 7, GS_DOUBLE, GS_BANDED_INTERLEAVED, 0, 0, 0, 0};
  Batch b;
  batch_init(&b, &d);
  GsBanded A = NULL;
  GsVec Dv[5] = {NULL, NULL, NULL, NULL, NULL};
  if (CHECK_OK(GsBandedCreate(ctx, &d, &A))) goto done;
  fill_matrix(&b, KIND_DD, r);
  for (int k = 0; k < 5; k++)
    if (!(Dv[k] = new_vec(ctx, d.dt, b.dl, b.D[k]))) goto done;
  char *s = view_text(A);
  CHECK(s && strstr(s, "Banded batch: 7 pentadiagonal systems of 12 rows, double") &&
            strstr(s, "layout: interleaved (row i of system s at i * 7 + s)") &&
            strstr(s, "matrix: one per system, LU without pivoting") && strstr(s, "periodic: no") &&
            (strstr(s, "(chosen automatically)") || strstr(s, "(asked for)")) &&
            strstr(s, "checks: each call") && strstr(s, "factored: no") && !strstr(s, "last call"),
        "view of a new batch:\n%s", s ? s : "");
  free(s);
  CHECK_OK(GsBandedFactor(A, Dv));
  s = view_text(A);
  CHECK(s && strstr(s, "factored: yes") && strstr(s, "last call: every system good"),
        "view after Factor:\n%s", s ? s : "");
  free(s);
  /* A zero pivot in system 4: named in the view (the rest still factored). */
  double *c = hs_malloc((size_t)b.dl * sizeof *c);
  memcpy(c, b.D[2], (size_t)b.dl * sizeof *c);
  c[midx(&b, 4, 0)] = 0;
  set_vec(Dv[2], d.dt, b.dl, c);
  free(c);
  CHECK_ERR(GsBandedFactor(A, Dv), GS_ERR_ZERO_PIVOT);
  s = view_text(A);
  CHECK(s && strstr(s, "last call: 1 bad system, the first 4 (zero or tiny pivot)"),
        "view after a zero pivot:\n%s", s ? s : "");
  free(s);
  CHECK_OK(GsBandedDestroy(&A));
  destroy_vecs(5, Dv);
  batch_free(&b);
  /* Shared, periodic, SPD, contiguous with a stride, THREAD asked for; -banded_view prints it
   * after the first Factor and not again. */
  GsBandedDesc e = {5, 40, 3, GS_FLOAT, GS_BANDED_CONTIGUOUS, 45, 1, 1, 1};
  batch_init(&b, &e);
  fill_matrix(&b, KIND_SPD_SMALL, r);
  CHECK_OK(GsOptionsSetValue(ctx, "-banded_view", NULL));
  const int rc = GsBandedCreate(ctx, &e, &A);
  CHECK_OK(GsOptionsClearValue(ctx, "-banded_view"));
  if (CHECK_OK(rc)) goto done;
  for (int k = 0; k < 5; k++)
    if (!(Dv[k] = new_vec(ctx, e.dt, b.dl, b.D[k]))) goto done;
  CHECK_OK(GsBandedSetAlgorithm(A, GS_BANDED_ALGORITHM_THREAD));
  CHECK(hs_capture_begin() == 0, "cannot capture stdout");
  CHECK_OK(GsBandedFactor(A, Dv));
  CHECK_OK(GsBandedFactor(A, Dv));
  char *out = hs_capture_end();
  CHECK(out && hs_count(out, "Banded batch:") == 1 &&
            strstr(out, "Banded batch: 3 pentadiagonal systems of 40 rows, float") &&
            strstr(out, "layout: contiguous (row i of system s at s * 45 + i)") &&
            strstr(out, "matrix: one shared by the batch, LDL^T") &&
            strstr(out, "periodic: yes (the last 2 unknowns of each system eliminated)") &&
            strstr(out, "algorithm: thread (asked for)") && strstr(out, "factored: yes"),
        "-banded_view printed:\n%s", out ? out : "");
  free(out);
  CHECK_ERR(GsBandedView(NULL, NULL), GS_ERR_ARG_NULL);
done:
  GsBandedDestroy(&A);
  destroy_vecs(5, Dv);
  batch_free(&b);
}

static void test_log(GsContext ctx, HsRng *r) {
  GsBandedDesc d = {3, 50, 10, GS_FLOAT, GS_BANDED_INTERLEAVED, 0, 0, 1, 0};
  Batch b;
  batch_init(&b, &d);
  GsBanded A = NULL;
  GsVec Dv[5] = {NULL, NULL, NULL, NULL, NULL}, F = NULL, X = NULL, F2 = NULL, X2 = NULL;
  double *f = NULL;
  if (CHECK_OK(GsBandedCreate(ctx, &d, &A))) goto done;
  fill_matrix(&b, KIND_DD, r);
  for (int k = 0; k < 3; k++)
    if (!(Dv[k] = new_vec(ctx, d.dt, b.dl, b.D[k]))) goto done;
  f = make_rhs(&b, 2, NAN, r);
  F = new_vec(ctx, d.dt, b.rl, f);
  X = new_vec(ctx, d.dt, b.rl, NULL);
  F2 = new_vec(ctx, d.dt, 2 * b.rl, f);
  X2 = new_vec(ctx, d.dt, 2 * b.rl, NULL);
  if (!F || !X || !F2 || !X2) goto done;

  GsInt f0, s0, m0, f1, s1, m1;
  double bf, bs, bm, ff, fs, fm, bytes, flops;
  CHECK_OK(GsLogEnable(ctx, 1));
  event_info(ctx, "BandedFactor", &f0, &bf, &ff);
  event_info(ctx, "BandedSolve", &s0, &bs, &fs);
  event_info(ctx, "BandedMult", &m0, &bm, &fm);
  CHECK_OK(GsBandedFactor(A, Dv));
  CHECK_OK(GsBandedSolve(A, F, X));
  CHECK_OK(GsBandedSolve(A, F2, X2));
  CHECK_OK(GsBandedFactorSolve(A, Dv, F, X));
  CHECK_ERR(GsBandedSolve(A, F, X2), GS_ERR_ARG_SIZE); /* refused: not counted */
  CHECK_ERR(GsBandedFactor(A, NULL), GS_ERR_ARG_NULL);
  event_info(ctx, "BandedFactor", &f1, &bytes, &flops);
  CHECK(f1 - f0 == 2, "BandedFactor counted %lld calls, expected 2", (long long)(f1 - f0));
  CHECK(bytes > bf, "BandedFactor credited no bytes");
  event_info(ctx, "BandedSolve", &s1, &bytes, &flops);
  CHECK(s1 - s0 == 3, "BandedSolve counted %lld calls, expected 3", (long long)(s1 - s0));
  CHECK(bytes > bs, "BandedSolve credited no bytes");

  /* Mult: one block, then two; the work credited doubles with the blocks. */
  CHECK_OK(GsBandedMult(A, Dv, F, X));
  GsInt mm;
  double bm1, fm1, bm2, fm2;
  event_info(ctx, "BandedMult", &mm, &bm1, &fm1);
  CHECK(mm - m0 == 1, "BandedMult counted %lld calls, expected 1", (long long)(mm - m0));
  CHECK_OK(GsBandedMult(A, Dv, F2, X2));
  event_info(ctx, "BandedMult", &m1, &bm2, &fm2);
  CHECK(m1 - m0 == 2, "BandedMult counted %lld calls, expected 2", (long long)(m1 - m0));
  CHECK(fm1 - fm > 0 && fm2 - fm1 == 2 * (fm1 - fm),
        "BandedMult flops: %g for one block of right-hand sides, %g for two (expected twice)",
        fm1 - fm, fm2 - fm1);
  CHECK(bm2 - bm1 > bm1 - bm, "BandedMult bytes: %g for one block, %g for two", bm1 - bm,
        bm2 - bm1);

  /* A call that finds bad systems still ran and counts. */
  b.D[1][0] = 0; /* system 0, row 0 (interleaved): main diagonal */
  b.D[2][0] = 0;
  b.D[0][0] = 0;
  set_vec(Dv[0], d.dt, b.dl, b.D[0]);
  set_vec(Dv[1], d.dt, b.dl, b.D[1]);
  set_vec(Dv[2], d.dt, b.dl, b.D[2]);
  CHECK_ERR(GsBandedFactor(A, Dv), GS_ERR_ZERO_PIVOT);
  CHECK_ERR(GsBandedSolve(A, F, X), GS_ERR_ZERO_PIVOT);
  event_info(ctx, "BandedFactor", &f0, &bytes, &flops);
  event_info(ctx, "BandedSolve", &s0, &bytes, &flops);
  CHECK(f0 - f1 == 1 && s0 - s1 == 1,
        "calls finding bad systems: %lld factor and %lld solve counted, expected 1 and 1",
        (long long)(f0 - f1), (long long)(s0 - s1));

  /* Logging off: nothing counts. */
  CHECK_OK(GsLogEnable(ctx, 0));
  GsBandedFactor(A, Dv);
  GsBandedSolve(A, F, X);
  event_info(ctx, "BandedFactor", &f1, &bytes, &flops);
  event_info(ctx, "BandedSolve", &s1, &bytes, &flops);
  CHECK(f1 == f0 && s1 == s0, "with logging off, calls were counted");
done:
  CHECK_OK(GsLogEnable(ctx, 0));
  destroy_vecs(5, Dv);
  GsVecDestroy(&F);
  GsVecDestroy(&X);
  GsVecDestroy(&F2);
  GsVecDestroy(&X2);
  CHECK_OK(GsBandedDestroy(&A));
  free(f);
  batch_free(&b);
}

/* FactorSolve on per-system, non-periodic matrices with one block is a fused sweep that keeps
 * only part of the factors: a Solve after it must be refused until a Factor; it is logged as
 * BandedFactorSolve. With periodic matrices (or several blocks) the factors are kept. */
static void test_fused_state(GsContext ctx, HsRng *r) {
  for (int periodic = 0; periodic < 2; periodic++) {
    GsBandedDesc d = {5, 40, 9, GS_DOUBLE, GS_BANDED_INTERLEAVED, 0, 0, periodic, 0};
    Batch b;
    batch_init(&b, &d);
    GsBanded A = NULL;
    GsVec Dv[5] = {NULL, NULL, NULL, NULL, NULL}, F = NULL, X = NULL;
    double *f = NULL;
    if (CHECK_OK(GsBandedCreate(ctx, &d, &A))) goto done;
    /* The fused sweep belongs to the one-thread-per-system algorithm (whatever -banded_partitions
     * the environment sets for the rest of this test). */
    CHECK_OK(GsBandedSetPartitions(A, 1));
    fill_matrix(&b, KIND_DD, r);
    for (int k = 0; k < 5; k++)
      if (!(Dv[k] = new_vec(ctx, d.dt, b.dl, b.D[k]))) goto done;
    f = make_rhs(&b, 1, NAN, r);
    F = new_vec(ctx, d.dt, b.rl, f);
    X = new_vec(ctx, d.dt, b.rl, NULL);
    if (!F || !X) goto done;
    GsInt c0 = 0, c1 = 0;
    double bytes, flops;
    CHECK_OK(GsLogEnable(ctx, 1));
    event_info(ctx, "BandedFactorSolve", &c0, &bytes, &flops);
    CHECK_OK(GsBandedFactorSolve(A, Dv, F, X));
    event_info(ctx, "BandedFactorSolve", &c1, &bytes, &flops);
    CHECK(c1 - c0 == (periodic ? 0 : 1), "%s FactorSolve logged %lld fused calls",
          periodic ? "periodic" : "non-periodic", (long long)(c1 - c0));
    if (periodic) {
      CHECK_OK(GsBandedSolve(A, F, X));
    } else {
      CHECK_ERR(GsBandedSolve(A, F, X), GS_ERR_WRONG_STATE);
      CHECK_MSG(ctx, "GsBandedFactor");
      CHECK_OK(GsBandedFactor(A, Dv));
      CHECK_OK(GsBandedSolve(A, F, X));
    }
    /* Chosen automatically (on a GPU: the scan, for 9 systems), a refactor-each-call still takes
     * the fused sweep; the scan set explicitly factors and solves. */
    GsDeviceInfo dev;
    memset(&dev, 0, sizeof dev);
    dev.device_id = -1;
    CHECK_OK(GsGetDeviceInfo(ctx, &dev));
    for (int v = 0; v < 2; v++) {
      CHECK_OK(GsBandedSetAlgorithm(A, v ? GS_BANDED_ALGORITHM_SCAN : GS_BANDED_ALGORITHM_AUTO));
      GsBandedAlgorithm got = GS_BANDED_ALGORITHM_AUTO;
      CHECK_OK(GsBandedGetAlgorithm(A, &got));
      const GsBandedAlgorithm expect =
          v || dev.device_id >= 0 ? GS_BANDED_ALGORITHM_SCAN : GS_BANDED_ALGORITHM_THREAD;
      CHECK(got == expect, "%s FactorSolve case %d: algorithm %s, expected %s",
            periodic ? "periodic" : "non-periodic", v, GsBandedAlgorithmName(got),
            GsBandedAlgorithmName(expect));
      event_info(ctx, "BandedFactorSolve", &c0, &bytes, &flops);
      CHECK_OK(GsBandedFactorSolve(A, Dv, F, X));
      event_info(ctx, "BandedFactorSolve", &c1, &bytes, &flops);
      CHECK(c1 - c0 == (periodic || v ? 0 : 1), "%s FactorSolve, algorithm %s: %lld fused calls",
            periodic ? "periodic" : "non-periodic", v ? "scan" : "auto", (long long)(c1 - c0));
    }
  done:
    CHECK_OK(GsLogEnable(ctx, 0));
    destroy_vecs(5, Dv);
    GsVecDestroy(&F);
    GsVecDestroy(&X);
    CHECK_OK(GsBandedDestroy(&A));
    free(f);
    batch_free(&b);
  }
}

/* Choosing the algorithm: GsBandedSetPartitions / GetPartitions, its errors, that it drops the
 * factors, and that a partitioned solve gives the one-thread-per-system answer. */
static void test_partitions(GsContext ctx, HsRng *r) {
  GsBandedDesc d = {5, 100, 7, GS_DOUBLE, GS_BANDED_INTERLEAVED, 0, 0, 0, 0};
  Batch b;
  batch_init(&b, &d);
  GsBanded A = NULL, Ap = NULL;
  GsVec Dv[5] = {NULL, NULL, NULL, NULL, NULL}, F = NULL, X = NULL, Xp = NULL;
  double *f = NULL, *x1 = NULL, *x2 = NULL;
  if (CHECK_OK(GsBandedCreate(ctx, &d, &A)) || CHECK_OK(GsBandedCreate(ctx, &d, &Ap))) goto done;
  int parts = -1;
  CHECK_OK(GsBandedSetPartitions(A, 1));
  CHECK_OK(GsBandedGetPartitions(A, &parts));
  CHECK(parts == 1, "GetPartitions gave %d after setting 1", parts);
  CHECK_OK(GsBandedSetPartitions(Ap, 6));
  CHECK_OK(GsBandedGetPartitions(Ap, &parts));
  CHECK(parts == 6, "GetPartitions gave %d after setting 6", parts);
  CHECK_ERR(GsBandedSetPartitions(Ap, -1), GS_ERR_ARG_OUTOFRANGE);
  CHECK_ERR(GsBandedSetPartitions(Ap, 50), GS_ERR_ARG_OUTOFRANGE); /* 2 rows a partition */
  CHECK_MSG(ctx, "rows per partition");
  CHECK_ERR(GsBandedGetPartitions(Ap, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsBandedSetPartitions(NULL, 2), GS_ERR_ARG_NULL);
  CHECK_OK(GsBandedSetPartitions(Ap, 6));
  fill_matrix(&b, KIND_DD, r);
  for (int k = 0; k < 5; k++)
    if (!(Dv[k] = new_vec(ctx, d.dt, b.dl, b.D[k]))) goto done;
  f = make_rhs(&b, 1, NAN, r);
  F = new_vec(ctx, d.dt, b.rl, f);
  X = new_vec(ctx, d.dt, b.rl, NULL);
  Xp = new_vec(ctx, d.dt, b.rl, NULL);
  if (!F || !X || !Xp) goto done;
  CHECK_OK(GsBandedFactor(A, Dv));
  CHECK_OK(GsBandedSolve(A, F, X));
  CHECK_OK(GsBandedFactor(Ap, Dv));
  CHECK_OK(GsBandedSolve(Ap, F, Xp));
  x1 = hs_malloc((size_t)b.rl * sizeof *x1);
  x2 = hs_malloc((size_t)b.rl * sizeof *x2);
  CHECK_OK(GsVecGetValuesHost(X, x1));
  CHECK_OK(GsVecGetValuesHost(Xp, x2));
  double worst = 0;
  for (GsInt i = 0; i < b.rl; i++) {
    double e = fabs(x1[i] - x2[i]) / (1 + fabs(x1[i]));
    worst = e > worst || e != e ? e : worst;
  }
  CHECK(worst < 1e-13, "6 partitions differ from 1 by %g", worst);
  /* Changing the algorithm drops the factors. */
  CHECK_OK(GsBandedSetPartitions(Ap, 2));
  CHECK_ERR(GsBandedSolve(Ap, F, Xp), GS_ERR_WRONG_STATE);
  /* Periodic batches: the leading block is partitioned; too many partitions for n - h rows is a
   * named error that counts the rows of that block. */
  GsBandedDesc dp = d;
  dp.periodic = 1;
  GsBanded Aper = NULL;
  if (!CHECK_OK(GsBandedCreate(ctx, &dp, &Aper))) {
    CHECK_OK(GsBandedSetPartitions(Aper, 4));
    CHECK_OK(GsBandedGetPartitions(Aper, &parts));
    CHECK(parts == 4, "partitions of a periodic batch: %d", parts);
    CHECK_ERR(GsBandedSetPartitions(Aper, 13), GS_ERR_ARG_OUTOFRANGE); /* 98 rows / 13 < 8 */
    CHECK_MSG(ctx, "n - h = 98");
    CHECK_OK(GsBandedDestroy(&Aper));
  }
  /* Periodic partitioned solves in every layout, sharing, precision and mode, against the
   * residual bound (and the dense reference of run_case's checks). */
  static const struct {
    int bands, shared, contig, parts, mode;
    GsInt n, batch;
    GsDataType dt;
  } pc[] = {{5, 0, 0, 2, MODE_TWICE, 64, 5, GS_DOUBLE},
            {5, 1, 0, 5, MODE_NRHS, 203, 7, GS_DOUBLE},
            {5, 0, 1, 16, MODE_INPLACE, 517, 3, GS_DOUBLE},
            {5, 1, 1, 3, MODE_TWICE, 100, 1, GS_FLOAT},
            {3, 0, 0, 7, MODE_NRHS, 131, 4, GS_DOUBLE},
            {3, 1, 1, 2, MODE_INPLACE, 24, 9, GS_FLOAT},
            {3, 0, 1, 9, MODE_FACTORSOLVE, 300, 2, GS_DOUBLE},
            /* more partitions than a warp's lanes (a GPU's reduced solve: several a lane) */
            {5, 0, 0, 70, MODE_NRHS, 3002, 3, GS_DOUBLE},
            {3, 1, 0, 100, MODE_TWICE, 2001, 5, GS_FLOAT},
            /* more than a reduced-solve block's 128 threads (several partitions a thread) */
            {5, 0, 0, 150, MODE_NRHS, 3002, 3, GS_DOUBLE},
            /* partitions a GPU solves as chunked scans (penta 257 to 512 rows, tri up to 512) */
            {5, 0, 0, 3, MODE_TWICE, 1002, 5, GS_DOUBLE},
            {5, 0, 1, 2, MODE_NRHS, 702, 3, GS_FLOAT},
            {3, 0, 1, 5, MODE_INPLACE, 1001, 4, GS_DOUBLE},
            {3, 0, 0, 40, MODE_FACTORSOLVE, 2001, 6, GS_DOUBLE}};
  for (size_t k = 0; k < sizeof pc / sizeof pc[0]; k++) {
    GsBandedDesc dk = {pc[k].bands,
                       pc[k].n,
                       pc[k].batch,
                       pc[k].dt,
                       pc[k].contig ? GS_BANDED_CONTIGUOUS : GS_BANDED_INTERLEAVED,
                       pc[k].contig ? pc[k].n + 3 : 0,
                       pc[k].shared,
                       1,
                       0};
    force_parts = pc[k].parts;
    for (int kind = 0; kind < NKIND; kind++)
      run_case(ctx, &dk, kind, pc[k].mode, r);
    force_parts = 0;
  }
  /* Interleaved partitioned batches of their own matrices, not periodic: a GPU runs the partial
   * solves as chunked scans where a partition has at most 512 rows (tri) or 257 to 512 (penta),
   * including uneven partitions, partitions shorter than a chunk, LDL^T (double and float: the
   * back substitution's factors loaded early in both kernels), several right-hand-side blocks,
   * in place, and a batch of one; 512 x 2 penta (256 rows) stays one thread a partition;
   * the next five have more partitions than a warp has lanes (the GPU's reduced solve; the last
   * two more than its block has threads); the last has partitions of 4500 rows (one thread each on
   * a GPU: more than a scan block's chunks). */
  static const struct {
    int bands, spd, parts, mode;
    GsInt n, batch;
    GsDataType dt;
  } pn[] = {{5, 0, 2, MODE_TWICE, 900, 37, GS_DOUBLE},
            {5, 0, 4, MODE_NRHS, 1537, 5, GS_FLOAT},
            {5, 1, 3, MODE_INPLACE, 1000, 16, GS_DOUBLE},
            {5, 1, 2, MODE_NRHS, 1001, 6, GS_FLOAT},
            {5, 0, 2, MODE_FACTORSOLVE, 700, 3, GS_DOUBLE},
            {5, 0, 2, MODE_TWICE, 512, 7, GS_DOUBLE},
            {3, 0, 5, MODE_NRHS, 1000, 9, GS_DOUBLE},
            {3, 1, 7, MODE_INPLACE, 77, 40, GS_FLOAT},
            {3, 0, 2, MODE_TWICE, 1024, 1, GS_DOUBLE},
            {3, 0, 3, MODE_FACTORSOLVE, 1500, 33, GS_DOUBLE},
            {3, 0, 100, MODE_NRHS, 2000, 6, GS_DOUBLE},
            {5, 1, 70, MODE_TWICE, 3000, 4, GS_DOUBLE},
            {3, 0, 300, MODE_TWICE, 3000, 5, GS_DOUBLE},
            {5, 0, 200, MODE_INPLACE, 4000, 3, GS_FLOAT},
            {5, 0, 33, MODE_INPLACE, 9000, 2, GS_FLOAT},
            {3, 0, 2, MODE_TWICE, 9000, 2, GS_DOUBLE}};
  for (size_t k = 0; k < sizeof pn / sizeof pn[0]; k++) {
    GsBandedDesc dk = {pn[k].bands, pn[k].n, pn[k].batch, pn[k].dt, GS_BANDED_INTERLEAVED,
                       0,           0,       0,           pn[k].spd};
    force_parts = pn[k].parts;
    for (int kind = pn[k].spd ? 1 : 0; kind < NKIND; kind++)
      run_case(ctx, &dk, kind, pn[k].mode, r);
    force_parts = 0;
  }
done:
  destroy_vecs(5, Dv);
  GsVecDestroy(&F);
  GsVecDestroy(&X);
  GsVecDestroy(&Xp);
  CHECK_OK(GsBandedDestroy(&A));
  CHECK_OK(GsBandedDestroy(&Ap));
  free(f);
  free(x1);
  free(x2);
  batch_free(&b);
}

/* The LDL^T path refuses matrices that are not positive definite: a negative main diagonal in one
 * system of a batch is a zero (non-positive) pivot naming that system, the others are solved.
 * GsBandedGetDesc reports the flag. */
static void test_spd_refuses(GsContext ctx, HsRng *r) {
  GsBandedDesc d = {5, 30, 6, GS_DOUBLE, GS_BANDED_INTERLEAVED, 0, 0, 0, 1};
  Batch b;
  batch_init(&b, &d);
  GsBanded A = NULL;
  GsVec Dv[5] = {NULL, NULL, NULL, NULL, NULL}, F = NULL, X = NULL;
  double *f = NULL;
  if (CHECK_OK(GsBandedCreate(ctx, &d, &A))) goto done;
  GsBandedDesc got;
  CHECK_OK(GsBandedGetDesc(A, &got));
  CHECK(got.spd == 1, "GetDesc lost the spd flag (%d)", got.spd);
  fill_matrix(&b, KIND_SPD_SMALL, r);
  b.D[2][midx(&b, 4, 0)] = -5.0; /* system 4, row 0: negative pivot */
  for (int k = 0; k < 5; k++)
    if (!(Dv[k] = new_vec(ctx, d.dt, b.dl, b.D[k]))) goto done;
  f = make_rhs(&b, 1, NAN, r);
  F = new_vec(ctx, d.dt, b.rl, f);
  X = new_vec(ctx, d.dt, b.rl, NULL);
  if (!F || !X) goto done;
  CHECK_ERR(GsBandedFactor(A, Dv), GS_ERR_ZERO_PIVOT);
  CHECK_MSG(ctx, "system 4");
  GsInt nbad = 0, first = -1;
  CHECK_OK(GsBandedGetStatus(A, &nbad, &first, NULL));
  CHECK(nbad == 1 && first == 4, "spd refusal: %lld bad, first %lld (want 1, 4)", (long long)nbad,
        (long long)first);
  CHECK_ERR(GsBandedSolve(A, F, X), GS_ERR_ZERO_PIVOT);
done:
  destroy_vecs(5, Dv);
  GsVecDestroy(&F);
  GsVecDestroy(&X);
  CHECK_OK(GsBandedDestroy(&A));
  free(f);
  batch_free(&b);
}

/* Solve one batch with algorithm `algo` (nrhs blocks); the solution into x (host, rl * nrhs). */

static int solve_with(GsContext ctx, const Batch *b, GsBandedAlgorithm algo, GsInt nrhs,
                      const double *f, double *x) {
  GsBanded A = NULL;
  GsVec Dv[5] = {NULL, NULL, NULL, NULL, NULL}, F = NULL, X = NULL;
  int bad = 1;
  if (CHECK_OK(GsBandedCreate(ctx, &b->d, &A)) || CHECK_OK(GsBandedSetAlgorithm(A, algo)))
    goto done;
  GsBandedAlgorithm got = GS_BANDED_ALGORITHM_AUTO;
  CHECK_OK(GsBandedGetAlgorithm(A, &got));
  CHECK(got == algo, "GetAlgorithm gave %s after setting %s", GsBandedAlgorithmName(got),
        GsBandedAlgorithmName(algo));
  for (int k = 0; k < b->d.bands; k++)
    if (!(Dv[k] = new_vec(ctx, b->d.dt, b->dl, b->D[k]))) goto done;
  if (!(F = new_vec(ctx, b->d.dt, b->rl * nrhs, f)) ||
      !(X = new_vec(ctx, b->d.dt, b->rl * nrhs, x)))
    goto done;
  CHECK_OK(GsBandedFactor(A, Dv));
  CHECK_OK(GsBandedSolve(A, F, X));
  CHECK_OK(get_vec(X, b->d.dt, b->rl * nrhs, x));
  bad = 0;
done:
  release_solve(Dv, &F, &X, &A);
  return bad;
}

/* Solve the batch b (its matrix filled as kind) with one thread per system and with algo, two
 * blocks of random right-hand sides: algo's residuals, and its distance to the thread's solution
 * within 64 eps kappa of max|x|. */
static void versus_thread(GsContext ctx, Batch *b, int kind, GsBandedAlgorithm algo, HsRng *r) {
  const GsInt nrhs = 2, len = b->rl * nrhs;
  double *f = make_rhs(b, nrhs, 0.0, r);
  double *x1 = make_x0(b, nrhs), *x2 = make_x0(b, nrhs);
  char what[256], label[64];
  snprintf(label, sizeof label, "%s vs thread", GsBandedAlgorithmName(algo));
  describe(b, kind, label, what, sizeof what);
  if (!solve_with(ctx, b, GS_BANDED_ALGORITHM_THREAD, nrhs, f, x1) &&
      !solve_with(ctx, b, algo, nrhs, f, x2)) {
    check_solution(b, what, f, x2, nrhs, NULL, x1);
    double worst = 0, scale = 0;
    for (GsInt k = 0; k < len; k++)
      scale = fmax(scale, fabs(x1[k]));
    for (GsInt k = 0; k < len; k++) {
      const double e = fabs(x1[k] - x2[k]) / scale;
      worst = e > worst || e != e ? e : worst;
    }
    const double tol = 64 * hs_type_eps(b->d.dt) * b->kappa;
    CHECK(worst <= tol, "%s: %s and thread differ by %.3g of max|x| (tolerance %.3g)", what,
          GsBandedAlgorithmName(algo), worst, tol);
  }
  free(f);
  free(x1);
  free(x2);
}

/* versus_thread on a fresh batch of shape d with matrices of the given kind. */
static void versus_thread_desc(GsContext ctx, const GsBandedDesc *d, int kind,
                               GsBandedAlgorithm algo, HsRng *r) {
  Batch b;
  batch_init(&b, d);
  fill_matrix(&b, kind, r);
  versus_thread(ctx, &b, kind, algo, r);
  batch_free(&b);
}

/* Whether staged_case_algo's scan 2 cases (test_scan_wide) are periodic, and whether they take
 * KIND_SPD_LARGE matrices (solved by LU) instead of diagonally dominant ones. */
static int wide_periodic = 0, wide_large = 0;

/* An A/B case's arrays and batch, freed. */
static void free_ab(double *f, double *x0, double *x1, int *st0, int *st1, Batch *b) {
  free(f);
  free(x0);
  free(x1);
  free(st0);
  free(st1);
  batch_free(b);
}

/* x1 has x0's bits in all len entries (x0 from `other`). */
static void check_same_bits(const char *what, const double *x0, const double *x1, GsInt len,
                            const char *other) {
  GsInt diff = 0, first = -1;
  for (GsInt k = 0; k < len; k++)
    if (!same(x0[k], x1[k])) {
      if (first < 0) first = k;
      diff++;
    }
  CHECK(diff == 0, "%s: %lld entries differ from %s; first [%lld]: %.17g, %.17g", what,
        (long long)diff, other, (long long)first, first >= 0 ? x1[first] : 0.0,
        first >= 0 ? x0[first] : 0.0);
}

/* One staged_case run: solve batch b (one thread per system, -banded_staged mode; with scan,
 * the chunked scan with -banded_scan_pair mode; scan 2: with -banded_scan_wide mode; scan 3: a
 * shared matrix by TILE with -banded_tile_image mode; scan 4: the chunked scan with
 * -banded_scan_halves mode; scan 5: a shared matrix by TILE with -banded_tile_tail mode; scan 6:
 * a shared matrix by TILE with -banded_tile_next mode) with nrhs blocks f, in place or not; x,
 * the call's error code and the per-system statuses back. */
static int staged_run_algo(GsContext ctx, const Batch *b, int scan, const char *mode, GsInt nrhs,
                           int inplace, const double *f, double *x, int *fcode, int *code, int *st,
                           int *staged) {
  GsBanded A = NULL;
  GsVec Dv[5] = {NULL, NULL, NULL, NULL, NULL}, F = NULL, X = NULL;
  int bad = 1;
  const GsInt len = b->rl * nrhs;
  CHECK_OK(GsOptionsSetValue(ctx,
                             scan == 6   ? "-banded_tile_next"
                             : scan == 5 ? "-banded_tile_tail"
                             : scan == 4 ? "-banded_scan_halves"
                             : scan == 3 ? "-banded_tile_image"
                             : scan == 2 ? "-banded_scan_wide"
                             : scan      ? "-banded_scan_pair"
                                         : "-banded_staged",
                             mode));
  if (CHECK_OK(GsBandedCreate(ctx, &b->d, &A)) ||
      CHECK_OK(GsBandedSetAlgorithm(A, scan == 3 || scan >= 5 ? GS_BANDED_ALGORITHM_TILE
                                       : scan                 ? GS_BANDED_ALGORITHM_SCAN
                                                              : GS_BANDED_ALGORITHM_THREAD)))
    goto done;
  for (int k = 0; k < b->d.bands; k++)
    if (!(Dv[k] = new_vec(ctx, b->d.dt, b->dl, b->D[k]))) goto done;
  if (!(X = new_vec(ctx, b->d.dt, len, inplace ? f : NULL))) goto done;
  if (!inplace && !(F = new_vec(ctx, b->d.dt, len, f))) goto done;
  if (!inplace) CHECK_OK(GsVecSet(X, NAN));
  *fcode = GsBandedFactor(A, Dv);
  CHECK_OK(GsBandedGetStaged(A, staged));
  CHECK(*staged == 0, "GsBandedGetStaged after GsBandedFactor: %d", *staged);
  *code = GsBandedSolve(A, inplace ? X : F, X);
  CHECK_OK(GsBandedGetStaged(A, staged));
  CHECK_ERR(GsBandedGetStaged(A, NULL), GS_ERR_ARG_NULL);
  CHECK_OK(get_vec(X, b->d.dt, len, x));
  CHECK_OK(GsBandedGetSystemStatus(A, st));
  bad = 0;
done:
  release_solve(Dv, &F, &X, &A);
  return bad;
}
static int staged_run(GsContext ctx, const Batch *b, const char *mode, GsInt nrhs, int inplace,
                      const double *f, double *x, int *fcode, int *code, int *st, int *staged) {
  return staged_run_algo(ctx, b, 0, mode, nrhs, inplace, f, x, fcode, code, st, staged);
}

/* -banded_staged on (GPU: one thread per system, the rows coming through shared memory by TMA
 * tiles of 32 rows x 32 systems, g kept in L2) against off (the plain kernel): the same bits and
 * statuses, and the residuals. Shapes: a batch not a multiple of 32 (the last warp part empty),
 * rows not a multiple of the 32-row chunks, a single short chunk, exact chunks, two blocks of
 * right-hand sides, in place; with bad systems (bad != 0): a zero pivot in the last system (past
 * the last full warp) and a NaN in another's right-hand side, reported with their indices while
 * the others are solved. On the CPU the option changes nothing. */
static void staged_case_algo(GsContext ctx, int scan, int bands, GsDataType dt, GsInt n,
                             GsInt batch, GsInt nrhs, int inplace, int bad, int spd, HsRng *r) {
  const int wide = scan == 2 || scan == 4;
  GsBandedDesc d = {bands, n, batch, dt, GS_BANDED_INTERLEAVED, 0, 0, wide ? wide_periodic : 0,
                    spd};
  Batch b;
  batch_init(&b, &d);
  const int kind = wide && wide_large ? KIND_SPD_LARGE : spd ? KIND_SPD_SMALL : KIND_DD;
  fill_matrix(&b, kind, r);
  char what[256];
  describe(&b, kind,
           scan == 4   ? (inplace ? "scan halves, in place" : "scan halves")
           : scan == 2 ? (inplace ? "scan wide, in place" : "scan wide")
           : scan      ? (inplace ? "scan pairs, in place" : "scan pairs")
                       : (inplace ? "staged, in place" : "staged"),
           what, sizeof what);
  const GsInt len = b.rl * nrhs, snan = batch / 3;
  if (bad) zero_row(&b, batch - 1, n / 2);
  double *f = make_rhs(&b, nrhs, 0.0, r);
  if (bad) f[(nrhs - 1) * b.rl + ridx(&b, snan, n - 1)] = NAN;
  double *x0 = hs_malloc((size_t)len * sizeof *x0), *x1 = hs_malloc((size_t)len * sizeof *x1);
  int *st0 = hs_malloc((size_t)batch * sizeof *st0), *st1 = hs_malloc((size_t)batch * sizeof *st1);
  int fc0 = 0, fc1 = 0, c0 = 0, c1 = 0, sg0 = -1, sg1 = -1;
  /* Staged where the back end can (a GPU of compute capability 9.0 or newer) and the rows are
   * 16-byte aligned; scan pairs on any GPU, in double, where the blocks hold whole 16-row chunks
   * (the scan's 256 threads, P chunks of ns = 256 / P systems a block, P ns = 256) and the batch
   * is whole pairs of blocks, not periodic, and not the LDL^T-only pentadiagonal kernels. */
  GsDeviceInfo dev;
  memset(&dev, 0, sizeof dev);
  CHECK_OK(GsGetDeviceInfo(ctx, &dev));
  const GsInt P = (n + 15) / 16, nsb = P > 0 ? 256 / P : 0;
  const int can = wide   ? 0 /* (512-thread blocks are not staged) */
                  : scan ? dev.compute_major > 0 && dt == GS_DOUBLE && n > 256 && P <= 256 &&
                               nsb * P == 256 && nsb % 2 == 0 && batch % (2 * nsb) == 0 &&
                               !(bands == 5 && spd)
                         : dev.compute_major >= 9 && (batch * (GsInt)GsDataTypeSize(dt)) % 16 == 0;
  if (!staged_run_algo(ctx, &b, scan, "off", nrhs, inplace, f, x0, &fc0, &c0, st0, &sg0) &&
      !staged_run_algo(ctx, &b, scan, "on", nrhs, inplace, f, x1, &fc1, &c1, st1, &sg1)) {
    CHECK(sg0 == 0 && sg1 == can, "%s: staged %d with off, %d with on; expected 0 and %d", what,
          sg0, sg1, can);
    CHECK(fc0 == fc1 && fc1 == (bad ? GS_ERR_ZERO_PIVOT : 0),
          "%s: Factor returned %d (plain: %d), expected %d", what, fc1, fc0,
          bad ? GS_ERR_ZERO_PIVOT : 0);
    check_same_bits(what, x0, x1, len, "the plain kernel's");
    CHECK(c0 == c1, "%s: error %d, the plain kernel's %d", what, c1, c0);
    GsInt sdiff = 0;
    for (GsInt s = 0; s < batch; s++)
      sdiff += st0[s] != st1[s];
    CHECK(sdiff == 0, "%s: %lld statuses differ from the plain kernel's", what, (long long)sdiff);
    char *skip = hs_malloc((size_t)batch);
    memset(skip, 0, (size_t)batch);
    if (bad) {
      /* The call's error is that of the first bad system: the NaN, before the zero pivot. */
      CHECK(c1 == GS_ERR_NOT_FINITE, "%s: error %d, expected a non-finite value", what, c1);
      CHECK(st1[batch - 1] == GS_BANDED_ZERO_PIVOT && st1[snan] == GS_BANDED_NOT_FINITE,
            "%s: statuses of systems %lld and %lld: %d and %d", what, (long long)(batch - 1),
            (long long)snan, st1[batch - 1], st1[snan]);
      check_nan_system(&b, what, x1, batch - 1, nrhs);
      skip[batch - 1] = skip[snan] = 1;
    } else {
      CHECK(c1 == 0, "%s: error %d", what, c1);
    }
    check_solution(&b, what, f, x1, nrhs, skip, NULL);
    free(skip);
  }
  free_ab(f, x0, x1, st0, st1, &b);
}

static void staged_case(GsContext ctx, int bands, GsDataType dt, GsInt n, GsInt batch, GsInt nrhs,
                        int inplace, int bad, int spd, HsRng *r) {
  staged_case_algo(ctx, 0, bands, dt, n, batch, nrhs, inplace, bad, spd, r);
}

/* An unknown value of option opt is a named error of GsBandedCreate; then opt is prev again. */
static void bad_option_value(GsContext ctx, const char *opt, const char *value, const char *prev) {
  GsBandedDesc d = {5, 100, 8, GS_DOUBLE, GS_BANDED_INTERLEAVED, 0, 0, 0, 0};
  GsBanded A = NULL;
  CHECK_OK(GsOptionsSetValue(ctx, opt, value));
  CHECK_ERR(GsBandedCreate(ctx, &d, &A), GS_ERR_OPTION);
  CHECK_MSG(ctx, opt);
  CHECK_OK(GsOptionsSetValue(ctx, opt, prev));
}

/* -banded_scan_pair on against off (GPU: a scan block solves two groups of systems, f and x
 * through shared memory): the same bits and statuses, and the residuals, with bad systems (a zero
 * pivot in the last system, a NaN in another's right-hand side) reported while the others are
 * solved; 64 chunks of 16 rows (4 systems a block), a partial last chunk (1010 rows), 32 chunks
 * (8 systems a block), 128 (2 systems); two blocks of right-hand sides, in place; LU and LDL^T;
 * 256-thread blocks (-banded_scan_wide off). Where the kernel does not apply (63 chunks, a batch
 * not whole pairs of blocks, float, the LDL^T-only pentadiagonal kernels, 256 chunks of one
 * system a block), the plain kernel runs. */
static void test_scan_pair(GsContext ctx, HsRng *r) {
  char prev[16] = "auto", wprev[16] = "auto";
  CHECK_OK(GsOptionsGetString(ctx, "-banded_scan_pair", prev, sizeof prev, NULL));
  /* pairs are groups of 256-thread blocks, so -banded_scan_wide off (the tri batches of 2048 rows
   * and the double penta LU ones of 1024 to 4096 rows would take 512 threads' blocks) */
  CHECK_OK(GsOptionsGetString(ctx, "-banded_scan_wide", wprev, sizeof wprev, NULL));
  CHECK_OK(GsOptionsSetValue(ctx, "-banded_scan_wide", "off"));
  for (int bands = 3; bands <= 5; bands += 2)
    for (int spd = 0; spd < 2; spd++) {
      staged_case_algo(ctx, 1, bands, GS_DOUBLE, 1024, 64, 1, 0, 0, spd, r);
      staged_case_algo(ctx, 1, bands, GS_DOUBLE, 1010, 40, 2, 1, 1, spd, r);
      staged_case_algo(ctx, 1, bands, GS_DOUBLE, 512, 48, 1, 0, 1, spd, r);
      staged_case_algo(ctx, 1, bands, GS_DOUBLE, 2048, 12, 2, 0, 0, spd, r);
      staged_case_algo(ctx, 1, bands, GS_DOUBLE, 4096, 4, 1, 0, 0, spd, r);
      staged_case_algo(ctx, 1, bands, GS_DOUBLE, 1000, 64, 1, 0, 0, spd, r);
      staged_case_algo(ctx, 1, bands, GS_DOUBLE, 1024, 36, 1, 0, 1, spd, r);
      staged_case_algo(ctx, 1, bands, GS_FLOAT, 1024, 64, 1, 0, 0, spd, r);
    }
  CHECK_OK(GsOptionsSetValue(ctx, "-banded_scan_wide", wprev));
  bad_option_value(ctx, "-banded_scan_pair", "both", prev);
}

/* staged_case_algo's periodic wide cases (scan 2 or 4, wide_periodic set) on hyperdiffusion rows
 * solved by LU, where E^-1 F reaches further in: sigma 100 (W above rounding over about 170 rows
 * at each end: chunks of both halves), 1024 and 2048 + h rows; sigma 1e5 (all rows: every chunk
 * corrected), 1024 rows and 1024 + h (m = 1024, two blocks in place, in last_dt). */
static void wide_stiff_cases(GsContext ctx, int scan, int bands, GsDataType last_dt, HsRng *r) {
  const GsInt h = bands / 2;
  wide_large = 1;
  large_sig = 100.0;
  staged_case_algo(ctx, scan, bands, GS_DOUBLE, 1024, 40, 1, 0, 0, 0, r);
  staged_case_algo(ctx, scan, bands, GS_DOUBLE, 2048 + h, 6, 2, 1, 0, 0, r);
  /* (the periodic reduction of these nearly singular rows, S = H - G W without pivoting, leaves
   * residuals up to about twice the kappa bound: 1.73e-8 against 1.05e-8 once; what the cases
   * check is the kernels' bits) */
  large_sig = 1e5;
  tol_scale = 4.0;
  staged_case_algo(ctx, scan, bands, GS_DOUBLE, 1024, 40, 1, 0, 0, 0, r);
  staged_case_algo(ctx, scan, bands, last_dt, 1024 + h, 24, 2, 1, 0, 0, r);
  tol_scale = 1.0;
  large_sig = 10.0;
  wide_large = 0;
}

/* -banded_scan_wide on against off (GPU: tridiagonal scans of 16-row chunks in blocks of 512
 * threads, twice the systems of 256): the same bits, statuses and residuals, with bad systems,
 * at 64 chunks (1024 rows: 8 systems a block against 4), a partial last chunk (1010 rows, two
 * blocks of right-hand sides in place), 40 chunks (640 rows, a batch not a multiple of the
 * systems a block), 19 (300 rows), 128 (2048 rows) and 256 (4096 rows: 2 systems a block against
 * 1); periodic, LDL^T and float too. Float pentadiagonal LU scans as well (512 threads: 8 systems
 * a block at 64 chunks, with bad systems; a partial chunk, two blocks in place; 128 chunks with
 * bad systems; 32; 256); double pentadiagonal LU scans of 64, 128 and 256 chunks (a 512-thread
 * block's systems in two halves of 256 threads: bad systems, partial chunks, two blocks in place,
 * 8 systems a block at 1024 rows against 4), and 100 chunks, where both take 256 threads;
 * periodic ones as well (with bad systems, m = 1022 and 1024 in place with two blocks, and
 * hyperdiffusion rows solved by LU whose E^-1 F is above rounding over about 170 rows at each end
 * or over all of them, so that the correction y -= W z reaches chunks of both halves); LDL^T
 * pentadiagonal scans do not change. Paired groups off, so that "off" is the plain kernel. */
static void test_scan_wide(GsContext ctx, HsRng *r) {
  char prev[16] = "auto", pprev[16] = "auto";
  CHECK_OK(GsOptionsGetString(ctx, "-banded_scan_wide", prev, sizeof prev, NULL));
  CHECK_OK(GsOptionsGetString(ctx, "-banded_scan_pair", pprev, sizeof pprev, NULL));
  CHECK_OK(GsOptionsSetValue(ctx, "-banded_scan_pair", "off"));
  for (int per = 0; per < 2; per++) {
    wide_periodic = per;
    for (int spd = 0; spd < 2; spd++) {
      staged_case_algo(ctx, 2, 3, GS_DOUBLE, 1024, 64, 1, 0, !per, spd, r);
      staged_case_algo(ctx, 2, 3, GS_DOUBLE, 1010, 40, 2, 1, 0, spd, r);
      staged_case_algo(ctx, 2, 3, GS_DOUBLE, 640, 50, 1, 0, !per, spd, r);
      staged_case_algo(ctx, 2, 3, GS_DOUBLE, 300, 33, 1, 0, 0, spd, r);
      staged_case_algo(ctx, 2, 3, GS_DOUBLE, 2048, 12, 2, 0, 0, spd, r);
      staged_case_algo(ctx, 2, 3, GS_DOUBLE, 4096, 5, 1, 0, 0, spd, r);
      staged_case_algo(ctx, 2, 3, GS_FLOAT, 1024, 72, 1, 0, 0, spd, r);
      staged_case_algo(ctx, 2, 5, GS_DOUBLE, 1024, 16, 1, 0, 0, spd, r);
      if (spd) continue;
      staged_case_algo(ctx, 2, 5, GS_FLOAT, 1024, 80, 1, 0, !per, 0, r);
      staged_case_algo(ctx, 2, 5, GS_FLOAT, 1010, 40, 2, 1, 0, 0, r);
      staged_case_algo(ctx, 2, 5, GS_FLOAT, 2048, 12, 2, 0, !per, 0, r);
      staged_case_algo(ctx, 2, 5, GS_FLOAT, 500, 19, 1, 0, 0, 0, r);
      staged_case_algo(ctx, 2, 5, GS_FLOAT, 4096, 3, 1, 0, 0, 0, r);
      /* double LU: a 512-thread block's systems in 256 threads, two halves (periodic too: n =
       * 1024 is m = 1022 rows, a partial last chunk) */
      staged_case_algo(ctx, 2, 5, GS_DOUBLE, 1024, 80, 1, 0, 1, 0, r);
      staged_case_algo(ctx, 2, 5, GS_DOUBLE, 1010, 40, 2, 1, 0, 0, r);
      staged_case_algo(ctx, 2, 5, GS_DOUBLE, 2048, 12, 2, 0, 1, 0, r);
      staged_case_algo(ctx, 2, 5, GS_DOUBLE, 2040, 7, 1, 0, 0, 0, r);
      staged_case_algo(ctx, 2, 5, GS_DOUBLE, 4096, 3, 1, 0, 1, 0, r);
      staged_case_algo(ctx, 2, 5, GS_DOUBLE, 1600, 11, 1, 0, 0, 0, r); /* 100 chunks: 256 */
      if (!per) continue;
      staged_case_algo(ctx, 2, 5, GS_DOUBLE, 1026, 24, 2, 1, 1, 0, r); /* m = 1024: whole chunks */
      wide_stiff_cases(ctx, 2, 5, GS_DOUBLE, r);
    }
  }
  wide_periodic = 0;
  CHECK_OK(GsOptionsSetValue(ctx, "-banded_scan_pair", pprev));
  bad_option_value(ctx, "-banded_scan_wide", "wide", prev);
}

/* GsBandedGetScanThreads for batch d under the SCAN algorithm with option opt at mode: want (what
 * names the case). */
static void check_scan_threads(GsContext ctx, const GsBandedDesc *d, const char *opt,
                               const char *mode, int want, const char *what) {
  GsBanded A = NULL;
  CHECK_OK(GsOptionsSetValue(ctx, opt, mode));
  if (CHECK_OK(GsBandedCreate(ctx, d, &A))) return;
  int nt = -1;
  if (!CHECK_OK(GsBandedSetAlgorithm(A, GS_BANDED_ALGORITHM_SCAN)) &&
      !CHECK_OK(GsBandedGetScanThreads(A, &nt)))
    CHECK(nt == want, "scan threads for %lld x %lld (%s), %s %s: %d, expected %d",
          (long long)d->batch, (long long)d->n, what, opt, mode, nt, want);
  CHECK_OK(GsBandedDestroy(&A));
}

/* -banded_scan_halves on against off, with -banded_scan_wide on (GPU: tridiagonal LU scans of 64,
 * 128 or 256 chunks of 16 rows take the systems of 1024 threads in a 512-thread block, in two
 * halves of rows, against 512 threads' systems): the same bits, statuses and residuals, with bad
 * systems, at 64 chunks (16 systems a block against 8, a batch not a multiple of either), a
 * partial last chunk (1010 rows, two blocks of right-hand sides in place), 128 and 256 chunks;
 * float; where the halves do not apply (100 chunks, LDL^T) both run the 512-thread kernel.
 * Periodic ones as well, with bad systems, m = 1024 in place with two blocks, and rows whose
 * E^-1 F is above rounding far in or everywhere (the correction y -= W z reaching chunks of both
 * halves). Then the block size each mode takes (GsBandedGetScanThreads: 1024 for the halves). */
static void test_scan_halves(GsContext ctx, HsRng *r) {
  char prev[16] = "auto", wprev[16] = "auto", pprev[16] = "auto";
  CHECK_OK(GsOptionsGetString(ctx, "-banded_scan_halves", prev, sizeof prev, NULL));
  CHECK_OK(GsOptionsGetString(ctx, "-banded_scan_wide", wprev, sizeof wprev, NULL));
  CHECK_OK(GsOptionsGetString(ctx, "-banded_scan_pair", pprev, sizeof pprev, NULL));
  CHECK_OK(GsOptionsSetValue(ctx, "-banded_scan_wide", "on"));
  CHECK_OK(GsOptionsSetValue(ctx, "-banded_scan_pair", "off"));
  static const struct {
    GsDataType dt;
    GsInt n, batch, nrhs;
    int inplace, bad, spd;
  } hc[] = {{GS_DOUBLE, 1024, 40, 1, 0, 1, 0}, {GS_DOUBLE, 1010, 40, 2, 1, 0, 0},
            {GS_DOUBLE, 2048, 12, 2, 0, 1, 0}, {GS_DOUBLE, 4096, 5, 1, 0, 1, 0},
            {GS_FLOAT, 1024, 72, 1, 0, 1, 0},  {GS_FLOAT, 2040, 9, 1, 0, 0, 0},
            {GS_DOUBLE, 1600, 11, 1, 0, 0, 0},  /* 100 chunks: 512 threads either way */
            {GS_DOUBLE, 1024, 20, 1, 0, 0, 1}}; /* LDL^T: 512 threads either way */
  for (int per = 0; per < 2; per++) {
    wide_periodic = per;
    for (size_t c = 0; c < sizeof hc / sizeof hc[0]; c++)
      staged_case_algo(ctx, 4, 3, hc[c].dt, hc[c].n, hc[c].batch, hc[c].nrhs, hc[c].inplace,
                       hc[c].bad, hc[c].spd, r);
    if (!per) continue;
    staged_case_algo(ctx, 4, 3, GS_DOUBLE, 1025, 24, 2, 1, 1, 0, r); /* m = 1024 */
    wide_stiff_cases(ctx, 4, 3, GS_FLOAT, r);
  }
  wide_periodic = 0;
  /* the block sizes with -banded_scan_wide on, each halves mode */
  static const struct {
    GsInt n, batch;
    int fl, interleaved, spd, shared, per, want[3];          /* off, auto, on */
  } cs[] = {{2048, 64, 0, 1, 0, 0, 0, {512, 512, 1024}},     /* 128 chunks */
            {2048, 16384, 0, 1, 0, 0, 0, {512, 1024, 1024}}, /* double: from 2^21 chunks */
            {2048, 8192, 0, 1, 0, 0, 0, {512, 512, 1024}},
            {2048, 16384, 0, 1, 0, 0, 1, {512, 512, 1024}}, /* not periodic ones */
            {4096, 512, 0, 1, 0, 0, 0, {512, 1024, 1024}},  /* double: 256 chunks, from 512 */
            {4096, 256, 0, 1, 0, 0, 0, {512, 512, 1024}},
            {1024, 64, 0, 1, 0, 0, 0, {512, 512, 1024}}, /* 64 chunks */
            {1024, 32768, 0, 1, 0, 0, 0, {512, 512, 1024}},
            {1024, 64, 0, 0, 0, 0, 0, {512, 512, 1024}}, /* contiguous: on only */
            {4096, 64, 0, 0, 0, 0, 0, {512, 512, 1024}},
            {1600, 64, 0, 1, 0, 0, 0, {512, 512, 512}},      /* 100 chunks */
            {1024, 64, 0, 1, 1, 0, 0, {512, 512, 512}},      /* LDL^T */
            {1024, 32768, 1, 1, 0, 0, 0, {512, 1024, 1024}}, /* float: 64 chunks from 32768 */
            {1024, 64, 1, 1, 0, 0, 0, {512, 512, 1024}},
            {2048, 1024, 1, 1, 0, 0, 0, {512, 1024, 1024}}, /* float: 2^17 chunks and more */
            {2048, 512, 1, 1, 0, 0, 0, {512, 512, 1024}},
            {1024, 64, 0, 1, 0, 1, 0, {512, 512, 512}}}; /* one matrix for the batch */
  static const char *const modes[3] = {"off", "auto", "on"};
  GsDeviceInfo dev;
  memset(&dev, 0, sizeof dev);
  CHECK_OK(GsGetDeviceInfo(ctx, &dev));
  const int gpu = dev.device_id >= 0;
  for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++)
    for (int w = 0; w < 3; w++) {
      const GsBandedDesc d = {3,
                              cs[c].n,
                              cs[c].batch,
                              cs[c].fl ? GS_FLOAT : GS_DOUBLE,
                              cs[c].interleaved ? GS_BANDED_INTERLEAVED : GS_BANDED_CONTIGUOUS,
                              0,
                              cs[c].shared,
                              cs[c].per,
                              cs[c].spd};
      char what[80];
      snprintf(what, sizeof what, "tri, %s, %s%s%s%s", cs[c].fl ? "float" : "double",
               cs[c].interleaved ? "interleaved" : "contiguous", cs[c].spd ? ", LDL^T" : "",
               cs[c].shared ? ", shared" : "", cs[c].per ? ", periodic" : "");
      check_scan_threads(ctx, &d, "-banded_scan_halves", modes[w], gpu ? cs[c].want[w] : 0, what);
    }
  CHECK_OK(GsOptionsSetValue(ctx, "-banded_scan_halves", prev));
  CHECK_OK(GsOptionsSetValue(ctx, "-banded_scan_wide", wprev));
  CHECK_OK(GsOptionsSetValue(ctx, "-banded_scan_pair", pprev));
  bad_option_value(ctx, "-banded_scan_halves", "half", prev);
}

/* GsBandedGetScanThreads: the block size of the GPU's SCAN solves that -banded_scan_wide off,
 * auto and on take (banded.c's rule: 512 for tri and float penta LU blocks of 512 threads and for
 * double penta LU in halves, at 64, 128 and 256 chunks, periodic or not; not for LDL^T or
 * shared-matrix double penta, nor at other chunk counts), 0 on the CPU and for other algorithms;
 * NULL arguments are named errors. */
static void test_scan_threads(GsContext ctx) {
  static const struct {
    int bands;
    GsInt n, batch;
    int fl, contig, shared, per, spd;
    int want[3]; /* off, auto, on */
  } cs[] = {
      {5, 1024, 16384, 0, 0, 0, 0, 0, {256, 512, 512}}, /* double LU: 64 chunks from 16384 */
      {5, 1024, 4096, 0, 0, 0, 0, 0, {256, 256, 512}},
      {5, 2048, 100, 0, 0, 0, 0, 0, {256, 512, 512}},   /* 128 chunks */
      {5, 4096, 10, 0, 0, 0, 0, 0, {256, 512, 512}},    /* 256 chunks */
      {5, 2048, 100, 0, 1, 0, 0, 0, {256, 256, 512}},   /* contiguous: on only */
      {5, 1600, 100, 0, 0, 0, 0, 0, {256, 256, 256}},   /* 100 chunks */
      {5, 2048, 100, 0, 0, 0, 1, 0, {256, 512, 512}},   /* periodic (128 chunks of m rows) */
      {5, 1024, 16384, 0, 0, 0, 1, 0, {256, 512, 512}}, /* periodic, 64 chunks */
      {5, 1024, 1024, 0, 0, 0, 1, 0, {256, 512, 512}},  /* periodic: from 1024 systems */
      {5, 1024, 512, 0, 0, 0, 1, 0, {256, 256, 512}},   /* fewer: on only */
      {5, 2048, 100, 0, 0, 0, 0, 1, {256, 256, 256}},   /* LDL^T */
      {5, 2048, 100, 0, 0, 1, 0, 0, {256, 256, 256}},   /* one matrix for the batch */
      {5, 1024, 4096, 1, 0, 0, 0, 0, {256, 512, 512}},  /* float LU */
      {3, 1024, 32768, 0, 0, 0, 0, 0, {256, 512, 512}},
      {3, 1024, 16384, 0, 0, 0, 0, 0, {256, 256, 512}},
  };
  static const char *const modes[3] = {"off", "auto", "on"};
  GsDeviceInfo dev;
  memset(&dev, 0, sizeof dev);
  CHECK_OK(GsGetDeviceInfo(ctx, &dev));
  const int gpu = dev.device_id >= 0;
  char prev[16] = "auto";
  CHECK_OK(GsOptionsGetString(ctx, "-banded_scan_wide", prev, sizeof prev, NULL));
  /* (the tri blocks of 512 threads without halves: test_scan_halves checks those) */
  char hprev[16] = "auto";
  CHECK_OK(GsOptionsGetString(ctx, "-banded_scan_halves", hprev, sizeof hprev, NULL));
  CHECK_OK(GsOptionsSetValue(ctx, "-banded_scan_halves", "off"));
  for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++)
    for (int w = 0; w < 3; w++) {
      const GsBandedDesc d = {cs[c].bands,
                              cs[c].n + (cs[c].per ? cs[c].bands / 2 : 0),
                              cs[c].batch,
                              cs[c].fl ? GS_FLOAT : GS_DOUBLE,
                              cs[c].contig ? GS_BANDED_CONTIGUOUS : GS_BANDED_INTERLEAVED,
                              0,
                              cs[c].shared,
                              cs[c].per,
                              cs[c].spd};
      char what[96];
      snprintf(what, sizeof what, "bands %d, %s, %s%s%s%s", d.bands, cs[c].fl ? "float" : "double",
               cs[c].contig ? "contiguous" : "interleaved", cs[c].shared ? ", shared" : "",
               cs[c].per ? ", periodic" : "", cs[c].spd ? ", LDL^T" : "");
      check_scan_threads(ctx, &d, "-banded_scan_wide", modes[w], gpu ? cs[c].want[w] : 0, what);
    }
  /* 0 for another algorithm; NULL arguments */
  const GsBandedDesc d0 = {cs[0].bands, cs[0].n, cs[0].batch, GS_DOUBLE, GS_BANDED_INTERLEAVED,
                           0,           0,       0,           0};
  GsBanded A = NULL;
  if (!CHECK_OK(GsBandedCreate(ctx, &d0, &A))) {
    int nt = -1;
    CHECK_OK(GsBandedSetAlgorithm(A, GS_BANDED_ALGORITHM_THREAD));
    CHECK_OK(GsBandedGetScanThreads(A, &nt));
    CHECK(nt == 0, "scan threads after -banded_algorithm thread: %d", nt);
    CHECK_ERR(GsBandedGetScanThreads(A, NULL), GS_ERR_ARG_NULL);
    CHECK_ERR(GsBandedGetScanThreads(NULL, &nt), GS_ERR_ARG_NULL);
    CHECK_OK(GsBandedDestroy(&A));
  }
  CHECK_OK(GsOptionsSetValue(ctx, "-banded_scan_wide", prev));
  CHECK_OK(GsOptionsSetValue(ctx, "-banded_scan_halves", hprev));
}

/* -banded_tile_image on against off (GPU, double: a one-pass tiled solve copies Factor's image of
 * its shared-memory set-up, the padded sweep arrays, the scans' matrices and W, instead of
 * building it in every block): the same bits and statuses, a NaN right-hand side reported with
 * its system while the others are solved, and the residuals. */
static void tile_image_case(GsContext ctx, int bands, GsInt n, GsInt batch, int periodic,
                            int contig, int spd, GsInt nrhs, HsRng *r) {
  GsBandedDesc d = {bands,
                    n,
                    batch,
                    GS_DOUBLE,
                    contig ? GS_BANDED_CONTIGUOUS : GS_BANDED_INTERLEAVED,
                    contig ? n + 3 : 0,
                    1,
                    periodic,
                    spd};
  Batch b;
  batch_init(&b, &d);
  const int kind = spd ? KIND_SPD_SMALL : KIND_DD;
  fill_matrix(&b, kind, r);
  char what[256];
  describe(&b, kind, "tile image", what, sizeof what);
  const GsInt len = b.rl * nrhs, snan = batch / 3;
  double *f = make_rhs(&b, nrhs, 0.0, r);
  f[(nrhs - 1) * b.rl + ridx(&b, snan, n - 1)] = NAN;
  double *x0 = hs_malloc((size_t)len * sizeof *x0), *x1 = hs_malloc((size_t)len * sizeof *x1);
  int *st0 = hs_malloc((size_t)batch * sizeof *st0), *st1 = hs_malloc((size_t)batch * sizeof *st1);
  int c0 = 0, c1 = 0, fc0 = -1, fc1 = -1, sg = 0;
  if (!staged_run_algo(ctx, &b, 3, "off", nrhs, 0, f, x0, &fc0, &c0, st0, &sg) &&
      !staged_run_algo(ctx, &b, 3, "on", nrhs, 0, f, x1, &fc1, &c1, st1, &sg)) {
    GsInt sdiff = 0;
    CHECK(fc0 == 0 && fc1 == 0, "%s: Factor returned %d (%d without the image)", what, fc1, fc0);
    check_same_bits(what, x0, x1, len, "the solve without the image");
    for (GsInt sy = 0; sy < batch; sy++)
      sdiff += st0[sy] != st1[sy];
    CHECK(sdiff == 0 && c0 == c1 && c1 == GS_ERR_NOT_FINITE && st1[snan] == GS_BANDED_NOT_FINITE,
          "%s: %lld statuses differ; errors %d and %d, system %lld's status %d", what,
          (long long)sdiff, c1, c0, (long long)snan, st1[snan]);
    char *skip = hs_malloc((size_t)batch);
    memset(skip, 0, (size_t)batch);
    skip[snan] = 1;
    check_solution(&b, what, f, x1, nrhs, skip, x0); /* (gaps: as the run without) */
    free(skip);
  }
  free_ab(f, x0, x1, st0, st1, &b);
}

/* -banded_tile_tail on and auto against off (GPU: a periodic one-pass tiled solve of interleaved
 * 32-row chunks solves the block E, and a kernel of its own the tail z and y -= W z on the rows
 * W reaches, instead of the fused kernel): the statuses and error codes the same, a NaN in one
 * system's tail row of f and one in another's first row reported with their systems while the
 * others are solved, the residuals, and the solutions within rounding of each other (the fused
 * kernel applies W z to whole chunks, the tail's kernel to the rows Factor found above rounding,
 * so entries there may differ by W z < eps |z| / 4). Auto takes the tail's kernel (the same bits
 * as on) for wide batches (16384 systems and more) whose W reaches few rows, and the fused one
 * (the same bits as off) for small batches and stiff rows (W everywhere). On the CPU the option
 * changes nothing: the three runs agree bit for bit. */
static int tile_tail_ran = 0; /* tile_tail_case runs where "on" left fewer NaN entries */
static void tile_tail_case(GsContext ctx, int bands, GsDataType dt, GsInt n, GsInt batch, int kind,
                           int inplace, GsInt nrhs, int auto_tail, HsRng *r) {
  GsBandedDesc d = {bands, n, batch, dt, GS_BANDED_INTERLEAVED, 0, 1, 1, 0};
  Batch b;
  batch_init(&b, &d);
  fill_matrix(&b, kind, r);
  char what[256];
  describe(&b, kind, inplace ? "tile tail, in place" : "tile tail", what, sizeof what);
  const GsInt len = b.rl * nrhs, s1 = batch / 3, s2 = batch - 1;
  double *f = make_rhs(&b, nrhs, 0.0, r);
  f[(nrhs - 1) * b.rl + ridx(&b, s1, n - 1)] = NAN; /* the tail: z, then W z, not finite */
  f[ridx(&b, s2, 0)] = NAN;                         /* the block E: y not finite */
  double *x[3];
  int *st[3], c[3] = {0, 0, 0}, fc[3] = {-1, -1, -1}, sg = 0, ran = 1;
  static const char *const modes[3] = {"off", "on", "auto"};
  for (int k = 0; k < 3; k++) {
    x[k] = hs_malloc((size_t)len * sizeof *x[k]);
    st[k] = hs_malloc((size_t)batch * sizeof *st[k]);
    if (ran &&
        staged_run_algo(ctx, &b, 5, modes[k], nrhs, inplace, f, x[k], &fc[k], &c[k], st[k], &sg))
      ran = 0;
  }
  if (ran) {
    CHECK(fc[0] == 0 && fc[1] == 0 && fc[2] == 0, "%s: Factor returned %d / %d / %d", what, fc[0],
          fc[1], fc[2]);
    for (int k = 1; k < 3; k++) {
      GsInt sdiff = 0;
      for (GsInt sy = 0; sy < batch; sy++)
        sdiff += st[0][sy] != st[k][sy];
      CHECK(sdiff == 0 && c[k] == c[0] && c[k] == GS_ERR_NOT_FINITE &&
                st[k][s1] == GS_BANDED_NOT_FINITE && st[k][s2] == GS_BANDED_NOT_FINITE,
            "%s, %s: %lld statuses differ from off; errors %d and %d, systems %lld and %lld: "
            "%d, %d",
            what, modes[k], (long long)sdiff, c[k], c[0], (long long)s1, (long long)s2, st[k][s1],
            st[k][s2]);
    }
    char *skip = hs_malloc((size_t)batch);
    memset(skip, 0, (size_t)batch);
    skip[s1] = skip[s2] = 1;
    /* on against off: within rounding, system by system (the bad ones excepted) */
    const double eps = hs_type_eps(dt);
    GsInt far = 0, worst = -1;
    double wd = 0;
    for (GsInt blk = 0; blk < nrhs; blk++)
      for (GsInt sy = 0; sy < batch; sy++) {
        if (skip[sy]) continue;
        double big = 0, dmax = 0;
        for (GsInt i = 0; i < n; i++) {
          const GsInt q = blk * b.rl + ridx(&b, sy, i);
          big = fmax(big, fabs(x[0][q]));
          dmax = fmax(dmax, fabs(x[1][q] - x[0][q]));
        }
        if (!(dmax <= 16 * eps * big)) far++;
        if (worst < 0 || !(dmax <= wd)) wd = dmax, worst = sy;
      }
    CHECK(far == 0,
          "%s: %lld systems' solutions differ between on and off by more than 16 eps; "
          "worst: system %lld by %.3g",
          what, (long long)far, (long long)worst, wd);
    check_solution(&b, what, f, x[1], nrhs, skip, x[0]);
    GsDeviceInfo dev;
    memset(&dev, 0, sizeof dev);
    CHECK_OK(GsGetDeviceInfo(ctx, &dev));
    const int gpu = dev.device_id >= 0;
    /* auto: the tail's kernel where expected (auto_tail, GPU), else the fused one */
    check_same_bits(what, x[gpu && auto_tail ? 1 : 0], x[2], len,
                    gpu && auto_tail ? "on (auto)" : "off (auto)");
    if (!gpu) check_same_bits(what, x[0], x[1], len, "off (on, the CPU)");
    /* The NaN tail of system s1: the fused kernel subtracts W z on whole chunks, the tail's kernel
     * on the rows W reaches only, so "on" leaves at most as many NaN entries, and fewer wherever
     * those rows do not end on chunk boundaries (tile_tail_ran: the tail's kernel ran). */
    GsInt nan0 = 0, nan1 = 0;
    for (GsInt blk = 0; blk < nrhs; blk++)
      for (GsInt i = 0; i < n; i++) {
        nan0 += isnan(x[0][blk * b.rl + ridx(&b, s1, i)]);
        nan1 += isnan(x[1][blk * b.rl + ridx(&b, s1, i)]);
      }
    CHECK(nan1 <= nan0, "%s: on leaves %lld NaN entries in system %lld, off %lld", what,
          (long long)nan1, (long long)s1, (long long)nan0);
    tile_tail_ran += nan1 < nan0;
    free(skip);
  }
  free_ab(f, x[0], x[1], st[0], st[1], &b);
  free(x[2]);
  free(st[2]);
}

/* A shared matrix that is singular, solved by TILE with -banded_tile_tail on (scan 5: periodic)
 * or -banded_tile_next on (scan 6): Factor and Solve report the zero pivot for every system, whose
 * solutions are all NaN (the tail's kernel and the one with the copies ahead leave them so; scan
 * 6 on a GPU: GsBandedGetStaged says the latter ran). */
static void tile_singular(GsContext ctx, int scan, int bands, GsInt batch, HsRng *r) {
  const GsInt n = 1024;
  GsBandedDesc d = {bands, n, batch, GS_DOUBLE, GS_BANDED_INTERLEAVED, 0, 1, scan == 5, 0};
  Batch b;
  batch_init(&b, &d);
  fill_matrix(&b, KIND_DD, r);
  zero_row(&b, 0, 0);
  char what[256];
  describe(&b, KIND_DD,
           scan == 5 ? "tile tail on, singular shared matrix"
                     : "tile next on, singular shared matrix",
           what, sizeof what);
  double *f = make_rhs(&b, 1, 0.0, r), *x = hs_malloc((size_t)b.rl * sizeof *x);
  int *st = hs_malloc((size_t)batch * sizeof *st), fc = 0, c = 0, sg = 0;
  if (!staged_run_algo(ctx, &b, scan, "on", 1, 0, f, x, &fc, &c, st, &sg)) {
    GsInt nz = 0;
    for (GsInt s = 0; s < batch; s++) {
      nz += st[s] == GS_BANDED_ZERO_PIVOT;
      check_nan_system(&b, what, x, s, 1);
    }
    CHECK(fc == GS_ERR_ZERO_PIVOT && c == GS_ERR_ZERO_PIVOT && nz == batch,
          "%s: Factor %d, Solve %d, %lld of %lld systems with a zero pivot", what, fc, c,
          (long long)nz, (long long)batch);
    if (scan == 6) { /* the kernel with the copies ahead is the one that left them NaN */
      GsDeviceInfo dev;
      memset(&dev, 0, sizeof dev);
      CHECK_OK(GsGetDeviceInfo(ctx, &dev));
      CHECK(sg == (dev.device_id >= 0), "%s: GsBandedGetStaged %d, expected %d", what, sg,
            dev.device_id >= 0);
    }
  }
  free(f);
  free(x);
  free(st);
  batch_free(&b);
}

/* Both kernels tested below are one-pass ones: -banded_tile_passes one for the test's duration
 * (the suite also runs with "two" for every tiled solve: test_banded_tile2), prev kept. */
static void tile_one_pass(GsContext ctx, char *prev, size_t len) {
  CHECK_OK(GsOptionsGetString(ctx, "-banded_tile_passes", prev, len, NULL));
  CHECK_OK(GsOptionsSetValue(ctx, "-banded_tile_passes", "one"));
}

static void test_tile_tail(GsContext ctx, HsRng *r) {
  char prev[16] = "auto", passes[16] = "auto";
  CHECK_OK(GsOptionsGetString(ctx, "-banded_tile_tail", prev, sizeof prev, NULL));
  tile_one_pass(ctx, passes, sizeof passes);
  tile_singular(ctx, 5, 3, 37, r);
  tile_singular(ctx, 5, 5, 37, r);
  GsDeviceInfo dev;
  memset(&dev, 0, sizeof dev);
  CHECK_OK(GsGetDeviceInfo(ctx, &dev));
  const int gpu = dev.device_id >= 0;
  for (int bands = 3; bands <= 5; bands += 2) {
    const GsInt h = bands / 2;
    tile_tail_case(ctx, bands, GS_DOUBLE, 1024, 300, KIND_DD, 0, 2, 0,
                   r);                                                        /* m = n - h: the last
                                                                               * chunk holds the tail */
    tile_tail_case(ctx, bands, GS_DOUBLE, 1024 + h, 37, KIND_DD, 1, 1, 0, r); /* m = 1024 */
    tile_tail_case(ctx, bands, GS_DOUBLE, 1000, 70, KIND_DD, 1, 2, 0, r);     /* a partial chunk */
    tile_tail_case(ctx, bands, GS_FLOAT, 1024, 100, KIND_DD, 0, 1, 0, r);
    large_sig = 1e5; /* W above rounding on every row */
    tol_scale = 4.0;
    tile_tail_case(ctx, bands, GS_DOUBLE, 1024, 64, KIND_SPD_LARGE, 1, 1, 0, r);
    tol_scale = 1.0;
    large_sig = 10.0;
    if (!gpu) continue; /* the wide blocks' sizes: GPU only */
    tile_tail_case(ctx, bands, GS_DOUBLE, 1024, 16384, KIND_DD, 0, 1, 1, r);
    tile_tail_case(ctx, bands, GS_FLOAT, 1024, 16400, KIND_DD, 1, 1, 1, r);
    large_sig = 1e5;
    tol_scale = 4.0;
    tile_tail_case(ctx, bands, GS_DOUBLE, 1024, 16384, KIND_SPD_LARGE, 0, 1, 0, r);
    tol_scale = 1.0;
    large_sig = 10.0;
  }
  CHECK(!gpu || tile_tail_ran > 0,
        "-banded_tile_tail on never left fewer NaN entries than off: the tail's kernel never ran");
  CHECK_OK(GsOptionsSetValue(ctx, "-banded_tile_passes", passes));
  bad_option_value(ctx, "-banded_tile_tail", "tail", prev);
}

/* -banded_tile_next on and auto against off (GPU: a wide one-pass tiled solve, 16384 systems or
 * more of 513 to 1024 rows, non-periodic or the block E of a periodic one with its tail in a
 * kernel of its own, has the TMA copy the next group's f into shared memory while it solves the
 * present one): the same arithmetic, so the same bits and statuses, a NaN right-hand side
 * reported with its system while the others are solved, and the residuals; GsBandedGetStaged says
 * 1 where that kernel ran (on and auto: applies, GPU) and 0 otherwise (an odd batch in double,
 * whose rows of f the TMA cannot view; off; the CPU, where the option changes nothing). */
static void tile_next_case(GsContext ctx, int bands, GsDataType dt, GsInt n, GsInt batch,
                           int periodic, int inplace, GsInt nrhs, int applies, HsRng *r) {
  GsBandedDesc d = {bands, n, batch, dt, GS_BANDED_INTERLEAVED, 0, 1, periodic, 0};
  Batch b;
  batch_init(&b, &d);
  fill_matrix(&b, KIND_DD, r);
  char what[256];
  describe(&b, KIND_DD, inplace ? "tile next, in place" : "tile next", what, sizeof what);
  const GsInt len = b.rl * nrhs, s1 = batch / 3;
  double *f = make_rhs(&b, nrhs, 0.0, r);
  f[(nrhs - 1) * b.rl + ridx(&b, s1, n / 2)] = NAN;
  double *x[3];
  int *st[3], c[3] = {0, 0, 0}, fc[3] = {-1, -1, -1}, sg[3] = {-1, -1, -1}, ran = 1;
  static const char *const modes[3] = {"off", "on", "auto"};
  for (int k = 0; k < 3; k++) {
    x[k] = hs_malloc((size_t)len * sizeof *x[k]);
    st[k] = hs_malloc((size_t)batch * sizeof *st[k]);
    if (ran &&
        staged_run_algo(ctx, &b, 6, modes[k], nrhs, inplace, f, x[k], &fc[k], &c[k], st[k], &sg[k]))
      ran = 0;
  }
  if (ran) {
    GsDeviceInfo dev;
    memset(&dev, 0, sizeof dev);
    CHECK_OK(GsGetDeviceInfo(ctx, &dev));
    const int can = dev.device_id >= 0 && applies;
    CHECK(fc[0] == 0 && fc[1] == 0 && fc[2] == 0, "%s: Factor returned %d / %d / %d", what, fc[0],
          fc[1], fc[2]);
    CHECK(sg[0] == 0 && sg[1] == can && sg[2] == can,
          "%s: staged %d with off, %d with on, %d with auto; expected 0, %d, %d", what, sg[0],
          sg[1], sg[2], can, can);
    for (int k = 1; k < 3; k++) {
      GsInt sdiff = 0;
      for (GsInt sy = 0; sy < batch; sy++)
        sdiff += st[0][sy] != st[k][sy];
      CHECK(sdiff == 0 && c[k] == c[0] && c[k] == GS_ERR_NOT_FINITE &&
                st[k][s1] == GS_BANDED_NOT_FINITE,
            "%s, %s: %lld statuses differ from off; errors %d and %d, system %lld: %d", what,
            modes[k], (long long)sdiff, c[k], c[0], (long long)s1, st[k][s1]);
      check_same_bits(what, x[0], x[k], len, modes[k]);
    }
    char *skip = hs_malloc((size_t)batch);
    memset(skip, 0, (size_t)batch);
    skip[s1] = 1;
    check_solution(&b, what, f, x[1], nrhs, skip, x[0]);
    free(skip);
  }
  free_ab(f, x[0], x[1], st[0], st[1], &b);
  free(x[2]);
  free(st[2]);
}

static void test_tile_next(GsContext ctx, HsRng *r) {
  char prev[16] = "auto", passes[16] = "auto";
  CHECK_OK(GsOptionsGetString(ctx, "-banded_tile_next", prev, sizeof prev, NULL));
  tile_one_pass(ctx, passes, sizeof passes);
  GsDeviceInfo dev;
  memset(&dev, 0, sizeof dev);
  CHECK_OK(GsGetDeviceInfo(ctx, &dev));
  if (dev.device_id < 0) { /* the option changes nothing on the CPU: one small case */
    tile_next_case(ctx, 5, GS_DOUBLE, 600, 40, 0, 0, 2, 0, r);
  } else { /* the wide blocks' sizes */
    tile_singular(ctx, 6, 5, 16384, r);
    for (int bands = 3; bands <= 5; bands += 2) {
      const GsInt h = bands / 2;
      tile_next_case(ctx, bands, GS_DOUBLE, 1024, 16384, 0, 0, 2, 1, r);
      tile_next_case(ctx, bands, GS_DOUBLE, 1000, 16390, 0, 1, 1, 1, r); /* partial chunk */
      tile_next_case(ctx, bands, GS_DOUBLE, 600, 16400, 0, 0, 1, 1, r);  /* 19 chunks */
      tile_next_case(ctx, bands, GS_FLOAT, 1024, 16404, 0, 1, 2, 1, r);
      tile_next_case(ctx, bands, GS_DOUBLE, 1024, 16384, 1, 0, 2, 1, r);     /* tail in chunk */
      tile_next_case(ctx, bands, GS_DOUBLE, 1024 + h, 16386, 1, 1, 1, 1, r); /* m = 1024 */
      tile_next_case(ctx, bands, GS_DOUBLE, 1024, 16385, 0, 0, 1, 0, r);     /* odd: plain */
    }
  }
  CHECK_OK(GsOptionsSetValue(ctx, "-banded_tile_passes", passes));
  bad_option_value(ctx, "-banded_tile_next", "next", prev);
}

static void test_tile_image(GsContext ctx, HsRng *r) {
  char prev[16] = "auto";
  CHECK_OK(GsOptionsGetString(ctx, "-banded_tile_image", prev, sizeof prev, NULL));
  for (int bands = 3; bands <= 5; bands += 2)
    for (int per = 0; per < 2; per++) {
      const GsInt h = per ? bands / 2 : 0;
      tile_image_case(ctx, bands, 1024 + h, 300, per, 0, 0, 1, r); /* 32 chunks of 32 */
      tile_image_case(ctx, bands, 1000 + h, 37, per, 0, 1, 2, r);  /* a partial chunk */
      tile_image_case(ctx, bands, 1024 + h, 100, per, 1, 0, 1, r); /* contiguous, staged */
      tile_image_case(ctx, bands, 512 + h, 64, per, 0, 1, 1, r);   /* 16-row chunks */
      tile_image_case(ctx, bands, 200 + h, 70, per, 1, 0, 2, r);   /* 8-row chunks */
      tile_image_case(ctx, bands, 37 + h, 5, per, 0, 0, 1, r);     /* 5 chunks */
    }
  bad_option_value(ctx, "-banded_tile_image", "image", prev);
}

static void test_staged(GsContext ctx, HsRng *r) {
  char prev[16] = "auto";
  CHECK_OK(GsOptionsGetString(ctx, "-banded_staged", prev, sizeof prev, NULL));
  for (int dtk = 0; dtk < 2; dtk++) {
    const GsDataType dt = dtk ? GS_FLOAT : GS_DOUBLE;
    /* Batches a multiple of 4 (the TMA's 16-byte rows in float), most not of 32; LU and LDL^T
     * (SPD matrices). */
    for (int bands = 3; bands <= 5; bands += 2)
      for (int spd = 0; spd < 2; spd++) {
        staged_case(ctx, bands, dt, 1000, 260, 1, 0, 0, spd, r);
        staged_case(ctx, bands, dt, 64, 4100, 2, 0, 1, spd, r);
        staged_case(ctx, bands, dt, 37, 96, 2, 1, 0, spd, r);
        staged_case(ctx, bands, dt, bands, 64, 1, 0, 0, spd, r);
        staged_case(ctx, bands, dt, 300, 1028, 1, 1, 1, spd, r);
      }
  }
  /* -banded_staged auto leaves short systems (under 64 rows) to the plain kernel. */
  {
    GsBandedDesc d = {5, 8, 4096, GS_DOUBLE, GS_BANDED_INTERLEAVED, 0, 0, 0, 0};
    Batch b;
    batch_init(&b, &d);
    fill_matrix(&b, KIND_DD, r);
    double *f = make_rhs(&b, 1, 0.0, r), *x = hs_malloc((size_t)b.rl * sizeof *x);
    int *st = hs_malloc((size_t)d.batch * sizeof *st), fc = 0, c = 0, sg = -1;
    if (!staged_run(ctx, &b, "auto", 1, 0, f, x, &fc, &c, st, &sg)) {
      CHECK(sg == 0 && fc == 0 && c == 0,
            "4096 systems of 8 rows, -banded_staged auto: staged %d, errors %d, %d", sg, fc, c);
      check_solution(&b, "8 rows, staged auto", f, x, 1, NULL, NULL);
    }
    free(f);
    free(x);
    free(st);
    batch_free(&b);
  }
  /* Where it does not apply (an odd batch: rows not 16-byte aligned), the plain kernel runs. */
  staged_case(ctx, 5, GS_DOUBLE, 100, 33, 1, 0, 1, 0, r);
  staged_case(ctx, 3, GS_DOUBLE, 100, 33, 1, 0, 1, 1, r);
  bad_option_value(ctx, "-banded_staged", "sometimes", prev);
}

/* The chunked scan against one thread per system: what it refuses (more than 4096 rows in the
 * banded block), then chunks of 8 rows (up to 256 rows) and 16 (beyond), a partial last chunk, a
 * single chunk, both band counts, both layouts, per-system and shared matrices, periodic or not,
 * LU and LDL^T, double and float, diagonally dominant and stiff (hyperdiffusion-type, not
 * dominant) rows, two blocks of right-hand sides; the residuals and the distance to the thread's
 * solution. */
static void test_scan(GsContext ctx, HsRng *r) {
  static const GsBandedDesc refuse[2] = {
      {5, 4097, 2, GS_DOUBLE, GS_BANDED_CONTIGUOUS, 0, 0, 0, 0},
      {5, 4099, 2, GS_DOUBLE, GS_BANDED_INTERLEAVED, 0, 0, 1, 0}};
  for (int q = 0; q < 2; q++) {
    GsBanded A = NULL;
    if (CHECK_OK(GsBandedCreate(ctx, &refuse[q], &A))) continue;
    CHECK_ERR(GsBandedSetAlgorithm(A, GS_BANDED_ALGORITHM_SCAN), GS_ERR_UNSUPPORTED);
    CHECK_MSG(ctx, "at most 4096 rows");
    GsBandedAlgorithm got = GS_BANDED_ALGORITHM_AUTO;
    CHECK_OK(GsBandedGetAlgorithm(A, &got));
    CHECK(got != GS_BANDED_ALGORITHM_SCAN, "a refused scan was kept (n = %lld)",
          (long long)refuse[q].n);
    CHECK_OK(GsBandedDestroy(&A));
  }
  static const GsInt ns[] = {5, 8, 9, 16, 17, 40, 255, 1000, 2048, 2049, 3001, 4096};
  long cases = 0;
  for (int bands = 3; bands <= 5; bands += 2)
    for (int per = 0; per < 2; per++)
      for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {
        const GsInt n = ns[ni] + (per ? bands / 2 : 0);
        if (n < (per ? bands + 1 : bands)) continue;
        const int kind = ni % 3 == 1 ? KIND_SPD_LARGE : KIND_DD, lay = ni % 2;
        const GsDataType dt = ni % 4 == 2 ? GS_FLOAT : GS_DOUBLE;
        GsBandedDesc dc = {bands,
                           n,
                           ns[ni] > 1000 ? 3 : (GsInt)(ni % 3 ? 37 : 70),
                           dt,
                           lay ? GS_BANDED_CONTIGUOUS : GS_BANDED_INTERLEAVED,
                           lay ? n + 3 : 0,
                           (int)(ni % 5 == 3),
                           per,
                           kind != KIND_DD && (ni + per) % 2};
        versus_thread_desc(ctx, &dc, kind, GS_BANDED_ALGORITHM_SCAN, r);
        cases++;
      }
  printf("algorithms: %ld scan-versus-thread cases\n", cases);
}

/* Non-finite right-hand sides in a tiled solve of a shared contiguous matrix of 1024 rows (on the
 * GPU the 32-row chunks of a warp's systems load and store through shared memory where all of them
 * are full: GS_TILE_STAGED), periodic or not, 100 systems with a padded stride: NaNs in block 0 of
 * systems 3 (mid-system, a staged warp), 50 (row 0) and 98 (the last group, past the staged ones),
 * an infinity in block 1 of system 21; each reported, the NaN systems NaN, the others solved and
 * x's gaps untouched. */
static void bad_shared_tile(GsContext ctx, int periodic, HsRng *r) {
  const GsInt n = 1024, batch = 100, nrhs = 2;
  GsBandedDesc d = {5, n, batch, GS_DOUBLE, GS_BANDED_CONTIGUOUS, n + 5, 1, periodic, 0};
  Batch b;
  batch_init(&b, &d);
  char what[256];
  describe(&b, KIND_DD, "tiled, non-finite rhs", what, sizeof what);
  GsBanded A = NULL;
  GsVec Dv[5] = {NULL, NULL, NULL, NULL, NULL}, F = NULL, X = NULL;
  double *f = NULL, *x0 = NULL, *x = NULL;
  int want[100];
  char skip[100];
  static const GsInt nan_sys[] = {3, 50, 98}, nan_row[] = {500, 0, 1023};
  if (CHECK_OK(GsBandedCreate(ctx, &d, &A))) goto done;
  CHECK_OK(GsBandedSetAlgorithm(A, GS_BANDED_ALGORITHM_TILE));
  fill_matrix(&b, KIND_DD, r);
  for (int k = 0; k < 5; k++)
    if (!(Dv[k] = new_vec(ctx, d.dt, b.dl, b.D[k]))) goto done;
  f = make_rhs(&b, nrhs, NAN, r);
  memset(want, 0, sizeof want);
  memset(skip, 0, sizeof skip);
  for (int j = 0; j < 3; j++) {
    f[ridx(&b, nan_sys[j], nan_row[j])] = NAN;
    want[nan_sys[j]] = GS_BANDED_NOT_FINITE;
    skip[nan_sys[j]] = 1;
  }
  f[b.rl + ridx(&b, 21, 700)] = INFINITY;
  want[21] = GS_BANDED_NOT_FINITE;
  skip[21] = 1;
  x0 = make_x0(&b, nrhs);
  x = hs_malloc((size_t)(b.rl * nrhs) * sizeof *x);
  if (!(F = new_vec(ctx, d.dt, b.rl * nrhs, f)) || !(X = new_vec(ctx, d.dt, b.rl * nrhs, NULL)))
    goto done;
  CHECK_OK(GsBandedFactor(A, Dv));
  poison_x(&b, X, x0, nrhs);
  CHECK_ERR(GsBandedSolve(A, F, X), GS_ERR_NOT_FINITE);
  CHECK_MSG(ctx, "system 3 ");
  CHECK_MSG(ctx, "4 of 100");
  check_status(A, what, batch, want);
  CHECK_OK(get_vec(X, d.dt, b.rl * nrhs, x));
  /* A NaN in a periodic system's last two rows reaches its last two unknowns and the rows where W
   * is not negligible, which are all that y -= W z touches. */
  for (int j = 0; j < 3; j++)
    if (!periodic || nan_row[j] < n - 2)
      check_nan_system(&b, what, x, nan_sys[j], 1);
    else
      CHECK(isnan(x[ridx(&b, nan_sys[j], n - 2)]) && isnan(x[ridx(&b, nan_sys[j], n - 1)]),
            "%s: the last two unknowns of bad system %lld are %g, %g", what, (long long)nan_sys[j],
            x[ridx(&b, nan_sys[j], n - 2)], x[ridx(&b, nan_sys[j], n - 1)]);
  check_solution(&b, what, f, x, nrhs, skip, x0);
done:
  release_solve(Dv, &F, &X, &A);
  free(f);
  free(x0);
  free(x);
  batch_free(&b);
}

/* Choosing the algorithm: names, GsBandedSetAlgorithm / GetAlgorithm, the automatic choice, what
 * each algorithm refuses; then the tiled solve of shared matrices against one thread per system
 * over the chunk lengths (8, 16, 32 rows), a partial last chunk, a single chunk, periodic or not,
 * LU and LDL^T, both layouts, two blocks of right-hand sides. */
static void test_algorithms(GsContext ctx, HsRng *r) {
  static const char *const want[] = {"auto", "thread", "spike", "tile", "scan"};
  for (int a = 0; a < 5; a++)
    CHECK(!strcmp(GsBandedAlgorithmName((GsBandedAlgorithm)a), want[a]), "name of %d: %s", a,
          GsBandedAlgorithmName((GsBandedAlgorithm)a));
  CHECK(!strcmp(GsBandedAlgorithmName((GsBandedAlgorithm)9), "unknown"), "name of 9: %s",
        GsBandedAlgorithmName((GsBandedAlgorithm)9));
  GsBandedDesc d = {5, 100, 7, GS_DOUBLE, GS_BANDED_INTERLEAVED, 0, 0, 0, 0};
  GsBanded A = NULL;
  /* An unknown -banded_algorithm is a named error of GsBandedCreate. */
  char prev[32] = "auto";
  CHECK_OK(GsOptionsGetString(ctx, "-banded_algorithm", prev, sizeof prev, NULL));
  CHECK_OK(GsOptionsSetValue(ctx, "-banded_algorithm", "fastest"));
  CHECK_ERR(GsBandedCreate(ctx, &d, &A), GS_ERR_OPTION);
  CHECK_MSG(ctx, "-banded_algorithm");
  CHECK(A == NULL, "a failed GsBandedCreate left an object");
  CHECK_OK(GsOptionsSetValue(ctx, "-banded_algorithm", prev));
  if (!CHECK_OK(GsBandedCreate(ctx, &d, &A))) {
    GsBandedAlgorithm got = GS_BANDED_ALGORITHM_AUTO;
    int parts = 0;
    CHECK_ERR(GsBandedSetAlgorithm(A, GS_BANDED_ALGORITHM_TILE), GS_ERR_UNSUPPORTED);
    CHECK_MSG(ctx, "shared");
    CHECK_ERR(GsBandedSetAlgorithm(A, (GsBandedAlgorithm)9), GS_ERR_ARG_OUTOFRANGE);
    CHECK_ERR(GsBandedGetAlgorithm(A, NULL), GS_ERR_ARG_NULL);
    CHECK_ERR(GsBandedSetAlgorithm(NULL, GS_BANDED_ALGORITHM_THREAD), GS_ERR_ARG_NULL);
    CHECK_ERR(GsBandedGetAlgorithm(NULL, &got), GS_ERR_ARG_NULL);
    CHECK_OK(GsBandedSetAlgorithm(A, GS_BANDED_ALGORITHM_SPIKE));
    CHECK_OK(GsBandedGetAlgorithm(A, &got));
    CHECK_OK(GsBandedGetPartitions(A, &parts));
    CHECK(got == GS_BANDED_ALGORITHM_SPIKE && parts >= 2, "spike: got %s with %d partitions",
          GsBandedAlgorithmName(got), parts);
    CHECK_OK(GsBandedSetPartitions(A, 1));
    CHECK_OK(GsBandedGetAlgorithm(A, &got));
    CHECK(got == GS_BANDED_ALGORITHM_THREAD, "1 partition is %s", GsBandedAlgorithmName(got));
    CHECK_OK(GsBandedSetAlgorithm(A, GS_BANDED_ALGORITHM_AUTO));
    CHECK_OK(GsBandedGetAlgorithm(A, &got));
    CHECK(got != GS_BANDED_ALGORITHM_AUTO && got != GS_BANDED_ALGORITHM_TILE,
          "automatic choice for per-system matrices: %s", GsBandedAlgorithmName(got));
    CHECK_OK(GsBandedDestroy(&A));
  }
  /* The automatic choice for a few systems of their own on a GPU is the scan, periodic and LDL^T
   * ones included; one thread per system on the CPU (whatever -banded_algorithm says). */
  CHECK_OK(GsOptionsSetValue(ctx, "-banded_algorithm", "auto"));
  for (int v = 0; v < 4; v++) {
    GsBandedDesc dv = {v % 2 ? 3 : 5,
                       1024 + (v & 1 ? 1 : 2) * (v >= 2),
                       64,
                       GS_DOUBLE,
                       GS_BANDED_INTERLEAVED,
                       0,
                       0,
                       v >= 2,
                       v % 2};
    if (CHECK_OK(GsBandedCreate(ctx, &dv, &A))) continue;
    GsBandedAlgorithm got = GS_BANDED_ALGORITHM_AUTO;
    GsDeviceInfo info;
    CHECK_OK(GsGetDeviceInfo(ctx, &info));
    CHECK_OK(GsBandedGetAlgorithm(A, &got));
    CHECK(got == (info.device_id >= 0 ? GS_BANDED_ALGORITHM_SCAN : GS_BANDED_ALGORITHM_THREAD),
          "automatic choice for 64 systems of %lld rows (bands %d, periodic %d, spd %d): %s",
          (long long)dv.n, dv.bands, dv.periodic, dv.spd, GsBandedAlgorithmName(got));
    CHECK_OK(GsBandedDestroy(&A));
  }
  /* Interleaved tri batches: the scan takes them up to 2^21 unknowns past 2048 rows, SPIKE beyond
   * (in partitions of 512 rows); up to 2^26 at 1025 to 2048 rows, one thread a system beyond
   * (GPU only past 1024 systems: large batches). */
  GsDeviceInfo tdev;
  memset(&tdev, 0, sizeof tdev);
  tdev.device_id = -1;
  CHECK_OK(GsGetDeviceInfo(ctx, &tdev));
  for (int v = 0; v < 5; v++) {
    static const GsInt vn[5] = {4096, 4096, 2048, 2048, 2048},
                       vb[5] = {512, 1024, 16384, 32768, 65536};
    if (v >= 2 && tdev.device_id < 0) break;
    GsBandedDesc dv = {3, vn[v], vb[v], GS_DOUBLE, GS_BANDED_INTERLEAVED, 0, 0, 0, 0};
    if (CHECK_OK(GsBandedCreate(ctx, &dv, &A))) continue;
    GsBandedAlgorithm got = GS_BANDED_ALGORITHM_AUTO, expect = GS_BANDED_ALGORITHM_THREAD;
    CHECK_OK(GsBandedGetAlgorithm(A, &got));
    if (tdev.device_id >= 0)
      expect = v == 1   ? GS_BANDED_ALGORITHM_SPIKE
               : v == 4 ? GS_BANDED_ALGORITHM_THREAD
                        : GS_BANDED_ALGORITHM_SCAN;
    CHECK(got == expect, "automatic choice for %lld tri systems of %lld rows: %s (expect %s)",
          (long long)dv.batch, (long long)dv.n, GsBandedAlgorithmName(got),
          GsBandedAlgorithmName(expect));
    /* SPIKE for tri systems: partitions of up to 512 rows (the GPU scans them) */
    int parts = 0;
    CHECK_OK(GsBandedGetPartitions(A, &parts));
    CHECK(got != GS_BANDED_ALGORITHM_SPIKE || parts == 8,
          "automatic partitions for %lld tri systems of %lld rows: %d (expect 8)",
          (long long)dv.batch, (long long)dv.n, parts);
    CHECK_OK(GsBandedDestroy(&A));
  }
  /* On a GPU, interleaved batches of their own matrices past 2048 rows that the scan does not
   * take go to SPIKE (partitions of at most 512 rows) however large the batch, periodic ones and
   * float too; contiguous ones keep one thread a system (GPU only: large batches). */
  for (int v = 0; v < 6 && tdev.device_id >= 0; v++) {
    static const int vb5[6] = {3, 3, 5, 3, 3, 3}, vper[6] = {0, 0, 0, 1, 0, 0};
    static const GsInt vn[6] = {4096, 4096, 4096, 4096, 3000, 4096},
                       vb[6] = {8192, 16384, 16384, 16384, 16384, 16384};
    GsBandedDesc dv = {vb5[v],
                       vn[v],
                       vb[v],
                       v == 4 ? GS_FLOAT : GS_DOUBLE,
                       v == 5 ? GS_BANDED_CONTIGUOUS : GS_BANDED_INTERLEAVED,
                       0,
                       0,
                       vper[v],
                       0};
    if (CHECK_OK(GsBandedCreate(ctx, &dv, &A))) continue;
    GsBandedAlgorithm got = GS_BANDED_ALGORITHM_AUTO;
    const GsBandedAlgorithm expect =
        v == 5 ? GS_BANDED_ALGORITHM_THREAD : GS_BANDED_ALGORITHM_SPIKE;
    int parts = 0;
    CHECK_OK(GsBandedGetAlgorithm(A, &got));
    CHECK_OK(GsBandedGetPartitions(A, &parts));
    const int want_parts =
        expect == GS_BANDED_ALGORITHM_SPIKE ? (int)((vn[v] - vper[v] + 511) / 512) : 1;
    CHECK(got == expect && parts == want_parts,
          "automatic choice for %lld %s systems of %lld rows (%s%s): %s, %d partitions (expect %s, "
          "%d)",
          (long long)dv.batch, dv.bands == 3 ? "tri" : "penta", (long long)dv.n,
          v == 5 ? "contiguous" : "interleaved", dv.periodic ? ", periodic" : "",
          GsBandedAlgorithmName(got), parts, GsBandedAlgorithmName(expect), want_parts);
    CHECK_OK(GsBandedDestroy(&A));
  }
  /* On a GPU, interleaved double pentadiagonal LU batches of 2033 to 2048 rows go to the scan
   * (whose blocks pair their groups of 2 systems there) up to 16384 systems; one thread per
   * system beyond (GPU only: large batches). */
  {
    GsDeviceInfo ginfo;
    memset(&ginfo, 0, sizeof ginfo);
    ginfo.device_id = -1;
    CHECK_OK(GsGetDeviceInfo(ctx, &ginfo));
    for (int v = 0; v < 3 && ginfo.device_id >= 0; v++) {
      GsBandedDesc dv = {5,
                         v == 2 ? 2032 : 2048,
                         v == 1 ? 32768 : 16384,
                         GS_DOUBLE,
                         GS_BANDED_INTERLEAVED,
                         0,
                         0,
                         0,
                         0};
      if (CHECK_OK(GsBandedCreate(ctx, &dv, &A))) continue;
      GsBandedAlgorithm got = GS_BANDED_ALGORITHM_AUTO;
      const GsBandedAlgorithm expect =
          v == 0 ? GS_BANDED_ALGORITHM_SCAN : GS_BANDED_ALGORITHM_THREAD;
      CHECK_OK(GsBandedGetAlgorithm(A, &got));
      CHECK(got == expect, "automatic choice for %lld penta systems of %lld rows: %s (expect %s)",
            (long long)dv.batch, (long long)dv.n, GsBandedAlgorithmName(got),
            GsBandedAlgorithmName(expect));
      CHECK_OK(GsBandedDestroy(&A));
    }
  }
  /* On an sm_90 GPU, pentadiagonal LU batches of 4096 systems or more of 513 to 1024 rows run one
   * thread per system, staged, where the scan would otherwise take them (staged_beats_scan); not
   * with -banded_staged off, nor periodic, LDL^T or tri batches, nor 512 rows, nor double batches
   * of 8192 systems or more of over 992 rows (-banded_staged off at 4096 systems, where auto would
   * stage). (GPU only: the batches are large, and the CPU's choice is one thread per system
   * anyway.) */
  GsDeviceInfo dinfo;
  memset(&dinfo, 0, sizeof dinfo);
  dinfo.device_id = -1;
  CHECK_OK(GsGetDeviceInfo(ctx, &dinfo));
  char prev_staged[16] = "auto";
  CHECK_OK(GsOptionsGetString(ctx, "-banded_staged", prev_staged, sizeof prev_staged, NULL));
  if (dinfo.device_id >= 0)
    for (int v = 0; v < 9; v++) {
      GsBandedDesc dv = {v == 4 ? 3 : 5,
                         v == 5   ? 512
                         : v == 1 ? 600
                         : v == 8 ? 896
                                  : 1024 + 2 * (v == 2),
                         v == 1 || v == 8   ? 16384
                         : v == 6 || v == 0 ? 4096
                                            : 8192,
                         v == 6 ? GS_FLOAT : GS_DOUBLE,
                         GS_BANDED_INTERLEAVED,
                         0,
                         0,
                         v == 2,
                         v == 3};
      CHECK_OK(GsOptionsSetValue(ctx, "-banded_staged", v == 0 ? "off" : "auto"));
      if (CHECK_OK(GsBandedCreate(ctx, &dv, &A))) continue;
      GsBandedAlgorithm got = GS_BANDED_ALGORITHM_AUTO, expect = GS_BANDED_ALGORITHM_SCAN;
      if (v != 0 && dv.bands == 5 && !dv.periodic && !dv.spd && dv.n > 512 &&
          dinfo.compute_major >= 9 && !(dv.dt == GS_DOUBLE && dv.n > 992 && dv.batch >= 8192))
        expect = GS_BANDED_ALGORITHM_THREAD;
      CHECK_OK(GsBandedGetAlgorithm(A, &got));
      CHECK(got == expect,
            "automatic choice for %lld systems of %lld rows (bands %d, periodic %d, spd %d, %s, "
            "-banded_staged %s): %s (expect %s)",
            (long long)dv.batch, (long long)dv.n, dv.bands, dv.periodic, dv.spd,
            dv.dt == GS_FLOAT ? "float" : "double", v == 0 ? "off" : "auto",
            GsBandedAlgorithmName(got), GsBandedAlgorithmName(expect));
      CHECK_OK(GsBandedDestroy(&A));
    }
  CHECK_OK(GsOptionsSetValue(ctx, "-banded_staged", prev_staged));
  CHECK_OK(GsOptionsSetValue(ctx, "-banded_algorithm", prev));
  /* Tile: at most 4096 rows in the banded block; periodic systems have h more. */
  for (int per = 0; per < 2; per++) {
    GsBandedDesc ds = {5, 4096 + 2 * per, 3, GS_DOUBLE, GS_BANDED_INTERLEAVED, 0, 1, per, 0};
    if (!CHECK_OK(GsBandedCreate(ctx, &ds, &A))) {
      GsBandedAlgorithm got = GS_BANDED_ALGORITHM_AUTO;
      CHECK_OK(GsBandedSetAlgorithm(A, GS_BANDED_ALGORITHM_TILE));
      /* 128 chunks: two passes on a GPU unless -banded_tile_passes one; one on the CPU. */
      char opt[16] = "auto";
      CHECK_OK(GsOptionsGetString(ctx, "-banded_tile_passes", opt, sizeof opt, NULL));
      int passes = -1;
      CHECK_OK(GsBandedGetTilePasses(A, &passes));
      const int want2 = dinfo.device_id >= 0 && strcmp(opt, "one") != 0;
      CHECK(passes == (want2 ? 2 : 1), "tile passes at %lld rows (-banded_tile_passes %s): %d",
            (long long)ds.n, opt, passes);
      CHECK_ERR(GsBandedGetTilePasses(A, NULL), GS_ERR_ARG_NULL);
      CHECK_ERR(GsBandedGetTilePasses(NULL, &passes), GS_ERR_ARG_NULL);
      /* Per object: one or two passes whatever the option (a GPU's; one on the CPU), the
       * algorithm kept; 0 goes back to the option's choice. */
      for (int k = 0; k < 3; k++) {
        const int w = (k + 1) % 3; /* 1, 2, then 0 */
        CHECK_OK(GsBandedSetTilePasses(A, w));
        CHECK_OK(GsBandedGetTilePasses(A, &passes));
        CHECK_OK(GsBandedGetAlgorithm(A, &got));
        const int expect = dinfo.device_id < 0 ? 1 : w ? w : want2 ? 2 : 1;
        CHECK(passes == expect && got == GS_BANDED_ALGORITHM_TILE,
              "GsBandedSetTilePasses(%d) at %lld rows: %d passes (expect %d), %s", w,
              (long long)ds.n, passes, expect, GsBandedAlgorithmName(got));
      }
      CHECK_ERR(GsBandedSetTilePasses(A, 3), GS_ERR_ARG_OUTOFRANGE);
      CHECK_ERR(GsBandedSetTilePasses(A, -1), GS_ERR_ARG_OUTOFRANGE);
      CHECK_ERR(GsBandedSetTilePasses(NULL, 1), GS_ERR_ARG_NULL);
      if (per) { /* periodic systems are partitioned too */
        CHECK_OK(GsBandedSetAlgorithm(A, GS_BANDED_ALGORITHM_SPIKE));
        CHECK_OK(GsBandedGetAlgorithm(A, &got));
        CHECK(got == GS_BANDED_ALGORITHM_SPIKE, "periodic spike: %s", GsBandedAlgorithmName(got));
        CHECK_OK(GsBandedGetTilePasses(A, &passes));
        CHECK(passes == 0, "tile passes of a SPIKE batch: %d", passes);
      }
      CHECK_OK(GsBandedSetAlgorithm(A, GS_BANDED_ALGORITHM_AUTO));
      CHECK_OK(GsBandedGetAlgorithm(A, &got));
      GsDeviceInfo info;
      CHECK_OK(GsGetDeviceInfo(ctx, &info));
      CHECK(info.device_id >= 0 ? got == GS_BANDED_ALGORITHM_TILE
                                : got == GS_BANDED_ALGORITHM_THREAD,
            "automatic choice for a shared matrix of %lld rows: %s", (long long)ds.n,
            GsBandedAlgorithmName(got));
      CHECK_OK(GsBandedDestroy(&A));
    }
    ds.n++;
    if (!CHECK_OK(GsBandedCreate(ctx, &ds, &A))) {
      CHECK_ERR(GsBandedSetAlgorithm(A, GS_BANDED_ALGORITHM_TILE), GS_ERR_UNSUPPORTED);
      CHECK_MSG(ctx, "at most 4096 rows");
      CHECK_OK(GsBandedDestroy(&A));
    }
  }
  /* Up to 1024 rows a system's chunks fit one GPU warp; beyond, up to 128 chunks of 32 rows scan
   * across warps (1025: a last chunk of one row; 4096: 128 full chunks). Periodic systems have h
   * rows more, so a power of two n puts the tail's rows at the end of the last chunk (254, 1022,
   * 4094 penta; 255, 1023, 2111 tri), which the GPU loads and stores whole; at 255, 1023 and
   * 2111 penta (n = 257, 1025, 2113) that chunk ends a row short of n and holds only row m. */
  static const GsInt ns[] = {5,    9,    40,   254,  255,  256,  257,  500,  513,
                             1000, 1022, 1023, 1024, 1025, 1600, 2111, 4094, 4096};
  long cases = 0;
  /* On a GPU each case in one pass on chip (short kernel up to 32 chunks, long kernel past them)
   * and in two passes over f (32-row chunks of 32 consecutive systems a warp; rows 257, 513,
   * 1025: a last chunk that starts at row m - 1, whose end map takes g_{m-2} from its carry).
   * Batches of 2100 systems (1, 8, 17, 32 and 128 chunks; a part-filled last block) run the two
   * passes' carries as serial walks, a block per 32 systems; 37 and 300, a warp per system. */
  char prev_passes[16] = "auto";
  CHECK_OK(GsOptionsGetString(ctx, "-banded_tile_passes", prev_passes, sizeof prev_passes, NULL));
  for (int pass = 0; pass < (dinfo.device_id >= 0 ? 2 : 1); pass++) {
    CHECK_OK(GsOptionsSetValue(ctx, "-banded_tile_passes", pass ? "two" : "one"));
    for (int bands = 3; bands <= 5; bands += 2)
      for (int per = 0; per < 2; per++)
        for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {
          const int kind = ni % 3 == 0 ? KIND_DD : ni % 3 == 1 ? KIND_SPD_SMALL : KIND_SPD_LARGE;
          const int lay = ni % 4 == 3;
          GsBandedDesc dc = {bands,
                             ns[ni] + (per ? bands / 2 : 0),
                             (GsInt)(ni % 2                ? 37
                                     : pass && ni % 4 == 0 ? 2100
                                                           : 300),
                             GS_DOUBLE,
                             lay ? GS_BANDED_CONTIGUOUS : GS_BANDED_INTERLEAVED,
                             lay ? ns[ni] + 3 : 0,
                             1,
                             per,
                             kind != KIND_DD && ni % 2};
          versus_thread_desc(ctx, &dc, kind, GS_BANDED_ALGORITHM_TILE, r);
          cases++;
        }
  }
  /* Contiguous batches of whole groups of 32 systems of at most 32 chunks, a multiple of 4, whose
   * two passes on a GPU give a block's warps consecutive chunks of the same 32 systems
   * (gs_tile2_index): 500, 1000 and 1024 rows (16, 32 and 32 chunks; 1000: a part-filled last
   * chunk) in batches of 64 and 96, plain and periodic; 130 rows (5 chunks) keep the plain
   * order. */
  if (dinfo.device_id >= 0) {
    CHECK_OK(GsOptionsSetValue(ctx, "-banded_tile_passes", "two"));
    static const GsInt rn[] = {500, 1000, 1024, 130};
    for (int bands = 3; bands <= 5; bands += 2)
      for (int per = 0; per < 2; per++)
        for (int q = 0; q < 4; q++) {
          const GsInt n = rn[q] + (per ? bands / 2 : 0);
          const GsInt nb = q % 2 ? 96 : 64;
          GsBandedDesc dc = {bands, n, nb, GS_DOUBLE, GS_BANDED_CONTIGUOUS, n + 3, 1, per, 0};
          versus_thread_desc(ctx, &dc, KIND_DD, GS_BANDED_ALGORITHM_TILE, r);
          cases++;
        }
  }
  /* The automatic choice takes two passes on a GPU for contiguous batches of 4096 systems or more
   * of 993 to 1024 rows, one for fewer systems, shorter ones or the interleaved layout. */
  {
    CHECK_OK(GsOptionsSetValue(ctx, "-banded_tile_passes", "auto"));
    static const GsInt cn[5] = {1024, 1024, 1024, 993, 992}, cb[5] = {4096, 4095, 4096, 8192, 8192};
    for (int c = 0; c < 5; c++) {
      const int inter = c == 2;
      GsBandedDesc dc = {
          5, cn[c], cb[c], GS_DOUBLE, inter ? GS_BANDED_INTERLEAVED : GS_BANDED_CONTIGUOUS,
          0, 1,     0,     0};
      GsBanded Ac = NULL;
      if (CHECK_OK(GsBandedCreate(ctx, &dc, &Ac))) continue;
      int passes = -1;
      CHECK_OK(GsBandedSetAlgorithm(Ac, GS_BANDED_ALGORITHM_TILE));
      CHECK_OK(GsBandedGetTilePasses(Ac, &passes));
      const int wantp = dinfo.device_id >= 0 && (c == 0 || c == 3) ? 2 : 1;
      CHECK(passes == wantp, "tile passes, %s batch of %lld systems of %lld rows: %d, expected %d",
            inter ? "interleaved" : "contiguous", (long long)cb[c], (long long)cn[c], passes,
            wantp);
      CHECK_OK(GsBandedDestroy(&Ac));
    }
  }
  /* A short shared batch (4 chunks): one pass unless -banded_tile_passes two on a GPU; an unknown
   * value is a named error of GsBandedCreate. */
  {
    GsBandedDesc dp = {5, 100, 8, GS_DOUBLE, GS_BANDED_INTERLEAVED, 0, 1, 0, 0};
    GsBanded Ap = NULL;
    for (int two = 0; two < 2; two++) {
      CHECK_OK(GsOptionsSetValue(ctx, "-banded_tile_passes", two ? "two" : "auto"));
      if (CHECK_OK(GsBandedCreate(ctx, &dp, &Ap))) continue;
      int passes = -1;
      CHECK_OK(GsBandedSetAlgorithm(Ap, GS_BANDED_ALGORITHM_TILE));
      CHECK_OK(GsBandedGetTilePasses(Ap, &passes));
      const int wantp = two && dinfo.device_id >= 0 ? 2 : 1;
      CHECK(passes == wantp, "tile passes at 100 rows (-banded_tile_passes %s): %d, expected %d",
            two ? "two" : "auto", passes, wantp);
      CHECK_OK(GsBandedDestroy(&Ap));
    }
    CHECK_OK(GsOptionsSetValue(ctx, "-banded_tile_passes", "three"));
    CHECK_ERR(GsBandedCreate(ctx, &dp, &Ap), GS_ERR_OPTION);
    CHECK_MSG(ctx, "-banded_tile_passes");
    CHECK(Ap == NULL, "a failed GsBandedCreate left an object");
  }
  CHECK_OK(GsOptionsSetValue(ctx, "-banded_tile_passes", prev_passes));
  /* Large interleaved batches (the GPU's blocks of 16 systems, whose scans keep their matrices in
   * shared memory), n = 1024: not periodic, and periodic with the chunk that holds the tail's
   * rows, with two blocks of right-hand sides. On the GPU only: the CPU back end has no such
   * kernel, and these take it a while. */
  if (dinfo.device_id >= 0)
    for (int bands = 3; bands <= 5; bands += 2)
      for (int per = 0; per < 2; per++) {
        GsBandedDesc dw = {bands, 1024, 16384, GS_DOUBLE, GS_BANDED_INTERLEAVED, 0, 1, per, 0};
        versus_thread_desc(ctx, &dw, KIND_DD, GS_BANDED_ALGORITHM_TILE, r);
        cases++;
      }
  /* Periodic batches of 4095 systems of 1024 rows, both layouts: on the GPU the blocks of 32-row
   * chunks fit two a SM with W read from global memory and one with W in shared memory, and the
   * batch fills two, so these take the former (GS_TILE_WSM); the batches above the latter. */
  if (dinfo.device_id >= 0)
    for (int lay = 0; lay < 2; lay++) {
      GsBandedDesc dp = {
          5, 1024, 4095, GS_DOUBLE, lay ? GS_BANDED_CONTIGUOUS : GS_BANDED_INTERLEAVED, 0, 1, 1, 0};
      versus_thread_desc(ctx, &dp, KIND_SPD_LARGE, GS_BANDED_ALGORITHM_TILE, r);
      cases++;
    }
  /* Contiguous batches of short systems: 8- and 16-row chunks, 8 to 32 chunks (on a GPU a warp
   * of 32 / ns chunks of each of ns = 32 to 8 systems stages its rows: GS_TILE_STAGED), full or
   * with a partial last chunk, periodic or not, padded strides, a batch that leaves the last
   * group part empty. */
  static const GsInt cn[] = {64, 100, 128, 200, 256, 384, 512};
  for (size_t ni = 0; ni < sizeof cn / sizeof cn[0]; ni++)
    for (int per = 0; per < 2; per++) {
      const int bands = ni % 2 ? 3 : 5;
      const GsInt n = cn[ni] + (per ? bands / 2 : 0);
      GsBandedDesc dc = {bands, n,   70, GS_DOUBLE, GS_BANDED_CONTIGUOUS, n + 1 + (GsInt)ni,
                         1,     per, 0};
      versus_thread_desc(ctx, &dc, ni % 3 ? KIND_DD : KIND_SPD_LARGE, GS_BANDED_ALGORITHM_TILE, r);
      cases++;
    }
  for (int per = 0; per < 2; per++)
    bad_shared_tile(ctx, per, r);
  printf("algorithms: %ld tile-versus-thread cases\n", cases);
  test_scan(ctx, r);
}

/* Deferred status checks: calls return without reporting, bad systems accumulate over calls and
 * GsBandedCheckStatus reports them (naming the first) and starts a new period; the mode's
 * argument errors; the option -banded_check. */
static void test_deferred(GsContext ctx, HsRng *r) {
  GsBandedDesc d = {5, 40, 9, GS_DOUBLE, GS_BANDED_INTERLEAVED, 0, 0, 0, 0};
  Batch b;
  batch_init(&b, &d);
  GsBanded A = NULL;
  GsVec Dv[5] = {NULL, NULL, NULL, NULL, NULL}, F = NULL, Fbad = NULL, X = NULL;
  double *f = NULL, *fb = NULL, *x = NULL;
  int st[9];
  if (CHECK_OK(GsBandedCreate(ctx, &d, &A))) goto done;
  GsBandedCheck mode = GS_BANDED_CHECK_EACH;
  CHECK_ERR(GsBandedSetCheck(A, (GsBandedCheck)7), GS_ERR_ARG_OUTOFRANGE);
  CHECK_ERR(GsBandedGetCheck(A, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsBandedCheckStatus(NULL), GS_ERR_ARG_NULL);
  CHECK_OK(GsBandedSetCheck(A, GS_BANDED_CHECK_DEFERRED));
  CHECK_OK(GsBandedGetCheck(A, &mode));
  CHECK(mode == GS_BANDED_CHECK_DEFERRED, "GetCheck gave %d", (int)mode);
  CHECK_OK(GsBandedCheckStatus(A)); /* nothing since the last check */
  fill_matrix(&b, KIND_DD, r);
  zero_row(&b, 4, 0); /* system 4: zero pivot */
  for (int k = 0; k < 5; k++)
    if (!(Dv[k] = new_vec(ctx, d.dt, b.dl, b.D[k]))) goto done;
  f = make_rhs(&b, 1, NAN, r);
  fb = hs_malloc((size_t)b.rl * sizeof *fb);
  memcpy(fb, f, (size_t)b.rl * sizeof *fb);
  fb[ridx(&b, 6, 3)] = NAN; /* system 6: non-finite right-hand side */
  x = hs_malloc((size_t)b.rl * sizeof *x);
  if (!(F = new_vec(ctx, d.dt, b.rl, f)) || !(Fbad = new_vec(ctx, d.dt, b.rl, fb)) ||
      !(X = new_vec(ctx, d.dt, b.rl, NULL)))
    goto done;
  /* The zero pivot is not reported by the calls, only by the check. */
  CHECK_OK(GsBandedFactor(A, Dv));
  CHECK_OK(GsBandedSolve(A, F, X));
  CHECK_OK(get_vec(X, d.dt, b.rl, x));
  check_nan_system(&b, "deferred, zero pivot", x, 4, 1);
  char skip[9] = {0};
  skip[4] = 1;
  check_solution(&b, "deferred, zero pivot", f, x, 1, skip, NULL);
  GsInt nbad = 0, first = -1;
  GsBandedStatus code = GS_BANDED_OK;
  CHECK_OK(GsBandedGetStatus(A, &nbad, &first, &code));
  CHECK(nbad == 1 && first == 4 && code == GS_BANDED_ZERO_PIVOT,
        "deferred GetStatus: %lld bad, first %lld, code %d (want 1, 4, zero pivot)",
        (long long)nbad, (long long)first, (int)code);
  CHECK_ERR(GsBandedSetCheck(A, GS_BANDED_CHECK_EACH), GS_ERR_WRONG_STATE);
  CHECK_ERR(GsBandedCheckStatus(A), GS_ERR_ZERO_PIVOT);
  CHECK_MSG(ctx, "system 4");
  CHECK_OK(GsBandedCheckStatus(A)); /* a new period: nothing since */
  /* Failures accumulate over calls: a bad right-hand side, then a good one. */
  fill_matrix(&b, KIND_DD, r);
  for (int k = 0; k < 5; k++)
    CHECK_OK(set_vec(Dv[k], d.dt, b.dl, b.D[k]));
  CHECK_OK(GsBandedFactor(A, Dv));
  CHECK_OK(GsBandedSolve(A, Fbad, X));
  CHECK_OK(GsBandedSolve(A, F, X));
  CHECK_OK(GsBandedGetSystemStatus(A, st));
  for (int s = 0; s < 9; s++)
    CHECK(st[s] == (s == 6 ? GS_BANDED_NOT_FINITE : GS_BANDED_OK),
          "deferred, accumulated: system %d has status %d", s, st[s]);
  CHECK_ERR(GsBandedCheckStatus(A), GS_ERR_NOT_FINITE);
  CHECK_MSG(ctx, "system 6");
  CHECK_OK(GsBandedSolve(A, F, X));
  CHECK_OK(GsBandedCheckStatus(A));
  CHECK_OK(get_vec(X, d.dt, b.rl, x));
  check_solution(&b, "deferred, after a check", f, x, 1, NULL, NULL);
  /* Back to checking each call: the check repeats the last call's result. */
  CHECK_OK(GsBandedSetCheck(A, GS_BANDED_CHECK_EACH));
  CHECK_ERR(GsBandedSolve(A, Fbad, X), GS_ERR_NOT_FINITE);
  CHECK_ERR(GsBandedCheckStatus(A), GS_ERR_NOT_FINITE);
  CHECK_OK(GsBandedDestroy(&A));
  /* The option. */
  char prev[32] = "each";
  CHECK_OK(GsOptionsGetString(ctx, "-banded_check", prev, sizeof prev, NULL));
  CHECK_OK(GsOptionsSetValue(ctx, "-banded_check", "deferred"));
  if (!CHECK_OK(GsBandedCreate(ctx, &d, &A))) {
    CHECK_OK(GsBandedGetCheck(A, &mode));
    CHECK(mode == GS_BANDED_CHECK_DEFERRED, "-banded_check deferred gave mode %d", (int)mode);
    CHECK_OK(GsBandedDestroy(&A));
  }
  CHECK_OK(GsOptionsSetValue(ctx, "-banded_check", "sometimes"));
  CHECK_ERR(GsBandedCreate(ctx, &d, &A), GS_ERR_OPTION);
  CHECK_MSG(ctx, "-banded_check");
  CHECK_OK(GsOptionsSetValue(ctx, "-banded_check", prev));
done:
  destroy_vecs(5, Dv);
  GsVecDestroy(&F);
  GsVecDestroy(&Fbad);
  GsVecDestroy(&X);
  CHECK_OK(GsBandedDestroy(&A));
  free(f);
  free(fb);
  free(x);
  batch_free(&b);
}

/* Statuses over a sequence of calls of one object, and of two objects in turn on one context: a
 * call after a bad one clears the statuses, a clean call after a clean one too (the GPU back end
 * then queues no clear and copies nothing back, GsBandedHostSummary in banded.cu), a later bad
 * system is reported alone, and deferred periods keep their own. Each algorithm (alg 0: thread,
 * 1: scan, 2: tile on a shared matrix, 3: spike). */
static void status_sequence(GsContext ctx, int alg, HsRng *r) {
  const GsInt n = 64, batch = 33;
  GsBandedDesc d = {5, n, batch, GS_DOUBLE, GS_BANDED_INTERLEAVED, 0, alg == 2, 0, 0};
  static const GsBandedAlgorithm algos[] = {GS_BANDED_ALGORITHM_THREAD, GS_BANDED_ALGORITHM_SCAN,
                                            GS_BANDED_ALGORITHM_TILE, GS_BANDED_ALGORITHM_SPIKE};
  Batch b;
  batch_init(&b, &d);
  char what[256];
  describe(&b, KIND_DD, "status sequence", what, sizeof what);
  snprintf(what + strlen(what), sizeof what - strlen(what), ", %s",
           (const char *[]){"thread", "scan", "tile", "spike"}[alg]);
  GsBanded A = NULL, B = NULL;
  GsVec Dv[5] = {NULL, NULL, NULL, NULL, NULL}, F = NULL, F7 = NULL, F19 = NULL, X = NULL;
  double *f = NULL, *fb = NULL, *x = NULL;
  int want[33];
  char skip[33];
  if (CHECK_OK(GsBandedCreate(ctx, &d, &A)) || CHECK_OK(GsBandedCreate(ctx, &d, &B))) goto done;
  if (alg == 3) {
    if (CHECK_OK(GsBandedSetPartitions(A, 4)) || CHECK_OK(GsBandedSetPartitions(B, 4))) goto done;
  } else if (CHECK_OK(GsBandedSetAlgorithm(A, algos[alg])) ||
             CHECK_OK(GsBandedSetAlgorithm(B, algos[alg]))) {
    goto done;
  }
  fill_matrix(&b, KIND_DD, r);
  for (int k = 0; k < 5; k++)
    if (!(Dv[k] = new_vec(ctx, d.dt, b.dl, b.D[k]))) goto done;
  f = make_rhs(&b, 1, NAN, r);
  fb = hs_malloc((size_t)b.rl * sizeof *fb);
  x = hs_malloc((size_t)b.rl * sizeof *x);
  memcpy(fb, f, (size_t)b.rl * sizeof *fb);
  fb[ridx(&b, 7, 5)] = NAN;
  if (!(F7 = new_vec(ctx, d.dt, b.rl, fb))) goto done;
  memcpy(fb, f, (size_t)b.rl * sizeof *fb);
  fb[ridx(&b, 19, n - 1)] = INFINITY;
  if (!(F19 = new_vec(ctx, d.dt, b.rl, fb)) || !(F = new_vec(ctx, d.dt, b.rl, f)) ||
      !(X = new_vec(ctx, d.dt, b.rl, NULL)))
    goto done;
  GsBandedAlgorithm got = GS_BANDED_ALGORITHM_AUTO;
  CHECK_OK(GsBandedGetAlgorithm(A, &got));
  CHECK(got == algos[alg], "%s: the object runs algorithm %d", what, (int)got);
  CHECK_OK(GsBandedFactor(A, Dv));
  CHECK_OK(GsBandedFactor(B, Dv));
  check_all_good(A, &b, what);
  memset(skip, 0, sizeof skip);
  /* One bad system (bad) or none (-1) in a checked solve of OBJ, then its statuses and x (the
   * other systems' where one is bad: their right-hand sides are f's). */
#define SEQ_SOLVE(OBJ, FV, BAD, TAG)                                                               \
  do {                                                                                             \
    char w_[320];                                                                                  \
    snprintf(w_, sizeof w_, "%s, %s", what, TAG);                                                  \
    CHECK_OK(GsVecSet(X, NAN));                                                                    \
    if ((BAD) < 0) {                                                                               \
      CHECK_OK(GsBandedSolve(OBJ, FV, X));                                                         \
      check_all_good(OBJ, &b, w_);                                                                 \
    } else {                                                                                       \
      char m_[32];                                                                                 \
      CHECK_ERR(GsBandedSolve(OBJ, FV, X), GS_ERR_NOT_FINITE);                                     \
      snprintf(m_, sizeof m_, "system %d ", (int)(BAD));                                           \
      CHECK_MSG(ctx, m_);                                                                          \
      CHECK_MSG(ctx, "1 of 33");                                                                   \
      memset(want, 0, sizeof want);                                                                \
      want[BAD] = GS_BANDED_NOT_FINITE;                                                            \
      check_status(OBJ, w_, batch, want);                                                          \
      skip[BAD] = 1;                                                                               \
    }                                                                                              \
    CHECK_OK(get_vec(X, d.dt, b.rl, x));                                                           \
    check_solution(&b, w_, f, x, 1, skip, NULL);                                                   \
    memset(skip, 0, sizeof skip);                                                                  \
  } while (0)
  SEQ_SOLVE(A, F, -1, "clean 1");
  SEQ_SOLVE(A, F, -1, "clean 2");
  SEQ_SOLVE(A, F, -1, "clean 3");
  SEQ_SOLVE(A, F7, 7, "bad 7 after clean");
  SEQ_SOLVE(A, F7, 7, "bad 7 again");
  SEQ_SOLVE(A, F, -1, "clean after bad");
  SEQ_SOLVE(A, F, -1, "clean after clean after bad");
  SEQ_SOLVE(A, F19, 19, "bad 19 after clean");
  SEQ_SOLVE(A, F7, 7, "bad 7 after bad 19");
  CHECK_OK(GsBandedFactor(A, Dv)); /* a clean factorisation after a bad solve */
  check_all_good(A, &b, what);
  SEQ_SOLVE(A, F, -1, "clean after factor");
  /* Two objects in turn: each reports its own calls only. */
  SEQ_SOLVE(A, F7, 7, "A bad before B");
  SEQ_SOLVE(B, F, -1, "B clean after A bad");
  SEQ_SOLVE(B, F19, 19, "B bad");
  SEQ_SOLVE(A, F, -1, "A clean after B bad");
  SEQ_SOLVE(B, F, -1, "B clean after B bad");
#undef SEQ_SOLVE
  /* Deferred periods: clean, then bad then clean (the period keeps system 7), then clean. */
  CHECK_OK(GsBandedSetCheck(A, GS_BANDED_CHECK_DEFERRED));
  CHECK_OK(GsBandedSolve(A, F, X));
  CHECK_OK(GsBandedSolve(A, F, X));
  CHECK_OK(GsBandedCheckStatus(A));
  check_all_good(A, &b, what);
  CHECK_OK(GsBandedSolve(A, F7, X));
  CHECK_OK(GsBandedSolve(A, F, X));
  CHECK_ERR(GsBandedCheckStatus(A), GS_ERR_NOT_FINITE);
  CHECK_MSG(ctx, "system 7 ");
  memset(want, 0, sizeof want);
  want[7] = GS_BANDED_NOT_FINITE;
  check_status(A, what, batch, want);
  CHECK_OK(GsBandedSolve(A, F, X));
  CHECK_OK(GsBandedSolve(A, F, X));
  CHECK_OK(GsBandedCheckStatus(A));
  check_all_good(A, &b, what);
  CHECK_OK(GsBandedSolve(A, F19, X)); /* the first call of a period is the bad one */
  CHECK_ERR(GsBandedCheckStatus(A), GS_ERR_NOT_FINITE);
  CHECK_MSG(ctx, "system 19 ");
  CHECK_OK(GsBandedSetCheck(A, GS_BANDED_CHECK_EACH));
  CHECK_OK(GsVecSet(X, NAN));
  CHECK_OK(GsBandedSolve(A, F, X));
  check_all_good(A, &b, what);
  CHECK_OK(get_vec(X, d.dt, b.rl, x));
  check_solution(&b, what, f, x, 1, NULL, NULL);
done:
  destroy_vecs(5, Dv);
  GsVecDestroy(&F);
  GsVecDestroy(&F7);
  GsVecDestroy(&F19);
  GsVecDestroy(&X);
  CHECK_OK(GsBandedDestroy(&A));
  CHECK_OK(GsBandedDestroy(&B));
  free(f);
  free(fb);
  free(x);
  batch_free(&b);
}

static void test_status_sequence(GsContext ctx, HsRng *r) {
  for (int alg = 0; alg < 4; alg++)
    status_sequence(ctx, alg, r);
}

/* The same batch in the interleaved (i) and the contiguous (c) layout, each solved one thread a
 * system (test_layout_bits, test_layout_status): host arrays of the diagonals (dl entries), f and
 * x (tl entries), and their objects. */
typedef struct {
  int bands;
  double *Di[5], *Dc[5], *fi, *fc, *xi, *xc;
  GsBanded Ai, Ac;
  GsVec Dvi[5], Dvc[5], Fi, Fc, Xi, Xc;
} LayoutPair;

static void pair_alloc(LayoutPair *p, int bands, GsInt dl, GsInt tl) {
  memset(p, 0, sizeof *p);
  p->bands = bands;
  for (int k = 0; k < bands; k++) {
    p->Di[k] = hs_malloc((size_t)dl * sizeof(double));
    p->Dc[k] = hs_malloc((size_t)dl * sizeof(double));
  }
  p->fi = hs_malloc((size_t)tl * sizeof(double));
  p->fc = hs_malloc((size_t)tl * sizeof(double));
  p->xi = hs_malloc((size_t)tl * sizeof(double));
  p->xc = hs_malloc((size_t)tl * sizeof(double));
}

/* The two objects (di in the interleaved layout, its copy in the contiguous one) and vectors of the
 * host arrays; 0 when all were made. */
static int pair_create(GsContext ctx, LayoutPair *p, const GsBandedDesc *di, GsInt dl, GsInt tl) {
  GsBandedDesc dc = *di;
  dc.layout = GS_BANDED_CONTIGUOUS;
  if (CHECK_OK(GsBandedCreate(ctx, di, &p->Ai)) || CHECK_OK(GsBandedCreate(ctx, &dc, &p->Ac)) ||
      CHECK_OK(GsBandedSetAlgorithm(p->Ai, GS_BANDED_ALGORITHM_THREAD)) ||
      CHECK_OK(GsBandedSetAlgorithm(p->Ac, GS_BANDED_ALGORITHM_THREAD)))
    return 1;
  for (int k = 0; k < p->bands; k++) {
    p->Dvi[k] = new_vec(ctx, di->dt, dl, p->Di[k]);
    p->Dvc[k] = new_vec(ctx, di->dt, dl, p->Dc[k]);
  }
  p->Fi = new_vec(ctx, di->dt, tl, p->fi);
  p->Fc = new_vec(ctx, di->dt, tl, p->fc);
  p->Xi = new_vec(ctx, di->dt, tl, NULL);
  p->Xc = new_vec(ctx, di->dt, tl, NULL);
  return 0;
}

static void pair_free(LayoutPair *p) {
  destroy_vecs(5, p->Dvi);
  destroy_vecs(5, p->Dvc);
  GsVecDestroy(&p->Fi);
  GsVecDestroy(&p->Fc);
  GsVecDestroy(&p->Xi);
  GsVecDestroy(&p->Xc);
  GsBandedDestroy(&p->Ai);
  GsBandedDestroy(&p->Ac);
  for (int k = 0; k < p->bands; k++) {
    free(p->Di[k]);
    free(p->Dc[k]);
  }
  free(p->fi);
  free(p->fc);
  free(p->xi);
  free(p->xc);
}

/* The CPU's block sweeps of the interleaved layout (several systems per row, vectorised) promise
 * the per-system arithmetic: the same systems solved in the interleaved and the contiguous layout
 * (which the CPU solves one system at a time) give the same bits, periodic or not, LU or LDL^T,
 * shared matrix or not, double and float; for matrices of their own, FactorSolve (the fused sweep
 * where it applies) too. Cases 32 and up take 5121 systems and two blocks of right-hand sides, so
 * that the blocks of up to 1024 systems (banded.c's GS_CPU_SB) come several to a thread, the last
 * one partial, and each thread's block state is used again for the next block. CPU only (the GPU
 * kernels differ by layout). */
static void test_layout_bits(GsContext ctx, HsRng *r) {
  for (int c = 0; c < 48; c++) {
    const int bands = c % 2 ? 5 : 3, shared = (c / 2) % 2, periodic = (c / 4) % 2,
              spd = (c / 8) % 2, big = c >= 32;
    const GsDataType dt = (c / 16) % 2 ? GS_FLOAT : GS_DOUBLE;
    const GsInt n = big ? 7 + c % 5 : 37 + c, batch = big ? 5121 : 19, nrhs = big ? 2 : 1;
    const int h = bands / 2;
    GsBandedDesc di = {bands, n, batch, dt, GS_BANDED_INTERLEAVED, 0, shared, periodic, spd};
    const GsInt nm = shared ? 1 : batch, dl = n * nm, rl = n * batch, tl = nrhs * rl;
    LayoutPair p;
    pair_alloc(&p, bands, dl, tl);
    /* Diagonally dominant (SPD: symmetric rows 1, -4 s, 1 + 8 s + u, ... with the symmetric
     * entries from the row above). */
    for (GsInt s = 0; s < nm; s++)
      for (GsInt i = 0; i < n; i++) {
        const GsInt ki = shared ? i : i * batch + s, kc = shared ? i : s * n + i;
        for (int o = -h; o <= h; o++) {
          double v = o == 0 ? 2.0 * bands + hs_uniform(r) : hs_range(r, -1, 1);
          if (spd) v = o == 0 ? 2.0 * bands + 0.5 : o == 1 || o == -1 ? -1.0 : 0.25;
          p.Di[o + h][ki] = p.Dc[o + h][kc] = to_type(dt, v);
        }
      }
    for (GsInt b = 0; b < nrhs; b++)
      for (GsInt s = 0; s < batch; s++)
        for (GsInt i = 0; i < n; i++)
          p.fi[b * rl + i * batch + s] = p.fc[b * rl + s * n + i] = to_type(dt, hs_range(r, -1, 1));
    if (pair_create(ctx, &p, &di, dl, tl)) goto next;
    /* mode 0: Factor then Solve; mode 1: FactorSolve (one block of right-hand sides: the fused
     * sweep's case), matrices of their own only */
    for (int mode = 0; mode < (shared ? 1 : 2); mode++) {
      const GsInt nb = mode ? 1 : nrhs;
      if (mode) {
        GsVecDestroy(&p.Fi);
        GsVecDestroy(&p.Fc);
        GsVecDestroy(&p.Xi);
        GsVecDestroy(&p.Xc);
        p.Fi = new_vec(ctx, dt, rl, p.fi);
        p.Fc = new_vec(ctx, dt, rl, p.fc);
        p.Xi = new_vec(ctx, dt, rl, NULL);
        p.Xc = new_vec(ctx, dt, rl, NULL);
        if (CHECK_OK(GsBandedFactorSolve(p.Ai, p.Dvi, p.Fi, p.Xi)) ||
            CHECK_OK(GsBandedFactorSolve(p.Ac, p.Dvc, p.Fc, p.Xc)))
          goto next;
      } else if (CHECK_OK(GsBandedFactor(p.Ai, p.Dvi)) || CHECK_OK(GsBandedFactor(p.Ac, p.Dvc)) ||
                 CHECK_OK(GsBandedSolve(p.Ai, p.Fi, p.Xi)) ||
                 CHECK_OK(GsBandedSolve(p.Ac, p.Fc, p.Xc))) {
        goto next;
      }
      get_vec(p.Xi, dt, nb * rl, p.xi);
      get_vec(p.Xc, dt, nb * rl, p.xc);
      GsInt diff = 0;
      for (GsInt b = 0; b < nb; b++)
        for (GsInt s = 0; s < batch; s++)
          for (GsInt i = 0; i < n; i++)
            diff += !same(p.xi[b * rl + i * batch + s], p.xc[b * rl + s * n + i]);
      CHECK(diff == 0,
            "bands %d shared %d periodic %d spd %d %s, batch %lld, %lld block(s) of right-hand "
            "sides, %s: %lld entries differ between the interleaved and the contiguous solve",
            bands, shared, periodic, spd, dt == GS_DOUBLE ? "double" : "float", (long long)batch,
            (long long)nb, mode ? "FactorSolve" : "Factor + Solve", (long long)diff);
    }
  next:
    pair_free(&p);
  }
}

/* The CPU's block factorisation (interleaved, matrices of their own, not periodic) tests its pivots
 * in SIMD against a threshold with a margin and walks a flagged system again with the per-system
 * row checks for its status. So the statuses, the error and the bits of every system must be
 * those of the contiguous layout (one system at a time), on batches of 1100 systems (a full block
 * and a partial one) where systems fail in every way at a random row: a NaN or an infinity in
 * the matrix, a zero pivot, a pivot within a few ulps of the threshold on either side (row i
 * decoupled from the rows above, so that its pivot is c_i exactly), a negative or subnormal one
 * (LDL^T; the next row's factor then overflows), a NaN in a sub-diagonal, an infinity in f; LU and
 * LDL^T, tri and penta, double and float, Factor + Solve and FactorSolve. CPU only. */
static void test_layout_status(GsContext ctx, HsRng *r) {
  for (int c = 0; c < 16; c++) {
    const int bands = c % 2 ? 5 : 3, spd = (c / 2) % 2, fused = (c / 4) % 2, h = bands / 2;
    const GsDataType dt = (c / 8) % 2 ? GS_FLOAT : GS_DOUBLE;
    const double eps = dt == GS_DOUBLE ? DBL_EPSILON : FLT_EPSILON;
    const double tiny = dt == GS_DOUBLE ? 1e-310 : 1e-41; /* subnormal */
    const GsInt n = 24, batch = 1100, dl = n * batch;
    GsBandedDesc di = {bands, n, batch, dt, GS_BANDED_INTERLEAVED, 0, 0, 0, spd};
    LayoutPair p;
    pair_alloc(&p, bands, dl, dl);
    int *sti = hs_malloc((size_t)batch * sizeof *sti),
        *stc = hs_malloc((size_t)batch * sizeof *stc);
    for (GsInt s = 0; s < batch; s++) {
      double v[24][5], fs[24];
      for (GsInt i = 0; i < n; i++) {
        for (int o = -h; o <= h; o++)
          v[i][o + h] = o == 0 ? 2.0 * bands + hs_uniform(r) : hs_range(r, -1, 1);
        if (spd) /* symmetric rows 1, -4 s, 1 + 8 s + u, ... */
          for (int o = -h; o <= h; o++)
            v[i][o + h] = o == 0 ? 2.0 * bands + 0.5 : o == 1 || o == -1 ? -1.0 : 0.25;
        fs[i] = hs_range(r, -1, 1);
      }
      const int kind = (int)(hs_uniform(r) * 12);
      const GsInt row = 2 + (GsInt)(hs_uniform(r) * (double)(n - 4)); /* an interior row */
      double *d = v[row];
      switch (kind) {
      case 6:
        d[h] = NAN;
        break;
      case 7:
        d[h] = INFINITY;
        break;
      case 8: /* row decoupled from the rows above; pivot exactly 0 */
      case 9: /* ... or within 3 ulps of the threshold eps |c + d (+ e)| */
        for (int o = -h; o < 0; o++)
          d[o + h] = 0;
        if (spd) {
          d[h] = kind == 8 ? 0 : hs_uniform(r) < 0.5 ? -1.0 : tiny;
        } else {
          for (int o = 1; o <= h; o++)
            d[o + h] = o == 1 ? 1.0 : 0.0;
          const double t = eps / (1 - eps) * (1 + (double)((int)(hs_uniform(r) * 7) - 3) * eps);
          d[h] = kind == 8 ? 0 : t;
        }
        break;
      case 10:
        d[0] = NAN;
        break; /* in the lowest sub-diagonal: reaches the pivot through the sums */
      case 11:
        fs[row] = INFINITY;
        break;
      default:
        break;
      }
      for (GsInt i = 0; i < n; i++) {
        for (int o = -h; o <= h; o++) {
          const double w = to_type(dt, v[i][o + h]);
          p.Di[o + h][i * batch + s] = w;
          p.Dc[o + h][s * n + i] = w;
        }
        p.fi[i * batch + s] = p.fc[s * n + i] = to_type(dt, fs[i]);
      }
    }
    char what[160];
    snprintf(what, sizeof what, "%s %s %s, %s, batch %lld with planted failures",
             bands == 5 ? "penta" : "tri", spd ? "LDL^T" : "LU",
             dt == GS_DOUBLE ? "double" : "float", fused ? "FactorSolve" : "Factor + Solve",
             (long long)batch);
    if (pair_create(ctx, &p, &di, dl, dl)) goto next;
    int ei, ec;
    if (fused) {
      ei = GsBandedFactorSolve(p.Ai, p.Dvi, p.Fi, p.Xi);
      ec = GsBandedFactorSolve(p.Ac, p.Dvc, p.Fc, p.Xc);
    } else {
      ei = GsBandedFactor(p.Ai, p.Dvi);
      ec = GsBandedFactor(p.Ac, p.Dvc);
      CHECK(ei == ec, "%s: Factor returned %d (interleaved) and %d (contiguous)", what, ei, ec);
      ei = GsBandedSolve(p.Ai, p.Fi, p.Xi);
      ec = GsBandedSolve(p.Ac, p.Fc, p.Xc);
    }
    CHECK(ei == ec && ei != 0, "%s: returned %d (interleaved) and %d (contiguous)", what, ei, ec);
    GsClearError(ctx);
    if (CHECK_OK(GsBandedGetSystemStatus(p.Ai, sti)) ||
        CHECK_OK(GsBandedGetSystemStatus(p.Ac, stc)))
      goto next;
    GsInt sdiff = 0, nbad = 0, first = -1;
    int seen[3] = {0, 0, 0};
    for (GsInt s = 0; s < batch; s++) {
      if (sti[s] != stc[s] && first < 0) first = s;
      sdiff += sti[s] != stc[s];
      nbad += stc[s] != 0;
      if (stc[s] >= 0 && stc[s] < 3) seen[stc[s]] = 1;
    }
    CHECK(sdiff == 0,
          "%s: %lld statuses differ between the layouts, the first system %lld (%d "
          "interleaved, %d contiguous)",
          what, (long long)sdiff, (long long)first, first >= 0 ? sti[first] : 0,
          first >= 0 ? stc[first] : 0);
    /* the planted failures happened: both kinds of status, and not everywhere */
    CHECK(seen[0] && seen[GS_BANDED_ZERO_PIVOT] && seen[GS_BANDED_NOT_FINITE] &&
              4 * nbad < 3 * batch,
          "%s: %lld bad systems, statuses seen OK %d ZERO_PIVOT %d NOT_FINITE %d", what,
          (long long)nbad, seen[0], seen[1], seen[2]);
    get_vec(p.Xi, dt, dl, p.xi);
    get_vec(p.Xc, dt, dl, p.xc);
    /* A good system's x: the same bits. A bad one's holds a non-finite value in both layouts (NaN
     * where a row failed; inf or NaN from the arithmetic where only the solution is not finite,
     * and there the two sweeps may differ: the per-system tri sweep also multiplies the zero
     * second super-diagonal's factor by the inf) */
    GsInt diff = 0, fs = -1, fr = -1, clean = 0, fcl = -1;
    for (GsInt s = 0; s < batch; s++) {
      int nfi = 0, nfc = 0;
      for (GsInt i = 0; i < n; i++) {
        nfi |= !isfinite(p.xi[i * batch + s]);
        nfc |= !isfinite(p.xc[s * n + i]);
        if (!stc[s] && !same(p.xi[i * batch + s], p.xc[s * n + i]) && !diff++) fs = s, fr = i;
      }
      if (stc[s] && (!nfi || !nfc) && !clean++) fcl = s;
    }
    CHECK(diff == 0,
          "%s: %lld entries of good systems' x differ between the layouts, the first of system "
          "%lld, row %lld: %.17g interleaved, %.17g contiguous",
          what, (long long)diff, (long long)fs, (long long)fr,
          fs >= 0 ? p.xi[fr * batch + fs] : 0.0, fs >= 0 ? p.xc[fs * n + fr] : 0.0);
    CHECK(clean == 0, "%s: %lld bad systems have a finite x, the first %lld (status %d)", what,
          (long long)clean, (long long)fcl, fcl >= 0 ? stc[fcl] : 0);
  next:
    pair_free(&p);
    free(sti);
    free(stc);
  }
}

/* GsBandedSolveAXPBYPCZ: the same bits as GsBandedSolve followed by GsVecAXPBYPCZ, out of place and
 * in place (z = f), for every algorithm, both layouts, periodic or not, shared or not, one or two
 * blocks of right-hand sides, double and float; and its argument errors. */
static void test_solve_axpbypcz(GsContext ctx, HsRng *r) {
  static const GsBandedAlgorithm algos[3] = {GS_BANDED_ALGORITHM_THREAD, GS_BANDED_ALGORITHM_SPIKE,
                                             GS_BANDED_ALGORITHM_TILE};
  /* Cases 0-95: algorithm, layout, periodicity, bands, type and block count, each combination
   * once (c % 48), with shared matrices for TILE and half the others; 96-103: TILE past 1024 rows
   * (the GPU's two-pass kernels, which store the combination themselves), each layout,
   * periodicity and type. */
  for (int c = 0; c < 104; c++) {
    const int t = c - 96; /* the long cases' layout, periodicity and type bits */
    const int q = c < 96 ? c % 48 : 3 * (t & 1) + 6 * ((t >> 1) & 1) + 24 * ((t >> 2) & 1);
    const int alg = c < 96 ? q % 3 : 2, contig = (q / 3) % 2, periodic = (q / 6) % 2;
    GsBandedDesc d;
    memset(&d, 0, sizeof d);
    d.bands = (q / 12) % 2 ? 3 : 5;
    d.n = c < 96 ? 300 + c : 1100 + 333 * (c - 96);
    d.batch = c < 96 || c % 2 ? 7 : 64; /* 64: warps whose lanes share one chunk (GPU TILE) */
    d.dt = (q / 24) % 2 ? GS_FLOAT : GS_DOUBLE;
    d.layout = contig ? GS_BANDED_CONTIGUOUS : GS_BANDED_INTERLEAVED;
    d.shared = alg == 2 || (c / 48 + q) % 2; /* TILE needs a shared matrix */
    d.periodic = periodic;
    const int bands = d.bands, shared = d.shared;
    const GsDataType dt = d.dt;
    const GsInt nrhs = 1 + (c / 48) % 2 + (c >= 96 ? c % 2 : 0);
    Batch b;
    batch_init(&b, &d);
    GsBanded A = NULL;
    GsVec Dv[5] = {NULL}, V[6] = {NULL}; /* f, x, y, z, w (reference), g (in place) */
    const GsInt len = b.rl * nrhs;
    double *f = NULL, *x = NULL, *y = NULL, *z = NULL, *w = NULL, *g = NULL;
    if (CHECK_OK(GsBandedCreate(ctx, &d, &A)) || CHECK_OK(GsBandedSetAlgorithm(A, algos[alg])))
      goto next;
    fill_matrix(&b, KIND_DD, r);
    for (int k = 0; k < bands; k++)
      if (!(Dv[k] = new_vec(ctx, dt, b.dl, b.D[k]))) goto next;
    f = make_rhs(&b, nrhs, 0.0, r);
    x = make_rhs(&b, nrhs, 0.0, r);
    y = make_rhs(&b, nrhs, 0.0, r);
    for (int k = 0; k < 6; k++)
      if (!(V[k] = new_vec(ctx, dt, len, k == 1 ? x : k == 2 ? y : f))) goto next;
    z = hs_malloc((size_t)len * sizeof *z);
    w = hs_malloc((size_t)len * sizeof *w);
    g = hs_malloc((size_t)len * sizeof *g);
    const double al = 2.0, be = -1.0, ga = 0.75;
    if (CHECK_OK(GsBandedFactor(A, Dv)) ||
        CHECK_OK(GsBandedSolveAXPBYPCZ(A, V[0], al, be, ga, V[1], V[2], V[3])) ||
        CHECK_OK(GsBandedSolve(A, V[0], V[4])) ||
        CHECK_OK(GsVecAXPBYPCZ(V[4], al, be, ga, V[1], V[2])) ||
        CHECK_OK(GsBandedSolveAXPBYPCZ(A, V[5], al, be, ga, V[1], V[2], V[5])))
      goto next;
    get_vec(V[3], dt, len, z);
    get_vec(V[4], dt, len, w);
    get_vec(V[5], dt, len, g);
    GsInt dz = 0, dg = 0;
    double worst = 0;
    for (GsInt k = 0; k < len; k++) {
      dz += !same(z[k], w[k]);
      dg += !same(g[k], w[k]);
      worst = fmax(worst, fabs(w[k]));
    }
    CHECK(dz == 0 && dg == 0 && isfinite(worst) && worst > 0,
          "SolveAXPBYPCZ %s %s %s%s%s %d blocks: %lld (out of place) and %lld (in place) of %lld "
          "entries differ from Solve + AXPBYPCZ",
          GsBandedAlgorithmName(algos[alg]), contig ? "contiguous" : "interleaved",
          dt == GS_DOUBLE ? "double" : "float", periodic ? " periodic" : "",
          shared ? " shared" : "", (int)nrhs, (long long)dz, (long long)dg, (long long)len);
    /* And what it means on its own: (z - alpha x - beta y) / gamma solves A u = f. */
    {
      double *u = hs_malloc((size_t)len * sizeof *u), *au = hs_malloc((size_t)len * sizeof *au);
      for (GsInt k = 0; k < len; k++)
        u[k] = (z[k] - (al * x[k] + be * y[k])) / ga;
      GsVec U = new_vec(ctx, dt, len, u), AU = new_vec(ctx, dt, len, NULL);
      if (U && AU && !CHECK_OK(GsBandedMult(A, Dv, U, AU))) {
        get_vec(AU, dt, len, au);
        double res = 0, fmax_ = 0;
        for (GsInt k = 0; k < len; k++) {
          res = fmax(res, fabs(au[k] - f[k]));
          fmax_ = fmax(fmax_, fabs(f[k]));
        }
        const double tol = dt == GS_DOUBLE ? 1e-10 : 1e-4;
        CHECK(
            res <= tol * fmax_,
            "SolveAXPBYPCZ %s case %d: A (z - alpha x - beta y) / gamma is %.3g from f (|f| %.3g)",
            GsBandedAlgorithmName(algos[alg]), c, res, fmax_);
      }
      GsVecDestroy(&U);
      GsVecDestroy(&AU);
      free(u);
      free(au);
    }
    if (c == 0) { /* the argument errors, once */
      CHECK_ERR(GsBandedSolveAXPBYPCZ(A, V[0], al, be, ga, V[1], V[2], V[1]), GS_ERR_ARG_INCOMP);
      CHECK_MSG(ctx, "z is also x");
      CHECK_ERR(GsBandedSolveAXPBYPCZ(A, V[0], al, be, ga, V[1], V[2], V[2]), GS_ERR_ARG_INCOMP);
      CHECK_MSG(ctx, "z is also y");
      CHECK_ERR(GsBandedSolveAXPBYPCZ(A, V[0], al, be, ga, NULL, V[2], V[3]), GS_ERR_ARG_NULL);
      CHECK_MSG(ctx, "x is NULL");
      CHECK_ERR(GsBandedSolveAXPBYPCZ(NULL, V[0], al, be, ga, V[1], V[2], V[3]), GS_ERR_ARG_NULL);
      GsVec shorty = NULL;
      if (!CHECK_OK(GsVecCreate(ctx, len - 1, dt, &shorty))) {
        CHECK_ERR(GsBandedSolveAXPBYPCZ(A, V[0], al, be, ga, shorty, V[2], V[3]), GS_ERR_ARG_SIZE);
        GsVecDestroy(&shorty);
      }
      GsBanded B = NULL;
      if (!CHECK_OK(GsBandedCreate(ctx, &d, &B))) { /* not factored */
        CHECK_ERR(GsBandedSolveAXPBYPCZ(B, V[0], al, be, ga, V[1], V[2], V[3]), GS_ERR_WRONG_STATE);
        CHECK_MSG(ctx, "GsBandedFactor");
        GsBandedDestroy(&B);
      }
      GsBandedDesc dg2 = d;
      dg2.layout = GS_BANDED_CONTIGUOUS;
      dg2.stride = d.n + 3;
      Batch bg;
      batch_init(&bg, &dg2);
      GsVec Dg[5] = {NULL}, Fg = NULL;
      if (!CHECK_OK(GsBandedCreate(ctx, &dg2, &B))) {
        fill_matrix(&bg, KIND_DD, r);
        for (int k = 0; k < bands; k++)
          Dg[k] = new_vec(ctx, dt, bg.dl, bg.D[k]);
        Fg = new_vec(ctx, dt, bg.rl, NULL);
        if (Fg && !CHECK_OK(GsVecSet(Fg, 1.0)) && !CHECK_OK(GsBandedFactor(B, Dg))) {
          CHECK_ERR(GsBandedSolveAXPBYPCZ(B, Fg, al, be, ga, Fg, Fg, Dg[0]), GS_ERR_UNSUPPORTED);
          CHECK_MSG(ctx, "stride");
        }
        destroy_vecs(bands, Dg);
        GsVecDestroy(&Fg);
        GsBandedDestroy(&B);
      }
      batch_free(&bg);
    }
  next:
    destroy_vecs(5, Dv);
    destroy_vecs(6, V);
    CHECK_OK(GsBandedDestroy(&A));
    free(f);
    free(x);
    free(y);
    free(z);
    free(w);
    free(g);
    batch_free(&b);
  }
}

int main(int argc, char **argv) {
  if (argc > 1 && argv[1][0] == '/') resource = argv[1];
  hs_begin("test_banded", resource, argc, argv);
  GsContext ctx = NULL;
  int rc = hs_init_backend(resource, &ctx);
  if (rc == 77) return 77;
  if (rc) return hs_finish();

  HsRng r = hs_rng(1);
  test_errors(ctx, &r);
  test_log(ctx, &r);
  test_view(ctx, &r);
  test_fused_state(ctx, &r);
  test_solve_axpbypcz(ctx, &r);
  test_partitions(ctx, &r);
  test_algorithms(ctx, &r);
  test_deferred(ctx, &r);
  test_status_sequence(ctx, &r);
  test_staged(ctx, &r);
  test_scan_pair(ctx, &r);
  test_scan_wide(ctx, &r);
  test_scan_halves(ctx, &r);
  test_scan_threads(ctx);
  test_tile_image(ctx, &r);
  test_tile_tail(ctx, &r);
  test_tile_next(ctx, &r);
  test_spd_refuses(ctx, &r);
  test_mult(ctx, &r);
  test_dense(ctx, &r);
  printf("dense: worst error %.3g (double), %.3g (float) x 2 bands eps kappa\n", worst_dense[0],
         worst_dense[1]);
  test_bad(ctx, &r);
  test_residuals(ctx, &r);
  if (!strcmp(resource, "/cpu")) test_layout_bits(ctx, &r);
  if (!strcmp(resource, "/cpu")) test_layout_status(ctx, &r);

  hs_unwatch(ctx);
  CHECK_OK(GsDestroy(&ctx));
  return hs_finish();
}
