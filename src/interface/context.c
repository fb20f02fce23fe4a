/* Contexts and the back-end registry (after libCEED's resource strings). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gsimpl.h"

typedef void (*GsFillOps)(GsBackendOps *);

/* The registry: every back end the library knows, compiled in or not (stubs say which). The only
 * global state in the library, and it is constant. */
static const struct {
  const char *family;
  const char *description;
  GsFillOps fill;
} registry[] = {
    {"/cpu", "C + OpenMP reference back end", GsBackendFillOps_Cpu},
    {"/gpu/cuda", "CUDA back end (NVIDIA GPUs)", GsBackendFillOps_Cuda},
};
enum { NREGISTRY = sizeof registry / sizeof registry[0] };

GS_INTERN int GsMallocHost(GsContext ctx, size_t bytes, void **p) {
  *p = NULL;
  GsCall(GsHostMemoryCheck(ctx, (double)bytes, "an array"));
  *p = calloc(1, bytes ? bytes : 1);
  GsCheck(*p != NULL, ctx, GS_ERR_MEMORY, "cannot allocate %zu bytes of host memory", bytes);
  return 0;
}

/* A "Key:   N kB" line of /proc/meminfo, in bytes; negative if absent. */
static double meminfo_bytes(const char *key) {
  FILE *f = fopen("/proc/meminfo", "r");
  if (!f) return -1;
  char line[256];
  double v = -1;
  const size_t kl = strlen(key);
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, key, kl) && line[kl] == ':') {
      v = 1024.0 * strtod(line + kl + 1, NULL);
      break;
    }
  fclose(f);
  return v;
}

/* One number from a cgroup v2 file ("max" and unreadable files: negative). */
static double cgroup_value(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char buf[64] = "";
  const int got = fgets(buf, sizeof buf, f) != NULL;
  fclose(f);
  if (!got || !strncmp(buf, "max", 3)) return -1;
  char *end;
  const double v = strtod(buf, &end);
  return end == buf ? -1 : v;
}

GS_INTERN double GsHostMemoryAvailable(void) {
  double avail = meminfo_bytes("MemAvailable");
  const double max = cgroup_value("/sys/fs/cgroup/memory.max"),
               cur = cgroup_value("/sys/fs/cgroup/memory.current");
  if (max >= 0 && cur >= 0) {
    const double left = max > cur ? max - cur : 0;
    if (avail < 0 || left < avail) avail = left;
  }
  return avail;
}

GS_INTERN int GsHostMemoryCheck(GsContext ctx, double bytes, const char *what) {
  if (bytes < 256.0 * 1024 * 1024) return 0; /* small requests: not worth reading /proc */
  const double avail = GsHostMemoryAvailable();
  GsCheck(avail < 0 || bytes <= avail, ctx, GS_ERR_MEMORY,
          "%s needs %.3g GiB of host memory; %.3g GiB are available", what,
          bytes / (1024.0 * 1024 * 1024), avail / (1024.0 * 1024 * 1024));
  return 0;
}

GS_INTERN int GsMemAlloc(GsContext ctx, size_t bytes, void **p) {
  *p = NULL;
  if (ctx->ops->mem_alloc) {
    if (bytes) GsCall(ctx->ops->mem_alloc(ctx, bytes, p));
  } else {
    GsCall(GsMallocHost(ctx, bytes, p));
  }
  return 0;
}

GS_INTERN void GsMemFree(GsContext ctx, void *p) {
  if (!p) return;
  if (ctx->ops->mem_free)
    ctx->ops->mem_free(ctx, p);
  else
    free(p);
}

GS_INTERN int GsMemCopy(GsContext ctx, void *dst, GsMemType dmem, const void *src, GsMemType smem,
                        size_t bytes) {
  if (!bytes) return 0;
  if (dmem == GS_MEM_HOST && smem == GS_MEM_HOST) {
    memcpy(dst, src, bytes);
    return 0;
  }
  GsCall(ctx->ops->memcpy(ctx, dst, dmem, src, smem, bytes));
  return 0;
}

static void list_backends(char *buf, size_t len) {
  size_t k = 0;
  buf[0] = 0;
  for (int i = 0; i < NREGISTRY; i++) {
    GsBackendOps ops = {0};
    registry[i].fill(&ops);
    if (!ops.compiled) continue;
    int m = snprintf(buf + k, len - k, "%s%s%s", k ? ", " : "", registry[i].family,
                     ops.mem == GS_MEM_DEVICE ? ", " : "");
    if (m < 0 || (size_t)m >= len - k) return;
    k += (size_t)m;
    if (ops.mem == GS_MEM_DEVICE) {
      m = snprintf(buf + k, len - k, "%s:N", registry[i].family);
      if (m < 0 || (size_t)m >= len - k) return;
      k += (size_t)m;
    }
  }
}

