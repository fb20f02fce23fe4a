/* Contexts (back-end selection), the options database and the event log. */
#ifndef GPUSOLVE_SYS_H
#define GPUSOLVE_SYS_H

#include <stdio.h>

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Contexts and back ends ------------------------------------------------------------------ */
/* A context and the objects created on it are used by one host thread at a time (they share the
 * back end's stream and scratch buffers); separate contexts may be used from separate threads. */

/* Create a context on a back end. resource is "/cpu", "/gpu/cuda" (device 0), "/gpu/cuda:N", or
 * NULL for the default: $GS_BACKEND if set, else the first CUDA device when CUDA is compiled in and
 * a device is visible, else "/cpu". "help" prints the compiled-in back ends to stdout and creates
 * nothing (*ctx = NULL, returns 0). Options are read from $GS_OPTIONS. On failure *ctx is NULL and
 * GsGetErrorMessage(NULL) says why. */
int GsInit(const char *resource, GsContext *ctx);
/* As GsInit, and also insert command-line options from argv[1..argc-1] (argv[0] is skipped). */
int GsInitWithArgs(int argc, char **argv, const char *resource, GsContext *ctx);
/* Destroy a context: prints -log_view and -options_left reports if asked (without -options_left
 * either way, options that were set but never read are listed on stderr), frees everything, sets
 * *ctx = NULL. Safe on NULL and twice. Objects created on ctx must be destroyed first. */
int GsDestroy(GsContext *ctx);

/* The resource string of the context's back end, e.g. "/gpu/cuda:0". */
int GsGetResource(GsContext ctx, const char **resource);
/* Memory space where this back end computes: GS_MEM_DEVICE on GPU back ends, else GS_MEM_HOST. */
int GsGetPreferredMemType(GsContext ctx, GsMemType *mem);
/* Write the list of compiled-in back ends (one per line, with availability) to f. */
int GsBackendsView(FILE *f);
/* Number of devices a back end family sees ("/gpu/cuda"); 0 when not compiled or none visible. */
int GsGetDeviceCount(const char *family, int *count);
/* Block until all work queued on the context's device has finished. */
int GsSynchronize(GsContext ctx);
/* Ask for bitwise reproducible results (also -deterministic). Every reduction already is, and the
 * same bits on every back end and device (one summation order, src/gsimpl.h); the flag is recorded
 * for kernels whose fast path would need atomics. */
int GsSetDeterministic(GsContext ctx, int flag);

typedef struct {
  char name[256];                   /* "NVIDIA H200", or the CPU model name */
  int device_id;                    /* -1 for the CPU */
  int compute_major, compute_minor; /* compute capability (0 on the CPU) */
  int multiprocessors;              /* SMs, or CPU threads available to OpenMP */
  size_t total_memory;              /* bytes of device memory (0 if unknown) */
  size_t l2_cache;                  /* bytes of L2 (0 if unknown) */
} GsDeviceInfo;
/* Describe the device the context runs on. */
int GsGetDeviceInfo(GsContext ctx, GsDeviceInfo *info);
/* Measure copy bandwidth in the context's preferred memory space: bytes read plus bytes written per
 * second (GB/s = 1e9 B/s), median of `repeats` copies of a buffer of `bytes` bytes. */
int GsMeasureCopyBandwidth(GsContext ctx, size_t bytes, int repeats, double *gbytes_per_s);

/* ---- Options database (PETSc style) -------------------------------------------------------- */
/* Options are "-name value" or "-name" (a flag). Later insertions override earlier ones. Getters
 * leave *value at the default (the value passed in) when the option is absent and set *set (if not
 * NULL) to whether it was given. A value that does not parse is GS_ERR_OPTION naming the option. */

/* Insert options from argv[1..argc-1]. */
int GsOptionsInsertArgs(GsContext ctx, int argc, char **argv);
/* Insert options from a string such as "-ksp_rtol 1e-8 -ksp_monitor". */
int GsOptionsInsertString(GsContext ctx, const char *str);
/* Set one option (value may be NULL for a flag). name includes the leading '-'. */
int GsOptionsSetValue(GsContext ctx, const char *name, const char *value);
/* Remove an option, so that getters see it absent again (its default) and GsOptionsLeft no longer
 * reports it; removing one that is not set does nothing. name includes the leading '-'. */
int GsOptionsClearValue(GsContext ctx, const char *name);
/* Whether an option was given (marks it used). */
int GsOptionsHasName(GsContext ctx, const char *name, int *set);
int GsOptionsGetInt(GsContext ctx, const char *name, GsInt *value, int *set);
int GsOptionsGetReal(GsContext ctx, const char *name, double *value, int *set);
/* Accepts 1/0, true/false, yes/no, on/off; a bare "-name" is true. */
int GsOptionsGetBool(GsContext ctx, const char *name, int *value, int *set);
/* Copies at most len-1 characters into value; a longer value is GS_ERR_OPTION. */
int GsOptionsGetString(GsContext ctx, const char *name, char *value, size_t len, int *set);
/* value indexes `choices` (a NULL-terminated list); any other word is GS_ERR_OPTION naming them. */
int GsOptionsGetEnum(GsContext ctx, const char *name, const char *const *choices, int *value,
                     int *set);
/* Print options that were given but never read to f; *count (may be NULL) gets their number. */
int GsOptionsLeft(GsContext ctx, FILE *f, int *count);
/* Print every option with its value to f. */
int GsOptionsView(GsContext ctx, FILE *f);

/* ---- Event log (-log_view) ----------------------------------------------------------------- */
/* Events accumulate calls, time, bytes moved and flops while logging is on (-log_view, or
 * GsLogEnable). Work on a GPU is timed with device events on the context's stream, not host clocks.
 */

typedef int GsLogEvent;
/* Register (or look up) a named event. */
int GsLogEventRegister(GsContext ctx, const char *name, GsLogEvent *event);
/* Look up an event by name; GS_ERR_ARG_OUTOFRANGE if none is registered under it. */
int GsLogEventGetId(GsContext ctx, const char *name, GsLogEvent *event);
int GsLogEventBegin(GsContext ctx, GsLogEvent event);
/* End the event, crediting `bytes` moved through memory and `flops` operations. */
int GsLogEventEnd(GsContext ctx, GsLogEvent event, double bytes, double flops);
/* Turn logging on or off (it is on when -log_view was given). */
int GsLogEnable(GsContext ctx, int on);
/* Totals of one event so far. Any output pointer may be NULL. */
int GsLogEventGetInfo(GsContext ctx, GsLogEvent event, GsInt *calls, double *seconds, double *bytes,
                      double *flops);
/* Print the event table (name, calls, time, GB/s, GFlop/s) to f. */
int GsLogView(GsContext ctx, FILE *f);

/* Seconds on a monotonic host clock. */
double GsWallTime(void);

#ifdef __cplusplus
}
#endif
#endif
