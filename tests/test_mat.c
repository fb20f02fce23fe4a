/* Sparse matrices: assembly from triplets and CSR (sorting, summed duplicates, errors), the
 * Laplacian generators (sizes, symmetry, row sums), transpose, diagonal, SpMV against a
 * long-double reference (empty rows, one long row, beta = 0 with NaN in y), Matrix Market round
 * trips of matrices and vectors, every format the reader accepts and every malformed file it must
 * refuse (with file and line in the message), and the real matrices of the test collection. */
#include "harness.h"

#ifndef GS_TEST_MATRIX_DIR
#define GS_TEST_MATRIX_DIR ""
#endif

static const char *resource = "/cpu";
static char prefix[64]; /* file names of this run: mat-<resource>- */

static const char *tmpname(const char *what) {
  static char buf[256];
  snprintf(buf, sizeof buf, "%s%s", prefix, what);
  return buf;
}

static int write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) return 1;
  fputs(text, f);
  return fclose(f);
}

/* Compare two matrices entry by entry (same pattern, same values). */
static int same_matrix(GsMat A, GsMat B) {
  GsInt ma, na, za, mb, nb, zb;
  const GsInt *ra, *rb;
  const int *ca, *cb;
  const double *va, *vb;
  if (GsMatGetSize(A, &ma, &na, &za) || GsMatGetSize(B, &mb, &nb, &zb)) return 0;
  if (ma != mb || na != nb || za != zb) return 0;
  GsMatGetCSR(A, &ra, &ca, &va);
  GsMatGetCSR(B, &rb, &cb, &vb);
  for (GsInt i = 0; i <= ma; i++)
    if (ra[i] != rb[i]) return 0;
  for (GsInt k = 0; k < za; k++)
    if (ca[k] != cb[k] || va[k] != vb[k]) return 0;
  return 1;
}

static void test_assembly(GsContext ctx) {
  /* 4 x 5 with an empty row (2), unsorted columns and a duplicate (1, 3). */
  const GsInt r[] = {0, 1, 1, 0, 1, 3, 3};
  const GsInt c[] = {4, 3, 0, 1, 3, 2, 0};
  const double v[] = {1, 2, 3, 4, 5, 6, 7};
  GsMat A = NULL;
  if (CHECK_OK(GsMatCreateFromTriplets(ctx, 4, 5, 7, r, c, v, &A))) return;
  GsInt m, n, nnz, lo, hi, empty;
  double mean;
  CHECK_OK(GsMatGetSize(A, &m, &n, &nnz));
  CHECK(m == 4 && n == 5 && nnz == 6, "sizes %lld %lld %lld", (long long)m, (long long)n,
        (long long)nnz);
  const GsInt *rp;
  const int *col;
  const double *val;
  CHECK_OK(GsMatGetCSR(A, &rp, &col, &val));
  const GsInt wr[] = {0, 2, 4, 4, 6};
  const int wc[] = {1, 4, 0, 3, 0, 2};
  const double wv[] = {4, 1, 3, 7, 7, 6};
  for (int i = 0; i < 5; i++)
    CHECK(rp[i] == wr[i], "rowptr[%d] = %lld, want %lld", i, (long long)rp[i], (long long)wr[i]);
  for (int k = 0; k < 6; k++)
    CHECK(col[k] == wc[k] && val[k] == wv[k], "entry %d: (%d, %g), want (%d, %g)", k, col[k],
          val[k], wc[k], wv[k]);
  CHECK_OK(GsMatGetRowStats(A, &lo, &hi, &mean, &empty));
  CHECK(lo == 0 && hi == 2 && empty == 1 && fabs(mean - 1.5) < 1e-15, "row stats %lld %lld %g %lld",
        (long long)lo, (long long)hi, mean, (long long)empty);
  /* The same matrix from CSR arrays with unsorted columns and the duplicate. */
  const GsInt crp[] = {0, 2, 5, 5, 7};
  const GsInt ccol[] = {4, 1, 3, 0, 3, 2, 0};
  const double cval[] = {1, 4, 2, 3, 5, 6, 7};
  GsMat B = NULL;
  if (!CHECK_OK(GsMatCreateCSR(ctx, 4, 5, crp, ccol, cval, &B)))
    CHECK(same_matrix(A, B), "CSR and triplet assembly differ");
  GsMatDestroy(&B);
  CHECK_OK(GsMatDestroy(&A));
  CHECK_OK(GsMatDestroy(&A)); /* twice: safe */
  /* Errors. */
  const GsInt rbad[] = {0, 1, 4};
  CHECK_ERR(GsMatCreateFromTriplets(ctx, 4, 5, 3, rbad, c, v, &A), GS_ERR_ARG_OUTOFRANGE);
  CHECK_MSG(ctx, "triplet 2");
  CHECK(A == NULL, "a failed assembly left a matrix");
  CHECK_ERR(GsMatCreateFromTriplets(ctx, 4, 5, 3, NULL, c, v, &A), GS_ERR_ARG_NULL);
  CHECK_ERR(GsMatCreateFromTriplets(ctx, -1, 5, 0, NULL, NULL, NULL, &A), GS_ERR_ARG_OUTOFRANGE);
  /* More rows than host memory: a named error before any allocation. */
  CHECK_ERR(GsMatCreateFromTriplets(ctx, (GsInt)1 << 40, 5, 0, NULL, NULL, NULL, &A),
            GS_ERR_MEMORY);
  CHECK_MSG(ctx, "a 1099511627776 x 5 matrix with 0 entries needs 1.64e+04 GiB of host memory");
  const GsInt dec[] = {0, 2, 1, 3, 3};
  CHECK_ERR(GsMatCreateCSR(ctx, 4, 5, dec, ccol, cval, &A), GS_ERR_ARG_OUTOFRANGE);
  CHECK_MSG(ctx, "row 1");
  const GsInt badc[] = {4, 1, 3, 0, 3, 9, 0};
  CHECK_ERR(GsMatCreateCSR(ctx, 4, 5, crp, badc, cval, &A), GS_ERR_ARG_OUTOFRANGE);
  CHECK_MSG(ctx, "row 3, entry 5");
  CHECK_ERR(GsMatGetSize(NULL, &m, &n, &nnz), GS_ERR_ARG_NULL);
  /* An empty matrix is fine. */
  if (!CHECK_OK(GsMatCreateFromTriplets(ctx, 3, 3, 0, NULL, NULL, NULL, &A))) {
    CHECK_OK(GsMatGetSize(A, &m, &n, &nnz));
    CHECK(nnz == 0, "empty matrix has %lld entries", (long long)nnz);
    GsMatDestroy(&A);
  }
}

static void test_laplacian(GsContext ctx) {
  static const struct {
    GsInt nx, ny, nz;
    int st;
    GsInt nnz;
    double diag;
  } cases[] = {
      {4, 3, 1, 5, 46, 4}, {3, 3, 3, 7, 135, 6}, {3, 3, 3, 27, 343, 26}, {5, 4, 2, 27, 520, 26}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    GsMat A = NULL, T = NULL;
    if (CHECK_OK(GsMatCreateLaplacian(ctx, cases[c].nx, cases[c].ny, cases[c].nz, cases[c].st, &A)))
      continue;
    GsInt n, nnz;
    CHECK_OK(GsMatGetSize(A, &n, NULL, &nnz));
    CHECK(n == cases[c].nx * cases[c].ny * cases[c].nz && nnz == cases[c].nnz,
          "%d-point %lldx%lldx%lld: n %lld nnz %lld (want %lld)", cases[c].st,
          (long long)cases[c].nx, (long long)cases[c].ny, (long long)cases[c].nz, (long long)n,
          (long long)nnz, (long long)cases[c].nnz);
    if (!CHECK_OK(GsMatTranspose(A, &T))) CHECK(same_matrix(A, T), "Laplacian is not symmetric");
    /* Row sums: the number of missing neighbours (0 inside), never negative; diagonal constant. */
    const GsInt *rp;
    const int *col;
    const double *val;
    GsMatGetCSR(A, &rp, &col, &val);
    GsInt interior = 0;
    for (GsInt i = 0; i < n; i++) {
      double s = 0, d = 0;
      for (GsInt k = rp[i]; k < rp[i + 1]; k++) {
        s += val[k];
        if (col[k] == i) d = val[k];
      }
      CHECK(s >= 0 && d == cases[c].diag, "row %lld: sum %g, diagonal %g", (long long)i, s, d);
      interior += s == 0;
    }
    const GsInt want_in = (cases[c].nx - 2) * (cases[c].ny - 2) *
                          (cases[c].st == 5 ? 1 : (cases[c].nz - 2 > 0 ? cases[c].nz - 2 : 0));
    CHECK(interior == want_in, "%lld rows with zero sum, want %lld", (long long)interior,
          (long long)want_in);
    GsMatDestroy(&T);
    GsMatDestroy(&A);
  }
  GsMat A = NULL;
  CHECK_ERR(GsMatCreateLaplacian(ctx, 4, 4, 1, 9, &A), GS_ERR_ARG_OUTOFRANGE);
  CHECK_ERR(GsMatCreateLaplacian(ctx, 4, 4, 2, 5, &A), GS_ERR_ARG_INCOMP);
  CHECK_MSG(ctx, "nz must be 1");
  CHECK_ERR(GsMatCreateLaplacian(ctx, 0, 4, 1, 5, &A), GS_ERR_ARG_OUTOFRANGE);
}

/* A random m x n matrix: row `full` has all n entries (-1: none), every 7th row is empty, the
 * others have 1 to maxlen random entries. */
static GsMat random_rows(GsContext ctx, GsInt m, GsInt n, GsInt full, GsInt maxlen, HsRng *r) {
  GsInt cap = m * maxlen + n, nz = 0;
  GsInt *ri = hs_malloc((size_t)cap * sizeof *ri), *ci = hs_malloc((size_t)cap * sizeof *ci);
  double *v = hs_malloc((size_t)cap * sizeof *v);
  for (GsInt i = 0; i < m; i++) {
    GsInt len = i == full ? n : i % 7 == 3 ? 0 : hs_int(r, 1, maxlen);
    for (GsInt k = 0; k < len; k++) {
      ri[nz] = i;
      ci[nz] = len == n ? k : hs_int(r, 0, n - 1);
      v[nz++] = hs_range(r, -1, 1);
    }
  }
  GsMat A = NULL;
  CHECK_OK(GsMatCreateFromTriplets(ctx, m, n, nz, ri, ci, v, &A));
  free(ri);
  free(ci);
  free(v);
  return A;
}

