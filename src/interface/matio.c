/* Matrix Market input and output for sparse matrices and vectors. Every problem in a file is
 * reported with the file name, the line number and what is wrong. */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../gsimpl.h"
#include "matimpl.h"

#define GS_MM_LINE 1024

typedef enum { MM_COORD, MM_ARRAY } MmFormat;
typedef enum { MM_REAL, MM_INTEGER, MM_PATTERN } MmField;
typedef enum { MM_GENERAL, MM_SYMMETRIC, MM_SKEW } MmSymmetry;

/* Bytes read from the file at a time: the lines are cut from this block (fgets and strlen per
 * line were a fifth of a load's time). */
#define GS_MM_BLOCK (1 << 20)

/* A file being read: the stream, its name, the current line (NUL-terminated, with its newline)
 * and its number, and the block of the file the lines are cut from (block[pos, len)). */
typedef struct {
  GsContext ctx;
  FILE *f;
  const char *path;
  long line;
  char buf[GS_MM_LINE];
  char *block;
  size_t pos, len;
} MmReader;

/* The triplets read so far (0-based). */
typedef struct {
  GsInt m, n, count, cap;
  GsInt *row, *col;
  double *val;
} MmTriplets;

static void triplets_free(MmTriplets *t) {
  free(t->row);
  free(t->col);
  free(t->val);
  memset(t, 0, sizeof *t);
}

static int triplets_push(GsContext ctx, MmTriplets *t, GsInt i, GsInt j, double v) {
  if (t->count == t->cap) {
    GsInt cap = t->cap ? 2 * t->cap : 1024;
    GsInt *r = realloc(t->row, (size_t)cap * sizeof *r);
    if (r) t->row = r;
    GsInt *c = r ? realloc(t->col, (size_t)cap * sizeof *c) : NULL;
    if (c) t->col = c;
    double *w = c ? realloc(t->val, (size_t)cap * sizeof *w) : NULL;
    if (w) t->val = w;
    GsCheck(w != NULL, ctx, GS_ERR_MEMORY, "cannot grow the entries read to %lld", (long long)cap);
    t->cap = cap;
  }
  t->row[t->count] = i;
  t->col[t->count] = j;
  t->val[t->count] = v;
  t->count++;
  return 0;
}

/* Next line into r->buf; *eof set at the end of the file. Lines longer than the buffer are an
 * error (Matrix Market lines are short). */
static int next_line(MmReader *r, int *eof) {
  *eof = 0;
  const char *nl = memchr(r->block + r->pos, '\n', r->len - r->pos);
  if (!nl && !feof(r->f)) { /* the rest of the block, then more of the file after it */
    memmove(r->block, r->block + r->pos, r->len - r->pos);
    r->len -= r->pos;
    r->pos = 0;
    r->len += fread(r->block + r->len, 1, GS_MM_BLOCK - r->len, r->f);
    GsCheck(!ferror(r->f), r->ctx, GS_ERR_FILE_READ, "%s:%ld: read error: %s", r->path, r->line + 1,
            strerror(errno));
    nl = memchr(r->block, '\n', r->len);
  }
  if (r->pos == r->len) {
    *eof = 1;
    return 0;
  }
  r->line++;
  const size_t len = nl ? (size_t)(nl - (r->block + r->pos)) + 1 : r->len - r->pos;
  GsCheck(len - (nl != NULL) <= GS_MM_LINE - 2, r->ctx, GS_ERR_FILE_FORMAT,
          "%s:%ld: line longer than %d characters", r->path, r->line, GS_MM_LINE - 2);
  memcpy(r->buf, r->block + r->pos, len);
  r->buf[len] = '\0';
  r->pos += len;
  return 0;
}

static int blank_or_comment(const char *s) {
  while (isspace((unsigned char)*s))
    s++;
  return *s == '\0' || *s == '%';
}

