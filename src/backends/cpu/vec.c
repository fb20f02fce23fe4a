/* CPU vector kernels (OpenMP). The reference every GPU kernel is tested against.
 *
 * Reductions split the vector into fixed chunks of GS_CPU_CHUNK entries, sum each chunk in a fixed
 * order and add the chunk partials in index order, so results are bitwise reproducible whatever
 * the number of threads. Within a chunk, entry i goes to partial sum i % GS_CPU_LANES and the
 * partial sums are added in a fixed order: the order is written in the code, not left to the
 * vectoriser (an `omp simd reduction` sums in as many lanes as the target's vectors have, so a
 * build for wider vectors gave other bits: hor131's BiCGStab took 125 iterations instead of 136).
 * Two lanes are what the baseline x86-64 build's vectoriser did, so the default build's results
 * are unchanged; eight moved hor131 to 128 iterations, outside the reference's 3 % (that solve's
 * path is decided by rounding). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../gsimpl.h"
#include "cpuimpl.h"

#define GS_CPU_CHUNK 8192
#define GsRandomClamp_double GsRandomClampDouble
#define GsRandomClamp_float GsRandomClampFloat
/* Short vectors run on one thread: forking a team costs microseconds, and milliseconds when the
 * cores are oversubscribed (parallel test runs, several processes), which small Krylov solves
 * felt at every operation. Every kernel's result is independent of the thread count. */
#define GS_CPU_OMP_MIN 32768
#define OMP_FOR _Pragma("omp parallel for schedule(static) if (n > GS_CPU_OMP_MIN)")
/* The maximum is exact whatever the order. */
#define SIMD_MAX(m, f) _Pragma(GS_STR(omp simd reduction(max : m) reduction(| : f)))
#define GS_STR(x) #x

/* Lane sums: for i in [lo, hi) (lo a multiple of GS_CPU_LANES) run BODY with i and its lane ln;
 * BODY adds to lane arrays of GS_CPU_LANES doubles. Full groups of lanes first (which the compiler
 * may vectorise, lane by lane), then the tail, entry by entry in its lane. */
#define GS_CPU_LANES 2
#define LANE_LOOP(lo, hi, BODY)                                                                    \
  do {                                                                                             \
    GsInt i0_ = (lo);                                                                              \
    for (; i0_ + GS_CPU_LANES <= (hi); i0_ += GS_CPU_LANES)                                        \
      for (int ln = 0; ln < GS_CPU_LANES; ln++) {                                                  \
        const GsInt i = i0_ + ln;                                                                  \
        BODY                                                                                       \
      }                                                                                            \
    for (int ln = 0; i0_ < (hi); i0_++, ln++) {                                                    \
      const GsInt i = i0_;                                                                         \
      BODY                                                                                         \
    }                                                                                              \
  } while (0)
/* The lanes' total, in a fixed tree. */
static inline double lane_total(const double *a) {
  return a[0] + a[1];
}

static GsInt nchunks(GsInt n) {
  return (n + GS_CPU_CHUNK - 1) / GS_CPU_CHUNK;
}
static GsInt chunk_end(GsInt c, GsInt n) {
  GsInt e = (c + 1) * GS_CPU_CHUNK;
  return e < n ? e : n;
}

void GsCpuFill(GsInt n, double *x, double a) {
  OMP_FOR
  for (GsInt i = 0; i < n; i++)
    x[i] = a;
}

void GsCpuCopy(GsInt n, const double *x, double *y) {
  OMP_FOR
  for (GsInt c = 0; c < nchunks(n); c++) {
    GsInt lo = c * GS_CPU_CHUNK;
    memcpy(y + lo, x + lo, (size_t)(chunk_end(c, n) - lo) * sizeof *x);
  }
}

