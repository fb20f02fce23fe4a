/* Sparse CSR matrices: assembly, generators, queries, transpose, diagonal, and SpMV dispatch. The
 * CSR arrays live on the host; a device back end gets a copy with 32-bit offsets at its first
 * product. A back end without an SpMV (or a matrix past 32-bit offsets on a GPU) gets the CPU
 * kernel on host copies of the vectors. */
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
  free(B->sell_ptr);
  free(B->sell_len);
  free(B->sell_perm);
  free(B->sell_col);
  free(B->sell_val);
  GsMemFree(B->ctx, B->d_rowptr);
  GsMemFree(B->ctx, B->d_col);
  GsMemFree(B->ctx, B->d_val);
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

/* The SELL-C-sigma copy on the host (see matimpl.h). */
static int build_sell(GsMat A, int C, int sigma) {
  GsContext ctx = A->ctx;
  const GsInt m = A->m, ns = (m + C - 1) / C;
  free(A->sell_perm); /* a failed earlier attempt */
  free(A->sell_len);
  free(A->sell_ptr);
  free(A->sell_col);
  free(A->sell_val);
  A->sell_col = NULL;
  A->sell_val = NULL;
  A->sell_perm = malloc((size_t)(m ? m : 1) * sizeof *A->sell_perm);
  A->sell_len = malloc((size_t)(m ? m : 1) * sizeof *A->sell_len);
  A->sell_ptr = malloc(((size_t)ns + 1) * sizeof *A->sell_ptr);
  GsCheck(A->sell_perm && A->sell_len && A->sell_ptr, ctx, GS_ERR_MEMORY,
          "cannot allocate the SELL layout");
  for (GsInt i = 0; i < m; i++)
    A->sell_perm[i] = (int)i;
  /* Sort each window of sigma rows by length, longest first (stable: insertion sort on the
   * window, rows keep their order among equal lengths). */
  if (sigma > 1)
    for (GsInt w0 = 0; w0 < m; w0 += sigma) {
      const GsInt w1 = w0 + sigma < m ? w0 + sigma : m;
      for (GsInt i = w0 + 1; i < w1; i++) {
        const int r = A->sell_perm[i];
        const GsInt len = A->rowptr[r + 1] - A->rowptr[r];
        GsInt j = i - 1;
        while (j >= w0 && A->rowptr[A->sell_perm[j] + 1] - A->rowptr[A->sell_perm[j]] < len) {
          A->sell_perm[j + 1] = A->sell_perm[j];
          j--;
        }
        A->sell_perm[j + 1] = r;
      }
    }
  A->sell_ptr[0] = 0;
  for (GsInt s = 0; s < ns; s++) {
    GsInt width = 0;
    for (GsInt p = s * C; p < (s + 1) * C && p < m; p++) {
      const int r = A->sell_perm[p];
      A->sell_len[p] = (int)(A->rowptr[r + 1] - A->rowptr[r]);
      width = A->sell_len[p] > width ? A->sell_len[p] : width;
    }
    A->sell_ptr[s + 1] = A->sell_ptr[s] + width * C;
  }
  const size_t total = (size_t)(A->sell_ptr[ns] ? A->sell_ptr[ns] : 1);
  A->sell_col = calloc(total, sizeof *A->sell_col); /* padding: column 0, value 0, never read */
  A->sell_val = calloc(total, sizeof *A->sell_val);
  GsCheck(A->sell_col && A->sell_val, ctx, GS_ERR_MEMORY,
          "cannot allocate %zu SELL entries (%lld stored)", total, (long long)A->nnz);
  for (GsInt p = 0; p < m; p++) {
    const GsInt s = p / C, r = p % C, row = A->sell_perm[p];
    for (int j = 0; j < A->sell_len[p]; j++) {
      const GsInt q = A->sell_ptr[s] + (GsInt)j * C + r, k = A->rowptr[row] + j;
      A->sell_col[q] = A->col[k];
      A->sell_val[q] = A->val[k];
    }
  }
  A->nslices = ns;
  A->sell_c = C;
  A->sell_sigma = sigma;
  return 0;
}

