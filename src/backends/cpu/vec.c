/* CPU vector kernels (OpenMP). The reference every GPU kernel is tested against, bit for bit.
 *
 * Reductions take their sums in the order gsimpl.h fixes for every back end (GS_REDUCE_*): the
 * order in which a GPU adds with one thread per lane, 512 blocks of 256 lanes, each block summed
 * by a warp-shuffle tree and the blocks' sums folded by the last block. Here a block's lanes are an
 * array of 256 doubles, its packs visited lane by lane in runs of 256 consecutive packs (every
 * GS_REDUCE_LANES packs), and the tree and the fold are written out as the GPU runs them. The
 * order is in the code, not left to the vectoriser, so the results are the same bits whatever the
 * number of threads, the build's vector width (GS_NATIVE) or the back end; no multiply-add is
 * fused (-ffp-contract=off, CMakeLists.txt), as on the GPU (--fmad=false for its vector and sparse
 * kernels). Element-wise operations compute in the element type, left to right, with the scalars
 * rounded to it, as the GPU does. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "../../gsimpl.h"
#include "cpuimpl.h"

#define GS_CPU_CHUNK 8192
#define GsRandomClamp_double GsRandomClampDouble
#define GsRandomClamp_float GsRandomClampFloat
#define OMP_FOR _Pragma("omp parallel for schedule(static) if (n > GS_CPU_OMP_MIN)")
/* The maximum is exact whatever the order. */
#define SIMD_MAX(m, f) _Pragma(GS_STR(omp simd reduction(max : m) reduction(| : f)))
#define GS_STR(x) #x

enum { RT = GS_REDUCE_THREADS, RB = GS_REDUCE_BLOCKS };
/* Entries per pack: 2 doubles or 4 floats (GS_REDUCE_PACK). */
#define GS_PACK_double 2
#define GS_PACK_float 4

/* Blocks that hold packs of an n-entry reduction with packs of pk entries (0 when n is 0). */
static GsInt red_blocks(GsInt n, int pk) {
  const GsInt b = ((n + pk - 1) / pk + RT - 1) / RT;
  return b < RB ? b : RB;
}

/* GsReduceTree (gsimpl.h) over v[0..RT), which it overwrites: each level of a warp's tree is one
 * loop over contiguous lanes, with constant bounds, so that it vectorises. */
static double reduce_tree(double *v) {
  for (int w = 0; w < RT; w += 32) {
    double *a = v + w;
    for (int l = 0; l < 16; l++)
      a[l] += a[l + 16];
    for (int l = 0; l < 8; l++)
      a[l] += a[l + 8];
    for (int l = 0; l < 4; l++)
      a[l] += a[l + 4];
    for (int l = 0; l < 2; l++)
      a[l] += a[l + 2];
    a[0] += a[1];
  }
  double s[RT / 32];
  for (int w = 0; w < RT / 32; w++)
    s[w] = v[32 * w];
  for (int l = 0; l < 4; l++)
    s[l] += s[l + 4];
  for (int l = 0; l < 2; l++)
    s[l] += s[l + 2];
  return s[0] + s[1];
}

/* The result from the nb blocks' partials part[0..nb), as the last GPU block folds them. */
static double reduce_fold(const double *part, GsInt nb) {
  double u[RT];
  for (int t = 0; t < RT; t++) {
    double s = 0.0;
    for (GsInt b = t; b < nb; b += RT)
      s += part[b];
    u[t] = s;
  }
  return reduce_tree(u);
}

/* Block loop of an n-entry reduction over packs of PK entries, nb = red_blocks(n, PK) blocks, with
 * NV (at most GS_CPU_MAX_LANES) lane arrays. PTRS(base, stride) declares the kernel's lane arrays
 * (lane array v at base + v * stride, indexed by t); BODY runs for each entry i with its lane t,
 * each lane's entries in order (in a block's single run, the first entries of every pack, then
 * their second, ...: the lanes are independent, and the loop over lanes vectorises; in long runs
 * pack by pack, so that a run streams once); FINISH stores block B's partials from
 * its lanes, which start at offset o of each array. The sums do not depend on which thread takes a
 * block.
 * - At most one pack a lane (n <= GS_REDUCE_LANES PK): a block's packs are one run, its lanes an
 *   array on the stack (in L1), the blocks taken in order, so threads stream contiguous ranges.
 * - More: OpenMP threads take contiguous ranges of blocks, whose packs are runs of consecutive
 *   packs, one run every GS_REDUCE_LANES packs (long enough to stream), and keep their lanes in
 *   lanes (NV arrays of nb * RT doubles; t is block * RT + lane). */
