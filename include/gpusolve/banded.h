/* Batched banded solvers: many tridiagonal (3 bands) or pentadiagonal (5 bands) systems at once.
 *
 * A GsBanded object describes a batch (sizes, layout, one matrix per system or one shared matrix,
 * periodic or not) and holds the factors of the matrices it was last given. The matrix itself is
 * passed as `bands` vectors, one per diagonal, ordered from the lowest to the highest (penta:
 * a = 2nd sub-, b = sub-, c = main, d = super-, e = 2nd super-diagonal; tri: a, b = main, c).
 * Entry i of a diagonal is the one in row i; entries that fall outside the matrix (a[0], a[1], b[0]
 * and d[n-1], e[n-2], e[n-1] for penta) are ignored, or, for periodic systems, are the corner
 * entries that couple the last and first rows (column indices taken modulo n).
 *
 * Layouts, for entry i of system s:
 *   GS_BANDED_INTERLEAVED   i * batch + s        (coalesced when one GPU thread owns a system)
 *   GS_BANDED_CONTIGUOUS    s * stride + i       (stride >= n; entries n..stride-1 are untouched)
 * Diagonals and right-hand sides use the layout; a shared matrix has diagonals of n entries.
 * Right-hand-side vectors hold nrhs >= 1 consecutive blocks of GsBandedGetSizes' rhs_len entries.
 *
 * Factorisation is LU without pivoting (the seed's formulas, cuPentBatch), which needs matrices
 * whose pivots stay away from zero (diagonally dominant or symmetric positive definite). Periodic
 * systems are reduced by eliminating the last 1 (tri) or 2 (penta) unknowns: a banded solve of the
 * leading block and a small dense system, whose data are computed once per matrix by Factor.
 *
 * Bad systems do not stop the batch: each system gets a status (zero or tiny pivot, non-finite
 * value), every good system is solved, the solution of a bad one is NaN, and the call returns
 * GS_ERR_ZERO_PIVOT or GS_ERR_NOT_FINITE naming the first bad system and how many there are. */
#ifndef GPUSOLVE_BANDED_H
#define GPUSOLVE_BANDED_H

#include <stdio.h>

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct GsBanded_s *GsBanded;

typedef enum { GS_BANDED_INTERLEAVED = 0, GS_BANDED_CONTIGUOUS = 1 } GsBandedLayout;

/* Per-system status codes (GsBandedGetSystemStatus). */
typedef enum {
  GS_BANDED_OK = 0,
  GS_BANDED_ZERO_PIVOT = 1, /* a pivot is zero or tiny against its row: LU without pivoting fails */
  GS_BANDED_NOT_FINITE = 2  /* a factor or a solution entry is inf or NaN */
} GsBandedStatus;

typedef struct {
  int bands;     /* 3 (tridiagonal) or 5 (pentadiagonal) */
  GsInt n;       /* rows of each system: >= bands */
  GsInt batch;   /* number of systems: >= 1 */
  GsDataType dt; /* GS_DOUBLE or GS_FLOAT */
  GsBandedLayout layout;
  GsInt stride; /* GS_BANDED_CONTIGUOUS: distance between systems (0 means n) */
  int shared;   /* 1: one matrix for the whole batch (diagonals of n entries) */
  int periodic; /* 1: cyclic systems (corner entries wrap around) */
  int spd;      /* 1: symmetric positive definite matrices, factored as LDL^T with 3 (penta) or 2
                 * (tri) factor arrays instead of 5 or 3; all diagonals are still passed, and the
                 * factorisation reads the lower ones and the main one */
} GsBandedDesc;

/* Create a batch described by desc (copied). Sizes and flags are checked here. */
int GsBandedCreate(GsContext ctx, const GsBandedDesc *desc, GsBanded *A);
/* Free the factors and the object; *A = NULL. Safe on NULL and twice. */
int GsBandedDestroy(GsBanded *A);
/* The description, with stride filled in. */
int GsBandedGetDesc(GsBanded A, GsBandedDesc *desc);
/* Entries a diagonal vector must have, and entries of one block of right-hand sides. */
int GsBandedGetSizes(GsBanded A, GsInt *diag_len, GsInt *rhs_len);

