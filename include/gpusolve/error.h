/* Error codes and error handling.
 *
 * Every gpusolve function returns an int: 0 on success, a GsErrorCode otherwise. The library never
 * exits or aborts; the message of the last error raised (with a trace of the calls it passed
 * through) is kept in the context and returned by GsGetErrorMessage(). */
#ifndef GPUSOLVE_ERROR_H
#define GPUSOLVE_ERROR_H

#include "types.h"

/* One list makes both the enum and the message table (X-macro). */
#define GS_ERROR_LIST(X)                                                                           \
  X(GS_SUCCESS, 0, "success")                                                                      \
  X(GS_ERR_MEMORY, 1, "out of memory")                                                             \
  X(GS_ERR_ARG_NULL, 2, "null argument")                                                           \
  X(GS_ERR_ARG_OUTOFRANGE, 3, "argument out of range")                                             \
  X(GS_ERR_ARG_SIZE, 4, "incompatible sizes")                                                      \
  X(GS_ERR_ARG_TYPE, 5, "incompatible data types")                                                 \
  X(GS_ERR_ARG_INCOMP, 6, "incompatible arguments")                                                \
  X(GS_ERR_WRONG_STATE, 7, "object in the wrong state for this call")                              \
  X(GS_ERR_MEMTYPE, 8, "memory space not available")                                               \
  X(GS_ERR_BACKEND_UNKNOWN, 9, "unknown back end")                                                 \
  X(GS_ERR_BACKEND_NOT_COMPILED, 10, "back end not compiled in")                                   \
  X(GS_ERR_NO_DEVICE, 11, "no such device")                                                        \
  X(GS_ERR_UNSUPPORTED, 12, "operation not supported by this back end")                            \
  X(GS_ERR_OPTION, 13, "bad option value")                                                         \
  X(GS_ERR_FILE_OPEN, 14, "cannot open file")                                                      \
  X(GS_ERR_FILE_READ, 15, "error reading file")                                                    \
  X(GS_ERR_FILE_FORMAT, 16, "bad file format")                                                     \
  X(GS_ERR_FILE_WRITE, 17, "error writing file")                                                   \
  X(GS_ERR_NOT_FINITE, 18, "not-a-number or infinite value")                                       \
  X(GS_ERR_ZERO_PIVOT, 19, "zero pivot")                                                           \
  X(GS_ERR_CUDA, 20, "CUDA runtime error")                                                         \
  X(GS_ERR_CUBLAS, 21, "cuBLAS error")                                                             \
  X(GS_ERR_CUSPARSE, 22, "cuSPARSE error")                                                         \
  X(GS_ERR_MPI, 23, "MPI error")                                                                   \
  X(GS_ERR_NCCL, 24, "NCCL error")                                                                 \
  X(GS_ERR_SYSTEM, 25, "system call failed")                                                       \
  X(GS_ERR_INTERNAL, 26, "internal error (a bug in gpusolve)")                                     \
  X(GS_ERR_USER, 27, "error in the caller's code (a callback)")

typedef enum {
#define GS_ERROR_ENUM_(name, value, msg) name = value,
  GS_ERROR_LIST(GS_ERROR_ENUM_)
#undef GS_ERROR_ENUM_
      GS_ERR_COUNT_
} GsErrorCode;

#ifdef __cplusplus
extern "C" {
#endif

/* Short description of a code ("incompatible sizes"); never NULL. */
const char *GsErrorString(int code);
/* Name of a code ("GS_ERR_ARG_SIZE"); never NULL. */
const char *GsErrorName(int code);
/* Full message of the last error raised on ctx, with its call trace; with ctx NULL, the last error
 * raised in this thread without a context (for example by a failing GsInit). "" if none. */
const char *GsGetErrorMessage(GsContext ctx);
/* Code of the last error raised on ctx (or in this thread when ctx is NULL); 0 if none. */
int GsGetErrorCode(GsContext ctx);
/* Forget the last error on ctx (or this thread's context-less error). */
void GsClearError(GsContext ctx);

/* Raise an error: record "NAME: message" with its origin and return code. Used by GsCheck. */
int GsErrorRaise(GsContext ctx, int code, const char *file, int line, const char *func,
                 const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
/* Append one "at func (file:line)" line to the error being propagated; returns code. */
int GsErrorTrace(int code, const char *file, int line, const char *func);

#ifdef __cplusplus
}
#endif

/* Propagate a failing call to the caller, adding this location to the error's trace. */
#define GsCall(expr)                                                                               \
  do {                                                                                             \
    int gs_ierr_ = (expr);                                                                         \
    if (gs_ierr_) return GsErrorTrace(gs_ierr_, __FILE__, __LINE__, __func__);                     \
  } while (0)

/* Raise error `code` on ctx with a printf-style message when cond is false. */
#define GsCheck(cond, ctx, code, ...)                                                              \
  do {                                                                                             \
    if (!(cond)) return GsErrorRaise((ctx), (code), __FILE__, __LINE__, __func__, __VA_ARGS__);    \
  } while (0)

/* Raise unconditionally. */
#define GsError(ctx, code, ...)                                                                    \
  GsErrorRaise((ctx), (code), __FILE__, __LINE__, __func__, __VA_ARGS__)

#endif
