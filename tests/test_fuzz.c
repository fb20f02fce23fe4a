/* Mutated input files: the Matrix Market readers (matrices and vectors) and the Cahn-Hilliard
 * checkpoint loader, given valid files with random damage (bytes changed, removed or repeated,
 * lines dropped or doubled, numbers replaced by extreme ones, truncation), either load something
 * that is well formed or return a named error whose message names the file. Never a crash, never
 * a matrix with a row offset or column out of range. The batched banded API likewise under random
 * descriptors, vectors and call orders, on the back end given (argv[1]). The mutations come from
 * the test's seed (printed; rerun with -seed), so each run tries new ones; "-seeds a,b,c" replays a
 * fixed list, which is what ctest does (tests/CMakeLists.txt says why). Build with
 * -DGS_SANITIZE=ON to have AddressSanitizer watch every read. */
#include "harness.h"

#include <float.h>
#include <unistd.h>

#include "cahnhilliard/cahnhilliard.h"
#include "common/apputil.h"
#include "hyperdiffusion/hyperdiffusion.h"
#include "gpusolve/ksp.h"
#include "gpusolve/stencil.h"

static const char *resource = "/cpu";

typedef struct {
  char *s;
  size_t n, cap;
} Buf;

static void buf_reserve(Buf *b, size_t n) {
  if (n + 1 <= b->cap) return;
  b->cap = 2 * (n + 1);
  b->s = realloc(b->s, b->cap);
  if (!b->s) abort();
}
static void buf_set(Buf *b, const char *s, size_t n) {
  buf_reserve(b, n);
  memcpy(b->s, s, n);
  b->n = n;
  b->s[n] = 0;
}
/* Replace [at, at + len) with r (rn bytes). */
static void buf_splice(Buf *b, size_t at, size_t len, const char *r, size_t rn) {
  if (at > b->n) at = b->n;
  if (len > b->n - at) len = b->n - at;
  buf_reserve(b, b->n - len + rn);
  memmove(b->s + at + rn, b->s + at + len, b->n - at - len);
  memcpy(b->s + at, r, rn);
  b->n = b->n - len + rn;
  b->s[b->n] = 0;
}

/* Start and length of line number k (0-based) of b, or 0 if there is no such line. */
static int line_span(const Buf *b, size_t k, size_t *at, size_t *len) {
  size_t i = 0;
  for (size_t l = 0; l < k; l++) {
    const char *nl = memchr(b->s + i, '\n', b->n - i);
    if (!nl) return 0;
    i = (size_t)(nl - b->s) + 1;
  }
  if (i >= b->n) return 0;
  const char *nl = memchr(b->s + i, '\n', b->n - i);
  *at = i;
  *len = nl ? (size_t)(nl - b->s) + 1 - i : b->n - i;
  return 1;
}
static size_t count_lines(const Buf *b) {
  size_t c = 0;
  for (size_t i = 0; i < b->n; i++)
    c += b->s[i] == '\n';
  return c + (b->n && b->s[b->n - 1] != '\n');
}

/* One random change to a text file. */
static void mutate_text(HsRng *rng, Buf *b) {
  static const char *const numbers[] = {"0",
                                        "-1",
                                        "1",
                                        "2147483647",
                                        "2147483648",
                                        "-2147483649",
                                        "9223372036854775808",
                                        "1e400",
                                        "-1e400",
                                        "1e-400",
                                        "nan",
                                        "inf",
                                        "-inf",
                                        "0x10",
                                        "1.5",
                                        "",
                                        "+",
                                        "-",
                                        "1e",
                                        "99999999999999999999999999"};
  static const char *const words[] = {
      "%%MatrixMarket", "matrix",  "vector",  "coordinate", "array",     "real",
      "integer",        "pattern", "complex", "general",    "symmetric", "skew-symmetric",
      "hermitian",      "%",       "\n",      " ",          "\t",        "\r\n"};
  const int kind = (int)hs_int(rng, 0, 7);
  const size_t n = b->n;
  switch (kind) {
  case 0: { /* one byte changed */
    if (!n) break;
    static const char pool[] = "0123456789 .-+eE%\n\t\rxX";
    char c = hs_int(rng, 0, 3) ? pool[hs_int(rng, 0, (int64_t)sizeof pool - 2)]
                               : (char)hs_int(rng, 0, 255);
    b->s[hs_int(rng, 0, (int64_t)n - 1)] = c;
    break;
  }
  case 1: { /* a run of bytes removed */
    if (!n) break;
    const size_t at = (size_t)hs_int(rng, 0, (int64_t)n - 1);
    buf_splice(b, at, (size_t)hs_int(rng, 1, 12), "", 0);
    break;
  }
  case 2: { /* truncated */
    b->n = n ? (size_t)hs_int(rng, 0, (int64_t)n - 1) : 0;
    b->s[b->n] = 0;
    break;
  }
  case 3:   /* a line dropped */
  case 4: { /* a line doubled */
    size_t at, len;
    const size_t lines = count_lines(b);
    if (!lines || !line_span(b, (size_t)hs_int(rng, 0, (int64_t)lines - 1), &at, &len)) break;
    if (kind == 3) {
      buf_splice(b, at, len, "", 0);
    } else {
      char *copy = malloc(len);
      if (!copy) abort();
      memcpy(copy, b->s + at, len);
      buf_splice(b, at, 0, copy, len);
      free(copy);
    }
    break;
  }
  case 5:   /* a number replaced by an extreme one */
  case 6: { /* a word inserted */
    if (!n) break;
    size_t at = (size_t)hs_int(rng, 0, (int64_t)n - 1);
    if (kind == 5) {
      while (at < n && !strchr("0123456789.-+eE", b->s[at]))
        at++;
      size_t e = at;
      while (e < n && strchr("0123456789.-+eE", b->s[e]))
        e++;
      const char *r = numbers[hs_int(rng, 0, (int64_t)(sizeof numbers / sizeof *numbers) - 1)];
      buf_splice(b, at, e - at, r, strlen(r));
    } else {
      const char *w = words[hs_int(rng, 0, (int64_t)(sizeof words / sizeof *words) - 1)];
      buf_splice(b, at, 0, w, strlen(w));
    }
    break;
  }
  default: { /* a byte repeated many times (long tokens, long lines) */
    if (!n) break;
    const size_t at = (size_t)hs_int(rng, 0, (int64_t)n - 1);
    const size_t reps = (size_t)hs_int(rng, 1, 5000);
    char *run = malloc(reps);
    if (!run) abort();
    memset(run, b->s[at], reps);
    buf_splice(b, at, 0, run, reps);
    free(run);
    break;
  }
  }
}

static int write_file(const char *path, const Buf *b) {
  FILE *f = fopen(path, "wb");
  if (!f) return 1;
  const size_t w = fwrite(b->s, 1, b->n, f);
  return fclose(f) != 0 || w != b->n;
}

/* A loaded matrix must be well formed: offsets from 0 rising to nnz, columns in range, values
 * finite; and it must multiply. */
static int check_matrix(GsContext ctx, GsMat A, const char *what) {
  GsInt m = -1, n = -1, nnz = -1;
  const GsInt *rp = NULL;
  const int *col = NULL;
  const double *val = NULL;
  if (CHECK_OK(GsMatGetSize(A, &m, &n, &nnz)) || CHECK_OK(GsMatGetCSR(A, &rp, &col, &val)))
    return 1;
  int ok = m >= 0 && n >= 0 && nnz >= 0 && rp && rp[0] == 0 && rp[m] == nnz;
  for (GsInt i = 0; ok && i < m; i++) {
    ok = rp[i] <= rp[i + 1];
    for (GsInt k = rp[i]; ok && k < rp[i + 1]; k++)
      ok = col[k] >= 0 && col[k] < n && isfinite(val[k]);
  }
  if (!CHECK(ok, "%s: loaded a malformed %lld x %lld matrix (%lld entries)", what, (long long)m,
             (long long)n, (long long)nnz))
    return 1;
  GsVec x = NULL, y = NULL;
  if (n > 0 && m > 0 && n < 100000 && m < 100000 && !CHECK_OK(GsVecCreate(ctx, n, GS_DOUBLE, &x)) &&
      !CHECK_OK(GsVecCreate(ctx, m, GS_DOUBLE, &y))) {
    CHECK_OK(GsVecSet(x, 1.0));
    CHECK_OK(GsMatMult(A, 1.0, x, 0.0, y));
  }
  GsVecDestroy(&x);
  GsVecDestroy(&y);
  return 0;
}

/* The error for a damaged file: a file error code, and the path in the message. */
static void check_error(GsContext ctx, int rc, const char *path, const char *what) {
  const char *m = GsGetErrorMessage(ctx);
  CHECK(rc == GS_ERR_FILE_FORMAT || rc == GS_ERR_FILE_OPEN || rc == GS_ERR_NOT_FINITE ||
            rc == GS_ERR_ARG_OUTOFRANGE || rc == GS_ERR_MEMORY,
        "%s: error %d (%s): %s", what, rc, GsErrorName(rc), m);
  CHECK(m && strstr(m, path), "%s: the message does not name the file %s: %s", what, path,
        m ? m : "(NULL)");
}

static const char *const mm_seeds[] = {
    "%%MatrixMarket matrix coordinate real general\n% a comment\n5 4 7\n1 1 2.5\n2 2 -1\n"
    "3 1 4e-3\n5 4 1.0E+2\n4 3 -0.5\n1 4 7\n5 1 3\n",
    "%%MatrixMarket matrix coordinate real symmetric\n4 4 6\n1 1 4\n2 1 -1\n2 2 4\n3 2 -1\n"
    "3 3 4\n4 4 2\n",
    "%%MatrixMarket matrix coordinate pattern general\n3 5 4\n1 2\n2 5\n3 1\n3 3\n",
    "%%MatrixMarket matrix coordinate integer skew-symmetric\n4 4 3\n2 1 3\n3 1 -2\n4 2 5\n",
    "%%MatrixMarket matrix array real general\n3 2\n1.5\n-2\n0\n4e1\n5\n6.25\n",
    "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n6\n",
    "%%MatrixMarket matrix array integer general\n4 1\n3\n-1\n0\n7\n",
};

static void fuzz_matrix_market(GsContext ctx, const char *dir, int cases) {
  HsRng rng = hs_rng(1);
  char path[1024];
  snprintf(path, sizeof path, "%s/fuzz.mtx", dir);
  Buf b = {0};
  int loaded = 0, refused = 0, vloaded = 0;
  for (int c = 0; c < cases; c++) {
    const char *seed = mm_seeds[c % (int)(sizeof mm_seeds / sizeof *mm_seeds)];
    buf_set(&b, seed, strlen(seed));
    const int nmut = (int)hs_int(&rng, 1, 3);
    for (int k = 0; k < nmut; k++)
      mutate_text(&rng, &b);
    if (!CHECK(!write_file(path, &b), "cannot write %s", path)) break;
    char what[64];
    snprintf(what, sizeof what, "mutated Matrix Market file, case %d", c);
    GsMat A = NULL;
    const int rc = GsMatLoadMatrixMarket(ctx, path, &A);
    if (!rc) {
      loaded++;
      if (check_matrix(ctx, A, what)) printf("  file was:\n%.2000s\n", b.s);
      GsMatDestroy(&A);
    } else {
      refused++;
      CHECK(A == NULL, "%s: error %d but a matrix was returned", what, rc);
      check_error(ctx, rc, path, what);
    }
    GsVec v = NULL;
    const int rv = GsVecLoadMatrixMarket(ctx, path, &v);
    if (!rv) {
      vloaded++;
      GsInt n = -1;
      CHECK_OK(GsVecGetSize(v, &n));
      double *h = n > 0 ? malloc((size_t)n * sizeof *h) : NULL;
      if (h && !CHECK_OK(GsVecGetValuesHost(v, h))) {
        int fin = 1;
        for (GsInt i = 0; i < n; i++)
          fin &= isfinite(h[i]) != 0;
        CHECK(fin, "%s: a vector with a non-finite entry was loaded", what);
      }
      free(h);
      GsVecDestroy(&v);
    } else {
      CHECK(v == NULL, "%s: error %d but a vector was returned", what, rv);
      check_error(ctx, rv, path, what);
    }
  }
  remove(path);
  free(b.s);
  printf("Matrix Market: %d mutated files, %d loaded as matrices (well formed), %d refused with a "
         "named error; %d loaded as vectors\n",
         cases, loaded, refused, vloaded);
  CHECK(loaded > 0 && refused > cases / 4, "mutations too mild or too harsh: %d loaded, %d refused",
        loaded, refused);
}

