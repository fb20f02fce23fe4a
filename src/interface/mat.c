/* Sparse CSR matrices: assembly, generators, queries, transpose, diagonal, and SpMV dispatch. The
 * CSR arrays live on the host; the form the SpMV kernel reads (CSR, ELL/SELL or merge) is made at
 * the first product, and a device back end gets its copy then. A back end without an SpMV (or a
 * CSR matrix past 32-bit offsets on a GPU) gets the CPU kernel on host copies of the vectors. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gsimpl.h"
#include "matimpl.h"

/* Sort the entries of each row by column and sum duplicates, in place; returns the new count. */
static GsInt compress_rows(GsInt m, GsInt *rowptr, int *col, double *val) {
  GsInt out = 0;
  for (GsInt i = 0; i < m; i++) {
    const GsInt b = rowptr[i], e = rowptr[i + 1];
    /* Insertion sort: rows are short; stable, so duplicates sum in input order. */
    for (GsInt k = b + 1; k < e; k++) {
      const int c = col[k];
      const double v = val[k];
      GsInt j = k - 1;
      while (j >= b && col[j] > c) {
        col[j + 1] = col[j];
        val[j + 1] = val[j];
        j--;
      }
      col[j + 1] = c;
      val[j + 1] = v;
    }
    rowptr[i] = out;
    for (GsInt k = b; k < e; k++) {
      if (out > rowptr[i] && col[out - 1] == col[k]) {
        val[out - 1] += val[k];
      } else {
        col[out] = col[k];
        val[out] = val[k];
        out++;
      }
    }
  }
  rowptr[m] = out;
  return out;
}

int GsMatCreateEmpty_(GsContext ctx, GsInt m, GsInt n, GsInt nnz, GsMat *A) {
  GsCheckHandle(NULL, ctx);
  GsCheckHandle(ctx, A);
  *A = NULL;
  GsCheck(m >= 0 && n >= 0, ctx, GS_ERR_ARG_OUTOFRANGE, "matrix sizes %lld x %lld are negative",
          (long long)m, (long long)n);
  GsCheck(n <= INT_MAX, ctx, GS_ERR_ARG_OUTOFRANGE,
          "%lld columns do not fit the 32-bit column indices", (long long)n);
  GsCheck(nnz >= 0, ctx, GS_ERR_ARG_OUTOFRANGE, "%lld stored entries", (long long)nnz);
  { /* the arrays, and the assembly's scratch of a row offset per row */
    char what[128];
    snprintf(what, sizeof what, "a %lld x %lld matrix with %lld entries", (long long)m,
             (long long)n, (long long)nnz);
    GsCall(GsHostMemoryCheck(ctx, 16.0 * ((double)m + 1) + 12.0 * (double)nnz, what));
  }
  GsMat B = calloc(1, sizeof *B);
  GsCheck(B != NULL, ctx, GS_ERR_MEMORY, "cannot allocate a matrix");
  B->ctx = ctx;
  B->m = m;
  B->n = n;
  B->rowptr = calloc((size_t)m + 1, sizeof *B->rowptr);
  B->col = malloc((size_t)(nnz ? nnz : 1) * sizeof *B->col);
  B->val = malloc((size_t)(nnz ? nnz : 1) * sizeof *B->val);
  if (!B->rowptr || !B->col || !B->val) {
    free(B->rowptr);
    free(B->col);
    free(B->val);
    free(B);
    return GsError(ctx, GS_ERR_MEMORY, "cannot allocate a %lld x %lld matrix with %lld entries",
                   (long long)m, (long long)n, (long long)nnz);
  }
  int ierr = GsLogEventRegister(ctx, "MatMult", &B->ev_mult);
  ctx->nobjects++;
  *A = B;
  if (ierr) {
    GsMatDestroy(A);
    return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  }
  return 0;
}

int GsMatDestroy(GsMat *A) {
  if (!A || !*A) return 0;
  GsMat B = *A;
  free(B->rowptr);
  free(B->col);
  free(B->val);
  GsMatFreeSpMV_(B);
  B->ctx->nobjects--;
  free(B);
  *A = NULL;
  return 0;
}

/* Sort rows, sum duplicates and shrink the arrays to nnz. */
static int finish(GsMat A) {
  A->nnz = compress_rows(A->m, A->rowptr, A->col, A->val);
  if (A->nnz) {
    int *c = realloc(A->col, (size_t)A->nnz * sizeof *c);
    if (c) A->col = c;
    double *v = realloc(A->val, (size_t)A->nnz * sizeof *v);
    if (v) A->val = v;
  }
  return 0;
}

int GsMatCreateFromTriplets(GsContext ctx, GsInt m, GsInt n, GsInt nz, const GsInt row[],
                            const GsInt col[], const double val[], GsMat *A) {
  GsCheckHandle(NULL, ctx);
  GsCheck(nz == 0 || (row && col && val), ctx, GS_ERR_ARG_NULL,
          "triplet arrays are NULL with %lld triplets", (long long)nz);
  for (GsInt k = 0; k < nz; k++)
    GsCheck(row[k] >= 0 && row[k] < m && col[k] >= 0 && col[k] < n, ctx, GS_ERR_ARG_OUTOFRANGE,
            "triplet %lld: (%lld, %lld) is outside the %lld x %lld matrix", (long long)k,
            (long long)row[k], (long long)col[k], (long long)m, (long long)n);
  GsCall(GsMatCreateEmpty_(ctx, m, n, nz, A));
  GsMat B = *A;
  for (GsInt k = 0; k < nz; k++)
    B->rowptr[row[k] + 1]++;
  for (GsInt i = 0; i < m; i++)
    B->rowptr[i + 1] += B->rowptr[i];
  GsInt *next = malloc((size_t)(m ? m : 1) * sizeof *next);
  if (!next) {
    GsMatDestroy(A);
    return GsError(ctx, GS_ERR_MEMORY, "cannot allocate assembly scratch");
  }
  memcpy(next, B->rowptr, (size_t)m * sizeof *next);
  for (GsInt k = 0; k < nz; k++) {
    const GsInt q = next[row[k]]++;
    B->col[q] = (int)col[k];
    B->val[q] = val[k];
  }
  free(next);
  GsCall(finish(B));
  return 0;
}

