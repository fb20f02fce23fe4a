/* CPU stencil kernel: rows of the output over OpenMP threads, each thread a contiguous range of
 * rows. Each term keeps a ring of the 2 ry + 1 input rows it reads, raised to its power and
 * extended by rx points at both ends (the periodic wrap), so moving to the next row raises one new
 * row per term and the weights run over contiguous arrays without index arithmetic, four weights
 * per pass over the row (one pass per weight had loaded and stored the row of sums for every
 * product: a 512^2 Cahn-Hilliard right-hand side took 1.45 ms on two cores, now 0.94, with the
 * same bits); the 1 to 3 weights left after the groups of four take one pass too, and a
 * combination of inputs is powered, scaled and summed into the ring in one pass per source
 * (extend_add; three passes before: 512^2 1.43 -> 1.13 ms, the 1D 4096 x 1024 ensemble 19.1 ->
 * 15.5); a centre-only term on an input itself reads the input's row in place (centre_term: 512^2
 * 1.13 -> 0.97 ms). Each point sums its terms and weights in the order GsStencilInfo lists them. */
#include <stdlib.h>

#include "cpuimpl.h"

/* Scratch per thread: every term's ring of extended rows and the row of sums. */
static size_t scratch_entries(const GsStencilInfo *si) {
  return (size_t)si->nterms * (size_t)(2 * si->ry + 1) * (size_t)(si->nx + 2 * si->rx) +
         (size_t)si->nx;
}

/* i modulo m for i in [-m, 2m) */
static inline GsInt wrap(GsInt i, GsInt m) {
  return i < 0 ? i + m : i >= m ? i - m : i;
}

/* Term t has weights only at its centre (ox = oy = 0), none at all included. */
static int centre_only(const GsStencilInfo *si, int t) {
  for (int q = si->first[t]; q < si->first[t + 1]; q++)
    if (si->ox[q] || si->oy[q]) return 0;
  return 1;
}

