/* Private declarations of the CUDA back end; included only from the .cu files of this folder. */
#ifndef GPUSOLVE_CUDAIMPL_H
#define GPUSOLVE_CUDAIMPL_H

#include <string.h>

#include <cublas_v2.h>
#include <cuda.h> /* CUtensorMap (types only: the driver's functions are looked up at run time) */
#include <cuda_runtime.h>
#include <cusparse.h>

#include "../../gsimpl.h"

/* ---- Launch shape ---------------------------------------------------------------------------- */

/* Every streaming and reduction kernel runs GS_CUDA_THREADS threads per block and is declared
 * __launch_bounds__(GS_CUDA_THREADS, GS_CUDA_BLOCKS_PER_SM), which caps its registers so that this
 * many blocks are resident on one SM at once. Launching at most launch_blocks = SMs *
 * GS_CUDA_BLOCKS_PER_SM blocks therefore gives one balanced wave whose threads stride over the
 * vector: no tail wave. Reductions run the grid of the reduction order instead (gsimpl.h: at most
 * GS_REDUCE_BLOCKS blocks, one thread a lane, whatever the device), one wave on an H200. Each
 * thread keeps about 64 bytes of loads in flight (16-byte loads, unrolled), i.e. 64 KiB per SM,
 * well above what latency x bandwidth asks of an H100/H200 SM (~32 KiB). (mdot over 4 to 8
 * vectors needs more registers and runs 2 blocks per SM; see vec.cu.) */
#define GS_CUDA_THREADS 256
#define GS_CUDA_WARPS (GS_CUDA_THREADS / 32)
#define GS_CUDA_BLOCKS_PER_SM 4
/* Most values one reduction kernel produces (an mdot group). */
#define GS_CUDA_MAX_NV 8
#if GS_CUDA_THREADS != GS_REDUCE_THREADS
#error "a reduction block is a block of the reduction order (gsimpl.h)"
#endif

