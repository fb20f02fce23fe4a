/* cuSPARSE peers of the batched banded benchmarks: the same systems (the caller's device arrays,
 * copied), timed the same way as the library's kernels (CUDA events around each call, median of the
 * repeats). A benchmark, not the library, so it uses the CUDA headers directly. */
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <cusparse.h>

#include "peer_cusparse.h"
#include "peer_common.h"

#define PEER_CUSPARSE(expr)                                                                        \
  do {                                                                                             \
    cusparseStatus_t s_ = (expr);                                                                  \
    if (s_ != CUSPARSE_STATUS_SUCCESS) {                                                           \
      ierr = peer_fail(errbuf, errlen, "%s: %s (%s)", #expr, cusparseGetErrorName(s_),             \
                       cusparseGetErrorString(s_));                                                \
      goto done;                                                                                   \
    }                                                                                              \
  } while (0)

enum { GPSV_INTERLEAVED, GTSV_INTERLEAVED, GTSV2_STRIDED, GTSV2_NOPIVOT, NROUTINES };
static const struct {
  const char *name;
  int bands;
  int overwrites; /* the routine's diagonals are writable: restore them before every call */
} routines[NROUTINES] = {
    {"gpsv_interleaved", 5, 1},
    {"gtsv_interleaved", 3, 1},
    {"gtsv2_strided", 3, 0},
    {"gtsv2_nopivot", 3, 0},
};

static int find_routine(const char *name) {
  for (int k = 0; name && k < NROUTINES; k++)
    if (!strcmp(name, routines[k].name)) return k;
  return -1;
}

int GsBenchPeerCusparseBands(const char *routine) {
  int k = find_routine(routine);
  return k < 0 ? 0 : routines[k].bands;
}

static int peer_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Arguments of one call, as cuSPARSE takes them. */
typedef struct {
  int r, single, m, batch;
  void *D[5]; /* working copies of the diagonals */
  void *x;
  void *buf;
} Call;

static cusparseStatus_t buffer_size(cusparseHandle_t h, const Call *c, size_t *bytes) {
  void *const *D = c->D;
  if (c->single) {
    switch (c->r) {
    case GPSV_INTERLEAVED:
      return cusparseSgpsvInterleavedBatch_bufferSizeExt(h, 0, c->m, D[0], D[1], D[2], D[3], D[4],
                                                         c->x, c->batch, bytes);
    case GTSV_INTERLEAVED:
      return cusparseSgtsvInterleavedBatch_bufferSizeExt(h, 0, c->m, D[0], D[1], D[2], c->x,
                                                         c->batch, bytes);
    case GTSV2_STRIDED:
      return cusparseSgtsv2StridedBatch_bufferSizeExt(h, c->m, D[0], D[1], D[2], c->x, c->batch,
                                                      c->m, bytes);
    default:
      return cusparseSgtsv2_nopivot_bufferSizeExt(h, c->m, c->batch, D[0], D[1], D[2], c->x, c->m,
                                                  bytes);
    }
  }
  switch (c->r) {
  case GPSV_INTERLEAVED:
    return cusparseDgpsvInterleavedBatch_bufferSizeExt(h, 0, c->m, D[0], D[1], D[2], D[3], D[4],
                                                       c->x, c->batch, bytes);
  case GTSV_INTERLEAVED:
    return cusparseDgtsvInterleavedBatch_bufferSizeExt(h, 0, c->m, D[0], D[1], D[2], c->x, c->batch,
                                                       bytes);
  case GTSV2_STRIDED:
    return cusparseDgtsv2StridedBatch_bufferSizeExt(h, c->m, D[0], D[1], D[2], c->x, c->batch, c->m,
                                                    bytes);
  default:
    return cusparseDgtsv2_nopivot_bufferSizeExt(h, c->m, c->batch, D[0], D[1], D[2], c->x, c->m,
                                                bytes);
  }
}