/* Empty rows, a full row and random rows of up to 12 entries. */
static GsMat random_matrix(GsContext ctx, GsInt m, GsInt n, HsRng *r) {
  return random_rows(ctx, m, n, m / 2, 12, r);
}

/* y = alpha A x + beta y on the back end against a long-double reference, for three (alpha, beta)
 * pairs; returns the worst relative error. */
static double spmv_error(GsContext ctx, GsMat A, HsRng *r) {
  GsInt m, n;
  GsMatGetSize(A, &m, &n, NULL);
  GsVec x = NULL, y = NULL;
  double worst = 0;
  double *hx = hs_malloc((size_t)n * sizeof *hx), *hy = hs_malloc((size_t)m * sizeof *hy);
  double *out = hs_malloc((size_t)m * sizeof *out);
  const GsInt *rp;
  const int *col;
  const double *val;
  GsMatGetCSR(A, &rp, &col, &val);
  static const double ab[][2] = {{1, 0}, {-2.5, 0.75}, {0.5, 1}};
  if (CHECK_OK(GsVecCreate(ctx, n, GS_DOUBLE, &x)) || CHECK_OK(GsVecCreate(ctx, m, GS_DOUBLE, &y)))
    goto done;
  for (int c = 0; c < 3; c++) {
    CHECK_OK(GsVecSetRandom(x, hs_next(r), -1, 1));
    CHECK_OK(GsVecSetRandom(y, hs_next(r), -1, 1));
    if (ab[c][1] == 0) CHECK_OK(GsVecSet(y, NAN)); /* beta = 0 ignores y, NaN included */
    CHECK_OK(GsVecGetValuesHost(x, hx));
    CHECK_OK(GsVecGetValuesHost(y, hy));
    CHECK_OK(GsMatMult(A, ab[c][0], x, ab[c][1], y));
    CHECK_OK(GsVecGetValuesHost(y, out));
    for (GsInt i = 0; i < m; i++) {
      long double s = 0, sa = 0;
      for (GsInt k = rp[i]; k < rp[i + 1]; k++) {
        s += (long double)val[k] * hx[col[k]];
        sa += fabsl((long double)val[k] * hx[col[k]]);
      }
      long double want = ab[c][0] * s + (ab[c][1] == 0 ? 0 : ab[c][1] * (long double)hy[i]);
      double scale =
          (double)(fabs(ab[c][0]) * sa + (ab[c][1] == 0 ? 0 : fabs(ab[c][1] * hy[i]))) + 1e-300;
      double e = fabs((double)(out[i] - want)) / scale;
      worst = e > worst || e != e ? e : worst;
    }
  }
done:
  GsVecDestroy(&x);
  GsVecDestroy(&y);
  free(hx);
  free(hy);
  free(out);
  return worst;
}

static void test_mult(GsContext ctx, HsRng *r) {
  const GsInt m = 300, n = 257;
  GsMat A = random_matrix(ctx, m, n, r);
  GsVec x = NULL, y = NULL, xf = NULL, d = NULL;
  double *hx = hs_malloc((size_t)n * sizeof *hx), *hy = hs_malloc((size_t)m * sizeof *hy);
  double *out = hs_malloc((size_t)m * sizeof *out);
  if (!A || CHECK_OK(GsVecCreate(ctx, n, GS_DOUBLE, &x)) ||
      CHECK_OK(GsVecCreate(ctx, m, GS_DOUBLE, &y)))
    goto done;
  const GsInt *rp;
  const int *col;
  const double *val;
  GsMatGetCSR(A, &rp, &col, &val);
  const char *kname = NULL;
  CHECK_OK(GsMatGetSpMVKernel(A, &kname));
  CHECK(kname && kname[0] == '\0', "kernel before the first product: '%s'", kname ? kname : "");
  const double err = spmv_error(ctx, A, r);
  CHECK(err <= 1e-13, "SpMV: relative error %g", err);
  CHECK_OK(GsMatGetSpMVKernel(A, &kname));
  CHECK(kname && kname[0] != '\0', "no kernel named after the first product");
  /* Diagonal of a rectangular matrix: min(m, n) entries. */
  if (!CHECK_OK(GsVecCreate(ctx, n, GS_DOUBLE, &d))) {
    CHECK_OK(GsMatGetDiagonal(A, d));
    double *hd = hs_malloc((size_t)n * sizeof *hd);
    CHECK_OK(GsVecGetValuesHost(d, hd));
    for (GsInt i = 0; i < n; i++) {
      double want = 0;
      for (GsInt k = rp[i]; k < rp[i + 1]; k++)
        if (col[k] == i) want = val[k];
      CHECK(hd[i] == want, "diagonal %lld: %g, want %g", (long long)i, hd[i], want);
    }
    free(hd);
    CHECK_ERR(GsMatGetDiagonal(A, y), GS_ERR_ARG_SIZE);
  }
  /* Transpose twice is the matrix; (A^T)^T x = A x. */
  GsMat T = NULL, TT = NULL;
  if (!CHECK_OK(GsMatTranspose(A, &T)) && !CHECK_OK(GsMatTranspose(T, &TT))) {
    CHECK(same_matrix(A, TT), "transposing twice changed the matrix");
    GsInt tm, tn, tz, az;
    GsMatGetSize(T, &tm, &tn, &tz);
    GsMatGetSize(A, NULL, NULL, &az);
    CHECK(tm == n && tn == m && tz == az, "transpose sizes %lld x %lld, %lld entries",
          (long long)tm, (long long)tn, (long long)tz);
  }
  GsMatDestroy(&T);
  GsMatDestroy(&TT);
  /* Errors. */
  CHECK_ERR(GsMatMult(A, 1, y, 0, x), GS_ERR_ARG_SIZE);
  CHECK_MSG(ctx, "x has 300 entries");
  CHECK_ERR(GsMatMult(A, 1, x, 0, NULL), GS_ERR_ARG_NULL);
  if (!CHECK_OK(GsVecCreate(ctx, n, GS_FLOAT, &xf))) {
    CHECK_ERR(GsMatMult(A, 1, xf, 0, y), GS_ERR_ARG_TYPE);
    CHECK_MSG(ctx, "double");
  }
  GsMat S = NULL;
  if (!CHECK_OK(GsMatCreateLaplacian(ctx, 4, 4, 1, 5, &S))) {
    GsVec z = NULL;
    if (!CHECK_OK(GsVecCreate(ctx, 16, GS_DOUBLE, &z))) {
      CHECK_ERR(GsMatMult(S, 1, z, 0, z), GS_ERR_ARG_INCOMP);
      GsVecDestroy(&z);
    }
    GsMatDestroy(&S);
  }
  /* Every group size (the order of each row's sum on every back end, and the device CSR kernel's
   * threads per row): rows of 0 to 257 entries, and a 27-point Laplacian. */
  for (int g = 1; g <= 32; g *= 2) {
    char v[16];
    snprintf(v, sizeof v, "%d", g);
    CHECK_OK(GsOptionsSetValue(ctx, "-mat_spmv_group", v));
    GsMat B = random_matrix(ctx, 300, 257, r), Lp = NULL;
    const double e1 = B ? spmv_error(ctx, B, r) : 1;
    CHECK(e1 <= 1e-13, "SpMV with %d threads per row: relative error %g", g, e1);
    if (!CHECK_OK(GsMatCreateLaplacian(ctx, 9, 8, 7, 27, &Lp))) {
      const double e2 = spmv_error(ctx, Lp, r);
      CHECK(e2 <= 1e-13, "27-point SpMV with %d threads per row: relative error %g", g, e2);
    }
    GsMatDestroy(&B);
    GsMatDestroy(&Lp);
  }
  CHECK_OK(GsOptionsSetValue(ctx, "-mat_spmv_group", "3"));
  GsMat B = random_matrix(ctx, 10, 10, r);
  GsVec bx = NULL, by = NULL;
  if (B && !CHECK_OK(GsVecCreate(ctx, 10, GS_DOUBLE, &bx)) &&
      !CHECK_OK(GsVecCreate(ctx, 10, GS_DOUBLE, &by))) {
    /* every back end reads the option: it sets the order of each row's sum */
    CHECK_ERR(GsMatMult(B, 1, bx, 0, by), GS_ERR_OPTION);
    CHECK_MSG(ctx, "-mat_spmv_group 3");
  }
  GsVecDestroy(&bx);
  GsVecDestroy(&by);
  GsMatDestroy(&B);
  CHECK_OK(GsOptionsSetValue(ctx, "-mat_spmv_group", "1"));
done:
  GsVecDestroy(&x);
  GsVecDestroy(&y);
  GsVecDestroy(&xf);
  GsVecDestroy(&d);
  GsMatDestroy(&A);
  free(hx);
  free(hy);
  free(out);
}