/* Factor the matrices given by diag[0..bands-1] (not modified) and keep the factors. */
int GsBandedFactor(GsBanded A, const GsVec diag[]);
/* Solve A x = f with the kept factors for every block of f; x may be f (in place). */
int GsBandedSolve(GsBanded A, GsVec f, GsVec x);
/* z = alpha x + beta y + gamma A^-1 f, every block: the solve and a GsVecAXPBYPCZ in one call, for
 * a time step's update after its last solve (Cahn-Hilliard's c' = 2 c - cprev + delta). z may be
 * f; x and y may not be z (GS_ERR_ARG_INCOMP: the solve would overwrite them before they are
 * read). The same bits as GsBandedSolve into z followed by GsVecAXPBYPCZ(z, alpha, beta, gamma,
 * x, y), and, like it, z's every entry is combined: a contiguous layout with stride > n (gaps
 * between the systems) is GS_ERR_UNSUPPORTED. */
int GsBandedSolveAXPBYPCZ(GsBanded A, GsVec f, double alpha, double beta, double gamma, GsVec x,
                          GsVec y, GsVec z);
/* Factor and solve in one call (refactor-each-call mode). For per-system, non-periodic LU matrices
 * and one block of right-hand sides, with THREAD or an automatic choice of SCAN, this is one fused
 * sweep of one thread per system that keeps only what its own back substitution needs, so a later
 * GsBandedSolve needs a GsBandedFactor first (GS_ERR_WRONG_STATE otherwise); in the other cases
 * the factors are kept as by Factor. */
int GsBandedFactorSolve(GsBanded A, const GsVec diag[], GsVec f, GsVec x);
/* y = A x for the matrices given by diag, every block (x and y distinct). */
int GsBandedMult(GsBanded A, const GsVec diag[], GsVec x, GsVec y);

/* Algorithms. Each gives the same solution up to rounding; they differ in how a GPU shares the
 * work out (the CPU runs every one of them, for testing, with an OpenMP loop over its pieces). */
typedef enum {
  GS_BANDED_ALGORITHM_AUTO = 0,   /* chosen from the batch (below) */
  GS_BANDED_ALGORITHM_THREAD = 1, /* one thread (CPU: one loop iteration) sweeps a whole system */
  GS_BANDED_ALGORITHM_SPIKE = 2,  /* each system (periodic: its first n - h rows) cut into
                                   * partitions solved side by side, joined by a small reduced
                                   * system: for few long systems */
  GS_BANDED_ALGORITHM_TILE = 3,   /* a shared matrix of at most 4096 rows (4096 + h periodic): a
                                   * system's chunks go to up to 128 threads that keep its values
                                   * on chip, so a solve only reads f and writes x */
  GS_BANDED_ALGORITHM_SCAN = 4    /* at most 4096 rows (4096 + h periodic): a system's chunks of
                                   * 8 or 16 rows go to as many threads, joined by carrying each
                                   * chunk's affine map over the chunks; nothing stored but the
                                   * factors: for few systems of their own */
} GsBandedAlgorithm;

