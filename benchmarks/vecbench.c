/* Vector benchmarks. Each call is timed by the library's event log, so on a GPU the time comes from
 * CUDA events around that call alone; the median of the repeats is reported. The floor of every
 * operation is the fewest bytes it must move over the device-to-device copy bandwidth measured
 * with buffers of the same size in the same run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vecbench.h"
#ifdef GS_BENCH_HAVE_CUBLAS
#include "peer_cublas.h"
#endif

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int GsBenchReportAdd(GsBenchReport *rep, const GsBenchRecord *r) {
  if (rep->nrec == rep->cap) {
    int cap = rep->cap ? 2 * rep->cap : 32;
    GsBenchRecord *g = realloc(rep->rec, (size_t)cap * sizeof *g);
    if (!g) return GS_ERR_MEMORY;
    rep->rec = g;
    rep->cap = cap;
  }
  rep->rec[rep->nrec++] = *r;
  return 0;
}

void GsBenchReportFree(GsBenchReport *rep) {
  free(rep->rec);
  rep->rec = NULL;
  rep->nrec = rep->cap = 0;
}

typedef struct {
  GsVec x, y, w, v[16];
  double a;
} Args;

typedef int (*OpFn)(Args *);
static int op_copy(Args *s) {
  return GsVecCopy(s->x, s->y);
}
static int op_set(Args *s) {
  return GsVecSet(s->y, s->a);
}
static int op_scale(Args *s) {
  return GsVecScale(s->y, s->a);
}
static int op_axpy(Args *s) {
  return GsVecAXPY(s->y, s->a, s->x);
}
static int op_axpby(Args *s) {
  return GsVecAXPBY(s->y, s->a, 0.5, s->x);
}
static int op_waxpy(Args *s) {
  return GsVecWAXPY(s->w, s->a, s->x, s->y);
}
static int op_axpbypcz(Args *s) {
  return GsVecAXPBYPCZ(s->w, s->a, 0.5, -1.0, s->x, s->y);
}
static int op_pmult(Args *s) {
  return GsVecPointwiseMult(s->w, s->x, s->y);
}
static int op_dot(Args *s) {
  double r;
  return GsVecDot(s->x, s->y, &r);
}
static int op_norm2(Args *s) {
  double r;
  return GsVecNorm(s->x, GS_NORM_2, &r);
}
static int op_norm1(Args *s) {
  double r;
  return GsVecNorm(s->x, GS_NORM_1, &r);
}
static int op_norminf(Args *s) {
  double r;
  return GsVecNorm(s->x, GS_NORM_INF, &r);
}
static int op_axpy_norm(Args *s) {
  double r;
  return GsVecAXPYNorm(s->y, s->a, s->x, &r);
}
static int op_dot_norm2(Args *s) {
  double d, r;
  return GsVecDotNorm2(s->x, s->y, &d, &r);
}
static int op_mdot4(Args *s) {
  double r[4];
  return GsVecMDot(s->x, 4, s->v, r);
}

static int op_maxpy4(Args *s) {
  static const double alpha[4] = {0.25, -0.5, 0.125, -0.0625};
  return GsVecMAXPY(s->y, 4, alpha, s->v);
}

/* Sixteen terms: a GMRES cycle's classical Gram-Schmidt past its eighth vector (on the GPU one
 * pass over y where the kernels of up to 8 terms took two). */
static int op_maxpy16(Args *s) {
  double alpha[16];
  for (int k = 0; k < 16; k++)
    alpha[k] = (k % 2 ? -1.0 : 1.0) / (double)(4 + k);
  return GsVecMAXPY(s->y, 16, alpha, s->v);
}

static const struct {
  const char *name, *event;
  OpFn fn;
  int with_float, needs_v;
} ops[] = {
    {"copy", "VecCopy", op_copy, 1, 0},
    {"set", "VecSet", op_set, 0, 0},
    {"scale", "VecScale", op_scale, 0, 0},
    {"axpy", "VecAXPY", op_axpy, 1, 0},
    {"axpby", "VecAXPBY", op_axpby, 0, 0},
    {"waxpy", "VecWAXPY", op_waxpy, 0, 0},
    {"axpbypcz", "VecAXPBYPCZ", op_axpbypcz, 0, 0},
    {"pointwise_mult", "VecPointwise", op_pmult, 0, 0},
    {"dot", "VecDot", op_dot, 1, 0},
    {"norm2", "VecNorm", op_norm2, 1, 0},
    {"norm1", "VecNorm", op_norm1, 0, 0},
    {"norminf", "VecNorm", op_norminf, 0, 0},
    {"axpy_norm", "VecAXPYNorm", op_axpy_norm, 0, 0},
    {"dot_norm2", "VecDotNorm2", op_dot_norm2, 0, 0},
    {"mdot4", "VecMDot", op_mdot4, 0, 4},
    {"maxpy4", "VecMAXPY", op_maxpy4, 0, 4},
    {"maxpy16", "VecMAXPY", op_maxpy16, 0, 16},
};