/* x . Ax by GsMatMultDot against a long-double reference (A square); y is checked as well. */
static void check_mult_dot(GsContext ctx, GsMat A, const char *what, HsRng *r) {
  GsInt m, n;
  const GsInt *rp;
  const int *col;
  const double *val;
  GsMatGetSize(A, &m, &n, NULL);
  GsMatGetCSR(A, &rp, &col, &val);
  GsVec x = NULL, y = NULL;
  double *hx = hs_malloc((size_t)n * sizeof *hx), *hy = hs_malloc((size_t)m * sizeof *hy);
  double xy = 0;
  if (!CHECK_OK(GsVecCreate(ctx, n, GS_DOUBLE, &x)) &&
      !CHECK_OK(GsVecCreate(ctx, m, GS_DOUBLE, &y)) &&
      !CHECK_OK(GsVecSetRandom(x, hs_next(r), -1, 1)) && !CHECK_OK(GsVecSet(y, NAN)) &&
      !CHECK_OK(GsMatMultDot(A, x, y, &xy)) && !CHECK_OK(GsVecGetValuesHost(x, hx)) &&
      !CHECK_OK(GsVecGetValuesHost(y, hy))) {
    long double want = 0, scale = 0;
    double worst = 0;
    for (GsInt i = 0; i < m; i++) {
      long double s = 0, sa = 0;
      for (GsInt k = rp[i]; k < rp[i + 1]; k++) {
        s += (long double)val[k] * hx[col[k]];
        sa += fabsl((long double)val[k] * hx[col[k]]);
      }
      const double e = (double)(fabsl(hy[i] - s) / (sa + 1e-300L));
      worst = e > worst || e != e ? e : worst;
      want += s * hx[i];
      scale += sa * fabs(hx[i]);
    }
    const double e = (double)(fabsl(xy - want) / (scale + 1e-300L));
    CHECK(worst <= 1e-13, "%s: MultDot y relative error %g", what, worst);
    /* On the CPU the dot fused into the product (CSR) is GsVecDot's sum of the y it wrote,
     * bit for bit, as the separate pass (SELL forms) is. */
    double sep = NAN;
    if (!strncmp(resource, "/cpu", 4) && !CHECK_OK(GsVecDot(x, y, &sep)))
      CHECK(!memcmp(&sep, &xy, sizeof xy), "%s (%lld rows): MultDot's x . Ax %.17g, GsVecDot %.17g",
            what, (long long)m, xy, sep);
    CHECK(e <= 1e-13, "%s: x . Ax = %.17g, want %.17Lg (relative error %g)", what, xy, want, e);
    /* The same pass with the dot kept in a GsScalars: the same bits, y the same. */
    GsScalars S = NULL;
    double xs[2] = {NAN, NAN};
    if (!CHECK_OK(GsScalarsCreate(ctx, 2, &S)) && !CHECK_OK(GsVecSet(y, NAN)) &&
        !CHECK_OK(GsMatMultDotScalars(A, x, y, S, 1)) && !CHECK_OK(GsScalarsGet(S, 0, 2, xs))) {
      double *hy2 = hs_malloc((size_t)m * sizeof *hy2);
      CHECK_OK(GsVecGetValuesHost(y, hy2));
      CHECK(xs[0] == 0 && !memcmp(&xs[1], &xy, sizeof xy),
            "%s: MultDotScalars stored %.17g (slot 0: %g), MultDot gave %.17g", what, xs[1], xs[0],
            xy);
      CHECK(m == 0 || !memcmp(hy, hy2, (size_t)m * sizeof *hy), "%s: MultDotScalars y differs",
            what);
      free(hy2);
    }
    GsScalarsDestroy(&S);
  }
  GsVecDestroy(&x);
  GsVecDestroy(&y);
  free(hx);
  free(hy);
}

/* x . Ax on either side of the size where the reductions' lanes take more than one pack each
 * (GS_REDUCE_LANES packs of 2 doubles: 262144 rows) and at odd sizes, in the CSR, merge and SELL
 * forms (check_mult_dot: against a long-double reference, GsVecDot's bits on the CPU). */
static void test_mult_dot_sizes(GsContext ctx, HsRng *r) {
  static const GsInt dims[][4] = {
      {64, 64, 64, 7}, {65, 64, 64, 7}, {517, 509, 1, 5}, {3, 1, 1, 5}, {255, 1, 1, 5}};
  static const GsMatSpMVType types[] = {GS_MAT_SPMV_CSR, GS_MAT_SPMV_MERGE, GS_MAT_SPMV_SELL};
  for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++) {
    GsMat A = NULL;
    if (CHECK_OK(
            GsMatCreateLaplacian(ctx, dims[d][0], dims[d][1], dims[d][2], (int)dims[d][3], &A)))
      continue;
    for (int k = 0; k < 3; k++) {
      const char *kname = "";
      if (CHECK_OK(GsMatSetSpMVType(A, types[k], 32, 1))) continue;
      CHECK_OK(GsMatGetSpMVKernel(A, &kname));
      check_mult_dot(ctx, A, kname, r);
    }
    GsMatDestroy(&A);
  }
}

/* Every SpMV form on matrices with empty rows, one row longer than many merge tiles, skewed
 * (power-law) rows, a 27-point stencil and an empty matrix: against a long-double reference on
 * every back end, and bit for bit the CSR kernel's on the CPU (every form sums a row in column
 * order there). x . Ax from GsMatMultDot for square ones; the automatic choice; the SELL view. */
static void test_kernels(GsContext ctx, HsRng *r) {
  const int cpu = !strncmp(resource, "/cpu", 4);
  GsMat mats[6] = {NULL};
  static const char *const names[] = {"random 333x257", "long row 6000", "power law 4000",
                                      "27-point 9^3",   "empty 40 x 40", "one row"};
  mats[0] = random_matrix(ctx, 333, 257, r);
  mats[1] = random_rows(ctx, 6000, 6000, 2999, 5, r);
  CHECK_OK(GsMatCreatePowerLaw(ctx, 4000, 6, 1.5, hs_next(r), &mats[2]));
  CHECK_OK(GsMatCreateLaplacian(ctx, 9, 9, 9, 27, &mats[3]));
  CHECK_OK(GsMatCreateFromTriplets(ctx, 40, 40, 0, NULL, NULL, NULL, &mats[4]));
  mats[5] = random_rows(ctx, 1, 300, 0, 5, r);
  static const struct {
    GsMatSpMVType type;
    GsInt C, sigma;
    const char *name;
  } forms[] = {
      {GS_MAT_SPMV_CSR, 0, 0, "csr"},         {GS_MAT_SPMV_ELL, 0, 0, "ell"},
      {GS_MAT_SPMV_SELL, 0, 0, "sell/C=32/"}, {GS_MAT_SPMV_SELL, 7, 100, "sell/C=7/"},
      {GS_MAT_SPMV_SELL, 1, 1, "sell/C=1/"},  {GS_MAT_SPMV_SELL, 32, 1000000, "sell/C=32/"},
      {GS_MAT_SPMV_MERGE, 0, 0, "merge"},     {GS_MAT_SPMV_HYBRID, 0, 0, "hybrid/T=32"}};
  const int nforms = (int)(sizeof forms / sizeof forms[0]);
  for (int a = 0; a < 6; a++) {
    GsMat A = mats[a];
    if (!A) continue;
    GsInt m, n;
    GsMatGetSize(A, &m, &n, NULL);
    double *hx = hs_malloc((size_t)n * sizeof *hx), *ref = hs_malloc((size_t)m * sizeof *ref),
           *got = hs_malloc((size_t)m * sizeof *got);
    GsVec x = NULL, y = NULL;
    if (CHECK_OK(GsVecCreate(ctx, n, GS_DOUBLE, &x)) ||
        CHECK_OK(GsVecCreate(ctx, m, GS_DOUBLE, &y)) ||
        CHECK_OK(GsVecSetRandom(x, hs_next(r), -1, 1)))
      goto next;
    for (int f = 0; f < nforms; f++) {
      if (forms[f].type == GS_MAT_SPMV_ELL && a == 1) continue; /* 6000 x 6000 padded: skip */
      const char *kname = NULL;
      if (CHECK_OK(GsMatSetSpMVType(A, forms[f].type, forms[f].C, forms[f].sigma))) continue;
      const double err = spmv_error(ctx, A, r);
      CHECK_OK(GsMatGetSpMVKernel(A, &kname));
      CHECK(!strncmp(kname, forms[f].name, strlen(forms[f].name)), "%s: asked for %s, got %s",
            names[a], forms[f].name, kname);
      CHECK(err <= 1e-13, "%s, %s: relative error %g", names[a], kname, err);
      if (CHECK_OK(GsVecSet(y, NAN)) || CHECK_OK(GsMatMult(A, 1.0, x, 0.0, y)) ||
          CHECK_OK(GsVecGetValuesHost(y, f == 0 ? ref : got)))
        continue;
      if (cpu && f > 0) {
        GsInt diff = 0;
        for (GsInt i = 0; i < m; i++)
          diff += memcmp(&got[i], &ref[i], sizeof got[i]) != 0;
        CHECK(diff == 0, "%s, %s: %lld rows differ from CSR", names[a], kname, (long long)diff);
      }
      if (m == n) check_mult_dot(ctx, A, kname, r);
    }
  next:
    GsVecDestroy(&x);
    GsVecDestroy(&y);
    free(hx);
    free(ref);
    free(got);
  }
  /* The automatic choice: merge for skewed rows (the longest above 16 x the mean + 64); SELL-32
   * for a stencil on the GPU, CSR on the CPU. The long row is always skewed. A random power law
   * of 4000 rows is not always (no row above 160 entries for 5 of 3000 seeds tried), so its
   * expected choice follows from its own row statistics. */
  const char *kname = NULL;
  for (int a = 1; a <= 3; a++) {
    if (!mats[a] || CHECK_OK(GsMatSetSpMVType(mats[a], GS_MAT_SPMV_AUTO, 0, 0))) continue;
    CHECK(spmv_error(ctx, mats[a], r) <= 1e-13, "%s, automatic kernel: error", names[a]);
    CHECK_OK(GsMatGetSpMVKernel(mats[a], &kname));
    GsInt mn = 0, mx = 0, empty = 0;
    double mean = 0;
    CHECK_OK(GsMatGetRowStats(mats[a], &mn, &mx, &mean, &empty));
    const int skew = (double)mx > 16.0 * (mean > 1 ? mean : 1) + 64.0;
    CHECK(a != 1 || skew, "%s: longest row %lld, mean %g: not skewed", names[a], (long long)mx,
          mean);
    /* An unskewed power law on the GPU: SELL-32 where its padding fits, else grouped CSR. */
    const char *want = skew ? "merge" : cpu ? "csr" : a == 3 ? "sell/C=32/sigma=1" : NULL;
    if (want)
      CHECK(!strcmp(kname, want), "%s: automatic kernel %s, want %s", names[a], kname, want);
    else
      CHECK(strcmp(kname, "merge") != 0, "%s: longest row %lld, mean %g: merge for even rows",
            names[a], (long long)mx, mean);
  }
  /* The ELL view: one slice of m rows, padded with column -1 and value 0. */
  if (mats[0] && !CHECK_OK(GsMatSetSpMVType(mats[0], GS_MAT_SPMV_ELL, 0, 0))) {
    GsInt C = 0, ns = 0;
    const GsInt *sp, *rp;
    const int *perm, *col, *ccol;
    const double *val, *cval;
    GsMatGetCSR(mats[0], &rp, &ccol, &cval);
    if (!CHECK_OK(GsMatGetSELL(mats[0], &C, &ns, &sp, &perm, &col, &val))) {
      CHECK(C == 333 && ns == 1 && perm == NULL && sp[1] == 333 * 257, "ELL: C %lld, %lld slices",
            (long long)C, (long long)ns);
      GsInt bad = 0;
      for (GsInt i = 0; i < 333; i++)
        for (GsInt j = 0; j < 257; j++) {
          const GsInt k = rp[i] + j, q = j * 333 + i;
          if (k < rp[i + 1])
            bad += col[q] != ccol[k] || val[q] != cval[k];
          else
            bad += col[q] != -1 || val[q] != 0;
        }
      CHECK(bad == 0, "ELL view: %lld entries wrong", (long long)bad);
    }
  }
  /* Errors. */
  if (mats[3]) {
    CHECK_ERR(GsMatSetSpMVType(mats[3], (GsMatSpMVType)9, 0, 0), GS_ERR_ARG_OUTOFRANGE);
    CHECK_ERR(GsMatSetSpMVType(mats[3], GS_MAT_SPMV_SELL, 2000, 1), GS_ERR_ARG_OUTOFRANGE);
    CHECK_MSG(ctx, "C = 2000");
    CHECK_OK(GsMatSetSpMVType(mats[3], GS_MAT_SPMV_CSR, 0, 0));
    CHECK_ERR(GsMatGetSELL(mats[3], NULL, NULL, NULL, NULL, NULL, NULL), GS_ERR_WRONG_STATE);
    GsVec x = NULL;
    double d = 0;
    if (!CHECK_OK(GsVecCreate(ctx, 729, GS_DOUBLE, &x))) {
      CHECK_ERR(GsMatMultDot(mats[3], x, x, &d), GS_ERR_ARG_INCOMP);
      CHECK_ERR(GsMatMultDot(mats[3], x, NULL, &d), GS_ERR_ARG_NULL);
      CHECK_ERR(GsMatMultDot(mats[3], x, x, NULL), GS_ERR_ARG_NULL);
      GsScalars S = NULL;
      if (!CHECK_OK(GsScalarsCreate(ctx, 2, &S))) {
        CHECK_ERR(GsMatMultDotScalars(mats[3], x, x, S, 0), GS_ERR_ARG_INCOMP);
        CHECK_ERR(GsMatMultDotScalars(mats[3], x, x, S, 2), GS_ERR_ARG_OUTOFRANGE);
        CHECK_MSG(ctx, "for x . Ax");
        CHECK_ERR(GsMatMultDotScalars(mats[3], x, x, NULL, 0), GS_ERR_ARG_NULL);
      }
      GsScalarsDestroy(&S);
    }
    GsVecDestroy(&x);
  }
  if (mats[0]) {
    GsVec x = NULL, y = NULL;
    double d = 0;
    if (!CHECK_OK(GsVecCreate(ctx, 257, GS_DOUBLE, &x)) &&
        !CHECK_OK(GsVecCreate(ctx, 333, GS_DOUBLE, &y))) {
      CHECK_ERR(GsMatMultDot(mats[0], x, y, &d), GS_ERR_ARG_SIZE);
      CHECK_MSG(ctx, "square");
    }
    GsVecDestroy(&x);
    GsVecDestroy(&y);
  }
  GsMat P = NULL;
  CHECK_ERR(GsMatCreatePowerLaw(ctx, 100, 6, 1.0, 1, &P), GS_ERR_ARG_OUTOFRANGE);
  CHECK_MSG(ctx, "exponent 1");
  CHECK_ERR(GsMatCreatePowerLaw(ctx, 100, 0.5, 2, 1, &P), GS_ERR_ARG_OUTOFRANGE);
  CHECK_ERR(GsMatCreatePowerLaw(ctx, 0, 6, 2, 1, &P), GS_ERR_ARG_OUTOFRANGE);
  CHECK_ERR(GsMatCreatePowerLaw(ctx, 100, 6, 2, 1, NULL), GS_ERR_ARG_NULL);
  for (int a = 0; a < 6; a++)
    GsMatDestroy(&mats[a]);
}

