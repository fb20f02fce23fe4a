/* Scalars kept where the context computes (include/gpusolve/vec.h), and their reads. */
#include <stdlib.h>
#include <string.h>

#include "../gsimpl.h"

#define CHECK_RANGE(s, first, count)                                                               \
  GsCheck((first) >= 0 && (count) >= 0 && (first) <= (s)->n - (count), (s)->ctx,                   \
          GS_ERR_ARG_OUTOFRANGE, "entries %d..%d are outside the %d scalars", (first),             \
          (first) + (count)-1, (s)->n)

static void scalars_free(GsScalars s) {
  GsContext ctx = s->ctx;
  if (s->mark && ctx->ops->mark_destroy) (void)ctx->ops->mark_destroy(ctx, s->mark);
  GsMemFree(ctx, s->d);
  if (s->h_owned == 2)
    (void)ctx->ops->host_free(ctx, s->h);
  else
    free(s->h);
  free(s);
}

int GsScalarsCreate(GsContext ctx, int n, GsScalars *s) {
  GsCheckHandle(NULL, ctx);
  GsCheckHandle(ctx, s);
  *s = NULL;
  GsCheck(n >= 1, ctx, GS_ERR_ARG_OUTOFRANGE, "scalars need n >= 1, not %d", n);
  GsScalars x = NULL;
  GsCall(GsMallocHost(ctx, sizeof *x, (void **)&x));
  x->ctx = ctx;
  x->n = n;
  const size_t bytes = (size_t)n * sizeof(double);
  int ierr = GsMemAlloc(ctx, bytes, (void **)&x->d);
  if (!ierr && ctx->ops->host_alloc) {
    ierr = ctx->ops->host_alloc(ctx, bytes, (void **)&x->h);
    if (!ierr) x->h_owned = 2;
  } else if (!ierr) {
    ierr = GsMallocHost(ctx, bytes, (void **)&x->h);
    if (!ierr) x->h_owned = 1;
  }
  if (!ierr) {
    memset(x->h, 0, bytes);
    ierr = GsMemCopy(ctx, x->d, ctx->ops->mem, x->h, GS_MEM_HOST, bytes);
  }
  if (ierr) {
    scalars_free(x);
    return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  }
  ctx->nobjects++;
  *s = x;
  return 0;
}

int GsScalarsDestroy(GsScalars *s) {
  if (!s || !*s) return 0;
  GsScalars x = *s;
  GsContext ctx = x->ctx;
  /* A read still in flight lands in h: wait for it before h goes. */
  if (x->rcount && ctx->ops->read_wait) (void)ctx->ops->read_wait(ctx, x->mark);
  ctx->nobjects--;
  scalars_free(x);
  *s = NULL;
  return 0;
}

int GsScalarsGetSize(GsScalars s, int *n) {
  GsCheckHandle(NULL, s);
  GsCheckHandle(s->ctx, n);
  *n = s->n;
  return 0;
}

int GsScalarsSet(GsScalars s, int first, int count, const double *v) {
  GsCheckHandle(NULL, s);
  CHECK_RANGE(s, first, count);
  GsCheck(v != NULL || count == 0, s->ctx, GS_ERR_ARG_NULL, "values pointer is NULL");
  if (count)
    GsCall(GsMemCopy(s->ctx, s->d + first, s->ctx->ops->mem, v, GS_MEM_HOST,
                     (size_t)count * sizeof(double)));
  return 0;
}

int GsScalarsGet(GsScalars s, int first, int count, double *v) {
  GsCheckHandle(NULL, s);
  CHECK_RANGE(s, first, count);
  GsCheck(v != NULL || count == 0, s->ctx, GS_ERR_ARG_NULL, "values pointer is NULL");
  if (count)
    GsCall(GsMemCopy(s->ctx, v, GS_MEM_HOST, s->d + first, s->ctx->ops->mem,
                     (size_t)count * sizeof(double)));
  return 0;
}

int GsScalarsReadBegin(GsScalars s, int first, int count) {
  GsCheckHandle(NULL, s);
  GsContext ctx = s->ctx;
  CHECK_RANGE(s, first, count);
  GsCheck(count >= 1, ctx, GS_ERR_ARG_OUTOFRANGE, "a read needs count >= 1, not %d", count);
  GsCheck(s->rcount == 0, ctx, GS_ERR_WRONG_STATE,
          "a read of scalars %d..%d is still open: GsScalarsReadEnd first", s->rfirst,
          s->rfirst + s->rcount - 1);
  const size_t bytes = (size_t)count * sizeof(double);
  if (ctx->ops->read_async)
    GsCall(ctx->ops->read_async(ctx, s->h + first, s->d + first, bytes, &s->mark));
  else
    memcpy(s->h + first, s->d + first, bytes); /* the compute space is the host's */
  s->rfirst = first;
  s->rcount = count;
  return 0;
}

int GsScalarsReadEnd(GsScalars s, double *v) {
  GsCheckHandle(NULL, s);
  GsContext ctx = s->ctx;
  GsCheck(s->rcount > 0, ctx, GS_ERR_WRONG_STATE, "no read begun: GsScalarsReadBegin first");
  GsCheckHandle(ctx, v);
  const int first = s->rfirst, count = s->rcount;
  s->rcount = 0;
  if (ctx->ops->read_async) GsCall(ctx->ops->read_wait(ctx, s->mark));
  memcpy(v, s->h + first, (size_t)count * sizeof(double));
  return 0;
}

GS_INTERN int GsScalarsCheckFor(GsContext ctx, GsScalars s, const char *name, int first,
                                int count) {
  GsCheck(s != NULL, ctx, GS_ERR_ARG_NULL, "scalars %s is NULL", name);
  GsCheck(s->ctx == ctx, ctx, GS_ERR_ARG_INCOMP, "scalars %s belong to another context", name);
  GsCheck(first >= 0 && first <= s->n - count, ctx, GS_ERR_ARG_OUTOFRANGE,
          "%s: entries %d..%d are outside the %d scalars", name, first, first + count - 1, s->n);
  return 0;
}