/* The SpMV kernel, chosen once (the matrix does not change): -mat_spmv auto|csr|sell, SELL with
 * -mat_spmv_sell_c C (default 32, a warp) and -mat_spmv_sell_sigma S (default 1: no sorting). */
static int choose_kernel(GsMat A) {
  if (A->kernel) return 0;
  GsContext ctx = A->ctx;
  static const char *const kernels[] = {"auto", "csr", "sell", NULL};
  int k = 0;
  GsInt C = 32, sigma = 1;
  GsCall(GsOptionsGetEnum(ctx, "-mat_spmv", kernels, &k, NULL));
  GsCall(GsOptionsGetInt(ctx, "-mat_spmv_sell_c", &C, NULL));
  GsCall(GsOptionsGetInt(ctx, "-mat_spmv_sell_sigma", &sigma, NULL));
  if (k == 2) {
    GsCheck(C >= 1 && C <= 1024, ctx, GS_ERR_OPTION, "-mat_spmv_sell_c %lld: must be in [1, 1024]",
            (long long)C);
    GsCheck(sigma >= 1, ctx, GS_ERR_OPTION, "-mat_spmv_sell_sigma %lld: must be at least 1",
            (long long)sigma);
    GsCall(build_sell(A, (int)C, sigma > A->m ? (int)(A->m ? A->m : 1) : (int)sigma));
    A->kernel = GS_SPMV_SELL;
  } else {
    A->kernel = GS_SPMV_CSR;
  }
  return 0;
}

/* The device copy, made once (matrices do not change after creation), and the threads per row:
 * a power of two giving each lane about 6 entries of an average row (-mat_spmv_group forces
 * one). */
static int upload(GsMat A) {
  if (A->d_val) return 0;
  GsContext ctx = A->ctx;
  GsInt group = 1;
  const double mean = A->m ? (double)A->nnz / (double)A->m : 0;
  while (group < 32 && 2.0 * (double)group * 6.0 <= mean)
    group *= 2;
  GsCall(GsOptionsGetInt(ctx, "-mat_spmv_group", &group, NULL));
  GsCheck(group == 1 || group == 2 || group == 4 || group == 8 || group == 16 || group == 32, ctx,
          GS_ERR_OPTION, "-mat_spmv_group %lld: must be 1, 2, 4, 8, 16 or 32", (long long)group);
  int *rp = malloc(((size_t)A->m + 1) * sizeof *rp);
  GsCheck(rp != NULL, ctx, GS_ERR_MEMORY, "cannot allocate 32-bit row offsets");
  for (GsInt i = 0; i <= A->m; i++)
    rp[i] = (int)A->rowptr[i];
  const size_t nz = (size_t)(A->nnz ? A->nnz : 1);
  int ierr = GsMemAlloc(ctx, ((size_t)A->m + 1) * sizeof(int), (void **)&A->d_rowptr);
  if (!ierr) ierr = GsMemAlloc(ctx, nz * sizeof(int), (void **)&A->d_col);
  if (!ierr) ierr = GsMemAlloc(ctx, nz * sizeof(double), (void **)&A->d_val);
  if (!ierr)
    ierr = GsMemCopy(ctx, A->d_rowptr, GS_MEM_DEVICE, rp, GS_MEM_HOST,
                     ((size_t)A->m + 1) * sizeof(int));
  if (!ierr && A->nnz)
    ierr =
        GsMemCopy(ctx, A->d_col, GS_MEM_DEVICE, A->col, GS_MEM_HOST, (size_t)A->nnz * sizeof(int));
  if (!ierr && A->nnz)
    ierr = GsMemCopy(ctx, A->d_val, GS_MEM_DEVICE, A->val, GS_MEM_HOST,
                     (size_t)A->nnz * sizeof(double));
  free(rp);
  if (ierr) {
    GsMemFree(ctx, A->d_rowptr);
    GsMemFree(ctx, A->d_col);
    GsMemFree(ctx, A->d_val);
    A->d_rowptr = A->d_col = NULL;
    A->d_val = NULL;
    return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  }
  A->group = (int)group;
  return 0;
}

