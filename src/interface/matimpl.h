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
  /* Device copy (back ends computing in device memory), made by the first product there. */
  int *d_rowptr; /* 32-bit offsets */
  int *d_col;
  double *d_val;
  int group; /* threads per row of the device SpMV */
  /* The SpMV kernel (chosen at the first product: -mat_spmv) and, for SELL, the host copy in
   * SELL-C-sigma form: slices of C rows, rows sorted by length (longest first) within windows of
   * sigma rows, each slice stored column-major and padded to its longest row. */
  int kernel; /* 0: not chosen yet; GS_SPMV_CSR, GS_SPMV_SELL */
  int sell_c, sell_sigma;
  GsInt nslices;
  GsInt *sell_ptr; /* nslices + 1 offsets into sell_col / sell_val */
  int *sell_len;   /* entries of the row at each sorted position */
  int *sell_perm;  /* sorted position -> row */
  int *sell_col;
  double *sell_val;
  char kernel_name[48];
};

/* An m x n matrix with room for nnz entries and rowptr zeroed; the caller fills it. */
GS_INTERN int GsMatCreateEmpty_(GsContext ctx, GsInt m, GsInt n, GsInt nnz, GsMat *A);

#endif