int GsMatCreateCSR(GsContext ctx, GsInt m, GsInt n, const GsInt rowptr[], const GsInt col[],
                   const double val[], GsMat *A) {
  GsCheckHandle(NULL, ctx);
  GsCheckHandle(ctx, rowptr);
  GsCheck(m >= 0, ctx, GS_ERR_ARG_OUTOFRANGE, "%lld rows", (long long)m);
  GsCheck(rowptr[0] == 0, ctx, GS_ERR_ARG_OUTOFRANGE, "rowptr[0] = %lld, must be 0",
          (long long)rowptr[0]);
  for (GsInt i = 0; i < m; i++)
    GsCheck(rowptr[i + 1] >= rowptr[i], ctx, GS_ERR_ARG_OUTOFRANGE,
            "rowptr decreases at row %lld (%lld > %lld)", (long long)i, (long long)rowptr[i],
            (long long)rowptr[i + 1]);
  const GsInt nz = rowptr[m];
  GsCheck(nz == 0 || (col && val), ctx, GS_ERR_ARG_NULL, "col or val is NULL with %lld entries",
          (long long)nz);
  for (GsInt i = 0; i < m; i++)
    for (GsInt k = rowptr[i]; k < rowptr[i + 1]; k++)
      GsCheck(col[k] >= 0 && col[k] < n, ctx, GS_ERR_ARG_OUTOFRANGE,
              "row %lld, entry %lld: column %lld is outside [0, %lld)", (long long)i, (long long)k,
              (long long)col[k], (long long)n);
  GsCall(GsMatCreateEmpty_(ctx, m, n, nz, A));
  GsMat B = *A;
  memcpy(B->rowptr, rowptr, ((size_t)m + 1) * sizeof *rowptr);
  for (GsInt k = 0; k < nz; k++) {
    B->col[k] = (int)col[k];
    B->val[k] = val[k];
  }
  GsCall(finish(B));
  return 0;
}

int GsMatCreateLaplacian(GsContext ctx, GsInt nx, GsInt ny, GsInt nz, int stencil, GsMat *A) {
  GsCheckHandle(NULL, ctx);
  GsCheck(stencil == 5 || stencil == 7 || stencil == 27, ctx, GS_ERR_ARG_OUTOFRANGE,
          "stencil %d: 5 (2D), 7 or 27 (3D)", stencil);
  GsCheck(nx >= 1 && ny >= 1 && nz >= 1, ctx, GS_ERR_ARG_OUTOFRANGE,
          "grid %lld x %lld x %lld: every size must be at least 1", (long long)nx, (long long)ny,
          (long long)nz);
  GsCheck(stencil != 5 || nz == 1, ctx, GS_ERR_ARG_INCOMP,
          "the 5-point stencil is 2D: nz must be 1 (got %lld)", (long long)nz);
  const GsInt n = nx * ny * nz, per = stencil == 27 ? 27 : stencil;
  GsCheck(n / nx / ny == nz && n <= INT_MAX, ctx, GS_ERR_ARG_OUTOFRANGE,
          "grid %lld x %lld x %lld has more unknowns than 32-bit column indices allow",
          (long long)nx, (long long)ny, (long long)nz);
  GsCall(GsMatCreateEmpty_(ctx, n, n, n * per, A));
  GsMat B = *A;
  const double diag = stencil == 27 ? 26.0 : stencil == 7 ? 6.0 : 4.0;
  GsInt q = 0;
  for (GsInt k = 0; k < nz; k++)
    for (GsInt j = 0; j < ny; j++)
      for (GsInt i = 0; i < nx; i++) {
        const GsInt row = i + nx * (j + ny * k);
        B->rowptr[row] = q;
        for (int dk = -1; dk <= 1; dk++)
          for (int dj = -1; dj <= 1; dj++)
            for (int di = -1; di <= 1; di++) {
              const int far = abs(di) + abs(dj) + abs(dk);
              if (stencil != 27 && far > 1) continue;
              if (stencil == 5 && dk != 0) continue;
              const GsInt ii = i + di, jj = j + dj, kk = k + dk;
              if (ii < 0 || ii >= nx || jj < 0 || jj >= ny || kk < 0 || kk >= nz) continue;
              B->col[q] = (int)(ii + nx * (jj + ny * kk));
              B->val[q] = far == 0 ? diag : -1.0;
              q++;
            }
      }
  B->rowptr[n] = q;
  B->nnz = q; /* rows are generated in column order without duplicates */
  return 0;
}