/* Degenerate shapes in every form: 0 x 0, 0 x 7 and 7 x 0 (a product with empty vectors leaves y
 * alone or zero), and a hybrid form whose rows are all long (no SELL part) or all short (no merge
 * part). */
static void test_kernels_edges(GsContext ctx, HsRng *r) {
  static const GsMatSpMVType forms[] = {GS_MAT_SPMV_AUTO, GS_MAT_SPMV_CSR,   GS_MAT_SPMV_ELL,
                                        GS_MAT_SPMV_SELL, GS_MAT_SPMV_MERGE, GS_MAT_SPMV_HYBRID};
  static const GsInt shapes[][2] = {{0, 0}, {0, 7}, {7, 0}};
  for (int sh = 0; sh < 3; sh++) {
    const GsInt m = shapes[sh][0], n = shapes[sh][1];
    for (int f = 0; f < 6; f++) {
      GsMat A = NULL;
      GsVec x = NULL, y = NULL;
      if (!CHECK_OK(GsMatCreateFromTriplets(ctx, m, n, 0, NULL, NULL, NULL, &A)) &&
          !CHECK_OK(GsMatSetSpMVType(A, forms[f], 0, 0)) &&
          !CHECK_OK(GsVecCreate(ctx, n, GS_DOUBLE, &x)) &&
          !CHECK_OK(GsVecCreate(ctx, m, GS_DOUBLE, &y)) && !CHECK_OK(GsVecSet(x, 1.0)) &&
          !CHECK_OK(GsVecSet(y, NAN)) && !CHECK_OK(GsMatMult(A, 1.0, x, 0.0, y))) {
        double v[7];
        CHECK_OK(GsVecGetValuesHost(y, v));
        for (GsInt i = 0; i < m; i++)
          CHECK(v[i] == 0, "%lld x %lld, form %d: y[%lld] = %g, want 0", (long long)m, (long long)n,
                f, (long long)i, v[i]);
        if (m == n) {
          double d = -1;
          CHECK_OK(GsMatMultDot(A, x, y, &d));
          CHECK(d == 0, "0 x 0, form %d: x . Ax = %g", f, d);
        }
      }
      GsVecDestroy(&x);
      GsVecDestroy(&y);
      GsMatDestroy(&A);
    }
  }
  /* Hybrid with every row above the threshold, then every row below it. */
  static const char *const ts[] = {"2", "1000"};
  for (int k = 0; k < 2; k++) {
    GsMat A = random_rows(ctx, 40, 30, 5, 8, r);
    if (!A) continue;
    CHECK_OK(GsOptionsSetValue(ctx, "-mat_spmv_hybrid_t", ts[k]));
    const char *kname = "";
    if (!CHECK_OK(GsMatSetSpMVType(A, GS_MAT_SPMV_HYBRID, 0, 0))) {
      const double e = spmv_error(ctx, A, r);
      CHECK_OK(GsMatGetSpMVKernel(A, &kname));
      CHECK(e <= 1e-13, "%s: relative error %g", kname, e);
    }
    GsMatDestroy(&A);
  }
  CHECK_OK(GsOptionsSetValue(ctx, "-mat_spmv_hybrid_t", "0"));
  GsMat B = random_rows(ctx, 10, 10, -1, 3, r);
  if (B) {
    CHECK_ERR(GsMatSetSpMVType(B, GS_MAT_SPMV_HYBRID, 0, 0), GS_ERR_OPTION);
    CHECK_MSG(ctx, "-mat_spmv_hybrid_t 0");
  }
  GsMatDestroy(&B);
  CHECK_OK(GsOptionsSetValue(ctx, "-mat_spmv_hybrid_t", "32"));
}

/* The power-law generator: the same matrix for the same seed, diagonally dominant rows, skewed
 * lengths with about the mean asked for. */
static void test_power_law(GsContext ctx) {
  GsMat A = NULL, B = NULL;
  if (CHECK_OK(GsMatCreatePowerLaw(ctx, 20000, 8, 1.6, 42, &A)) ||
      CHECK_OK(GsMatCreatePowerLaw(ctx, 20000, 8, 1.6, 42, &B)))
    goto done;
  CHECK(same_matrix(A, B), "power law: the same seed gave different matrices");
  GsInt mn, mx, empty;
  double mean;
  CHECK_OK(GsMatGetRowStats(A, &mn, &mx, &mean, &empty));
  CHECK(mn >= 1 && empty == 0 && mx > 40 * mean && mean > 5 && mean < 10,
        "power law rows: min %lld, max %lld, mean %g", (long long)mn, (long long)mx, mean);
  const GsInt *rp;
  const int *col;
  const double *val;
  GsMatGetCSR(A, &rp, &col, &val);
  GsInt bad = 0;
  for (GsInt i = 0; i < 20000; i++) {
    double d = 0, off = 0;
    for (GsInt k = rp[i]; k < rp[i + 1]; k++)
      if (col[k] == i)
        d = val[k];
      else
        off += fabs(val[k]);
    bad += !(d > off);
  }
  CHECK(bad == 0, "power law: %lld rows not diagonally dominant", (long long)bad);
done:
  GsMatDestroy(&A);
  GsMatDestroy(&B);
}

/* Programmatic dependent launch of the merge SpMV and its carries (-cuda_pdl_mask 64, cudaimpl.h)
 * changes when they start, never what they compute: five dependent products on a power law (each
 * product's x the one before's y) give the same bits with it off and on for every kind. */