/* Time one operation through the event log: per-call time and bytes come from its event. */
static int time_op(GsContext ctx, const char *event, OpFn fn, Args *s, int repeats, double *med,
                   double *mn, double *bytes) {
  GsLogEvent ev;
  GsCall(GsLogEventGetId(ctx, event, &ev));
  double *t = malloc((size_t)repeats * sizeof *t);
  GsCheck(t != NULL, ctx, GS_ERR_MEMORY, "cannot allocate %d timings", repeats);
  int ierr = fn(s); /* warm-up: first-touch, module load */
  for (int r = 0; r < repeats && !ierr; r++) {
    GsInt c0 = 0, c1 = 0;
    double s0 = 0, s1 = 0, b0 = 0, b1 = 0;
    ierr = GsLogEventGetInfo(ctx, ev, &c0, &s0, &b0, NULL);
    if (!ierr) ierr = fn(s);
    if (!ierr) ierr = GsLogEventGetInfo(ctx, ev, &c1, &s1, &b1, NULL);
    if (!ierr && c1 != c0 + 1)
      ierr = GsError(ctx, GS_ERR_INTERNAL, "event %s counted %lld calls for one", event,
                     (long long)(c1 - c0));
    t[r] = s1 - s0;
    *bytes = b1 - b0;
  }
  if (!ierr) {
    qsort(t, (size_t)repeats, sizeof *t, cmp_double);
    *med = t[repeats / 2];
    *mn = t[0];
  }
  free(t);
  GsCall(ierr);
  return 0;
}

static int bench_type(GsContext ctx, GsInt n, GsDataType dt, int repeats, double copy_gbps,
                      GsBenchReport *rep, FILE *log) {
  Args s = {.a = 0.75};
  const char *res;
  GsCall(GsGetResource(ctx, &res));
  int ierr = GsVecCreate(ctx, n, dt, &s.x);
  if (!ierr) ierr = GsVecCreate(ctx, n, dt, &s.y);
  if (!ierr) ierr = GsVecCreate(ctx, n, dt, &s.w);
  if (!ierr) ierr = GsVecSetRandom(s.x, 1, -1, 1);
  if (!ierr) ierr = GsVecSetRandom(s.y, 2, -1, 1);
  if (!ierr) ierr = GsVecSetRandom(s.w, 3, -1, 1);
  for (size_t i = 0; i < sizeof ops / sizeof ops[0] && !ierr; i++) {
    if (dt == GS_FLOAT && !ops[i].with_float) continue;
    /* mdot and maxpy use needs_v more vectors, made at the first operation that needs them */
    for (int k = 0; k < ops[i].needs_v && !ierr; k++)
      if (!s.v[k]) {
        ierr = GsVecCreate(ctx, n, dt, &s.v[k]);
        if (!ierr) ierr = GsVecSetRandom(s.v[k], 10 + (uint64_t)k, -1, 1);
      }
    if (ierr) break;
    GsBenchRecord r = {.n = (long long)n, .repeats = repeats};
    snprintf(r.op, sizeof r.op, "%s", ops[i].name);
    snprintf(r.dtype, sizeof r.dtype, "%s", GsDataTypeName(dt));
    snprintf(r.impl, sizeof r.impl, "gpusolve");
    snprintf(r.resource, sizeof r.resource, "%s", res);
    ierr = time_op(ctx, ops[i].event, ops[i].fn, &s, repeats, &r.median_s, &r.min_s, &r.bytes);
    /* Keep values bounded across repeated AXPYs and scales. */
    if (!ierr) ierr = GsVecSetRandom(s.y, 2, -1, 1);
    if (ierr) break;
    r.gbps = r.median_s > 0 ? r.bytes / r.median_s / 1e9 : 0;
    r.floor_gbps = copy_gbps;
    r.fraction = copy_gbps > 0 ? r.gbps / copy_gbps : 0;
    if (log)
      fprintf(log, "  %-15s %-6s %8.1f GB/s  %5.1f%% of copy\n", r.op, r.dtype, r.gbps,
              100 * r.fraction);
    ierr = GsBenchReportAdd(rep, &r);
  }
  for (size_t k = 0; k < sizeof s.v / sizeof s.v[0]; k++)
    GsVecDestroy(&s.v[k]);
  GsVecDestroy(&s.x);
  GsVecDestroy(&s.y);
  GsVecDestroy(&s.w);
  GsCall(ierr);
  return 0;
}