/* Partial sums live in a scratch array of nchunks * nvals doubles; fold them in order. */
static int alloc_partials(GsContext ctx, GsInt n, int nvals, double **part) {
  GsCall(GsCpuScratch(ctx, (size_t)nchunks(n) * (size_t)nvals * sizeof **part, (void **)part));
  return 0;
}

static double fold(const double *part, GsInt nc, int stride, int k) {
  double s = 0;
  for (GsInt c = 0; c < nc; c++)
    s += part[c * stride + k];
  return s;
}

static double fold_max(const double *part, GsInt nc) {
  double s = 0;
  for (GsInt c = 0; c < nc; c++)
    s = part[c] > s || isnan(part[c]) ? part[c] : s;
  return s;
}

/* The entries lo..hi-1 of axpy_pair: r += (-a) q, s += r r over the new r and, when HW,
 * t += r (w r); when HX, x += a p. The sums take the same reduction clause with and without x, so
 * r, s and t come out the same bits (tests/test_vec.c checks it). */
#define GS_CPU_PAIR_LOOP(T, HX, HW)                                                                \
  LANE_LOOP(lo, hi, {                                                                              \
    GS_IF(HX, const T xv = x[i] + ta * p[i];)                                                      \
    const T rv = r[i] + nta * q[i];                                                                \
    GS_IF(HW, const T z = w[i] * rv;)                                                              \
    GS_IF(HX, x[i] = xv;)                                                                          \
    r[i] = rv;                                                                                     \
    s[ln] += (double)rv * rv;                                                                      \
    GS_IF(HW, t[ln] += (double)rv * z;)                                                            \
  })

/* The entries of pw_mult_aypx: y = m + beta y with m = w x (HW) or x; z += a y when HZ; no beta
 * term when HB is 0. Each entry is loaded before any store (w or x may be y); ta and tb are the
 * scalars rounded to T. */
#define GS_CPU_AYPX_LOOP(T, HW, HZ, HB)                                                            \
  OMP_FOR for (GsInt i = 0; i < n; i++) {                                                          \
    const T yv = y[i], m = GS_IF(HW, w[i] *) x[i];                                                 \
    GS_IF(HZ, z[i] += ta * yv;)                                                                    \
    y[i] = m GS_IF(HB, +tb * yv);                                                                  \
  }

