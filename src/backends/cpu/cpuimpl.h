/* Private declarations of the CPU back end. */
#ifndef GPUSOLVE_CPUIMPL_H
#define GPUSOLVE_CPUIMPL_H

#include "../../gsimpl.h"

GS_INTERN void GsCpuFillVecKernels(GsVecKernels *k);
/* Threaded fill and copy of doubles (used by the bandwidth probe). */
GS_INTERN void GsCpuFill(GsInt n, double *x, double a);
GS_INTERN void GsCpuCopy(GsInt n, const double *x, double *y);

#endif
