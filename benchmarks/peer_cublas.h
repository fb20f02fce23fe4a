/* cuBLAS peers of the vector benchmarks (built only with CUDA). */
#ifndef GPUSOLVE_PEER_CUBLAS_H
#define GPUSOLVE_PEER_CUBLAS_H

#include <stddef.h>

/* Time cuBLAS on n random doubles on the current CUDA device: op is "axpy" (cublasDaxpy), "dot"
 * (cublasDdot) or "nrm2" (cublasDnrm2), results to host memory. One warm-up call, then `repeats`
 * calls each timed with CUDA events; *median_seconds gets the median. Returns 0, or nonzero with a
 * message in errbuf (errlen bytes; may be NULL) on any failure; never exits. */
int GsBenchPeerCublas(const char *op, long long n, int repeats, double *median_seconds,
                      char *errbuf, size_t errlen);

#endif