/* Programmatic dependent launch (compute capability 9.0 and up). A kernel launched by GS_LAUNCH
 * with its kind in the context's pdl mask may start while the kernel before it in the stream
 * still runs: its blocks are placed, and wait at GS_PDL_ENTER, their first statement, until that
 * kernel has finished and its stores are visible; then they let the next kernel be placed in turn.
 * What this hides is the gap between two dependent kernels (the next grid's launch and its blocks'
 * start), a few microseconds a step of a small grid. Every kernel launched by GS_LAUNCH must begin
 * with GS_PDL_ENTER (no global memory before it); launched the plain way, GS_PDL_ENTER does
 * nothing. -cuda_pdl 0 launches them all the plain way, -cuda_pdl_mask M (GS_PDL_* bits) chooses;
 * a build whose code runs from PTX below 9.0 (no wait compiled in) never launches early.
 * The default leaves out the two-pass solves' carries and pass 2: H200, `gpusolve ch -bench 1
 * -bench_steps 30`, ms a step, three rounds in one call, none -> all -> the default: 1024^2 0.057
 * -> 0.054 -> 0.054, 2048^2 0.180-0.181 -> 0.178 -> 0.177, 4096^2 0.584-0.586 -> 0.579-0.581 ->
 * 0.581-0.582, float 4096^2 0.330-0.331 -> 0.320 -> 0.325-0.327, but the 1D ensemble (65536 x
 * 1024, two passes with the update) 1.413 -> 1.471-1.477 -> 1.406-1.409: with pass 2 launched
 * early it lost 5 % (1.405 with everything but pass 2). The merge SpMV and its carries (power
 * laws): `gpusolve spmv -powerlaw N -repeats 30`, three rounds in one call, -cuda_pdl_mask 15 ->
 * 79, us: 2^20 rows 108.3 / 107.9 / 107.3 -> 107.0 / 106.9 / 105.6, 2^22 468.9 / 468.5 / 469.0
 * -> 463.0 / 463.2 / 462.7. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define GS_PDL_ENTER()                                                                             \
  asm volatile("griddepcontrol.wait;\n\tgriddepcontrol.launch_dependents;" ::: "memory")
#else
#define GS_PDL_ENTER() ((void)0)
#endif
/* The kernels GS_LAUNCH may launch that way, by kind (GsCudaContext.pdl: a mask of these). */
enum {
  GS_PDL_STENCIL = 1, /* stencil.cu */
  GS_PDL_VEC = 2,     /* vec.cu's GS_DEFINE_STREAM kernels (GsLaunchStream); not the others */
  GS_PDL_TILE = 4,    /* banded.cu's one-pass tiled solves */
  GS_PDL_TILE2A = 8,  /* the two-pass tiled solves' pass 1 */
  GS_PDL_TILE2S = 16, /* their carries */
  GS_PDL_TILE2B = 32, /* their pass 2 */
  GS_PDL_MERGE = 64,  /* mat.cu's merge SpMV and its carries (skewed rows) */
  GS_PDL_ALL = 127,
  GS_PDL_DEFAULT = GS_PDL_STENCIL | GS_PDL_VEC | GS_PDL_TILE | GS_PDL_TILE2A | GS_PDL_MERGE
};
#define GS_LAUNCH(cc, kind, kern, grid, block, smem, ...)                                          \
  do {                                                                                             \
    cudaLaunchConfig_t cfg_ = {};                                                                  \
    cudaLaunchAttribute at_[1] = {};                                                               \
    cfg_.gridDim = (grid);                                                                         \
    cfg_.blockDim = (block);                                                                       \
    cfg_.dynamicSmemBytes = (smem);                                                                \
    cfg_.stream = (cc)->stream;                                                                    \
    at_[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;                                \
    at_[0].val.programmaticStreamSerializationAllowed = 1;                                         \
    cfg_.attrs = at_;                                                                              \
    cfg_.numAttrs = ((cc)->pdl & (kind)) ? 1 : 0;                                                  \
    (void)cudaLaunchKernelEx(&cfg_, kern, __VA_ARGS__);                                            \
  } while (0)

/* Tensor maps a context keeps (staged banded solves: 7 arrays a batch, two batches). */
#define GS_CUDA_TMA_CACHE 16

/* Per-context state, kept in ctx->bdata. */
typedef struct {
  int device;
  cudaStream_t stream; /* created non-blocking: no implicit sync with the legacy default stream */
  int sm_count, max_threads_per_sm, cc_major, cc_minor;
  int pdl; /* the kinds of GS_LAUNCH's kernels launched with programmatic dependent launch */
  size_t l2_bytes;
  int launch_blocks; /* grid size cap of every vector kernel (see above) */
  /* Reductions: each block writes its partials to `partials` (GS_CUDA_MAX_NV * GS_REDUCE_BLOCKS
   * doubles, value-major: every reduction runs GsReduceGrid's at most GS_REDUCE_BLOCKS blocks), the
   * last block to finish (counted in `counter`, which it leaves at 0) folds them into `results`,
   * and the host reads `results` through the pinned `results_host`: where the device can write
   * that pinned memory (results_mapped), `results` is its device address, so the last block
   * writes the host's copy itself and a reduction only waits (no copy back); else a buffer of
   * the device copied back after each reduction. */
  double *partials;
  unsigned int *counter;
  double *results;
  double *results_host;
  int result_cap;     /* entries in results and results_host */
  int results_mapped; /* results is results_host's device address */
  /* Tiled banded solves: for each kernel ([double/float][chunk length 8/16/32, 3: the long
   * kernel, 4: the wide one, 5: contiguous 32-row chunks without the scans' matrices, 6 and 7:
   * contiguous 8- and 16-row chunks][periodic]),
   * the dynamic shared memory it was last allowed and the blocks per SM that fit with it, so that
   * a solve sets the attribute and asks the occupancy only when the size changes. Periodic: 1 W
   * read from global memory, 2 from shared memory (GS_TILE_WSM), 3 the block E only
   * (GS_TILE_TAIL). */
  size_t tile_smem[2][8][4];
  int tile_per_sm[2][8][4];
  /* Chunked scans ([double/float][chunk length 16][pentadiagonal][periodic][kernel: 0 plain, 1
   * LDL^T-only, 2 of 512 threads; 1 and 2 shared a slot, so that in a context that solved float
   * pentadiagonal LDL^T first the 512-thread LU kernel kept the default carve-out]):
   * whether the kernel's shared memory carve-out has been set, so that its resident blocks are not
   * held back by a small one. */
  int scan_carveout[2][2][2][2][3];
  /* The same for the scans of a partitioned solve's partial solves ([float][pentadiagonal]). */
  int part_scan_carveout[2][2];
  int scan_pair_attr[2];      /* the PAIR scan kernels' shared memory set ([bands == 5]) */
  int scan_halves_attr[3][2]; /* the scans in halves ([penta double, tri double, tri float]
                               * [periodic]): smem, carve-out set */
  /* Staged banded solves ([float][pentadiagonal][LDL^T]): whether the kernel's shared-memory limit
   * has been raised; and the tensor maps of the last GS_CUDA_TMA_CACHE arrays they viewed (an array
   * is known by its address, shape, value size and box, which is all its map holds; the wide tiled
   * solves' maps of f share the cache: GS_TILE_NEXT), so that a repeated solve encodes none. */
  int staged_attr[2][2][2];
  /* The two-pass tiled solves' carries ([float][periodic]): whether the kernel's shared-memory
   * limit has been raised. */
  int tile2s_attr[2][2];
  /* The one-pass tiled solves with the next group's f copied ahead (GS_TILE_NEXT; [float][PER 3]):
   * the dynamic shared memory they were last allowed. */
  size_t tilex_smem[2][2];
  void *tma_encode; /* the driver's cuTensorMapEncodeTiled (NULL: none; set at init) */
  struct {
    const void *ptr;
    long long cols, rows;
    int es, bc, br; /* value size, box */
    CUtensorMap map;
  } tma[GS_CUDA_TMA_CACHE];
  int tma_next, tma_used;
} GsCudaContext;

/* ---- Error handling -------------------------------------------------------------------------- */

/* Raise GS_ERR_CUDA for status err, naming what failed. Evaluates to the error code. */
#define GsCudaRaise(ctx, err, what)                                                                \
  GsErrorRaise((ctx), GS_ERR_CUDA, __FILE__, __LINE__, __func__, "%s (%s) from %s",                \
               cudaGetErrorName(err), cudaGetErrorString(err), (what))

/* Return GS_ERR_CUDA from the calling function when a runtime call fails. A non-sticky error is
 * also cleared from the runtime's last-error slot, so that a later launch check does not report it
 * a second time against an innocent kernel. */
#define GsCallCuda(ctx, expr)                                                                      \
  do {                                                                                             \
    const cudaError_t gs_cerr_ = (expr);                                                           \
    if (gs_cerr_ != cudaSuccess) {                                                                 \
      (void)cudaGetLastError();                                                                    \
      return GsCudaRaise((ctx), gs_cerr_, #expr);                                                  \
    }                                                                                              \
  } while (0)

/* As GsCallCuda, for functions that must release resources: set ierr and jump to label. */
#define GsCallCudaGoto(ctx, ierr, label, expr)                                                     \
  do {                                                                                             \
    const cudaError_t gs_cerr_ = (expr);                                                           \
    if (gs_cerr_ != cudaSuccess) {                                                                 \
      (void)cudaGetLastError();                                                                    \
      (ierr) = GsCudaRaise((ctx), gs_cerr_, #expr);                                                \
      goto label;                                                                                  \
    }                                                                                              \
  } while (0)

/* Return GS_ERR_CUBLAS when a cuBLAS call fails, keeping cuBLAS's name and text for the status. */
#define GsCallCublas(ctx, expr)                                                                    \
  do {                                                                                             \
    const cublasStatus_t gs_berr_ = (expr);                                                        \
    if (gs_berr_ != CUBLAS_STATUS_SUCCESS)                                                         \
      return GsErrorRaise((ctx), GS_ERR_CUBLAS, __FILE__, __LINE__, __func__, "%s (%s) from %s",   \
                          cublasGetStatusName(gs_berr_), cublasGetStatusString(gs_berr_), #expr);  \
  } while (0)

/* Return GS_ERR_CUSPARSE when a cuSPARSE call fails, keeping cuSPARSE's name and text. */
#define GsCallCusparse(ctx, expr)                                                                  \
  do {                                                                                             \
    const cusparseStatus_t gs_serr_ = (expr);                                                      \
    if (gs_serr_ != CUSPARSE_STATUS_SUCCESS)                                                       \
      return GsErrorRaise((ctx), GS_ERR_CUSPARSE, __FILE__, __LINE__, __func__, "%s (%s) from %s", \
                          cusparseGetErrorName(gs_serr_), cusparseGetErrorString(gs_serr_),        \
                          #expr);                                                                  \
  } while (0)

/* Check a kernel launch just made (bad configuration, missing image for this GPU, or a sticky
 * error left by earlier work); `kernel` names it in the message. */
#define GsCheckLaunchCuda(ctx, kernel)                                                             \
  do {                                                                                             \
    const cudaError_t gs_lerr_ = cudaGetLastError();                                               \
    if (gs_lerr_ != cudaSuccess)                                                                   \
      return GsErrorRaise((ctx), GS_ERR_CUDA, __FILE__, __LINE__, __func__,                        \
                          "%s (%s) from launching kernel %s", cudaGetErrorName(gs_lerr_),          \
                          cudaGetErrorString(gs_lerr_), (kernel));                                 \
  } while (0)

/* The context's CUDA state, with its device made current for this host thread: two contexts on
 * different devices may be used from one thread. */
static inline int GsCudaBegin(GsContext ctx, GsCudaContext **cc) {
  GsCudaContext *c = (GsCudaContext *)ctx->bdata;
  int cur = -1;
  GsCheck(c != NULL, ctx, GS_ERR_WRONG_STATE, "the CUDA back end of this context is not set up");
  GsCallCuda(ctx, cudaGetDevice(&cur));
  if (cur != c->device) GsCallCuda(ctx, cudaSetDevice(c->device));
  *cc = c;
  return 0;
}

/* ---- Reductions ------------------------------------------------------------------------------ */

/* Kernels that reduce (vec.cu, and SpMV fused with a dot in mat.cu) run the grid of the reduction
 * order (gsimpl.h), at most GS_REDUCE_BLOCKS blocks of GS_CUDA_THREADS threads, one thread a lane
 * (partials has GS_CUDA_MAX_NV slots per block), and end with GsReduceFinish, which adds the lanes
 * in the order gsimpl.h writes down: the same bits as the CPU back end. */
#ifdef __CUDACC__
/* Max that keeps a NaN from either side, as the CPU's fold does: a NaN shows in the inf-norm. */
static __device__ __forceinline__ double GsMaxNan(double a, double b) {
  return (b > a || b != b) ? b : a;
}

static __device__ __forceinline__ double GsCombine(double a, double b, int is_max) {
  return is_max ? GsMaxNan(a, b) : a + b;
}

/* Reduce v[0..nv-1] over the block; thread 0 ends with the results. 0 is the identity of both the
 * sum and the max (of absolute values). sh is reused: callers separate two calls by a barrier. */
static __device__ __forceinline__ void GsBlockReduce(double *v, int nv, int is_max,
                                                     double (*sh)[GS_CUDA_WARPS]) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int k = 0; k < GS_CUDA_MAX_NV; k++) {
    if (k < nv) {
#pragma unroll
      for (int off = 16; off > 0; off >>= 1)
        v[k] = GsCombine(v[k], __shfl_down_sync(0xffffffffu, v[k], off), is_max);
      if (lane == 0) sh[k][warp] = v[k];
    }
  }
  __syncthreads();
  if (warp == 0) {
#pragma unroll
    for (int k = 0; k < GS_CUDA_MAX_NV; k++) {
      if (k < nv) {
        v[k] = lane < GS_CUDA_WARPS ? sh[k][lane] : 0.0;
#pragma unroll
        for (int off = GS_CUDA_WARPS / 2; off > 0; off >>= 1)
          v[k] = GsCombine(v[k], __shfl_down_sync(0xffffffffu, v[k], off), is_max);
      }
    }
  }
}

/* End of every reduction kernel: reduce acc over the block, publish the block's partials, and let
 * the last block to arrive fold all partials (in block order) into result[0..nv-1]. */
static __device__ __forceinline__ void GsReduceFinish(double *acc, int nv, int is_max,
                                                      double *partials, unsigned int *counter,
                                                      double *result) {
  __shared__ double sh[GS_CUDA_MAX_NV][GS_CUDA_WARPS];
  __shared__ int last;
  const unsigned int nb = gridDim.x;
  GsBlockReduce(acc, nv, is_max, sh);
  if (threadIdx.x == 0) {
#pragma unroll
    for (int k = 0; k < GS_CUDA_MAX_NV; k++)
      if (k < nv) partials[(size_t)k * nb + blockIdx.x] = acc[k];
    /* Publish the partials before counting this block as done. atomicInc wraps to 0 after the
     * last block, so the counter is ready for the next reduction on this context's stream. */
    __threadfence();
    last = atomicInc(counter, nb - 1) == nb - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
#pragma unroll
  for (int k = 0; k < GS_CUDA_MAX_NV; k++) {
    if (k < nv) {
      double s = 0.0;
      /* __ldcg reads L2, where the other blocks' partials are, never a stale L1 line. */
      for (unsigned int b = threadIdx.x; b < nb; b += blockDim.x)
        s = GsCombine(s, __ldcg(partials + (size_t)k * nb + b), is_max);
      acc[k] = s;
    }
  }
  GsBlockReduce(acc, nv, is_max, sh);
  if (threadIdx.x == 0) {
#pragma unroll
    for (int k = 0; k < GS_CUDA_MAX_NV; k++)
      if (k < nv) result[k] = acc[k];
  }
}

#endif /* __CUDACC__ */

/* Bring results[0..nv-1] to r through the pinned buffer (written by the device itself where
 * mapped: then only the wait). */
static inline int GsFetchResults(GsContext ctx, GsCudaContext *cc, int nv, double *r) {
  if (!cc->results_mapped)
    GsCallCuda(ctx, cudaMemcpyAsync(cc->results_host, cc->results, (size_t)nv * sizeof(double),
                                    cudaMemcpyDeviceToHost, cc->stream));
  GsCallCuda(ctx, cudaStreamSynchronize(cc->stream));
  memcpy(r, cc->results_host, (size_t)nv * sizeof(double));
  return 0;
}

/* Release the results buffers (nothing on the stream may use them); the first error. */
static inline cudaError_t GsCudaResultsFree(GsCudaContext *cc) {
  cudaError_t first = cudaSuccess, e;
  if (cc->results && !cc->results_mapped && (e = cudaFree(cc->results)) != cudaSuccess) first = e;
  if (cc->results_host && (e = cudaFreeHost(cc->results_host)) != cudaSuccess &&
      first == cudaSuccess)
    first = e;
  cc->results = NULL;
  cc->results_host = NULL;
  cc->results_mapped = 0;
  cc->result_cap = 0;
  return first;
}

/* Results buffers of cap entries: pinned host memory the device writes where it can map it, else
 * a device buffer beside it. */
static inline int GsCudaResultsAlloc(GsContext ctx, GsCudaContext *cc, int cap) {
  const size_t bytes = (size_t)cap * sizeof(double);
  GsCallCuda(ctx, cudaHostAlloc((void **)&cc->results_host, bytes, cudaHostAllocMapped));
  void *dp = NULL;
  if (cudaHostGetDevicePointer(&dp, cc->results_host, 0) == cudaSuccess && dp) {
    cc->results = (double *)dp;
    cc->results_mapped = 1;
  } else {
    (void)cudaGetLastError(); /* this call's failure only */
    cc->results_mapped = 0;
    GsCallCuda(ctx, cudaMalloc((void **)&cc->results, bytes));
  }
  cc->result_cap = cap;
  return 0;
}

#ifdef __cplusplus
extern "C" {
#endif
/* Grid of a reduction over n entries of type dt (the blocks of the reduction order that hold
 * packs); x . y of n doubles into result (device memory), queued on the stream (vec.cu). */
GS_INTERN unsigned int GsReduceGrid(GsInt n, GsDataType dt);
GS_INTERN int GsCudaDotToDevice(GsContext ctx, GsCudaContext *cc, GsInt n, const double *x,
                                const double *y, double *result);
/* Fill the vector kernel table (vec.cu). */
GS_INTERN void GsCudaFillVecKernels(GsVecKernels *k);
/* Fill the banded kernel table (banded.cu). */
GS_INTERN void GsCudaFillBandedKernels(GsBandedKernels *k);
GS_INTERN void GsCudaFillMatKernels(GsMatKernels *k);
GS_INTERN void GsCudaFillStencilKernels(GsStencilKernels *k);
#ifdef __cplusplus
}
#endif

#endif