/* Kernels for one element type T with suffix S. */
#define GS_CPU_KERNELS(T, S)                                                                       \
  static void set_##S(GsInt n, T *GS_RESTRICT x, double a) {                                       \
    OMP_FOR for (GsInt i = 0; i < n; i++) x[i] = (T)a;                                             \
  }                                                                                                \
  static void scale_##S(GsInt n, T *GS_RESTRICT x, double a) {                                     \
    const T ta = (T)a;                                                                             \
    OMP_FOR for (GsInt i = 0; i < n; i++) x[i] *= ta;                                              \
  }                                                                                                \
  static void axpby_##S(GsInt n, double a, const T *x, double b, T *y) {                           \
    const T ta = (T)a, tb = (T)b;                                                                  \
    if (b == 0.0) {                                                                                \
      OMP_FOR for (GsInt i = 0; i < n; i++) y[i] = ta * x[i];                                      \
    } else if (b == 1.0) {                                                                         \
      OMP_FOR for (GsInt i = 0; i < n; i++) y[i] += ta * x[i];                                     \
    } else {                                                                                       \
      OMP_FOR for (GsInt i = 0; i < n; i++) y[i] = ta * x[i] + tb * y[i];                          \
    }                                                                                              \
  }                                                                                                \
  static void axpbypcz_##S(GsInt n, double a, const T *x, double b, const T *y, double c, T *z) {  \
    const T ta = (T)a, tb = (T)b, tc = (T)c;                                                       \
    if (c == 0.0) {                                                                                \
      OMP_FOR for (GsInt i = 0; i < n; i++) z[i] = ta * x[i] + tb * y[i];                          \
    } else {                                                                                       \
      OMP_FOR for (GsInt i = 0; i < n; i++) z[i] = ta * x[i] + tb * y[i] + tc * z[i];              \
    }                                                                                              \
  }                                                                                                \
  static void pointwise_##S(GsInt n, GsPointwiseOp op, T *w, const T *x, const T *y) {             \
    if (op == GS_PW_MULT) {                                                                        \
      OMP_FOR for (GsInt i = 0; i < n; i++) w[i] = x[i] * y[i];                                    \
    } else {                                                                                       \
      OMP_FOR for (GsInt i = 0; i < n; i++) w[i] = x[i] / y[i];                                    \
    }                                                                                              \
  }                                                                                                \
  static void reciprocal_##S(GsInt n, T *GS_RESTRICT x) {                                          \
    OMP_FOR for (GsInt i = 0; i < n; i++) x[i] = x[i] != (T)0 ? (T)1 / x[i] : (T)0;                \
  }                                                                                                \
  static void random_##S(GsInt n, T *GS_RESTRICT x, uint64_t seed, double lo, double hi) {         \
    const double span = hi - lo;                                                                   \
    OMP_FOR for (GsInt i = 0; i < n; i++) x[i] =                                                   \
        GsRandomClamp_##T(lo + span * GsRandomUniform(seed, (uint64_t)i), lo, hi);                 \
  }                                                                                                \
  /* part[c*nv + k] = sum over chunk c of x . y[k] */                                              \
  static void mdot_##S(GsInt n, const T *x, int nv, const void *const *y, double *part) {          \
    OMP_FOR for (GsInt c = 0; c < nchunks(n); c++) {                                               \
      GsInt lo = c * GS_CPU_CHUNK, hi = chunk_end(c, n);                                           \
      for (int k = 0; k < nv; k++) {                                                               \
        const T *yk = (const T *)y[k];                                                             \
        double s[GS_CPU_LANES] = {0};                                                              \
        LANE_LOOP(lo, hi, { s[ln] += (double)x[i] * yk[i]; });                                     \
        part[c * nv + k] = lane_total(s);                                                          \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
  /* part[c] = sum |x| (type 1), sum x^2 (type 2) or max |x| (inf) over chunk c */                 \
  static void norm_##S(GsInt n, const T *x, GsNormType type, double *part) {                       \
    OMP_FOR for (GsInt c = 0; c < nchunks(n); c++) {                                               \
      GsInt lo = c * GS_CPU_CHUNK, hi = chunk_end(c, n);                                           \
      double s = 0, l[GS_CPU_LANES] = {0};                                                         \
      if (type == GS_NORM_INF) {                                                                   \
        int nan = 0;                                                                               \
        SIMD_MAX(s, nan) for (GsInt i = lo; i < hi; i++) {                                         \
          double a = fabs((double)x[i]);                                                           \
          s = a > s ? a : s;                                                                       \
          nan |= a != a;                                                                           \
        }                                                                                          \
        if (nan) s = NAN;                                                                          \
      } else if (type == GS_NORM_1) {                                                              \
        LANE_LOOP(lo, hi, { l[ln] += fabs((double)x[i]); });                                       \
        s = lane_total(l);                                                                         \
      } else {                                                                                     \
        LANE_LOOP(lo, hi, { l[ln] += (double)x[i] * x[i]; });                                      \
        s = lane_total(l);                                                                         \
      }                                                                                            \
      part[c] = s;                                                                                 \
    }                                                                                              \
  }                                                                                                \
  static void axpy_norm_##S(GsInt n, double a, const T *x, T *y, double *part) {                   \
    const T ta = (T)a;                                                                             \
    OMP_FOR for (GsInt c = 0; c < nchunks(n); c++) {                                               \
      GsInt lo = c * GS_CPU_CHUNK, hi = chunk_end(c, n);                                           \
      double s[GS_CPU_LANES] = {0};                                                                \
      LANE_LOOP(lo, hi, {                                                                          \
        T v = y[i] + ta * x[i];                                                                    \
        y[i] = v;                                                                                  \
        s[ln] += (double)v * v;                                                                    \
      });                                                                                          \
      part[c] = lane_total(s);                                                                     \
    }                                                                                              \
  }                                                                                                \
  static void dot_norm2_##S(GsInt n, const T *x, const T *y, double *part) {                       \
    OMP_FOR for (GsInt c = 0; c < nchunks(n); c++) {                                               \
      GsInt lo = c * GS_CPU_CHUNK, hi = chunk_end(c, n);                                           \
      double d[GS_CPU_LANES] = {0}, s[GS_CPU_LANES] = {0};                                         \
      LANE_LOOP(lo, hi, {                                                                          \
        d[ln] += (double)x[i] * y[i];                                                              \
        s[ln] += (double)y[i] * y[i];                                                              \
      });                                                                                          \
      part[2 * c] = lane_total(d);                                                                 \
      part[2 * c + 1] = lane_total(s);                                                             \
    }                                                                                              \
  }                                                                                                \
  /* part[2c] = sum r r and part[2c + 1] = sum r (w r) over chunk c of the new r (w NULL: only     \
   * the first); x NULL: no x += a p. Every load of entry i comes before its stores: p, q, w may   \
   * alias x or r. */                                                                              \
  static void axpy_pair_##S(GsInt n, T *x, T *r, double a, const T *p, const T *q, const T *w,     \
                            double *part) {                                                        \
    const T ta = (T)a, nta = -ta;                                                                  \
    OMP_FOR for (GsInt c = 0; c < nchunks(n); c++) {                                               \
      GsInt lo = c * GS_CPU_CHUNK, hi = chunk_end(c, n);                                           \
      double s[GS_CPU_LANES] = {0}, t[GS_CPU_LANES] = {0};                                         \
      if (w && x) {                                                                                \
        GS_CPU_PAIR_LOOP(T, 1, 1);                                                                 \
      } else if (w) {                                                                              \
        GS_CPU_PAIR_LOOP(T, 0, 1);                                                                 \
      } else if (x) {                                                                              \
        GS_CPU_PAIR_LOOP(T, 1, 0);                                                                 \
      } else {                                                                                     \
        GS_CPU_PAIR_LOOP(T, 0, 0);                                                                 \
      }                                                                                            \
      part[2 * c] = lane_total(s);                                                                 \
      part[2 * c + 1] = lane_total(t);                                                             \
    }                                                                                              \
  }                                                                                                \
  /* y = m + beta y with m = w x stored to T first, as AXPBY(y, 1, beta, m) computes it, and, when \
   * z is given, z += a y as AXPY(z, a, y) computes it, both with the y on entry. hb: the beta     \
   * term even when beta is 0 (with z; coefficients from device scalars, as the GPU has them). */  \
  static void pw_mult_aypx_##S(GsInt n, T *y, double b, const T *w, const T *x, T *z, double a,    \
                               int hb) {                                                           \
    const T tb = (T)b, ta = (T)a;                                                                  \
    if (z && !hb && w) {                                                                           \
      GS_CPU_AYPX_LOOP(T, 1, 1, 0)                                                                 \
    } else if (z && !hb) {                                                                         \
      GS_CPU_AYPX_LOOP(T, 0, 1, 0)                                                                 \
    } else if (z && w) {                                                                           \
      GS_CPU_AYPX_LOOP(T, 1, 1, 1)                                                                 \
    } else if (z) {                                                                                \
      GS_CPU_AYPX_LOOP(T, 0, 1, 1)                                                                 \
    } else if (w) {                                                                                \
      GS_CPU_AYPX_LOOP(T, 1, 0, 1)                                                                 \
    } else {                                                                                       \
      GS_CPU_AYPX_LOOP(T, 0, 0, 1)                                                                 \
    }                                                                                              \
  }

