/* CPU sparse matrix kernels: CSR SpMV, rows split over OpenMP threads. Each row's sum runs in
 * column order, so the result does not depend on the thread count. */
#include "cpuimpl.h"

static int spmv_sell(const GsMatInfo *A, double alpha, const double *x, double beta, double *y);

int GsCpuMatSpMV(GsContext ctx, const GsMatInfo *A, double alpha, const double *x, double beta,
                 double *y) {
  (void)ctx;
  if (A->kernel == GS_SPMV_SELL) return spmv_sell(A, alpha, x, beta, y);
  const GsInt m = A->m;
  const GsInt *restrict rp = A->rowptr;
  const int *restrict col = A->col;
  const double *restrict val = A->val;
  /* Static schedule with a large chunk: rows are contiguous per thread; small matrices on one
   * thread (see GS_CPU_OMP_MIN in vec.c). */
  _Pragma("omp parallel for schedule(static, 1024) if (A->nnz > 65536)") for (GsInt i = 0; i < m;
                                                                              i++) {
    double s = 0;
    for (GsInt k = rp[i]; k < rp[i + 1]; k++)
      s += val[k] * x[col[k]];
    y[i] = beta == 0 ? alpha * s : alpha * s + beta * y[i];
  }
  return 0;
}

/* SELL-C-sigma: each row sums its entries in column order, as the CSR kernel does, so the two
 * give the same bits. */
static int spmv_sell(const GsMatInfo *A, double alpha, const double *x, double beta, double *y) {
  const int C = A->sell_c;
  const GsInt m = A->m;
  _Pragma("omp parallel for schedule(static, 64) if (A->nnz > 65536)") for (GsInt s = 0;
                                                                            s < A->nslices; s++) {
    const GsInt base = A->sell_ptr[s];
    for (int r = 0; r < C; r++) {
      const GsInt p = s * C + r;
      if (p >= m) break;
      double sum = 0;
      for (int j = 0; j < A->sell_len[p]; j++) {
        const GsInt q = base + (GsInt)j * C + r;
        sum += A->sell_val[q] * x[A->sell_col[q]];
      }
      const GsInt row = A->sell_perm[p];
      y[row] = beta == 0 ? alpha * sum : alpha * sum + beta * y[row];
    }
  }
  return 0;
}

void GsCpuFillMatKernels(GsMatKernels *k) {
  k->spmv = GsCpuMatSpMV;
}