/* Checkpoints: any byte changed, a truncation or a grown file is refused (header checks and the
 * checksum); the intact file still loads afterwards and continues bit for bit. */
static void fuzz_checkpoint(GsContext ctx, const char *dir, int cases) {
  HsRng rng = hs_rng(2);
  char path[1024], bad[1100];
  snprintf(path, sizeof path, "%s/fuzz.chk", dir);
  snprintf(bad, sizeof bad, "%s/fuzz-bad.chk", dir);
  const GsCahnHilliardDesc d = {.n = 12,
                                .ny = 12,
                                .ensemble = 1,
                                .length = 6.0,
                                .D = 1,
                                .gamma = 0.01,
                                .dt = 1e-4,
                                .order = 2};
  GsCahnHilliard ch = NULL, ch2 = NULL;
  if (CHECK_OK(GsCahnHilliardCreate(ctx, &d, &ch)) || CHECK_OK(GsCahnHilliardCreate(ctx, &d, &ch2)))
    goto done;
  CHECK_OK(GsCahnHilliardSetRandom(ch, -1, 0.0, 0.05, 7));
  CHECK_OK(GsCahnHilliardStep(ch, 3));
  if (CHECK_OK(GsCahnHilliardSaveCheckpoint(ch, path))) goto done;
  FILE *f = fopen(path, "rb");
  Buf good = {0}, b = {0};
  if (f) {
    char chunk[4096];
    size_t r;
    while ((r = fread(chunk, 1, sizeof chunk, f)) > 0) {
      buf_reserve(&good, good.n + r);
      memcpy(good.s + good.n, chunk, r);
      good.n += r;
    }
    fclose(f);
  }
  if (!CHECK(good.n > 64, "checkpoint %s has %zu bytes", path, good.n)) goto free_bufs;
  int refused = 0;
  for (int c = 0; c < cases; c++) {
    buf_set(&b, good.s, good.n);
    const int kind = (int)hs_int(&rng, 0, 3);
    if (kind <= 1) { /* one byte changed to another value */
      const size_t at = (size_t)hs_int(&rng, 0, (int64_t)b.n - 1);
      b.s[at] = (char)(b.s[at] ^ (char)hs_int(&rng, 1, 255));
    } else if (kind == 2) { /* truncated */
      b.n = (size_t)hs_int(&rng, 0, (int64_t)b.n - 1);
    } else { /* bytes added at the end */
      buf_splice(&b, b.n, 0, "\0\0\0\0\0\0\0\0", (size_t)hs_int(&rng, 1, 8));
    }
    if (!CHECK(!write_file(bad, &b), "cannot write %s", bad)) break;
    char what[64];
    snprintf(what, sizeof what, "damaged checkpoint, case %d (kind %d)", c, kind);
    const int rc = GsCahnHilliardLoadCheckpoint(ch2, bad);
    if (!CHECK(rc != 0, "%s: loaded", what)) continue;
    refused++;
    check_error(ctx, rc, bad, what);
  }
  /* The solver that refused them all still takes the intact file and continues as the original. */
  if (!CHECK_OK(GsCahnHilliardLoadCheckpoint(ch2, path))) {
    CHECK_OK(GsCahnHilliardStep(ch, 2));
    CHECK_OK(GsCahnHilliardStep(ch2, 2));
    GsVec c1 = NULL, c2 = NULL;
    double *h1 = malloc(144 * sizeof *h1), *h2 = malloc(144 * sizeof *h2);
    if (h1 && h2 && !CHECK_OK(GsVecCreate(ctx, 144, GS_DOUBLE, &c1)) &&
        !CHECK_OK(GsVecCreate(ctx, 144, GS_DOUBLE, &c2)) &&
        !CHECK_OK(GsCahnHilliardGetState(ch, c1)) && !CHECK_OK(GsCahnHilliardGetState(ch2, c2)) &&
        !CHECK_OK(GsVecGetValuesHost(c1, h1)) && !CHECK_OK(GsVecGetValuesHost(c2, h2)))
      CHECK(!memcmp(h1, h2, 144 * sizeof *h1),
            "after the damaged files, the intact checkpoint does not continue bit for bit");
    free(h1);
    free(h2);
    GsVecDestroy(&c1);
    GsVecDestroy(&c2);
  }
  printf("checkpoints: %d damaged files (%zu bytes intact), %d refused with a named error\n", cases,
         good.n, refused);
free_bufs:
  free(good.s);
  free(b.s);
  remove(bad);
  remove(path);
done:
  GsCahnHilliardDestroy(&ch);
  GsCahnHilliardDestroy(&ch2);
}

/* Options strings of random tokens: every insertion and getter returns 0 or GS_ERR_OPTION (or
 * GS_ERR_ARG_OUTOFRANGE for a bad name), the values read are the defaults or parsed ones, and a
 * Krylov solver set from them either takes them or names the bad one. */
static void fuzz_options(int cases) {
  static const char *const tokens[] = {"-ksp_rtol",
                                       "-ksp_type",
                                       "-pc_type",
                                       "-ksp_max_it",
                                       "-ksp_monitor",
                                       "-mat_spmv",
                                       "-gs_backend",
                                       "-x",
                                       "-",
                                       "--",
                                       "---",
                                       "1e-8",
                                       "1e999",
                                       "-1e999",
                                       "nan",
                                       "inf",
                                       "0x1p3",
                                       "12",
                                       "-3",
                                       "9223372036854775808",
                                       "cg",
                                       "gmres",
                                       "bicgstab",
                                       "jacobi",
                                       "none",
                                       "true",
                                       "off",
                                       "yes",
                                       "maybe",
                                       "\"quoted value\"",
                                       "'single'",
                                       "\"",
                                       "'",
                                       "=",
                                       "-a=b",
                                       "\t",
                                       "\n",
                                       "   ",
                                       "-ksp_gmres_restart",
                                       "0",
                                       "-ksp_pc_side",
                                       "left",
                                       "right",
                                       "-log_viewer",
                                       "",
                                       "-ksp_rtol-",
                                       "-_",
                                       "-ksp_converged_reason"};
  HsRng rng = hs_rng(3);
  int refused = 0;
  for (int c = 0; c < cases; c++) {
    char str[2048] = "";
    const int nt = (int)hs_int(&rng, 0, 12);
    for (int k = 0; k < nt; k++) {
      const char *t = tokens[hs_int(&rng, 0, (int64_t)(sizeof tokens / sizeof *tokens) - 1)];
      strncat(str, t, sizeof str - strlen(str) - 2);
      strncat(str, hs_int(&rng, 0, 5) ? " " : "", sizeof str - strlen(str) - 1);
    }
    if (hs_int(&rng, 0, 20) == 0) { /* a very long token */
      const size_t at = strlen(str), len = (size_t)hs_int(&rng, 1, (int64_t)(sizeof str - at - 1));
      memset(str + at, hs_int(&rng, 0, 1) ? 'e' : '-', len);
      str[at + len] = 0;
    }
    GsContext ctx = NULL;
    if (CHECK_OK(GsInit("/cpu", &ctx))) return;
    const int rc = GsOptionsInsertString(ctx, str);
    CHECK(rc == 0 || rc == GS_ERR_OPTION || rc == GS_ERR_ARG_OUTOFRANGE,
          "options '%s': insertion returned %d (%s)", str, rc, GsErrorName(rc));
    if (!rc) {
      GsInt iv = 7;
      double rv = 0.5;
      int bv = 0, ev = 0, set = 0;
      char sv[8] = "";
      static const char *const choices[] = {"cg", "bicgstab", "gmres", NULL};
      const int r1 = GsOptionsGetInt(ctx, "-ksp_max_it", &iv, &set);
      const int r2 = GsOptionsGetReal(ctx, "-ksp_rtol", &rv, &set);
      const int r3 = GsOptionsGetBool(ctx, "-ksp_monitor", &bv, &set);
      const int r4 = GsOptionsGetEnum(ctx, "-ksp_type", choices, &ev, &set);
      const int r5 = GsOptionsGetString(ctx, "-pc_type", sv, sizeof sv, &set);
      const int rs[5] = {r1, r2, r3, r4, r5};
      for (int q = 0; q < 5; q++)
        CHECK(rs[q] == 0 || rs[q] == GS_ERR_OPTION, "options '%s': getter %d returned %d (%s): %s",
              str, q, rs[q], GsErrorName(rs[q]), GsGetErrorMessage(ctx));
      CHECK(r2 || rv == rv, "options '%s': -ksp_rtol read as NaN without an error", str);
      CHECK(r4 || (ev >= 0 && ev < 3), "options '%s': enum index %d", str, ev);
      CHECK(r5 || memchr(sv, 0, sizeof sv), "options '%s': string not terminated", str);
      GsKsp k = NULL;
      if (!CHECK_OK(GsKspCreate(ctx, &k))) {
        const int rk = GsKspSetFromOptions(k);
        CHECK(rk == 0 || rk == GS_ERR_OPTION || rk == GS_ERR_ARG_OUTOFRANGE,
              "options '%s': GsKspSetFromOptions returned %d (%s): %s", str, rk, GsErrorName(rk),
              GsGetErrorMessage(ctx));
        refused += rk != 0;
        GsKspDestroy(&k);
      }
      FILE *f = tmpfile();
      if (f) {
        CHECK_OK(GsOptionsView(ctx, f));
        CHECK_OK(GsOptionsLeft(ctx, f, NULL));
        fclose(f);
      }
    } else {
      refused++;
    }
    /* Unread options are named on stderr at GsDestroy: captured, and only that may be said. */
    hs_capture_stderr_begin();
    GsDestroy(&ctx);
    char *err = hs_capture_stderr_end();
    static const char warn[] = "WARNING! There are options you set that were not used";
    CHECK(!err || !err[0] || !strncmp(err, warn, sizeof warn - 1),
          "options '%s': GsDestroy wrote '%.200s' to stderr", str, err ? err : "");
    free(err);
  }
  printf("options: %d random strings, %d refused with a named error\n", cases, refused);
}

/* The errors a call may answer bad arguments, states or data with (all named). */
static int api_err_ok(int rc) {
  return rc == 0 || rc == GS_ERR_ARG_OUTOFRANGE || rc == GS_ERR_ARG_NULL || rc == GS_ERR_ARG_SIZE ||
         rc == GS_ERR_ARG_TYPE || rc == GS_ERR_ARG_INCOMP || rc == GS_ERR_UNSUPPORTED ||
         rc == GS_ERR_WRONG_STATE || rc == GS_ERR_ZERO_PIVOT || rc == GS_ERR_NOT_FINITE;
}

static GsInt pick(HsRng *rng, const GsInt *v, int n) {
  return v[hs_int(rng, 0, n - 1)];
}

/* A vector of n entries of type dt: diagonally dominant diagonal values (main: in [bands,
 * bands + 1), others in [-1, 1)) or random right-hand sides; poison > 0: entry poison - 1 is NaN.
 */