static int cmp_int(const void *a, const void *b) {
  const int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Entries drawn for row i of the power-law generator: Pareto(L0, a), at least 1, at most n. */
static GsInt power_law_len(uint64_t seed, GsInt i, GsInt n, double L0, double a) {
  const double u = 1.0 - GsRandomUniform(seed, (uint64_t)i); /* (0, 1] */
  const double len = floor(L0 * pow(u, -1.0 / a));
  return len < 1 ? 1 : len >= (double)n ? n : (GsInt)len;
}

int GsMatCreatePowerLaw(GsContext ctx, GsInt n, double mean, double exponent, uint64_t seed,
                        GsMat *A) {
  GsCheckHandle(NULL, ctx);
  GsCheckHandle(ctx, A);
  *A = NULL;
  GsCheck(n >= 1 && n <= INT_MAX, ctx, GS_ERR_ARG_OUTOFRANGE,
          "power-law matrix of %lld rows: must be in [1, 2^31 - 1]", (long long)n);
  GsCheck(exponent > 1 && isfinite(exponent), ctx, GS_ERR_ARG_OUTOFRANGE,
          "power-law exponent %g: must be above 1 (the mean is infinite otherwise)", exponent);
  GsCheck(mean >= 1 && isfinite(mean), ctx, GS_ERR_ARG_OUTOFRANGE,
          "power-law mean row length %g: must be at least 1", mean);
  const double L0 = mean * (exponent - 1) / exponent;
  const uint64_t len_seed = seed * 2 + 1, col_seed = seed * 2 + 2;
  GsInt nnz = 0;
  for (GsInt i = 0; i < n; i++)
    nnz += power_law_len(len_seed, i, n, L0, exponent);
  GsCall(GsMatCreateEmpty_(ctx, n, n, nnz, A));
  GsMat B = *A;
  GsInt q = 0;
  for (GsInt i = 0; i < n; i++) {
    const GsInt len = power_law_len(len_seed, i, n, L0, exponent);
    B->rowptr[i] = q;
    /* The diagonal and len - 1 random columns (repeats are summed: a row may end up shorter),
     * sorted; values in (-1, 0], the diagonal 1 + the row's absolute sum. */
    B->col[q] = (int)i;
    for (GsInt k = 1; k < len; k++) {
      const uint64_t c = (uint64_t)q + (uint64_t)k;
      B->col[q + k] = (int)(GsRandomUniform(col_seed, 2 * c) * (double)n);
    }
    qsort(B->col + q, (size_t)len, sizeof *B->col, cmp_int);
    double off = 0;
    for (GsInt k = 0; k < len; k++) {
      const uint64_t c = (uint64_t)q + (uint64_t)k;
      B->val[q + k] = -GsRandomUniform(col_seed, 2 * c + 1);
      if (B->col[q + k] != (int)i) off -= B->val[q + k];
    }
    for (GsInt k = 0; k < len; k++)
      if (B->col[q + k] == (int)i) B->val[q + k] = 0;
    for (GsInt k = 0; k < len; k++)
      if (B->col[q + k] == (int)i) {
        B->val[q + k] = 1 + off;
        break;
      }
    q += len;
  }
  B->rowptr[n] = q;
  GsCall(finish(B));
  return 0;
}

int GsMatGetSize(GsMat A, GsInt *m, GsInt *n, GsInt *nnz) {
  GsCheckHandle(NULL, A);
  if (m) *m = A->m;
  if (n) *n = A->n;
  if (nnz) *nnz = A->nnz;
  return 0;
}

int GsMatGetRowStats(GsMat A, GsInt *min_row, GsInt *max_row, double *mean_row, GsInt *empty) {
  GsCheckHandle(NULL, A);
  GsInt lo = A->m ? INT64_MAX : 0, hi = 0, none = 0;
  for (GsInt i = 0; i < A->m; i++) {
    const GsInt c = A->rowptr[i + 1] - A->rowptr[i];
    lo = c < lo ? c : lo;
    hi = c > hi ? c : hi;
    none += c == 0;
  }
  if (min_row) *min_row = lo;
  if (max_row) *max_row = hi;
  if (mean_row) *mean_row = A->m ? (double)A->nnz / (double)A->m : 0;
  if (empty) *empty = none;
  return 0;
}

int GsMatGetCSR(GsMat A, const GsInt **rowptr, const int **col, const double **val) {
  GsCheckHandle(NULL, A);
  if (rowptr) *rowptr = A->rowptr;
  if (col) *col = A->col;
  if (val) *val = A->val;
  return 0;
}

int GsMatTranspose(GsMat A, GsMat *B) {
  GsCheckHandle(NULL, A);
  GsContext ctx = A->ctx;
  GsCheckHandle(ctx, B);
  GsCheck(A->m <= INT_MAX, ctx, GS_ERR_ARG_OUTOFRANGE,
          "%lld rows do not fit the transpose's 32-bit column indices", (long long)A->m);
  GsCall(GsMatCreateEmpty_(ctx, A->n, A->m, A->nnz, B));
  GsMat T = *B;
  for (GsInt k = 0; k < A->nnz; k++)
    T->rowptr[A->col[k] + 1]++;
  for (GsInt j = 0; j < A->n; j++)
    T->rowptr[j + 1] += T->rowptr[j];
  GsInt *next = malloc((size_t)(A->n ? A->n : 1) * sizeof *next);
  if (!next) {
    GsMatDestroy(B);
    return GsError(ctx, GS_ERR_MEMORY, "cannot allocate transpose scratch");
  }
  memcpy(next, T->rowptr, (size_t)A->n * sizeof *next);
  /* Rows of A in order: each row of the transpose comes out sorted by column. */
  for (GsInt i = 0; i < A->m; i++)
    for (GsInt k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      const GsInt q = next[A->col[k]]++;
      T->col[q] = (int)i;
      T->val[q] = A->val[k];
    }
  free(next);
  T->nnz = A->nnz;
  return 0;
}

/* A double vector of the matrix's context with len entries. */
static int check_vec(GsMat A, GsVec v, const char *name, GsInt len) {
  GsInt n;
  GsCall(GsVecCheckFor(A->ctx, v, name, "the (double) matrix", GS_DOUBLE, &n));
  GsCheck(n == len, A->ctx, GS_ERR_ARG_SIZE,
          "%s has %lld entries, the %lld x %lld matrix needs %lld", name, (long long)n,
          (long long)A->m, (long long)A->n, (long long)len);
  return 0;
}

int GsMatGetDiagonal(GsMat A, GsVec d) {
  GsCheckHandle(NULL, A);
  const GsInt nd = A->m < A->n ? A->m : A->n;
  GsCall(check_vec(A, d, "d", nd));
  double *p = NULL;
  GsCall(GsVecGetArrayWrite(d, GS_MEM_HOST, (void **)&p));
  for (GsInt i = 0; i < nd; i++) {
    p[i] = 0;
    for (GsInt k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      if (A->col[k] == i) p[i] = A->val[k];
  }
  GsCall(GsVecRestoreArrayWrite(d, (void **)&p));
  return 0;
}

/* ---- SpMV forms and kernels ---------------------------------------------------------------- */

static void free_device(GsMat A) {
  GsContext ctx = A->ctx;
  for (int k = 0; k < A->npanels && A->panels; k++)
    GsMatDestroy(&A->panels[k]);
  free(A->panels);
  A->panels = NULL;
  A->npanels = 0;
  GsMemFree(ctx, A->d_rowptr);
  GsMemFree(ctx, A->d_rowptr64);
  GsMemFree(ctx, A->d_col);
  GsMemFree(ctx, A->d_val);
  GsMemFree(ctx, A->d_sell_ptr);
  GsMemFree(ctx, A->d_sell_perm);
  GsMemFree(ctx, A->d_sell_col);
  GsMemFree(ctx, A->d_sell_val);
  GsMemFree(ctx, A->d_long_rows);
  GsMemFree(ctx, A->d_merge_start);
  GsMemFree(ctx, A->d_merge_row);
  GsMemFree(ctx, A->d_merge_val);
  A->d_rowptr = A->d_sell_perm = A->d_sell_col = A->d_col = A->d_long_rows = NULL;
  A->d_rowptr64 = A->d_sell_ptr = A->d_merge_start = A->d_merge_row = NULL;
  A->d_val = A->d_sell_val = A->d_merge_val = NULL;
  A->on_device = 0;
}

static void free_sell(GsMat A) {
  free(A->long_rows);
  free(A->long_rowptr);
  free(A->long_col);
  free(A->long_val);
  A->long_rows = NULL;
  A->long_rowptr = NULL;
  A->long_col = NULL;
  A->long_val = NULL;
  A->long_m = A->long_nnz = 0;
  free(A->sell_ptr);
  free(A->sell_len);
  free(A->sell_perm);
  free(A->sell_col);
  free(A->sell_val);
  A->sell_ptr = NULL;
  A->sell_len = A->sell_perm = A->sell_col = NULL;
  A->sell_val = NULL;
  A->nslices = 0;
}

/* Free the SpMV forms of A (GsMatDestroy, and a new choice of kernel). */
void GsMatFreeSpMV_(GsMat A) {
  free_device(A);
  free_sell(A);
  A->kernel = 0;
}

/* Sort key of a row in a sigma window: longer first, then by row (a total order: the layout does
 * not depend on the sort's stability). */
typedef struct {
  GsInt len;
  int row;
} SellKey;

static int sell_key_cmp(const void *a, const void *b) {
  const SellKey *x = a, *y = b;
  if (x->len != y->len) return x->len > y->len ? -1 : 1;
  return (x->row > y->row) - (x->row < y->row);
}

/* Padded entries of SELL-C-sigma for the m rows rows[] of A (rows NULL: all, m = A->m), without
 * building it; keys[] gets the sorted positions. */
static GsInt sell_size(GsMat A, const int *rows, GsInt m, GsInt C, GsInt sigma, SellKey *keys) {
  GsInt total = 0;
  for (GsInt w0 = 0; w0 < m; w0 += sigma) {
    const GsInt w1 = w0 + sigma < m ? w0 + sigma : m;
    for (GsInt i = w0; i < w1; i++) {
      const GsInt r = rows ? rows[i] : i;
      keys[i].len = A->rowptr[r + 1] - A->rowptr[r];
      keys[i].row = (int)r;
    }
    if (sigma > 1) qsort(keys + w0, (size_t)(w1 - w0), sizeof *keys, sell_key_cmp);
  }
  for (GsInt s0 = 0; s0 < m; s0 += C) {
    GsInt width = 0;
    for (GsInt p = s0; p < s0 + C && p < m; p++)
      width = keys[p].len > width ? keys[p].len : width;
    total += width * C;
  }
  return total;
}

/* The SELL-C-sigma form on the host (see matimpl.h) of the m rows rows[] (NULL: all rows, m =
 * A->m); ELL is C = m, sigma = 1. A subset always keeps its position -> row map. */
static int build_sell(GsMat A, const int *rows, GsInt m, GsInt C, GsInt sigma) {
  GsContext ctx = A->ctx;
  const GsInt ns = m ? (m + C - 1) / C : 0;
  const int perm = sigma > 1 || rows;
  free_sell(A);
  SellKey *keys = malloc((size_t)(m ? m : 1) * sizeof *keys);
  GsCheck(keys != NULL, ctx, GS_ERR_MEMORY, "cannot allocate the SELL layout of %lld rows",
          (long long)m);
  const GsInt total = sell_size(A, rows, m, C, sigma, keys);
  A->sell_len = malloc((size_t)(m ? m : 1) * sizeof *A->sell_len);
  A->sell_ptr = malloc(((size_t)ns + 1) * sizeof *A->sell_ptr);
  A->sell_perm = perm ? malloc((size_t)(m ? m : 1) * sizeof *A->sell_perm) : NULL;
  A->sell_col = malloc((size_t)(total ? total : 1) * sizeof *A->sell_col);
  A->sell_val = calloc((size_t)(total ? total : 1), sizeof *A->sell_val);
  if (!A->sell_len || !A->sell_ptr || (perm && !A->sell_perm) || !A->sell_col || !A->sell_val) {
    free(keys);
    free_sell(A);
    return GsError(ctx, GS_ERR_MEMORY,
                   "cannot allocate SELL-%lld-%lld: %lld padded entries for %lld stored",
                   (long long)C, (long long)sigma, (long long)total, (long long)A->nnz);
  }
  for (GsInt q = 0; q < total; q++)
    A->sell_col[q] = -1; /* padding */
  A->sell_ptr[0] = 0;
  for (GsInt s = 0; s < ns; s++) {
    GsInt width = 0;
    for (GsInt p = s * C; p < (s + 1) * C && p < m; p++) {
      const int row = keys[p].row;
      A->sell_len[p] = (int)keys[p].len;
      if (A->sell_perm) A->sell_perm[p] = row;
      width = keys[p].len > width ? keys[p].len : width;
      for (GsInt j = 0; j < keys[p].len; j++) {
        const GsInt q = A->sell_ptr[s] + j * C + (p - s * C), k = A->rowptr[row] + j;
        A->sell_col[q] = A->col[k];
        A->sell_val[q] = A->val[k];
      }
    }
    A->sell_ptr[s + 1] = A->sell_ptr[s] + width * C;
  }
  free(keys);
  A->nslices = ns;
  A->sell_m = m;
  A->sell_c = C;
  A->sell_sigma = (int)sigma;
  return 0;
}

/* The hybrid form: rows of more than T entries (the long part, kept as CSR for the merge kernel
 * with their row numbers) and the others in SELL-32 sorted by length within windows of 4096
 * rows. T is small (default 32, -mat_spmv_hybrid_t): a SELL thread walks its row alone, so a
 * slice of rows of a few hundred entries keeps its warp long after the others are done. */
static int build_hybrid(GsMat A, GsInt T) {
  GsContext ctx = A->ctx;
  GsInt ml = 0, nl = 0, ns = 0;
  for (GsInt i = 0; i < A->m; i++)
    if (A->rowptr[i + 1] - A->rowptr[i] > T) {
      ml++;
      nl += A->rowptr[i + 1] - A->rowptr[i];
    }
  int *rows = malloc((size_t)(A->m - ml ? A->m - ml : 1) * sizeof *rows);
  GsCheck(rows != NULL, ctx, GS_ERR_MEMORY, "cannot allocate the hybrid form's row list");
  for (GsInt i = 0; i < A->m; i++)
    if (A->rowptr[i + 1] - A->rowptr[i] <= T) rows[ns++] = (int)i;
  /* The SELL part first: building it clears the whole host form. */
  const int ierr = build_sell(A, rows, ns, 32, 4096);
  free(rows);
  GsCall(ierr);
  A->long_rows = malloc((size_t)(ml ? ml : 1) * sizeof *A->long_rows);
  A->long_rowptr = malloc(((size_t)ml + 1) * sizeof *A->long_rowptr);
  A->long_col = malloc((size_t)(nl ? nl : 1) * sizeof *A->long_col);
  A->long_val = malloc((size_t)(nl ? nl : 1) * sizeof *A->long_val);
  GsCheck(A->long_rows && A->long_rowptr && A->long_col && A->long_val, ctx, GS_ERR_MEMORY,
          "cannot allocate the hybrid form's %lld long rows (%lld entries)", (long long)ml,
          (long long)nl);
  GsInt q = 0, l = 0;
  A->long_rowptr[0] = 0;
  for (GsInt i = 0; i < A->m; i++) {
    const GsInt b = A->rowptr[i], e = A->rowptr[i + 1];
    if (e - b <= T) continue;
    memcpy(A->long_col + q, A->col + b, (size_t)(e - b) * sizeof *A->long_col);
    memcpy(A->long_val + q, A->val + b, (size_t)(e - b) * sizeof *A->long_val);
    q += e - b;
    A->long_rows[l++] = (int)i;
    A->long_rowptr[l] = q;
  }
  A->long_m = ml;
  A->long_nnz = nl;
  A->hybrid_t = T;
  return 0;
}

/* Rows "skewed" enough for the merge kernel: the longest is far above the mean, so one thread or
 * group per row would leave most of the device waiting for a few rows. */
static int skewed(GsMat A) {
  GsInt mn = 0, mx = 0, empty = 0;
  double mean = 0;
  (void)GsMatGetRowStats(A, &mn, &mx, &mean, &empty);
  return (double)mx > 16.0 * (mean > 1 ? mean : 1) + 64.0;
}

/* Whether A's rows are short and even enough for SELL-32 (not skewed, at most 48 entries on
 * average, padding at most 1.2 nnz with no sorting or with windows of 1024 rows), and the window.
 */
static int sell_fits(GsMat A, int *fits, GsInt *sigma) {
  const double mean = A->m ? (double)A->nnz / (double)A->m : 0;
  *fits = 0;
  *sigma = 1;
  if (skewed(A) || mean > 48 || A->m < 32) return 0;
  SellKey *keys = malloc((size_t)A->m * sizeof *keys);
  GsCheck(keys != NULL, A->ctx, GS_ERR_MEMORY, "cannot allocate %lld sort keys", (long long)A->m);
  const double limit = 1.2 * (double)A->nnz;
  if ((double)sell_size(A, NULL, A->m, 32, 1, keys) <= limit) {
    *fits = 1;
  } else if ((double)sell_size(A, NULL, A->m, 32, 1024, keys) <= limit) {
    *fits = 1;
    *sigma = 1024;
  }
  free(keys);
  return 0;
}

static int set_kernel(GsMat A, GsMatSpMVType type, GsInt C, GsInt sigma) {
  GsContext ctx = A->ctx;
  const int device = ctx->ops->mem == GS_MEM_DEVICE;
  /* G, the number of interleaved partial sums of every row's sum (matimpl.h), the same on every
   * back end: one (a thread walks its row) for rows that fit SELL, where a device takes SELL;
   * otherwise a power of two giving each of G lanes about 6 entries of an average row, which is
   * how many threads the device CSR kernel gives a row. -mat_spmv_group forces one. */
  const double mean = A->m ? (double)A->nnz / (double)A->m : 0;
  GsInt group = 1, fsigma = 1;
  while (group < 32 && 2.0 * (double)group * 6.0 <= mean)
    group *= 2;
  int fits = 0;
  if (group > 1 || (type == GS_MAT_SPMV_AUTO && device)) GsCall(sell_fits(A, &fits, &fsigma));
  if (fits) group = 1;
  GsCall(GsOptionsGetInt(ctx, "-mat_spmv_group", &group, NULL));
  GsCheck(group == 1 || group == 2 || group == 4 || group == 8 || group == 16 || group == 32, ctx,
          GS_ERR_OPTION, "-mat_spmv_group %lld: must be 1, 2, 4, 8, 16 or 32", (long long)group);
  A->group = (int)group;
  if (type == GS_MAT_SPMV_AUTO) {
    /* Measured on the H200 (docs/performance.md): SELL-32 reads no row offsets and coalesces the
     * matrix loads, best for short even rows; grouped CSR for long rows; merge for skewed ones
     * (the hybrid form with T = 256 was 4x slower than merge there; smaller T is not measured
     * yet). On the host CSR, or merge when skewed. */
    type = GS_MAT_SPMV_CSR;
    if (skewed(A)) {
      type = GS_MAT_SPMV_MERGE;
    } else if (device && fits) {
      type = GS_MAT_SPMV_SELL;
      C = 32;
      sigma = fsigma;
    }
  }
  GsMatFreeSpMV_(A);
  A->ell = type == GS_MAT_SPMV_ELL;
  if (type == GS_MAT_SPMV_ELL) {
    GsCheck(A->m <= INT_MAX, ctx, GS_ERR_UNSUPPORTED, "ELL of %lld rows: more than 2^31 - 1",
            (long long)A->m);
    GsCall(build_sell(A, NULL, A->m, A->m ? A->m : 1, 1));
    A->kernel = GS_SPMV_SELL;
  } else if (type == GS_MAT_SPMV_SELL) {
    GsCheck(C >= 1 && C <= 1024, ctx, GS_ERR_ARG_OUTOFRANGE,
            "SELL slice height C = %lld: must be in [1, 1024]", (long long)C);
    GsCheck(sigma >= 1, ctx, GS_ERR_ARG_OUTOFRANGE,
            "SELL sort window sigma = %lld: must be at least 1", (long long)sigma);
    GsCall(build_sell(A, NULL, A->m, C, sigma > A->m ? (A->m ? A->m : 1) : sigma));
    A->kernel = GS_SPMV_SELL;
  } else if (type == GS_MAT_SPMV_MERGE) {
    A->kernel = GS_SPMV_MERGE;
  } else if (type == GS_MAT_SPMV_HYBRID) {
    GsInt T = 32;
    GsCall(GsOptionsGetInt(ctx, "-mat_spmv_hybrid_t", &T, NULL));
    GsCheck(T >= 1, ctx, GS_ERR_OPTION, "-mat_spmv_hybrid_t %lld: must be at least 1",
            (long long)T);
    GsCall(build_hybrid(A, T));
    A->kernel = GS_SPMV_HYBRID;
  } else {
    GsCheck(type == GS_MAT_SPMV_CSR, ctx, GS_ERR_ARG_OUTOFRANGE, "unknown SpMV type %d", (int)type);
    A->kernel = GS_SPMV_CSR;
  }
  return 0;
}

int GsMatSetSpMVType(GsMat A, GsMatSpMVType type, GsInt C, GsInt sigma) {
  GsCheckHandle(NULL, A);
  GsCall(set_kernel(A, type, C > 0 ? C : 32, sigma > 0 ? sigma : 1));
  return 0;
}

/* The kernel at the first product, from the options: -mat_spmv auto|csr|ell|sell|merge|hybrid, SELL
 * with -mat_spmv_sell_c C (default 32, a warp) and -mat_spmv_sell_sigma S (default 1: no sorting).
 */
static int choose_kernel(GsMat A) {
  if (A->kernel) return 0;
  GsContext ctx = A->ctx;
  static const char *const kernels[] = {"auto", "csr", "ell", "sell", "merge", "hybrid", NULL};
  static const GsMatSpMVType types[] = {GS_MAT_SPMV_AUTO, GS_MAT_SPMV_CSR,   GS_MAT_SPMV_ELL,
                                        GS_MAT_SPMV_SELL, GS_MAT_SPMV_MERGE, GS_MAT_SPMV_HYBRID};
  int k = 0;
  GsInt C = 32, sigma = 1;
  GsCall(GsOptionsGetEnum(ctx, "-mat_spmv", kernels, &k, NULL));
  GsCall(GsOptionsGetInt(ctx, "-mat_spmv_sell_c", &C, NULL));
  GsCall(GsOptionsGetInt(ctx, "-mat_spmv_sell_sigma", &sigma, NULL));
  GsCheck(C >= 1 && C <= 1024, ctx, GS_ERR_OPTION, "-mat_spmv_sell_c %lld: must be in [1, 1024]",
          (long long)C);
  GsCheck(sigma >= 1, ctx, GS_ERR_OPTION, "-mat_spmv_sell_sigma %lld: must be at least 1",
          (long long)sigma);
  GsCall(set_kernel(A, types[k], C, sigma));
  return 0;
}

/* Copy bytes of host array src into a new device array *dst. */
static int to_device(GsContext ctx, void **dst, const void *src, size_t bytes) {
  GsCall(GsMemAlloc(ctx, bytes ? bytes : 1, dst));
  if (bytes) GsCall(GsMemCopy(ctx, *dst, GS_MEM_DEVICE, src, GS_MEM_HOST, bytes));
  return 0;
}

/* The device copy of the chosen form, made once (CSR: with 32-bit offsets). */
static int upload_form(GsMat A) {
  GsContext ctx = A->ctx;
  const size_t m1 = (size_t)A->m + 1;
  if (A->kernel == GS_SPMV_SELL || A->kernel == GS_SPMV_HYBRID) {
    const size_t total = (size_t)A->sell_ptr[A->nslices];
    GsCall(to_device(ctx, (void **)&A->d_sell_ptr, A->sell_ptr,
                     ((size_t)A->nslices + 1) * sizeof(GsInt)));
    GsCall(to_device(ctx, (void **)&A->d_sell_col, A->sell_col, total * sizeof(int)));
    GsCall(to_device(ctx, (void **)&A->d_sell_val, A->sell_val, total * sizeof(double)));
    if (A->sell_perm)
      GsCall(
          to_device(ctx, (void **)&A->d_sell_perm, A->sell_perm, (size_t)A->sell_m * sizeof(int)));
    if (A->kernel == GS_SPMV_SELL) return 0;
  }
  /* Merge over all rows, or over the long rows of the hybrid form. */
  const int hyb = A->kernel == GS_SPMV_HYBRID;
  const GsInt mm = hyb ? A->long_m : A->m, mnz = hyb ? A->long_nnz : A->nnz;
  GsCall(to_device(ctx, (void **)&A->d_col, hyb ? A->long_col : A->col, (size_t)mnz * sizeof(int)));
  GsCall(
      to_device(ctx, (void **)&A->d_val, hyb ? A->long_val : A->val, (size_t)mnz * sizeof(double)));
  if (A->kernel == GS_SPMV_MERGE || hyb) {
    GsMatInfo info;
    memset(&info, 0, sizeof info);
    info.merge_m = mm;
    info.merge_nnz = mnz;
    A->merge_blocks = ctx->ops->mat.merge_blocks(&info);
    const size_t nb = (size_t)(A->merge_blocks ? A->merge_blocks : 1);
    GsCall(to_device(ctx, (void **)&A->d_rowptr64, hyb ? A->long_rowptr : A->rowptr,
                     ((size_t)mm + 1) * sizeof(GsInt)));
    if (mnz <= INT_MAX) { /* the product reads 32-bit row ends where they fit */
      const GsInt *src = hyb ? A->long_rowptr : A->rowptr;
      int *rp = malloc(((size_t)mm + 1) * sizeof *rp);
      GsCheck(rp != NULL, ctx, GS_ERR_MEMORY, "cannot allocate 32-bit row offsets");
      for (GsInt i = 0; i <= mm; i++)
        rp[i] = (int)src[i];
      const int ierr = to_device(ctx, (void **)&A->d_rowptr, rp, ((size_t)mm + 1) * sizeof(int));
      free(rp);
      GsCall(ierr);
    }
    if (hyb)
      GsCall(to_device(ctx, (void **)&A->d_long_rows, A->long_rows, (size_t)mm * sizeof(int)));
    GsCall(GsMemAlloc(ctx, nb * sizeof(GsInt), (void **)&A->d_merge_row));
    GsCall(GsMemAlloc(ctx, nb * sizeof(double), (void **)&A->d_merge_val));
    GsCall(GsMemAlloc(ctx, (nb + 1) * sizeof(GsInt), (void **)&A->d_merge_start));
    if (ctx->ops->mat.merge_setup) {
      info.rowptr = A->d_rowptr64;
      info.merge_rows = A->d_long_rows;
      info.merge_blocks = A->merge_blocks;
      info.merge_start = A->d_merge_start;
      GsCall(ctx->ops->mat.merge_setup(ctx, &info));
    }
    return 0;
  }
  int *rp = malloc(m1 * sizeof *rp);
  GsCheck(rp != NULL, ctx, GS_ERR_MEMORY, "cannot allocate 32-bit row offsets");
  for (GsInt i = 0; i <= A->m; i++)
    rp[i] = (int)A->rowptr[i];
  const int ierr = to_device(ctx, (void **)&A->d_rowptr, rp, m1 * sizeof(int));
  free(rp);
  GsCall(ierr);
  return 0;
}

/* Whether products run on the device: a device back end with an SpMV, and 32-bit offsets for the
 * CSR kernel (larger CSR matrices run on the host; SELL and merge take 64-bit offsets). */
static int device_ready(GsMat A) {
  GsContext ctx = A->ctx;
  if (!ctx->ops->mat.spmv || ctx->ops->mem != GS_MEM_DEVICE) return 0;
  if (A->kernel == GS_SPMV_CSR && A->nnz > INT_MAX) return 0;
  return 1;
}

static int upload(GsMat A) {
  if (A->on_device) return 0;
  const int ierr = upload_form(A);
  if (ierr) {
    free_device(A);
    return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  }
  A->on_device = 1;
  return 0;
}

int GsMatGetSpMVKernel(GsMat A, const char **name) {
  GsCheckHandle(NULL, A);
  GsCheckHandle(A->ctx, name);
  if (A->kernel == GS_SPMV_SELL && A->ell)
    snprintf(A->kernel_name, sizeof A->kernel_name, "ell");
  else if (A->kernel == GS_SPMV_SELL)
    snprintf(A->kernel_name, sizeof A->kernel_name, "sell/C=%lld/sigma=%d", (long long)A->sell_c,
             A->sell_sigma);
  else if (A->kernel == GS_SPMV_MERGE && A->npanels > 1)
    snprintf(A->kernel_name, sizeof A->kernel_name, "merge/panels=%d", A->npanels);
  else if (A->kernel == GS_SPMV_MERGE)
    snprintf(A->kernel_name, sizeof A->kernel_name, "merge");
  else if (A->kernel == GS_SPMV_HYBRID)
    snprintf(A->kernel_name, sizeof A->kernel_name, "hybrid/T=%lld", (long long)A->hybrid_t);
  else if (A->kernel == GS_SPMV_CSR && A->on_device)
    snprintf(A->kernel_name, sizeof A->kernel_name, "csr/G=%d", A->group);
  else if (A->kernel == GS_SPMV_CSR)
    snprintf(A->kernel_name, sizeof A->kernel_name, "csr");
  else
    A->kernel_name[0] = '\0';
  *name = A->kernel_name;
  return 0;
}

int GsMatGetSELL(GsMat A, GsInt *C, GsInt *nslices, const GsInt **slice_ptr, const int **perm,
                 const int **col, const double **val) {
  GsCheckHandle(NULL, A);
  GsCheck(A->kernel == GS_SPMV_SELL, A->ctx, GS_ERR_WRONG_STATE,
          "the matrix has no SELL form: its SpMV type is not ELL or SELL");
  if (C) *C = A->sell_c;
  if (nslices) *nslices = A->nslices;
  if (slice_ptr) *slice_ptr = A->sell_ptr;
  if (perm) *perm = A->sell_perm;
  if (col) *col = A->sell_col;
  if (val) *val = A->sell_val;
  return 0;
}

/* Column panels of the merge form: -mat_spmv_panels K (1: none), or automatically on a device
 * with a known L2: none while x takes at most 60 % of the L2, else as many as keep each panel's
 * part of x within half of it (H200, power law 2^24 rows, x 134 MB, L2 60 MB, in one run: 1 / 2 /
 * 3 / 4 / 6 / 8 panels 4.18 / 3.38 / 2.87 / 2.60 / 2.56 / 2.82 ms; 2^22 rows, x 34 MB (53 %): 1 /
 * 2 / 3 panels 0.471 / 0.469 / 0.533 ms in that run, then 466.5 / 468.0 us, and with the merge
 * kernels launched early 465.2 / 464.5 / 462.2 against 467.9 / 468.3 / 469.3 us in three rounds of
 * one call, `sparse-merge-ab-nvidia-h200.json`). */
static int choose_panels(GsMat A) {
  if (A->npanels) return 0;
  GsContext ctx = A->ctx;
  GsInt K = 0;
  int set = 0;
  GsCall(GsOptionsGetInt(ctx, "-mat_spmv_panels", &K, &set));
  GsCheck(!set || (K >= 1 && K <= 64), ctx, GS_ERR_OPTION,
          "-mat_spmv_panels %lld: must be in [1, 64]", (long long)K);
  if (!set) {
    K = 1;
    GsDeviceInfo info;
    if (ctx->ops->mem == GS_MEM_DEVICE && !GsGetDeviceInfo(ctx, &info) && info.l2_cache > 0) {
      const double half = 0.5 * (double)info.l2_cache, xb = 8.0 * (double)A->n;
      if (xb > 0.6 * (double)info.l2_cache) K = (GsInt)ceil(xb / half);
      if (K > 64) K = 64;
    }
  }
  if (K > A->n) K = A->n > 0 ? A->n : 1;
  A->npanels = (int)K;
  return 0;
}

/* The panels of a merge form: K matrices of A's rows, panel k with the entries of columns
 * [n k / K, n (k + 1) / K), in merge form (each row's entries stay in order). */
static int make_panels(GsMat A) {
  GsContext ctx = A->ctx;
  const int K = A->npanels;
  A->panels = calloc((size_t)K, sizeof *A->panels);
  GsCheck(A->panels != NULL, ctx, GS_ERR_MEMORY, "cannot allocate %d panels", K);
  for (int k = 0; k < K; k++) {
    const GsInt c0 = A->n * k / K, c1 = A->n * (k + 1) / K;
    GsInt nz = 0;
    for (GsInt e = 0; e < A->nnz; e++)
      nz += A->col[e] >= c0 && A->col[e] < c1;
    GsMat P = NULL;
    GsCall(GsMatCreateEmpty_(ctx, A->m, A->n, nz, &P));
    A->panels[k] = P; /* destroyed with A's device form (free_device) */
    nz = 0;
    for (GsInt i = 0; i < A->m; i++) {
      for (GsInt e = A->rowptr[i]; e < A->rowptr[i + 1]; e++)
        if (A->col[e] >= c0 && A->col[e] < c1) {
          P->col[nz] = A->col[e];
          P->val[nz++] = A->val[e];
        }
      P->rowptr[i + 1] = nz;
    }
    P->nnz = nz;
    GsCall(set_kernel(P, GS_MAT_SPMV_MERGE, 32, 1));
  }
  return 0;
}

/* The back end's view of A's chosen form: in device memory (on_device), or on the host. */
static void mat_info(GsMat A, int on_device, GsMatInfo *info) {
  memset(info, 0, sizeof *info);
  info->m = A->m;
  info->n = A->n;
  info->nnz = A->nnz;
  info->kernel = A->kernel;
  info->group = A->group;
  info->sell_c = A->sell_c;
  info->nslices = A->nslices;
  info->sell_m = A->sell_m;
  info->merge_m = A->m;
  info->merge_nnz = A->nnz;
  if (on_device) {
    info->rowptr = A->d_rowptr64;
    info->rowptr32 = A->d_rowptr;
    info->col = A->d_col;
    info->val = A->d_val;
    info->sell_ptr = A->d_sell_ptr;
    info->sell_perm = A->d_sell_perm;
    info->sell_col = A->d_sell_col;
    info->sell_val = A->d_sell_val;
    info->merge_blocks = A->merge_blocks;
    if (A->kernel == GS_SPMV_HYBRID) {
      info->merge_m = A->long_m;
      info->merge_nnz = A->long_nnz;
      info->merge_rows = A->d_long_rows;
    }
    info->merge_start = A->d_merge_start;
    info->merge_row = A->d_merge_row;
    info->merge_val = A->d_merge_val;
  } else {
    info->rowptr = A->rowptr;
    info->col = A->col;
    info->val = A->val;
    info->sell_ptr = A->sell_ptr;
    info->sell_len = A->sell_len;
    info->sell_perm = A->sell_perm;
    info->sell_col = A->sell_col;
    info->sell_val = A->sell_val;
    if (A->kernel == GS_SPMV_HYBRID) { /* the long rows' CSR */
      info->rowptr = A->long_rowptr;
      info->col = A->long_col;
      info->val = A->long_val;
      info->merge_m = A->long_m;
      info->merge_nnz = A->long_nnz;
      info->merge_rows = A->long_rows;
    }
  }
}

/* y = alpha A x + beta y, and *xy = x . y when xy is not NULL (alpha 1, beta 0); with ds, x . y
 * goes to ds->res[0] in the back end's memory instead. */
static int mult(GsMat A, double alpha, GsVec x, double beta, GsVec y, double *xy,
                const GsDevScalars *ds) {
  GsContext ctx = A->ctx;
  GsCall(check_vec(A, x, "x", A->n));
  GsCall(check_vec(A, y, "y", A->m));
  GsCheck(x != y, ctx, GS_ERR_ARG_INCOMP, "x and y must be different vectors");
  GsCall(choose_kernel(A));
  if (A->kernel == GS_SPMV_MERGE) GsCall(choose_panels(A));
  const int np = A->kernel == GS_SPMV_MERGE && A->npanels > 1 ? A->npanels : 0;
  if (np && !A->panels) {
    const int perr = make_panels(A);
    if (perr) {
      free_device(A); /* the panels made so far; the next product tries again */
      return GsErrorTrace(perr, __FILE__, __LINE__, __func__);
    }
  }
  const double bytes = 12.0 * (double)A->nnz + 20.0 * (double)A->m;
  const int on_device = device_ready(A);
  if (on_device) /* once, and outside the timed event */
    for (int k = 0; k < (np ? np : 1); k++)
      GsCall(upload(np ? A->panels[k] : A));
  /* On the host: the back end's kernel, or for a device back end without a suitable one the CPU
   * kernel on host copies of the vectors. */
  int (*spmv)(GsContext, const GsMatInfo *, double, const double *, double, double *, double *,
              int *, const GsDevScalars *) =
      on_device || (ctx->ops->mat.spmv && ctx->ops->mem == GS_MEM_HOST) ? ctx->ops->mat.spmv
                                                                        : GsCpuMatSpMV;
  GsCall(GsLogEventBegin(ctx, A->ev_mult));
  int ierr = 0, fused = 0;
  const void *px = NULL;
  void *py = NULL;
  if (on_device) {
    GsCall(GsVecGetComputeArray(x, GS_ACCESS_READ, (void **)&px));
    GsCall(GsVecGetComputeArray(y, beta == 0 ? GS_ACCESS_WRITE : GS_ACCESS_READWRITE, &py));
  } else {
    GsCall(GsVecGetArrayRead(x, GS_MEM_HOST, &px));
    GsCall(beta == 0 ? GsVecGetArrayWrite(y, GS_MEM_HOST, &py)
                     : GsVecGetArray(y, GS_MEM_HOST, &py));
  }
  GsMatInfo info;
  if (np) { /* the panels' products summed in order; no fused dot */
    for (int k = 0; k < np && !ierr; k++) {
      int pf = 0;
      mat_info(A->panels[k], on_device, &info);
      ierr = spmv(ctx, &info, alpha, (const double *)px, k ? 1.0 : beta, (double *)py, NULL, &pf,
                  NULL);
    }
  } else {
    mat_info(A, on_device, &info);
    /* the dot fused where the product runs on its back end's memory (the CPU's kernels sum it
     * on the host, in the order of GsVecDot) */
    ierr =
        spmv(ctx, &info, alpha, (const double *)px, beta, (double *)py,
             on_device || ctx->ops->mem == GS_MEM_HOST ? xy : NULL, &fused, on_device ? ds : NULL);
  }
  if (!on_device) {
    GsCall(beta == 0 ? GsVecRestoreArrayWrite(y, &py) : GsVecRestoreArray(y, &py));
    GsCall(GsVecRestoreArrayRead(x, &px));
  }
  if (ierr) {
    GsLogEventCancel(ctx, A->ev_mult);
    return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  }
  GsCall(GsLogEventEnd(ctx, A->ev_mult, bytes, 2.0 * (double)A->nnz));
  if (xy && !fused) GsCall(GsVecDot(x, y, xy));
  /* a dot taken on the host to where it was asked for (a device kernel's fused one is there) */
  if (xy && ds && !(fused && on_device))
    GsCall(GsMemCopy(ctx, ds->res, ctx->ops->mem, xy, GS_MEM_HOST, sizeof(double)));
  return 0;
}

int GsMatMult(GsMat A, double alpha, GsVec x, double beta, GsVec y) {
  GsCheckHandle(NULL, A);
  GsCall(mult(A, alpha, x, beta, y, NULL, NULL));
  return 0;
}

int GsMatMultDot(GsMat A, GsVec x, GsVec y, double *xy) {
  GsCheckHandle(NULL, A);
  GsCheckHandle(A->ctx, xy);
  GsCheck(A->m == A->n, A->ctx, GS_ERR_ARG_SIZE, "x . Ax needs a square matrix, not %lld x %lld",
          (long long)A->m, (long long)A->n);
  GsCall(mult(A, 1.0, x, 0.0, y, xy, NULL));
  return 0;
}

int GsMatMultDotScalars(GsMat A, GsVec x, GsVec y, GsScalars s, int i) {
  GsCheckHandle(NULL, A);
  GsCall(GsScalarsCheckFor(A->ctx, s, "for x . Ax", i, 1));
  GsCheck(A->m == A->n, A->ctx, GS_ERR_ARG_SIZE, "x . Ax needs a square matrix, not %lld x %lld",
          (long long)A->m, (long long)A->n);
  GsDevScalars ds = {NULL, NULL, NULL, NULL, s->d + i};
  double xy = 0;
  GsCall(mult(A, 1.0, x, 0.0, y, &xy, &ds));
  return 0;
}
