/* Sparse benchmarks: SpMV of one matrix beside its memory-traffic floor and cuSPARSE, and a CG +
 * Jacobi solve's time per iteration. */
#ifndef GPUSOLVE_SPARSEBENCH_H
#define GPUSOLVE_SPARSEBENCH_H

#include <stdio.h>

#include <gpusolve.h>

#include "vecbench.h"

/* Bytes y = A x must move at least (double values, 32-bit indices): 12 per stored entry (value
 * and column) and 20 per row (x and y entries, a row offset). */
double GsBenchSpmvFloorBytes(GsInt m, GsInt nnz);

/* Time y = A x on ctx (`repeats` calls, median of the MatMult event, after one warm-up) beside the
 * copy bandwidth measured in the same run; check it against the CPU kernel (relative error, in the
 * record's residual field); on a GPU with peers set also time cusparseSpMV on the same matrix and
 * x. name labels the records. */
int GsBenchSpmv(GsContext ctx, GsMat A, const char *name, int repeats, int peers,
                GsBenchReport *rep, FILE *log);

/* CG + Jacobi to rtol 1e-8 with b = A 1: one record with the time per iteration (config notes the
 * iteration count). */
int GsBenchCg(GsContext ctx, GsMat A, const char *name, GsBenchReport *rep, FILE *log);

#endif
