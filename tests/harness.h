/* A tiny header-only test harness for gpusolve (C11 plus a few POSIX calls).
 *
 *   CHECK(cond, fmt, ...)      record a failure with file:line and a message; carry on
 *   CHECK_OK(call)             the call must return 0; otherwise print the library's message
 *   CHECK_ERR(call, code)      the call must return exactly `code`
 *   CHECK_MSG(ctx, text)       the last error message on ctx (NULL: this thread's) contains text
 *
 * A test program calls hs_begin(name, resource, argc, argv) first and ends with
 * `return hs_finish();`, which prints the closing line "name resource: N passed, M failed" and
 * returns 0 or 1. hs_skip() prints "SKIP: reason" and returns 77 (ctest's SKIP_RETURN_CODE).
 * Random data comes from a splitmix64 generator seeded from "-seed N", $GS_TEST_SEED or the clock;
 * the seed is printed so a failure can be reproduced. */
#ifndef GS_TEST_HARNESS_H
#define GS_TEST_HARNESS_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gpusolve.h>

#if defined(__GNUC__)
#define HS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define HS_UNUSED __attribute__((unused))
#else
#define HS_PRINTF(a, b)
#define HS_UNUSED
#endif

/* Failures printed in full; later ones are only counted, so a broken kernel cannot flood the log.
 */
#define HS_MAX_PRINTED 60
#define HS_MAX_CONTEXTS 8

static struct {
  const char *name, *resource;
  long passed, failed;
  uint64_t seed;
  GsContext ctx[HS_MAX_CONTEXTS]; /* contexts whose messages CHECK_OK prints */
} hs;

/* ---- Recording ----------------------------------------------------------------------------- */

static HS_UNUSED HS_PRINTF(4, 5) int hs_check_(int ok, const char *file, int line, const char *fmt,
                                               ...) {
  if (ok) {
    hs.passed++;
    return 1;
  }
  hs.failed++;
  if (hs.failed <= HS_MAX_PRINTED) {
    const char *f = strrchr(file, '/');
    fprintf(stdout, "FAIL %s:%d: ", f ? f + 1 : file, line);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    if (hs.failed == HS_MAX_PRINTED) fprintf(stdout, "(further failures are counted only)\n");
    fflush(stdout);
  }
  return 0;
}

#define CHECK(cond, ...) hs_check_(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

/* Contexts registered here have their messages printed when CHECK_OK or CHECK_ERR fails. */
static HS_UNUSED void hs_watch(GsContext ctx) {
  for (int i = 0; i < HS_MAX_CONTEXTS; i++)
    if (hs.ctx[i] == ctx) return;
  for (int i = 0; i < HS_MAX_CONTEXTS; i++)
    if (!hs.ctx[i]) {
      hs.ctx[i] = ctx;
      return;
    }
}
static HS_UNUSED void hs_unwatch(GsContext ctx) {
  for (int i = 0; i < HS_MAX_CONTEXTS; i++)
    if (hs.ctx[i] == ctx) hs.ctx[i] = NULL;
}

/* The message that most likely belongs to error `rc`: a watched context holding that code, else
 * this thread's context-less error. */
static HS_UNUSED const char *hs_message_for(int rc) {
  for (int i = 0; i < HS_MAX_CONTEXTS; i++)
    if (hs.ctx[i] && GsGetErrorCode(hs.ctx[i]) == rc && GsGetErrorMessage(hs.ctx[i])[0])
      return GsGetErrorMessage(hs.ctx[i]);
  return GsGetErrorMessage(NULL);
}

static HS_UNUSED int hs_check_ok_(int rc, const char *file, int line, const char *expr) {
  hs_check_(rc == 0, file, line, "%s returned %d (%s):\n%s", expr, rc, GsErrorName(rc),
            rc ? hs_message_for(rc) : "");
  return rc;
}
#define CHECK_OK(call) hs_check_ok_((call), __FILE__, __LINE__, #call)

static HS_UNUSED int hs_check_err_(int rc, int want, const char *file, int line, const char *expr) {
  hs_check_(rc == want, file, line, "%s returned %d (%s), expected %s:\n%s", expr, rc,
            GsErrorName(rc), GsErrorName(want), rc ? hs_message_for(rc) : "(no message)");
  return rc;
}
#define CHECK_ERR(call, code) hs_check_err_((call), (code), __FILE__, __LINE__, #call)

static HS_UNUSED int hs_check_msg_(GsContext ctx, const char *text, const char *file, int line) {
  const char *m = GsGetErrorMessage(ctx);
  return hs_check_(m && strstr(m, text) != NULL, file, line,
                   "error message of %s lacks \"%s\"; it is:\n%s", ctx ? "the context" : "NULL",
                   text, m ? m : "(NULL)");
}
#define CHECK_MSG(ctx, text) hs_check_msg_((ctx), (text), __FILE__, __LINE__)

/* ---- Program structure --------------------------------------------------------------------- */