static GsVec fuzz_vec(GsContext ctx, HsRng *rng, GsInt n, GsDataType dt, double lo, double hi,
                      GsInt poison) {
  GsVec v = NULL;
  if (n < 1 || n > 1000000 || CHECK_OK(GsVecCreate(ctx, n, dt, &v))) return NULL;
  double *h = malloc((size_t)n * sizeof *h);
  if (!h) return v;
  if (lo == hi) /* a constant */
    for (GsInt i = 0; i < n; i++)
      h[i] = lo;
  else
    hs_fill_d(rng, n, h, lo, hi);
  if (poison > 0 && poison <= n) h[poison - 1] = NAN;
  if (dt == GS_FLOAT) {
    float *hf = malloc((size_t)n * sizeof *hf);
    if (hf) {
      for (GsInt i = 0; i < n; i++)
        hf[i] = (float)h[i];
      CHECK_OK(GsVecSetValuesHost(v, hf));
    }
    free(hf);
  } else {
    CHECK_OK(GsVecSetValuesHost(v, h));
  }
  free(h);
  return v;
}

static double vec_dist(GsVec a, GsVec b, double *nb) {
  GsVec d = NULL;
  double r = NAN;
  *nb = NAN;
  if (!GsVecDuplicate(a, &d) && !GsVecWAXPY(d, -1.0, b, a) && !GsVecNorm(d, GS_NORM_2, &r))
    GsVecNorm(b, GS_NORM_2, nb);
  GsVecDestroy(&d);
  return r;
}

/* The batched banded API under random descriptors (valid and not), algorithms, check modes,
 * vectors of the right and wrong lengths and types, calls in any order, aliasing and NaN entries:
 * every call returns 0 or a named error (never a crash), and whenever a solve succeeds its
 * solution satisfies A x = f (checked with GsBandedMult). */
static void fuzz_banded(GsContext ctx, int cases) {
  HsRng rng = hs_rng(4);
  static const GsInt ns[] = {-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 17, 33, 64, 100, 257, 1030};
  static const GsInt batches[] = {-3, 0, 1, 1, 2, 3, 5, 8, 31, 64};
  int created = 0, solved = 0, refused = 0;
  for (int c = 0; c < cases; c++) {
    GsBandedDesc d = {0};
    d.bands = hs_int(&rng, 0, 9) ? (hs_int(&rng, 0, 1) ? 5 : 3) : (int)hs_int(&rng, -1, 7);
    d.n = pick(&rng, ns, (int)(sizeof ns / sizeof *ns));
    d.batch = pick(&rng, batches, (int)(sizeof batches / sizeof *batches));
    d.dt = hs_int(&rng, 0, 19) ? (hs_int(&rng, 0, 2) ? GS_DOUBLE : GS_FLOAT) : (GsDataType)7;
    d.layout = (GsBandedLayout)(hs_int(&rng, 0, 19) ? hs_int(&rng, 0, 1) : 2);
    d.stride = hs_int(&rng, 0, 2) ? 0 : d.n + hs_int(&rng, -2, 5);
    d.shared = (int)hs_int(&rng, 0, 1);
    d.periodic = (int)hs_int(&rng, 0, 1);
    d.spd = hs_int(&rng, 0, 9) ? (int)hs_int(&rng, 0, 1) : 2;
    char what[200];
    snprintf(
        what, sizeof what,
        "case %d: bands %d n %lld batch %lld dt %d layout %d stride %lld shared %d periodic %d "
        "spd %d",
        c, d.bands, (long long)d.n, (long long)d.batch, (int)d.dt, (int)d.layout,
        (long long)d.stride, d.shared, d.periodic, d.spd);
    GsBanded A = NULL;
    int rc = GsBandedCreate(ctx, &d, &A);
    CHECK(api_err_ok(rc), "%s: create returned %d (%s): %s", what, rc, GsErrorName(rc),
          GsGetErrorMessage(ctx));
    if (rc) {
      refused++;
      CHECK(A == NULL, "%s: a failed create left an object", what);
      continue;
    }
    created++;
    GsInt dlen = 0, rlen = 0;
    CHECK_OK(GsBandedGetSizes(A, &dlen, &rlen));
    const int algo = (int)hs_int(&rng, 0, 5); /* 0-3 and 5: algorithms; 4: partitions */
    if (algo != 4) {
      rc =
          GsBandedSetAlgorithm(A, (GsBandedAlgorithm)(algo == 5 ? GS_BANDED_ALGORITHM_SCAN : algo));
    } else {
      rc = GsBandedSetPartitions(A, (int)hs_int(&rng, -1, 9));
    }
    CHECK(api_err_ok(rc), "%s: algorithm %d returned %d (%s)", what, algo, rc, GsErrorName(rc));
    if (hs_int(&rng, 0, 3) == 0) CHECK_OK(GsBandedSetCheck(A, GS_BANDED_CHECK_DEFERRED));
    /* Diagonals: usually right; sometimes one entry short, of the other type, or with a NaN. */
    const int bad_diag = hs_int(&rng, 0, 9) == 0 ? (int)hs_int(&rng, 1, 3) : 0;
    const GsDataType vdt = bad_diag == 2 ? (d.dt == GS_DOUBLE ? GS_FLOAT : GS_DOUBLE) : d.dt;
    GsVec diag[5] = {NULL};
    const int nb = d.bands == 5 ? 5 : 3;
    /* SPD batches read only the lower diagonals: the matrix they mean (and GsBandedMult uses)
     * is symmetric only if the upper ones mirror them; constant diagonals do, also when a NaN is
     * planted (it may fall in a gap between contiguous systems, and the solve then succeeds:
     * random diagonals there made the check compare against another matrix). */
    const double off[2] = {hs_range(&rng, -1, 1), hs_range(&rng, -1, 1)};
    for (int k = 0; k < nb; k++) {
      const int main = k == nb / 2, dist = main ? 0 : abs(k - nb / 2);
      double lo = main ? nb : -1, hi = main ? nb + 1 : 1;
      if (d.spd) lo = hi = main ? nb : off[dist - 1]; /* constants, NaN or not */
      diag[k] = fuzz_vec(ctx, &rng, dlen - (bad_diag == 1 && k == 0), vdt, lo, hi,
                         bad_diag == 3 && main ? hs_int(&rng, 1, dlen) : 0);
    }
    const GsInt blocks = hs_int(&rng, 0, 9) ? hs_int(&rng, 1, 3) : 0;
    const GsInt flen = blocks ? rlen * blocks : rlen + 1;
    GsVec f = fuzz_vec(ctx, &rng, flen, d.dt, -1, 1, 0), f0 = NULL, x = NULL, y = NULL;
    /* Contiguous systems with a stride beyond n leave gaps a solve does not touch: zero there. */
    GsBandedDesc got;
    CHECK_OK(GsBandedGetDesc(A, &got));
    if (f && d.layout == GS_BANDED_CONTIGUOUS && got.stride > d.n) {
      void *h = malloc((size_t)flen * 8);
      if (h && !CHECK_OK(GsVecGetValuesHost(f, h))) {
        for (GsInt i = 0; i < flen; i++)
          if ((i % rlen) % got.stride >= d.n) {
            if (d.dt == GS_DOUBLE)
              ((double *)h)[i] = 0;
            else
              ((float *)h)[i] = 0;
          }
        CHECK_OK(GsVecSetValuesHost(f, h));
      }
      free(h);
    }
    if (f && !CHECK_OK(GsVecDuplicate(f, &f0))) CHECK_OK(GsVecCopy(f, f0));
    const int inplace = (int)hs_int(&rng, 0, 1);
    if (f && !inplace) CHECK_OK(GsVecDuplicate(f, &x));
    if (inplace) x = f;
    /* Calls in some order: factor then solve, the fused call, or a solve with nothing factored. */
    const int order = (int)hs_int(&rng, 0, 3);
    int rs = 0, rf = 0;
    if (order == 0 || order == 1) {
      rf = GsBandedFactor(A, diag);
      CHECK(api_err_ok(rf), "%s: factor returned %d (%s): %s", what, rf, GsErrorName(rf),
            GsGetErrorMessage(ctx));
      rs = GsBandedSolve(A, f, x);
      if (order == 1 && !rs) rs = GsBandedSolve(A, f0, x); /* twice with the same factors */
    } else if (order == 2) {
      rs = GsBandedFactorSolve(A, diag, f, x);
    } else {
      rs = GsBandedSolve(A, f, x);
      CHECK(rs != 0, "%s: a solve before any factorisation succeeded", what);
    }
    if (!rs && !rf) rs = GsBandedCheckStatus(A); /* deferred mode: the errors come here */
    CHECK(api_err_ok(rs), "%s: solve (order %d) returned %d (%s): %s", what, order, rs,
          GsErrorName(rs), GsGetErrorMessage(ctx));
    if (rs == GS_ERR_ZERO_PIVOT || rs == GS_ERR_NOT_FINITE) {
      GsInt nbad = -1, first = -2;
      CHECK_OK(GsBandedGetStatus(A, &nbad, &first, NULL));
      CHECK(nbad >= 1 && first >= 0 && first < d.batch, "%s: %s but %lld bad systems, first %lld",
            what, GsErrorName(rs), (long long)nbad, (long long)first);
    }
    if (!rs && !rf && order != 3 && f0 && x) {
      solved++;
      /* A x must be f (the right-hand side before an in-place solve overwrote it). */
      if (!CHECK_OK(GsVecDuplicate(f0, &y)) && !CHECK_OK(GsVecSet(y, 0)) &&
          !CHECK_OK(GsBandedMult(A, diag, x, y))) {
        double nf;
        const double r = vec_dist(y, f0, &nf);
        const double tol = d.dt == GS_DOUBLE ? 1e-10 : 1e-3;
        GsBandedAlgorithm used = GS_BANDED_ALGORITHM_AUTO;
        int parts = 0;
        GsBandedGetAlgorithm(A, &used);
        GsBandedGetPartitions(A, &parts);
        CHECK(r <= tol * nf,
              "%s: order %d, in place %d, algorithm %s, partitions %d, right-hand sides %lld: "
              "|A x - f| = %g, |f| = %g",
              what, order, inplace, GsBandedAlgorithmName(used), parts, (long long)blocks, r, nf);
      }
      /* Half the factored cases: the combined call with x and y weighted 0 gives the solution
       * again (its own generator, so the main sequence, and the fixed seeds' cases, stay). */
      HsRng side = hs_rng(1000 + (uint64_t)c);
      GsVec z = NULL;
      if (order <= 1 && hs_int(&side, 0, 1) && !CHECK_OK(GsVecDuplicate(f0, &z))) {
        const int rz = GsBandedSolveAXPBYPCZ(A, f0, 0.0, 0.0, 1.0, f0, f0, z);
        if (!rz) {
          double nx;
          const double dz = vec_dist(z, x, &nx);
          CHECK(dz == 0, "%s: SolveAXPBYPCZ(0, 0, 1) differs from the solve by %g (|x| %g)", what,
                dz, nx);
        } else {
          CHECK(rz == GS_ERR_UNSUPPORTED && d.layout == GS_BANDED_CONTIGUOUS && got.stride > d.n,
                "%s: SolveAXPBYPCZ returned %d (%s): %s", what, rz, GsErrorName(rz),
                GsGetErrorMessage(ctx));
        }
        GsVecDestroy(&z);
      }
    }
    GsVecDestroy(&y);
    if (!inplace) GsVecDestroy(&x);
    GsVecDestroy(&f);
    GsVecDestroy(&f0);
    for (int k = 0; k < nb; k++)
      GsVecDestroy(&diag[k]);
    CHECK_OK(GsBandedDestroy(&A));
  }
  printf("banded: %d random descriptors, %d created (%d refused with a named error), %d solved "
         "and checked\n",
         cases, created, refused, solved);
  CHECK(solved > cases / 10, "only %d of %d cases solved", solved, cases);
}

