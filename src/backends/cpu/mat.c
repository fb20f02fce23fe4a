/* CPU sparse matrix kernels: CSR SpMV, rows split over OpenMP threads. Each row's sum runs in
 * column order, so the result does not depend on the thread count. */
#include "cpuimpl.h"

int GsCpuMatSpMV(GsContext ctx, const GsMatInfo *A, double alpha, const double *x, double beta,
                 double *y) {
  (void)ctx;
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

void GsCpuFillMatKernels(GsMatKernels *k) {
  k->spmv = GsCpuMatSpMV;
}