int GsBenchVec(GsContext ctx, GsInt n, int repeats, GsBenchReport *rep, double *copy_gbps,
               FILE *log) {
  GsCheck(n > 0 && repeats > 0, ctx, GS_ERR_ARG_OUTOFRANGE, "n = %lld and repeats = %d must be > 0",
          (long long)n, repeats);
  GsCall(GsMeasureCopyBandwidth(ctx, (size_t)n * sizeof(double), repeats > 5 ? repeats : 5,
                                copy_gbps));
  const char *res;
  GsCall(GsGetResource(ctx, &res));
  if (log)
    fprintf(log, "%s: n = %lld, %d repeats, copy bandwidth %.1f GB/s (read + write)\n", res,
            (long long)n, repeats, *copy_gbps);
  GsCall(GsLogEnable(ctx, 1));
  GsCall(bench_type(ctx, n, GS_DOUBLE, repeats, *copy_gbps, rep, log));
  GsCall(bench_type(ctx, n, GS_FLOAT, repeats, *copy_gbps, rep, log));
  return 0;
}

int GsBenchVecPeers(GsContext ctx, GsInt n, int repeats, double copy_gbps, GsBenchReport *rep,
                    FILE *log) {
#ifdef GS_BENCH_HAVE_CUBLAS
  GsMemType mem;
  GsCall(GsGetPreferredMemType(ctx, &mem));
  if (mem != GS_MEM_DEVICE) return 0;
  static const struct {
    const char *op;
    double arrays; /* passes over an n-vector */
  } peers[] = {{"axpy", 3}, {"dot", 2}, {"nrm2", 1}};
  for (size_t i = 0; i < sizeof peers / sizeof peers[0]; i++) {
    GsBenchRecord r = {.n = (long long)n, .repeats = repeats};
    char err[256] = "";
    snprintf(r.op, sizeof r.op, "%s", strcmp(peers[i].op, "nrm2") ? peers[i].op : "norm2");
    snprintf(r.dtype, sizeof r.dtype, "double");
    snprintf(r.impl, sizeof r.impl, "cublas");
    snprintf(r.resource, sizeof r.resource, "/gpu/cuda");
    if (GsBenchPeerCublas(peers[i].op, (long long)n, repeats, &r.median_s, err, sizeof err))
      return GsError(ctx, GS_ERR_CUBLAS, "cuBLAS peer %s failed: %s", peers[i].op, err);
    r.min_s = r.median_s;
    r.bytes = peers[i].arrays * (double)n * sizeof(double);
    r.gbps = r.bytes / r.median_s / 1e9;
    r.floor_gbps = copy_gbps;
    r.fraction = copy_gbps > 0 ? r.gbps / copy_gbps : 0;
    if (log)
      fprintf(log, "  %-15s %-6s %8.1f GB/s  %5.1f%% of copy (cuBLAS)\n", r.op, r.dtype, r.gbps,
              100 * r.fraction);
    GsCheck(GsBenchReportAdd(rep, &r) == 0, ctx, GS_ERR_MEMORY, "cannot grow the report");
  }
#else
  (void)ctx, (void)n, (void)repeats, (void)copy_gbps, (void)rep, (void)log;
#endif
  return 0;
}

void GsBenchPrintTable(const GsBenchReport *rep, FILE *f) {
  fprintf(f, "%-15s %-6s %-9s %-12s %12s %12s %9s %9s\n", "op", "type", "impl", "back end", "n",
          "median (us)", "GB/s", "of copy");
  for (int i = 0; i < rep->nrec; i++) {
    const GsBenchRecord *r = &rep->rec[i];
    fprintf(f, "%-15s %-6s %-9s %-12s %12lld %12.1f %9.1f %8.1f%%\n", r->op, r->dtype, r->impl,
            r->resource, r->n, 1e6 * r->median_s, r->gbps, 100 * r->fraction);
  }
}

/* The first line of cmd's output, without its newline, into out; 0 where there is none. */
static int first_line(const char *cmd, char *out, size_t len) {
  out[0] = 0;
  FILE *p = popen(cmd, "r");
  if (!p) return 0;
  if (fgets(out, (int)len, p)) out[strcspn(out, "\n")] = 0;
  pclose(p);
  return out[0] != 0;
}

/* The commit measured: GS_GIT_SHA, else the working directory's git HEAD, with "-dirty" after it
 * where a tracked file differs from HEAD (a build of uncommitted changes, or a copy of a newer
 * tree over an older .git, as on a machine that receives working trees), else "unknown". */
void GsBenchGitSha(char *buf, size_t len) {
  const char *env = getenv("GS_GIT_SHA");
  snprintf(buf, len, "unknown");
  if (env && env[0]) {
    snprintf(buf, len, "%s", env);
    return;
  }
  char line[128], st[8];
  if (!first_line("git rev-parse HEAD 2>/dev/null", line, sizeof line)) return;
  const int dirty =
      first_line("git status --porcelain --untracked-files=no 2>/dev/null", st, sizeof st);
  snprintf(buf, len, "%s%s", line, dirty ? "-dirty" : "");
}
