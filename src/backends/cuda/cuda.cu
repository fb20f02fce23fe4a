/* The CUDA back end: device selection, per-context stream and scratch, memory, transfers, timers.
 * The vector kernels are in vec.cu. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudaimpl.h"

/* Reduction results held without regrowing (mdot over more vectors grows the buffers). */
#define GS_CUDA_RESULT_CAP 64

static int GsCudaDeviceCount(int *count) {
  int n = 0;
  /* No device or no (new enough) driver is an answer, not an error: the caller falls back to the
   * CPU. The failed call leaves its error in the runtime's last-error slot; clear it. */
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    n = 0;
  }
  *count = n;
  return 0;
}

static void GsKeepFirst(cudaError_t *first, cudaError_t e) {
  if (e != cudaSuccess && *first == cudaSuccess) *first = e;
}

/* Release everything in cc that was created, whatever stage set-up reached; returns the first
 * error met (and still releases the rest). Raises nothing, so that it can run while an error from
 * set-up is being reported. */
static cudaError_t GsCudaFreeState(GsCudaContext *cc) {
  cudaError_t first = cudaSuccess;
  if (cc->stream) GsKeepFirst(&first, cudaStreamSynchronize(cc->stream));
  if (cc->partials) GsKeepFirst(&first, cudaFree(cc->partials));
  if (cc->counter) GsKeepFirst(&first, cudaFree(cc->counter));
  GsKeepFirst(&first, GsCudaResultsFree(cc));
  if (cc->stream) GsKeepFirst(&first, cudaStreamDestroy(cc->stream));
  cc->partials = NULL;
  cc->counter = NULL;
  cc->stream = NULL;
  if (first != cudaSuccess) (void)cudaGetLastError();
  return first;
}

/* Never launched: its attributes say which code of this library's kernels runs on the device.
 * Kernels compiled for an architecture below 9.0 (PTX JIT-compiled for a newer GPU) have no wait
 * in GS_PDL_ENTER, so they must not be launched early even where the device could. */
static __global__ void gs_pdl_probe_k(void) {}

/* Everything of init after the device number is checked; on failure cc holds what was made. */
static int GsCudaSetUp(GsContext ctx, GsCudaContext *cc) {
  const int dev = cc->device;
  int l2 = 0;
  GsCallCuda(ctx, cudaSetDevice(dev));
  GsCallCuda(ctx, cudaDeviceGetAttribute(&cc->sm_count, cudaDevAttrMultiProcessorCount, dev));
  GsCallCuda(ctx, cudaDeviceGetAttribute(&cc->max_threads_per_sm,
                                         cudaDevAttrMaxThreadsPerMultiProcessor, dev));
  GsCallCuda(ctx, cudaDeviceGetAttribute(&cc->cc_major, cudaDevAttrComputeCapabilityMajor, dev));
  GsCallCuda(ctx, cudaDeviceGetAttribute(&cc->cc_minor, cudaDevAttrComputeCapabilityMinor, dev));
  GsCallCuda(ctx, cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  cc->l2_bytes = (size_t)l2;
  cc->launch_blocks = cc->sm_count * GS_CUDA_BLOCKS_PER_SM;
  /* Programmatic dependent launch where the device has it (GS_LAUNCH, cudaimpl.h): -cuda_pdl 0
   * never, -cuda_pdl_mask M for the kinds in M. */
  int pdl = 1;
  GsInt mask = GS_PDL_DEFAULT;
  GsCall(GsOptionsGetBool(ctx, "-cuda_pdl", &pdl, NULL));
  GsCall(GsOptionsGetInt(ctx, "-cuda_pdl_mask", &mask, NULL));
  GsCheck(mask >= 0 && mask <= GS_PDL_ALL, ctx, GS_ERR_ARG_OUTOFRANGE,
          "-cuda_pdl_mask %lld: a sum of kernel kinds from 0 to %d (stencil 1, vector 2, one-pass "
          "tiled solve 4, two-pass solve's pass 1 8, carries 16, pass 2 32, merge SpMV 64)",
          (long long)mask, (int)GS_PDL_ALL);
  cudaFuncAttributes fa;
  GsCallCuda(ctx, cudaFuncGetAttributes(&fa, gs_pdl_probe_k));
  cc->pdl = pdl && cc->cc_major >= 9 && fa.ptxVersion >= 90 ? (int)mask : 0;
  /* The driver's tensor map encoder for the staged banded solves; none (NULL) is no error. */
  {
    void *p = NULL;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    const cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000,
                                                           cudaEnableDefault, &q);
#else
    const cudaError_t e =
        cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &p, cudaEnableDefault, &q);
#endif
    if (e != cudaSuccess || q != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError();
      p = NULL;
    }
    cc->tma_encode = p;
  }
  GsCheck(cc->launch_blocks > 0, ctx, GS_ERR_CUDA, "CUDA device %d reports %d multiprocessors", dev,
          cc->sm_count);

  GsCallCuda(ctx, cudaStreamCreateWithFlags(&cc->stream, cudaStreamNonBlocking));
  GsCallCuda(ctx, cudaMalloc((void **)&cc->partials,
                             (size_t)GS_CUDA_MAX_NV * GS_REDUCE_BLOCKS * sizeof(double)));
  GsCallCuda(ctx, cudaMalloc((void **)&cc->counter, sizeof(unsigned int)));
  GsCall(GsCudaResultsAlloc(ctx, cc, GS_CUDA_RESULT_CAP));
  /* The last-block pattern needs the counter at 0 before the first reduction. */
  GsCallCuda(ctx, cudaMemsetAsync(cc->counter, 0, sizeof(unsigned int), cc->stream));
  GsCallCuda(ctx, cudaStreamSynchronize(cc->stream));
  return 0;
}