/* Krylov solves under random small matrices (sometimes singular, indefinite, with zero or NaN
 * diagonal entries, or rectangular), random types, preconditioners, sides, tolerances (valid and
 * not), restarts, initial guesses and right-hand sides (zero, NaN): every call returns 0 or a named
 * error; a solve reports a known reason, at most max_it iterations and a history of its + 1 norms;
 * a solve that reports convergence has a true residual near its test. */
static void fuzz_ksp(GsContext ctx, int cases) {
  HsRng rng = hs_rng(5);
  int solved = 0, converged = 0, refused = 0;
  for (int c = 0; c < cases; c++) {
    const GsInt n = hs_int(&rng, 1, 40), m = hs_int(&rng, 0, 7) ? n : hs_int(&rng, 1, 40);
    const int kind =
        (int)hs_int(&rng, 0, 5); /* 0-2: dominant, 3: SPD Laplacian-like, 4: any, 5: bad diag */
    GsInt cap = m * 8 + n, nz = 0;
    GsInt *ri = malloc((size_t)cap * sizeof *ri), *ci = malloc((size_t)cap * sizeof *ci);
    double *v = malloc((size_t)cap * sizeof *v);
    if (!ri || !ci || !v) abort();
    for (GsInt i = 0; i < m; i++) {
      const int len = (int)hs_int(&rng, 0, 6);
      for (int k = 0; k < len && nz < cap - 1; k++) {
        ri[nz] = i;
        ci[nz] = hs_int(&rng, 0, n - 1);
        v[nz++] = hs_range(&rng, -1, 1);
      }
      if (i < n && kind != 4) { /* the diagonal */
        ri[nz] = i;
        ci[nz] = i;
        v[nz++] = kind == 5   ? (hs_int(&rng, 0, 3)   ? 8.0
                                 : hs_int(&rng, 0, 1) ? 0.0
                                                      : NAN)
                  : kind == 3 ? 8.0
                              : (hs_int(&rng, 0, 1) ? 8.0 : -8.0);
      }
    }
    if (kind == 3) /* symmetric: the off-diagonal part mirrored */
      for (GsInt k = 0, z0 = nz; k < z0 && nz < cap; k++)
        if (ri[k] != ci[k] && ci[k] < m && ri[k] < n) {
          v[k] *= 0.5;
          ri[nz] = ci[k];
          ci[nz] = ri[k];
          v[nz++] = v[k];
        }
    GsMat A = NULL;
    GsKsp k = NULL;
    GsVec b = NULL, x = NULL;
    int rc = GsMatCreateFromTriplets(ctx, m, n, nz, ri, ci, v, &A);
    free(ri);
    free(ci);
    free(v);
    if (rc) {
      CHECK(api_err_ok(rc), "ksp case %d: matrix %d (%s)", c, rc, GsErrorName(rc));
      continue;
    }
    if (CHECK_OK(GsKspCreate(ctx, &k))) goto next;
    const GsKspType type = (GsKspType)hs_int(&rng, 0, 2);
    const GsPcType pc = (GsPcType)hs_int(&rng, 0, 1);
    const double rtol =
        hs_int(&rng, 0, 9) ? pow(10, -hs_range(&rng, 1, 12)) : hs_range(&rng, -1, 2);
    const double atol = hs_int(&rng, 0, 3) ? 0 : pow(10, -hs_range(&rng, 0, 40));
    const GsInt max_it = hs_int(&rng, 0, 9) ? hs_int(&rng, 1, 300) : hs_int(&rng, -2, 0);
    /* GMRES's Gram-Schmidt refinement, out-of-range kinds too, from a generator of the case's own
     * (so the main sequence, and the fixed seeds' cases, stay). */
    HsRng side = hs_rng(2000 + (uint64_t)c);
    const int refine = (int)hs_int(&side, -1, 3), view = hs_int(&side, 0, 9) == 0;
    /* the reference of the relative test (an invalid one too) and a minimum iteration count */
    const int rn0 = (int)hs_int(&side, -1, 3);
    const GsInt min_it = hs_int(&side, 0, 3) ? 0 : hs_int(&side, -1, 40);
    char what[180];
    snprintf(
        what, sizeof what,
        "ksp case %d: %lld x %lld kind %d type %d pc %d rtol %g max_it %lld refine %d rnorm0 %d "
        "min_it %lld",
        c, (long long)m, (long long)n, kind, (int)type, (int)pc, rtol, (long long)max_it, refine,
        rn0, (long long)min_it);
    const int r0 = GsKspSetOperator(k, A);
    const int r1 = GsKspSetType(k, type), r2 = GsKspSetPcType(k, pc);
    const int r3 = GsKspSetTolerances(k, rtol, atol, 1e5, max_it);
    const int r4 = GsKspSetPcSide(k, (GsPcSide)hs_int(&rng, 0, 1));
    const int r5 = GsKspSetGmresRestart(k, (int)hs_int(&rng, -1, 40));
    const int guess = (int)hs_int(&rng, 0, 1);
    const int r6 = GsKspSetInitialGuessNonzero(k, guess);
    const int r7 = GsKspSetGmresCGSRefinement(k, (GsKspCGSRefinement)refine);
    CHECK(refine >= 0 && refine <= 2 ? r7 == 0 : r7 == GS_ERR_ARG_OUTOFRANGE,
          "%s: refinement %d returned %d (%s)", what, refine, r7, GsErrorName(r7));
    const int r8 = GsKspSetConvergedRnorm0(k, (GsKspRnorm0)rn0),
              r9 = GsKspSetMinIterations(k, min_it);
    CHECK((rn0 >= 0 && rn0 <= 2 ? r8 == 0 : r8 == GS_ERR_ARG_OUTOFRANGE) &&
              (min_it >= 0 ? r9 == 0 : r9 == GS_ERR_ARG_OUTOFRANGE),
          "%s: reference %d returned %d, min_it %d", what, rn0, r8, r9);
    const GsKspRnorm0 ref_kind = r8 ? GS_KSP_RNORM0_B : (GsKspRnorm0)rn0;
    const GsInt min_its = r9 ? 0 : min_it;
    const int rs[7] = {r0, r1, r2, r3, r4, r5, r6};
    for (int q = 0; q < 7; q++)
      CHECK(api_err_ok(rs[q]), "%s: setter %d returned %d (%s)", what, q, rs[q],
            GsErrorName(rs[q]));
    if (rs[0] || rs[3]) {
      refused++;
      goto next;
    }
    const int rhs = (int)hs_int(&rng, 0, 9);
    b = fuzz_vec(ctx, &rng, n, GS_DOUBLE, -1, 1, rhs == 0 ? hs_int(&rng, 1, n) : 0);
    x = fuzz_vec(ctx, &rng, n, GS_DOUBLE, -1, 1, 0);
    if (!b || !x) goto next;
    if (rhs == 1) CHECK_OK(GsVecSet(b, 0));
    double r0n = 0; /* ||b - A x0||: the scale of the rounding in a residual computed from x */
    {
      GsVec r = NULL;
      if (!CHECK_OK(GsVecDuplicate(b, &r)) && !CHECK_OK(GsMatMult(A, 1.0, x, 0.0, r)) &&
          !CHECK_OK(GsVecAXPY(r, -1.0, b)))
        CHECK_OK(GsVecNorm(r, GS_NORM_2, &r0n));
      GsVecDestroy(&r);
    }
    rc = GsKspSolve(k, b, x);
    CHECK(api_err_ok(rc), "%s: solve returned %d (%s): %s", what, rc, GsErrorName(rc),
          GsGetErrorMessage(ctx));
    if (rc) {
      refused++;
      goto next;
    }
    solved++;
    if (view) { /* the description of any solver state is printable */
      FILE *vf = tmpfile();
      if (vf) {
        CHECK_OK(GsKspView(k, vf));
        fclose(vf);
      }
    }
    GsInt its = -1, nh = -1;
    GsConvergedReason reason = GS_CONVERGED_ITERATING;
    const double *hist = NULL;
    double rnorm = NAN;
    CHECK_OK(GsKspGetIterationNumber(k, &its));
    CHECK_OK(GsKspGetConvergedReason(k, &reason));
    CHECK_OK(GsKspGetResidualNorm(k, &rnorm));
    CHECK_OK(GsKspGetResidualHistory(k, &hist, &nh));
    CHECK(strcmp(GsConvergedReasonName(reason), "UNKNOWN") && reason != GS_CONVERGED_ITERATING,
          "%s: reason %d", what, (int)reason);
    CHECK(its >= 0 && its <= max_it && nh == its + 1, "%s: %lld iterations, %lld norms", what,
          (long long)its, (long long)nh);
    /* before min_it only an exact solution stops a solve as converged: a zero residual norm
     * (GMRES: its estimate, then b - A x at the next cycle's start) */
    if (reason > 0 && its < min_its) {
      double tr = NAN;
      GsVec r = NULL;
      if (!CHECK_OK(GsVecDuplicate(b, &r)) && !CHECK_OK(GsMatMult(A, 1.0, x, 0.0, r)) &&
          !CHECK_OK(GsVecAXPY(r, -1.0, b)))
        CHECK_OK(GsVecNorm(r, GS_NORM_2, &tr));
      GsVecDestroy(&r);
      CHECK((nh > 0 && hist[nh - 1] == 0) || tr == 0,
            "%s: %s after %lld iterations, min_it %lld, last norm %g, ||b - A x|| %g", what,
            GsConvergedReasonName(reason), (long long)its, (long long)min_its,
            nh > 0 ? hist[nh - 1] : -1.0, tr);
    }
    if (reason > 0) {
      double xn = NAN;
      CHECK_OK(GsVecNorm(x, GS_NORM_2, &xn));
      CHECK(isfinite(xn), "%s: %s after %lld iterations with a non-finite x", what,
            GsConvergedReasonName(reason), (long long)its);
    }
    if (reason > 0 && rhs != 0 && kind != 5) {
      converged++;
      GsVec r = NULL;
      double rn = NAN, bn = NAN;
      if (!CHECK_OK(GsVecDuplicate(b, &r)) && !CHECK_OK(GsMatMult(A, 1.0, x, 0.0, r)) &&
          !CHECK_OK(GsVecAXPY(r, -1.0, b)) && !CHECK_OK(GsVecNorm(r, GS_NORM_2, &rn)) &&
          !CHECK_OK(GsVecNorm(b, GS_NORM_2, &bn))) {
        /* The recurrences' residual drifts from the true one by rounding of the iterates (and a
         * left preconditioner scales it): allow that much. */
        /* rtol multiplies ||b||, ||r0|| or their minimum (||r0|| = ||b|| from a zero guess) */
        const double rz = guess ? r0n : bn;
        const double ref = ref_kind == GS_KSP_RNORM0_R0    ? rz
                           : ref_kind == GS_KSP_RNORM0_MIN ? fmin(bn, rz)
                           : bn == 0                       ? rz
                                                           : bn;
        const double goal = fmax(fmax(rtol, 0) * ref, atol);
        CHECK(rn <= 1e3 * goal + 1e-10 * fmax(bn, isfinite(r0n) ? r0n : 0),
              "%s: %s after %lld, true residual %g, test %g", what, GsConvergedReasonName(reason),
              (long long)its, rn, goal);
      }
      GsVecDestroy(&r);
    }
  next:
    GsVecDestroy(&b);
    GsVecDestroy(&x);
    GsKspDestroy(&k);
    GsMatDestroy(&A);
  }
  printf("ksp: %d random solves, %d ran (%d reported convergence and were checked), %d refused "
         "with a named error\n",
         cases, solved, converged, refused);
  CHECK(converged > cases / 10, "only %d of %d solves converged", converged, cases);
}