static void test_merge_pdl(void) {
  if (strncmp(resource, "/gpu", 4) != 0) return;
  static char *modes[2][3] = {{"test_mat", "-cuda_pdl", "0"},
                              {"test_mat", "-cuda_pdl_mask", "127"}};
  const GsInt n = 30000;
  double *out[2];
  int ok[2] = {0, 0};
  for (int m = 0; m < 2; m++) {
    out[m] = hs_malloc((size_t)n * sizeof(double));
    GsContext g = NULL;
    GsMat A = NULL;
    GsVec v[2] = {NULL, NULL};
    if (CHECK_OK(GsInitWithArgs(3, modes[m], resource, &g))) continue;
    if (!CHECK_OK(GsMatCreatePowerLaw(g, n, 8, 1.6, 11, &A)) &&
        !CHECK_OK(GsMatSetSpMVType(A, GS_MAT_SPMV_MERGE, 0, 0)) &&
        !CHECK_OK(GsVecCreate(g, n, GS_DOUBLE, &v[0])) &&
        !CHECK_OK(GsVecCreate(g, n, GS_DOUBLE, &v[1])) &&
        !CHECK_OK(GsVecSetRandom(v[0], 5, -1, 1))) {
      int bad = 0;
      for (int k = 0; k < 5 && !bad; k++)
        bad = CHECK_OK(GsMatMult(A, 0.125, v[k & 1], 0.0, v[(k + 1) & 1]));
      ok[m] = !bad && !CHECK_OK(GsVecGetValuesHost(v[1], out[m]));
    }
    GsVecDestroy(&v[0]);
    GsVecDestroy(&v[1]);
    GsMatDestroy(&A);
    CHECK_OK(GsDestroy(&g));
  }
  for (int m = 1; m < 2; m++) {
    if (!ok[0] || !ok[m]) continue;
    GsInt diff = 0, nonfinite = 0;
    for (GsInt i = 0; i < n; i++) {
      diff += memcmp(&out[0][i], &out[m][i], sizeof(double)) != 0;
      nonfinite += !isfinite(out[m][i]);
    }
    CHECK(diff == 0 && nonfinite == 0,
          "merge SpMV, %s %s: %lld of %lld entries differ from launch early off, %lld not finite",
          modes[m][1], modes[m][2], (long long)diff, (long long)n, (long long)nonfinite);
  }
  for (int m = 0; m < 2; m++)
    free(out[m]);
}

/* The merge form's automatic column panels on a device with a known L2 (mat.c, choose_panels): x
 * up to 60 % of the L2 stays whole, a larger one is cut into panels of at most half of it. Matrices
 * of one row (the rule looks at the columns only), in a context of their own (no
 * -mat_spmv_panels). */
static void test_panels_auto(void) {
  if (strncmp(resource, "/gpu", 4) != 0) return;
  static char *args[1] = {"test_mat"};
  GsContext g = NULL;
  if (CHECK_OK(GsInitWithArgs(1, args, resource, &g))) return;
  GsDeviceInfo info;
  memset(&info, 0, sizeof info);
  if (!CHECK_OK(GsGetDeviceInfo(g, &info)) && info.l2_cache > 0) {
    const double l2 = (double)info.l2_cache;
    const GsInt ns[3] = {(GsInt)(0.55 * l2 / 8), (GsInt)(0.65 * l2 / 8), (GsInt)(1.6 * l2 / 8)};
    const GsInt want[3] = {1, 2, 4};
    for (int c = 0; c < 3; c++) {
      const GsInt n = ns[c], rp[2] = {0, 2}, col[2] = {0, n - 1};
      const double val[2] = {1.0, 2.0};
      GsMat A = NULL;
      GsVec x = NULL, y = NULL;
      if (!CHECK_OK(GsMatCreateCSR(g, 1, n, rp, col, val, &A)) &&
          !CHECK_OK(GsMatSetSpMVType(A, GS_MAT_SPMV_MERGE, 0, 0)) &&
          !CHECK_OK(GsVecCreate(g, n, GS_DOUBLE, &x)) &&
          !CHECK_OK(GsVecCreate(g, 1, GS_DOUBLE, &y)) && !CHECK_OK(GsVecSet(x, 1.5)) &&
          !CHECK_OK(GsMatMult(A, 1.0, x, 0.0, y))) {
        double hy = 0;
        const char *name = NULL;
        CHECK_OK(GsVecGetValuesHost(y, &hy));
        CHECK_OK(GsMatGetSpMVKernel(A, &name));
        char expect[48] = "merge";
        if (want[c] > 1) snprintf(expect, sizeof expect, "merge/panels=%lld", (long long)want[c]);
        CHECK(name && !strcmp(name, expect) && hy == 4.5,
              "%lld columns (x %.0f %% of the L2): kernel %s, expected %s; y = %g, expected 4.5",
              (long long)n, 800.0 * (double)n / l2, name ? name : "", expect, hy);
      }
      GsVecDestroy(&x);
      GsVecDestroy(&y);
      GsMatDestroy(&A);
    }
  }
  CHECK_OK(GsDestroy(&g));
}

/* Column panels of the merge form (-mat_spmv_panels): the sum of the panels' products against the
 * reference on random rows (empty rows, a full row) and on a power law; more panels than columns
 * are cut to one per column; the dot of MultDot (not fused into panels) is x . y; a bad count is
 * a named error. */
static void test_panels(GsContext ctx, HsRng *r) {
  GsMat mats[2] = {random_matrix(ctx, 301, 40, r), NULL};
  CHECK_OK(GsMatCreatePowerLaw(ctx, 5000, 8, 1.6, 3, &mats[1]));
  static const char *const ks[] = {"2", "3", "7", "64"};
  for (int a = 0; a < 2; a++) {
    GsInt n = 0;
    if (!mats[a] || CHECK_OK(GsMatGetSize(mats[a], NULL, &n, NULL))) continue;
    for (int k = 0; k < 4; k++) {
      CHECK_OK(GsOptionsSetValue(ctx, "-mat_spmv_panels", ks[k]));
      if (CHECK_OK(GsMatSetSpMVType(mats[a], GS_MAT_SPMV_MERGE, 0, 0))) continue;
      const double err = spmv_error(ctx, mats[a], r);
      CHECK(err <= 1e-13, "merge in %s panels, matrix %d: relative error %g", ks[k], a, err);
      GsInt K = atoll(ks[k]);
      K = K < n ? K : n;
      char want[48];
      snprintf(want, sizeof want, "merge/panels=%lld", (long long)K);
      const char *name = NULL;
      CHECK_OK(GsMatGetSpMVKernel(mats[a], &name));
      CHECK(name && !strcmp(name, want), "kernel %s, expected %s", name ? name : "", want);
    }
  }
  GsVec x = NULL, y = NULL, x0 = NULL, y0 = NULL;
  if (mats[1] && !CHECK_OK(GsVecCreate(ctx, 5000, GS_DOUBLE, &x)) &&
      !CHECK_OK(GsVecCreate(ctx, 5000, GS_DOUBLE, &y))) {
    CHECK_OK(GsVecSetRandom(x, hs_next(r), -1, 1));
    double xy = 0, dot = 1;
    CHECK_OK(GsMatMultDot(mats[1], x, y, &xy));
    CHECK_OK(GsVecDot(x, y, &dot));
    CHECK(xy == dot, "MultDot in panels: %.17g, x . y = %.17g", xy, dot);
  }
  CHECK_OK(GsOptionsSetValue(ctx, "-mat_spmv_panels", "0"));
  if (mats[0] && !CHECK_OK(GsVecCreate(ctx, 40, GS_DOUBLE, &x0)) &&
      !CHECK_OK(GsVecCreate(ctx, 301, GS_DOUBLE, &y0)) &&
      !CHECK_OK(GsMatSetSpMVType(mats[0], GS_MAT_SPMV_MERGE, 0, 0))) {
    CHECK_OK(GsVecSet(x0, 1.0));
    CHECK_ERR(GsMatMult(mats[0], 1.0, x0, 0.0, y0), GS_ERR_OPTION);
    CHECK_MSG(ctx, "-mat_spmv_panels 0");
  }
  GsVecDestroy(&x);
  GsVecDestroy(&y);
  GsVecDestroy(&x0);
  GsVecDestroy(&y0);
  CHECK_OK(GsOptionsSetValue(ctx, "-mat_spmv_panels", "1"));
  if (mats[0] && !CHECK_OK(GsMatSetSpMVType(mats[0], GS_MAT_SPMV_MERGE, 0, 0))) {
    CHECK(spmv_error(ctx, mats[0], r) <= 1e-13, "merge in one panel");
    const char *name = NULL;
    CHECK_OK(GsMatGetSpMVKernel(mats[0], &name));
    CHECK(name && !strcmp(name, "merge"), "kernel %s in one panel", name ? name : "");
  }
  GsMatDestroy(&mats[0]);
  GsMatDestroy(&mats[1]);
}

