/* Error codes, messages and traces: the X-macro table, GsCheck/GsCall/GsError, the per-context and
 * per-thread (context-less) messages, GsClearError, and independence of two contexts. */
#include "harness.h"

/* ---- The code table ------------------------------------------------------------------------ */

static const struct {
  int value;
  const char *name, *msg;
} table[] = {
#define ROW_(name, value, msg) {value, #name, msg},
    GS_ERROR_LIST(ROW_)
#undef ROW_
};
static const int NTABLE = (int)(sizeof table / sizeof table[0]);

static void test_codes(void) {
  CHECK(NTABLE == GS_ERR_COUNT_, "the list has %d codes but GS_ERR_COUNT_ is %d", (int)NTABLE,
        (int)GS_ERR_COUNT_);
  for (int i = 0; i < NTABLE; i++)
    CHECK(table[i].value == i, "code %s has value %d, expected %d (values must be 0..COUNT-1)",
          table[i].name, table[i].value, i);
  CHECK(GS_SUCCESS == 0, "GS_SUCCESS is %d", (int)GS_SUCCESS);
  for (int c = 0; c < GS_ERR_COUNT_; c++) {
    const char *name = GsErrorName(c), *str = GsErrorString(c);
    CHECK(name && name[0], "GsErrorName(%d) is empty", c);
    CHECK(str && str[0], "GsErrorString(%d) is empty", c);
    if (!name || !str) continue;
    CHECK(!strncmp(name, "GS_", 3), "GsErrorName(%d) = '%s' does not start with GS_", c, name);
    if (c < NTABLE) {
      CHECK(!strcmp(name, table[c].name), "GsErrorName(%d) = '%s', table says '%s'", c, name,
            table[c].name);
      CHECK(!strcmp(str, table[c].msg), "GsErrorString(%d) = '%s', table says '%s'", c, str,
            table[c].msg);
    }
    for (int d = 0; d < c; d++) {
      CHECK(strcmp(name, GsErrorName(d)) != 0, "codes %d and %d share the name %s", d, c, name);
      CHECK(strcmp(str, GsErrorString(d)) != 0, "codes %d and %d share the string '%s'", d, c, str);
    }
  }
  /* Codes outside the list still give printable text that names no real code. */
  const int bad[] = {-1, GS_ERR_COUNT_, 1000};
  for (int k = 0; k < 3; k++) {
    const char *name = GsErrorName(bad[k]), *str = GsErrorString(bad[k]);
    CHECK(name && name[0] && str && str[0], "code %d: name or string is empty/NULL", bad[k]);
    for (int c = 0; name && c < GS_ERR_COUNT_; c++)
      CHECK(strcmp(name, GsErrorName(c)) != 0, "out-of-range code %d is named like code %d (%s)",
            bad[k], c, name);
  }
}

/* ---- Raising and propagating --------------------------------------------------------------- */

/* Lines where each level raises or propagates, recorded by the functions themselves. */
static int line3, line2, line1;

static int level3(GsContext ctx, int a, int b) {
  line3 = __LINE__ + 1;
  GsCheck(a <= b, ctx, GS_ERR_ARG_SIZE, "size %d exceeds limit %d", a, b);
  return 0;
}
static int level2(GsContext ctx, int a, int b) {
  line2 = __LINE__ + 1;
  GsCall(level3(ctx, a, b));
  return 0;
}
static int level1(GsContext ctx, int a, int b) {
  line1 = __LINE__ + 1;
  GsCall(level2(ctx, a, b));
  return 0;
}
static int raise_plain(GsContext ctx, int code, const char *word) {
  return GsError(ctx, code, "word=%s", word);
}
/* Propagate through `depth` levels. */
static int deep(GsContext ctx, int depth) {
  if (depth == 0) return GsError(ctx, GS_ERR_INTERNAL, "bottom of a deep stack");
  GsCall(deep(ctx, depth - 1));
  return 0;
}

/* The message has the code name and description, the formatted text, and one "at func (file:line)"
 * per level in order from the raise outwards. */
static void check_trace(GsContext ctx, const char *who) {
  const char *m = GsGetErrorMessage(ctx);
  CHECK(GsGetErrorCode(ctx) == GS_ERR_ARG_SIZE, "%s: code %d, expected GS_ERR_ARG_SIZE", who,
        GsGetErrorCode(ctx));
  CHECK(!strncmp(m, "GS_ERR_ARG_SIZE", 15), "%s: message does not start with the code name:\n%s",
        who, m);
  CHECK(strstr(m, GsErrorString(GS_ERR_ARG_SIZE)) != NULL, "%s: message lacks '%s':\n%s", who,
        GsErrorString(GS_ERR_ARG_SIZE), m);
  CHECK(strstr(m, "size 12345 exceeds limit 678") != NULL, "%s: formatted text missing:\n%s", who,
        m);
  CHECK(hs_count(m, "\n  at ") == 3, "%s: expected 3 trace lines, got %d:\n%s", who,
        hs_count(m, "\n  at "), m);
  char want[3][128];
  snprintf(want[0], sizeof want[0], "\n  at level3 (tests/test_error.c:%d)", line3);
  snprintf(want[1], sizeof want[1], "\n  at level2 (tests/test_error.c:%d)", line2);
  snprintf(want[2], sizeof want[2], "\n  at level1 (tests/test_error.c:%d)", line1);
  const char *prev = m;
  for (int k = 0; k < 3; k++) {
    const char *p = strstr(m, want[k]);
    CHECK(p != NULL, "%s: trace line '%s' missing:\n%s", who, want[k] + 3, m);
    CHECK(!p || p >= prev, "%s: trace line '%s' out of order:\n%s", who, want[k] + 3, m);
    if (p) prev = p;
  }
}