static int GsCudaInit(GsContext ctx, int device) {
  GsCudaContext *cc = NULL;
  int count = 0, ierr;
  const cudaError_t cerr = cudaGetDeviceCount(&count);
  if (cerr != cudaSuccess) {
    (void)cudaGetLastError();
    count = 0;
  }
  if (device < 0) device = 0;
  GsCheck(device < count, ctx, GS_ERR_NO_DEVICE,
          "CUDA device %d requested, but %d CUDA device%s visible%s%s%s", device, count,
          count == 1 ? " is" : "s are", cerr != cudaSuccess ? " (" : "",
          cerr != cudaSuccess ? cudaGetErrorString(cerr) : "", cerr != cudaSuccess ? ")" : "");
  GsCall(GsMallocHost(ctx, sizeof *cc, (void **)&cc));
  cc->device = device;
  ctx->bdata = cc;
  ierr = GsCudaSetUp(ctx, cc);
  if (ierr) {
    /* Leave nothing behind; the error raised by set-up is the one to report. */
    (void)GsCudaFreeState(cc);
    free(cc);
    ctx->bdata = NULL;
    return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  }
  return 0;
}

static int GsCudaDestroy(GsContext ctx) {
  GsCudaContext *cc = (GsCudaContext *)ctx->bdata;
  cudaError_t err;
  if (!cc) return 0;
  ctx->bdata = NULL;
  /* The device may not be current in this thread; a failure here surfaces in FreeState. */
  if (cudaSetDevice(cc->device) != cudaSuccess) (void)cudaGetLastError();
  err = GsCudaFreeState(cc);
  free(cc);
  if (err != cudaSuccess) return GsCudaRaise(ctx, err, "releasing the CUDA context state");
  return 0;
}

static int GsCudaDeviceInfo(GsContext ctx, GsDeviceInfo *info) {
  GsCudaContext *cc = NULL;
  struct cudaDeviceProp prop;
  GsCall(GsCudaBegin(ctx, &cc));
  GsCallCuda(ctx, cudaGetDeviceProperties(&prop, cc->device));
  memset(info, 0, sizeof *info);
  snprintf(info->name, sizeof info->name, "%s", prop.name);
  info->device_id = cc->device;
  info->compute_major = prop.major;
  info->compute_minor = prop.minor;
  info->multiprocessors = prop.multiProcessorCount;
  info->total_memory = prop.totalGlobalMem;
  info->l2_cache = prop.l2CacheSize > 0 ? (size_t)prop.l2CacheSize : 0;
  return 0;
}

static int GsCudaSynchronize(GsContext ctx) {
  GsCudaContext *cc = NULL;
  GsCall(GsCudaBegin(ctx, &cc));
  GsCallCuda(ctx, cudaStreamSynchronize(cc->stream));
  return 0;
}

/* Running out of memory is GS_ERR_MEMORY (the user can act on it); anything else stays a CUDA
 * error. Either way the error is cleared from the runtime so later checks do not see it again. */