/* Next line that is neither blank nor a comment; *eof at the end. */
static int next_data_line(MmReader *r, int *eof) {
  do {
    GsCall(next_line(r, eof));
  } while (!*eof && blank_or_comment(r->buf));
  return 0;
}

/* Parse an integer token at *s (advancing it) as strtoll would in base 10 (leading white space,
 * a sign, digits; out of range is no number), ending at white space or the end; 0 if there is
 * none. strtoll was the largest part of a load's time. */
static int parse_int(const char **s, long long *v) {
  const char *p = *s;
  while (isspace((unsigned char)*p))
    p++;
  const int neg = *p == '-';
  if (*p == '-' || *p == '+') p++;
  const unsigned long long most = neg ? 9223372036854775808ULL : 9223372036854775807ULL;
  unsigned long long x = 0;
  const char *d = p;
  for (; *p >= '0' && *p <= '9'; p++) {
    const unsigned digit = (unsigned)(*p - '0');
    if (x > (most - digit) / 10) return 0;
    x = 10 * x + digit;
  }
  if (p == d) return 0;
  if (*p && !isspace((unsigned char)*p)) return 0;
  *v = neg ? (x == most ? LLONG_MIN : -(long long)x) : (long long)x;
  *s = p;
  return 1;
}

/* Parse a real token at *s (advancing it) as strtod does, ending at white space or the end; 0 if
 * there is none. A decimal of at most 2^53 in its digits and a power of ten within 10^+-22 is
 * their product or quotient, both exact doubles, so one IEEE operation rounds it correctly (the
 * fast path of Clinger's algorithm); everything else (more digits, larger exponents, inf, nan,
 * hexadecimal) goes to strtod. */
static int parse_real(const char **s, double *v) {
  static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  const char *p = *s;
  while (isspace((unsigned char)*p))
    p++;
  const int neg = *p == '-';
  if (*p == '-' || *p == '+') p++;
  unsigned long long w = 0;
  int fast = FLT_EVAL_METHOD == 0, digits = 0;
  long e10 = 0;
  const unsigned long long most = (1ULL << 53) - 1;
  for (; *p >= '0' && *p <= '9'; p++, digits++) {
    if (w > (most - 9) / 10) fast = 0;
    w = 10 * w + (unsigned)(*p - '0');
  }
  if (*p == '.')
    for (p++; *p >= '0' && *p <= '9'; p++, digits++, e10--) {
      if (w > (most - 9) / 10) fast = 0;
      w = 10 * w + (unsigned)(*p - '0');
    }
  if (digits && (*p == 'e' || *p == 'E')) {
    const char *q = p + 1;
    const int eneg = *q == '-';
    if (*q == '-' || *q == '+') q++;
    long e = 0;
    const char *d = q;
    for (; *q >= '0' && *q <= '9'; q++)
      if (e < 100000) e = 10 * e + (*q - '0');
    if (q == d) fast = 0; /* "1e" or "1e+": strtod decides */
    e10 += eneg ? -e : e;
    p = q;
  }
  if (fast && digits && (!*p || isspace((unsigned char)*p)) && e10 >= -22 && e10 <= 22) {
    const double x = e10 >= 0 ? (double)w * pow10[e10] : (double)w / pow10[-e10];
    *v = neg ? -x : x;
    *s = p;
    return 1;
  }
  char *end;
  double x = strtod(*s, &end);
  if (end == *s) return 0;
  if (*end && !isspace((unsigned char)*end)) return 0;
  *v = x;
  *s = end;
  return 1;
}

static int rest_is_blank(const char *s) {
  while (isspace((unsigned char)*s))
    s++;
  return *s == '\0';
}