int GsBackendsView(FILE *f) {
  if (!f) f = stdout;
  fprintf(f, "gpusolve back ends (resource strings for GsInit / GS_BACKEND):\n");
  for (int i = 0; i < NREGISTRY; i++) {
    GsBackendOps ops = {0};
    registry[i].fill(&ops);
    int count = 0;
    if (ops.compiled && ops.device_count) ops.device_count(&count);
    const char *state = !ops.compiled ? "not compiled in"
                        : count > 0   ? "available"
                                      : "compiled in, no device visible";
    if (ops.mem == GS_MEM_DEVICE && ops.compiled)
      fprintf(f, "  %-12s %-34s %s (%d device%s; use %s:N for device N)\n", registry[i].family,
              registry[i].description, state, count, count == 1 ? "" : "s", registry[i].family);
    else
      fprintf(f, "  %-12s %-34s %s\n", registry[i].family, registry[i].description, state);
  }
  return 0;
}

int GsGetDeviceCount(const char *family, int *count) {
  GsCheckHandle(NULL, family);
  GsCheckHandle(NULL, count);
  *count = 0;
  for (int i = 0; i < NREGISTRY; i++) {
    if (strcmp(family, registry[i].family)) continue;
    GsBackendOps ops = {0};
    registry[i].fill(&ops);
    if (ops.compiled && ops.device_count) GsCall(ops.device_count(count));
    return 0;
  }
  char avail[256];
  list_backends(avail, sizeof avail);
  return GsError(NULL, GS_ERR_BACKEND_UNKNOWN, "unknown back-end family '%s'; compiled in: %s",
                 family, avail);
}

/* Split "/gpu/cuda:1" into its registry entry and device number (-1 when none is named). */
static int parse_resource(const char *resource, int *entry, int *device) {
  char avail[256];
  list_backends(avail, sizeof avail);
  const char *colon = strchr(resource, ':');
  size_t flen = colon ? (size_t)(colon - resource) : strlen(resource);
  *device = -1;
  if (colon) {
    char *end = NULL;
    long d = strtol(colon + 1, &end, 10);
    GsCheck(colon[1] && end && *end == 0 && d >= 0 && d < 1 << 20, NULL, GS_ERR_BACKEND_UNKNOWN,
            "resource '%s': device '%s' is not a non-negative integer; back ends compiled in: %s",
            resource, colon + 1, avail);
    *device = (int)d;
  }
  /* "/gpu" alone means the first GPU back end. */
  int want_gpu = flen == 4 && !strncmp(resource, "/gpu", 4);
  for (int i = 0; i < NREGISTRY; i++) {
    const char *fam = registry[i].family;
    if ((strlen(fam) == flen && !strncmp(fam, resource, flen)) ||
        (want_gpu && !strncmp(fam, "/gpu/", 5))) {
      GsBackendOps ops = {0};
      registry[i].fill(&ops);
      GsCheck(ops.compiled, NULL, GS_ERR_BACKEND_NOT_COMPILED,
              "back end '%s' was not compiled into this build of gpusolve (rebuild with its "
              "option on, e.g. -DGS_ENABLE_CUDA=ON); back ends compiled in: %s",
              fam, avail);
      GsCheck(!colon || ops.mem == GS_MEM_DEVICE, NULL, GS_ERR_BACKEND_UNKNOWN,
              "resource '%s': back end '%s' takes no device number", resource, fam);
      *entry = i;
      return 0;
    }
  }
  return GsError(NULL, GS_ERR_BACKEND_UNKNOWN,
                 "unknown back end '%s'; back ends compiled in: %s (GsInit(\"help\") lists them)",
                 resource, avail);
}

/* The default: the first CUDA device when compiled in and visible, else the CPU. */
static int default_entry(void) {
  for (int i = 0; i < NREGISTRY; i++) {
    GsBackendOps ops = {0};
    registry[i].fill(&ops);
    int count = 0;
    if (ops.compiled && ops.mem == GS_MEM_DEVICE && ops.device_count &&
        ops.device_count(&count) == 0 && count > 0)
      return i;
  }
  return 0;
}

static int context_setup(GsContext ctx, int argc, char **argv, const char *resource) {
  const char *env = getenv("GS_OPTIONS");
  if (env) GsCall(GsOptionsInsertString(ctx, env));
  if (argc > 1 && argv) GsCall(GsOptionsInsertArgs(ctx, argc, argv));

  char opt_backend[64] = "";
  int have_opt = 0;
  GsCall(GsOptionsGetString(ctx, "-gs_backend", opt_backend, sizeof opt_backend, &have_opt));
  if (!resource || !resource[0] || !strcmp(resource, "default")) {
    const char *envb = getenv("GS_BACKEND");
    resource = have_opt ? opt_backend : (envb && envb[0]) ? envb : NULL;
  }
  int entry = 0, device = -1;
  if (resource)
    GsCall(parse_resource(resource, &entry, &device));
  else
    entry = default_entry();

  registry[entry].fill(&ctx->ops_table);
  ctx->ops = &ctx->ops_table;
  ctx->device = device;
  GsCall(ctx->ops->init(ctx, device));
  if (ctx->ops->mem == GS_MEM_DEVICE)
    snprintf(ctx->resource, sizeof ctx->resource, "%s:%d", registry[entry].family,
             device < 0 ? 0 : device);
  else
    snprintf(ctx->resource, sizeof ctx->resource, "%s", registry[entry].family);

  GsCall(GsLogRegisterBuiltins(ctx));
  int flag = 0;
  GsCall(GsOptionsGetBool(ctx, "-log_view", &flag, NULL));
  ctx->log_on = flag;
  flag = 0;
  GsCall(GsOptionsGetBool(ctx, "-deterministic", &flag, NULL));
  ctx->deterministic = flag;
  return 0;
}

