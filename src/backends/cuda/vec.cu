/* CUDA vector kernels.
 *
 * Floors: the fewest bytes each operation must move per entry, d = 8 (double) or 4 (float). The
 * time floor is n * bytes / (measured device-to-device copy bandwidth, ~4.26 TB/s on the H200).
 *   set                 d      write x
 *   scale               2d     read x, write x
 *   copy                2d     same type (cudaMemcpyAsync); 12 bytes double <-> float
 *   axpby               3d     read x and y, write y; 2d when beta == 0 (y is not read)
 *   maxpy               (nv + 2g) d: y is read and written once, g = 1, for up to 8 x vectors
 *                              (a kernel for each count) and up to GS_MAXPY_ALL_NV (one kernel
 *                              for any count), g = ceil(nv / GS_MAXPY_ALL_NV) past that
 *   axpbypcz            4d     read x, y and z, write z; 3d when gamma == 0 (z is not read;
 *                              also WAXPY, w = alpha x + 1 y)
 *   pointwise mult/div  3d     read x and y, write w
 *   reciprocal          2d     read x, write x
 *   dot                 2d     read x and y
 *   mdot                (nv + g) d, g = ceil(nv / 8): x is read once per group of 8 y vectors
 *   norm 1, 2, inf      d      read x
 *   axpy_norm           3d     read x and y, write y
 *   dot_norm2           2d     read x and y
 *   set_random          d      write x (plus ~25 integer operations per entry for the hash)
 *   axpy_pair           7d     read x, r, p, q, w, write x and r; 6d without w; 3d less without x
 *   pw_mult_aypx        4d     read w, x, y, write y; 3d without w; d less when beta == 0
 *     with z            6d     also read and write z (z += alpha y); 5d without w; y is read for
 *                              z even when beta == 0
 *
 * How they reach the floor:
 * - One wave of launch_blocks = SMs * GS_CUDA_BLOCKS_PER_SM blocks of GS_CUDA_THREADS threads
 *   (see cudaimpl.h) strides over the vector with 64-bit indices.
 * - When every array involved is 16-byte aligned (always so for cudaMalloc'd vectors), entries
 *   move as 16-byte packs (double2 / float4); the n % W entries past the last pack are a scalar
 *   tail. An array wrapped by the user at an odd offset takes a scalar (W = 1) instance of the
 *   same kernel.
 * - Each thread issues all loads of U packs before using any, so several loads are in flight.
 * - A reduction is one kernel in the reduction order of gsimpl.h, the same on every device and the
 *   CPU back end: one thread a lane (at most GS_REDUCE_BLOCKS blocks, one wave on an H200), each
 *   adding its 16-byte packs in order in double, then warp shuffles and shared memory; each block
 *   writes its partial, and the last block to finish (threadfence + atomicInc) folds them in block
 *   order. So results are the CPU back end's bits, on any device; the fold costs one block reading
 *   at most 512 doubles, so atomics would gain nothing.
 * Element-wise operations compute in the element type, with the scalars rounded to it, as the CPU
 * back end does, and no multiply-add is fused (this file is built --fmad=false): every entry is the
 * CPU back end's bits. Reductions convert each entry to double first. Kernels are written once as
 * macros over (element type, pack width) and stamped out for double, float and their scalar
 * fallbacks (the code base is C-style; no templates). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cudaimpl.h"

/* ---- Packs ----------------------------------------------------------------------------------- */

/* W consecutive entries moved by one load or store; .e names the entries. */
typedef union {
  double v;
  double e[1];
} GsPack_double_1;
typedef union {
  double2 v;
  double e[2];
} GsPack_double_2;
typedef union {
  float v;
  float e[1];
} GsPack_float_1;
typedef union {
  float2 v;
  float e[2];
} GsPack_float_2;
typedef union {
  float4 v;
  float e[4];
} GsPack_float_4;

#define GS_TID ((GsInt)blockIdx.x * blockDim.x + threadIdx.x)
#define GS_STRIDE ((GsInt)gridDim.x * blockDim.x)

/* Packs per thread per loop trip: 64 bytes of loads in flight for vector packs (4 packs of one
 * input, or 2 packs each of two inputs); twice as many trips for scalar fallbacks. */
#define GS_UNROLL(nin, w) (((nin) >= 2 ? 2 : 4) * ((w) == 1 ? 2 : 1))

static int GsAligned16(const void *p) {
  return ((uintptr_t)p & 15u) == 0;
}

/* ---- Streaming (element-wise) kernels -------------------------------------------------------- */

/* Kernel macros leave out, with GS_IF (gsimpl.h), every line that touches an input (or output) the
 * kernel being stamped out does not have. */

typedef struct {
  const void *x, *y; /* inputs, read by kernels that have them */
  void *w;           /* output */
  double s0, s1, s2; /* scalars */
  uint64_t seed;
} GsStreamArgs;

typedef void (*GsStreamKernel)(GsInt, GsStreamArgs);

/* Kernel NAME: w[i] = OP(TI, a, x[i], y[i], w[i], i) for i < n, reading TI and writing TO in
 * packs of W entries. HX, HY, HZ (0 or 1) say whether the kernel reads the inputs x, y and w
 * itself (in place, as z); OP is a macro that gets the element type, the arguments, the inputs
 * (empty when absent) and the entry index. */