/* Stencils under random shapes (grids down to 1 point, radii up to the limit and past it, any
 * number of inputs and terms, powers, declared sums, float and double): every call 0 or a named
 * error, and every applied stencil equal to a direct sum on the host (the centre weight of a term
 * with a declared sum being that sum less its other weights). */
static void fuzz_stencil(GsContext ctx, int cases) {
  HsRng rng = hs_rng(6);
  enum { W = 2 * GS_STENCIL_MAX_RADIUS + 1 };
  int applied = 0, refused = 0;
  for (int c = 0; c < cases; c++) {
    GsStencilDesc d = {0};
    d.nx = hs_int(&rng, 0, 9) ? hs_int(&rng, 1, 11) : hs_int(&rng, -1, 0);
    d.ny = hs_int(&rng, 0, 9) ? hs_int(&rng, 1, 9) : hs_int(&rng, -1, 0);
    d.batch = hs_int(&rng, 0, 3);
    d.inputs = (int)(hs_int(&rng, 0, 9) ? hs_int(&rng, 1, GS_STENCIL_MAX_INPUTS)
                                        : hs_int(&rng, -1, GS_STENCIL_MAX_INPUTS + 1));
    d.dt = hs_int(&rng, 0, 2) ? GS_DOUBLE : GS_FLOAT;
    char what[128];
    snprintf(what, sizeof what, "stencil case %d: %lld x %lld x %lld, %d inputs, dt %d", c,
             (long long)d.nx, (long long)d.ny, (long long)d.batch, d.inputs, (int)d.dt);
    GsStencil st = NULL;
    int rc = GsStencilCreate(ctx, &d, &st);
    CHECK(api_err_ok(rc), "%s: create %d (%s)", what, rc, GsErrorName(rc));
    if (rc) {
      refused++;
      continue;
    }
    /* The terms as the reference sees them: [input][power] weights on the full 5 x 5 window. */
    double ref_w[GS_STENCIL_MAX_INPUTS][4][W][W];
    int has[GS_STENCIL_MAX_INPUTS][4] = {{0}};
    double sum[GS_STENCIL_MAX_INPUTS][4];
    int has_sum[GS_STENCIL_MAX_INPUTS][4] = {{0}};
    memset(ref_w, 0, sizeof ref_w);
    const int nterms = (int)hs_int(&rng, 0, 6);
    for (int t = 0; t < nterms; t++) {
      const int in = (int)hs_int(&rng, -1, d.inputs), pw = (int)hs_int(&rng, 0, 4);
      const int rx = (int)hs_int(&rng, -1, GS_STENCIL_MAX_RADIUS + 1),
                ry = (int)hs_int(&rng, -1, GS_STENCIL_MAX_RADIUS + 1);
      double w[(2 * GS_STENCIL_MAX_RADIUS + 3) * (2 * GS_STENCIL_MAX_RADIUS + 3)];
      hs_fill_d(&rng, (int64_t)(sizeof w / sizeof *w), w, -1, 1);
      if (hs_int(&rng, 0, 30) == 0) w[0] = NAN;
      const double scale = hs_range(&rng, -2, 2);
      if (hs_int(&rng, 0, 5) == 0) { /* a declared sum */
        const double sm = hs_range(&rng, -1, 1);
        rc = GsStencilSetTermSum(st, in, pw, sm);
        CHECK(api_err_ok(rc), "%s: term sum %d (%s)", what, rc, GsErrorName(rc));
        if (!rc) { /* the term exists from here on, weights or not */
          sum[in][pw] = sm;
          has_sum[in][pw] = has[in][pw] = 1;
        }
      }
      rc = GsStencilAddTerm(st, in, pw, rx, ry, w, scale);
      CHECK(api_err_ok(rc), "%s: term (%d, %d, %d, %d) %d (%s): %s", what, in, pw, rx, ry, rc,
            GsErrorName(rc), GsGetErrorMessage(ctx));
      if (rc) continue;
      has[in][pw] = 1;
      for (int dy = -ry; dy <= ry; dy++)
        for (int dx = -rx; dx <= rx; dx++)
          ref_w[in][pw][dy + GS_STENCIL_MAX_RADIUS][dx + GS_STENCIL_MAX_RADIUS] +=
              scale * w[(dy + ry) * (2 * rx + 1) + dx + rx];
    }
    const GsInt N = d.nx * d.ny * (d.batch ? d.batch : 1);
    GsVec x[GS_STENCIL_MAX_INPUTS] = {NULL}, y = NULL;
    double *hx[GS_STENCIL_MAX_INPUTS] = {NULL}, *hy = malloc((size_t)N * sizeof *hy);
    int ok = hy != NULL;
    for (int i = 0; i < d.inputs && ok; i++) {
      x[i] = fuzz_vec(ctx, &rng, N, d.dt, -1.5, 1.5, 0);
      hx[i] = malloc((size_t)N * sizeof **hx);
      ok = x[i] && hx[i];
      if (ok && d.dt == GS_DOUBLE) CHECK_OK(GsVecGetValuesHost(x[i], hx[i]));
      if (ok && d.dt == GS_FLOAT) {
        float *f = malloc((size_t)N * sizeof *f);
        if (f && !CHECK_OK(GsVecGetValuesHost(x[i], f)))
          for (GsInt k = 0; k < N; k++)
            hx[i][k] = f[k];
        free(f);
      }
    }
    if (ok && !CHECK_OK(GsVecCreate(ctx, N, d.dt, &y))) {
      rc = GsStencilApply(st, (const GsVec *)x, y);
      CHECK(api_err_ok(rc), "%s: apply %d (%s)", what, rc, GsErrorName(rc));
      if (!rc) {
        applied++;
        double *gy = malloc((size_t)N * 8);
        if (gy && !CHECK_OK(GsVecGetValuesHost(y, gy))) {
          for (GsInt k = 0; k < N; k++)
            hy[k] = d.dt == GS_DOUBLE ? gy[k] : (double)((float *)gy)[k];
          double worst = 0;
          const GsInt plane = d.nx * d.ny;
          for (GsInt k = 0; k < N; k++) {
            const GsInt b = k / plane, j = (k % plane) / d.nx, i = k % d.nx;
            double acc = 0, mag = 0;
            for (int in = 0; in < d.inputs; in++)
              for (int pw = 1; pw <= 3; pw++) {
                if (!has[in][pw]) continue;
                double(*K)[W] = ref_w[in][pw];
                double centre = K[GS_STENCIL_MAX_RADIUS][GS_STENCIL_MAX_RADIUS];
                if (has_sum[in][pw]) {
                  double others = 0;
                  for (int a = 0; a < W; a++)
                    for (int e = 0; e < W; e++)
                      if (a != GS_STENCIL_MAX_RADIUS || e != GS_STENCIL_MAX_RADIUS)
                        others += K[a][e];
                  centre = sum[in][pw] - others;
                }
                for (int dy = -GS_STENCIL_MAX_RADIUS; dy <= GS_STENCIL_MAX_RADIUS; dy++)
                  for (int dx = -GS_STENCIL_MAX_RADIUS; dx <= GS_STENCIL_MAX_RADIUS; dx++) {
                    const double wk =
                        dx == 0 && dy == 0
                            ? centre
                            : K[dy + GS_STENCIL_MAX_RADIUS][dx + GS_STENCIL_MAX_RADIUS];
                    if (wk == 0) continue;
                    const GsInt ii = ((i + dx) % d.nx + d.nx) % d.nx,
                                jj = ((j + dy) % d.ny + d.ny) % d.ny;
                    const double v = pow(hx[in][b * plane + jj * d.nx + ii], pw);
                    acc += wk * v;
                    mag += fabs(wk * v) + fabs(wk * pow(hx[in][k], pw));
                  }
              }
            const double e = fabs(hy[k] - acc) / (mag + 1e-300);
            worst = e > worst || e != e ? e : worst;
          }
          const double tol = d.dt == GS_DOUBLE ? 1e-13 : 1e-5;
          CHECK(worst <= tol, "%s: %d terms, worst error %g of the terms' size", what, nterms,
                worst);
        }
        free(gy);
      }
    }
    for (int i = 0; i < GS_STENCIL_MAX_INPUTS; i++) {
      GsVecDestroy(&x[i]);
      free(hx[i]);
    }
    free(hy);
    GsVecDestroy(&y);
    GsStencilDestroy(&st);
  }
  printf("stencil: %d random stencils, %d applied and checked, %d refused with a named error\n",
         cases, applied, refused);
  CHECK(applied > cases / 4, "only %d of %d stencils applied", applied, cases);
}

/* Sparse matrices of odd shapes (0 to 40 rows and columns, empty rows, duplicates, one full row)
 * in every SpMV form with random form parameters (valid and not), random alpha and beta (beta 0
 * over a NaN y): products, MultDot, the transpose, the diagonal and a Matrix Market round trip
 * against host references; named errors for the rest. */
