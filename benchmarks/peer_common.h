/* What the benchmark peers share: failure messages into the caller's buffer, and CUDA checks. */
#ifndef GPUSOLVE_PEER_COMMON_H
#define GPUSOLVE_PEER_COMMON_H

#include <stdarg.h>
#include <stdio.h>

#include <cuda_runtime.h>

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static inline int
peer_fail(char *errbuf, size_t errlen, const char *fmt, ...) {
  if (errbuf && errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(errbuf, errlen, fmt, ap);
    va_end(ap);
  }
  return 1;
}

/* Record the first failure in errbuf (ierr, errbuf, errlen in scope) and jump to done. */
#define PEER_CUDA(expr)                                                                            \
  do {                                                                                             \
    cudaError_t e_ = (expr);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      ierr = peer_fail(errbuf, errlen, "%s: %s (%s)", #expr, cudaGetErrorName(e_),                 \
                       cudaGetErrorString(e_));                                                    \
      goto done;                                                                                   \
    }                                                                                              \
  } while (0)

#endif