/* The banner: %%MatrixMarket matrix <format> <field> <symmetry>. */
static int read_banner(MmReader *r, MmFormat *fmt, MmField *field, MmSymmetry *sym) {
  int eof = 0;
  GsCall(next_line(r, &eof));
  GsCheck(!eof, r->ctx, GS_ERR_FILE_FORMAT, "%s: the file is empty", r->path);
  char tag[64] = "", obj[64] = "", f1[64] = "", f2[64] = "", f3[64] = "";
  int got = sscanf(r->buf, "%63s %63s %63s %63s %63s", tag, obj, f1, f2, f3);
  GsCheck(got >= 1 && !strcasecmp(tag, "%%MatrixMarket"), r->ctx, GS_ERR_FILE_FORMAT,
          "%s:1: not a Matrix Market file (the first line must start with %%%%MatrixMarket)",
          r->path);
  GsCheck(got == 5, r->ctx, GS_ERR_FILE_FORMAT,
          "%s:1: the banner needs 4 words after %%%%MatrixMarket (object, format, field, "
          "symmetry); found %d",
          r->path, got - 1);
  GsCheck(!strcasecmp(obj, "matrix"), r->ctx, GS_ERR_FILE_FORMAT,
          "%s:1: object '%s' is not supported (only 'matrix')", r->path, obj);
  if (!strcasecmp(f1, "coordinate"))
    *fmt = MM_COORD;
  else if (!strcasecmp(f1, "array"))
    *fmt = MM_ARRAY;
  else
    return GsError(r->ctx, GS_ERR_FILE_FORMAT, "%s:1: format '%s' is not one of coordinate, array",
                   r->path, f1);
  if (!strcasecmp(f2, "real") || !strcasecmp(f2, "double"))
    *field = MM_REAL;
  else if (!strcasecmp(f2, "integer"))
    *field = MM_INTEGER;
  else if (!strcasecmp(f2, "pattern"))
    *field = MM_PATTERN;
  else
    return GsError(r->ctx, GS_ERR_FILE_FORMAT,
                   "%s:1: field '%s' is not supported (real, integer, pattern)", r->path, f2);
  GsCheck(*fmt == MM_COORD || *field != MM_PATTERN, r->ctx, GS_ERR_FILE_FORMAT,
          "%s:1: a pattern matrix must be in coordinate format", r->path);
  if (!strcasecmp(f3, "general"))
    *sym = MM_GENERAL;
  else if (!strcasecmp(f3, "symmetric"))
    *sym = MM_SYMMETRIC;
  else if (!strcasecmp(f3, "skew-symmetric"))
    *sym = MM_SKEW;
  else
    return GsError(r->ctx, GS_ERR_FILE_FORMAT,
                   "%s:1: symmetry '%s' is not supported (general, symmetric, skew-symmetric)",
                   r->path, f3);
  return 0;
}

/* Add entry (i, j, v) and, for symmetric storage, its mirror. */
static int add_entry(MmReader *r, MmTriplets *t, MmSymmetry sym, GsInt i, GsInt j, double v) {
  if (sym == MM_SKEW)
    GsCheck(i != j, r->ctx, GS_ERR_FILE_FORMAT,
            "%s:%ld: diagonal entry (%lld, %lld) in a skew-symmetric matrix", r->path, r->line,
            (long long)i + 1, (long long)j + 1);
  GsCall(triplets_push(r->ctx, t, i, j, v));
  if (sym != MM_GENERAL && i != j) GsCall(triplets_push(r->ctx, t, j, i, sym == MM_SKEW ? -v : v));
  return 0;
}

