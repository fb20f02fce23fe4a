/* Private layout of a sparse matrix (front end). */
#ifndef GPUSOLVE_MATIMPL_H
#define GPUSOLVE_MATIMPL_H

#include "../gsimpl.h"

struct GsMat_s {
  GsContext ctx;
  GsInt m, n, nnz;
  GsInt *rowptr; /* m + 1 offsets */
  int *col;      /* sorted within each row, no duplicates */
  double *val;
  GsLogEvent ev_mult;
  /* The SpMV kernel, chosen at the first product (-mat_spmv or the automatic rule) and kept (the
   * matrix does not change): GS_SPMV_CSR, GS_SPMV_SELL (ell: the one-slice case), GS_SPMV_MERGE,
   * GS_SPMV_HYBRID;
   * 0 before. The SELL-C-sigma form is built on the host for SELL: slices of C rows, rows sorted
   * by length (longest first) within windows of sigma rows, each slice stored column-major and
   * padded to its longest row (column -1, value 0). */
  int kernel, ell;
  GsInt sell_c;
  int sell_sigma;
  GsInt nslices;
  GsInt *sell_ptr; /* nslices + 1 offsets into sell_col / sell_val */
  int *sell_len;   /* entries of the row at each sorted position */
  int *sell_perm;  /* sorted position -> row; NULL when sigma = 1 */
  int *sell_col;
  double *sell_val;
  GsInt sell_m; /* positions (rows in the SELL form: all but the long ones for hybrid) */
  /* Hybrid: rows of more than hybrid_t entries as CSR (long_m rows, long_nnz entries, their row
   * numbers in long_rows) for the merge kernel; the others in the SELL arrays. */
  GsInt hybrid_t, long_m, long_nnz;
  GsInt *long_rowptr;
  int *long_rows, *long_col;
  double *long_val;
  /* The device copy of the chosen form (back ends computing in device memory), made by the first
   * product there: CSR with 32-bit offsets, SELL, or merge (CSR with 64-bit offsets and the
   * carries of merge_blocks blocks). */
  int on_device;
  int *d_rowptr;
  GsInt *d_rowptr64;
  int *d_col;
  double *d_val;
  /* The order of every row's sum, on every back end: G = group (a power of two up to 32)
   * interleaved partial sums, entry k of a row (in column order) to sum k % G, each summed in order
   * from 0.0, then added pairwise, sum l += sum l + off for off = G/2, ..., 1 (l < off). The device
   * CSR kernel gives a row G threads, SELL a thread with G sums; G is 1 for rows that fit SELL
   * (set_kernel in mat.c). */
  int group;
  GsInt *d_sell_ptr;
  int *d_sell_perm, *d_sell_col;
  double *d_sell_val;
  GsInt merge_blocks;
  int *d_long_rows;
  GsInt *d_merge_start, *d_merge_row;
  double *d_merge_val;
  /* Merge form in column panels (npanels > 1): the product sums the panels' products, each a
   * matrix of the same rows with the entries of one range of columns, so that the part of x a
   * panel gathers stays in the device's L2 (-mat_spmv_panels; automatic when x does not fit in
   * half of it). npanels 0: not decided yet; 1: one piece. */
  int npanels;
  GsMat *panels;
  char kernel_name[48];
};

/* An m x n matrix with room for nnz entries and rowptr zeroed; the caller fills it. */
GS_INTERN int GsMatCreateEmpty_(GsContext ctx, GsInt m, GsInt n, GsInt nnz, GsMat *A);

/* Free the SpMV forms (host SELL and device copies) of A. */
GS_INTERN void GsMatFreeSpMV_(GsMat A);

#endif