/* y = A x for a fresh copy of A under the options given, into out (m entries). */
static int mult_with(GsContext ctx, GsMat A, const char *kernel, const char *c, const char *sigma,
                     const double *hx, double *out) {
  GsInt m, n;
  const GsInt *rp;
  const int *col;
  const double *val;
  GsMatGetSize(A, &m, &n, NULL);
  GsMatGetCSR(A, &rp, &col, &val);
  GsInt *rp64 = hs_malloc(((size_t)m + 1) * sizeof *rp64), nz = rp[m];
  GsInt *c64 = hs_malloc((size_t)(nz ? nz : 1) * sizeof *c64);
  for (GsInt i = 0; i <= m; i++)
    rp64[i] = rp[i];
  for (GsInt k = 0; k < nz; k++)
    c64[k] = col[k];
  GsMat B = NULL;
  GsVec x = NULL, y = NULL;
  int bad = CHECK_OK(GsOptionsSetValue(ctx, "-mat_spmv", kernel)) ||
            CHECK_OK(GsOptionsSetValue(ctx, "-mat_spmv_sell_c", c)) ||
            CHECK_OK(GsOptionsSetValue(ctx, "-mat_spmv_sell_sigma", sigma)) ||
            CHECK_OK(GsMatCreateCSR(ctx, m, n, rp64, c64, val, &B)) ||
            CHECK_OK(GsVecCreate(ctx, n, GS_DOUBLE, &x)) ||
            CHECK_OK(GsVecCreate(ctx, m, GS_DOUBLE, &y)) || CHECK_OK(GsVecSetValuesHost(x, hx)) ||
            CHECK_OK(GsVecSet(y, NAN)) || CHECK_OK(GsMatMult(B, 2.0, x, 0.0, y)) ||
            CHECK_OK(GsVecGetValuesHost(y, out));
  const char *name = NULL;
  if (!bad && !CHECK_OK(GsMatGetSpMVKernel(B, &name)))
    CHECK(!strncmp(name, kernel, strlen(kernel)), "asked for %s, the kernel is %s", kernel, name);
  GsVecDestroy(&x);
  GsVecDestroy(&y);
  GsMatDestroy(&B);
  free(rp64);
  free(c64);
  return bad;
}

/* The SELL-C-sigma kernel gives the CSR kernel's bits (each row sums in column order) whatever the
 * slice height and sorting window, on rows of 0 to n entries and skewed lengths; bad options. */
static void test_sell(GsContext ctx, HsRng *r) {
  GsMat A = random_matrix(ctx, 333, 257, r);
  if (!A) return;
  GsInt m, n;
  GsMatGetSize(A, &m, &n, NULL);
  double *hx = hs_malloc((size_t)n * sizeof *hx), *ref = hs_malloc((size_t)m * sizeof *ref),
         *got = hs_malloc((size_t)m * sizeof *got);
  hs_fill_d(r, n, hx, -1, 1);
  if (!mult_with(ctx, A, "csr", "32", "1", hx, ref)) {
    static const char *const cs[] = {"1", "7", "32"};
    static const char *const sigmas[] = {"1", "32", "100", "100000"};
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 4; b++) {
        if (mult_with(ctx, A, "sell", cs[a], sigmas[b], hx, got)) continue;
        GsInt diff = 0;
        for (GsInt i = 0; i < m; i++)
          diff += memcmp(&got[i], &ref[i], sizeof got[i]) != 0;
        CHECK(diff == 0, "SELL C %s sigma %s: %lld rows differ from CSR", cs[a], sigmas[b],
              (long long)diff);
      }
  }
  /* Bad options are named when the kernel is chosen (the first product). */
  CHECK_OK(GsOptionsSetValue(ctx, "-mat_spmv", "ellpack"));
  GsMat B = NULL;
  GsVec x = NULL, y = NULL;
  if (!CHECK_OK(GsMatCreateLaplacian(ctx, 4, 4, 1, 5, &B)) &&
      !CHECK_OK(GsVecCreate(ctx, 16, GS_DOUBLE, &x)) &&
      !CHECK_OK(GsVecCreate(ctx, 16, GS_DOUBLE, &y))) {
    CHECK_ERR(GsMatMult(B, 1, x, 0, y), GS_ERR_OPTION);
    CHECK_MSG(ctx, "-mat_spmv");
    GsMatDestroy(&B);
    CHECK_OK(GsOptionsSetValue(ctx, "-mat_spmv", "sell"));
    CHECK_OK(GsOptionsSetValue(ctx, "-mat_spmv_sell_c", "0"));
    if (!CHECK_OK(GsMatCreateLaplacian(ctx, 4, 4, 1, 5, &B))) {
      CHECK_ERR(GsMatMult(B, 1, x, 0, y), GS_ERR_OPTION);
      CHECK_MSG(ctx, "-mat_spmv_sell_c 0");
    }
  }
  GsMatDestroy(&B);
  GsVecDestroy(&x);
  GsVecDestroy(&y);
  CHECK_OK(GsOptionsClearValue(ctx, "-mat_spmv"));
  CHECK_OK(GsOptionsClearValue(ctx, "-mat_spmv_sell_c"));
  CHECK_OK(GsOptionsClearValue(ctx, "-mat_spmv_sell_sigma"));
  GsMatDestroy(&A);
  free(hx);
  free(ref);
  free(got);
}

static void test_roundtrip(GsContext ctx, HsRng *r) {
  GsMat A = random_matrix(ctx, 120, 90, r), B = NULL;
  if (A && !CHECK_OK(GsMatSaveMatrixMarket(A, tmpname("rt.mtx"))) &&
      !CHECK_OK(GsMatLoadMatrixMarket(ctx, tmpname("rt.mtx"), &B)))
    CHECK(same_matrix(A, B), "Matrix Market round trip changed the matrix");
  GsMatDestroy(&A);
  GsMatDestroy(&B);
  GsVec v = NULL, w = NULL;
  if (!CHECK_OK(GsVecCreate(ctx, 77, GS_DOUBLE, &v))) {
    CHECK_OK(GsVecSetRandom(v, hs_next(r), -1e6, 1e6));
    double a[77], b[77];
    GsVecGetValuesHost(v, a);
    a[3] = -0.0; /* zeros keep their sign */
    a[4] = 0.0;
    a[76] = -0.0;
    GsVecSetValuesHost(v, a);
    if (!CHECK_OK(GsVecSaveMatrixMarket(v, tmpname("rt-vec.mtx"))) &&
        !CHECK_OK(GsVecLoadMatrixMarket(ctx, tmpname("rt-vec.mtx"), &w))) {
      GsInt n = 0;
      GsVecGetSize(w, &n);
      GsVecGetValuesHost(w, b);
      CHECK(n == 77 && memcmp(a, b, sizeof a) == 0,
            "vector round trip changed the values (bit for bit)");
    }
  }
  GsVecDestroy(&v);
  GsVecDestroy(&w);
  CHECK_ERR(GsMatSaveMatrixMarket(NULL, "x.mtx"), GS_ERR_ARG_NULL);
  GsMat S = NULL;
  if (!CHECK_OK(GsMatCreateLaplacian(ctx, 3, 3, 1, 5, &S))) {
    CHECK_ERR(GsMatSaveMatrixMarket(S, "/nonexistent-dir/x.mtx"), GS_ERR_FILE_OPEN);
    CHECK_MSG(ctx, "/nonexistent-dir/x.mtx.tmp");
    GsMatDestroy(&S);
  }
}

/* Load text as a matrix; compare with the dense m x n expectation (row-major). */
static void check_text(GsContext ctx, const char *what, const char *text, GsInt m, GsInt n,
                       const double *dense) {
  const char *path = tmpname("fmt.mtx");
  GsMat A = NULL;
  if (write_file(path, text) || CHECK_OK(GsMatLoadMatrixMarket(ctx, path, &A))) {
    CHECK(0, "%s: could not load", what);
    return;
  }
  GsInt am, an;
  const GsInt *rp;
  const int *col;
  const double *val;
  GsMatGetSize(A, &am, &an, NULL);
  GsMatGetCSR(A, &rp, &col, &val);
  int ok = am == m && an == n;
  for (GsInt i = 0; ok && i < m; i++)
    for (GsInt j = 0; ok && j < n; j++) {
      double got = 0;
      for (GsInt k = rp[i]; k < rp[i + 1]; k++)
        if (col[k] == j) got = val[k];
      ok = got == dense[i * n + j];
    }
  CHECK(ok, "%s: the matrix read differs from the expected one", what);
  GsMatDestroy(&A);
}

static void test_formats(GsContext ctx) {
  const double sym[] = {4, -1, 0, -1, 4, 2, 0, 2, 5};
  check_text(ctx, "coordinate integer symmetric",
             "%%MatrixMarket matrix coordinate integer symmetric\n% comment\n\n3 3 5\n1 1 4\n2 1 "
             "-1\n2 2 4\n3 2 2\n3 3 5\n",
             3, 3, sym);
  const double pat[] = {0, 1, 1, 0, 0, 1};
  check_text(ctx, "coordinate pattern general",
             "%%MatrixMarket matrix coordinate pattern general\n2 3 3\n1 2\n1 3\n2 3\n", 2, 3, pat);
  const double skew[] = {0, -2.5, 2.5, 0};
  check_text(ctx, "coordinate real skew-symmetric",
             "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 2.5\n", 2, 2, skew);
  const double arr[] = {1, 0, 3, 2, 0, 4};
  check_text(ctx, "array real general (column-major, zeros dropped)",
             "%%matrixmarket MATRIX array REAL general\n2 3\n1\n2\n0\n0\n3\n4\n", 2, 3, arr);
  const double asym[] = {1, 2, 2, 3};
  check_text(ctx, "array real symmetric",
             "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n", 2, 2, asym);
  const double dup[] = {3.5, 0, 0, 0};
  check_text(ctx, "coordinate duplicates summed",
             "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.25\n1 1 2.25\n", 2, 2,
             dup);
  /* Vectors: array with one column, coordinate with missing entries. */
  GsVec v = NULL;
  const char *path = tmpname("vec.mtx");
  if (!write_file(path,
                  "%%MatrixMarket matrix coordinate real general\n4 1 2\n1 1 1.5\n4 1 -2\n") &&
      !CHECK_OK(GsVecLoadMatrixMarket(ctx, path, &v))) {
    double x[4] = {9, 9, 9, 9};
    GsVecGetValuesHost(v, x);
    CHECK(x[0] == 1.5 && x[1] == 0 && x[2] == 0 && x[3] == -2, "coordinate vector %g %g %g %g",
          x[0], x[1], x[2], x[3]);
  }
  GsVecDestroy(&v);
  /* A vector's zeros keep their sign, in an array (a matrix drops its zeros) and a coordinate
   * file; repeated coordinates are summed. */
  if (!write_file(path, "%%MatrixMarket matrix array real general\n4 1\n-0\n0\n-0.0e3\n2\n") &&
      !CHECK_OK(GsVecLoadMatrixMarket(ctx, path, &v))) {
    double x[4] = {9, 9, 9, 9};
    GsVecGetValuesHost(v, x);
    CHECK(x[0] == 0 && signbit(x[0]) && x[1] == 0 && !signbit(x[1]) && x[2] == 0 && signbit(x[2]) &&
              x[3] == 2,
          "array vector with signed zeros: %g %g %g %g", x[0], x[1], x[2], x[3]);
  }
  GsVecDestroy(&v);
  if (!write_file(path, "%%MatrixMarket matrix coordinate real general\n3 1 4\n2 1 -0\n3 1 "
                        "1.25\n3 1 2\n1 1 -0.0\n") &&
      !CHECK_OK(GsVecLoadMatrixMarket(ctx, path, &v))) {
    double x[3] = {9, 9, 9};
    GsVecGetValuesHost(v, x);
    CHECK(x[0] == 0 && signbit(x[0]) && x[1] == 0 && signbit(x[1]) && x[2] == 3.25,
          "coordinate vector with signed zeros: %g %g %g", x[0], x[1], x[2]);
  }
  GsVecDestroy(&v);
  if (!write_file(path, "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n")) {
    CHECK_ERR(GsVecLoadMatrixMarket(ctx, path, &v), GS_ERR_FILE_FORMAT);
    CHECK_MSG(ctx, "one column");
  }
}