static cusparseStatus_t solve(cusparseHandle_t h, const Call *c) {
  void *const *D = c->D;
  if (c->single) {
    switch (c->r) {
    case GPSV_INTERLEAVED:
      return cusparseSgpsvInterleavedBatch(h, 0, c->m, D[0], D[1], D[2], D[3], D[4], c->x, c->batch,
                                           c->buf);
    case GTSV_INTERLEAVED:
      return cusparseSgtsvInterleavedBatch(h, 0, c->m, D[0], D[1], D[2], c->x, c->batch, c->buf);
    case GTSV2_STRIDED:
      return cusparseSgtsv2StridedBatch(h, c->m, D[0], D[1], D[2], c->x, c->batch, c->m, c->buf);
    default:
      return cusparseSgtsv2_nopivot(h, c->m, c->batch, D[0], D[1], D[2], c->x, c->m, c->buf);
    }
  }
  switch (c->r) {
  case GPSV_INTERLEAVED:
    return cusparseDgpsvInterleavedBatch(h, 0, c->m, D[0], D[1], D[2], D[3], D[4], c->x, c->batch,
                                         c->buf);
  case GTSV_INTERLEAVED:
    return cusparseDgtsvInterleavedBatch(h, 0, c->m, D[0], D[1], D[2], c->x, c->batch, c->buf);
  case GTSV2_STRIDED:
    return cusparseDgtsv2StridedBatch(h, c->m, D[0], D[1], D[2], c->x, c->batch, c->m, c->buf);
  default:
    return cusparseDgtsv2_nopivot(h, c->m, c->batch, D[0], D[1], D[2], c->x, c->m, c->buf);
  }
}

/* Zero `rows` consecutive rows of one diagonal from row `row` on: cuSPARSE requires the entries
 * outside the matrix (ds[0], ds[1], dl[0], du[m-1], dw[m-2], dw[m-1]) to be zero, while gpusolve
 * ignores them, so the caller's arrays may hold anything there. */
static cudaError_t zero_rows(const Call *c, void *d, int row, int rows, size_t es) {
  char *p = (char *)d;
  size_t m = (size_t)c->m, batch = (size_t)c->batch;
  switch (c->r) {
  case GPSV_INTERLEAVED:
  case GTSV_INTERLEAVED: /* entry i of system s at i * batch + s: the rows are contiguous */
    return cudaMemsetAsync(p + (size_t)row * batch * es, 0, (size_t)rows * batch * es, 0);
  case GTSV2_STRIDED: /* entry i of system s at s * m + i: one entry per system, pitch m */
    return cudaMemset2DAsync(p + (size_t)row * es, m * es, 0, (size_t)rows * es, batch, 0);
  default: /* one matrix */
    return cudaMemsetAsync(p + (size_t)row * es, 0, (size_t)rows * es, 0);
  }
}

/* Copy the caller's diagonals into the working ones and zero what lies outside the matrices. */
static cudaError_t restore(const Call *c, const void *const *src, size_t diag_bytes, size_t es) {
  const int bands = routines[c->r].bands, m = c->m;
  cudaError_t e = cudaSuccess;
  for (int k = 0; k < bands && e == cudaSuccess; k++)
    e = cudaMemcpyAsync(c->D[k], src[k], diag_bytes, cudaMemcpyDeviceToDevice, 0);
  if (e != cudaSuccess) return e;
  if (bands == 5) {
    if ((e = zero_rows(c, c->D[0], 0, 2, es)) != cudaSuccess) return e;
    if ((e = zero_rows(c, c->D[1], 0, 1, es)) != cudaSuccess) return e;
    if ((e = zero_rows(c, c->D[3], m - 1, 1, es)) != cudaSuccess) return e;
    return zero_rows(c, c->D[4], m - 2, 2, es);
  }
  if ((e = zero_rows(c, c->D[0], 0, 1, es)) != cudaSuccess) return e;
  return zero_rows(c, c->D[2], m - 1, 1, es);
}