/* Read the whole file into triplets. */
static int read_triplets(GsContext ctx, const char *path, int keep_zeros, MmTriplets *t) {
  memset(t, 0, sizeof *t);
  GsCheckHandle(ctx, path);
  MmReader r = {.ctx = ctx, .path = path, .line = 0};
  r.f = fopen(path, "r");
  GsCheck(r.f != NULL, ctx, GS_ERR_FILE_OPEN, "cannot open %s: %s", path, strerror(errno));
  r.block = malloc(GS_MM_BLOCK);
  if (!r.block) fclose(r.f);
  GsCheck(r.block != NULL, ctx, GS_ERR_MEMORY, "cannot allocate a read buffer for %s", path);
  int ierr = 0;
  MmFormat fmt = MM_COORD;
  MmField field = MM_REAL;
  MmSymmetry sym = MM_GENERAL;
  int eof = 0;
  long long m = 0, n = 0, nz = 0;
  ierr = read_banner(&r, &fmt, &field, &sym);
  if (!ierr) ierr = next_data_line(&r, &eof);
  if (!ierr && eof)
    ierr = GsError(ctx, GS_ERR_FILE_FORMAT, "%s:%ld: the size line is missing", path, r.line);
  if (!ierr) {
    const char *s = r.buf;
    int ok = parse_int(&s, &m) && parse_int(&s, &n) && (fmt == MM_ARRAY || parse_int(&s, &nz)) &&
             rest_is_blank(s);
    if (!ok)
      ierr = GsError(ctx, GS_ERR_FILE_FORMAT, "%s:%ld: bad size line '%.60s' (expected %s)", path,
                     r.line, r.buf, fmt == MM_COORD ? "rows columns entries" : "rows columns");
    else if (m < 0 || n < 0 || nz < 0 || n > 2147483647LL)
      ierr =
          GsError(ctx, GS_ERR_FILE_FORMAT, "%s:%ld: sizes %lld x %lld (%lld entries) out of range",
                  path, r.line, m, n, nz);
    else if (fmt == MM_ARRAY && (double)m * (double)n > 4e18) /* its count must fit 64 bits */
      ierr = GsError(ctx, GS_ERR_FILE_FORMAT,
                     "%s:%ld: an array of %lld x %lld values is out of range", path, r.line, m, n);
    else if (sym != MM_GENERAL && m != n)
      ierr = GsError(ctx, GS_ERR_FILE_FORMAT, "%s:%ld: a %s matrix must be square (%lld x %lld)",
                     path, r.line, sym == MM_SKEW ? "skew-symmetric" : "symmetric", m, n);
  }
  if (!ierr) { /* what the matrix will take, before reading a promise of billions of rows */
    char what[1200];
    snprintf(what, sizeof what, "%s:%ld: a %lld x %lld matrix%s", path, r.line, m, n,
             fmt == MM_COORD ? " with the entries promised" : "");
    /* coordinate: nz lines, doubled when mirrored; array: every value of the dense matrix */
    const double entries =
        fmt == MM_COORD ? (double)nz * (sym == MM_GENERAL ? 1 : 2) : (double)m * (double)n;
    ierr = GsHostMemoryCheck(ctx, 16.0 * ((double)m + 1) + 36.0 * entries, what);
  }
  t->m = m;
  t->n = n;
  /* Entries expected: coordinate nz; array: every column (m values each), or the lower triangle. */
  long long expect = nz;
  if (!ierr && fmt == MM_ARRAY) /* m * n fits: checked above */
    expect = sym == MM_GENERAL ? m * n : sym == MM_SYMMETRIC ? n * (n + 1) / 2 : n * (n - 1) / 2;
  long long k = 0;
  GsInt ai = 0, aj = 0; /* array position: row ai of column aj */
  if (fmt == MM_ARRAY && sym == MM_SKEW) ai = 1;
  while (!ierr && k < expect) {
    ierr = next_data_line(&r, &eof);
    if (ierr) break;
    if (eof) {
      ierr = GsError(ctx, GS_ERR_FILE_FORMAT,
                     "%s:%ld: the file ends after %lld of the %lld entries the size line promises",
                     path, r.line, k, expect);
      break;
    }
    const char *s = r.buf;
    long long i = 0, j = 0;
    double v = 1;
    if (fmt == MM_COORD) {
      if (!parse_int(&s, &i) || !parse_int(&s, &j)) {
        ierr = GsError(ctx, GS_ERR_FILE_FORMAT,
                       "%s:%ld: entry %lld: expected 'row column%s', got '%.60s'", path, r.line,
                       k + 1, field == MM_PATTERN ? "" : " value", r.buf);
        break;
      }
      if (i < 1 || i > m || j < 1 || j > n) {
        ierr = GsError(ctx, GS_ERR_FILE_FORMAT,
                       "%s:%ld: entry %lld: index (%lld, %lld) is outside the %lld x %lld matrix",
                       path, r.line, k + 1, i, j, m, n);
        break;
      }
    } else {
      i = ai + 1;
      j = aj + 1;
    }
    if (field == MM_INTEGER) {
      long long iv = 0;
      if (!parse_int(&s, &iv)) {
        ierr = GsError(ctx, GS_ERR_FILE_FORMAT, "%s:%ld: entry %lld: expected an integer value",
                       path, r.line, k + 1);
        break;
      }
      v = (double)iv;
    } else if (field == MM_REAL) {
      if (!parse_real(&s, &v)) {
        ierr = GsError(ctx, GS_ERR_FILE_FORMAT, "%s:%ld: entry %lld: expected a real value", path,
                       r.line, k + 1);
        break;
      }
      if (!isfinite(v)) {
        ierr = GsError(ctx, GS_ERR_NOT_FINITE, "%s:%ld: entry %lld: the value is not finite (%s)",
                       path, r.line, k + 1, isnan(v) ? "NaN" : "inf");
        break;
      }
    }
    if (!rest_is_blank(s)) {
      ierr =
          GsError(ctx, GS_ERR_FILE_FORMAT, "%s:%ld: entry %lld: unexpected text after it: '%.40s'",
                  path, r.line, k + 1, s);
      break;
    }
    if (fmt == MM_ARRAY) { /* column-major; symmetric: lower triangle only */
      if (++ai == m) {
        aj++;
        ai = sym == MM_GENERAL ? 0 : sym == MM_SYMMETRIC ? aj : aj + 1;
      }
      if (v == 0 && !keep_zeros) { /* a dense matrix: keep only the nonzeros */
        k++;
        continue;
      }
    }
    ierr = add_entry(&r, t, sym, (GsInt)(i - 1), (GsInt)(j - 1), v);
    k++;
  }
  if (!ierr) {
    ierr = next_data_line(&r, &eof);
    if (!ierr && !eof)
      ierr = GsError(ctx, GS_ERR_FILE_FORMAT,
                     "%s:%ld: more data than the %lld entries the size line promises: '%.40s'",
                     path, r.line, expect, r.buf);
  }
  fclose(r.f);
  free(r.block);
  if (ierr) {
    triplets_free(t);
    return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  }
  return 0;
}

