/* cuSPARSE SpMV peer of the sparse benchmarks (built only with CUDA). */
#ifndef GPUSOLVE_PEER_CUSPARSE_SPMV_H
#define GPUSOLVE_PEER_CUSPARSE_SPMV_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  int64_t m, n, nnz;
  const int64_t *rowptr; /* host CSR, 0-based, m + 1 offsets */
  const int *col;
  const double *val;
  const double *x; /* host, n entries */
  double *y;       /* host, m entries: receives A x; NULL: not kept */
  int repeats;
} GsBenchPeerSpmvArgs;

/* y = A x with cusparseSpMV (CSR, 32-bit indices, CUSPARSE_SPMV_CSR_ALG1, descriptors and buffer
 * made once, outside the timing): one warm-up call, then `repeats` calls timed with CUDA events;
 * median and minimum in seconds. Returns 0, or nonzero with a message in errbuf. */
int GsBenchPeerCusparseSpmv(const GsBenchPeerSpmvArgs *a, double *median_s, double *min_s,
                            char *errbuf, size_t errlen);

#endif