static void fuzz_mat(GsContext ctx, const char *dir, int cases) {
  HsRng rng = hs_rng(7);
  char path[1024];
  snprintf(path, sizeof path, "%s/fuzz-mat.mtx", dir);
  int checked = 0;
  for (int c = 0; c < cases; c++) {
    const GsInt m = hs_int(&rng, 0, 40), n = hs_int(&rng, 0, 2) ? m : hs_int(&rng, 0, 40);
    GsInt cap = m * 10 + n + 1, nz = 0;
    GsInt *ri = malloc((size_t)cap * sizeof *ri), *ci = malloc((size_t)cap * sizeof *ci);
    double *v = malloc((size_t)cap * sizeof *v);
    if (!ri || !ci || !v) abort();
    const GsInt full = m && n && hs_int(&rng, 0, 3) == 0 ? hs_int(&rng, 0, m - 1) : -1;
    for (GsInt i = 0; i < m && n; i++) {
      const GsInt len = i == full ? n : hs_int(&rng, 0, 3) ? hs_int(&rng, 0, 8) : 0;
      for (GsInt k = 0; k < len && nz < cap; k++) {
        ri[nz] = i;
        ci[nz] = i == full ? k : hs_int(&rng, 0, n - 1);
        v[nz++] = hs_range(&rng, -1, 1);
      }
    }
    /* Reference: dense, duplicates summed. */
    double *dense = calloc((size_t)(m * n + 1), sizeof *dense);
    for (GsInt k = 0; k < nz; k++)
      dense[ri[k] * n + ci[k]] += v[k];
    GsMat A = NULL, At = NULL, B = NULL;
    GsVec x = NULL, y = NULL, dg = NULL;
    char what[96];
    const int type = (int)hs_int(&rng, -1, 6);
    const GsInt C = hs_int(&rng, -2, 70), sigma = hs_int(&rng, -2, 100);
    snprintf(what, sizeof what,
             "mat case %d: %lld x %lld, %lld triplets, form %d C %lld sigma %lld", c, (long long)m,
             (long long)n, (long long)nz, type, (long long)C, (long long)sigma);
    int rc = GsMatCreateFromTriplets(ctx, m, n, nz, ri, ci, v, &A);
    free(ri);
    free(ci);
    free(v);
    if (!CHECK(rc == 0 || rc == GS_ERR_ARG_OUTOFRANGE, "%s: create %d (%s)", what, rc,
               GsErrorName(rc)) ||
        rc) {
      free(dense);
      continue;
    }
    rc = GsMatSetSpMVType(A, (GsMatSpMVType)type, C, sigma);
    CHECK(rc == 0 || rc == GS_ERR_ARG_OUTOFRANGE || rc == GS_ERR_UNSUPPORTED,
          "%s: form %d (%s): %s", what, rc, GsErrorName(rc), GsGetErrorMessage(ctx));
    double *hx = malloc((size_t)(n + 1) * sizeof *hx), *hy = malloc((size_t)(m + 1) * sizeof *hy),
           *got = malloc((size_t)(m + 1) * sizeof *got);
    hs_fill_d(&rng, n, hx, -1, 1);
    hs_fill_d(&rng, m, hy, -1, 1);
    const double alpha = hs_range(&rng, -2, 2),
                 beta = hs_int(&rng, 0, 1) ? 0 : hs_range(&rng, -2, 2);
    if (m && n && !CHECK_OK(GsVecCreate(ctx, n, GS_DOUBLE, &x)) &&
        !CHECK_OK(GsVecCreate(ctx, m, GS_DOUBLE, &y))) {
      CHECK_OK(GsVecSetValuesHost(x, hx));
      if (beta == 0) {
        CHECK_OK(GsVecSet(y, NAN));
      } else {
        CHECK_OK(GsVecSetValuesHost(y, hy));
      }
      if (!CHECK_OK(GsMatMult(A, alpha, x, beta, y)) && !CHECK_OK(GsVecGetValuesHost(y, got))) {
        double worst = 0;
        for (GsInt i = 0; i < m; i++) {
          long double s = 0, mag = 0;
          for (GsInt j = 0; j < n; j++) {
            s += (long double)dense[i * n + j] * hx[j];
            mag += fabsl((long double)dense[i * n + j] * hx[j]);
          }
          const long double want = alpha * s + (beta != 0 ? beta * (long double)hy[i] : 0);
          const double e =
              (double)(fabsl(got[i] - want) /
                       (fabs(alpha) * mag + (beta != 0 ? fabs(beta * hy[i]) : 0) + 1e-300));
          worst = e > worst || e != e ? e : worst;
        }
        CHECK(worst <= 1e-13, "%s: alpha %g beta %g: product off by %g", what, alpha, beta, worst);
        checked++;
      }
      if (m == n) { /* MultDot and the diagonal */
        double xy = NAN;
        if (!CHECK_OK(GsMatMultDot(A, x, y, &xy)) && !CHECK_OK(GsVecGetValuesHost(y, got))) {
          long double d = 0, mag = 0;
          for (GsInt i = 0; i < m; i++) {
            d += (long double)hx[i] * got[i];
            mag += fabsl((long double)hx[i] * got[i]);
          }
          CHECK(fabsl(xy - d) <= 1e-13L * (mag + 1e-300L), "%s: MultDot %g, want %g", what, xy,
                (double)d);
        }
        if (!CHECK_OK(GsVecCreate(ctx, m, GS_DOUBLE, &dg)) && !CHECK_OK(GsMatGetDiagonal(A, dg)) &&
            !CHECK_OK(GsVecGetValuesHost(dg, got))) {
          int same = 1;
          for (GsInt i = 0; i < m; i++)
            same &= got[i] == dense[i * n + i];
          CHECK(same, "%s: diagonal differs", what);
        }
      }
    }
    /* The transpose, and a round trip through a file. */
    if (!CHECK_OK(GsMatTranspose(A, &At))) {
      GsInt tm = -1, tn = -1;
      const GsInt *rp;
      const int *col;
      const double *val;
      CHECK_OK(GsMatGetSize(At, &tm, &tn, NULL));
      CHECK_OK(GsMatGetCSR(At, &rp, &col, &val));
      int same = tm == n && tn == m;
      for (GsInt i = 0; same && i < tm; i++)
        for (GsInt k = rp[i]; k < rp[i + 1]; k++)
          same &= val[k] == dense[col[k] * n + i];
      CHECK(same, "%s: transpose differs", what);
    }
    if (!CHECK_OK(GsMatSaveMatrixMarket(A, path)) &&
        !CHECK_OK(GsMatLoadMatrixMarket(ctx, path, &B))) {
      GsInt bm = -1, bn = -1;
      const GsInt *rp;
      const int *col;
      const double *val;
      CHECK_OK(GsMatGetSize(B, &bm, &bn, NULL));
      CHECK_OK(GsMatGetCSR(B, &rp, &col, &val));
      int same = bm == m && bn == n;
      for (GsInt i = 0; same && i < bm; i++)
        for (GsInt k = rp[i]; k < rp[i + 1]; k++)
          same &= val[k] == dense[i * n + col[k]];
      CHECK(same, "%s: Matrix Market round trip differs", what);
    }
    free(hx);
    free(hy);
    free(got);
    free(dense);
    GsVecDestroy(&x);
    GsVecDestroy(&y);
    GsVecDestroy(&dg);
    GsMatDestroy(&A);
    GsMatDestroy(&At);
    GsMatDestroy(&B);
  }
  remove(path);
  printf("mat: %d random matrices, %d products checked\n", cases, checked);
}

/* Cahn-Hilliard solvers under random descriptors (sizes down to the limit and past it, 1D
 * ensembles with per-member parameters, 2D, SBDF1/2, stabilization, float, bad values): a solver
 * is created or refused with a named error; a created one takes a few steps (or refuses them with
 * a named error, as an unstable dt may) and keeps every member's mass to rounding. */
static void fuzz_cahnhilliard(GsContext ctx, int cases) {
  HsRng rng = hs_rng(8);
  int stepped = 0, refused = 0;
  for (int c = 0; c < cases; c++) {
    GsCahnHilliardDesc d = {0};
    d.n = hs_int(&rng, 0, 9) ? hs_int(&rng, 5, 40) : hs_int(&rng, -1, 5);
    d.ny = hs_int(&rng, 0, 1) ? 0 : hs_int(&rng, 0, 9) ? hs_int(&rng, 5, 24) : hs_int(&rng, 1, 5);
    d.ensemble = hs_int(&rng, 0, 9) ? (d.ny > 1 && hs_int(&rng, 0, 9) ? 1 : hs_int(&rng, 1, 4))
                                    : hs_int(&rng, -1, 0);
    d.length = hs_int(&rng, 0, 19) ? hs_range(&rng, 0.5, 10) : (hs_int(&rng, 0, 1) ? -1 : NAN);
    d.D = hs_int(&rng, 0, 19) ? hs_range(&rng, 0.1, 2) : 0;
    d.gamma = hs_int(&rng, 0, 19) ? hs_range(&rng, 1e-3, 0.1) : -1;
    d.dt =
        hs_int(&rng, 0, 19) ? pow(10, -hs_range(&rng, 3, 6)) : (hs_int(&rng, 0, 1) ? 0 : INFINITY);
    d.order = (int)(hs_int(&rng, 0, 9) ? hs_int(&rng, 1, 2) : hs_int(&rng, 0, 3));
    d.stabilize = hs_int(&rng, 0, 3) ? 0 : hs_range(&rng, -0.5, 3);
    d.precision = hs_int(&rng, 0, 3) ? GS_DOUBLE : hs_int(&rng, 0, 9) ? GS_FLOAT : (GsDataType)5;
    double gm[4], dm[4];
    const int hetero = d.ny < 2 && d.ensemble > 1 && hs_int(&rng, 0, 1);
    for (int e = 0; e < 4; e++) {
      gm[e] = hs_range(&rng, 1e-3, 0.1);
      dm[e] = hs_range(&rng, 0.1, 2);
    }
    if (hetero) {
      d.gamma_member = gm;
      d.D_member = dm;
    }
    char what[200];
    snprintf(
        what, sizeof what,
        "ch case %d: n %lld ny %lld ensemble %lld L %g D %g gamma %g dt %g order %d S %g prec %d "
        "hetero %d",
        c, (long long)d.n, (long long)d.ny, (long long)d.ensemble, d.length, d.D, d.gamma, d.dt,
        d.order, d.stabilize, (int)d.precision, hetero);
    GsCahnHilliard h = NULL;
    int rc = GsCahnHilliardCreate(ctx, &d, &h);
    CHECK(rc == 0 || rc == GS_ERR_ARG_OUTOFRANGE || rc == GS_ERR_ARG_TYPE ||
              rc == GS_ERR_ARG_INCOMP,
          "%s: create %d (%s): %s", what, rc, GsErrorName(rc), GsGetErrorMessage(ctx));
    if (rc) {
      refused++;
      CHECK(h == NULL, "%s: a failed create left a solver", what);
      continue;
    }
    rc = GsCahnHilliardSetRandom(h, -1, hs_range(&rng, -0.5, 0.5), 0.05, (uint64_t)c);
    CHECK(rc == 0, "%s: SetRandom %d (%s)", what, rc, GsErrorName(rc));
    const GsInt members = d.ny > 1 ? 1 : d.ensemble;
    double m0[4] = {0};
    for (GsInt e = 0; e < members && e < 4; e++)
      CHECK_OK(GsCahnHilliardDiagnostics(h, e, &m0[e], NULL, NULL, NULL));
    rc = GsCahnHilliardStep(h, hs_int(&rng, 1, 5));
    CHECK(rc == 0 || rc == GS_ERR_NOT_FINITE, "%s: step %d (%s): %s", what, rc, GsErrorName(rc),
          GsGetErrorMessage(ctx));
    if (!rc) {
      stepped++;
      for (GsInt e = 0; e < members && e < 4; e++) {
        double m1 = NAN, lo = NAN, hi = NAN, size = -1;
        CHECK_OK(GsCahnHilliardDiagnostics(h, e, &m1, NULL, &lo, &hi));
        CHECK_OK(GsCahnHilliardDomainSize(h, e, &size));
        /* rounding in the mass grows with the field: an unstable dt may have amplified it */
        const double tol = d.precision == GS_FLOAT ? 1e-4 : 1e-11;
        const double big = fmax(1, fmax(fabs(lo), fabs(hi)));
        CHECK(fabs(m1 - m0[e]) <= tol * (fabs(m0[e]) + d.length * big),
              "%s: member %lld mass %.17g -> %.17g (field in [%g, %g])", what, (long long)e, m0[e],
              m1, lo, hi);
        CHECK(lo <= hi && size >= 0, "%s: member %lld min %g max %g size %g", what, (long long)e,
              lo, hi, size);
      }
    }
    CHECK_OK(GsCahnHilliardDestroy(&h));
  }
  printf("cahn-hilliard: %d random solvers, %d stepped, %d refused with a named error\n", cases,
         stepped, refused);
  CHECK(stepped > cases / 4, "only %d of %d solvers stepped", stepped, cases);
}

/* Vectors driven by random sequences of operations against a host model: arithmetic, copies
 * (also across precisions), reductions, host transfers and the three kinds of array access,
 * checked out and restored in any order (an operation on a checked-out vector must be
 * GS_ERR_WRONG_STATE and change nothing). On a GPU this walks the host and device copies'
 * validity through every path. */
typedef struct {
  GsVec v;
  GsInt n;
  GsDataType dt;
  double *ref;   /* the model */
  int out;       /* 0, or 1 / 2 / 3: checked out for read-write / read / write */
  void *arr;     /* the checked-out array */
  GsMemType mem; /* where */
} FzVec;

static double fz_round(GsDataType dt, double x) {
  return dt == GS_FLOAT ? (double)(float)x : x;
}