int GsBenchPeerCusparse(const GsBenchPeerCusparseArgs *a, GsBenchPeerCusparseTimes *t, char *errbuf,
                        size_t errlen) {
  int ierr = 0;
  Call c = {0};
  void *x_own = NULL;
  double *ts = NULL, *tr = NULL;
  cusparseHandle_t handle = NULL;
  cudaEvent_t ev[4] = {NULL, NULL, NULL, NULL};

  if (errbuf && errlen) errbuf[0] = '\0';
  if (!a || !t) return peer_fail(errbuf, errlen, "null argument");
  memset(t, 0, sizeof *t);
  c.r = find_routine(a->routine);
  if (c.r < 0)
    return peer_fail(errbuf, errlen,
                     "unknown routine \"%s\" (gpsv_interleaved, gtsv_interleaved, gtsv2_strided, "
                     "gtsv2_nopivot)",
                     a->routine ? a->routine : "(null)");
  const int bands = routines[c.r].bands;
  /* cuSPARSE takes int sizes; keep n * batch in range too, in case it indexes with int. */
  if (a->n < 3 || a->batch < 1 || a->repeats < 1 || a->n > INT_MAX || a->batch > INT_MAX ||
      a->n * a->batch > INT_MAX)
    return peer_fail(errbuf, errlen,
                     "%s: need 3 <= n, 1 <= batch, n * batch <= %d and repeats >= 1 (n = %lld, "
                     "batch = %lld, repeats = %d)",
                     a->routine, INT_MAX, a->n, a->batch, a->repeats);
  if (!a->f) return peer_fail(errbuf, errlen, "%s: right-hand side is NULL", a->routine);
  for (int k = 0; k < bands; k++)
    if (!a->diag[k]) return peer_fail(errbuf, errlen, "%s: diagonal %d is NULL", a->routine, k);
  c.single = a->single != 0;
  c.m = (int)a->n;
  c.batch = (int)a->batch;
  const size_t es = c.single ? sizeof(float) : sizeof(double);
  const size_t rhs_bytes = (size_t)a->n * (size_t)a->batch * es;
  const size_t diag_bytes = c.r == GTSV2_NOPIVOT ? (size_t)a->n * es : rhs_bytes;

  ts = malloc((size_t)a->repeats * sizeof *ts);
  tr = malloc((size_t)a->repeats * sizeof *tr);
  if (!ts || !tr) {
    ierr = peer_fail(errbuf, errlen, "cannot allocate %d timings", a->repeats);
    goto done;
  }
  for (int k = 0; k < bands; k++)
    PEER_CUDA(cudaMalloc(&c.D[k], diag_bytes));
  if (a->x) {
    c.x = a->x;
  } else {
    PEER_CUDA(cudaMalloc(&x_own, rhs_bytes));
    c.x = x_own;
  }
  PEER_CUSPARSE(cusparseCreate(&handle)); /* on the default stream, like the events below */
  for (int k = 0; k < 4; k++)
    PEER_CUDA(cudaEventCreate(&ev[k]));

  /* The work buffer is sized and allocated outside the timing. */
  PEER_CUDA(restore(&c, a->diag, diag_bytes, es));
  PEER_CUDA(cudaMemcpyAsync(c.x, a->f, rhs_bytes, cudaMemcpyDeviceToDevice, 0));
  PEER_CUSPARSE(buffer_size(handle, &c, &t->buffer_bytes));
  /* cudaMalloc aligns to 256 bytes (cuSPARSE needs 128); never ask for 0 bytes. */
  PEER_CUDA(cudaMalloc(&c.buf, t->buffer_bytes ? t->buffer_bytes : 256));

  /* Warm-up: library initialisation, kernel loading, clocks. */
  PEER_CUSPARSE(solve(handle, &c));
  PEER_CUDA(cudaDeviceSynchronize());
  for (int r = 0; r < a->repeats; r++) {
    float ms_restore = 0.0f, ms_solve = 0.0f;
    if (routines[c.r].overwrites) {
      PEER_CUDA(cudaEventRecord(ev[0], 0));
      PEER_CUDA(restore(&c, a->diag, diag_bytes, es));
      PEER_CUDA(cudaEventRecord(ev[1], 0));
    } else if (r == 0) {
      PEER_CUDA(restore(&c, a->diag, diag_bytes, es)); /* read-only diagonals: once */
    }
    /* The solution overwrites the right-hand side: the same one for every call, untimed. */
    PEER_CUDA(cudaMemcpyAsync(c.x, a->f, rhs_bytes, cudaMemcpyDeviceToDevice, 0));
    PEER_CUDA(cudaEventRecord(ev[2], 0));
    PEER_CUSPARSE(solve(handle, &c));
    PEER_CUDA(cudaEventRecord(ev[3], 0));
    PEER_CUDA(cudaEventSynchronize(ev[3]));
    PEER_CUDA(cudaGetLastError());
    if (routines[c.r].overwrites) PEER_CUDA(cudaEventElapsedTime(&ms_restore, ev[0], ev[1]));
    PEER_CUDA(cudaEventElapsedTime(&ms_solve, ev[2], ev[3]));
    ts[r] = 1e-3 * (double)ms_solve;
    tr[r] = 1e-3 * (double)ms_restore;
  }
  /* c.x now holds the solution for f (the last call's right-hand side). */
  qsort(ts, (size_t)a->repeats, sizeof *ts, peer_cmp);
  qsort(tr, (size_t)a->repeats, sizeof *tr, peer_cmp);
  t->solve_median_s = ts[a->repeats / 2];
  t->solve_min_s = ts[0];
  t->restore_median_s = tr[a->repeats / 2];
  t->restore_min_s = tr[0];

done:
  /* Release quietly, keeping the first error's message. */
  for (int k = 0; k < 4; k++)
    if (ev[k]) (void)cudaEventDestroy(ev[k]);
  if (handle) (void)cusparseDestroy(handle);
  for (int k = 0; k < 5; k++)
    if (c.D[k]) (void)cudaFree(c.D[k]);
  if (c.buf) (void)cudaFree(c.buf);
  if (x_own) (void)cudaFree(x_own);
  if (ierr) (void)cudaGetLastError();
  free(ts);
  free(tr);
  return ierr;
}
