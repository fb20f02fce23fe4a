/* Private declarations of the CPU back end. */
#ifndef GPUSOLVE_CPUIMPL_H
#define GPUSOLVE_CPUIMPL_H

#include "../../gsimpl.h"

/* Per-context state (ctx->bdata): scratch for reduction partials, grown as needed, so that a
 * reduction allocates nothing in the common case (Krylov methods call them every iteration). */
typedef struct {
  double *partials;
  size_t cap; /* doubles */
} GsCpuContext;

GS_INTERN void GsCpuFillVecKernels(GsVecKernels *k);
GS_INTERN void GsCpuFillBandedKernels(GsBandedKernels *k);
GS_INTERN void GsCpuFillMatKernels(GsMatKernels *k);
GS_INTERN void GsCpuFillStencilKernels(GsStencilKernels *k);
/* Threaded fill and copy of doubles (used by the bandwidth probe). */
GS_INTERN void GsCpuFill(GsInt n, double *x, double a);
GS_INTERN void GsCpuCopy(GsInt n, const double *x, double *y);

#endif