static HS_UNUSED uint64_t hs_parse_seed(int argc, char **argv) {
  for (int i = 1; i + 1 < argc; i++)
    if (!strcmp(argv[i], "-seed")) return strtoull(argv[i + 1], NULL, 0);
  const char *env = getenv("GS_TEST_SEED");
  if (env && env[0]) return strtoull(env, NULL, 0);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return ((uint64_t)ts.tv_sec * 1000003u) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 20);
}

/* Start a test program. resource may be NULL for tests that take no back end. The environment
 * variables the library reads are cleared so a developer's shell cannot change the outcome
 * (set GS_TEST_KEEP_ENV=1 to keep them). */
static HS_UNUSED void hs_begin(const char *name, const char *resource, int argc, char **argv) {
  hs.name = name;
  hs.resource = resource;
  hs.seed = hs_parse_seed(argc, argv);
  if (!getenv("GS_TEST_KEEP_ENV")) {
    unsetenv("GS_BACKEND");
    unsetenv("GS_OPTIONS");
  }
  printf("%s%s%s: seed %" PRIu64 " (rerun: %s%s%s -seed %" PRIu64 ")\n", name, resource ? " " : "",
         resource ? resource : "", hs.seed, name, resource ? " " : "", resource ? resource : "",
         hs.seed);
  fflush(stdout);
}

/* Print the closing line and return the exit status. */
static HS_UNUSED int hs_finish(void) {
  printf("%s%s%s: %ld passed, %ld failed\n", hs.name, hs.resource ? " " : "",
         hs.resource ? hs.resource : "", hs.passed, hs.failed);
  fflush(stdout);
  return hs.failed ? 1 : 0;
}

/* Print "SKIP: reason" and return ctest's skip code. */
static HS_UNUSED HS_PRINTF(1, 2) int hs_skip(const char *fmt, ...) {
  printf("SKIP: ");
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
  return 77;
}

/* Create a context on `resource`. Returns 0 on success, 77 (after printing SKIP) when the back end
 * is not compiled in or has no device, 1 (after recording a failure) otherwise. */
static HS_UNUSED int hs_init_backend(const char *resource, GsContext *ctx) {
  *ctx = NULL;
  int rc = GsInit(resource, ctx);
  if (rc == GS_ERR_BACKEND_NOT_COMPILED || rc == GS_ERR_NO_DEVICE) {
    /* The first line of the message says why, after "NAME (description): "; the trace is noise. */
    const char *m = GsGetErrorMessage(NULL), *why = strstr(m, "): ");
    why = why ? why + 3 : m;
    const char *nl = strchr(why, '\n');
    return hs_skip("%s: %s: %.*s", resource,
                   rc == GS_ERR_NO_DEVICE ? "no device visible" : "back end not compiled in",
                   nl ? (int)(nl - why) : (int)strlen(why), why);
  }
  if (!hs_check_ok_(rc, __FILE__, __LINE__, "GsInit(resource)")) hs_watch(*ctx);
  return rc ? 1 : 0;
}

/* ---- Random data (splitmix64) -------------------------------------------------------------- */

typedef struct {
  uint64_t s;
} HsRng;

/* The folder of the test matrix collection: $GS_TEST_MATRIX_DIR, else the compiled-in default;
 * NULL when it holds no README.md (tests that need the matrices then skip). */
static HS_UNUSED const char *hs_matrix_dir(const char *compiled) {
  const char *dir = getenv("GS_TEST_MATRIX_DIR") ? getenv("GS_TEST_MATRIX_DIR") : compiled;
  char path[1024];
  snprintf(path, sizeof path, "%s/README.md", dir);
  FILE *f = dir[0] ? fopen(path, "r") : NULL;
  if (!f) return NULL;
  fclose(f);
  return dir;
}

/* Machine epsilon of a vector element type. */
static HS_UNUSED double hs_type_eps(GsDataType dt) {
  return dt == GS_DOUBLE ? DBL_EPSILON : FLT_EPSILON;
}

/* One reusable host buffer of at least `bytes` bytes (its contents do not survive a larger
 * request); freed at exit. */
static void *hs_scratch_buf;
static size_t hs_scratch_bytes;
static HS_UNUSED void hs_scratch_free(void) {
  free(hs_scratch_buf);
}
static HS_UNUSED void *hs_scratch(size_t bytes);

/* malloc that ends the test program (status 1) when the host is out of memory. */
static HS_UNUSED void *hs_malloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) {
    fprintf(stderr, "%s: out of host memory (%zu bytes)\n", hs.name ? hs.name : "test", bytes);
    exit(1);
  }
  return p;
}

static HS_UNUSED void *hs_scratch(size_t bytes) {
  if (!hs_scratch_buf || bytes > hs_scratch_bytes) {
    if (!hs_scratch_buf) atexit(hs_scratch_free);
    free(hs_scratch_buf);
    hs_scratch_buf = hs_malloc(bytes);
    hs_scratch_bytes = bytes;
  }
  return hs_scratch_buf;
}

