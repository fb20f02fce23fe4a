/* The CPU back end: host memory only, OpenMP threads, host-clock timers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../gsimpl.h"
#include "cpuimpl.h"

static int cpu_device_count(int *count) {
  *count = 1;
  return 0;
}

static int cpu_init(GsContext ctx, int device) {
  (void)device;
  GsCall(GsMallocHost(ctx, sizeof(GsCpuContext), &ctx->bdata));
  return 0;
}

static int cpu_destroy(GsContext ctx) {
  GsCpuContext *cc = ctx->bdata;
  if (cc) free(cc->scratch);
  free(cc);
  ctx->bdata = NULL;
  return 0;
}

int GsCpuScratch(GsContext ctx, size_t bytes, void **p) {
  GsCpuContext *cc = ctx->bdata;
  if (bytes > cc->cap) {
    void *q = realloc(cc->scratch, bytes);
    GsCheck(q != NULL, ctx, GS_ERR_MEMORY, "cannot allocate %zu bytes of scratch", bytes);
    cc->scratch = q;
    cc->cap = bytes;
  }
  *p = cc->scratch;
  return 0;
}

/* The model name from /proc/cpuinfo where there is one. */
static void cpu_model_name(char *name, size_t len) {
  snprintf(name, len, "CPU");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10)) continue;
    const char *p = strchr(line, ':');
    if (!p) break;
    p++;
    while (*p == ' ' || *p == '\t')
      p++;
    snprintf(name, len, "%s", p);
    name[strcspn(name, "\n")] = 0;
    break;
  }
  fclose(f);
}

static int cpu_device_info(GsContext ctx, GsDeviceInfo *info) {
  (void)ctx;
  cpu_model_name(info->name, sizeof info->name);
  info->device_id = -1;
#ifdef _OPENMP
  info->multiprocessors = omp_get_max_threads();
#else
  info->multiprocessors = 1;
#endif
  return 0;
}

static int cpu_memcpy(GsContext ctx, void *dst, GsMemType dmem, const void *src, GsMemType smem,
                      size_t bytes) {
  GsCheck(dmem == GS_MEM_HOST && smem == GS_MEM_HOST, ctx, GS_ERR_MEMTYPE,
          "the CPU back end has no device memory");
  if (bytes) memcpy(dst, src, bytes);
  return 0;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Copy bandwidth with the same threads and first-touch placement the vector kernels use. A
 * sample repeats the copy until it has run for at least 0.5 ms, so that small buffers (which fit
 * a cache) are measured at the cache's bandwidth rather than at the cost of waking the threads:
 * one copy of a few kilobytes by 16 OpenMP threads takes longer to start than to run. */
static int cpu_copy_bandwidth(GsContext ctx, size_t bytes, int repeats, double *gbs) {
  GsInt n = (GsInt)(bytes / sizeof(double));
  double *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
  double *t = malloc((size_t)repeats * sizeof *t);
  if (!a || !b || !t) {
    free(a);
    free(b);
    free(t);
    return GsError(ctx, GS_ERR_MEMORY, "cannot allocate 2 x %zu bytes for the copy benchmark",
                   bytes);
  }
  GsCpuFill(n, a, 1.0);
  GsCpuFill(n, b, 0.0);
  /* Warm-up, and the number of copies per sample. */
  long inner = 1;
  for (;;) {
    const double t0 = GsWallTime();
    for (long k = 0; k < inner; k++)
      GsCpuCopy(n, a, b);
    const double dt = GsWallTime() - t0;
    if (dt >= 5e-4 || inner >= (1L << 20)) break;
    inner *= dt > 0 && 5e-4 / dt < 8 ? 2 : 8;
  }
  for (int r = 0; r < repeats; r++) {
    const double t0 = GsWallTime();
    for (long k = 0; k < inner; k++)
      GsCpuCopy(n, a, b);
    t[r] = (GsWallTime() - t0) / (double)inner;
  }
  qsort(t, (size_t)repeats, sizeof *t, cmp_double);
  double med = t[repeats / 2];
  *gbs = med > 0 ? 2.0 * (double)n * sizeof(double) / med / 1e9 : 0;
  free(a);
  free(b);
  free(t);
  return 0;
}

static int cpu_timer_create(GsContext ctx, void **timer) {
  GsCall(GsMallocHost(ctx, sizeof(double), timer));
  return 0;
}
static int cpu_timer_destroy(GsContext ctx, void *timer) {
  (void)ctx;
  free(timer);
  return 0;
}
static int cpu_timer_begin(GsContext ctx, void *timer) {
  (void)ctx;
  *(double *)timer = GsWallTime();
  return 0;
}
static int cpu_timer_end(GsContext ctx, void *timer, int count, double *seconds) {
  (void)ctx;
  if (count && seconds) *seconds += GsWallTime() - *(double *)timer;
  return 0;
}

void GsBackendFillOps_Cpu(GsBackendOps *ops) {
  memset(ops, 0, sizeof *ops);
  ops->family = "/cpu";
  ops->compiled = 1;
  ops->mem = GS_MEM_HOST;
  ops->device_count = cpu_device_count;
  ops->init = cpu_init;
  ops->destroy = cpu_destroy;
  ops->device_info = cpu_device_info;
  ops->memcpy = cpu_memcpy;
  ops->copy_bandwidth = cpu_copy_bandwidth;
  ops->timer_create = cpu_timer_create;
  ops->timer_destroy = cpu_timer_destroy;
  ops->timer_begin = cpu_timer_begin;
  ops->timer_end = cpu_timer_end;
  GsCpuFillVecKernels(&ops->vec);
  GsCpuFillBandedKernels(&ops->banded);
  GsCpuFillMatKernels(&ops->mat);
  GsCpuFillStencilKernels(&ops->stencil);
}
