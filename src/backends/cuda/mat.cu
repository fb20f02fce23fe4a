/* CUDA sparse matrix kernels: CSR SpMV with G threads per row. A group of G lanes (a power of two
 * up to 32, chosen by the front end from the mean row length so that each lane gets a few
 * entries) strides over its row and sums with shuffles; G = 1 is the scalar kernel. x is read
 * through the read-only cache. Floor (double, 32-bit indices): 12 bytes per entry (value and
 * column) + 20 per row (x, y and the row offset). */
#include "cudaimpl.h"

#define GS_SPMV_THREADS 256

static __global__ void __launch_bounds__(GS_SPMV_THREADS)
    gs_spmv_csr_k(GsInt m, const int *__restrict__ rp, const int *__restrict__ col,
                  const double *__restrict__ val, double alpha, const double *__restrict__ x,
                  double beta, double *__restrict__ y, int G) {
  const GsInt t = (GsInt)blockIdx.x * blockDim.x + threadIdx.x;
  const GsInt row = t / G;
  const int lane = (int)(t % G);
  double s = 0;
  if (row < m) {
    const int b = rp[row], e = rp[row + 1];
    for (int k = b + lane; k < e; k += G)
      s += val[k] * __ldg(x + col[k]);
  }
  /* Every lane of the warp takes part in the shuffles (groups past m add zeros). */
  for (int off = G / 2; off > 0; off >>= 1)
    s += __shfl_xor_sync(0xffffffffu, s, off, G);
  if (row < m && lane == 0) y[row] = beta == 0 ? alpha * s : alpha * s + beta * y[row];
}

static int k_spmv(GsContext ctx, const GsMatInfo *A, double alpha, const double *x, double beta,
                  double *y) {
  GsCudaContext *cc = NULL;
  GsCall(GsCudaBegin(ctx, &cc));
  if (A->m == 0) return 0;
  const int G = A->group >= 1 && A->group <= 32 ? A->group : 1;
  const GsInt threads = A->m * G;
  const unsigned int blocks = (unsigned int)((threads + GS_SPMV_THREADS - 1) / GS_SPMV_THREADS);
  gs_spmv_csr_k<<<blocks, GS_SPMV_THREADS, 0, cc->stream>>>(A->m, A->rowptr32, A->col, A->val,
                                                            alpha, x, beta, y, G);
  GsCheckLaunchCuda(ctx, "gs_spmv_csr_k");
  return 0;
}

extern "C" void GsCudaFillMatKernels(GsMatKernels *k) {
  k->spmv = k_spmv;
}