static HS_UNUSED HsRng hs_rng(uint64_t stream) {
  HsRng r = {hs.seed ^ (stream * 0xA0761D6478BD642Full)};
  return r;
}
static HS_UNUSED uint64_t hs_next(HsRng *r) {
  uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
/* Uniform in [0, 1). */
static HS_UNUSED double hs_uniform(HsRng *r) {
  return (double)(hs_next(r) >> 11) * 0x1.0p-53;
}
/* Uniform in [lo, hi). */
static HS_UNUSED double hs_range(HsRng *r, double lo, double hi) {
  return lo + (hi - lo) * hs_uniform(r);
}
/* Integer in [lo, hi]. */
static HS_UNUSED int64_t hs_int(HsRng *r, int64_t lo, int64_t hi) {
  return lo + (int64_t)(hs_next(r) % (uint64_t)(hi - lo + 1));
}
/* Fill with values of random sign and magnitude in [mlo, mhi): never zero when mlo > 0. */
static HS_UNUSED void hs_fill_d(HsRng *r, int64_t n, double *a, double mlo, double mhi) {
  for (int64_t i = 0; i < n; i++) {
    double m = hs_range(r, mlo, mhi);
    a[i] = (hs_next(r) & 1) ? -m : m;
  }
}
static HS_UNUSED void hs_fill_f(HsRng *r, int64_t n, float *a, double mlo, double mhi) {
  for (int64_t i = 0; i < n; i++) {
    double m = hs_range(r, mlo, mhi);
    a[i] = (float)((hs_next(r) & 1) ? -m : m);
  }
}

/* ---- Comparisons --------------------------------------------------------------------------- */

/* max_i |a_i - b_i| / max(|b_i|, tiny); NaN anywhere gives +inf. */
static HS_UNUSED double hs_relerr_d(int64_t n, const double *a, const double *b) {
  double worst = 0;
  for (int64_t i = 0; i < n; i++) {
    double d = fabs(a[i] - b[i]), s = fabs(b[i]) > DBL_MIN ? fabs(b[i]) : DBL_MIN;
    if (isnan(d)) return INFINITY;
    if (d / s > worst) worst = d / s;
  }
  return worst;
}
static HS_UNUSED double hs_relerr_f(int64_t n, const float *a, const float *b) {
  double worst = 0;
  for (int64_t i = 0; i < n; i++) {
    double d = fabs((double)a[i] - b[i]), s = fabs(b[i]) > FLT_MIN ? fabs(b[i]) : FLT_MIN;
    if (isnan(d)) return INFINITY;
    if (d / s > worst) worst = d / s;
  }
  return worst;
}

/* ---- Text output --------------------------------------------------------------------------- */

/* Everything written to f so far, as a malloc'd string (rewinds f). */
static HS_UNUSED char *hs_read_all(FILE *f) {
  fflush(f);
  long len = ftell(f);
  if (len < 0) len = 0;
  char *s = malloc((size_t)len + 1);
  if (!s) return NULL;
  rewind(f);
  size_t got = fread(s, 1, (size_t)len, f);
  s[got] = 0;
  return s;
}

/* Capture what is written to stdout between hs_capture_begin and hs_capture_end (a malloc'd
 * string), for reports the library prints there (GsInit("help"), -log_view, -options_left);
 * hs_capture_stderr_begin / _end do the same for stderr (warnings), also while stdout is being
 * captured. */
static struct {
  FILE *tmp;
  int saved;
} hs_cap[2] = {{NULL, -1}, {NULL, -1}};
static HS_UNUSED int hs_capture_on(int k) {
  FILE *stream = k ? stderr : stdout;
  fflush(stream);
  hs_cap[k].tmp = tmpfile();
  if (!hs_cap[k].tmp) return -1;
  hs_cap[k].saved = dup(fileno(stream));
  if (hs_cap[k].saved < 0 || dup2(fileno(hs_cap[k].tmp), fileno(stream)) < 0) {
    fclose(hs_cap[k].tmp);
    hs_cap[k].tmp = NULL;
    return -1;
  }
  return 0;
}
static HS_UNUSED char *hs_capture_off(int k) {
  FILE *stream = k ? stderr : stdout;
  if (!hs_cap[k].tmp) return NULL;
  fflush(stream);
  dup2(hs_cap[k].saved, fileno(stream));
  close(hs_cap[k].saved);
  hs_cap[k].saved = -1;
  fseek(hs_cap[k].tmp, 0, SEEK_END);
  char *s = hs_read_all(hs_cap[k].tmp);
  fclose(hs_cap[k].tmp);
  hs_cap[k].tmp = NULL;
  return s;
}
static HS_UNUSED int hs_capture_begin(void) {
  return hs_capture_on(0);
}
static HS_UNUSED char *hs_capture_end(void) {
  return hs_capture_off(0);
}
static HS_UNUSED int hs_capture_stderr_begin(void) {
  return hs_capture_on(1);
}
static HS_UNUSED char *hs_capture_stderr_end(void) {
  return hs_capture_off(1);
}

/* Number of non-overlapping occurrences of needle in s. */
static HS_UNUSED int hs_count(const char *s, const char *needle) {
  int k = 0;
  size_t len = strlen(needle);
  if (!s || !len) return 0;
  for (const char *p = strstr(s, needle); p; p = strstr(p + len, needle))
    k++;
  return k;
}

#endif