static void fuzz_vec_ops(GsContext ctx, int cases) {
  HsRng rng = hs_rng(9);
  GsMemType pref = GS_MEM_HOST;
  CHECK_OK(GsGetPreferredMemType(ctx, &pref));
  long ops = 0, refused = 0;
  for (int c = 0; c < cases; c++) {
    FzVec V[3];
    memset(V, 0, sizeof V);
    const GsInt n = hs_int(&rng, 0, 4) ? hs_int(&rng, 1, 300) : hs_int(&rng, 0, 1);
    int ok = 1;
    for (int k = 0; k < 3 && ok; k++) {
      V[k].n = n;
      V[k].dt = hs_int(&rng, 0, 3) ? GS_DOUBLE : GS_FLOAT;
      V[k].ref = calloc((size_t)(n + 1), sizeof(double));
      ok = V[k].ref && !CHECK_OK(GsVecCreate(ctx, n, V[k].dt, &V[k].v)) &&
           !CHECK_OK(GsVecSet(V[k].v, 0.0));
    }
    for (int step = 0; ok && step < 40; step++, ops++) {
      const int op = (int)hs_int(&rng, 0, 11);
      const int a = (int)hs_int(&rng, 0, 2), b = (int)hs_int(&rng, 0, 2),
                d = (int)hs_int(&rng, 0, 2);
      FzVec *A = &V[a], *B = &V[b], *D = &V[d];
      const double al = hs_range(&rng, -2, 2), be = hs_range(&rng, -2, 2);
      char what[96];
      snprintf(what, sizeof what, "vec case %d step %d: op %d on %d %d %d (n %lld)", c, step, op, a,
               b, d, (long long)n);
      const int busy = A->out || B->out || D->out;
      int rc = 0;
      double got = NAN, want = NAN;
      switch (op) {
      case 0: /* set */
        rc = GsVecSet(A->v, al);
        if (!rc)
          for (GsInt i = 0; i < n; i++)
            A->ref[i] = fz_round(A->dt, al);
        break;
      case 1: /* axpy; mixed types are an error */
        rc = GsVecAXPY(A->v, al, B->v);
        if (!rc)
          for (GsInt i = 0; i < n; i++)
            A->ref[i] = fz_round(A->dt, A->ref[i] + al * B->ref[i]);
        break;
      case 2: /* axpbypcz, z may be x or y */
        rc = GsVecAXPBYPCZ(D->v, al, be, 0.5, A->v, B->v);
        if (!rc)
          for (GsInt i = 0; i < n; i++)
            D->ref[i] = fz_round(D->dt, al * A->ref[i] + be * B->ref[i] + 0.5 * D->ref[i]);
        break;
      case 3: /* copy, also across precisions */
        rc = GsVecCopy(A->v, B->v);
        if (!rc)
          for (GsInt i = 0; i < n; i++)
            B->ref[i] = fz_round(B->dt, A->ref[i]);
        break;
      case 4: /* dot */
        rc = GsVecDot(A->v, B->v, &got);
        if (!rc) {
          /* Against the vectors' own values where they can be read: the models may have drifted
           * from float vectors by a unit per operation, which a cancelling axpy makes large
           * relative to what is left. */
          double *ha = malloc((size_t)(n + 1) * 8), *hb = malloc((size_t)(n + 1) * 8);
          const int read =
              ha && hb && !GsVecGetValuesHost(A->v, ha) && !GsVecGetValuesHost(B->v, hb);
          want = 0;
          double mag = 0;
          for (GsInt i = 0; i < n; i++) {
            double x = A->ref[i], y = B->ref[i];
            if (read) {
              x = A->dt == GS_DOUBLE ? ha[i] : (double)((float *)ha)[i];
              y = B->dt == GS_DOUBLE ? hb[i] : (double)((float *)hb)[i];
            }
            want += x * y;
            mag += fabs(x * y);
          }
          free(ha);
          free(hb);
          const int any_float = A->dt == GS_FLOAT || B->dt == GS_FLOAT;
          if (read || !any_float)
            CHECK(fabs(got - want) <= (any_float ? 1e-6 : 1e-12) * mag + 1e-300,
                  "%s: dot %.17g, %s %.17g", what, got, read ? "values" : "model", want);
        }
        break;
      case 5: /* host values in */
        if (A->out) {
          rc = GsVecSetValuesHost(A->v, A->ref); /* refused: nothing read */
          CHECK(rc == GS_ERR_WRONG_STATE, "%s: values set into a checked-out vector: %d", what, rc);
        } else {
          void *h = malloc((size_t)(n + 1) * 8);
          for (GsInt i = 0; i < n; i++) {
            const double x = hs_range(&rng, -1, 1);
            A->ref[i] = fz_round(A->dt, x);
            if (A->dt == GS_DOUBLE)
              ((double *)h)[i] = x;
            else
              ((float *)h)[i] = (float)x;
          }
          rc = GsVecSetValuesHost(A->v, h);
          free(h);
        }
        break;
      case 6: /* check out */
      case 7:
      case 8:
        if (!A->out) {
          const GsMemType mem = hs_int(&rng, 0, 1) ? pref : GS_MEM_HOST;
          if (op == 6) rc = GsVecGetArray(A->v, mem, &A->arr);
          if (op == 7) rc = GsVecGetArrayRead(A->v, mem, (const void **)&A->arr);
          if (op == 8) rc = GsVecGetArrayWrite(A->v, mem, &A->arr);
          if (!rc) {
            A->out = op - 5;
            A->mem = mem;
          }
        } else { /* twice: refused */
          void *p2 = NULL;
          rc = GsVecGetArray(A->v, GS_MEM_HOST, &p2);
          CHECK(rc == GS_ERR_WRONG_STATE, "%s: a second check-out returned %d", what, rc);
          rc = 0;
        }
        break;
      case 9: /* restore (writing new values through a host array first) */
        if (A->out) {
          if (A->mem == GS_MEM_HOST && A->out != 2)
            for (GsInt i = 0; i < n; i++) {
              const double x = (double)(i % 7) - 3;
              A->ref[i] = x;
              if (A->dt == GS_DOUBLE)
                ((double *)A->arr)[i] = x;
              else
                ((float *)A->arr)[i] = (float)x;
            }
          if (A->mem != GS_MEM_HOST && A->out == 3) { /* device write-only: fill via a copy */
            rc = GsVecRestoreArrayWrite(A->v, &A->arr);
            A->out = 0;
            if (!rc) rc = GsVecSet(A->v, 1.0);
            if (!rc)
              for (GsInt i = 0; i < n; i++)
                A->ref[i] = 1.0;
            break;
          }
          if (A->out == 1) rc = GsVecRestoreArray(A->v, &A->arr);
          if (A->out == 2) rc = GsVecRestoreArrayRead(A->v, (const void **)&A->arr);
          if (A->out == 3) rc = GsVecRestoreArrayWrite(A->v, &A->arr);
          CHECK(rc == 0 && A->arr == NULL, "%s: restore %d", what, rc);
          A->out = 0;
        } else {
          void *p2 = NULL;
          rc = GsVecRestoreArray(A->v, &p2);
          CHECK(rc != 0, "%s: a restore without a check-out succeeded", what);
          rc = 0;
        }
        break;
      case 10: /* norms */
        rc = GsVecNorm(A->v, (GsNormType)hs_int(&rng, 0, 2), &got);
        break;
      default: /* pointwise multiply */
        rc = GsVecPointwiseMult(D->v, A->v, B->v);
        if (!rc)
          for (GsInt i = 0; i < n; i++)
            D->ref[i] = fz_round(D->dt, A->ref[i] * B->ref[i]);
        break;
      }
      const int mixed = A->dt != B->dt || A->dt != D->dt;
      CHECK(rc == 0 || rc == GS_ERR_WRONG_STATE || rc == GS_ERR_ARG_TYPE || rc == GS_ERR_ARG_INCOMP,
            "%s: %d (%s): %s", what, rc, GsErrorName(rc), GsGetErrorMessage(ctx));
      if (rc == GS_ERR_WRONG_STATE) {
        refused++;
        CHECK(busy || op == 5, "%s: WRONG_STATE with nothing checked out", what);
      }
      if (rc == GS_ERR_ARG_TYPE || rc == GS_ERR_ARG_INCOMP) refused++;
      if (rc == GS_ERR_ARG_TYPE) CHECK(mixed, "%s: type error on vectors of one type", what);
      /* Whenever nothing is checked out, every vector equals its model. */
      if (!V[0].out && !V[1].out && !V[2].out)
        for (int k = 0; k < 3; k++) {
          double *h = malloc((size_t)(n + 1) * 8);
          if (!h || CHECK_OK(GsVecGetValuesHost(V[k].v, h))) {
            free(h);
            ok = 0;
            break;
          }
          double worst = 0;
          for (GsInt i = 0; i < n; i++) {
            const double x = V[k].dt == GS_DOUBLE ? h[i] : (double)((float *)h)[i];
            const double e = fabs(x - V[k].ref[i]) / (1 + fabs(V[k].ref[i]));
            worst = e > worst || e != e ? e : worst;
          }
          free(h);
          /* A float vector's model is rounded once per operation, the vector in every float
           * operation: a unit apart, which a copy into a double vector carries along. */
          const int any_float = V[0].dt == GS_FLOAT || V[1].dt == GS_FLOAT || V[2].dt == GS_FLOAT;
          if (!CHECK(worst <= (any_float ? 1e-5 : 1e-12),
                     "%s: vector %d differs from its model by %g", what, k, worst)) {
            ok = 0;
            break;
          }
        }
    }
    for (int k = 0; k < 3; k++) {
      if (V[k].out == 1) GsVecRestoreArray(V[k].v, &V[k].arr);
      if (V[k].out == 2) GsVecRestoreArrayRead(V[k].v, (const void **)&V[k].arr);
      if (V[k].out == 3) GsVecRestoreArrayWrite(V[k].v, &V[k].arr);
      GsVecDestroy(&V[k].v);
      free(V[k].ref);
    }
  }
  printf("vectors: %d random sequences, %ld operations, %ld refused with a named error\n", cases,
         ops, refused);
}

/* Hyperdiffusion solvers under random descriptors (1D ensembles, 2D, float, bad values): created
 * or refused with a named error; a created one, started from a cosine mode, follows the scheme's
 * own factor for that mode (GsHyperdiffusionModeFactor) over a few steps, so the time-stepping
 * error against the semi-discrete solution stays small. */