static void test_trace(GsContext a) {
  /* No error: nothing raised, nothing recorded. */
  GsClearError(a);
  CHECK(level1(a, 1, 2) == 0, "level1 failed on a true condition");
  CHECK(GsGetErrorCode(a) == 0 && GsGetErrorMessage(a)[0] == 0,
        "a passing GsCheck left code %d message '%s'", GsGetErrorCode(a), GsGetErrorMessage(a));

  int rc = level1(a, 12345, 678);
  CHECK(rc == GS_ERR_ARG_SIZE, "level1 returned %d, expected GS_ERR_ARG_SIZE", rc);
  check_trace(a, "context");

  GsClearError(a);
  CHECK(GsGetErrorCode(a) == 0, "GsClearError left code %d", GsGetErrorCode(a));
  CHECK(GsGetErrorMessage(a) != NULL && GsGetErrorMessage(a)[0] == 0,
        "GsClearError left message '%s'", GsGetErrorMessage(a));

  /* The same chain with no context lands in the thread's message, leaving the context alone. */
  GsClearError(NULL);
  rc = raise_plain(a, GS_ERR_FILE_OPEN, "on-context");
  CHECK(rc == GS_ERR_FILE_OPEN, "GsError returned %d", rc);
  rc = level1(NULL, 12345, 678);
  CHECK(rc == GS_ERR_ARG_SIZE, "level1(NULL) returned %d", rc);
  check_trace(NULL, "NULL context");
  CHECK(GsGetErrorCode(a) == GS_ERR_FILE_OPEN, "context code changed to %d by a NULL-context error",
        GsGetErrorCode(a));
  CHECK(strstr(GsGetErrorMessage(a), "word=on-context") && !strstr(GsGetErrorMessage(a), "12345"),
        "context message disturbed by a NULL-context error:\n%s", GsGetErrorMessage(a));
  GsClearError(NULL);
  CHECK(GsGetErrorCode(NULL) == 0 && GsGetErrorMessage(NULL)[0] == 0,
        "GsClearError(NULL) left code %d message '%s'", GsGetErrorCode(NULL),
        GsGetErrorMessage(NULL));
  CHECK(GsGetErrorCode(a) == GS_ERR_FILE_OPEN, "GsClearError(NULL) cleared the context too");
  GsClearError(a);

  /* GsError raises unconditionally; GsCheck on a false condition returns the code it raised. */
  rc = raise_plain(a, GS_ERR_NOT_FINITE, "x");
  CHECK(rc == GS_ERR_NOT_FINITE && GsGetErrorCode(a) == GS_ERR_NOT_FINITE,
        "GsError gave rc %d code %d", rc, GsGetErrorCode(a));
  CHECK_MSG(a, "GS_ERR_NOT_FINITE");
  CHECK_MSG(a, "word=x");
  CHECK_MSG(a, "raise_plain (tests/test_error.c:");
  GsClearError(a);

  /* A very long message and a very deep trace are truncated, not overflowed. */
  size_t big = 20000;
  char *longtext = malloc(big + 1);
  if (longtext) {
    memset(longtext, 'z', big);
    longtext[big] = 0;
    rc = raise_plain(a, GS_ERR_INTERNAL, longtext);
    CHECK(rc == GS_ERR_INTERNAL, "long raise returned %d", rc);
    const char *m = GsGetErrorMessage(a);
    CHECK(!strncmp(m, "GS_ERR_INTERNAL", 15), "long message lost its code name");
    CHECK(strlen(m) < big, "long message not truncated (%zu characters)", strlen(m));
    free(longtext);
  }
  rc = deep(a, 500);
  CHECK(rc == GS_ERR_INTERNAL, "deep(500) returned %d", rc);
  CHECK_MSG(a, "bottom of a deep stack");
  CHECK(hs_count(GsGetErrorMessage(a), "\n  at deep (") >= 2, "deep trace has %d lines",
        hs_count(GsGetErrorMessage(a), "\n  at deep ("));
  GsClearError(a);
}

/* ---- Library-raised errors and two contexts ------------------------------------------------ */