#define GsCudaAllocFailure(ctx, err, what, bytes)                                                  \
  ((void)cudaGetLastError(),                                                                       \
   (err) == cudaErrorMemoryAllocation                                                              \
       ? GsError((ctx), GS_ERR_MEMORY, "%s of %zu bytes failed: %s", (what), (size_t)(bytes),      \
                 cudaGetErrorString(err))                                                          \
       : GsError((ctx), GS_ERR_CUDA, "%s of %zu bytes failed: %s (%s)", (what), (size_t)(bytes),   \
                 cudaGetErrorName(err), cudaGetErrorString(err)))

static int GsCudaMemAlloc(GsContext ctx, size_t bytes, void **p) {
  GsCudaContext *cc = NULL;
  cudaError_t err;
  *p = NULL;
  GsCall(GsCudaBegin(ctx, &cc));
  err = cudaMalloc(p, bytes);
  if (err != cudaSuccess) {
    *p = NULL;
    return GsCudaAllocFailure(ctx, err, "cudaMalloc", bytes);
  }
  return 0;
}

static int GsCudaMemFree(GsContext ctx, void *p) {
  GsCudaContext *cc = NULL;
  if (!p) return 0;
  GsCall(GsCudaBegin(ctx, &cc));
  GsCallCuda(ctx, cudaFree(p));
  return 0;
}

static int GsCudaHostAlloc(GsContext ctx, size_t bytes, void **p) {
  GsCudaContext *cc = NULL;
  cudaError_t err;
  *p = NULL;
  GsCall(GsCudaBegin(ctx, &cc));
  err = cudaMallocHost(p, bytes);
  if (err != cudaSuccess) {
    *p = NULL;
    return GsCudaAllocFailure(ctx, err, "cudaMallocHost", bytes);
  }
  return 0;
}

static int GsCudaHostFree(GsContext ctx, void *p) {
  GsCudaContext *cc = NULL;
  if (!p) return 0;
  GsCall(GsCudaBegin(ctx, &cc));
  GsCallCuda(ctx, cudaFreeHost(p));
  return 0;
}

static int GsCudaMemcpy(GsContext ctx, void *dst, GsMemType dmem, const void *src, GsMemType smem,
                        size_t bytes) {
  GsCudaContext *cc = NULL;
  enum cudaMemcpyKind kind;
  if (!bytes) return 0;
  GsCall(GsCudaBegin(ctx, &cc));
  if (smem == GS_MEM_HOST)
    kind = dmem == GS_MEM_HOST ? cudaMemcpyHostToHost : cudaMemcpyHostToDevice;
  else
    kind = dmem == GS_MEM_HOST ? cudaMemcpyDeviceToHost : cudaMemcpyDeviceToDevice;
  GsCallCuda(ctx, cudaMemcpyAsync(dst, src, bytes, kind, cc->stream));
  /* The contract is "dst ready for the host": wait for the copy (and the work queued before it). */
  GsCallCuda(ctx, cudaStreamSynchronize(cc->stream));
  return 0;
}

/* A copy to pinned host memory queued on the stream, and an event after it to wait for. */
static int GsCudaReadAsync(GsContext ctx, void *dst, const void *src, size_t bytes, void **mark) {
  GsCudaContext *cc = NULL;
  GsCall(GsCudaBegin(ctx, &cc));
  if (!*mark) {
    cudaEvent_t ev = NULL;
    GsCallCuda(ctx, cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    *mark = (void *)ev;
  }
  GsCallCuda(ctx, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, cc->stream));
  GsCallCuda(ctx, cudaEventRecord((cudaEvent_t)*mark, cc->stream));
  return 0;
}

static int GsCudaReadWait(GsContext ctx, void *mark) {
  GsCudaContext *cc = NULL;
  GsCall(GsCudaBegin(ctx, &cc));
  GsCallCuda(ctx, cudaEventSynchronize((cudaEvent_t)mark));
  return 0;
}

/* Like the timers: an event needs no current device, and this may run after destroy. */
static int GsCudaMarkDestroy(GsContext ctx, void *mark) {
  if (!mark) return 0;
  cudaError_t err = cudaEventDestroy((cudaEvent_t)mark);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return GsCudaRaise(ctx, err, "cudaEventDestroy");
  }
  return 0;
}