/* Choose the algorithm; drops any factors (Factor again). AUTO picks, on a GPU, TILE for a shared
 * matrix that allows it (unless the batch has 16384 systems or more of at most 384 rows: then one
 * thread per system is faster), else SCAN for a batch below 16384 systems, of at least 32 rows and
 * either at most 1024 rows or at most 2^20 unknowns (but THREAD for pentadiagonal LU batches of
 * 4096 systems or more of 513 to 1024 rows that would run staged, below), else SPIKE when the
 * batch is too small to fill the GPU (below 16384 systems, at least 4 partitions of 64 (tri) or
 * 128 (penta) rows or more; periodic systems included, so a shared periodic matrix of more than
 * 4096 rows is partitioned), else THREAD; on the CPU, THREAD. An algorithm that cannot serve the
 * batch is GS_ERR_UNSUPPORTED. Also the option -banded_algorithm auto|thread|spike|tile|scan,
 * which, applying to every batch of a context, falls back to auto where the batch does not allow
 * it.
 * On a GPU with tensor memory accelerators (compute capability 9.0 or newer), THREAD solves of
 * interleaved batches with an LU or LDL^T matrix per system, not periodic, whose arrays and rows
 * are 16-byte aligned (an even batch in double, a multiple of 4 in float), run staged: one thread
 * per system still, its rows brought through shared memory 32 rows x 32 systems at a time, with
 * as few systems in flight as keep their forward results in L2 (the same bits as unstaged). The
 * option -banded_staged off|auto|on (read at GsBandedCreate): auto (the default) where one warp
 * per SM of such systems keeps them within 60 % of L2 (n up to about 1100 in double with 60 MB),
 * on wherever the layout allows, off never.
 * On a GPU, SCAN solves in double of interleaved batches with a matrix per system, not periodic,
 * whose blocks hold whole chunks of 16 rows for an even number of systems (128 chunks of 2
 * systems at 2033 to 2048 rows, penta only; 64 of 4 at 1009 to 1024 rows; 32 of 8 at 497 to
 * 512), a batch a multiple of twice the systems a block and 16-byte aligned arrays, may run
 * staged too: each block solves two groups of systems in turn, their right-hand sides and
 * solutions moved through shared memory in rows of both groups (the same bits as unstaged). The
 * option -banded_scan_pair off|auto|on (read at GsBandedCreate): auto (the default) for blocks of
 * 2 systems, on wherever the layout allows, off never.
 * On a GPU, SCAN solves of tridiagonal systems in 16-row chunks (over 256 rows) run in blocks of
 * 512 threads, twice the systems of a 256-thread block, for more than 1024 rows and for
 * interleaved batches of 1009 to 1024 rows and 32768 systems or more (each row of f and x a piece
 * twice as wide; the same bits either way); so do float pentadiagonal LU solves (not LDL^T) of
 * interleaved batches past 1024 rows, and of 1009 to 1024 rows from 4096 systems on; double
 * pentadiagonal LU solves with a matrix per system, periodic or not, of 64, 128 or 256 chunks
 * (1009 to 1024, 2033 to 2048, 4081 to 4096 rows; of a periodic system, the first n - 2) take the
 * systems of 512 threads in a block of 256, in two halves of rows (interleaved: past 1024 rows,
 * and of 1009 to 1024 rows from 16384 systems on, periodic from 1024). The option
 * -banded_scan_wide off|auto|on (read at GsBandedCreate): auto (the
 * default) as above, on for every such solve (tri, float penta LU, double penta LU of those
 * chunk counts), off never.
 * Tri LU solves in those 512-thread blocks, with a matrix per system, of 64, 128 or 256 chunks
 * take the systems of 1024 threads in two halves of rows (16 systems a block at 1024 rows; the
 * same bits either way): for interleaved batches of 2^17 chunks or more (batch x chunks) in float,
 * and at 256 chunks (4081 to 4096 rows) in double. The option -banded_scan_halves off|auto|on
 * (read at GsBandedCreate): auto (the default) as above, on wherever the kernel applies, off
 * never.
 * On a GPU, one-pass TILE solves in double (at most 32 chunks a system) copy from Factor's output
 * what each block sets up in shared memory (the padded sweep arrays, the scans' matrices, W)
 * instead of building it from the table, while the first group's right-hand sides load (the same
 * bits either way); -banded_tile_image off|auto|on (read at GsBandedCreate): off builds it in
 * every block, auto and on copy it.
 * On a GPU of compute capability 9.0, TILE solves of interleaved batches of 16384 systems or more
 * of 513 to 1024 rows (one block a SM, 16 systems a group) can have the tensor memory accelerator
 * copy the next group's right-hand sides into shared memory while the block solves the present
 * group (the same bits either way; GsBandedGetStaged then says 1); -banded_tile_next
 * off|auto|on (read at GsBandedCreate): on and auto (measured level or faster wherever it runs)
 * wherever the rows of f are 16-byte aligned, for non-periodic systems and for periodic ones
 * whose tail has a kernel of its own (-banded_tile_tail); off never.
 * On a GPU, TILE solves of more than 1024 rows (more than 32 chunks of 32), and of 993 to 1024
 * rows in contiguous batches of 4096 systems or more, run in two passes over the right-hand sides:
 * each chunk's sweeps from zero carries, the carries between chunks by one thread per system, then
 * each chunk again from its true carries, with the same chunk of 32 consecutive systems on a warp's
 * lanes (scratch: 4 values per 32 rows of each system, 2 more per periodic system). The option
 * -banded_tile_passes auto|one|two (read at GsBandedCreate) forces one pass on chip (a block holds
 * whole systems) or two passes for any length. */
int GsBandedSetAlgorithm(GsBanded A, GsBandedAlgorithm algo);
/* The algorithm in use (never AUTO: the automatic choice is resolved). */
int GsBandedGetAlgorithm(GsBanded A, GsBandedAlgorithm *algo);
/* 1 when the object's last call was a solve that ran staged (THREAD or SCAN, above, or a TILE
 * solve whose right-hand sides came through shared memory: -banded_tile_next), else 0 (always on
 * the CPU). */