static void fuzz_hyperdiffusion(GsContext ctx, int cases) {
  HsRng rng = hs_rng(10);
  int stepped = 0, refused = 0;
  for (int c = 0; c < cases; c++) {
    GsHyperdiffusionDesc d = {0};
    d.n = hs_int(&rng, 0, 9) ? hs_int(&rng, 5, 48) : hs_int(&rng, -1, 5);
    d.ny = hs_int(&rng, 0, 2) ? 0 : hs_int(&rng, 0, 9) ? hs_int(&rng, 5, 24) : hs_int(&rng, 1, 5);
    d.ensemble = d.ny > 1 ? 1 : hs_int(&rng, 0, 9) ? hs_int(&rng, 1, 5) : hs_int(&rng, -1, 0);
    d.length = hs_int(&rng, 0, 19) ? hs_range(&rng, 0.5, 10) : -1;
    d.coeff = hs_int(&rng, 0, 19) ? hs_range(&rng, 0.1, 2) : 0;
    d.dt = hs_int(&rng, 0, 19) ? pow(10, -hs_range(&rng, 2, 7)) : (hs_int(&rng, 0, 1) ? 0 : NAN);
    d.precision = hs_int(&rng, 0, 3) ? GS_DOUBLE : hs_int(&rng, 0, 9) ? GS_FLOAT : (GsDataType)4;
    char what[160];
    snprintf(what, sizeof what,
             "hyper case %d: n %lld ny %lld ensemble %lld L %g g %g dt %g prec %d", c,
             (long long)d.n, (long long)d.ny, (long long)d.ensemble, d.length, d.coeff, d.dt,
             (int)d.precision);
    GsHyperdiffusion h = NULL;
    int rc = GsHyperdiffusionCreate(ctx, &d, &h);
    CHECK(rc == 0 || rc == GS_ERR_ARG_OUTOFRANGE || rc == GS_ERR_ARG_TYPE ||
              rc == GS_ERR_ARG_INCOMP,
          "%s: create %d (%s): %s", what, rc, GsErrorName(rc), GsGetErrorMessage(ctx));
    if (rc) {
      refused++;
      CHECK(h == NULL, "%s: a failed create left a solver", what);
      continue;
    }
    const double k = (double)hs_int(&rng, 1, 2);
    const GsInt steps = hs_int(&rng, 1, 6);
    rc = d.ny > 1 ? GsHyperdiffusionSetCosine2D(h, 1.0, k, k)
                  : GsHyperdiffusionSetCosine(h, -1, 1.0, k, 0.3);
    if (!CHECK_OK(rc) && !CHECK_OK(GsHyperdiffusionStep(h, steps))) {
      stepped++;
      double et = NAN;
      if (d.ny > 1)
        CHECK_OK(GsHyperdiffusionCosineError2D(h, 1.0, k, k, NULL, &et));
      else
        CHECK_OK(GsHyperdiffusionCosineError(h, d.ensemble - 1, 1.0, k, 0.3, NULL, &et));
      /* Against the semi-discrete solution the error is Crank-Nicolson's in time alone: bounded
       * by the mode's amplitude (1) times sqrt(L^d) for any stable step; far smaller normally. */
      const double scale = d.ny > 1 ? d.length : sqrt(d.length);
      CHECK(isfinite(et) && et <= 2.0 * scale, "%s: time error %g after %lld steps", what, et,
            (long long)steps);
      if (d.ny <= 1 && d.precision == GS_DOUBLE) {
        /* The cosine is an eigenvector of the periodic scheme: after the steps every member is
         * the scheme's factor to that power times it, to rounding. */
        double fac = NAN;
        CHECK_OK(GsHyperdiffusionModeFactor(h, k, &fac, NULL));
        const GsInt N = d.n * d.ensemble;
        GsVec cv = NULL;
        double *hc = malloc((size_t)N * sizeof *hc);
        if (hc && !CHECK_OK(GsVecCreate(ctx, N, GS_DOUBLE, &cv)) &&
            !CHECK_OK(GsHyperdiffusionGetState(h, cv)) && !CHECK_OK(GsVecGetValuesHost(cv, hc))) {
          const double amp = pow(fac, (double)steps);
          double worst = 0;
          for (GsInt q = 0; q < N; q++) {
            const GsInt i = q % d.n;
            const double want = amp * cos(2 * GS_APP_PI * k * (double)i / (double)d.n + 0.3);
            worst = fmax(worst, fabs(hc[q] - want));
          }
          /* Each step rounds the bands' solve by about (1 + 12 sigma) eps. */
          const double dx = d.length / (double)d.n, sigma = d.coeff * d.dt / (2 * pow(dx, 4));
          const double tol = 64 * DBL_EPSILON * (1 + 12 * sigma) * (double)steps;
          CHECK(worst <= tol,
                "%s: %lld steps of the mode differ from factor^steps by %g (sigma %g)", what,
                (long long)steps, worst, sigma);
        }
        free(hc);
        GsVecDestroy(&cv);
      }
      double t = -1;
      GsInt st = -1;
      CHECK_OK(GsHyperdiffusionGetTime(h, &t, &st));
      CHECK(st == steps && fabs(t - (double)steps * d.dt) <= 1e-12 * t, "%s: time %g after %lld",
            what, t, (long long)st);
    }
    CHECK_OK(GsHyperdiffusionDestroy(&h));
  }
  printf("hyperdiffusion: %d random solvers, %d stepped, %d refused with a named error\n", cases,
         stepped, refused);
  CHECK(stepped > cases / 4, "only %d of %d solvers stepped", stepped, cases);
}

/* GsScalars under random sequences of sets, gets, asynchronous reads (begun and ended in any
 * order, overlapping ones refused) and ratio-driven vector updates whose denominators may be
 * zero, negative or NaN (the update must then do nothing), against a host model. */
static void fuzz_scalars(GsContext ctx, int cases) {
  HsRng rng = hs_rng(11);
  long ops = 0, refused = 0;
  enum { NS = 6 };
  const GsInt n = 97;
  for (int c = 0; c < cases; c++) {
    GsScalars sc = NULL;
    GsVec r = NULL, q = NULL;
    double model[NS] = {0}, hr[97], hq[97];
    int reading = 0, rfirst = 0, rcount = 0;
    double rsnap[NS];
    if (CHECK_OK(GsScalarsCreate(ctx, NS, &sc)) || CHECK_OK(GsVecCreate(ctx, n, GS_DOUBLE, &r)) ||
        CHECK_OK(GsVecCreate(ctx, n, GS_DOUBLE, &q)))
      goto next;
    hs_fill_d(&rng, n, hr, -1, 1);
    hs_fill_d(&rng, n, hq, -1, 1);
    CHECK_OK(GsVecSetValuesHost(r, hr));
    CHECK_OK(GsVecSetValuesHost(q, hq));
    for (int step = 0; step < 30; step++, ops++) {
      const int op = (int)hs_int(&rng, 0, 4);
      const int bad = hs_int(&rng, 0, 9) == 0;
      const int first = bad ? (int)hs_int(&rng, -1, NS) : (int)hs_int(&rng, 0, NS - 1);
      const int count = bad ? (int)hs_int(&rng, -1, NS) : (int)hs_int(&rng, 1, NS - first);
      const int valid = first >= 0 && count >= 1 && first + count <= NS;
      char what[96];
      snprintf(what, sizeof what, "scalars case %d step %d: op %d first %d count %d", c, step, op,
               first, count);
      double v[NS + 2];
      int rc = 0;
      if (op == 0) { /* set, sometimes zero, negative or NaN */
        for (int k = 0; k < NS + 2; k++)
          v[k] = hs_int(&rng, 0, 4) ? hs_range(&rng, -2, 2) : hs_int(&rng, 0, 1) ? 0.0 : NAN;
        rc = GsScalarsSet(sc, first, count, v);
        if (!rc)
          for (int k = 0; k < count; k++)
            model[first + k] = v[k];
      } else if (op == 1) { /* get */
        rc = GsScalarsGet(sc, first, count, v);
        if (!rc)
          for (int k = 0; k < count; k++)
            CHECK(v[k] == model[first + k] ||
                      (v[k] != v[k] && model[first + k] != model[first + k]),
                  "%s: got %g, model %g", what, v[k], model[first + k]);
      } else if (op == 2) { /* begin a read */
        rc = GsScalarsReadBegin(sc, first, count);
        CHECK(rc != 0 || !reading, "%s: a second read began", what);
        if (!rc) {
          reading = 1;
          rfirst = first;
          rcount = count;
          memcpy(rsnap, model, sizeof rsnap);
        }
      } else if (op == 3) { /* end it */
        rc = GsScalarsReadEnd(sc, v);
        CHECK((rc == 0) == reading, "%s: ReadEnd returned %d with%s a read begun", what, rc,
              reading ? "" : "out");
        if (!rc)
          for (int k = 0; k < rcount; k++)
            CHECK(v[k] == rsnap[rfirst + k] ||
                      (v[k] != v[k] && rsnap[rfirst + k] != rsnap[rfirst + k]),
                  "%s: read %g, model at the Begin %g", what, v[k], rsnap[rfirst + k]);
        reading = 0;
      } else { /* r -= (s[a] / s[b]) q, and s[res] = r . r; nothing when s[b] is not positive */
        const int a = bad ? (int)hs_int(&rng, -1, NS) : (int)hs_int(&rng, 0, NS - 1),
                  b = bad ? (int)hs_int(&rng, -1, NS) : (int)hs_int(&rng, 0, NS - 1),
                  res = (int)hs_int(&rng, 0, NS - 2);
        const GsScalarRatio al = {sc, a, b};
        rc = GsVecAXPYPairScalars(NULL, r, al, NULL, q, NULL, sc, res);
        if (!rc && model[b] > 0) {
          const double alpha = model[a] / model[b];
          double rr = 0;
          for (GsInt i = 0; i < n; i++) {
            hr[i] -= alpha * hq[i];
            rr += hr[i] * hr[i];
          }
          model[res] = rr;
        }
        if (!rc) { /* r as the model says, and s[res] close to r . r */
          double got[97], sr = NAN;
          CHECK_OK(GsVecGetValuesHost(r, got));
          double worst = 0;
          for (GsInt i = 0; i < n; i++)
            worst = fmax(worst, fabs(got[i] - hr[i]) / (1 + fabs(hr[i])));
          CHECK(worst <= 1e-12, "%s: ratio (%d, %d): r off the model by %g", what, a, b, worst);
          memcpy(hr, got, sizeof hr);
          CHECK_OK(GsScalarsGet(sc, res, 1, &sr));
          CHECK(sr == model[res] || fabs(sr - model[res]) <= 1e-12 * fabs(model[res]) ||
                    (sr != sr && model[res] != model[res]),
                "%s: s[%d] = %g, model %g", what, res, sr, model[res]);
          model[res] = sr;
        }
      }
      if (op != 3 && op != 4 && op != 2)
        CHECK(rc == 0 || (!valid && (rc == GS_ERR_ARG_OUTOFRANGE || rc == GS_ERR_ARG_SIZE)),
              "%s: %d (%s): %s", what, rc, GsErrorName(rc), GsGetErrorMessage(ctx));
      if (op == 2)
        CHECK(rc == 0 || rc == GS_ERR_WRONG_STATE || (!valid && rc == GS_ERR_ARG_OUTOFRANGE),
              "%s: begin %d (%s)", what, rc, GsErrorName(rc));
      if (op == 4) CHECK(api_err_ok(rc), "%s: ratio update %d (%s)", what, rc, GsErrorName(rc));
      refused += rc != 0;
    }
    if (reading) {
      double v[NS];
      CHECK_OK(GsScalarsReadEnd(sc, v));
    }
  next:
    GsScalarsDestroy(&sc);
    GsVecDestroy(&r);
    GsVecDestroy(&q);
  }
  printf("scalars: %d random sequences, %ld operations, %ld refused with a named error\n", cases,
         ops, refused);
}

int main(int argc, char **argv) {
  if (argc > 1 && argv[1][0] == '/') resource = argv[1];
  hs_begin("test_fuzz", resource, argc, argv);
  int cases = 10000;
  for (int i = 1; i + 1 < argc; i++)
    if (!strcmp(argv[i], "-cases")) cases = atoi(argv[i + 1]);
  GsContext ctx = NULL;
  const int rc = hs_init_backend(resource, &ctx);
  if (rc == 77) return 77;
  if (rc) return hs_finish();
  hs_unwatch(ctx); /* errors are the expected outcome here */
  char dir[] = "/tmp/gs-fuzz-XXXXXX";
  if (!CHECK(mkdtemp(dir) != NULL, "mkdtemp failed")) return hs_finish();
  const char *seeds = NULL; /* "-seeds a,b,c": each in turn; else the harness's one seed */
  for (int i = 1; i + 1 < argc; i++)
    if (!strcmp(argv[i], "-seeds")) seeds = argv[i + 1];
  do {
    if (seeds) {
      char *end = NULL;
      hs.seed = strtoull(seeds, &end, 0);
      if (!CHECK(end != seeds && (*end == ',' || !*end), "bad -seeds list at '%s'", seeds)) break;
      seeds = *end ? end + 1 : NULL;
      printf("-- seed %" PRIu64 " (alone: test_fuzz %s -seed %" PRIu64 ")\n", hs.seed, resource,
             hs.seed);
    }
    fuzz_matrix_market(ctx, dir, cases);
    fuzz_checkpoint(ctx, dir, cases / 3);
    fuzz_options(cases / 3);
    fuzz_banded(ctx, cases / 5);
    fuzz_ksp(ctx, cases / 5);
    fuzz_stencil(ctx, cases / 5);
    fuzz_mat(ctx, dir, cases / 10);
    fuzz_cahnhilliard(ctx, cases / 20);
    fuzz_vec_ops(ctx, cases / 20);
    fuzz_hyperdiffusion(ctx, cases / 20);
    fuzz_scalars(ctx, cases / 20);
  } while (seeds);
  rmdir(dir);
  GsDestroy(&ctx);
  return hs_finish();
}