#define GS_CPU_STENCIL(T)                                                                          \
  /* e[0 .. nx + 2 rx) = row[(i - rx) mod nx]^p */                                                 \
  static void extend1_##T(const T *row, GsInt nx, int rx, int p, T *e) {                           \
    for (int i = 0; i < rx; i++) {                                                                 \
      e[i] = row[nx - rx + i];                                                                     \
      e[nx + rx + i] = row[i];                                                                     \
    }                                                                                              \
    T *mid = e + rx;                                                                               \
    if (p == 1)                                                                                    \
      for (GsInt i = 0; i < nx; i++)                                                               \
        mid[i] = row[i];                                                                           \
    else if (p == 2)                                                                               \
      for (GsInt i = 0; i < nx; i++)                                                               \
        mid[i] = row[i] * row[i];                                                                  \
    else                                                                                           \
      for (GsInt i = 0; i < nx; i++)                                                               \
        mid[i] = row[i] * row[i] * row[i];                                                         \
    for (int i = 0; i < rx && p > 1; i++) {                                                        \
      const T u = e[i], v = e[nx + rx + i];                                                        \
      e[i] = p == 2 ? u * u : u * u * u;                                                           \
      e[nx + rx + i] = p == 2 ? v * v : v * v * v;                                                 \
    }                                                                                              \
  }                                                                                                \
  /* e[i] = c row[(i - rx) mod nx]^p, or e[i] += that with add: extend1 and the scaling in one     \
   * pass (the same operations per entry: the power, then the product with c, then the sum). */    \
  static void extend_add_##T(const T *row, GsInt nx, int rx, int p, T c, int add, T *e) {          \
    for (int i = 0; i < 2 * rx; i++) { /* the wrapped ends, as extend1 takes them */               \
      const GsInt k = i < rx ? i : nx + i, j = i < rx ? nx - rx + i : i - rx;                      \
      const T u = row[j], v = p == 1 ? u : p == 2 ? u * u : u * u * u;                             \
      e[k] = add ? e[k] + c * v : c * v;                                                           \
    }                                                                                              \
    T *mid = e + rx;                                                                               \
    if (p == 1 && add)                                                                             \
      for (GsInt i = 0; i < nx; i++)                                                               \
        mid[i] += c * row[i];                                                                      \
    else if (p == 1)                                                                               \
      for (GsInt i = 0; i < nx; i++)                                                               \
        mid[i] = c * row[i];                                                                       \
    else if (p == 2 && add)                                                                        \
      for (GsInt i = 0; i < nx; i++)                                                               \
        mid[i] += c * (row[i] * row[i]);                                                           \
    else if (p == 2)                                                                               \
      for (GsInt i = 0; i < nx; i++)                                                               \
        mid[i] = c * (row[i] * row[i]);                                                            \
    else if (add)                                                                                  \
      for (GsInt i = 0; i < nx; i++)                                                               \
        mid[i] += c * (row[i] * row[i] * row[i]);                                                  \
    else                                                                                           \
      for (GsInt i = 0; i < nx; i++)                                                               \
        mid[i] = c * (row[i] * row[i] * row[i]);                                                   \
  }                                                                                                \
  /* The same for source s (an input, or a combination of them summed in order) at row offset      \
   * off of each input. */                                                                         \
  static void extend_##T(const GsStencilInfo *si, int s, const T *const *x, GsInt off, int p,      \
                         T *e) {                                                                   \
    if (si->nsrc[s] == 1 && si->scoef[s][0] == 1) {                                                \
      extend1_##T(x[si->sidx[s][0]] + off, si->nx, si->rx, p, e);                                  \
      return;                                                                                      \
    }                                                                                              \
    for (int q = 0; q < si->nsrc[s]; q++)                                                          \
      extend_add_##T(x[si->sidx[s][q]] + off, si->nx, si->rx, p, (T)si->scoef[s][q], q > 0, e);    \
  }                                                                                                \
  /* A centre-only term's sums into acc, as the general path below makes them with every e = ec:   \
   * the total (conservative form), then the weights in order (one, once merged). Kept apart:      \
   * folded into the general path (a flag choosing ec and the e[u]), the float 512^2               \
   * Cahn-Hilliard stencil took 0.66 ms against 0.53 here (five rounds, development machine). */   \
  static void centre_term_##T(const GsStencilInfo *si, int t, const T *ec, GsInt nx, T *acc) {     \
    const int cons = si->conservative[t];                                                          \
    if (cons) {                                                                                    \
      const T tot = (T)si->total[t];                                                               \
      for (GsInt i = 0; i < nx; i++)                                                               \
        acc[i] += tot * ec[i];                                                                     \
    }                                                                                              \
    for (int q = si->first[t]; q < si->first[t + 1]; q++) {                                        \
      const T w = (T)si->w[q];                                                                     \
      if (cons)                                                                                    \
        for (GsInt i = 0; i < nx; i++)                                                             \
          acc[i] += w * (ec[i] - ec[i]);                                                           \
      else                                                                                         \
        for (GsInt i = 0; i < nx; i++)                                                             \
          acc[i] += w * ec[i];                                                                     \
    }                                                                                              \
  }                                                                                                \
  static void stencil_rows_##T(const GsStencilInfo *si, const T *const *x, T *y, T *buf, GsInt r0, \
                               GsInt r1) {                                                         \
    const GsInt nx = si->nx, ny = si->ny, wid = nx + 2 * si->rx;                                   \
    const int rx = si->rx, ry = si->ry, h = 2 * ry + 1;                                            \
    T *acc = buf + (size_t)si->nterms * (size_t)h * (size_t)wid;                                   \
    for (GsInt r = r0; r < r1; r++) {                                                              \
      const GsInt base = (r / ny) * ny * nx, j = r % ny;                                           \
      /* Ring slot of input row j + k - ry is (j + k) mod h; a new grid or the first row fills     \
       * the whole ring, later rows only the row j + ry. */                                        \
      const int fresh = r == r0 || j == 0;                                                         \
      for (GsInt i = 0; i < nx; i++)                                                               \
        acc[i] = 0;                                                                                \
      for (int t = 0; t < si->nterms; t++) {                                                       \
        T *ring = buf + (size_t)t * (size_t)h * (size_t)wid;                                       \
        const int s_ = si->input[t];                                                               \
        if (centre_only(si, t) && si->power[t] == 1 && si->nsrc[s_] == 1 &&                        \
            si->scoef[s_][0] == 1) {                                                               \
          /* x itself at the centre only: its row read where it is, no copy into the ring */       \
          const T *ec = x[si->sidx[s_][0]] + base + j * nx;                                        \
          centre_term_##T(si, t, ec, nx, acc);                                                     \
          continue;                                                                                \
        }                                                                                          \
        for (int k = fresh ? 0 : h - 1; k < h; k++)                                                \
          extend_##T(si, s_, x, base + wrap(j + k - ry, ny) * nx, si->power[t],                    \
                     ring + (size_t)((j + k) % h) * (size_t)wid);                                  \
        const int cons = si->conservative[t];                                                      \
        const T *ec = ring + (size_t)((j + ry) % h) * (size_t)wid + rx;                            \
        if (cons) { /* total x_p + sum w (x_{p+k} - x_p) */                                        \
          const T tot = (T)si->total[t];                                                           \
          for (GsInt i = 0; i < nx; i++)                                                           \
            acc[i] += tot * ec[i];                                                                 \
        }                                                                                          \
        /* Up to four weights per pass over the row: one load and store of acc for four products   \
         * (the sums still in the listed order, one weight after another). */                      \
        for (int q = si->first[t]; q < si->first[t + 1]; q += 4) {                                 \
          const int nq = si->first[t + 1] - q < 4 ? si->first[t + 1] - q : 4;                      \
          T w[4] = {0, 0, 0, 0};                                                                   \
          const T *e[4] = {ec, ec, ec, ec};                                                        \
          for (int u = 0; u < nq; u++) {                                                           \
            w[u] = (T)si->w[q + u];                                                                \
            e[u] = ring + (size_t)((j + si->oy[q + u] + ry) % h) * (size_t)wid +                   \
                   (si->ox[q + u] + rx);                                                           \
          }                                                                                        \
          if (cons && nq == 4)                                                                     \
            for (GsInt i = 0; i < nx; i++)                                                         \
              acc[i] = (((acc[i] + w[0] * (e[0][i] - ec[i])) + w[1] * (e[1][i] - ec[i])) +         \
                        w[2] * (e[2][i] - ec[i])) +                                                \
                       w[3] * (e[3][i] - ec[i]);                                                   \
          else if (nq == 4)                                                                        \
            for (GsInt i = 0; i < nx; i++)                                                         \
              acc[i] = (((acc[i] + w[0] * e[0][i]) + w[1] * e[1][i]) + w[2] * e[2][i]) +           \
                       w[3] * e[3][i];                                                             \
          else if (cons && nq == 3)                                                                \
            for (GsInt i = 0; i < nx; i++)                                                         \
              acc[i] = ((acc[i] + w[0] * (e[0][i] - ec[i])) + w[1] * (e[1][i] - ec[i])) +          \
                       w[2] * (e[2][i] - ec[i]);                                                   \
          else if (nq == 3)                                                                        \
            for (GsInt i = 0; i < nx; i++)                                                         \
              acc[i] = ((acc[i] + w[0] * e[0][i]) + w[1] * e[1][i]) + w[2] * e[2][i];              \
          else if (cons && nq == 2)                                                                \
            for (GsInt i = 0; i < nx; i++)                                                         \
              acc[i] = (acc[i] + w[0] * (e[0][i] - ec[i])) + w[1] * (e[1][i] - ec[i]);             \
          else if (nq == 2)                                                                        \
            for (GsInt i = 0; i < nx; i++)                                                         \
              acc[i] = (acc[i] + w[0] * e[0][i]) + w[1] * e[1][i];                                 \
          else if (cons)                                                                           \
            for (GsInt i = 0; i < nx; i++)                                                         \
              acc[i] += w[0] * (e[0][i] - ec[i]);                                                  \
          else                                                                                     \
            for (GsInt i = 0; i < nx; i++)                                                         \
              acc[i] += w[0] * e[0][i];                                                            \
        }                                                                                          \
      }                                                                                            \
      T *out = y + base + j * nx;                                                                  \
      for (GsInt i = 0; i < nx; i++)                                                               \
        out[i] = acc[i];                                                                           \
    }                                                                                              \
  }