int GsMatGetSpMVKernel(GsMat A, const char **name) {
  GsCheckHandle(NULL, A);
  GsCheckHandle(A->ctx, name);
  if (A->kernel == GS_SPMV_SELL)
    snprintf(A->kernel_name, sizeof A->kernel_name, "sell/C=%d/sigma=%d", A->sell_c, A->sell_sigma);
  else if (A->kernel == GS_SPMV_CSR && A->d_val)
    snprintf(A->kernel_name, sizeof A->kernel_name, "csr/G=%d", A->group);
  else if (A->kernel == GS_SPMV_CSR)
    snprintf(A->kernel_name, sizeof A->kernel_name, "csr");
  else
    A->kernel_name[0] = '\0';
  *name = A->kernel_name;
  return 0;
}

int GsMatMult(GsMat A, double alpha, GsVec x, double beta, GsVec y) {
  GsCheckHandle(NULL, A);
  GsContext ctx = A->ctx;
  GsCall(check_vec(A, x, "x", A->n));
  GsCall(check_vec(A, y, "y", A->m));
  GsCheck(x != y, ctx, GS_ERR_ARG_INCOMP, "x and y must be different vectors");
  GsMatInfo info;
  memset(&info, 0, sizeof info);
  info.m = A->m;
  info.n = A->n;
  info.nnz = A->nnz;
  info.rowptr = A->rowptr;
  info.col = A->col;
  info.val = A->val;
  info.group = 1;
  const double bytes = 12.0 * (double)A->nnz + 20.0 * (double)A->m;
  GsCall(choose_kernel(A));
  info.kernel = A->kernel;
  if (A->kernel == GS_SPMV_SELL) {
    info.sell_c = A->sell_c;
    info.nslices = A->nslices;
    info.sell_ptr = A->sell_ptr;
    info.sell_len = A->sell_len;
    info.sell_perm = A->sell_perm;
    info.sell_col = A->sell_col;
    info.sell_val = A->sell_val;
  }
  /* The device has a CSR kernel; SELL runs on the host until it has one. */
  const int on_device = ctx->ops->mat.spmv && ctx->ops->mem == GS_MEM_DEVICE && A->nnz <= INT_MAX &&
                        A->kernel == GS_SPMV_CSR;
  if (on_device) GsCall(upload(A)); /* once, and outside the timed event */
  GsCall(GsLogEventBegin(ctx, A->ev_mult));
  int ierr;
  if (on_device) {
    info.rowptr32 = A->d_rowptr;
    info.col = A->d_col;
    info.val = A->d_val;
    info.group = A->group;
    void *px = NULL, *py = NULL;
    GsCall(GsVecGetComputeArray(x, GS_ACCESS_READ, &px));
    GsCall(GsVecGetComputeArray(y, beta == 0 ? GS_ACCESS_WRITE : GS_ACCESS_READWRITE, &py));
    ierr = ctx->ops->mat.spmv(ctx, &info, alpha, (const double *)px, beta, (double *)py);
  } else {
    /* On the host: the back end's kernel, or for a device back end without a suitable one the
     * CPU kernel on host copies of the vectors. */
    int (*spmv)(GsContext, const GsMatInfo *, double, const double *, double, double *) =
        ctx->ops->mat.spmv && ctx->ops->mem == GS_MEM_HOST ? ctx->ops->mat.spmv : GsCpuMatSpMV;
    const double *px = NULL;
    double *py = NULL;
    GsCall(GsVecGetArrayRead(x, GS_MEM_HOST, (const void **)&px));
    GsCall(beta == 0 ? GsVecGetArrayWrite(y, GS_MEM_HOST, (void **)&py)
                     : GsVecGetArray(y, GS_MEM_HOST, (void **)&py));
    ierr = spmv(ctx, &info, alpha, px, beta, py);
    GsCall(beta == 0 ? GsVecRestoreArrayWrite(y, (void **)&py)
                     : GsVecRestoreArray(y, (void **)&py));
    GsCall(GsVecRestoreArrayRead(x, (const void **)&px));
  }
  if (ierr) {
    GsLogEventCancel(ctx, A->ev_mult);
    return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  }
  GsCall(GsLogEventEnd(ctx, A->ev_mult, bytes, 2.0 * (double)A->nnz));
  return 0;
}