#define GS_DEFINE_STREAM(NAME, TI, TO, W, HX, HY, HZ, OP)                                          \
  static __global__ void __launch_bounds__(GS_CUDA_THREADS, GS_CUDA_BLOCKS_PER_SM)                 \
      NAME(GsInt n, GsStreamArgs a) {                                                              \
    GS_PDL_ENTER(); /* launched by GS_LAUNCH (GsLaunchStream) */                                   \
    enum { U = GS_UNROLL(HX + HY + HZ, W) };                                                       \
    GS_IF(HX, const GsPack_##TI##_##W *xp = (const GsPack_##TI##_##W *)a.x;)                       \
    GS_IF(HY, const GsPack_##TI##_##W *yp = (const GsPack_##TI##_##W *)a.y;)                       \
    GsPack_##TO##_##W *wp = (GsPack_##TO##_##W *)a.w;                                              \
    const GsInt np = n / (W), stride = GS_STRIDE;                                                  \
    for (GsInt b = GS_TID; b < np; b += U * stride) {                                              \
      GS_IF(HX, GsPack_##TI##_##W px[U];)                                                          \
      GS_IF(HY, GsPack_##TI##_##W py[U];)                                                          \
      GS_IF(HZ, GsPack_##TO##_##W pz[U];)                                                          \
      /* All loads of the trip first, so that they are in flight together. */                      \
      _Pragma("unroll") for (int u = 0; u < U; u++) {                                              \
        const GsInt i = b + u * stride;                                                            \
        if (i < np) {                                                                              \
          GS_IF(HX, px[u].v = xp[i].v;)                                                            \
          GS_IF(HY, py[u].v = yp[i].v;)                                                            \
          GS_IF(HZ, pz[u].v = wp[i].v;)                                                            \
        }                                                                                          \
      }                                                                                            \
      _Pragma("unroll") for (int u = 0; u < U; u++) {                                              \
        const GsInt i = b + u * stride;                                                            \
        if (i < np) {                                                                              \
          GsPack_##TO##_##W pw;                                                                    \
          _Pragma("unroll") for (int c = 0; c < (W); c++) pw.e[c] =                                \
              (TO)OP(TI, a, GS_IF(HX, px[u].e[c]), GS_IF(HY, py[u].e[c]), GS_IF(HZ, pz[u].e[c]),   \
                     i * (W) + c);                                                                 \
          wp[i].v = pw.v;                                                                          \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    if ((W) > 1) { /* the n % W entries after the last pack */                                     \
      GS_IF(HX, const TI *xs = (const TI *)a.x;)                                                   \
      GS_IF(HY, const TI *ys = (const TI *)a.y;)                                                   \
      TO *ws = (TO *)a.w;                                                                          \
      for (GsInt i = np * (W) + GS_TID; i < n; i += stride)                                        \
        ws[i] = (TO)OP(TI, a, GS_IF(HX, xs[i]), GS_IF(HY, ys[i]), GS_IF(HZ, ws[i]), i);            \
    }                                                                                              \
  }

/* Instances for double and float, vector and scalar, and the table [dt][aligned] of them. */
#define GS_DEFINE_STREAM_ALL(NAME, HX, HY, HZ, OP)                                                 \
  GS_DEFINE_STREAM(NAME##_double_1, double, double, 1, HX, HY, HZ, OP)                             \
  GS_DEFINE_STREAM(NAME##_double_2, double, double, 2, HX, HY, HZ, OP)                             \
  GS_DEFINE_STREAM(NAME##_float_1, float, float, 1, HX, HY, HZ, OP)                                \
  GS_DEFINE_STREAM(NAME##_float_4, float, float, 4, HX, HY, HZ, OP)                                \
  static const GsStreamKernel NAME[2][2] = {{NAME##_double_1, NAME##_double_2},                    \
                                            {NAME##_float_1, NAME##_float_4}};

/* The operations, computed in the element type T like the CPU back end. */
#define GS_OP_SET(T, a, x, y, z, i) ((T)(a).s0)
#define GS_OP_AX(T, a, x, y, z, i) ((T)(a).s0 * (x))
#define GS_OP_AXPBY(T, a, x, y, z, i) ((T)(a).s0 * (x) + (T)(a).s1 * (y))
/* alpha x + beta y + gamma z, left to right */
#define GS_OP_AXPBYPCZ(T, a, x, y, z, i) ((T)(a).s0 * (x) + (T)(a).s1 * (y) + (T)(a).s2 * (z))
#define GS_OP_MULT(T, a, x, y, z, i) ((x) * (y))
#define GS_OP_DIVIDE(T, a, x, y, z, i) ((x) / (y))
#define GS_OP_RECIPROCAL(T, a, x, y, z, i) ((x) != (T)0 ? (T)1 / (x) : (T)0)
#define GS_OP_CONVERT(T, a, x, y, z, i) (x)
/* lo + (hi - lo) u with s0 = lo, s1 = hi - lo, in double and rounded after each operation (no fused
 * multiply-add), so that the values are the CPU back end's, bit for bit. */
#define GS_OP_RANDOM(T, a, x, y, z, i)                                                             \
  GsRandomClamp_##T(                                                                               \
      __dadd_rn((a).s0, __dmul_rn((a).s1, GsRandomUniform((a).seed, (uint64_t)(i)))), (a).s0,      \
      (a).s2)
#define GsRandomClamp_double GsRandomClampDouble
#define GsRandomClamp_float GsRandomClampFloat

GS_DEFINE_STREAM_ALL(gs_k_set, 0, 0, 0, GS_OP_SET)
GS_DEFINE_STREAM_ALL(gs_k_ax, 1, 0, 0, GS_OP_AX)
GS_DEFINE_STREAM_ALL(gs_k_axpby, 1, 1, 0, GS_OP_AXPBY)
GS_DEFINE_STREAM_ALL(gs_k_axpbypcz, 1, 1, 1, GS_OP_AXPBYPCZ)
GS_DEFINE_STREAM_ALL(gs_k_mult, 1, 1, 0, GS_OP_MULT)
GS_DEFINE_STREAM_ALL(gs_k_divide, 1, 1, 0, GS_OP_DIVIDE)
GS_DEFINE_STREAM_ALL(gs_k_reciprocal, 1, 0, 0, GS_OP_RECIPROCAL)
GS_DEFINE_STREAM_ALL(gs_k_random, 0, 0, 0, GS_OP_RANDOM)

/* Conversions move 2 entries per pack: a double2 load with a float2 store, or the reverse. */
GS_DEFINE_STREAM(gs_k_d2f_1, double, float, 1, 1, 0, 0, GS_OP_CONVERT)
GS_DEFINE_STREAM(gs_k_d2f_2, double, float, 2, 1, 0, 0, GS_OP_CONVERT)
GS_DEFINE_STREAM(gs_k_f2d_1, float, double, 1, 1, 0, 0, GS_OP_CONVERT)
GS_DEFINE_STREAM(gs_k_f2d_2, float, double, 2, 1, 0, 0, GS_OP_CONVERT)
/* [tx][aligned] */
static const GsStreamKernel gs_k_convert[2][2] = {{gs_k_d2f_1, gs_k_d2f_2},
                                                  {gs_k_f2d_1, gs_k_f2d_2}};

/* ---- Reductions ------------------------------------------------------------------------------ */

/* The reduction order of gsimpl.h: thread GS_TID is lane GS_TID and takes the packs b = GS_TID,
 * GS_TID + GS_REDUCE_LANES, ... (16 bytes: GsRPack), then the short last pack of n % GS_RPACK
 * entries if the lane has it; GsReduceFinish adds the lanes. Kernels of load width W = GS_RPACK
 * load a pack at once; W = 1 (an array at an odd offset) loads its entries one by one, in the same
 * lanes, so that the sums are the same. */
typedef GsPack_double_2 GsRPack_double;
typedef GsPack_float_4 GsRPack_float;
#define GS_RPACK_double 2
#define GS_RPACK_float 4
/* dst (a GsRPack_T) = pack i of the T array src, or the same into pack i of dst (a T array). */
#define GS_LDP(T, W, dst, src, i)                                                                  \
  do {                                                                                             \
    if ((W) == GS_RPACK_##T) {                                                                     \
      (dst).v = ((const GsRPack_##T *)(src))[i].v;                                                 \
    } else {                                                                                       \
      _Pragma("unroll") for (int c_ = 0; c_ < GS_RPACK_##T; c_++)(dst).e[c_] =                     \
          ((const T *)(src))[(i)*GS_RPACK_##T + c_];                                               \
    }                                                                                              \
  } while (0)
#define GS_STP(T, W, dst, src, i)                                                                  \
  do {                                                                                             \
    if ((W) == GS_RPACK_##T) {                                                                     \
      ((GsRPack_##T *)(dst))[i].v = (src).v;                                                       \
    } else {                                                                                       \
      _Pragma("unroll") for (int c_ = 0; c_ < GS_RPACK_##T;                                        \
                             c_++)((T *)(dst))[(i)*GS_RPACK_##T + c_] = (src).e[c_];               \
    }                                                                                              \
  } while (0)
/* Whether this thread's lane has the short last pack (np full packs): it comes after the lane's
 * full packs, the highest entries. */
#define GS_HAS_TAIL(T, n, np) ((n) % GS_RPACK_##T != 0 && GS_TID == (np) % GS_REDUCE_LANES)

typedef struct {
  const void *x;
  const void *y[GS_CUDA_MAX_NV];
  void *w; /* output of axpy_norm (= y[0]) */
  double alpha;
  double *partials;
  unsigned int *counter;
  double *result;
} GsReduceArgs;

typedef void (*GsReduceKernel)(GsInt, GsReduceArgs);

/* Kernel NAME: input x (= a.x) and, when HY, y (= a.y[0]); NACC accumulators updated for each entry
 * by the macro ELEM(T, a, acc, x, y, out). When STORE, ELEM also sets `out` (type T), which is
 * written to a.w at the entry's position. ISMAX: combine threads' values by max instead of sum. */
#define GS_DEFINE_REDUCE(NAME, T, W, HY, NACC, STORE, ISMAX, ELEM)                                 \
  static __global__ void __launch_bounds__(GS_CUDA_THREADS, GS_CUDA_BLOCKS_PER_SM)                 \
      NAME(GsInt n, GsReduceArgs a) {                                                              \
    enum { U = GS_UNROLL(1 + HY, 2) };                                                             \
    typedef GsRPack_##T P;                                                                         \
    double acc[GS_CUDA_MAX_NV] = {0.0};                                                            \
    const GsInt np = n / GS_RPACK_##T, L = GS_REDUCE_LANES;                                        \
    for (GsInt b = GS_TID; b < np; b += U * L) {                                                   \
      P px[U];                                                                                     \
      GS_IF(HY, P py[U];)                                                                          \
      _Pragma("unroll") for (int u = 0; u < U; u++) {                                              \
        const GsInt i = b + u * L;                                                                 \
        if (i < np) {                                                                              \
          GS_LDP(T, W, px[u], a.x, i);                                                             \
          GS_IF(HY, GS_LDP(T, W, py[u], a.y[0], i);)                                               \
        }                                                                                          \
      }                                                                                            \
      _Pragma("unroll") for (int u = 0; u < U; u++) {                                              \
        const GsInt i = b + u * L;                                                                 \
        if (i < np) {                                                                              \
          GS_IF(STORE, P pw;)                                                                      \
          _Pragma("unroll") for (int c = 0; c < GS_RPACK_##T; c++) {                               \
            GS_IF(STORE, T out;)                                                                   \
            ELEM(T, a, acc, px[u].e[c], GS_IF(HY, py[u].e[c]), out);                               \
            GS_IF(STORE, pw.e[c] = out;)                                                           \
          }                                                                                        \
          GS_IF(STORE, GS_STP(T, W, a.w, pw, i);)                                                  \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    if (GS_HAS_TAIL(T, n, np)) {                                                                   \
      const T *xs = (const T *)a.x;                                                                \
      GS_IF(HY, const T *ys = (const T *)a.y[0];)                                                  \
      GS_IF(STORE, T *ws = (T *)a.w;)                                                              \
      for (GsInt i = np * GS_RPACK_##T; i < n; i++) {                                              \
        GS_IF(STORE, T out;)                                                                       \
        ELEM(T, a, acc, xs[i], GS_IF(HY, ys[i]), out);                                             \
        GS_IF(STORE, ws[i] = out;)                                                                 \
      }                                                                                            \
    }                                                                                              \
    GsReduceFinish(acc, NACC, ISMAX, a.partials, a.counter, a.result);                             \
  }

#define GS_DEFINE_REDUCE_ALL(NAME, HY, NACC, STORE, ISMAX, ELEM)                                   \
  GS_DEFINE_REDUCE(NAME##_double_1, double, 1, HY, NACC, STORE, ISMAX, ELEM)                       \
  GS_DEFINE_REDUCE(NAME##_double_2, double, 2, HY, NACC, STORE, ISMAX, ELEM)                       \
  GS_DEFINE_REDUCE(NAME##_float_1, float, 1, HY, NACC, STORE, ISMAX, ELEM)                         \
  GS_DEFINE_REDUCE(NAME##_float_4, float, 4, HY, NACC, STORE, ISMAX, ELEM)                         \
  static const GsReduceKernel NAME[2][2] = {{NAME##_double_1, NAME##_double_2},                    \
                                            {NAME##_float_1, NAME##_float_4}};

#define GS_EL_NORM1(T, a, acc, x, y, out) ((acc)[0] += fabs((double)(x)))
#define GS_EL_NORM2(T, a, acc, x, y, out) ((acc)[0] += (double)(x) * (double)(x))
#define GS_EL_NORMINF(T, a, acc, x, y, out) ((acc)[0] = GsMaxNan((acc)[0], fabs((double)(x))))
#define GS_EL_DOT_NORM2(T, a, acc, x, y, out)                                                      \
  ((acc)[0] += (double)(x) * (double)(y), (acc)[1] += (double)(y) * (double)(y))
/* y + alpha x in the element type, as stored and as the CPU computes it; then its square. */
#define GS_EL_AXPY_NORM(T, a, acc, x, y, out)                                                      \
  ((out) = (y) + (T)(a).alpha * (x), (acc)[0] += (double)(out) * (double)(out))

GS_DEFINE_REDUCE_ALL(gs_k_norm1, 0, 1, 0, 0, GS_EL_NORM1)
GS_DEFINE_REDUCE_ALL(gs_k_norm2, 0, 1, 0, 0, GS_EL_NORM2)
GS_DEFINE_REDUCE_ALL(gs_k_norminf, 0, 1, 0, 1, GS_EL_NORMINF)
GS_DEFINE_REDUCE_ALL(gs_k_dot_norm2, 1, 2, 0, 0, GS_EL_DOT_NORM2)
GS_DEFINE_REDUCE_ALL(gs_k_axpy_norm, 1, 1, 1, 0, GS_EL_AXPY_NORM)

/* Kernel NAME: result[k] = x . y[k] for k < NV, reading x once. With several y vectors there are
 * already NV + 1 independent loads per pack, so only dot (NV = 1) unrolls further. From 4 vectors
 * on, the NV + 1 packs in flight need more than the 64 registers that 4 blocks per SM allow (ptxas
 * spills), so those kernels run 2 blocks per SM, 128 registers: 512 threads x (NV + 1) x 16 bytes
 * in flight per SM is still plenty. */
#define GS_MDOT_UNROLL(nv) ((nv) == 1 ? 2 : 1)
#define GS_MDOT_BLOCKS_PER_SM(nv) ((nv) >= 4 ? 2 : GS_CUDA_BLOCKS_PER_SM)
#define GS_DEFINE_MDOT(NAME, T, W, NV)                                                             \
  static __global__ void __launch_bounds__(GS_CUDA_THREADS, GS_MDOT_BLOCKS_PER_SM(NV))             \
      NAME(GsInt n, GsReduceArgs a) {                                                              \
    enum { U = GS_MDOT_UNROLL(NV) };                                                               \
    typedef GsRPack_##T P;                                                                         \
    double acc[GS_CUDA_MAX_NV] = {0.0};                                                            \
    const GsInt np = n / GS_RPACK_##T, L = GS_REDUCE_LANES;                                        \
    for (GsInt b = GS_TID; b < np; b += U * L) {                                                   \
      P px[U], py[U][NV];                                                                          \
      _Pragma("unroll") for (int u = 0; u < U; u++) {                                              \
        const GsInt i = b + u * L;                                                                 \
        if (i < np) {                                                                              \
          GS_LDP(T, W, px[u], a.x, i);                                                             \
          _Pragma("unroll") for (int k = 0; k < (NV); k++) GS_LDP(T, W, py[u][k], a.y[k], i);      \
        }                                                                                          \
      }                                                                                            \
      _Pragma("unroll") for (int u = 0; u < U; u++) {                                              \
        if (b + u * L < np) {                                                                      \
          _Pragma("unroll") for (int c = 0; c < GS_RPACK_##T; c++) {                               \
            const double xv = (double)px[u].e[c];                                                  \
            _Pragma("unroll") for (int k = 0; k < (NV); k++) acc[k] += xv * (double)py[u][k].e[c]; \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    if (GS_HAS_TAIL(T, n, np)) {                                                                   \
      const T *xs = (const T *)a.x;                                                                \
      for (GsInt i = np * GS_RPACK_##T; i < n; i++) {                                              \
        const double xv = (double)xs[i];                                                           \
        _Pragma("unroll") for (int k = 0; k < (NV); k++) acc[k] +=                                 \
            xv * (double)((const T *)a.y[k])[i];                                                   \
      }                                                                                            \
    }                                                                                              \
    GsReduceFinish(acc, NV, 0, a.partials, a.counter, a.result);                                   \
  }

#define GS_DEFINE_MDOT_NV(NV)                                                                      \
  GS_DEFINE_MDOT(gs_k_mdot##NV##_double_1, double, 1, NV)                                          \
  GS_DEFINE_MDOT(gs_k_mdot##NV##_double_2, double, 2, NV)                                          \
  GS_DEFINE_MDOT(gs_k_mdot##NV##_float_1, float, 1, NV)                                            \
  GS_DEFINE_MDOT(gs_k_mdot##NV##_float_4, float, 4, NV)
/* Families of kernels by the number of vectors NV = 1 .. GS_CUDA_MAX_NV (mdot, maxpy): DEFNV(NV)
 * stamps out the four (type, width) instances P<NV>_<T>_<W>; GS_NV_TABLE(P) is their table
 * [dt][aligned][nv - 1]. */
#define GS_NV_FAMILY(DEFNV) DEFNV(1) DEFNV(2) DEFNV(3) DEFNV(4) DEFNV(5) DEFNV(6) DEFNV(7) DEFNV(8)
#define GS_NV_ROW(P, T, W)                                                                         \
  {                                                                                                \
    P##1_##T##_##W, P##2_##T##_##W, P##3_##T##_##W, P##4_##T##_##W, P##5_##T##_##W,                \
        P##6_##T##_##W, P##7_##T##_##W, P##8_##T##_##W                                             \
  }
#define GS_NV_TABLE(P)                                                                             \
  {                                                                                                \
    {GS_NV_ROW(P, double, 1), GS_NV_ROW(P, double, 2)}, {                                          \
      GS_NV_ROW(P, float, 1), GS_NV_ROW(P, float, 4)                                               \
    }                                                                                              \
  }
GS_NV_FAMILY(GS_DEFINE_MDOT_NV)
static const GsReduceKernel gs_k_mdot[2][2][GS_CUDA_MAX_NV] = GS_NV_TABLE(gs_k_mdot);

/* A product rounded to T on its own (the kernels are compiled without contraction, --fmad=false,
 * so that every product and sum is rounded as the CPU back end rounds it; the intrinsic says so
 * where it matters). */
#define GsMulRn_double __dmul_rn
#define GsMulRn_float __fmul_rn

/* ---- MAXPY: y += alpha[k] x[k] in turn, up to GS_CUDA_MAX_NV terms a pass ------------------- */

typedef struct {
  const void *x[GS_CUDA_MAX_NV];
  void *y;
  double alpha[GS_CUDA_MAX_NV];
} GsMaxpyArgs;

typedef void (*GsMaxpyKernel)(GsInt, GsMaxpyArgs);

/* NV + 1 loads of a pack are already in flight, so no unrolling; from 4 terms on, 2 blocks per SM
 * (128 registers) as for mdot. */
#define GS_MAXPY_BLOCKS_PER_SM(nv) ((nv) >= 4 ? 2 : GS_CUDA_BLOCKS_PER_SM)

/* Inside a MAXPY kernel: the n % W entries after the last pack, y += AK x[k] for k_ < NVX (AK an
 * expression of k_). */
#define GS_MAXPY_TAIL(T, W, NVX, AK)                                                               \
  if ((W) > 1) {                                                                                   \
    T *ys = (T *)a.y;                                                                              \
    for (GsInt i = np * (W) + GS_TID; i < n; i += stride) {                                        \
      T v = ys[i];                                                                                 \
      for (int k_ = 0; k_ < (NVX); k_++)                                                           \
        v = v + GsMulRn_##T(AK, ((const T *)a.x[k_])[i]);                                          \
      ys[i] = v;                                                                                   \
    }                                                                                              \
  }
/* Kernel NAME: y += alpha[k] x[k] for k < NV, each product and sum rounded to T on its own, in the
 * order of k, as NV calls of AXPBY(alpha[k], x[k], 1, y) round them (GS_OP_AXPBY with beta 1: the
 * product (T)1 * y is y exactly). */
#define GS_DEFINE_MAXPY(NAME, T, W, NV)                                                            \
  static __global__ void __launch_bounds__(GS_CUDA_THREADS, GS_MAXPY_BLOCKS_PER_SM(NV))            \
      NAME(GsInt n, GsMaxpyArgs a) {                                                               \
    typedef GsPack_##T##_##W P;                                                                    \
    T ta[NV];                                                                                      \
    _Pragma("unroll") for (int k = 0; k < (NV); k++) ta[k] = (T)a.alpha[k];                        \
    P *yp = (P *)a.y;                                                                              \
    const GsInt np = n / (W), stride = GS_STRIDE;                                                  \
    for (GsInt i = GS_TID; i < np; i += stride) {                                                  \
      P py, px[NV];                                                                                \
      py.v = yp[i].v;                                                                              \
      _Pragma("unroll") for (int k = 0; k < (NV); k++) px[k].v = ((const P *)a.x[k])[i].v;         \
      _Pragma("unroll") for (int k = 0; k < (NV); k++) {                                           \
        _Pragma("unroll") for (int c = 0; c < (W); c++) py.e[c] =                                  \
            py.e[c] + GsMulRn_##T(ta[k], px[k].e[c]);                                              \
      }                                                                                            \
      yp[i].v = py.v;                                                                              \
    }                                                                                              \
    GS_MAXPY_TAIL(T, W, NV, ta[k_])                                                                \
  }

#define GS_DEFINE_MAXPY_NV(NV)                                                                     \
  GS_DEFINE_MAXPY(gs_k_maxpy##NV##_double_1, double, 1, NV)                                        \
  GS_DEFINE_MAXPY(gs_k_maxpy##NV##_double_2, double, 2, NV)                                        \
  GS_DEFINE_MAXPY(gs_k_maxpy##NV##_float_1, float, 1, NV)                                          \
  GS_DEFINE_MAXPY(gs_k_maxpy##NV##_float_4, float, 4, NV)
GS_NV_FAMILY(GS_DEFINE_MAXPY_NV)
static const GsMaxpyKernel gs_k_maxpy[2][2][GS_CUDA_MAX_NV] = GS_NV_TABLE(gs_k_maxpy);

/* More than GS_CUDA_MAX_NV terms (a GMRES cycle's classical Gram-Schmidt past its eighth vector):
 * one kernel for any count up to GS_MAXPY_ALL_NV, which keeps y in registers while it takes the
 * x vectors 8 at a time (8 loads in flight and y's), so that y is read and written once instead
 * of once per group of 8. The same terms in the same order, each rounded on its own, so the same
 * bits as the kernels above and the CPU back end. */
#define GS_MAXPY_ALL_NV 64
typedef struct {
  const void *x[GS_MAXPY_ALL_NV];
  void *y;
  double alpha[GS_MAXPY_ALL_NV];
  int nv;
} GsMaxpyAllArgs;
typedef void (*GsMaxpyAllKernel)(GsInt, GsMaxpyAllArgs);
/* y += alpha[k] x[k] for k < a.nv, in the order of k (a const kernel parameter: the x pointers
 * and alphas are read from the parameter bank by index, not copied to local memory). */
#define GS_DEFINE_MAXPY_ALL(NAME, T, W)                                                            \
  static __global__ void __launch_bounds__(GS_CUDA_THREADS,                                        \
                                           GS_MAXPY_BLOCKS_PER_SM(GS_CUDA_MAX_NV))                 \
      NAME(GsInt n, const __grid_constant__ GsMaxpyAllArgs a) {                                    \
    typedef GsPack_##T##_##W P;                                                                    \
    P *yp = (P *)a.y;                                                                              \
    const int nv = a.nv;                                                                           \
    const GsInt np = n / (W), stride = GS_STRIDE;                                                  \
    for (GsInt i = GS_TID; i < np; i += stride) {                                                  \
      P py;                                                                                        \
      py.v = yp[i].v;                                                                              \
      for (int g = 0; g < nv; g += GS_CUDA_MAX_NV) {                                               \
        P px[GS_CUDA_MAX_NV];                                                                      \
        _Pragma("unroll") for (int k = 0; k < GS_CUDA_MAX_NV; k++) if (g + k < nv) px[k].v =       \
            ((const P *)a.x[g + k])[i].v;                                                          \
        _Pragma("unroll") for (int k = 0; k < GS_CUDA_MAX_NV; k++) if (g + k < nv) {               \
          const T ta = (T)a.alpha[g + k];                                                          \
          _Pragma("unroll") for (int c = 0; c < (W); c++) py.e[c] =                                \
              py.e[c] + GsMulRn_##T(ta, px[k].e[c]);                                               \
        }                                                                                          \
      }                                                                                            \
      yp[i].v = py.v;                                                                              \
    }                                                                                              \
    GS_MAXPY_TAIL(T, W, nv, (T)a.alpha[k_])                                                        \
  }
GS_DEFINE_MAXPY_ALL(gs_k_maxpy_all_double_1, double, 1)
GS_DEFINE_MAXPY_ALL(gs_k_maxpy_all_double_2, double, 2)
GS_DEFINE_MAXPY_ALL(gs_k_maxpy_all_float_1, float, 1)
GS_DEFINE_MAXPY_ALL(gs_k_maxpy_all_float_4, float, 4)
static const GsMaxpyAllKernel gs_k_maxpy_all[2][2] = {
    {gs_k_maxpy_all_double_1, gs_k_maxpy_all_double_2},
    {gs_k_maxpy_all_float_1, gs_k_maxpy_all_float_4}};

/* ---- Fused CG updates (more inputs than the macros above take) ------------------------------- */

/* One entry of axpy_pair: when HX, x += alpha p, and r += (-alpha) q in place (xv and rv are
 * lvalues; ta = (T)alpha, nta = -ta), each product and sum rounded as GsVecAXPY rounds them, then
 * acc[0] += r r and, when HW, acc[1] += r (w r), over the new r. */
#define GS_PAIR_ELEM(T, HX, HW, ta, nta, acc, xv, rv, p, q, w)                                     \
  do {                                                                                             \
    GS_IF(HX, (xv) = (xv) + GsMulRn_##T((ta), (p));)                                               \
    (rv) = (rv) + GsMulRn_##T((nta), (q));                                                         \
    (acc)[0] += (double)(rv) * (double)(rv);                                                       \
    GS_IF(HW, (acc)[1] += (double)(rv) * (double)GsMulRn_##T((w), (rv));)                          \
  } while (0)

typedef struct {
  void *x, *r;           /* updated (x when the kernel has it) */
  const void *p, *q, *w; /* read (p and w when the kernel has them) */
  double alpha;
  const double *anum, *aden; /* alpha = anum[0] / aden[0] from device memory (anum not NULL) */
  double *partials;
  unsigned int *counter;
  double *result;
} GsPairArgs;

/* A coefficient from device memory (GsDevScalars): num / den, or 0 returned when den is not
 * positive (the step is not taken: the kernel then returns at once, in every thread alike). */
static __device__ __forceinline__ int GsDevRatio(const double *num, const double *den, double *v) {
  const double d = __ldg(den);
  if (!(d > 0)) return 0;
  *v = __ldg(num) / d;
  return 1;
}

typedef void (*GsPairKernel)(GsInt, GsPairArgs);

/* Five arrays per pack (four without w) are already 80 (64) bytes in flight, so no unrolling. */
#define GS_PAIR_UNROLL 1

/* Kernel NAME: the axpy_pair reduction (results rr and, when HW, rwr) over T, loads of width W,
 * with the update of x when HX. All loads of a pack come before its stores, so p, q, w may alias x
 * or r entry by entry. */
#define GS_DEFINE_AXPY_PAIR(NAME, T, W, HX, HW)                                                    \
  static __global__ void __launch_bounds__(GS_CUDA_THREADS, GS_CUDA_BLOCKS_PER_SM)                 \
      NAME(GsInt n, GsPairArgs a) {                                                                \
    enum { U = GS_PAIR_UNROLL };                                                                   \
    if (a.anum && !GsDevRatio(a.anum, a.aden, &a.alpha)) return;                                   \
    typedef GsRPack_##T P;                                                                         \
    GS_IF(HX, const T ta = (T)a.alpha;)                                                            \
    const T nta = -(T)a.alpha;                                                                     \
    double acc[GS_CUDA_MAX_NV] = {0.0};                                                            \
    const GsInt np = n / GS_RPACK_##T, L = GS_REDUCE_LANES;                                        \
    for (GsInt b = GS_TID; b < np; b += U * L) {                                                   \
      P pr[U], qv[U];                                                                              \
      GS_IF(HX, P px[U], pv[U];)                                                                   \
      GS_IF(HW, P wv[U];)                                                                          \
      _Pragma("unroll") for (int u = 0; u < U; u++) {                                              \
        const GsInt i = b + u * L;                                                                 \
        if (i < np) {                                                                              \
          GS_IF(HX, GS_LDP(T, W, px[u], a.x, i);)                                                  \
          GS_LDP(T, W, pr[u], a.r, i);                                                             \
          GS_IF(HX, GS_LDP(T, W, pv[u], a.p, i);)                                                  \
          GS_LDP(T, W, qv[u], a.q, i);                                                             \
          GS_IF(HW, GS_LDP(T, W, wv[u], a.w, i);)                                                  \
        }                                                                                          \
      }                                                                                            \
      _Pragma("unroll") for (int u = 0; u < U; u++) {                                              \
        const GsInt i = b + u * L;                                                                 \
        if (i < np) {                                                                              \
          _Pragma("unroll") for (int c = 0; c < GS_RPACK_##T; c++)                                 \
              GS_PAIR_ELEM(T, HX, HW, ta, nta, acc, px[u].e[c], pr[u].e[c], pv[u].e[c],            \
                           qv[u].e[c], wv[u].e[c]);                                                \
          GS_IF(HX, GS_STP(T, W, a.x, px[u], i);)                                                  \
          GS_STP(T, W, a.r, pr[u], i);                                                             \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    if (GS_HAS_TAIL(T, n, np)) {                                                                   \
      T *rs = (T *)a.r;                                                                            \
      const T *qs = (const T *)a.q;                                                                \
      GS_IF(HX, T *xs = (T *)a.x; const T *ps = (const T *)a.p;)                                   \
      GS_IF(HW, const T *ws = (const T *)a.w;)                                                     \
      for (GsInt i = np * GS_RPACK_##T; i < n; i++) {                                              \
        T rv = rs[i];                                                                              \
        GS_IF(HX, T xv = xs[i];)                                                                   \
        GS_PAIR_ELEM(T, HX, HW, ta, nta, acc, xv, rv, ps[i], qs[i], ws[i]);                        \
        GS_IF(HX, xs[i] = xv;)                                                                     \
        rs[i] = rv;                                                                                \
      }                                                                                            \
    }                                                                                              \
    GsReduceFinish(acc, 1 + (HW), 0, a.partials, a.counter, a.result);                             \
  }

#define GS_DEFINE_AXPY_PAIR_ALL(NAME, HX, HW)                                                      \
  GS_DEFINE_AXPY_PAIR(NAME##_double_1, double, 1, HX, HW)                                          \
  GS_DEFINE_AXPY_PAIR(NAME##_double_2, double, 2, HX, HW)                                          \
  GS_DEFINE_AXPY_PAIR(NAME##_float_1, float, 1, HX, HW)                                            \
  GS_DEFINE_AXPY_PAIR(NAME##_float_4, float, 4, HX, HW)
GS_DEFINE_AXPY_PAIR_ALL(gs_k_r_pair, 0, 0)
GS_DEFINE_AXPY_PAIR_ALL(gs_k_r_pair_w, 0, 1)
GS_DEFINE_AXPY_PAIR_ALL(gs_k_axpy_pair, 1, 0)
GS_DEFINE_AXPY_PAIR_ALL(gs_k_axpy_pair_w, 1, 1)
#define GS_PAIR_ROW(NAME)                                                                          \
  {                                                                                                \
    {NAME##_double_1, NAME##_double_2}, {                                                          \
      NAME##_float_1, NAME##_float_4                                                               \
    }                                                                                              \
  }
/* [has x][has w][dt][aligned] */
static const GsPairKernel gs_k_axpy_pair_t[2][2][2][2] = {
    {GS_PAIR_ROW(gs_k_r_pair), GS_PAIR_ROW(gs_k_r_pair_w)},
    {GS_PAIR_ROW(gs_k_axpy_pair), GS_PAIR_ROW(gs_k_axpy_pair_w)}};
static const char *const gs_k_axpy_pair_name[2][2] = {{"gs_k_r_pair", "gs_k_r_pair_w"},
                                                      {"gs_k_axpy_pair", "gs_k_axpy_pair_w"}};

typedef struct {
  const void *x, *w; /* read (w when the kernel has it) */
  void *y, *z;       /* updated (z when the kernel has it) */
  double s0, s1;     /* 1 and beta: the scalars of GS_OP_AXPBY, as AXPBY(y, 1, beta, m) has them */
  double alpha;
  /* alpha and beta (s1) from device memory when anum is not NULL */
  const double *anum, *aden, *bnum, *bden;
} GsAypxArgs;

typedef void (*GsAypxKernel)(GsInt, GsAypxArgs);

/* y is the first input; w and z add one each. */
#define GS_AYPX_UNROLL(hw, hz, w) GS_UNROLL(2 + (hw) + (hz), w)

/* One entry of pw_mult_aypx, in place on the lvalues yv and zv (ta = (T)alpha): when HZ,
 * z += alpha y as GsVecAXPY rounds it; then y = m + beta y with m = w x rounded on its own
 * (HW) or x, summed by GS_OP_AXPBY so that it is compiled as AXPBY(y, 1, beta, m) is; without
 * the beta term (HB 0), y = m. */
#define GS_AYPX_M_0(T, x, w) (x)
#define GS_AYPX_M_1(T, x, w) GsMulRn_##T((w), (x))
#define GS_AYPX_Y_0(T, a, m, y) (m)
#define GS_AYPX_Y_1(T, a, m, y) GS_OP_AXPBY(T, a, m, y, , 0)
#define GS_AYPX_ELEM(T, HW, HZ, HB, a, ta, xv, wv, yv, zv)                                         \
  do {                                                                                             \
    GS_IF(HZ, (zv) = (zv) + GsMulRn_##T((ta), (yv));)                                              \
    (yv) = GS_AYPX_Y_##HB(T, a, GS_AYPX_M_##HW(T, xv, wv), yv);                                    \
  } while (0)

/* Kernel NAME: y = w .* x + beta y (w when HW; no beta term when HB is 0) and, when HZ,
 * z += alpha y with the y on entry, in packs of W entries of T. All loads of a trip come before
 * its stores, so w and x may alias y entry by entry. (Without w and z the operation is AXPBY.) */
#define GS_DEFINE_MULT_AYPX(NAME, T, W, HW, HZ, HB)                                                \
  static __global__ void __launch_bounds__(GS_CUDA_THREADS, GS_CUDA_BLOCKS_PER_SM)                 \
      NAME(GsInt n, GsAypxArgs a) {                                                                \
    enum { U = GS_AYPX_UNROLL(HW, HZ, W) };                                                        \
    if (a.anum && (!GsDevRatio(a.anum, a.aden, &a.alpha) || !GsDevRatio(a.bnum, a.bden, &a.s1)))   \
      return;                                                                                      \
    typedef GsPack_##T##_##W P;                                                                    \
    const P *xp = (const P *)a.x;                                                                  \
    GS_IF(HW, const P *wp = (const P *)a.w;)                                                       \
    P *yp = (P *)a.y;                                                                              \
    GS_IF(HZ, P *zp = (P *)a.z; const T ta = (T)a.alpha;)                                          \
    const GsInt np = n / (W), stride = GS_STRIDE;                                                  \
    for (GsInt b = GS_TID; b < np; b += U * stride) {                                              \
      P px[U], py[U];                                                                              \
      GS_IF(HW, P pw[U];)                                                                          \
      GS_IF(HZ, P pz[U];)                                                                          \
      _Pragma("unroll") for (int u = 0; u < U; u++) {                                              \
        const GsInt i = b + u * stride;                                                            \
        if (i < np) {                                                                              \
          px[u].v = xp[i].v;                                                                       \
          GS_IF(HW, pw[u].v = wp[i].v;)                                                            \
          py[u].v = yp[i].v;                                                                       \
          GS_IF(HZ, pz[u].v = zp[i].v;)                                                            \
        }                                                                                          \
      }                                                                                            \
      _Pragma("unroll") for (int u = 0; u < U; u++) {                                              \
        const GsInt i = b + u * stride;                                                            \
        if (i < np) {                                                                              \
          _Pragma("unroll") for (int c = 0; c < (W); c++)                                          \
              GS_AYPX_ELEM(T, HW, HZ, HB, a, ta, px[u].e[c], pw[u].e[c], py[u].e[c], pz[u].e[c]);  \
          GS_IF(HZ, zp[i].v = pz[u].v;)                                                            \
          yp[i].v = py[u].v;                                                                       \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    if ((W) > 1) {                                                                                 \
      const T *xs = (const T *)a.x;                                                                \
      GS_IF(HW, const T *ws = (const T *)a.w;)                                                     \
      T *ys = (T *)a.y;                                                                            \
      GS_IF(HZ, T *zs = (T *)a.z;)                                                                 \
      for (GsInt i = np * (W) + GS_TID; i < n; i += stride) {                                      \
        T yv = ys[i];                                                                              \
        GS_IF(HZ, T zv = zs[i];)                                                                   \
        GS_AYPX_ELEM(T, HW, HZ, HB, a, ta, xs[i], ws[i], yv, zv);                                  \
        GS_IF(HZ, zs[i] = zv;)                                                                     \
        ys[i] = yv;                                                                                \
      }                                                                                            \
    }                                                                                              \
  }

#define GS_DEFINE_MULT_AYPX_ALL(NAME, HW, HZ, HB)                                                  \
  GS_DEFINE_MULT_AYPX(NAME##_double_1, double, 1, HW, HZ, HB)                                      \
  GS_DEFINE_MULT_AYPX(NAME##_double_2, double, 2, HW, HZ, HB)                                      \
  GS_DEFINE_MULT_AYPX(NAME##_float_1, float, 1, HW, HZ, HB)                                        \
  GS_DEFINE_MULT_AYPX(NAME##_float_4, float, 4, HW, HZ, HB)
GS_DEFINE_MULT_AYPX_ALL(gs_k_mult_aypx, 1, 0, 1)
GS_DEFINE_MULT_AYPX_ALL(gs_k_axpy_aypx, 0, 1, 1)
GS_DEFINE_MULT_AYPX_ALL(gs_k_axpy_mult_aypx, 1, 1, 1)
GS_DEFINE_MULT_AYPX_ALL(gs_k_axpy_copy, 0, 1, 0)
GS_DEFINE_MULT_AYPX_ALL(gs_k_axpy_mult, 1, 1, 0)
#define GS_AYPX_ROW(NAME)                                                                          \
  {                                                                                                \
    {NAME##_double_1, NAME##_double_2}, {                                                          \
      NAME##_float_1, NAME##_float_4                                                               \
    }                                                                                              \
  }
#define GS_AYPX_NONE                                                                               \
  {                                                                                                \
    {NULL, NULL}, {                                                                                \
      NULL, NULL                                                                                   \
    }                                                                                              \
  }
/* [has w][has z][beta != 0][dt][aligned]; NULL where the host never asks: without w and z the
 * operation is AXPBY, and without z beta != 0. */
static const GsAypxKernel gs_k_mult_aypx_t[2][2][2][2][2] = {
    {{GS_AYPX_NONE, GS_AYPX_NONE}, {GS_AYPX_ROW(gs_k_axpy_copy), GS_AYPX_ROW(gs_k_axpy_aypx)}},
    {{GS_AYPX_NONE, GS_AYPX_ROW(gs_k_mult_aypx)},
     {GS_AYPX_ROW(gs_k_axpy_mult), GS_AYPX_ROW(gs_k_axpy_mult_aypx)}}};
static const char *const gs_k_mult_aypx_name[2][2][2] = {
    {{NULL, NULL}, {"gs_k_axpy_copy", "gs_k_axpy_aypx"}},
    {{NULL, "gs_k_mult_aypx"}, {"gs_k_axpy_mult", "gs_k_axpy_mult_aypx"}}};

/* ---- Host side ------------------------------------------------------------------------------- */

static int GsCheckType(GsContext ctx, GsDataType dt) {
  GsCheck(dt == GS_DOUBLE || dt == GS_FLOAT, ctx, GS_ERR_ARG_TYPE, "unknown data type %d", (int)dt);
  return 0;
}

/* Entries per pack for type dt (index 0 double, 1 float) when aligned, else 1. */
static int GsPackWidth(int d, int aligned) {
  return aligned ? (d ? 4 : 2) : 1;
}

/* Blocks for n entries in packs of w, u packs per thread per trip: enough to give each thread one
 * trip, capped at one full wave of a kernel that fits blocks_per_sm blocks on an SM. */
static unsigned int GsBlocks(const GsCudaContext *cc, GsInt n, int w, int u, int blocks_per_sm) {
  const GsInt per_block = (GsInt)GS_CUDA_THREADS * u;
  const GsInt wave = (GsInt)cc->sm_count * blocks_per_sm;
  GsInt b = (n / w + per_block - 1) / per_block;
  if (b > wave) b = wave;
  return b < 1 ? 1u : (unsigned int)b;
}

static int GsLaunchStream(GsContext ctx, GsCudaContext *cc, GsStreamKernel k, int w, int nin,
                          GsInt n, GsStreamArgs a, const char *name) {
  GS_LAUNCH(cc, GS_PDL_VEC, k, dim3(GsBlocks(cc, n, w, GS_UNROLL(nin, w), GS_CUDA_BLOCKS_PER_SM)),
            dim3(GS_CUDA_THREADS), 0, n, a);
  GsCheckLaunchCuda(ctx, name);
  return 0;
}

/* An element-wise operation from table t with nin inputs; x, y, w may be NULL where unused. */
static int GsStream(GsContext ctx, const GsStreamKernel t[2][2], int nin, GsDataType dt, GsInt n,
                    GsStreamArgs a, const char *name) {
  GsCudaContext *cc = NULL;
  GsCall(GsCheckType(ctx, dt));
  if (n <= 0) return 0;
  GsCall(GsCudaBegin(ctx, &cc));
  const int d = dt == GS_FLOAT;
  const int aligned = GsAligned16(a.x) && GsAligned16(a.y) && GsAligned16(a.w);
  GsCall(GsLaunchStream(ctx, cc, t[d][aligned], GsPackWidth(d, aligned), nin, n, a, name));
  return 0;
}

/* Make room for nv reduction results (mdot may ask for many). Only called between reductions, when
 * nothing on the stream uses the buffers: every reduction synchronizes before it returns. */
static int GsEnsureResults(GsContext ctx, GsCudaContext *cc, int nv) {
  if (nv <= cc->result_cap) return 0;
  int cap = 2 * cc->result_cap;
  if (cap < nv) cap = nv;
  GsCallCuda(ctx, GsCudaResultsFree(cc));
  GsCall(GsCudaResultsAlloc(ctx, cc, cap));
  return 0;
}

/* Grid of a reduction over n entries of type dt: the blocks of the reduction order (gsimpl.h) that
 * hold packs, at most GS_REDUCE_BLOCKS, whatever the device. */
unsigned int GsReduceGrid(GsInt n, GsDataType dt) {
  const GsInt pk = GS_REDUCE_PACK(dt);
  const GsInt b = ((n + pk - 1) / pk + GS_CUDA_THREADS - 1) / GS_CUDA_THREADS;
  return b < 1 ? 1u : b > GS_REDUCE_BLOCKS ? (unsigned int)GS_REDUCE_BLOCKS : (unsigned int)b;
}

/* Launch reduction kernel k (into a->result, which the caller may offset) over n entries. */
static int GsLaunchReduce(GsContext ctx, GsCudaContext *cc, GsReduceKernel k, GsDataType dt,
                          GsInt n, GsReduceArgs *a, const char *name) {
  a->partials = cc->partials;
  a->counter = cc->counter;
  if (!a->result) a->result = cc->results;
  k<<<GsReduceGrid(n, dt), GS_CUDA_THREADS, 0, cc->stream>>>(n, *a);
  GsCheckLaunchCuda(ctx, name);
  return 0;
}

int GsCudaDotToDevice(GsContext ctx, GsCudaContext *cc, GsInt n, const double *x, const double *y,
                      double *result) {
  GsReduceArgs a;
  memset(&a, 0, sizeof a);
  a.x = x;
  a.y[0] = y;
  a.result = result;
  GsCall(GsLaunchReduce(ctx, cc, gs_k_mdot[0][GsAligned16(x) && GsAligned16(y)][0], GS_DOUBLE, n,
                        &a, "gs_k_mdot"));
  return 0;
}

/* A one- or two-input reduction from table t, with nacc results into r. */
static int GsReduce(GsContext ctx, const GsReduceKernel t[2][2], int nacc, GsDataType dt, GsInt n,
                    GsReduceArgs a, double *r, const char *name) {
  GsCudaContext *cc = NULL;
  GsCall(GsCheckType(ctx, dt));
  if (n <= 0) {
    for (int k = 0; k < nacc; k++)
      r[k] = 0.0;
    return 0;
  }
  GsCall(GsCudaBegin(ctx, &cc));
  const int d = dt == GS_FLOAT;
  const int aligned = GsAligned16(a.x) && GsAligned16(a.y[0]) && GsAligned16(a.w);
  GsCall(GsLaunchReduce(ctx, cc, t[d][aligned], dt, n, &a, name));
  GsCall(GsFetchResults(ctx, cc, nacc, r));
  return 0;
}

/* ---- The GsVecKernels entries ---------------------------------------------------------------- */

static int GsVecSet_Cuda(GsContext ctx, GsDataType dt, GsInt n, void *x, double alpha) {
  GsStreamArgs a;
  memset(&a, 0, sizeof a);
  a.w = x;
  a.s0 = alpha;
  GsCall(GsStream(ctx, gs_k_set, 0, dt, n, a, "gs_k_set"));
  return 0;
}

static int GsVecScale_Cuda(GsContext ctx, GsDataType dt, GsInt n, void *x, double alpha) {
  GsStreamArgs a;
  if (alpha == 1.0) return GsCheckType(ctx, dt);
  memset(&a, 0, sizeof a);
  a.x = x;
  a.w = x;
  a.s0 = alpha;
  GsCall(GsStream(ctx, gs_k_ax, 1, dt, n, a, "gs_k_ax"));
  return 0;
}

static int GsVecCopy_Cuda(GsContext ctx, GsInt n, GsDataType tx, const void *x, GsDataType ty,
                          void *y) {
  GsCudaContext *cc = NULL;
  GsCall(GsCheckType(ctx, tx));
  GsCall(GsCheckType(ctx, ty));
  if (n <= 0) return 0;
  GsCall(GsCudaBegin(ctx, &cc));
  if (tx == ty) {
    if (x != y)
      GsCallCuda(ctx, cudaMemcpyAsync(y, x, (size_t)n * GsDataTypeSize(tx),
                                      cudaMemcpyDeviceToDevice, cc->stream));
    return 0;
  }
  GsStreamArgs a;
  memset(&a, 0, sizeof a);
  a.x = x;
  a.w = y;
  const int aligned = GsAligned16(x) && GsAligned16(y);
  GsCall(GsLaunchStream(ctx, cc, gs_k_convert[tx == GS_FLOAT][aligned], aligned ? 2 : 1, 1, n, a,
                        tx == GS_DOUBLE ? "gs_k_d2f" : "gs_k_f2d"));
  return 0;
}

static int GsVecAXPBY_Cuda(GsContext ctx, GsDataType dt, GsInt n, double alpha, const void *x,
                           double beta, void *y) {
  GsStreamArgs a;
  memset(&a, 0, sizeof a);
  a.x = x;
  a.w = y;
  a.s0 = alpha;
  if (beta == 0.0) {
    /* y = alpha x must not read y: it may hold NaN or garbage. */
    GsCall(GsStream(ctx, gs_k_ax, 1, dt, n, a, "gs_k_ax"));
  } else {
    a.y = y;
    a.s1 = beta;
    GsCall(GsStream(ctx, gs_k_axpby, 2, dt, n, a, "gs_k_axpby"));
  }
  return 0;
}

/* z = alpha x + beta y + gamma z; with gamma == 0 the axpby kernel writing z, which is not read.
 */
static int GsVecAXPBYPCZ_Cuda(GsContext ctx, GsDataType dt, GsInt n, double alpha, const void *x,
                              double beta, const void *y, double gamma, void *z) {
  GsStreamArgs a;
  memset(&a, 0, sizeof a);
  a.x = x;
  a.y = y;
  a.w = z;
  a.s0 = alpha;
  a.s1 = beta;
  a.s2 = gamma;
  if (gamma == 0.0)
    GsCall(GsStream(ctx, gs_k_axpby, 2, dt, n, a, "gs_k_axpby"));
  else
    GsCall(GsStream(ctx, gs_k_axpbypcz, 3, dt, n, a, "gs_k_axpbypcz"));
  return 0;
}

static int GsVecPointwise_Cuda(GsContext ctx, GsDataType dt, GsInt n, GsPointwiseOp op, void *w,
                               const void *x, const void *y) {
  GsStreamArgs a;
  GsCheck(op == GS_PW_MULT || op == GS_PW_DIVIDE, ctx, GS_ERR_ARG_OUTOFRANGE,
          "unknown pointwise operation %d", (int)op);
  memset(&a, 0, sizeof a);
  a.x = x;
  a.y = y;
  a.w = w;
  if (op == GS_PW_MULT)
    GsCall(GsStream(ctx, gs_k_mult, 2, dt, n, a, "gs_k_mult"));
  else
    GsCall(GsStream(ctx, gs_k_divide, 2, dt, n, a, "gs_k_divide"));
  return 0;
}

static int GsVecReciprocal_Cuda(GsContext ctx, GsDataType dt, GsInt n, void *x) {
  GsStreamArgs a;
  memset(&a, 0, sizeof a);
  a.x = x;
  a.w = x;
  GsCall(GsStream(ctx, gs_k_reciprocal, 1, dt, n, a, "gs_k_reciprocal"));
  return 0;
}

static int GsVecSetRandom_Cuda(GsContext ctx, GsDataType dt, GsInt n, void *x, uint64_t seed,
                               double lo, double hi) {
  GsStreamArgs a;
  memset(&a, 0, sizeof a);
  a.w = x;
  a.s0 = lo;
  a.s1 = hi - lo;
  a.s2 = hi;
  a.seed = seed;
  GsCall(GsStream(ctx, gs_k_random, 0, dt, n, a, "gs_k_random"));
  return 0;
}

/* The m terms from x and alpha into a kernel's arguments xs and as; whether y and every x are
 * 16-byte aligned (the packed kernels). */
static int maxpy_terms(int m, const double *alpha, const void *const *x, const void *y,
                       const void **xs, double *as) {
  int aligned = GsAligned16(y);
  for (int k = 0; k < m; k++) {
    xs[k] = x[k];
    as[k] = alpha[k];
    aligned = aligned && GsAligned16(x[k]);
  }
  return aligned;
}

/* y += alpha[k] x[k] in order: up to GS_CUDA_MAX_NV terms by the kernel of their count, more by
 * the kernel for any count, GS_MAXPY_ALL_NV terms a pass over y. */
static int GsVecMAXPY_Cuda(GsContext ctx, GsDataType dt, GsInt n, int nv, const double *alpha,
                           const void *const *x, void *y) {
  GsCudaContext *cc = NULL;
  GsCall(GsCheckType(ctx, dt));
  GsCheck(nv >= 0, ctx, GS_ERR_ARG_OUTOFRANGE, "number of vectors %d < 0", nv);
  if (nv == 0 || n <= 0) return 0;
  GsCall(GsCudaBegin(ctx, &cc));
  const int d = dt == GS_FLOAT;
  if (nv > GS_CUDA_MAX_NV) {
    for (int g = 0; g < nv; g += GS_MAXPY_ALL_NV) {
      const int m = nv - g < GS_MAXPY_ALL_NV ? nv - g : GS_MAXPY_ALL_NV;
      GsMaxpyAllArgs a;
      memset(&a, 0, sizeof a);
      a.y = y;
      a.nv = m;
      const int aligned = maxpy_terms(m, alpha + g, x + g, y, a.x, a.alpha);
      const int pw = GsPackWidth(d, aligned);
      gs_k_maxpy_all[d][aligned]<<<GsBlocks(cc, n, pw, 1, GS_MAXPY_BLOCKS_PER_SM(GS_CUDA_MAX_NV)),
                                   GS_CUDA_THREADS, 0, cc->stream>>>(n, a);
      GsCheckLaunchCuda(ctx, "gs_k_maxpy_all");
    }
    return 0;
  }
  GsMaxpyArgs a;
  memset(&a, 0, sizeof a);
  a.y = y;
  const int aligned = maxpy_terms(nv, alpha, x, y, a.x, a.alpha);
  const int pw = GsPackWidth(d, aligned);
  gs_k_maxpy[d][aligned][nv - 1]<<<GsBlocks(cc, n, pw, 1, GS_MAXPY_BLOCKS_PER_SM(nv)),
                                   GS_CUDA_THREADS, 0, cc->stream>>>(n, a);
  GsCheckLaunchCuda(ctx, "gs_k_maxpy");
  return 0;
}

/* r[k] = x . y[k]: groups of up to GS_CUDA_MAX_NV vectors, one pass over x per group, each group's
 * results written straight to its slots in cc->results, one transfer at the end. */
static int GsVecMDot_Cuda(GsContext ctx, GsDataType dt, GsInt n, const void *x, int nv,
                          const void *const *y, double *r) {
  GsCudaContext *cc = NULL;
  GsCall(GsCheckType(ctx, dt));
  GsCheck(nv >= 0, ctx, GS_ERR_ARG_OUTOFRANGE, "number of vectors %d < 0", nv);
  if (nv == 0) return 0;
  if (n <= 0) {
    for (int k = 0; k < nv; k++)
      r[k] = 0.0;
    return 0;
  }
  GsCall(GsCudaBegin(ctx, &cc));
  GsCall(GsEnsureResults(ctx, cc, nv));
  const int d = dt == GS_FLOAT;
  for (int g = 0; g < nv; g += GS_CUDA_MAX_NV) {
    const int m = nv - g < GS_CUDA_MAX_NV ? nv - g : GS_CUDA_MAX_NV;
    GsReduceArgs a;
    memset(&a, 0, sizeof a);
    a.x = x;
    int aligned = GsAligned16(x);
    for (int k = 0; k < m; k++) {
      a.y[k] = y[g + k];
      aligned = aligned && GsAligned16(y[g + k]);
    }
    a.result = cc->results + g;
    GsCall(GsLaunchReduce(ctx, cc, gs_k_mdot[d][aligned][m - 1], dt, n, &a, "gs_k_mdot"));
  }
  GsCall(GsFetchResults(ctx, cc, nv, r));
  return 0;
}

static int GsVecDot_Cuda(GsContext ctx, GsDataType dt, GsInt n, const void *x, const void *y,
                         double *r) {
  GsCall(GsVecMDot_Cuda(ctx, dt, n, x, 1, &y, r));
  return 0;
}

static int GsVecNorm_Cuda(GsContext ctx, GsDataType dt, GsInt n, const void *x, GsNormType type,
                          double *r) {
  GsReduceArgs a;
  memset(&a, 0, sizeof a);
  a.x = x;
  switch (type) {
  case GS_NORM_1:
    GsCall(GsReduce(ctx, gs_k_norm1, 1, dt, n, a, r, "gs_k_norm1"));
    break;
  case GS_NORM_2:
    GsCall(GsReduce(ctx, gs_k_norm2, 1, dt, n, a, r, "gs_k_norm2"));
    *r = sqrt(*r);
    break;
  case GS_NORM_INF:
    GsCall(GsReduce(ctx, gs_k_norminf, 1, dt, n, a, r, "gs_k_norminf"));
    break;
  default:
    return GsError(ctx, GS_ERR_ARG_OUTOFRANGE, "unknown norm type %d", (int)type);
  }
  return 0;
}

static int GsVecAXPYNorm_Cuda(GsContext ctx, GsDataType dt, GsInt n, double alpha, const void *x,
                              void *y, double *nrm) {
  GsReduceArgs a;
  memset(&a, 0, sizeof a);
  a.x = x;
  a.y[0] = y;
  a.w = y;
  a.alpha = alpha;
  GsCall(GsReduce(ctx, gs_k_axpy_norm, 1, dt, n, a, nrm, "gs_k_axpy_norm"));
  *nrm = sqrt(*nrm);
  return 0;
}

static int GsVecDotNorm2_Cuda(GsContext ctx, GsDataType dt, GsInt n, const void *x, const void *y,
                              double *dot, double *nrm2) {
  GsReduceArgs a;
  double r[2] = {0.0, 0.0};
  memset(&a, 0, sizeof a);
  a.x = x;
  a.y[0] = y;
  GsCall(GsReduce(ctx, gs_k_dot_norm2, 2, dt, n, a, r, "gs_k_dot_norm2"));
  *dot = r[0];
  *nrm2 = r[1];
  return 0;
}

static int GsVecAXPYPair_Cuda(GsContext ctx, GsDataType dt, GsInt n, void *x, void *r, double alpha,
                              const void *p, const void *q, const void *w, double *rwr, double *rr,
                              const GsDevScalars *ds) {
  GsCudaContext *cc = NULL;
  double res[2] = {0.0, 0.0};
  GsCall(GsCheckType(ctx, dt));
  if (n > 0) {
    GsCall(GsCudaBegin(ctx, &cc));
    GsPairArgs a = {x, r, p, q, w, alpha, NULL, NULL, cc->partials, cc->counter, cc->results};
    if (ds) {
      a.anum = ds->anum;
      a.aden = ds->aden;
      if (ds->res) a.result = ds->res;
    }
    const int d = dt == GS_FLOAT, hx = x != NULL, hw = w != NULL;
    /* GsAligned16(NULL) holds: an absent array does not force the scalar kernel. */
    const int aligned =
        GsAligned16(x) && GsAligned16(r) && GsAligned16(p) && GsAligned16(q) && GsAligned16(w);
    gs_k_axpy_pair_t[hx][hw][d][aligned]<<<GsReduceGrid(n, dt), GS_CUDA_THREADS, 0, cc->stream>>>(
        n, a);
    GsCheckLaunchCuda(ctx, gs_k_axpy_pair_name[hx][hw]);
    if (a.result == cc->results) GsCall(GsFetchResults(ctx, cc, 1 + hw, res));
  }
  *rr = res[0];
  *rwr = w ? res[1] : res[0];
  return 0;
}

static int GsVecPointwiseMultAYPX_Cuda(GsContext ctx, GsDataType dt, GsInt n, void *y, double beta,
                                       const void *w, const void *x, void *z, double alpha,
                                       const GsDevScalars *ds) {
  if (!w && !z && !ds) { /* y = 1 x + beta y, beta != 0 */
    GsStreamArgs a;
    memset(&a, 0, sizeof a);
    a.x = x;
    a.y = y;
    a.w = y;
    a.s0 = 1.0;
    a.s1 = beta;
    GsCall(GsStream(ctx, gs_k_axpby, 2, dt, n, a, "gs_k_axpby"));
    return 0;
  }
  GsCudaContext *cc = NULL;
  GsCall(GsCheckType(ctx, dt));
  if (n <= 0) return 0;
  GsCall(GsCudaBegin(ctx, &cc));
  GsAypxArgs a = {x, w, y, z, 1.0, beta, alpha, NULL, NULL, NULL, NULL};
  if (ds) {
    GsCheck(z != NULL, ctx, GS_ERR_INTERNAL, "pw_mult_aypx with device scalars needs z");
    a.anum = ds->anum;
    a.aden = ds->aden;
    a.bnum = ds->bnum;
    a.bden = ds->bden;
  }
  /* device scalars: the kernel with the beta term, whatever beta turns out to be */
  const int d = dt == GS_FLOAT, hw = w != NULL, hz = z != NULL, hb = ds || beta != 0.0;
  GsCheck(hz || hb, ctx, GS_ERR_ARG_OUTOFRANGE, "pw_mult_aypx without z needs beta != 0");
  const int aligned = GsAligned16(x) && GsAligned16(w) && GsAligned16(y) && GsAligned16(z);
  const int pw = GsPackWidth(d, aligned);
  gs_k_mult_aypx_t
      [hw][hz][hb][d]
      [aligned]<<<GsBlocks(cc, n, pw, GS_AYPX_UNROLL(hw, hz, pw), GS_CUDA_BLOCKS_PER_SM),
                  GS_CUDA_THREADS, 0, cc->stream>>>(n, a);
  GsCheckLaunchCuda(ctx, gs_k_mult_aypx_name[hw][hz][hb]);
  return 0;
}

void GsCudaFillVecKernels(GsVecKernels *k) {
  k->set = GsVecSet_Cuda;
  k->scale = GsVecScale_Cuda;
  k->copy = GsVecCopy_Cuda;
  k->axpby = GsVecAXPBY_Cuda;
  k->axpbypcz = GsVecAXPBYPCZ_Cuda;
  k->maxpy = GsVecMAXPY_Cuda;
  k->pointwise = GsVecPointwise_Cuda;
  k->reciprocal = GsVecReciprocal_Cuda;
  k->dot = GsVecDot_Cuda;
  k->mdot = GsVecMDot_Cuda;
  k->norm = GsVecNorm_Cuda;
  k->axpy_norm = GsVecAXPYNorm_Cuda;
  k->dot_norm2 = GsVecDotNorm2_Cuda;
  k->set_random = GsVecSetRandom_Cuda;
  k->axpy_pair = GsVecAXPYPair_Cuda;
  k->pw_mult_aypx = GsVecPointwiseMultAYPX_Cuda;
}
