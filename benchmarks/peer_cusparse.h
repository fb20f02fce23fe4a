/* cuSPARSE peers of the batched banded benchmarks (built only with CUDA). */
#ifndef GPUSOLVE_PEER_CUSPARSE_H
#define GPUSOLVE_PEER_CUSPARSE_H

#include <stddef.h>

/* The routines, by name (D for double, S for float):
 *   "gpsv_interleaved"  cusparse?gpsvInterleavedBatch, algo 0   penta, interleaved layout
 *   "gtsv_interleaved"  cusparse?gtsvInterleavedBatch, algo 0   tri, interleaved layout
 *   "gtsv2_strided"     cusparse?gtsv2StridedBatch              tri, contiguous, batchStride = n
 *   "gtsv2_nopivot"     cusparse?gtsv2_nopivot                  tri, one matrix, the batch's
 *                                                               right-hand sides as its columns
 * All of them factor and solve in one call and overwrite the right-hand side with the solution.
 * The two interleaved routines also take their diagonals as writable (gpsv documents that it
 * overwrites them), so those are copied back before every call, timed separately. */
typedef struct {
  const char *routine;
  int single;          /* 1: float (cusparseS...), 0: double (cusparseD...) */
  long long n, batch;  /* rows of a system, systems */
  const void *diag[5]; /* device arrays, lowest diagonal first (3 or 5 of them), in the routine's
                        * layout: n * batch entries, or n for gtsv2_nopivot; never modified. Entries
                        * outside the matrix may hold anything: the peer zeroes them in its copy. */
  const void *f;       /* device right-hand sides, n * batch entries in the layout; not modified */
  void *x;             /* device, n * batch entries: receives the solution for f; NULL: not kept */
  int repeats;
} GsBenchPeerCusparseArgs;

typedef struct {
  double solve_median_s, solve_min_s;     /* the cuSPARSE call alone */
  double restore_median_s, restore_min_s; /* copying the diagonals back before it (0 when the
                                           * routine takes them read-only) */
  size_t buffer_bytes;                    /* its work buffer (queried outside the timing) */
} GsBenchPeerCusparseTimes;

/* Bands the routine solves (3 or 5); 0 for an unknown name. */
int GsBenchPeerCusparseBands(const char *routine);

/* Time the routine on the current CUDA device: one warm-up call, then `repeats` calls, each timed
 * with CUDA events on the default stream (the right-hand side is copied in before each call,
 * untimed; the diagonals too, timed as the restore, when the routine may overwrite them); medians
 * and minima into *t. Returns 0, or nonzero with a message in errbuf (errlen bytes; may be NULL)
 * on any failure; never exits. */
int GsBenchPeerCusparse(const GsBenchPeerCusparseArgs *a, GsBenchPeerCusparseTimes *t, char *errbuf,
                        size_t errlen);

#endif