GS_CPU_KERNELS(double, d)
GS_CPU_KERNELS(float, f)

/* Dispatch on the element type. */
#define DISPATCH(dt, call_d, call_f)                                                               \
  do {                                                                                             \
    if ((dt) == GS_DOUBLE)                                                                         \
      call_d;                                                                                      \
    else                                                                                           \
      call_f;                                                                                      \
  } while (0)

static int k_set(GsContext ctx, GsDataType dt, GsInt n, void *x, double a) {
  (void)ctx;
  DISPATCH(dt, set_d(n, x, a), set_f(n, x, a));
  return 0;
}

static int k_scale(GsContext ctx, GsDataType dt, GsInt n, void *x, double a) {
  (void)ctx;
  DISPATCH(dt, scale_d(n, x, a), scale_f(n, x, a));
  return 0;
}

static int k_copy(GsContext ctx, GsInt n, GsDataType tx, const void *x, GsDataType ty, void *y) {
  (void)ctx;
  if (tx == ty) {
    size_t es = GsDataTypeSize(tx);
    const char *cx = x;
    char *cy = y;
    OMP_FOR
    for (GsInt c = 0; c < nchunks(n); c++) {
      GsInt lo = c * GS_CPU_CHUNK;
      memcpy(cy + lo * es, cx + lo * es, (size_t)(chunk_end(c, n) - lo) * es);
    }
  } else if (tx == GS_DOUBLE) {
    const double *dx = x;
    float *fy = y;
    OMP_FOR
    for (GsInt i = 0; i < n; i++)
      fy[i] = (float)dx[i];
  } else {
    const float *fx = x;
    double *dy = y;
    OMP_FOR
    for (GsInt i = 0; i < n; i++)
      dy[i] = fx[i];
  }
  return 0;
}

