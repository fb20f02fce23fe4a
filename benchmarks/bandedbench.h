/* Batched banded solver benchmarks: one case (bands, sizes, layout, ...) timed on a context, beside
 * its memory-traffic floor and, on a GPU, the cuSPARSE routine that solves the same systems. */
#ifndef GPUSOLVE_BANDEDBENCH_H
#define GPUSOLVE_BANDEDBENCH_H

#include <stdio.h>

#include <gpusolve.h>

#include "vecbench.h"

typedef enum {
  GS_BENCH_BANDED_SOLVE = 0,       /* factor once (untimed), time GsBandedSolve */
  GS_BENCH_BANDED_FACTOR_SOLVE = 1 /* time GsBandedFactorSolve (refactor every call) */
} GsBenchBandedMode;

/* Option words, indexed by the enums (NULL-terminated, for GsOptionsGetEnum). */
extern const char *const GsBenchBandedModeNames[];   /* "solve", "factor_solve" */
extern const char *const GsBenchBandedLayoutNames[]; /* "interleaved", "contiguous" */
extern const char *const GsBenchBandedTypeNames[];   /* "double", "float" (GsDataType order) */

typedef struct {
  int bands;      /* 3 or 5 */
  GsInt n, batch; /* rows of one system, systems */
  GsDataType dt;
  GsBandedLayout layout; /* contiguous systems are packed (stride n) */
  int shared, periodic;
  int spd; /* symmetric positive definite (hyperdiffusion-type) matrices, LDL^T path */
  /* > 0: stiff hyperdiffusion rows (a, -4a, 1 + 6a, -4a, a) or (-a, 1 + 2a, -a), as the implicit
   * factors of an ADI step (Cahn-Hilliard's a reaches 1e6), factored as LU unless spd; 0: random
   * diagonally dominant rows. SPIKE's corrections reach every row of such systems. */
  double stiff;
  GsBenchBandedMode mode;
  int peers;         /* on a GPU, also time the cuSPARSE routine that solves this case, if any */
  const char *group; /* tag for the records ("headline", "sweep"); NULL for none */
} GsBenchBandedCase;

/* Bytes one timed call must move, at least (the floor), per unknown and element size es:
 *   solve, a matrix per system: the factor arrays (5 penta, 3 tri) read, f read, x written: 7 /
 *                               5 values; periodic ones too (their 2 / 1 arrays of E^-1 F are read
 *                               only where above rounding, which depends on the matrix: a few
 *                               rows at each end of a diagonally dominant one, all of a stiff one;
 *                               none is counted)
 *   solve, shared matrix:       f and x: 2 values (plus the factors of the one matrix, once)
 *   factor_solve:               the diagonals read once, f read, x written: 7 / 5 values (a fused
 *                               kernel's traffic; shared: 2, plus the diagonals once) */
double GsBenchBandedFloorBytes(const GsBenchBandedCase *c);
/* Largest relative residual accepted: 1e-8 in double, 1e-4 in float. */
double GsBenchBandedResidualTol(GsDataType dt);
/* The cuSPARSE routine that solves this case (see peer_cusparse.h), or NULL if none does:
 * gpsv_interleaved (penta), gtsv_interleaved / gtsv2_strided (tri), gtsv2_nopivot (tri, shared,
 * contiguous); never periodic ones. It does not depend on CUDA being compiled in. */
const char *GsBenchBandedPeerRoutine(const GsBenchBandedCase *c);
/* "penta interleaved n=1024 batch=65536 double solve" (+ " shared", " periodic"). */
void GsBenchBandedDescribe(const GsBenchBandedCase *c, char *buf, size_t len);

/* Time one case: random diagonally dominant systems (off-diagonals in [-1, 1), the main diagonal in
 * [bands, bands + 1)) and right-hand sides, one warm-up call, then `repeats` calls each timed by
 * the library's event log (BandedSolve; BandedFactor + BandedSolve for factor_solve); the median is
 * reported against the floor's bytes and the copy bandwidth measured in the same run with buffers
 * moving as many bytes (capped at 2 GiB each). The relative residual ||A x - f|| / ||f|| is checked
 * once (GsBandedMult); above GsBenchBandedResidualTol the record is still appended and the call
 * fails with GS_ERR_INTERNAL. With c->peers on a GPU back end, the matching cuSPARSE routine is
 * timed on the same systems and appended too (its restore of the diagonals as a separate record);
 * a failing peer is reported on log and skipped. Progress lines go to log (may be NULL). */
int GsBenchBanded(GsContext ctx, const GsBenchBandedCase *c, int repeats, GsBenchReport *rep,
                  FILE *log);

/* Print banded records as a table (case, implementation, time, GB/s, floor, fraction, residual). */
void GsBenchBandedPrintTable(const GsBenchReport *rep, FILE *f);

#endif
