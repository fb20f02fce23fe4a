/* Sparse matrices in compressed sparse row (CSR) form, double precision.
 *
 * A GsMat holds an m x n matrix as row offsets (m + 1 entries, 64-bit), column indices (32-bit,
 * sorted within each row, no duplicates) and values. It is assembled on the host (from triplets,
 * from a Matrix Market file or by a generator) and used by back ends through GsMatMult.
 *
 * Matrix Market (https://math.nist.gov/MatrixMarket/formats.html): coordinate and array formats,
 * real / integer / pattern fields (pattern entries are 1), general / symmetric / skew-symmetric
 * symmetry (the other triangle is filled in). A file that cannot be opened is GS_ERR_FILE_OPEN; a
 * malformed one GS_ERR_FILE_FORMAT (bad banner or size line, index out of range, too few or too
 * many entries, unparsable value) and a NaN or infinite value GS_ERR_NOT_FINITE, each with a
 * message that names the file, the line and what is wrong. */
#ifndef GPUSOLVE_MAT_H
#define GPUSOLVE_MAT_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct GsMat_s *GsMat;

/* Assemble an m x n matrix from nz triplets (row[k], col[k], val[k]), 0-based; entries with the
 * same (row, col) are summed. An index out of range is GS_ERR_ARG_OUTOFRANGE naming the triplet. */
int GsMatCreateFromTriplets(GsContext ctx, GsInt m, GsInt n, GsInt nz, const GsInt row[],
                            const GsInt col[], const double val[], GsMat *A);
/* Copy a CSR matrix given by its arrays (rowptr: m + 1 offsets from 0, col: rowptr[m] indices,
 * val: rowptr[m] values). Columns may come in any order within a row; duplicates are summed. */
int GsMatCreateCSR(GsContext ctx, GsInt m, GsInt n, const GsInt rowptr[], const GsInt col[],
                   const double val[], GsMat *A);
/* The finite-difference Laplacian (times h^2, Dirichlet boundaries eliminated) on an nx x ny x nz
 * grid, unknown (i, j, k) at i + nx (j + ny k): stencil 5 (2D, nz = 1), 7 or 27 (3D). Symmetric
 * positive definite; 5/7-point rows are 2d on the diagonal and -1 per neighbour, 27-point rows 26
 * and -1 per neighbour. */
int GsMatCreateLaplacian(GsContext ctx, GsInt nx, GsInt ny, GsInt nz, int stencil, GsMat *A);
/* A random n x n matrix with power-law row lengths, for skewed-row tests and benchmarks: row i has
 * the diagonal and len_i - 1 random columns (repeats summed), len_i drawn from a Pareto
 * distribution with the given exponent (> 1; smaller is more skewed) and mean row length `mean`,
 * capped at n. Off-diagonal values are in (-1, 0] and the diagonal is 1 + the row's absolute sum
 * (strictly diagonally dominant, nonsymmetric). The same seed gives the same matrix everywhere. */
int GsMatCreatePowerLaw(GsContext ctx, GsInt n, double mean, double exponent, uint64_t seed,
                        GsMat *A);
int GsMatDestroy(GsMat *A);

/* Sizes: rows, columns, stored entries. Any pointer may be NULL. */
int GsMatGetSize(GsMat A, GsInt *m, GsInt *n, GsInt *nnz);
/* Entries per row: smallest, largest, mean, and the number of empty rows. */
int GsMatGetRowStats(GsMat A, GsInt *min_row, GsInt *max_row, double *mean_row, GsInt *empty);
/* Read-only views of the host CSR arrays (valid until the matrix is destroyed). */
int GsMatGetCSR(GsMat A, const GsInt **rowptr, const int **col, const double **val);
/* B = A^T (a new matrix). */
int GsMatTranspose(GsMat A, GsMat *B);
/* d[i] = A(i, i) for i < min(m, n) (d has min(m, n) entries; missing diagonal entries are 0). */
int GsMatGetDiagonal(GsMat A, GsVec d);
/* y = alpha A x + beta y (x has n entries, y m; double vectors of the matrix's context; x and y
 * distinct). beta = 0 ignores y's old values, NaN included. */
