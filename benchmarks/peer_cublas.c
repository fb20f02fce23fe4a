/* cuBLAS peers of the vector benchmarks: the same operation on the same size, timed the same way as
 * the library's kernels (CUDA events around each call, median of the repeats). A benchmark, not the
 * library, so it uses the CUDA headers directly. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "peer_cublas.h"
#include "peer_common.h"

#define PEER_CUBLAS(expr)                                                                          \
  do {                                                                                             \
    cublasStatus_t s_ = (expr);                                                                    \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                             \
      ierr = peer_fail(errbuf, errlen, "%s: %s (%s)", #expr, cublasGetStatusName(s_),              \
                       cublasGetStatusString(s_));                                                 \
      goto done;                                                                                   \
    }                                                                                              \
  } while (0)

static int peer_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Values in [-1, 1) from a 64-bit LCG: cheap enough for 2^27 entries, and the same every run. */
static void peer_fill(double *h, long long n, uint64_t seed) {
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (long long i = 0; i < n; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    h[i] = (double)(s >> 11) * (2.0 / 9007199254740992.0) - 1.0;
  }
}

/* One call of the operation; dot and nrm2 return to host memory, so they wait for the result. */
static cublasStatus_t peer_call(cublasHandle_t h, int op, long long n, const double *x, double *y,
                                double *result) {
  const double alpha = 1e-3; /* small, so that y stays bounded over many repeats */
  switch (op) {
  case 0:
    return cublasDaxpy_64(h, (int64_t)n, &alpha, x, 1, y, 1);
  case 1:
    return cublasDdot_64(h, (int64_t)n, x, 1, y, 1, result);
  default:
    return cublasDnrm2_64(h, (int64_t)n, x, 1, result);
  }
}

int GsBenchPeerCublas(const char *op, long long n, int repeats, double *median_seconds,
                      char *errbuf, size_t errlen) {
  int ierr = 0, iop;
  double *host = NULL, *x = NULL, *y = NULL, *t = NULL, result = 0.0;
  cublasHandle_t handle = NULL;
  cudaEvent_t start = NULL, stop = NULL;
  size_t bytes;

  if (errbuf && errlen) errbuf[0] = '\0';
  if (!op || !median_seconds) return peer_fail(errbuf, errlen, "null argument");
  if (!strcmp(op, "axpy"))
    iop = 0;
  else if (!strcmp(op, "dot"))
    iop = 1;
  else if (!strcmp(op, "nrm2"))
    iop = 2;
  else
    return peer_fail(errbuf, errlen, "unknown operation \"%s\" (axpy, dot, nrm2)", op);
  if (n < 1 || repeats < 1)
    return peer_fail(errbuf, errlen, "need n >= 1 and repeats >= 1 (n = %lld, repeats = %d)", n,
                     repeats);
  bytes = (size_t)n * sizeof(double);

  host = malloc(bytes);
  t = malloc((size_t)repeats * sizeof *t);
  if (!host || !t) {
    ierr = peer_fail(errbuf, errlen, "cannot allocate %zu bytes of host memory", bytes);
    goto done;
  }
  PEER_CUDA(cudaMalloc((void **)&x, bytes));
  PEER_CUDA(cudaMalloc((void **)&y, bytes));
  peer_fill(host, n, 1);
  PEER_CUDA(cudaMemcpy(x, host, bytes, cudaMemcpyHostToDevice));
  peer_fill(host, n, 2);
  PEER_CUDA(cudaMemcpy(y, host, bytes, cudaMemcpyHostToDevice));
  free(host);
  host = NULL;

  PEER_CUBLAS(cublasCreate(&handle));
  PEER_CUBLAS(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST));
  PEER_CUDA(cudaEventCreate(&start));
  PEER_CUDA(cudaEventCreate(&stop));

  /* Warm-up: library initialisation, kernel loading, clocks. */
  PEER_CUBLAS(peer_call(handle, iop, n, x, y, &result));
  PEER_CUDA(cudaDeviceSynchronize());
  for (int r = 0; r < repeats; r++) {
    float ms = 0.0f;
    /* The handle runs on the default stream; the events bracket the call there. */
    PEER_CUDA(cudaEventRecord(start, 0));
    PEER_CUBLAS(peer_call(handle, iop, n, x, y, &result));
    PEER_CUDA(cudaEventRecord(stop, 0));
    PEER_CUDA(cudaEventSynchronize(stop));
    PEER_CUDA(cudaEventElapsedTime(&ms, start, stop));
    t[r] = 1e-3 * (double)ms;
  }
  qsort(t, (size_t)repeats, sizeof *t, peer_cmp);
  *median_seconds = repeats % 2 ? t[repeats / 2] : 0.5 * (t[repeats / 2 - 1] + t[repeats / 2]);

done:
  /* Release quietly, keeping the first error's message. */
  if (start) (void)cudaEventDestroy(start);
  if (stop) (void)cudaEventDestroy(stop);
  if (handle) (void)cublasDestroy(handle);
  if (x) (void)cudaFree(x);
  if (y) (void)cudaFree(y);
  if (ierr) (void)cudaGetLastError();
  free(host);
  free(t);
  return ierr;
}
