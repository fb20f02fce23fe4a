/* CPU sparse matrix kernels: CSR, SELL-C-sigma, merge (rows split over threads by equal numbers
 * of rows + entries) and hybrid (SELL + long rows) SpMV over OpenMP threads. Each row's sum runs in
 * the order of the matrix's group G (matimpl.h: G interleaved partial sums in column order, added
 * pairwise) in every kernel, which is the device kernels' order, so the result depends neither on
 * the kernel, nor on the thread count, nor on the back end. */
#include "cpuimpl.h"

/* Products of more entries than this fork a team of threads (fewer run on one). */
#define OMP_NNZ 65536

/* The sum of the n products val[k * stride] * x[col[k * stride]] (k < n: a row's entries, never
 * SELL padding) in the order of group G. */
static inline double row_sum_g(const int *col, const double *val, GsInt stride, GsInt n,
                               const double *x, int G) {
  if (G == 1) {
    double s = 0;
    for (GsInt k = 0; k < n; k++)
      s += val[k * stride] * x[col[k * stride]];
    return s;
  }
  double s[32];
  for (int g = 0; g < G; g++)
    s[g] = 0;
  for (GsInt k = 0; k < n; k++)
    s[k & (G - 1)] += val[k * stride] * x[col[k * stride]];
  for (int off = G / 2; off > 0; off >>= 1)
    for (int l = 0; l < off; l++)
      s[l] += s[l + off];
  return s[0];
}

static inline double row_sum(const GsInt *rp, const int *col, const double *val, const double *x,
                             GsInt i, int G) {
  return row_sum_g(col + rp[i], val + rp[i], 1, rp[i + 1] - rp[i], x, G);
}

/* y[i] = alpha s_i (+ beta y[i]) */
static inline void store_row(double *y, GsInt i, double alpha, double beta, double s) {
  y[i] = beta == 0 ? alpha * s : alpha * s + beta * y[i];
}

/* Rows [i0, i1) of a CSR product. With G = 1 each row's sum is one chain of dependent additions
 * (a 7-point row: 7 additions, each waiting on the one before). Four rows go through their
 * entries together, each still summed alone, left to right from 0, so the bits are row_sum's,
 * and the core has four independent chains in flight. 2-core development machine, `gpusolve spmv
 * -gs_backend /cpu -repeats 20`, medians of three rounds against one row at a time (ms), 1 / 2
 * threads: 7-point 128^3 21.7 / 13.1 -> 20.1 / 11.9, 5-point 2048^2 31.8 / 19.5 -> 28.9 / 17.0.
 * Rows of G > 1 already sum G chains at once. */
static void csr_rows(const GsMatInfo *A, double alpha, const double *x, double beta, double *y,
                     GsInt i0, GsInt i1) {
  const GsInt *rp = A->rowptr;
  const int *col = A->col;
  const double *val = A->val;
  GsInt i = i0;
  if (A->group == 1)
    for (; i + 4 <= i1; i += 4) {
      const GsInt b0 = rp[i], b1 = rp[i + 1], b2 = rp[i + 2], b3 = rp[i + 3], e = rp[i + 4];
      const GsInt n0 = b1 - b0, n1 = b2 - b1, n2 = b3 - b2, n3 = e - b3;
      GsInt nm = n0 < n1 ? n0 : n1;
      nm = n2 < nm ? n2 : nm;
      nm = n3 < nm ? n3 : nm;
      double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      for (GsInt k = 0; k < nm; k++) {
        s0 += val[b0 + k] * x[col[b0 + k]];
        s1 += val[b1 + k] * x[col[b1 + k]];
        s2 += val[b2 + k] * x[col[b2 + k]];
        s3 += val[b3 + k] * x[col[b3 + k]];
      }
      for (GsInt k = nm; k < n0; k++)
        s0 += val[b0 + k] * x[col[b0 + k]];
      for (GsInt k = nm; k < n1; k++)
        s1 += val[b1 + k] * x[col[b1 + k]];
      for (GsInt k = nm; k < n2; k++)
        s2 += val[b2 + k] * x[col[b2 + k]];
      for (GsInt k = nm; k < n3; k++)
        s3 += val[b3 + k] * x[col[b3 + k]];
      store_row(y, i, alpha, beta, s0);
      store_row(y, i + 1, alpha, beta, s1);
      store_row(y, i + 2, alpha, beta, s2);
      store_row(y, i + 3, alpha, beta, s3);
    }
  for (; i < i1; i++)
    store_row(y, i, alpha, beta, row_sum(rp, col, val, x, i, A->group));
}

static void spmv_csr(const GsMatInfo *A, double alpha, const double *x, double beta, double *y) {
  const GsInt m = A->m, nc = (m + 1023) / 1024;
  /* Chunks of 1024 rows, handed to the threads in turn; products of at most OMP_NNZ entries on
   * one thread (as short vectors, GS_CPU_OMP_MIN in cpuimpl.h). */
  _Pragma("omp parallel for schedule(static, 1) if (A->nnz > OMP_NNZ)") for (GsInt c = 0; c < nc;
                                                                             c++) {
    csr_rows(A, alpha, x, beta, y, c * 1024, c * 1024 + 1024 < m ? c * 1024 + 1024 : m);
  }
}