static int GsCompareDouble(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median over `repeats` device-to-device copies of `bytes`, timed with events on the context's
 * stream; read plus write bytes per second. */
static int GsCudaCopyBandwidth(GsContext ctx, size_t bytes, int repeats, double *gbytes_per_s) {
  GsCudaContext *cc = NULL;
  void *a = NULL, *b = NULL;
  double *t = NULL;
  cudaEvent_t start = NULL, stop = NULL;
  int ierr = 0;
  GsCheck(bytes > 0, ctx, GS_ERR_ARG_OUTOFRANGE, "copy benchmark needs a positive size");
  GsCheck(repeats > 0, ctx, GS_ERR_ARG_OUTOFRANGE, "copy benchmark needs repeats > 0, not %d",
          repeats);
  GsCall(GsCudaBegin(ctx, &cc));
  GsCall(GsMallocHost(ctx, (size_t)repeats * sizeof *t, (void **)&t));
  ierr = GsCudaMemAlloc(ctx, bytes, &a);
  if (!ierr) ierr = GsCudaMemAlloc(ctx, bytes, &b);
  if (ierr) {
    ierr = GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
    goto done;
  }
  GsCallCudaGoto(ctx, ierr, done, cudaEventCreate(&start));
  GsCallCudaGoto(ctx, ierr, done, cudaEventCreate(&stop));
  /* Warm-up: first-touch page mapping and clocks. */
  GsCallCudaGoto(ctx, ierr, done,
                 cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, cc->stream));
  for (int r = 0; r < repeats; r++) {
    float ms = 0.0f;
    GsCallCudaGoto(ctx, ierr, done, cudaEventRecord(start, cc->stream));
    GsCallCudaGoto(ctx, ierr, done,
                   cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, cc->stream));
    GsCallCudaGoto(ctx, ierr, done, cudaEventRecord(stop, cc->stream));
    GsCallCudaGoto(ctx, ierr, done, cudaEventSynchronize(stop));
    GsCallCudaGoto(ctx, ierr, done, cudaEventElapsedTime(&ms, start, stop));
    t[r] = 1e-3 * (double)ms;
  }
  qsort(t, (size_t)repeats, sizeof *t, GsCompareDouble);
  {
    const double med = repeats % 2 ? t[repeats / 2] : 0.5 * (t[repeats / 2 - 1] + t[repeats / 2]);
    *gbytes_per_s = med > 0.0 ? 2.0 * (double)bytes / med / 1e9 : 0.0;
  }
done:
  /* Release quietly: an error raised above must not be overwritten by a cleanup failure. */
  if (start) (void)cudaEventDestroy(start);
  if (stop) (void)cudaEventDestroy(stop);
  if (a) (void)cudaFree(a);
  if (b) (void)cudaFree(b);
  free(t);
  return ierr;
}

/* ---- Timers for the event log ---------------------------------------------------------------- */

/* A ring of (start, stop) event pairs: end queues its pair without waiting for the device, and
 * the pairs are read in order as they finish (cudaEventQuery), so that a logged solve runs as it
 * would unlogged. A begin that finds the ring full waits for its oldest pair. Events are created
 * on first use of their slot. */
#define GS_TIMER_PAIRS 64
typedef struct {
  cudaEvent_t ev[GS_TIMER_PAIRS][2];
  unsigned long long head, tail; /* pairs ended (counted); pairs read */
  double done;                   /* seconds read but not yet handed out */
} GsCudaTimer;

static int GsCudaTimerCreate(GsContext ctx, void **timer) {
  GsCudaContext *cc = NULL;
  GsCudaTimer *tm;
  *timer = NULL;
  GsCall(GsCudaBegin(ctx, &cc));
  GsCall(GsMallocHost(ctx, sizeof *tm, (void **)&tm));
  memset(tm, 0, sizeof *tm);
  *timer = tm;
  return 0;
}

/* Needs no current device (an event knows its own), and runs after destroy when the context is
 * torn down, so it does not touch ctx->bdata. */
static int GsCudaTimerDestroy(GsContext ctx, void *timer) {
  GsCudaTimer *tm = (GsCudaTimer *)timer;
  cudaError_t err = cudaSuccess;
  if (!tm) return 0;
  for (int k = 0; k < GS_TIMER_PAIRS; k++)
    for (int j = 0; j < 2; j++)
      if (tm->ev[k][j]) {
        const cudaError_t e = cudaEventDestroy(tm->ev[k][j]);
        if (err == cudaSuccess) err = e;
      }
  free(tm);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return GsCudaRaise(ctx, err, "cudaEventDestroy");
  }
  return 0;
}