static int k_axpby(GsContext ctx, GsDataType dt, GsInt n, double a, const void *x, double b,
                   void *y) {
  (void)ctx;
  DISPATCH(dt, axpby_d(n, a, x, b, y), axpby_f(n, a, x, b, y));
  return 0;
}

static int k_axpbypcz(GsContext ctx, GsDataType dt, GsInt n, double a, const void *x, double b,
                      const void *y, double c, void *z) {
  (void)ctx;
  DISPATCH(dt, axpbypcz_d(n, a, x, b, y, c, z), axpbypcz_f(n, a, x, b, y, c, z));
  return 0;
}

static int k_pointwise(GsContext ctx, GsDataType dt, GsInt n, GsPointwiseOp op, void *w,
                       const void *x, const void *y) {
  (void)ctx;
  DISPATCH(dt, pointwise_d(n, op, w, x, y), pointwise_f(n, op, w, x, y));
  return 0;
}

static int k_reciprocal(GsContext ctx, GsDataType dt, GsInt n, void *x) {
  (void)ctx;
  DISPATCH(dt, reciprocal_d(n, x), reciprocal_f(n, x));
  return 0;
}

static int k_set_random(GsContext ctx, GsDataType dt, GsInt n, void *x, uint64_t seed, double lo,
                        double hi) {
  (void)ctx;
  DISPATCH(dt, random_d(n, x, seed, lo, hi), random_f(n, x, seed, lo, hi));
  return 0;
}

static int k_mdot(GsContext ctx, GsDataType dt, GsInt n, const void *x, int nv,
                  const void *const *y, double *r) {
  double *part = NULL;
  GsCall(alloc_partials(ctx, n, nv, &part));
  DISPATCH(dt, mdot_d(n, x, nv, y, part), mdot_f(n, x, nv, y, part));
  for (int k = 0; k < nv; k++)
    r[k] = fold(part, nchunks(n), nv, k);
  return 0;
}

static int k_dot(GsContext ctx, GsDataType dt, GsInt n, const void *x, const void *y, double *r) {
  GsCall(k_mdot(ctx, dt, n, x, 1, &y, r));
  return 0;
}

