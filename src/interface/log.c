/* Event log: calls, time, bytes and flops per named event, printed by -log_view. Timing goes
 * through the back end's timers, so GPU work is measured with device events on the context's
 * stream. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../gsimpl.h"

double GsWallTime(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static GsLogEvent find_event(GsContext ctx, const char *name) {
  for (int i = 0; i < ctx->nevents; i++)
    if (!strcmp(ctx->events[i].name, name)) return i;
  return -1;
}

int GsLogEventRegister(GsContext ctx, const char *name, GsLogEvent *event) {
  GsCheckHandle(NULL, ctx);
  GsCheckHandle(ctx, name);
  GsCheckHandle(ctx, event);
  if ((*event = find_event(ctx, name)) >= 0) return 0;
  if (ctx->nevents == ctx->cap_events) {
    int cap = ctx->cap_events ? 2 * ctx->cap_events : 32;
    GsLogEventRec *grown = realloc(ctx->events, (size_t)cap * sizeof *grown);
    GsCheck(grown != NULL, ctx, GS_ERR_MEMORY, "cannot grow the event log");
    ctx->events = grown;
    ctx->cap_events = cap;
  }
  size_t len = strlen(name) + 1;
  char *copy = malloc(len);
  GsCheck(copy != NULL, ctx, GS_ERR_MEMORY, "cannot register event %s", name);
  memcpy(copy, name, len);
  ctx->events[ctx->nevents] = (GsLogEventRec){.name = copy};
  *event = ctx->nevents++;
  return 0;
}

GS_INTERN int GsLogRegisterBuiltins(GsContext ctx) {
  GsBuiltinEvents *e = &ctx->ev;
  GsCall(GsLogEventRegister(ctx, "VecSet", &e->vec_set));
  GsCall(GsLogEventRegister(ctx, "VecCopy", &e->vec_copy));
  GsCall(GsLogEventRegister(ctx, "VecScale", &e->vec_scale));
  GsCall(GsLogEventRegister(ctx, "VecAXPY", &e->vec_axpy));
  GsCall(GsLogEventRegister(ctx, "VecAXPBY", &e->vec_axpby));
  GsCall(GsLogEventRegister(ctx, "VecWAXPY", &e->vec_waxpy));
  GsCall(GsLogEventRegister(ctx, "VecMAXPY", &e->vec_maxpy));
  GsCall(GsLogEventRegister(ctx, "VecAXPBYPCZ", &e->vec_axpbypcz));
  GsCall(GsLogEventRegister(ctx, "VecPointwise", &e->vec_pointwise));
  GsCall(GsLogEventRegister(ctx, "VecReciprocal", &e->vec_reciprocal));
  GsCall(GsLogEventRegister(ctx, "VecDot", &e->vec_dot));
  GsCall(GsLogEventRegister(ctx, "VecMDot", &e->vec_mdot));
  GsCall(GsLogEventRegister(ctx, "VecNorm", &e->vec_norm));
  GsCall(GsLogEventRegister(ctx, "VecAXPYNorm", &e->vec_axpy_norm));
  GsCall(GsLogEventRegister(ctx, "VecDotNorm2", &e->vec_dot_norm2));
  GsCall(GsLogEventRegister(ctx, "VecAXPYPair", &e->vec_axpy_pair));
  GsCall(GsLogEventRegister(ctx, "VecPointwiseMultAYPX", &e->vec_pw_mult_aypx));
  GsCall(GsLogEventRegister(ctx, "VecAXPYPointwiseMultAYPX", &e->vec_axpy_pw_mult_aypx));
  GsCall(GsLogEventRegister(ctx, "VecSetRandom", &e->vec_random));
  GsCall(GsLogEventRegister(ctx, "MemCopyHtoD", &e->mem_htod));
  GsCall(GsLogEventRegister(ctx, "MemCopyDtoH", &e->mem_dtoh));
  return 0;
}

GS_INTERN void GsLogFree(GsContext ctx) {
  for (int i = 0; i < ctx->nevents; i++) {
    if (ctx->events[i].timer && ctx->ops && ctx->ops->timer_destroy)
      ctx->ops->timer_destroy(ctx, ctx->events[i].timer);
    free(ctx->events[i].name);
  }
  free(ctx->events);
  ctx->events = NULL;
  ctx->nevents = ctx->cap_events = 0;
}

int GsLogEnable(GsContext ctx, int on) {
  GsCheckHandle(NULL, ctx);
  ctx->log_on = on != 0;
  return 0;
}

#define CHECK_EVENT(ctx, ev)                                                                       \
  GsCheck((ev) >= 0 && (ev) < (ctx)->nevents, ctx, GS_ERR_ARG_OUTOFRANGE,                          \
          "event %d is not registered (%d events)", (int)(ev), (ctx)->nevents)

int GsLogEventBegin(GsContext ctx, GsLogEvent event) {
  GsCheckHandle(NULL, ctx);
  if (!ctx->log_on) return 0;
  CHECK_EVENT(ctx, event);
  GsLogEventRec *e = &ctx->events[event];
  GsCheck(!e->active, ctx, GS_ERR_WRONG_STATE, "event %s begun twice without an end", e->name);
  if (!e->timer) GsCall(ctx->ops->timer_create(ctx, &e->timer));
  GsCall(ctx->ops->timer_begin(ctx, e->timer));
  e->active = 1;
  return 0;
}

int GsLogEventEnd(GsContext ctx, GsLogEvent event, double bytes, double flops) {
  GsCheckHandle(NULL, ctx);
  /* Cheap when logging is off and the event was not begun. */
  if (!ctx->log_on && (event < 0 || event >= ctx->nevents || !ctx->events[event].active)) return 0;
  CHECK_EVENT(ctx, event);
  GsLogEventRec *e = &ctx->events[event];
  /* Logging may have been switched on between a begin and its end: count nothing then. */
  if (!e->active) return 0;
  e->active = 0;
  /* ... or switched off: close the event, count nothing. The time comes when the back end has
   * it: the log does not wait for the device here, so that logging does not serialize the work
   * it measures (log_settle collects what is pending). */
  GsCall(ctx->ops->timer_end(ctx, e->timer, ctx->log_on, &e->seconds));
  if (!ctx->log_on) return 0;
  e->calls++;
  e->bytes += bytes;
  e->flops += flops;
  return 0;
}