#define GS_CPU_MAX_LANES 4
/* Lane arrays lie GS_LANE_PAD doubles further apart than their length, so that lane t of two
 * arrays never sits at addresses that agree in their low 12 bits (a multiple of 4 KiB apart, the
 * loads of one then wait for the stores of the other: on the H200 host dot_norm2 and mdot4 ran at
 * half of dot's bandwidth with arrays of 1 MiB). */
#define GS_LANE_PAD 72
#define RED_BLOCKS(n, PK, nb, NV, lanes, PTRS, BODY, FINISH)                                       \
  RED_BLOCKS_PRE(n, PK, nb, NV, lanes, PTRS, GS_REDUCE_LANES, , BODY, FINISH)
/* RED_BLOCKS with PRE, an expression (or nothing) evaluated on the summing thread for each range
 * [pre_lo, pre_hi) of entries before their BODY runs: the ranges cover [0, n) once, at most PIECE
 * packs each. A fused producer of the entries summed, such as the rows of a product, writes them
 * there, so that they are summed while still in the core's cache. */
#define RED_BLOCKS_PRE(n, PK, nb, NV, lanes, PTRS, PIECE, PRE, BODY, FINISH)                       \
  do {                                                                                             \
    if ((n) <= GS_REDUCE_LANES * (PK)) {                                                           \
      _Pragma("omp parallel for schedule(static) if (n > GS_CPU_OMP_MIN)") for (GsInt B = 0;       \
                                                                                B < (nb); B++) {   \
        double loc_[GS_CPU_MAX_LANES * (RT + GS_LANE_PAD)];                                        \
        memset(loc_, 0, (size_t)(NV) * (RT + GS_LANE_PAD) * sizeof loc_[0]);                       \
        const GsInt lst_ = RT + GS_LANE_PAD, o = 0;                                                \
        (void)lst_;                                                                                \
        (void)o;                                                                                   \
        PTRS(loc_, lst_)                                                                           \
        const GsInt i0_ = B * RT * (PK), left_ = (n)-i0_;                                          \
        const GsInt full_ = (left_ < RT * (PK) ? left_ : RT * (PK)) / (PK);                        \
        {                                                                                          \
          const GsInt pre_lo = i0_, pre_hi = i0_ + (left_ < RT * (PK) ? left_ : RT * (PK));        \
          (void)pre_lo;                                                                            \
          (void)pre_hi;                                                                            \
          PRE;                                                                                     \
        }                                                                                          \
        for (int j_ = 0; j_ < (PK); j_++)                                                          \
          for (GsInt t = 0; t < full_; t++) {                                                      \
            const GsInt i = i0_ + t * (PK) + j_;                                                   \
            BODY                                                                                   \
          }                                                                                        \
        if (left_ < RT * (PK)) {                                                                   \
          const GsInt t = full_;                                                                   \
          for (GsInt i = i0_ + full_ * (PK); i < (n); i++) {                                       \
            BODY                                                                                   \
          }                                                                                        \
        }                                                                                          \
        FINISH                                                                                     \
      }                                                                                            \
    } else {                                                                                       \
      _Pragma("omp parallel if (n > GS_CPU_OMP_MIN)") {                                            \
        int th_, nth_;                                                                             \
        GsCpuThread(&th_, &nth_);                                                                  \
        const GsInt B0_ = (nb)*th_ / nth_, B1_ = (nb) * (th_ + 1) / nth_;                          \
        const GsInt span_ = (B1_ - B0_) * RT * (PK), lst_ = (nb)*RT + GS_LANE_PAD;                 \
        for (int v_ = 0; v_ < (NV); v_++)                                                          \
          memset((lanes) + (GsInt)v_ * lst_ + B0_ * RT, 0,                                         \
                 (size_t)(B1_ - B0_) * RT * sizeof *(lanes));                                      \
        PTRS(lanes, lst_)                                                                          \
        for (GsInt i0_ = B0_ * RT * (PK); span_ > 0 && i0_ < (n); i0_ += GS_REDUCE_LANES * (PK)) { \
          const GsInt left_ = (n)-i0_, t0_ = B0_ * RT;                                             \
          const GsInt len_ = left_ < span_ ? left_ : span_, full_ = len_ / (PK);                   \
          for (GsInt q0_ = 0; q0_ == 0 || q0_ < full_; q0_ += (PIECE)) {                           \
            const GsInt q1_ = full_ - q0_ > (PIECE) ? q0_ + (PIECE) : full_;                       \
            const GsInt pre_lo = i0_ + q0_ * (PK),                                                 \
                        pre_hi = q1_ == full_ ? i0_ + len_ : i0_ + q1_ * (PK);                     \
            (void)pre_lo;                                                                          \
            (void)pre_hi;                                                                          \
            PRE;                                                                                   \
            for (GsInt t = t0_ + q0_; t < t0_ + q1_; t++)                                          \
              for (int j_ = 0; j_ < (PK); j_++) {                                                  \
                const GsInt i = i0_ + (t - t0_) * (PK) + j_;                                       \
                BODY                                                                               \
              }                                                                                    \
            if (q1_ == full_) {                                                                    \
              const GsInt t = t0_ + full_;                                                         \
              for (GsInt i = i0_ + full_ * (PK); i < i0_ + len_; i++) {                            \
                BODY                                                                               \
              }                                                                                    \
            }                                                                                      \
          }                                                                                        \
        }                                                                                          \
        for (GsInt B = B0_; B < B1_; B++) {                                                        \
          const GsInt o = B * RT;                                                                  \
          FINISH                                                                                   \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
  } while (0)
/* Lane array declarations for PTRS. */
#define GS_PTRS_S(b, st) double *GS_RESTRICT s = (b);
#define GS_PTRS_SU(b, st) double *GS_RESTRICT s = (b), *GS_RESTRICT u = (b) + (st);
#define GS_PTRS_DS(b, st) double *GS_RESTRICT d = (b), *GS_RESTRICT s = (b) + (st);
#define GS_PTRS_L(b, st)                                                                           \
  double *GS_RESTRICT l0 = (b), *GS_RESTRICT l1 = (b) + (st), *GS_RESTRICT l2 = (b) + 2 * (st),    \
                      *GS_RESTRICT l3 = (b) + 3 * (st);                                            \
  (void)l1;                                                                                        \
  (void)l2;                                                                                        \
  (void)l3;
#define GS_CPU_MDOT_GROUP 4
/* Entries of y a MAXPY range holds (16 KB in double) while every x is added to it. */
#define GS_CPU_MAXPY 2048
/* An mdot group's partials (m values from k0) for block B. */
#define GS_CPU_MDOT_FINISH                                                                         \
  {                                                                                                \
    for (int k = 0; k < m; k++)                                                                    \
      part[(GsInt)(k0 + k) * RB + B] = reduce_tree(l0 + k * lst_ + o);                             \
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

/* Copies whose destination has at least this many bytes store past the caches (non-temporal
 * stores, where the target has them): a destination larger than the last-level cache would not
 * stay there anyway, and a plain store first reads each destination line from memory, a third
 * transfer besides the read and the write. On the 2-core development machine, 256 MiB arrays:
 * memcpy 25-28 GB/s, streaming stores 31-33 GB/s (read + write counted), which is what the
 * kernels that read and write the same arrays reach (axpy 32-33 GB/s). The copy bandwidth the
 * benchmarks take for their floor is this copy's. */
#define GS_CPU_STREAM_MIN ((size_t)32 << 20)

/* bytes from src to dst; stream: with non-temporal stores where dst and bytes are 16-byte
 * aligned (else, or without SSE2, memcpy). The caller fences (copy_fence) before its team ends. */
static void copy_bytes(char *dst, const char *src, size_t bytes, int stream) {
#if defined(__SSE2__)
  if (stream && ((uintptr_t)dst & 15) == 0 && (bytes & 15) == 0) {
    for (size_t k = 0; k < bytes; k += 16)
      _mm_stream_si128((__m128i *)(void *)(dst + k),
                       _mm_loadu_si128((const __m128i *)(const void *)(src + k)));
    return;
  }
#endif
  (void)stream;
  memcpy(dst, src, bytes);
}

/* Makes this thread's non-temporal stores visible before the team's barrier. */
static void copy_fence(int stream) {
#if defined(__SSE2__)
  if (stream) _mm_sfence();
#endif
  (void)stream;
}

/* n entries of es bytes from x to y, in chunks of GS_CPU_CHUNK entries over the threads. */
static void copy_entries(GsInt n, size_t es, const void *x, void *y) {
  const int stream = (size_t)n * es >= GS_CPU_STREAM_MIN;
  const char *cx = x;
  char *cy = y;
  _Pragma("omp parallel if (n > GS_CPU_OMP_MIN)") {
    _Pragma("omp for schedule(static) nowait") for (GsInt c = 0; c < nchunks(n); c++) {
      const GsInt lo = c * GS_CPU_CHUNK;
      copy_bytes(cy + lo * es, cx + lo * es, (size_t)(chunk_end(c, n) - lo) * es, stream);
    }
    copy_fence(stream);
  }
}

void GsCpuCopy(GsInt n, const double *x, double *y) {
  copy_entries(n, sizeof *x, x, y);
}

/* Scratch of a reduction: count doubles of partials (RB per value, value k of block B at k * RB +
 * B; one per chunk for the inf-norm), then the lane arrays of nvals values (red_blocks * RT each).
 */
static int alloc_partials(GsContext ctx, GsInt count, GsInt n, GsDataType dt, int nvals,
                          double **part, double **lanes) {
  const GsInt nl = (red_blocks(n, GS_REDUCE_PACK(dt)) * RT + GS_LANE_PAD) * nvals;
  GsCall(GsCpuScratch(ctx, (size_t)(count + nl) * sizeof **part, (void **)part));
  *lanes = *part + count;
  return 0;
}

static double fold_max(const double *part, GsInt nc) {
  double s = 0;
  for (GsInt c = 0; c < nc; c++)
    s = part[c] > s || isnan(part[c]) ? part[c] : s;
  return s;
}

/* The entry i of axpy_pair in lane t: r += (-a) q, s += r r over the new r and, when HW,
 * u += r (w r); when HX, x += a p. */
#define GS_CPU_PAIR_BODY(T, HX, HW)                                                                \
  {                                                                                                \
    GS_IF(HX, const T xv = x[i] + ta * p[i];)                                                      \
    const T rv = r[i] + nta * q[i];                                                                \
    GS_IF(HW, const T z = w[i] * rv;)                                                              \
    GS_IF(HX, x[i] = xv;)                                                                          \
    r[i] = rv;                                                                                     \
    s[t] += (double)rv * rv;                                                                       \
    GS_IF(HW, u[t] += (double)rv * z;)                                                             \
  }
#define GS_CPU_PAIR_LOOP(T, HX, HW)                                                                \
  RED_BLOCKS(n, GS_PACK_##T, nb, 2, lanes, GS_PTRS_SU, GS_CPU_PAIR_BODY(T, HX, HW), {              \
    part[B] = reduce_tree(s + o);                                                                  \
    part[RB + B] = reduce_tree(u + o);                                                             \
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
  /* y += a[k] x[k] for each k in turn, in ranges of GS_CPU_MAXPY entries that stay in the cache   \
   * between the terms, four terms a pass over the range (each entry adds them in order, as        \
   * axpby_##S(a[k], x[k], 1, y) would one call at a time: a pass per term ran at half the         \
   * bandwidth, its y stores in the way). */                                                       \
  static void maxpy_##S(GsInt n, int nv, const double *a, const void *const *xv, T *y) {           \
    OMP_FOR for (GsInt c = 0; c < (n + GS_CPU_MAXPY - 1) / GS_CPU_MAXPY; c++) {                    \
      const GsInt lo = c * GS_CPU_MAXPY, hi = lo + GS_CPU_MAXPY < n ? lo + GS_CPU_MAXPY : n;       \
      T *GS_RESTRICT yc = y;                                                                       \
      int k = 0;                                                                                   \
      for (; k + 4 <= nv; k += 4) {                                                                \
        const T a0 = (T)a[k], a1 = (T)a[k + 1], a2 = (T)a[k + 2], a3 = (T)a[k + 3];                \
        const T *GS_RESTRICT x0 = (const T *)xv[k], *GS_RESTRICT x1 = (const T *)xv[k + 1];        \
        const T *GS_RESTRICT x2 = (const T *)xv[k + 2], *GS_RESTRICT x3 = (const T *)xv[k + 3];    \
        for (GsInt i = lo; i < hi; i++) {                                                          \
          T v = yc[i];                                                                             \
          v += a0 * x0[i];                                                                         \
          v += a1 * x1[i];                                                                         \
          v += a2 * x2[i];                                                                         \
          v += a3 * x3[i];                                                                         \
          yc[i] = v;                                                                               \
        }                                                                                          \
      }                                                                                            \
      for (; k < nv; k++) {                                                                        \
        const T ta = (T)a[k], *GS_RESTRICT x = (const T *)xv[k];                                   \
        for (GsInt i = lo; i < hi; i++)                                                            \
          yc[i] += ta * x[i];                                                                      \
      }                                                                                            \
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
  /* part[k * RB + B] = block B's sum of x . y[k]; x is read once per GS_CPU_MDOT_GROUP vectors    \
   * (lanes: GS_CPU_MDOT_GROUP lane arrays) */                                                     \
  static void mdot_##S(GsInt n, const T *x, int nv, const void *const *y, double *part,            \
                       double *lanes) {                                                            \
    const GsInt nb = red_blocks(n, GS_PACK_##T);                                                   \
    for (int k0 = 0; k0 < nv; k0 += GS_CPU_MDOT_GROUP) {                                           \
      const int m = nv - k0 < GS_CPU_MDOT_GROUP ? nv - k0 : GS_CPU_MDOT_GROUP;                     \
      const T *yk[GS_CPU_MDOT_GROUP];                                                              \
      for (int k = 0; k < m; k++)                                                                  \
        yk[k] = (const T *)y[k0 + k];                                                              \
      const T *y0 = yk[0], *y1 = m > 1 ? yk[1] : x, *y2 = m > 2 ? yk[2] : x;                       \
      const T *y3 = m > 3 ? yk[3] : x;                                                             \
      /* m is the same for every entry: the compiler makes one loop of each (-funswitch-loops) */  \
      RED_BLOCKS(                                                                                  \
          n, GS_PACK_##T, nb, m, lanes, GS_PTRS_L,                                                 \
          {                                                                                        \
            const double xv = (double)x[i];                                                        \
            l0[t] += xv * y0[i];                                                                   \
            if (m > 1) l1[t] += xv * y1[i];                                                        \
            if (m > 2) l2[t] += xv * y2[i];                                                        \
            if (m > 3) l3[t] += xv * y3[i];                                                        \
          },                                                                                       \
          GS_CPU_MDOT_FINISH);                                                                     \
    }                                                                                              \
  }                                                                                                \
  /* part[B] = block B's sum |x| (type 1) or sum x^2 (type 2); max |x| of chunk B (inf) */         \
  static void norm_##S(GsInt n, const T *x, GsNormType type, double *part, double *lanes) {        \
    const GsInt nb = red_blocks(n, GS_PACK_##T);                                                   \
    if (type == GS_NORM_INF) {                                                                     \
      OMP_FOR for (GsInt c = 0; c < nchunks(n); c++) {                                             \
        GsInt lo = c * GS_CPU_CHUNK, hi = chunk_end(c, n);                                         \
        double mx = 0;                                                                             \
        int nan = 0;                                                                               \
        SIMD_MAX(mx, nan) for (GsInt i = lo; i < hi; i++) {                                        \
          double a = fabs((double)x[i]);                                                           \
          mx = a > mx ? a : mx;                                                                    \
          nan |= a != a;                                                                           \
        }                                                                                          \
        part[c] = nan ? NAN : mx;                                                                  \
      }                                                                                            \
    } else if (type == GS_NORM_1) {                                                                \
      RED_BLOCKS(                                                                                  \
          n, GS_PACK_##T, nb, 1, lanes, GS_PTRS_S, { s[t] += fabs((double)x[i]); },                \
          { part[B] = reduce_tree(s + o); });                                                      \
    } else {                                                                                       \
      RED_BLOCKS(                                                                                  \
          n, GS_PACK_##T, nb, 1, lanes, GS_PTRS_S, { s[t] += (double)x[i] * x[i]; },               \
          { part[B] = reduce_tree(s + o); });                                                      \
    }                                                                                              \
  }                                                                                                \
  static void axpy_norm_##S(GsInt n, double a, const T *x, T *y, double *part, double *lanes) {    \
    const T ta = (T)a;                                                                             \
    const GsInt nb = red_blocks(n, GS_PACK_##T);                                                   \
    RED_BLOCKS(                                                                                    \
        n, GS_PACK_##T, nb, 1, lanes, GS_PTRS_S,                                                   \
        {                                                                                          \
          const T v = y[i] + ta * x[i];                                                            \
          y[i] = v;                                                                                \
          s[t] += (double)v * v;                                                                   \
        },                                                                                         \
        { part[B] = reduce_tree(s + o); });                                                        \
  }                                                                                                \
  static void dot_norm2_##S(GsInt n, const T *x, const T *y, double *part, double *lanes) {        \
    const GsInt nb = red_blocks(n, GS_PACK_##T);                                                   \
    RED_BLOCKS(                                                                                    \
        n, GS_PACK_##T, nb, 2, lanes, GS_PTRS_DS,                                                  \
        {                                                                                          \
          d[t] += (double)x[i] * y[i];                                                             \
          s[t] += (double)y[i] * y[i];                                                             \
        },                                                                                         \
        {                                                                                          \
          part[B] = reduce_tree(d + o);                                                            \
          part[RB + B] = reduce_tree(s + o);                                                       \
        });                                                                                        \
  }                                                                                                \
  /* part[B] = block B's sum r r and part[RB + B] its sum r (w r) of the new r (w NULL: only the   \
   * first); x NULL: no x += a p. Every load of entry i comes before its stores: p, q, w may alias \
   * x or r. */                                                                                    \
  static void axpy_pair_##S(GsInt n, T *x, T *r, double a, const T *p, const T *q, const T *w,     \
                            double *part, double *lanes) {                                         \
    const T ta = (T)a, nta = -ta;                                                                  \
    const GsInt nb = red_blocks(n, GS_PACK_##T);                                                   \
    if (w && x) {                                                                                  \
      GS_CPU_PAIR_LOOP(T, 1, 1);                                                                   \
    } else if (w) {                                                                                \
      GS_CPU_PAIR_LOOP(T, 0, 1);                                                                   \
    } else if (x) {                                                                                \
      GS_CPU_PAIR_LOOP(T, 1, 0);                                                                   \
    } else {                                                                                       \
      GS_CPU_PAIR_LOOP(T, 0, 0);                                                                   \
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
    copy_entries(n, GsDataTypeSize(tx), x, y);
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

static int k_maxpy(GsContext ctx, GsDataType dt, GsInt n, int nv, const double *a,
                   const void *const *x, void *y) {
  (void)ctx;
  DISPATCH(dt, maxpy_d(n, nv, a, x, y), maxpy_f(n, nv, a, x, y));
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
  double *part = NULL, *lanes = NULL;
  const int ng = nv < GS_CPU_MDOT_GROUP ? nv : GS_CPU_MDOT_GROUP;
  GsCall(alloc_partials(ctx, (GsInt)RB * nv, n, dt, ng, &part, &lanes));
  DISPATCH(dt, mdot_d(n, x, nv, y, part, lanes), mdot_f(n, x, nv, y, part, lanes));
  const GsInt nb = red_blocks(n, GS_REDUCE_PACK(dt));
  for (int k = 0; k < nv; k++)
    r[k] = reduce_fold(part + (GsInt)k * RB, nb);
  return 0;
}

static int k_dot(GsContext ctx, GsDataType dt, GsInt n, const void *x, const void *y, double *r) {
  GsCall(k_mdot(ctx, dt, n, x, 1, &y, r));
  return 0;
}

/* x . y over n doubles, where fill(arg, lo, hi) writes y[lo, hi) on the thread that sums those
 * entries just before it sums them (a product fused with its dot: y is read back from the cache,
 * not from memory). The sum is k_dot's, term for term and in its order, so the same bits. */
#define GS_CPU_FILL_PACKS 2048 /* 32 KB of y a range */
int GsCpuDotFilled(GsContext ctx, GsInt n, const double *x, double *y, GsCpuFillFn fill, void *arg,
                   double *xy) {
  double *part = NULL, *lanes = NULL;
  GsCall(alloc_partials(ctx, RB, n, GS_DOUBLE, 1, &part, &lanes));
  const GsInt nb = red_blocks(n, GS_PACK_double);
  RED_BLOCKS_PRE(
      n, GS_PACK_double, nb, 1, lanes, GS_PTRS_L, GS_CPU_FILL_PACKS, fill(arg, pre_lo, pre_hi),
      {
        const double xv = x[i];
        l0[t] += xv * y[i];
      },
      { part[B] = reduce_tree(l0 + o); });
  *xy = reduce_fold(part, nb);
  return 0;
}

static int k_norm(GsContext ctx, GsDataType dt, GsInt n, const void *x, GsNormType type,
                  double *r) {
  double *part = NULL, *lanes = NULL;
  GsCall(alloc_partials(ctx, type == GS_NORM_INF ? nchunks(n) + 1 : RB, n, dt,
                        type == GS_NORM_INF ? 0 : 1, &part, &lanes));
  DISPATCH(dt, norm_d(n, x, type, part, lanes), norm_f(n, x, type, part, lanes));
  if (type == GS_NORM_INF)
    *r = fold_max(part, nchunks(n));
  else
    *r = reduce_fold(part, red_blocks(n, GS_REDUCE_PACK(dt)));
  if (type == GS_NORM_2) *r = sqrt(*r);
  return 0;
}

static int k_axpy_norm(GsContext ctx, GsDataType dt, GsInt n, double a, const void *x, void *y,
                       double *nrm) {
  double *part = NULL, *lanes = NULL;
  GsCall(alloc_partials(ctx, RB, n, dt, 1, &part, &lanes));
  DISPATCH(dt, axpy_norm_d(n, a, x, y, part, lanes), axpy_norm_f(n, a, x, y, part, lanes));
  *nrm = sqrt(reduce_fold(part, red_blocks(n, GS_REDUCE_PACK(dt))));
  return 0;
}

static int k_dot_norm2(GsContext ctx, GsDataType dt, GsInt n, const void *x, const void *y,
                       double *dot, double *nrm2) {
  double *part = NULL, *lanes = NULL;
  GsCall(alloc_partials(ctx, 2 * RB, n, dt, 2, &part, &lanes));
  DISPATCH(dt, dot_norm2_d(n, x, y, part, lanes), dot_norm2_f(n, x, y, part, lanes));
  const GsInt nb = red_blocks(n, GS_REDUCE_PACK(dt));
  *dot = reduce_fold(part, nb);
  *nrm2 = reduce_fold(part + RB, nb);
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
  double *part = NULL, *lanes = NULL;
  if (ds && ds->anum && !dev_ratio(ds->anum, ds->aden, &a)) return 0;
  GsCall(alloc_partials(ctx, 2 * RB, n, dt, 2, &part, &lanes));
  DISPATCH(dt, axpy_pair_d(n, x, r, a, p, q, w, part, lanes),
           axpy_pair_f(n, x, r, a, p, q, w, part, lanes));
  const GsInt nb = red_blocks(n, GS_REDUCE_PACK(dt));
  *rr = reduce_fold(part, nb);
  *rwr = w ? reduce_fold(part + RB, nb) : *rr;
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
  k->maxpy = k_maxpy;
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
