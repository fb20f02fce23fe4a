/* Error codes, messages and the propagation trace. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../gsimpl.h"

/* Errors raised without a context (GsInit failing, NULL handles) land here, one per thread. */
static _Thread_local char tls_errmsg[GS_ERRMSG_LEN];
static _Thread_local int tls_errcode;
/* Where the error now propagating was recorded, so GsCall can append its location to it. */
static _Thread_local char *tls_trace_buf;

const char *GsErrorString(int code) {
  switch (code) {
#define GS_ERROR_CASE_(name, value, msg)                                                           \
  case value:                                                                                      \
    return msg;
    GS_ERROR_LIST(GS_ERROR_CASE_)
#undef GS_ERROR_CASE_
  default:
    return "unknown error code";
  }
}

const char *GsErrorName(int code) {
  switch (code) {
#define GS_ERROR_CASE_(name, value, msg)                                                           \
  case value:                                                                                      \
    return #name;
    GS_ERROR_LIST(GS_ERROR_CASE_)
#undef GS_ERROR_CASE_
  default:
    return "GS_ERR_UNKNOWN";
  }
}

static const char *short_file(const char *file) {
  /* Keep the path from "src/", "tests/", ... so messages do not depend on the build directory. */
  static const char *const roots[] = {"/src/", "/tests/", "/tools/", "/apps/", "/benchmarks/"};
  const char *best = NULL;
  for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) {
    const char *p = strstr(file, roots[i]);
    if (p && (!best || p > best)) best = p;
  }
  return best ? best + 1 : file;
}

int GsErrorRaise(GsContext ctx, int code, const char *file, int line, const char *func,
                 const char *fmt, ...) {
  char *buf = ctx ? ctx->errmsg : tls_errmsg;
  int n = snprintf(buf, GS_ERRMSG_LEN, "%s (%s): ", GsErrorName(code), GsErrorString(code));
  if (n < 0 || n >= GS_ERRMSG_LEN) n = 0;
  va_list ap;
  va_start(ap, fmt);
  int m = vsnprintf(buf + n, GS_ERRMSG_LEN - (size_t)n, fmt, ap);
  va_end(ap);
  if (m > 0) n += m;
  if (n < GS_ERRMSG_LEN)
    snprintf(buf + n, GS_ERRMSG_LEN - (size_t)n, "\n  at %s (%s:%d)", func, short_file(file), line);
  if (ctx)
    ctx->errcode = code;
  else
    tls_errcode = code;
  tls_trace_buf = buf;
  return code;
}

int GsErrorTrace(int code, const char *file, int line, const char *func) {
  char *buf = tls_trace_buf;
  if (!buf) return code;
  size_t len = strlen(buf);
  if (len + 1 < GS_ERRMSG_LEN)
    snprintf(buf + len, GS_ERRMSG_LEN - len, "\n  at %s (%s:%d)", func, short_file(file), line);
  return code;
}

const char *GsGetErrorMessage(GsContext ctx) {
  return ctx ? ctx->errmsg : tls_errmsg;
}

int GsGetErrorCode(GsContext ctx) {
  return ctx ? ctx->errcode : tls_errcode;
}

void GsClearError(GsContext ctx) {
  char *buf = ctx ? ctx->errmsg : tls_errmsg;
  buf[0] = 0;
  if (ctx)
    ctx->errcode = 0;
  else
    tls_errcode = 0;
  if (tls_trace_buf == buf) tls_trace_buf = NULL;
}

/* A context being freed must not stay the target of later traces. */
GS_INTERN void GsErrorForgetContext(GsContext ctx) {
  if (ctx && tls_trace_buf == ctx->errmsg) tls_trace_buf = NULL;
}

/* Move ctx's error into this thread's context-less slot (ctx is about to be freed). */
GS_INTERN void GsErrorAdopt(GsContext ctx) {
  memcpy(tls_errmsg, ctx->errmsg, GS_ERRMSG_LEN);
  tls_errcode = ctx->errcode;
  tls_trace_buf = tls_errmsg;
}
