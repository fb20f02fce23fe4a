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
};

/* An m x n matrix with room for nnz entries and rowptr zeroed; the caller fills it. */
GS_INTERN int GsMatCreateEmpty_(GsContext ctx, GsInt m, GsInt n, GsInt nnz, GsMat *A);

#endif