/* One number as text in a random style: fixed and exponent forms of 1 to 17 digits, a leading
 * '+' or zeros, ".5" and "5." forms, exponents to +-330 (subnormals), exact integers either side
 * of 2^53. */
static void random_number(HsRng *r, char *out, size_t len) {
  const double mag = pow(10.0, (double)hs_int(r, -25, 25)) * hs_uniform(r);
  const double x = hs_uniform(r) < 0.5 ? -mag : mag;
  const int style = (int)hs_int(r, 0, 7), digits = (int)hs_int(r, 1, 17);
  switch (style) {
  case 0:
    snprintf(out, len, "%.*g", digits, x);
    break;
  case 1:
    snprintf(out, len, "%.*e", digits - 1, x);
    break;
  case 2:
    snprintf(out, len, "%.*f", (int)hs_int(r, 0, 12), x);
    break;
  case 3: /* exact integers either side of 2^53 */
    snprintf(out, len, "%lld",
             (long long)hs_int(r, 9007199254740992LL - 50, 9007199254740992LL + 50) *
                 (hs_uniform(r) < 0.5 ? -1 : 1));
    break;
  case 4: /* tiny and huge: subnormals, and exponents past the fast path */
    snprintf(out, len, "%.*e", digits - 1, hs_uniform(r) * pow(10.0, (double)hs_int(r, -323, 307)));
    break;
  case 5: /* a decimal point with nothing before or after it */
    snprintf(out, len, "%s", hs_uniform(r) < 0.5 ? "-.5" : ".5");
    if (hs_uniform(r) < 0.5) snprintf(out, len, "%lld.", (long long)hs_int(r, 0, 99999));
    break;
  case 6: /* short decimals with exponents, upper-case E, explicit signs */
    snprintf(out, len, "%lld.%lldE%+d", (long long)hs_int(r, 0, 999), (long long)hs_int(r, 0, 999),
             (int)hs_int(r, -30, 30));
    break;
  default: /* leading '+' and zeros */
    snprintf(out, len, "+000%.*g", digits, mag);
    break;
  }
}

/* Numbers in a file are read as strtod reads them (bit for bit; an array's -0 is a zero left
 * out, so it comes back as 0), whatever
 * their style, on lines with blanks, tabs and CRLF ends, in a file long enough to be read in
 * several blocks (lines across the block ends) and without a final newline; indices with '+'
 * signs and leading zeros; an index past 2^63 is no index; a line of 1022 characters is read,
 * one of 1023 is an error. */
static void test_numbers(GsContext ctx, HsRng *r) {
  const GsInt n = 150000;
  char path[256]; /* (tmpname's buffer is reused by check_text) */
  snprintf(path, sizeof path, "%s", tmpname("num.mtx"));
  char(*tok)[48] = hs_malloc((size_t)n * sizeof *tok);
  static const char *const fixed[] = {"0",
                                      "-0",
                                      "+0.0",
                                      "-0e5",
                                      "1e22",
                                      "1e23",
                                      "-1e-22",
                                      "1e-23",
                                      "9007199254740991",
                                      "9007199254740993",
                                      "4.9e-324",
                                      "2.2250738585072011e-308",
                                      "1.7976931348623157e308",
                                      "0.1",
                                      "123456789012345678",
                                      "0000000000000000000001.5",
                                      "1.00000000000000000000000000001",
                                      "7e0",
                                      "5E-1"};
  const GsInt nfixed = (GsInt)(sizeof fixed / sizeof fixed[0]);
  FILE *f = fopen(path, "wb");
  if (!f) {
    CHECK(0, "cannot write %s", path);
    free(tok);
    return;
  }
  fprintf(f, "%%%%MatrixMarket matrix array real general\n%% numbers\n%lld 1\n", (long long)n);
  for (GsInt i = 0; i < n; i++) {
    if (i < nfixed)
      snprintf(tok[i], sizeof tok[i], "%s", fixed[i]);
    else
      random_number(r, tok[i], sizeof tok[i]);
    const char *pre = hs_uniform(r) < 0.1 ? " \t" : "", *post = hs_uniform(r) < 0.1 ? "  " : "";
    const char *end = i == n - 1 ? "" : hs_uniform(r) < 0.1 ? "\r\n" : "\n";
    fprintf(f, "%s%s%s%s", pre, tok[i], post, end);
  }
  fclose(f);
  GsVec v = NULL;
  if (!CHECK_OK(GsVecLoadMatrixMarket(ctx, path, &v))) {
    double *got = hs_malloc((size_t)n * sizeof *got);
    CHECK_OK(GsVecGetValuesHost(v, got));
    GsInt diff = 0;
    for (GsInt i = 0; i < n; i++) {
      const double want = strtod(tok[i], NULL);
      /* (an array's zeros are left out, so -0 comes back as 0) */
      if (memcmp(&want, &got[i], sizeof want) && !(want == 0 && got[i] == 0)) {
        if (diff++ < 5)
          CHECK(0, "value %lld '%s' read as %.17g, strtod gives %.17g", (long long)i + 1, tok[i],
                got[i], want);
      }
    }
    CHECK(diff == 0, "%lld of %lld numbers read differently from strtod", (long long)diff,
          (long long)n);
    free(got);
  }
  GsVecDestroy(&v);
  free(tok);
  /* Indices. */
  const double ok[] = {0, 2.5, 0, 0};
  check_text(ctx, "indices with '+' and leading zeros",
             "%%MatrixMarket matrix coordinate real general\n+2 0002 1\n+0001 002 +2.5\n", 2, 2,
             ok);
  GsMat A = NULL;
  if (!write_file(path, "%%MatrixMarket matrix coordinate real general\n2 2 1\n"
                        "99999999999999999999 1 1\n")) {
    CHECK_ERR(GsMatLoadMatrixMarket(ctx, path, &A), GS_ERR_FILE_FORMAT);
    CHECK_MSG(ctx, ":3: entry 1: expected 'row column value'");
  }
  if (!write_file(path, "%%MatrixMarket matrix coordinate real general\n2 2 1\n"
                        "9223372036854775807 1 1\n")) {
    CHECK_ERR(GsMatLoadMatrixMarket(ctx, path, &A), GS_ERR_FILE_FORMAT);
    CHECK_MSG(ctx, "index (9223372036854775807, 1) is outside");
  }
  /* Line length: 1022 characters are read, 1023 are not. */
  char line[1100], text[1300];
  for (int len = 1022; len <= 1023; len++) {
    memset(line, ' ', sizeof line);
    memcpy(line, "1 1 1", 5);
    line[len] = '\0';
    snprintf(text, sizeof text, "%%%%MatrixMarket matrix coordinate real general\n1 1 1\n%s\n",
             line);
    if (write_file(path, text)) continue;
    const int rc = GsMatLoadMatrixMarket(ctx, path, &A);
    if (len == 1022) {
      CHECK(rc == 0, "a line of 1022 characters: %s", GsGetErrorMessage(ctx));
    } else {
      CHECK(rc == GS_ERR_FILE_FORMAT, "a line of 1023 characters: code %d", rc);
      CHECK_MSG(ctx, ":3: line longer than 1022 characters");
    }
    GsMatDestroy(&A);
  }
  remove(path);
}