static void test_library_errors(GsContext a, GsContext b) {
  /* Raised without a context: GsInit failing, a NULL vector. */
  GsClearError(NULL);
  GsContext bad = NULL;
  CHECK_ERR(GsInit("/no-such-backend", &bad), GS_ERR_BACKEND_UNKNOWN);
  CHECK(bad == NULL, "failed GsInit left a context");
  CHECK(GsGetErrorCode(NULL) == GS_ERR_BACKEND_UNKNOWN, "thread code %d", GsGetErrorCode(NULL));
  CHECK_MSG(NULL, "GS_ERR_BACKEND_UNKNOWN");
  CHECK_MSG(NULL, "/no-such-backend");
  CHECK_MSG(NULL, "\n  at GsInit");
  GsClearError(NULL);
  GsVec x = NULL;
  CHECK_ERR(GsVecScale(x, 2.0), GS_ERR_ARG_NULL);
  CHECK_MSG(NULL, "GS_ERR_ARG_NULL");
  CHECK_MSG(NULL, "NULL");
  CHECK_MSG(NULL, "\n  at GsVecScale (src/interface/vec.c:");
  GsClearError(NULL);

  /* Two contexts: each keeps its own message. */
  GsClearError(a);
  GsClearError(b);
  CHECK(raise_plain(a, GS_ERR_FILE_READ, "alpha") == GS_ERR_FILE_READ, "raise on a");
  CHECK(raise_plain(b, GS_ERR_FILE_WRITE, "beta") == GS_ERR_FILE_WRITE, "raise on b");
  CHECK(GsGetErrorCode(a) == GS_ERR_FILE_READ && GsGetErrorCode(b) == GS_ERR_FILE_WRITE,
        "codes a=%d b=%d", GsGetErrorCode(a), GsGetErrorCode(b));
  CHECK(strstr(GsGetErrorMessage(a), "alpha") && !strstr(GsGetErrorMessage(a), "beta"),
        "context a's message:\n%s", GsGetErrorMessage(a));
  CHECK(strstr(GsGetErrorMessage(b), "beta") && !strstr(GsGetErrorMessage(b), "alpha"),
        "context b's message:\n%s", GsGetErrorMessage(b));
  CHECK(GsGetErrorMessage(NULL)[0] == 0, "context errors leaked into the thread message:\n%s",
        GsGetErrorMessage(NULL));
  GsClearError(a);
  CHECK(GsGetErrorCode(b) == GS_ERR_FILE_WRITE && strstr(GsGetErrorMessage(b), "beta"),
        "clearing a cleared b");

  /* An error raised by the library on a's objects lands in a only. */
  GsVec u = NULL, v = NULL;
  CHECK_OK(GsVecCreate(a, 1234, GS_DOUBLE, &u));
  CHECK_OK(GsVecCreate(a, 5678, GS_DOUBLE, &v));
  CHECK_ERR(GsVecAXPY(u, 1.0, v), GS_ERR_ARG_SIZE);
  CHECK_MSG(a, "GS_ERR_ARG_SIZE");
  CHECK_MSG(a, "1234");
  CHECK_MSG(a, "5678");
  CHECK_MSG(a, "\n  at GsVecAXPY (src/interface/vec.c:");
  CHECK(GsGetErrorCode(b) == GS_ERR_FILE_WRITE && strstr(GsGetErrorMessage(b), "beta") &&
            !strstr(GsGetErrorMessage(b), "1234"),
        "context b's message changed by an error on a:\n%s", GsGetErrorMessage(b));
  CHECK_OK(GsVecDestroy(&u));
  CHECK_OK(GsVecDestroy(&v));
  GsClearError(a);
  GsClearError(b);
}

/* A context destroyed right after raising must not remain the target of later traces (ASan
 * reports a write to freed memory if it does). */
static void test_trace_after_destroy(void) {
  GsContext c = NULL;
  if (CHECK_OK(GsInit("/cpu", &c))) return;
  CHECK(raise_plain(c, GS_ERR_SYSTEM, "dying") == GS_ERR_SYSTEM, "raise");
  CHECK_OK(GsDestroy(&c));
  GsClearError(NULL);
  int rc = GsErrorTrace(GS_ERR_SYSTEM, __FILE__, __LINE__, __func__);
  CHECK(rc == GS_ERR_SYSTEM, "GsErrorTrace returned %d", rc);
}

int main(int argc, char **argv) {
  hs_begin("test_error", "/cpu", argc, argv);
  test_codes();
  GsContext a = NULL, b = NULL;
  if (CHECK_OK(GsInit("/cpu", &a)) || CHECK_OK(GsInit("/cpu", &b))) {
    GsDestroy(&a);
    return hs_finish();
  }
  test_trace(a);
  test_library_errors(a, b);
  test_trace_after_destroy();
  CHECK_OK(GsDestroy(&a));
  CHECK_OK(GsDestroy(&b));
  return hs_finish();
}