/* Read the pairs in order into tm->done: waiting for those before pair number `until`, and after
 * them as long as they have finished. */
static int GsCudaTimerHarvest(GsContext ctx, GsCudaTimer *tm, unsigned long long until) {
  for (; tm->tail < tm->head; tm->tail++) {
    cudaEvent_t *p = tm->ev[tm->tail % GS_TIMER_PAIRS];
    if (tm->tail < until) {
      GsCallCuda(ctx, cudaEventSynchronize(p[1]));
    } else {
      const cudaError_t q = cudaEventQuery(p[1]);
      if (q == cudaErrorNotReady) {
        (void)cudaGetLastError();
        break;
      }
      GsCallCuda(ctx, q);
    }
    float ms = 0.0f;
    GsCallCuda(ctx, cudaEventElapsedTime(&ms, p[0], p[1]));
    tm->done += 1e-3 * (double)ms;
  }
  return 0;
}

static int GsCudaTimerBegin(GsContext ctx, void *timer) {
  GsCudaContext *cc = NULL;
  GsCudaTimer *tm = (GsCudaTimer *)timer;
  GsCall(GsCudaBegin(ctx, &cc));
  if (tm->head - tm->tail == GS_TIMER_PAIRS) /* the ring is full: wait for the oldest pair */
    GsCall(GsCudaTimerHarvest(ctx, tm, tm->tail + 1));
  cudaEvent_t *p = tm->ev[tm->head % GS_TIMER_PAIRS];
  for (int j = 0; j < 2; j++)
    if (!p[j]) GsCallCuda(ctx, cudaEventCreate(&p[j]));
  GsCallCuda(ctx, cudaEventRecord(p[0], cc->stream));
  return 0;
}

static int GsCudaTimerEnd(GsContext ctx, void *timer, int count, double *seconds) {
  GsCudaContext *cc = NULL;
  GsCudaTimer *tm = (GsCudaTimer *)timer;
  GsCall(GsCudaBegin(ctx, &cc));
  GsCallCuda(ctx, cudaEventRecord(tm->ev[tm->head % GS_TIMER_PAIRS][1], cc->stream));
  if (count) tm->head++;
  GsCall(GsCudaTimerHarvest(ctx, tm, 0));
  *seconds += tm->done;
  tm->done = 0;
  return 0;
}

static int GsCudaTimerRead(GsContext ctx, void *timer, double *seconds) {
  GsCudaTimer *tm = (GsCudaTimer *)timer;
  GsCall(GsCudaTimerHarvest(ctx, tm, tm->head));
  *seconds += tm->done;
  tm->done = 0;
  return 0;
}

extern "C" void GsBackendFillOps_Cuda(GsBackendOps *ops) {
  memset(ops, 0, sizeof *ops);
  ops->family = "/gpu/cuda";
  ops->compiled = 1;
  ops->mem = GS_MEM_DEVICE;
  ops->device_count = GsCudaDeviceCount;
  ops->init = GsCudaInit;
  ops->destroy = GsCudaDestroy;
  ops->device_info = GsCudaDeviceInfo;
  ops->synchronize = GsCudaSynchronize;
  ops->mem_alloc = GsCudaMemAlloc;
  ops->mem_free = GsCudaMemFree;
  ops->host_alloc = GsCudaHostAlloc;
  ops->host_free = GsCudaHostFree;
  ops->memcpy = GsCudaMemcpy;
  ops->copy_bandwidth = GsCudaCopyBandwidth;
  ops->read_async = GsCudaReadAsync;
  ops->read_wait = GsCudaReadWait;
  ops->mark_destroy = GsCudaMarkDestroy;
  ops->timer_create = GsCudaTimerCreate;
  ops->timer_destroy = GsCudaTimerDestroy;
  ops->timer_begin = GsCudaTimerBegin;
  ops->timer_end = GsCudaTimerEnd;
  ops->timer_read = GsCudaTimerRead;
  GsCudaFillVecKernels(&ops->vec);
  GsCudaFillBandedKernels(&ops->banded);
  GsCudaFillStencilKernels(&ops->stencil);
  GsCudaFillMatKernels(&ops->mat);
}