static void context_free(GsContext ctx) {
  GsLogFree(ctx); /* timers belong to the back end: free them while it is alive */
  if (ctx->ops && ctx->ops->destroy) ctx->ops->destroy(ctx);
  GsOptionsFree(ctx);
  GsErrorForgetContext(ctx);
  free(ctx);
}

int GsInitWithArgs(int argc, char **argv, const char *resource, GsContext *ctx) {
  GsCheckHandle(NULL, ctx);
  *ctx = NULL;
  if (resource && !strcmp(resource, "help")) return GsBackendsView(stdout);
  GsContext c = calloc(1, sizeof *c);
  GsCheck(c != NULL, NULL, GS_ERR_MEMORY, "cannot allocate a context");
  int ierr = context_setup(c, argc, argv, resource);
  if (ierr) {
    /* The error was recorded on c or in this thread; keep the message after c is gone. */
    if (c->errcode) GsErrorAdopt(c);
    context_free(c);
    return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  }
  *ctx = c;
  return 0;
}

int GsInit(const char *resource, GsContext *ctx) {
  GsCall(GsInitWithArgs(0, NULL, resource, ctx));
  return 0;
}

int GsDestroy(GsContext *ctx) {
  if (!ctx || !*ctx) return 0;
  GsContext c = *ctx;
  GsCheck(c->nobjects == 0, c, GS_ERR_WRONG_STATE,
          "context %s still has %lld live object(s); destroy them before the context", c->resource,
          (long long)c->nobjects);
  /* Reports are best effort: a bad -log_view value must not keep the context alive. The first
   * error is kept and returned after the context is freed. */
  int flag = 0, ierr = GsOptionsGetBool(c, "-log_view", &flag, NULL);
  if (!ierr && flag) ierr = GsLogView(c, stdout);
  flag = 0;
  int set = 0, ierr2 = GsOptionsGetBool(c, "-options_left", &flag, &set);
  if (!ierr2 && flag) ierr2 = GsOptionsLeft(c, stdout, NULL);
  /* Not asked either way: options given but never read (a misspelled name, an option of another
   * command) are named on stderr, as PETSc does in its debug builds, instead of passing silently.
   */
  int left = 0;
  if (!ierr2 && !set) ierr2 = GsOptionsLeft(c, NULL, &left);
  if (!ierr2 && !set && left) {
    GsOptionsLeft(c, stderr, NULL);
    fprintf(stderr, "  (misspelled, or not for this command? -options_left 0 silences this)\n");
  }
  if (!ierr) ierr = ierr2;
  if (ierr) GsErrorAdopt(c);
  context_free(c);
  *ctx = NULL;
  if (ierr) return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  return 0;
}

int GsGetResource(GsContext ctx, const char **resource) {
  GsCheckHandle(NULL, ctx);
  GsCheckHandle(ctx, resource);
  *resource = ctx->resource;
  return 0;
}

int GsGetPreferredMemType(GsContext ctx, GsMemType *mem) {
  GsCheckHandle(NULL, ctx);
  GsCheckHandle(ctx, mem);
  *mem = ctx->ops->mem;
  return 0;
}

int GsSynchronize(GsContext ctx) {
  GsCheckHandle(NULL, ctx);
  if (ctx->ops->synchronize) GsCall(ctx->ops->synchronize(ctx));
  return 0;
}

int GsSetDeterministic(GsContext ctx, int flag) {
  GsCheckHandle(NULL, ctx);
  ctx->deterministic = flag != 0;
  return 0;
}

int GsGetDeviceInfo(GsContext ctx, GsDeviceInfo *info) {
  GsCheckHandle(NULL, ctx);
  GsCheckHandle(ctx, info);
  memset(info, 0, sizeof *info);
  GsCall(ctx->ops->device_info(ctx, info));
  return 0;
}

int GsMeasureCopyBandwidth(GsContext ctx, size_t bytes, int repeats, double *gbytes_per_s) {
  GsCheckHandle(NULL, ctx);
  GsCheckHandle(ctx, gbytes_per_s);
  GsCheck(bytes >= 2 * sizeof(double) && repeats > 0, ctx, GS_ERR_ARG_OUTOFRANGE,
          "bytes (%zu) must be at least %zu and repeats (%d) positive", bytes, 2 * sizeof(double),
          repeats);
  GsCall(ctx->ops->copy_bandwidth(ctx, bytes, repeats, gbytes_per_s));
  return 0;
}