static int k_norm(GsContext ctx, GsDataType dt, GsInt n, const void *x, GsNormType type,
                  double *r) {
  double *part = NULL;
  GsCall(alloc_partials(ctx, n, 1, &part));
  DISPATCH(dt, norm_d(n, x, type, part), norm_f(n, x, type, part));
  if (type == GS_NORM_INF)
    *r = fold_max(part, nchunks(n));
  else
    *r = fold(part, nchunks(n), 1, 0);
  if (type == GS_NORM_2) *r = sqrt(*r);
  return 0;
}

static int k_axpy_norm(GsContext ctx, GsDataType dt, GsInt n, double a, const void *x, void *y,
                       double *nrm) {
  double *part = NULL;
  GsCall(alloc_partials(ctx, n, 1, &part));
  DISPATCH(dt, axpy_norm_d(n, a, x, y, part), axpy_norm_f(n, a, x, y, part));
  *nrm = sqrt(fold(part, nchunks(n), 1, 0));
  return 0;
}

static int k_dot_norm2(GsContext ctx, GsDataType dt, GsInt n, const void *x, const void *y,
                       double *dot, double *nrm2) {
  double *part = NULL;
  GsCall(alloc_partials(ctx, n, 2, &part));
  DISPATCH(dt, dot_norm2_d(n, x, y, part), dot_norm2_f(n, x, y, part));
  *dot = fold(part, nchunks(n), 2, 0);
  *nrm2 = fold(part, nchunks(n), 2, 1);
  return 0;
}

/* A coefficient from the scalars (host memory here): 0 when the step is not to be taken. */
static int dev_ratio(const double *num, const double *den, double *v) {
  if (!(*den > 0)) return 0;
  *v = *num / *den;
  return 1;
}

static int k_axpy_pair(GsContext ctx, GsDataType dt, GsInt n, void *x, void *r, double a,
                       const void *p, const void *q, const void *w, double *rwr, double *rr,
                       const GsDevScalars *ds) {
  double *part = NULL;
  if (ds && ds->anum && !dev_ratio(ds->anum, ds->aden, &a)) return 0;
  GsCall(alloc_partials(ctx, n, 2, &part));
  DISPATCH(dt, axpy_pair_d(n, x, r, a, p, q, w, part), axpy_pair_f(n, x, r, a, p, q, w, part));
  *rr = fold(part, nchunks(n), 2, 0);
  *rwr = w ? fold(part, nchunks(n), 2, 1) : *rr;
  if (ds && ds->res) {
    ds->res[0] = *rr;
    if (w) ds->res[1] = *rwr;
  }
  return 0;
}

static int k_pw_mult_aypx(GsContext ctx, GsDataType dt, GsInt n, void *y, double b, const void *w,
                          const void *x, void *z, double a, const GsDevScalars *ds) {
  (void)ctx;
  if (ds && (!dev_ratio(ds->anum, ds->aden, &a) || !dev_ratio(ds->bnum, ds->bden, &b))) return 0;
  const int hb = ds != NULL || b != 0.0;
  DISPATCH(dt, pw_mult_aypx_d(n, y, b, w, x, z, a, hb), pw_mult_aypx_f(n, y, b, w, x, z, a, hb));
  return 0;
}

void GsCpuFillVecKernels(GsVecKernels *k) {
  k->set = k_set;
  k->scale = k_scale;
  k->copy = k_copy;
  k->axpby = k_axpby;
  k->axpbypcz = k_axpbypcz;
  k->pointwise = k_pointwise;
  k->reciprocal = k_reciprocal;
  k->dot = k_dot;
  k->mdot = k_mdot;
  k->norm = k_norm;
  k->axpy_norm = k_axpy_norm;
  k->dot_norm2 = k_dot_norm2;
  k->set_random = k_set_random;
  k->axpy_pair = k_axpy_pair;
  k->pw_mult_aypx = k_pw_mult_aypx;
}