GS_INTERN void GsLogEventCancel(GsContext ctx, GsLogEvent event) {
  if (ctx && event >= 0 && event < ctx->nevents) ctx->events[event].active = 0;
}

/* Wait for the device time of event e's pairs still pending and add it. */
static int log_settle(GsContext ctx, GsLogEventRec *e) {
  if (e->timer && ctx->ops->timer_read) GsCall(ctx->ops->timer_read(ctx, e->timer, &e->seconds));
  return 0;
}

int GsLogEventGetId(GsContext ctx, const char *name, GsLogEvent *event) {
  GsCheckHandle(NULL, ctx);
  GsCheckHandle(ctx, name);
  GsCheckHandle(ctx, event);
  if ((*event = find_event(ctx, name)) >= 0) return 0;
  return GsError(ctx, GS_ERR_ARG_OUTOFRANGE, "no event named '%s' is registered", name);
}

int GsLogEventGetInfo(GsContext ctx, GsLogEvent event, GsInt *calls, double *seconds, double *bytes,
                      double *flops) {
  GsCheckHandle(NULL, ctx);
  CHECK_EVENT(ctx, event);
  GsLogEventRec *e = &ctx->events[event];
  GsCall(log_settle(ctx, e));
  if (calls) *calls = e->calls;
  if (seconds) *seconds = e->seconds;
  if (bytes) *bytes = e->bytes;
  if (flops) *flops = e->flops;
  return 0;
}

int GsLogView(GsContext ctx, FILE *f) {
  GsCheckHandle(NULL, ctx);
  if (!f) f = stdout;
  GsDeviceInfo info;
  GsCall(GsGetDeviceInfo(ctx, &info));
  fprintf(f, "---------------------------- gpusolve -log_view ----------------------------\n");
  fprintf(f, "back end %s on %s%s\n", ctx->resource, info.name,
          ctx->ops->mem == GS_MEM_DEVICE ? " (times from device events)" : "");
  fprintf(f, "%-16s %10s %12s %12s %10s %10s\n", "Event", "Calls", "Time (s)", "Avg (us)", "GB/s",
          "GFlop/s");
  for (int i = 0; i < ctx->nevents; i++) {
    GsLogEventRec *e = &ctx->events[i];
    GsCall(log_settle(ctx, e));
    if (!e->calls) continue;
    double t = e->seconds > 0 ? e->seconds : 0;
    fprintf(f, "%-16s %10lld %12.4e %12.2f %10.1f %10.2f\n", e->name, (long long)e->calls, t,
            1e6 * t / (double)e->calls, t > 0 ? e->bytes / t / 1e9 : 0.0,
            t > 0 ? e->flops / t / 1e9 : 0.0);
  }
  fprintf(f, "----------------------------------------------------------------------------\n");
  return 0;
}
