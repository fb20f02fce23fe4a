/* Private declarations of the CPU back end. */
#ifndef GPUSOLVE_CPUIMPL_H
#define GPUSOLVE_CPUIMPL_H

#include "../../gsimpl.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Short vectors run on one thread: forking a team costs microseconds, and milliseconds when the
 * cores are oversubscribed (parallel test runs, several processes), which small Krylov solves
 * felt at every operation. Every kernel's result is independent of the thread count. */
#define GS_CPU_OMP_MIN 32768

/* Per-context state (ctx->bdata): scratch grown as needed, so that the kernels called every
 * iteration or step (reductions' partial sums, the stencil's rows) allocate nothing in the common
 * case. One kernel uses it at a time. */
typedef struct {
  void *scratch;
  size_t cap; /* bytes */
} GsCpuContext;

/* The context's scratch, at least `bytes` (contents undefined). */
GS_INTERN int GsCpuScratch(GsContext ctx, size_t bytes, void **p);

/* This thread's number in the current team and the team's size (0 and 1 without OpenMP). */
static inline void GsCpuThread(int *t, int *nt) {
  *t = 0;
  *nt = 1;
#ifdef _OPENMP
  *t = omp_get_thread_num();
  *nt = omp_get_num_threads();
#endif
}

GS_INTERN void GsCpuFillVecKernels(GsVecKernels *k);
GS_INTERN void GsCpuFillBandedKernels(GsBandedKernels *k);
GS_INTERN void GsCpuFillMatKernels(GsMatKernels *k);
GS_INTERN void GsCpuFillStencilKernels(GsStencilKernels *k);
/* Threaded fill and copy of doubles (used by the bandwidth probe). */
GS_INTERN void GsCpuFill(GsInt n, double *x, double a);
GS_INTERN void GsCpuCopy(GsInt n, const double *x, double *y);
/* Writes y[lo, hi) (GsCpuDotFilled). */
typedef void (*GsCpuFillFn)(void *arg, GsInt lo, GsInt hi);
GS_INTERN int GsCpuDotFilled(GsContext ctx, GsInt n, const double *x, double *y, GsCpuFillFn fill,
                             void *arg, double *xy);

#endif