int GsMatLoadMatrixMarket(GsContext ctx, const char *path, GsMat *A) {
  GsCheckHandle(NULL, ctx);
  GsCheckHandle(ctx, A);
  *A = NULL;
  MmTriplets t;
  GsCall(read_triplets(ctx, path, 0, &t));
  int ierr = GsMatCreateFromTriplets(ctx, t.m, t.n, t.count, t.row, t.col, t.val, A);
  triplets_free(&t);
  if (ierr) return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  return 0;
}

int GsVecLoadMatrixMarket(GsContext ctx, const char *path, GsVec *v) {
  GsCheckHandle(NULL, ctx);
  GsCheckHandle(ctx, v);
  *v = NULL;
  MmTriplets t;
  GsCall(read_triplets(ctx, path, 1, &t));
  int ierr = 0;
  double *x = NULL;
  unsigned char *seen = NULL;
  if (t.n != 1)
    ierr = GsError(ctx, GS_ERR_FILE_FORMAT, "%s: a vector file has one column; this one has %lld",
                   path, (long long)t.n);
  if (!ierr) {
    x = calloc((size_t)(t.m ? t.m : 1), sizeof *x);
    seen = calloc((size_t)(t.m ? t.m : 1), 1);
    if (!x || !seen)
      ierr = GsError(ctx, GS_ERR_MEMORY, "cannot allocate %lld values", (long long)t.m);
  }
  /* Each entry as written (a -0 stays -0: 0 + -0 would be +0); repeated coordinates summed. */
  for (GsInt k = 0; !ierr && k < t.count; k++) {
    const GsInt i = t.row[k];
    x[i] = seen[i] ? x[i] + t.val[k] : t.val[k];
    seen[i] = 1;
  }
  if (!ierr) ierr = GsVecCreate(ctx, t.m, GS_DOUBLE, v);
  if (!ierr) ierr = GsVecSetValuesHost(*v, x);
  free(x);
  free(seen);
  triplets_free(&t);
  if (ierr) {
    GsVecDestroy(v);
    return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  }
  return 0;
}