int GsBandedGetStaged(GsBanded A, int *staged);
/* The threads of a block of the GPU's SCAN solves (-banded_scan_wide, above): 512 where blocks of
 * 512 threads are taken (tri, float penta LU) or their systems in two halves of a 256-thread
 * block (double penta LU), 1024 where a 512-thread block takes 1024 threads' systems in two halves
 * (tri, -banded_scan_halves), 256 for other SCAN solves; 0 for other algorithms and on the CPU. */
int GsBandedGetScanThreads(GsBanded A, int *threads);
/* "auto", "thread", "spike", "tile", "scan"; "unknown" otherwise. */
const char *GsBandedAlgorithmName(GsBandedAlgorithm algo);

/* Partitions per system: 1 is GS_BANDED_ALGORITHM_THREAD, parts > 1 GS_BANDED_ALGORITHM_SPIKE with
 * that many partitions, 0 GS_BANDED_ALGORITHM_AUTO. Drops any factors. Also the option
 * -banded_partitions (with -banded_algorithm spike or alone). */
int GsBandedSetPartitions(GsBanded A, int parts);
/* The partition count in use: > 1 for SPIKE, else 1. */
int GsBandedGetPartitions(GsBanded A, int *parts);
/* The passes of a TILE solve over its right-hand sides: 2 where a GPU runs it in two passes
 * (-banded_tile_passes, above), 1 for other TILE solves, 0 for the other algorithms. */
int GsBandedGetTilePasses(GsBanded A, int *passes);
/* Ask for TILE solves in one pass (1) or two (2) on a GPU, or the automatic choice (0), as the
 * option -banded_tile_passes does, for this object; drops any factors. Two passes let
 * GsBandedSolveAXPBYPCZ store its combination from the solve's own pass, which pays for large
 * batches of short systems too (a 65536 x 1024 ensemble on the H200), not for small ones. */
int GsBandedSetTilePasses(GsBanded A, int passes);

/* When calls report bad systems. GS_BANDED_CHECK_EACH (the default): Factor, Solve and
 * FactorSolve wait for their result and return the error naming the first bad system.
 * On a GPU a checked call that finds no bad system waits for the device but copies nothing back.
 * GS_BANDED_CHECK_DEFERRED: they return as soon as their work is queued (on a GPU: no wait, no copy
 * back, so a loop of small solves is not held up by the host), and bad systems accumulate (a
 * system's status is that of its first failure since the last check) until GsBandedCheckStatus,
 * which waits, returns the error for every call since the last check and starts a new period.
 * Solutions of bad systems are NaN in both modes. Also the option -banded_check each|deferred. */
typedef enum { GS_BANDED_CHECK_EACH = 0, GS_BANDED_CHECK_DEFERRED = 1 } GsBandedCheck;
int GsBandedSetCheck(GsBanded A, GsBandedCheck mode);
int GsBandedGetCheck(GsBanded A, GsBandedCheck *mode);
/* Wait for the queued calls and report bad systems since the last check (deferred mode: then
 * clear them); in GS_BANDED_CHECK_EACH mode, the result of the last call again. */
int GsBandedCheckStatus(GsBanded A);

/* Describe the batch to f (NULL: stdout): its systems and layout, the matrix and factorisation,
 * periodic or not, the algorithm (and whether chosen automatically) with its partitions, SCAN
 * threads or TILE passes, the check mode, the back end, and whether it is factored with how the
 * last checked call ended. Nothing is waited for. The option -banded_view (read at
 * GsBandedCreate) prints it once, after the object's first Factor or FactorSolve. */
int GsBandedView(GsBanded A, FILE *f);

/* Status of the last Factor / Solve (deferred mode: of the calls since the last check, after
 * waiting for them): number of bad systems, the first one (-1 if none) and its code. Any output
 * pointer may be NULL. */
int GsBandedGetStatus(GsBanded A, GsInt *nbad, GsInt *first_bad, GsBandedStatus *first_code);
/* Per-system status of the last Factor / Solve (deferred: since the last check) into a host array
 * of `batch` entries. */
int GsBandedGetSystemStatus(GsBanded A, int status[]);

#ifdef __cplusplus
}
#endif
#endif