static void test_malformed(GsContext ctx) {
  static const struct {
    const char *text, *msg;
    int code;
  } bad[] = {
      {"", "is empty", GS_ERR_FILE_FORMAT},
      {"%%MatrixMarkt matrix coordinate real general\n1 1 1\n1 1 1\n", "not a Matrix Market",
       GS_ERR_FILE_FORMAT},
      {"%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n", "needs 4 words",
       GS_ERR_FILE_FORMAT},
      {"%%MatrixMarket vector coordinate real general\n1 1 1\n1 1 1\n", "object 'vector'",
       GS_ERR_FILE_FORMAT},
      {"%%MatrixMarket matrix sparse real general\n1 1 1\n1 1 1\n", "format 'sparse'",
       GS_ERR_FILE_FORMAT},
      {"%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", "field 'complex'",
       GS_ERR_FILE_FORMAT},
      {"%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n", "symmetry 'hermitian'",
       GS_ERR_FILE_FORMAT},
      {"%%MatrixMarket matrix array pattern general\n1 1\n1\n", "pattern matrix must be",
       GS_ERR_FILE_FORMAT},
      {"%%MatrixMarket matrix coordinate real general\n% only a comment\n", "size line is missing",
       GS_ERR_FILE_FORMAT},
      {"%%MatrixMarket matrix coordinate real general\n3 3\n", ":2: bad size line",
       GS_ERR_FILE_FORMAT},
      {"%%MatrixMarket matrix coordinate real symmetric\n3 2 1\n1 1 1\n", "must be square",
       GS_ERR_FILE_FORMAT},
      {"%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n% c\n3 1 1\n",
       ":5: entry 2: index (3, 1) is outside", GS_ERR_FILE_FORMAT},
      {"%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n2 2 1\n",
       "ends after 2 of the 3 entries", GS_ERR_FILE_FORMAT},
      {"%%MatrixMarket matrix coordinate real general\n2 2 1\nnan 1 1\n", ":3: entry 1: expected",
       GS_ERR_FILE_FORMAT},
      {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 nan\n",
       ":3: entry 1: the value "
       "is not finite",
       GS_ERR_NOT_FINITE},
      {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 -inf\n", "not finite (inf)",
       GS_ERR_NOT_FINITE},
      {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 abc\n", "expected a real value",
       GS_ERR_FILE_FORMAT},
      {"%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n", "expected an integer",
       GS_ERR_FILE_FORMAT},
      {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 2.0 junk\n", "unexpected text",
       GS_ERR_FILE_FORMAT},
      {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 2\n2 2 2\n", ":4: more data",
       GS_ERR_FILE_FORMAT},
      {"%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 2\n", "diagonal entry",
       GS_ERR_FILE_FORMAT},
      {"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", "ends after 3 of the 4",
       GS_ERR_FILE_FORMAT},
      /* A size line promising more rows than memory: refused before anything is allocated (an
       * overcommitting kernel would grant the arrays and end the process when they are filled). */
      {"%%MatrixMarket matrix coordinate pattern general\n1099511627776 5 1\n1 1\n",
       ":2: a 1099511627776 x 5 matrix with the entries promised needs", GS_ERR_MEMORY},
      /* Arrays whose value count would overflow 64 bits: too many columns (refused, and the
       * count was then formed anyway and overflowed), or columns in range and too many rows;
       * and one whose count fits but not the memory. */
      {"%%MatrixMarket matrix array real general\n333333333333333334 333333333333333333\n1\n",
       ":2: sizes 333333333333333334 x 333333333333333333 (0 entries) out of range",
       GS_ERR_FILE_FORMAT},
      {"%%MatrixMarket matrix array real general\n10000000000000000 1000\n1\n",
       ":2: an array of 10000000000000000 x 1000 values is out of range", GS_ERR_FILE_FORMAT},
      {"%%MatrixMarket matrix array real general\n2000000 2000000\n1\n",
       ":2: a 2000000 x 2000000 matrix needs", GS_ERR_MEMORY},
  };
  const char *path = tmpname("bad.mtx");
  for (size_t c = 0; c < sizeof bad / sizeof bad[0]; c++) {
    GsMat A = NULL;
    if (write_file(path, bad[c].text)) {
      CHECK(0, "cannot write %s", path);
      continue;
    }
    int rc = GsMatLoadMatrixMarket(ctx, path, &A);
    CHECK(rc == bad[c].code, "case %zu (%s): code %d (%s), want %d; message: %s", c, bad[c].msg, rc,
          GsErrorName(rc), bad[c].code, GsGetErrorMessage(ctx));
    CHECK(strstr(GsGetErrorMessage(ctx), bad[c].msg) && strstr(GsGetErrorMessage(ctx), path),
          "case %zu: the message does not say '%s' and the file: %s", c, bad[c].msg,
          GsGetErrorMessage(ctx));
    CHECK(A == NULL, "case %zu: a failed load left a matrix", c);
  }
  GsMat A = NULL;
  CHECK_ERR(GsMatLoadMatrixMarket(ctx, "/nonexistent/file.mtx", &A), GS_ERR_FILE_OPEN);
  CHECK_MSG(ctx, "/nonexistent/file.mtx");
  CHECK_ERR(GsMatLoadMatrixMarket(ctx, NULL, &A), GS_ERR_ARG_NULL);
  remove(path);
}

/* The test collection: sizes and stored entries from its README, symmetry of the symmetric ones,
 * west0479's zero diagonal entries, and a round trip of one file. */
static void test_collection(GsContext ctx, HsRng *r) {
  static const struct {
    const char *file;
    GsInt n, stored;
    int symmetric;
  } mats[] = {{"494_bus.mtx", 494, 1080, 1},    {"1138_bus.mtx", 1138, 2596, 1},
              {"bcsstk03.mtx", 112, 376, 1},    {"gr_30_30.mtx", 900, 4322, 1},
              {"ani4.mtx", 3081, 20971, 0},     {"bcsstk13.mtx", 2003, 42943, 1},
              {"sherman5.mtx", 3312, 20793, 0}, {"orsirr_1.mtx", 1030, 6858, 0},
              {"hor131.mtx", 434, 4710, 0},     {"west0479.mtx", 479, 1910, 0}};
  const char *dir = hs_matrix_dir(GS_TEST_MATRIX_DIR);
  char path[1024];
  if (!dir) {
    printf("SKIP test_mat collection: no test matrices at '%s' (set GS_TEST_MATRIX_DIR)\n",
           getenv("GS_TEST_MATRIX_DIR") ? getenv("GS_TEST_MATRIX_DIR") : GS_TEST_MATRIX_DIR);
    return;
  }
  for (size_t c = 0; c < sizeof mats / sizeof mats[0]; c++) {
    snprintf(path, sizeof path, "%s/%s", dir, mats[c].file);
    GsMat A = NULL, T = NULL;
    if (CHECK_OK(GsMatLoadMatrixMarket(ctx, path, &A))) continue;
    GsInt m, n, nnz, diag = 0;
    GsMatGetSize(A, &m, &n, &nnz);
    const GsInt *rp;
    const int *col;
    const double *val;
    GsMatGetCSR(A, &rp, &col, &val);
    for (GsInt i = 0; i < m; i++)
      for (GsInt k = rp[i]; k < rp[i + 1]; k++)
        diag += col[k] == i;
    const GsInt want = mats[c].symmetric ? 2 * mats[c].stored - diag : mats[c].stored;
    CHECK(m == mats[c].n && n == mats[c].n && nnz == want,
          "%s: %lld x %lld with %lld entries, want %lld x %lld with %lld", mats[c].file,
          (long long)m, (long long)n, (long long)nnz, (long long)mats[c].n, (long long)mats[c].n,
          (long long)want);
    /* SpMV on the real matrix against the long-double reference (x random, three alpha/beta),
     * in every form. */
    static const GsMatSpMVType forms[] = {GS_MAT_SPMV_AUTO, GS_MAT_SPMV_CSR,   GS_MAT_SPMV_ELL,
                                          GS_MAT_SPMV_SELL, GS_MAT_SPMV_MERGE, GS_MAT_SPMV_HYBRID};
    for (int f = 0; f < 6; f++) {
      const char *kname = "";
      if (CHECK_OK(GsMatSetSpMVType(A, forms[f], 32, f == 3 ? 256 : 1))) continue;
      const double e = spmv_error(ctx, A, r);
      CHECK_OK(GsMatGetSpMVKernel(A, &kname));
      CHECK(e <= 1e-13, "%s, %s: SpMV relative error %g", mats[c].file, kname, e);
    }
    if (mats[c].symmetric && !CHECK_OK(GsMatTranspose(A, &T)))
      CHECK(same_matrix(A, T), "%s is not symmetric after loading", mats[c].file);
    if (!strcmp(mats[c].file, "west0479.mtx")) {
      GsVec d = NULL;
      if (!CHECK_OK(GsVecCreate(ctx, n, GS_DOUBLE, &d))) {
        double *h = hs_malloc((size_t)n * sizeof *h);
        CHECK_OK(GsMatGetDiagonal(A, d));
        CHECK_OK(GsVecGetValuesHost(d, h));
        GsInt zeros = 0;
        for (GsInt i = 0; i < n; i++)
          zeros += h[i] == 0;
        CHECK(zeros == 471, "west0479 has %lld zero diagonal entries, want 471", (long long)zeros);
        free(h);
        GsVecDestroy(&d);
      }
    }
    if (c == 4) { /* ani4: save and load back */
      GsMat B = NULL;
      if (!CHECK_OK(GsMatSaveMatrixMarket(A, tmpname("ani4.mtx"))) &&
          !CHECK_OK(GsMatLoadMatrixMarket(ctx, tmpname("ani4.mtx"), &B)))
        CHECK(same_matrix(A, B), "ani4 round trip differs");
      GsMatDestroy(&B);
      remove(tmpname("ani4.mtx"));
    }
    GsMatDestroy(&T);
    GsMatDestroy(&A);
  }
  printf("collection: %zu matrices checked\n", sizeof mats / sizeof mats[0]);
}

int main(int argc, char **argv) {
  if (argc > 1 && argv[1][0] == '/') resource = argv[1];
  hs_begin("test_mat", resource, argc, argv);
  snprintf(prefix, sizeof prefix, "mat");
  for (const char *p = resource; *p && strlen(prefix) < sizeof prefix - 2; p++) {
    size_t l = strlen(prefix);
    prefix[l] = *p == '/' || *p == ':' ? '-' : *p;
    prefix[l + 1] = '\0';
  }
  strncat(prefix, "-", sizeof prefix - strlen(prefix) - 1);
  GsContext ctx = NULL;
  int rc = hs_init_backend(resource, &ctx);
  if (rc == 77) return 77;
  if (rc) return hs_finish();
  HsRng r = hs_rng(7);
  test_assembly(ctx);
  test_laplacian(ctx);
  test_mult(ctx, &r);
  test_sell(ctx, &r);
  test_kernels(ctx, &r);
  test_kernels_edges(ctx, &r);
  test_mult_dot_sizes(ctx, &r);
  test_power_law(ctx);
  test_panels(ctx, &r);
  test_merge_pdl();
  test_panels_auto();
  test_roundtrip(ctx, &r);
  test_formats(ctx);
  test_malformed(ctx);
  test_numbers(ctx, &r);
  test_collection(ctx, &r);
  remove(tmpname("rt.mtx"));
  remove(tmpname("rt-vec.mtx"));
  remove(tmpname("fmt.mtx"));
  remove(tmpname("vec.mtx"));
  hs_unwatch(ctx);
  CHECK_OK(GsDestroy(&ctx));
  return hs_finish();
}