GS_CPU_STENCIL(double)
GS_CPU_STENCIL(float)

int GsCpuStencilApply(GsContext ctx, const GsStencilInfo *si, GsDataType dt, const void *const *x,
                      void *y, const char **kernel) {
  if (kernel) *kernel = "rows";
  const GsInt rows = si->ny * si->batch;
  const size_t es = GsDataTypeSize(dt), per = scratch_entries(si);
  int nt = 1;
#ifdef _OPENMP
  /* Threads only when each gets a few thousand points. */
  if (rows * si->nx >= 32768) nt = omp_get_max_threads();
  if (nt > rows) nt = (int)rows;
#endif
  if (nt < 1) nt = 1;
  void *buf = NULL;
  GsCall(GsCpuScratch(ctx, (size_t)nt * per * es, &buf));
  _Pragma("omp parallel num_threads(nt)") {
    int id, n;
    GsCpuThread(&id, &n);
    const GsInt r0 = rows * id / n, r1 = rows * (id + 1) / n;
    if (dt == GS_DOUBLE)
      stencil_rows_double(si, (const double *const *)x, (double *)y, (double *)buf + per * id, r0,
                          r1);
    else
      stencil_rows_float(si, (const float *const *)x, (float *)y, (float *)buf + per * id, r0, r1);
  }
  return 0;
}

void GsCpuFillStencilKernels(GsStencilKernels *k) {
  k->apply = GsCpuStencilApply;
}
