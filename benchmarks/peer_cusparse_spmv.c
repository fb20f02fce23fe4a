/* cuSPARSE SpMV peer: the same CSR matrix and x, timed the way the library's kernels are (CUDA
 * events around each call). A benchmark, not the library, so it uses the CUDA headers directly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <cusparse.h>

#include "peer_common.h"
#include "peer_cusparse_spmv.h"

#define SP_CUSPARSE(expr)                                                                          \
  do {                                                                                             \
    cusparseStatus_t s_ = (expr);                                                                  \
    if (s_ != CUSPARSE_STATUS_SUCCESS) {                                                           \
      ierr = peer_fail(errbuf, errlen, "%s: %s", #expr, cusparseGetErrorString(s_));               \
      goto done;                                                                                   \
    }                                                                                              \
  } while (0)

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int GsBenchPeerCusparseSpmv(const GsBenchPeerSpmvArgs *a, double *median_s, double *min_s,
                            char *errbuf, size_t errlen) {
  int ierr = 0;
  cusparseHandle_t h = NULL;
  cusparseSpMatDescr_t A = NULL;
  cusparseDnVecDescr_t X = NULL, Y = NULL;
  int *d_rp = NULL, *d_col = NULL, *rp32 = NULL;
  double *d_val = NULL, *d_x = NULL, *d_y = NULL, *t = NULL;
  void *buf = NULL;
  size_t bytes = 0;
  cudaEvent_t e0 = NULL, e1 = NULL;
  const double one = 1.0, zero = 0.0;
  if (a->nnz > 2147483647LL || a->repeats < 1)
    return peer_fail(errbuf, errlen, "needs 32-bit offsets and at least one repeat");
  rp32 = malloc(((size_t)a->m + 1) * sizeof *rp32);
  t = malloc((size_t)a->repeats * sizeof *t);
  if (!rp32 || !t) {
    ierr = peer_fail(errbuf, errlen, "out of host memory");
    goto done;
  }
  for (int64_t i = 0; i <= a->m; i++)
    rp32[i] = (int)a->rowptr[i];
  PEER_CUDA(cudaMalloc((void **)&d_rp, ((size_t)a->m + 1) * sizeof(int)));
  PEER_CUDA(cudaMalloc((void **)&d_col, (size_t)(a->nnz ? a->nnz : 1) * sizeof(int)));
  PEER_CUDA(cudaMalloc((void **)&d_val, (size_t)(a->nnz ? a->nnz : 1) * sizeof(double)));
  PEER_CUDA(cudaMalloc((void **)&d_x, (size_t)(a->n ? a->n : 1) * sizeof(double)));
  PEER_CUDA(cudaMalloc((void **)&d_y, (size_t)(a->m ? a->m : 1) * sizeof(double)));
  PEER_CUDA(cudaMemcpy(d_rp, rp32, ((size_t)a->m + 1) * sizeof(int), cudaMemcpyHostToDevice));
  PEER_CUDA(cudaMemcpy(d_col, a->col, (size_t)a->nnz * sizeof(int), cudaMemcpyHostToDevice));
  PEER_CUDA(cudaMemcpy(d_val, a->val, (size_t)a->nnz * sizeof(double), cudaMemcpyHostToDevice));
  PEER_CUDA(cudaMemcpy(d_x, a->x, (size_t)a->n * sizeof(double), cudaMemcpyHostToDevice));
  SP_CUSPARSE(cusparseCreate(&h));
  SP_CUSPARSE(cusparseCreateCsr(&A, a->m, a->n, a->nnz, d_rp, d_col, d_val, CUSPARSE_INDEX_32I,
                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  SP_CUSPARSE(cusparseCreateDnVec(&X, a->n, d_x, CUDA_R_64F));
  SP_CUSPARSE(cusparseCreateDnVec(&Y, a->m, d_y, CUDA_R_64F));
  SP_CUSPARSE(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y,
                                      CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1, &bytes));
  PEER_CUDA(cudaMalloc(&buf, bytes ? bytes : 1));
  PEER_CUDA(cudaEventCreate(&e0));
  PEER_CUDA(cudaEventCreate(&e1));
  for (int r = -1; r < a->repeats; r++) { /* r = -1: warm-up */
    PEER_CUDA(cudaEventRecord(e0, 0));
    SP_CUSPARSE(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_64F,
                             CUSPARSE_SPMV_CSR_ALG1, buf));
    PEER_CUDA(cudaEventRecord(e1, 0));
    PEER_CUDA(cudaEventSynchronize(e1));
    float ms = 0;
    PEER_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    if (r >= 0) t[r] = 1e-3 * (double)ms;
  }
  qsort(t, (size_t)a->repeats, sizeof *t, cmp_d);
  *median_s = t[a->repeats / 2];
  *min_s = t[0];
  if (a->y) PEER_CUDA(cudaMemcpy(a->y, d_y, (size_t)a->m * sizeof(double), cudaMemcpyDeviceToHost));
done:
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  if (X) cusparseDestroyDnVec(X);
  if (Y) cusparseDestroyDnVec(Y);
  if (A) cusparseDestroySpMat(A);
  if (h) cusparseDestroy(h);
  cudaFree(buf);
  cudaFree(d_rp);
  cudaFree(d_col);
  cudaFree(d_val);
  cudaFree(d_x);
  cudaFree(d_y);
  free(rp32);
  free(t);
  return ierr;
}