int GsMatMult(GsMat A, double alpha, GsVec x, double beta, GsVec y);

/* y = A x and *xy = x . y in one pass where the kernel allows (CG's p . Ap); square matrices. */
int GsMatMultDot(GsMat A, GsVec x, GsVec y, double *xy);
/* The same with x . y into s[i] (a GsScalars of the matrix's context), without a host round trip
 * where the kernel fuses the dot (CSR and SELL-C-sigma forms; the others compute it apart and
 * store it). */
int GsMatMultDotScalars(GsMat A, GsVec x, GsVec y, GsScalars s, int i);

/* How products read the matrix (the matrix stays CSR; the other forms are copies made for the
 * kernel):
 * - CSR: on the GPU a group of G threads per row (G from the mean row length, -mat_spmv_group);
 * - ELL: padded to the longest row, stored column-major (one thread per row on the GPU);
 * - SELL (SELL-C-sigma): slices of C rows (default 32, a warp), each padded to its longest row and
 *   stored column-major, rows sorted by length within windows of sigma rows (default 1: none);
 * - MERGE: CSR split into equal shares of rows + entries (merge path), for skewed row lengths;
 * - HYBRID: rows of more than T entries (-mat_spmv_hybrid_t, default 32) through the merge
 *   kernel (on the CPU a row per iteration), the others in SELL-32 sorted by length (windows of
 *   4096 rows);
 * - AUTO: chosen from the row lengths and the back end (see docs/performance.md).
 * The options -mat_spmv auto|csr|ell|sell|merge|hybrid, -mat_spmv_sell_c C and -mat_spmv_sell_sigma
 * S choose at the first product when this function was not called. */
typedef enum {
  GS_MAT_SPMV_AUTO = 0,
  GS_MAT_SPMV_CSR = 1,
  GS_MAT_SPMV_ELL = 2,
  GS_MAT_SPMV_SELL = 3,
  GS_MAT_SPMV_MERGE = 4,
  GS_MAT_SPMV_HYBRID = 5
} GsMatSpMVType;
/* Choose the form now (C and sigma apply to SELL; 0 takes the defaults). Replaces an earlier
 * choice, freeing its copies. */
int GsMatSetSpMVType(GsMat A, GsMatSpMVType type, GsInt C, GsInt sigma);
/* The SpMV kernel in use: "csr" (CPU), "csr/G=4" (GPU, 4 threads per row), "ell",
 * "sell/C=32/sigma=1", "merge", "hybrid/T=32"; "" before it is chosen. The string lives as long as
 * the matrix. */
int GsMatGetSpMVKernel(GsMat A, const char **name);
/* Read-only views of the ELL / SELL form (GS_ERR_WRONG_STATE for other forms): slice height C,
 * slices, slice offsets (nslices + 1), the row at each sorted position (NULL when rows are not
 * sorted), and the column-major padded columns (-1 for padding) and values (0). ELL is one slice
 * of C = m rows. Any pointer may be NULL. */
int GsMatGetSELL(GsMat A, GsInt *C, GsInt *nslices, const GsInt **slice_ptr, const int **perm,
                 const int **col, const double **val);

/* Read a matrix from a Matrix Market file (an array file's zeros are not stored). */
int GsMatLoadMatrixMarket(GsContext ctx, const char *path, GsMat *A);
/* Write a matrix as "coordinate real general", values with 17 significant digits (so that
 * loading it back gives the same doubles); the file is written to path.tmp and renamed. */
int GsMatSaveMatrixMarket(GsMat A, const char *path);
/* Read a vector (right-hand side) from a Matrix Market file: array format with one column, or
 * coordinate format with one column (missing entries are +0, repeated ones summed). Each value is
 * the double its text rounds to, a -0 included, so a saved vector loads back bit for bit. */
int GsVecLoadMatrixMarket(GsContext ctx, const char *path, GsVec *v);
/* Write a vector in array format (one column, 17 significant digits), through path.tmp. */
int GsVecSaveMatrixMarket(GsVec v, const char *path);

#ifdef __cplusplus
}
#endif
#endif