/* The first row whose merge-path coordinate (row + rowptr[row]) reaches d. */
static GsInt merge_row_at(const GsInt *rp, GsInt m, GsInt d) {
  GsInt lo = 0, hi = m;
  while (lo < hi) {
    const GsInt mid = lo + (hi - lo) / 2;
    if (mid + rp[mid] < d)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Thread t of T takes the rows whose merge-path coordinates fall in [t, t + 1) * (m + nnz) / T, so
 * a few very long rows do not leave the other threads idle. */
static void spmv_merge(const GsMatInfo *A, double alpha, const double *x, double beta, double *y) {
  const GsInt m = A->m, total = A->m + A->nnz;
  _Pragma("omp parallel if (A->nnz > OMP_NNZ)") {
    int t, T;
    GsCpuThread(&t, &T);
    const GsInt r0 = merge_row_at(A->rowptr, m, total / T * t + total % T * t / T);
    const GsInt r1 =
        t == T - 1 ? m : merge_row_at(A->rowptr, m, total / T * (t + 1) + total % T * (t + 1) / T);
    csr_rows(A, alpha, x, beta, y, r0, r1);
  }
}

/* SELL-C-sigma: positions split over threads. */
static void spmv_sell(const GsMatInfo *A, double alpha, const double *x, double beta, double *y) {
  const GsInt C = A->sell_c, m = A->sell_m;
  _Pragma("omp parallel for schedule(static, 1024) if (A->nnz > OMP_NNZ)") for (GsInt p = 0; p < m;
                                                                                p++) {
    const GsInt s = p / C, r = p % C;
    const GsInt base = A->sell_ptr[s] + r;
    const double sum =
        row_sum_g(A->sell_col + base, A->sell_val + base, C, A->sell_len[p], x, A->group);
    const GsInt row = A->sell_perm ? A->sell_perm[p] : p;
    y[row] = beta == 0 ? alpha * sum : alpha * sum + beta * y[row];
  }
}

/* Hybrid: the SELL part, then the long rows (CSR rowptr/col/val of merge_m rows, row numbers in
 * merge_rows), one row per iteration. */
static void spmv_hybrid(const GsMatInfo *A, double alpha, const double *x, double beta, double *y) {
  spmv_sell(A, alpha, x, beta, y);
  _Pragma("omp parallel for schedule(dynamic, 1) if (A->merge_nnz > OMP_NNZ)") for (GsInt l = 0;
                                                                                    l < A->merge_m;
                                                                                    l++) {
    const double s = row_sum(A->rowptr, A->col, A->val, x, l, A->group);
    const GsInt row = A->merge_rows[l];
    y[row] = beta == 0 ? alpha * s : alpha * s + beta * y[row];
  }
}

/* Arguments of fill_rows: a CSR product's rows for GsCpuDotFilled. */
typedef struct {
  const GsMatInfo *A;
  double alpha, beta;
  const double *x;
  double *y;
} GsCpuRowsArg;

static void fill_rows(void *arg, GsInt lo, GsInt hi) {
  const GsCpuRowsArg *a = arg;
  csr_rows(a->A, a->alpha, a->x, a->beta, a->y, lo, hi);
}

int GsCpuMatSpMV(GsContext ctx, const GsMatInfo *A, double alpha, const double *x, double beta,
                 double *y, double *xy, int *fused, const GsDevScalars *ds) {
  (void)ds;
  if (fused) *fused = 0;
  /* x . y asked for (a square matrix, host memory): the CSR form writes its rows where the dot
   * sums them, so y is read back from the cache instead of in a second pass. Only where the dot
   * runs on as many threads as the product would (it forks for more than GS_CPU_OMP_MIN rows, the
   * product for more than OMP_NNZ entries). The merge form keeps its balance by entries (the dot
   * splits by rows; skewed rows would leave threads idle), and the row-permuted SELL forms their
   * slices: they leave the dot to the caller. */
  if (xy && fused && A->m == A->n && A->kernel == GS_SPMV_CSR &&
      (A->m > GS_CPU_OMP_MIN || A->nnz <= OMP_NNZ)) {
    GsCpuRowsArg arg = {A, alpha, beta, x, y};
    GsCall(GsCpuDotFilled(ctx, A->m, x, y, fill_rows, &arg, xy));
    *fused = 1;
    return 0;
  }
  if (A->kernel == GS_SPMV_SELL)
    spmv_sell(A, alpha, x, beta, y);
  else if (A->kernel == GS_SPMV_HYBRID)
    spmv_hybrid(A, alpha, x, beta, y);
  else if (A->kernel == GS_SPMV_MERGE)
    spmv_merge(A, alpha, x, beta, y);
  else
    spmv_csr(A, alpha, x, beta, y);
  return 0;
}

static GsInt merge_blocks(const GsMatInfo *A) {
  (void)A;
  return 0;
}

void GsCpuFillMatKernels(GsMatKernels *k) {
  k->spmv = GsCpuMatSpMV;
  k->merge_blocks = merge_blocks;
}