/* Open path.tmp for writing; close and rename it to path (or remove it on failure). */
static int open_tmp(GsContext ctx, const char *path, char *tmp, size_t len, FILE **f) {
  GsCheckHandle(ctx, path);
  int k = snprintf(tmp, len, "%s.tmp", path);
  GsCheck(k > 0 && (size_t)k < len, ctx, GS_ERR_ARG_OUTOFRANGE, "path too long: %s", path);
  *f = fopen(tmp, "w");
  GsCheck(*f != NULL, ctx, GS_ERR_FILE_OPEN, "cannot create %s: %s", tmp, strerror(errno));
  return 0;
}

static int close_tmp(GsContext ctx, const char *path, const char *tmp, FILE *f) {
  int bad = ferror(f);
  if (fclose(f)) bad = 1;
  if (bad) {
    remove(tmp);
    return GsError(ctx, GS_ERR_FILE_WRITE, "error writing %s: %s", tmp, strerror(errno));
  }
  if (rename(tmp, path)) {
    remove(tmp);
    return GsError(ctx, GS_ERR_FILE_WRITE, "cannot rename %s to %s: %s", tmp, path,
                   strerror(errno));
  }
  return 0;
}

int GsMatSaveMatrixMarket(GsMat A, const char *path) {
  GsCheckHandle(NULL, A);
  GsContext ctx = A->ctx;
  char tmp[4096];
  FILE *f = NULL;
  GsCall(open_tmp(ctx, path, tmp, sizeof tmp, &f));
  fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%% written by gpusolve\n");
  fprintf(f, "%lld %lld %lld\n", (long long)A->m, (long long)A->n, (long long)A->nnz);
  for (GsInt i = 0; i < A->m; i++)
    for (GsInt k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      fprintf(f, "%lld %d %.17g\n", (long long)i + 1, A->col[k] + 1, A->val[k]);
  GsCall(close_tmp(ctx, path, tmp, f));
  return 0;
}

int GsVecSaveMatrixMarket(GsVec v, const char *path) {
  GsCheckHandle(NULL, v);
  GsContext ctx = NULL;
  GsInt n = 0;
  GsDataType dt;
  GsCall(GsVecGetContext(v, &ctx));
  GsCall(GsVecGetSize(v, &n));
  GsCall(GsVecGetDataType(v, &dt));
  GsCheck(dt == GS_DOUBLE, ctx, GS_ERR_ARG_TYPE, "Matrix Market vectors are written in double");
  double *x = malloc((size_t)(n ? n : 1) * sizeof *x);
  GsCheck(x != NULL, ctx, GS_ERR_MEMORY, "cannot allocate %lld values", (long long)n);
  int ierr = GsVecGetValuesHost(v, x);
  char tmp[4096];
  FILE *f = NULL;
  if (!ierr) ierr = open_tmp(ctx, path, tmp, sizeof tmp, &f);
  if (!ierr) {
    fprintf(f, "%%%%MatrixMarket matrix array real general\n%% written by gpusolve\n%lld 1\n",
            (long long)n);
    for (GsInt i = 0; i < n; i++)
      fprintf(f, "%.17g\n", x[i]);
    ierr = close_tmp(ctx, path, tmp, f);
  }
  free(x);
  if (ierr) return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  return 0;
}
